//! The set of PSNs never sent yet, for Rondo's packet scheduler (§4.3), which sends the
//! `(skip + 1)`-th smallest unsent PSN rather than always the smallest.
//!
//! Representation: one bit per PSN of the message (set = sent), in 64-bit words, and a Fenwick
//! (binary indexed) tree of the sent count per word. The `k`-th unsent PSN is found by walking
//! the words from the one holding the smallest unsent PSN when `k` is small (at most
//! [`SCAN_WORDS`] words, the common case inside a datacenter, where skips are tens of packets),
//! and otherwise by descending the tree: `O(log(n/64))` word operations whatever `k` is. At
//! inter-DC scale `R·ΔD` is 10^4–10^6 packets (100 Gb/s and 5 ms: ~60,000 MTU), and a
//! linear walk would cost `k/64` words per packet. Marking a PSN sent is `O(log(n/64))`; the
//! smallest unsent PSN advances amortised `O(1)`. Memory: 1.5 bits per PSN (12 bytes per 64
//! packets), allocated once when the flow starts; nothing allocates per packet.

/// Up to this many words from the smallest unsent PSN's are scanned before the tree is used.
pub const SCAN_WORDS: usize = 4;

/// PSNs `0..total` that have not been sent yet.
#[derive(Clone, Debug)]
pub struct UnsentSet {
    total: u32,
    /// Smallest unsent PSN (`total` when everything has been sent).
    lowest: u32,
    /// Bit `i` of word `w` set ⇔ PSN `64·w + i` has been sent (or is beyond `total`).
    words: Vec<u64>,
    /// Fenwick tree over `words` (1-based): `tree[i]` = set bits in the words `(i − lsb(i), i]`.
    tree: Vec<u32>,
    sent: u32,
}

impl UnsentSet {
    /// All of `0..total` unsent.
    pub fn new(total: u32) -> UnsentSet {
        let nw = (total as usize).div_ceil(64).max(1);
        let mut words = vec![0u64; nw];
        let tail = total % 64;
        if tail != 0 || total == 0 {
            // Bits beyond `total` count as sent, so that every word's free bits are real PSNs.
            words[nw - 1] = if total == 0 { !0 } else { !0u64 << tail };
        }
        // Linear-time build: each node adds its count to its parent.
        let mut tree = vec![0u32; nw + 1];
        for i in 1..=nw {
            tree[i] += words[i - 1].count_ones();
            let parent = i + (i & i.wrapping_neg());
            if parent <= nw {
                tree[parent] += tree[i];
            }
        }
        UnsentSet { total, lowest: 0, words, tree, sent: 0 }
    }

    /// PSNs `total..new_total` join the set (a connection posted another message). Storage
    /// grows by doubling, so posting many messages costs amortised `O(n/64)` word operations.
    pub fn grow(&mut self, new_total: u32) {
        let old = self.total;
        if new_total <= old {
            return;
        }
        let need = (new_total as usize).div_ceil(64);
        if need > self.words.len() {
            let cap = need.max(2 * self.words.len());
            self.words.resize(cap, !0u64);
            self.tree = vec![0u32; cap + 1];
            for i in 1..=cap {
                self.tree[i] += self.words[i - 1].count_ones();
                let parent = i + (i & i.wrapping_neg());
                if parent <= cap {
                    self.tree[parent] += self.tree[i];
                }
            }
        }
        let mut psn = old;
        while psn < new_total {
            let w = (psn / 64) as usize;
            let lo = psn % 64;
            let hi = (new_total - 64 * w as u32).min(64);
            let mask = if hi - lo == 64 { !0u64 } else { ((1u64 << (hi - lo)) - 1) << lo };
            let cleared = (self.words[w] & mask).count_ones();
            self.words[w] &= !mask;
            let mut i = w + 1;
            while i < self.tree.len() {
                self.tree[i] -= cleared;
                i += i & i.wrapping_neg();
            }
            psn = 64 * w as u32 + hi;
        }
        // Every PSN below `old` that is unsent was already counted; `lowest` was `old` when none
        // was, which is now the smallest new one.
        self.total = new_total;
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
        self.words[(psn / 64) as usize] & (1u64 << (psn % 64)) != 0
    }

    /// The `k`-th smallest unsent PSN (0-based: `k = 0` is [`UnsentSet::lowest`]). When fewer
    /// than `k + 1` PSNs are left, the largest unsent one. `None` when nothing is left.
    pub fn nth(&self, k: u32) -> Option<u32> {
        if self.remaining() == 0 {
            return None;
        }
        let k = k.min(self.remaining() - 1);
        let mut need = k as u64; // unsent PSNs still to pass over
                                 // Short skips: scan a few words from the one holding `lowest` (every PSN below it is sent).
        let first = (self.lowest / 64) as usize;
        for w in first..(first + SCAN_WORDS).min(self.words.len()) {
            let free = !self.words[w];
            let n = free.count_ones() as u64;
            if need < n {
                return Some(64 * w as u32 + select(free, need as u32));
            }
            need -= n;
        }
        // Long skips: descend the Fenwick tree from the root for the `k`-th free bit overall.
        let mut need = k;
        let nw = self.words.len();
        let mut pos = 0usize; // words wholly passed over
        let mut step = 1usize << (usize::BITS - 1 - nw.leading_zeros());
        while step > 0 {
            let next = pos + step;
            if next <= nw {
                let free = (64 * step) as u32 - self.tree[next];
                if free <= need {
                    pos = next;
                    need -= free;
                }
            }
            step >>= 1;
        }
        Some(64 * pos as u32 + select(!self.words[pos], need))
    }

