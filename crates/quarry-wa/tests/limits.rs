//! Each limit of `DecodeOptions` at its boundary: an input that sits exactly
//! at the limit decodes, one past it fails with the limit's own variant
//! (`is_limit()`), and the documented arena bound holds for generated valid
//! input.

mod common;

use proptest::prelude::*;
use quarry_core::{Arena, DecodeError, DecodeOptions};
use quarry_wa::{Decoder, max_arena_bytes};

fn decoder(options: DecodeOptions) -> Decoder {
    Decoder {
        options,
        ..Decoder::new()
    }
}

fn run(decoder: &Decoder, input: &[u8]) -> Result<(), DecodeError> {
    let arena = Arena::new();
    decoder.decode(&arena, input).map(|_| ())
}

// ---------------------------------------------------------------------------
// Depth: the root is depth 0; a node at depth `max_depth` is rejected.

#[test]
fn depth_at_the_limit_decodes_and_one_past_fails() {
    for max_depth in [1u32, 2, 5, 16, 128, 200] {
        let d = common::decoder_with(|o| o.max_depth = max_depth);
        let deepest = max_depth as usize; // nodes at depths 0..max_depth-1
        assert_eq!(
            run(&d, &common::nested_messages(deepest)),
            Ok(()),
            "max_depth {max_depth}"
        );
        let err = run(&d, &common::nested_messages(deepest + 1)).unwrap_err();
        // The node at depth max_depth - 1 starts at 5 * (max_depth - 1);
        // its child list header ends 5 bytes later, where the node at
        // depth max_depth would start.
        assert_eq!(
            err,
            DecodeError::DepthLimit {
                offset: 5 * deepest,
                limit: max_depth
            }
        );
        assert!(err.is_limit());
    }
    // The default is the peer's 128.
    assert_eq!(run(&Decoder::new(), &common::nested_messages(128)), Ok(()));
    assert!(matches!(
        run(&Decoder::new(), &common::nested_messages(129)),
        Err(DecodeError::DepthLimit { limit: 128, .. })
    ));
}

/// The small limits, 0 included: `max_depth` n accepts nodes at depths
/// 0..n-1 and rejects the first node at depth n, so 0 rejects the root.
#[test]
fn depth_boundary_at_zero_one_and_two() {
    for max_depth in [0u32, 1, 2] {
        let d = common::decoder_with(|o| o.max_depth = max_depth);
        let n = max_depth as usize;
        if n > 0 {
            assert_eq!(
                run(&d, &common::nested_messages(n)),
                Ok(()),
                "max_depth {max_depth}: a node at depth {} decodes",
                n - 1
            );
        }
        // The node at depth n starts after n five-byte levels.
        assert_eq!(
            run(&d, &common::nested_messages(n + 1)),
            Err(DecodeError::DepthLimit {
                offset: 5 * n,
                limit: max_depth
            }),
            "max_depth {max_depth}: a node at depth {n} is rejected"
        );
    }
    // Compressed frames and owned stanzas go through the same decoder.
    let d = common::decoder_with(|o| o.max_depth = 0);
    let arena = Arena::new();
    assert!(matches!(
        d.decode_frame(
            &arena,
            &common::compressed_frame(&common::nested_messages(1))
        ),
        Err(DecodeError::DepthLimit { limit: 0, .. })
    ));
}

#[test]
fn an_empty_child_list_adds_no_depth() {
    // <message><message/></message> whose inner node has an empty list: no
    // node stands at depth 2, so max_depth 2 accepts it.
    let input = [0xF8, 0x02, 19, 0xF8, 0x01, 0xF8, 0x02, 19, 0xF8, 0x00];
    assert_eq!(
        run(&common::decoder_with(|o| o.max_depth = 2), &input),
        Ok(())
    );
    assert!(
        run(&common::decoder_with(|o| o.max_depth = 1), &input)
            .unwrap_err()
            .is_limit()
    );
}

// ---------------------------------------------------------------------------
// Items: nodes plus attributes.

