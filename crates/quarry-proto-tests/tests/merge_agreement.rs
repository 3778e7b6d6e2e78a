//! Agreement with prost 0.14 on input no canonical encoder writes, at
//! every depth: random messages of `quarry.test2.All2` (proto2: closed
//! enums, groups), `quarry.test3.All3` (proto3) and WhatsApp's `Message`,
//! `SyncActionData` and `HistorySync` (proto2), built from the
//! descriptors as sequences of prost-encoded fields that carry, in the
//! root, in nested messages several levels down, in repeated message
//! elements and in map values:
//!
//! - unknown fields of every wire type, groups (holding fields and groups)
//!   included;
//! - unlisted values of closed enums: singular, repeated unpacked, inside
//!   packed runs, and as map values (after a listed one, or before it);
//! - a singular message (or group) field written several times, which
//!   protobuf merges;
//! - runs of members of one oneof, among them a message member, another
//!   member, then the message member again;
//! - packed and unpacked runs of one repeated field, mixed;
//! - rarely, a malformed field (a length past the end, a truncated varint,
//!   invalid UTF-8, a mismatched end-group tag), so that the verdicts are
//!   compared too.
//!
//! Each input comes with a reference: the same bytes with every unlisted
//! closed-enum value left out (a packed run keeps its listed values, a map
//! entry whose last value is unlisted is left out whole). protobuf keeps
//! such a value as an unknown field and leaves the field as it was, which
//! is what quarry does; prost stores the number in the field instead
//! (docs/protobuf.md, "Closed enums"). prost's decode of the reference is
//! therefore protobuf's value of the input's known fields, with prost as
//! the independent decoder, and the documented difference needs no
//! exemption: a decoder that stores an unlisted value fails the value
//! check. The properties hold:
//!
//! 1. quarry accepts the input exactly when prost does;
//! 2. `to_prost()` of quarry's view equals prost's decode of the
//!    reference;
//! 3. quarry's re-encoding, decoded by prost-reflect (which keeps unknown
//!    fields, grouped by number and in input order within a number) under
//!    a copy of the schema without the closed-enum fields, equals
//!    prost-reflect's decode of the input under that copy: the same
//!    known fields, the same unknown fields in the same order per number
//!    at every depth, and the same unlisted values kept, in order, per
//!    closed-enum field (listed values of those fields are left out of
//!    this comparison: (2) checks them; the re-encoding writes them in
//!    field order, the input anywhere). The generator gives nearly all
//!    unknown fields of one message type one number, so their order is
//!    checked;
//! 4. quarry reads the reference as prost does, and its re-encoding of
//!    the reference decodes with prost to that value. (The input's
//!    re-encoding holds the unlisted values as unknown fields after the
//!    known ones, and prost stores those in the fields, so it is the
//!    reference's re-encoding that prost can read back to its value.)
//! 5. quarry's JSON of the input is prost-reflect's canonical JSON of the
//!    reference read under the full schema (unknown fields have no JSON
//!    form, and protobuf keeps an unlisted closed-enum value as one), up
//!    to how the two print the same number.

mod common;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::LazyLock;

use proptest::prelude::*;
use prost::Message as _;
use prost::encoding::{WireType, decode_varint, encode_key, encode_varint};
use prost_reflect::prost_types::{DescriptorProto, FileDescriptorSet};
use prost_reflect::{
    DescriptorPool, DynamicMessage, EnumDescriptor, FieldDescriptor, Kind, MessageDescriptor,
    ReflectMessage, Syntax, Value,
};
use quarry_core::Arena;
use quarry_proto_tests::{pb, views, wa};

/// A small deterministic generator (splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Part of an input, and of its reference (the input without closed
/// enums' unlisted values).
enum Piece {
    /// Bytes of the input, and what stands for them in the reference.
    Raw { input: Vec<u8>, reference: Vec<u8> },
    /// A length-delimited field (`key`, the length, the body).
    Delimited { key: Vec<u8>, body: Vec<Piece> },
    /// A group: its start tag, the body, its end tag.
    Group { number: u32, body: Vec<Piece> },
}

impl Piece {
    /// The same bytes in the input and in the reference.
    fn same(bytes: Vec<u8>) -> Self {
        Piece::Raw {
            reference: bytes.clone(),
            input: bytes,
        }
    }

    /// Bytes of the input that the reference leaves out.
    fn input_only(bytes: Vec<u8>) -> Self {
        Piece::Raw {
            input: bytes,
            reference: Vec::new(),
        }
    }
}

