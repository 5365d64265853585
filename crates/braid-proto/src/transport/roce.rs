//! The single-path RoCEv2-like reliable transport: any congestion control with any loss-recovery
//! scheme (`docs/baselines.md`). With ECMP routing and DCQCN this is the "ECMP + DCQCN" baseline
//! of the Rondo paper. It is the [`CcSender`] with the [`SinglePath`] policy: all packets of the
//! flow carry one UDP source port, so ECMP pins the flow to one path.

use super::cc_sender::{CcSender, CcTransport, PathPolicy};
use super::events::FlowEnv;
use super::sender_core::SenderCore;
use super::TransportConfig;
use crate::cc::{Cc, CcConfig, CcKind};
use crate::recovery::{RecoveryConfig, RecoveryKind};

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

impl CcTransport for SinglePath {
    const NAME: &'static str = "roce";
    /// RoCE is single-path. `paths` is accepted (and has no effect) so that a multipath scenario
    /// can be rerun as the ECMP + DCQCN baseline by changing `transport.kind` only.
    const KNOBS: &'static [&'static str] = &["paths"];
    const MULTIPATH: bool = false;
    type Config = RoceConfig;

    fn default_cc() -> CcKind {
        CcKind::Dcqcn
    }
    fn default_recovery() -> RecoveryKind {
        RecoveryKind::SelectiveRepeat
    }
    fn read_config(tc: &TransportConfig) -> Result<RoceConfig, String> {
        if let Some((k, _)) = tc.params.iter().find(|(k, _)| k != "paths") {
            return Err(format!("unknown field `transport.{k}` for transport `roce`"));
        }
        Ok(RoceConfig { cc: tc.cc.clone(), recovery: tc.recovery, header_bytes: tc.header_bytes })
    }
    /// A sender for the flow (or connection) `env` on its one path, using UDP source port
    /// `env.entropy`.
    fn new(cfg: &RoceConfig, env: &FlowEnv) -> Result<RoceSender, String> {
        let core = SenderCore::for_env(env, cfg.recovery)?;
        let cc = Cc::new(&cfg.cc, &env.cc)?;
        Ok(CcSender::with_parts(
            core,
            cc,
            cfg.header_bytes,
            SinglePath { entropy: env.entropy },
            env.start,
            env.cc.tx_time_floor_ns,
        ))
    }
}
