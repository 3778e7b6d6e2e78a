//! A counting global allocator: one process-wide count (the server's
//! allocations per request) and one per thread (the decode path, which runs
//! without an `.await` and so on one thread from start to end).
//!
//! The binary and the tests install it:
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOC: quarry_server::alloc_count::CountingAlloc = quarry_server::alloc_count::CountingAlloc;
//! ```
//!
//! Without it every count reads 0 and [`is_installed`] says so.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

static TOTAL: AtomicU64 = AtomicU64::new(0);

thread_local! {
    // `const` and without a destructor: reading it never allocates, so the
    // allocator may touch it.
    static THREAD: Cell<u64> = const { Cell::new(0) };
}

/// The system allocator, counting `alloc`, `alloc_zeroed` and `realloc`
/// calls (a `realloc` counts as one allocation).
pub struct CountingAlloc;

#[inline]
fn count() {
    TOTAL.fetch_add(1, Relaxed);
    // `try_with`: during thread teardown the slot may be gone; such
    // allocations are still in the process-wide count.
    let _ = THREAD.try_with(|c| c.set(c.get() + 1));
}

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged, so `System`'s guarantees carry over; the counters are an atomic
// and a const-initialized thread-local `Cell`, neither of which allocates.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: forwarded unchanged; the caller upholds `alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: forwarded unchanged; the caller upholds `alloc_zeroed`'s contract.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged; `ptr` came from this allocator, i.e. from `System`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: forwarded unchanged; `ptr` came from `System` with `layout`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Allocations made by the whole process so far.
pub fn total() -> u64 {
    TOTAL.load(Relaxed)
}

/// Allocations made by the calling thread so far.
pub fn this_thread() -> u64 {
    THREAD.try_with(Cell::get).unwrap_or(0)
}

/// Whether [`CountingAlloc`] is this process's global allocator.
pub fn is_installed() -> bool {
    let before = this_thread();
    let probe = std::hint::black_box(Box::new(1u64));
    let after = this_thread();
    drop(probe);
    after > before
}

/// Run `f` and return its result with the allocations the calling thread
/// made meanwhile.
///
/// ```
/// let (value, allocations) = quarry_server::alloc_count::counting(|| 1 + 1);
/// assert_eq!((value, allocations), (2, 0));
/// ```
#[inline]
pub fn counting<R>(f: impl FnOnce() -> R) -> (R, u64) {
    let before = this_thread();
    let result = f();
    (result, this_thread() - before)
}
