//! The token dictionary: a value, not a hard-wired table, since older and
//! newer orderings of "version 3" exist in the wild.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::dictionary_v3;

/// Where a token lives on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Token {
    /// One byte, 1..=235.
    Single(u8),
    /// A dictionary number 0..=3 (written as 236 + n) and an index byte.
    Double(u8, u8),
}

/// A token dictionary: 235 single-byte tokens (index 0 is a placeholder)
/// and four tables of 256 double-byte tokens.
///
/// ```
/// use quarry_wa::{Dictionary, Token};
///
/// let dict = Dictionary::v3();
/// assert_eq!(dict.single(19), Some("message"));
/// assert_eq!(dict.lookup("message"), Some(Token::Single(19)));
/// assert_eq!(dict.lookup("not a token"), None);
/// ```
pub struct Dictionary {
    single: &'static [&'static str; 236],
    double: &'static [[&'static str; 256]; 4],
    index: OnceLock<HashMap<&'static str, Token>>,
}

static V3: Dictionary = Dictionary::from_tables(&dictionary_v3::SINGLE, &dictionary_v3::DOUBLE);

impl Dictionary {
    /// The current WhatsApp v3 dictionary.
    pub fn v3() -> &'static Dictionary {
        &V3
    }

    /// A dictionary over caller-supplied tables (another ordering). Index 0
    /// of `single` is never read. Tokens must be unique and non-empty for the
    /// encoder's reverse lookup to be exact.
    pub const fn from_tables(
        single: &'static [&'static str; 236],
        double: &'static [[&'static str; 256]; 4],
    ) -> Self {
        Self {
            single,
            double,
            index: OnceLock::new(),
        }
    }

    /// The single-byte token `byte` (1..=235).
    ///
    /// ```
    /// assert_eq!(quarry_wa::Dictionary::v3().single(3), Some("s.whatsapp.net"));
    /// assert_eq!(quarry_wa::Dictionary::v3().single(0), None);
    /// ```
    #[inline]
    pub fn single(&self, byte: u8) -> Option<&'static str> {
        match byte {
            0 => None,
            b => self.single.get(usize::from(b)).copied(),
        }
    }

    /// The double-byte token `index` of dictionary `dict` (0..=3).
    ///
    /// ```
    /// assert!(quarry_wa::Dictionary::v3().double(0, 0).is_some());
    /// assert_eq!(quarry_wa::Dictionary::v3().double(4, 0), None);
    /// ```
    #[inline]
    pub fn double(&self, dict: u8, index: u8) -> Option<&'static str> {
        self.double
            .get(usize::from(dict))
            .map(|table| table[usize::from(index)])
    }

    pub(crate) fn single_table(&self) -> &'static [&'static str; 236] {
        self.single
    }

    pub(crate) fn double_tables(&self) -> &'static [[&'static str; 256]; 4] {
        self.double
    }

    /// The wire code of `text`, if it is a token. The reverse table is built
    /// once, on first use.
    pub fn lookup(&self, text: &str) -> Option<Token> {
        if text.is_empty() || text.len() > 48 {
            return None;
        }
        self.index
            .get_or_init(|| self.build_index())
            .get(text)
            .copied()
    }

    fn build_index(&self) -> HashMap<&'static str, Token> {
        let mut index = HashMap::with_capacity(236 + 4 * 256);
        for (dict, table) in self.double.iter().enumerate() {
            for (i, &token) in table.iter().enumerate() {
                index.insert(token, Token::Double(dict as u8, i as u8));
            }
        }
        // Single-byte codes are shorter: they win when a table repeats a token.
        for (i, &token) in self.single.iter().enumerate().skip(1) {
            index.insert(token, Token::Single(i as u8));
        }
        index
    }
}

impl std::fmt::Debug for Dictionary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dictionary")
            .field("single", &self.single.len())
            .field("double", &(self.double.len() * 256))
            .finish()
    }
}