/// Writes `pieces` into the input and into the reference.
fn render(pieces: &[Piece], input: &mut Vec<u8>, reference: &mut Vec<u8>) {
    for piece in pieces {
        match piece {
            Piece::Raw {
                input: i,
                reference: r,
            } => {
                input.extend_from_slice(i);
                reference.extend_from_slice(r);
            }
            Piece::Delimited { key, body } => {
                let (mut i, mut r) = (Vec::new(), Vec::new());
                render(body, &mut i, &mut r);
                for (out, body) in [(&mut *input, i), (&mut *reference, r)] {
                    out.extend_from_slice(key);
                    encode_varint(body.len() as u64, out);
                    out.extend(body);
                }
            }
            Piece::Group { number, body } => {
                encode_key(*number, WireType::StartGroup, input);
                encode_key(*number, WireType::StartGroup, reference);
                render(body, input, reference);
                encode_key(*number, WireType::EndGroup, input);
                encode_key(*number, WireType::EndGroup, reference);
            }
        }
    }
}

fn key(number: u32, wire_type: WireType) -> Vec<u8> {
    let mut out = Vec::new();
    encode_key(number, wire_type, &mut out);
    out
}

fn varint(value: u64) -> Vec<u8> {
    let mut out = Vec::new();
    encode_varint(value, &mut out);
    out
}

/// Whether values `e` does not list are unknown fields (proto2) rather
/// than values of the field (proto3).
fn closed(e: &EnumDescriptor) -> bool {
    e.parent_file().syntax() == Syntax::Proto2
}

/// `field`'s closed enum, where an unlisted value may be generated for
/// it: oneof members are left out (an unlisted value does not displace
/// the oneof's member in protobuf, and the reference would have to say
/// which member it displaces in prost).
fn closed_enum(field: &FieldDescriptor) -> Option<EnumDescriptor> {
    match field.kind() {
        Kind::Enum(e) if closed(&e) && field.containing_oneof().is_none() => Some(e),
        _ => None,
    }
}

/// Builds the pieces of random messages of one schema.
struct Mix {
    rng: Rng,
    /// Deepest level of nested messages (the root is 0).
    max_depth: u32,
    /// Chance, in tenths of a percent, that a field is malformed.
    junk_permille: usize,
    /// Whether a malformed field was written.
    junked: bool,
}

impl Mix {
    /// A random message of type `desc`: its input and its reference.
    fn message(&mut self, desc: &MessageDescriptor) -> (Vec<u8>, Vec<u8>) {
        let body = self.body(desc, 0);
        let (mut input, mut reference) = (Vec::new(), Vec::new());
        render(&body, &mut input, &mut reference);
        (input, reference)
    }

    /// The fields of one message of type `desc`, `depth` levels below the
    /// root.
    fn body(&mut self, desc: &MessageDescriptor, depth: u32) -> Vec<Piece> {
        let nested: Vec<FieldDescriptor> = desc
            .fields()
            .filter(|f| plain(f) && matches!(f.kind(), Kind::Message(_)))
            .collect();
        let scalars: Vec<FieldDescriptor> = desc
            .fields()
            .filter(|f| plain(f) && !matches!(f.kind(), Kind::Message(_)))
            .collect();
        let oneofs: Vec<_> = desc.oneofs().filter(|o| !o.is_synthetic()).collect();
        let deeper = depth < self.max_depth;
        let rounds = match depth {
            0 => 3 + self.rng.below(6),
            1 => 1 + self.rng.below(5),
            _ => self.rng.below(4),
        };
        let mut out = Vec::new();
        for _ in 0..rounds {
            if self.rng.below(1000) < self.junk_permille {
                let junk = self.junk(desc);
                self.junked = true;
                insert(&mut self.rng, &mut out, vec![junk]);
                continue;
            }
            let roll = self.rng.below(100);
            let pieces = if roll < 40 && deeper && !nested.is_empty() {
                let field = self.rng.pick(&nested).clone();
                self.nested_field(&field, depth)
            } else if roll < 55 && !oneofs.is_empty() {
                let oneof = self.rng.pick(&oneofs).clone();
                let members: Vec<FieldDescriptor> = oneof
                    .fields()
                    .filter(|f| deeper || !matches!(f.kind(), Kind::Message(_)))
                    .collect();
                if members.is_empty() {
                    continue;
                }
                // Keep the run in order: which member wins depends on it.
                let run = self.oneof_run(&members, depth);
                let mut at = 0;
                for piece in run {
                    at += self.rng.below(out.len() + 1 - at);
                    out.insert(at, piece);
                    at += 1;
                }
                continue;
            } else if roll < 80 && !scalars.is_empty() {
                let field = self.rng.pick(&scalars).clone();
                self.scalar_field(&field)
            } else {
                vec![self.unknown(desc, depth)]
            };
            insert(&mut self.rng, &mut out, pieces);
        }
        out
    }

