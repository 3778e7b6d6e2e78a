//! Owned protobuf messages: a record that keeps its input and arena reads
//! the same after moving to another thread, returns a pooled arena when
//! dropped, and frees everything it held (a counting allocator watches the
//! live heap bytes of this thread and the one it moved to).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicIsize, Ordering};

use prost::Message as _;
use quarry::ArenaPool;
use quarry::bytes::Bytes;
use quarry_proto::OwnedRecord;
use quarry_proto_tests::samples;
use quarry_proto_tests::wa::MessageView;

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// Only the test's own steps are counted (not the harness, nor the runtime
// starting and joining a thread), on whichever thread they run.
thread_local! {
    static TRACKED: Cell<bool> = const { Cell::new(false) };
}

fn track(delta: isize) {
    if TRACKED.try_with(Cell::get).unwrap_or(false) {
        LIVE.fetch_add(delta, Ordering::SeqCst);
    }
}

fn tracked<R>(f: impl FnOnce() -> R) -> R {
    TRACKED.with(|t| t.set(true));
    let r = f();
    TRACKED.with(|t| t.set(false));
    r
}

// SAFETY: every method forwards to `System` unchanged; the addition is an
// atomic counter and a const thread-local, neither of which allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        track(layout.size() as isize);
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        track(-(layout.size() as isize));
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// What prost reads from the sample: the independent expectation.
fn expected(bytes: &[u8]) -> (String, String, String) {
    let m = quarry_proto_tests::pb::whatsapp::Message::decode(bytes).unwrap();
    let ext = m.extended_text_message.unwrap();
    let ctx = ext.context_info.unwrap();
    let quoted = ctx.quoted_message.unwrap();
    (
        ext.text.unwrap_or_default(),
        ctx.participant.unwrap_or_default(),
        quoted.conversation.unwrap_or_default(),
    )
}

fn read(rec: &OwnedRecord) -> (String, String, String) {
    rec.with(|r| {
        let m = MessageView::from_record(r);
        let ext = m.extended_text_message().unwrap();
        let ctx = ext.context_info().unwrap();
        (
            ext.text().to_owned(),
            ctx.participant().to_owned(),
            ctx.quoted_message().unwrap().conversation().to_owned(),
        )
    })
}

#[test]
fn an_owned_record_reads_the_same_on_another_thread_and_frees_everything() {
    let bytes = Bytes::from(samples::text_reply_quoted().encode_to_vec());
    let want = expected(&bytes);
    // Everything the tracked steps make (pool, arena, strings read) must be
    // freed by the end.
    // Cloning `Bytes` made from a `Vec` allocates its shared header once,
    // kept until the last clone goes: made here, outside the count.
    let input = bytes.clone();
    let before = LIVE.load(Ordering::SeqCst);
    let pool = tracked(ArenaPool::new);
    let rec = tracked(|| {
        let rec = OwnedRecord::decode_with(
            &quarry_proto::Decoder::new(),
            MessageView::TABLE,
            pool.get(),
            input,
        )
        .unwrap();
        assert_eq!(read(&rec), want);
        rec
    });
    assert_eq!(pool.stats().checked_out, 1);
    let moved_want = want.clone();
    let rec = std::thread::spawn(move || {
        tracked(|| assert_eq!(read(&rec), moved_want));
        rec
    })
    .join()
    .unwrap();
    tracked(|| {
        assert_eq!(read(&rec), want);
        // Strings borrow from the input: a zero-copy slice of it.
        let text = rec.with(|r| {
            let ext = MessageView::from_record(r).extended_text_message().unwrap();
            rec.slice_bytes(ext.text().as_bytes())
        });
        assert!(bytes.as_ptr_range().contains(&text.as_ptr()));
        assert_eq!(rec.backing_bytes(), &bytes);
        drop(rec);
    });
    assert_eq!(pool.stats().checked_out, 0);
    assert_eq!(pool.stats().pooled, 1);

    // A message that fails to decode returns its pooled arena too.
    let err = tracked(|| {
        OwnedRecord::decode_with(
            &quarry_proto::Decoder::new(),
            MessageView::TABLE,
            pool.get(),
            Bytes::from_static(&[0x0A, 0x05, 0x01]),
        )
        .unwrap_err()
    });
    assert!(err.offset() <= 3, "{err:?}");
    assert_eq!(pool.stats().checked_out, 0);
    tracked(|| drop(pool));
    assert_eq!(LIVE.load(Ordering::SeqCst) - before, 0, "leaked heap bytes");
}
