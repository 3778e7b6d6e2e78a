//! The protobuf decoders compared, on the spec's WhatsApp-shaped samples
//! (built with prost's types and encoded by prost, so every decoder reads the
//! same bytes) and their forward-compatible variants (the same bytes with an
//! unknown field, an unlisted enum value, a oneof or a message field written
//! twice; `quarry_proto_tests::variants`): prost 0.14, waproto 0.7's buffa types (owned and views), and
//! quarry's generated views into a fresh or a reused arena. Each function
//! decodes once, drops the result and returns a number derived from it so
//! the work cannot be optimised away. The buffa side needs the `buffa`
//! feature (the instruction-count gate builds without it).

#![allow(dead_code)]

use std::hint::black_box;
use std::sync::OnceLock;

#[cfg(feature = "buffa")]
use buffa::Message as _;
#[cfg(feature = "buffa")]
use buffa::MessageField;
#[cfg(feature = "buffa")]
use buffa::view::MessageView as _;
use prost::Message as _;
use quarry_core::Arena;
use quarry_proto_tests::samples::{self, Root, Sample};
use quarry_proto_tests::sends::{self, Source};
use quarry_proto_tests::variants::{self, Variant};
use quarry_proto_tests::{pb, views, wa};
#[cfg(feature = "buffa")]
use waproto::buffa;
#[cfg(feature = "buffa")]
use waproto::whatsapp as bw;

/// The samples, built once.
pub fn samples() -> &'static [Sample] {
    static S: OnceLock<Vec<Sample>> = OnceLock::new();
    S.get_or_init(samples::all)
}

/// The forward-compatible variants of the samples, built once.
pub fn variants() -> &'static [Variant] {
    static V: OnceLock<Vec<Variant>> = OnceLock::new();
    V.get_or_init(variants::all)
}

/// The samples, then the variants' bytes: every input the decode benches
/// read.
pub fn decode_inputs() -> impl Iterator<Item = &'static Sample> {
    samples().iter().chain(variants().iter().map(|v| &v.sample))
}

/// The sample or variant named `name` (the variants are built only for a
/// name that is no sample's).
pub fn sample(name: &str) -> &'static Sample {
    decode_inputs()
        .find(|s| s.name == name)
        .expect("known sample or variant")
}

/// prost 0.14 into its owned types.
pub fn prost(s: &Sample) -> usize {
    let b = s.bytes.as_slice();
    match s.root {
        Root::SyncActionData => {
            black_box(pb::whatsapp::SyncActionData::decode(b).unwrap()).version() as usize
        }
        Root::Message => black_box(pb::whatsapp::Message::decode(b).unwrap())
            .conversation()
            .len(),
        Root::HistorySync => black_box(pb::whatsapp::HistorySync::decode(b).unwrap())
            .conversations
            .len(),
    }
}

/// buffa (waproto 0.7) into its owned types.
#[cfg(feature = "buffa")]
pub fn buffa_owned(s: &Sample) -> usize {
    let b = s.bytes.as_slice();
    match s.root {
        Root::SyncActionData => black_box(bw::SyncActionData::decode_from_slice(b).unwrap())
            .version
            .unwrap_or(0) as usize,
        Root::Message => black_box(bw::Message::decode_from_slice(b).unwrap())
            .conversation
            .as_ref()
            .map_or(0, |c| c.len()),
        Root::HistorySync => black_box(bw::HistorySync::decode_from_slice(b).unwrap())
            .conversations
            .len(),
    }
}

/// buffa (waproto 0.7) into its borrowed views.
#[cfg(feature = "buffa")]
pub fn buffa_view(s: &Sample) -> usize {
    let b = s.bytes.as_slice();
    match s.root {
        Root::SyncActionData => black_box(bw::SyncActionDataView::decode_view(b).unwrap())
            .version
            .unwrap_or(0) as usize,
        Root::Message => black_box(bw::MessageView::decode_view(b).unwrap())
            .conversation
            .map_or(0, |c| c.len()),
        Root::HistorySync => black_box(bw::HistorySyncView::decode_view(b).unwrap())
            .conversations
            .len(),
    }
}

