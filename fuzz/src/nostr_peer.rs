//! Nostr events against rust-nostr (`nostr` 0.45), the peer the CLI's
//! output is held to: on any input both accept with the same fields, or
//! both reject, except where docs/nostr.md names a deliberate difference.

use std::fmt::Debug;

use quarry_core::{Arena, DecodeError};
use quarry_nostr::{Decoder, Event, IdCheck};

/// The peer does not hash ids while parsing, so neither does quarry here.
fn skip_ids() -> Decoder {
    Decoder {
        id_check: IdCheck::Skip,
        ..Decoder::new()
    }
}

/// A bare event object.
pub fn check_event(data: &[u8]) {
    let arena = Arena::new();
    let ours = skip_ids().decode_event(&arena, data);
    let theirs = nostr::event::Event::from_json(data);
    if let Some((ours, theirs)) =
        both_accept("an event", data, ours, theirs, documented_rejection, |_| {
            false
        })
    {
        same_fields(ours, &theirs);
    }
}

/// The two verdicts on `data`: both decoded values when both decoders
/// accept; `None` when both reject, or when they differ on an input the
/// `rejection` (quarry rejects, the peer accepts) or `acceptance` (the
/// reverse) classifier names as documented. Any other difference panics.
fn both_accept<O: Debug, T: Debug>(
    what: &str,
    data: &[u8],
    ours: Result<O, DecodeError>,
    theirs: Result<T, nostr::error::Error>,
    rejection: fn(&[u8]) -> bool,
    acceptance: fn(&[u8]) -> bool,
) -> Option<(O, T)> {
    match (ours, theirs) {
        (Ok(ours), Ok(theirs)) => Some((ours, theirs)),
        (Err(_), Err(_)) => None,
        (Err(error), Ok(theirs)) => {
            assert!(
                rejection(data),
                "quarry rejects ({error}) {what} rust-nostr accepts ({theirs:?}), outside the documented differences"
            );
            None
        }
        (Ok(ours), Err(error)) => {
            assert!(
                acceptance(data),
                "quarry accepts {what} ({ours:?}) rust-nostr rejects ({error}), outside the documented differences"
            );
            None
        }
    }
}

fn same_fields(ours: Event<'_>, theirs: &nostr::event::Event) {
    assert_eq!(ours.id(), theirs.id.as_bytes(), "id");
    assert_eq!(ours.pubkey(), theirs.pubkey.as_bytes(), "pubkey");
    assert_eq!(ours.sig(), theirs.sig.as_bytes(), "sig");
    assert_eq!(ours.created_at(), theirs.created_at.as_secs(), "created_at");
    assert_eq!(ours.kind(), theirs.kind.as_u16(), "kind");
    assert_eq!(ours.content(), theirs.content, "content");
    assert_eq!(ours.tags().len(), theirs.tags.len(), "tag count");
    for (a, b) in ours.tags().iter().zip(theirs.tags.iter()) {
        assert!(
            a.iter().eq(b.as_slice().iter().map(String::as_str)),
            "tag {:?} vs {:?}",
            a.iter().collect::<Vec<_>>(),
            b.as_slice()
        );
    }
}

