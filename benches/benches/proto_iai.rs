//! Instruction counts (callgrind) of one protobuf decode plus drop of the
//! WhatsApp samples: prost 0.14, buffa (waproto 0.7) owned and views, quarry
//! into a fresh arena (dropped) and a reused one (reset, kept), same bytes,
//! one run; the same decodes of the samples' forward-compatible variants
//! (`quarry_proto_tests::variants`: bench ids `<sample>_<kind>`, the
//! history sync's `history_sync_<kind>`); and one encode of each sample
//! plus drop of the bytes, each encoder from its own decoded form (prost,
//! buffa owned, quarry's view); and one build plus encode of each sample
//! from the same source values (`quarry_proto_tests::sends`: prost's and
//! buffa's owned types, quarry's builders into a reused arena).
//! Every setup decodes (or encodes) once first so first-touch costs are not
//! charged to the measured call.
//!
//! Without the `buffa` feature the buffa benches are left out; with `gate`
//! (the instruction-count gate's build) only quarry's run. The functions
//! are the same in every build.

// The macros generate public modules and functions without docs.
#![allow(missing_docs)]

use std::hint::black_box;

use iai_callgrind::{library_benchmark, library_benchmark_group, main};
use quarry_core::Arena;
use quarry_proto_tests::samples::Sample;

mod proto_common;
use proto_common as pc;

fn warm(name: &str) -> &'static Sample {
    let s = pc::sample(name);
    pc::prost(s);
    #[cfg(feature = "buffa")]
    {
        pc::buffa_owned(s);
        pc::buffa_view(s);
    }
    pc::quarry_fresh(s);
    s
}

fn warm_arena(name: &str) -> (Arena, &'static Sample) {
    let s = warm(name);
    let mut arena = Arena::new();
    pc::quarry_reused(&mut arena, s);
    (arena, s)
}

// The encode benches run on the samples.
macro_rules! cases {
    ($name:ident, $setup:ident, $body:expr, $arg:ty) => {
        #[library_benchmark]
        #[bench::contact(args = ("contact"), setup = $setup)]
        #[bench::star(args = ("star"), setup = $setup)]
        #[bench::text_reply(args = ("text_reply"), setup = $setup)]
        #[bench::text_reply_quoted(args = ("text_reply_quoted"), setup = $setup)]
        #[bench::group_skdm(args = ("group_skdm"), setup = $setup)]
        #[bench::history_sync(args = ("history_sync_50x20"), setup = $setup)]
        fn $name(input: $arg) -> usize {
            black_box(($body)(input))
        }
    };
}

// Every decode bench runs on the samples and on their variants.
macro_rules! decode_cases {
    ($setup:ident, $($item:tt)*) => {
        #[library_benchmark]
        #[bench::contact(args = ("contact"), setup = $setup)]
        #[bench::star(args = ("star"), setup = $setup)]
        #[bench::text_reply(args = ("text_reply"), setup = $setup)]
        #[bench::text_reply_quoted(args = ("text_reply_quoted"), setup = $setup)]
        #[bench::group_skdm(args = ("group_skdm"), setup = $setup)]
        #[bench::history_sync(args = ("history_sync_50x20"), setup = $setup)]
        #[bench::contact_unknown_root(args = ("contact_unknown_root"), setup = $setup)]
        #[bench::contact_unknown_narrow(args = ("contact_unknown_narrow"), setup = $setup)]
        #[bench::contact_unlisted_enum(args = ("contact_unlisted_enum"), setup = $setup)]
        #[bench::contact_oneof_twice(args = ("contact_oneof_twice"), setup = $setup)]
        #[bench::contact_message_twice(args = ("contact_message_twice"), setup = $setup)]
        #[bench::star_unknown_root(args = ("star_unknown_root"), setup = $setup)]
        #[bench::star_unknown_narrow(args = ("star_unknown_narrow"), setup = $setup)]
        #[bench::star_unlisted_enum(args = ("star_unlisted_enum"), setup = $setup)]
        #[bench::star_oneof_twice(args = ("star_oneof_twice"), setup = $setup)]
        #[bench::star_message_twice(args = ("star_message_twice"), setup = $setup)]
        #[bench::text_reply_unknown_root(args = ("text_reply_unknown_root"), setup = $setup)]
        #[bench::text_reply_unknown_narrow(args = ("text_reply_unknown_narrow"), setup = $setup)]
        #[bench::text_reply_unlisted_enum(args = ("text_reply_unlisted_enum"), setup = $setup)]
        #[bench::text_reply_oneof_twice(args = ("text_reply_oneof_twice"), setup = $setup)]
        #[bench::text_reply_message_twice(args = ("text_reply_message_twice"), setup = $setup)]
        #[bench::text_reply_quoted_unknown_root(args = ("text_reply_quoted_unknown_root"), setup = $setup)]
        #[bench::text_reply_quoted_unknown_narrow(args = ("text_reply_quoted_unknown_narrow"), setup = $setup)]
        #[bench::text_reply_quoted_unlisted_enum(args = ("text_reply_quoted_unlisted_enum"), setup = $setup)]
        #[bench::text_reply_quoted_oneof_twice(args = ("text_reply_quoted_oneof_twice"), setup = $setup)]
        #[bench::text_reply_quoted_message_twice(args = ("text_reply_quoted_message_twice"), setup = $setup)]
        #[bench::group_skdm_unknown_root(args = ("group_skdm_unknown_root"), setup = $setup)]
        #[bench::group_skdm_unknown_narrow(args = ("group_skdm_unknown_narrow"), setup = $setup)]
        #[bench::group_skdm_unlisted_enum(args = ("group_skdm_unlisted_enum"), setup = $setup)]
        #[bench::group_skdm_oneof_twice(args = ("group_skdm_oneof_twice"), setup = $setup)]
        #[bench::group_skdm_message_twice(args = ("group_skdm_message_twice"), setup = $setup)]
        #[bench::history_sync_unknown_root(args = ("history_sync_50x20_unknown_root"), setup = $setup)]
        #[bench::history_sync_unknown_narrow(args = ("history_sync_50x20_unknown_narrow"), setup = $setup)]
        #[bench::history_sync_unknown_narrow_every(args = ("history_sync_50x20_unknown_narrow_every"), setup = $setup)]
        #[bench::history_sync_unlisted_enum(args = ("history_sync_50x20_unlisted_enum"), setup = $setup)]
        #[bench::history_sync_oneof_twice(args = ("history_sync_50x20_oneof_twice"), setup = $setup)]
        #[bench::history_sync_message_twice(args = ("history_sync_50x20_message_twice"), setup = $setup)]
        $($item)*
    };
}