/// quarry's generated views into `arena`.
pub fn quarry(arena: &Arena, s: &Sample) -> usize {
    let b = s.bytes.as_slice();
    match s.root {
        Root::SyncActionData => {
            black_box(wa::SyncActionDataView::decode(arena, b).unwrap()).version() as usize
        }
        Root::Message => black_box(wa::MessageView::decode(arena, b).unwrap())
            .conversation()
            .len(),
        Root::HistorySync => black_box(wa::HistorySyncView::decode(arena, b).unwrap())
            .conversations()
            .len(),
    }
}

/// quarry into a fresh arena sized by the decoder's estimate
/// (`quarry_proto::arena_for`, one heap allocation), dropped after.
pub fn quarry_fresh(s: &Sample) -> usize {
    let arena = quarry_proto::arena_for(&s.bytes);
    quarry(&arena, s)
}

/// quarry into a reused arena, reset after.
pub fn quarry_reused(arena: &mut Arena, s: &Sample) -> usize {
    let n = quarry(arena, s);
    arena.reset();
    n
}

/// One sample as each encoder holds it in memory, decoded once and kept for
/// the whole process: what the encode benches encode.
pub struct Encodable {
    prost: Roots<pb::whatsapp::SyncActionData, pb::whatsapp::Message, pb::whatsapp::HistorySync>,
    #[cfg(feature = "buffa")]
    buffa: Roots<bw::SyncActionData, bw::Message, bw::HistorySync>,
    quarry: Roots<
        wa::SyncActionDataView<'static>,
        wa::MessageView<'static>,
        wa::HistorySyncView<'static>,
    >,
}

/// A decoded sample of one of the three root types.
enum Roots<S, M, H> {
    SyncActionData(S),
    Message(M),
    HistorySync(H),
}

impl Encodable {
    fn of(s: &Sample) -> Self {
        let b = s.bytes.as_slice();
        // The views borrow from the arena and the input: both live as long
        // as the process.
        let arena: &'static Arena = Box::leak(Box::new(Arena::new()));
        let input: &'static [u8] = Box::leak(b.to_vec().into_boxed_slice());
        match s.root {
            Root::SyncActionData => Self {
                prost: Roots::SyncActionData(pb::whatsapp::SyncActionData::decode(b).unwrap()),
                #[cfg(feature = "buffa")]
                buffa: Roots::SyncActionData(bw::SyncActionData::decode_from_slice(b).unwrap()),
                quarry: Roots::SyncActionData(
                    wa::SyncActionDataView::decode(arena, input).unwrap(),
                ),
            },
            Root::Message => Self {
                prost: Roots::Message(pb::whatsapp::Message::decode(b).unwrap()),
                #[cfg(feature = "buffa")]
                buffa: Roots::Message(bw::Message::decode_from_slice(b).unwrap()),
                quarry: Roots::Message(wa::MessageView::decode(arena, input).unwrap()),
            },
            Root::HistorySync => Self {
                prost: Roots::HistorySync(pb::whatsapp::HistorySync::decode(b).unwrap()),
                #[cfg(feature = "buffa")]
                buffa: Roots::HistorySync(bw::HistorySync::decode_from_slice(b).unwrap()),
                quarry: Roots::HistorySync(wa::HistorySyncView::decode(arena, input).unwrap()),
            },
        }
    }
}

/// Sample `s` decoded by each side (built on first use, then kept).
pub fn encodable(s: &Sample) -> &'static Encodable {
    static E: OnceLock<Vec<Encodable>> = OnceLock::new();
    let all = E.get_or_init(|| samples().iter().map(Encodable::of).collect());
    let at = samples()
        .iter()
        .position(|x| x.name == s.name)
        .expect("known sample");
    &all[at]
}

/// Drop `bytes` where the optimiser cannot see it and return its length.
fn consume(bytes: Vec<u8>) -> usize {
    let n = bytes.len();
    drop(black_box(bytes));
    n
}

