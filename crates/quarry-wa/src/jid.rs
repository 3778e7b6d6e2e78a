//! JIDs (WhatsApp addresses) as structured views that render only when asked.

use std::fmt;

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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Jid<'a> {
    user: &'a str,
    server: Server,
    agent: u8,
    device: u16,
    integrator: u16,
}

impl<'a> Jid<'a> {
    /// A JID with no device, agent or integrator.
    pub const fn new(user: &'a str, server: Server) -> Self {
        Self {
            user,
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
    pub const fn user(&self) -> &'a str {
        self.user
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
    pub fn rendered_len(&self) -> usize {
        if self.user.is_empty() {
            return self.server.as_str().len();
        }
        let mut len = self.user.len() + 1 + self.server.as_str().len();
        if self.agent > 0 {
            len += 1 + decimal_len(u32::from(self.agent));
        }
        if self.device > 0 {
            len += 1 + decimal_len(u32::from(self.device));
        }
        len
    }
}

pub(crate) fn decimal_len(mut n: u32) -> usize {
    let mut len = 1;
    while n >= 10 {
        n /= 10;
        len += 1;
    }
    len
}

fn write_decimal(n: u32, out: &mut [u8; 10]) -> &[u8] {
    let len = decimal_len(n);
    let mut n = n;
    for slot in out[..len].iter_mut().rev() {
        *slot = b'0' + (n % 10) as u8;
        n /= 10;
    }
    &out[..len]
}

impl fmt::Display for Jid<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.user.is_empty() {
            return f.write_str(self.server.as_str());
        }
        f.write_str(self.user)?;
        if self.agent > 0 {
            write!(f, ".{}", self.agent)?;
        }
        if self.device > 0 {
            write!(f, ":{}", self.device)?;
        }
        write!(f, "@{}", self.server.as_str())
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
        if self.user.is_empty() {
            return eat(self.server.as_str().as_bytes()) && rest.is_empty();
        }
        let mut digits = [0u8; 10];
        eat(self.user.as_bytes())
            && (self.agent == 0
                || (eat(b".") && eat(write_decimal(u32::from(self.agent), &mut digits))))
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
    let mut at = 0;
    let mut put = |piece: &[u8]| {
        out[at..at + piece.len()].copy_from_slice(piece);
        at += piece.len();
    };
    if jid.user.is_empty() {
        put(jid.server.as_str().as_bytes());
        return;
    }
    let mut digits = [0u8; 10];
    put(jid.user.as_bytes());
    if jid.agent > 0 {
        put(b".");
        put(write_decimal(u32::from(jid.agent), &mut digits));
    }
    if jid.device > 0 {
        put(b":");
        put(write_decimal(u32::from(jid.device), &mut digits));
    }
    put(b"@");
    put(jid.server.as_str().as_bytes());
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
    /// server), borrowing the user from `text`. As in WhatsApp's own parser,
    /// `.N` is an agent only on servers other than `s.whatsapp.net` and `lid`
    /// (LID users may contain dots).
    ///
    /// ```
    /// use quarry_wa::{Jid, Server};
    ///
    /// let jid = Jid::parse("5511999990000:7@s.whatsapp.net").unwrap();
    /// assert_eq!((jid.user(), jid.device(), jid.server()), ("5511999990000", 7, Server::Pn));
    /// assert_eq!(Jid::parse("g.us").unwrap().user(), "");
    /// assert!(Jid::parse("someone@example.com").is_err());
    /// ```
    pub fn parse(text: &'a str) -> Result<Jid<'a>, JidParseError> {
        let fail = |why| JidParseError {
            text: text.to_owned(),
            why,
        };
        let (user_part, server_name) = text.rsplit_once('@').unwrap_or(("", text));
        let server = Server::from_name(server_name).ok_or_else(|| fail("unknown server"))?;
        let (mut user, device) = match user_part.rsplit_once(':') {
            Some((user, device)) => (
                user,
                device.parse::<u16>().map_err(|_| fail("bad device number"))?,
            ),
            None => (user_part, 0),
        };
        let mut agent = 0;
        if !matches!(server, Server::Pn | Server::Lid)
            && let Some((head, tail)) = user.rsplit_once('.')
            && let Ok(n) = tail.parse::<u16>()
        {
            agent = u8::try_from(n).map_err(|_| fail("agent out of range"))?;
            user = head;
        }
        Ok(Jid::new(user, server).with_device(device).with_agent(agent))
    }
}
