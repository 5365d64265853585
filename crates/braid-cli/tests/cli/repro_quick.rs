//! `braid repro`: the figure list, plans that cannot run, and the quick (scaled-down) version of
//! figures end to end — sweep, PNG and SVG figures, `index.html`. Each quick figure takes seconds.
//!
//! The quick tests check the numbers, not only the files: every run completes every flow; the
//! values a figure draws (`fig-<name>.csv`) are the values of the runs it draws them from
//! (`runs.csv`, each run's `flows.csv`, `queues.csv`, `slowdown_bins.csv`); and where the quick run
//! is large enough to show it, the direction of the paper's claim (named in each test).

use crate::scratch;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use braid_cli::table::Csv;

fn braid() -> Command {
    Command::new(env!("CARGO_BIN_EXE_braid"))
}

fn tmp(name: &str) -> scratch::TmpDir {
    scratch::TmpDir::new("repro-test", name)
}

fn plans() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../repro")
}

/// Run `braid repro ID --quick` and check that every figure of the plan has non-empty PNG and
/// SVG files and that the report exists.
fn quick(id: &str) -> scratch::TmpDir {
    let out = tmp(id);
    let o = braid()
        .args(["repro", id, "--quick", "--quiet", "--plans"])
        .arg(plans())
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "braid repro {id} --quick failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let plan = braid_cli::repro::ReproPlan::load(&plans().join(format!("{id}.toml"))).unwrap();
    let mut drawn = 0;
    for f in &plan.figures {
        let png = out.join(format!("fig-{}.png", f.name));
        if !png.exists()
            && stdout.contains(&format!("fig-{}: not drawn in the quick version", f.name))
        {
            continue;
        }
        for ext in ["png", "svg", "csv"] {
            let p = out.join(format!("fig-{}.{ext}", f.name));
            let len = std::fs::metadata(&p)
                .unwrap_or_else(|e| panic!("{}: {e}\n{stdout}", p.display()))
                .len();
            assert!(len > 100, "{} is nearly empty ({len} bytes)", p.display());
        }
        let png = std::fs::read(out.join(format!("fig-{}.png", f.name))).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let svg = std::fs::read_to_string(out.join(format!("fig-{}.svg", f.name))).unwrap();
        assert!(svg.contains("<svg") && svg.contains("</svg>"));
        drawn += 1;
    }
    assert!(drawn > 0, "{id}: no figure drawn");
    assert!(out.join("index.html").is_file());
    let runs = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    assert!(runs.lines().count() > 1 && runs.lines().skip(1).all(|l| l.contains(",ok,")), "{runs}");
    // Every run is complete and sane.
    let r = Runs::read(&out);
    for i in 0..r.len() {
        let name = r.get(i, "run");
        assert_eq!(r.get(i, "run_end"), "all_flows_complete", "{id} {name}");
        assert_eq!(r.get(i, "conservation_ok"), "true", "{id} {name}");
        let total = r.num(i, "flows_total");
        assert!(
            total >= 1.0 && r.num(i, "flows_completed") == total,
            "{id} {name}: not every flow completed"
        );
        for k in ["sim_time_ns", "goodput_bps", "fct_slowdown_p50", "fct_slowdown_p99"] {
            let v = r.num(i, k);
            assert!(v.is_finite() && v > 0.0, "{id} {name}: {k} = {v}");
        }
        assert!(r.num(i, "fct_slowdown_p99") >= r.num(i, "fct_slowdown_p50"), "{id} {name}");
    }
    out
}

/// `runs.csv` of a sweep: one row per run.
struct Runs {
    csv: Csv,
}

impl Runs {
    fn read(out: &Path) -> Runs {
        Runs { csv: Csv::read(&out.join("runs.csv")).unwrap() }
    }
    fn len(&self) -> usize {
        self.csv.rows.len()
    }
    fn get(&self, row: usize, col: &str) -> &str {
        let c = self.csv.col(col).unwrap_or_else(|| panic!("runs.csv has no column `{col}`"));
        &self.csv.rows[row][c]
    }
    fn num(&self, row: usize, col: &str) -> f64 {
        let v = self.get(row, col);
        v.parse().unwrap_or_else(|_| panic!("runs.csv `{col}` = `{v}` is not a number"))
    }
    /// The row whose columns have the given values.
    fn find(&self, want: &[(&str, &str)]) -> usize {
        (0..self.len())
            .find(|&i| want.iter().all(|(k, v)| self.get(i, k) == *v))
            .unwrap_or_else(|| panic!("no run with {want:?}"))
    }
    /// A column of the row with the given values, as a number.
    fn at(&self, want: &[(&str, &str)], col: &str) -> f64 {
        self.num(self.find(want), col)
    }
}

