//! The reverse token table (text -> wire code): open addressing with a
//! cheap hash.
//!
//! The encoder looks every string up once, so this is its hottest path.
//! SipHash through a `HashMap` was about half of the encoder's instructions
//! (callgrind, fanout); this table hashes the length and the first and last
//! eight bytes instead, and compares those same words before it compares
//! any bytes.

use crate::dictionary::Token;
use crate::jid::Server;

/// Longest token in any WhatsApp dictionary.
const MAX_TOKEN_LEN: usize = 48;
/// Slots: a power of two, about three times the 1259 tokens of v3, so a
/// miss usually stops at the first empty slot.
const SLOTS: usize = 4096;
/// Strings up to this long are wholly covered by their two [`Words`]:
/// equal words and lengths mean equal strings.
const WORDS_COVER: usize = 16;

pub(crate) struct TokenIndex {
    /// Open addressing, linear probing; a slot of length 0 is empty.
    slots: Box<[Slot; SLOTS]>,
    /// The dictionary's tables, for the byte compare of long tokens.
    single: &'static [&'static str; 236],
    double: &'static [[&'static str; 256]; 4],
    /// The token of each JID server's name, by [`Server`] declaration
    /// order: a JID's server is written without a lookup.
    servers: [Option<Token>; Server::ALL.len()],
}

/// A token's [`Words`] and code, together: a hit reads one slot and
/// nothing else (a side table of entries cost a second load and a bounds
/// check per probe).
#[derive(Clone, Copy)]
struct Slot {
    head: u64,
    tail: u64,
    len: u32,
    token: Token,
}

impl Slot {
    const EMPTY: Slot = Slot {
        head: 0,
        tail: 0,
        len: 0,
        token: Token::Single(0),
    };

    #[inline]
    fn holds(&self, words: &Words) -> bool {
        self.head == words.head && self.tail == words.tail && self.len as usize == words.len
    }
}

/// A string's length and two words that together hold every byte of a
/// string of at most [`WORDS_COVER`] bytes (the first and last eight,
/// overlapping; shorter strings in fewer, overlapping, loads).
///
/// Whole-word loads matter for time more than for instruction counts:
/// copying a short string into a zeroed word calls `memcpy` and then reads
/// the word its narrow stores just wrote, a load the CPU cannot forward
/// from those stores. With that copy the encoder ran at half its peer's
/// instructions per nanosecond (criterion against callgrind, fanout).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Words {
    len: usize,
    head: u64,
    tail: u64,
}

impl Words {
    #[inline]
    fn of(b: &[u8]) -> Self {
        let len = b.len();
        let (head, tail) = match len {
            8.. => (word(&b[..8]), word(&b[len - 8..])),
            4..8 => (u64::from(half(&b[..4])), u64::from(half(&b[len - 4..]))),
            1..4 => (
                u64::from(b[0]) | u64::from(b[len / 2]) << 8 | u64::from(b[len - 1]) << 16,
                0,
            ),
            0 => (0, 0),
        };
        Self { len, head, tail }
    }

    #[inline]
    fn hash(&self) -> usize {
        let x = self.head.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ self
                .tail
                .rotate_left(29)
                .wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
            ^ self.len as u64;
        ((x ^ (x >> 29)).wrapping_mul(0x1656_67B1_9E37_79F9) >> 40) as usize
    }
}

#[inline]
fn word(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(b);
    u64::from_le_bytes(w)
}

#[inline]
fn half(b: &[u8]) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(b);
    u32::from_le_bytes(w)
}

