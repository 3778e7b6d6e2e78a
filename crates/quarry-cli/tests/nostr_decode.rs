//! `quarry nostr decode` from outside: JSONL in, one line per message out,
//! `error: … at byte N` per malformed line with exit status 2, `--json` in
//! NIP-01's form plus `id_valid`, `--repeat` silent.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

fn quarry(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_quarry"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run quarry");
    // The process may finish (or fail) before reading all of stdin; a
    // broken pipe here is not the test's verdict, the output below is.
    if let Err(e) = child.stdin.take().unwrap().write_all(stdin.as_bytes()) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    child.wait_with_output().unwrap()
}

fn lines(bytes: &[u8]) -> Vec<String> {
    String::from_utf8(bytes.to_vec())
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The doc event (id and signature valid, made by rust-nostr) and a copy
/// whose content no longer matches its id.
fn events() -> (String, String) {
    let good = quarry_nostr::SAMPLE_EVENT.to_string();
    let forged = good.replace("prisons", "prisms");
    (good, forged)
}

fn with(mut event: Value, extra: &[(&str, Value)]) -> Value {
    for (k, v) in extra {
        event[*k] = v.clone();
    }
    event
}

#[test]
fn json_lines_with_errors_in_between() {
    let (good, forged) = events();
    let input = format!(
        "[\"EVENT\",\"s\",{good}]\r\n\n[\"EVENT\",\"s\",{forged}]\n[\"EOSE\",\"x\"]\n[\"EVENT\",\"s\",{{\"kind\":70000}}]\n[\"REQ\",\"q\",{{\"kinds\":[1],\"#t\":[\"a\"]}}]\n"
    );
    let out = quarry(&["nostr", "decode", "--json", "-"], &input);
    assert_eq!(out.status.code(), Some(2));
    let stdout = lines(&out.stdout);
    assert_eq!(stdout.len(), 4, "{stdout:?}");
    let parsed: Vec<Value> = stdout
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let good_v: Value = serde_json::from_str(&good).unwrap();
    let forged_v: Value = serde_json::from_str(&forged).unwrap();
    assert_eq!(
        parsed[0],
        json!(["EVENT", "s", with(good_v, &[("id_valid", json!(true))])])
    );
    assert_eq!(
        parsed[1],
        json!(["EVENT", "s", with(forged_v, &[("id_valid", json!(false))])])
    );
    assert_eq!(parsed[2], json!(["EOSE", "x"]));
    assert_eq!(parsed[3], json!(["REQ", "q", {"kinds": [1], "#t": ["a"]}]));
    // NIP-01 member order, compact.
    assert!(stdout[0].starts_with("[\"EVENT\",\"s\",{\"id\":\""));
    let stderr = lines(&out.stderr);
    // Line 5 of the input; `{"kind":70000}` starts at byte 13, the number
    // at byte 21.
    assert_eq!(
        stderr,
        vec!["error: line 5: kind must be an integer in 0..=65535: 70000 at byte 21".to_string()]
    );
}

/// `--json` writes filter lists as the sets NIP-01 makes them, in the form
/// rust-nostr's `as_json()` has: each list sorted and without repeats,
/// members in its order (`search` before `since`/`until`/`limit`, the `#x`
/// lists last, by letter with `a` before `A`). The plain output keeps the
/// lists as they came (values and `#x` lists in input order, repeats kept)
/// in the same member order.
#[test]
fn json_writes_filter_lists_as_sets() {
    let input = concat!(
        r##"["REQ","q",{"limit":5,"#t":["b","a","b"],"kinds":[7,1,7],"#E":["x"],"#e":["y"],"search":"s"}]"##,
        "\n",
        r##"["COUNT","c",{"authors":["bb00000000000000000000000000000000000000000000000000000000000000","aa00000000000000000000000000000000000000000000000000000000000000"]}]"##,
        "\n",
    );
    let out = quarry(&["nostr", "decode", "--json", "-"], input);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        lines(&out.stdout),
        vec![
            r##"["REQ","q",{"kinds":[1,7],"search":"s","limit":5,"#e":["y"],"#E":["x"],"#t":["a","b"]}]"##,
            r##"["COUNT","c",{"authors":["aa00000000000000000000000000000000000000000000000000000000000000","bb00000000000000000000000000000000000000000000000000000000000000"]}]"##,
        ]
    );
    let plain = quarry(&["nostr", "decode", "-"], input);
    assert_eq!(plain.status.code(), Some(0));
    assert_eq!(
        lines(&plain.stdout).first().map(String::as_str),
        Some(
            r##"["REQ","q",{"kinds":[7,1,7],"search":"s","limit":5,"#t":["b","a","b"],"#E":["x"],"#e":["y"]}]"##
        )
    );
}

#[test]
fn bare_events_signatures_and_unchecked_ids() {
    let (good, forged) = events();
    let input = format!("{good}\n{forged}\n");
    let out = quarry(
        &["nostr", "decode", "--event", "--json", "--verify-sig", "-"],
        &input,
    );
    assert_eq!(out.status.code(), Some(0));
    let v: Vec<Value> = lines(&out.stdout)
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(v[0]["id_valid"], json!(true));
    assert_eq!(v[0]["sig_valid"], json!(true));
    assert_eq!(v[1]["id_valid"], json!(false));
    // The signature is over the stated id, which did not change.
    assert_eq!(v[1]["sig_valid"], json!(true));
    let out = quarry(
        &[
            "nostr",
            "decode",
            "--event",
            "--json",
            "--no-verify-id",
            "-",
        ],
        &input,
    );
    let v: Value = serde_json::from_str(&lines(&out.stdout)[1]).unwrap();
    assert_eq!(v["id_valid"], Value::Null);
    // Text form: one line per event.
    let out = quarry(&["nostr", "decode", "--event", "-"], &input);
    let text = lines(&out.stdout);
    assert_eq!(text.len(), 2);
    assert!(text[0].starts_with("id=10a841dc"), "{}", text[0]);
    assert!(text[1].ends_with("id_valid=false"), "{}", text[1]);
}

#[test]
fn repeat_prints_nothing_and_still_reports_bad_lines() {
    let (good, _) = events();
    let input = format!("[\"EVENT\",\"s\",{good}]\n");
    for extra in [&[][..], &["--reuse-arena"][..]] {
        let mut args = vec!["nostr", "decode", "--repeat", "50"];
        args.extend_from_slice(extra);
        args.push("-");
        let out = quarry(&args, &input);
        assert_eq!(out.status.code(), Some(0));
        assert!(out.stdout.is_empty() && out.stderr.is_empty());
        let out = quarry(&args, &format!("{input}[\"NOPE\"]\n"));
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(
            lines(&out.stderr),
            vec![r#"error: line 2: unknown relay message verb: "NOPE" at byte 1"#.to_string()]
        );
    }
    let out = quarry(&["nostr", "decode", "--reuse-arena", "-"], &input);
    assert_eq!(out.status.code(), Some(2));
}
