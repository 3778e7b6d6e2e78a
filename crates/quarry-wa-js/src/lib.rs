//! quarry-wa for JavaScript: the WebAssembly half of the npm package in
//! this directory.
//!
//! The module exports a plain C ABI (no wasm-bindgen). JavaScript writes a
//! stanza's node bytes into the buffer [`qw_input`] returns, calls
//! [`qw_decode`], and reads the decoded tree back as one flat *tape* of
//! `u32` words (at the address `qw_decode` returns) plus a byte area of
//! strings the input does not hold ([`qw_strings_ptr`]). It then builds
//! the JavaScript objects itself in one pass. One call crosses the
//! boundary per stanza; no JavaScript object is made from Rust.
//!
//! # Tape
//!
//! A node, in pre-order:
//!
//! ```text
//! header  = attribute_count << 3 | content_kind
//! node    = header  string(tag)  (string(key) string(value))*  content
//! content = (kind 0: nothing)
//!         | (kind 1) string
//!         | (kind 2) offset len          bytes of the input
//!         | (kind 3) count node*         a child list
//!         | (kind 4) offset len          bytes of the string area
//! string  = token                        one word below STR_SCRATCH
//!         | STR_INPUT | flags | len, offset      bytes of the input
//!         | STR_SCRATCH | flags | len, offset    bytes of the string area
//!         | STR_JID | server << 16 | device, string(user)   a JID attribute value
//! ```
//!
//! `flags` is [`STR_NON_ASCII`] when the bytes are not all ASCII. Token
//! ids are those [`token_table`] lists: `0` is the empty string, single
//! byte tokens keep their byte, double byte token `(d, i)` is
//! `236 + 256 * d + i`. JID attribute values come in parts, which
//! JavaScript joins the way Baileys renders them: `user[:device]@server`,
//! and `@server` for an empty user. Where quarry-wa renders a JID to text
//! itself (tag, key and content position), an empty user's JID, which it
//! writes as the server name alone, gets the `@` in front here.
//!
//! ```
//! let mut codec = quarry_wa_js::Codec::new();
//! // <message type="enc"/>: three tokens
//! codec.input(3 + 2).copy_from_slice(&[0xF8, 3, 19, 4, 29]);
//! codec.decode(5).unwrap();
//! assert_eq!(codec.tape(), &[1 << 3, 19, 4, 29]);
//! ```

use std::cell::RefCell;

use quarry_wa::{Arena, Content, Dictionary, Jid, Node, Server, Value};

/// A string word with this bit set is followed by an offset into the
/// input; the low bits ([`STR_LEN_MASK`]) hold the length.
pub const STR_INPUT: u32 = 0x8000_0000;
/// A string word with this bit set is followed by an offset into the
/// string area; the low bits ([`STR_LEN_MASK`]) hold the length.
pub const STR_SCRATCH: u32 = 0x4000_0000;
/// A string word with both [`STR_INPUT`] and [`STR_SCRATCH`] set is a
/// JID: bits 16..24 hold its [`Server`] (`as u8`), the low 16 bits its
/// device (0: none), and the user's string follows.
pub const STR_JID: u32 = STR_INPUT | STR_SCRATCH;
/// Set in a string word when the bytes are not all ASCII.
pub const STR_NON_ASCII: u32 = 0x2000_0000;
/// The length bits of a string word.
pub const STR_LEN_MASK: u32 = 0x1FFF_FFFF;

/// Content kind: no content.
pub const CONTENT_NONE: u32 = 0;
/// Content kind: a string follows.
pub const CONTENT_TEXT: u32 = 1;
/// Content kind: an input offset and a length follow.
pub const CONTENT_BYTES: u32 = 2;
/// Content kind: a child count and that many nodes follow.
pub const CONTENT_LIST: u32 = 3;
/// Content kind: a string-area offset and a length follow (bytes the input
/// does not hold).
pub const CONTENT_SCRATCH_BYTES: u32 = 4;

/// Number of token ids: 236 single byte slots and 4 × 256 double byte ones.
pub const TOKEN_COUNT: usize = 236 + 4 * 256;

/// Buffers above this size are released after a call, so one large stanza
/// does not pin its memory for the life of the module.
pub const RETAIN_BYTES: usize = 1 << 20;

/// Token string address → token id, for the strings the decoder takes
/// from the dictionary (they are `&'static` and keep their address).
struct TokenMap {
    slots: Vec<(usize, u32, u16)>,
}

impl TokenMap {
    const BITS: u32 = 12;

