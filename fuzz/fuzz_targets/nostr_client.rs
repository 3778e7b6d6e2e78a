//! Nostr client-to-relay messages; see `quarry_fuzz::nostr::check_client`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| quarry_fuzz::nostr::check_client(data));