    /// One message field: a singular one once or several times, a repeated
    /// one's elements, a map's entries.
    fn nested_field(&mut self, field: &FieldDescriptor, depth: u32) -> Vec<Piece> {
        let Kind::Message(sub) = field.kind() else {
            unreachable!("a message field")
        };
        if field.is_map() {
            return (0..1 + self.rng.below(3))
                .map(|_| self.map_entry(field, &sub, depth))
                .collect();
        }
        let times = if field.is_list() || self.rng.chance(60) {
            1 + self.rng.below(3)
        } else {
            1
        };
        (0..times)
            .map(|_| self.message_value(field, &sub, depth))
            .collect()
    }

    /// One occurrence of message field `field` (of type `sub`): length
    /// delimited or a group.
    fn message_value(
        &mut self,
        field: &FieldDescriptor,
        sub: &MessageDescriptor,
        depth: u32,
    ) -> Piece {
        let body = self.body(sub, depth + 1);
        if field.is_group() {
            Piece::Group {
                number: field.number(),
                body,
            }
        } else {
            Piece::Delimited {
                key: key(field.number(), WireType::LengthDelimited),
                body,
            }
        }
    }

    /// A map entry: key and value in order, either sometimes missing or
    /// written twice. An entry whose value is a closed enum and whose last
    /// value is unlisted is left out of the reference whole.
    fn map_entry(
        &mut self,
        field: &FieldDescriptor,
        entry: &MessageDescriptor,
        depth: u32,
    ) -> Piece {
        let (kf, vf) = (entry.map_entry_key_field(), entry.map_entry_value_field());
        let mut body = Vec::new();
        if !self.rng.chance(10) {
            // Keys from a few values, so that they repeat.
            let mut k = key(1, wire_type(&kf.kind()));
            k.extend(match kf.kind() {
                Kind::String => {
                    let s = *self.rng.pick(&["a", "b", ""]);
                    [varint(s.len() as u64), s.as_bytes().to_vec()].concat()
                }
                Kind::Bool => varint(self.rng.below(2) as u64),
                Kind::Fixed32 | Kind::Sfixed32 => (self.rng.below(3) as u32).to_le_bytes().to_vec(),
                Kind::Fixed64 | Kind::Sfixed64 => (self.rng.below(3) as u64).to_le_bytes().to_vec(),
                _ => varint(self.rng.below(3) as u64),
            });
            body.push(Piece::same(k));
        }
        let values = match self.rng.below(10) {
            0 => 0,
            1 | 2 => 2,
            _ => 1,
        };
        if let Some(e) = closed_enum(&vf) {
            let mut last_unlisted = false;
            let mut bytes = Vec::new();
            for piece in &body {
                if let Piece::Raw { input, .. } = piece {
                    bytes.extend_from_slice(input);
                }
            }
            for _ in 0..values {
                last_unlisted = self.rng.chance(40);
                bytes.extend(key(2, WireType::Varint));
                bytes.extend(varint(self.enum_number(&e, last_unlisted) as i64 as u64));
            }
            let mut whole = key(field.number(), WireType::LengthDelimited);
            whole.extend(varint(bytes.len() as u64));
            whole.extend(bytes);
            return if last_unlisted {
                Piece::input_only(whole)
            } else {
                Piece::same(whole)
            };
        }
        for _ in 0..values {
            match vf.kind() {
                Kind::Message(sub) => body.push(Piece::Delimited {
                    key: key(2, WireType::LengthDelimited),
                    body: self.body(&sub, depth + 1),
                }),
                kind => {
                    let mut v = key(2, wire_type(&kind));
                    v.extend(self.value(&kind));
                    body.push(Piece::same(v));
                }
            }
        }
        Piece::Delimited {
            key: key(field.number(), WireType::LengthDelimited),
            body,
        }
    }

    /// A run of members of one oneof: often a message member, another
    /// member, and the message member again.
    fn oneof_run(&mut self, members: &[FieldDescriptor], depth: u32) -> Vec<Piece> {
        let message = members
            .iter()
            .find(|f| matches!(f.kind(), Kind::Message(_)))
            .cloned();
        let order: Vec<FieldDescriptor> = match message {
            Some(m) if members.len() > 1 && self.rng.chance(60) => {
                let others: Vec<_> = members.iter().filter(|f| **f != m).cloned().collect();
                let other = self.rng.pick(&others).clone();
                let mut order = vec![m.clone(), other, m.clone()];
                if self.rng.chance(30) {
                    order.push(m);
                }
                order
            }
            _ => (0..1 + self.rng.below(4))
                .map(|_| self.rng.pick(members).clone())
                .collect(),
        };
        order
            .iter()
            .map(|f| match f.kind() {
                Kind::Message(sub) => self.message_value(f, &sub, depth),
                kind => {
                    let mut bytes = key(f.number(), wire_type(&kind));
                    bytes.extend(self.value(&kind));
                    Piece::same(bytes)
                }
            })
            .collect()
    }

