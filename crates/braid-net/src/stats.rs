//! Counters and distributions the simulator keeps while it runs.

use braid_core::percentile::nearest_rank;
use braid_core::Time;

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(usize)]
pub enum DropReason {
    /// The switch's shared buffer (or the port's dynamic share of it) was full.
    BufferFull = 0,
    /// The class's per-queue byte limit was reached (e.g. the probe class).
    ClassLimit = 1,
    /// Random loss on the link.
    LinkLoss = 2,
    /// The link was down.
    LinkDown = 3,
    /// No route to the destination.
    NoRoute = 4,
    /// The receiver discarded an out-of-order packet (go-back-N).
    RxOutOfOrder = 5,
    /// The receiver's shared reorder buffer was full.
    RxBufferFull = 6,
    /// The receiver already had this packet (a spurious retransmission or duplicate).
    RxDuplicate = 7,
}

/// Number of [`DropReason`]s.
pub const NUM_DROP_REASONS: usize = 8;

impl DropReason {
    /// All reasons, in index order.
    pub const ALL: [DropReason; NUM_DROP_REASONS] = [
        DropReason::BufferFull,
        DropReason::ClassLimit,
        DropReason::LinkLoss,
        DropReason::LinkDown,
        DropReason::NoRoute,
        DropReason::RxOutOfOrder,
        DropReason::RxBufferFull,
        DropReason::RxDuplicate,
    ];
    /// A snake_case name for outputs.
    pub fn name(self) -> &'static str {
        match self {
            DropReason::BufferFull => "buffer_full",
            DropReason::ClassLimit => "class_limit",
            DropReason::LinkLoss => "link_loss",
            DropReason::LinkDown => "link_down",
            DropReason::NoRoute => "no_route",
            DropReason::RxOutOfOrder => "rx_out_of_order",
            DropReason::RxBufferFull => "rx_buffer_full",
            DropReason::RxDuplicate => "rx_duplicate",
        }
    }
}

/// Run-wide counters.
#[derive(Clone, Debug, Default)]
pub struct SimStats {
    /// Packets that crossed a link (arrival events).
    pub packet_hops: u64,
    /// Data packets sent by hosts (retransmissions included).
    pub data_injected: u64,
    /// Of which retransmissions.
    pub retx_injected: u64,
    /// Data packets accepted by receivers (in order or into the reorder buffer).
    pub data_delivered: u64,
    /// Data packets dropped, by [`DropReason`].
    pub data_dropped: [u64; NUM_DROP_REASONS],
    /// Retransmitted packets whose original had also arrived.
    pub spurious_retx: u64,
    /// Sum of loss-to-repair delays (ps).
    pub retx_delay_sum_ps: u128,
    /// Number of repaired losses.
    pub retx_delay_count: u64,
    /// Probes sent / acknowledged / dropped.
    pub probes_sent: u64,
    /// Probes acknowledged.
    pub probes_acked: u64,
    /// Probes dropped.
    pub probes_dropped: u64,
    /// Control packets dropped.
    pub control_dropped: u64,
    /// Packets CE-marked by switches.
    pub ecn_marks: u64,
    /// PFC PAUSE frames sent.
    pub pfc_pauses_sent: u64,
    /// PFC RESUME frames sent.
    pub pfc_resumes_sent: u64,
    /// Application bytes delivered in order to receivers so far (all flows).
    pub inorder_bytes: u64,
    /// Application bytes of completed messages delivered.
    pub app_bytes_delivered: u64,
    /// Time of the last message delivery.
    pub last_delivery: Time,
    /// Data packets trimmed to their header by switches (`network.trim`).
    pub trims: u64,
    /// Of which the trimmed packet was the most recently queued one, displaced by an arrival
    /// (the others are arrivals trimmed on the spot).
    pub trims_of_queued: u64,
    /// Trimmed data packets that reached their destination host (each either NACKed or, for
    /// transports that do not handle trims, discarded there): no longer in flight, not delivered.
    pub trimmed_arrived: u64,
}

