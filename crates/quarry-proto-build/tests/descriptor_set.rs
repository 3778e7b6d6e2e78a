//! A `FileDescriptorSet` is an input as `.proto` files are: a set made
//! from the same files (by protoc, or by protox) generates the same code.

use std::path::{Path, PathBuf};

use quarry_proto_build::Builder;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn from_proto() -> Builder {
    Builder::new()
        .file(fixtures().join("b.proto"))
        .include(fixtures())
        .rustfmt(false)
}

#[test]
fn protocs_set_of_the_same_files_generates_the_same_code() {
    let code = from_proto().generate().unwrap();
    let from_set = Builder::new()
        .descriptor_set_file(fixtures().join("b.pb"))
        .unwrap()
        .rustfmt(false)
        .generate()
        .unwrap();
    assert!(code == from_set, "{code}\n---\n{from_set}");
    // What the set carries shows in the code: comments (source info), a
    // proto2 default, a map, a oneof, both packages' modules.
    for s in [
        "B's comment.",
        "An open enum.",
        "pub struct BView",
        "pub struct AView",
        "pub mod x {",
        "pub enum AOOneof",
        "DefaultValue::Scalar(3)",
        "super::x::a::AView",
        "::quarry_proto::well_known::DurationView",
    ] {
        assert!(code.contains(s), "{s}: {code}");
    }
}

#[test]
fn protoxs_set_of_the_same_files_generates_the_same_code() {
    let code = from_proto().generate().unwrap();
    let set = prost::Message::encode_to_vec(&from_proto().file_descriptor_set().unwrap());
    let from_set = Builder::new()
        .descriptor_set(set)
        .rustfmt(false)
        .generate()
        .unwrap();
    assert!(code == from_set, "{code}\n---\n{from_set}");
}

#[test]
fn a_proto_file_may_import_a_file_of_a_set() {
    let set = Builder::new()
        .file(fixtures().join("a.proto"))
        .include(fixtures())
        .file_descriptor_set()
        .unwrap();
    // b.proto alone in a directory without a.proto: its import resolves to
    // the set's file.
    let dir = std::env::temp_dir().join(format!("quarry-fds-import-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(fixtures().join("b.proto"), dir.join("b.proto")).unwrap();
    let code = Builder::new()
        .descriptor_set(prost::Message::encode_to_vec(&set))
        .file(dir.join("b.proto"))
        .include(&dir)
        .rustfmt(false)
        .generate()
        .unwrap();
    assert!(code.contains("pub struct AView"), "{code}");
    assert!(code.contains("super::x::a::AView"), "{code}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bytes_that_are_no_descriptor_set_are_an_error() {
    let err = Builder::new()
        .descriptor_set(vec![0x0A, 0x05, 0x01])
        .generate()
        .unwrap_err();
    assert!(err.to_string().contains("not a FileDescriptorSet"), "{err}");
}