    /// A scalar, string, bytes or enum field: a singular one once or twice
    /// (the last wins), a repeated one as unpacked elements or a packed
    /// run, whatever the schema declares. A closed enum's values are
    /// sometimes unlisted.
    fn scalar_field(&mut self, field: &FieldDescriptor) -> Vec<Piece> {
        let kind = field.kind();
        let e = closed_enum(field);
        let packable = !matches!(kind, Kind::String | Kind::Bytes);
        if field.is_list() && packable && self.rng.chance(50) {
            let (mut input, mut reference) = (Vec::new(), Vec::new());
            for _ in 0..self.rng.below(5) {
                match &e {
                    Some(e) => {
                        let unlisted = self.rng.chance(35);
                        let v = varint(self.enum_number(e, unlisted) as i64 as u64);
                        if !unlisted {
                            reference.extend_from_slice(&v);
                        }
                        input.extend(v);
                    }
                    None => {
                        let v = self.value(&kind);
                        reference.extend_from_slice(&v);
                        input.extend(v);
                    }
                }
            }
            let k = key(field.number(), WireType::LengthDelimited);
            let run = |body: Vec<u8>| [k.clone(), varint(body.len() as u64), body].concat();
            return vec![Piece::Raw {
                input: run(input),
                reference: run(reference),
            }];
        }
        let times = if field.is_list() {
            1 + self.rng.below(3)
        } else if self.rng.chance(25) {
            2
        } else {
            1
        };
        (0..times)
            .map(|_| {
                let mut bytes = key(field.number(), wire_type(&kind));
                match &e {
                    Some(e) => {
                        let unlisted = self.rng.chance(35);
                        bytes.extend(varint(self.enum_number(e, unlisted) as i64 as u64));
                        if unlisted {
                            return Piece::input_only(bytes);
                        }
                    }
                    None => bytes.extend(self.value(&kind)),
                }
                Piece::same(bytes)
            })
            .collect()
    }

    /// The encoded value (without its tag) of a non-message field.
    fn value(&mut self, kind: &Kind) -> Vec<u8> {
        const INTS: [i64; 7] = [0, 1, -1, 150, i32::MAX as i64, i32::MIN as i64, i64::MIN];
        let int = *self.rng.pick(&INTS);
        let float = *self
            .rng
            .pick(&[0.0, -0.0, 1.5, -2.25e-7, 1e300, f64::INFINITY]);
        match kind {
            Kind::Double => float.to_bits().to_le_bytes().to_vec(),
            Kind::Float => (float as f32).to_bits().to_le_bytes().to_vec(),
            Kind::Int32 => varint(int as i32 as i64 as u64),
            Kind::Int64 => varint(int as u64),
            Kind::Uint32 => varint(u64::from(int as u32)),
            Kind::Uint64 => varint(int as u64),
            Kind::Sint32 => {
                let v = int as i32;
                varint(u64::from(((v << 1) ^ (v >> 31)) as u32))
            }
            Kind::Sint64 => varint(((int << 1) ^ (int >> 63)) as u64),
            Kind::Fixed32 | Kind::Sfixed32 => (int as i32).to_le_bytes().to_vec(),
            Kind::Fixed64 | Kind::Sfixed64 => int.to_le_bytes().to_vec(),
            Kind::Bool => varint(self.rng.below(2) as u64),
            Kind::String => {
                let s = *self.rng.pick(&["", "a", "é🦀", "日本語", "x\ny"]);
                [varint(s.len() as u64), s.as_bytes().to_vec()].concat()
            }
            Kind::Bytes => {
                let b: Vec<u8> = (0..self.rng.below(6))
                    .map(|_| self.rng.next() as u8)
                    .collect();
                [varint(b.len() as u64), b].concat()
            }
            Kind::Enum(e) => {
                let listed = e.values().map(|v| v.number()).collect::<Vec<_>>();
                let n = if !closed(e) && self.rng.chance(20) {
                    99
                } else {
                    *self.rng.pick(&listed)
                };
                varint(n as i64 as u64)
            }
            Kind::Message(_) => unreachable!("messages are pieces"),
        }
    }

    /// A number `e` lists, or one it does not.
    fn enum_number(&mut self, e: &EnumDescriptor, unlisted: bool) -> i32 {
        let listed: Vec<i32> = e.values().map(|v| v.number()).collect();
        if unlisted {
            let others: Vec<i32> = [0, 4, 99, 1000, -1, i32::MAX]
                .into_iter()
                .filter(|n| !listed.contains(n))
                .collect();
            *self.rng.pick(&others)
        } else {
            *self.rng.pick(&listed)
        }
    }

