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
//! Views, oneof enums and Rust enums are named after the message's path in
//! its package, flattened: `Outer.Inner` becomes `OuterInnerView`, a oneof
//! `kind` of `Outer` becomes `OuterKindOneof` (`OuterKindOneof2` when an
//! enum of the schema or an earlier oneof has that name). Comments of the
//! `.proto` file become the items' documentation.
//!
//! ```no_run
//! // build.rs
//! quarry_proto_build::Builder::new()
//!     .file("proto/chat.proto")
//!     .include("proto")
//!     .compile("chat.rs")
//!     .unwrap();
//! // lib.rs: mod chat { include!(concat!(env!("OUT_DIR"), "/chat.rs")); }
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
    prost_packages: HashMap<String, String>,
    prost_feature: String,
    rustfmt: bool,
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

impl Builder {
    /// No files yet; prost conversions off; feature name `prost`; output
    /// formatted with prettyplease and then `rustfmt` when it is installed.
    pub fn new() -> Self {
        Self {
            files: Vec::new(),
            includes: Vec::new(),
            prost_packages: HashMap::new(),
            prost_feature: "prost".into(),
            rustfmt: true,
        }
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
        let mut c = protox::Compiler::new(self.includes())?;
        c.include_source_info(true);
        c.include_imports(true);
        c.open_files(&self.files)?;
        Ok(c)
    }

    /// The generated Rust source.
    pub fn generate(&self) -> Result<String, Error> {
        let pool = self.compiler()?.descriptor_pool();
        let model = model::Model::from_pool(&pool);
        let opts = codegen::Options {
            prost: !self.prost_packages.is_empty(),
            prost_packages: self.prost_packages.clone(),
            prost_feature: self.prost_feature.clone(),
        };
        let sources: Vec<String> = self
            .files
            .iter()
            .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect();
        let tokens = codegen::generate(&model, &opts);
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

    /// Generate into `$OUT_DIR/<name>` and tell cargo to rerun when a
    /// `.proto` file changes. For `build.rs`.
    pub fn compile(&self, name: &str) -> Result<PathBuf, Error> {
        let out = std::env::var_os("OUT_DIR")
            .ok_or_else(|| Error("OUT_DIR is not set (not in a build script?)".into()))?;
        let path = PathBuf::from(out).join(name);
        self.write_to(&path)?;
        for f in &self.files {
            println!("cargo:rerun-if-changed={}", f.display());
        }
        Ok(path)
    }

    /// Generate into `path`.
    pub fn write_to(&self, path: &Path) -> Result<(), Error> {
        let text = self.generate()?;
        std::fs::write(path, text).map_err(|e| Error(format!("writing {}: {e}", path.display())))
    }
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