/// prost 0.14: `encode_to_vec` of its owned message, plus drop.
pub fn prost_encode(e: &Encodable) -> usize {
    consume(match &e.prost {
        Roots::SyncActionData(m) => m.encode_to_vec(),
        Roots::Message(m) => m.encode_to_vec(),
        Roots::HistorySync(m) => m.encode_to_vec(),
    })
}

/// buffa (waproto 0.7): `encode_to_vec` of its owned message, plus drop.
#[cfg(feature = "buffa")]
pub fn buffa_encode(e: &Encodable) -> usize {
    consume(match &e.buffa {
        Roots::SyncActionData(m) => buffa::Message::encode_to_vec(m),
        Roots::Message(m) => buffa::Message::encode_to_vec(m),
        Roots::HistorySync(m) => buffa::Message::encode_to_vec(m),
    })
}

/// quarry: `encode` of the generated view (re-encode from the arena,
/// exact size, one allocation), plus drop.
pub fn quarry_encode(e: &Encodable) -> usize {
    consume(
        match e.quarry {
            Roots::SyncActionData(v) => v.encode(),
            Roots::Message(v) => v.encode(),
            Roots::HistorySync(v) => v.encode(),
        }
        .expect("a decoded sample encodes"),
    )
}

/// The map inputs: `All3` (test3.proto) with 1,000 `m_str` entries
/// (`map<string, string>`, keys `key00000`… and 8-byte values), written
/// one entry after another in a fixed scrambled order (no hash order, so
/// every run reads the same bytes): `unique` with 1,000 keys, `dup` with
/// 500 keys written twice each (the later entry wins).
pub struct MapInput {
    pub name: &'static str,
    pub bytes: Vec<u8>,
    /// Keys [`quarry_map_get`] and [`prost_map_get`] look up: 100 spread
    /// over the map, every tenth absent.
    pub probes: Vec<String>,
}

/// Entries in a map input.
pub const MAP_ENTRIES: usize = 1000;
/// Look-ups per [`quarry_map_get`] and [`prost_map_get`] call.
pub const MAP_PROBES: usize = 100;

/// The map inputs, built once.
pub fn map_inputs() -> &'static [MapInput] {
    static M: OnceLock<Vec<MapInput>> = OnceLock::new();
    M.get_or_init(|| {
        let build = |name: &'static str, keys: usize| {
            let mut bytes = Vec::new();
            for i in 0..MAP_ENTRIES {
                // 7919 is prime to 1,000: a permutation of 0..1000.
                let k = (i * 7919 % MAP_ENTRIES) % keys;
                let entry = pb::test3::All3 {
                    m_str: std::collections::HashMap::from([(
                        format!("key{k:05}"),
                        format!("val{i:05}"),
                    )]),
                    ..Default::default()
                };
                bytes.extend(entry.encode_to_vec());
            }
            let probes = (0..MAP_PROBES)
                .map(|p| {
                    let k = p * 37 % keys;
                    if p % 10 == 9 {
                        format!("nokey{k:05}")
                    } else {
                        format!("key{k:05}")
                    }
                })
                .collect();
            MapInput {
                name,
                bytes,
                probes,
            }
        };
        vec![build("unique", MAP_ENTRIES), build("dup", MAP_ENTRIES / 2)]
    })
}

/// The map input named `name`.
pub fn map_input(name: &str) -> &'static MapInput {
    map_inputs()
        .iter()
        .find(|m| m.name == name)
        .expect("known map input")
}

/// prost: decode into its `HashMap`, then drop.
pub fn prost_map_decode(m: &MapInput) -> usize {
    black_box(pb::test3::All3::decode(m.bytes.as_slice()).unwrap())
        .m_str
        .len()
}

/// prost: decode, then iterate the map once.
pub fn prost_map_iter(m: &MapInput) -> usize {
    let msg = pb::test3::All3::decode(m.bytes.as_slice()).unwrap();
    msg.m_str.iter().map(|(k, v)| k.len() ^ v.len()).sum()
}