    /// An unknown field of `desc`: nearly always of one number per message
    /// type (so that their order is checked, see the module's doc), of any
    /// wire type; a group holds fields and sometimes a group.
    fn unknown(&mut self, desc: &MessageDescriptor, depth: u32) -> Piece {
        let [first, second] = unknown_numbers(desc);
        let number = if self.rng.chance(85) { first } else { second };
        self.unknown_numbered(number, depth)
    }

    fn unknown_numbered(&mut self, number: u32, depth: u32) -> Piece {
        match self.rng.below(5) {
            0 => {
                let v = *self.rng.pick(&[0, 1, 300, u64::MAX]);
                Piece::same([key(number, WireType::Varint), varint(v)].concat())
            }
            1 => {
                let mut bytes = key(number, WireType::SixtyFourBit);
                bytes.extend(self.rng.next().to_le_bytes());
                Piece::same(bytes)
            }
            2 => {
                let mut bytes = key(number, WireType::ThirtyTwoBit);
                bytes.extend((self.rng.next() as u32).to_le_bytes());
                Piece::same(bytes)
            }
            3 => {
                let body: Vec<u8> = (0..self.rng.below(5))
                    .map(|_| self.rng.next() as u8)
                    .collect();
                Piece::same(
                    [
                        key(number, WireType::LengthDelimited),
                        varint(body.len() as u64),
                        body,
                    ]
                    .concat(),
                )
            }
            _ => {
                let body = (0..self.rng.below(3))
                    .map(|_| {
                        let inner = 1 + self.rng.below(20) as u32;
                        if depth < 2 && self.rng.chance(30) {
                            self.unknown_numbered(inner, depth + 1)
                        } else {
                            Piece::same([key(inner, WireType::Varint), varint(7)].concat())
                        }
                    })
                    .collect();
                Piece::Group { number, body }
            }
        }
    }

    /// A malformed field.
    fn junk(&mut self, desc: &MessageDescriptor) -> Piece {
        let [number, _] = unknown_numbers(desc);
        let string = desc
            .fields()
            .find(|f| f.kind() == Kind::String && !f.is_map());
        let bytes = match self.rng.below(4) {
            // A length past the end of the message.
            0 => [key(number, WireType::LengthDelimited), varint(100)].concat(),
            // A group closed by another number.
            1 => [
                key(number, WireType::StartGroup),
                key(number + 1, WireType::EndGroup),
            ]
            .concat(),
            // A varint whose last byte has its continuation bit set (the
            // next field's tag reads as its continuation, or the message
            // ends inside it).
            2 => [key(number, WireType::Varint), vec![0xFF; 10]].concat(),
            // Invalid UTF-8 in a string field (a wrong wire type where
            // the message has none).
            _ => match string {
                Some(f) => [
                    key(f.number(), WireType::LengthDelimited),
                    vec![2, 0xC3, 0x28],
                ]
                .concat(),
                None => match desc.fields().next() {
                    Some(f) if !matches!(f.kind(), Kind::Message(_)) => {
                        let wrong = if wire_type(&f.kind()) == WireType::ThirtyTwoBit {
                            WireType::SixtyFourBit
                        } else {
                            WireType::ThirtyTwoBit
                        };
                        [key(f.number(), wrong), vec![0; 8]].concat()
                    }
                    _ => vec![0x80],
                },
            },
        };
        Piece::same(bytes)
    }
}

/// A field outside any (non-synthetic) oneof.
fn plain(field: &FieldDescriptor) -> bool {
    field.containing_oneof().is_none_or(|o| o.is_synthetic())
}

/// `pieces` inserted at random places of `out`, in order.
fn insert(rng: &mut Rng, out: &mut Vec<Piece>, pieces: Vec<Piece>) {
    for piece in pieces {
        let at = rng.below(out.len() + 1);
        out.insert(at, piece);
    }
}

/// The wire type of an unpacked value of `kind`.
fn wire_type(kind: &Kind) -> WireType {
    match kind {
        Kind::Double | Kind::Fixed64 | Kind::Sfixed64 => WireType::SixtyFourBit,
        Kind::Float | Kind::Fixed32 | Kind::Sfixed32 => WireType::ThirtyTwoBit,
        Kind::String | Kind::Bytes | Kind::Message(_) => WireType::LengthDelimited,
        _ => WireType::Varint,
    }
}

