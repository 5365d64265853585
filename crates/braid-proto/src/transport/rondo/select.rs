//! Deficit-based path selection (Rondo §4.2.3). On every transmission the pacer allows, each path
//! with an open window `O_p = max(0, W_p − inflight_p) > 0` is credited `O_p / Σ O` to its deficit
//! `Z_p`; the packet goes on the path with the largest `Z_p` (the first on a tie), which is charged
//! one packet. Over many transmissions each path carries packets in proportion to its open
//! window, and no path goes long without one while it is open. Deficits are bounded to `±n`
//! (`n` paths) so that a path closed for a long time does not come back with a backlog of credit.

use braid_core::Time;

use super::{PathSelection, RondoSender};

/// The per-path deficits `Z_p`.
#[derive(Clone, Debug)]
pub(crate) struct Deficits {
    z: Vec<f64>,
}

impl Deficits {
    /// Every deficit at zero, for `n` paths.
    pub fn new(n: usize) -> Deficits {
        Deficits { z: vec![0.0; n] }
    }

    /// One transmission: `open[p]` is path `p`'s open window (`≤ 0`: closed), `sum` the sum of
    /// the positive ones. Returns the chosen path, or `None` when every path is closed.
    pub fn pick(&mut self, open: &[f64], sum: f64) -> Option<usize> {
        let lim = self.z.len() as f64;
        let mut best: Option<usize> = None;
        for (p, &o) in open.iter().enumerate() {
            if o > 0.0 {
                let z = (self.z[p] + o / sum).min(lim);
                self.z[p] = z;
                if best.is_none_or(|b| z > self.z[b]) {
                    best = Some(p);
                }
            }
        }
        let b = best?;
        self.z[b] = (self.z[b] - 1.0).max(-lim);
        Some(b)
    }
}

/// What one pass over the paths' windows found ([`RondoSender::open_windows`]): the sum of the
/// open windows (packets) and how many paths are open.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct OpenWindows {
    pub(super) sum: f64,
    pub(super) count: usize,
}

impl RondoSender {
    /// Data copies in flight on path `p`: those sent after the latest copy whose ACK came back
    /// on it. A logical path is one FIFO route, so an ACK for the copy sent at `t` means every
    /// earlier copy on the path has arrived or is lost; ACK loss is covered by later ACKs. This
    /// counts what is physically in the pipe, including copies that loss recovery has (perhaps
    /// spuriously) declared lost and sent again elsewhere — recovery's own count forgets those,
    /// and a spurious retransmission would otherwise inject data no window accounts for.
    #[inline]
    pub(super) fn inflight(&self, p: usize) -> u32 {
        self.paths[p].sent.len() as u32
    }

    /// Open window of path `p` for the next transmission. At the tail of a flow a path whose
    /// skip reaches past the last unsent PSN is closed to new data: Eq 7 asks for the
    /// `(skip_p + 1)`-th smallest unsent PSN and there is none — every PSN left arrives earlier
    /// on a faster path, while the slow path could only carry the last one late (an OOD of
    /// `R·ΔD` at the end of every flow, and a later finish).
    ///
    /// Always inlined (it runs for every path on every transmission decision); the RNIC's PSN
    /// range check, set only with `network.max_outstanding_psn` or `max_outstanding_reads`, is
    /// out of line. A closed window is tested first: the skip is then not read (it would not
    /// change the answer), so a path's pending skip is evaluated only once its window opens.
    #[inline(always)]
    pub(super) fn open(&self, now: Time, p: usize, new_data: bool) -> f64 {
        let room = self.room(p);
        if room <= 0.0 {
            return room;
        }
        if new_data && self.sched_on {
            let skip = self.scheduled_skip(now, p).0;
            if skip > 0 && skip >= self.unsent.remaining() {
                return 0.0;
            }
        }
        if new_data && self.core.rec.config().psn_limit.is_set() && !self.psn_in_range(now, p) {
            return 0.0;
        }
        room
    }

    /// Path `p`'s window less its data in flight, at least 0.
    #[inline(always)]
    pub(super) fn room(&self, p: usize) -> f64 {
        (self.paths[p].window() - self.inflight(p) as f64).max(0.0)
    }

    /// The RNIC's PSN range (Appendix A): the PSN a new-data packet on path `p` would take
    /// must be in it.
    #[cold]
    #[inline(never)]
    pub(super) fn psn_in_range(&self, now: Time, p: usize) -> bool {
        let k = if self.sched_on { self.scheduled_skip(now, p).0 } else { 0 };
        self.unsent.nth(k).is_some_and(|psn| self.core.rec.psn_allowed(psn))
    }

