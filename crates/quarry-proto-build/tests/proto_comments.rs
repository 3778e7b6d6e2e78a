//! `.proto` comments become the generated items' documentation: a leading
//! comment, else a trailing one, of each message, field, enum and enum
//! value, looked up in the element's own file (elements of two files share
//! paths such as "the first message").

use quarry_proto_build::Builder;

#[test]
fn each_element_is_documented_from_its_own_comment_in_its_own_file() {
    let dir = std::env::temp_dir().join(format!("quarry-comments-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("a.proto"),
        "syntax = \"proto3\";\npackage c;\n\
         // about message Alpha\n\
         message Alpha {\n  \
           // about field one\n  int32 one = 1;\n  \
           int32 two = 2; // trailing on two\n\
         }\n\
         // detached, not documentation\n\n\
         // about enum Shade\n\
         enum Shade {\n  \
           // about value DARK\n  DARK = 0;\n  LIGHT = 1;\n\
         }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("b.proto"),
        "syntax = \"proto3\";\npackage c;\nimport \"a.proto\";\n\
         // about message Beta\n\
         message Beta {\n  // about field alpha\n  Alpha alpha = 1;\n}\n",
    )
    .unwrap();
    let code = Builder::new()
        .file(dir.join("a.proto"))
        .file(dir.join("b.proto"))
        .include(&dir)
        .rustfmt(false)
        .generate()
        .expect("generates");
    // Each comment once, on its own item: Alpha and Beta are both the first
    // message of their file, so a lookup in the wrong file would document
    // Beta with Alpha's comment.
    for comment in [
        "about message Alpha",
        "about field one",
        "trailing on two",
        "about enum Shade",
        "about value DARK",
        "about message Beta",
        "about field alpha",
    ] {
        assert_eq!(code.matches(comment).count(), 1, "{comment}: {code}");
    }
    assert!(!code.contains("detached"), "{code}");
    let before = |item: &str| {
        let at = code.find(item).unwrap_or_else(|| panic!("{item}: {code}"));
        &code[..at]
    };
    // The comment closest before each item is its own.
    let closest = |item: &str, comments: &[&str]| -> String {
        let head = before(item);
        comments
            .iter()
            .max_by_key(|c| head.rfind(**c).map_or(-1, |i| i as i64))
            .unwrap()
            .to_string()
    };
    let all = [
        "about message Alpha",
        "about message Beta",
        "about enum Shade",
    ];
    assert_eq!(closest("pub struct AlphaView", &all), "about message Alpha");
    assert_eq!(closest("pub struct BetaView", &all), "about message Beta");
    assert_eq!(closest("pub enum Shade", &all), "about enum Shade");
    std::fs::remove_dir_all(&dir).ok();
}
