//! Memory held by a timeline: 10,000 decoded 12-tag events kept alive in
//! their compacted form, counted by a global allocator (live bytes), must
//! stay at or below the bytes of their JSON.

mod common;

use quarry_core::Arena;
use quarry_nostr::{Decoder, Event};

#[global_allocator]
static GLOBAL: quarry_testkit::CountingAlloc = quarry_testkit::CountingAlloc;

#[test]
fn ten_thousand_thread_events_held_in_less_than_their_json() {
    // Everything runs on this thread: its live heap bytes are the count.
    quarry_testkit::tracked(timeline_held_in_less_than_its_json);
}

fn timeline_held_in_less_than_its_json() {
    const N: u32 = 10_000;
    // 100 distinct signed events, each kept 100 times (signing is slow in
    // debug builds; the bytes held per event are the same).
    let distinct: Vec<String> = (0..100).map(|n| common::shape(4, n).as_json()).collect();
    let lines: Vec<String> = (0..N as usize).map(|i| distinct[i % 100].clone()).collect();
    let json_bytes: usize = lines.iter().map(String::len).sum();

    let decoder = Decoder::new();
    let mut scratch = Arena::new();
    let before = quarry_testkit::live_bytes();
    // The timeline: one arena sized for what it will hold, plus the
    // handles. Sizing it exactly is possible because compacted_size is
    // known per event; a growing arena would hold up to 2x in its last
    // chunk.
    let first = decoder.decode_event(&scratch, lines[0].as_bytes()).unwrap();
    let per_event = first.compacted_size().next_multiple_of(8);
    scratch.reset();
    let timeline = Arena::with_capacity(per_event * N as usize + 64);
    let mut kept: Vec<Event<'_>> = Vec::with_capacity(N as usize);
    for line in &lines {
        let event = decoder.decode_event(&scratch, line.as_bytes()).unwrap();
        kept.push(event.compact_into(&timeline));
        scratch.reset();
    }
    let held = (quarry_testkit::live_bytes() - before) as usize - scratch.stats().allocated_bytes;
    let ratio = held as f64 / json_bytes as f64;
    println!(
        "{N} 12-tag events: JSON {json_bytes} B ({} B each), held {held} B ({} B each), {ratio:.3}x",
        json_bytes / N as usize,
        held / N as usize
    );
    assert!(ratio <= 1.0, "{ratio}");
    // Still readable, and equal to a fresh decode.
    let again = decoder
        .decode_event(&scratch, lines[1234].as_bytes())
        .unwrap();
    let k = kept[1234];
    assert_eq!(k.id(), again.id());
    assert!(
        k.tags()
            .iter()
            .zip(again.tags().iter())
            .all(|(a, b)| a == b)
    );
    assert!(k.verify_id());
}
