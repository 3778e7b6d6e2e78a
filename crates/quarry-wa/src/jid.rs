//! JIDs (WhatsApp addresses) as structured views that render only when asked.
// Decoder code reads untrusted bytes: no indexing, unwrap or arithmetic that
// can panic on them; each remaining spot is an audited `expect`.
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::arithmetic_side_effects
)]

use std::borrow::Cow;
use std::fmt;

use crate::wire::PACKED_MAX;

/// The servers a JID on the wire may name. The binary format has no way to
/// carry any other: a `JID_PAIR` naming an unknown server is rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Server {
    /// `s.whatsapp.net`: phone-number users.
    Pn,
    /// `lid`: linked-identity users.
    Lid,
    /// `g.us`: groups.
    Group,
    /// `broadcast`: status and broadcast lists.
    Broadcast,
    /// `newsletter`: channels.
    Newsletter,
    /// `hosted`: hosted (business) devices.
    Hosted,
    /// `hosted.lid`: hosted devices addressed by LID.
    HostedLid,
    /// `msgr`: Messenger users.
    Messenger,
    /// `interop`: interoperability users.
    Interop,
    /// `bot`: bots.
    Bot,
    /// `c.us`: the legacy user server.
    LegacyUser,
    /// `call`: call links.
    Call,
}

impl Server {
    /// Every server, in declaration order.
    pub const ALL: [Server; 12] = [
        Server::Pn,
        Server::Lid,
        Server::Group,
        Server::Broadcast,
        Server::Newsletter,
        Server::Hosted,
        Server::HostedLid,
        Server::Messenger,
        Server::Interop,
        Server::Bot,
        Server::LegacyUser,
        Server::Call,
    ];

    /// The server's name as written after `@`.
    ///
    /// ```
    /// assert_eq!(quarry_wa::Server::Group.as_str(), "g.us");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            Server::Pn => "s.whatsapp.net",
            Server::Lid => "lid",
            Server::Group => "g.us",
            Server::Broadcast => "broadcast",
            Server::Newsletter => "newsletter",
            Server::Hosted => "hosted",
            Server::HostedLid => "hosted.lid",
            Server::Messenger => "msgr",
            Server::Interop => "interop",
            Server::Bot => "bot",
            Server::LegacyUser => "c.us",
            Server::Call => "call",
        }
    }

    /// The server named `name`, if it is one of the twelve.
    ///
    /// ```
    /// use quarry_wa::Server;
    /// assert_eq!(Server::from_name("lid"), Some(Server::Lid));
    /// assert_eq!(Server::from_name("example.com"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Server> {
        Server::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// Servers whose device-qualified JIDs travel as `AD_JID`.
    pub const fn is_ad_capable(self) -> bool {
        matches!(
            self,
            Server::Pn | Server::Lid | Server::Hosted | Server::HostedLid
        )
    }

    /// Whether a JID's agent is part of its text and identity on this
    /// server: true except on the four device servers
    /// ([`is_ad_capable`](Self::is_ad_capable)), whose wire form has no
    /// agent, so an agent set there is neither printed nor compared.
    ///
    /// ```
    /// use quarry_wa::Server;
    /// assert!(Server::Bot.renders_agent());
    /// assert!(!Server::HostedLid.renders_agent());
    /// ```
    pub const fn renders_agent(self) -> bool {
        !self.is_ad_capable()
    }
}

impl fmt::Display for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A JID view: user, server and the device fields, kept apart. Nothing is
/// rendered until you ask ([`Display`](fmt::Display), or comparing with a
/// `&str`, which renders nothing and allocates nothing).
///
/// ```
/// use quarry_wa::{Jid, Server};
///
/// let jid = Jid::new("5511999990000", Server::Pn).with_device(3);
/// assert_eq!(jid, "5511999990000:3@s.whatsapp.net");
/// assert_eq!(jid.to_string(), "5511999990000:3@s.whatsapp.net");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Jid<'a> {
    // The user's fields are kept flat (not as a nested `JidUser`) so a JID
    // stays three words and an attribute record five.
    user_bytes: &'a [u8],
    user_form: UserForm,
    server: Server,
    agent: u8,
    device: u16,
    integrator: u16,
}

