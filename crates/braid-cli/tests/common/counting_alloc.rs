//! A counting global allocator shared by the allocation tests (`mod common;` in a test crate
//! installs it for that test binary). It forwards every call to `System` and counts allocations
//! and reallocations **per thread**: tests of one binary run in parallel threads, and each must
//! see only its own allocations, not those of a test running beside it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    /// Allocations (and reallocations) made by this thread.
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: allocations during thread teardown, after the counter is gone, are not counted.
    let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
}

// A counting global allocator is the one place Braid needs `unsafe`: it forwards to `System`.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations (and reallocations) made so far by the calling thread.
pub fn allocations() -> u64 {
    ALLOCS.with(|c| c.get())
}
