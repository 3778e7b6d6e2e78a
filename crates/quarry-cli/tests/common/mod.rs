//! Shared pieces of the CLI tests: running the built binary, the peer's
//! benchmark shapes, and the expected JSON derived from the peer's decode.
#![allow(dead_code)] // each test binary uses a different subset

use std::io::Write;
use std::process::{Command, Output, Stdio};

use wacore_binary::builder::NodeBuilder;
use wacore_binary::marshal::{marshal, unmarshal_ref};
use wacore_binary::node::{Node, NodeContentRef, NodeRef, ValueRef};
use wacore_binary::token::{TokenKind, index_of_token};

/// Run `quarry <args>` with `stdin` as its standard input.
pub fn quarry(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_quarry"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn quarry");
    let mut pipe = child.stdin.take().expect("stdin pipe");
    let input = stdin.to_vec();
    // A writer thread, so a large input cannot deadlock against a full
    // stdout pipe. The binary may exit before reading everything.
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let output = child.wait_with_output().expect("wait for quarry");
    writer.join().expect("writer thread");
    output
}

/// Run `quarry proto decode --proto <proto> --type <root> <extra>… -` with
/// `stdin` as the message.
pub fn proto_decode(proto: &std::path::Path, root: &str, extra: &[&str], stdin: &[u8]) -> Output {
    let proto = proto.to_str().expect("UTF-8 path");
    let mut args = vec!["proto", "decode", "--proto", proto, "--type", root];
    args.extend_from_slice(extra);
    args.push("-");
    quarry(&args, stdin)
}

/// Write `bytes` to a file under the test's temporary directory.
pub fn temp_file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, bytes).expect("write temp file");
    path
}