/// Inputs rust-nostr accepts and quarry rejects on purpose (docs/nostr.md,
/// "Deliberate differences"): a positional array as the event; an `id`,
/// `pubkey` or `sig` that is not exactly 64, 64 or 128 hex digits (longer
/// hex the peer truncates, bech32 and `nostr:` forms it parses); and text
/// that is not Unicode (invalid UTF-8, a lone surrogate escape) in a
/// member the peer skips, since serde_json skips an ignored value without
/// checking its text. Read with serde_json, independently of both
/// decoders; the caller knows the peer accepted.
fn documented_rejection(data: &[u8]) -> bool {
    /// The three hex members, everything else skipped as the peer does.
    #[derive(serde::Deserialize)]
    struct Hex {
        id: Option<String>,
        pubkey: Option<String>,
        sig: Option<String>,
    }
    let not_hex = |s: &Option<String>, digits: usize| {
        s.as_ref()
            .is_some_and(|s| s.len() != digits || !s.bytes().all(|b| b.is_ascii_hexdigit()))
    };
    let positional = data.trim_ascii_start().first() == Some(&b'[');
    let bad_hex = serde_json::from_slice::<Hex>(data)
        .is_ok_and(|h| not_hex(&h.id, 64) || not_hex(&h.pubkey, 64) || not_hex(&h.sig, 128));
    let value = serde_json::from_slice::<serde_json::Value>(data).map_err(|e| e.to_string());
    // serde_json's own parse names the first fault only: a number past
    // f64's range earlier in a skipped member (which both decoders skip)
    // hides a lone surrogate after it, so those are looked for directly.
    let not_unicode = std::str::from_utf8(data).is_err()
        || lone_surrogate_escape(data)
        || value.as_ref().is_err_and(|what| {
            what.contains("surrogate") || what.contains("unicode") || what.contains("hex escape")
        });
    // Arrays and objects nested 128 deep, the outermost counted: the peer
    // skips ignored members without serde_json's depth limit, quarry
    // applies it (serde_json's own parse counts the same way).
    let too_deep = value
        .as_ref()
        .is_err_and(|what| what.contains("recursion limit exceeded"));
    positional || bad_hex || not_unicode || too_deep
}

/// Whether a string of `data` holds a `\u` escape of a surrogate that is
/// not half of a high-then-low pair (read with a scan of its own, which
/// tracks only where strings start and end).
fn lone_surrogate_escape(data: &[u8]) -> bool {
    let hex = |at: usize| {
        data.get(at..at + 4)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u16::from_str_radix(h, 16).ok())
    };
    let (mut i, mut in_string) = (0, false);
    while let Some(&b) = data.get(i) {
        match (in_string, b) {
            (false, b'"') | (true, b'"') => in_string = !in_string,
            (true, b'\\') if data.get(i + 1) == Some(&b'u') => match hex(i + 2) {
                Some(0xD800..=0xDBFF) => {
                    let low = data.get(i + 6..i + 8) == Some(&b"\\u"[..])
                        && matches!(hex(i + 8), Some(0xDC00..=0xDFFF));
                    if !low {
                        return true;
                    }
                    i += 11;
                }
                Some(0xDC00..=0xDFFF) => return true,
                _ => i += 5,
            },
            (true, b'\\') => i += 1,
            _ => {}
        }
        i += 1;
    }
    false
}

/// A relay-to-client message.
pub fn check_relay(data: &[u8]) {
    use nostr::message::RelayMessage as Theirs;
    use quarry_nostr::RelayMessage as Ours;
    let arena = Arena::new();
    let ours = skip_ids().decode_relay_message(&arena, data);
    let theirs = Theirs::from_json(data);
    let Some((ours, theirs)) = both_accept(
        "a relay message",
        data,
        ours,
        theirs,
        documented_message_rejection,
        |_| false,
    ) else {
        return;
    };
    match (ours, &theirs) {
        (
            Ours::Event { sub_id, event },
            Theirs::Event {
                subscription_id,
                event: e,
            },
        ) => {
            assert_eq!(sub_id, subscription_id.as_str());
            same_fields(event, e);
        }
        (
            Ours::Ok {
                event_id,
                accepted,
                message,
            },
            Theirs::Ok {
                event_id: id,
                status,
                message: m,
            },
        ) => {
            assert_eq!(&event_id, id.as_bytes());
            assert_eq!(accepted, *status);
            assert_eq!(message, m);
        }
        (Ours::Eose { sub_id }, Theirs::EndOfStoredEvents(id)) => assert_eq!(sub_id, id.as_str()),
        (
            Ours::Closed { sub_id, message },
            Theirs::Closed {
                subscription_id,
                message: m,
            },
        ) => {
            assert_eq!(sub_id, subscription_id.as_str());
            assert_eq!(message, m);
        }
        (Ours::Notice { message }, Theirs::Notice(m)) => assert_eq!(message, m),
        (Ours::Auth { challenge }, Theirs::Auth { challenge: c }) => assert_eq!(challenge, c),
        (
            Ours::Count { sub_id, count, .. },
            Theirs::Count {
                subscription_id,
                count: c,
            },
        ) => {
            assert_eq!(sub_id, subscription_id.as_str());
            assert_eq!(count, *c as u64);
        }
        (
            Ours::NegMsg { sub_id, message },
            Theirs::NegMsg {
                subscription_id,
                message: m,
            },
        )
        | (
            Ours::NegErr {
                sub_id,
                reason: message,
            },
            Theirs::NegErr {
                subscription_id,
                message: m,
            },
        ) => {
            assert_eq!(sub_id, subscription_id.as_str());
            assert_eq!(message, m);
        }
        (ours, theirs) => panic!("different messages: {ours:?} and {theirs:?}"),
    }
    // The JSON both write is the same, byte for byte, except for a COUNT
    // result's `approximate` and `hll`, which the peer drops.
    if !matches!(
        ours,
        Ours::Count {
            approximate: Some(_),
            ..
        } | Ours::Count { hll: Some(_), .. }
    ) {
        let mut out = Vec::new();
        ours.encode_into(&mut out);
        assert_eq!(
            String::from_utf8(out).expect("quarry writes UTF-8"),
            theirs.as_json(),
            "the JSON of the message"
        );
    }
}

