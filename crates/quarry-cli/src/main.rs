//! The `quarry` command line.

fn main() {}
