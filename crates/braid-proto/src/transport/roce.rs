//! The single-path RoCEv2-like reliable transport: any congestion control with any loss-recovery
//! scheme (`docs/baselines.md`). With ECMP routing and DCQCN this is the "ECMP + DCQCN" baseline
//! of the Rondo paper. It is the [`CcSender`] with the [`SinglePath`] policy: all packets of the
//! flow carry one UDP source port, so ECMP pins the flow to one path.

use super::cc_sender::{CcSender, PathPolicy};
use super::events::FlowEnv;
use super::sender_core::SenderCore;
use crate::cc::{Cc, CcConfig};
use crate::recovery::RecoveryConfig;

/// Configuration of a RoCE sender.
#[derive(Clone, Debug)]
pub struct RoceConfig {
    /// Congestion control.
    pub cc: CcConfig,
    /// Loss recovery.
    pub recovery: RecoveryConfig,
    /// Header bytes added to each packet's payload on the wire.
    pub header_bytes: u32,
}

/// Every packet on logical path 0 with the flow's one UDP source port.
#[derive(Clone, Copy, Debug)]
pub struct SinglePath {
    entropy: u16,
}

impl PathPolicy for SinglePath {
    #[inline]
    fn next_path(&mut self) -> (u16, u16) {
        (0, self.entropy)
    }
}

/// A RoCE flow's sender.
pub type RoceSender = CcSender<SinglePath>;

impl CcSender<SinglePath> {
    /// A sender for the flow (or connection) `env` on its one path, using UDP source port
    /// `env.entropy`.
    pub fn new(cfg: &RoceConfig, env: &FlowEnv) -> Result<RoceSender, String> {
        let core = SenderCore::for_env(env, cfg.recovery)?;
        let cc = Cc::new(&cfg.cc, &env.cc)?;
        Ok(CcSender::with_parts(core, cc, cfg.header_bytes, SinglePath { entropy: env.entropy }, env.start, env.cc.tx_time_floor_ns))
    }
}
