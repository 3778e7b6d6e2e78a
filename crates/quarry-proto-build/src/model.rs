//! The schema as the generator and the run-time table builder see it:
//! every message and enum of the compiled files with an index, fields
//! sorted by number, names for Rust and for prost.

use std::collections::{HashMap, HashSet};

use heck::{ToSnakeCase, ToUpperCamelCase};
use prost_reflect::{
    Cardinality, DescriptorPool, EnumDescriptor, EnumValueDescriptor, ExtensionDescriptor,
    FieldDescriptor, Kind as RKind, MessageDescriptor, Syntax, Value,
};
use prost_types::source_code_info::Location;
use quarry_proto::{Kind, Label};

/// A numeric or bytes default of a field, in stored form.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Def {
    Zero,
    Scalar(u64),
    Bytes(Vec<u8>),
}

#[derive(Clone, Debug)]
pub(crate) struct Fld {
    pub number: u32,
    pub name: String,
    pub json_name: String,
    pub kind: Kind,
    pub label: Label,
    pub packed: bool,
    /// Message index (message/group) or enum index (enum).
    pub sub: u32,
    /// Real oneof index plus one, or 0.
    pub oneof: u16,
    pub default: Def,
    pub doc: String,
    /// prost keeps this singular message field in a `Box`.
    pub prost_boxed: bool,
    /// proto2 `required` (prost's type is then `T`, not `Option<T>`).
    pub required: bool,
    /// prost's field type is `Option<T>` for this singular scalar.
    pub prost_optional: bool,
    /// The decoder reads this field through its whole table entry, never
    /// inline: the value of a map entry whose values are a closed enum
    /// (an unlisted value there makes the whole entry an unknown field).
    pub whole_entry: bool,
    /// For an extension (`extend Foo { … }`, named `[pkg.name]` above):
    /// its own name (`name`), which its getter in a view takes.
    pub extension: Option<String>,
}

#[derive(Clone, Debug)]
pub(crate) struct Msg {
    pub full_name: String,
    pub package: String,
    /// The message's name path inside its package (`Outer.Inner`).
    pub local_path: Vec<String>,
    /// Declared fields and the extensions of this message declared
    /// anywhere in the compiled files (`extend Foo { … }`), in number
    /// order (protoc rejects an extension whose number a declared field
    /// has). An extension is named `[pkg.name]`, as protobuf's text and
    /// JSON formats print it.
    pub fields: Vec<Fld>,
    pub oneofs: Vec<String>,
    pub map_entry: bool,
    pub doc: String,
}

#[derive(Clone, Debug)]
pub(crate) struct Enm {
    pub full_name: String,
    pub package: String,
    pub local_path: Vec<String>,
    pub closed: bool,
    /// Declared values: (name, number, doc).
    pub declared: Vec<(String, i32, String)>,
    pub doc: String,
}

impl Enm {
    /// `(number, name)` sorted by number, first name per number.
    pub fn by_number(&self) -> Vec<(i32, String)> {
        let mut seen = HashSet::new();
        let mut out: Vec<(i32, String)> = self
            .declared
            .iter()
            .filter(|(_, n, _)| seen.insert(*n))
            .map(|(name, n, _)| (*n, name.clone()))
            .collect();
        out.sort_by_key(|v| v.0);
        out
    }
}

#[derive(Debug, Default)]
pub(crate) struct Model {
    pub messages: Vec<Msg>,
    pub enums: Vec<Enm>,
    pub message_index: HashMap<String, u32>,
}

fn kind_of(k: &RKind) -> Kind {
    match k {
        RKind::Double => Kind::Double,
        RKind::Float => Kind::Float,
        RKind::Int64 => Kind::Int64,
        RKind::Uint64 => Kind::UInt64,
        RKind::Int32 => Kind::Int32,
        RKind::Uint32 => Kind::UInt32,
        RKind::Fixed64 => Kind::Fixed64,
        RKind::Fixed32 => Kind::Fixed32,
        RKind::Bool => Kind::Bool,
        RKind::String => Kind::String,
        RKind::Bytes => Kind::Bytes,
        RKind::Message(_) => Kind::Message,
        RKind::Enum(_) => Kind::Enum,
        RKind::Sfixed32 => Kind::SFixed32,
        RKind::Sfixed64 => Kind::SFixed64,
        RKind::Sint32 => Kind::SInt32,
        RKind::Sint64 => Kind::SInt64,
    }
}