#[test]
fn items_at_the_limit_decode_and_one_past_fails() {
    // <message id=enc type=enc to=enc><enc id=enc/><enc id=enc/></message>:
    // 3 nodes + 5 attributes = 8 items.
    let input = [
        0xF8, 0x08, 19, 8, 29, 4, 29, 17, 29, // root, 3 attributes
        0xF8, 0x02, // two children
        0xF8, 0x03, 29, 8, 29, // child 1 at 11
        0xF8, 0x03, 29, 8, 29, // child 2 at 16
    ];
    assert_eq!(
        run(&common::decoder_with(|o| o.max_items = 8), &input),
        Ok(())
    );
    let err = run(&common::decoder_with(|o| o.max_items = 7), &input).unwrap_err();
    assert!(
        matches!(err, DecodeError::ItemLimit { limit: 7, .. }),
        "{err:?}"
    );
    assert!(err.is_limit());
    // The eighth item is child 2's attribute.
    assert!((16..21).contains(&err.offset()), "{err:?}");
    // A bare node is one item.
    assert_eq!(
        run(
            &common::decoder_with(|o| o.max_items = 1),
            &[0xF8, 0x01, 19]
        ),
        Ok(())
    );
    assert!(
        run(
            &common::decoder_with(|o| o.max_items = 0),
            &[0xF8, 0x01, 19]
        )
        .unwrap_err()
        .is_limit()
    );
}

#[test]
fn fixture_item_counts_are_exact_limits() {
    // Nodes and attributes counted on the peer's decode of the same bytes.
    fn count(node: &wacore_binary::node::NodeRef<'_>) -> u32 {
        let own = 1 + node.attrs.len() as u32;
        own + node.children().map_or(0, |c| c.iter().map(count).sum())
    }
    for fixture in common::fixtures() {
        let peer = wacore_binary::marshal::unmarshal_ref(fixture.node_bytes()).unwrap();
        let items = count(&peer);
        let input = fixture.node_bytes();
        assert_eq!(
            run(&common::decoder_with(|o| o.max_items = items), input),
            Ok(()),
            "{}",
            fixture.name
        );
        let err = run(&common::decoder_with(|o| o.max_items = items - 1), input).unwrap_err();
        assert!(
            matches!(err, DecodeError::ItemLimit { limit, .. } if limit == items - 1),
            "{}: {err:?}",
            fixture.name
        );
    }
}

// ---------------------------------------------------------------------------
// Arena bytes.

/// The smallest `max_arena_bytes` under which `input` decodes (binary
/// search; the decode is monotone in the budget).
fn least_arena_budget(input: &[u8]) -> usize {
    let ok = |limit| run(&common::decoder_with(|o| o.max_arena_bytes = limit), input).is_ok();
    let (mut lo, mut hi) = (0, max_arena_bytes(input.len()) * 4);
    assert!(ok(hi), "decodes under a generous budget");
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if ok(mid) { hi = mid } else { lo = mid + 1 }
    }
    lo
}

#[test]
fn arena_budget_at_the_limit_decodes_and_one_less_fails() {
    let mut inputs: Vec<(String, Vec<u8>)> = common::fixtures()
        .into_iter()
        .map(|f| (f.name.to_owned(), f.node_bytes().to_vec()))
        .collect();
    inputs.push(("bare".into(), vec![0xF8, 0x01, 19]));
    for (name, input) in &inputs {
        let least = least_arena_budget(input);
        assert!(
            least <= max_arena_bytes(input.len()),
            "{name}: needs {least} arena bytes, bound {}",
            max_arena_bytes(input.len())
        );
        assert_eq!(
            run(&common::decoder_with(|o| o.max_arena_bytes = least), input),
            Ok(()),
            "{name}"
        );
        let err = run(
            &common::decoder_with(|o| o.max_arena_bytes = least - 1),
            input,
        )
        .unwrap_err();
        assert!(
            matches!(err, DecodeError::ArenaLimit { limit, .. } if limit == least - 1),
            "{name}: {err:?}"
        );
        assert!(err.is_limit());
        assert!(err.offset() <= input.len());
    }
}

