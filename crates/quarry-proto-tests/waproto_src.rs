//! Where WhatsApp's schema is: the `src` directory of the waproto 0.7
//! package in the resolved graph, found through `cargo metadata`. Shared by
//! the build scripts that generate code from it (this crate's and
//! `benches/binsize`'s), which include this file with `#[path]`.

use std::path::PathBuf;
use std::process::Command;

/// The `src` directory of the waproto 0.7 package that the calling build
/// script's package resolves (it holds `whatsapp.proto`), or `None` when
/// `cargo metadata` cannot tell.
pub fn waproto_src() -> Option<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR")?).join("Cargo.toml");
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