/// A default value in the decoder's stored form.
fn stored_default(kind: Kind, v: &Value) -> Def {
    let scalar = match v {
        Value::Bool(b) => u64::from(*b),
        Value::I32(n) | Value::EnumNumber(n) => *n as i64 as u64,
        Value::I64(n) => *n as u64,
        Value::U32(n) => u64::from(*n),
        Value::U64(n) => *n,
        Value::F32(f) => u64::from(f.to_bits()),
        Value::F64(f) => f.to_bits(),
        Value::String(s) => {
            return if s.is_empty() {
                Def::Zero
            } else {
                Def::Bytes(s.as_bytes().to_vec())
            };
        }
        Value::Bytes(b) => {
            return if b.is_empty() {
                Def::Zero
            } else {
                Def::Bytes(b.to_vec())
            };
        }
        _ => 0,
    };
    let _ = kind;
    if scalar == 0 {
        Def::Zero
    } else {
        Def::Scalar(scalar)
    }
}

/// The comments of the elements of each file, by path, indexed the first
/// time a file is asked for: finding each element's path in the file's
/// whole location list made loading WhatsApp's schema quadratic (415 of
/// the 610 million instructions `quarry proto decode` spent compiling it,
/// callgrind).
#[derive(Default)]
struct Docs<'p> {
    files: HashMap<&'p str, HashMap<&'p [i32], &'p Location>>,
}

impl<'p> Docs<'p> {
    /// The comment attached to the element at `path` of `file` (leading,
    /// else trailing; the first location of that path, as protoc lists
    /// them), without trailing white space; empty when it has none.
    fn of(&mut self, file: &'p prost_types::FileDescriptorProto, path: &[i32]) -> String {
        let index = self.files.entry(file.name()).or_insert_with(|| {
            let mut index = HashMap::new();
            for l in file.source_code_info.iter().flat_map(|i| &i.location) {
                index.entry(l.path.as_slice()).or_insert(l);
            }
            index
        });
        index
            .get(path)
            .and_then(|l| {
                l.leading_comments
                    .as_deref()
                    .or(l.trailing_comments.as_deref())
            })
            .map(|c| c.trim_end().to_string())
            .unwrap_or_default()
    }
}

fn local_path(full_name: &str, package: &str) -> Vec<String> {
    let rest = if package.is_empty() {
        full_name
    } else {
        full_name
            .strip_prefix(package)
            .and_then(|r| r.strip_prefix('.'))
            .unwrap_or(full_name)
    };
    rest.split('.').map(str::to_string).collect()
}

impl Model {
    /// Every message and enum of `pool`.
    pub fn from_pool(pool: &DescriptorPool) -> Self {
        let mut model = Model::default();
        let messages: Vec<MessageDescriptor> = pool.all_messages().collect();
        let enums: Vec<EnumDescriptor> = pool.all_enums().collect();
        for (i, m) in messages.iter().enumerate() {
            model
                .message_index
                .insert(m.full_name().to_string(), i as u32);
        }
        let enum_index: HashMap<String, u32> = enums
            .iter()
            .enumerate()
            .map(|(i, e)| (e.full_name().to_string(), i as u32))
            .collect();
        let mut graph = ProstGraph::new(&messages);
        let mut docs = Docs::default();
        for m in &messages {
            let file = m.parent_file_descriptor_proto();
            let proto3 = m.parent_file().syntax() == Syntax::Proto3;
            let real_oneofs: Vec<String> = m
                .oneofs()
                .filter(|o| !o.is_synthetic())
                .map(|o| o.name().to_string())
                .collect();
            let mut fields: Vec<Fld> = m
                .fields()
                .map(|f| {
                    field(
                        &f,
                        file,
                        proto3,
                        &model.message_index,
                        &enum_index,
                        &real_oneofs,
                        &mut graph,
                        m,
                        &mut docs,
                    )
                })
                .collect();
            fields.extend(
                m.extensions()
                    .map(|e| extension(&e, &model.message_index, &enum_index)),
            );
            fields.sort_by_key(|f| f.number);
            model.messages.push(Msg {
                full_name: m.full_name().to_string(),
                package: m.package_name().to_string(),
                local_path: local_path(m.full_name(), m.package_name()),
                fields,
                oneofs: real_oneofs,
                map_entry: m.is_map_entry(),
                doc: docs.of(file, m.path()),
            });
        }
        for e in &enums {
            let file = e.parent_file_descriptor_proto();
            model.enums.push(Enm {
                full_name: e.full_name().to_string(),
                package: e.package_name().to_string(),
                local_path: local_path(e.full_name(), e.package_name()),
                closed: e.parent_file().syntax() == Syntax::Proto2,
                declared: declared_values(e, file, &mut docs),
                doc: docs.of(file, e.path()),
            });
        }
        // Enums are known now: mark map values of closed enums.
        let closed: Vec<bool> = model.enums.iter().map(|e| e.closed).collect();
        for m in model.messages.iter_mut().filter(|m| m.map_entry) {
            for f in m.fields.iter_mut().filter(|f| f.number == 2) {
                f.whole_entry = f.kind == Kind::Enum && closed.get(f.sub as usize) == Some(&true);
            }
        }
        model
    }
}

