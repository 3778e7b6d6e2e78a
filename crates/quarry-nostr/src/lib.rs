//! Nostr events and messages on the quarry arena.
