//! Code generator for `quarry-proto`: compiles `.proto` files with
//! [protox](https://docs.rs/protox) (pure Rust, no `protoc`) and writes,
//! for a `build.rs`,
//!
//! - the static decode tables of every message and enum (`SCHEMA`),
//! - a `FooView<'a>` per message: a getter per field (proto defaults for
//!   absent scalars, `Option` for absent messages, iterators or slices for
//!   repeated fields, `(key, value)` iterators for maps), a getter per
//!   extension of the message (named after the extension), `has_` getters
//!   for fields with presence, an enum per oneof, and
//!   `FooView::decode(&arena, &bytes)` that only passes its table to the
//!   shared decoder,
//! - a Rust enum per protobuf enum,
//! - optionally `to_prost()` conversions to the owned types prost-build
//!   generates for the same files, behind a feature of the consuming crate.
//!
//! The generated file holds the tables (`SCHEMA`) and one module per
//! protobuf package, nested as the package's name is (`foo.bar` in
//! `foo::bar`), so adding a file of another package renames nothing.
//! Views, oneof enums and Rust enums are named after the message's path in
//! its package, flattened: `Outer.Inner` becomes `OuterInnerView`, a oneof
//! `kind` of `Outer` becomes `OuterKindOneof` (`OuterKindOneof2` when an
//! enum of the schema or an earlier oneof has that name). Comments of the
//! `.proto` file become the items' documentation.
//!
//! As prost-build's `Config`, a [`Builder`] maps packages or types to
//! other crates instead of generating them ([`Builder::extern_path`]; the
//! well-known types map to `quarry_proto::well_known` by default), puts
//! attributes on types and fields ([`Builder::type_attribute`],
//! [`Builder::field_attribute`]), takes a `FileDescriptorSet` as input
//! ([`Builder::descriptor_set_file`]), and prints
//! `cargo:rerun-if-changed` for every file it reads, imports included.
//!
//! ```no_run
//! // build.rs (chat.proto says `package chat.v1;`)
//! quarry_proto_build::Builder::new()
//!     .file("proto/chat.proto")
//!     .include("proto")
//!     .extern_path(".common", "::common_proto::common")
//!     .type_attribute(".chat.v1.Message", "#[doc(alias = \"msg\")]")
//!     .compile("chat.rs")
//!     .unwrap();
//! // lib.rs: mod pb { include!(concat!(env!("OUT_DIR"), "/chat.rs")); }
//! //         use pb::chat::v1::MessageView;
//! ```
//!
//! [`load`] builds the same tables at run time (for tools such as the
//! `quarry` CLI); they drive the same decoder.

// The crate README's example runs as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod codegen;
mod model;
mod paths;
mod runtime;
mod tables;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use runtime::RuntimeSchema;

