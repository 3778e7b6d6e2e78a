//! Tables built at run time from `.proto` files, for tools that decode
//! messages of schemas they were not compiled with (the `quarry` CLI). The
//! tables are the same types generated code uses, leaked once so they are
//! `'static`: the decoder cannot tell the two apart.

use quarry_proto::{DefaultValue, EnumTable, FieldTable, MessageRef, MessageTable, Schema};

use crate::model::{Def, Model};
use crate::tables::dense_lookup;

/// A schema compiled at run time.
#[derive(Debug, Clone, Copy)]
pub struct RuntimeSchema {
    /// The tables, leaked for the rest of the process.
    pub schema: &'static Schema,
}

impl RuntimeSchema {
    /// The message named `name`: a fully qualified name (with or without a
    /// leading dot) or, when it is unambiguous, a name without its package.
    pub fn message(&self, name: &str) -> Option<MessageRef> {
        let name = name.strip_prefix('.').unwrap_or(name);
        let msgs = self.schema.messages;
        if let Some(i) = msgs.iter().position(|m| m.full_name == name) {
            return Some(MessageRef::new(self.schema, i as u32));
        }
        let suffix = format!(".{name}");
        let mut found = msgs
            .iter()
            .enumerate()
            .filter(|(_, m)| m.full_name.ends_with(&suffix));
        match (found.next(), found.next()) {
            (Some((i, _)), None) => Some(MessageRef::new(self.schema, i as u32)),
            _ => None,
        }
    }
}

fn leak_str(s: &str) -> &'static str {
    String::from(s).leak()
}

pub(crate) fn build(model: &Model) -> RuntimeSchema {
    let messages: Vec<MessageTable> = model
        .messages
        .iter()
        .map(|m| {
            let fields: Vec<FieldTable> = m
                .fields
                .iter()
                .map(|f| FieldTable {
                    number: f.number,
                    name: leak_str(&f.name),
                    json_name: leak_str(&f.json_name),
                    kind: f.kind,
                    label: f.label,
                    packed: f.packed,
                    utf8: true,
                    sub: f.sub,
                    oneof: f.oneof,
                    default: match &f.default {
                        Def::Zero => DefaultValue::Zero,
                        Def::Scalar(v) => DefaultValue::Scalar(*v),
                        Def::Bytes(b) => DefaultValue::Bytes(b.clone().leak()),
                    },
                    op: if f.whole_entry {
                        FieldTable::whole_entry_op(f.kind)
                    } else {
                        FieldTable::op_of(f.kind, f.label, f.oneof != 0, true)
                    },
                })
                .collect();
            let numbers: Vec<u32> = m.fields.iter().map(|f| f.number).collect();
            let short = MessageTable::short_of(&fields);
            let dense = MessageTable::dense_of(&fields);
            MessageTable {
                full_name: leak_str(&m.full_name),
                short,
                dense,
                fields: fields.leak(),
                by_number: dense_lookup(&numbers).leak(),
                oneofs: m
                    .oneofs
                    .iter()
                    .map(|o| leak_str(o))
                    .collect::<Vec<_>>()
                    .leak(),
                map_entry: m.map_entry,
            }
        })
        .collect();
    let enums: Vec<EnumTable> = model
        .enums
        .iter()
        .map(|e| {
            let values: &'static [(i32, &'static str)] = e
                .by_number()
                .into_iter()
                .map(|(n, name)| (n, leak_str(&name)))
                .collect::<Vec<_>>()
                .leak();
            EnumTable {
                full_name: leak_str(&e.full_name),
                closed: e.closed,
                values,
                known: EnumTable::known_of(values),
            }
        })
        .collect();
    let schema = Box::leak(Box::new(Schema {
        messages: messages.leak(),
        enums: enums.leak(),
    }));
    RuntimeSchema { schema }
}