/// A message quarry rejects on purpose where rust-nostr accepts it: a
/// subscription id that is empty or longer than 64 characters (NIP-01), a
/// positional array for an event or COUNT's result object, an event the
/// event check above classes as a documented difference, a filter's `ids`
/// or `authors` entry that is not exactly 64 hex digits, or a filter that
/// repeats a `#x` key (the peer keeps the last list; quarry rejects every
/// repeated member, as the peer does for the other filter members), a
/// COUNT with more than its first filter (the peer skips the rest unread),
/// or a COUNT result whose `approximate` or `hll` is of another type or
/// repeated (the peer reads only `count`).
fn documented_message_rejection(data: &[u8]) -> bool {
    let items = match serde_json::from_slice::<serde_json::Value>(data) {
        Ok(serde_json::Value::Array(items)) => items,
        // Not Unicode where the peer skips, as for events.
        _ => return documented_rejection(data),
    };
    let bad_sub_id = matches!(
        items.get(1),
        Some(serde_json::Value::String(s)) if s.is_empty() || s.chars().count() > 64
    );
    // serde's derive reads a struct from a positional array too: the
    // quirk docs/nostr.md names for events, here for COUNT's result.
    let positional = matches!(
        (items.first(), items.get(2)),
        (Some(serde_json::Value::String(verb)), Some(serde_json::Value::Array(_)))
            if verb == "COUNT" || verb == "EVENT"
    ) || matches!(
        (items.first(), items.get(1)),
        (Some(serde_json::Value::String(verb)), Some(serde_json::Value::Array(_)))
            if verb == "EVENT" || verb == "AUTH"
    );
    // A COUNT result: the peer reads only `count`; quarry also reads
    // NIP-45's `approximate` (a bool) and `hll` (a string), once each.
    let count_result = items.first().and_then(|v| v.as_str()) == Some("COUNT")
        && (items
            .get(2)
            .and_then(|v| v.as_object())
            .is_some_and(|result| {
                result.get("approximate").is_some_and(|v| !v.is_boolean())
                    || result.get("hll").is_some_and(|v| !v.is_string())
            })
            || repeated_key(data, &["approximate", "hll"]));
    // COUNT: the peer skips whatever follows the first filter, quarry
    // reads every filter NIP-45 allows there.
    let count_tail = items.len() > 3 && items.first().and_then(|v| v.as_str()) == Some("COUNT");
    let bad_event = items
        .iter()
        .filter(|v| v.is_object())
        .any(|v| documented_rejection(v.to_string().as_bytes()));
    // The same hex rule for a filter's `ids` and `authors`.
    let bad_filter_hex = items.iter().filter_map(|v| v.as_object()).any(|filter| {
        ["ids", "authors"].iter().any(|key| {
            filter
                .get(*key)
                .and_then(|v| v.as_array())
                .is_some_and(|values| {
                    values.iter().any(|v| {
                        v.as_str().is_some_and(|s| {
                            s.len() != 64 || !s.bytes().all(|b| b.is_ascii_hexdigit())
                        })
                    })
                })
        })
    });
    bad_sub_id
        || positional
        || count_result
        || count_tail
        || bad_event
        || bad_filter_hex
        || repeated_tag_condition(data)
}