#[test]
fn a_packed_string_costs_its_characters_plus_a_small_fixed_tail() {
    // <message id=NIBBLE_8(n bytes)/>: the expanded string is two
    // characters per packed byte. Strings of up to 16 packed bytes expand
    // into a fixed-size array (8 or 32 arena bytes), so the cost is at
    // least the characters and at most the characters plus 30.
    let input = |n: usize| {
        let mut v = vec![0xF8, 0x03, 19, 8, 0xFF, n as u8];
        v.extend(std::iter::repeat_n(0x12, n));
        v
    };
    // A one-byte packed string comes from a static table: no arena bytes.
    let base = least_arena_budget(&input(1));
    for n in 2..=127 {
        let cost = least_arena_budget(&input(n)) - base;
        assert!(
            (2 * n..=2 * n + 30).contains(&cost),
            "packed length {n}: {cost} arena bytes"
        );
    }
}

// ---------------------------------------------------------------------------
// Inflated size.

/// A compressed frame whose body inflates to exactly `inflated` bytes: one
/// node with a BINARY_32 payload of zeros.
fn frame_inflating_to(inflated: usize) -> Vec<u8> {
    let payload = inflated - 8;
    let mut prefix = vec![0xF8, 0x02, 19, 0xFE];
    prefix.extend_from_slice(&(payload as u32).to_be_bytes());
    let mut frame = vec![0x02];
    frame.extend(common::zlib_prefix_then_zeros(&prefix, payload));
    frame
}

#[test]
fn inflated_size_at_the_limit_decodes_and_one_past_fails() {
    for inflated in [8, 9, 100, 1024, 4096, 20_000, 65_536, 1 << 20] {
        let frame = frame_inflating_to(inflated);
        let d = common::decoder_with(|o| o.max_inflated_bytes = inflated);
        let arena = Arena::new();
        let node = d
            .decode_frame(&arena, &frame)
            .unwrap_or_else(|e| panic!("{inflated}: {e:?}"));
        assert_eq!(node.content_bytes().map(<[u8]>::len), Some(inflated - 8));

        let d = common::decoder_with(|o| o.max_inflated_bytes = inflated - 1);
        let arena = Arena::new();
        let err = d.decode_frame(&arena, &frame).map(|_| ()).unwrap_err();
        assert!(
            matches!(err, DecodeError::InflatedLimit { limit, .. } if limit == inflated - 1),
            "{inflated}: {err:?}"
        );
        assert!(err.is_limit());
        assert!(err.offset() <= frame.len());
    }
}

#[test]
fn the_default_inflated_limit_is_16_mib() {
    const LIMIT: usize = 16 << 20;
    assert_eq!(DecodeOptions::default().max_inflated_bytes, LIMIT);
    let arena = Arena::new();
    let frame = frame_inflating_to(LIMIT);
    let node = quarry_wa::decode_frame(&arena, &frame).unwrap();
    assert_eq!(node.content_bytes().map(<[u8]>::len), Some(LIMIT - 8));
    let arena = Arena::new();
    let err = quarry_wa::decode_frame(&arena, &frame_inflating_to(LIMIT + 1))
        .map(|_| ())
        .unwrap_err();
    assert!(
        matches!(err, DecodeError::InflatedLimit { limit: LIMIT, .. }),
        "{err:?}"
    );
}

// ---------------------------------------------------------------------------
// The documented arena bound on generated valid input.

