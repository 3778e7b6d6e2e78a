//! A tree as deep as a raised `max_depth` lets through (a million levels)
//! is rendered, converted, compared, cloned and dropped without running
//! out of stack on an ordinary 8 MiB thread: nothing recurses per level.

mod common;

use std::fmt::{self, Write};

use quarry_core::Arena;
use quarry_wa::{OwnedContent, OwnedNode};

const LEVELS: usize = 1_000_000;

/// Counts what is written, and checks the first bytes against `head`.
struct Sink {
    len: usize,
    head: String,
}

impl Write for Sink {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if self.head.len() < 64 {
            self.head.push_str(s);
        }
        self.len += s.len();
        Ok(())
    }
}

/// Depth of an owned tree whose every node has at most one child, walked
/// without recursion.
fn owned_depth(mut node: &OwnedNode) -> usize {
    let mut depth = 1;
    while let OwnedContent::Nodes(children) = &node.content {
        match children.first() {
            Some(child) => {
                node = child;
                depth += 1;
            }
            None => break,
        }
    }
    depth
}

fn on_a_thread_with_8_mib(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn a_million_levels_render_convert_and_drop_without_overflowing() {
    on_a_thread_with_8_mib(|| {
        let input = common::nested_messages(LEVELS);
        let decoder = common::decoder_with(|o| {
            o.max_depth = u32::MAX;
            o.max_items = u32::MAX;
            o.max_arena_bytes = usize::MAX;
        });
        let arena = Arena::new();
        let node = decoder.decode(&arena, &input).unwrap();

        // Display (and Debug, which renders the same): every level opens
        // and closes its tag.
        let mut sink = Sink {
            len: 0,
            head: String::new(),
        };
        write!(sink, "{node}").unwrap();
        assert!(
            sink.head
                .starts_with("<message>\n  <message>\n    <message>")
        );
        // At least `<message>` and `</message>` per level but the
        // innermost's `<message/>`.
        assert!(sink.len > (LEVELS - 1) * ("<message>".len() + "</message>".len()));
        let mut debug = Sink {
            len: 0,
            head: String::new(),
        };
        write!(debug, "{node:?}").unwrap();
        assert_eq!(debug.len, sink.len);

        let owned = node.to_owned_node();
        assert_eq!(owned_depth(&owned), LEVELS);
        let copy = owned.clone();
        assert_eq!(owned_depth(&copy), LEVELS);
        assert!(owned == copy);
        // The same tree but for the innermost tag: not equal.
        let mut changed = owned.clone();
        let mut innermost = &mut changed;
        for _ in 1..LEVELS {
            innermost = match &mut innermost.content {
                OwnedContent::Nodes(children) => &mut children[0],
                other => panic!("a level without a child: {other:?}"),
            };
        }
        innermost.tag = "other".into();
        assert!(owned != changed);
        drop(changed);
        drop(copy);
        let mut debug = Sink {
            len: 0,
            head: String::new(),
        };
        write!(debug, "{owned:?}").unwrap();
        assert!(debug.head.starts_with("OwnedNode"));
        drop(owned);
    });
}

#[test]
fn debug_writes_the_derived_form_and_elides_below_its_depth() {
    let node = OwnedNode::new("a").children([OwnedNode::new("b").text("t")]);
    assert_eq!(
        format!("{node:?}"),
        r#"OwnedNode { tag: "a", attrs: [], content: Nodes([OwnedNode { tag: "b", attrs: [], content: Text("t") }]) }"#
    );
    // DEBUG_DEPTH levels are written; the child list below the last of
    // them is written as its length.
    let mut deep = OwnedNode::new("x");
    for _ in 0..OwnedNode::DEBUG_DEPTH {
        deep = OwnedNode::new("n").children([deep]);
    }
    let text = format!("{deep:?}");
    assert_eq!(text.matches("OwnedNode {").count(), OwnedNode::DEBUG_DEPTH);
    assert!(text.contains("content: Nodes([… 1 nodes])"), "{text}");
}
