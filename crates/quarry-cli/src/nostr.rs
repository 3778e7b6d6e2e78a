//! `quarry nostr …`: Nostr (NIP-01) events and relay/client messages, one
//! per line (JSONL).

use std::ffi::OsString;
use std::hint::black_box;
use std::io::Write;

use quarry_core::{Arena, DecodeError};
use quarry_nostr::{Decoder, Event, IdCheck};

use crate::args::{self, Spec};
use crate::exit::Failure;
use crate::repeat::{self, ArenaMode};
use crate::{input, output};

/// Usage of `quarry nostr`.
pub const USAGE: &str = "\
usage: quarry nostr decode [--json] [--event] [--verify-sig] [--no-verify-id] FILE|-
       quarry nostr decode [--event] [--no-verify-id] --repeat N [--reuse-arena] FILE|-

decode   read one message per line (JSONL) from FILE (or stdin for -) and
         print each decoded message on one line; a malformed line prints
         'error: line L: <what> at byte <offset>' on stderr (offset within
         the line) and the next line is decoded; exit status 2 if any line
         was malformed

  --json          print NIP-01's JSON form, each event object with
                  \"id_valid\" (and \"sig_valid\" with --verify-sig) added
  --event         each line is one bare event object, not a message
  --verify-sig    check BIP-340 signatures too
  --no-verify-id  do not hash events to check their ids (id_valid: null)
  --repeat N      decode every line N times and print nothing (for valgrind),
                  after one warm-up decode that --repeat 0 also runs
  --reuse-arena   with --repeat: one arena, reset between decodes
                  (default: a fresh arena for every decode)

Messages of both directions are accepted: relay to client (EVENT, OK,
EOSE, CLOSED, NOTICE, AUTH, COUNT, NEG-MSG, NEG-ERR) and client to relay
(EVENT, REQ, CLOSE, AUTH, COUNT, NEG-OPEN, NEG-MSG, NEG-CLOSE).

exit status: 0 ok, 1 I/O error, 2 malformed input or usage error
";

const DECODE: Spec = Spec {
    flags: &[
        "--json",
        "--event",
        "--verify-sig",
        "--no-verify-id",
        "--reuse-arena",
    ],
    options: &["--repeat"],
    usage: USAGE,
};

/// Run `quarry nostr <args>`.
pub fn run(args: impl Iterator<Item = OsString>) -> Result<(), Failure> {
    args::dispatch("nostr", args, &[("decode", decode)], USAGE)
}

