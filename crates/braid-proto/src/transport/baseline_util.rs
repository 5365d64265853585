//! Helpers shared by the multipath baselines (MP-RDMA, Falcon, UET, EQDS): mapping logical paths
//! to UDP source ports and picking a transport's native loss-recovery defaults.

use crate::recovery::RecoveryConfig;
#[cfg(test)]
use crate::recovery::RecoveryKind;

/// The largest number of logical paths (entropies) a baseline accepts.
pub const MAX_PATHS: u32 = 4096;

/// The UDP source port of logical path 0 for a flow whose base port is `entropy`, such that path
/// `i < n` uses `base + i` and `base ≡ 0 (mod n)`: with entropy-indexed routing (next hop =
/// entropy mod fan-out) and `n` equal to the fan-out, logical path `i` is physical path `i`; with
/// ECMP the `n` ports hash independently. `base + n − 1` never exceeds 65535.
pub(crate) fn entropy_base(entropy: u16, n: u32) -> u16 {
    let n = n.clamp(1, MAX_PATHS);
    let span = 65_536 - n;
    let b = entropy as u32 % span;
    (b - b % n) as u16
}

/// The scenario's loss recovery with the transport's native parameters: the scheme is the
/// scenario's (`TransportKind::default_recovery` gives each baseline its native scheme when
/// `transport.recovery` is absent), and every parameter still at its generic default
/// ([`RecoveryConfig::new`]) takes `native`'s value (e.g. UET's 100 µs minimum RTO); parameters
/// the scenario set to another value are kept.
pub(crate) fn recovery_or_native(given: &RecoveryConfig, native: RecoveryConfig) -> RecoveryConfig {
    let generic = RecoveryConfig::new(given.kind);
    let mut out = *given;
    macro_rules! keep_or_native {
        ($($f:ident),*) => {$(
            if given.$f == generic.$f {
                out.$f = native.$f;
            }
        )*};
    }
    keep_or_native!(
        rto_min,
        rto_initial,
        rto_max,
        irn_rto_low,
        irn_rto_high,
        irn_n,
        er_threshold,
        reo_frac,
        min_reo,
        tlp_factor,
        tlp_min,
        nak_interval
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use braid_core::Time;

    #[test]
    fn entropy_base_aligns_and_stays_in_range() {
        for e in [0u16, 1, 3, 49_152, 50_001, 65_533, 65_535] {
            for n in [1u32, 3, 4, 16, 64, 256, 4096] {
                let b = entropy_base(e, n) as u32;
                assert_eq!(b % n, 0);
                assert!(b + n - 1 <= 65_535, "e {e} n {n} b {b}");
            }
        }
        assert_eq!(entropy_base(50_001, 4) % 4, 0);
    }

    fn ack(psn: u32, cum: u32, path: u16, sent: Time) -> crate::transport::AckIn<'static> {
        crate::transport::AckIn::plain(braid_core::PacketKind::Ack, psn, cum, path, sent, 1)
    }

    /// The recovery extensions the baselines rely on (per-path outstanding counts, per-packet
    /// RTO, hole-first retransmission).
    #[test]
    fn recovery_extensions() {
        use crate::recovery::{Recovery, RecoveryKind};
        let mut cfg = RecoveryConfig::new(RecoveryKind::EarlyRecovery);
        cfg.er_threshold = 1000;
        cfg.rto_min = Time::from_us(100);
        cfg.rto_per_packet = true;
        cfg.hole_first = true;
        let mut r = Recovery::new(cfg, 100);
        for i in 0..6u32 {
            let (p, _) = r.next_psn().unwrap();
            r.on_sent(Time::from_us(i as u64), p, (i % 3) as u16);
        }
        assert_eq!(
            (r.path_outstanding(0), r.path_outstanding(1), r.path_outstanding(2)),
            (2, 2, 2)
        );
        // PSN 4 (path 1) selectively acknowledged at 10 µs.
        r.on_ack(Time::from_us(10), &ack(4, 0, 1, Time::from_us(4)));
        assert_eq!(r.path_outstanding(1), 1);
        assert!(r.is_acked(4) && !r.is_acked(3));
        assert_eq!(r.sent_path(5), Some(2));
        // Per-packet RTO: the timer is at most one RTO after the ACK; when it fires, only the
        // packets sent at least an RTO ago are declared lost.
        let t = r.poll_timeout().unwrap();
        assert_eq!(t, Time::from_us(110));
        r.on_timeout(t);
        // Sent at 0..5 µs with RTO 100 µs: 0..3 and 5 are due by 110 µs (4 was acknowledged).
        assert_eq!(r.stats().timeouts, 1);
        assert_eq!(r.outstanding(), 0);
        assert_eq!(r.path_outstanding(0) + r.path_outstanding(1) + r.path_outstanding(2), 0);
        // Hole first: PSN 0 (the cumulative hole) before the others, then in queue order.
        assert_eq!(r.next_psn(), Some((0, true)));
        r.on_sent(t, 0, 1);
        assert_eq!(r.path_outstanding(1), 1);
        assert_eq!(r.next_psn(), Some((1, true)));
    }

    #[test]
    fn native_recovery_replaces_only_defaults() {
        let mut native = RecoveryConfig::new(RecoveryKind::RackTlpPerPath);
        native.rto_min = Time::from_us(250);
        let given = RecoveryConfig::new(RecoveryKind::RackTlpPerPath);
        let r = recovery_or_native(&given, native);
        assert_eq!(r.kind, RecoveryKind::RackTlpPerPath);
        assert_eq!(r.rto_min, Time::from_us(250));
        let mut given = RecoveryConfig::new(RecoveryKind::RackTlp);
        given.rto_min = Time::from_us(50);
        let r = recovery_or_native(&given, native);
        assert_eq!(r.kind, RecoveryKind::RackTlp);
        assert_eq!(r.rto_min, Time::from_us(50));
    }
}
