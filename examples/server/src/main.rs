//! `quarry-server`: the example server (see the library docs and
//! `quarry-server --help`).

use std::io::Write as _;
use std::process::ExitCode;

use quarry_server::alloc_count::CountingAlloc;
use quarry_server::{ArgsError, Config, USAGE};
use tokio::io::{AsyncBufReadExt, BufReader};

// Counted so the statistics can report allocations per request; the cost
// (an atomic add and a thread-local add per allocation) is the same for
// both decoders.
#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

fn main() -> ExitCode {
    let config = match Config::from_args(std::env::args().skip(1)) {
        Ok(config) => config,
        Err(ArgsError::Help) => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("quarry-server: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("quarry-server: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("quarry-server: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(config: Config) -> std::io::Result<()> {
    let stats_stdin = config.stats_stdin;
    let decoder = config.decoder;
    let server = quarry_server::start(config).await?;
    {
        // Machine-read by the load test: keep the first words stable.
        let mut out = std::io::stdout().lock();
        writeln!(out, "relay ws://{} decoder={decoder}", server.relay_addr())?;
        if let Some(addr) = server.wa_addr() {
            writeln!(out, "wa tcp://{addr}")?;
        }
        writeln!(out, "ready")?;
        out.flush()?;
    }
    if !stats_stdin {
        std::future::pending::<()>().await;
    }
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    while lines.next_line().await?.is_some() {
        let mut out = std::io::stdout().lock();
        writeln!(out, "{}", server.stats().to_json())?;
        out.flush()?;
    }
    Ok(())
}
