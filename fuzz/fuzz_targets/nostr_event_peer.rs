//! Nostr events, quarry against rust-nostr; see
//! `quarry_fuzz::nostr_peer::check_event`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| quarry_fuzz::nostr_peer::check_event(data));
