//! `quarry wa …`: the WhatsApp binary node format.

mod json_in;
mod json_out;

use std::ffi::OsString;
use std::hint::black_box;

use quarry_core::{Arena, DecodeError};
use quarry_wa::wire::FLAG_COMPRESSED;

use crate::args::{self, Spec};
use crate::exit::Failure;
use crate::repeat;
use crate::{input, output};

/// Usage of `quarry wa`.
pub const USAGE: &str = "\
usage: quarry wa decode [--framed] [--json] FILE|-
       quarry wa decode [--framed] --repeat N [--reuse-arena] FILE|-
       quarry wa encode --json [--framed] FILE|-

decode   print the node in FILE (or stdin for -): XML-like by default,
         --json for the canonical JSON document (one line)
encode   read one JSON document and write the node bytes to stdout

  --framed       the input (decode) or output (encode) starts with the
                 flags byte; 0x02 in it means a zlib-compressed body
  --json         JSON instead of XML-like text (encode: required)
  --repeat N     decode N times and print nothing (for valgrind), after
                 one warm-up decode that --repeat 0 also runs
  --reuse-arena  with --repeat: one arena, reset between decodes
                 (default: a fresh arena for every decode)

exit status: 0 ok, 1 I/O error, 2 malformed input or usage error
";

const DECODE: Spec = Spec {
    flags: &["--framed", "--json", "--reuse-arena"],
    options: &["--repeat"],
    usage: USAGE,
};

const ENCODE: Spec = Spec {
    flags: &["--framed", "--json"],
    options: &[],
    usage: USAGE,
};

/// Run `quarry wa <args>`.
pub fn run(args: impl Iterator<Item = OsString>) -> Result<(), Failure> {
    args::dispatch("wa", args, &[("decode", decode), ("encode", encode)], USAGE)
}

fn decode(args: impl Iterator<Item = OsString>) -> Result<(), Failure> {
    let parsed = args::parse(args, &DECODE)?;
    if parsed.help {
        return output::write(USAGE.as_bytes());
    }
    let path = parsed.one_positional("FILE (or - for stdin)", &DECODE)?;
    let framed = parsed.flag("--framed");
    let (repeat, mode) = repeat::options(&parsed, USAGE)?;
    let bytes = input::read(path)?;
    let to_failure = |e: &DecodeError| decode_failure(e, framed, &bytes);

    if let Some(count) = repeat {
        let input = bytes.as_slice();
        let new_arena = || {
            if framed {
                quarry_wa::arena_for_frame(input)
            } else {
                quarry_wa::arena_for(input)
            }
        };
        return if framed {
            repeat::run(count, mode, new_arena, |arena| {
                quarry_wa::decode_frame(arena, input).map(|node| {
                    black_box(node);
                })
            })
        } else {
            repeat::run(count, mode, new_arena, |arena| {
                quarry_wa::decode(arena, input).map(|node| {
                    black_box(node);
                })
            })
        }
        .map_err(|e| to_failure(&e));
    }

    let arena = Arena::new();
    let node = if framed {
        quarry_wa::decode_frame(&arena, &bytes)
    } else {
        quarry_wa::decode(&arena, &bytes)
    }
    .map_err(|e| to_failure(&e))?;
    let mut text = String::with_capacity(bytes.len().saturating_mul(3).saturating_add(64));
    if parsed.flag("--json") {
        json_out::write_node(&mut text, node);
    } else {
        use std::fmt::Write;
        let _ = write!(text, "{node}");
    }
    text.push('\n');
    output::write(text.as_bytes())
}

fn encode(args: impl Iterator<Item = OsString>) -> Result<(), Failure> {
    let parsed = args::parse(args, &ENCODE)?;
    if parsed.help {
        return output::write(USAGE.as_bytes());
    }
    if !parsed.flag("--json") {
        return Err(Failure::usage(
            "encode reads JSON: --json is required",
            USAGE,
        ));
    }
    let path = parsed.one_positional("FILE (or - for stdin)", &ENCODE)?;
    let node = json_in::parse(&input::read(path)?)?;
    let bytes = if parsed.flag("--framed") {
        quarry_wa::encode_frame(&node)
    } else {
        quarry_wa::encode(&node)
    }
    .map_err(|e| Failure::Invalid(format!("cannot encode: {e}")))?;
    output::write(&bytes)
}

/// A decode error of a compressed frame that lies inside the node bytes
/// counts from the start of the inflated body, not of the file: say so.
fn decode_failure(error: &DecodeError, framed: bool, input: &[u8]) -> Failure {
    let compressed = framed && input.first().is_some_and(|f| f & FLAG_COMPRESSED != 0);
    let in_body = match *error {
        DecodeError::Inflate { .. } | DecodeError::InflatedLimit { .. } => false,
        // Bytes after the zlib stream run to the end of the file (frame
        // coordinates); bytes after the root node run to the end of the
        // inflated body. Only an inflated body exactly as long as the
        // frame is ambiguous, and it is then labelled as the zlib case.
        DecodeError::TrailingBytes { offset, count } => offset.saturating_add(count) != input.len(),
        _ => true,
    };
    Failure::decode(error, (compressed && in_body).then_some("inflated body"))
}