    /// Mark `psn` sent (a no-op if it already was or is out of range).
    pub fn mark_sent(&mut self, psn: u32) {
        if psn >= self.total || self.is_sent(psn) {
            return;
        }
        let w = (psn / 64) as usize;
        self.words[w] |= 1u64 << (psn % 64);
        let mut i = w + 1;
        while i < self.tree.len() {
            self.tree[i] += 1;
            i += i & i.wrapping_neg();
        }
        self.sent += 1;
        if psn == self.lowest {
            // Advance over the run of sent PSNs, a word at a time.
            let mut w = (self.lowest / 64) as usize;
            loop {
                let free = !self.words[w] & (!0u64 << (self.lowest % 64));
                if free != 0 {
                    self.lowest = 64 * w as u32 + free.trailing_zeros();
                    break;
                }
                w += 1;
                if w == self.words.len() {
                    self.lowest = self.total;
                    break;
                }
                self.lowest = 64 * w as u32;
            }
        }
    }
}

/// Position of the `n`-th (0-based) set bit of `x` (which has more than `n` set bits).
#[inline]
fn select(mut x: u64, n: u32) -> u32 {
    for _ in 0..n {
        x &= x - 1;
    }
    x.trailing_zeros()
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

    #[test]
    fn long_skips_use_the_tree() {
        // A skip of 10^6 packets in a 4 M-packet message, past words of sent-ahead PSNs.
        let mut u = UnsentSet::new(4_000_000);
        for p in (0..2_000_000).step_by(2) {
            u.mark_sent(p);
        }
        assert_eq!(u.lowest(), 1);
        // Unsent: the 10^6 odd PSNs below 2 M, then everything from 2 M.
        assert_eq!(u.nth(999_999), Some(1_999_999));
        assert_eq!(u.nth(1_000_000), Some(2_000_000));
        assert_eq!(u.nth(1_500_000), Some(2_500_000));
        assert_eq!(u.nth(u32::MAX), Some(3_999_999));
        assert_eq!(u.remaining(), 3_000_000);
        assert_eq!(UnsentSet::new(0).nth(0), None);
    }

    #[test]
    fn grows_like_a_set_built_whole() {
        let mut u = UnsentSet::new(0);
        assert_eq!(u.nth(0), None);
        u.grow(70);
        assert_eq!(u.remaining(), 70);
        for p in 0..70 {
            u.mark_sent(p);
        }
        assert_eq!(u.lowest(), 70);
        u.grow(200);
        assert_eq!((u.lowest(), u.remaining()), (70, 130));
        assert_eq!(u.nth(129), Some(199));
        assert_eq!(u.nth(64), Some(134));
        u.mark_sent(100);
        u.grow(5000);
        assert_eq!(u.nth(29), Some(99));
        assert_eq!(u.nth(30), Some(101));
        assert_eq!(u.remaining(), 5000 - 71);
    }

    proptest! {
        /// Growing in steps gives the same set as building it whole, whatever is sent between.
        #[test]
        fn growth_matches_a_sorted_list(steps in proptest::collection::vec((1u32..300, proptest::collection::vec(0u32..400, 0..50)), 1..12)) {
            let mut u = UnsentSet::new(0);
            let mut list: Vec<u32> = Vec::new();
            let mut total = 0u32;
            for (add, picks) in steps {
                u.grow(total + add);
                list.extend(total..total + add);
                total += add;
                for k in picks {
                    if list.is_empty() {
                        break;
                    }
                    let i = (k as usize).min(list.len() - 1);
                    prop_assert_eq!(u.nth(k), Some(list[i]));
                    let p = list.remove(i);
                    u.mark_sent(p);
                }
                prop_assert_eq!(u.remaining() as usize, list.len());
                prop_assert_eq!(u.lowest(), list.first().copied().unwrap_or(total));
            }
        }
    }

    proptest! {
        /// Against a plain sorted list: the k-th unsent PSN and the bookkeeping agree whatever
        /// order PSNs are taken in, for skips inside the scanned words and beyond them (the tree).
        #[test]
        fn matches_a_sorted_list(total in 1u32..3000, picks in proptest::collection::vec(prop_oneof![0u32..40, 0u32..4000], 0..700)) {
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
