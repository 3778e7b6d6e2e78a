//! One module per protobuf package: types of another package are reached
//! through it, and a file of another package that declares the same names
//! renames nothing.

use std::path::PathBuf;

use quarry_proto_build::Builder;

fn dir(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("quarry-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (f, text) in files {
        std::fs::write(dir.join(f), text).unwrap();
    }
    dir
}

const A: &str =
    "syntax = \"proto3\";\npackage a.b;\nmessage Msg { int32 x = 1; }\nenum Kind { K0 = 0; }\n";
const C: &str = "syntax = \"proto3\";\npackage c;\nimport \"a.proto\";\n\
                 message Msg { a.b.Msg inner = 1; a.b.Kind kind = 2; }\n";

#[test]
fn packages_become_nested_modules_and_refer_to_each_other() {
    let d = dir("packages", &[("a.proto", A), ("c.proto", C)]);
    let code = Builder::new()
        .file(d.join("c.proto"))
        .include(&d)
        .rustfmt(false)
        .generate()
        .unwrap();
    let file: syn::File = syn::parse_str(&code).unwrap();
    // Top level: SCHEMA, the private tables, and the modules `a` and `c`.
    let mods: Vec<String> = file
        .items
        .iter()
        .filter_map(|i| match i {
            syn::Item::Mod(m) => Some(m.ident.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(mods, ["__tables", "a", "c"]);
    assert!(code.contains("pub mod a {"), "{code}");
    assert!(code.contains("pub mod b {"), "{code}");
    // `c.Msg`'s getters name `a.b`'s types from module `c`: one level up,
    // then down `a::b`; its TABLE names the schema one level up.
    assert!(code.contains("super::a::b::MsgView"), "{code}");
    assert!(code.contains("super::a::b::Kind"), "{code}");
    let compact: String = code.split_whitespace().collect();
    assert!(
        compact.contains("MessageRef::new(&super::SCHEMA,"),
        "c's tables: {code}"
    );
    assert!(
        compact.contains("MessageRef::new(&super::super::SCHEMA,"),
        "a.b's tables: {code}"
    );
    std::fs::remove_dir_all(&d).ok();
}

/// The names of `pub struct`s and `pub enum`s in the module at `path`.
fn types_in(code: &str, path: &[&str]) -> Vec<String> {
    let file: syn::File = syn::parse_str(code).unwrap();
    let mut items = &file.items;
    for p in path {
        items = items
            .iter()
            .find_map(|i| match i {
                syn::Item::Mod(m) if m.ident == p => m.content.as_ref().map(|c| &c.1),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no module {p}"));
    }
    let mut out: Vec<String> = items
        .iter()
        .filter_map(|i| match i {
            syn::Item::Struct(s) => Some(s.ident.to_string()),
            syn::Item::Enum(e) => Some(e.ident.to_string()),
            _ => None,
        })
        .collect();
    out.sort();
    out
}

#[test]
fn a_file_of_another_package_renames_nothing() {
    let d = dir("norename", &[("a.proto", A), ("c.proto", C)]);
    let alone = Builder::new()
        .file(d.join("a.proto"))
        .include(&d)
        .rustfmt(false)
        .generate()
        .unwrap();
    let with_c = Builder::new()
        .file(d.join("a.proto"))
        .file(d.join("c.proto"))
        .include(&d)
        .rustfmt(false)
        .generate()
        .unwrap();
    let expected = ["Kind", "MsgBuilder", "MsgView"];
    assert_eq!(types_in(&alone, &["a", "b"]), expected);
    assert_eq!(types_in(&with_c, &["a", "b"]), expected);
    // `c.Msg` has the same name in its own module.
    assert_eq!(types_in(&with_c, &["c"]), ["MsgBuilder", "MsgView"]);
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn names_flattened_inside_a_package_that_meet_are_numbered_inner_first() {
    // `Outer.Inner` flattens to `OuterInner`, which a top-level message
    // has: the top-level one keeps its name whatever the order.
    let p = "syntax = \"proto3\";\npackage p;\n\
             message Outer { message Inner { int32 x = 1; } Inner i = 1; }\n\
             message OuterInner { int32 y = 1; }\n";
    let d = dir("flatten", &[("p.proto", p)]);
    let code = Builder::new()
        .file(d.join("p.proto"))
        .include(&d)
        .rustfmt(false)
        .generate()
        .unwrap();
    assert_eq!(
        types_in(&code, &["p"]),
        [
            "OuterBuilder",
            "OuterInner2Builder",
            "OuterInner2View",
            "OuterInnerBuilder",
            "OuterInnerView",
            "OuterView"
        ]
    );
    assert!(code.contains("pub fn y(self) -> i32"), "{code}");
    // The top-level `OuterInner` (field `y`) kept the name; the nested
    // one (field `x`) is `OuterInner2`.
    let section = |name: &str| {
        let at = code.find(&format!("pub struct {name}View")).unwrap();
        let rest = &code[at + 1..];
        let end = rest.find("pub struct OuterInner").map_or(rest.len(), |e| e);
        &rest[..end]
    };
    assert!(
        section("OuterInner").contains("pub fn y(self) -> i32"),
        "{code}"
    );
    assert!(
        section("OuterInner2").contains("pub fn x(self) -> i32"),
        "{code}"
    );
    std::fs::remove_dir_all(&d).ok();
}