impl<'a> Jid<'a> {
    /// A JID with no device, agent or integrator.
    pub const fn new(user: &'a str, server: Server) -> Self {
        Self::with_user(JidUser::text(user), server)
    }

    /// A JID whose user is `user` (text or still packed).
    pub const fn with_user(user: JidUser<'a>, server: Server) -> Self {
        Self {
            user_bytes: user.bytes,
            user_form: user.form,
            server,
            agent: 0,
            device: 0,
            integrator: 0,
        }
    }

    /// The same JID with `device` set.
    pub const fn with_device(self, device: u16) -> Self {
        Self { device, ..self }
    }

    /// The same JID with `agent` set.
    pub const fn with_agent(self, agent: u8) -> Self {
        Self { agent, ..self }
    }

    /// The same JID with `integrator` set (interop JIDs).
    pub const fn with_integrator(self, integrator: u16) -> Self {
        Self { integrator, ..self }
    }

    /// The user part (may be empty: the JID then names the server itself).
    /// Phone numbers and LIDs arrive packed and stay packed until read.
    pub const fn user(&self) -> JidUser<'a> {
        JidUser {
            bytes: self.user_bytes,
            form: self.user_form,
        }
    }

    /// The server.
    pub const fn server(&self) -> Server {
        self.server
    }

    /// The device number; 0 means the primary device and is not rendered.
    pub const fn device(&self) -> u16 {
        self.device
    }

    /// The agent; the binary decoder never sets it.
    pub const fn agent(&self) -> u8 {
        self.agent
    }

    /// The interop integrator; kept but not rendered.
    pub const fn integrator(&self) -> u16 {
        self.integrator
    }

    /// The agent as far as text and identity go: the agent where the
    /// server renders one ([`Server::renders_agent`]), 0 on the device
    /// servers. Equality, hashing and [`Display`](fmt::Display) use this.
    ///
    /// ```
    /// use quarry_wa::{Jid, Server};
    /// assert_eq!(Jid::new("1", Server::Pn).with_agent(2).identity_agent(), 0);
    /// assert_eq!(Jid::new("1", Server::Bot).with_agent(2).identity_agent(), 2);
    /// ```
    pub const fn identity_agent(&self) -> u8 {
        if self.server.renders_agent() {
            self.agent
        } else {
            0
        }
    }

    /// True for group JIDs (`…@g.us`).
    pub fn is_group(&self) -> bool {
        self.server == Server::Group
    }

    /// True for LID users (`…@lid`, `…@hosted.lid`).
    pub fn is_lid(&self) -> bool {
        matches!(self.server, Server::Lid | Server::HostedLid)
    }

    /// True when a device is named (`:N` with N > 0).
    pub fn is_ad(&self) -> bool {
        self.device > 0
    }

    /// Length in bytes of the rendered form.
    ///
    /// ```
    /// use quarry_wa::{Jid, Server};
    /// assert_eq!(Jid::new("12", Server::Pn).with_device(10).rendered_len(), "12:10@s.whatsapp.net".len());
    /// assert_eq!(Jid::new("", Server::Group).rendered_len(), 4);
    /// ```
    #[expect(
        clippy::arithmetic_side_effects,
        reason = "a user is at most 254 characters (127 packed bytes) or an input slice, a server \
                  name 14, a number 5 digits"
    )]
    pub fn rendered_len(&self) -> usize {
        let user = self.user();
        if user.is_empty() {
            return self.server.as_str().len();
        }
        let mut len = user.len() + 1 + self.server.as_str().len();
        let agent = self.identity_agent();
        if agent > 0 {
            len += 1 + decimal_len(u32::from(agent));
        }
        if self.device > 0 {
            len += 1 + decimal_len(u32::from(self.device));
        }
        len
    }
}

#[expect(
    clippy::arithmetic_side_effects,
    reason = "n only shrinks; len counts at most 10 digits"
)]
pub(crate) fn decimal_len(mut n: u32) -> usize {
    let mut len = 1;
    while n >= 10 {
        n /= 10;
        len += 1;
    }
    len
}

