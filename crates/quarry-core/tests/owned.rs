//! `Owned`: a decoded message that keeps its input and arena travels to
//! another thread, reads the same there, and is freed without a leak.

use std::sync::Mutex;

use quarry_core::bytes::Bytes;
use quarry_core::{Arena, ArenaPool, Covariant, MessageArena, Owned, ViewFamily};

/// Tests that count live heap bytes run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

#[global_allocator]
static GLOBAL: quarry_testkit::CountingAlloc = quarry_testkit::CountingAlloc;

/// A toy format: `key=value;key=value`, decoded into a table of pairs in
/// the arena (keys borrowed from the input, values upper-cased copies in
/// the arena, so a view points into both).
#[derive(Clone, Copy, Debug)]
struct Pairs<'a> {
    pairs: &'a [(&'a [u8], &'a [u8])],
}

struct PairsFamily;
impl ViewFamily for PairsFamily {
    type View<'a> = Pairs<'a>;
}
impl Covariant for PairsFamily {
    fn shorten<'long: 'short, 'short>(view: Pairs<'long>) -> Pairs<'short> {
        view
    }
}

fn decode_pairs<'a>(arena: &'a Arena, input: &'a [u8]) -> Result<Pairs<'a>, usize> {
    let mut out = Vec::new();
    let mut at = 0;
    for field in input.split(|&b| b == b';') {
        let eq = field.iter().position(|&b| b == b'=').ok_or(at)?;
        let value = arena.bump().alloc_slice_copy(&field[eq + 1..]);
        value.make_ascii_uppercase();
        out.push((&field[..eq], &*value));
        at += field.len() + 1;
    }
    Ok(Pairs {
        pairs: arena.bump().alloc_slice_copy(&out),
    })
}

fn input() -> Bytes {
    let n = if cfg!(miri) { 4 } else { 200 };
    let text: Vec<String> = (0..n).map(|i| format!("key{i}=value{i}")).collect();
    Bytes::from(text.join(";"))
}

type Snapshot = Vec<(Vec<u8>, Vec<u8>)>;

fn snapshot(p: Pairs<'_>) -> Snapshot {
    p.pairs
        .iter()
        .map(|(k, v)| (k.to_vec(), v.to_vec()))
        .collect()
}

// Counting covers exactly the message's life: its decode on this thread
// (input included) and its drop on the worker; what one allocated the other
// must have freed. (Counting whole threads or channels would pick up the
// runtime's lazily created per-thread state.)
#[test]
fn moved_to_another_thread_reads_the_same_and_leaks_nothing() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (to_worker, inbox) = std::sync::mpsc::channel::<(Owned<PairsFamily>, usize)>();
    let (to_main, results) = std::sync::mpsc::channel::<Snapshot>();
    let worker = std::thread::spawn(move || {
        for (msg, key0) in inbox {
            // The view points at the same input bytes after the move.
            assert_eq!(msg.get().pairs[0].0.as_ptr() as usize, key0);
            let seen = snapshot(msg.get());
            quarry_testkit::tracked(|| drop(msg));
            to_main.send(seen).unwrap();
        }
    });
    for _ in 0..2 {
        let baseline = quarry_testkit::live_bytes();
        let msg = quarry_testkit::tracked(|| {
            Owned::<PairsFamily>::try_new(input(), MessageArena::new(), decode_pairs).unwrap()
        });
        assert!(quarry_testkit::live_bytes() > baseline);
        let before = snapshot(msg.get());
        assert_eq!(before, expected_pairs(msg.backing_bytes()));
        let key0 = msg.get().pairs[0].0.as_ptr() as usize;
        to_worker.send((msg, key0)).unwrap();
        let after = results.recv().unwrap();
        assert_eq!(after, before);
        assert_eq!(quarry_testkit::live_bytes(), baseline, "bytes leaked");
    }
    drop(to_worker);
    worker.join().unwrap();
}

