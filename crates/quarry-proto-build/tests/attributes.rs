//! `type_attribute` and `field_attribute` put their attributes before the
//! items whose protobuf paths they match, prost-build's way (`.`, a
//! leading-dot prefix, a suffix without the dot).

use quarry_proto_build::Builder;

const P: &str = "syntax = \"proto3\";\npackage shop.v1;\n\
                 message Order { int32 id = 1; string note = 2; oneof pay { int32 cash = 3; } }\n\
                 message Item { int32 id = 1; }\n\
                 enum State { STATE_NEW = 0; STATE_DONE = 1; }\n";

/// The attribute lines directly above the first line that contains `item`.
fn attrs_before<'a>(code: &'a str, item: &str) -> Vec<&'a str> {
    let lines: Vec<&str> = code.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains(item))
        .unwrap_or_else(|| panic!("{item}: {code}"));
    lines[..at]
        .iter()
        .rev()
        .take_while(|l| l.trim_start().starts_with("#[") || l.trim_start().starts_with("///"))
        .map(|l| l.trim())
        .filter(|l| l.starts_with("#[marker"))
        .collect()
}

#[test]
fn attributes_land_on_the_items_their_paths_match() {
    let dir = std::env::temp_dir().join(format!("quarry-attrs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("shop.proto"), P).unwrap();
    // `#[marker(...)]` is no real attribute: the code is only read here.
    let code = Builder::new()
        .file(dir.join("shop.proto"))
        .include(&dir)
        .rustfmt(false)
        .type_attribute(".", "#[marker(all)]")
        .type_attribute(".shop.v1.Order", "#[marker(order)]")
        .type_attribute("Item", "#[marker(item)]")
        .type_attribute(".shop.v1.Order.pay", "#[marker(pay)]")
        .type_attribute(".shop.v2", "#[marker(never)]")
        .field_attribute(".shop.v1.Order.note", "#[marker(note)]")
        .field_attribute("id", "#[marker(id)]")
        .field_attribute(".shop.v1.State.STATE_DONE", "#[marker(done)]")
        .generate()
        .unwrap();
    assert_eq!(
        attrs_before(&code, "pub struct OrderView"),
        ["#[marker(order)]", "#[marker(all)]"]
    );
    assert_eq!(
        attrs_before(&code, "pub struct ItemView"),
        ["#[marker(item)]", "#[marker(all)]"]
    );
    assert_eq!(attrs_before(&code, "pub enum State {"), ["#[marker(all)]"]);
    // The oneof is inside `.shop.v1.Order`: its enum takes Order's too.
    assert_eq!(
        attrs_before(&code, "pub enum OrderPayOneof"),
        ["#[marker(pay)]", "#[marker(order)]", "#[marker(all)]"]
    );
    assert_eq!(
        attrs_before(&code, "pub fn note(self)"),
        ["#[marker(note)]"]
    );
    assert_eq!(attrs_before(&code, "pub fn cash(self)"), Vec::<&str>::new());
    assert_eq!(attrs_before(&code, "Done = 1"), ["#[marker(done)]"]);
    assert_eq!(attrs_before(&code, "New = 0"), Vec::<&str>::new());
    // Both `id` fields.
    assert_eq!(code.matches("#[marker(id)]").count(), 2, "{code}");
    assert!(!code.contains("never"), "{code}");
    // Builders take none.
    assert_eq!(
        attrs_before(&code, "pub struct OrderBuilder"),
        Vec::<&str>::new()
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_attribute_that_is_not_rust_tokens_is_an_error() {
    let err = Builder::new()
        .file("x.proto")
        .type_attribute(".", "#[derive(Clone")
        .generate()
        .unwrap_err();
    assert!(err.to_string().contains("#[derive(Clone"), "{err}");
}