/// prost: decode, then look up every probe.
pub fn prost_map_get(m: &MapInput) -> usize {
    let msg = pb::test3::All3::decode(m.bytes.as_slice()).unwrap();
    m.probes
        .iter()
        .map(|p| msg.m_str.get(black_box(p.as_str())).map_or(0, String::len))
        .sum()
}

/// quarry: decode into a reused arena, then reset.
pub fn quarry_map_decode(arena: &mut Arena, m: &MapInput) -> usize {
    let n = views::quarry::test3::All3View::decode(arena, &m.bytes)
        .unwrap()
        .m_str()
        .len();
    arena.reset();
    black_box(n)
}

/// quarry: decode into a reused arena, iterate the map once, reset.
pub fn quarry_map_iter(arena: &mut Arena, m: &MapInput) -> usize {
    let v = views::quarry::test3::All3View::decode(arena, &m.bytes).unwrap();
    let n = v.m_str().map(|(k, v)| k.len() ^ v.len()).sum();
    arena.reset();
    n
}

/// quarry: decode into a reused arena, look up every probe, reset.
pub fn quarry_map_get(arena: &mut Arena, m: &MapInput) -> usize {
    let v = views::quarry::test3::All3View::decode(arena, &m.bytes).unwrap();
    let map = v.m_str();
    let n = m
        .probes
        .iter()
        .map(|p| map.get(black_box(p.as_str())).map_or(0, str::len))
        .sum();
    arena.reset();
    n
}

/// The values the build benches build the samples from
/// (`quarry_proto_tests::sends`, with the 50 × 20 history sync), made once.
pub fn send_source() -> &'static Source {
    static S: OnceLock<Source> = OnceLock::new();
    S.get_or_init(|| Source::new(50, 20))
}

/// prost 0.14: build sample `name` from the source values with its owned
/// types (a copy of every string and byte field), `encode_to_vec`, drop.
pub fn prost_build_encode(name: &str) -> usize {
    consume(sends::prost_encode(name, send_source()))
}

/// quarry: build sample `name` with the generated builders into `arena`
/// (strings and bytes borrowed from the source), `encode`, drop the bytes
/// and reset the arena.
pub fn quarry_build_encode(arena: &mut Arena, name: &str) -> usize {
    let n = consume(sends::quarry_encode(name, arena, send_source()));
    arena.reset();
    n
}

/// An arena that built sample `name` before and holds what a build of it
/// takes in one chunk: what [`quarry_build_encode`] reuses.
pub fn build_arena(name: &str) -> Arena {
    let mut arena = Arena::new();
    drop(sends::quarry_encode(name, &arena, send_source()));
    let held = arena.stats().allocated_bytes;
    arena.reset();
    arena.reserve(held);
    quarry_build_encode(&mut arena, name);
    arena
}

/// buffa (waproto 0.7): build sample `name` from the source values with
/// its owned types (a copy of every string and byte field),
/// `encode_to_vec`, drop.
#[cfg(feature = "buffa")]
pub fn buffa_build_encode(name: &str) -> usize {
    consume(buffa_build_bytes(name))
}

/// buffa's build and encode of sample `name`, the bytes kept.
#[cfg(feature = "buffa")]
pub fn buffa_build_bytes(name: &str) -> Vec<u8> {
    let src = send_source();
    match name {
        "contact" | "star" => buffa::Message::encode_to_vec(&buffa_sync_action(name == "star")),
        "text_reply" | "text_reply_quoted" => {
            buffa::Message::encode_to_vec(&buffa_text_reply(name == "text_reply_quoted"))
        }
        "group_skdm" => buffa::Message::encode_to_vec(&buffa_group_skdm(src)),
        _ => buffa::Message::encode_to_vec(&buffa_history(src)),
    }
}

