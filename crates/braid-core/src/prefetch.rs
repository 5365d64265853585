//! Cache prefetch hints for the simulator's hot path.
//!
//! A large run (an inter-DC network with millions of packets in flight, a k = 48 fat-tree) spends
//! most of its time waiting for memory: the packet an event names, the port it arrives on, were
//! last touched many events ago. The engine knows one event ahead which ones it will need (the
//! next event in the queue, the next packet behind the one a port starts sending) and asks the
//! CPU to start loading them while it works on the current event. A prefetch is only a hint: it
//! never faults, whatever the address, and changes no value, so outputs are byte-identical with
//! or without it. On targets without a prefetch instruction it does nothing.

/// Ask for the cache line holding `addr` to be loaded into every cache level (a hint: the
/// address is never dereferenced, so any value, even a dangling or out-of-range one, is allowed).
#[inline(always)]
#[allow(unsafe_code)] // the crate's one `unsafe`: a hint that reads and writes nothing (below)
pub fn prefetch_read<T>(addr: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: `prefetcht0` is a hint. It reads no value and cannot fault, even on an invalid
        // address (Intel SDM, PREFETCHh: "does not cause a fault"); SSE is part of the x86-64
        // baseline, so the instruction exists on every CPU this target runs on.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(addr as *const i8) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = addr;
    }
}

/// The address `offset` bytes into the `index`-th element of `slice`, for [`prefetch_read`].
/// Wrapping arithmetic on a raw pointer: never dereferenced, so an index past the end is harmless.
#[inline(always)]
pub fn element_addr<T>(slice: &[T], index: usize, offset: usize) -> *const u8 {
    (slice.as_ptr() as *const u8)
        .wrapping_add(index.wrapping_mul(std::mem::size_of::<T>()))
        .wrapping_add(offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_addresses_are_the_elements_and_out_of_range_is_harmless() {
        let v = [10u64, 20, 30];
        assert_eq!(element_addr(&v, 2, 0), &v[2] as *const u64 as *const u8);
        assert_eq!(element_addr(&v, 1, 4), (&v[1] as *const u64 as *const u8).wrapping_add(4));
        // Prefetching past the end, or a null or wild address, neither faults nor changes anything.
        prefetch_read(element_addr(&v, 1_000_000, 0));
        prefetch_read(std::ptr::null::<u8>());
        prefetch_read(usize::MAX as *const u8);
        assert_eq!(v, [10, 20, 30]);
    }
}
