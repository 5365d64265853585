//! The two small multipath topologies of the Rondo paper: the four-parallel-path network of
//! Figure 2 (§3, used for Figures 3 and 4) and the hardware testbed of §6.1 ("Testbed setup",
//! Figure 9a: two servers, four capped paths of 25/20/15/10 Gb/s through one Tofino switch, base RTT
//! ≈ 20 µs, optionally +10 µs on one path).

use super::{finish, need_positive, need_rate, need_size};
use crate::topology::Topology;
use braid_core::{NodeId, Rate, Time};

/// Parameters of [`four_path`] (Rondo Figure 2).
#[derive(Clone, Debug, PartialEq)]
pub struct FourPathParams {
    /// Hosts on the left ToR (Figure 3: 16; Figure 4: 4).
    pub senders: usize,
    /// Hosts on the right ToR (Figures 3 and 4: 4).
    pub receivers: usize,
    /// Host–ToR link rate.
    pub host_rate: Rate,
    /// Rate of both links of each of the four paths (ToR–spine and spine–ToR); the left ToR's
    /// uplinks P1–P4 are the bottleneck.
    pub path_rate: Rate,
    /// One-way propagation delay of every link.
    pub delay: Time,
    /// Added to the propagation delay of one link of path 4 (`path3` – `tor-right`), in both
    /// directions. Figure 4 varies that link's delay from 2 µs to 27 µs: with the default
    /// `delay` of 2 µs that is `extra_delay` = 0, 5, …, 25 µs.
    pub extra_delay: Time,
}

impl Default for FourPathParams {
    /// Figure 3's setting: 16 senders, 4 receivers, 100 Gb/s hosts and paths, 2 µs links, no extra delay.
    fn default() -> Self {
        Self {
            senders: 16,
            receivers: 4,
            host_rate: Rate::from_gbps(100),
            path_rate: Rate::from_gbps(100),
            delay: Time::from_us(2),
            extra_delay: Time::ZERO,
        }
    }
}

/// Rondo Figure 2: senders under a left ToR, receivers under a right ToR, and four spine switches
/// `path0`…`path3` (the paper's paths P1–P4) each connected to both ToRs.
///
/// Nodes: senders `snd0…` (hosts `0…senders−1`), receivers `rcv0…` (the following host indices),
/// `tor-left` and `tor-right` (tier 1), `path0`…`path3` (tier 2); all group 0.
/// Links, in order: sender–`tor-left`, receiver–`tor-right`, `tor-left`–`path0…3`,
/// `path0…3`–`tor-right`; so both ToRs create their path ports in path order, and next hop `i` of
/// the entropy-indexed routing is path `i`. `extra_delay` is added to `path3`–`tor-right`.
pub fn four_path(p: &FourPathParams) -> Result<Topology, String> {
    need_positive("senders", p.senders)?;
    need_positive("receivers", p.receivers)?;
    need_rate("host_rate", p.host_rate)?;
    need_rate("path_rate", p.path_rate)?;
    need_size("`senders`", &[p.senders])?;
    need_size("`receivers`", &[p.receivers])?;
    let mut t = Topology::new();
    let snd: Vec<NodeId> = (0..p.senders).map(|i| t.add_host(format!("snd{i}"), 0)).collect();
    let rcv: Vec<NodeId> = (0..p.receivers).map(|i| t.add_host(format!("rcv{i}"), 0)).collect();
    let left = t.add_switch("tor-left", 0, 1);
    let right = t.add_switch("tor-right", 0, 1);
    let paths: Vec<NodeId> = (0..4).map(|i| t.add_switch(format!("path{i}"), 0, 2)).collect();
    for &h in &snd {
        t.connect(h, left, p.host_rate, p.delay);
    }
    for &h in &rcv {
        t.connect(h, right, p.host_rate, p.delay);
    }
    for &s in &paths {
        t.connect(left, s, p.path_rate, p.delay);
    }
    for (i, &s) in paths.iter().enumerate() {
        let d = if i == 3 { p.delay.saturating_add(p.extra_delay) } else { p.delay };
        t.connect(s, right, p.path_rate, d);
    }
    finish("four-path", t)
}

/// Parameters of [`testbed`] (Rondo §6.1).
#[derive(Clone, Debug, PartialEq)]
pub struct TestbedParams {
    /// Rate of the two server links (100 Gb/s).
    pub host_rate: Rate,
    /// Capped rate of each path, in path order (25, 20, 15, 10 Gb/s). At least one path.
    pub path_rates: Vec<Rate>,
    /// Base round-trip time of every path without `extra_delay`: twice the one-way propagation
    /// delay, serialisation ignored (≈ 20 µs).
    pub base_rtt: Time,
    /// Added to the one-way delay of the last path (the 10 Gb/s one): 0 for the homogeneous-delay
    /// test, 10 µs for the heterogeneous-delay test.
    pub extra_delay: Time,
}