fn write_decimal(n: u32, out: &mut [u8; 10]) -> &[u8] {
    // A u32 has at most 10 digits: `len` never exceeds `out`.
    let len = decimal_len(n);
    let mut n = n;
    for slot in out.get_mut(..len).unwrap_or_default().iter_mut().rev() {
        #[expect(clippy::arithmetic_side_effects, reason = "a digit is below 10")]
        {
            *slot = b'0' + (n % 10) as u8;
        }
        n /= 10;
    }
    out.get(..len).unwrap_or_default()
}

impl fmt::Display for Jid<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let user = self.user();
        if user.is_empty() {
            return f.write_str(self.server.as_str());
        }
        fmt::Display::fmt(&user, f)?;
        let agent = self.identity_agent();
        if agent > 0 {
            write!(f, ".{agent}")?;
        }
        if self.device > 0 {
            write!(f, ":{}", self.device)?;
        }
        write!(f, "@{}", self.server.as_str())
    }
}

/// Equal when the rendered JIDs and the integrators are equal (a packed
/// and a text user with the same characters are the same user; an agent on
/// a device server, which is not rendered, takes no part).
impl PartialEq for Jid<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.server == other.server
            && self.identity_agent() == other.identity_agent()
            && self.device == other.device
            && self.integrator == other.integrator
            && self.user() == other.user()
    }
}

impl Eq for Jid<'_> {}

impl std::hash::Hash for Jid<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.user().hash(state);
        (
            self.server,
            self.identity_agent(),
            self.device,
            self.integrator,
        )
            .hash(state);
    }
}

/// Compares the rendered form with `text` piece by piece, without
/// rendering.
impl PartialEq<str> for Jid<'_> {
    fn eq(&self, text: &str) -> bool {
        let mut rest = text.as_bytes();
        let mut eat = |piece: &[u8]| match rest.strip_prefix(piece) {
            Some(tail) => {
                rest = tail;
                true
            }
            None => false,
        };
        let user = self.user();
        if user.is_empty() {
            return eat(self.server.as_str().as_bytes()) && rest.is_empty();
        }
        let mut digits = [0u8; 10];
        let mut chars = [0u8; 2 * PACKED_MAX];
        let agent = self.identity_agent();
        eat(user.render(&mut chars))
            && (agent == 0 || (eat(b".") && eat(write_decimal(u32::from(agent), &mut digits))))
            && (self.device == 0
                || (eat(b":") && eat(write_decimal(u32::from(self.device), &mut digits))))
            && eat(b"@")
            && eat(self.server.as_str().as_bytes())
            && rest.is_empty()
    }
}

impl PartialEq<&str> for Jid<'_> {
    fn eq(&self, text: &&str) -> bool {
        *self == **text
    }
}

impl PartialEq<Jid<'_>> for &str {
    fn eq(&self, jid: &Jid<'_>) -> bool {
        jid == *self
    }
}

/// Write the rendered form of `jid` into `out`, which must be exactly
/// [`Jid::rendered_len`] long.
pub(crate) fn render_into(jid: &Jid<'_>, out: &mut [u8]) {
    let mut at = 0usize;
    let mut put = |piece: &[u8]| {
        let end = at.saturating_add(piece.len());
        if let Some(slot) = out.get_mut(at..end) {
            slot.copy_from_slice(piece);
        }
        at = end;
    };
    let user = jid.user();
    if user.is_empty() {
        put(jid.server.as_str().as_bytes());
        return;
    }
    let mut digits = [0u8; 10];
    let mut chars = [0u8; 2 * PACKED_MAX];
    put(user.render(&mut chars));
    let agent = jid.identity_agent();
    if agent > 0 {
        put(b".");
        put(write_decimal(u32::from(agent), &mut digits));
    }
    if jid.device > 0 {
        put(b":");
        put(write_decimal(u32::from(jid.device), &mut digits));
    }
    put(b"@");
    put(jid.server.as_str().as_bytes());
}

/// How a JID's user is held.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum UserForm {
    Text,
    Nibble { odd: bool },
    Hex { odd: bool },
}

