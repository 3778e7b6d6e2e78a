//! `quarry proto …`: protobuf messages of a schema given as a `.proto`
//! file, compiled at run time (protox) into the same tables generated code
//! uses, decoded by the same decoder and encoded by the same encoder.

use std::ffi::OsString;
use std::hint::black_box;
use std::path::{Path, PathBuf};

use quarry_proto::MessageRef;

use crate::args::{self, Spec};
use crate::exit::Failure;
use crate::repeat;
use crate::{input, output};

/// Usage of `quarry proto`.
pub const USAGE: &str = "\
usage: quarry proto decode --proto FILE.proto --type NAME [--include DIR] [--json] FILE|-
       quarry proto decode --proto FILE.proto --type NAME [--include DIR] --repeat N [--reuse-arena] FILE|-
       quarry proto encode --proto FILE.proto --type NAME [--include DIR] [--json] FILE|-

decode   print the message in FILE (or stdin for -): protobuf text format
         (as protoc --decode prints it) by default, --json for protobuf's
         canonical JSON mapping (one line)
encode   read the message in FILE (or stdin for -) in protobuf's canonical
         JSON mapping (what decode --json prints; the only input form, so
         --json may be given or not) and write its binary encoding

  --proto FILE   the schema (imports are looked up next to it, or in DIR)
  --type NAME    the message type: fully qualified (pkg.Outer.Inner), or
                 without its package when that is unambiguous
  --include DIR  where imports are looked up (besides the schema's directory)
  --json         decode: JSON instead of text format; encode: the input
                 is JSON (always)
  --repeat N     decode N times and print nothing (for valgrind), after
                 one warm-up decode that --repeat 0 also runs
  --reuse-arena  with --repeat: one arena, reset between decodes
                 (default: a fresh arena for every decode)

exit status: 0 ok, 1 I/O error, 2 malformed input or usage error
  (for encode, \"error: <what> at <JSON path>\" or \"... at byte N\")
";

const DECODE: Spec = Spec {
    flags: &["--json", "--reuse-arena"],
    options: &["--proto", "--type", "--include", "--repeat"],
    usage: USAGE,
};

/// Run `quarry proto <args>`.
pub fn run(args: impl Iterator<Item = OsString>) -> Result<(), Failure> {
    args::dispatch(
        "proto",
        args,
        &[("decode", decode), ("encode", encode)],
        USAGE,
    )
}

/// Compile `proto` and find message type `name` in it.
fn load(proto: &str, include: Option<&str>, name: &str) -> Result<MessageRef, Failure> {
    let path = Path::new(proto);
    std::fs::metadata(path).map_err(|e| Failure::Io(format!("reading {proto}: {e}")))?;
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    // `--include` first: when it holds the schema, the schema's name (and
    // so how other files import it) is its path below that directory, as
    // protoc's `-I` has it; the schema's own directory comes next, so a
    // schema outside `--include` still compiles.
    let dirs: Vec<PathBuf> = include
        .map(PathBuf::from)
        .into_iter()
        .chain([dir])
        .collect();
    let schema = quarry_proto_build::load(&[path], &dirs)
        .map_err(|e| Failure::Invalid(format!("cannot compile {proto}: {e}")))?;
    schema
        .message(name)
        .ok_or_else(|| Failure::Invalid(format!("no message type {name:?} in {proto}")))
}

/// The `--proto` and `--type` options every subcommand needs.
fn schema_options(parsed: &args::Parsed) -> Result<(&str, &str), Failure> {
    let proto = parsed
        .option("--proto")
        .ok_or_else(|| Failure::usage("missing --proto FILE.proto", USAGE))?;
    let name = parsed
        .option("--type")
        .ok_or_else(|| Failure::usage("missing --type NAME", USAGE))?;
    Ok((proto, name))
}

fn decode(args: impl Iterator<Item = OsString>) -> Result<(), Failure> {
    let parsed = args::parse(args, &DECODE)?;
    if parsed.help {
        return output::write(USAGE.as_bytes());
    }
    let path = parsed.one_positional("FILE (or - for stdin)", &DECODE)?;
    let (proto, name) = schema_options(&parsed)?;
    let (repeat, mode) = repeat::options(&parsed, USAGE)?;
    let message = load(proto, parsed.option("--include"), name)?;
    let bytes = input::read(path)?;

    // A file the user names is trusted input: its length alone bounds
    // items and arena bytes, as it does for protoc and prost.
    let decoder = quarry_proto::Decoder {
        options: quarry_proto::input_bounded_options(bytes.len()),
        ..quarry_proto::Decoder::new()
    };
    if let Some(count) = repeat {
        let input = bytes.as_slice();
        let new_arena = || quarry_proto::arena_for(input);
        return repeat::run(count, mode, new_arena, |arena| {
            decoder.decode(message, arena, input).map(|rec| {
                black_box(rec);
            })
        })
        .map_err(|e| Failure::decode(&e, None));
    }

    let arena = quarry_proto::arena_for(&bytes);
    let record = decoder
        .decode(message, &arena, &bytes)
        .map_err(|e| Failure::decode(&e, None))?;
    let text = if parsed.flag("--json") {
        let mut json = quarry_proto::json::to_json(message, record)
            .map_err(|e| Failure::Invalid(format!("no JSON form: {e}")))?;
        json.push('\n');
        json
    } else {
        quarry_proto::text::to_text(message, record)
    };
    output::write(text.as_bytes())
}

const ENCODE: Spec = Spec {
    flags: &["--json"],
    options: &["--proto", "--type", "--include"],
    usage: USAGE,
};

fn encode(args: impl Iterator<Item = OsString>) -> Result<(), Failure> {
    let parsed = args::parse(args, &ENCODE)?;
    if parsed.help {
        return output::write(USAGE.as_bytes());
    }
    let path = parsed.one_positional("FILE (or - for stdin)", &ENCODE)?;
    let (proto, name) = schema_options(&parsed)?;
    let message = load(proto, parsed.option("--include"), name)?;
    let bytes = input::read(path)?;
    let text = std::str::from_utf8(&bytes)
        .map_err(|e| Failure::Invalid(format!("not UTF-8 at byte {}", e.valid_up_to())))?;
    let arena = quarry_proto::Arena::new();
    let record = quarry_proto::json::from_json(message, &arena, text)
        .map_err(|e| Failure::Invalid(e.to_string()))?;
    let binary = quarry_proto::encode(message, record).map_err(|e| Failure::decode(&e, None))?;
    output::write(&binary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quarry_core::Arena;

    /// A schema written to a fresh directory.
    fn schema(text: &str) -> (PathBuf, String) {
        let dir = std::env::temp_dir().join(format!(
            "quarry-cli-proto-{}-{}",
            std::process::id(),
            text.len()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.proto");
        std::fs::write(&path, text).unwrap();
        (dir, path.to_string_lossy().into_owned())
    }

    const SCHEMA: &str = r#"
        syntax = "proto3";
        package t;
        enum E { E_ZERO = 0; E_ONE = 1; }
        message Inner { string s = 1; }
        message M {
          int64 big = 1;
          E e = 2;
          Inner inner = 3;
          repeated uint32 ns = 4;
          map<string, int32> m = 5;
          bytes raw = 6;
          float f = 7;
        }
    "#;

    #[test]
    fn runtime_tables_decode_and_print_canonical_json() {
        let (_dir, path) = schema(SCHEMA);
        let msg = load(&path, None, "t.M").unwrap();
        assert_eq!(load(&path, None, "M").unwrap().index, msg.index);
        // big = -1 (10-byte varint), e = 1, inner {s: "é"}, ns = [1, 300]
        // packed, m {"k": 2}, raw = [0xFF], f = 0.1f.
        let mut bytes = vec![0x08];
        bytes.extend([0xFF; 9]);
        bytes.push(0x01);
        bytes.extend([0x10, 0x01, 0x1A, 0x04, 0x0A, 0x02, 0xC3, 0xA9]);
        bytes.extend([0x22, 0x03, 0x01, 0xAC, 0x02]);
        bytes.extend([0x2A, 0x05, 0x0A, 0x01, b'k', 0x10, 0x02]);
        bytes.extend([0x32, 0x01, 0xFF]);
        bytes.push(0x3D);
        bytes.extend(0.1f32.to_le_bytes());
        let arena = Arena::new();
        let rec = quarry_proto::decode(msg, &arena, &bytes).unwrap();
        assert_eq!(
            quarry_proto::json::to_json(msg, rec).unwrap(),
            r#"{"big":"-1","e":"E_ONE","inner":{"s":"é"},"ns":[1,300],"m":{"k":2},"raw":"/w==","f":0.1}"#
        );
        assert_eq!(
            quarry_proto::text::to_text(msg, rec),
            "big: -1\ne: E_ONE\ninner {\n  s: \"\\303\\251\"\n}\nns: 1\nns: 300\nm {\n  key: \"k\"\n  value: 2\n}\nraw: \"\\377\"\nf: 0.1\n"
        );
        assert_eq!(quarry_proto::encode(msg, rec).unwrap(), bytes);
    }

    #[test]
    fn errors_name_the_byte() {
        let (_dir, path) = schema(SCHEMA);
        let msg = load(&path, None, "t.M").unwrap();
        let arena = Arena::new();
        let err = quarry_proto::decode(msg, &arena, &[0x1A, 0x05, 0x0A]).unwrap_err();
        let Failure::Invalid(text) = Failure::decode(&err, None) else {
            panic!()
        };
        assert_eq!(
            text,
            "length past the end of the message: 5 bytes, 1 left at byte 1"
        );
        assert!(matches!(
            load(&path, None, "t.Nope"),
            Err(Failure::Invalid(_))
        ));
        assert!(matches!(
            load("/no/such.proto", None, "X"),
            Err(Failure::Io(_))
        ));
        let (_dir, bad) = schema("syntax = \"proto3\"; message {");
        assert!(matches!(load(&bad, None, "X"), Err(Failure::Invalid(_))));
    }
}
