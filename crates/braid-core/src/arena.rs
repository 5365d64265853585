//! A slab of plain values addressed by `u32` handles, with a free list.
//!
//! Packets live here and travel through the event queue as handles. Freed slots are reused, so a
//! steady-state simulation allocates nothing per packet once the slab has grown to its peak.
//! The free list is threaded through the freed slots themselves ([`FreeLink`]): a separate list
//! of free handles would grow to one entry per slot once the packets in flight drain (16 MB
//! after the 4 M packets of an inter-DC run), and the slot is in the cache at both ends anyway.

/// A value whose slot, once freed, can hold the handle of the next free slot: a field nothing
/// reads after the value is freed. Reuse is last-freed first, as with a stack of free handles.
pub trait FreeLink {
    /// The handle stored by [`FreeLink::set_next_free`].
    fn next_free(&self) -> u32;
    /// Store `next` in the freed value.
    fn set_next_free(&mut self, next: u32);
}

/// No free slot.
const NIL: u32 = u32::MAX;

/// A slab of `T` addressed by `u32` handles.
#[derive(Debug, Clone)]
pub struct Arena<T> {
    slots: Vec<T>,
    /// The last freed slot (`NIL`: none); each free slot links to the one freed before it.
    free_head: u32,
    live: usize,
}

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Arena { slots: Vec::new(), free_head: NIL, live: 0 }
    }
}

impl<T: FreeLink> Arena<T> {
    /// An empty arena.
    pub fn new() -> Self {
        Self::default()
    }
    /// Store `v` and return its handle.
    #[inline]
    pub fn alloc(&mut self, v: T) -> u32 {
        self.live += 1;
        if self.free_head != NIL {
            let i = self.free_head;
            self.free_head = self.slots[i as usize].next_free();
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
    /// Release handle `h` (its slot will be reused; the value stays until overwritten, except
    /// the field that now links the free list — read nothing of a freed value).
    #[inline]
    pub fn free(&mut self, h: u32) {
        self.live -= 1;
        self.slots[h as usize].set_next_free(self.free_head);
        self.free_head = h;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Packet;

    fn pkt(psn: u32) -> Packet {
        Packet { psn, ..Packet::default() }
    }

    #[test]
    fn freed_slots_are_reused_last_freed_first_and_values_survive() {
        let mut a = Arena::new();
        let h: Vec<u32> = (0..5).map(|i| a.alloc(pkt(i))).collect();
        assert_eq!(h, vec![0, 1, 2, 3, 4]);
        a.free(1);
        a.free(3);
        assert_eq!(a.live(), 3);
        // Last freed first, as a stack of free handles would.
        assert_eq!(a.alloc(pkt(30)), 3);
        assert_eq!(a.alloc(pkt(10)), 1);
        assert_eq!(a.alloc(pkt(5)), 5, "no free slot left: the slab grows");
        assert_eq!(a.capacity_used(), 6);
        for (h, psn) in [(0, 0), (1, 10), (2, 2), (3, 30), (4, 4), (5, 5)] {
            assert_eq!(a.get(h).psn, psn);
        }
        // Free everything, in any order, and take it all back: every slot once, none new.
        for h in [4, 0, 5, 2, 1, 3] {
            a.free(h);
        }
        assert_eq!(a.live(), 0);
        let mut again: Vec<u32> = (0..6).map(|i| a.alloc(pkt(i))).collect();
        again.sort_unstable();
        assert_eq!(again, vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(a.capacity_used(), 6);
    }
}