/// One drawn value of a figure: (panel, series, x, y).
type Point = (String, String, String, f64);

/// The values a figure draws, from `fig-<name>.csv`.
fn figure(out: &Path, name: &str) -> Vec<Point> {
    let c = Csv::read(&out.join(format!("fig-{name}.csv"))).unwrap();
    assert_eq!(c.header, ["panel", "series", "x", "y"], "fig-{name}.csv");
    let pts: Vec<Point> = c
        .rows
        .iter()
        .map(|r| (r[0].clone(), r[1].clone(), r[2].clone(), r[3].parse::<f64>().unwrap()))
        .collect();
    assert!(!pts.is_empty(), "fig-{name}.csv draws nothing");
    for p in &pts {
        assert!(p.3.is_finite(), "fig-{name}: {p:?}");
    }
    pts
}

/// The one drawn value of `series` at `x` in `panel`.
fn point(pts: &[Point], panel: &str, series: &str, x: &str) -> f64 {
    let v: Vec<f64> =
        pts.iter().filter(|p| p.0 == panel && p.1 == series && p.2 == x).map(|p| p.3).collect();
    assert_eq!(v.len(), 1, "{panel:?} {series:?} at {x}: {v:?} in {pts:?}");
    v[0]
}

/// `a` as a figure writes it (three decimals) equals `b`.
fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= 0.0005 + 1e-9 * b.abs()
}

/// A slowdown-bins figure draws, for each series `<label> p50|p99`, the run's flows (its
/// `flows.csv`) sorted by size and cut into 10 groups of ⌈n/10⌉ flows: at x = the size of each
/// group's middle flow, the nearest-rank percentile of the group's slowdowns.
fn check_slowdown_bins(out: &Path, pts: &[Point], panel: &str, label: &str, run: &str) {
    let flows = Csv::read(&out.join("runs").join(run).join("flows.csv")).unwrap();
    let sizes = flows.numbers("size_bytes").unwrap();
    let slow = flows.numbers("slowdown").unwrap();
    let mut f: Vec<(f64, f64)> =
        sizes.into_iter().zip(slow).map(|(a, b)| (a.unwrap(), b.unwrap())).collect();
    f.sort_by(|a, b| a.0.total_cmp(&b.0));
    let per = f.len().div_ceil(10.min(f.len()));
    let mut drawn = 0;
    for g in f.chunks(per) {
        let mut s: Vec<f64> = g.iter().map(|x| x.1).collect();
        s.sort_by(f64::total_cmp);
        let x = g[g.len() / 2].0;
        for (q, p) in [("p50", 50.0), ("p99", 99.0)] {
            let rank = ((p / 100.0 * s.len() as f64).ceil() as usize).max(1);
            let want = s[rank - 1];
            let series = format!("{label} {q}");
            let got: Vec<f64> = pts
                .iter()
                .filter(|pt| pt.0 == panel && pt.1 == series && same(pt.2.parse().unwrap(), x))
                .map(|pt| pt.3)
                .collect();
            assert!(
                got.len() == 1 && same(got[0], want),
                "{run}: {q} of the flows around {x} B: drawn {got:?}, flows.csv {want}"
            );
            assert!(want > 0.0, "{run}: slowdown {want}");
            drawn += 1;
        }
    }
    assert_eq!(
        pts.iter().filter(|p| p.0 == panel && p.1.starts_with(&format!("{label} "))).count(),
        drawn,
        "{run}: extra points"
    );
}

#[test]
fn repro_list_shows_every_paper_figure() {
    let o = braid().args(["repro", "--list", "--plans"]).arg(plans()).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = String::from_utf8_lossy(&o.stdout);
    let rondo = [
        "1a", "1b", "3", "4", "9", "9d", "10", "11", "12", "13", "14", "15", "16", "17", "18",
        "19", "20", "21", "22", "23", "24", "25", "26", "27",
    ];
    let lcmp = [1, 5, 7, 8, 9, 10, 11];
    for id in rondo
        .iter()
        .map(|n| format!("rondo-fig{n}"))
        .chain(lcmp.iter().map(|n| format!("lcmp-fig{n}")))
    {
        let line = s
            .lines()
            .find(|l| l.split_whitespace().next() == Some(id.as_str()))
            .unwrap_or_else(|| panic!("{id} missing:\n{s}"));
        assert!(line.contains("[ready: ") || line.contains("[needs "), "{line}");
    }
    assert!(s.contains("claim:"));
}

