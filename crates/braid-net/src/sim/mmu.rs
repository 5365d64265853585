//! The switch MMU of the ns-3 HPCC fork (`network.mmu = "hpcc"`; the LCMP artifact's switches;
//! `docs/ns3-equivalence.md`, "Switch buffer and PFC"), for the lossless data class.
//!
//! Braid's own model (`network.mmu = "braid"`, the default) keeps one shared buffer per switch and
//! pauses an ingress once its bytes pass `free >> shift`. The HPCC MMU instead accounts per
//! ingress port and class in three pools:
//!
//! - a **reserve** of 4 KiB per ingress port and class, used first;
//! - the **shared** pool, used while the ingress's bytes beyond its reserve stay within the
//!   ingress's PFC threshold `(buffer − Σ headroom − Σ reserve − shared in use) >> shift`, where
//!   the shift is 3 for ports up to the NIC rate and one less per doubling above it (400 Gb/s: 1);
//! - the ingress's **headroom**, 3 × the one-way BDP of its link, for what arrives after that.
//!
//! A packet is refused only when it fits neither the headroom nor the shared threshold. The
//! ingress is PAUSEd once it uses headroom or its shared bytes reach the threshold, and RESUMEd
//! when no headroom is in use and its shared bytes are 0 or 3 KiB below the threshold.
//!
//! `network.mmu_arith = "u32-wrap"` reproduces the fork's 32-bit arithmetic: each port's headroom
//! is truncated to 32 bits, their sum wraps, and so does the subtraction that gives the threshold,
//! so a switch whose headroom exceeds its buffer (every DCI of the LCMP 8-DC networks, whose
//! long-haul ports hold gigabytes in flight) gets a threshold of hundreds of MB to 4 GB: in
//! effect no limit. `"u64"` computes the same exactly and clamps a negative free space at 0.

use braid_core::{NodeId, PortId};

use crate::config::NUM_CLASSES;
use crate::port::Port;

/// Bytes of each ingress port and class served from the reserve first.
pub const RESERVE_BYTES: u64 = 4 * 1024;
/// RESUME once the shared bytes are this far below the threshold.
pub const RESUME_OFFSET_BYTES: u64 = 3 * 1024;

/// The HPCC MMU's state.
#[derive(Clone, Debug)]
pub struct HpccMmu {
    /// Per node: `buffer − Σ headroom − Σ reserve` (wrapped to 32 bits, or exact).
    base: Vec<i128>,
    /// Per node: bytes in use in the shared pool.
    shared_used: Vec<u64>,
    /// Per port, as the ingress of the switch at its far end: its headroom.
    headroom: Vec<u64>,
    /// Per port (ingress role): the threshold's shift.
    shift: Vec<u32>,
    /// Per port and class (ingress role): bytes held in the headroom pool.
    hdrm: Vec<[u64; NUM_CLASSES]>,
    /// 32-bit arithmetic as the ns-3 code.
    wrap32: bool,
}

impl HpccMmu {
    /// The MMU of every switch: `buffer_cap[node]`, `ports` (port `p`'s far end is the switch
    /// whose ingress it is), `node_ports[node]` (a switch's ports, one per link), `nic_bps` (the
    /// hosts' NIC rate), `shift0` (the shift at or below the NIC rate).
    pub fn new(
        buffer_cap: &[u64],
        ports: &[Port],
        node_ports: &[Vec<PortId>],
        is_host: &[bool],
        nic_bps: u64,
        shift0: u32,
        wrap32: bool,
    ) -> HpccMmu {
        let headroom: Vec<u64> = ports
            .iter()
            .map(|p| {
                // rate (b/s) × delay (ns) / 8 / 1e9 × 3, in integers; stored in 32 bits by ns-3.
                let ns = p.delay.ps() / 1000;
                let h = ((p.rate.bps() as u128 * ns as u128) / 8 / 1_000_000_000 * 3) as u64;
                if wrap32 {
                    h & 0xFFFF_FFFF
                } else {
                    h
                }
            })
            .collect();
        let shift = ports
            .iter()
            .map(|p| {
                let (mut s, mut r) = (shift0, p.rate.bps());
                while r > nic_bps && s > 0 {
                    s -= 1;
                    r /= 2;
                }
                s
            })
            .collect();
        let base = node_ports
            .iter()
            .enumerate()
            .map(|(n, out)| {
                if is_host[n] {
                    return 0;
                }
                // The switch's ingress ports are the reverse of its egress ports (same links).
                let hdrm: u64 = out
                    .iter()
                    .map(|&e| headroom[ports[e.idx()].reverse.idx()])
                    .fold(0u64, |a, h| if wrap32 { (a + h) & 0xFFFF_FFFF } else { a + h });
                let rsrv = out.len() as u64 * RESERVE_BYTES;
                if wrap32 {
                    (buffer_cap[n] as i128 - hdrm as i128 - rsrv as i128).rem_euclid(1 << 32)
                } else {
                    buffer_cap[n] as i128 - hdrm as i128 - rsrv as i128
                }
            })
            .collect();
        HpccMmu {
            base,
            shared_used: vec![0; node_ports.len()],
            headroom,
            shift,
            hdrm: vec![[0; NUM_CLASSES]; ports.len()],
            wrap32,
        }
    }

