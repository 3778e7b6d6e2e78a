//! BIP-340 signature verification (feature `sig`), never done implicitly:
//! it costs far more than decoding.

use secp256k1::{XOnlyPublicKey, global::SECP256K1, schnorr};

use crate::event::Event;

impl Event<'_> {
    /// Whether [`sig`](Self::sig) is a valid BIP-340 Schnorr signature of
    /// [`id`](Self::id) by [`pubkey`](Self::pubkey). Checks the signature
    /// only; the id is checked during decode (see
    /// [`IdCheck`](crate::IdCheck)) or by [`verify`](Self::verify).
    ///
    /// ```
    /// let arena = quarry_core::Arena::new();
    /// let event = quarry_nostr::decode_event(&arena, quarry_nostr::SAMPLE_EVENT.as_bytes())?;
    /// assert!(event.verify_signature());
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn verify_signature(self) -> bool {
        let Ok(pk) = XOnlyPublicKey::from_byte_array(self.pubkey()) else {
            return false;
        };
        let sig = schnorr::Signature::from_byte_array(*self.sig());
        SECP256K1.verify_schnorr(&sig, self.id(), &pk).is_ok()
    }

    /// Id and signature both valid (the id is recomputed unless the decode
    /// already checked it).
    pub fn verify(self) -> bool {
        let id_ok = match self.id_valid() {
            Some(valid) => valid,
            None => self.verify_id(),
        };
        id_ok && self.verify_signature()
    }
}
