//! `--repeat N` decodes and prints nothing; `--reuse-arena` switches to one
//! arena reset between decodes.

mod common;

use common::*;

#[test]
fn repeat_prints_nothing_and_exits_0() {
    for (name, tree) in shapes() {
        let bytes = node_bytes(&tree);
        let mut plain = vec![0x00];
        plain.extend_from_slice(&bytes);
        let inputs = [
            (false, bytes.clone()),
            (true, plain),
            (true, compressed_frame(&bytes)),
        ];
        for (framed, input) in &inputs {
            for extra in [
                &["--repeat", "5"][..],
                &["--repeat=5", "--reuse-arena"],
                &["--repeat", "0"],
            ] {
                let mut args = vec!["wa", "decode"];
                if *framed {
                    args.push("--framed");
                }
                args.extend_from_slice(extra);
                args.push("-");
                let out = quarry(&args, input);
                assert_eq!(success(&out), "", "{name} {args:?}");
            }
        }
    }
}

#[test]
fn repeat_ignores_json_and_still_prints_nothing() {
    let bytes = node_bytes(&ack());
    let out = quarry(&["wa", "decode", "--json", "--repeat", "2", "-"], &bytes);
    assert_eq!(success(&out), "");
}

#[test]
fn repeat_usage_errors_are_the_same_for_every_format() {
    let cases: [(&[&str], &str); 3] = [
        (
            &["--repeat", "ten"],
            "error: --repeat needs a count, not \"ten\"",
        ),
        (
            &["--repeat=-1"],
            "error: --repeat needs a count, not \"-1\"",
        ),
        (&["--reuse-arena"], "error: --reuse-arena needs --repeat"),
    ];
    let proto = temp_file(
        "repeat_usage.proto",
        b"syntax = \"proto3\"; message M { int32 a = 1; }",
    );
    let proto = proto.to_str().expect("utf-8 temp path");
    let commands: [&[&str]; 3] = [
        &["wa", "decode"],
        &["nostr", "decode"],
        &["proto", "decode", "--proto", proto, "--type", "M"],
    ];
    for command in commands {
        for (extra, message) in cases {
            let mut args = command.to_vec();
            args.extend_from_slice(extra);
            args.push("-");
            let out = quarry(&args, b"");
            assert_eq!(out.status.code(), Some(2), "{args:?}");
            assert!(out.stdout.is_empty(), "{args:?}");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                stderr.starts_with(&format!("{message}\n\nusage: quarry {}", command[0])),
                "{args:?}: {stderr}"
            );
        }
    }
}
