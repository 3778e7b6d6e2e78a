//! Encoding back to JSON into a caller's buffer: the canonical id
//! preimage and the wire form of events and messages.

use crate::canonical::{self, CanonParts, Sink, put_string, put_tags, put_u64};
use crate::event::Event;
use crate::filter::{Filter, FilterLists, Filters};
use crate::hex;
use crate::message::{ClientMessage, Message, RelayMessage};
use crate::options::ControlChars;

/// Extra members a caller appends to each event object written by the
/// `encode_into_extra` methods: called with the event and the buffer just
/// before the event's closing `}`; write `,"name":value` pairs.
pub type EventExtra<'f> = &'f mut dyn FnMut(Event<'_>, &mut Vec<u8>);

impl<'a> Event<'a> {
    fn canon_parts(self) -> CanonParts<'a> {
        CanonParts {
            pubkey: self.pubkey(),
            created_at: self.created_at(),
            kind: self.kind(),
            tags: self.tags(),
            tags_raw: &[],
            content: self.content(),
            content_raw: &[],
        }
    }

    /// Append the canonical serialization `[0,pubkey,created_at,kind,tags,content]`
    /// (the id preimage) to `out`.
    ///
    /// ```
    /// let arena = quarry_core::Arena::new();
    /// let event = quarry_nostr::decode_event(&arena, quarry_nostr::SAMPLE_EVENT.as_bytes())?;
    /// let mut out = Vec::new();
    /// event.write_canonical(&mut out, quarry_nostr::ControlChars::Escape);
    /// assert!(out.starts_with(b"[0,\"989c0b76"));
    /// assert!(out.ends_with(b"prison walls.\"]"));
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn write_canonical(self, out: &mut Vec<u8>, control: ControlChars) {
        canonical::put_canonical(out, &self.canon_parts(), control);
    }

    /// The id this event's content hashes to (SHA-256 of the canonical
    /// serialization, no allocation).
    pub fn compute_id(self, control: ControlChars) -> [u8; 32] {
        canonical::hash(&self.canon_parts(), control)
    }

    /// Whether [`id`](Self::id) matches the content, with the default
    /// control-character rule.
    ///
    /// ```
    /// let arena = quarry_core::Arena::new();
    /// let event = quarry_nostr::decode_event(&arena, quarry_nostr::SAMPLE_EVENT.as_bytes())?;
    /// assert!(event.verify_id());
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn verify_id(self) -> bool {
        self.compute_id(ControlChars::Escape) == *self.id()
    }

    /// The event as a compact JSON object in NIP-01's member order
    /// (`id`, `pubkey`, `created_at`, `kind`, `tags`, `content`, `sig`),
    /// hex in lower case, strings escaped as JSON.stringify does.
    ///
    /// It reserves room once: a new buffer is one allocation, and
    /// [`encode_into`](Self::encode_into) makes none into a buffer reused
    /// from a write of an event at least as large. A decoded event reserves its wire length, which is what it
    /// writes when the input was canonical; a compacted one its fixed
    /// members and text plus a sixteenth for escapes, and text that escapes
    /// more than that grows the buffer once more.
    ///
    /// ```
    /// let arena = quarry_core::Arena::new();
    /// let json = quarry_nostr::SAMPLE_EVENT;
    /// let event = quarry_nostr::decode_event(&arena, json.as_bytes())?;
    /// assert_eq!(event.encode(), json.as_bytes());
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn encode(self) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode_into(&mut out);
        out
    }

    /// Append the event to `out` as [`encode`](Self::encode) writes it.
    pub fn encode_into(self, out: &mut Vec<u8>) {
        self.put_json(out, None);
    }

    /// [`encode_into`](Self::encode_into) with extra members appended by
    /// `extra`.
    ///
    /// ```
    /// let arena = quarry_core::Arena::new();
    /// let event = quarry_nostr::decode_event(&arena, quarry_nostr::SAMPLE_EVENT.as_bytes())?;
    /// let mut out = Vec::new();
    /// event.encode_into_extra(&mut out, &mut |e, out| {
    ///     out.extend_from_slice(if e.id_valid() == Some(true) { b",\"id_valid\":true" } else { b",\"id_valid\":false" })
    /// });
    /// assert!(out.ends_with(b"\"id_valid\":true}"));
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn encode_into_extra(self, out: &mut Vec<u8>, extra: EventExtra<'_>) {
        self.put_json(out, Some(extra));
    }

    /// The bytes [`encode_into`](Self::encode_into) writes, for one
    /// reservation.
    ///
    /// A decoded event writes at most its wire bytes: the decoder rejects
    /// raw control characters, so every character the writer escapes was
    /// escaped on the wire at least as long, and the rest (hex in either
    /// case, whitespace, longer escapes, members NIP-01 does not name) only
    /// shrinks. For a canonical input that is exact.
    ///
    /// An event with no wire bytes (compacted or converted) counts the fixed
    /// members exactly (the numbers at their widest) and its text plus a
    /// sixteenth for escapes; text that escapes more than that grows the
    /// buffer once more.
    fn json_len_hint(self) -> usize {
        let raw = self.raw().len();
        if raw > 0 {
            return raw;
        }
        // The keys, punctuation and hex of `{"id":"…","pubkey":"…",
        // "created_at":N,"kind":N,"tags":,"content":,"sig":"…"}`, with
        // created_at at 20 digits and kind at 5.
        const FIXED: usize = 7 + 64 + 12 + 64 + 15 + 20 + 8 + 5 + 8 + 11 + 8 + 128 + 2;
        let tags = self.tags();
        let text = self.content().len() + tags.text_len();
        // The list's `[]`; per tag its `[]` and a comma before all but
        // the first; per element its quotes and a comma before all but the
        // first of its tag (exact when no tag is empty, as none is in a
        // decoded event); the content's quotes.
        let (n, e) = (tags.len(), tags.element_count());
        let list = if n == 0 { 2 } else { 1 + 2 * n + 3 * e };
        let punctuation = list + 2;
        FIXED + punctuation + text + text / 16
    }

    fn put_json(self, out: &mut Vec<u8>, extra: Option<EventExtra<'_>>) {
        out.reserve(self.json_len_hint() + extra.as_ref().map_or(0, |_| EXTRA_HINT));
        self.put_members(out, extra);
    }

    /// The object, into a buffer already reserved for it.
    fn put_members(self, out: &mut Vec<u8>, extra: Option<EventExtra<'_>>) {
        let id: [u8; 64] = hex::encode(self.id());
        let pk: [u8; 64] = hex::encode(self.pubkey());
        let sig: [u8; 128] = hex::encode(self.sig());
        out.put(b"{\"id\":\"");
        out.put(&id);
        out.put(b"\",\"pubkey\":\"");
        out.put(&pk);
        out.put(b"\",\"created_at\":");
        put_u64(out, self.created_at());
        out.put(b",\"kind\":");
        put_u64(out, u64::from(self.kind()));
        out.put(b",\"tags\":");
        put_tags(out, self.tags(), ControlChars::Escape);
        out.put(b",\"content\":");
        put_string(out, self.content(), ControlChars::Escape);
        out.put(b",\"sig\":\"");
        out.put(&sig);
        out.put(b"\"");
        if let Some(extra) = extra {
            extra(self, out);
        }
        out.put(b"}");
    }
}

