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