/// An enum's values in the order the `.proto` declares them, which decides
/// the name printed for a number that aliases share (the first one, as
/// protobuf's printers take it). prost-reflect's `values()` yields them by
/// number, aliases in reverse.
fn declared_values<'p>(
    e: &EnumDescriptor,
    file: &'p prost_types::FileDescriptorProto,
    docs: &mut Docs<'p>,
) -> Vec<(String, i32, String)> {
    let mut values: Vec<EnumValueDescriptor> = e.values().collect();
    values.sort_by_key(|v| v.path().last().copied());
    values
        .iter()
        .map(|v| (v.name().to_string(), v.number(), docs.of(file, v.path())))
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn field<'p>(
    f: &FieldDescriptor,
    file: &'p prost_types::FileDescriptorProto,
    proto3: bool,
    messages: &HashMap<String, u32>,
    enums: &HashMap<String, u32>,
    real_oneofs: &[String],
    graph: &mut ProstGraph,
    parent: &MessageDescriptor,
    docs: &mut Docs<'p>,
) -> Fld {
    let rk = f.kind();
    let (kind, sub) = kind_and_sub(&rk, f.is_group(), messages, enums);
    let oneof = f
        .containing_oneof()
        .filter(|o| !o.is_synthetic())
        .and_then(|o| real_oneofs.iter().position(|n| n == o.name()))
        .map_or(0, |i| i as u16 + 1);
    let label = if f.cardinality() == Cardinality::Repeated {
        Label::Repeated
    } else if f.supports_presence() {
        Label::Explicit
    } else {
        Label::Implicit
    };
    let default = default_of(label, kind, || f.default_value());
    let prost_boxed = label != Label::Repeated
        && kind.is_message()
        && match &rk {
            RKind::Message(m) => graph.reaches(m.full_name(), parent.full_name()),
            _ => false,
        };
    Fld {
        number: f.number(),
        name: f.name().to_string(),
        json_name: f.json_name().to_string(),
        kind,
        label,
        packed: label == Label::Repeated
            && kind.packable()
            && packed(f.field_descriptor_proto(), proto3),
        sub,
        oneof,
        default,
        doc: docs.of(file, f.path()),
        required: f.cardinality() == Cardinality::Required,
        prost_boxed,
        prost_optional: label == Label::Explicit
            && !kind.is_message()
            && oneof == 0
            && f.cardinality() != Cardinality::Required,
        whole_entry: false,
        extension: None,
    }
}

/// A field's kind (groups apart from messages) and the index of its message
/// or enum type (0 for other kinds).
fn kind_and_sub(
    rk: &RKind,
    group: bool,
    messages: &HashMap<String, u32>,
    enums: &HashMap<String, u32>,
) -> (Kind, u32) {
    let kind = if group { Kind::Group } else { kind_of(rk) };
    let sub = match rk {
        RKind::Message(m) => messages.get(m.full_name()).copied().unwrap_or(0),
        RKind::Enum(e) => enums.get(e.full_name()).copied().unwrap_or(0),
        _ => 0,
    };
    (kind, sub)
}

/// The stored default of a singular scalar, string or bytes field (zero
/// for repeated and message fields, which have none).
fn default_of(label: Label, kind: Kind, value: impl FnOnce() -> Value) -> Def {
    if label == Label::Repeated || kind.is_message() {
        Def::Zero
    } else {
        stored_default(kind, &value())
    }
}

