//! REPS, UET's recycled-entropy path selection (htsim `uec.cpp`): entropies whose packets came
//! back unmarked are reused, the others replaced by fresh ones.

use super::*;

/// REPS feedback for an entropy value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvFeedback {
    /// Unmarked ACK.
    Good,
    /// ECN-marked ACK.
    Ecn,
    /// NAK (drop at the receiver, or a packet trimmed before the last hop).
    Nack,
}

/// Recycled Entropy Packet Spraying state (htsim `buffer_reps.cpp`).
#[derive(Clone, Debug)]
pub struct Reps {
    n: u32,
    buf: Vec<u16>,
    fresh: Vec<bool>,
    head: usize,
    len: usize,
    explore: u32,
    frozen_until: Option<Time>,
    freeze: bool,
    freeze_time: Time,
    cycle: usize,
    recycled: u64,
    random: u64,
}

impl Reps {
    /// A REPS selector over `n` EVs with a buffer of `cap` entries.
    pub fn new(n: u32, cap: usize, freeze: bool, freeze_time: Time) -> Reps {
        Reps {
            n,
            buf: vec![0; cap.max(1)],
            fresh: vec![false; cap.max(1)],
            head: 0,
            len: 0,
            explore: 0,
            frozen_until: None,
            freeze,
            freeze_time,
            cycle: 0,
            recycled: 0,
            random: 0,
        }
    }

    fn oldest(&self) -> usize {
        (self.head + self.buf.len() - self.len) % self.buf.len()
    }

    /// Feedback from an ACK for `ev`.
    pub fn feedback(&mut self, ev: u16, fb: EvFeedback) {
        if fb != EvFeedback::Good || ev as u32 >= self.n {
            return;
        }
        let cap = self.buf.len();
        self.buf[self.head] = ev;
        self.fresh[self.head] = true;
        self.head = (self.head + 1) % cap;
        self.len = (self.len + 1).min(cap);
    }

    /// A retransmission timeout: freeze, unless frozen or exploring.
    pub fn on_timeout(&mut self, now: Time) {
        if self.freeze && self.frozen_until.is_none() && self.explore == 0 {
            self.frozen_until = Some(now + self.freeze_time);
        }
    }

    /// Whether the buffer is frozen at `now`.
    pub fn frozen(&self, now: Time) -> bool {
        self.frozen_until.is_some_and(|t| now < t)
    }

    /// The EV of the next packet.
    pub fn next(&mut self, now: Time, rng: &mut Rng) -> u16 {
        if self.frozen_until.is_some_and(|t| now >= t) {
            self.frozen_until = None;
            self.len = 0;
            self.head = 0;
            self.explore = 16;
        }
        if self.explore > 0 {
            self.explore -= 1;
            self.random += 1;
            return rng.below(self.n as u64) as u16;
        }
        if self.frozen_until.is_some() {
            if self.len == 0 {
                self.random += 1;
                return rng.below(self.n as u64) as u16;
            }
            let idx = (self.oldest() + self.cycle % self.len) % self.buf.len();
            self.cycle = self.cycle.wrapping_add(1);
            return self.buf[idx];
        }
        // From the oldest entry on, wrapping by a compare rather than a division per entry.
        let cap = self.buf.len();
        let mut idx = self.oldest();
        for _ in 0..self.len {
            if self.fresh[idx] {
                self.fresh[idx] = false;
                self.recycled += 1;
                return self.buf[idx];
            }
            idx = if idx + 1 == cap { 0 } else { idx + 1 };
        }
        self.random += 1;
        rng.below(self.n as u64) as u16
    }

    /// EVs taken from the buffer so far.
    pub fn recycled(&self) -> u64 {
        self.recycled
    }
    /// EVs drawn at random so far.
    pub fn random(&self) -> u64 {
        self.random
    }
}
