//! Generates quarry views of WhatsApp's schema, as a consumer's `build.rs`
//! would (tables and views only: no prost conversions, no rustfmt pass).

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let dir = waproto_src();
    quarry_proto_build::Builder::new()
        .file(dir.join("whatsapp.proto"))
        .include(&dir)
        .rustfmt(false)
        .compile("wa_views.rs")
        .expect("generate WhatsApp views");
}

/// The `src` directory of the waproto 0.7 package in the resolved graph
/// (it holds `whatsapp.proto`).
fn waproto_src() -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"))
            .join("Cargo.toml");
    // Offline first (the lock file pins everything); online if the index
    // has never been fetched.
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
        let meta: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON");
        let found = meta["packages"].as_array().and_then(|packages| {
            packages.iter().find_map(|p| {
                let is_wa = p["name"] == "waproto"
                    && p["version"].as_str().is_some_and(|v| v.starts_with("0.7."));
                is_wa.then(|| p["manifest_path"].as_str())?
            })
        });
        if let Some(manifest) = found {
            return Path::new(manifest)
                .parent()
                .expect("package dir")
                .join("src");
        }
    }
    panic!("waproto 0.7 is not in the resolved graph (cargo metadata)");
}