/// A client-to-relay message.
pub fn check_client(data: &[u8]) {
    use nostr::message::ClientMessage as Theirs;
    use quarry_nostr::ClientMessage as Ours;
    let arena = Arena::new();
    let ours = skip_ids().decode_client_message(&arena, data);
    let theirs = Theirs::from_json(data);
    let Some((ours, theirs)) = both_accept(
        "a client message",
        data,
        ours,
        theirs,
        documented_message_rejection,
        documented_acceptance,
    ) else {
        return;
    };
    match (ours, &theirs) {
        (Ours::Event(event), Theirs::Event(e)) | (Ours::Auth(event), Theirs::Auth(e)) => {
            same_fields(event, e)
        }
        (
            Ours::Req { sub_id, filters },
            Theirs::Req {
                subscription_id,
                filters: f,
            },
        ) => {
            assert_eq!(sub_id, subscription_id.as_str());
            assert_eq!(filters.len(), f.len(), "filter count");
            for (a, b) in filters.iter().zip(f) {
                same_filter(a, b);
            }
            same_json_as_sets(ours, &theirs);
        }
        (
            Ours::Count { sub_id, filters },
            Theirs::Count {
                subscription_id,
                filter,
            },
        ) => {
            // The peer reads the first filter and skips the rest
            // (docs/nostr.md); NIP-45 allows several.
            assert_eq!(sub_id, subscription_id.as_str());
            same_filter(filters.iter().next().expect("one filter"), filter);
            if filters.len() == 1 {
                same_json_as_sets(ours, &theirs);
            }
        }
        (Ours::Close { sub_id }, Theirs::Close(id))
        | (
            Ours::NegClose { sub_id },
            Theirs::NegClose {
                subscription_id: id,
            },
        ) => {
            assert_eq!(sub_id, id.as_str())
        }
        (
            Ours::NegOpen {
                sub_id,
                filter,
                message,
            },
            Theirs::NegOpen {
                subscription_id,
                filter: f,
                initial_message,
            },
        ) => {
            assert_eq!(sub_id, subscription_id.as_str());
            assert_eq!(filter.len(), 1);
            same_filter(filter.iter().next().expect("one filter"), f);
            assert_eq!(message, initial_message);
        }
        (
            Ours::NegMsg { sub_id, message },
            Theirs::NegMsg {
                subscription_id,
                message: m,
            },
        ) => {
            assert_eq!(sub_id, subscription_id.as_str());
            assert_eq!(message, m);
        }
        (ours, theirs) => panic!("different messages: {ours:?} and {theirs:?}"),
    }
}

/// quarry's JSON with its filter lists as sets (what `quarry nostr decode
/// --json` prints) is, byte for byte, the peer's `as_json()`.
fn same_json_as_sets(
    ours: quarry_nostr::ClientMessage<'_>,
    theirs: &nostr::message::ClientMessage,
) {
    let mut out = Vec::new();
    ours.encode_into_as(&mut out, quarry_nostr::FilterLists::Sets, None);
    assert_eq!(
        String::from_utf8(out).expect("quarry writes UTF-8"),
        theirs.as_json(),
        "the JSON of the message"
    );
}

