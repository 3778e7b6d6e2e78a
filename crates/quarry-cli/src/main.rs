//! The `quarry` command line: decode and encode every format quarry knows.
//!
//! `main` only picks the format module by the first word; each format
//! (`wa`, …) parses the rest of its command line with [`args`], reads its
//! input with [`input`], loops with [`repeat`] and fails through [`exit`].

mod args;
mod exit;
mod input;
mod json;
mod nostr;
mod output;
mod proto;
mod repeat;
mod wa;

use std::ffi::OsString;
use std::process::ExitCode;

const USAGE: &str = "\
usage: quarry <format> <command> [options] FILE|-

formats:
  wa      WhatsApp binary nodes (quarry wa --help)
  nostr   Nostr events and relay/client messages, JSONL (quarry nostr --help)
  proto   protobuf messages of a .proto schema (quarry proto --help)

exit status: 0 ok, 1 I/O error, 2 malformed input or usage error
";

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let format: Option<OsString> = args.next();
    let result = match format.as_ref().and_then(|f| f.to_str()) {
        Some("wa") => wa::run(args),
        Some("nostr") => nostr::run(args),
        Some("proto") => proto::run(args),
        Some("-h" | "--help" | "help") => output::write(USAGE.as_bytes()),
        Some("-V" | "--version") => {
            output::write(concat!("quarry ", env!("CARGO_PKG_VERSION"), "\n").as_bytes())
        }
        Some(other) => Err(exit::Failure::usage(
            format!("unknown format {other:?}"),
            USAGE,
        )),
        None => Err(exit::Failure::usage("missing format", USAGE)),
    };
    exit::finish(result)
}