/// Stdout as UTF-8, asserting exit status 0 and an empty stderr.
pub fn success(output: &Output) -> String {
    assert!(
        output.status.success() && output.stderr.is_empty(),
        "status {:?}, stderr {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

/// Assert the malformed-input contract: exit status 2, nothing on stdout,
/// exactly one line `error: <what> at byte <offset>` on stderr with
/// `offset <= max_offset`. Returns the line.
pub fn assert_decode_error(output: &Output, max_offset: usize) -> String {
    assert_eq!(
        output.status.code(),
        Some(2),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.stdout.is_empty(),
        "stdout not empty: {:?}",
        output.stdout
    );
    let stderr = String::from_utf8(output.stderr.clone()).expect("stderr is UTF-8");
    let line = stderr.strip_suffix('\n').expect("stderr ends in a newline");
    assert!(!line.contains('\n'), "more than one line: {stderr:?}");
    let what = line.strip_prefix("error: ").expect("starts with 'error: '");
    let (what, offset) = what.rsplit_once(" at byte ").expect("has ' at byte '");
    assert!(!what.is_empty(), "{line}");
    let offset: usize = offset
        .parse()
        .unwrap_or_else(|_| panic!("offset not a number: {line}"));
    assert!(
        offset <= max_offset,
        "offset {offset} past {max_offset}: {line}"
    );
    line.to_owned()
}

/// A JSON string, escaped by serde_json.
fn js(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

/// The canonical JSON document (without the newline) for a node the peer
/// decoded, built from the peer's own data model.
pub fn expected_json(node: &NodeRef<'_>) -> String {
    let attrs: Vec<String> = node
        .attrs
        .iter()
        .map(|(key, value)| {
            let value = match value {
                ValueRef::String(s) => js(s),
                ValueRef::Jid(j) => format!(
                    r#"{{"jid":{{"user":{},"server":{},"device":{},"agent":{},"integrator":{}}}}}"#,
                    js(&j.user),
                    js(j.server.as_str()),
                    j.device,
                    j.agent,
                    j.integrator
                ),
            };
            format!("[{},{}]", js(key), value)
        })
        .collect();
    let content = match &node.content {
        None => "null".to_owned(),
        Some(NodeContentRef::String(s)) => format!(r#"{{"text":{}}}"#, js(s)),
        Some(NodeContentRef::Bytes(b)) => {
            let hex: String = b.iter().map(|b| format!("{b:02x}")).collect();
            format!(r#"{{"bytes":"{hex}"}}"#)
        }
        Some(NodeContentRef::Nodes(children)) => {
            let children: Vec<String> = children.iter().map(expected_json).collect();
            format!(r#"{{"nodes":[{}]}}"#, children.join(","))
        }
    };
    format!(
        r#"{{"tag":{},"attrs":[{}],"content":{}}}"#,
        js(&node.tag),
        attrs.join(","),
        content
    )
}

/// The expected `--json` output for node bytes, from the peer's decode
/// (which must accept them).
pub fn expected_for_node_bytes(bytes: &[u8]) -> String {
    let node = unmarshal_ref(bytes).expect("the peer decodes the input");
    expected_json(&node) + "\n"
}

/// The expected `--framed --json` output for a frame, from the peer's
/// `unpack` and decode.
pub fn expected_for_frame(frame: &[u8]) -> String {
    let body = wacore_binary::util::unpack(frame).expect("the peer unpacks the frame");
    expected_for_node_bytes(&body)
}

/// Node bytes (no flags byte) of a peer-built tree.
pub fn node_bytes(node: &Node) -> Vec<u8> {
    let framed = marshal(node).expect("the peer encodes the tree");
    assert_eq!(framed[0], 0, "the peer writes an uncompressed frame");
    framed[1..].to_vec()
}

/// A compressed frame: flags 0x02, then the zlib stream of `node_bytes`.
pub fn compressed_frame(node_bytes: &[u8]) -> Vec<u8> {
    let mut frame = vec![0x02];
    frame.extend(miniz_oxide::deflate::compress_to_vec_zlib(node_bytes, 6));
    frame
}

/// The trees the peer's `binary_benchmark` builds, by name.
pub fn shapes() -> Vec<(&'static str, Node)> {
    vec![
        ("small", small()),
        ("ack", ack()),
        ("fanout", fanout()),
        ("large", large()),
        ("attr", attr()),
        ("long_string", long_string()),
        ("usync_like", usync_like()),
        ("jid_heavy", jid_heavy()),
        ("huge_bytes", huge_bytes()),
        ("many_children", many_children()),
    ]
}

pub fn small() -> Node {
    NodeBuilder::new("message")
        .attr("to", "user@s.whatsapp.net")
        .attr("id", "12345")
        .attr("type", "text")
        .build()
}

pub fn ack() -> Node {
    NodeBuilder::new("ack")
        .attr("to", "5511999990000@s.whatsapp.net")
        .attr("id", "3EB0A1B2C3D4E5F60718")
        .attr("class", "message")
        .build()
}

pub fn fanout() -> Node {
    let devices: Vec<Node> = (0..8)
        .map(|i| {
            NodeBuilder::new("to")
                .attr("jid", format!("5511999990000:{i}@s.whatsapp.net"))
                .children(vec![
                    NodeBuilder::new("enc")
                        .attr("v", "2")
                        .attr("type", "msg")
                        .bytes(vec![0xAB; 128])
                        .build(),
                ])
                .build()
        })
        .collect();
    NodeBuilder::new("message")
        .attr("to", "5511999990000@g.us")
        .attr("id", "3EB0A1B2C3D4E5F60718")
        .attr("type", "text")
        .children(vec![
            NodeBuilder::new("participants").children(devices).build(),
        ])
        .build()
}

pub fn large() -> Node {
    NodeBuilder::new("iq")
        .attr("to", "server@s.whatsapp.net")
        .attr("id", "abcdef")
        .attr("type", "get")
        .attr("xmlns", "usync")
        .children(vec![
            NodeBuilder::new("usync")
                .attr("sid", "message:1")
                .attr("mode", "query")
                .attr("last", "true")
                .children(vec![
                    NodeBuilder::new("query")
                        .children(vec![NodeBuilder::new("business").build()])
                        .build(),
                ])
                .build(),
            NodeBuilder::new("list")
                .children((0..20).map(|i| {
                    NodeBuilder::new("item")
                        .attr("index", i.to_string())
                        .bytes(vec![i as u8; 32])
                        .build()
                }))
                .build(),
        ])
        .build()
}

fn attr() -> Node {
    NodeBuilder::new("iq")
        .attr("xmlns", "test:ns")
        .attr("type", "result")
        .attr("id", "abc123")
        .attr("from", "server@s.whatsapp.net")
        .attr("has_flag", "true")
        .attr("timestamp", "1700000000")
        .build()
}

fn long_string() -> Node {
    NodeBuilder::new("message")
        .attr("to", "1234567890@s.whatsapp.net")
        .attr("id", "ABC123DEF456")
        .attr("type", "text")
        .string_content("Lorem ipsum with email user@example.com in text. ".repeat(11))
        .build()
}

fn usync_like() -> Node {
    NodeBuilder::new("iq")
        .attr("type", "result")
        .children(vec![
            NodeBuilder::new("usync")
                .children(vec![
                    NodeBuilder::new("list")
                        .children((0..50).map(|i| {
                            NodeBuilder::new("user")
                                .attr("jid", format!("{i}@s.whatsapp.net"))
                                .children(vec![
                                    NodeBuilder::new("devices")
                                        .children(vec![
                                            NodeBuilder::new("device-list")
                                                .children((0..3).map(|d| {
                                                    NodeBuilder::new("device")
                                                        .attr("id", d.to_string())
                                                        .build()
                                                }))
                                                .build(),
                                        ])
                                        .build(),
                                    NodeBuilder::new("contact").attr("type", "in").build(),
                                ])
                                .build()
                        }))
                        .build(),
                ])
                .build(),
        ])
        .build()
}

pub fn jid_heavy() -> Node {
    NodeBuilder::new("message")
        .attr("from", "15551234567@s.whatsapp.net")
        .attr("to", "15559876543@s.whatsapp.net")
        .attr("participant", "15555555555@s.whatsapp.net")
        .attr("recipient", "15556666666@s.whatsapp.net")
        .attr("notify", "15557777777@s.whatsapp.net")
        .attr("id", "ABCDEF123456")
        .attr("type", "text")
        .build()
}

fn huge_bytes() -> Node {
    NodeBuilder::new("message")
        .attr("to", "server@s.whatsapp.net")
        .attr("id", "huge-binary")
        .bytes(vec![0x5A; 256 * 1024])
        .build()
}

fn many_children() -> Node {
    NodeBuilder::new("iq")
        .attr("to", "server@s.whatsapp.net")
        .attr("id", "many-children")
        .children((0..2048).map(|i| {
            NodeBuilder::new("item")
                .attr("index", i.to_string())
                .attr("type", "entry")
                .string_content("ok")
                .build()
        }))
        .build()
}

pub fn tok(text: &str) -> Vec<u8> {
    match index_of_token(text).unwrap_or_else(|| panic!("{text} is a token")) {
        TokenKind::Single(b) => vec![b],
        TokenKind::Double(d, i) => vec![236 + d, i],
    }
}

pub fn raw(text: &[u8]) -> Vec<u8> {
    let mut out = vec![0xFC, u8::try_from(text.len()).unwrap()];
    out.extend_from_slice(text);
    out
}

/// A node: LIST_8 header with the right size, then the pieces.
pub fn node(tag: Vec<u8>, attrs: &[(Vec<u8>, Vec<u8>)], content: Option<Vec<u8>>) -> Vec<u8> {
    let n = 1 + 2 * attrs.len() + usize::from(content.is_some());
    let mut out = vec![0xF8, u8::try_from(n).unwrap()];
    out.extend(tag);
    for (k, v) in attrs {
        out.extend(k);
        out.extend(v);
    }
    out.extend(content.unwrap_or_default());
    out
}

pub fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

/// Hand-made vectors for every value kind and the spec's accepted
/// oddities (section 9), each decoded by the peer for the expectation.
pub fn edge_vectors() -> Vec<(&'static str, Vec<u8>)> {
    let pn = tok("s.whatsapp.net");
    let nibble_12 = vec![0xFF, 0x01, 0x12];
    let jid_pair = cat(&[&[0xFA], &nibble_12, &pn]);
    let group_no_user = cat(&[&[0xFA, 0x00], &tok("g.us")]);
    let ad_lid_dev3 = cat(&[&[0xF7, 1, 3], &nibble_12]);
    let ad_pn_dev0 = cat(&[&[0xF7, 0, 0], &nibble_12]);
    let interop = cat(&[
        &[0xF5],
        &raw(b"abc"),
        &[0x01, 0x02, 0x00, 0x07],
        &raw(b"interop"),
    ]);
    let fb = cat(&[&[0xF6], &raw(b"fbuser"), &[0x00, 0x05], &raw(b"msgr")]);
    let msg = tok("message");
    let ty = tok("type");
    let odd = "q\"uote\\ \n\r\t\u{8}\u{c}\u{1}\u{1f}\u{7f} é ✓ \u{2028}\u{2029} 😀";
    vec![
        ("bare tag", node(msg.clone(), &[], None)),
        ("LIST_EMPTY content", node(msg.clone(), &[], Some(vec![0]))),
        (
            "empty child list",
            node(msg.clone(), &[], Some(vec![0xF8, 0])),
        ),
        (
            "empty attribute value",
            node(msg.clone(), &[(ty.clone(), vec![0])], None),
        ),
        ("token content", node(msg.clone(), &[], Some(tok("enc")))),
        ("double-byte token", node(tok("participants"), &[], None)),
        (
            "JID_PAIR value",
            node(msg.clone(), &[(tok("to"), jid_pair.clone())], None),
        ),
        (
            "JID_PAIR empty user",
            node(msg.clone(), &[(tok("to"), group_no_user.clone())], None),
        ),
        (
            "AD_JID value",
            node(msg.clone(), &[(tok("to"), ad_lid_dev3.clone())], None),
        ),
        (
            "AD_JID device 0",
            node(msg.clone(), &[(tok("to"), ad_pn_dev0.clone())], None),
        ),
        (
            "INTEROP_JID value",
            node(msg.clone(), &[(tok("to"), interop.clone())], None),
        ),
        (
            "FB_JID value",
            node(msg.clone(), &[(tok("to"), fb.clone())], None),
        ),
        ("JID in tag position", node(jid_pair.clone(), &[], None)),
        (
            "AD_JID in tag position",
            node(ad_lid_dev3.clone(), &[], None),
        ),
        (
            "JID in key position",
            node(msg.clone(), &[(ad_lid_dev3.clone(), raw(b"v"))], None),
        ),
        (
            "JID_PAIR content",
            node(msg.clone(), &[], Some(jid_pair.clone())),
        ),
        (
            "server-only JID content",
            node(msg.clone(), &[], Some(group_no_user)),
        ),
        ("interop content", node(msg.clone(), &[], Some(interop))),
        ("FB content", node(msg.clone(), &[], Some(fb))),
        (
            "nibble NUL quirk",
            node(
                msg.clone(),
                &[(ty.clone(), vec![0xFF, 0x02, 0x1F, 0x23])],
                None,
            ),
        ),
        (
            "nibble odd flag",
            node(
                msg.clone(),
                &[(ty.clone(), vec![0xFF, 0x82, 0x1B, 0x2A])],
                None,
            ),
        ),
        (
            "hex odd flag",
            node(
                msg.clone(),
                &[(ty.clone(), vec![0xFB, 0x82, 0x3E, 0xB0])],
                None,
            ),
        ),
        (
            "packed content",
            node(msg.clone(), &[], Some(vec![0xFB, 0x02, 0xAB, 0xCD])),
        ),
        ("packed tag", node(vec![0xFF, 0x01, 0x12], &[], None)),
        (
            "escapes in tag, key, value",
            node(
                raw(odd.as_bytes()),
                &[(raw(odd.as_bytes()), raw(odd.as_bytes()))],
                None,
            ),
        ),
        (
            "raw text content is bytes",
            node(msg.clone(), &[], Some(raw(odd.as_bytes()))),
        ),
        (
            "non-UTF-8 bytes content",
            node(msg.clone(), &[], Some(raw(&[0xFF, 0x00, 0x80]))),
        ),
        (
            "empty bytes content",
            node(msg.clone(), &[], Some(vec![0xFC, 0])),
        ),
        (
            "BINARY_20 with a top nibble",
            node(
                msg.clone(),
                &[],
                Some(cat(&[&[0xFD, 0xF0, 0x01, 0x2C], &[7u8; 300]])),
            ),
        ),
        (
            "BINARY_32",
            node(msg.clone(), &[], Some(cat(&[&[0xFE, 0, 0, 0, 3], b"abc"]))),
        ),
        (
            "LIST_16 header and children",
            cat(&[
                &[0xF9, 0x00, 0x02],
                &msg,
                &[0xF9, 0x00, 0x02],
                &node(tok("enc"), &[], None),
                &node(tok("to"), &[], None),
            ]),
        ),
        (
            "duplicate keys",
            node(
                msg.clone(),
                &[(ty.clone(), raw(b"a")), (ty.clone(), raw(b"b"))],
                None,
            ),
        ),
        (
            "nested children",
            node(
                msg.clone(),
                &[(ty.clone(), raw(b"x"))],
                Some(cat(&[
                    &[0xF8, 2],
                    &node(tok("enc"), &[(tok("v"), raw(b"2"))], Some(raw(&[1, 2, 3]))),
                    &node(
                        tok("to"),
                        &[],
                        Some(cat(&[&[0xF8, 1], &node(tok("enc"), &[], None)])),
                    ),
                ])),
            ),
        ),
    ]
}
