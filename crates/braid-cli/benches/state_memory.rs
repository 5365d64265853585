//! State memory per flow and per in-flight packet, printed, never asserted:
//! `cargo bench -p braid-cli --bench state_memory`.
//!
//! A global allocator wrapper keeps the bytes currently allocated and their peak. For each
//! transport (RoCE, UET, Rondo) on bench (a)'s k = 8 fat-tree (128 hosts):
//! - **per flow at build**: heap after building the scenario with an all-to-all of 16,256 flows
//!   minus heap with the 128-flow permutation, over the 16,128 extra flows (the topology, routes
//!   and event queue cancel out);
//! - **per in-flight packet**: bench (a) is run to completion in 5 µs steps; the heap's growth
//!   above the built state at the step with the most data packets in the network, over that
//!   count. It includes whatever per-flow state grows while packets are out (scoreboards, rings),
//!   so it is an upper bound on the packet itself.
//!
//! `size_of` of the fixed records is printed too.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use braid_cli::build::build;
use braid_cli::scenario::parse;
use braid_core::{Packet, Time};

struct Tracking;
static LIVE: AtomicUsize = AtomicUsize::new(0);

// A tracking global allocator is the one place a benchmark needs `unsafe`: it forwards to `System`.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size(), Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        LIVE.fetch_add(n, Ordering::Relaxed);
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Tracking = Tracking;

fn live() -> usize {
    LIVE.load(Ordering::Relaxed)
}

const A: &str = include_str!("../bench/a-permutation-k8-2MB.toml");

fn scenario(kind: &str, workload: &[&str]) -> braid_cli::scenario::Scenario {
    let mut sets = vec![format!("transport.kind={kind}")];
    sets.extend(workload.iter().map(|s| s.to_string()));
    parse(A, Path::new("."), &sets, None).expect("bench (a) parses")
}

/// Heap bytes held by a built (not run) simulator of `sc`.
fn built_bytes(sc: &braid_cli::scenario::Scenario) -> usize {
    let before = live();
    let (sim, wl) = build(sc).expect("builds");
    let after = live();
    drop((sim, wl));
    after - before
}

fn main() {
    println!(
        "fixed records (bytes): Packet {}, Flow {}, Sender {}, Receiver {}",
        size_of::<Packet>(),
        size_of::<braid_net::endpoints::Flow>(),
        size_of::<braid_proto::transport::Sender>(),
        size_of::<braid_proto::receiver::Receiver>()
    );
    println!(
        "{:<8} {:>16} {:>22} {:>18} {:>22}",
        "transport",
        "B per flow (build)",
        "peak data in flight (pkts)",
        "heap growth (MiB)",
        "B per in-flight packet"
    );
    for kind in ["roce", "uet", "rondo"] {
        let perm = scenario(kind, &[]);
        let a2a = scenario(kind, &["workload.kind=\"all-to-all\"", "workload.size=\"2MB\""]);
        let (b_perm, b_a2a) = (built_bytes(&perm), built_bytes(&a2a));
        let n_perm = 128.0;
        let n_a2a = 128.0 * 127.0;
        let per_flow = (b_a2a as f64 - b_perm as f64) / (n_a2a - n_perm);
        // Run bench (a) in 5 µs steps; track the step with the most data in flight.
        let (mut sim, _wl) = build(&perm).expect("builds");
        sim.sampling_mut().interval = None;
        sim.prepare();
        let built = live();
        let (mut peak_pkts, mut growth_at_peak) = (0u64, 0usize);
        let mut t = Time::ZERO;
        while sim.flows_done() < 128 && t < Time::from_ms(50) {
            t += Time::from_us(5);
            sim.run(Some(t), &mut |_| true);
            let pk = sim.data_in_flight();
            if pk > peak_pkts {
                peak_pkts = pk;
                growth_at_peak = live().saturating_sub(built);
            }
        }
        println!(
            "{:<8} {:>16.0} {:>22} {:>18.1} {:>22.0}",
            kind,
            per_flow,
            peak_pkts,
            growth_at_peak as f64 / (1 << 20) as f64,
            growth_at_peak as f64 / peak_pkts.max(1) as f64
        );
    }
}
