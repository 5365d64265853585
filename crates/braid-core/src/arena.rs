//! A slab of plain values addressed by `u32` handles, with a free list.
//!
//! Packets live here and travel through the event queue as handles. Freed slots are reused, so a
//! steady-state simulation allocates nothing per packet once the slab has grown to its peak.

/// A slab of `T` addressed by `u32` handles.
#[derive(Debug, Clone)]
pub struct Arena<T> {
    slots: Vec<T>,
    free: Vec<u32>,
    live: usize,
}

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Arena { slots: Vec::new(), free: Vec::new(), live: 0 }
    }
}

impl<T> Arena<T> {
    /// An empty arena.
    pub fn new() -> Self {
        Self::default()
    }
    /// Store `v` and return its handle.
    #[inline]
    pub fn alloc(&mut self, v: T) -> u32 {
        self.live += 1;
        if let Some(i) = self.free.pop() {
            self.slots[i as usize] = v;
            i
        } else {
            if self.slots.len() == self.slots.capacity() {
                // Grow by a quarter rather than double: the slab's peak is the simulation's
                // packets in flight (hundreds of MB on inter-DC networks), and doubling would
                // leave up to half of it unused.
                self.slots.reserve_exact((self.slots.len() / 4).max(64));
            }
            self.slots.push(v);
            (self.slots.len() - 1) as u32
        }
    }
    /// Release handle `h` (its slot will be reused; the value stays until overwritten).
    #[inline]
    pub fn free(&mut self, h: u32) {
        self.live -= 1;
        self.free.push(h);
    }
    /// The value behind `h`.
    #[inline]
    pub fn get(&self, h: u32) -> &T {
        &self.slots[h as usize]
    }
    /// The value behind `h`, mutably.
    #[inline]
    pub fn get_mut(&mut self, h: u32) -> &mut T {
        &mut self.slots[h as usize]
    }
    /// Hint that the value behind `h` will be read soon: both ends of its slot are asked into
    /// the cache ([`crate::prefetch`]; a hint only, any `h` is allowed and nothing changes).
    #[inline(always)]
    pub fn prefetch(&self, h: u32) {
        use crate::prefetch::{element_addr, prefetch_read};
        prefetch_read(element_addr(&self.slots, h as usize, 0));
        prefetch_read(element_addr(&self.slots, h as usize, std::mem::size_of::<T>() - 1));
    }
    /// Values currently allocated.
    pub fn live(&self) -> usize {
        self.live
    }
    /// Slots ever allocated (the arena's high-water mark).
    pub fn capacity_used(&self) -> usize {
        self.slots.len()
    }
}