    /// The PFC threshold of ingress `ing` at switch `node`.
    #[inline]
    pub fn threshold(&self, node: NodeId, ing: PortId) -> u64 {
        let free = self.base[node.idx()] - self.shared_used[node.idx()] as i128;
        let free = if self.wrap32 { free.rem_euclid(1 << 32) } else { free.max(0) };
        (free as u64) >> self.shift[ing.idx()]
    }

    /// Shared bytes of an ingress whose reserve + shared bytes are `ingress_bytes`.
    #[inline]
    fn shared_of(ingress_bytes: u64) -> u64 {
        ingress_bytes.saturating_sub(RESERVE_BYTES)
    }

    /// Whether a packet of `size` bytes from ingress `ing` (class `c`, `ingress_bytes` in its
    /// reserve and shared pools) may enter switch `node`.
    #[inline]
    pub fn admits(
        &self,
        node: NodeId,
        ing: PortId,
        c: usize,
        size: u64,
        ingress_bytes: u64,
    ) -> bool {
        !(size + self.hdrm[ing.idx()][c] > self.headroom[ing.idx()]
            && size + Self::shared_of(ingress_bytes) > self.threshold(node, ing))
    }

    /// Account an admitted packet; returns whether the ingress must now be PAUSEd (when it is not
    /// already).
    #[inline]
    pub fn on_admit(
        &mut self,
        node: NodeId,
        ing: PortId,
        c: usize,
        size: u64,
        ingress_bytes: &mut u64,
    ) -> bool {
        let new_bytes = *ingress_bytes + size;
        if new_bytes <= RESERVE_BYTES {
            *ingress_bytes += size;
        } else if new_bytes - RESERVE_BYTES > self.threshold(node, ing) {
            self.hdrm[ing.idx()][c] += size;
        } else {
            *ingress_bytes += size;
            self.shared_used[node.idx()] += size.min(new_bytes - RESERVE_BYTES);
        }
        self.hdrm[ing.idx()][c] > 0 || Self::shared_of(*ingress_bytes) >= self.threshold(node, ing)
    }

