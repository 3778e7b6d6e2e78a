//! Malformed input: exit status 2, one `error: <what> at byte <offset>`
//! line on stderr, nothing on stdout; with and without `--repeat`. Usage
//! and I/O errors.

mod common;

use common::*;

/// Run every form of decode on `input` and check the error contract; the
/// same line must come out of the `--repeat` loop, in both arena modes.
fn assert_rejected(framed: bool, input: &[u8]) -> String {
    assert_rejected_within(framed, input, input.len())
}

/// [`assert_rejected`] with the largest offset allowed (an inflated body
/// is longer than the frame).
fn assert_rejected_within(framed: bool, input: &[u8], max_offset: usize) -> String {
    let mut args = vec!["wa", "decode"];
    if framed {
        args.push("--framed");
    }
    let line = assert_decode_error(&quarry(&[&args[..], &["-"]].concat(), input), max_offset);
    for extra in [
        &["--json"][..],
        &["--repeat", "3"],
        &["--repeat", "3", "--reuse-arena"],
    ] {
        let out = quarry(&[&args[..], extra, &["-"]].concat(), input);
        assert_eq!(assert_decode_error(&out, max_offset), line, "{extra:?}");
    }
    line
}

#[test]
fn every_truncation_of_a_fanout_is_rejected() {
    let bytes = node_bytes(&fanout());
    // All short prefixes, then every 13th length (a process per run).
    for len in (0..40).chain((40..bytes.len()).step_by(13)) {
        let cut = &bytes[..len];
        assert!(
            wacore_binary::marshal::unmarshal_ref(cut).is_err(),
            "peer accepts {len}"
        );
        let out = quarry(&["wa", "decode", "--json", "-"], cut);
        let line = assert_decode_error(&out, len);
        assert!(
            line.starts_with("error: unexpected end of input"),
            "{len}: {line}"
        );
    }
}

#[test]
fn malformed_node_bytes() {
    let message = 19u8; // single-byte token "message"
    let mut deep = Vec::new();
    for _ in 0..200 {
        deep.extend_from_slice(&[0xF8, 2, message, 0xF8, 1]);
    }
    deep.extend_from_slice(&[0xF8, 1, message]);
    let mut jid_bomb = vec![0xF8, 1];
    jid_bomb.extend(std::iter::repeat_n(0xFA, 100_000));
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty input", vec![]),
        ("LIST_EMPTY header", vec![0x00]),
        ("list of size 0", vec![0xF8, 0]),
        ("tag 240", vec![0xF8, 1, 240]),
        ("tag 244", vec![0xF8, 1, 244]),
        ("LIST_EMPTY tag", vec![0xF8, 1, 0]),
        ("list in a string slot", vec![0xF8, 1, 0xF8]),
        ("trailing byte", vec![0xF8, 1, message, 0]),
        ("invalid UTF-8 tag", vec![0xF8, 1, 0xFC, 1, 0xFF]),
        ("nibble 12", vec![0xF8, 1, 0xFF, 1, 0xC0]),
        (
            "unknown JID server",
            vec![0xF8, 1, 0xFA, 0, 0xFC, 3, b'f', b'o', b'o'],
        ),
        (
            "bad AD_JID domain",
            vec![0xF8, 1, 0xF7, 2, 0, 0xFF, 1, 0x12],
        ),
        (
            "lying child count",
            vec![0xF8, 2, message, 0xF8, 200, 0xF8, 1, message],
        ),
        ("depth past 128", deep),
        ("nested JID bomb", jid_bomb),
    ];
    for (name, input) in cases {
        if name != "nested JID bomb" {
            // The peer aborts on the bomb (stack overflow); the rest it rejects.
            assert!(
                wacore_binary::marshal::unmarshal_ref(&input).is_err(),
                "peer accepts {name}"
            );
        }
        let line = assert_rejected(false, &input);
        assert!(!line.contains("inflated body"), "{name}: {line}");
    }
}

