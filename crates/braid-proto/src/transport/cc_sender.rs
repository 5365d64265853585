//! The sender driven by one congestion controller, generic over its path policy: RoCE (one path,
//! [`SinglePath`](super::roce::SinglePath)) and RRPS (round-robin spraying,
//! [`RoundRobin`](super::rondo::rrps::RoundRobin)) are this one sender (`docs/baselines.md`;
//! Rondo §6.1).
//!
//! Behaviour, as in the HPCC ns-3 model: the flow starts at line rate (no slow start); after
//! sending a packet of `s` wire bytes it may not send again for `s / R` (rate pacing,
//! `RATE_BOUND`); it may send only while the bytes outstanding stay within the controller's
//! window. A queued retransmission goes before new data (and takes the policy's next path too).
//! The path policy is a type parameter: no dynamic dispatch per packet.

use braid_core::Time;

use super::events::{AckIn, FlowEnv, TxPacket};
use super::sender_core::SenderCore;
use super::{SenderOps, Transport, TransportConfig};
use crate::cc::{AckEvent, Cc, CcKind, CongestionControl};
use crate::recovery::{AckSummary, Recovery, RecoveryKind, RecoveryStats, TimerFired};

/// Which logical path (and UDP source port) each packet of a [`CcSender`] takes.
pub trait PathPolicy: Clone + std::fmt::Debug {
    /// The `(path, entropy)` of the next packet sent.
    fn next_path(&mut self) -> (u16, u16);
}

/// The transport a [`CcSender`] with this path policy is: its name, knobs, defaults, how its
/// configuration is read and how the sender is built. [`Transport`] for `CcSender<P>` takes
/// these from `P`.
pub trait CcTransport: PathPolicy + Send + 'static {
    /// See [`Transport::NAME`].
    const NAME: &'static str;
    /// See [`Transport::KNOBS`].
    const KNOBS: &'static [&'static str];
    /// See [`Transport::MULTIPATH`].
    const MULTIPATH: bool;
    /// See [`Transport::Config`].
    type Config: Clone + std::fmt::Debug + Send + Sync + 'static;
    /// See [`Transport::default_cc`].
    fn default_cc() -> CcKind;
    /// See [`Transport::default_recovery`].
    fn default_recovery() -> RecoveryKind;
    /// See [`Transport::read_config`].
    fn read_config(tc: &TransportConfig) -> Result<Self::Config, String>;
    /// See [`Transport::new`].
    fn new(cfg: &Self::Config, env: &FlowEnv) -> Result<CcSender<Self>, String>;
}

/// A sender with one congestion controller, rate-paced and window-limited, over path policy `P`.
#[derive(Clone, Debug)]
pub struct CcSender<P: PathPolicy> {
    pub(crate) core: SenderCore,
    header_bytes: u32,
    policy: P,
    cc: Cc,
    /// The controller as it was before the RTO whose verdict is open, restored if the RTO proves
    /// spurious (RFC 4015's response to Eifel detection).
    cc_before_rto: Option<Cc>,
    next_tx_at: Time,
    /// Packet times in whole nanoseconds, rounded down ([`crate::cc::CcEnv::tx_time_floor_ns`]).
    tx_time_floor_ns: bool,
}

impl<P: PathPolicy> CcSender<P> {
    /// A sender over `core` with controller `cc`, adding `header_bytes` per packet on the wire,
    /// that may start at `start`; `tx_time_floor_ns` as [`crate::cc::CcEnv::tx_time_floor_ns`].
    /// (A transport written outside this crate builds its sender here, from
    /// [`CcTransport::new`].)
    pub fn with_parts(
        core: SenderCore,
        cc: Cc,
        header_bytes: u32,
        policy: P,
        start: Time,
        tx_time_floor_ns: bool,
    ) -> CcSender<P> {
        CcSender {
            core,
            header_bytes,
            policy,
            cc,
            cc_before_rto: None,
            next_tx_at: start,
            tx_time_floor_ns,
        }
    }

    fn window_allows(&self) -> bool {
        window_allows(&self.core.rec, &self.cc, self.core.mtu_bytes())
    }

    /// Every byte acknowledged.
    pub fn is_complete(&self) -> bool {
        self.core.is_complete()
    }
    /// Loss-recovery counters.
    pub fn recovery_stats(&self) -> RecoveryStats {
        self.core.recovery_stats()
    }
}

impl<P: CcTransport> Transport for CcSender<P> {
    const NAME: &'static str = P::NAME;

    const KNOBS: &'static [&'static str] = P::KNOBS;

    const MULTIPATH: bool = P::MULTIPATH;

    type Config = P::Config;

    fn default_cc() -> CcKind {
        P::default_cc()
    }

    fn default_recovery() -> RecoveryKind {
        P::default_recovery()
    }

    fn read_config(tc: &TransportConfig) -> Result<P::Config, String> {
        P::read_config(tc)
    }

    fn new(cfg: &P::Config, env: &FlowEnv) -> Result<Self, String> {
        P::new(cfg, env)
    }
}