#[cfg(feature = "buffa")]
fn buffa_sync_action(star: bool) -> bw::SyncActionData {
    use bw::sync_action_value as sav;
    let value = if star {
        bw::SyncActionValue {
            timestamp: Some(1_717_000_000_123),
            star_action: MessageField::some(sav::StarAction {
                starred: Some(true),
            }),
            ..Default::default()
        }
    } else {
        bw::SyncActionValue {
            timestamp: Some(1_717_000_000_000),
            contact_action: MessageField::some(sav::ContactAction {
                full_name: Some(sends::FULL_NAME.to_owned()),
                first_name: Some(sends::FIRST_NAME.to_owned()),
                lid_jid: Some(sends::LID_JID.to_owned()),
                save_on_primary_addressbook: Some(true),
                ..Default::default()
            }),
            ..Default::default()
        }
    };
    let (index, padding) = if star {
        (sends::STAR_INDEX, vec![0u8; 7])
    } else {
        (sends::CONTACT_INDEX, Vec::new())
    };
    bw::SyncActionData {
        index: Some(index.as_bytes().to_vec()),
        value: MessageField::some(value),
        padding: Some(padding),
        version: Some(2),
    }
}

#[cfg(feature = "buffa")]
fn buffa_text_reply(quoted: bool) -> bw::Message {
    let quoted = if quoted {
        MessageField::some(bw::Message {
            conversation: Some(sends::QUOTED_TEXT.to_owned()),
            ..Default::default()
        })
    } else {
        MessageField::none()
    };
    let text = if quoted.is_set() {
        sends::QUOTED_REPLY_TEXT
    } else {
        sends::REPLY_TEXT
    };
    bw::Message {
        extended_text_message: MessageField::some(bw::message::ExtendedTextMessage {
            text: Some(text.to_owned()),
            context_info: MessageField::some(bw::ContextInfo {
                stanza_id: Some(sends::STANZA_ID.to_owned()),
                participant: Some(sends::PARTICIPANT.to_owned()),
                quoted_message: quoted,
                ..Default::default()
            }),
            ..Default::default()
        }),
        ..Default::default()
    }
}

#[cfg(feature = "buffa")]
fn buffa_group_skdm(src: &Source) -> bw::Message {
    bw::Message {
        conversation: Some(sends::GROUP_TEXT.to_owned()),
        sender_key_distribution_message: MessageField::some(
            bw::message::SenderKeyDistributionMessage {
                group_id: Some(sends::GROUP_ID.to_owned()),
                axolotl_sender_key_distribution_message: Some(src.skdm.clone()),
            },
        ),
        message_context_info: MessageField::some(bw::MessageContextInfo {
            message_secret: Some(src.secret.clone()),
            ..Default::default()
        }),
        ..Default::default()
    }
}

#[cfg(feature = "buffa")]
fn buffa_history(src: &Source) -> bw::HistorySync {
    bw::HistorySync {
        sync_type: bw::history_sync::HistorySyncType::RECENT,
        conversations: src
            .history
            .iter()
            .map(|c| bw::Conversation {
                id: c.id.clone(),
                unread_count: Some(c.unread),
                conversation_timestamp: Some(c.timestamp),
                name: Some(c.name.clone()),
                messages: c
                    .messages
                    .iter()
                    .map(|m| bw::HistorySyncMsg {
                        message: MessageField::some(bw::WebMessageInfo {
                            key: MessageField::some(bw::MessageKey {
                                remote_jid: Some(c.id.clone()),
                                from_me: Some(m.from_me),
                                id: Some(m.id.clone()),
                                ..Default::default()
                            }),
                            message: MessageField::some(bw::Message {
                                conversation: Some(m.text.clone()),
                                ..Default::default()
                            }),
                            message_timestamp: Some(m.timestamp),
                            status: Some(bw::web_message_info::Status::DELIVERY_ACK),
                            ..Default::default()
                        }),
                        msg_order_id: Some(m.order),
                    })
                    .collect(),
                ..Default::default()
            })
            .collect(),
        chunk_order: Some(1),
        progress: Some(100),
        ..Default::default()
    }
}
