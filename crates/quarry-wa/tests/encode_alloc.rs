//! The encoder's allocation contract, counted exactly: one encode is one
//! heap allocation (the output, at its final size), and the output never
//! grows. This binary installs a counting global allocator; counting is per
//! thread, so other tests running in parallel cannot disturb it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use quarry::Arena;
use quarry_wa::{Jid, OwnedNode, Server};

struct Counting;

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

fn bump() {
    // `try_with`: the allocator also runs while thread-locals are torn down.
    let _ = ON.try_with(|on| {
        if on.get() {
            let _ = ALLOCS.try_with(|n| n.set(n.get() + 1));
        }
    });
}

// SAFETY: every method forwards to `System` unchanged; the addition is a
// thread-local counter that never allocates (const `Cell` thread-locals
// need no lazy initialisation and have no destructor).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        bump();
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        bump();
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        bump();
        // SAFETY: the caller's contract, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Heap allocations this thread makes in `f`, and its result.
fn allocations<R>(f: impl FnOnce() -> R) -> (usize, R) {
    ALLOCS.with(|n| n.set(0));
    ON.with(|on| on.set(true));
    let out = f();
    ON.with(|on| on.set(false));
    (ALLOCS.with(Cell::get), out)
}

/// The group-message fanout shape WhatsApp's own benchmarks use: a message
/// to a group, a `participants` list of eight device `to` nodes, each
/// holding one `enc` of 128 bytes.
fn fanout() -> OwnedNode {
    let devices = (0..8u16).map(|i| {
        OwnedNode::new("to")
            .jid_attr("jid", Jid::new("5511999990000", Server::Pn).with_device(i))
            .children([OwnedNode::new("enc")
                .attr("v", "2")
                .attr("type", "msg")
                .bytes(vec![0xAB; 128])])
    });
    OwnedNode::new("message")
        .attr("to", "5511999990000@g.us")
        .attr("id", "3EB0A1B2C3D4E5F60718")
        .attr("type", "text")
        .children([OwnedNode::new("participants").children(devices)])
}

#[test]
fn one_allocation_per_encode_and_capacity_equals_length() {
    let tree = fanout();
    // The dictionary builds its reverse index on first use; that is a
    // one-time cost of the process, not of an encode.
    let _ = quarry_wa::encode(&tree).unwrap();

    let (n, bytes) = allocations(|| quarry_wa::encode(&tree).unwrap());
    assert_eq!(n, 1, "encode of the fanout shape");
    assert_eq!(bytes.capacity(), bytes.len());

    let (n, frame) = allocations(|| quarry_wa::encode_frame(&tree).unwrap());
    assert_eq!(n, 1, "encode_frame of the fanout shape");
    assert_eq!(frame.capacity(), frame.len());
    assert_eq!(frame[1..], bytes[..]);

    // Re-encoding a decoded view: the same single allocation.
    let arena = Arena::new();
    let view = quarry_wa::decode(&arena, &bytes).unwrap();
    let (n, again) = allocations(|| quarry_wa::encode_view(view).unwrap());
    assert_eq!(n, 1, "encode_view of the fanout shape");
    assert_eq!(again.capacity(), again.len());
    assert_eq!(again, bytes);

    // Appending into a buffer that already has room: nothing at all.
    let mut out = Vec::with_capacity(2 * bytes.len());
    let (n, ()) = allocations(|| quarry_wa::encode_into(&tree, &mut out).unwrap());
    assert_eq!(n, 0, "encode_into a buffer with room");
    assert_eq!(out, bytes);
    // Appending into one without: one reservation, exactly the size.
    let mut out = vec![0x00];
    let (n, ()) = allocations(|| quarry_wa::encode_into(&tree, &mut out).unwrap());
    assert_eq!(n, 1, "encode_into a full buffer");
    assert_eq!(out.capacity(), out.len());

    // Text that contains '@' but is no JID costs nothing extra either.
    let odd = OwnedNode::new("iq")
        .attr("to", "someone@example.com")
        .attr("from", "x:y@s.whatsapp.net");
    let _ = quarry_wa::encode(&odd).unwrap();
    let (n, _) = allocations(|| quarry_wa::encode(&odd).unwrap());
    assert_eq!(n, 1, "encode of non-JID '@' text");
}