fn put_filters(out: &mut Vec<u8>, filters: Filters<'_>, lists: FilterLists) {
    for f in filters.iter() {
        out.put(b",");
        f.put_json(out, lists);
    }
}

/// Room for `"<s>"` and the comma before it, with a sixteenth for escapes
/// (as for an event's text).
fn str_elem_hint(s: &str) -> usize {
    3 + s.len() + s.len() / 16
}

/// Room for a filter's JSON written either way ([`FilterLists`]: sets only
/// drop repeats), so a REQ into an empty buffer allocates once, as an
/// event does. Exact for the lists but for escapes in tag values and
/// `search` past a sixteenth; numbers at their widest. One per member for
/// its comma, which over-counts by one.
fn filter_json_hint(f: Filter<'_>) -> usize {
    // `"ids":[]` and its comma, then per key its quoted hex and a comma.
    let keys = |list: Option<&[[u8; 32]]>, name: usize| list.map_or(0, |l| name + 6 + 67 * l.len());
    let kinds = f.kinds().map_or(0, |k| 11 + 6 * k.len());
    let tags: usize = f
        .tag_lists()
        .map(|(_, values)| 8 + values.iter().map(|v| str_elem_hint(v)).sum::<usize>())
        .sum();
    let numbers = [f.since(), f.until(), f.limit()]
        .iter()
        .map(|n| n.map_or(0, |_| 9 + 20))
        .sum::<usize>();
    let search = f.search().map_or(0, |s| 10 + str_elem_hint(s));
    2 + keys(f.ids(), 3) + keys(f.authors(), 7) + kinds + tags + numbers + search
}

/// `["<label>","<sub_id>"` and each filter with the comma before it.
fn filters_message_hint(label: &[u8], sub_id: &str, filters: Filters<'_>) -> usize {
    let filters: usize = filters.iter().map(|f| 1 + filter_json_hint(f)).sum();
    label.len() + str_elem_hint(sub_id) + filters + 1
}

fn put_str_elem(out: &mut Vec<u8>, s: &str) {
    out.put(b",");
    put_string(out, s, ControlChars::Escape);
}

