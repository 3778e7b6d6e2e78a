//! `Builder::compile` prints a `cargo:rerun-if-changed` line for every
//! file the compile reads from disk, imports included, and for nothing
//! else. The test runs itself again as a child process with `OUT_DIR`
//! set, as cargo runs a build script, and reads the child's output.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use quarry_proto_build::Builder;

const CHILD: &str = "QUARRY_RERUN_TEST_DIR";

/// top.proto imports mid.proto, which imports sub/leaf.proto and a
/// well-known type (compiled into protox, not on disk); unused.proto is
/// in the same directory and imported by nothing.
fn write_schema(dir: &Path) {
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let files = [
        (
            "top.proto",
            "syntax = \"proto3\";\npackage t;\nimport \"mid.proto\";\nmessage Top { m.Mid mid = 1; }\n",
        ),
        (
            "mid.proto",
            "syntax = \"proto3\";\npackage m;\nimport \"sub/leaf.proto\";\n\
             import \"google/protobuf/timestamp.proto\";\n\
             message Mid { l.Leaf leaf = 1; google.protobuf.Timestamp at = 2; }\n",
        ),
        (
            "sub/leaf.proto",
            "syntax = \"proto3\";\npackage l;\nmessage Leaf { int32 x = 1; }\n",
        ),
        (
            "unused.proto",
            "syntax = \"proto3\";\npackage u;\nmessage U {}\n",
        ),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
}

#[test]
fn compile_names_every_file_it_reads() {
    if let Some(dir) = std::env::var_os(CHILD) {
        // The child: a build script's part.
        let dir = PathBuf::from(dir);
        Builder::new()
            .file(dir.join("top.proto"))
            .include(&dir)
            .rustfmt(false)
            .compile("out.rs")
            .unwrap();
        return;
    }
    let dir = std::env::temp_dir().join(format!("quarry-rerun-{}", std::process::id()));
    write_schema(&dir);
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "compile_names_every_file_it_reads",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, &dir)
        .env("OUT_DIR", &out)
        .output()
        .unwrap();
    assert!(child.status.success(), "{child:?}");
    let stdout = String::from_utf8(child.stdout).unwrap();
    let printed: BTreeSet<PathBuf> = stdout
        .lines()
        // The harness prints the test's name before the first line.
        .filter_map(|l| l.split_once("cargo:rerun-if-changed=").map(|(_, p)| p))
        .map(|p| std::fs::canonicalize(p).unwrap())
        .collect();
    let expected: BTreeSet<PathBuf> = ["top.proto", "mid.proto", "sub/leaf.proto"]
        .iter()
        .map(|f| std::fs::canonicalize(dir.join(f)).unwrap())
        .collect();
    assert_eq!(printed, expected, "{stdout}");
    assert!(out.join("out.rs").exists());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_descriptor_set_file_is_an_input() {
    let dir = std::env::temp_dir().join(format!("quarry-rerun-fds-{}", std::process::id()));
    write_schema(&dir);
    let set = Builder::new()
        .file(dir.join("top.proto"))
        .include(&dir)
        .file_descriptor_set()
        .unwrap();
    let path = dir.join("set.bin");
    std::fs::write(&path, prost::Message::encode_to_vec(&set)).unwrap();
    let inputs = Builder::new()
        .descriptor_set_file(&path)
        .unwrap()
        .inputs()
        .unwrap();
    // The set's files are not read from disk: the set is the one input.
    assert_eq!(inputs, [path]);
    std::fs::remove_dir_all(&dir).ok();
}