    fn new() -> Self {
        let dict = Dictionary::v3();
        let mut map = TokenMap {
            slots: vec![(0, 0, 0); 1 << Self::BITS],
        };
        for (id, token) in tokens(dict) {
            if let Some(text) = token.filter(|t| !t.is_empty()) {
                map.insert(text, id);
            }
        }
        map
    }

    fn slot(ptr: usize) -> usize {
        // Fibonacci hashing of the address; the table is at most a third full.
        ((ptr as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - Self::BITS)) as usize
    }

    fn insert(&mut self, text: &'static str, id: u16) {
        let ptr = text.as_ptr() as usize;
        let len = text.len() as u32;
        let mask = self.slots.len() - 1;
        let mut i = Self::slot(ptr);
        while self.slots[i].0 != 0 {
            i = (i + 1) & mask;
        }
        self.slots[i] = (ptr, len, id);
    }

    #[inline]
    fn get(&self, text: &str) -> Option<u16> {
        let ptr = text.as_ptr() as usize;
        let mask = self.slots.len() - 1;
        let mut i = Self::slot(ptr);
        loop {
            let (p, len, id) = self.slots[i];
            if p == 0 {
                return None;
            }
            if p == ptr && len as usize == text.len() {
                return Some(id);
            }
            i = (i + 1) & mask;
        }
    }
}

/// Every token id with its text (`None` for an unused slot).
fn tokens(dict: &'static Dictionary) -> impl Iterator<Item = (u16, Option<&'static str>)> {
    let single = (0..236u16).map(move |b| (b, dict.single(b as u8)));
    let double = (0..4u16).flat_map(move |d| {
        (0..256u16).map(move |i| (236 + 256 * d + i, dict.double(d as u8, i as u8)))
    });
    single.chain(double)
}

/// The token strings in id order, then the names of [`Server::ALL`] in
/// order, each followed by a NUL byte (tokens hold none); an unused token
/// slot is an empty string.
pub fn token_table() -> Vec<u8> {
    let mut out = Vec::new();
    for (_, token) in tokens(Dictionary::v3()) {
        out.extend_from_slice(token.unwrap_or("").as_bytes());
        out.push(0);
    }
    for server in Server::ALL {
        out.extend_from_slice(server.as_str().as_bytes());
        out.push(0);
    }
    out
}

/// The decoder state one module instance keeps between calls: the input
/// buffer JavaScript writes into, the arena, and the output.
pub struct Codec {
    arena: Arena,
    input: Vec<u8>,
    out: Out,
}

/// What a decode writes.
struct Out {
    tape: Vec<u32>,
    strings: Vec<u8>,
    tokens: TokenMap,
}

impl Default for Codec {
    fn default() -> Self {
        Self::new()
    }
}

impl Codec {
    /// Empty buffers and an empty arena.
    pub fn new() -> Self {
        Codec {
            arena: Arena::new(),
            input: Vec::new(),
            out: Out {
                tape: Vec::new(),
                strings: Vec::new(),
                tokens: TokenMap::new(),
            },
        }
    }

    /// The input buffer, at least `len` bytes long.
    pub fn input(&mut self, len: usize) -> &mut [u8] {
        if self.input.len() < len {
            // Exactly `len`: JavaScript keeps the address of a buffer of
            // up to RETAIN_BYTES, which `trim` must then leave alone.
            self.input.reserve_exact(len - self.input.len());
            self.input.resize(len, 0);
        }
        &mut self.input[..len]
    }

    /// Decode the first `len` bytes of the input buffer (node bytes, no
    /// flags byte) into the tape. On error the message (with its byte
    /// offset) is returned and also left in the string area.
    pub fn decode(&mut self, len: usize) -> Result<(), String> {
        self.arena.reset();
        self.out.tape.clear();
        // Room for the string area's address (see `qw_decode`).
        self.out.tape.push(0);
        self.out.strings.clear();
        let input = self.input.get(..len).unwrap_or(&[]);
        let result = match quarry_wa::decode(&self.arena, input) {
            Ok(root) => {
                self.out.node(input, root);
                Ok(())
            }
            Err(e) => {
                let message = e.to_string();
                self.out.strings.extend_from_slice(message.as_bytes());
                Err(message)
            }
        };
        self.trim();
        result
    }

    /// The tape of the last successful decode.
    pub fn tape(&self) -> &[u32] {
        self.out.tape.get(1..).unwrap_or(&[])
    }

    /// The string area of the last decode (the error message after a
    /// failed one).
    pub fn strings(&self) -> &[u8] {
        &self.out.strings
    }

