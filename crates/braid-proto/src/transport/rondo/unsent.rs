//! The set of PSNs never sent yet, for Rondo's packet scheduler (§4.3), which sends the
//! `(skip + 1)`-th smallest unsent PSN rather than always the smallest.
//!
//! Representation: `lowest` (the smallest unsent PSN) and a bitmap of PSNs at or above it that
//! have already been sent out of order, in 64-bit words starting at the word that holds `lowest`.
//! Sent-ahead PSNs are few and close to `lowest` (at most the largest skip), so the bitmap stays a
//! few words long; after warm-up no operation allocates. Finding the `k`-th unsent PSN costs
//! `O(k / 64)` word operations.

use std::collections::VecDeque;

/// PSNs `0..total` that have not been sent yet.
#[derive(Clone, Debug)]
pub struct UnsentSet {
    total: u32,
    /// Smallest unsent PSN (`total` when everything has been sent).
    lowest: u32,
    /// PSN of bit 0 of `words[0]` (a multiple of 64, ≤ `lowest`).
    base: u32,
    /// Bit `i` of word `w` set ⇔ PSN `base + 64·w + i` has been sent.
    words: VecDeque<u64>,
    sent: u32,
}

impl UnsentSet {
    /// All of `0..total` unsent.
    pub fn new(total: u32) -> UnsentSet {
        UnsentSet { total, lowest: 0, base: 0, words: VecDeque::with_capacity(8), sent: 0 }
    }

    /// PSNs still unsent.
    #[inline]
    pub fn remaining(&self) -> u32 {
        self.total - self.sent
    }

    /// The smallest unsent PSN (`total` when none is left).
    #[inline]
    pub fn lowest(&self) -> u32 {
        self.lowest
    }

    #[inline]
    fn is_sent(&self, psn: u32) -> bool {
        if psn < self.base {
            return true;
        }
        let off = psn - self.base;
        let w = (off / 64) as usize;
        w < self.words.len() && self.words[w] & (1u64 << (off % 64)) != 0
    }

    /// The `k`-th smallest unsent PSN (0-based: `k = 0` is [`UnsentSet::lowest`]). When fewer
    /// than `k + 1` PSNs are left, the largest unsent one. `None` when nothing is left.
    pub fn nth(&self, k: u32) -> Option<u32> {
        if self.remaining() == 0 {
            return None;
        }
        let k = k.min(self.remaining() - 1);
        // Walk the bitmap words from the one holding `lowest`; beyond them every PSN is unsent.
        let mut need = k as u64; // unsent PSNs still to pass over
        let mut w = ((self.lowest - self.base) / 64) as usize;
        while w < self.words.len() {
            let word_base = self.base as u64 + 64 * w as u64;
            let mut free = !self.words[w];
            if word_base < self.lowest as u64 {
                // Ignore bits below `lowest` (all sent anyway, but be explicit).
                let below = self.lowest as u64 - word_base;
                free &= !0u64 << below;
            }
            let n = free.count_ones() as u64;
            if need < n {
                // Select the `need`-th set bit of `free`.
                let mut f = free;
                for _ in 0..need {
                    f &= f - 1;
                }
                return Some((word_base + f.trailing_zeros() as u64) as u32);
            }
            need -= n;
            w += 1;
        }
        let first_beyond = (self.base as u64 + 64 * self.words.len() as u64).max(self.lowest as u64);
        Some((first_beyond + need) as u32)
    }

    /// Mark `psn` sent (a no-op if it already was or is out of range).
    pub fn mark_sent(&mut self, psn: u32) {
        if psn >= self.total || self.is_sent(psn) {
            return;
        }
        let off = psn - self.base;
        let w = (off / 64) as usize;
        while self.words.len() <= w {
            self.words.push_back(0);
        }
        self.words[w] |= 1u64 << (off % 64);
        self.sent += 1;
        if psn == self.lowest {
            // Advance over the run of sent PSNs and drop words wholly below `lowest`.
            let mut p = self.lowest;
            while p < self.total && self.is_sent(p) {
                p += 1;
            }
            self.lowest = p;
            while !self.words.is_empty() && self.base + 64 <= self.lowest {
                self.words.pop_front();
                self.base += 64;
            }
            if self.words.is_empty() {
                self.base = self.lowest - self.lowest % 64;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn in_order_and_skips() {
        let mut u = UnsentSet::new(10);
        assert_eq!(u.nth(0), Some(0));
        assert_eq!(u.nth(3), Some(3));
        u.mark_sent(3);
        assert_eq!(u.nth(3), Some(4));
        assert_eq!(u.lowest(), 0);
        u.mark_sent(0);
        u.mark_sent(1);
        u.mark_sent(2);
        assert_eq!(u.lowest(), 4);
        assert_eq!(u.remaining(), 6);
        assert_eq!(u.nth(100), Some(9));
        for p in 4..10 {
            u.mark_sent(p);
        }
        assert_eq!(u.nth(0), None);
        assert_eq!(u.lowest(), 10);
    }

    proptest! {
        /// Against a plain sorted list: the k-th unsent PSN and the bookkeeping agree whatever
        /// order PSNs are taken in.
        #[test]
        fn matches_a_sorted_list(total in 1u32..400, picks in proptest::collection::vec(0u32..300, 0..400)) {
            let mut u = UnsentSet::new(total);
            let mut list: Vec<u32> = (0..total).collect();
            for k in picks {
                if list.is_empty() {
                    prop_assert_eq!(u.nth(k), None);
                    break;
                }
                let i = (k as usize).min(list.len() - 1);
                prop_assert_eq!(u.nth(k), Some(list[i]));
                let p = list.remove(i);
                u.mark_sent(p);
                prop_assert_eq!(u.remaining() as usize, list.len());
                prop_assert_eq!(u.lowest(), list.first().copied().unwrap_or(total));
            }
        }
    }
}