/// Why generation failed.
#[derive(Debug)]
pub struct Error(String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl From<protox::Error> for Error {
    fn from(e: protox::Error) -> Self {
        Error(e.to_string())
    }
}

/// Settings of one generation, built by chained calls.
#[derive(Debug, Clone)]
pub struct Builder {
    files: Vec<PathBuf>,
    includes: Vec<PathBuf>,
    /// Encoded `FileDescriptorSet`s, with the file each was read from.
    descriptor_sets: Vec<(Vec<u8>, Option<PathBuf>)>,
    prost_packages: HashMap<String, String>,
    prost_feature: String,
    rustfmt: bool,
    extern_paths: Vec<(String, String)>,
    well_known: bool,
    type_attributes: Vec<(String, String)>,
    field_attributes: Vec<(String, String)>,
}

/// The types of `google/protobuf/*.proto` that `quarry_proto::well_known`
/// holds views of (every one of `any`, `api`, `duration`, `empty`,
/// `field_mask`, `source_context`, `struct`, `timestamp`, `type` and
/// `wrappers`), which generated code refers to instead of generating them
/// again. `descriptor.proto`'s types are not among them.
pub const WELL_KNOWN_TYPES: &[&str] = &[
    "Any",
    "Api",
    "Method",
    "Mixin",
    "Duration",
    "Empty",
    "FieldMask",
    "SourceContext",
    "Struct",
    "Value",
    "ListValue",
    "NullValue",
    "Timestamp",
    "Type",
    "Field",
    "Enum",
    "EnumValue",
    "Option",
    "Syntax",
    "DoubleValue",
    "FloatValue",
    "Int64Value",
    "UInt64Value",
    "Int32Value",
    "UInt32Value",
    "BoolValue",
    "StringValue",
    "BytesValue",
];

/// The `.proto` files `quarry_proto::well_known` is generated from.
pub const WELL_KNOWN_FILES: &[&str] = &[
    "google/protobuf/any.proto",
    "google/protobuf/api.proto",
    "google/protobuf/duration.proto",
    "google/protobuf/empty.proto",
    "google/protobuf/field_mask.proto",
    "google/protobuf/source_context.proto",
    "google/protobuf/struct.proto",
    "google/protobuf/timestamp.proto",
    "google/protobuf/type.proto",
    "google/protobuf/wrappers.proto",
];

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

impl Builder {
    /// No files yet; prost conversions off; feature name `prost`; output
    /// formatted with prettyplease and then `rustfmt` when it is installed;
    /// protobuf's well-known types mapped to `quarry_proto::well_known`.
    pub fn new() -> Self {
        Self {
            files: Vec::new(),
            includes: Vec::new(),
            descriptor_sets: Vec::new(),
            prost_packages: HashMap::new(),
            prost_feature: "prost".into(),
            rustfmt: true,
            extern_paths: Vec::new(),
            well_known: true,
            type_attributes: Vec::new(),
            field_attributes: Vec::new(),
        }
    }

    /// Generate code for every file of an encoded `FileDescriptorSet` (as
    /// `protoc --include_imports --descriptor_set_out=FILE` writes it, or
    /// `prost_types::FileDescriptorSet` encoded), as for `.proto` files.
    /// Files of the set are also what `.proto` files given with
    /// [`file`](Self::file) may import. Comments become documentation when
    /// the set has source info (`protoc --include_source_info`).
    pub fn descriptor_set(mut self, encoded: impl Into<Vec<u8>>) -> Self {
        self.descriptor_sets.push((encoded.into(), None));
        self
    }

    /// [`descriptor_set`](Self::descriptor_set) read from `path` (which
    /// [`compile`](Self::compile) then names in a `cargo:rerun-if-changed`
    /// line).
    pub fn descriptor_set_file(mut self, path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref();
        let bytes =
            std::fs::read(path).map_err(|e| Error(format!("reading {}: {e}", path.display())))?;
        self.descriptor_sets.push((bytes, Some(path.to_path_buf())));
        Ok(self)
    }

    /// Refer to Rust path `rust_path` for the protobuf package or type
    /// `proto_path` (fully qualified, with its leading dot) instead of
    /// generating it: as prost-build's `extern_path`. A package maps to a
    /// module that holds its types under the names this generator gives
    /// them (a sub-package `.pkg.sub` to `rust_path::sub`); a message to
    /// the base of its types' names (`.pkg.Msg` -> `::x::Msg` means the
    /// view `::x::MsgView`; a nested `.pkg.Msg.Inner` is then
    /// `::x::MsgInnerView`); an enum to its Rust enum. The module must
    /// hold views of the same message definitions (the same fields with
    /// the same numbers), such as another crate generated by this
    /// generator from the same files. The longest matching path wins.
    pub fn extern_path(mut self, proto_path: &str, rust_path: &str) -> Self {
        self.extern_paths
            .push((proto_path.to_string(), rust_path.to_string()));
        self
    }

    /// Whether the types of [`WELL_KNOWN_TYPES`] (package
    /// `google.protobuf`) refer to `::quarry_proto::well_known` (default
    /// true) instead of being generated.
    pub fn well_known_types(mut self, yes: bool) -> Self {
        self.well_known = yes;
        self
    }

    /// Put `attribute` (Rust attributes, e.g. `#[derive(Hash)]`) before
    /// each generated type whose protobuf path `path` matches: the view of
    /// a message, the Rust enum of an enum, the enum of a oneof (path
    /// `.pkg.Msg.oneof`). Paths match as prost-build's do: `.` matches
    /// everything; a path with a leading dot matches that element and
    /// everything inside it (`.pkg`, `.pkg.Msg`); one without matches the
    /// elements whose full path ends with it (`Msg` matches `.a.Msg` and
    /// `.b.Msg`). Calls add up.
    pub fn type_attribute(mut self, path: &str, attribute: &str) -> Self {
        self.type_attributes
            .push((path.to_string(), attribute.to_string()));
        self
    }

    /// Put `attribute` before the getter of each field whose path
    /// (`.pkg.Msg.field`) `path` matches, and before each enum variant
    /// whose path (`.pkg.Enum.VALUE`) it matches; paths match as in
    /// [`type_attribute`](Self::type_attribute).
    pub fn field_attribute(mut self, path: &str, attribute: &str) -> Self {
        self.field_attributes
            .push((path.to_string(), attribute.to_string()));
        self
    }

    /// Generate code for `path` (and whatever it imports).
    pub fn file(mut self, path: impl AsRef<Path>) -> Self {
        self.files.push(path.as_ref().to_path_buf());
        self
    }

    /// Look imports up under `dir`. Without any, the directories of the
    /// files are used.
    pub fn include(mut self, dir: impl AsRef<Path>) -> Self {
        self.includes.push(dir.as_ref().to_path_buf());
        self
    }

    /// Emit `to_prost()` for messages of protobuf `package`, whose prost
    /// types live at Rust path `rust_path` (where the consumer included
    /// prost-build's output for that package, e.g. `crate::pb`).
    pub fn prost_package(mut self, package: &str, rust_path: &str) -> Self {
        self.prost_packages
            .insert(package.to_string(), rust_path.to_string());
        self
    }

    /// The consumer's feature that gates the prost conversions (default
    /// `prost`).
    pub fn prost_feature(mut self, feature: &str) -> Self {
        self.prost_feature = feature.to_string();
        self
    }

    /// Whether to pass the output through `rustfmt` when it is installed
    /// (default true; prettyplease's output is used otherwise).
    pub fn rustfmt(mut self, yes: bool) -> Self {
        self.rustfmt = yes;
        self
    }

    fn includes(&self) -> Vec<PathBuf> {
        if !self.includes.is_empty() {
            return self.includes.clone();
        }
        let mut dirs: Vec<PathBuf> = self
            .files
            .iter()
            .map(|f| {
                f.parent()
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|| PathBuf::from("."))
            })
            .collect();
        dirs.dedup();
        dirs
    }

    /// The files compiled, as a descriptor set (to hand to
    /// `prost_build::Config::compile_fds` in the same `build.rs`).
    pub fn file_descriptor_set(&self) -> Result<prost_types::FileDescriptorSet, Error> {
        Ok(self.compiler()?.file_descriptor_set())
    }

    fn compiler(&self) -> Result<protox::Compiler, Error> {
        use protox::file::{
            ChainFileResolver, DescriptorSetFileResolver, GoogleFileResolver, IncludeFileResolver,
        };
        let mut resolver = ChainFileResolver::new();
        let mut set_files = Vec::new();
        for (bytes, from) in &self.descriptor_sets {
            let what = || {
                from.as_ref()
                    .map_or("a descriptor set".to_string(), |p| p.display().to_string())
            };
            let set = <prost_types::FileDescriptorSet as prost::Message>::decode(bytes.as_slice())
                .map_err(|e| Error(format!("{}: not a FileDescriptorSet: {e}", what())))?;
            set_files.extend(set.file.iter().map(|f| f.name().to_string()));
            resolver.add(
                DescriptorSetFileResolver::decode(bytes.as_slice())
                    .map_err(|e| Error(format!("{}: not a FileDescriptorSet: {e}", what())))?,
            );
        }
        for dir in self.includes() {
            resolver.add(IncludeFileResolver::new(dir));
        }
        resolver.add(GoogleFileResolver::new());
        let mut c = protox::Compiler::with_file_resolver(resolver);
        c.include_source_info(true);
        c.include_imports(true);
        c.open_files(&set_files)?;
        c.open_files(&self.files)?;
        Ok(c)
    }

    /// The files a compile reads from disk: the `.proto` files given,
    /// every file they import (found under the include directories) and
    /// the descriptor sets read with
    /// [`descriptor_set_file`](Self::descriptor_set_file). Files compiled
    /// into protox (`google/protobuf/*.proto` when no include directory
    /// holds them) are not on disk and not listed.
    pub fn inputs(&self) -> Result<Vec<PathBuf>, Error> {
        Ok(self.inputs_of(&self.compiler()?))
    }

    fn inputs_of(&self, c: &protox::Compiler) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = self
            .descriptor_sets
            .iter()
            .filter_map(|(_, p)| p.clone())
            .collect();
        out.extend(c.files().filter_map(|f| f.path().map(Path::to_path_buf)));
        out
    }

    fn options(&self) -> Result<codegen::Options, Error> {
        let mut extern_paths = self.extern_paths.clone();
        if self.well_known {
            extern_paths.extend(WELL_KNOWN_TYPES.iter().map(|t| {
                (
                    format!(".google.protobuf.{t}"),
                    format!("::quarry_proto::well_known::{t}"),
                )
            }));
        }
        for (p, _) in &extern_paths {
            if !p.starts_with('.') {
                return Err(Error(format!(
                    "extern_path {p:?}: a fully qualified protobuf path starts with a dot"
                )));
            }
        }
        let parse = |list: &[(String, String)]| {
            list.iter()
                .map(|(p, a)| {
                    a.parse::<proc_macro2::TokenStream>()
                        .map(|t| (p.clone(), t))
                        .map_err(|e| Error(format!("attribute {a:?} for {p:?}: {e}")))
                })
                .collect::<Result<Vec<_>, Error>>()
        };
        Ok(codegen::Options {
            prost: !self.prost_packages.is_empty(),
            prost_packages: self.prost_packages.clone(),
            prost_feature: self.prost_feature.clone(),
            extern_paths,
            type_attributes: parse(&self.type_attributes)?,
            field_attributes: parse(&self.field_attributes)?,
        })
    }

    /// The generated Rust source: the decode tables (`SCHEMA`) at the top,
    /// and one module per protobuf package, nested as the package's name
    /// is (`foo.bar` in `pub mod foo { pub mod bar { … } }`; types of
    /// files without a package at the top).
    pub fn generate(&self) -> Result<String, Error> {
        let opts = self.options()?;
        self.generate_with(&self.compiler()?, &opts)
    }

    fn generate_with(
        &self,
        compiler: &protox::Compiler,
        opts: &codegen::Options,
    ) -> Result<String, Error> {
        let pool = compiler.descriptor_pool();
        let model = model::Model::from_pool(&pool);
        let sources: Vec<String> = pool.files().map(|f| f.name().to_string()).collect();
        let tokens = codegen::generate(&model, opts);
        let file: syn::File = syn::parse2(tokens)
            .map_err(|e| Error(format!("generated code does not parse: {e}")))?;
        let mut text = format!(
            "// @generated by quarry-proto-build from {}. Do not edit.\n\n{}",
            sources.join(", "),
            prettyplease::unparse(&file)
        );
        if self.rustfmt
            && let Some(formatted) = rustfmt(&text)
        {
            text = formatted;
        }
        Ok(text)
    }

    /// Generate into `$OUT_DIR/<name>` (one file, every package's module
    /// in it: `include!` it once) and print a `cargo:rerun-if-changed`
    /// line for each of the compile's [`inputs`](Self::inputs), imports
    /// included. For `build.rs`.
    pub fn compile(&self, name: &str) -> Result<PathBuf, Error> {
        let out = std::env::var_os("OUT_DIR")
            .ok_or_else(|| Error("OUT_DIR is not set (not in a build script?)".into()))?;
        let path = PathBuf::from(out).join(name);
        // One protox compile for the code and the list of files it read.
        let opts = self.options()?;
        let compiler = self.compiler()?;
        write(&path, &self.generate_with(&compiler, &opts)?)?;
        for f in self.inputs_of(&compiler) {
            println!("cargo:rerun-if-changed={}", f.display());
        }
        Ok(path)
    }

    /// Generate into `path`.
    pub fn write_to(&self, path: &Path) -> Result<(), Error> {
        write(path, &self.generate()?)
    }
}

