//! Names made of underscores only, which protobuf allows (`int32 _ = 1;`)
//! and which snake_case and UpperCamel turn into nothing: the generator
//! must still emit valid identifiers, never panic on an empty one.

use quarry_proto_build::Builder;

#[test]
fn underscore_only_names_become_valid_identifiers() {
    let dir = std::env::temp_dir().join(format!("quarry-underscores-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("u.proto"),
        "syntax = \"proto2\";\npackage u;\n\
         enum _ { ZERO = 0; }\n\
         message __ { optional int32 a = 1; }\n\
         message M {\n  optional int32 _ = 1;\n  optional _ e = 2;\n  \
         optional __ m = 3;\n  oneof _o { int32 x = 4; }\n}\n",
    )
    .unwrap();
    let code = Builder::new()
        .file(dir.join("u.proto"))
        .include(&dir)
        .rustfmt(false)
        .generate()
        .expect("generates (and the output parses as Rust)");
    // Field `_` reads through `__` (and `has_`), the enum `_` is the type
    // `__`, the message `__` the view `__View`.
    assert!(code.contains("pub fn __(self) -> i32"), "{code}");
    assert!(code.contains("pub fn has_(self) -> bool"), "{code}");
    assert!(code.contains("pub enum __ {"), "{code}");
    assert!(code.contains("pub struct __View<'a>"), "{code}");
    std::fs::remove_dir_all(&dir).ok();
}