decode_cases!(
    warm,
    fn prost(s: &'static Sample) -> usize {
        black_box(pc::prost(s))
    }
);
#[cfg(feature = "buffa")]
decode_cases!(
    warm,
    fn buffa_owned(s: &'static Sample) -> usize {
        black_box(pc::buffa_owned(s))
    }
);
#[cfg(feature = "buffa")]
decode_cases!(
    warm,
    fn buffa_view(s: &'static Sample) -> usize {
        black_box(pc::buffa_view(s))
    }
);
decode_cases!(
    warm,
    fn quarry_fresh(s: &'static Sample) -> usize {
        black_box(pc::quarry_fresh(s))
    }
);

// Decode plus `Arena::reset` into an arena that decoded the same input
// before. Returns the arena so that freeing it is not measured: a reused
// arena outlives many decodes (as in wa_iai and nostr_iai).
decode_cases!(
    warm_arena,
    fn quarry_reused(input: (Arena, &'static Sample)) -> Arena {
        let (mut arena, s) = input;
        black_box(pc::quarry_reused(&mut arena, s));
        arena
    }
);

#[cfg(all(feature = "buffa", not(feature = "gate")))]
library_benchmark_group!(
    name = proto_decode;
    benchmarks = prost, buffa_owned, buffa_view, quarry_fresh, quarry_reused
);
#[cfg(not(any(feature = "buffa", feature = "gate")))]
library_benchmark_group!(
    name = proto_decode;
    benchmarks = prost, quarry_fresh, quarry_reused
);
#[cfg(feature = "gate")]
library_benchmark_group!(
    name = proto_decode;
    benchmarks = quarry_fresh, quarry_reused
);

/// Sample `name` decoded by each side, each encoder run once first.
fn warm_encode(name: &str) -> &'static pc::Encodable {
    let e = pc::encodable(pc::sample(name));
    pc::prost_encode(e);
    #[cfg(feature = "buffa")]
    pc::buffa_encode(e);
    pc::quarry_encode(e);
    e
}

cases!(
    prost_encode,
    warm_encode,
    |e: &pc::Encodable| pc::prost_encode(e),
    &'static pc::Encodable
);
#[cfg(feature = "buffa")]
cases!(
    buffa_encode,
    warm_encode,
    |e: &pc::Encodable| pc::buffa_encode(e),
    &'static pc::Encodable
);
cases!(
    quarry_encode,
    warm_encode,
    |e: &pc::Encodable| pc::quarry_encode(e),
    &'static pc::Encodable
);

