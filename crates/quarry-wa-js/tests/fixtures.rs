//! The stanzas the JavaScript tests and benchmark read
//! (`test/fixtures/stanzas.json`): the bench cases of `quarry-benches` and
//! a small receipt, all built and marshalled by wacore-binary (the peer), so
//! the bytes are the peer's, not quarry's.
//!
//! The test fails when the committed file differs from what the peer
//! produces; `QUARRY_WRITE_FIXTURES=1 cargo test -p quarry-wa-js --test
//! fixtures` rewrites it.

use std::fmt::Write as _;
use std::path::Path;

use wacore_binary::builder::NodeBuilder;
use wacore_binary::marshal::marshal;

/// A delivery receipt as a server sends it for one message.
fn small_receipt() -> Vec<u8> {
    let node = NodeBuilder::new("receipt")
        .attr("from", "5511999990000@s.whatsapp.net")
        .attr("id", "3EB0A1B2C3D4E5F60718")
        .attr("t", "1733500000")
        .build();
    let mut framed = marshal(&node).expect("the peer marshals its own tree");
    framed.remove(0);
    framed
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

fn render() -> String {
    let mut cases: Vec<(&str, Vec<u8>)> = quarry_benches::wa::cases()
        .iter()
        .map(|c| (c.name, c.bytes.clone()))
        .collect();
    cases.push(("small_receipt", small_receipt()));
    let mut json = String::from("{\n");
    for (i, (name, bytes)) in cases.iter().enumerate() {
        let comma = if i + 1 < cases.len() { "," } else { "" };
        let _ = writeln!(json, "  \"{name}\": \"{}\"{comma}", hex(bytes));
    }
    json.push_str("}\n");
    json
}

#[test]
fn fixture_file_holds_the_peer_stanzas() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("test/fixtures/stanzas.json");
    let want = render();
    if std::env::var_os("QUARRY_WRITE_FIXTURES").is_some() {
        std::fs::write(&path, &want).expect("write the fixture file");
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "{} is stale: rerun with QUARRY_WRITE_FIXTURES=1",
        path.display()
    );
}

#[test]
fn quarry_decodes_every_fixture_like_the_peer() {
    // Cross-check on the Rust side too: quarry's tree equals the peer's
    // rebuilt through quarry's owned type.
    for case in quarry_benches::wa::cases() {
        let arena = quarry_wa::Arena::new();
        let node = quarry_wa::decode(&arena, &case.bytes).expect("quarry decodes the peer's bytes");
        assert_eq!(node.to_owned_node(), case.quarry_tree, "{}", case.name);
    }
    let arena = quarry_wa::Arena::new();
    let bytes = small_receipt();
    let receipt = quarry_wa::decode(&arena, &bytes).expect("decodes");
    assert_eq!(receipt.tag(), "receipt");
    assert_eq!(receipt.attr("t").unwrap(), "1733500000");
    assert_eq!(
        receipt.attr("from").unwrap(),
        "5511999990000@s.whatsapp.net"
    );
}