#[test]
fn malformed_frames() {
    let bytes = node_bytes(&fanout());
    let good = compressed_frame(&bytes);
    let mut truncated_zlib = good.clone();
    truncated_zlib.truncate(good.len() / 2);
    let mut bad_adler = good.clone();
    *bad_adler.last_mut().unwrap() ^= 1;
    let mut trailing = good.clone();
    trailing.push(0);
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty frame", vec![]),
        ("flags only, plain", vec![0x00]),
        ("flags only, compressed", vec![0x02]),
        ("not zlib", vec![0x02, 0xF8, 1, 19]),
        ("truncated zlib", truncated_zlib),
        ("adler32 mismatch", bad_adler),
        ("bytes after the zlib stream", trailing),
    ];
    for (name, frame) in cases {
        assert!(
            wacore_binary::util::unpack(&frame)
                .and_then(|b| { wacore_binary::marshal::unmarshal_ref(&b).map(|_| ()) })
                .is_err()
                || name == "bytes after the zlib stream",
            "peer accepts {name}"
        );
        let line = assert_rejected(true, &frame);
        assert!(!line.contains("inflated body"), "{name}: {line}");
    }
    // A node error inside a compressed body counts from the inflated bytes,
    // and says so.
    let frame = compressed_frame(&bytes[..bytes.len() - 1]);
    let line = assert_rejected_within(true, &frame, bytes.len());
    assert!(
        line.starts_with("error: inflated body: unexpected end of input at byte "),
        "{line}"
    );
}

#[test]
fn decompression_bomb_is_rejected() {
    // 17 MiB of zeros inflate past the 16 MiB default limit.
    let mut frame = vec![0x02];
    frame.extend(miniz_oxide::deflate::compress_to_vec_zlib(
        &vec![0u8; 17 << 20],
        9,
    ));
    let out = quarry(&["wa", "decode", "--framed", "-"], &frame);
    let line = assert_decode_error(&out, frame.len());
    assert!(line.contains("limit"), "{line}");
}

/// Single-byte mutations of real shapes: whatever the CLI decides, it keeps
/// the contract, and when it accepts, it prints what the peer decodes.
#[test]
fn mutated_inputs_keep_the_contract() {
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (mut accepted, mut rejected) = (0, 0);
    for tree in [small(), ack(), jid_heavy(), fanout(), large()] {
        let bytes = node_bytes(&tree);
        for _ in 0..40 {
            let mut input = bytes.clone();
            let at = (next() % input.len() as u64) as usize;
            input[at] = next() as u8;
            let out = quarry(&["wa", "decode", "--json", "-"], &input);
            if out.status.code() == Some(0) {
                assert_eq!(
                    success(&out),
                    expected_for_node_bytes(&input),
                    "mutation at {at}"
                );
                accepted += 1;
            } else {
                assert_decode_error(&out, input.len());
                rejected += 1;
            }
        }
    }
    assert!(
        accepted > 0 && rejected > 0,
        "{accepted} accepted, {rejected} rejected"
    );
}

fn assert_usage_error(args: &[&str]) {
    let out = quarry(args, b"");
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert!(out.stdout.is_empty(), "{args:?}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with("error: ") && stderr.contains("usage: quarry"),
        "{args:?}: {stderr}"
    );
}

#[test]
fn usage_errors_exit_2_with_usage() {
    assert_usage_error(&[]);
    assert_usage_error(&["xml"]);
    assert_usage_error(&["wa"]);
    assert_usage_error(&["wa", "frobnicate"]);
    assert_usage_error(&["wa", "decode"]);
    assert_usage_error(&["wa", "decode", "a", "b"]);
    assert_usage_error(&["wa", "decode", "--nope", "-"]);
    assert_usage_error(&["wa", "decode", "--repeat", "-"]);
    assert_usage_error(&["wa", "decode", "--repeat", "x", "-"]);
    assert_usage_error(&["wa", "decode", "--repeat", "-1", "-"]);
    assert_usage_error(&["wa", "decode", "--reuse-arena", "-"]);
    assert_usage_error(&["wa", "encode", "-"]);
    // Every format's command word goes through the same dispatch.
    for format in ["nostr", "proto"] {
        assert_usage_error(&[format]);
        assert_usage_error(&[format, "frobnicate"]);
        assert_usage_error(&[format, "encode"]);
    }
}

#[test]
fn help_goes_to_stdout() {
    for args in [
        &["--help"][..],
        &["wa", "--help"],
        &["wa", "decode", "--help"],
        &["nostr", "help"],
        &["proto", "-h"],
    ] {
        let out = success(&quarry(args, b""));
        assert!(out.contains("usage: quarry"), "{args:?}");
    }
}

#[test]
fn unreadable_file_exits_1() {
    let missing = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-such-file.bin");
    let out = quarry(&["wa", "decode", missing.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with("error: ") && stderr.ends_with('\n'),
        "{stderr}"
    );
}