#[cfg(all(feature = "buffa", not(feature = "gate")))]
library_benchmark_group!(
    name = proto_encode;
    benchmarks = prost_encode, buffa_encode, quarry_encode
);
#[cfg(not(any(feature = "buffa", feature = "gate")))]
library_benchmark_group!(
    name = proto_encode;
    benchmarks = prost_encode, quarry_encode
);
#[cfg(feature = "gate")]
library_benchmark_group!(
    name = proto_encode;
    benchmarks = quarry_encode
);

/// A sample's name, each builder run once first, and the arena quarry's
/// builds reuse.
fn warm_build(name: &'static str) -> (Arena, &'static str) {
    pc::prost_build_encode(name);
    #[cfg(feature = "buffa")]
    pc::buffa_build_encode(name);
    (pc::build_arena(name), name)
}

// Build + encode of each sample from the same source values
// (`quarry_proto_tests::sends`): prost's and buffa's owned types, quarry's
// builders into a reused arena (returned, so freeing it is not measured).
macro_rules! build_cases {
    ($name:ident, $body:expr) => {
        #[library_benchmark]
        #[bench::contact(args = ("contact"), setup = warm_build)]
        #[bench::star(args = ("star"), setup = warm_build)]
        #[bench::text_reply(args = ("text_reply"), setup = warm_build)]
        #[bench::text_reply_quoted(args = ("text_reply_quoted"), setup = warm_build)]
        #[bench::group_skdm(args = ("group_skdm"), setup = warm_build)]
        #[bench::history_sync(args = ("history_sync_50x20"), setup = warm_build)]
        fn $name(input: (Arena, &'static str)) -> Arena {
            let (mut arena, name) = input;
            black_box(($body)(&mut arena, name));
            arena
        }
    };
}

build_cases!(prost_build_encode, |_: &mut Arena, name| {
    pc::prost_build_encode(name)
});
#[cfg(feature = "buffa")]
build_cases!(buffa_build_encode, |_: &mut Arena, name| {
    pc::buffa_build_encode(name)
});
build_cases!(quarry_build_encode, pc::quarry_build_encode);

#[cfg(all(feature = "buffa", not(feature = "gate")))]
library_benchmark_group!(
    name = proto_build_encode;
    benchmarks = prost_build_encode, buffa_build_encode, quarry_build_encode
);
#[cfg(not(any(feature = "buffa", feature = "gate")))]
library_benchmark_group!(
    name = proto_build_encode;
    benchmarks = prost_build_encode, quarry_build_encode
);
#[cfg(feature = "gate")]
library_benchmark_group!(
    name = proto_build_encode;
    benchmarks = quarry_build_encode
);

/// A map input, each side run once first; the arena for quarry's side.
fn warm_map(name: &str) -> (Arena, &'static pc::MapInput) {
    let m = pc::map_input(name);
    let mut arena = Arena::new();
    pc::prost_map_get(m);
    pc::quarry_map_get(&mut arena, m);
    (arena, m)
}

// A 1,000-entry `map<string, string>` (`All3.m_str`), with unique keys and
// with 500 keys written twice: decode alone, decode plus one iteration, and
// decode plus 100 look-ups, for prost (its `HashMap`) and quarry (reused
// arena). Left out of the gate's build, which measures quarry's decoders
// on the samples and their variants.
macro_rules! map_cases {
    ($name:ident, $body:expr) => {
        #[library_benchmark]
        #[bench::unique(args = ("unique"), setup = warm_map)]
        #[bench::dup(args = ("dup"), setup = warm_map)]
        fn $name(input: (Arena, &'static pc::MapInput)) -> Arena {
            let (mut arena, m) = input;
            black_box(($body)(&mut arena, m));
            arena
        }
    };
}

map_cases!(map_prost_decode, |_: &mut Arena, m| pc::prost_map_decode(m));
map_cases!(map_prost_iter, |_: &mut Arena, m| pc::prost_map_iter(m));
map_cases!(map_prost_get, |_: &mut Arena, m| pc::prost_map_get(m));
map_cases!(map_quarry_decode, pc::quarry_map_decode);
map_cases!(map_quarry_iter, pc::quarry_map_iter);
map_cases!(map_quarry_get, pc::quarry_map_get);

library_benchmark_group!(
    name = proto_map;
    benchmarks = map_prost_decode, map_prost_iter, map_prost_get, map_quarry_decode, map_quarry_iter, map_quarry_get
);

#[cfg(not(feature = "gate"))]
main!(
    library_benchmark_groups = proto_decode,
    proto_encode,
    proto_build_encode,
    proto_map
);
#[cfg(feature = "gate")]
main!(
    library_benchmark_groups = proto_decode,
    proto_encode,
    proto_build_encode
);
