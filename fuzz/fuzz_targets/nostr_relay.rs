//! Nostr relay-to-client messages; see `quarry_fuzz::nostr::check_relay`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| quarry_fuzz::nostr::check_relay(data));
