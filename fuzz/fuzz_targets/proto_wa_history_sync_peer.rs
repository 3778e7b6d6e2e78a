//! WhatsApp's `HistorySync`, quarry against prost; see
//! `quarry_fuzz::proto_peer::check_wa_history_sync`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| quarry_fuzz::proto_peer::check_wa_history_sync(data));
