//! Event kinds: the named ones and the four NIP-01 classes, on a bare
//! number.

use std::fmt;
use std::num::ParseIntError;
use std::str::FromStr;

/// An event kind (NIP-01): a number in `0..=65535`, with the names
/// rust-nostr gives to the kinds the NIPs define and the class (regular,
/// replaceable, ephemeral, addressable) each range has, usable without an
/// event.
///
/// ```
/// use quarry_nostr::Kind;
///
/// assert_eq!(Kind::TEXT_NOTE, Kind(1));
/// assert_eq!(Kind::from(30023), Kind::LONG_FORM_TEXT_NOTE);
/// assert!(Kind::METADATA.is_replaceable());
/// assert!(Kind(32122).is_addressable());
/// assert!(Kind(20001).is_ephemeral());
/// assert!(Kind::TEXT_NOTE.is_regular());
/// assert_eq!("1621".parse::<Kind>().unwrap(), Kind::GIT_ISSUE);
/// assert_eq!(Kind::REACTION.to_string(), "7");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Kind(pub u16);

impl Kind {
    /// Metadata (NIP-01).
    pub const METADATA: Kind = Kind(0);
    /// Short Text Note (NIP-32).
    pub const TEXT_NOTE: Kind = Kind(1);
    /// Recommend Relay (deprecated).
    pub const RECOMMEND_RELAY: Kind = Kind(2);
    /// Contacts (NIP-02).
    pub const CONTACT_LIST: Kind = Kind(3);
    /// OpenTimestamps Attestations (NIP-03).
    pub const OPEN_TIMESTAMPS: Kind = Kind(1040);
    /// Encrypted Direct Messages (NIP-04).
    pub const ENCRYPTED_DIRECT_MESSAGE: Kind = Kind(4);
    /// Event Deletion (NIP-09).
    pub const EVENT_DELETION: Kind = Kind(5);
    /// Repos (NIP-18).
    pub const REPOST: Kind = Kind(6);
    /// Generic Repos (NIP-18).
    pub const GENERIC_REPOST: Kind = Kind(16);
    /// Comment (NIP-22).
    pub const COMMENT: Kind = Kind(1111);
    /// Reaction (NIP-25).
    pub const REACTION: Kind = Kind(7);
    /// Badge Award (NIP-58).
    pub const BADGE_AWARD: Kind = Kind(8);
    /// Channel Creation (NIP-28).
    pub const CHANNEL_CREATION: Kind = Kind(40);
    /// Channel Metadata (NIP-28).
    pub const CHANNEL_METADATA: Kind = Kind(41);
    /// Channel Message (NIP-28).
    pub const CHANNEL_MESSAGE: Kind = Kind(42);
    /// Channel Hide Message (NIP-28).
    pub const CHANNEL_HIDE_MESSAGE: Kind = Kind(43);
    /// Channel Mute User (NIP-28).
    pub const CHANNEL_MUTE_USER: Kind = Kind(44);
    /// Public Chat Reserved (NIP-28).
    pub const PUBLIC_CHAT_RESERVED_45: Kind = Kind(45);
    /// Public Chat Reserved (NIP-28).
    pub const PUBLIC_CHAT_RESERVED_46: Kind = Kind(46);
    /// Public Chat Reserved (NIP-28).
    pub const PUBLIC_CHAT_RESERVED_47: Kind = Kind(47);
    /// Public Chat Reserved (NIP-28).
    pub const PUBLIC_CHAT_RESERVED_48: Kind = Kind(48);
    /// Public Chat Reserved (NIP-28).
    pub const PUBLIC_CHAT_RESERVED_49: Kind = Kind(49);
    /// MLS Key Package (NIP-104).
    pub const MLS_KEY_PACKAGE: Kind = Kind(443);
    /// MLS Welcome (NIP-104).
    pub const MLS_WELCOME: Kind = Kind(444);
    /// MLS Group Message (NIP-104).
    pub const MLS_GROUP_MESSAGE: Kind = Kind(445);
    /// Repository state announcements (NIP-34).
    pub const REPO_STATE: Kind = Kind(30618);
    /// Git Patch (NIP-34).
    pub const GIT_PATCH: Kind = Kind(1617);
    /// Git Pull Request (NIP-34).
    pub const GIT_PULL_REQUEST: Kind = Kind(1618);
    /// Git Pull Request Update (NIP-34).
    pub const GIT_PULL_REQUEST_UPDATE: Kind = Kind(1619);
    /// Git Issue (NIP-34).
    pub const GIT_ISSUE: Kind = Kind(1621);
    /// Git Reply (NIP-34).
    pub const GIT_REPLY: Kind = Kind(1622);
    /// Open Status of Git Patch or Issue (NIP-34).
    pub const GIT_STATUS_OPEN: Kind = Kind(1630);
    /// Applied / Merged Status of Git Patch or Resolved Status of Git Issue (NIP-34).
    pub const GIT_STATUS_APPLIED: Kind = Kind(1631);
    /// Closed Status of Git Patch or Issue (NIP-34).
    pub const GIT_STATUS_CLOSED: Kind = Kind(1632);
    /// Draft Status of Git Patch or Issue (NIP-34).
    pub const GIT_STATUS_DRAFT: Kind = Kind(1633);
    /// Wallet Service Info (NIP-47).
    pub const WALLET_CONNECT_INFO: Kind = Kind(13194);
    /// Reporting (NIP-56).
    pub const REPORTING: Kind = Kind(1984);
    /// Label (NIP-32).
    pub const LABEL: Kind = Kind(1985);
    /// Put User (NIP-29).
    pub const GROUP_PUT_USER: Kind = Kind(9000);
    /// Remove User (NIP-29).
    pub const GROUP_REMOVE_USER: Kind = Kind(9001);
    /// Edit Metadata (NIP-29).
    pub const GROUP_EDIT_METADATA: Kind = Kind(9002);
    /// Delete Event (NIP-29).
    pub const GROUP_DELETE_EVENT: Kind = Kind(9005);
    /// Create Group (NIP-29).
    pub const GROUP_CREATE_GROUP: Kind = Kind(9007);
    /// Delete Group (NIP-29).
    pub const GROUP_DELETE_GROUP: Kind = Kind(9008);
    /// Create Invite (NIP-29).
    pub const GROUP_CREATE_INVITE: Kind = Kind(9009);
    /// Join Request (NIP-29).
    pub const GROUP_JOIN_REQUEST: Kind = Kind(9021);
    /// Leave Request (NIP-29).
    pub const GROUP_LEAVE_REQUEST: Kind = Kind(9022);
    /// Group Metadata (NIP-29).
    pub const GROUP_METADATA: Kind = Kind(39000);
    /// Group Admins (NIP-29).
    pub const GROUP_ADMINS: Kind = Kind(39001);
    /// Group Members (NIP-29).
    pub const GROUP_MEMBERS: Kind = Kind(39002);
    /// Group Roles (NIP-29).
    pub const GROUP_ROLES: Kind = Kind(39003);
    /// Livekit Participants (NIP-29).
    pub const GROUP_LIVEKIT_PARTICIPANTS: Kind = Kind(39004);
    /// Zap Private Message (NIP-57).
    pub const ZAP_PRIVATE_MESSAGE: Kind = Kind(9733);
    /// Zap Request (NIP-57).
    pub const ZAP_REQUEST: Kind = Kind(9734);
    /// Zap Receipt (NIP-57).
    pub const ZAP_RECEIPT: Kind = Kind(9735);
    /// Highlights (NIP-84).
    pub const HIGHLIGHT: Kind = Kind(9802);
    /// Mute List (NIP-51).
    pub const MUTE_LIST: Kind = Kind(10000);
    /// Pin List (NIP-51).
    pub const PIN_LIST: Kind = Kind(10001);
    /// Relay List Metadata (NIP-65).
    pub const RELAY_LIST: Kind = Kind(10002);
    /// Bookmarks (NIP-51).
    pub const BOOKMARKS: Kind = Kind(10003);
    /// Communities (NIP-51).
    pub const COMMUNITIES: Kind = Kind(10004);
    /// Public Chats (NIP-51).
    pub const PUBLIC_CHATS: Kind = Kind(10005);
    /// Blocked Relays (NIP-51).
    pub const BLOCKED_RELAYS: Kind = Kind(10006);
    /// Search Relays (NIP-51).
    pub const SEARCH_RELAYS: Kind = Kind(10007);
    /// Simple Groups (NIP-51).
    pub const SIMPLE_GROUPS: Kind = Kind(10009);
    /// Interests (NIP-51).
    pub const INTERESTS: Kind = Kind(10015);
    /// Emojis (NIP-51).
    pub const EMOJIS: Kind = Kind(10030);
    /// Inbox Relays (NIP-17).
    pub const INBOX_RELAYS: Kind = Kind(10050);
    /// MLS Key Package Relays (NIP-104).
    pub const MLS_KEY_PACKAGE_RELAYS: Kind = Kind(10051);
    /// Blossom Server List (NIP-B7).
    pub const BLOSSOM_SERVER_LIST: Kind = Kind(10063);
    /// Client Authentication (NIP-42).
    pub const AUTHENTICATION: Kind = Kind(22242);
    /// Wallet Connect Request (NIP-47).
    pub const WALLET_CONNECT_REQUEST: Kind = Kind(23194);
    /// Wallet Connect Response (NIP-47).
    pub const WALLET_CONNECT_RESPONSE: Kind = Kind(23195);
    /// Wallet Connect Notification (NIP-47).
    pub const WALLET_CONNECT_NOTIFICATION: Kind = Kind(23196);
    /// Wallet Connect Notification encrypted using nip44_v2 (NIP-47).
    pub const WALLET_CONNECT_NOTIFICATION_NIP44_V2: Kind = Kind(23197);
    /// Nostr Connect (NIP-47).
    pub const NOSTR_CONNECT: Kind = Kind(24133);
    /// Live Event (NIP-53).
    pub const LIVE_EVENT: Kind = Kind(30311);
    /// Live Event Message (NIP-53).
    pub const LIVE_EVENT_MESSAGE: Kind = Kind(1311);
    /// Profile Badges (NIP-58).
    pub const PROFILE_BADGES: Kind = Kind(10008);
    /// Badge Set (NIP-58).
    pub const BADGE_SET: Kind = Kind(30008);
    /// Badge Definition (NIP-58).
    pub const BADGE_DEFINITION: Kind = Kind(30009);
    /// Seal (NIP-59).
    pub const SEAL: Kind = Kind(13);
    /// Gift Wrap (NIP-59).
    pub const GIFT_WRAP: Kind = Kind(1059);
    /// Private Direct message (NIP-17).
    pub const PRIVATE_DIRECT_MESSAGE: Kind = Kind(14);
    /// Set stall (NIP-15).
    pub const SET_STALL: Kind = Kind(30017);
    /// Set product (NIP-15).
    pub const SET_PRODUCT: Kind = Kind(30018);
    /// Job Feedback (NIP-90).
    pub const JOB_FEEDBACK: Kind = Kind(7000);
    /// Follow Set (NIP-51).
    pub const FOLLOW_SET: Kind = Kind(30000);
    /// Relay Set (NIP-51).
    pub const RELAY_SET: Kind = Kind(30002);
    /// Bookmark Set (NIP-51).
    pub const BOOKMARK_SET: Kind = Kind(30003);
    /// Articles Curation Set (NIP-51).
    pub const ARTICLES_CURATION_SET: Kind = Kind(30004);
    /// Videos Curation Set (NIP-51).
    pub const VIDEOS_CURATION_SET: Kind = Kind(30005);
    /// Interest Set (NIP-51).
    pub const INTEREST_SET: Kind = Kind(30015);
    /// Emoji Set (NIP-51).
    pub const EMOJI_SET: Kind = Kind(30030);
    /// Release Artifact Set (NIP-51).
    pub const RELEASE_ARTIFACT_SET: Kind = Kind(30063);
    /// Long-form Text Note (NIP-23).
    pub const LONG_FORM_TEXT_NOTE: Kind = Kind(30023);
    /// Git Repository Announcement (NIP-34).
    pub const GIT_REPO_ANNOUNCEMENT: Kind = Kind(30617);
    /// File Metadata (NIP-94).
    pub const FILE_METADATA: Kind = Kind(1063);
    /// Blossom Authorization (Blossom BUD-01).
    pub const BLOSSOM_AUTH: Kind = Kind(24242);
    /// HTTP Auth (NIP-98).
    pub const HTTP_AUTH: Kind = Kind(27235);
    /// Application-specific Data (NIP-78).
    pub const APPLICATION_SPECIFIC_DATA: Kind = Kind(30078);
    /// Torrent (NIP-35).
    pub const TORRENT: Kind = Kind(2003);
    /// Torrent Comment (NIP-35).
    pub const TORRENT_COMMENT: Kind = Kind(2004);
    /// Peer-to-peer Order events (NIP-69).
    pub const PEER_TO_PEER_ORDER: Kind = Kind(38383);
    /// Request to Vanish (NIP-62).
    pub const REQUEST_TO_VANISH: Kind = Kind(62);
    /// User Status (NIP-38).
    pub const USER_STATUS: Kind = Kind(30315);
    /// Voice Message (NIP-A0).
    pub const VOICE_MESSAGE: Kind = Kind(1222);
    /// Voice Message Reply (NIP-A0).
    pub const VOICE_MESSAGE_REPLY: Kind = Kind(1244);
    /// Cashu Wallet (NIP-60).
    pub const CASHU_WALLET: Kind = Kind(17375);
    /// Cashu Wallet Unspent Proof (NIP-60).
    pub const CASHU_WALLET_UNSPENT_PROOF: Kind = Kind(7375);
    /// Cashu Wallet Spending History (NIP-60).
    pub const CASHU_WALLET_SPENDING_HISTORY: Kind = Kind(7376);
    /// Cashu Wallet Redeeming a quote (NIP-60).
    pub const CASHU_WALLET_QUOTE: Kind = Kind(7374);
    /// Cashu Nut Zap informational event (NIP-61).
    pub const CASHU_NUT_ZAP_INFO: Kind = Kind(10019);
    /// User Grasp List (NIP-34).
    pub const GIT_USER_GRASP_LIST: Kind = Kind(10317);
    /// Cashu Nut Zap (NIP-61).
    pub const CASHU_NUT_ZAP: Kind = Kind(9321);
    /// Code Snippets (NIP-C0).
    pub const CODE_SNIPPET: Kind = Kind(1337);
    /// Poll (NIP-88).
    pub const POLL: Kind = Kind(1068);
    /// Poll response (NIP-88).
    pub const POLL_RESPONSE: Kind = Kind(1018);
    /// Chat Message (NIP-C7).
    pub const CHAT_MESSAGE: Kind = Kind(9);
    /// Thread (NIP-7D).
    pub const THREAD: Kind = Kind(11);
    /// Web Bookmark (NIP-B0).
    pub const WEB_BOOKMARK: Kind = Kind(39701);
    /// Relay Monitor (NIP-66).
    pub const RELAY_MONITOR: Kind = Kind(10166);
    /// Relay Discovery (NIP-66).
    pub const RELAY_DISCOVERY: Kind = Kind(30166);