impl SimStats {
    /// Add the counters of another partition of a parallel run (sums; the last delivery is the
    /// later one). The retransmission delay is not added: it is recomputed from the partitions'
    /// loss logs (`sim::partition`).
    pub fn merge(&mut self, o: &SimStats) {
        self.packet_hops += o.packet_hops;
        self.data_injected += o.data_injected;
        self.retx_injected += o.retx_injected;
        self.data_delivered += o.data_delivered;
        for (a, b) in self.data_dropped.iter_mut().zip(&o.data_dropped) {
            *a += b;
        }
        self.spurious_retx += o.spurious_retx;
        self.probes_sent += o.probes_sent;
        self.probes_acked += o.probes_acked;
        self.probes_dropped += o.probes_dropped;
        self.control_dropped += o.control_dropped;
        self.ecn_marks += o.ecn_marks;
        self.pfc_pauses_sent += o.pfc_pauses_sent;
        self.pfc_resumes_sent += o.pfc_resumes_sent;
        self.inorder_bytes += o.inorder_bytes;
        self.app_bytes_delivered += o.app_bytes_delivered;
        self.last_delivery = self.last_delivery.max(o.last_delivery);
        self.trims += o.trims;
        self.trims_of_queued += o.trims_of_queued;
        self.trimmed_arrived += o.trimmed_arrived;
    }
}

pub use braid_core::percentile::Histogram;

/// Queue-length samples of one port: mean and a log-bucketed distribution (buckets 5 % wide).
///
/// Only the non-empty samples are counted in buckets (the empty ones are `n` less their sum),
/// and only from the lowest bucket used: a queue of packets is never below 64 bytes, so the
/// buckets under bucket 86 would stay zero on every port.
#[derive(Clone, Debug, Default)]
pub struct PortQueueStats {
    n: u64,
    sum: u128,
    max: u64,
    /// The bucket index of `buckets[0]`.
    first: u32,
    /// Counts of buckets `first ..`.
    buckets: Vec<u32>,
}