/// The lines of a JSONL input with their 1-based numbers: `\n` separated,
/// a trailing `\r` dropped, blank lines skipped.
fn lines(bytes: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .map(|(i, line)| (i + 1, line.strip_suffix(b"\r").unwrap_or(line)))
        .filter(|(_, line)| !line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')))
}

#[derive(Clone, Copy)]
struct Opts {
    json: bool,
    event: bool,
    verify_sig: bool,
    decoder: Decoder,
}

fn decode(args: impl Iterator<Item = OsString>) -> Result<(), Failure> {
    let parsed = args::parse(args, &DECODE)?;
    if parsed.help {
        return output::write(USAGE.as_bytes());
    }
    let path = parsed.one_positional("FILE (or - for stdin)", &DECODE)?;
    let (repeat, mode) = repeat::options(&parsed, USAGE)?;
    let opts = Opts {
        json: parsed.flag("--json"),
        event: parsed.flag("--event"),
        verify_sig: parsed.flag("--verify-sig"),
        decoder: Decoder {
            id_check: if parsed.flag("--no-verify-id") {
                IdCheck::Skip
            } else {
                IdCheck::Report
            },
            ..Decoder::new()
        },
    };
    let bytes = input::read(path)?;
    let mut malformed = false;
    let mut report = |line_no: usize, e: &DecodeError| {
        malformed = true;
        let failure = Failure::decode(e, Some(&format!("line {line_no}")));
        let _ = failure.report();
    };

    if let Some(count) = repeat {
        let mut shared = Arena::new();
        for (line_no, line) in lines(&bytes) {
            let result = match mode {
                ArenaMode::Fresh => {
                    let new_arena = || quarry_nostr::arena_for(line);
                    repeat::run(count, mode, new_arena, |arena| {
                        decode_once(&opts, arena, line)
                    })
                }
                ArenaMode::Reused => {
                    repeat::run_in(count, &mut shared, |arena| decode_once(&opts, arena, line))
                }
            };
            if let Err(e) = result {
                report(line_no, &e);
            }
        }
    } else {
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        let mut buf = Vec::with_capacity(1 << 16);
        let mut arena = Arena::new();
        for (line_no, line) in lines(&bytes) {
            match print_one(&opts, &arena, line, &mut buf) {
                Ok(()) => buf.push(b'\n'),
                Err(e) => {
                    // Keep stdout and stderr in line order.
                    flush(&mut out, &mut buf)?;
                    report(line_no, &e);
                }
            }
            if buf.len() >= 1 << 16 {
                flush(&mut out, &mut buf)?;
            }
            arena.reset();
        }
        flush(&mut out, &mut buf)?;
    }
    if malformed {
        // Every malformed line is already reported on stderr and stdout
        // is flushed: end with status 2 and no further message.
        std::process::exit(i32::from(crate::exit::EXIT_INVALID));
    }
    Ok(())
}

fn flush(out: &mut impl Write, buf: &mut Vec<u8>) -> Result<(), Failure> {
    out.write_all(buf)
        .and_then(|()| out.flush())
        .map_err(|e| Failure::Io(format!("writing stdout: {e}")))?;
    buf.clear();
    Ok(())
}

fn decode_once(opts: &Opts, arena: &Arena, line: &[u8]) -> Result<(), DecodeError> {
    if opts.event {
        black_box(opts.decoder.decode_event(arena, line)?);
    } else {
        black_box(opts.decoder.decode_message(arena, line)?);
    }
    Ok(())
}

/// `,"id_valid":…` (and `,"sig_valid":…`) for an event object.
fn extra_members(verify_sig: bool) -> impl FnMut(Event<'_>, &mut Vec<u8>) {
    move |event, out| {
        out.extend_from_slice(match event.id_valid() {
            Some(true) => b",\"id_valid\":true",
            Some(false) => b",\"id_valid\":false",
            None => b",\"id_valid\":null",
        });
        if verify_sig {
            out.extend_from_slice(if event.verify_signature() {
                b",\"sig_valid\":true"
            } else {
                b",\"sig_valid\":false"
            });
        }
    }
}

fn print_one(
    opts: &Opts,
    arena: &Arena,
    line: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), DecodeError> {
    let mut extra = extra_members(opts.verify_sig);
    if opts.event {
        let event = opts.decoder.decode_event(arena, line)?;
        if opts.json {
            event.encode_into_extra(out, &mut extra);
        } else {
            summary(opts, event, out);
        }
        return Ok(());
    }
    let msg = opts.decoder.decode_message(arena, line)?;
    if opts.json {
        // Filter lists as sets, the JSON rust-nostr writes for the same
        // message (NIP-01 gives them set meaning).
        msg.encode_into_as(out, quarry_nostr::FilterLists::Sets, Some(&mut extra));
    } else if let Some(event) = msg.event() {
        let verb = match msg {
            quarry_nostr::Message::Relay(quarry_nostr::RelayMessage::Event { sub_id, .. }) => {
                out.extend_from_slice(b"EVENT sub=");
                quarry_nostr::write_json_string(out, sub_id);
                out.push(b' ');
                ""
            }
            quarry_nostr::Message::Client(quarry_nostr::ClientMessage::Auth(_)) => "AUTH ",
            _ => "EVENT ",
        };
        out.extend_from_slice(verb.as_bytes());
        summary(opts, event, out);
    } else {
        msg.encode_into(out);
    }
    Ok(())
}

/// One human-readable line for an event.
fn summary(opts: &Opts, event: Event<'_>, out: &mut Vec<u8>) {
    let _ = write!(
        out,
        "id={} pubkey={} created_at={} kind={} tags={} content=",
        std::str::from_utf8(&event.id_hex()).unwrap_or_default(),
        std::str::from_utf8(&event.pubkey_hex()).unwrap_or_default(),
        event.created_at(),
        event.kind(),
        event.tags().len(),
    );
    quarry_nostr::write_json_string(out, event.content());
    out.extend_from_slice(match event.id_valid() {
        Some(true) => b" id_valid=true",
        Some(false) => b" id_valid=false",
        None => b" id_valid=unchecked",
    });
    if opts.verify_sig {
        out.extend_from_slice(if event.verify_signature() {
            b" sig_valid=true"
        } else {
            b" sig_valid=false"
        });
    }
}
