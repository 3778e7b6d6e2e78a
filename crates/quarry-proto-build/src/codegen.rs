//! Rust source for a [`Model`]: the static tables, one view per message,
//! one Rust enum per protobuf enum and per oneof, and (behind a feature of
//! the consuming crate) conversions to prost's owned types.

use std::collections::{HashMap, HashSet};

use heck::{ToSnakeCase, ToUpperCamelCase};
use proc_macro2::{Literal, TokenStream};
use quarry_proto::{Kind, Label};
use quote::{format_ident, quote};

use crate::model::{Def, Enm, Fld, Model, Msg, prost_camel, prost_snake, sanitize};
use crate::tables::dense_lookup;

/// Options of one generation.
#[derive(Debug, Clone, Default)]
pub(crate) struct Options {
    /// proto package -> Rust path of the module prost generated it into.
    pub prost_packages: HashMap<String, String>,
    /// The consumer's feature that enables the prost conversions.
    pub prost_feature: String,
    /// Emit prost conversions at all.
    pub prost: bool,
    /// Protobuf path (leading dot) -> Rust path of types not generated.
    pub extern_paths: Vec<(String, String)>,
    /// Protobuf path pattern -> attributes for matching types.
    pub type_attributes: Vec<(String, TokenStream)>,
    /// Protobuf path pattern -> attributes for matching fields' getters
    /// and enum values' variants.
    pub field_attributes: Vec<(String, TokenStream)>,
}