/// Two numbers `desc` declares no field (nor extension) for: the first of
/// a one-byte tag where there is one, the second of a five-byte tag.
fn unknown_numbers(desc: &MessageDescriptor) -> [u32; 2] {
    let used: HashSet<u32> = desc
        .fields()
        .map(|f| f.number())
        .chain(desc.extensions().map(|e| e.number()))
        .collect();
    let free = |candidates: &[u32]| {
        *candidates
            .iter()
            .find(|n| !used.contains(n))
            .expect("a free number")
    };
    [
        free(&[15, 14, 13, 12, 11, 10, 999, 1999, 19999]),
        free(&[536_870_910, 536_870_909, 400_000_000]),
    ]
}

/// What is known of a schema's closed-enum fields: the values each lists,
/// per (message, field number), and how the field holds them.
#[derive(Default)]
struct ClosedFields(HashMap<(String, u32), (Holds, HashSet<i32>)>);

#[derive(Clone, Copy)]
enum Holds {
    /// A singular or repeated field (varints, or packed runs of them).
    Values,
    /// A map whose values are the enum's (entries).
    MapValues,
}

/// A schema: its descriptors, a copy of them without the closed-enum
/// fields, and what those fields were.
struct Schema {
    pool: DescriptorPool,
    stripped: DescriptorPool,
    closed: ClosedFields,
}

impl Schema {
    fn new(bytes: &[u8]) -> Self {
        let pool = common::pool(bytes);
        let mut closed = ClosedFields::default();
        for m in pool.all_messages() {
            for f in m.fields() {
                let holds = if f.is_map() {
                    let Kind::Message(entry) = f.kind() else {
                        continue;
                    };
                    closed_enum(&entry.map_entry_value_field()).map(|e| (Holds::MapValues, e))
                } else {
                    closed_enum(&f).map(|e| (Holds::Values, e))
                };
                if let Some((holds, e)) = holds {
                    let values = e.values().map(|v| v.number()).collect();
                    closed
                        .0
                        .insert((m.full_name().to_owned(), f.number()), (holds, values));
                }
            }
        }
        let mut set = FileDescriptorSet {
            file: pool.file_descriptor_protos().cloned().collect(),
        };
        for file in &mut set.file {
            let prefix = match file.package() {
                "" => String::new(),
                p => format!("{p}."),
            };
            for m in &mut file.message_type {
                strip(m, &prefix, &closed);
            }
        }
        let stripped = DescriptorPool::from_file_descriptor_set(set).expect("stripped descriptors");
        Schema {
            pool,
            stripped,
            closed,
        }
    }

    fn message(&self, name: &str) -> MessageDescriptor {
        self.pool.get_message_by_name(name).expect("message type")
    }
}

/// Removes the closed-enum fields of `m` (named `prefix` + its name) and
/// of the messages nested in it.
fn strip(m: &mut DescriptorProto, prefix: &str, closed: &ClosedFields) {
    let name = format!("{prefix}{}", m.name());
    m.field
        .retain(|f| !closed.0.contains_key(&(name.clone(), f.number() as u32)));
    let prefix = format!("{name}.");
    for nested in &mut m.nested_type {
        strip(nested, &prefix, closed);
    }
}

/// Unknown fields per message (by path), as bytes.
type Unknowns = BTreeMap<String, Vec<Vec<u8>>>;

