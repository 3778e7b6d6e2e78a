//! Test support shared by quarry's test binaries (a dev-dependency only).
//!
//! [`CountingAlloc`] forwards to the system allocator and keeps two
//! counts on the side, neither of which allocates:
//!
//! * per thread, the allocations (`alloc`, `alloc_zeroed`, `realloc`) made
//!   inside [`count_allocs`]: tests run on parallel threads, so a
//!   process-wide count would mix them;
//! * process-wide, the live heap bytes of threads inside [`tracked`]: an
//!   owned message may be freed on another thread than the one that
//!   decoded it, so leaks are counted across threads (tests that use it
//!   serialize themselves).
//!
//! A global allocator is per binary, so each test binary installs it:
//!
//! ```
//! #[global_allocator]
//! static GLOBAL: quarry_testkit::CountingAlloc = quarry_testkit::CountingAlloc;
//!
//! fn main() {
//!     let (allocations, buffer) = quarry_testkit::count_allocs(|| Vec::<u8>::with_capacity(64));
//!     assert_eq!(allocations, 1);
//!     let (allocations, ()) = quarry_testkit::count_allocs(|| drop(buffer));
//!     assert_eq!(allocations, 0);
//! }
//! ```

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicIsize, Ordering};

/// The counting global allocator; see the crate documentation.
pub struct CountingAlloc;

/// Live heap bytes allocated minus freed by threads inside [`tracked`].
static LIVE: AtomicIsize = AtomicIsize::new(0);

// Const-initialised `Cell`s have no lazy initialisation and no destructor,
// so reading them from the allocator never allocates; `try_with` because
// the allocator also runs while a thread's locals are torn down.
thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
    static TRACKED: Cell<bool> = const { Cell::new(false) };
}

fn allocated(bytes: usize) {
    if COUNTING.try_with(Cell::get).unwrap_or(false) {
        let _ = COUNT.try_with(|n| n.set(n.get() + 1));
    }
    if TRACKED.try_with(Cell::get).unwrap_or(false) {
        LIVE.fetch_add(bytes as isize, Ordering::SeqCst);
    }
}

fn freed(bytes: usize) {
    if TRACKED.try_with(Cell::get).unwrap_or(false) {
        LIVE.fetch_sub(bytes as isize, Ordering::SeqCst);
    }
}

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged and returns its result; the additions only touch const
// thread-locals and an atomic, which never allocate.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        allocated(layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        allocated(layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        freed(layout.size());
        allocated(new_size);
        // SAFETY: the caller's contract, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        freed(layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Run `f` and return how many heap allocations (`alloc`, `alloc_zeroed`,
/// `realloc`) this thread made in it, with its result. Nests: an inner
/// call's allocations count in the outer one too.
pub fn count_allocs<R>(f: impl FnOnce() -> R) -> (usize, R) {
    let was_on = COUNTING.with(|on| on.replace(true));
    let before = COUNT.with(Cell::get);
    let out = f();
    let made = COUNT.with(Cell::get) - before;
    COUNTING.with(|on| on.set(was_on));
    (made, out)
}

/// Run `f` with this thread's allocations and frees counted in
/// [`live_bytes`].
pub fn tracked<R>(f: impl FnOnce() -> R) -> R {
    let was = TRACKED.with(|t| t.replace(true));
    let out = f();
    TRACKED.with(|t| t.set(was));
    out
}

/// Live heap bytes of everything allocated or freed inside [`tracked`],
/// on any thread, since the process started.
pub fn live_bytes() -> isize {
    LIVE.load(Ordering::SeqCst)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[global_allocator]
    static GLOBAL: CountingAlloc = CountingAlloc;

    #[test]
    fn counts_this_threads_allocations_inside_the_closure_only() {
        let (made, v) = count_allocs(|| {
            let v: Vec<u8> = Vec::with_capacity(10);
            std::hint::black_box(v)
        });
        assert_eq!(made, 1);
        let (made, ()) = count_allocs(|| drop(v));
        assert_eq!(made, 0, "a free is not an allocation");
        // `black_box` keeps each box observed, so an optimized build cannot
        // remove the allocation being counted.
        let (outer, inner) = count_allocs(|| {
            count_allocs(|| std::hint::black_box(Box::new(1u8))).0 + {
                drop(std::hint::black_box(Box::new(2u8)));
                0
            }
        });
        assert_eq!((outer, inner), (2, 1));
    }

    #[test]
    fn tracks_live_bytes_across_threads() {
        let before = live_bytes();
        let b = tracked(|| std::hint::black_box(vec![0u8; 1000]));
        assert_eq!(live_bytes() - before, 1000);
        std::thread::spawn(move || tracked(|| drop(b)))
            .join()
            .unwrap();
        assert_eq!(live_bytes(), before);
    }
}