/// An extension field as a field of the message it extends, named
/// `[full.name]` for both the text and the JSON format.
fn extension(
    e: &ExtensionDescriptor,
    messages: &HashMap<String, u32>,
    enums: &HashMap<String, u32>,
) -> Fld {
    let (kind, sub) = kind_and_sub(&e.kind(), e.is_group(), messages, enums);
    // Extensions exist in proto2 (and editions) only; proto3 files may
    // declare them for custom options, with proto2's rules.
    let label = if e.cardinality() == Cardinality::Repeated {
        Label::Repeated
    } else {
        Label::Explicit
    };
    let default = default_of(label, kind, || e.default_value());
    Fld {
        number: e.number(),
        name: format!("[{}]", e.full_name()),
        json_name: e.json_name().to_string(),
        kind,
        label,
        packed: label == Label::Repeated
            && kind.packable()
            && packed(
                e.field_descriptor_proto(),
                e.parent_file().syntax() == Syntax::Proto3,
            ),
        sub,
        oneof: 0,
        default,
        doc: String::new(),
        required: false,
        prost_boxed: false,
        prost_optional: false,
        whole_entry: false,
        extension: Some(e.name().to_string()),
    }
}

/// Whether a repeated scalar field or extension is written packed: the
/// `packed` option when given, else proto3's default (packed) or proto2's
/// (not). Read from the descriptor itself, since prost-reflect's
/// `is_packed` misses the option on extensions.
fn packed(f: &prost_types::FieldDescriptorProto, proto3: bool) -> bool {
    f.options.as_ref().and_then(|o| o.packed).unwrap_or(proto3)
}

/// prost-build's message graph: an edge from a message to the type of each
/// of its singular `message` (not group) fields. prost boxes a field whose
/// type reaches the containing message.
struct ProstGraph {
    index: HashMap<String, usize>,
    edges: Vec<Vec<usize>>,
    /// Per message, the messages it reaches, found the first time it is
    /// asked about: a search per field, with the names as keys, was a
    /// tenth of loading WhatsApp's schema (callgrind).
    reach: Vec<Option<Vec<bool>>>,
}

impl ProstGraph {
    fn new(messages: &[MessageDescriptor]) -> Self {
        let index: HashMap<String, usize> = messages
            .iter()
            .enumerate()
            .map(|(i, m)| (m.full_name().to_string(), i))
            .collect();
        let edges = messages
            .iter()
            .map(|m| {
                m.fields()
                    .filter(|f| f.cardinality() != Cardinality::Repeated && !f.is_group())
                    .filter_map(|f| match f.kind() {
                        RKind::Message(t) => index.get(t.full_name()).copied(),
                        _ => None,
                    })
                    .collect()
            })
            .collect();
        Self {
            reach: vec![None; messages.len()],
            index,
            edges,
        }
    }

    /// True if message `from` reaches message `to` (itself included).
    fn reaches(&mut self, from: &str, to: &str) -> bool {
        let (Some(&from), Some(&to)) = (self.index.get(from), self.index.get(to)) else {
            return false;
        };
        if self.reach[from].is_none() {
            let mut seen = vec![false; self.edges.len()];
            let mut todo = vec![from];
            while let Some(n) = todo.pop() {
                if !std::mem::replace(&mut seen[n], true) {
                    todo.extend(&self.edges[n]);
                }
            }
            self.reach[from] = Some(seen);
        }
        self.reach[from].as_ref().is_some_and(|seen| seen[to])
    }
}

/// prost-build's identifier for a field or module (`snake_case`, keywords
/// escaped).
pub(crate) fn prost_snake(s: &str) -> String {
    sanitize(&s.to_snake_case())
}

/// prost-build's identifier for a type (`UpperCamel`, keywords escaped).
pub(crate) fn prost_camel(s: &str) -> String {
    sanitize(&s.to_upper_camel_case())
}

/// Rust's keywords as prost-build escapes them.
pub(crate) fn sanitize(ident: &str) -> String {
    match ident {
        "as" | "break" | "const" | "continue" | "else" | "enum" | "false" | "fn" | "for" | "if"
        | "impl" | "in" | "let" | "loop" | "match" | "mod" | "move" | "mut" | "pub" | "ref"
        | "return" | "static" | "struct" | "trait" | "true" | "type" | "unsafe" | "use"
        | "where" | "while" | "dyn" | "abstract" | "become" | "box" | "do" | "final" | "macro"
        | "override" | "priv" | "typeof" | "unsized" | "virtual" | "yield" | "async" | "await"
        | "try" | "gen" => format!("r#{ident}"),
        "_" | "super" | "self" | "Self" | "extern" | "crate" => format!("{ident}_"),
        // A `.proto` name of underscores only (`int32 _ = 1;`), which
        // snake_case and UpperCamel turn into nothing.
        "" => "__".to_string(),
        s if s.starts_with(|c: char| c.is_numeric()) => format!("_{ident}"),
        _ => ident.to_string(),
    }
}
