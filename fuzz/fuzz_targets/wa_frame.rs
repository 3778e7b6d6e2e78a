//! WhatsApp frames (flags byte, zlib when flag 0x02) through
//! `quarry_wa::decode_frame`; see `quarry_fuzz::wa::check_frame`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| quarry_fuzz::wa::check_frame(data));
