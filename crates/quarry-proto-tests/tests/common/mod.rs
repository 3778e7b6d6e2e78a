//! Random messages of any schema, built from its descriptors with a seeded
//! generator and encoded canonically by prost-reflect (fields in number
//! order), so prost and quarry read the very same bytes.

#![allow(dead_code)]

pub mod json;

use std::collections::HashMap;

use prost_reflect::{
    DescriptorPool, DynamicMessage, FieldDescriptor, Kind, MapKey, MessageDescriptor, Syntax, Value,
};

/// A small deterministic generator (splitmix64).
pub struct Gen {
    state: u64,
    /// Deepest nesting of messages below the root.
    pub max_depth: u32,
    /// Chance, in percent, that a field of the root is set; halves per level.
    pub fill: u32,
}

impl Gen {
    pub fn new(seed: u64) -> Self {
        Self {
            state: seed,
            max_depth: 3,
            fill: 40,
        }
    }

    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < u64::from(percent)
    }

    /// An integer that is often small, sometimes extreme.
    fn int(&mut self) -> u64 {
        match self.below(6) {
            0 => 0,
            1 => self.below(128),
            2 => self.below(1 << 20),
            3 => u64::MAX - self.below(3),
            4 => 1 << self.below(64),
            _ => self.next(),
        }
    }

    fn float(&mut self) -> f64 {
        match self.below(5) {
            0 => 0.0,
            1 => -0.0,
            2 => (self.below(2000) as f64 - 1000.0) / 8.0,
            3 => f64::from_bits(self.next() & 0x7FEF_FFFF_FFFF_FFFF),
            _ => 1e300 * if self.chance(50) { 1.0 } else { -1.0 },
        }
    }

    fn string(&mut self) -> String {
        const POOL: &[&str] = &[
            "a", "Z", "0", " ", "é", "ß", "日本", "🦀", "\"", "\\", "<", "\n", "\u{2028}",
        ];
        let n = self.below(12);
        (0..n)
            .map(|_| POOL[self.below(POOL.len() as u64) as usize])
            .collect()
    }

    fn bytes(&mut self) -> Vec<u8> {
        let n = self.below(24);
        (0..n).map(|_| self.next() as u8).collect()
    }

    fn value(&mut self, field: &FieldDescriptor, depth: u32) -> Value {
        match field.kind() {
            Kind::Double => Value::F64(self.float()),
            Kind::Float => Value::F32(self.float() as f32),
            Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => Value::I32(self.int() as i32),
            Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => Value::I64(self.int() as i64),
            Kind::Uint32 | Kind::Fixed32 => Value::U32(self.int() as u32),
            Kind::Uint64 | Kind::Fixed64 => Value::U64(self.int()),
            Kind::Bool => Value::Bool(self.chance(50)),
            Kind::String => Value::String(self.string()),
            Kind::Bytes => Value::Bytes(self.bytes().into()),
            Kind::Enum(e) => {
                let open = e.parent_file().syntax() == Syntax::Proto3;
                if open && self.chance(15) {
                    Value::EnumNumber(self.int() as i32)
                } else {
                    let values: Vec<i32> = e.values().map(|v| v.number()).collect();
                    Value::EnumNumber(values[self.below(values.len() as u64) as usize])
                }
            }
            Kind::Message(m) => Value::Message(self.message_at(&m, depth + 1)),
        }
    }

    fn map_key(&mut self, field: &FieldDescriptor) -> MapKey {
        match self.value(field, 0) {
            Value::Bool(b) => MapKey::Bool(b),
            Value::I32(v) => MapKey::I32(v),
            Value::I64(v) => MapKey::I64(v),
            Value::U32(v) => MapKey::U32(v),
            Value::U64(v) => MapKey::U64(v),
            Value::String(s) => MapKey::String(s),
            _ => MapKey::Bool(false),
        }
    }

    /// A random message of type `desc`.
    pub fn message(&mut self, desc: &MessageDescriptor) -> DynamicMessage {
        self.message_at(desc, 0)
    }

    fn message_at(&mut self, desc: &MessageDescriptor, depth: u32) -> DynamicMessage {
        let mut m = DynamicMessage::new(desc.clone());
        if depth > self.max_depth {
            return m;
        }
        let fill = (self.fill >> depth).max(3);
        for f in desc.fields() {
            let required = f.is_required();
            if !required && !self.chance(fill) {
                continue;
            }
            if f.is_map() {
                let Kind::Message(entry) = f.kind() else {
                    continue;
                };
                let (kf, vf) = (entry.map_entry_key_field(), entry.map_entry_value_field());
                let mut map = HashMap::new();
                for _ in 0..self.below(4) {
                    let k = self.map_key(&kf);
                    let v = self.value(&vf, depth);
                    map.insert(k, v);
                }
                m.set_field(&f, Value::Map(map));
            } else if f.is_list() {
                let n = self.below(5);
                let list = (0..n).map(|_| self.value(&f, depth)).collect();
                m.set_field(&f, Value::List(list));
            } else {
                let v = self.value(&f, depth);
                m.set_field(&f, v);
            }
        }
        m
    }
}

pub fn pool(bytes: &[u8]) -> DescriptorPool {
    DescriptorPool::decode(bytes).expect("descriptor set")
}

/// The test schema's `Inner` nested `levels` deep through field `next`
/// (3), each level `1A <len>` (two bytes while the rest is under 128
/// bytes).
pub fn deep_inner(levels: usize) -> Vec<u8> {
    let mut bytes = Vec::new();
    for _ in 0..levels {
        let mut outer = vec![0x1A];
        prost::encoding::encode_varint(bytes.len() as u64, &mut outer);
        outer.extend(bytes);
        bytes = outer;
    }
    bytes
}