    /// Release what one large stanza grew (the tape and string area stay
    /// readable: they are released at the start of the next call).
    fn trim(&mut self) {
        if self.input.capacity() > RETAIN_BYTES {
            self.input = Vec::new();
        }
        if self.arena.stats().allocated_bytes > 4 * RETAIN_BYTES {
            self.arena = Arena::new();
        }
        if self.out.tape.capacity() > RETAIN_BYTES / 4 && self.out.tape.len() < RETAIN_BYTES / 16 {
            self.out.tape = Vec::new();
        }
        if self.out.strings.capacity() > RETAIN_BYTES && self.out.strings.len() < RETAIN_BYTES / 4 {
            self.out.strings = Vec::new();
        }
    }
}

impl Out {
    fn node(&mut self, input: &[u8], node: Node<'_>) {
        let attrs = node.attrs();
        let kind = match node.content() {
            Content::None => CONTENT_NONE,
            Content::Text(_) => CONTENT_TEXT,
            Content::Bytes(b) => {
                if within(input, b).is_some() {
                    CONTENT_BYTES
                } else {
                    CONTENT_SCRATCH_BYTES
                }
            }
            Content::Nodes(_) => CONTENT_LIST,
        };
        // A node has at most 32767 attributes (a 16-bit list size).
        self.tape.push(((attrs.len() as u32) << 3) | kind);
        self.str(input, node.tag());
        for (key, value) in attrs.iter() {
            self.str(input, key);
            match value {
                Value::Str(s) => self.str(input, s),
                Value::Jid(jid) => self.jid(input, jid),
            }
        }
        match node.content() {
            Content::None => {}
            Content::Text(s) => self.str(input, s),
            Content::Bytes(b) => match within(input, b) {
                Some(offset) => {
                    self.tape.push(offset as u32);
                    self.tape.push(b.len() as u32);
                }
                None => {
                    self.tape.push(self.strings.len() as u32);
                    self.tape.push(b.len() as u32);
                    self.strings.extend_from_slice(b);
                }
            },
            Content::Nodes(children) => {
                self.tape.push(children.len() as u32);
                for child in children {
                    self.node(input, child);
                }
            }
        }
    }

    #[inline]
    fn str(&mut self, input: &[u8], s: &str) {
        if s.is_empty() {
            self.tape.push(0);
            return;
        }
        let ascii = if s.is_ascii() { 0 } else { STR_NON_ASCII };
        if let Some(offset) = within(input, s.as_bytes()) {
            self.tape.push(STR_INPUT | ascii | s.len() as u32);
            self.tape.push(offset as u32);
        } else if let Some(id) = self.tokens.get(s) {
            self.tape.push(u32::from(id));
        } else {
            let start = self.strings.len();
            // Text the decoder made: a packed string (digits, `-`, `.`,
            // upper-case hex) or a rendered JID. A server name alone is a
            // JID with an empty user, which Baileys renders as `@server`.
            if s.as_bytes()[0].is_ascii_lowercase() && Server::from_name(s).is_some() {
                self.strings.push(b'@');
            }
            self.strings.extend_from_slice(s.as_bytes());
            let len = self.strings.len() - start;
            self.tape.push(STR_SCRATCH | ascii | len as u32);
            self.tape.push(start as u32);
        }
    }

    fn jid(&mut self, input: &[u8], jid: Jid<'_>) {
        if jid.agent() == 0 {
            // user, device and server apart: JavaScript joins them.
            self.tape
                .push(STR_JID | (jid.server() as u32) << 16 | u32::from(jid.device()));
            let user = jid.user();
            match user.as_unpacked_str() {
                Some(text) => self.str(input, text),
                None => self.scratch(user.to_small_str().as_bytes()),
            }
            return;
        }
        // Not made by the decoder (it never sets an agent): rendered here,
        // with Baileys' `_` before the agent.
        let start = self.strings.len();
        self.strings
            .extend_from_slice(jid.user().to_text().as_bytes());
        self.strings.push(b'_');
        decimal(&mut self.strings, u32::from(jid.agent()));
        if jid.device() > 0 {
            self.strings.push(b':');
            decimal(&mut self.strings, u32::from(jid.device()));
        }
        self.strings.push(b'@');
        self.strings
            .extend_from_slice(jid.server().as_str().as_bytes());
        let text = &self.strings[start..];
        let ascii = if text.is_ascii() { 0 } else { STR_NON_ASCII };
        self.tape.push(STR_SCRATCH | ascii | text.len() as u32);
        self.tape.push(start as u32);
    }