/// String-slot encodings, each valid and non-empty where required.
fn string_enc() -> impl Strategy<Value = Vec<u8>> {
    let nibble_user = prop::collection::vec(0u8..=0xBB, 1..8).prop_map(|bytes| {
        // Each byte's nibbles must be 0..=11: clamp both halves.
        let bytes: Vec<u8> = bytes
            .iter()
            .map(|b| (b >> 4).min(11) << 4 | (b & 0xF).min(11))
            .collect();
        let mut v = vec![0xFF, bytes.len() as u8];
        v.extend(bytes);
        v
    });
    let long_token = {
        use wacore_binary::token::{TokenKind, index_of_token};
        match index_of_token("mms4_media_retry_notification_encryption_enabled") {
            Some(TokenKind::Double(d, i)) => vec![236 + d, i],
            Some(TokenKind::Single(b)) => vec![b],
            None => unreachable!("a v3 token"),
        }
    };
    let server = prop::sample::select(vec!["s.whatsapp.net", "g.us", "lid", "broadcast", "call"])
        .prop_map(|s| {
            let mut v = vec![0xFC, s.len() as u8];
            v.extend_from_slice(s.as_bytes());
            v
        });
    prop_oneof![
        (1u8..=235).prop_map(|b| vec![b]),
        (236u8..=239, any::<u8>()).prop_map(|(d, i)| vec![d, i]),
        "[a-z]{0,20}".prop_map(|s| {
            let mut v = vec![0xFC, s.len() as u8];
            v.extend_from_slice(s.as_bytes());
            v
        }),
        nibble_user.clone(),
        prop::collection::vec(any::<u8>(), 0..10).prop_map(|b| {
            let mut v = vec![0xFB, b.len() as u8 | 0x80];
            v.extend(b);
            v
        }),
        (nibble_user.clone(), server).prop_map(|(u, s)| [vec![0xFA], u, s].concat()),
        (
            prop::sample::select(vec![0u8, 1, 128, 129, 130]),
            any::<u8>(),
            nibble_user.clone()
        )
            .prop_map(|(d, dev, u)| [vec![0xF7, d, dev], u].concat()),
        // The densest record: an AD JID around the longest token, rendered
        // to 63 bytes when it stands in a key.
        (any::<u8>()).prop_map(move |dev| [vec![0xF7, 129, dev], long_token.clone()].concat()),
        (nibble_user.clone(), any::<u16>()).prop_map(|(u, dev)| {
            [
                vec![0xF6],
                u,
                dev.to_be_bytes().to_vec(),
                vec![0xFC, 4],
                b"msgr".to_vec(),
            ]
            .concat()
        }),
        (nibble_user, any::<u16>(), any::<u16>()).prop_map(|(u, dev, int)| {
            [
                vec![0xF5],
                u,
                dev.to_be_bytes().to_vec(),
                int.to_be_bytes().to_vec(),
                vec![0xFC, 7],
                b"interop".to_vec(),
            ]
            .concat()
        }),
    ]
}

fn node_enc(attrs: Vec<(Vec<u8>, Vec<u8>)>, tag: Vec<u8>, content: Option<Vec<u8>>) -> Vec<u8> {
    let n = 1 + 2 * attrs.len() + usize::from(content.is_some());
    let mut out = if n < 256 {
        vec![0xF8, n as u8]
    } else {
        [vec![0xF9], (n as u16).to_be_bytes().to_vec()].concat()
    };
    out.extend(tag);
    for (k, v) in attrs {
        out.extend(k);
        out.extend(v);
    }
    if let Some(c) = content {
        out.extend(c);
    }
    out
}

fn leaf_enc() -> impl Strategy<Value = Vec<u8>> {
    let value = prop_oneof![1 => Just(vec![0u8]), 6 => string_enc()];
    let content = prop_oneof![
        Just(None),
        Just(Some(vec![0x00])),
        Just(Some(vec![0xF8, 0x00])),
        string_enc().prop_map(Some),
        prop::collection::vec(any::<u8>(), 0..40)
            .prop_map(|b| Some([vec![0xFC, b.len() as u8], b].concat())),
    ];
    (
        string_enc(),
        prop::collection::vec((string_enc(), value), 0..6),
        content,
    )
        .prop_map(|(tag, attrs, content)| node_enc(attrs, tag, content))
}

