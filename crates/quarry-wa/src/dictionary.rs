//! The token dictionary: a value, not a hard-wired table, since older and
//! newer orderings of "version 3" exist in the wild.

use std::sync::OnceLock;

use crate::dictionary_v3;
use crate::jid::Server;
use crate::token_index::TokenIndex;

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
    /// The JID server each single-byte token names, if it names one.
    servers: [Option<Server>; 236],
    index: OnceLock<TokenIndex>,
}

/// `a == b`, in a `const fn`.
const fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The server each single-byte token names, if it names one.
const fn server_tokens(single: &[&str; 236]) -> [Option<Server>; 236] {
    let mut servers = [None; 236];
    let mut byte = 1;
    while byte < 236 {
        let mut s = 0;
        while s < Server::ALL.len() {
            if bytes_eq(single[byte].as_bytes(), Server::ALL[s].as_str().as_bytes()) {
                servers[byte] = Some(Server::ALL[s]);
            }
            s += 1;
        }
        byte += 1;
    }
    servers
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
            servers: server_tokens(single),
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

    /// The JID server of each single-byte token (`None` for tokens that
    /// name none), for the decoder's server slot.
    pub(crate) fn server_table(&self) -> &[Option<Server>; 236] {
        &self.servers
    }

    pub(crate) fn double_tables(&self) -> &'static [[&'static str; 256]; 4] {
        self.double
    }

    /// The wire code of `text`, if it is a token. The reverse table is built
    /// once, on first use.
    #[inline]
    pub fn lookup(&self, text: &str) -> Option<Token> {
        self.token_index().lookup(text)
    }

    /// The reverse table, built on first use. The encoder holds on to it
    /// for a whole tree rather than paying the once-check per string.
    pub(crate) fn token_index(&self) -> &TokenIndex {
        self.index
            .get_or_init(|| TokenIndex::build(self.single, self.double))
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