/// `msg` (decoded with the stripped schema) without its unknown fields or
/// fields at their implicit default, and its unknown fields at every
/// depth. The fields the stripped schema lacks are unknown there; of
/// them only the closed enums' unlisted values are kept: a varint whose
/// value is unlisted, the unlisted values of a packed run (as varints),
/// a map entry whose last value is unlisted. The rest are the known
/// values, which the comparison of `to_prost` holds to prost.
fn split(msg: &mut DynamicMessage, schema: &Schema, path: &str, out: &mut Unknowns) {
    let desc = msg.descriptor();
    let name = desc.full_name().to_owned();
    let mut kept = Vec::new();
    for unknown in msg.take_unknown_fields() {
        let mut bytes = Vec::new();
        unknown.encode(&mut bytes);
        let Some((holds, listed)) = schema.closed.0.get(&(name.clone(), unknown.number())) else {
            kept.push(bytes);
            continue;
        };
        let mut rest = &bytes[..];
        let _ = decode_varint(&mut rest).expect("tag");
        match (holds, unknown.wire_type()) {
            (Holds::Values, WireType::Varint) => {
                let v = decode_varint(&mut rest).expect("varint");
                if !listed.contains(&(v as i32)) {
                    kept.push(bytes);
                }
            }
            (Holds::Values, WireType::LengthDelimited) => {
                let len = decode_varint(&mut rest).expect("length") as usize;
                let mut run = &rest[..len];
                while !run.is_empty() {
                    let v = decode_varint(&mut run).expect("packed varint");
                    if !listed.contains(&(v as i32)) {
                        kept.push([key(unknown.number(), WireType::Varint), varint(v)].concat());
                    }
                }
            }
            (Holds::MapValues, WireType::LengthDelimited) => {
                let len = decode_varint(&mut rest).expect("length") as usize;
                let mut entry = &rest[..len];
                let mut value = 0;
                while !entry.is_empty() {
                    let tag = decode_varint(&mut entry).expect("entry tag");
                    let skip = match tag & 7 {
                        0 => {
                            let v = decode_varint(&mut entry).expect("entry varint");
                            if tag == 0x10 {
                                value = v;
                            }
                            0
                        }
                        1 => 8,
                        2 => decode_varint(&mut entry).expect("entry length") as usize,
                        _ => 4,
                    };
                    entry = &entry[skip..];
                }
                if !listed.contains(&(value as i32)) {
                    kept.push(bytes);
                }
            }
            _ => kept.push(bytes),
        }
    }
    if !kept.is_empty() {
        out.insert(path.to_owned(), kept);
    }
    for field in desc.fields() {
        if !msg.has_field(&field) {
            msg.clear_field(&field);
        }
    }
    for (field, value) in msg.fields_mut() {
        let at = format!("{path}.{}", field.name());
        match value {
            Value::Message(m) => split(m, schema, &at, out),
            Value::List(list) => {
                for (i, v) in list.iter_mut().enumerate() {
                    if let Value::Message(m) = v {
                        split(m, schema, &format!("{at}[{i}]"), out);
                    }
                }
            }
            Value::Map(map) => {
                for (k, v) in map.iter_mut() {
                    if let Value::Message(m) = v {
                        split(m, schema, &format!("{at}[{k:?}]"), out);
                    }
                }
            }
            _ => {}
        }
    }
    // A fresh message of the same fields: the taken unknown fields leave
    // marks that `==` would see.
    let fields: Vec<(FieldDescriptor, Value)> = msg.take_fields().collect();
    *msg = DynamicMessage::new(desc);
    for (field, value) in fields {
        msg.set_field(&field, value);
    }
}

/// prost-reflect's reading of `bytes` with the stripped schema, split.
fn stripped(schema: &Schema, name: &str, bytes: &[u8]) -> (DynamicMessage, Unknowns) {
    let desc = schema
        .stripped
        .get_message_by_name(name)
        .expect("message type");
    let mut msg = DynamicMessage::decode(desc, bytes).expect("prost-reflect decodes it");
    let mut unknowns = Unknowns::new();
    split(&mut msg, schema, "", &mut unknowns);
    (msg, unknowns)
}

static TESTS: LazyLock<Schema> =
    LazyLock::new(|| Schema::new(quarry_proto_tests::TEST_DESCRIPTORS));
static WA: LazyLock<Schema> = LazyLock::new(|| Schema::new(quarry_proto_tests::WA_DESCRIPTORS));

/// The first map field, at any depth of `rec` (of type `m`), whose entries
/// repeat a key: the field's name and the key.
fn repeated_map_key(m: quarry_proto::MessageRef, rec: quarry_proto::Record<'_>) -> Option<String> {
    for (i, f) in m.table().fields.iter().enumerate() {
        if !f.kind.is_message() {
            continue;
        }
        let i = i as u32;
        let sub = m.sub_message(f);
        if f.is_repeated() {
            let mut keys = HashSet::new();
            for e in rec.messages(i) {
                if sub.table().map_entry {
                    let bytes_key = sub.table().fields.first().is_some_and(|k| {
                        matches!(
                            k.kind,
                            quarry_proto::Kind::String | quarry_proto::Kind::Bytes
                        )
                    });
                    let key = if bytes_key {
                        e.bytes(0).unwrap_or_default().to_vec()
                    } else {
                        e.scalar(0).unwrap_or(0).to_le_bytes().to_vec()
                    };
                    if !keys.insert(key.clone()) {
                        return Some(format!("{}: key {key:02X?} twice", f.name));
                    }
                }
                if let Some(r) = repeated_map_key(sub, e) {
                    return Some(r);
                }
            }
        } else if let Some(r) = rec.message(i).and_then(|e| repeated_map_key(sub, e)) {
            return Some(r);
        }
    }
    None
}

