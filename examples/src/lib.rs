//! Runnable examples of quarry (see the binaries).