/// A JID's user part: text, or still packed as it came off the wire (phone
/// numbers and LIDs are NIBBLE_8-packed), expanded only when read.
///
/// Compares, hashes and displays as its text; [`to_text`](Self::to_text)
/// gives a `&str` (borrowed for text users, allocated for packed ones).
///
/// ```
/// use quarry_wa::{Jid, JidUser, Server};
///
/// let jid = Jid::new("5511999990000", Server::Pn);
/// assert_eq!(jid.user(), "5511999990000");
/// assert_eq!(jid.user().len(), 13);
/// assert_eq!(jid.user().to_text(), "5511999990000");
/// assert_eq!(JidUser::text("abc").as_str(), Some("abc"));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct JidUser<'a> {
    bytes: &'a [u8],
    form: UserForm,
}

impl<'a> JidUser<'a> {
    /// A user given as text.
    pub const fn text(text: &'a str) -> Self {
        Self {
            bytes: text.as_bytes(),
            form: UserForm::Text,
        }
    }

    /// A user still packed: NIBBLE_8 (`nibble`) or HEX_8 data, the last
    /// character dropped when `odd`. The caller has checked the nibbles.
    pub(crate) const fn packed(bytes: &'a [u8], nibble: bool, odd: bool) -> Self {
        Self {
            bytes,
            form: if nibble {
                UserForm::Nibble { odd }
            } else {
                UserForm::Hex { odd }
            },
        }
    }

    /// The packed wire form `(bytes, nibble, odd)`, if the user is packed.
    pub(crate) fn packed_form(self) -> Option<(&'a [u8], bool, bool)> {
        match self.form {
            UserForm::Text => None,
            UserForm::Nibble { odd } => Some((self.bytes, true, odd)),
            UserForm::Hex { odd } => Some((self.bytes, false, odd)),
        }
    }

    /// The text, when the user is held as text (not packed).
    pub fn as_str(self) -> Option<&'a str> {
        match self.form {
            // Text users are only ever made from a `&str`, so this holds.
            UserForm::Text => quarry_core::utf8::to_str(self.bytes),
            _ => None,
        }
    }

    /// The user as text: borrowed when held as text, expanded (allocated)
    /// when packed.
    pub fn to_text(self) -> Cow<'a, str> {
        match self.as_str() {
            Some(text) => Cow::Borrowed(text),
            None => {
                let mut chars = [0u8; 2 * PACKED_MAX];
                Cow::Owned(String::from_utf8_lossy(self.render(&mut chars)).into_owned())
            }
        }
    }

    /// Length of the text in bytes.
    pub fn len(self) -> usize {
        match self.form {
            UserForm::Text => self.bytes.len(),
            UserForm::Nibble { odd } | UserForm::Hex { odd } =>
            {
                #[expect(
                    clippy::arithmetic_side_effects,
                    reason = "a packed user is at most 127 bytes (a 7-bit length)"
                )]
                (2 * self.bytes.len()).saturating_sub(usize::from(odd))
            }
        }
    }

    /// True for the empty user.
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// The text's bytes, expanded into `buf` when packed. A packed user
    /// has at most 127 bytes, so 254 characters always fit.
    fn render<'b>(self, buf: &'b mut [u8; 2 * PACKED_MAX]) -> &'b [u8]
    where
        'a: 'b,
    {
        let Some((bytes, nibble, _)) = self.packed_form() else {
            return self.bytes;
        };
        let pairs = buf.as_chunks_mut::<2>().0;
        for (pair, &byte) in pairs.iter_mut().zip(bytes) {
            *pair = crate::packed::pair(nibble, byte);
        }
        buf.get(..self.len()).unwrap_or_default()
    }
}

impl fmt::Display for JidUser<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut chars = [0u8; 2 * PACKED_MAX];
        f.write_str(&String::from_utf8_lossy(self.render(&mut chars)))
    }
}