impl TokenIndex {
    /// The index of `single` (index 0 unused) and `double`. A token that
    /// appears twice keeps its first code, single-byte codes first (they
    /// are shorter); empty strings are never tokens.
    pub(crate) fn build(
        single: &'static [&'static str; 236],
        double: &'static [[&'static str; 256]; 4],
    ) -> Self {
        let mut index = TokenIndex {
            slots: Box::new([Slot::EMPTY; SLOTS]),
            single,
            double,
            servers: [None; Server::ALL.len()],
        };
        let singles = (1..=235u8).map(|i| (single[usize::from(i)], Token::Single(i)));
        let doubles = (0..4u8).flat_map(|d| {
            (0..=255u8).map(move |i| (double[usize::from(d)][usize::from(i)], Token::Double(d, i)))
        });
        for (text, token) in singles.chain(doubles) {
            if !text.is_empty() && text.len() <= MAX_TOKEN_LEN && index.lookup(text).is_none() {
                index.insert(text, token);
            }
        }
        index.servers = Server::ALL.map(|server| index.lookup(server.as_str()));
        index
    }

    /// The token of `server`'s name, if it is one.
    #[inline]
    pub(crate) fn server(&self, server: Server) -> Option<Token> {
        self.servers.get(server as usize).copied().flatten()
    }

    fn insert(&mut self, text: &'static str, token: Token) {
        let words = Words::of(text.as_bytes());
        let mut i = words.hash() & (SLOTS - 1);
        while self.slots[i].len != 0 {
            i = (i + 1) & (SLOTS - 1);
        }
        self.slots[i] = Slot {
            head: words.head,
            tail: words.tail,
            len: words.len as u32,
            token,
        };
    }

    /// The text of `token` in the dictionary this index was built from.
    fn text_of(&self, token: Token) -> &'static str {
        match token {
            Token::Single(i) => self.single[usize::from(i)],
            Token::Double(d, i) => self.double[usize::from(d)][usize::from(i)],
        }
    }

    /// The code of `text`, if it is a token.
    #[inline]
    pub(crate) fn lookup(&self, text: &str) -> Option<Token> {
        let b = text.as_bytes();
        if b.is_empty() {
            return None;
        }
        if b.len() > WORDS_COVER {
            return self.lookup_long(b);
        }
        let words = Words::of(b);
        let mut i = words.hash() & (SLOTS - 1);
        loop {
            let slot = &self.slots[i];
            if slot.holds(&words) {
                return Some(slot.token);
            }
            if slot.len == 0 {
                return None;
            }
            i = (i + 1) & (SLOTS - 1);
        }
    }

    /// [`lookup`](Self::lookup) of a text longer than its words cover,
    /// which a hit must also compare byte for byte. Out of line: the
    /// `memcmp` call kept inline made every lookup save and restore six
    /// registers, and stanzas rarely hold such long tokens.
    #[cold]
    #[inline(never)]
    fn lookup_long(&self, b: &[u8]) -> Option<Token> {
        if b.len() > MAX_TOKEN_LEN {
            return None;
        }
        let words = Words::of(b);
        let mut i = words.hash() & (SLOTS - 1);
        loop {
            let slot = &self.slots[i];
            if slot.holds(&words) && self.text_of(slot.token).as_bytes() == b {
                return Some(slot.token);
            }
            if slot.len == 0 {
                return None;
            }
            i = (i + 1) & (SLOTS - 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Dictionary;

    /// The first code of `text` by scanning the tables: the independent
    /// answer the index must give.
    fn scan(dict: &Dictionary, text: &str) -> Option<Token> {
        (1..=235u8)
            .find(|&i| dict.single(i) == Some(text))
            .map(Token::Single)
            .or_else(|| {
                (0..4u8).find_map(|d| {
                    (0..=255u8)
                        .find(|&i| dict.double(d, i) == Some(text))
                        .map(|i| Token::Double(d, i))
                })
            })
    }

    #[test]
    fn every_server_has_the_token_of_its_name() {
        let dict = Dictionary::v3();
        // `newsletter` is not a token of v3; the others are.
        assert_eq!(dict.token_index().server(Server::Newsletter), None);
        assert!(dict.token_index().server(Server::Pn).is_some());
        for (i, server) in Server::ALL.into_iter().enumerate() {
            assert_eq!(server as usize, i, "{server:?}");
            let token = dict.token_index().server(server);
            assert_eq!(token, scan(dict, server.as_str()), "{server:?}");
        }
    }

    #[test]
    fn answers_like_a_scan_of_the_tables_for_every_token_and_near_misses() {
        let dict = Dictionary::v3();
        let mut texts: Vec<String> = Vec::new();
        for i in 1..=235u8 {
            texts.extend(dict.single(i).map(str::to_owned));
        }
        for d in 0..4u8 {
            for i in 0..=255u8 {
                texts.extend(dict.double(d, i).map(str::to_owned));
            }
        }
        assert_eq!(texts.len(), 235 + 1024);
        let near: Vec<String> = texts
            .iter()
            .flat_map(|t| {
                [
                    format!("{t}\0"),
                    format!("{t}x"),
                    format!("x{t}"),
                    t[..t.len() - 1].to_owned(),
                    t.to_uppercase(),
                ]
            })
            .collect();
        // One byte changed at each position: the word compare must see
        // every byte of a string it does not hand to a byte compare.
        let one_off: Vec<String> = texts
            .iter()
            .flat_map(|t| {
                (0..t.len())
                    .filter(|&at| t.as_bytes()[at].is_ascii())
                    .map(move |at| {
                        let mut b = t.clone().into_bytes();
                        b[at] = if b[at] == b'~' { b'!' } else { b'~' };
                        String::from_utf8(b).expect("ASCII tokens stay ASCII")
                    })
            })
            .collect();
        assert!(one_off.len() > 5_000);
        for text in texts
            .iter()
            .chain(&one_off)
            .chain(&near)
            .chain(&["".to_owned(), "a".repeat(49)])
        {
            let expected = if text.is_empty() {
                None
            } else {
                scan(dict, text)
            };
            assert_eq!(dict.lookup(text), expected, "{text:?}");
        }
    }
}