/// Room reserved for the members an [`EventExtra`] appends: enough for a
/// few flags such as the CLI's `"id_valid":false`.
const EXTRA_HINT: usize = 64;

/// `["<label>","<sub_id>",{event}` in one reservation, so a message into
/// an empty buffer allocates once, as `Event::encode_into` does, rather
/// than once for its start and again for the event.
fn put_event_message(
    out: &mut Vec<u8>,
    label: &[u8],
    sub_id: Option<&str>,
    event: Event<'_>,
    extra: &mut Option<EventExtra<'_>>,
) {
    // `,"…"` with a sixteenth for escapes, as for the event's own text.
    let sub_len = sub_id.map_or(0, |s| 3 + s.len() + s.len() / 16);
    let extra_len = extra.as_ref().map_or(0, |_| EXTRA_HINT);
    // The label, the sub id, `,` and the event, then the closing `]`.
    out.reserve(label.len() + sub_len + 1 + event.json_len_hint() + extra_len + 1);
    out.put(label);
    if let Some(s) = sub_id {
        put_str_elem(out, s);
    }
    out.put(b",");
    event.put_members(out, extra.as_mut().map(|f| &mut **f as EventExtra<'_>));
}

impl RelayMessage<'_> {
    /// The message as compact JSON, in a new buffer.
    ///
    /// ```
    /// let msg = quarry_nostr::RelayMessage::Ok { event_id: [0xab; 32], accepted: false, message: "blocked: \"spam\"" };
    /// let want = format!(r#"["OK","{}",false,"blocked: \"spam\""]"#, "ab".repeat(32));
    /// assert_eq!(String::from_utf8(msg.encode()).unwrap(), want);
    /// ```
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode_into(&mut out);
        out
    }

    /// Append the message to `out` as [`encode`](Self::encode) writes it.
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        self.put_json(out, None);
    }

    /// [`encode_into`](Self::encode_into) with extra members in the event
    /// object.
    pub fn encode_into_extra(&self, out: &mut Vec<u8>, extra: EventExtra<'_>) {
        self.put_json(out, Some(extra));
    }

    fn put_json(&self, out: &mut Vec<u8>, mut extra: Option<EventExtra<'_>>) {
        match *self {
            Self::Event { sub_id, event } => {
                put_event_message(out, b"[\"EVENT\"", Some(sub_id), event, &mut extra);
            }
            Self::Ok {
                event_id,
                accepted,
                message,
            } => {
                let id: [u8; 64] = hex::encode(&event_id);
                out.put(b"[\"OK\",\"");
                out.put(&id);
                out.put(if accepted { b"\",true" } else { b"\",false" });
                put_str_elem(out, message);
            }
            Self::Eose { sub_id } => {
                out.put(b"[\"EOSE\"");
                put_str_elem(out, sub_id);
            }
            Self::Closed { sub_id, message } => {
                out.put(b"[\"CLOSED\"");
                put_str_elem(out, sub_id);
                put_str_elem(out, message);
            }
            Self::Notice { message } => {
                out.put(b"[\"NOTICE\"");
                put_str_elem(out, message);
            }
            Self::Auth { challenge } => {
                out.put(b"[\"AUTH\"");
                put_str_elem(out, challenge);
            }
            Self::Count {
                sub_id,
                count,
                approximate,
                hll,
            } => {
                out.put(b"[\"COUNT\"");
                put_str_elem(out, sub_id);
                out.put(b",{\"count\":");
                put_u64(out, count);
                if let Some(a) = approximate {
                    out.put(if a {
                        b",\"approximate\":true"
                    } else {
                        b",\"approximate\":false"
                    });
                }
                if let Some(h) = hll {
                    out.put(b",\"hll\":");
                    put_string(out, h, ControlChars::Escape);
                }
                out.put(b"}");
            }
            Self::NegMsg { sub_id, message } => {
                out.put(b"[\"NEG-MSG\"");
                put_str_elem(out, sub_id);
                put_str_elem(out, message);
            }
            Self::NegErr { sub_id, reason } => {
                out.put(b"[\"NEG-ERR\"");
                put_str_elem(out, sub_id);
                put_str_elem(out, reason);
            }
        }
        out.put(b"]");
    }
}

