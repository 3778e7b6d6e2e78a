//! Writing a command's result to stdout in one piece.

use std::io::Write;

use crate::exit::Failure;

/// Write `bytes` to stdout and flush. A closed pipe is an I/O failure
/// (exit status 1), not a panic.
pub fn write(bytes: &[u8]) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| Failure::Io(format!("writing stdout: {e}")))
}
