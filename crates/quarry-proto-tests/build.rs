//! Generates quarry views (and prost types to compare them with) for the
//! test schemas in `proto/` and for WhatsApp's schema from the waproto
//! package, found through `cargo metadata`.

use std::path::{Path, PathBuf};

#[path = "waproto_src.rs"]
mod waproto_src;
use waproto_src::waproto_src;

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=waproto_src.rs");

    let tests = quarry_proto_build::Builder::new()
        .file("proto/test2.proto")
        .file("proto/test3.proto")
        .file("proto/odd2.proto")
        .file("proto/odd3.proto")
        .file("proto/names.proto")
        .include("proto")
        .prost_package("quarry.test2", "crate::pb::test2")
        .prost_package("quarry.test3", "crate::pb::test3")
        .prost_package("quarry.odd2", "crate::pb::odd2")
        .prost_package("quarry.odd3", "crate::pb::odd3")
        .prost_package("quarry.names", "crate::pb::names");
    tests.compile("test_views.rs").expect("generate test views");
    prost(&tests, &out.join("prost_tests"));

    quarry_proto_build::Builder::new()
        .file("proto/ext/order.proto")
        .include("proto/ext")
        .extern_path(".quarry.shared", "crate::hand::shared")
        .type_attribute(".quarry.order.Order", "#[doc(alias = \"purchase\")]")
        .field_attribute(".quarry.order.Order.note", "#[must_use]")
        .compile("ext_views.rs")
        .expect("generate the extern-path views");

    let wa_dir = waproto_src().expect("waproto's package (cargo metadata)");
    // Where whatsapp.proto is, for tests that hand the file to the CLI.
    println!("cargo:rustc-env=QUARRY_WA_PROTO_DIR={}", wa_dir.display());
    let wa = quarry_proto_build::Builder::new()
        .file(wa_dir.join("whatsapp.proto"))
        .include(&wa_dir)
        .prost_package("whatsapp", "crate::pb::whatsapp");
    wa.compile("wa_views.rs").expect("generate WhatsApp views");
    prost(&wa, &out.join("prost_wa"));
}

fn prost(builder: &quarry_proto_build::Builder, dir: &Path) {
    std::fs::create_dir_all(dir).expect("prost out dir");
    let fds = builder.file_descriptor_set().expect("descriptor set");
    // The descriptors, for tests that build random messages from them.
    std::fs::write(
        dir.join("descriptors.bin"),
        prost::Message::encode_to_vec(&fds),
    )
    .expect("write descriptors");
    prost_build::Config::new()
        .out_dir(dir)
        .compile_fds(fds)
        .expect("prost-build");
}