    /// A string word for `bytes`, copied into the string area.
    fn scratch(&mut self, bytes: &[u8]) {
        let ascii = if bytes.is_ascii() { 0 } else { STR_NON_ASCII };
        self.tape.push(STR_SCRATCH | ascii | bytes.len() as u32);
        self.tape.push(self.strings.len() as u32);
        self.strings.extend_from_slice(bytes);
    }
}

/// Append `n` in decimal.
fn decimal(out: &mut Vec<u8>, n: u32) {
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    let mut n = n;
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}

/// The offset of `part` in `whole`, when `part` lies inside it.
fn within(whole: &[u8], part: &[u8]) -> Option<usize> {
    let start = whole.as_ptr() as usize;
    let p = part.as_ptr() as usize;
    let offset = p.checked_sub(start)?;
    (offset + part.len() <= whole.len()).then_some(offset)
}

thread_local! {
    static CODEC: RefCell<Codec> = RefCell::new(Codec::new());
    static TOKENS: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The input buffer, grown to at least `len` bytes: JavaScript copies a
/// stanza's node bytes here before [`qw_decode`]. Valid until the next
/// call into the module.
#[unsafe(no_mangle)]
pub extern "C" fn qw_input(len: usize) -> *mut u8 {
    CODEC.with_borrow_mut(|c| c.input(len).as_mut_ptr())
}

/// Decode the first `len` input bytes. Returns the address of the tape
/// on success, and 0 on error (the string area holds the message). The
/// address of the string area is at [`qw_strings_ptr`], and also in the
/// word just before the tape.
#[unsafe(no_mangle)]
pub extern "C" fn qw_decode(len: usize) -> *const u32 {
    CODEC.with_borrow_mut(|c| match c.decode(len) {
        Ok(()) => {
            // Addresses are 32 bits on wasm32 (the host value is unused).
            c.out.tape[0] = c.out.strings.as_ptr() as usize as u32;
            c.tape().as_ptr()
        }
        Err(_) => std::ptr::null(),
    })
}

/// Length of the tape in words.
#[unsafe(no_mangle)]
pub extern "C" fn qw_tape_len() -> usize {
    CODEC.with_borrow(|c| c.tape().len())
}

/// Address of the string area.
#[unsafe(no_mangle)]
pub extern "C" fn qw_strings_ptr() -> *const u8 {
    CODEC.with_borrow(|c| c.strings().as_ptr())
}

/// Length of the string area in bytes.
#[unsafe(no_mangle)]
pub extern "C" fn qw_strings_len() -> usize {
    CODEC.with_borrow(|c| c.strings().len())
}

/// The [`token_table`], built on first call; returns its address and
/// leaves its length for [`qw_tokens_len`].
#[unsafe(no_mangle)]
pub extern "C" fn qw_tokens_ptr() -> *const u8 {
    TOKENS.with_borrow_mut(|t| {
        if t.is_empty() {
            *t = token_table();
        }
        t.as_ptr()
    })
}

/// Length of the [`token_table`] in bytes (after [`qw_tokens_ptr`]).
#[unsafe(no_mangle)]
pub extern "C" fn qw_tokens_len() -> usize {
    TOKENS.with_borrow(|t| t.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(bytes: &[u8]) -> Result<(Vec<u32>, Vec<u8>), String> {
        let mut codec = Codec::new();
        codec.input(bytes.len()).copy_from_slice(bytes);
        codec.decode(bytes.len())?;
        Ok((codec.tape().to_vec(), codec.strings().to_vec()))
    }

    #[test]
    fn tokens_raw_strings_and_bytes() {
        // <iq id="ab" xmlns="ü"> bytes 01 02 </iq>
        let dict = Dictionary::v3();
        let t = |s| match dict.lookup(s) {
            Some(quarry_wa::Token::Single(b)) => b,
            _ => panic!("{s} is a single byte token"),
        };
        let bytes = [
            0xF8,
            6,
            t("iq"),
            t("id"),
            0xFC,
            2,
            b'a',
            b'b',
            t("xmlns"),
            0xFC,
            2,
            0xC3,
            0xBC,
            0xFC,
            2,
            1,
            2,
        ];
        let (tape, strings) = decode(&bytes).unwrap();
        assert_eq!(
            tape,
            [
                (2 << 3) | CONTENT_BYTES,
                u32::from(t("iq")),
                u32::from(t("id")),
                STR_INPUT | 2,
                6,
                u32::from(t("xmlns")),
                STR_INPUT | STR_NON_ASCII | 2,
                11,
                15,
                2,
            ]
        );
        assert!(strings.is_empty());
    }

    #[test]
    fn double_tokens_packed_and_jids() {
        // <to jid=AD_JID(domain 1, device 2, user nibble "12") x=""> "3.5" packed </to>
        // and a JID_PAIR attribute with an empty user: "@s.whatsapp.net".
        let dict = Dictionary::v3();
        let (d, i) = match dict.lookup("relay") {
            Some(quarry_wa::Token::Double(d, i)) => (d, i),
            _ => panic!("relay is a double byte token"),
        };
        let single = |s| match dict.lookup(s) {
            Some(quarry_wa::Token::Single(b)) => b,
            _ => panic!("{s} is a single byte token"),
        };
        let bytes = [
            0xF8,
            6,
            236 + d,
            i,
            single("jid"),
            0xF7,
            1,
            2,
            0xFF,
            0x01,
            0x12,
            single("from"),
            0xFA,
            0,
            single("s.whatsapp.net"),
            0xFF,
            0x82,
            0x3B,
            0x5F,
        ];
        let (tape, strings) = decode(&bytes).unwrap();
        assert_eq!(
            tape,
            [
                (2 << 3) | CONTENT_TEXT,
                236 + 256 * u32::from(d) + u32::from(i),
                u32::from(single("jid")),
                STR_JID | (1 << 16) | 2,
                STR_SCRATCH | 2,
                0,
                u32::from(single("from")),
                STR_JID,
                0,
                STR_SCRATCH | 3,
                2,
            ]
        );
        assert_eq!(strings, b"123.5");
    }

    #[test]
    fn empty_user_jids_in_text_positions_render_as_baileys_does() {
        // <message>JID_PAIR(LIST_EMPTY, g.us)</message>
        let g_us = match Dictionary::v3().lookup("g.us") {
            Some(quarry_wa::Token::Single(b)) => b,
            _ => panic!("g.us is a single byte token"),
        };
        let (tape, strings) = decode(&[0xF8, 2, 19, 0xFA, 0, g_us]).unwrap();
        assert_eq!(tape, [CONTENT_TEXT, 19, STR_SCRATCH | 5, 0]);
        assert_eq!(strings, b"@g.us");
        // The token itself as content stays the bare token.
        let (tape, strings) = decode(&[0xF8, 2, 19, g_us]).unwrap();
        assert_eq!(tape, [CONTENT_TEXT, 19, u32::from(g_us)]);
        assert!(strings.is_empty());
    }

    #[test]
    fn errors_carry_the_offset() {
        let err = decode(&[0xF8, 2, 19]).unwrap_err();
        assert_eq!(err, "unexpected end of input at byte 3");
        // A JID whose user is a JID: the nested-JID bomb's first step.
        let mut bomb = vec![0xF8, 1];
        bomb.extend(std::iter::repeat_n(0xFA, 10_000));
        assert!(decode(&bomb).unwrap_err().contains("at byte"));
    }

    #[test]
    fn token_table_lists_every_id() {
        let table = token_table();
        let texts: Vec<&[u8]> = table.split(|&b| b == 0).collect();
        // NUL after each entry: one empty piece after the last.
        assert_eq!(texts.len(), TOKEN_COUNT + Server::ALL.len() + 1);
        assert_eq!(texts[TOKEN_COUNT], b"s.whatsapp.net");
        assert_eq!(texts[TOKEN_COUNT + 11], b"call");
        assert_eq!(texts[0], b"");
        assert_eq!(texts[19], b"message");
        let dict = Dictionary::v3();
        assert_eq!(texts[236], dict.double(0, 0).unwrap().as_bytes());
        assert_eq!(
            texts[TOKEN_COUNT - 1],
            dict.double(3, 255).unwrap().as_bytes()
        );
    }

    #[test]
    fn buffers_are_reused_and_released() {
        let mut codec = Codec::new();
        let big = 3 * RETAIN_BYTES;
        // A bytes node of `big` payload bytes.
        let mut bytes = vec![0xF8, 2, 19, 0xFE];
        bytes.extend_from_slice(&((big as u32).to_be_bytes()));
        bytes.resize(bytes.len() + big, 7);
        let len = bytes.len();
        codec.input(len).copy_from_slice(&bytes);
        codec.decode(len).unwrap();
        assert_eq!(codec.tape()[2..], [8, big as u32]);
        assert_eq!(codec.input.capacity(), 0);
        codec.input(5).copy_from_slice(&[0xF8, 3, 19, 4, 29]);
        codec.decode(5).unwrap();
        assert_eq!(codec.tape().len(), 4);
    }
}