fn tree_enc() -> impl Strategy<Value = Vec<u8>> {
    leaf_enc().prop_recursive(4, 64, 8, |inner| {
        (
            string_enc(),
            prop::collection::vec((string_enc(), string_enc()), 0..3),
            prop::collection::vec(inner, 1..8),
        )
            .prop_map(|(tag, attrs, children)| {
                let list = [vec![0xF8, children.len() as u8], children.concat()].concat();
                node_enc(attrs, tag, Some(list))
            })
    })
}

/// Arena bytes a decode of `input` really uses: measured as the drop in
/// free space of one big pre-allocated chunk.
fn arena_bytes_used(input: &[u8], options: DecodeOptions) -> Result<usize, DecodeError> {
    let arena = Arena::with_capacity(max_arena_bytes(input.len()) * 2 + 4096);
    let before = arena.stats();
    decoder(options).decode(&arena, input)?;
    let after = arena.stats();
    assert_eq!(
        after.allocated_bytes, before.allocated_bytes,
        "no second chunk"
    );
    Ok(before.free_in_current_chunk - after.free_in_current_chunk)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn arena_use_stays_within_the_documented_bound(input in tree_enc()) {
        let bound = max_arena_bytes(input.len());
        // Charged bytes: the decode succeeds with exactly the bound as its
        // budget.
        let tight = DecodeOptions { max_arena_bytes: bound, ..DecodeOptions::default() };
        let used = arena_bytes_used(&input, tight);
        prop_assert!(used.is_ok(), "{:?} for {:02x?}", used, input);
        // Bytes really taken from the arena (alignment included).
        let used = used.unwrap();
        prop_assert!(used <= bound, "{} bytes used for {} input bytes (bound {})", used, input.len(), bound);
    }
}

#[test]
fn densest_shapes_stay_within_the_bound() {
    // Hand-picked worst cases per input byte: many two-byte attributes,
    // many bare children, AD JIDs around the longest token as keys and as
    // tags, three-byte JIDs as content.
    use wacore_binary::token::{TokenKind, index_of_token};
    let long = match index_of_token("mms4_media_retry_notification_encryption_enabled") {
        Some(TokenKind::Double(d, i)) => vec![236 + d, i],
        _ => unreachable!(),
    };
    let ad_long = [vec![0xF7, 129, 255], long.clone()].concat();
    let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
    let attrs: Vec<_> = (0..32_000).map(|_| (vec![8u8], vec![29u8])).collect();
    cases.push(("32,000 token attributes", node_enc(attrs, vec![19], None)));
    let mut children = vec![0xF9, 0xFF, 0xFF];
    for _ in 0..65_535 {
        children.extend_from_slice(&[0xF8, 0x01, 29]);
    }
    cases.push((
        "65,535 bare children",
        node_enc(vec![], vec![19], Some(children)),
    ));
    let attrs: Vec<_> = (0..5_000).map(|_| (ad_long.clone(), vec![29u8])).collect();
    cases.push(("AD JID keys", node_enc(attrs, vec![19], None)));
    let mut children = vec![0xF9, 0x27, 0x10];
    for _ in 0..10_000 {
        children.extend(node_enc(vec![], ad_long.clone(), None));
    }
    cases.push(("AD JID tags", node_enc(vec![], vec![19], Some(children))));
    let mut children = vec![0xF9, 0x27, 0x10];
    for _ in 0..10_000 {
        children.extend(node_enc(vec![], vec![29], Some(vec![0xFA, 0x00, 3])));
    }
    cases.push(("JID content", node_enc(vec![], vec![19], Some(children))));
    for (name, input) in &cases {
        let bound = max_arena_bytes(input.len());
        let tight = DecodeOptions {
            max_arena_bytes: bound,
            ..DecodeOptions::default()
        };
        let used = arena_bytes_used(input, tight).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert!(
            used <= bound,
            "{name}: {used} bytes for {} input bytes",
            input.len()
        );
    }
}
