//! The decode loop: one pass over the node bytes, an explicit stack instead
//! of recursion, every record written into the arena.

use quarry::bumpalo::collections::Vec as ArenaVec;
use quarry::{Arena, BoundedAlloc, ByteReader, DecodeError, DecodeOptions};

use crate::dictionary::Dictionary;
use crate::jid::{self, Jid, Server};
use crate::node::{AttrRec, Children, Content, Node, NodeRec, Value};
use crate::packed;
use crate::wire::*;

/// Upper bound on arena bytes per input byte, and the constant on top.
///
/// The densest records per input byte are an attribute of two one-byte
/// tokens (40 arena bytes for 2 input bytes), a bare child node of three
/// bytes (56 arena bytes) and a JID of three bytes in tag position rendered
/// to text (at most 63 bytes). Everything else costs less per byte; raw
/// strings and bytes cost nothing (they borrow from the input). So one
/// decode writes at most `ARENA_BYTES_PER_INPUT_BYTE * len + ARENA_BYTES_CONST`
/// bytes, and reserving that much up front makes a fresh arena cost one
/// heap allocation.
pub const ARENA_BYTES_PER_INPUT_BYTE: usize = 21;
/// See [`ARENA_BYTES_PER_INPUT_BYTE`].
pub const ARENA_BYTES_CONST: usize = 256;

/// The arena bytes one decode of `input_len` bytes may write, at most.
///
/// ```
/// assert_eq!(quarry_wa::max_arena_bytes(100), 21 * 100 + 256);
/// ```
pub const fn max_arena_bytes(input_len: usize) -> usize {
    input_len
        .saturating_mul(ARENA_BYTES_PER_INPUT_BYTE)
        .saturating_add(ARENA_BYTES_CONST)
}

/// Decoder settings: limits and the token dictionary.
///
/// ```
/// use quarry::{Arena, DecodeOptions};
/// use quarry_wa::Decoder;
///
/// let decoder = Decoder { options: DecodeOptions { max_depth: 8, ..Default::default() }, ..Decoder::new() };
/// let arena = Arena::new();
/// let node = decoder.decode(&arena, &[0xF8, 1, 19]).unwrap();
/// assert_eq!(node.tag(), "message");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Decoder {
    /// Limits. `max_items` counts nodes plus attributes.
    pub options: DecodeOptions,
    /// The token dictionary.
    pub dictionary: &'static Dictionary,
}

impl Default for Decoder {
    fn default() -> Self {
        Self::new()
    }
}

impl Decoder {
    /// Default limits and the v3 dictionary.
    pub fn new() -> Self {
        Self {
            options: DecodeOptions::DEFAULT,
            dictionary: Dictionary::v3(),
        }
    }

    /// Decode node bytes (no flags byte) into `arena`. The whole input must
    /// be one node.
    pub fn decode<'a>(&self, arena: &'a Arena, input: &'a [u8]) -> Result<Node<'a>, DecodeError> {
        let alloc = BoundedAlloc::new(arena, &self.options);
        self.decode_into(arena, &alloc, input)
    }

    /// Reserve the worst case for `input` in one allocation, then decode.
    pub(crate) fn decode_into<'a>(
        &self,
        arena: &'a Arena,
        alloc: &BoundedAlloc<'a>,
        input: &'a [u8],
    ) -> Result<Node<'a>, DecodeError> {
        let budget_left = alloc.limit().saturating_sub(alloc.used());
        arena.reserve(max_arena_bytes(input.len()).min(budget_left));
        decode_into(alloc, input, &self.options, self.dictionary)
    }
}

/// Decode node bytes (no flags byte) with default limits and the v3
/// dictionary.
///
/// ```
/// let arena = quarry::Arena::new();
/// let node = quarry_wa::decode(&arena, &[0xF8, 1, 19]).unwrap();
/// assert_eq!(node.tag(), "message");
/// let err = quarry_wa::decode(&arena, &[0xF8, 2, 19]).unwrap_err();
/// assert_eq!(err.to_string(), "unexpected end of input at byte 3");
/// ```
pub fn decode<'a>(arena: &'a Arena, input: &'a [u8]) -> Result<Node<'a>, DecodeError> {
    Decoder::new().decode(arena, input)
}

/// One frame of the explicit stack: a run of sibling slots being filled.
struct Frame<'a> {
    slots: &'a mut [NodeRec<'a>],
    next: usize,
}