fn write(path: &Path, text: &str) -> Result<(), Error> {
    std::fs::write(path, text).map_err(|e| Error(format!("writing {}: {e}", path.display())))
}

/// `text` through `rustfmt`, if it runs.
fn rustfmt(text: &str) -> Option<String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(std::env::var_os("RUSTFMT").unwrap_or_else(|| "rustfmt".into()))
        .args(["--edition", "2024", "--emit", "stdout", "--quiet"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let input = text.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().ok()?;
    writer.join().ok()?.ok()?;
    if out.status.success() {
        String::from_utf8(out.stdout).ok()
    } else {
        None
    }
}

/// Compile `files` (imports looked up under `includes`, or the files'
/// directories) into tables at run time.
///
/// ```no_run
/// let schema = quarry_proto_build::load(&["chat.proto"], &["."]).unwrap();
/// let msg = schema.message("chat.Message").unwrap();
/// let arena = quarry_proto::Arena::new();
/// let rec = quarry_proto::decode(msg, &arena, &[]).unwrap();
/// assert_eq!(quarry_proto::json::to_json(msg, rec).unwrap(), "{}");
/// ```
pub fn load(
    files: &[impl AsRef<Path>],
    includes: &[impl AsRef<Path>],
) -> Result<RuntimeSchema, Error> {
    let mut b = Builder::new();
    for f in files {
        b = b.file(f);
    }
    for i in includes {
        b = b.include(i);
    }
    let pool = b.compiler()?.descriptor_pool();
    Ok(runtime::build(&model::Model::from_pool(&pool)))
}
