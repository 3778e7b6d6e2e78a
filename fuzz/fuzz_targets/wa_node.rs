//! WhatsApp binary nodes: raw node bytes (no flags byte) through
//! `quarry_wa::decode`, with the properties of `quarry_fuzz::wa::check_node`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| quarry_fuzz::wa::check_node(data));