impl PortQueueStats {
    fn bucket(v: u64) -> usize {
        if v == 0 {
            0
        } else {
            1 + ((v as f64).ln() / 1.05f64.ln()) as usize
        }
    }
    fn bucket_value(b: usize) -> u64 {
        if b == 0 {
            0
        } else {
            1.05f64.powi(b as i32).round() as u64
        }
    }
    /// Add `other`'s samples (merging a parallel run's partitions).
    pub fn merge(&mut self, other: &PortQueueStats) {
        self.n += other.n;
        self.sum += other.sum;
        self.max = self.max.max(other.max);
        if other.buckets.is_empty() {
            return;
        }
        self.cover(other.first as usize);
        self.cover(other.first as usize + other.buckets.len() - 1);
        let off = (other.first - self.first) as usize;
        for (a, b) in self.buckets[off..].iter_mut().zip(&other.buckets) {
            *a += b;
        }
    }
    /// Grow the buckets kept to cover bucket `b`.
    fn cover(&mut self, b: usize) {
        if self.buckets.is_empty() {
            self.first = b as u32;
            self.buckets.push(0);
        } else if b < self.first as usize {
            let more = self.first as usize - b;
            self.buckets.splice(0..0, std::iter::repeat_n(0, more));
            self.first = b as u32;
        } else if b >= self.first as usize + self.buckets.len() {
            self.buckets.resize(b + 1 - self.first as usize, 0);
        }
    }
    /// Record one sample.
    pub fn record(&mut self, v: u64) {
        self.n += 1;
        self.fill_empty(v);
    }
    /// Record `k` samples of an empty queue.
    pub fn record_empty(&mut self, k: u64) {
        self.n += k;
    }
    /// Give one sample already counted as empty ([`PortQueueStats::record_empty`]) its value
    /// `v`: the statistics are then those of recording `v` in its place.
    pub fn fill_empty(&mut self, v: u64) {
        self.sum += v as u128;
        self.max = self.max.max(v);
        if v == 0 {
            // Zeros are implied by n − Σ buckets.
            return;
        }
        let b = Self::bucket(v);
        self.cover(b);
        self.buckets[b - self.first as usize] += 1;
    }
    /// Samples.
    pub fn count(&self) -> u64 {
        self.n
    }
    /// Mean queue length in bytes.
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum as f64 / self.n as f64
        }
    }
    /// Largest sample.
    pub fn max(&self) -> u64 {
        self.max
    }
    /// Percentile `p` in [0, 100]: the sample of nearest rank ([`nearest_rank`]), read as the upper
    /// edge of the 5 %-wide bucket holding it (at most the largest sample); 0 when there is none
    /// (no samples, or `p` outside [0, 100]), as `summary.json` prints it.
    pub fn percentile(&self, p: f64) -> u64 {
        let Some(rank) = nearest_rank(self.n, p) else { return 0 };
        let nonzero: u64 = self.buckets.iter().map(|&c| c as u64).sum();
        let zeros = self.n - nonzero;
        if rank <= zeros {
            return 0;
        }
        let mut acc = zeros;
        for (b, &c) in self
            .buckets
            .iter()
            .enumerate()
            .map(|(i, c)| (i + self.first as usize, c))
            .filter(|&(b, _)| b > 0)
        {
            acc += c as u64;
            if acc >= rank {
                return Self::bucket_value(b).min(self.max);
            }
        }
        self.max
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counting samples as empty and then giving the non-empty ones their values (how a parallel
    /// run's held samples are counted) gives the statistics of recording each sample.
    #[test]
    fn empty_samples_filled_in_equal_recorded_samples() {
        let mut rng = braid_core::Rng::new(3);
        for _ in 0..200 {
            let samples: Vec<u64> = (0..rng.below(60))
                .map(|_| if rng.below(3) == 0 { rng.below(1 << 20) } else { 0 })
                .collect();
            let (mut recorded, mut filled) = (PortQueueStats::default(), PortQueueStats::default());
            recorded.record(rng.below(2) * 5_000);
            filled.record(recorded.max());
            for &v in &samples {
                recorded.record(v);
            }
            filled.record_empty(samples.len() as u64);
            for &v in samples.iter().filter(|&&v| v > 0) {
                filled.fill_empty(v);
            }
            assert_eq!(
                (recorded.n, recorded.sum, recorded.max, recorded.first, &recorded.buckets),
                (filled.n, filled.sum, filled.max, filled.first, &filled.buckets)
            );
        }
    }

    /// Merged partitions hold the statistics of one port that recorded every sample, whatever
    /// ranges of buckets each used; percentiles read the same as from dense buckets.
    #[test]
    fn merged_queue_stats_equal_one_recording_and_percentiles_read_the_buckets() {
        let mut rng = braid_core::Rng::new(9);
        for _ in 0..200 {
            let (mut a, mut b, mut all) =
                (PortQueueStats::default(), PortQueueStats::default(), PortQueueStats::default());
            let mut dense = vec![0u64; 400];
            let mut zeros = 0u64;
            for _ in 0..rng.below(80) {
                let v = if rng.below(4) == 0 { 0 } else { 64 << rng.below(12) } + rng.below(3_000);
                if rng.below(2) == 0 { &mut a } else { &mut b }.record(v);
                all.record(v);
                if v == 0 {
                    zeros += 1;
                } else {
                    dense[PortQueueStats::bucket(v)] += 1;
                }
            }
            a.merge(&b);
            assert_eq!(
                (a.n, a.sum, a.max, a.first, &a.buckets),
                (all.n, all.sum, all.max, all.first, &all.buckets)
            );
            for p in [1.0, 50.0, 90.0, 99.0, 100.0] {
                // The dense reading: the bucket holding the sample of nearest rank.
                let expect = nearest_rank(all.n, p).map_or(0, |rank| {
                    let mut acc = zeros;
                    if rank <= acc {
                        return 0;
                    }
                    (1..dense.len())
                        .find(|&k| {
                            acc += dense[k];
                            acc >= rank
                        })
                        .map_or(0, |k| PortQueueStats::bucket_value(k).min(all.max))
                });
                assert_eq!(all.percentile(p), expect, "p{p}");
            }
        }
    }

    #[test]
    fn histogram_percentiles() {
        let mut h = Histogram::default();
        for v in 1..=100 {
            h.record(v);
        }
        assert_eq!(h.percentile(50.0), 50);
        assert_eq!(h.percentile(99.0), 99);
        assert_eq!(h.max(), 100);
        assert!((h.mean() - 50.5).abs() < 1e-9);
    }

    #[test]
    fn queue_stats_percentile_within_five_percent() {
        let mut q = PortQueueStats::default();
        for v in 0..1000u64 {
            q.record(v * 100);
        }
        let p99 = q.percentile(99.0) as f64;
        assert!((p99 - 98_900.0).abs() / 98_900.0 < 0.06, "{p99}");
        assert!((q.mean() - 49_950.0).abs() < 1e-6);
    }
}