/// Equal when the texts are equal. The pad nibble that ends odd-length
/// packed data is not part of the text (WhatsApp's decoders drop it
/// unread, whatever its value), so it takes no part in equality or
/// hashing either.
impl PartialEq for JidUser<'_> {
    fn eq(&self, other: &Self) -> bool {
        if self.form == other.form {
            return match self.form {
                UserForm::Nibble { odd: true } | UserForm::Hex { odd: true } => {
                    match (self.bytes.split_last(), other.bytes.split_last()) {
                        (Some((a_last, a)), Some((b_last, b))) => {
                            a == b && a_last >> 4 == b_last >> 4
                        }
                        (a, b) => a.is_none() && b.is_none(),
                    }
                }
                _ => self.bytes == other.bytes,
            };
        }
        let (mut a, mut b) = ([0u8; 2 * PACKED_MAX], [0u8; 2 * PACKED_MAX]);
        self.render(&mut a) == other.render(&mut b)
    }
}

impl Eq for JidUser<'_> {}

impl std::hash::Hash for JidUser<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let mut chars = [0u8; 2 * PACKED_MAX];
        self.render(&mut chars).hash(state);
    }
}

impl PartialEq<str> for JidUser<'_> {
    fn eq(&self, text: &str) -> bool {
        let mut chars = [0u8; 2 * PACKED_MAX];
        self.render(&mut chars) == text.as_bytes()
    }
}

impl PartialEq<&str> for JidUser<'_> {
    fn eq(&self, text: &&str) -> bool {
        *self == **text
    }
}

/// Why a JID's text form did not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid JID {text:?}: {why}")]
pub struct JidParseError {
    /// The text that did not parse.
    pub text: String,
    /// What was wrong.
    pub why: &'static str,
}

impl<'a> Jid<'a> {
    /// Parse the text form `user[.agent][:device]@server` (or a bare
    /// server), borrowing the user from `text`, with WhatsApp's rules for
    /// the dot:
    /// * on `lid`, dots belong to the user;
    /// * on `s.whatsapp.net`, a user with no `:device` that ends in `.N`
    ///   (N a `u16`) is the legacy spelling of device N;
    /// * elsewhere a trailing `.N` is the agent when N fits a byte, and part
    ///   of the user when it does not (`123.999@interop` is user `123.999`).
    ///
    /// ```
    /// use quarry_wa::{Jid, Server};
    ///
    /// let jid = Jid::parse("5511999990000:7@s.whatsapp.net").unwrap();
    /// assert_eq!(jid.user(), "5511999990000");
    /// assert_eq!((jid.device(), jid.server()), (7, Server::Pn));
    /// assert_eq!(Jid::parse("5511999990000.7@s.whatsapp.net").unwrap(), jid);
    /// assert_eq!(Jid::parse("123.4@bot").unwrap().agent(), 4);
    /// assert_eq!(Jid::parse("123.999@bot").unwrap().user(), "123.999");
    /// assert!(Jid::parse("g.us").unwrap().user().is_empty());
    /// assert!(Jid::parse("someone@example.com").is_err());
    /// ```
    pub fn parse(text: &'a str) -> Result<Jid<'a>, JidParseError> {
        let fail = |why| JidParseError {
            text: text.to_owned(),
            why,
        };
        let (user_part, server_name) = text.rsplit_once('@').unwrap_or(("", text));
        let server = Server::from_name(server_name).ok_or_else(|| fail("unknown server"))?;
        let (mut user, mut device, has_device) = match user_part.rsplit_once(':') {
            Some((user, device)) => (
                user,
                device
                    .parse::<u16>()
                    .map_err(|_| fail("bad device number"))?,
                true,
            ),
            None => (user_part, 0, false),
        };
        let mut agent = 0;
        match server {
            Server::Lid => {}
            Server::Pn => {
                if !has_device
                    && let Some((head, tail)) = user.rsplit_once('.')
                    && let Ok(n) = tail.parse::<u16>()
                {
                    device = n;
                    user = head;
                }
            }
            _ => {
                if let Some((head, tail)) = user.rsplit_once('.')
                    && let Ok(n) = tail.parse::<u8>()
                {
                    agent = n;
                    user = head;
                }
            }
        }
        Ok(Jid::new(user, server).with_device(device).with_agent(agent))
    }
}
