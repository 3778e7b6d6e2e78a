//! Generates quarry views (and prost types to compare them with) for the
//! test schemas in `proto/` and for WhatsApp's schema from the waproto
//! package, found through `cargo metadata`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    println!("cargo:rerun-if-changed=build.rs");

    let tests = quarry_proto_build::Builder::new()
        .file("proto/test2.proto")
        .file("proto/test3.proto")
        .include("proto")
        .prost_package("quarry.test2", "crate::pb::test2")
        .prost_package("quarry.test3", "crate::pb::test3");
    tests.compile("test_views.rs").expect("generate test views");
    prost(&tests, &out.join("prost_tests"));

    let wa_dir = waproto_src().expect("waproto's package (cargo metadata)");
    // Where whatsapp.proto is, for tests that hand the file to the CLI.
    println!("cargo:rustc-env=QUARRY_WA_PROTO_DIR={}", wa_dir.display());
    println!(
        "cargo:rerun-if-changed={}",
        wa_dir.join("whatsapp.proto").display()
    );
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

/// The `src` directory of the waproto package in the resolved graph.
fn waproto_src() -> Option<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR")?).join("Cargo.toml");
    for offline in [true, false] {
        let mut cmd = Command::new(&cargo);
        cmd.args(["metadata", "--format-version", "1", "--manifest-path"])
            .arg(&manifest);
        if offline {
            cmd.arg("--offline");
        }
        let Ok(output) = cmd.output() else { continue };
        if !output.status.success() {
            continue;
        }
        let meta: serde_json::Value = serde_json::from_slice(&output.stdout).ok()?;
        let found = meta["packages"].as_array()?.iter().find_map(|p| {
            let is_wa = p["name"] == "waproto"
                && p["version"].as_str().is_some_and(|v| v.starts_with("0.7."));
            is_wa.then(|| p["manifest_path"].as_str().map(PathBuf::from))?
        });
        if let Some(manifest) = found {
            return Some(manifest.parent()?.join("src"));
        }
    }
    None
}
