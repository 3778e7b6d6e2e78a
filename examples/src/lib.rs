//! Runnable examples of quarry.
//!
//! * `quickstart`: decodes real-shaped WhatsApp stanzas, Nostr relay
//!   messages and WhatsApp protobuf messages embedded in the binary, prints
//!   each one, and shows the heap allocations per decode with a fresh arena
//!   and with a reused one.
//!
//! Shared helper: [`CountingAlloc`], a global allocator that counts.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A global allocator that counts allocations on top of the system one.
pub struct CountingAlloc;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

impl CountingAlloc {
    /// Allocations made so far by the whole process.
    pub fn allocations() -> usize {
        ALLOCATIONS.load(Ordering::Relaxed)
    }

    /// Heap allocations made while `f` runs, and its result.
    pub fn count<T>(f: impl FnOnce() -> T) -> (usize, T) {
        let before = Self::allocations();
        let out = f();
        (Self::allocations() - before, out)
    }
}

// SAFETY: forwards every call to the system allocator unchanged; the
// counter is an atomic with no effect on the memory handed out.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as our caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as our caller's.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as our caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as our caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
}