/// The same conditions, compared as sets (the peer keeps sets).
fn same_filter(ours: quarry_nostr::Filter<'_>, theirs: &nostr::filter::Filter) {
    use std::collections::BTreeSet;
    let set32 = |v: Option<&[[u8; 32]]>| v.map(|v| v.iter().copied().collect::<BTreeSet<_>>());
    assert_eq!(
        set32(ours.ids()),
        theirs
            .ids
            .as_ref()
            .map(|s| s.iter().map(|id| *id.as_bytes()).collect()),
        "ids"
    );
    assert_eq!(
        set32(ours.authors()),
        theirs
            .authors
            .as_ref()
            .map(|s| s.iter().map(|k| *k.as_bytes()).collect()),
        "authors"
    );
    assert_eq!(
        ours.kinds()
            .map(|k| k.iter().copied().collect::<BTreeSet<_>>()),
        theirs
            .kinds
            .as_ref()
            .map(|s| s.iter().map(|k| k.as_u16()).collect()),
        "kinds"
    );
    assert_eq!(ours.since(), theirs.since.map(|t| t.as_secs()), "since");
    assert_eq!(ours.until(), theirs.until.map(|t| t.as_secs()), "until");
    assert_eq!(ours.limit(), theirs.limit.map(|l| l as u64), "limit");
    assert_eq!(ours.search(), theirs.search.as_deref(), "search");
    let ours_tags: std::collections::BTreeMap<u8, BTreeSet<&str>> = ours
        .tag_lists()
        .map(|(letter, values)| (letter, values.iter().copied().collect()))
        .collect();
    let theirs_tags: std::collections::BTreeMap<u8, BTreeSet<&str>> = theirs
        .generic_tags
        .iter()
        .map(|(letter, values)| {
            (
                letter.as_char() as u8,
                values.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(ours_tags, theirs_tags, "tag conditions");
}

/// Whether an object among the message's items repeats a `#x` key.
fn repeated_tag_condition(data: &[u8]) -> bool {
    objects_keys(data).iter().any(|keys| {
        let tags: Vec<&String> = keys
            .iter()
            .filter(|k| k.len() == 2 && k.starts_with('#'))
            .collect();
        tags.iter()
            .enumerate()
            .any(|(i, k)| tags.get(..i).is_some_and(|before| before.contains(k)))
    })
}

/// Whether an object among the message's items repeats one of `names`.
fn repeated_key(data: &[u8], names: &[&str]) -> bool {
    objects_keys(data).iter().any(|keys| {
        names
            .iter()
            .any(|name| keys.iter().filter(|k| k.as_str() == *name).count() > 1)
    })
}

/// The keys of each object among the message's items, in order, read with
/// serde (which keeps repeated keys where a `Value` would not); nothing when
/// the input is not an array.
fn objects_keys(data: &[u8]) -> Vec<Vec<String>> {
    use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

    /// The keys of an object, in order; nothing for other values.
    struct Keys(Vec<String>);

    impl<'de> Deserialize<'de> for Keys {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct KeysVisitor;
            impl<'de> Visitor<'de> for KeysVisitor {
                type Value = Keys;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("any JSON value")
                }
                fn visit_map<M: MapAccess<'de>>(self, mut m: M) -> Result<Keys, M::Error> {
                    let mut keys = Vec::new();
                    while let Some(key) = m.next_key::<String>()? {
                        m.next_value::<IgnoredAny>()?;
                        keys.push(key);
                    }
                    Ok(Keys(keys))
                }
                fn visit_seq<S: SeqAccess<'de>>(self, mut s: S) -> Result<Keys, S::Error> {
                    while s.next_element::<IgnoredAny>()?.is_some() {}
                    Ok(Keys(Vec::new()))
                }
                fn visit_bool<E>(self, _: bool) -> Result<Keys, E> {
                    Ok(Keys(Vec::new()))
                }
                fn visit_i64<E>(self, _: i64) -> Result<Keys, E> {
                    Ok(Keys(Vec::new()))
                }
                fn visit_u64<E>(self, _: u64) -> Result<Keys, E> {
                    Ok(Keys(Vec::new()))
                }
                fn visit_f64<E>(self, _: f64) -> Result<Keys, E> {
                    Ok(Keys(Vec::new()))
                }
                fn visit_str<E>(self, _: &str) -> Result<Keys, E> {
                    Ok(Keys(Vec::new()))
                }
                fn visit_unit<E>(self) -> Result<Keys, E> {
                    Ok(Keys(Vec::new()))
                }
            }
            d.deserialize_any(KeysVisitor)
        }
    }

    serde_json::from_slice::<Vec<Keys>>(data)
        .map(|items| items.into_iter().map(|Keys(keys)| keys).collect())
        .unwrap_or_default()
}

/// A client message quarry accepts and rust-nostr rejects, as docs/nostr.md
/// names it: a number past f64's range in a member the filter does not
/// know. The peer's filter buffers such members (serde's `flatten`) and
/// parses their numbers; quarry skips them unread, as both do elsewhere.
fn documented_acceptance(data: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(data)
        .is_err_and(|e| e.to_string().contains("number out of range"))
}