impl<P: CcTransport> SenderOps for CcSender<P> {
    fn core(&self) -> &SenderCore {
        &self.core
    }

    fn core_mut(&mut self) -> &mut SenderCore {
        &mut self.core
    }

    /// The flow starts at `now` (later than built for when it waited for dependencies): pacing
    /// runs from `now`.
    fn begin(&mut self, now: Time) {
        self.next_tx_at = now;
    }

    /// See [`crate::transport::Sender::poll_transmit`].
    #[inline]
    fn poll_transmit(&mut self, now: Time) -> Option<TxPacket> {
        if now < self.next_tx_at || !self.core.rec.has_data() {
            return None;
        }
        if !self.core.rec.has_retx() && !self.window_allows() {
            return None;
        }
        let (psn, retx) = self.core.rec.next_psn()?;
        let (path, entropy) = self.policy.next_path();
        let tx = self.core.send_data(now, psn, retx, path, entropy);
        self.next_tx_at = now
            + self.cc.rate().tx_time_as(
                tx.payload_bytes as u64 + self.header_bytes as u64,
                self.tx_time_floor_ns,
            );
        Some(tx)
    }

    /// See [`crate::transport::Sender::next_send_time`].
    fn next_send_time(&self, now: Time) -> Time {
        if !self.core.rec.has_data() || (!self.core.rec.has_retx() && !self.window_allows()) {
            return Time::MAX;
        }
        self.next_tx_at.max(now)
    }

    /// Its pacing time and window are state: an answer stands until the next input.
    fn send_time_is_stable(&self) -> bool {
        true
    }

    /// See [`crate::transport::Sender::on_ack`].
    fn on_ack(&mut self, now: Time, ack: &AckIn) {
        let mtu_bytes = self.core.mtu_bytes();
        let sum = feed_ack(&mut self.core.rec, &mut self.cc, mtu_bytes, now, ack);
        if sum.spurious_rto {
            if let Some(cc) = self.cc_before_rto.take() {
                self.cc = cc;
            }
        } else if sum.advanced {
            self.cc_before_rto = None;
        }
    }

    /// See [`crate::transport::Sender::poll_timeout`].
    fn poll_timeout(&self) -> Option<Time> {
        match (self.core.rec.poll_timeout(), self.cc.poll_timeout()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// See [`crate::transport::Sender::on_timeout`]: fires whichever of the loss-recovery and
    /// congestion-control timers is due; an RTO expiry is also reported to the controller.
    fn on_timeout(&mut self, now: Time) {
        let rec = &mut self.core.rec;
        if self.cc.poll_timeout().is_some_and(|t| t <= now) {
            self.cc.on_timeout(now);
        }
        if rec.poll_timeout().is_some_and(|t| t <= now) && rec.on_timeout(now) == TimerFired::Rto {
            if self.cc_before_rto.is_none() {
                self.cc_before_rto = Some(self.cc.clone());
            }
            self.cc.on_rto(now);
        }
    }

    /// The congestion control in use.
    fn cc_kind(&self) -> Option<CcKind> {
        Some(self.cc.kind())
    }

    /// Current pacing rate in bit/s.
    fn rate_bps(&self) -> u64 {
        self.cc.rate().bps()
    }

    /// Current window in bytes.
    fn window_bytes(&self) -> u64 {
        self.cc.window_bytes()
    }
}

/// Give an ACK to loss recovery first, then to the congestion control (told of a detected loss
/// too). Packets count `mtu_bytes` each for the controller.
fn feed_ack(rec: &mut Recovery, cc: &mut Cc, mtu_bytes: u32, now: Time, ack: &AckIn) -> AckSummary {
    let sum = rec.on_ack(now, ack);
    let mtu = mtu_bytes as u64;
    cc.on_ack(&AckEvent {
        now,
        newly_acked_bytes: sum.newly_acked as u64 * mtu,
        ack_seq_bytes: rec.una() as u64 * mtu,
        snd_nxt_bytes: rec.max_sent() as u64 * mtu,
        ecn: ack.ecn,
        rtt: sum.rtt,
        int: ack.int,
        hops: ack.hops,
    });
    if sum.loss {
        cc.on_nak(now);
    }
    sum
}

/// Whether `rec`'s outstanding packets of `mtu_bytes` leave room for one more under `cc`'s window.
fn window_allows(rec: &Recovery, cc: &Cc, mtu_bytes: u32) -> bool {
    let w = cc.window_bytes();
    w == u64::MAX || (rec.outstanding() as u64 * mtu_bytes as u64) < w
}