pub(crate) fn decode_into<'a>(
    alloc: &BoundedAlloc<'a>,
    input: &'a [u8],
    options: &DecodeOptions,
    dictionary: &Dictionary,
) -> Result<Node<'a>, DecodeError> {
    let mut st = State {
        r: ByteReader::new(input),
        alloc,
        dict: dictionary,
        items: 0,
        max_items: options.max_items,
    };
    // Each level of nesting costs at least five input bytes (a node header,
    // a tag, a list header), so this capacity is never outgrown.
    let max_depth = options.max_depth as usize;
    let stack_cap = max_depth.min(input.len() / 5 + 1) + 1;
    alloc.charge(stack_cap * std::mem::size_of::<Frame<'_>>(), 0)?;
    let mut stack: ArenaVec<'a, Frame<'a>> = ArenaVec::with_capacity_in(stack_cap, alloc.bump());

    st.count_items(1, 0)?;
    let root = alloc.alloc_slice_fill_copy(1, NodeRec::EMPTY, 0)?;
    stack.push(Frame {
        slots: root,
        next: 0,
    });
    loop {
        let depth = stack.len();
        let Some(frame) = stack.last_mut() else {
            unreachable!("the root frame is popped only on return");
        };
        if let Some(slot) = frame.slots.get_mut(frame.next) {
            frame.next += 1;
            let start = st.r.offset();
            let (rec, pending_children) = st.read_node()?;
            *slot = rec;
            if let Some(count) = pending_children {
                if depth >= max_depth {
                    return Err(DecodeError::DepthLimit {
                        offset: st.r.offset(),
                        limit: options.max_depth,
                    });
                }
                st.count_items(count, start)?;
                let slots = alloc.alloc_slice_fill_copy(count, NodeRec::EMPTY, start)?;
                stack.push(Frame { slots, next: 0 });
            }
        } else {
            let Some(done) = stack.pop() else {
                unreachable!("checked by last_mut above");
            };
            let done: &'a [NodeRec<'a>] = done.slots;
            match stack.last_mut() {
                Some(parent) => {
                    parent.slots[parent.next - 1].content = Content::Nodes(Children { recs: done });
                }
                None => {
                    st.r.finish()?;
                    return Ok(Node::from_rec(&done[0]));
                }
            }
        }
    }
}

struct State<'a, 's> {
    r: ByteReader<'a>,
    alloc: &'s BoundedAlloc<'a>,
    dict: &'s Dictionary,
    items: u32,
    max_items: u32,
}

/// Where a string is read; decides what `LIST_EMPTY` means.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Slot {
    Tag,
    Key,
    JidUser,
    JidServer,
}