    /// The number.
    #[inline]
    pub const fn as_u16(self) -> u16 {
        self.0
    }

    /// NIP-01 regular: `1000..10000`, `4..45`, 1 and 2. Relays keep every
    /// one.
    #[inline]
    pub const fn is_regular(self) -> bool {
        let k = self.0;
        (1000 <= k && k < 10000) || (4 <= k && k < 45) || k == 1 || k == 2
    }

    /// NIP-01 replaceable: `10000..20000`, 0 and 3. Relays keep the latest
    /// per kind and pubkey.
    #[inline]
    pub const fn is_replaceable(self) -> bool {
        let k = self.0;
        (10000 <= k && k < 20000) || k == 0 || k == 3
    }

    /// NIP-01 ephemeral: `20000..30000`. Relays do not store them.
    #[inline]
    pub const fn is_ephemeral(self) -> bool {
        20000 <= self.0 && self.0 < 30000
    }

    /// NIP-01 addressable: `30000..40000`. Relays keep the latest per kind,
    /// pubkey and `d` tag.
    #[inline]
    pub const fn is_addressable(self) -> bool {
        30000 <= self.0 && self.0 < 40000
    }
}

impl From<u16> for Kind {
    #[inline]
    fn from(kind: u16) -> Self {
        Self(kind)
    }
}

impl From<Kind> for u16 {
    #[inline]
    fn from(kind: Kind) -> u16 {
        kind.0
    }
}

impl PartialEq<u16> for Kind {
    #[inline]
    fn eq(&self, other: &u16) -> bool {
        self.0 == *other
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// A decimal number in `0..=65535`.
impl FromStr for Kind {
    type Err = ParseIntError;
    fn from_str(s: &str) -> Result<Self, ParseIntError> {
        s.parse().map(Self)
    }
}
