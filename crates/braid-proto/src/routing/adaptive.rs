//! RoCE adaptive routing at a switch (`docs/baselines.md`, switch routing).

use super::router::{impl_router, RouterBuild, SwitchSetup};
use super::select::{least_loaded, quantize4};
use super::RoutingParams;

/// RoCE adaptive routing: each data packet of 100 bytes or more leaves by the least-loaded
/// candidate (queue bytes, or their 4-level quantisation with `routing.quantized`; ties broken
/// by the switch's random stream); control packets are ECMP-hashed (htsim).
#[derive(Clone, Debug)]
pub struct Adaptive {
    /// The quantisation's scale: the switch's buffer over its ports (`None`: exact bytes).
    quantum_of: Option<u64>,
    /// Per-packet decisions taken.
    pub decisions: u64,
}

impl_router! { Adaptive, |me, pkt, v, rng| {
    let c = v.candidates();
    if !pkt.is_data || pkt.size_bytes < 100 {
        return Some(pkt.hash() as usize % c.len());
    }
    me.decisions += 1;
    Some(match me.quantum_of {
        Some(cap) => least_loaded(c.len(), |i| quantize4(v.queued_bytes(c[i]), cap), rng),
        None => least_loaded(c.len(), |i| v.queued_bytes(c[i]), rng),
    })
}
}

impl RouterBuild for Adaptive {
    const NAME: &'static str = "adaptive";
    fn build(p: &RoutingParams, sw: &mut SwitchSetup) -> Result<Adaptive, String> {
        let cap = sw.buffer_bytes / sw.port_rates.len().max(1) as u64;
        Ok(Adaptive { quantum_of: p.quantized.then_some(cap), decisions: 0 })
    }
}
