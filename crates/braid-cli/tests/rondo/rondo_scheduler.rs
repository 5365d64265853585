//! Rondo's packet scheduler against Prop 3 and Eq 3 (Fig 4 setup, `examples/rondo-fig4.toml`):
//! four flows over four parallel paths, path 4 slower by a persistent ΔD. Without the scheduler
//! the steady-state maximum OOD follows Eq 3, `R̄·ΔD`; with it the OOD stays far below.
//!
//! "Steady state" is the window from 400 µs (the start-up ramp and the scheduler's stability gate
//! are over) to 100 µs before the first flow finishes (the tail, where no unsent PSN is left to
//! reorder, is excluded); NIC-level OOD is sampled every 0.5 µs on every receiver.

use std::path::Path;

use braid_cli::run::run;
use braid_cli::scenario::parse;
use braid_core::Time;

struct Steady {
    max_ood: u64,
    mean_ood: f64,
    /// Per-flow rate over the window, bits per second of data-packet wire bytes.
    rate_bps: f64,
}

fn fig4(extra_us: u64, scheduler: bool) -> Steady {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples"));
    let text = std::fs::read_to_string(dir.join("rondo-fig4.toml")).unwrap();
    let sets = vec![
        format!("topology.extra_delay=\"{extra_us}us\""),
        format!("transport.scheduler={scheduler}"),
        "output.sample_interval=\"500ns\"".to_string(),
        "output.paths=false".to_string(),
        "output.goodput=true".to_string(),
        "transport.recovery=\"rack-tlp-per-path\"".to_string(),
    ];
    let sc = parse(&text, dir, &sets, None).unwrap();
    let r = run(&sc, false).unwrap();
    r.sim.conservation().unwrap();
    let first_finish = r.sim.flows().iter().filter_map(|f| f.finish).min().unwrap();
    let (from, to) = (Time::from_us(400), first_finish.saturating_sub(Time::from_us(100)));
    assert!(to > from + Time::from_us(200), "steady window too short: {from} – {to}");
    // ood.csv rows are only the non-zero samples; count all samples for the mean.
    let samples = ((to - from).ps() / Time::from_ns(500).ps()) as f64 * 4.0;
    let mut max = 0;
    let mut sum = 0.0;
    for &(t, _h, ood, _) in r.sim.ood_series() {
        if t >= from && t <= to {
            max = max.max(ood);
            sum += ood as f64;
        }
    }
    // R̄: in-order delivery rate per flow over the window, in wire bits.
    let at =
        |t: Time| r.sim.goodput_series().iter().find(|g| g.0 >= t).map(|g| (g.0, g.1)).unwrap();
    let ((t0, b0), (t1, b1)) = (at(from), at(to));
    let wire = (1000 + sc.net.header_bytes) as f64 / 1000.0;
    let rate_bps = (b1 - b0) as f64 * 8.0 * wire / (t1 - t0).secs_f64() / 4.0;
    Steady { max_ood: max, mean_ood: sum / samples, rate_bps }
}

#[test]
fn without_scheduler_ood_follows_eq3_with_it_stays_low() {
    let mut rows = Vec::new();
    for extra in [0u64, 10, 25] {
        let off = fig4(extra, false);
        let on = fig4(extra, true);
        let theory = off.rate_bps * (extra as f64 * 1e-6) / ((1000 + 64) as f64 * 8.0);
        println!(
            "ΔD={extra:>2}us  theory R̄ΔD={theory:>6.1}  off: max {:>4} mean {:>6.2} ({:.1} Gb/s)  on: max {:>4} mean {:>6.2} ({:.1} Gb/s)",
            off.max_ood,
            off.mean_ood,
            off.rate_bps / 1e9,
            on.max_ood,
            on.mean_ood,
            on.rate_bps / 1e9
        );
        rows.push((extra, theory, off, on));
    }
    for (extra, theory, off, on) in &rows {
        if *extra == 0 {
            // Equal delays: nothing to compensate, a few packets of OOD either way.
            assert!(
                off.max_ood <= 12 && on.max_ood <= 12,
                "ΔD=0: {} / {}",
                off.max_ood,
                on.max_ood
            );
            continue;
        }
        // Eq 3: the maximum OOD without the scheduler tracks R̄·ΔD.
        let ratio = off.max_ood as f64 / theory;
        assert!(
            (0.7..=1.3).contains(&ratio),
            "ΔD={extra}: max OOD {} vs R̄ΔD {theory:.0}",
            off.max_ood
        );
        // Prop 3: the scheduler removes most of it (steady state, noisy rates and queues).
        assert!(
            (on.max_ood as f64) < 0.4 * theory,
            "ΔD={extra}: scheduler max OOD {} vs R̄ΔD {theory:.0}",
            on.max_ood
        );
        assert!(
            on.mean_ood < 0.15 * off.mean_ood,
            "ΔD={extra}: mean OOD {:.1} vs {:.1}",
            on.mean_ood,
            off.mean_ood
        );
    }
}