    /// Some path is open for the next transmission (a queued retransmission goes first).
    pub(super) fn any_open(&self, now: Time) -> bool {
        let new_data = !self.core.rec.has_retx();
        (0..self.paths.len()).any(|p| self.open(now, p, new_data) > 0.0)
    }

    /// Path of the next transmission (deficit or random), new data or a retransmission; `None`
    /// when every window is closed.
    pub(super) fn choose_path(&mut self, now: Time, new_data: bool) -> Option<usize> {
        let open = self.open_windows(now, new_data);
        self.pick_open(open)
    }

    /// Every path's open window for the next transmission (new data or a retransmission), kept
    /// in `open_scratch` for [`RondoSender::pick_open`]: their sum and how many are open.
    pub(super) fn open_windows(&mut self, now: Time, new_data: bool) -> OpenWindows {
        let mut open = std::mem::take(&mut self.open_scratch);
        open.clear();
        let mut sum = 0.0;
        let mut count = 0usize;
        for p in 0..self.paths.len() {
            let o = self.open(now, p, new_data);
            if o > 0.0 {
                sum += o;
                count += 1;
            }
            open.push(o);
        }
        self.open_scratch = open;
        OpenWindows { sum, count }
    }

    /// The path of the next transmission among the open windows [`RondoSender::open_windows`]
    /// just found (deficit or random); `None` when none is open.
    pub(super) fn pick_open(&mut self, OpenWindows { sum, count }: OpenWindows) -> Option<usize> {
        let open = std::mem::take(&mut self.open_scratch);
        let chosen = if count == 0 {
            None
        } else {
            match self.selection {
                PathSelection::Random => {
                    let mut k = self.rng.index(count);
                    let mut pick = None;
                    for (p, &o) in open.iter().enumerate() {
                        if o > 0.0 {
                            if k == 0 {
                                pick = Some(p);
                                break;
                            }
                            k -= 1;
                        }
                    }
                    pick
                }
                PathSelection::Deficit => self.deficits.pick(&open, sum),
            }
        };
        self.open_scratch = open;
        chosen
    }

    /// Some path is in a probing phase.
    pub(super) fn in_probe_phase(&self, now: Time) -> bool {
        self.probing && self.paths.iter().any(|p| p.probe.active(now))
    }

    /// A probe may go now: a phase is running and the probe pacer allows it (`probe_rate`).
    pub(super) fn probing_now(&self, now: Time) -> bool {
        now >= self.probe_next_at && self.in_probe_phase(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shares(open: &[f64], rounds: usize) -> Vec<usize> {
        let mut d = Deficits::new(open.len());
        let sum: f64 = open.iter().filter(|&&o| o > 0.0).sum();
        let mut n = vec![0; open.len()];
        for _ in 0..rounds {
            n[d.pick(open, sum).unwrap()] += 1;
        }
        n
    }

    #[test]
    fn packets_follow_the_open_windows() {
        assert_eq!(shares(&[3.0, 1.0], 400), vec![300, 100]);
        assert_eq!(shares(&[2.0, 2.0, 4.0], 800), vec![200, 200, 400]);
    }

    #[test]
    fn a_closed_path_gets_nothing_and_all_closed_is_none() {
        assert_eq!(shares(&[0.0, 5.0, -1.0], 10), vec![0, 10, 0]);
        let mut d = Deficits::new(2);
        assert_eq!(d.pick(&[0.0, 0.0], 0.0), None);
    }

    #[test]
    fn no_open_path_waits_longer_than_its_share_allows() {
        // Path 1 has a tenth of the open window: it is chosen once in every ten transmissions.
        let mut d = Deficits::new(2);
        let mut last = 0;
        let mut longest = 0;
        for i in 0..1000 {
            if d.pick(&[9.0, 1.0], 10.0) == Some(1) {
                longest = longest.max(i - last);
                last = i;
            }
        }
        assert!(longest <= 10, "path 1 waited {longest} transmissions");
    }

    #[test]
    fn deficits_stay_bounded() {
        let mut d = Deficits::new(2);
        for _ in 0..1000 {
            d.pick(&[1.0, 0.0], 1.0);
        }
        assert!(d.z.iter().all(|z| z.abs() <= 2.0), "{:?}", d.z);
    }
}
