//! `quarry_core::utf8::to_str` agrees with the standard validator on every kind
//! of input, ASCII fast path included.

use proptest::prelude::*;

#[test]
fn hand_picked_cases_agree_with_std() {
    let cases: &[&[u8]] = &[
        b"",
        b"entry",
        "ação".as_bytes(),
        "😀".as_bytes(),
        &[0x80],
        &[0xC3],
        &[0xED, 0xA0, 0x80], // a surrogate: not UTF-8
        &[b'a'; 100],
        &[0x7F, 0x00, 0x41],
    ];
    for &bytes in cases {
        assert_eq!(
            quarry_core::utf8::to_str(bytes),
            std::str::from_utf8(bytes).ok(),
            "{bytes:02x?}"
        );
    }
}

#[test]
fn one_high_byte_anywhere_is_found() {
    // Every length the word-wise ASCII check splits differently (under 4,
    // 4 to 7, 8 to 15, 16 to 32, then pairs of 16-byte blocks after the
    // first with a block or none left before the last 16 bytes), with the
    // non-ASCII byte at every position.
    for len in 1..160 {
        // Under Miri (slow), the ends of each 16-byte block only.
        for at in (0..len).filter(|at| !cfg!(miri) || at % 16 == 0 || at % 16 == 15) {
            let mut bytes = vec![b'a'; len];
            bytes[at] = 0xFF;
            assert_eq!(quarry_core::utf8::to_str(&bytes), None, "len {len} at {at}");
            bytes[at] = 0x7F;
            assert!(
                quarry_core::utf8::to_str(&bytes).is_some(),
                "len {len} at {at}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 8 } else { 512 }))]
    #[test]
    fn random_bytes_agree_with_std(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        prop_assert_eq!(quarry_core::utf8::to_str(&bytes), std::str::from_utf8(&bytes).ok());
    }

    #[test]
    fn random_text_is_accepted_unchanged(text in ".{0,32}") {
        prop_assert_eq!(quarry_core::utf8::to_str(text.as_bytes()), Some(text.as_str()));
    }
}
