//! Round-robin packet spraying (RRPS), the congestion-oblivious baseline of Rondo's testbed
//! (§6.1, Fig 9): packet `i` of a flow goes out on logical path `i mod paths`, whatever the paths'
//! state. Rate and window come from an ordinary congestion controller — by default `fixed` (line
//! rate and one BDP of window by default) — and losses are repaired by the configured recovery
//! (per-path RACK-TLP by default: each path's packets go out in order, so a per-path gap is loss,
//! not the cross-path reordering spraying causes). Retransmissions take the next path in the rotation too. It is
//! the [`CcSender`] with the [`RoundRobin`] policy.
//!
//! Logical path `p` uses UDP source port `(entropy & 0xFF00) + p`, as Rondo does, so with
//! entropy-indexed routing and a power-of-two number of next hops it is physical path `p`.

use crate::cc::{Cc, CcConfig, CcKind};
use crate::recovery::{RecoveryConfig, RecoveryKind};
use crate::transport::cc_sender::{CcSender, CcTransport, PathPolicy};
use crate::transport::events::FlowEnv;
use crate::transport::sender_core::SenderCore;
use crate::transport::TransportConfig;

/// Configuration of an RRPS sender.
#[derive(Clone, Debug)]
pub struct RrpsConfig {
    /// Congestion control (rate and window of the whole flow).
    pub cc: CcConfig,
    /// Loss recovery.
    pub recovery: RecoveryConfig,
    /// Header bytes added to each packet's payload on the wire.
    pub header_bytes: u32,
    /// Number of logical paths sprayed over (1–256).
    pub paths: u16,
}

/// Packet `i` on logical path `i mod paths`, UDP source port `entropy0 + path`.
#[derive(Clone, Copy, Debug)]
pub struct RoundRobin {
    entropy0: u16,
    paths: u16,
    next: u16,
}

impl PathPolicy for RoundRobin {
    #[inline]
    fn next_path(&mut self) -> (u16, u16) {
        let path = self.next;
        self.next = (self.next + 1) % self.paths;
        (path, self.entropy0.wrapping_add(path))
    }
}

/// An RRPS flow's sender.
pub type RrpsSender = CcSender<RoundRobin>;

impl CcTransport for RoundRobin {
    const NAME: &'static str = "rrps";
    const KNOBS: &'static [&'static str] = &["paths"];
    const MULTIPATH: bool = true;
    type Config = RrpsConfig;

    fn default_cc() -> CcKind {
        CcKind::Fixed
    }
    /// RRPS sends each path's packets in order, so per-path RACK tells loss from the cross-path
    /// reordering spraying causes by construction. Selective repeat NAKs the first gap instead:
    /// on the Rondo testbed (4 KB MTU) a quarter of RRPS's packets were retransmitted spuriously
    /// and its goodput fell from 37 to 32 Gb/s.
    fn default_recovery() -> RecoveryKind {
        RecoveryKind::RackTlpPerPath
    }
    fn read_config(tc: &TransportConfig) -> Result<RrpsConfig, String> {
        let mut paths = 4u16;
        for (k, v) in &tc.params {
            match k.as_str() {
                "paths" => {
                    let n = v.as_u64().map_err(|e| format!("`transport.paths`: {e}"))?;
                    if n == 0 || n > 256 {
                        return Err(format!(
                            "`transport.paths` must be between 1 and 256, got {n}"
                        ));
                    }
                    paths = n as u16;
                }
                _ => {
                    return Err(format!(
                        "unknown field `transport.{k}` for transport `rrps` (known: paths)"
                    ))
                }
            }
        }
        Ok(RrpsConfig {
            cc: tc.cc.clone(),
            recovery: tc.recovery,
            header_bytes: tc.header_bytes,
            paths,
        })
    }
    /// A sender for the flow (or connection) `env`, sprayed over `cfg.paths` paths.
    fn new(cfg: &RrpsConfig, env: &FlowEnv) -> Result<RrpsSender, String> {
        if cfg.paths == 0 || cfg.paths > 256 {
            return Err(format!("RRPS sprays over 1 to 256 paths, got {}", cfg.paths));
        }
        let core = SenderCore::for_env(env, cfg.recovery)?;
        let policy = RoundRobin { entropy0: env.entropy & 0xFF00, paths: cfg.paths, next: 0 };
        let cc = Cc::new(&cfg.cc, &env.cc)?;
        Ok(CcSender::with_parts(
            core,
            cc,
            cfg.header_bytes,
            policy,
            env.start,
            env.cc.tx_time_floor_ns,
        ))
    }
}
