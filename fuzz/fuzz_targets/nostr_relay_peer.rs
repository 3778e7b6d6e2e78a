//! Nostr relay-to-client messages, quarry against rust-nostr; see
//! `quarry_fuzz::nostr_peer::check_relay`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| quarry_fuzz::nostr_peer::check_relay(data));
