//! Instruction counts (callgrind) of one protobuf decode plus drop of the
//! WhatsApp samples: prost 0.14, buffa (waproto 0.7) owned and views, quarry
//! into a fresh arena (dropped) and a reused one (reset, kept), same bytes,
//! one run; and one encode of each sample plus drop of the bytes, each
//! encoder from its own decoded form (prost, buffa owned, quarry's view).
//! Every setup decodes (or encodes) once first so first-touch costs are not
//! charged to the measured call.
//!
//! Without the `buffa` feature (the instruction-count gate's build) the
//! buffa benches are left out; quarry's and prost's are the same functions.

// The macros generate public modules and functions without docs.
#![allow(missing_docs)]

use std::hint::black_box;

use iai_callgrind::{library_benchmark, library_benchmark_group, main};
use quarry::Arena;
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

cases!(prost, warm, |s: &Sample| pc::prost(s), &'static Sample);
#[cfg(feature = "buffa")]
cases!(
    buffa_owned,
    warm,
    |s: &Sample| pc::buffa_owned(s),
    &'static Sample
);
#[cfg(feature = "buffa")]
cases!(
    buffa_view,
    warm,
    |s: &Sample| pc::buffa_view(s),
    &'static Sample
);
cases!(
    quarry_fresh,
    warm,
    |s: &Sample| pc::quarry_fresh(s),
    &'static Sample
);

// Decode plus `Arena::reset` into an arena that decoded the same input
// before. Returns the arena so that freeing it is not measured: a reused
// arena outlives many decodes (as in wa_iai and nostr_iai).
#[library_benchmark]
#[bench::contact(args = ("contact"), setup = warm_arena)]
#[bench::star(args = ("star"), setup = warm_arena)]
#[bench::text_reply(args = ("text_reply"), setup = warm_arena)]
#[bench::text_reply_quoted(args = ("text_reply_quoted"), setup = warm_arena)]
#[bench::group_skdm(args = ("group_skdm"), setup = warm_arena)]
#[bench::history_sync(args = ("history_sync_50x20"), setup = warm_arena)]
fn quarry_reused(input: (Arena, &'static Sample)) -> Arena {
    let (mut arena, s) = input;
    black_box(pc::quarry_reused(&mut arena, s));
    arena
}

#[cfg(feature = "buffa")]
library_benchmark_group!(
    name = proto_decode;
    benchmarks = prost, buffa_owned, buffa_view, quarry_fresh, quarry_reused
);
#[cfg(not(feature = "buffa"))]
library_benchmark_group!(
    name = proto_decode;
    benchmarks = prost, quarry_fresh, quarry_reused
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

#[cfg(feature = "buffa")]
library_benchmark_group!(
    name = proto_encode;
    benchmarks = prost_encode, buffa_encode, quarry_encode
);
#[cfg(not(feature = "buffa"))]
library_benchmark_group!(
    name = proto_encode;
    benchmarks = prost_encode, quarry_encode
);

main!(library_benchmark_groups = proto_decode, proto_encode);