#[test]
fn a_pooled_message_returns_its_arena_from_another_thread() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let pool = ArenaPool::new();
    let msg = Owned::<PairsFamily>::try_new(input(), pool.get(), decode_pairs).unwrap();
    assert_eq!(pool.stats().checked_out, 1);
    let first = snapshot(msg.get());
    let moved = std::thread::spawn(move || (snapshot(msg.get()), msg))
        .join()
        .unwrap();
    assert_eq!(moved.0, first);
    drop(moved);
    let stats = pool.stats();
    assert_eq!((stats.checked_out, stats.pooled), (0, 1));
}

#[test]
fn a_failed_decode_gives_the_arena_back() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let pool = ArenaPool::new();
    let err =
        Owned::<PairsFamily>::try_new(Bytes::from_static(b"a=1;broken"), pool.get(), decode_pairs)
            .unwrap_err();
    assert_eq!(err, 4);
    assert_eq!(pool.stats().checked_out, 0);
    assert_eq!(pool.stats().pooled, 1);
}

#[test]
fn slice_bytes_shares_the_input_and_copies_arena_bytes() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let bytes = input();
    let msg =
        Owned::<PairsFamily>::try_new(bytes.clone(), MessageArena::new(), decode_pairs).unwrap();
    let (key, value) = msg.get().pairs[1];
    let key_bytes = msg.slice_bytes(key);
    assert_eq!(&key_bytes[..], b"key1");
    // Zero-copy: the same memory as the input.
    assert_eq!(key_bytes.as_ptr(), bytes[b"key0=value0;".len()..].as_ptr());
    let value_bytes = msg.slice_bytes(value);
    assert_eq!(&value_bytes[..], b"VALUE1");
    assert!(!std::ptr::eq(value_bytes.as_ptr(), value.as_ptr()));
    // The whole input, and a slice that ends exactly at its end.
    assert_eq!(msg.slice_bytes(&bytes[..]).as_ptr(), bytes.as_ptr());
    let tail = &msg.backing_bytes()[bytes.len() - 3..];
    assert_eq!(msg.slice_bytes(tail).as_ptr(), tail.as_ptr());
    assert!(msg.slice_bytes(&[]).is_empty());
    assert_eq!(msg.backing_bytes(), &bytes);
    assert_eq!(msg.into_bytes(), bytes);
}

#[test]
fn owned_is_static_and_send() {
    fn static_send<T: Send + 'static>() {}
    static_send::<Owned<PairsFamily>>();
}

/// The pairs of `input`, computed without the decoder.
fn expected_pairs(bytes: &[u8]) -> Snapshot {
    bytes
        .split(|&b| b == b';')
        .map(|f| {
            let eq = f.iter().position(|&b| b == b'=').unwrap();
            (f[..eq].to_vec(), f[eq + 1..].to_ascii_uppercase())
        })
        .collect()
}

/// Views of the arena itself (its statistics) and of bytes in it.
struct ArenaAndCopy;
impl ViewFamily for ArenaAndCopy {
    type View<'a> = (&'a Arena, &'a [u8]);
}
impl Covariant for ArenaAndCopy {
    fn shorten<'long: 'short, 'short>(
        v: (&'long Arena, &'long [u8]),
    ) -> (&'short Arena, &'short [u8]) {
        v
    }
}

/// A move the optimizer cannot elide.
#[inline(never)]
fn pass<T>(value: T) -> T {
    value
}

/// A view may point at the `Arena` struct itself, not only into its chunks;
/// moving the message by value, through a box and back must keep it valid
/// (under Miri, this is what needs the arena behind `MaybeUninit`).
#[test]
fn a_view_of_the_arena_itself_survives_moves() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let pool = ArenaPool::new();
    for arena in [MessageArena::new(), pool.get().into()] {
        let msg = Owned::<ArenaAndCopy>::try_new(Bytes::from(vec![1u8, 2, 3]), arena, |a, b| {
            Ok::<_, ()>((a, &*a.bump().alloc_slice_copy(b)))
        })
        .unwrap();
        let msg = pass(*Box::new(pass(msg)));
        let (arena, copy) = msg.get();
        assert_eq!(copy, &[1, 2, 3]);
        assert!(arena.stats().allocated_bytes >= 3);
        assert_eq!(pass(msg).into_bytes(), &[1u8, 2, 3][..]);
    }
    assert_eq!(pool.stats().pooled, 1);
}

