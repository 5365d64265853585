//! Deficit-based path selection (Rondo §4.2.3). On every transmission the pacer allows, each path
//! with an open window `O_p = max(0, W_p − inflight_p) > 0` is credited `O_p / Σ O` to its deficit
//! `Z_p`; the packet goes on the path with the largest `Z_p` (the first on a tie), which is charged
//! one packet. Over many transmissions each path carries packets in proportion to its open
//! window, and no path goes long without one while it is open. Deficits are bounded to `±n`
//! (`n` paths) so that a path closed for a long time does not come back with a backlog of credit.

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
