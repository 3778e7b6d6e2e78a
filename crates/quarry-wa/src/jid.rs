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

    /// `s.whatsapp.net` and `hosted`: servers whose users are phone
    /// numbers' accounts (the phone-number side of WhatsApp's LID mapping).
    pub const fn is_pn_family(self) -> bool {
        matches!(self, Server::Pn | Server::Hosted)
    }

    /// `lid` and `hosted.lid`: servers whose users are LIDs.
    pub const fn is_lid_family(self) -> bool {
        matches!(self, Server::Lid | Server::HostedLid)
    }

    /// Whether a user on this server is (or may be) a phone number, which
    /// [`Jid::observe`] hides in logs.
    pub const fn carries_phone_number(self) -> bool {
        matches!(
            self,
            Server::Pn | Server::Hosted | Server::LegacyUser | Server::Messenger | Server::Interop
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

    /// A phone-number user: `user@s.whatsapp.net`.
    pub const fn pn(user: &'a str) -> Self {
        Self::new(user, Server::Pn)
    }

    /// A LID user: `user@lid`.
    pub const fn lid(user: &'a str) -> Self {
        Self::new(user, Server::Lid)
    }

    /// A group: `id@g.us`.
    pub const fn group(id: &'a str) -> Self {
        Self::new(id, Server::Group)
    }

    /// A newsletter (channel): `id@newsletter`.
    pub const fn newsletter(id: &'a str) -> Self {
        Self::new(id, Server::Newsletter)
    }

    /// `status@broadcast`, where status updates go.
    pub const fn status_broadcast() -> Self {
        Self::new(STATUS_BROADCAST_USER, Server::Broadcast)
    }

    /// A phone-number user's device: `user:device@s.whatsapp.net`.
    pub const fn pn_device(user: &'a str, device: u16) -> Self {
        Self::new(user, Server::Pn).with_device(device)
    }

    /// A LID user's device: `user:device@lid`.
    pub const fn lid_device(user: &'a str, device: u16) -> Self {
        Self::new(user, Server::Lid).with_device(device)
    }

    /// True on `s.whatsapp.net` (not `hosted`: see [`Server::is_pn_family`]).
    pub fn is_pn(&self) -> bool {
        self.server == Server::Pn
    }

    /// True on `lid` (not `hosted.lid`: see [`Server::is_lid_family`]).
    pub fn is_lid(&self) -> bool {
        self.server == Server::Lid
    }

    /// True for group JIDs (`…@g.us`).
    pub fn is_group(&self) -> bool {
        self.server == Server::Group
    }

    /// True for a device of a user (`:N` with N > 0) on one of the four
    /// device servers (`s.whatsapp.net`, `lid`, `hosted`, `hosted.lid`).
    pub fn is_ad(&self) -> bool {
        self.device > 0 && self.server.is_ad_capable()
    }

    /// True for an interop user with an integrator.
    pub fn is_interop(&self) -> bool {
        self.server == Server::Interop && self.integrator > 0
    }

    /// True for a Messenger user's device.
    pub fn is_messenger(&self) -> bool {
        self.server == Server::Messenger && self.device > 0
    }

    /// True for a broadcast list (`…@broadcast`, any user but `status`).
    pub fn is_broadcast_list(&self) -> bool {
        self.server == Server::Broadcast && self.user() != STATUS_BROADCAST_USER
    }

    /// True for `status@broadcast`.
    pub fn is_status_broadcast(&self) -> bool {
        self.server == Server::Broadcast && self.user() == STATUS_BROADCAST_USER
    }

    /// True for WhatsApp's announcements account, `0@s.whatsapp.net` (or
    /// `0@c.us`).
    pub fn is_psa(&self) -> bool {
        matches!(self.server, Server::Pn | Server::LegacyUser) && self.user() == PSA_USER
    }

    /// True for a bot: any `…@bot`, and the primary device of the phone
    /// numbers WhatsApp's bots use (`1313555…`, `131655500…`).
    pub fn is_bot(&self) -> bool {
        self.server == Server::Bot
            || (self.server == Server::Pn
                && self.device == 0
                && (self.user().starts_with("1313555") || self.user().starts_with("131655500")))
    }

    /// True for a newsletter (`…@newsletter`).
    pub fn is_newsletter(&self) -> bool {
        self.server == Server::Newsletter
    }

    /// True for a hosted (Cloud API) device: device 99 on any server, or
    /// any JID on `hosted` or `hosted.lid`.
    pub fn is_hosted(&self) -> bool {
        self.device == 99 || matches!(self.server, Server::Hosted | Server::HostedLid)
    }

    /// True when the users are the same (servers and devices aside).
    pub fn is_same_user_as(&self, other: &Jid<'_>) -> bool {
        self.user() == other.user()
    }

    /// True when both address the same chat: equal apart from the device
    /// (user, server, integrator, and the agent where it is rendered).
    ///
    /// ```
    /// use quarry_wa::Jid;
    /// let phone = Jid::pn("5511999887766");
    /// assert!(phone.is_same_chat_as(&phone.with_device(33)));
    /// assert!(!phone.is_same_chat_as(&Jid::lid("5511999887766")));
    /// ```
    pub fn is_same_chat_as(&self, other: &Jid<'_>) -> bool {
        self.server == other.server
            && self.integrator == other.integrator
            && self.identity_agent() == other.identity_agent()
            && self.user() == other.user()
    }

    /// True when user, server and device are equal (agent and integrator
    /// aside): the same device.
    pub fn device_eq(&self, other: &Jid<'_>) -> bool {
        self.device_key() == other.device_key()
    }

    /// A key of the device (user, server, device) for sets and maps; it
    /// borrows the user, packed or not.
    pub fn device_key(&self) -> DeviceKey<'a> {
        DeviceKey {
            user: self.user(),
            server: self.server,
            device: self.device,
        }
    }

    /// The same JID without device and agent (`user@server`; the
    /// integrator stays).
    ///
    /// ```
    /// use quarry_wa::Jid;
    /// assert_eq!(Jid::pn_device("1234567890", 33).to_non_ad(), "1234567890@s.whatsapp.net");
    /// ```
    pub const fn to_non_ad(&self) -> Jid<'a> {
        Self {
            agent: 0,
            device: 0,
            ..*self
        }
    }

    /// This user's device `device`, on the hosted server of its family
    /// when `is_hosted` (`s.whatsapp.net` and `hosted` give `hosted`, `lid`
    /// and `hosted.lid` give `hosted.lid`) and on the plain one otherwise;
    /// other servers stay as they are.
    pub const fn with_device_hosting(self, device: u16, is_hosted: bool) -> Self {
        let server = match (self.server, is_hosted) {
            (Server::Pn | Server::Hosted, true) => Server::Hosted,
            (Server::Pn | Server::Hosted, false) => Server::Pn,
            (Server::Lid | Server::HostedLid, true) => Server::HostedLid,
            (Server::Lid | Server::HostedLid, false) => Server::Lid,
            (server, _) => server,
        };
        Self {
            server,
            device,
            ..self
        }
    }

    /// The text of [`to_non_ad`](Self::to_non_ad), in one allocation.
    pub fn to_non_ad_string(&self) -> String {
        let jid = self.to_non_ad();
        let mut out = String::with_capacity(jid.rendered_len());
        {
            use fmt::Write;
            // Writing into a String cannot fail.
            let _ = write!(out, "{jid}");
        }
        out
    }

    /// The user before any `:` (`"123:4"` gives `"123"`): the user of a
    /// device given in the user part.
    pub fn user_base(&self) -> JidUser<'a> {
        let user = self.user();
        match user.as_unpacked_str().and_then(|t| t.split_once(':')) {
            Some((base, _)) => JidUser::text(base),
            None => user,
        }
    }

    /// The user as text: borrowed when it is held as text, expanded
    /// (allocated) when it arrived packed. Works for every user, unlike
    /// [`JidUser::as_unpacked_str`].
    ///
    /// ```
    /// use quarry_wa::Jid;
    /// assert_eq!(Jid::pn("5511999887766").user_string(), "5511999887766");
    /// ```
    pub fn user_string(&self) -> Cow<'a, str> {
        self.user().to_text()
    }

    /// A form for logs that hides phone numbers: on servers whose users
    /// are phone numbers ([`Server::carries_phone_number`]) the user is
    /// shown as `pn#` and 16 hex digits of a hash keyed per process (the
    /// same user gives the same token within one run, nothing that can be
    /// reversed by hashing every number), and a legacy group or broadcast
    /// id `<phone>-<time>` has its phone part hidden the same way. Other
    /// JIDs (LIDs, groups, newsletters, bots) display in full.
    ///
    /// ```
    /// use quarry_wa::Jid;
    /// let shown = Jid::pn_device("5511999998888", 7).observe().to_string();
    /// assert!(shown.starts_with("pn#") && shown.ends_with(":7@s.whatsapp.net"));
    /// assert!(!shown.contains("5511999998888"));
    /// assert_eq!(Jid::lid("123456789").observe().to_string(), "123456789@lid");
    /// ```
    pub const fn observe(&self) -> ObservedJid<'a> {
        ObservedJid(*self)
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
/// assert_eq!(JidUser::text("abc").as_unpacked_str(), Some("abc"));
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

    /// The text, when the user is held as text; `None` when it arrived
    /// packed (phone numbers, LIDs). [`to_text`](Self::to_text) works for
    /// both.
    pub fn as_unpacked_str(self) -> Option<&'a str> {
        match self.form {
            // Text users are only ever made from a `&str`, so this holds.
            UserForm::Text => quarry_core::utf8::to_str(self.bytes),
            _ => None,
        }
    }

    /// The user as text: borrowed when held as text, expanded (allocated)
    /// when packed.
    pub fn to_text(self) -> Cow<'a, str> {
        match self.as_unpacked_str() {
            Some(text) => Cow::Borrowed(text),
            None => {
                let mut chars = [0u8; 2 * PACKED_MAX];
                Cow::Owned(String::from_utf8_lossy(self.render(&mut chars)).into_owned())
            }
        }
    }

    /// The user as an owned [`SmallStr`](crate::SmallStr): a packed user
    /// (at most 254 characters, a phone number or LID far fewer) is
    /// expanded straight into it, with no `String` in between, so a user
    /// of up to [`SmallStr::INLINE`](crate::SmallStr::INLINE) characters
    /// allocates nothing.
    ///
    /// ```
    /// use quarry_wa::{Arena, OwnedNode, Value};
    ///
    /// let bytes = quarry_wa::encode(&OwnedNode::new("ack").attr("to", "5511999990000@s.whatsapp.net"))?;
    /// let arena = Arena::new();
    /// let Some(Value::Jid(jid)) = quarry_wa::decode(&arena, &bytes)?.attr("to") else { panic!() };
    /// assert_eq!(jid.user().as_unpacked_str(), None); // a phone number arrives packed
    /// let user = jid.user().to_small_str();
    /// assert_eq!(user, "5511999990000");
    /// assert!(user.is_inline());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_small_str(self) -> crate::SmallStr {
        let mut chars = [0u8; 2 * PACKED_MAX];
        // Packed characters are ASCII (digits, `-`, `.`, `A`-`F`) and a text
        // user came from a `&str`: the check never fails, and costs less
        // than the heap string it replaces.
        match std::str::from_utf8(self.render(&mut chars)) {
            Ok(text) => crate::SmallStr::from(text),
            Err(_) => crate::SmallStr::from(self.to_text()),
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

    /// True when the text starts with `prefix` (nothing is allocated).
    pub fn starts_with(self, prefix: &str) -> bool {
        let mut chars = [0u8; 2 * PACKED_MAX];
        self.render(&mut chars).starts_with(prefix.as_bytes())
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

/// The user of `status@broadcast`.
pub const STATUS_BROADCAST_USER: &str = "status";

/// The user of WhatsApp's announcements account (`0@s.whatsapp.net`).
pub const PSA_USER: &str = "0";

/// A device's identity (user, server, device), from [`Jid::device_key`]:
/// equal keys are the same device. Hashes the user as text, so a packed
/// and a text user give the same key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DeviceKey<'a> {
    /// The user.
    pub user: JidUser<'a>,
    /// The server.
    pub server: Server,
    /// The device.
    pub device: u16,
}

/// A JID displayed for logs, phone numbers hidden: see [`Jid::observe`].
#[derive(Clone, Copy, Debug)]
pub struct ObservedJid<'a>(Jid<'a>);

