//! `app message|sync|history FILE`: decodes FILE as WhatsApp's `Message`,
//! `SyncActionData` or `HistorySync` through both consumer crates and prints
//! what each read (`-` when the bytes do not decode). Every build (one
//! decoder each) prints the same for the same input.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [kind, path] = args.as_slice() else {
        eprintln!("usage: app message|sync|history FILE");
        return ExitCode::from(2);
    };
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("app: {path}: {e}");
            return ExitCode::from(2);
        }
    };
    let (a, b) = match kind.as_str() {
        "message" => (
            consumer_a::on_message(&bytes),
            consumer_b::on_message(&bytes),
        ),
        "sync" => (consumer_a::on_sync(&bytes), consumer_b::on_sync(&bytes)),
        "history" => (
            consumer_a::on_history(&bytes),
            consumer_b::on_history(&bytes),
        ),
        _ => {
            eprintln!("app: unknown root {kind}");
            return ExitCode::from(2);
        }
    };
    let show = |r: Option<u64>| r.map_or_else(|| "-".to_owned(), |n| n.to_string());
    println!("{} {}", show(a), show(b));
    ExitCode::SUCCESS
}
