//! Cost of Rondo's unsent-PSN selection (`UnsentSet::nth` + `mark_sent`, §4.3 Eq 7) per
//! packet, at the skips inside a datacenter (0–64) and between datacenters (10^4–10^6 packets:
//! `R·ΔD` at 100 Gb/s and 5 ms is ~60,000 MTU). Prints ns per packet; no assertion.
//!
//! `cargo bench -p braid-proto --bench unsent`

use std::hint::black_box;
use std::time::Instant;

use braid_proto::transport::rondo::unsent::UnsentSet;

/// Send a message of `total` PSNs as two paths would: the fast path takes the lowest unsent PSN,
/// the slow path the `(skip + 1)`-th, alternately. Returns ns per packet.
fn run(total: u32, skip: u32) -> f64 {
    let mut u = UnsentSet::new(total);
    let t0 = Instant::now();
    let mut i = 0u32;
    while let Some(psn) = u.nth(if i % 2 == 1 { skip } else { 0 }) {
        u.mark_sent(black_box(psn));
        i += 1;
    }
    t0.elapsed().as_nanos() as f64 / total as f64
}

fn main() {
    println!("{:>12} {:>10} {:>14}", "message pkts", "skip", "ns per packet");
    for &(total, skip) in &[
        (100_000u32, 0u32),
        (100_000, 16),
        (100_000, 64),
        (1_000_000, 10_000),
        (4_000_000, 60_000),
        (4_000_000, 100_000),
        (16_000_000, 1_000_000),
    ] {
        let best = (0..3).map(|_| run(total, skip)).fold(f64::INFINITY, f64::min);
        println!("{total:>12} {skip:>10} {best:>14.1}");
    }
}