macro_rules! merge_agreement {
    ($test:ident, $view:ty, $prost:ty, $schema:expr, $name:expr, $cases:expr, $depth:expr) => {
        proptest! {
            #![proptest_config(ProptestConfig { cases: $cases, ..ProptestConfig::default() })]

            #[test]
            fn $test(seed in any::<u64>()) {
                let schema: &Schema = &$schema;
                let mut mix = Mix {
                    rng: Rng(seed),
                    max_depth: $depth,
                    junk_permille: 6,
                    junked: false,
                };
                let (input, reference) = mix.message(&schema.message($name));
                let arena = Arena::new();
                let ours = <$view>::decode(&arena, &input);
                let theirs = <$prost>::decode(&input[..]);
                // Maps hold each key once at every depth (`to_prost`
                // collects into prost's maps, where a repeated key would
                // not show).
                if let Ok(view) = &ours {
                    let repeated = repeated_map_key(<$view>::TABLE, view.record());
                    prop_assert!(repeated.is_none(), "{:?} on {:02X?}", repeated, input);
                }
                match (ours, theirs) {
                    // A malformed field prost accepts (a length that runs
                    // into the fields after it) may read the input and the
                    // reference differently: their values are compared
                    // only where the two are the same.
                    (Ok(ours), Ok(theirs)) if mix.junked => {
                        if input == reference {
                            prop_assert_eq!(ours.to_prost(), theirs, "input {:02X?}", input);
                        }
                    }
                    (Ok(ours), Ok(_)) => {
                        // (2) the known fields, as protobuf reads them.
                        let want = <$prost>::decode(&reference[..])
                            .expect("prost reads the reference where it reads the input");
                        prop_assert_eq!(&ours.to_prost(), &want, "input {:02X?}", input);
                        // (3) unknown fields and unlisted values, kept.
                        let again = ours.encode().unwrap();
                        let (msg, unknowns) = stripped(schema, $name, &input);
                        let (msg_again, unknowns_again) = stripped(schema, $name, &again);
                        prop_assert_eq!(
                            unknowns_again, unknowns,
                            "unknown fields of the re-encoding {:02X?} of {:02X?}", again, input
                        );
                        prop_assert!(
                            msg_again == msg,
                            "known fields of {:02X?} (re-encoded {:02X?}): {:02X?} vs {:02X?}",
                            input,
                            again,
                            msg_again.encode_to_vec(),
                            msg.encode_to_vec()
                        );
                        // (4) the reference, and its re-encoding through prost.
                        let arena = Arena::new();
                        let ours = <$view>::decode(&arena, &reference);
                        prop_assert!(
                            ours.is_ok(),
                            "quarry {:?} on the reference {:02X?}",
                            ours,
                            reference
                        );
                        let ours = ours.unwrap();
                        prop_assert_eq!(&ours.to_prost(), &want);
                        let by_prost = <$prost>::decode(&ours.encode().unwrap()[..]);
                        prop_assert_eq!(by_prost.ok(), Some(want));
                        // (5) JSON.
                        let ours = <$view>::decode(&arena, &input).expect("read above");
                        let json = ours.to_json().expect("quarry prints JSON");
                        let json: serde_json::Value =
                            serde_json::from_str(&json).expect("quarry's JSON parses");
                        let peer = DynamicMessage::decode(schema.message($name), &reference[..])
                            .expect("prost-reflect reads the reference");
                        let peer = common::json::peer_json(&peer);
                        let differs = common::json::first_difference(&json, &peer);
                        prop_assert!(
                            differs.is_none(),
                            "JSON of {:02X?} differs at {:?}\nquarry {}\npeer {}",
                            input, differs, json, peer
                        );
                    }
                    (Err(_), Err(_)) => {}
                    (ours, theirs) => prop_assert!(
                        false,
                        "quarry {:?}, prost {:?} on {:02X?}",
                        ours.map(|v| v.to_prost()),
                        theirs,
                        input
                    ),
                }
            }
        }
    };
}

merge_agreement!(
    all2_merges_agree_with_prost,
    views::quarry::test2::All2View<'_>,
    pb::test2::All2,
    TESTS,
    "quarry.test2.All2",
    1024,
    4
);
merge_agreement!(
    all3_merges_agree_with_prost,
    views::quarry::test3::All3View<'_>,
    pb::test3::All3,
    TESTS,
    "quarry.test3.All3",
    1024,
    4
);
merge_agreement!(
    wa_message_merges_agree_with_prost,
    wa::MessageView<'_>,
    pb::whatsapp::Message,
    WA,
    "whatsapp.Message",
    512,
    4
);
merge_agreement!(
    wa_sync_action_data_merges_agree_with_prost,
    wa::SyncActionDataView<'_>,
    pb::whatsapp::SyncActionData,
    WA,
    "whatsapp.SyncActionData",
    512,
    4
);
merge_agreement!(
    wa_history_sync_merges_agree_with_prost,
    wa::HistorySyncView<'_>,
    pb::whatsapp::HistorySync,
    WA,
    "whatsapp.HistorySync",
    256,
    4
);
