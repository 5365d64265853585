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

use crate::cc::{Cc, CcConfig};
use crate::recovery::RecoveryConfig;
use crate::transport::cc_sender::{CcSender, PathPolicy};
use crate::transport::events::FlowEnv;
use crate::transport::sender_core::SenderCore;

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

impl CcSender<RoundRobin> {
    /// A sender for the flow (or connection) `env`, sprayed over `cfg.paths` paths.
    pub fn new(cfg: &RrpsConfig, env: &FlowEnv) -> Result<RrpsSender, String> {
        if cfg.paths == 0 || cfg.paths > 256 {
            return Err(format!("RRPS sprays over 1 to 256 paths, got {}", cfg.paths));
        }
        let core = SenderCore::for_env(env, cfg.recovery)?;
        let policy = RoundRobin { entropy0: env.entropy & 0xFF00, paths: cfg.paths, next: 0 };
        let cc = Cc::new(&cfg.cc, &env.cc)?;
        Ok(CcSender::with_parts(core, cc, cfg.header_bytes, policy, env.start, env.cc.tx_time_floor_ns))
    }
}