    /// Release a departing packet; returns whether a PAUSEd ingress may now be RESUMEd.
    #[inline]
    pub fn on_release(
        &mut self,
        node: NodeId,
        ing: PortId,
        c: usize,
        size: u64,
        ingress_bytes: &mut u64,
    ) -> bool {
        let from_hdrm = self.hdrm[ing.idx()][c].min(size);
        let from_shared = (size - from_hdrm).min(Self::shared_of(*ingress_bytes));
        self.hdrm[ing.idx()][c] -= from_hdrm;
        *ingress_bytes -= size - from_hdrm;
        self.shared_used[node.idx()] -= from_shared;
        let shared = Self::shared_of(*ingress_bytes);
        self.hdrm[ing.idx()][c] == 0
            && (shared == 0 || shared + RESUME_OFFSET_BYTES <= self.threshold(node, ing))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use braid_core::{LinkId, Rate, Time};

    /// One switch (node 0) with two links to hosts 1 and 2: ports 0/1 and 2/3 (even = switch side).
    fn two_port_switch(
        buffer: u64,
        delay: Time,
        rate_gbps: u64,
        wrap32: bool,
    ) -> (HpccMmu, Vec<Port>) {
        let mut ports = Vec::new();
        for h in 1..=2u32 {
            let li = LinkId::from_idx(h as usize - 1);
            let mut a = Port::new(NodeId(0), NodeId(h), li, Rate::from_gbps(rate_gbps), delay);
            let mut b = Port::new(NodeId(h), NodeId(0), li, Rate::from_gbps(rate_gbps), delay);
            let n = ports.len() as u32;
            a.reverse = PortId(n + 1);
            b.reverse = PortId(n);
            ports.push(a);
            ports.push(b);
        }
        let node_ports = vec![vec![PortId(0), PortId(2)], vec![PortId(1)], vec![PortId(3)]];
        let mmu = HpccMmu::new(
            &[buffer, 0, 0],
            &ports,
            &node_ports,
            &[false, true, true],
            100_000_000_000,
            3,
            wrap32,
        );
        (mmu, ports)
    }

    #[test]
    fn headroom_reserve_and_threshold() {
        // 100 Gb/s, 1 µs: headroom 3 × 12,500 B; threshold (32 MiB − 75,000 − 8,192) >> 3.
        let (mmu, _) = two_port_switch(32 << 20, Time::from_us(1), 100, true);
        assert_eq!(mmu.headroom[1], 37_500);
        let base = (32u64 << 20) - 75_000 - 8_192;
        assert_eq!(mmu.threshold(NodeId(0), PortId(1)), base >> 3);
    }

    #[test]
    fn pools_fill_in_order_and_pause_resume() {
        let (mut mmu, _) = two_port_switch(1 << 20, Time::from_us(1), 100, true);
        let (n, ing) = (NodeId(0), PortId(1));
        let mut bytes = 0u64;
        // The reserve first: no shared bytes, no pause.
        assert!(!mmu.on_admit(n, ing, 1, 4096, &mut bytes));
        assert_eq!(mmu.shared_used[0], 0);
        // Then shared up to the threshold (which shrinks as shared fills: t = (base − s) >> 3).
        let mut paused_at = None;
        for i in 0..200 {
            assert!(mmu.admits(n, ing, 1, 1000, bytes));
            if mmu.on_admit(n, ing, 1, 1000, &mut bytes) {
                paused_at = Some(i);
                break;
            }
        }
        let i = paused_at.expect("the ingress pauses");
        // base = 1 MiB − 75,000 − 8,192 = 965,384; the shared bytes s meet (base − s) >> 3 at
        // s ≈ 107.3 KB: the 108th packet past the reserve goes to the headroom and pauses.
        assert!(mmu.hdrm[1][1] > 0 || HpccMmu::shared_of(bytes) >= mmu.threshold(n, ing));
        assert!((105..=110).contains(&i), "paused after {i} packets");
        // Past the threshold, packets go to the headroom until it is full; then refused.
        let mut into_headroom = 0;
        while mmu.admits(n, ing, 1, 1000, bytes) {
            mmu.on_admit(n, ing, 1, 1000, &mut bytes);
            into_headroom += 1;
        }
        assert!(into_headroom >= 30, "{into_headroom} packets into the headroom");
        assert_eq!(mmu.hdrm[1][1], 37_000, "37 packets of 1000 B fill a 37,500 B headroom");
        // Draining: no RESUME while headroom is in use; then once 3 KiB below the threshold.
        let mut resumed = false;
        for _ in 0..(into_headroom + 200) {
            if mmu.on_release(n, ing, 1, 1000, &mut bytes) {
                resumed = true;
                break;
            }
        }
        assert!(resumed);
        assert_eq!(mmu.hdrm[1][1], 0);
        assert!(
            RESERVE_BYTES.max(bytes) - RESERVE_BYTES + RESUME_OFFSET_BYTES <= mmu.threshold(n, ing)
                || bytes <= RESERVE_BYTES
        );
    }

    #[test]
    fn headroom_beyond_the_buffer_wraps_in_32_bits() {
        // 200 Gb/s and 100 ms: 7.5 GB of headroom per port. Exactly, no free space (threshold 0);
        // in the ns-3 fork's 32-bit arithmetic the subtraction wraps to a huge threshold.
        let (exact, _) = two_port_switch(128 << 20, Time::from_ms(100), 200, false);
        assert_eq!(exact.threshold(NodeId(0), PortId(1)), 0);
        let (wrapped, _) = two_port_switch(128 << 20, Time::from_ms(100), 200, true);
        let h = (200_000_000_000u128 * 100_000_000 / 8 / 1_000_000_000 * 3) as u64 & 0xFFFF_FFFF;
        let total = (2 * h) & 0xFFFF_FFFF;
        let base = ((128i128 << 20) - total as i128 - 8192).rem_euclid(1 << 32) as u64;
        assert_eq!(wrapped.threshold(NodeId(0), PortId(1)), base >> 2, "shift 2 at 200 Gb/s");
        assert!(base >> 2 > 100 << 20);
    }
}