/// The per-process keyed hash that stands in for a phone number in logs.
fn observe_token(text: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    static KEY: std::sync::OnceLock<std::collections::hash_map::RandomState> =
        std::sync::OnceLock::new();
    KEY.get_or_init(std::collections::hash_map::RandomState::new)
        .hash_one(text)
}

impl fmt::Display for ObservedJid<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let jid = self.0;
        let mut chars = [0u8; 2 * PACKED_MAX];
        let user = jid.user().render(&mut chars);
        let (hidden, rest): (&[u8], &[u8]) = if user.is_empty() {
            (&[], &[])
        } else if jid.server.carries_phone_number() {
            (user, &[])
        } else if matches!(jid.server, Server::Group | Server::Broadcast) {
            match user.iter().position(|&b| b == b'-') {
                Some(i) if i > 0 && user.iter().take(i).all(u8::is_ascii_digit) => user.split_at(i),
                _ => (&[], &[]),
            }
        } else {
            (&[], &[])
        };
        if hidden.is_empty() {
            return fmt::Display::fmt(&jid, f);
        }
        write!(
            f,
            "pn#{:016x}{}",
            observe_token(hidden),
            String::from_utf8_lossy(rest)
        )?;
        let agent = jid.identity_agent();
        if agent > 0 {
            write!(f, ".{agent}")?;
        }
        if jid.device > 0 {
            write!(f, ":{}", jid.device)?;
        }
        write!(f, "@{}", jid.server.as_str())
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
