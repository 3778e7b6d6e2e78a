//! WhatsApp node bytes, quarry against wacore-binary; see
//! `quarry_fuzz::wa_peer::check_node`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| quarry_fuzz::wa_peer::check_node(data));