impl ClientMessage<'_> {
    /// The message as compact JSON, in a new buffer.
    ///
    /// ```
    /// let arena = quarry_core::Arena::new();
    /// let json = br##"["REQ","s",{"kinds":[1],"limit":5,"#t":["nostr"]}]"##;
    /// let msg = quarry_nostr::decode_client_message(&arena, json)?;
    /// let mut out = Vec::new();
    /// msg.encode_into(&mut out);
    /// assert_eq!(out, json);
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode_into(&mut out);
        out
    }

    /// Append the message to `out` as [`encode`](Self::encode) writes it.
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        self.encode_into_as(out, FilterLists::AsReceived, None);
    }

    /// [`encode_into`](Self::encode_into) with extra members in the event
    /// object.
    pub fn encode_into_extra(&self, out: &mut Vec<u8>, extra: EventExtra<'_>) {
        self.encode_into_as(out, FilterLists::AsReceived, Some(extra));
    }

    /// [`encode_into`](Self::encode_into) with the filters' lists written as
    /// `lists` says, and extra members in the event object when `extra` is
    /// given.
    ///
    /// ```
    /// use quarry_nostr::FilterLists;
    /// let arena = quarry_core::Arena::new();
    /// let json = br##"["REQ","s",{"#t":["b","a","b"],"limit":5,"kinds":[7,1]}]"##;
    /// let msg = quarry_nostr::decode_client_message(&arena, json)?;
    /// let mut out = Vec::new();
    /// msg.encode_into_as(&mut out, FilterLists::Sets, None);
    /// assert_eq!(out, br##"["REQ","s",{"kinds":[1,7],"limit":5,"#t":["a","b"]}]"##);
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn encode_into_as(
        &self,
        out: &mut Vec<u8>,
        lists: FilterLists,
        mut extra: Option<EventExtra<'_>>,
    ) {
        match *self {
            Self::Event(event) => {
                put_event_message(out, b"[\"EVENT\"", None, event, &mut extra);
            }
            Self::Auth(event) => {
                put_event_message(out, b"[\"AUTH\"", None, event, &mut extra);
            }
            Self::Req { sub_id, filters } => {
                out.reserve(filters_message_hint(b"[\"REQ\"", sub_id, filters));
                out.put(b"[\"REQ\"");
                put_str_elem(out, sub_id);
                put_filters(out, filters, lists);
            }
            Self::Count { sub_id, filters } => {
                out.reserve(filters_message_hint(b"[\"COUNT\"", sub_id, filters));
                out.put(b"[\"COUNT\"");
                put_str_elem(out, sub_id);
                put_filters(out, filters, lists);
            }
            Self::Close { sub_id } => {
                out.put(b"[\"CLOSE\"");
                put_str_elem(out, sub_id);
            }
            Self::NegOpen {
                sub_id,
                filter,
                message,
            } => {
                let hint = filters_message_hint(b"[\"NEG-OPEN\"", sub_id, filter);
                out.reserve(hint + str_elem_hint(message));
                out.put(b"[\"NEG-OPEN\"");
                put_str_elem(out, sub_id);
                put_filters(out, filter, lists);
                put_str_elem(out, message);
            }
            Self::NegMsg { sub_id, message } => {
                out.put(b"[\"NEG-MSG\"");
                put_str_elem(out, sub_id);
                put_str_elem(out, message);
            }
            Self::NegClose { sub_id } => {
                out.put(b"[\"NEG-CLOSE\"");
                put_str_elem(out, sub_id);
            }
        }
        out.put(b"]");
    }
}

impl Message<'_> {
    /// The message as compact JSON, in a new buffer.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode_into(&mut out);
        out
    }

    /// Append the message to `out` as [`encode`](Self::encode) writes it.
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        match self {
            Self::Relay(m) => m.encode_into(out),
            Self::Client(m) => m.encode_into(out),
        }
    }

    /// [`encode_into`](Self::encode_into) with extra members in the event
    /// object.
    pub fn encode_into_extra(&self, out: &mut Vec<u8>, extra: EventExtra<'_>) {
        match self {
            Self::Relay(m) => m.encode_into_extra(out, extra),
            Self::Client(m) => m.encode_into_extra(out, extra),
        }
    }

    /// [`encode_into`](Self::encode_into) with a client message's filter
    /// lists written as `lists` says (see
    /// [`ClientMessage::encode_into_as`]), and extra members in the event
    /// object when `extra` is given.
    pub fn encode_into_as(
        &self,
        out: &mut Vec<u8>,
        lists: FilterLists,
        extra: Option<EventExtra<'_>>,
    ) {
        match (self, extra) {
            (Self::Relay(m), Some(extra)) => m.encode_into_extra(out, extra),
            (Self::Relay(m), None) => m.encode_into(out),
            (Self::Client(m), extra) => m.encode_into_as(out, lists, extra),
        }
    }
}

/// Append `s` as a JSON string (quotes included), escaped as
/// JSON.stringify does.
///
/// ```
/// let mut out = Vec::new();
/// quarry_nostr::write_json_string(&mut out, "a\"b\n\u{1}");
/// assert_eq!(out, br#""a\"b\n\u0001""#);
/// ```
pub fn write_json_string(out: &mut Vec<u8>, s: &str) {
    put_string(out, s, ControlChars::Escape);
}
