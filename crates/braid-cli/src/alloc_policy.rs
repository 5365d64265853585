//! How the process's allocator hands out large buffers: from the operating system, and back to it
//! when they are freed.
//!
//! glibc's `malloc` serves a request of 128 KiB or more with its own `mmap`, until such a block is
//! freed: then it raises that threshold to the freed block's size (up to 32 MiB) and serves later
//! requests of up to that size from its heaps. A run that frees and regrows large buffers —
//! the message buffers between partitions of a parallel run (`docs/parallel.md`) grow to
//! megabytes each over milliseconds-long windows of inter-DC traffic and are released after
//! each — then leaves them scattered over its heaps, where freed pages stay resident. On
//! LCMP Fig 5 with `--threads 2` that was 637 MB peak against 513 MB with the threshold held at
//! 128 KiB (BENCHMARKS.md, "Memory of a parallel run"). Holding it fixed
//! (setting it turns the adjustment off) makes every large buffer a mapping of its own, returned
//! to the operating system when freed; small allocations are unaffected.

/// The size from which a request is served by its own mapping (glibc's initial default).
pub const MMAP_THRESHOLD_BYTES: usize = 128 * 1024;

/// Hold glibc's threshold for large buffers at [`MMAP_THRESHOLD_BYTES`]. Returns whether the
/// allocator took the setting (always `false` where the allocator is not glibc's). Call once,
/// first thing in `main`.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)] // one call setting a parameter of glibc's allocator (below)
pub fn large_buffers_from_the_os() -> bool {
    // SAFETY: `mallopt` only sets a tuning parameter of glibc's allocator; it reads and writes no
    // memory of ours and is thread-safe (it takes the allocator's locks). The value fits a C int.
    unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES as libc::c_int) == 1 }
}

/// Elsewhere the allocator keeps its own policy.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn large_buffers_from_the_os() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn glibc_takes_the_threshold_and_large_buffers_still_work() {
        assert!(
            large_buffers_from_the_os(),
            "glibc refused M_MMAP_THRESHOLD = {MMAP_THRESHOLD_BYTES}"
        );
        // Setting it twice is harmless, and buffers across the threshold allocate, grow, shrink
        // and free as before.
        assert!(large_buffers_from_the_os());
        let mut v: Vec<u64> = Vec::new();
        for i in 0..(1u64 << 20) {
            v.push(i);
        }
        assert_eq!(v.iter().sum::<u64>(), (1u64 << 20) * ((1u64 << 20) - 1) / 2);
        v.truncate(10);
        v.shrink_to_fit();
        assert_eq!(v, (0..10).collect::<Vec<u64>>());
    }
}