/// A view invariant in its lifetime, shaped like a protobuf record: shared
/// slots, each holding a `&'a mut` list of `&'a str` the decoder filled.
struct ListSlot<'a> {
    words: &'a mut [&'a str],
}

struct Lists;
impl ViewFamily for Lists {
    type View<'a> = &'a [ListSlot<'a>];
}

fn decode_lists<'a>(arena: &'a Arena, input: &'a [u8]) -> Result<&'a [ListSlot<'a>], usize> {
    let text = std::str::from_utf8(input).map_err(|e| e.valid_up_to())?;
    let bump = arena.bump();
    let slots: Vec<ListSlot<'a>> = text
        .split(';')
        .map(|part| {
            let words: Vec<&'a str> = part.split(',').collect();
            ListSlot {
                words: bump.alloc_slice_copy(&words),
            }
        })
        .collect();
    Ok(bump.alloc_slice_fill_iter(slots))
}

#[test]
fn an_invariant_view_is_read_through_with_after_moving_threads() {
    let input = Bytes::from(String::from("a,b;c;d,e,f"));
    let expect = vec![vec!["a", "b"], vec!["c"], vec!["d", "e", "f"]];
    let pool = ArenaPool::new();
    let msg = Owned::<Lists>::try_new(input.clone(), pool.get(), decode_lists).unwrap();
    let read = |msg: &Owned<Lists>| {
        msg.with(|slots| {
            slots
                .iter()
                .map(|s| s.words.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>())
                .collect::<Vec<_>>()
        })
    };
    assert_eq!(read(&msg), expect);
    let msg = std::thread::spawn(move || pass(msg)).join().unwrap();
    assert_eq!(read(&msg), expect);
    // The words still borrow from the input: zero-copy slices.
    let first = msg.with(|slots| msg.slice_bytes(slots[0].words[0].as_bytes()));
    assert_eq!(first.as_ptr(), input.as_ptr());
    assert_eq!(pool.stats().checked_out, 1);
    drop(msg);
    assert_eq!(pool.stats().checked_out, 0);
}

/// An owned message in an arena of its own holds at most 1.5 times what
/// its decode wrote (bumpalo's page granularity, 4 KiB, on a small one),
/// whatever arena it was decoded into; a pooled arena stays as it is.
#[test]
fn an_owned_message_holds_what_its_decode_wrote() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let n = if cfg!(miri) { 40 } else { 1000 };
    let text: Vec<String> = (0..n).map(|i| format!("key{i}=value{i}")).collect();
    let input = Bytes::from(text.join(";"));
    // What one decode writes: the table (n pairs of two slices, 32 bytes
    // each) and the upper-cased values.
    let values: usize = (0..n).map(|i| format!("value{i}").len()).sum();
    let used = n * 32 + values;
    let bound = if used >= 8192 {
        used + used / 2
    } else {
        used + 4096
    };
    for start in [0, 1 << 20, 4 << 20] {
        let arena = match start {
            0 => Arena::new(),
            n => Arena::with_capacity(n),
        };
        let msg = Owned::<PairsFamily>::try_new(input.clone(), arena, decode_pairs).unwrap();
        let stats = msg.arena().stats();
        assert!(
            stats.allocated_bytes <= bound,
            "started at {start}: holds {stats:?}, wrote about {used}"
        );
        assert!(stats.used_bytes() >= used);
        assert_eq!(snapshot(msg.get()), expected_pairs(&input));
    }
    let pool = ArenaPool::new();
    let arena = pool.get();
    arena.reserve(4 << 20);
    let msg = Owned::<PairsFamily>::try_new(input.clone(), arena, decode_pairs).unwrap();
    assert!(msg.arena().stats().allocated_bytes >= 4 << 20);
}
