//! The id preimage and the control-character rule, pinned with events
//! whose ids were computed each way (both conventions exist in the wild).

mod common;

use quarry_core::Arena;
use quarry_nostr::{ControlChars, Decoder, IdCheck};
use sha2::{Digest, Sha256};

fn report(control: ControlChars) -> Decoder {
    Decoder {
        id_check: IdCheck::Report,
        control_chars: control,
        ..Decoder::new()
    }
}

/// An event whose id is the SHA-256 of `preimage` (written by hand here),
/// signed, with `content_json` as its wire content.
fn event_with_preimage(preimage: &[u8], pubkey: &str, content_json: &str) -> String {
    let id: [u8; 32] = Sha256::digest(preimage).into();
    let keys = common::keys(11);
    let secp: &secp256k1::Secp256k1<secp256k1::All> = secp256k1::global::SECP256K1;
    let sig = keys.sign_schnorr_with_aux_rand(secp, id, &[0u8; 32]);
    let id_hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        r#"{{"id":"{id_hex}","pubkey":"{pubkey}","created_at":1700000000,"kind":1,"tags":[],"content":{content_json},"sig":"{sig}"}}"#
    )
}

#[test]
fn json_stringify_convention_is_the_default() {
    // rust-nostr computes ids the JSON.stringify way: U+0001 as \u0001.
    let ev = common::sign(
        &common::keys(11),
        1_700_000_000,
        1,
        &[],
        "a\u{1}b\u{1f}c\u{7f}",
    );
    let json = ev.as_json();
    assert!(json.contains(r#""a\u0001b\u001fc"#));
    let arena = Arena::new();
    let ours = report(ControlChars::Escape)
        .decode_event(&arena, json.as_bytes())
        .unwrap();
    assert_eq!(ours.id_valid(), Some(true));
    let ours = report(ControlChars::Verbatim)
        .decode_event(&arena, json.as_bytes())
        .unwrap();
    assert_eq!(ours.id_valid(), Some(false));
}

#[test]
fn nip01_text_convention_is_available() {
    // The same content with the id computed over the raw control bytes.
    let pk = common::keys(11).public_key().to_hex();
    let preimage = format!("[0,\"{pk}\",1700000000,1,[],\"a\u{1}b\u{1f}c\u{7f}\"]");
    let json = event_with_preimage(preimage.as_bytes(), &pk, r#""a\u0001b\u001Fc""#);
    // The wire content above ends in a raw DEL, valid JSON.
    let json = json.replace(r#"\u001Fc""#, "\\u001Fc\u{7f}\"");
    let theirs = nostr::event::Event::from_json(&json).unwrap();
    assert!(!theirs.verify_id(), "rust-nostr follows JSON.stringify");
    assert!(theirs.verify_signature());
    let arena = Arena::new();
    let ours = report(ControlChars::Escape)
        .decode_event(&arena, json.as_bytes())
        .unwrap();
    assert_eq!(ours.id_valid(), Some(false));
    let ours = report(ControlChars::Verbatim)
        .decode_event(&arena, json.as_bytes())
        .unwrap();
    assert_eq!(ours.id_valid(), Some(true));
    assert!(ours.verify_signature());
}

#[test]
fn canonical_bytes_by_hand() {
    let pk = common::keys(12).public_key().to_hex();
    // Every character class: the seven short escapes, another control,
    // DEL, `/`, non-ASCII and an astral character (written raw).
    let content = "q\"b\\s/n\nr\rt\tb\u{8}f\u{c}c\u{1}d\u{7f}\u{e9}\u{1F980}";
    let expected = format!(
        "[0,\"{pk}\",42,7,[[\"t\",\"x/y\"],[\"e\",\"\"]],\"q\\\"b\\\\s/n\\nr\\rt\\tb\\bf\\fc\\u0001d\u{7f}\u{e9}\u{1F980}\"]"
    );
    let tags = vec![
        vec!["t".to_string(), "x/y".to_string()],
        vec!["e".to_string(), String::new()],
    ];
    let ev = common::sign(&common::keys(12), 42, 7, &tags, content);
    let arena = Arena::new();
    // The wire form here escapes `/` as `\/` and `é` as `\u00E9`
    // (upper-case digits): neither may reach the preimage.
    let json = ev
        .as_json()
        .replace("x/y", "x\\/y")
        .replace('\u{e9}', "\\u00E9");
    assert!(json.contains("\\u00E9") && json.contains("x\\/y"));
    let ours = quarry_nostr::decode_event(&arena, json.as_bytes()).unwrap();
    let mut out = Vec::new();
    ours.write_canonical(&mut out, ControlChars::Escape);
    assert_eq!(String::from_utf8(out).unwrap(), expected);
    let id: [u8; 32] = Sha256::digest(expected.as_bytes()).into();
    assert_eq!(&id, ev.id.as_bytes());
    assert_eq!(ours.compute_id(ControlChars::Escape), id);
    let mut verbatim = Vec::new();
    ours.write_canonical(&mut verbatim, ControlChars::Verbatim);
    assert_eq!(verbatim, expected.replace("\\u0001", "\u{1}").into_bytes());
}
