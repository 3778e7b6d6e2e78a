//! The encoder's token lookup: an open-addressing table with a cheap hash.
//!
//! Every string the encoder writes is looked up twice (once by the size
//! plan, once by the writer), so the lookup is the encoder's hottest path.
//! [`Dictionary::lookup`] hashes with SipHash; this table hashes the length
//! and the first and last eight bytes, which no two tokens of the v3
//! dictionary share in a way that matters (collisions only cost a probe).
//! It answers exactly as [`Dictionary::lookup`] does: it is built from it.

use std::sync::OnceLock;

use crate::dictionary::{Dictionary, Token};

/// Longest token, as in [`Dictionary::lookup`].
const MAX_TOKEN_LEN: usize = 48;
/// Slots: a power of two, about three times the 1259 tokens of v3, so a
/// miss usually stops at the first empty slot.
const SLOTS: usize = 4096;

pub(crate) struct TokenIndex {
    entries: Vec<(&'static str, Token)>,
    /// 0 = empty, else an index into `entries` plus one.
    slots: Box<[u16; SLOTS]>,
}

/// How the encoder finds tokens: the fast table for v3, the dictionary's
/// own lookup for any other.
#[derive(Clone, Copy)]
pub(crate) enum Tokens<'d> {
    Fast(&'static TokenIndex),
    Dictionary(&'d Dictionary),
}

impl<'d> Tokens<'d> {
    pub(crate) fn for_dictionary(dict: &'d Dictionary) -> Self {
        static V3: OnceLock<TokenIndex> = OnceLock::new();
        if std::ptr::eq(dict, Dictionary::v3()) {
            Tokens::Fast(V3.get_or_init(|| TokenIndex::build(dict)))
        } else {
            Tokens::Dictionary(dict)
        }
    }

    #[inline]
    pub(crate) fn lookup(self, text: &str) -> Option<Token> {
        match self {
            Tokens::Fast(index) => index.lookup(text),
            Tokens::Dictionary(dict) => dict.lookup(text),
        }
    }
}

#[inline]
fn hash(b: &[u8]) -> usize {
    let n = b.len();
    let (head, tail) = if n >= 8 {
        let mut head = [0u8; 8];
        let mut tail = [0u8; 8];
        head.copy_from_slice(&b[..8]);
        tail.copy_from_slice(&b[n - 8..]);
        (u64::from_le_bytes(head), u64::from_le_bytes(tail))
    } else {
        let mut head = [0u8; 8];
        head[..n].copy_from_slice(b);
        (u64::from_le_bytes(head), 0)
    };
    let x = head.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ tail.rotate_left(29).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
        ^ n as u64;
    ((x ^ (x >> 29)).wrapping_mul(0x1656_67B1_9E37_79F9) >> 40) as usize
}

impl TokenIndex {
    fn build(dict: &Dictionary) -> Self {
        let mut index = TokenIndex {
            entries: Vec::with_capacity(236 + 4 * 256),
            slots: Box::new([0; SLOTS]),
        };
        let singles = (1..=235u8).filter_map(|i| dict.single(i));
        let doubles = (0..4u8).flat_map(|d| (0..=255u8).filter_map(move |i| dict.double(d, i)));
        for text in singles.chain(doubles) {
            // The dictionary decides which code a token gets (single wins
            // over double when a table repeats one).
            if let Some(token) = dict.lookup(text)
                && index.lookup(text).is_none()
            {
                index.insert(text, token);
            }
        }
        index
    }

    fn insert(&mut self, text: &'static str, token: Token) {
        self.entries.push((text, token));
        let entry = u16::try_from(self.entries.len()).unwrap_or(u16::MAX);
        let mut i = hash(text.as_bytes()) & (SLOTS - 1);
        while self.slots[i] != 0 {
            i = (i + 1) & (SLOTS - 1);
        }
        self.slots[i] = entry;
    }

    #[inline]
    pub(crate) fn lookup(&self, text: &str) -> Option<Token> {
        let b = text.as_bytes();
        if b.is_empty() || b.len() > MAX_TOKEN_LEN {
            return None;
        }
        let mut i = hash(b) & (SLOTS - 1);
        loop {
            let slot = usize::from(self.slots[i]);
            let (token_text, token) = *self.entries.get(slot.checked_sub(1)?)?;
            if token_text.as_bytes() == b {
                return Some(token);
            }
            i = (i + 1) & (SLOTS - 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_like_the_dictionary_for_every_token_and_near_misses() {
        let dict = Dictionary::v3();
        let Tokens::Fast(index) = Tokens::for_dictionary(dict) else {
            panic!("v3 gets the fast table");
        };
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
        for text in texts
            .iter()
            .chain(&near)
            .chain(&["".to_owned(), "a".repeat(49)])
        {
            assert_eq!(index.lookup(text), dict.lookup(text), "{text:?}");
        }
    }

    #[test]
    fn other_dictionaries_use_their_own_lookup() {
        static OTHER: Dictionary = Dictionary::from_tables(&[""; 236], &[[""; 256]; 4]);
        assert!(matches!(
            Tokens::for_dictionary(&OTHER),
            Tokens::Dictionary(_)
        ));
    }
}