impl<'a> State<'a, '_> {
    #[inline]
    fn count_items(&mut self, n: usize, offset: usize) -> Result<(), DecodeError> {
        match u32::try_from(n).ok().and_then(|n| self.items.checked_add(n)) {
            Some(total) if total <= self.max_items => {
                self.items = total;
                Ok(())
            }
            _ => Err(DecodeError::ItemLimit {
                offset,
                limit: self.max_items,
            }),
        }
    }

    /// Read one node up to its content. A child list is returned as a
    /// count for the caller to push, never read here (no recursion).
    #[inline]
    fn read_node(&mut self) -> Result<(NodeRec<'a>, Option<usize>), DecodeError> {
        let start = self.r.offset();
        let size = match self.r.u8()? {
            LIST_8 => usize::from(self.r.u8()?),
            LIST_16 => usize::from(self.r.u16_be()?),
            byte => {
                return Err(DecodeError::UnexpectedByte {
                    offset: start,
                    byte,
                    context: "expected a node list header",
                });
            }
        };
        if size == 0 {
            return Err(DecodeError::Malformed {
                offset: start,
                what: "node list of size 0",
            });
        }
        let tag = self.read_required_text(Slot::Tag)?;
        let attr_count = (size - 1) / 2;
        let attrs: &'a [AttrRec<'a>] = if attr_count == 0 {
            &[]
        } else {
            // Each attribute takes at least two bytes: a lying count fails
            // here, before the arena is asked for anything.
            if attr_count * 2 > self.r.remaining() {
                return Err(DecodeError::UnexpectedEof {
                    offset: self.r.input().len(),
                });
            }
            self.count_items(attr_count, start)?;
            let alloc = self.alloc;
            alloc.alloc_slice_try_fill_with(attr_count, start, |_| self.read_attr())?
        };
        let mut rec = NodeRec {
            tag,
            attrs,
            content: Content::None,
        };
        if size % 2 == 0 {
            let at = self.r.offset();
            let byte = self.r.u8()?;
            match byte {
                LIST_EMPTY => {}
                LIST_8 | LIST_16 => {
                    let count = if byte == LIST_8 {
                        usize::from(self.r.u8()?)
                    } else {
                        usize::from(self.r.u16_be()?)
                    };
                    // A child node takes at least three bytes.
                    if count > self.r.remaining() / 3 {
                        return Err(DecodeError::UnexpectedEof {
                            offset: self.r.input().len(),
                        });
                    }
                    if count == 0 {
                        rec.content = Content::Nodes(Children { recs: &[] });
                    } else {
                        return Ok((rec, Some(count)));
                    }
                }
                BINARY_8 | BINARY_20 | BINARY_32 => {
                    rec.content = Content::Bytes(self.read_binary(byte)?);
                }
                _ => {
                    rec.content = match self.read_text_tagged(byte, at, Slot::Tag)? {
                        Some(text) => Content::Text(text),
                        None => Content::None,
                    }
                }
            }
        }
        Ok((rec, None))
    }

    #[inline]
    fn read_attr(&mut self) -> Result<AttrRec<'a>, DecodeError> {
        let key = self.read_required_text(Slot::Key)?;
        let at = self.r.offset();
        let byte = self.r.u8()?;
        let value = match byte {
            LIST_EMPTY => Value::Str(""),
            JID_PAIR | AD_JID | INTEROP_JID | FB_JID => Value::Jid(self.read_jid(byte, at)?),
            _ => Value::Str(self.read_text_tagged(byte, at, Slot::Key)?.unwrap_or("")),
        };
        Ok(AttrRec { key, value })
    }

    #[inline]
    fn read_binary(&mut self, byte: u8) -> Result<&'a [u8], DecodeError> {
        let len = match byte {
            BINARY_8 => usize::from(self.r.u8()?),
            BINARY_20 => {
                let b = self.r.array::<3>()?;
                (usize::from(b[0] & 0x0F) << 16) | (usize::from(b[1]) << 8) | usize::from(b[2])
            }
            _ => self.r.u32_be()? as usize,
        };
        self.r.take(len)
    }

    /// A string that must be present (tag, key, the user of an AD, interop
    /// or Messenger JID).
    #[inline]
    fn read_required_text(&mut self, slot: Slot) -> Result<&'a str, DecodeError> {
        let at = self.r.offset();
        let byte = self.r.u8()?;
        match self.read_text_tagged(byte, at, slot)? {
            Some(text) => Ok(text),
            None => Err(DecodeError::Malformed {
                offset: at,
                what: match slot {
                    Slot::Tag => "empty node tag",
                    Slot::Key => "empty attribute key",
                    Slot::JidUser => "empty JID user",
                    Slot::JidServer => "missing JID server",
                },
            }),
        }
    }

    /// A string slot whose tag byte `byte` (at offset `at`) is already read.
    /// `None` is `LIST_EMPTY`.
    #[inline]
    fn read_text_tagged(
        &mut self,
        byte: u8,
        at: usize,
        slot: Slot,
    ) -> Result<Option<&'a str>, DecodeError> {
        match byte {
            LIST_EMPTY => Ok(None),
            1..=235 => Ok(self.dict.single(byte)),
            DICTIONARY_0..=DICTIONARY_3 => {
                let index = self.r.u8()?;
                Ok(self.dict.double(byte - DICTIONARY_0, index))
            }
            BINARY_8 | BINARY_20 | BINARY_32 => {
                let bytes = self.read_binary(byte)?;
                match std::str::from_utf8(bytes) {
                    Ok(text) => Ok(Some(text)),
                    Err(_) => Err(DecodeError::InvalidUtf8 {
                        offset: self.r.offset() - bytes.len(),
                    }),
                }
            }
            NIBBLE_8 | HEX_8 => self.read_packed(byte).map(Some),
            JID_PAIR | AD_JID | INTEROP_JID | FB_JID => {
                if matches!(slot, Slot::JidUser | Slot::JidServer) {
                    return Err(DecodeError::Malformed {
                        offset: at,
                        what: "JID nested in a JID user",
                    });
                }
                let jid = self.read_jid(byte, at)?;
                self.render_jid(&jid, at).map(Some)
            }
            _ => Err(DecodeError::UnexpectedByte {
                offset: at,
                byte,
                context: "expected a string",
            }),
        }
    }

    #[cold]
    #[inline(never)]
    fn read_packed(&mut self, byte: u8) -> Result<&'a str, DecodeError> {
        let header = self.r.u8()?;
        let len = usize::from(header & 0x7F);
        let start = self.r.offset();
        let bytes = self.r.take(len)?;
        let out_len = (len * 2).saturating_sub(usize::from(header >> 7));
        let out = self.alloc.alloc_slice_fill_copy(len * 2, 0u8, start)?;
        if byte == NIBBLE_8 {
            packed::unpack_nibbles(bytes, out).map_err(|i| DecodeError::Malformed {
                offset: start + i,
                what: "invalid nibble in packed string",
            })?;
        } else {
            packed::unpack_hex(bytes, out);
        }
        let out = &out[..out_len];
        // The alphabets are ASCII, so this never fails.
        std::str::from_utf8(out).map_err(|_| DecodeError::InvalidUtf8 { offset: start })
    }

    #[cold]
    #[inline(never)]
    fn read_jid(&mut self, byte: u8, at: usize) -> Result<Jid<'a>, DecodeError> {
        match byte {
            JID_PAIR => {
                let user_at = self.r.offset();
                let user_tag = self.r.u8()?;
                let user = self
                    .read_text_tagged(user_tag, user_at, Slot::JidUser)?
                    .unwrap_or("");
                let server = self.read_server()?;
                Ok(Jid::new(user, server))
            }
            AD_JID => {
                let domain = self.r.u8()?;
                let device = self.r.u8()?;
                let user = self.read_jid_user()?;
                let server = match domain {
                    0 => Server::Pn,
                    1 => Server::Lid,
                    129 => Server::HostedLid,
                    d if d & 0x80 != 0 && d % 2 == 0 => Server::Hosted,
                    _ => {
                        return Err(DecodeError::Malformed {
                            offset: at + 1,
                            what: "invalid AD_JID domain",
                        });
                    }
                };
                Ok(Jid::new(user, server).with_device(u16::from(device)))
            }
            INTEROP_JID => {
                let user = self.read_jid_user()?;
                let device = self.r.u16_be()?;
                let integrator = self.r.u16_be()?;
                self.expect_server(Server::Interop)?;
                Ok(Jid::new(user, Server::Interop)
                    .with_device(device)
                    .with_integrator(integrator))
            }
            _ => {
                let user = self.read_jid_user()?;
                let device = self.r.u16_be()?;
                self.expect_server(Server::Messenger)?;
                Ok(Jid::new(user, Server::Messenger).with_device(device))
            }
        }
    }

    fn read_jid_user(&mut self) -> Result<&'a str, DecodeError> {
        let at = self.r.offset();
        let user = self.read_required_text(Slot::JidUser)?;
        if user.is_empty() {
            return Err(DecodeError::Malformed {
                offset: at,
                what: "empty JID user",
            });
        }
        Ok(user)
    }

    fn read_server(&mut self) -> Result<Server, DecodeError> {
        let at = self.r.offset();
        let name = self.read_required_text(Slot::JidServer)?;
        Server::from_name(name).ok_or(DecodeError::Malformed {
            offset: at,
            what: "unknown JID server",
        })
    }

    fn expect_server(&mut self, want: Server) -> Result<(), DecodeError> {
        let at = self.r.offset();
        if self.read_server()? == want {
            Ok(())
        } else {
            Err(DecodeError::Malformed {
                offset: at,
                what: "wrong JID server",
            })
        }
    }

    #[cold]
    #[inline(never)]
    fn render_jid(&mut self, jid: &Jid<'a>, at: usize) -> Result<&'a str, DecodeError> {
        let out = self
            .alloc
            .alloc_slice_fill_copy(jid.rendered_len(), 0u8, at)?;
        jid::render_into(jid, out);
        std::str::from_utf8(out).map_err(|_| DecodeError::InvalidUtf8 { offset: at })
    }
}
