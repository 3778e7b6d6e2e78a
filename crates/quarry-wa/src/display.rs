//! XML-like rendering of a node, for logs and the CLI.

use std::fmt::{self, Write};

use crate::node::{Content, Node};

/// Renders `<tag key="value">…</tag>`, children indented by two spaces,
/// bytes content as `<!-- N bytes: hex -->` (the first 16 bytes of it).
///
/// ```
/// let arena = quarry::Arena::new();
/// // <message type="enc"/>
/// let node = quarry_wa::decode(&arena, &[0xF8, 3, 19, 4, 29]).unwrap();
/// assert_eq!(node.to_string(), r#"<message type="enc"/>"#);
/// ```
impl fmt::Display for Node<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_node(f, *self, 0)
    }
}

const BYTES_SHOWN: usize = 16;

fn write_node(f: &mut fmt::Formatter<'_>, node: Node<'_>, depth: usize) -> fmt::Result {
    write!(f, "<{}", Escaped(node.tag()))?;
    for (key, value) in node.attrs().iter() {
        write!(f, " {}=\"{}\"", Escaped(key), Escaped(&value.to_string()))?;
    }
    match node.content() {
        Content::None => f.write_str("/>"),
        Content::Text(text) => write!(f, ">{}</{}>", Escaped(text), Escaped(node.tag())),
        Content::Bytes(bytes) => {
            write!(f, "><!-- {} bytes: ", bytes.len())?;
            for b in bytes.iter().take(BYTES_SHOWN) {
                write!(f, "{b:02x}")?;
            }
            if bytes.len() > BYTES_SHOWN {
                f.write_str("…")?;
            }
            write!(f, " --></{}>", Escaped(node.tag()))
        }
        Content::Nodes(children) => {
            f.write_char('>')?;
            for child in children {
                f.write_char('\n')?;
                for _ in 0..=depth {
                    f.write_str("  ")?;
                }
                write_node(f, child, depth + 1)?;
            }
            if !children.is_empty() {
                f.write_char('\n')?;
                for _ in 0..depth {
                    f.write_str("  ")?;
                }
            }
            write!(f, "</{}>", Escaped(node.tag()))
        }
    }
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