impl Default for TestbedParams {
    /// The homogeneous-delay test: 100 Gb/s servers, paths of 25/20/15/10 Gb/s, 20 µs base RTT.
    fn default() -> Self {
        Self {
            host_rate: Rate::from_gbps(100),
            path_rates: [25, 20, 15, 10].into_iter().map(Rate::from_gbps).collect(),
            base_rtt: Time::from_us(20),
            extra_delay: Time::ZERO,
        }
    }
}

/// Rondo §6.1 testbed: `sender` → `ingress` → one of `path0…` → `egress` → `receiver`.
///
/// The Tofino's four loopback paths are modelled as four middle switches whose two links both have
/// the path's capped rate. A one-way trip crosses four links; the one-way delay `base_rtt / 2` is
/// split evenly over them (any picosecond remainder goes to the `sender`–`ingress` link), so every
/// path has exactly `base_rtt` of round-trip propagation. `extra_delay` is added to the
/// `path{n−1}`–`egress` link; links are symmetric, so that path's round trip grows by
/// 2 × `extra_delay` (ACKs may return over any path).
///
/// Nodes: `sender` (host 0), `receiver` (host 1), `ingress`, `egress` (tier 1), `path0…` (tier 2).
/// Links, in order: `sender`–`ingress`, `receiver`–`egress`, `ingress`–`path0…`, `path0…`–`egress`,
/// so `ingress` creates its path ports in path order (entropy mod n ↦ path).
pub fn testbed(p: &TestbedParams) -> Result<Topology, String> {
    need_rate("host_rate", p.host_rate)?;
    if p.path_rates.is_empty() {
        return Err("`path_rates` must list at least one path rate".into());
    }
    for (i, r) in p.path_rates.iter().enumerate() {
        need_rate(&format!("path_rates[{i}]"), *r)?;
    }
    let one_way = p.base_rtt.ps() / 2;
    let per_link = Time::from_ps(one_way / 4);
    let first_link = Time::from_ps(one_way - 3 * per_link.ps());
    let mut t = Topology::new();
    let sender = t.add_host("sender", 0);
    let receiver = t.add_host("receiver", 0);
    let ingress = t.add_switch("ingress", 0, 1);
    let egress = t.add_switch("egress", 0, 1);
    let paths: Vec<NodeId> =
        (0..p.path_rates.len()).map(|i| t.add_switch(format!("path{i}"), 0, 2)).collect();
    t.connect(sender, ingress, p.host_rate, first_link);
    t.connect(receiver, egress, p.host_rate, per_link);
    for (i, &s) in paths.iter().enumerate() {
        t.connect(ingress, s, p.path_rates[i], per_link);
    }
    let last = paths.len() - 1;
    for (i, &s) in paths.iter().enumerate() {
        let d = if i == last { per_link.saturating_add(p.extra_delay) } else { per_link };
        t.connect(s, egress, p.path_rates[i], d);
    }
    finish("testbed", t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topo::testutil::{count_shortest_paths, degrees, find, neighbours};

    /// One-way propagation delay along sender → ingress → path i → egress → receiver.
    fn one_way(t: &Topology, path: &str, from: &str, to: &str, a: &str, b: &str) -> Time {
        let hops = [from, a, path, b, to];
        let mut d = Time::ZERO;
        for w in hops.windows(2) {
            let (x, y) = (find(t, w[0]), find(t, w[1]));
            let l =
                t.links.iter().find(|l| (l.a == x && l.b == y) || (l.a == y && l.b == x)).unwrap();
            d += l.delay;
        }
        d
    }

    #[test]
    fn four_path_shape() {
        let t = four_path(&FourPathParams::default()).unwrap();
        assert_eq!(t.hosts().len(), 20);
        assert_eq!(t.nodes.len(), 20 + 2 + 4);
        assert_eq!(t.links.len(), 20 + 8);
        assert_eq!(count_shortest_paths(&t, find(&t, "snd0"), find(&t, "rcv3")), (4, 4));
        assert_eq!(count_shortest_paths(&t, find(&t, "tor-left"), find(&t, "tor-right")), (2, 4));
        let d = degrees(&t);
        assert_eq!(d[find(&t, "tor-left").idx()], 16 + 4);
        assert_eq!(d[find(&t, "tor-right").idx()], 4 + 4);
        assert_eq!(d[find(&t, "path2").idx()], 2);
        // Uplink ports of each ToR are created in path order.
        let paths: Vec<NodeId> = (0..4).map(|i| find(&t, &format!("path{i}"))).collect();
        assert_eq!(neighbours(&t, find(&t, "tor-left"))[16..], paths[..]);
        assert_eq!(neighbours(&t, find(&t, "tor-right"))[4..], paths[..]);
        // Senders are hosts 0..16, receivers 16..20.
        assert_eq!(find(&t, "snd15").idx(), 15);
        assert_eq!(find(&t, "rcv0").idx(), 16);
    }

    #[test]
    fn four_path_extra_delay_on_path4() {
        let t = four_path(&FourPathParams {
            senders: 4,
            extra_delay: Time::from_us(25),
            ..Default::default()
        })
        .unwrap();
        let base = one_way(&t, "path0", "snd0", "rcv0", "tor-left", "tor-right");
        let p4 = one_way(&t, "path3", "snd0", "rcv0", "tor-left", "tor-right");
        assert_eq!(base, Time::from_us(8));
        assert_eq!(p4 - base, Time::from_us(25));
        let l = t
            .links
            .iter()
            .find(|l| t.nodes[l.a.idx()].name == "path3" && t.nodes[l.b.idx()].name == "tor-right");
        assert_eq!(l.unwrap().delay, Time::from_us(27));
    }

    #[test]
    fn four_path_rejects_bad_parameters() {
        let e = four_path(&FourPathParams { senders: 0, ..Default::default() }).unwrap_err();
        assert!(e.contains("`senders`"), "{e}");
        let e =
            four_path(&FourPathParams { senders: usize::MAX, ..Default::default() }).unwrap_err();
        assert!(e.contains("`senders`") && e.contains("too large"), "{e}");
        let e = four_path(&FourPathParams { receivers: 0, ..Default::default() }).unwrap_err();
        assert!(e.contains("`receivers`"), "{e}");
        let e =
            four_path(&FourPathParams { path_rate: Rate(0), ..Default::default() }).unwrap_err();
        assert!(e.contains("`path_rate`"), "{e}");
    }

    #[test]
    fn testbed_shape_and_rtt() {
        let t = testbed(&TestbedParams::default()).unwrap();
        assert_eq!(t.hosts(), vec![NodeId(0), NodeId(1)]);
        assert_eq!(t.nodes.len(), 8);
        assert_eq!(t.links.len(), 10);
        assert_eq!(count_shortest_paths(&t, find(&t, "sender"), find(&t, "receiver")), (4, 4));
        for i in 0..4 {
            let rtt = one_way(&t, &format!("path{i}"), "sender", "receiver", "ingress", "egress")
                + one_way(&t, &format!("path{i}"), "sender", "receiver", "ingress", "egress");
            assert_eq!(rtt, Time::from_us(20), "path{i}");
        }
        // Path i has the i-th capped rate on both of its links.
        for (i, g) in [25u64, 20, 15, 10].iter().enumerate() {
            let s = find(&t, &format!("path{i}"));
            for l in t.links.iter().filter(|l| l.a == s || l.b == s) {
                assert_eq!(l.rate, Rate::from_gbps(*g));
            }
        }
        let paths: Vec<NodeId> = (0..4).map(|i| find(&t, &format!("path{i}"))).collect();
        assert_eq!(neighbours(&t, find(&t, "ingress"))[1..], paths[..]);
        assert_eq!(neighbours(&t, find(&t, "egress"))[1..], paths[..]);
    }

    #[test]
    fn testbed_heterogeneous_delay() {
        let t = testbed(&TestbedParams { extra_delay: Time::from_us(10), ..Default::default() })
            .unwrap();
        let d0 = one_way(&t, "path0", "sender", "receiver", "ingress", "egress");
        let d3 = one_way(&t, "path3", "sender", "receiver", "ingress", "egress");
        assert_eq!(d0, Time::from_us(10));
        assert_eq!(d3, Time::from_us(20));
        // An RTT that does not split evenly still sums exactly.
        let t =
            testbed(&TestbedParams { base_rtt: Time::from_ps(20_000_006), ..Default::default() })
                .unwrap();
        assert_eq!(
            one_way(&t, "path1", "sender", "receiver", "ingress", "egress"),
            Time::from_ps(10_000_003)
        );
    }

    #[test]
    fn testbed_rejects_bad_parameters() {
        let e = testbed(&TestbedParams { path_rates: vec![], ..Default::default() }).unwrap_err();
        assert!(e.contains("`path_rates`"), "{e}");
        let mut p = TestbedParams::default();
        p.path_rates[2] = Rate(0);
        let e = testbed(&p).unwrap_err();
        assert!(e.contains("`path_rates[2]`"), "{e}");
        let e = testbed(&TestbedParams { host_rate: Rate(0), ..Default::default() }).unwrap_err();
        assert!(e.contains("`host_rate`"), "{e}");
    }
}
