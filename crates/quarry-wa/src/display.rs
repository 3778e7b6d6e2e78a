//! XML-like rendering of a node, for logs and the CLI.

use std::fmt::{self, Write};

use crate::node::{ChildIter, Children, Content, Node};

/// Renders `<tag key="value">…</tag>`, children indented by two spaces
/// per level (up to 128 levels, the default `max_depth`; deeper ones are
/// indented as the 128th), bytes content as `<!-- N bytes: hex -->` (the first 16
/// bytes of it). The walk keeps its own stack, so a tree of any depth
/// renders on any thread.
///
/// ```
/// let arena = quarry_core::Arena::new();
/// // <message type="enc"/>
/// let node = quarry_wa::decode(&arena, &[0xF8, 3, 19, 4, 29]).unwrap();
/// assert_eq!(node.to_string(), r#"<message type="enc"/>"#);
/// ```
impl fmt::Display for Node<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The nodes whose children are being written, with the children
        // left to write.
        let mut open: Vec<(Node<'_>, ChildIter<'_>)> = Vec::new();
        let mut next = Some(*self);
        loop {
            if let Some(node) = next.take()
                && let Some(children) = write_start(f, node)?
            {
                open.push((node, children.iter()));
            }
            let depth = open.len();
            let Some((parent, children)) = open.last_mut() else {
                return Ok(());
            };
            match children.next() {
                Some(child) => {
                    f.write_char('\n')?;
                    indent(f, depth)?;
                    next = Some(child);
                }
                None => {
                    let parent = *parent;
                    if !parent.children().is_empty() {
                        f.write_char('\n')?;
                        indent(f, depth - 1)?;
                    }
                    write!(f, "</{}>", Escaped(parent.tag()))?;
                    open.pop();
                }
            }
        }
    }
}

const BYTES_SHOWN: usize = 16;

/// Deepest level whose indentation grows: past it, lines are indented as
/// at this level (the default `max_depth`, so any tree the default decoder
/// accepts renders in full).
const MAX_INDENT: usize = 128;

/// Two spaces per level, at most [`MAX_INDENT`] levels.
fn indent(f: &mut fmt::Formatter<'_>, depth: usize) -> fmt::Result {
    const SPACES: &str = match std::str::from_utf8(&[b' '; 2 * MAX_INDENT]) {
        Ok(spaces) => spaces,
        Err(_) => panic!("spaces are ASCII"),
    };
    f.write_str(SPACES.get(..2 * depth.min(MAX_INDENT)).unwrap_or_default())
}

/// Everything of `node` up to its children: the whole node when it has
/// none, or its start tag and the children still to write.
fn write_start<'a>(
    f: &mut fmt::Formatter<'_>,
    node: Node<'a>,
) -> Result<Option<Children<'a>>, fmt::Error> {
    write!(f, "<{}", Escaped(node.tag()))?;
    for (key, value) in node.attrs().iter() {
        write!(f, " {}=\"{}\"", Escaped(key), Escaped(&value.to_string()))?;
    }
    match node.content() {
        Content::None => f.write_str("/>")?,
        Content::Text(text) => write!(f, ">{}</{}>", Escaped(text), Escaped(node.tag()))?,
        Content::Bytes(bytes) => {
            write!(f, "><!-- {} bytes: ", bytes.len())?;
            for b in bytes.iter().take(BYTES_SHOWN) {
                write!(f, "{b:02x}")?;
            }
            if bytes.len() > BYTES_SHOWN {
                f.write_str("…")?;
            }
            write!(f, " --></{}>", Escaped(node.tag()))?;
        }
        Content::Nodes(children) => {
            f.write_char('>')?;
            return Ok(Some(children));
        }
    }
    Ok(None)
}

struct Escaped<'s>(&'s str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.0.chars() {
            match c {
                '<' => f.write_str("&lt;")?,
                '>' => f.write_str("&gt;")?,
                '&' => f.write_str("&amp;")?,
                '"' => f.write_str("&quot;")?,
                c if c.is_control() => write!(f, "&#x{:x};", u32::from(c))?,
                c => f.write_char(c)?,
            }
        }
        Ok(())
    }
}