#[test]
fn repro_plans_all_parse() {
    for p in braid_cli::repro::list(&plans()).unwrap() {
        let p = p.unwrap_or_else(|e| panic!("{e}"));
        assert!(!p.figures.is_empty());
        let q = p.quick_plan().unwrap_or_else(|e| panic!("{}: {e}", p.id));
        assert!(
            q.expand().len() <= p.plan.expand().len().max(1) * 2,
            "{}: the quick version should not be larger",
            p.id
        );
    }
}

/// Every run of every plan, full and quick, loads and validates its scenario (a plan whose runs
/// cannot start fails here, in seconds, not when someone runs it); every run of every quick plan
/// also builds (topology, workload, senders).
#[test]
fn every_run_of_every_plan_validates_and_every_quick_run_builds() {
    let mut failures = Vec::new();
    for p in braid_cli::repro::list(&plans()).unwrap() {
        let p = p.unwrap_or_else(|e| panic!("{e}"));
        let q = p.quick_plan().unwrap_or_else(|e| panic!("{}: {e}", p.id));
        for (what, plan, build) in [("full", &p.plan, false), ("quick", &q, true)] {
            let mut seen = std::collections::BTreeSet::new();
            for r in plan.expand() {
                if !seen.insert((r.scenario.clone(), r.sets.clone())) {
                    continue;
                }
                match braid_cli::sweep::load_run(&r) {
                    Err(e) => failures.push(format!("{} ({what}) run `{}`: {e}", p.id, r.name)),
                    Ok(sc) if build => {
                        if let Err(e) = braid_cli::build::build(&sc) {
                            failures.push(format!(
                                "{} ({what}) run `{}` does not build: {e}",
                                p.id, r.name
                            ));
                        }
                    }
                    Ok(_) => {}
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} runs cannot start:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn repro_cannot_run_exits_2() {
    let d = tmp("needs");
    std::fs::write(
        d.join("x-fig1.toml"),
        "id = \"x-fig1\"\npaper = \"X\"\ntitle = \"t\"\nclaim = \"c\"\nscenario = \"scenarios/missing.toml\"\n[[figure]]\nname = \"a\"\nkind = \"bar\"\nx = \"case\"\ny = [\"goodput_bps\"]\n",
    )
    .unwrap();
    let o = braid()
        .args(["repro", "x-fig1", "--plans"])
        .arg(&d)
        .arg("--out")
        .arg(d.join("out"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("cannot run in this build: needs scenario file"), "{e}");
    assert!(!d.join("out/runs.csv").exists());
    let o = braid().args(["repro", "no-such-fig", "--plans"]).arg(&d).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    // A kind that is part of the contract but not built names the feature it needs.
    let msg = "s.toml: `transport.kind`: transport kind `eqds` is part of Braid's scenario contract but is not available in this build yet";
    assert_eq!(braid_cli::repro::classify(msg), "transport.kind=eqds");
    let msg = "s.toml: `routing.kind`: `lcmp` is part of Braid's scenario contract but not available in this build yet (available: ecmp)";
    assert_eq!(braid_cli::repro::classify(msg), "routing.kind=lcmp");
}

#[test]
fn repro_quick_braid_cc_incast() {
    let out = quick("braid-cc-incast");
    // Resumable: a second call runs nothing again.
    let o = braid()
        .args(["repro", "braid-cc-incast", "--quick", "--quiet", "--plans"])
        .arg(plans())
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stdout)
            .contains("(5 reused: complete with the same resolved scenario)"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let r = Runs::read(&out);
    let ccs = ["dcqcn", "hpcc", "timely", "dctcp", "swift"];
    // fig-goodput draws each run's goodput_bps in Gb/s; 8 senders share host 0's 100 Gb/s link.
    let goodput = figure(&out, "goodput");
    for cc in ccs {
        let g = r.at(&[("transport.cc", cc)], "goodput_bps");
        assert!(
            same(point(&goodput, "", "goodput", cc), g / 1e9),
            "{cc}: drawn {goodput:?}, runs.csv {g}"
        );
        assert!(g > 10e9 && g < 100e9, "{cc}: goodput {g} b/s");
    }
    // fig-slowdown draws the CDF of each run's flow slowdowns (flows.csv).
    let slow = figure(&out, "slowdown");
    for cc in ccs {
        let flows =
            Csv::read(&out.join("runs").join(format!("transport.cc={cc}")).join("flows.csv"))
                .unwrap();
        let mut want: Vec<f64> =
            flows.numbers("slowdown").unwrap().into_iter().map(Option::unwrap).collect();
        want.sort_by(f64::total_cmp);
        let got: Vec<&Point> = slow.iter().filter(|p| p.1 == format!("cc={cc}")).collect();
        assert_eq!(got.len(), want.len(), "{cc}: one CDF step per flow");
        for (k, (p, w)) in got.iter().zip(&want).enumerate() {
            assert!(same(p.2.parse().unwrap(), *w), "{cc}: CDF x {p:?} vs slowdown {w}");
            assert!(same(p.3, (k + 1) as f64 / want.len() as f64), "{cc}: CDF y {p:?}");
            assert!(*w >= 1.0, "{cc}: slowdown {w} below 1 on a single path");
        }
    }
    // The claim: HPCC and Swift keep the bottleneck queue far below DCQCN's and TIMELY's (mean of
    // the drawn queue series, and the runs' p99).
    let queue = figure(&out, "queue");
    let mean_kb = |cc: &str| {
        let v: Vec<f64> =
            queue.iter().filter(|p| p.1.starts_with(&format!("cc={cc} "))).map(|p| p.3).collect();
        assert!(v.len() > 50, "{cc}: {} queue samples drawn", v.len());
        assert!(v.iter().all(|&y| y >= 0.0));
        v.iter().sum::<f64>() / v.len() as f64
    };
    let p99 = |cc: &str| r.at(&[("transport.cc", cc)], "queue_p99_bytes");
    for low in ["hpcc", "swift"] {
        for deep in ["dcqcn", "timely"] {
            assert!(
                2.0 * mean_kb(low) < mean_kb(deep),
                "mean queue: {low} {:.0} KB vs {deep} {:.0} KB",
                mean_kb(low),
                mean_kb(deep)
            );
            assert!(
                p99(low) < p99(deep),
                "queue p99: {low} {} B vs {deep} {} B",
                p99(low),
                p99(deep)
            );
        }
    }
}

#[test]
fn repro_quick_rondo_fig4() {
    let out = quick("rondo-fig4");
    let r = Runs::read(&out);
    let ood = figure(&out, "ood");
    for case in ["MP-RDMA", "Falcon", "Rondo w/o scheduler"] {
        for (q, col) in [("p99", "nic_ood_p99"), ("max", "nic_ood_max")] {
            let at = |d: &str| {
                let drawn = point(&ood, "", &format!("{case} {q}"), d.trim_end_matches("us"));
                let run = r.at(&[("case", case), ("topology.extra_delay", d)], col);
                assert_eq!(drawn, run, "{case} {q} at {d}: drawn vs runs.csv");
                run
            };
            // The claim (Eq 3): NIC-level OOD grows with the inter-path delay difference.
            let (flat, skewed) = (at("0us"), at("15us"));
            assert!(skewed > flat, "{case}: {q} OOD {flat} at 0 µs, {skewed} at 15 µs");
        }
    }
    // MP-RDMA at 15 µs: the paper measures 124–153 packets; at least that order here.
    assert!(r.at(&[("case", "MP-RDMA"), ("topology.extra_delay", "15us")], "nic_ood_max") >= 100.0);
}

#[test]
fn repro_quick_rondo_fig10() {
    let out = quick("rondo-fig10");
    // The quick version (16 hosts, 256 KB permutation) is too small for the paper's speedups:
    // check that the figures draw the runs' numbers and that they are sane.
    let r = Runs::read(&out);
    let speedup = figure(&out, "speedup");
    let ood = figure(&out, "ood");
    for os in ["1", "4"] {
        let panel = format!("rondo-clos-permutation · {os}");
        let ecmp = r.at(&[("case", "ECMP"), ("topology.oversubscription", os)], "sim_time_ns");
        for case in ["Rondo", "ECMP", "MP-RDMA"] {
            let want = [("case", case), ("topology.oversubscription", os)];
            let jct = r.at(&want, "sim_time_ns");
            let s = point(&speedup, &panel, "speedup", case);
            assert!(
                same(s, ecmp / jct),
                "{case} {os}:1: drawn speedup {s}, runs.csv {ecmp} / {jct}"
            );
            assert!(s > 0.3 && s < 3.5, "{case} {os}:1: speedup {s}");
            for (q, col) in [("p99", "nic_ood_p99"), ("max", "nic_ood_max")] {
                assert_eq!(point(&ood, &panel, q, case), r.at(&want, col), "{case} {os}:1 OOD {q}");
            }
        }
        assert_eq!(point(&speedup, &panel, "speedup", "ECMP"), 1.0);
    }
}

#[test]
fn repro_quick_rondo_fig19() {
    let out = quick("rondo-fig19");
    let run = out.join("runs/run");
    // fig-queues draws queues.csv of the four ToR uplinks (KB over ms; a port with no sample at a
    // time has an empty queue).
    let queues = figure(&out, "queues");
    let q = Csv::read(&run.join("queues.csv")).unwrap();
    let (t, port, bytes) =
        (q.col("time_ns").unwrap(), q.col("port").unwrap(), q.col("bytes").unwrap());
    let recorded: BTreeMap<(u64, String), f64> = q
        .rows
        .iter()
        .map(|row| ((row[t].parse().unwrap(), row[port].clone()), row[bytes].parse().unwrap()))
        .collect();
    let mut by_time: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
    for (_, series, x, y) in &queues {
        let p = series.strip_prefix("port ").unwrap_or_else(|| panic!("series {series}"));
        assert!(["40", "42", "44", "46"].contains(&p), "series {series}");
        let ns = (x.parse::<f64>().unwrap() * 1e6).round() as u64;
        let want = recorded.get(&(ns, p.to_string())).copied().unwrap_or(0.0) / 1e3;
        assert!(same(*y, want), "port {p} at {ns} ns: drawn {y} KB, queues.csv {want} KB");
        by_time.entry(ns).or_default().push(*y);
    }
    // The claim: the inter-path queue difference stays below 30 KB. Checked over the common phase
    // (until the first flow completes, which changes the load), after a 100 µs start-up.
    let flows = Csv::read(&run.join("flows.csv")).unwrap();
    let first_done = flows
        .numbers("finish_ns")
        .unwrap()
        .into_iter()
        .map(Option::unwrap)
        .fold(f64::MAX, f64::min) as u64;
    let common: Vec<(u64, f64)> = by_time
        .iter()
        .filter(|(t, v)| **t >= 100_000 && **t < first_done && v.len() == 4)
        .map(|(t, v)| {
            (
                *t,
                v.iter().cloned().fold(f64::MIN, f64::max)
                    - v.iter().cloned().fold(f64::MAX, f64::min),
            )
        })
        .collect();
    assert!(
        common.len() >= 50,
        "only {} samples in the common phase (first completion at {first_done} ns)",
        common.len()
    );
    let worst = common.iter().cloned().fold((0, 0.0), |a, b| if b.1 > a.1 { b } else { a });
    assert!(worst.1 < 30.0, "inter-path queue difference {} KB at {} ns", worst.1, worst.0);
    // fig-ood draws the sampled NIC-level OOD: at most the run's maximum, which stays small
    // (the paper: near zero; MP-RDMA and Falcon reach 74–175 packets in the same set-up, fig4).
    let r = Runs::read(&out);
    let max = r.num(0, "nic_ood_max");
    let ood = figure(&out, "ood");
    assert!(
        ood.iter().all(|p| p.3 >= 0.0 && p.3 <= max),
        "drawn OOD above the run's maximum {max}"
    );
    assert!(max < 40.0, "Rondo's NIC-level OOD reached {max}");
}

#[test]
fn repro_quick_rondo_fig27() {
    // Four long flows share host 0's 100 Gb/s link, which runs at a quarter of its rate from
    // 0.5 ms to 1 ms (quick version). ARCC measures the new capacity from the ACK rate: during the
    // drop the receiver gets a quarter of the data-packet rate (25 Gb/s × 1000 / 1064 of goodput),
    // the queue the drop builds drains, and after the recovery probing refills the link at once.
    let out = quick("rondo-fig27");
    let run = out.join("runs/Rondo");
    let g = Csv::read(&run.join("goodput.csv")).unwrap();
    let (t, bps) = (g.col("time_ns").unwrap(), g.col("goodput_bps").unwrap());
    let series: Vec<(f64, f64)> = g
        .rows
        .iter()
        .map(|r| (r[t].parse::<f64>().unwrap() / 1e3, r[bps].parse::<f64>().unwrap() / 1e9))
        .collect();
    let mean = |a: f64, b: f64| {
        let v: Vec<f64> = series.iter().filter(|p| p.0 > a && p.0 <= b).map(|p| p.1).collect();
        v.iter().sum::<f64>() / v.len().max(1) as f64
    };
    let full = 100.0 * 1000.0 / 1064.0;
    let (before, during, after) = (mean(200.0, 500.0), mean(600.0, 1000.0), mean(1100.0, 1400.0)); // the first flow ends at ~1.43 ms
    eprintln!(
        "goodput before {before:.1}, during {during:.1}, after {after:.1} Gb/s (line {full:.1})"
    );
    assert!(before > 0.95 * full, "before the drop: {before:.1} Gb/s");
    assert!(
        (during - full / 4.0).abs() < 0.05 * full / 4.0,
        "during the drop: {during:.1} Gb/s, a quarter is {:.1}",
        full / 4.0
    );
    assert!(after > 0.95 * full, "after the recovery: {after:.1} Gb/s");
    // Back to 90 % of the line within 100 µs of the recovery (probing, §4.2.2).
    let back = series.iter().find(|p| p.0 > 1000.0 && p.1 > 0.9 * full).map(|p| p.0 - 1000.0);
    assert!(back.is_some_and(|d| d <= 100.0), "back to 90 % {back:?} µs after the recovery");
    // The drop's queue drains: 200 µs into the drop the queue before host 0 is below 20 KB.
    let q = Csv::read(&run.join("queues.csv")).unwrap();
    let (qt, qb) = (q.col("time_ns").unwrap(), q.col("bytes").unwrap());
    let late: f64 = q
        .rows
        .iter()
        .filter(|r| (700_000.0..1_000_000.0).contains(&r[qt].parse::<f64>().unwrap()))
        .map(|r| r[qb].parse::<f64>().unwrap())
        .fold(0.0, f64::max);
    assert!(late < 20_000.0, "queue {late} B late in the drop");
}

#[test]
fn repro_quick_lcmp_fig11() {
    let out = quick("lcmp-fig11");
    let r = Runs::read(&out);
    let ablation = figure(&out, "ablation");
    for case in ["full", "rm-alpha"] {
        check_slowdown_bins(&out, &ablation, "", case, case);
    }
    // The claim: without path quality (rm-alpha) the slowdowns rise.
    for col in ["fct_slowdown_p50", "fct_slowdown_p99"] {
        let (full, rm) = (r.at(&[("case", "full")], col), r.at(&[("case", "rm-alpha")], col));
        assert!(rm > full, "{col}: full {full}, rm-alpha {rm}");
    }
}

#[test]
fn repro_quick_lcmp_fig5_poisson() {
    let out = quick("lcmp-fig5-poisson");
    let r = Runs::read(&out);
    let slow = figure(&out, "slowdown");
    for case in ["ECMP", "UCMP", "LCMP"] {
        let run = r.get(r.find(&[("case", case), ("workload.load", "0.3")]), "run").to_string();
        check_slowdown_bins(&out, &slow, "workload.load = 0.3", case, &run);
    }
    // The claim: LCMP cuts the median and the tail FCT slowdown against ECMP and UCMP.
    for col in ["fct_slowdown_p50", "fct_slowdown_p99"] {
        let lcmp = r.at(&[("case", "LCMP")], col);
        for other in ["ECMP", "UCMP"] {
            let o = r.at(&[("case", other)], col);
            assert!(lcmp < o, "{col}: LCMP {lcmp}, {other} {o}");
        }
    }
}

/// The Rondo evaluation's plans (§6.2–6.4 and the appendix) all run on one network model,
/// `rondo-sim`: every run of every plan, as resolved, has the model's steering (the switches hash
/// a flow's logical paths, AR routing adaptively), 32 MiB switch buffers, PFC on and the model's
/// ECN thresholds, and changes no other model field unless its plan quotes the paper's words for
/// it. A per-figure setting that leaves the model is refused with the field named.
#[test]
fn rondo_evaluation_plans_keep_the_one_model() {
    let eval: Vec<String> = [10, 11, 12, 13, 14, 15, 16, 17, 18, 21, 22, 23, 25, 26, 27]
        .iter()
        .map(|n| format!("rondo-fig{n}"))
        .collect();
    let mut seen = 0;
    for p in braid_cli::repro::list(&plans()).unwrap() {
        let p = p.unwrap();
        if !eval.contains(&p.id) {
            assert!(
                p.model.is_none() || p.id.starts_with("rondo-"),
                "{}: only Rondo plans use the rondo-sim model",
                p.id
            );
            continue;
        }
        seen += 1;
        assert_eq!(p.model.as_deref(), Some("rondo-sim"), "{}", p.id);
        assert!(!p.checks.is_empty(), "{}: the evaluation table needs its [[check]]s", p.id);
        for (field, quote) in &p.model_changes {
            assert!(
                quote.contains('§') && quote.contains('"'),
                "{}: `{field}` must quote the paper with its section: {quote}",
                p.id
            );
        }
        let runs = p.plan.expand();
        let scenarios =
            braid_cli::sweep::load_all(&runs).unwrap_or_else(|e| panic!("{}: {e}", p.id));
        p.check_model(&runs, &scenarios, false, &[]).unwrap_or_else(|e| panic!("{e}"));
        for (r, sc) in runs.iter().zip(&scenarios) {
            let what = format!("{} run `{}`", p.id, r.name);
            assert_eq!(sc.profile, "rondo-sim", "{what}");
            let ar = r.case.as_deref() == Some("AR");
            let routing = format!("{:?}", sc.net.routing);
            assert_eq!(routing.starts_with("Adaptive"), ar, "{what}: routing {routing}");
            if !ar {
                assert!(
                    routing.starts_with("Ecmp"),
                    "{what}: logical paths are hashed in the model, routing {routing}"
                );
            }
            assert_eq!(sc.net.switch_buffer_bytes, 32 << 20, "{what}");
            assert!(sc.net.pfc.enabled, "{what}");
            assert_eq!(sc.net.ecn, braid_net::config::EcnConfig::default(), "{what}");
            if !r.params.iter().any(|(k, _)| k == "network.reorder_buffer") {
                assert_eq!(sc.net.reorder_buffer_bytes, 1_200_000, "{what}");
            }
        }
        // A per-figure choice made in the plan is refused, naming the field.
        let mut leaky = p.clone();
        leaky.plan.set.push(("network.buffer".into(), toml::Value::String("3MB".into())));
        let runs = leaky.plan.expand();
        let scenarios = braid_cli::sweep::load_all(&runs).unwrap();
        let e = leaky.check_model(&runs, &scenarios, false, &[]).unwrap_err();
        assert!(e.contains("`network.buffer`") && e.contains("[model_changes]"), "{e}");
        // The same choice given on the command line (a sensitivity run) is allowed.
        leaky.check_model(&runs, &scenarios, false, &["network.buffer".into()]).unwrap();
    }
    assert_eq!(seen, eval.len());
}

/// `braid evaluate rondo` prints the evaluation table from the plans' output folders: its columns
/// are fixed, every check of every plan is a row, a plan not run is named on stderr (exit 1),
/// and the numbers and classes are those the runs give: recomputed here from `runs.csv` and
/// `flows.csv` for Fig 10's "fastest or within 1 %" and Fig 17's Jain index.
#[test]
fn evaluation_table_is_printed_from_the_runs() {
    let root = tmp("evaluate");
    for id in ["rondo-fig10", "rondo-fig17"] {
        let o = braid()
            .args(["repro", id, "--quick", "--quiet", "--plans"])
            .arg(plans())
            .arg("--out")
            .arg(root.join(format!("{id}-quick")))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let o = braid()
        .args(["evaluate", "rondo", "--quick", "--plans"])
        .arg(plans())
        .arg("--from")
        .arg(&*root)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "plans not run make the table incomplete: {err}");
    assert!(err.contains("rondo-fig11: not run"), "{err}");
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("| figure | claim | paper | Braid (the model) | rule | class |"));
    let rows: Vec<Vec<String>> = lines
        .skip(1)
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.trim_matches('|').split(" | ").map(|c| c.trim().to_string()).collect())
        .collect();
    let n_checks: usize = braid_cli::evaluate::plans_of(&plans(), "rondo")
        .unwrap()
        .iter()
        .map(|p| p.checks.len())
        .sum();
    assert_eq!(rows.len(), n_checks, "{out}");
    assert!(
        rows.iter()
            .all(|r| r.len() == 6
                && ["match", "direction", "miss", "not run"].contains(&r[5].as_str())),
        "{out}"
    );
    // Under the table, each column's classes counted from its rows.
    let k = |c: &str| rows.iter().filter(|r| r[5] == c).count();
    let mut tally = format!(
        "Classes of the {n_checks} claims — the model: {} match, {} direction, {} miss",
        k("match"),
        k("direction"),
        k("miss")
    );
    if k("not run") > 0 {
        tally.push_str(&format!(", {} not run", k("not run")));
    }
    assert!(out.contains(&format!("{tally}.")), "no tally `{tally}` under the table:\n{out}");
    // Fig 10, "fastest or within 1 %": recompute from runs.csv.
    let runs = Csv::read(&root.join("rondo-fig10-quick/runs.csv")).unwrap();
    let col = |n: &str| runs.col(n).unwrap();
    let mut groups: BTreeMap<(String, String), Vec<(String, f64)>> = BTreeMap::new();
    for r in &runs.rows {
        groups
            .entry((r[col("scenario")].clone(), r[col("topology.oversubscription")].clone()))
            .or_default()
            .push((r[col("case")].clone(), r[col("sim_time_ns")].parse().unwrap()));
    }
    let best = groups
        .values()
        .filter(|cases| {
            let rondo = cases.iter().find(|c| c.0 == "Rondo").unwrap().1;
            let other =
                cases.iter().filter(|c| c.0 != "Rondo").map(|c| c.1).fold(f64::INFINITY, f64::min);
            rondo <= other * 1.01
        })
        .count();
    let fastest =
        rows.iter().find(|r| r[0] == "Fig 10" && r[1].starts_with("Rondo the fastest")).unwrap();
    assert!(fastest[3].starts_with(&format!("best in {best} of {}:", groups.len())), "{fastest:?}");
    let class = if best >= 4 {
        "match"
    } else if best >= 1 {
        "direction"
    } else {
        "miss"
    };
    assert_eq!(fastest[5], class, "{fastest:?}");
    // Fig 17: Jain's index of size / FCT over Rondo's flows.
    let f17 = Csv::read(&root.join("rondo-fig17-quick/runs.csv")).unwrap();
    let run = f17.rows.iter().find(|r| r[f17.col("case").unwrap()] == "Rondo").unwrap()
        [f17.col("run").unwrap()]
    .clone();
    let flows =
        Csv::read(&root.join("rondo-fig17-quick/runs").join(run).join("flows.csv")).unwrap();
    let x: Vec<f64> = flows
        .rows
        .iter()
        .map(|r| {
            r[flows.col("size_bytes").unwrap()].parse::<f64>().unwrap()
                / r[flows.col("fct_ns").unwrap()].parse::<f64>().unwrap()
        })
        .collect();
    let jain =
        x.iter().sum::<f64>().powi(2) / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>());
    let row = rows.iter().find(|r| r[0] == "Fig 17").unwrap();
    assert_eq!(row[3], format!("{jain:.3}"), "{row:?}");
    assert_eq!(
        row[5],
        if jain >= 0.99 {
            "match"
        } else if jain >= 0.95 {
            "direction"
        } else {
            "miss"
        }
    );
    // Plans not run are rows too, classed `not run`.
    assert!(rows.iter().any(|r| r[0] == "Fig 11" && r[5] == "not run"), "{out}");
    // An alternative folder adds a class column per row: the same runs give the same classes.
    let o = braid()
        .args(["evaluate", "rondo", "--quick", "--plans"])
        .arg(plans())
        .arg("--from")
        .arg(&*root)
        .arg("--alt")
        .arg(&*root)
        .output()
        .unwrap();
    let alt = String::from_utf8_lossy(&o.stdout);
    let alt_rows: Vec<Vec<String>> = alt
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.trim_matches('|').split(" | ").map(|c| c.trim().to_string()).collect())
        .collect();
    assert_eq!(alt_rows.len(), rows.len());
    for (a, r) in alt_rows.iter().zip(&rows) {
        assert_eq!(a.len(), 7, "{a:?}");
        assert!(a[6].starts_with(&r[5]), "the alternative's class {:?} against {:?}", a[6], r[5]);
    }
}
