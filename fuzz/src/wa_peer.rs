//! WhatsApp node bytes against `wacore-binary` 0.7 (the peer the CLI's
//! output is held to): both decode to the same tree or both reject, except
//! the deliberate differences docs/wa-format.md names, which the model's
//! spec walker recognizes. The model is `crates/quarry-wa/tests/peer_model`,
//! the one `tests/peer.rs` runs on fixtures, proptest trees and random
//! mutations; here coverage guidance picks the inputs.

#[path = "../../crates/quarry-wa/tests/peer_model/mod.rs"]
mod peer_model;

/// Node bytes (no flags byte).
pub fn check_node(data: &[u8]) {
    peer_model::check_agreement(data);
}