/// Every attribute of `list` whose pattern matches `full` (leading dot),
/// in the order they were given.
fn attrs_for(list: &[(String, TokenStream)], full: &str) -> TokenStream {
    let found = list
        .iter()
        .filter(|(p, _)| crate::paths::matches(p, full))
        .map(|(_, a)| a);
    quote!(#(#found)*)
}

/// `.pkg.Local.Path`: a type's fully qualified protobuf path.
fn proto_path(package: &str, local: &[String]) -> String {
    let mut s = String::new();
    for part in package.split('.').filter(|p| !p.is_empty()) {
        s.push('.');
        s.push_str(part);
    }
    for part in local {
        s.push('.');
        s.push_str(part);
    }
    s
}

/// The Rust module path of protobuf package `package`, from the
/// generated file's top (`foo.bar` -> `foo::bar`).
fn module_of(package: &str) -> Vec<String> {
    package
        .split('.')
        .filter(|p| !p.is_empty())
        .map(prost_snake)
        .collect()
}

/// Methods every view has, its own and those of the traits it derives
/// (which a getter of the same name would shadow in method calls): field
/// getters of these names get a `_` suffix. Other names are left alone.
const RESERVED: &[&str] = &[
    "decode",
    "from_record",
    "__from_record",
    "record",
    "encode",
    "encode_into",
    "to_json",
    "to_prost",
    "unknown_fields",
    "TABLE",
    "clone",
    "clone_from",
    "default",
    "eq",
    "ne",
    "fmt",
];

fn ident(s: &str) -> proc_macro2::Ident {
    match s.strip_prefix("r#") {
        Some(raw) => proc_macro2::Ident::new_raw(raw, proc_macro2::Span::call_site()),
        None => proc_macro2::Ident::new(s, proc_macro2::Span::call_site()),
    }
}

fn path(s: &str) -> TokenStream {
    s.parse()
        .unwrap_or_else(|_| quote!(compile_error!("invalid path")))
}

/// `#[doc]` lines: a summary, then the `.proto` comment verbatim in a
/// `text` block (so no Markdown in a schema can break rustdoc or clippy).
fn doc(summary: &str, comment: &str) -> TokenStream {
    let mut lines = vec![format!(" {summary}")];
    let body: Vec<&str> = comment.lines().map(str::trim_end).collect();
    if body.iter().any(|l| !l.trim().is_empty()) {
        lines.push(String::new());
        lines.push(" ```text".into());
        for l in body {
            lines.push(format!(" {}", l.replace("```", "'''")));
        }
        lines.push(" ```".into());
    }
    let attrs = lines.iter().map(|l| quote!(#[doc = #l]));
    quote!(#(#attrs)*)
}

struct Names {
    /// Base name (no `View`) per message, in its package's module.
    msg: Vec<String>,
    /// Rust enum name per enum, in its package's module.
    enm: Vec<String>,
    /// Rust enum name per oneof, per message.
    oneof: Vec<Vec<String>>,
    /// Module path per message (its package's).
    msg_module: Vec<Vec<String>>,
    /// Module path per enum (its package's).
    enm_module: Vec<Vec<String>>,
    /// The Rust path of a message's base name (`View` appended for the
    /// view) when an extern path maps it, per message.
    msg_extern: Vec<Option<String>>,
    /// The Rust path of an enum an extern path maps, per enum.
    enm_extern: Vec<Option<String>>,
    /// The module of the package being generated, which paths to other
    /// types are relative to.
    here: std::cell::RefCell<Vec<String>>,
}

impl Names {
    /// `super::` up to the generated file's top from the current module.
    fn root(&self) -> TokenStream {
        let ups = self
            .here
            .borrow()
            .iter()
            .map(|_| quote!(super::))
            .collect::<Vec<_>>();
        quote!(#(#ups)*)
    }

    /// A path from the current module to `name` in module `module`.
    fn relative(&self, module: &[String], name: &str) -> TokenStream {
        let item = ident(name);
        if *self.here.borrow() == module {
            return quote!(#item);
        }
        let root = self.root();
        let mods = module.iter().map(|m| ident(m));
        quote!(#root #(#mods::)* #item)
    }

    /// The view type of message `sub`, as a path from the current module.
    fn view(&self, sub: u32) -> TokenStream {
        let sub = sub as usize;
        match &self.msg_extern[sub] {
            Some(base) => path(&format!("{base}View")),
            None => self.relative(&self.msg_module[sub], &format!("{}View", self.msg[sub])),
        }
    }

    /// The Rust enum of enum `sub`, as a path from the current module.
    fn enum_ty(&self, sub: u32) -> TokenStream {
        let sub = sub as usize;
        match &self.enm_extern[sub] {
            Some(p) => path(p),
            None => self.relative(&self.enm_module[sub], &self.enm[sub]),
        }
    }
}

fn camel_path(parts: &[String]) -> String {
    parts.iter().map(|p| p.to_upper_camel_case()).collect()
}

fn assign_names(model: &Model, opts: &Options) -> Names {
    let msg_extern: Vec<Option<String>> = model
        .messages
        .iter()
        .map(|m| crate::paths::extern_base(&opts.extern_paths, &m.package, &m.local_path))
        .collect();
    let enm_extern: Vec<Option<String>> = model
        .enums
        .iter()
        .map(|e| crate::paths::extern_base(&opts.extern_paths, &e.package, &e.local_path))
        .collect();
    // Names are taken per package (each has its own module), so a file
    // of another package never renames a type. Inside a package, names
    // flattened from nested types can meet (`Outer.Inner` and a message
    // `OuterInner`): types of outer levels pick first, and a later one
    // that meets a taken name gets a number.
    let mut taken: HashMap<String, HashSet<String>> = HashMap::new();
    let mut msg = vec![String::new(); model.messages.len()];
    let mut enm = vec![String::new(); model.enums.len()];
    // (depth, is enum, index), in the schema's order within a depth.
    let mut order: Vec<(usize, bool, usize)> = model
        .messages
        .iter()
        .enumerate()
        .filter(|(i, _)| msg_extern[*i].is_none())
        .map(|(i, m)| (m.local_path.len(), false, i))
        .chain(
            model
                .enums
                .iter()
                .enumerate()
                .filter(|(i, _)| enm_extern[*i].is_none())
                .map(|(i, e)| (e.local_path.len(), true, i)),
        )
        .collect();
    order.sort_by_key(|&(depth, _, _)| depth);
    for (_, is_enum, i) in order {
        let (package, local) = if is_enum {
            (&model.enums[i].package, &model.enums[i].local_path)
        } else {
            (&model.messages[i].package, &model.messages[i].local_path)
        };
        let suffixes: &[&str] = if is_enum { &[""] } else { &["View", "Builder"] };
        let taken = taken.entry(package.clone()).or_default();
        let base = sanitize(&camel_path(local));
        let mut name = base.clone();
        let mut n = 2;
        loop {
            let all: Vec<String> = suffixes.iter().map(|s| format!("{name}{s}")).collect();
            if all.iter().all(|a| !taken.contains(a)) {
                taken.extend(all);
                break;
            }
            name = format!("{}{n}", base.trim_start_matches("r#"));
            n += 1;
        }
        if is_enum {
            enm[i] = name;
        } else {
            msg[i] = name;
        }
    }
    // Oneof enums are named after their message's view and the oneof, so
    // they can meet a schema's enum (`Foo.kind` and an enum `FooKindOneof`)
    // or each other (`Foo.a_b` and `FooA.b`). The schema's names were
    // taken first; a oneof that meets one gets a number.
    let oneof = model
        .messages
        .iter()
        .zip(&msg)
        .map(|(m, base)| {
            if base.is_empty() {
                return Vec::new();
            }
            let taken = taken.entry(m.package.clone()).or_default();
            m.oneofs
                .iter()
                .map(|o| {
                    let first = format!("{base}{}Oneof", o.to_upper_camel_case());
                    let mut name = first.clone();
                    let mut n = 2;
                    while !taken.insert(name.clone()) {
                        name = format!("{first}{n}");
                        n += 1;
                    }
                    name
                })
                .collect()
        })
        .collect();
    Names {
        msg,
        enm,
        oneof,
        msg_module: model
            .messages
            .iter()
            .map(|m| module_of(&m.package))
            .collect(),
        enm_module: model.enums.iter().map(|e| module_of(&e.package)).collect(),
        msg_extern,
        enm_extern,
        here: Default::default(),
    }
}

/// Rust variant names of an enum's declared values (first name per
/// number), prost's way: UpperCamel with the enum's name stripped.
fn variant_names(e: &Enm) -> Vec<(String, i32, String, String)> {
    let enum_camel = e
        .local_path
        .last()
        .map(|s| s.to_upper_camel_case())
        .unwrap_or_default();
    let mut seen_numbers = HashSet::new();
    let mut used = HashSet::new();
    let mut out = Vec::new();
    for (name, number, doc) in &e.declared {
        if !seen_numbers.insert(*number) {
            continue;
        }
        let camel = name.to_upper_camel_case();
        let stripped = camel
            .strip_prefix(&enum_camel)
            .filter(|s| s.starts_with(|c: char| c.is_uppercase()))
            .unwrap_or(&camel)
            .to_string();
        let mut v = sanitize(&stripped);
        if v.starts_with("r#") || v.ends_with('_') || !used.insert(v.clone()) {
            v = sanitize(&camel);
            if !used.insert(v.clone()) {
                v = format!("{v}{number}").replace('-', "Neg");
                used.insert(v.clone());
            }
        }
        out.push((v, *number, name.clone(), doc.clone()));
    }
    out
}

pub(crate) fn generate(model: &Model, opts: &Options) -> TokenStream {
    let names = assign_names(model, opts);
    let mut items = Vec::new();

    // Tables.
    let n_msgs = model.messages.len();
    let n_enums = model.enums.len();
    let mut msg_tables = Vec::new();
    for (i, m) in model.messages.iter().enumerate() {
        let f_name = format_ident!("F{}", i);
        let n_name = format_ident!("N{}", i);
        let fields = m.fields.iter().map(field_table);
        let nf = m.fields.len();
        let numbers: Vec<u32> = m.fields.iter().map(|f| f.number).collect();
        let lookup = dense_lookup(&numbers);
        let nl = lookup.len();
        let lookup_lits = lookup.iter().map(|v| Literal::u16_unsuffixed(*v));
        items.push(quote! {
            static #f_name: [::quarry_proto::FieldTable; #nf] = [#(#fields),*];
            static #n_name: [u16; #nl] = [#(#lookup_lits),*];
        });
        let full = &m.full_name;
        let oneofs = m.oneofs.iter();
        let map_entry = m.map_entry;
        msg_tables.push(quote! {
            ::quarry_proto::MessageTable {
                full_name: #full,
                fields: &#f_name,
                by_number: &#n_name,
                oneofs: &[#(#oneofs),*],
                map_entry: #map_entry,
                short: ::quarry_proto::MessageTable::short_of(&#f_name),
                dense: ::quarry_proto::MessageTable::dense_of(&#f_name),
            }
        });
    }
    let mut enum_tables = Vec::new();
    for (i, e) in model.enums.iter().enumerate() {
        let e_name = format_ident!("E{}", i);
        let values = e.by_number();
        let nv = values.len();
        let vals = values.iter().map(|(n, s)| quote!((#n, #s)));
        items.push(quote! {
            static #e_name: [(i32, &str); #nv] = [#(#vals),*];
        });
        let full = &e.full_name;
        let closed = e.closed;
        enum_tables.push(quote! {
            ::quarry_proto::EnumTable {
                full_name: #full,
                closed: #closed,
                values: &#e_name,
                known: ::quarry_proto::EnumTable::known_of(&#e_name),
            }
        });
    }
    let schema_doc = doc(
        "Decode tables of every message and enum of this schema (those of \
         types that extern paths map included), shared by all views.",
        "",
    );

    // Each package's items, in its module.
    let mut modules: std::collections::BTreeMap<Vec<String>, Vec<TokenStream>> =
        std::collections::BTreeMap::new();
    for (i, e) in model.enums.iter().enumerate() {
        if names.enm_extern[i].is_some() {
            continue;
        }
        *names.here.borrow_mut() = names.enm_module[i].clone();
        let item = enum_item(e, &names.enm[i], opts);
        modules
            .entry(names.enm_module[i].clone())
            .or_default()
            .push(item);
    }
    for (i, m) in model.messages.iter().enumerate() {
        if names.msg_extern[i].is_some() {
            continue;
        }
        *names.here.borrow_mut() = names.msg_module[i].clone();
        let item = view_item(model, &names, i, m, opts);
        modules
            .entry(names.msg_module[i].clone())
            .or_default()
            .push(item);
    }
    // The package name of each module path, for its documentation.
    let mut packages: HashMap<Vec<String>, String> = HashMap::new();
    for p in model
        .messages
        .iter()
        .map(|m| &m.package)
        .chain(model.enums.iter().map(|e| &e.package))
    {
        packages.insert(module_of(p), p.clone());
    }
    let top = nest(&[], &mut modules, &packages);
    quote! {
        #schema_doc
        pub static SCHEMA: ::quarry_proto::Schema = ::quarry_proto::Schema {
            messages: &__tables::MESSAGES,
            enums: &__tables::ENUMS,
        };
        /// The tables [`SCHEMA`] lists.
        mod __tables {
            #(#items)*
            pub(super) static MESSAGES: [::quarry_proto::MessageTable; #n_msgs] = [#(#msg_tables),*];
            pub(super) static ENUMS: [::quarry_proto::EnumTable; #n_enums] = [#(#enum_tables),*];
        }
        #top
    }
}

/// The items of module `at` and, nested, the modules under it.
fn nest(
    at: &[String],
    modules: &mut std::collections::BTreeMap<Vec<String>, Vec<TokenStream>>,
    packages: &HashMap<Vec<String>, String>,
) -> TokenStream {
    let own = modules.remove(at).unwrap_or_default();
    let children: Vec<String> = {
        let mut c: Vec<String> = modules
            .keys()
            .filter(|k| k.len() > at.len() && k.starts_with(at))
            .map(|k| k[at.len()].clone())
            .collect();
        c.dedup();
        c
    };
    let subs = children.iter().map(|c| {
        let mut path = at.to_vec();
        path.push(c.clone());
        let inner = nest(&path, modules, packages);
        let d = match packages.get(&path) {
            Some(p) => format!(" Package `{p}`."),
            None => format!(" Packages under `{}`.", path.join(".")),
        };
        let name = ident(c);
        quote! {
            #[doc = #d]
            pub mod #name {
                #inner
            }
        }
    });
    quote!(#(#own)* #(#subs)*)
}

fn field_table(f: &Fld) -> TokenStream {
    let number = f.number;
    let name = &f.name;
    let json = &f.json_name;
    let kind = ident(&format!("{:?}", f.kind));
    let label = ident(&format!("{:?}", f.label));
    let packed = f.packed;
    let sub = f.sub;
    let oneof = f.oneof;
    let in_oneof = f.oneof != 0;
    let op = if f.whole_entry {
        quote!(::quarry_proto::FieldTable::whole_entry_op(::quarry_proto::Kind::#kind))
    } else {
        quote!(::quarry_proto::FieldTable::op_of(
            ::quarry_proto::Kind::#kind,
            ::quarry_proto::Label::#label,
            #in_oneof,
            true,
        ))
    };
    let default = match &f.default {
        Def::Zero => quote!(::quarry_proto::DefaultValue::Zero),
        Def::Scalar(v) => {
            let v = Literal::u64_unsuffixed(*v);
            quote!(::quarry_proto::DefaultValue::Scalar(#v))
        }
        Def::Bytes(b) => {
            let b = Literal::byte_string(b);
            quote!(::quarry_proto::DefaultValue::Bytes(#b))
        }
    };
    quote! {
        ::quarry_proto::FieldTable {
            number: #number,
            name: #name,
            json_name: #json,
            kind: ::quarry_proto::Kind::#kind,
            label: ::quarry_proto::Label::#label,
            packed: #packed,
            utf8: true,
            sub: #sub,
            oneof: #oneof,
            default: #default,
            op: #op,
        }
    }
}

fn enum_item(e: &Enm, name: &str, opts: &Options) -> TokenStream {
    let ty = ident(name);
    let full_path = proto_path(&e.package, &e.local_path);
    let ta = attrs_for(&opts.type_attributes, &full_path);
    let variants = variant_names(e);
    let summary = format!(
        "Enum `{}` ({}).",
        e.full_name,
        if e.closed {
            "closed: values it does not list are kept as unknown fields"
        } else {
            "open"
        }
    );
    let d = doc(&summary, &e.doc);
    let decl = variants.iter().map(|(v, n, proto_name, vdoc)| {
        let v = ident(v);
        let d = doc(&format!("`{proto_name}` = {n}."), vdoc);
        let fa = attrs_for(&opts.field_attributes, &format!("{full_path}.{proto_name}"));
        quote!(#d #fa #v = #n)
    });
    let from = variants.iter().map(|(v, n, _, _)| {
        let v = ident(v);
        quote!(#n => ::core::option::Option::Some(Self::#v))
    });
    let to_name = variants.iter().map(|(v, _, proto_name, _)| {
        let v = ident(v);
        quote!(Self::#v => #proto_name)
    });
    // Every name of a value, aliases included, reads back.
    let from_name = e.declared.iter().map(|(proto_name, number, _)| {
        let v = variants
            .iter()
            .find(|v| v.1 == *number)
            .map(|v| ident(&v.0));
        quote!(#proto_name => ::core::option::Option::Some(Self::#v))
    });
    let first = variants.first().map(|v| ident(&v.0));
    quote! {
        #d
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #ta
        #[repr(i32)]
        #[allow(clippy::enum_variant_names)] // names come from the schema
        pub enum #ty {
            #(#decl),*
        }
        impl #ty {
            /// The variant numbered `value`, if the enum lists it.
            pub const fn from_i32(value: i32) -> ::core::option::Option<Self> {
                match value {
                    #(#from,)*
                    _ => ::core::option::Option::None,
                }
            }
            /// The value's name in the `.proto` file.
            pub const fn as_str_name(self) -> &'static str {
                match self {
                    #(#to_name),*
                }
            }
            /// The variant named `name` in the `.proto` file, if any.
            pub fn from_str_name(name: &str) -> ::core::option::Option<Self> {
                match name {
                    #(#from_name,)*
                    _ => ::core::option::Option::None,
                }
            }
        }
        /// The first value the `.proto` file lists: protobuf's default.
        impl ::core::default::Default for #ty {
            fn default() -> Self {
                Self::#first
            }
        }
        impl ::core::convert::From<#ty> for i32 {
            fn from(value: #ty) -> i32 {
                value as i32
            }
        }
        /// The variant numbered `value`, or the number back when the enum
        /// does not list it.
        impl ::core::convert::TryFrom<i32> for #ty {
            type Error = i32;
            fn try_from(value: i32) -> ::core::result::Result<Self, i32> {
                Self::from_i32(value).ok_or(value)
            }
        }
    }
}

/// The stored `u64` expression `e` as the Rust type of `kind`.
fn conv(kind: Kind, e: TokenStream) -> TokenStream {
    match kind {
        Kind::Int32 | Kind::SInt32 | Kind::SFixed32 | Kind::Enum => quote!((#e) as i32),
        Kind::Int64 | Kind::SInt64 | Kind::SFixed64 => quote!((#e) as i64),
        Kind::UInt32 | Kind::Fixed32 => quote!((#e) as u32),
        Kind::Bool => quote!((#e) != 0),
        Kind::Float => quote!(f32::from_bits((#e) as u32)),
        Kind::Double => quote!(f64::from_bits(#e)),
        _ => e,
    }
}

fn scalar_type(kind: Kind) -> TokenStream {
    match kind {
        Kind::Int32 | Kind::SInt32 | Kind::SFixed32 => quote!(i32),
        Kind::Int64 | Kind::SInt64 | Kind::SFixed64 => quote!(i64),
        Kind::UInt32 | Kind::Fixed32 => quote!(u32),
        Kind::Bool => quote!(bool),
        Kind::Float => quote!(f32),
        Kind::Double => quote!(f64),
        _ => quote!(u64),
    }
}

fn def_u64(f: &Fld) -> TokenStream {
    match f.default {
        Def::Scalar(v) => {
            let v = Literal::u64_unsuffixed(v);
            quote!(#v)
        }
        _ => quote!(0),
    }
}

/// What a getter of field `f` returns and how (for singular fields: the
/// value as the field's view type).
struct Getter {
    ty: TokenStream,
    body: TokenStream,
}

fn enum_fallback(model: &Model, names: &Names, f: &Fld) -> (TokenStream, bool) {
    let e = &model.enums[f.sub as usize];
    let ty = names.enum_ty(f.sub);
    let default = match f.default {
        Def::Scalar(v) => v as i64 as i32,
        _ => 0,
    };
    let vars = variant_names(e);
    let v = vars
        .iter()
        .find(|v| v.1 == default)
        .or(vars.first())
        .map(|v| ident(&v.0));
    (quote!(#ty::#v), e.closed)
}

fn singular_getter(model: &Model, names: &Names, f: &Fld, idx: &Literal) -> Getter {
    getter_on(model, names, f, idx, quote!(self.rec))
}

/// The getter of `f` reading record expression `rec`.
fn getter_on(model: &Model, names: &Names, f: &Fld, idx: &Literal, rec: TokenStream) -> Getter {
    match f.kind {
        Kind::Message | Kind::Group => {
            let v = names.view(f.sub);
            Getter {
                ty: quote!(::core::option::Option<#v<'a>>),
                body: quote!(#rec.message(#idx).map(#v::__from_record)),
            }
        }
        Kind::String => {
            let d = match &f.default {
                Def::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
                _ => String::new(),
            };
            Getter {
                ty: quote!(&'a str),
                body: quote!(#rec.str(#idx).unwrap_or(#d)),
            }
        }
        Kind::Bytes => {
            let d = match &f.default {
                Def::Bytes(b) => Literal::byte_string(b),
                _ => Literal::byte_string(b""),
            };
            Getter {
                ty: quote!(&'a [u8]),
                body: quote!(#rec.bytes(#idx).unwrap_or(#d)),
            }
        }
        Kind::Enum => {
            let ty = names.enum_ty(f.sub);
            let (fallback, closed) = enum_fallback(model, names, f);
            let d = def_u64(f);
            if closed {
                Getter {
                    ty: quote!(#ty),
                    body: quote!(#ty::from_i32(#rec.scalar(#idx).unwrap_or(#d) as i32).unwrap_or(#fallback)),
                }
            } else {
                Getter {
                    ty: quote!(::core::result::Result<#ty, i32>),
                    body: quote! {{
                        let raw = #rec.scalar(#idx).unwrap_or(#d) as i32;
                        #ty::from_i32(raw).ok_or(raw)
                    }},
                }
            }
        }
        kind => {
            let d = def_u64(f);
            Getter {
                ty: scalar_type(kind),
                body: conv(kind, quote!(#rec.scalar(#idx).unwrap_or(#d))),
            }
        }
    }
}

/// Method names of a view: snake_case field names, `has_` names for
/// fields with presence, oneof names, clear of the view's own methods and
/// of each other.
struct MemberNames {
    getters: Vec<String>,
    has: Vec<Option<String>>,
    /// `foo_opt` (the value as an `Option`) per field with a `has_` name.
    opt: Vec<Option<String>>,
    oneofs: Vec<String>,
}

fn member_names(m: &Msg) -> MemberNames {
    let mut used: HashSet<String> = RESERVED.iter().map(|s| s.to_string()).collect();
    let mut take = |want: String| {
        let mut name = want;
        while !used.insert(name.trim_start_matches("r#").to_string()) {
            name = format!("{}_", name.trim_start_matches("r#"));
        }
        name
    };
    // An extension's getter takes its own name (`ext` of `[pkg.ext]`),
    // after every declared field's, so adding an `extend` elsewhere never
    // renames a declared field's getter.
    let snake = |f: &Fld| f.extension.as_deref().unwrap_or(&f.name).to_snake_case();
    let has_presence = |f: &Fld| f.label == Label::Explicit && !f.kind.is_message();
    let n = m.fields.len();
    let (mut getters, mut has, mut opt) = (vec![String::new(); n], vec![None; n], vec![None; n]);
    let mut oneofs = Vec::new();
    for extensions in [false, true] {
        let part = || {
            m.fields
                .iter()
                .enumerate()
                .filter(move |(_, f)| f.extension.is_some() == extensions)
        };
        for (j, f) in part() {
            getters[j] = take(sanitize(&snake(f)));
        }
        for (j, f) in part().filter(|(_, f)| has_presence(f)) {
            has[j] = Some(take(format!("has_{}", snake(f))));
        }
        for (j, f) in part().filter(|(_, f)| has_presence(f)) {
            opt[j] = Some(take(format!("{}_opt", snake(f))));
        }
        if !extensions {
            oneofs = m
                .oneofs
                .iter()
                .map(|o| take(sanitize(&o.to_snake_case())))
                .collect();
        }
    }
    MemberNames {
        getters,
        has,
        opt,
        oneofs,
    }
}

/// `::quarry_proto::MapEntry` for map entry view `view` (of entry type
/// `m`: key field first, value second), what the map getter's
/// `MapIter` reads entries through.
fn map_entry_impl(model: &Model, names: &Names, m: &Msg, view: &proc_macro2::Ident) -> TokenStream {
    let kg = getter_on(
        model,
        names,
        &m.fields[0],
        &Literal::u32_unsuffixed(0),
        quote!(self.rec),
    );
    let vg = getter_on(
        model,
        names,
        &m.fields[1],
        &Literal::u32_unsuffixed(1),
        quote!(self.rec),
    );
    let (kt, kb) = (kg.ty, kg.body);
    let query = match m.fields[0].kind {
        Kind::String => quote!(&'q str),
        Kind::Bytes => quote!(&'q [u8]),
        _ => kt.clone(),
    };
    let (vt, vb) = if m.fields[1].kind.is_message() {
        let sv = names.view(m.fields[1].sub);
        (
            quote!(#sv<'a>),
            quote!(self.rec.message(1).map(#sv::__from_record).unwrap_or_default()),
        )
    } else {
        (vg.ty, vg.body)
    };
    quote! {
        impl<'a> ::quarry_proto::MapEntry<'a> for #view<'a> {
            type Key = #kt;
            type Query<'q> = #query;
            type Value = #vt;
            #[inline]
            fn entry(rec: ::quarry_proto::Record<'a>) -> Self {
                Self::__from_record(rec)
            }
            #[inline]
            fn map_key(self) -> #kt {
                #kb
            }
            #[inline]
            fn map_value(self) -> #vt {
                #vb
            }
            #[inline]
            fn key_is(self, key: Self::Query<'_>) -> bool {
                (#kb) == key
            }
        }
    }
}

fn view_item(model: &Model, names: &Names, i: usize, m: &Msg, opts: &Options) -> TokenStream {
    let base = &names.msg[i];
    let view = format_ident!("{}View", base);
    let index = i as u32;
    let root = names.root();
    let full_path = proto_path(&m.package, &m.local_path);
    let type_attrs = attrs_for(&opts.type_attributes, &full_path);
    let kind_word = if m.map_entry { "Map entry" } else { "Message" };
    let d = doc(
        &format!(
            "{kind_word} `{}`, read in place from its arena.",
            m.full_name
        ),
        &m.doc,
    );

    let MemberNames {
        getters: getter_names,
        has: has_names,
        opt: opt_names,
        oneofs: oneof_names,
    } = member_names(m);

    let mut methods = Vec::new();
    let mut extra_items = Vec::new();
    for (j, f) in m.fields.iter().enumerate() {
        let idx = Literal::u32_unsuffixed(j as u32);
        let g = ident(&getter_names[j]);
        let summary = format!(
            "{} `{}` = {}{}.",
            if f.extension.is_some() {
                "Extension"
            } else {
                "Field"
            },
            f.name,
            f.number,
            match (&f.label, f.kind.is_message()) {
                (Label::Repeated, _) => "",
                (_, true) => "; `None` when absent",
                (Label::Explicit, false) => "; its default when absent",
                (Label::Implicit, false) => "",
            }
        );
        let fd = doc(&summary, &f.doc);
        let field_path = match &f.extension {
            // An extension's path is its own full name.
            Some(_) => format!(".{}", f.name.trim_start_matches('[').trim_end_matches(']')),
            None => format!("{full_path}.{}", f.name),
        };
        let fa = attrs_for(&opts.field_attributes, &field_path);
        let fd = quote!(#fd #fa);
        if f.label == Label::Repeated {
            let sub_entry = f.kind.is_message() && model.messages[f.sub as usize].map_entry;
            let (ty, body) = if sub_entry {
                // Each key once, with `get` (`::quarry_proto::MapIter`,
                // over the entry view's `MapEntry` implementation).
                let ev = names.view(f.sub);
                (
                    quote!(::quarry_proto::MapIter<'a, #ev<'a>>),
                    quote!(::quarry_proto::MapIter::new(self.rec, #idx)),
                )
            } else {
                match f.kind {
                    Kind::Message | Kind::Group => {
                        let v = names.view(f.sub);
                        (
                            quote!(impl ::core::iter::ExactSizeIterator<Item = #v<'a>> + ::core::iter::DoubleEndedIterator + 'a),
                            quote!(self.rec.messages(#idx).map(#v::__from_record)),
                        )
                    }
                    Kind::String => (quote!(&'a [&'a str]), quote!(self.rec.strs(#idx))),
                    Kind::Bytes => (quote!(&'a [&'a [u8]]), quote!(self.rec.bytes_list(#idx))),
                    Kind::Enum => {
                        let ty = names.enum_ty(f.sub);
                        let (fallback, closed) = enum_fallback(model, names, f);
                        if closed {
                            (
                                quote!(impl ::core::iter::ExactSizeIterator<Item = #ty> + ::core::iter::DoubleEndedIterator + 'a),
                                quote!(self.rec.scalars(#idx).iter().map(|&v| #ty::from_i32(v as i32).unwrap_or(#fallback))),
                            )
                        } else {
                            (
                                quote!(impl ::core::iter::ExactSizeIterator<Item = ::core::result::Result<#ty, i32>> + ::core::iter::DoubleEndedIterator + 'a),
                                quote!(self.rec.scalars(#idx).iter().map(|&v| #ty::from_i32(v as i32).ok_or(v as i32))),
                            )
                        }
                    }
                    kind => {
                        let t = scalar_type(kind);
                        let c = conv(kind, quote!(v));
                        let body = if kind == Kind::UInt64 || kind == Kind::Fixed64 {
                            quote!(self.rec.scalars(#idx).iter().copied())
                        } else {
                            quote!(self.rec.scalars(#idx).iter().map(|&v| #c))
                        };
                        (
                            quote!(impl ::core::iter::ExactSizeIterator<Item = #t> + ::core::iter::DoubleEndedIterator + 'a),
                            body,
                        )
                    }
                }
            };
            methods.push(quote! {
                #fd
                #[inline]
                pub fn #g(self) -> #ty { #body }
            });
        } else {
            let gt = singular_getter(model, names, f, &idx);
            let ty = gt.ty;
            let body = gt.body;
            methods.push(quote! {
                #fd
                #[inline]
                pub fn #g(self) -> #ty { #body }
            });
        }
        if let Some(h) = &has_names[j] {
            let h = ident(h);
            let hd = format!(" True if field `{}` is present.", f.name);
            methods.push(quote! {
                #[doc = #hd]
                #[inline]
                pub fn #h(self) -> bool { self.rec.has(#idx) }
            });
        }
        if let Some(o) = &opt_names[j] {
            let o = ident(o);
            let od = format!(" Field `{}` if present, `None` if not.", f.name);
            let gt = singular_getter(model, names, f, &idx);
            let (ty, body) = (gt.ty, gt.body);
            methods.push(quote! {
                #[doc = #od]
                #[inline]
                pub fn #o(self) -> ::core::option::Option<#ty> {
                    if self.rec.has(#idx) { ::core::option::Option::Some(#body) } else { ::core::option::Option::None }
                }
            });
        }
    }

    // One enum per real oneof.
    for (k, oneof) in m.oneofs.iter().enumerate() {
        let members: Vec<(usize, &Fld)> = m
            .fields
            .iter()
            .enumerate()
            .filter(|(_, f)| f.oneof as usize == k + 1)
            .collect();
        let oneof_ty = format_ident!("{}", names.oneof[i][k]);
        let borrows = members.iter().any(|(_, f)| {
            matches!(
                f.kind,
                Kind::String | Kind::Bytes | Kind::Message | Kind::Group
            )
        });
        let lt = if borrows { quote!(<'a>) } else { quote!() };
        let mut variants = Vec::new();
        let mut arms = Vec::new();
        let mut used_v = HashSet::new();
        let mut var_names = Vec::new();
        for (j, f) in &members {
            let mut vn = sanitize(&f.name.to_upper_camel_case());
            while !used_v.insert(vn.clone()) {
                vn.push('_');
            }
            let v = ident(&vn);
            var_names.push(vn.clone());
            let idx = Literal::u32_unsuffixed(*j as u32);
            let gt = singular_getter(model, names, f, &idx);
            let vd = format!(" Field `{}` = {}.", f.name, f.number);
            if f.kind.is_message() {
                let sv = names.view(f.sub);
                variants.push(quote!(#[doc = #vd] #v(#sv<'a>)));
                arms.push(quote! {
                    if let Some(rec) = self.rec.message(#idx) {
                        return ::core::option::Option::Some(#oneof_ty::#v(#sv::__from_record(rec)));
                    }
                });
            } else {
                let ty = gt.ty;
                let body = gt.body;
                variants.push(quote!(#[doc = #vd] #v(#ty)));
                arms.push(quote! {
                    if self.rec.has(#idx) {
                        return ::core::option::Option::Some(#oneof_ty::#v(#body));
                    }
                });
            }
        }
        let od = format!(
            "The member of oneof `{oneof}` of `{}` that is set.",
            m.full_name
        );
        let oa = attrs_for(&opts.type_attributes, &format!("{full_path}.{oneof}"));
        extra_items.push(quote! {
            #[doc = #od]
            #[derive(Clone, Copy, Debug, PartialEq)]
            #oa
            #[allow(clippy::enum_variant_names)] // names come from the schema
            pub enum #oneof_ty #lt {
                #(#variants),*
            }
        });
        let g = ident(&oneof_names[k]);
        let gd = format!(" Which member of oneof `{oneof}` is set, if any.");
        methods.push(quote! {
            #[doc = #gd]
            pub fn #g(self) -> ::core::option::Option<#oneof_ty #lt> {
                #(#arms)*
                ::core::option::Option::None
            }
        });
    }

    if m.map_entry {
        extra_items.push(map_entry_impl(model, names, m, &view));
    } else {
        extra_items.push(builder_item(
            model,
            names,
            i,
            m,
            &getter_names,
            &oneof_names,
        ));
    }

    let prost_impl = if opts.prost && !m.map_entry {
        prost_conversion(model, names, m, &view, opts)
    } else {
        quote!()
    };

    quote! {
        #d
        #[derive(Clone, Copy, Default, PartialEq)]
        #type_attrs
        pub struct #view<'a> {
            rec: ::quarry_proto::Record<'a>,
        }

        /// The message's full name and its text format, on one line
        /// (`{:#?}`: one field per line).
        impl ::core::fmt::Debug for #view<'_> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                ::quarry_proto::text::fmt_debug(Self::TABLE, self.rec, f)
            }
        }

        #[allow(clippy::wrong_self_convention, clippy::should_implement_trait)] // getter names come from the schema
        impl<'a> #view<'a> {
            /// This message's type in the generated file's `SCHEMA`.
            pub const TABLE: ::quarry_proto::MessageRef = ::quarry_proto::MessageRef::new(&#root SCHEMA, #index);

            /// Decode `input` as this message into `arena` (default limits;
            /// one allocation into a fresh arena, none into a reused one).
            // `#[inline]` here and on the getters: a consumer of a crate of
            // generated views (as waproto is for buffa) otherwise pays a
            // call per getter and a call plus a copy of the result per
            // decode.
            #[inline]
            pub fn decode(arena: &'a ::quarry_proto::Arena, input: &'a [u8]) -> ::core::result::Result<Self, ::quarry_proto::DecodeError> {
                ::quarry_proto::decode(Self::TABLE, arena, input).map(Self::__from_record)
            }

            /// A view of `rec`, or `None` when its fields cannot be this
            /// type's (a field index the type lacks, or a value of another
            /// kind than the field's; nested messages are not looked at).
            /// Records of two types with the same fields pass for each other.
            #[inline]
            pub fn from_record(rec: ::quarry_proto::Record<'a>) -> ::core::option::Option<Self> {
                Self::TABLE.holds(rec).then_some(Self { rec })
            }

            /// A view of `rec`, which generated code knows to be of this
            /// type (not checked).
            #[doc(hidden)]
            #[inline]
            pub fn __from_record(rec: ::quarry_proto::Record<'a>) -> Self {
                Self { rec }
            }

            /// The underlying record.
            #[inline]
            pub fn record(self) -> ::quarry_proto::Record<'a> {
                self.rec
            }

            /// Fields the schema does not know, kept as they were on the wire.
            pub fn unknown_fields(self) -> impl ::core::iter::Iterator<Item = ::quarry_proto::UnknownField<'a>> + 'a {
                self.rec.unknown_fields()
            }

            /// The message encoded (exact size, one allocation); an error
            /// where it nests past the decoder's default depth limit or is
            /// longer than protobuf allows (see `quarry_proto::encode`).
            pub fn encode(self) -> ::core::result::Result<::std::vec::Vec<u8>, ::quarry_proto::DecodeError> {
                ::quarry_proto::encode(Self::TABLE, self.rec)
            }

            /// The message encoded, appended to `out` (no allocation when
            /// `out` has room); on error, `out` is as it was.
            pub fn encode_into(self, out: &mut ::std::vec::Vec<u8>) -> ::core::result::Result<(), ::quarry_proto::DecodeError> {
                ::quarry_proto::encode_into(Self::TABLE, self.rec, out)
            }

            /// The message in protobuf's canonical JSON mapping (an error
            /// where a well-known type holds what JSON cannot carry).
            pub fn to_json(self) -> ::core::result::Result<::std::string::String, ::quarry_proto::json::JsonError> {
                ::quarry_proto::json::to_json(Self::TABLE, self.rec)
            }

            #(#methods)*
        }

        #(#extra_items)*

        #prost_impl
    }
}

fn prost_type_path(model: &Model, m: &Msg, opts: &Options) -> Option<String> {
    let root = opts.prost_packages.get(&m.package)?;
    let mut parts: Vec<String> = vec![root.clone()];
    let n = m.local_path.len();
    for (k, p) in m.local_path.iter().enumerate() {
        if k + 1 < n {
            parts.push(prost_snake(p));
        } else {
            parts.push(prost_camel(p));
        }
    }
    let _ = model;
    Some(parts.join("::"))
}

/// How a borrowed singular value `v` of field `f` becomes prost's owned one.
fn owned(model: &Model, names: &Names, f: &Fld, v: TokenStream, boxed: bool) -> TokenStream {
    match f.kind {
        Kind::String => quote!((#v).to_owned()),
        Kind::Bytes => quote!((#v).to_vec()),
        Kind::Message | Kind::Group => {
            let _ = (model, names);
            if boxed {
                quote!(::std::boxed::Box::new((#v).to_prost()))
            } else {
                quote!((#v).to_prost())
            }
        }
        _ => v,
    }
}

fn prost_conversion(
    model: &Model,
    names: &Names,
    m: &Msg,
    view: &proc_macro2::Ident,
    opts: &Options,
) -> TokenStream {
    let member = member_names(m);
    let getters = &member.getters;
    let Some(ty) = prost_type_path(model, m, opts) else {
        return quote!();
    };
    let ty_path = path(&ty);
    let mut inits = Vec::new();
    for (j, f) in m.fields.iter().enumerate() {
        // prost's types have no extensions (nor unknown fields).
        if f.oneof != 0 || f.extension.is_some() {
            continue;
        }
        let name = ident(&prost_snake(&f.name));
        let g = ident(&getters[j]);
        let idx = Literal::u32_unsuffixed(j as u32);
        let d = def_u64(f);
        let value = if f.label == Label::Repeated {
            let entry = f
                .kind
                .is_message()
                .then(|| &model.messages[f.sub as usize])
                .filter(|e| e.map_entry);
            if let Some(entry) = entry {
                let k = owned(model, names, &entry.fields[0], quote!(k), false);
                let k = if entry.fields[0].kind == Kind::Enum {
                    quote!(k as i32)
                } else {
                    k
                };
                let vf = &entry.fields[1];
                let v = match vf.kind {
                    Kind::Enum => quote!(e.rec.scalar(1).unwrap_or(0) as i32),
                    _ => owned(model, names, vf, quote!(v), false),
                };
                let ev = names.view(f.sub);
                if vf.kind == Kind::Enum {
                    quote!(self.rec.messages(#idx).map(|rec| { let e = #ev::__from_record(rec); let k = e.key(); (#k, #v) }).collect())
                } else if k.to_string() == "k" && v.to_string() == "v" {
                    // Scalar keys and values are prost's own types: a
                    // `map` of the pair to itself is clippy's `map_identity`.
                    quote!(self.#g().collect())
                } else {
                    quote!(self.#g().map(|(k, v)| (#k, #v)).collect())
                }
            } else {
                match f.kind {
                    Kind::Message | Kind::Group => {
                        let sv = names.view(f.sub);
                        quote!(self.#g().map(#sv::to_prost).collect())
                    }
                    Kind::String => quote!(self.#g().iter().map(|s| (*s).to_owned()).collect()),
                    Kind::Bytes => quote!(self.#g().iter().map(|b| b.to_vec()).collect()),
                    Kind::Enum => {
                        quote!(self.rec.scalars(#idx).iter().map(|&v| v as i32).collect())
                    }
                    _ => quote!(self.#g().collect()),
                }
            }
        } else if f.kind.is_message() {
            let sv = names.view(f.sub);
            if f.required {
                if f.prost_boxed {
                    quote!(::std::boxed::Box::new(self.#g().unwrap_or_default().to_prost()))
                } else {
                    quote!(self.#g().unwrap_or_default().to_prost())
                }
            } else if f.prost_boxed {
                quote!(self.#g().map(|v| ::std::boxed::Box::new(v.to_prost())))
            } else {
                quote!(self.#g().map(#sv::to_prost))
            }
        } else {
            let v = match f.kind {
                Kind::Enum => quote!(self.rec.scalar(#idx).unwrap_or(#d) as i32),
                _ => owned(model, names, f, quote!(self.#g()), false),
            };
            if f.prost_optional {
                quote!(if self.rec.has(#idx) { ::core::option::Option::Some(#v) } else { ::core::option::Option::None })
            } else {
                v
            }
        };
        inits.push(quote!(#name: #value));
    }
    for (k, oneof) in m.oneofs.iter().enumerate() {
        let name = ident(&prost_snake(oneof));
        let oneof_ty = format_ident!(
            "{}",
            names.oneof[model.message_index[&m.full_name] as usize][k]
        );
        let prost_enum = path(&format!(
            "{}::{}::{}",
            ty.rsplit_once("::").map_or("", |(p, _)| p),
            prost_snake(m.local_path.last().map(String::as_str).unwrap_or("")),
            prost_camel(oneof)
        ));
        let mut used_v = HashSet::new();
        let arms = m
            .fields
            .iter()
            .enumerate()
            .filter(|(_, f)| f.oneof as usize == k + 1)
            .map(|(j, f)| {
                let mut vn = sanitize(&f.name.to_upper_camel_case());
                while !used_v.insert(vn.clone()) {
                    vn.push('_');
                }
                let v = ident(&vn);
                let pv = ident(&prost_camel(&f.name));
                let idx = Literal::u32_unsuffixed(j as u32);
                let val = match f.kind {
                    Kind::Enum => quote!(self.rec.scalar(#idx).unwrap_or(0) as i32),
                    _ => owned(model, names, f, quote!(v), f.prost_boxed),
                };
                if f.kind == Kind::Enum {
                    quote!(#oneof_ty::#v(_) => #prost_enum::#pv(#val))
                } else {
                    quote!(#oneof_ty::#v(v) => #prost_enum::#pv(#val))
                }
            });
        let getter = ident(&member.oneofs[k]);
        inits.push(quote!(#name: self.#getter().map(|o| match o { #(#arms),* })));
    }
    let feature = &opts.prost_feature;
    let doc = format!(
        " Convert to prost's owned `{ty}` (copies every string and byte field). \
         Recurses once per nesting level, as prost's own types do in `Drop`: \
         convert records within prost's limit of 100 levels."
    );
    quote! {
        #[cfg(feature = #feature)]
        impl #view<'_> {
            #[doc = #doc]
            pub fn to_prost(self) -> #ty_path {
                #ty_path { #(#inits),* }
            }
        }
    }
}

/// A Rust value `v` of scalar kind `kind` (an enum's: anything
/// `Into<i32>`) as the builder stores it (see `Record::scalar`).
fn norm(kind: Kind, v: TokenStream) -> TokenStream {
    match kind {
        Kind::Int32 | Kind::SInt32 | Kind::SFixed32 => quote!((#v) as i64 as u64),
        Kind::Enum => quote!(::core::convert::Into::<i32>::into(#v) as i64 as u64),
        Kind::Int64 | Kind::SInt64 | Kind::SFixed64 => quote!((#v) as u64),
        Kind::UInt32 | Kind::Fixed32 | Kind::Bool => quote!(u64::from(#v)),
        Kind::Float => quote!(u64::from((#v).to_bits())),
        Kind::Double => quote!((#v).to_bits()),
        _ => v,
    }
}

/// The Rust type a setter of a value of `f` takes (an enum's: a type
/// parameter `V: Into<i32>` named `param`).
fn set_type(names: &Names, f: &Fld, param: &TokenStream) -> TokenStream {
    match f.kind {
        Kind::String => quote!(&'a str),
        Kind::Bytes => quote!(&'a [u8]),
        Kind::Message | Kind::Group => {
            let v = names.view(f.sub);
            quote!(#v<'a>)
        }
        Kind::Enum => param.clone(),
        kind => scalar_type(kind),
    }
}

/// A map entry's key or value `v` of field `f` as a `MapValue`.
fn map_value(f: &Fld, v: TokenStream) -> TokenStream {
    match f.kind {
        Kind::String => quote!(::quarry_proto::MapValue::Str(#v)),
        Kind::Bytes => quote!(::quarry_proto::MapValue::Bytes(#v)),
        Kind::Message | Kind::Group => quote!(::quarry_proto::MapValue::Message((#v).record())),
        kind => {
            let n = norm(kind, v);
            quote!(::quarry_proto::MapValue::Scalar(#n))
        }
    }
}

/// `FooBuilder<'a>`: the typed builder of message `m` (not a map entry),
/// over `::quarry_proto::RecordBuilder`.
fn builder_item(
    model: &Model,
    names: &Names,
    i: usize,
    m: &Msg,
    getter_names: &[String],
    oneof_names: &[String],
) -> TokenStream {
    let base = &names.msg[i];
    let view = format_ident!("{}View", base);
    let builder = format_ident!("{}Builder", base);
    let d = format!(
        " Builds a `{}` in an arena: set fields, then `build` the \
         [`{view}`] to read or encode. Setters hold strings, bytes and \
         messages by reference; a set field set again is replaced, a oneof \
         member set clears the others.",
        m.full_name
    );
    let mut methods = Vec::new();
    let enum_param = quote!(V);
    for (j, f) in m.fields.iter().enumerate() {
        let idx = Literal::u32_unsuffixed(j as u32);
        let name = getter_names[j].trim_start_matches("r#");
        let set = format_ident!("set_{}", name);
        let clear = format_ident!("clear_{}", name);
        let what = if f.extension.is_some() {
            "extension"
        } else {
            "field"
        };
        let generics = if f.kind == Kind::Enum {
            quote!(<V: ::core::convert::Into<i32>>)
        } else {
            quote!()
        };
        let entry = f
            .kind
            .is_message()
            .then(|| &model.messages[f.sub as usize])
            .filter(|e| e.map_entry && f.label == Label::Repeated);
        let (doc, body, arg) = if let Some(entry) = entry {
            let (kf, vf) = (&entry.fields[0], &entry.fields[1]);
            let kt = set_type(names, kf, &enum_param);
            let vt = set_type(names, vf, &enum_param);
            let generics_v = if vf.kind == Kind::Enum {
                quote!(<V: ::core::convert::Into<i32>>)
            } else {
                quote!()
            };
            let (kv, vv) = (map_value(kf, quote!(k)), map_value(vf, quote!(v)));
            let doc = format!(
                " Set map {what} `{}` = {} to `entries`, in their order (a key or value \
                 equal to its default is left out of its entry, as prost does).",
                f.name, f.number
            );
            methods.push(quote! {
                #[doc = #doc]
                pub fn #set #generics_v(&mut self, entries: impl ::core::iter::IntoIterator<Item = (#kt, #vt), IntoIter: ::core::iter::ExactSizeIterator>) -> &mut Self {
                    self.b.set_map(#idx, entries.into_iter().map(|(k, v)| (#kv, #vv)));
                    self
                }
            });
            (String::new(), quote!(), quote!())
        } else if f.label == Label::Repeated {
            let t = set_type(names, f, &enum_param);
            let call = match f.kind {
                Kind::String => quote!(self.b.set_strs(#idx, values)),
                Kind::Bytes => quote!(self.b.set_bytes_list(#idx, values)),
                Kind::Message | Kind::Group => {
                    quote!(self.b.set_messages(#idx, values.into_iter().map(|v| v.record())))
                }
                Kind::UInt64 | Kind::Fixed64 => quote!(self.b.set_scalars(#idx, values)),
                Kind::UInt32 | Kind::Fixed32 | Kind::Bool => {
                    quote!(self.b.set_scalars(#idx, values.into_iter().map(u64::from)))
                }
                kind => {
                    let n = norm(kind, quote!(v));
                    quote!(self.b.set_scalars(#idx, values.into_iter().map(|v| #n)))
                }
            };
            (
                format!(
                    " Set repeated {what} `{}` = {} to `values`.",
                    f.name, f.number
                ),
                call,
                quote!(values: impl ::core::iter::IntoIterator<Item = #t, IntoIter: ::core::iter::ExactSizeIterator>),
            )
        } else {
            let t = set_type(names, f, &enum_param);
            let call = match f.kind {
                Kind::String => quote!(self.b.set_str(#idx, value)),
                Kind::Bytes => quote!(self.b.set_bytes(#idx, value)),
                Kind::Message | Kind::Group => quote!(self.b.set_message(#idx, value.record())),
                kind => {
                    let n = norm(kind, quote!(value));
                    quote!(self.b.set_scalar(#idx, #n))
                }
            };
            (
                format!(" Set {what} `{}` = {}.", f.name, f.number),
                call,
                quote!(value: #t),
            )
        };
        if !doc.is_empty() {
            methods.push(quote! {
                #[doc = #doc]
                #[inline]
                pub fn #set #generics(&mut self, #arg) -> &mut Self {
                    #body;
                    self
                }
            });
        }
        let cd = format!(" Leave {what} `{}` unset.", f.name);
        methods.push(quote! {
            #[doc = #cd]
            #[inline]
            pub fn #clear(&mut self) -> &mut Self {
                self.b.clear(#idx);
                self
            }
        });
    }
    for (k, oneof) in m.oneofs.iter().enumerate() {
        let clear = format_ident!("clear_{}", oneof_names[k].trim_start_matches("r#"));
        let k = k as u16;
        let cd = format!(" Leave every member of oneof `{oneof}` unset.");
        methods.push(quote! {
            #[doc = #cd]
            #[inline]
            pub fn #clear(&mut self) -> &mut Self {
                self.b.clear_oneof(#k);
                self
            }
        });
    }
    quote! {
        #[doc = #d]
        #[derive(Debug)]
        pub struct #builder<'a> {
            b: ::quarry_proto::RecordBuilder<'a>,
        }

        impl<'a> #builder<'a> {
            /// An empty message, built in `arena`.
            #[inline]
            pub fn new(arena: &'a ::quarry_proto::Arena) -> Self {
                Self { b: ::quarry_proto::RecordBuilder::new(arena, #view::TABLE) }
            }

            /// A message holding what `view` holds, unknown fields
            /// included, to change and send: its top-level fields are
            /// copied (references only), its strings, bytes and nested
            /// messages shared.
            #[inline]
            pub fn from_view(arena: &'a ::quarry_proto::Arena, view: #view<'a>) -> Self {
                Self { b: ::quarry_proto::RecordBuilder::from_record(arena, #view::TABLE, view.record()) }
            }

            /// The finished message, in the arena.
            #[inline]
            pub fn build(self) -> #view<'a> {
                #view::__from_record(self.b.build())
            }

            /// `s` copied into the arena, to set a string that must
            /// outlive its source.
            #[inline]
            pub fn copy_str(&self, s: &str) -> &'a str {
                self.b.copy_str(s)
            }

            /// `b` copied into the arena, to set bytes that must outlive
            /// their source.
            #[inline]
            pub fn copy_bytes(&self, b: &[u8]) -> &'a [u8] {
                self.b.copy_bytes(b)
            }

            /// Add a field the schema does not know, after those added
            /// before it.
            #[inline]
            pub fn push_unknown(&mut self, unknown: ::quarry_proto::UnknownField<'a>) -> &mut Self {
                self.b.push_unknown(unknown);
                self
            }

            /// The untyped builder underneath, for fields by index.
            #[inline]
            pub fn record_builder(&mut self) -> &mut ::quarry_proto::RecordBuilder<'a> {
                &mut self.b
            }

            #(#methods)*
        }
    }
}
