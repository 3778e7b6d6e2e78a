//! WhatsApp's `SyncActionData`, quarry against prost; see
//! `quarry_fuzz::proto_peer::check_wa_sync_action_data`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| quarry_fuzz::proto_peer::check_wa_sync_action_data(data));
