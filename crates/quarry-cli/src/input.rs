//! Reading the one input a command takes: a file, or `-` for stdin.

use std::ffi::OsStr;
use std::io::Read;

use crate::exit::Failure;

/// Read all of `path` (or stdin when it is `-`) as bytes.
pub fn read(path: &OsStr) -> Result<Vec<u8>, Failure> {
    if path == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .map_err(|e| Failure::Io(format!("reading stdin: {e}")))?;
        return Ok(bytes);
    }
    std::fs::read(path).map_err(|e| Failure::Io(format!("reading {}: {e}", path.display())))
}
