//! `braid`: run, validate and benchmark Braid scenarios.
//!
//! Bad input ends with a message naming the problem and exit code 2; nothing that looks like a
//! complete run (`summary.json`) is left behind.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use braid_cli::{bench, evaluate, plot, report, repro, run, scenario, sweep, udp};

/// The verbs, grouped, with one example each (`braid`, `braid --help`).
const OVERVIEW: &str = "\
Run and compare:
  run       run one scenario: summary.json, flows.csv, time series
              braid run examples/quickstart.toml --out out/run
  compare   variants side by side: one table, figures, index.html
              braid compare examples/spray-slow-spine.toml --vary transport.kind=rondo,uet,roce
              braid compare examples/plans/quickstart.toml --out out/quickstart
  sweep     a plan's grid of overrides x seeds, in parallel, resumable (runs.csv)
              braid sweep PLAN.toml --out out/sweep
  validate  check a scenario (and --set overrides) without running it
              braid validate examples/lcmp-8dc.toml --set routing.kind=ecmp

Reproduce the papers:
  repro     a paper figure from repro/<id>.toml: runs, figures, report (--list shows all)
              braid repro rondo-fig4 --quick
  evaluate  a paper's evaluation table (claim, Braid's numbers, class) from the repro folders
              braid evaluate rondo --from out/repro

Inspect:
  plot      draw the time series of a run (queues, OOD, goodput, paths) as PNG + SVG
              braid plot out/run
  report    a self-contained index.html for a run, sweep or repro folder
              braid report out/run
  links     a scenario's link ids (for [[faults]] and output.pcap = [...], the pcap capture)
              braid links examples/quickstart.toml

Speed:
  bench     the fixed benchmark scenarios: events/s, packet-hops/s, memory
              braid bench --only permutation-k8

Real packets (UDP, docs/udp.md):
  recv      receive transfers and check every byte
              braid recv --listen 127.0.0.1:7000
  send      send with any transport, iperf-like; the summary of a simulated flow
              braid send 127.0.0.1:7000 --transport rondo --size 100MB --paths 4
  emulate   N emulated paths (rate, delay, queue, loss) between sender and receiver
              braid emulate --listen 127.0.0.1:7100 --forward 127.0.0.1:7000 --path rate=250Mbps,delay=1ms --path rate=100Mbps,delay=1ms

`braid <verb> --help` gives a verb's options. Scenarios: README.md, docs/tutorial.md.";

#[derive(Parser)]
#[command(
    name = "braid",
    version,
    about = "Braid: a deterministic packet-level simulator for multipath networking in and between datacenters",
    after_help = OVERVIEW,
    help_template = "{about}\n\n{usage-heading} {usage}{after-help}\n\nOptions:\n{options}\n"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Option<Cmd>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a scenario and write summary.json, flows.csv and any time series into --out.
    Run {
        /// The scenario file (TOML).
        scenario: PathBuf,
        /// Output folder (default: out/run/<scenario file name>; a run owns its folder: the
        /// files an earlier run wrote there are removed first).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Override the scenario's seed.
        #[arg(long)]
        seed: Option<u64>,
        /// Override any field: `--set table.field=value` (repeatable).
        #[arg(long = "set", value_name = "TABLE.FIELD=VALUE")]
        sets: Vec<String>,
        /// No progress bar and no summary on the terminal.
        #[arg(long)]
        quiet: bool,
        /// Run as a conservative parallel simulation on up to N threads (`run.threads`;
        /// docs/parallel.md): the same outputs for every N.
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
    },
    /// Check a scenario file without running it (parse, build the network and the workload).
    Validate {
        /// The scenario file (TOML).
        scenario: PathBuf,
        /// Override the scenario's seed (as for `run`: a seeded workload is generated with it).
        #[arg(long)]
        seed: Option<u64>,
        /// Override any field (as for `run`).
        #[arg(long = "set", value_name = "TABLE.FIELD=VALUE")]
        sets: Vec<String>,
    },
    /// Run variants of a scenario side by side and print one table (a sweep without a plan file):
    /// `braid compare SCENARIO --vary transport.kind=rondo,uet,roce`; or a plan with [[case]]s.
    Compare {
        /// A scenario file (TOML), or a sweep plan with [[case]]s (examples/plans/).
        target: PathBuf,
        /// `table.field=value1,value2,…` (repeatable: every combination runs).
        #[arg(long = "vary", value_name = "TABLE.FIELD=V1,V2,…")]
        vary: Vec<String>,
        /// A named variant: `'LABEL: table.field=value; table.field=value'` (repeatable).
        #[arg(long = "case", value_name = "'LABEL: FIELD=V; …'")]
        cases: Vec<String>,
        /// Seeds: `1,2,3` or `1..3` (each row is the mean over them).
        #[arg(long)]
        seeds: Option<String>,
        /// Output folder (default: out/compare/<file name>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// At most this many runs at once (default: the number of cores).
        #[arg(long)]
        jobs: Option<usize>,
        /// Table columns: summary.json fields or `a/b` ratios, comma-separated.
        #[arg(long)]
        columns: Option<String>,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// Run a scenario over a grid of overrides and seeds, in parallel, resumably; writes
    /// OUT/runs/<run>/ and OUT/runs.csv (see `braid_cli::sweep` for the plan format).
    Sweep {
        /// The plan file (TOML).
        plan: PathBuf,
        /// Output folder (default: the plan's own folder when it is a sweep's, as the plan.toml
        /// `braid compare` writes, so that the sweep resumes there; else out/sweep/<plan name>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// At most this many runs at once (default: the number of cores).
        #[arg(long)]
        jobs: Option<usize>,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// Reproduce a paper figure from repro/<ID>.toml: run its sweep, draw its figures, write a report.
    Repro {
        /// The figure id (`rondo-fig10`, `lcmp-fig5`, …); see --list.
        id: Option<String>,
        /// List every figure with its status, description and the paper's claim.
        #[arg(long)]
        list: bool,
        /// Output folder (default: out/repro/<ID>, or out/repro/<ID>-quick).
        #[arg(long)]
        out: Option<PathBuf>,
        /// The scaled-down version (fewer hosts and flows; seconds to a minute).
        #[arg(long)]
        quick: bool,
        /// At most this many runs at once.
        #[arg(long)]
        jobs: Option<usize>,
        /// The folder of plan files (default: repro/ here or above, else the source tree's).
        #[arg(long)]
        plans: Option<PathBuf>,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
        /// Override a field in every run, before the plan's own overrides (repeatable): the model
        /// with one open choice made the other way, e.g. --set routing.kind=path-index.
        #[arg(long = "set", value_name = "TABLE.FIELD=VALUE")]
        sets: Vec<String>,
    },
    /// Print a paper's evaluation table (figure, claim, Braid's numbers, class) from its repro
    /// plans' output folders.
    Evaluate {
        /// The paper: `rondo` or `lcmp` (plans `repro/<paper>-*.toml` that have [[check]]s).
        paper: String,
        /// The folder holding the plans' output folders, `<ID>/` (default: out/repro).
        #[arg(long, default_value = "out/repro")]
        from: PathBuf,
        /// A further folder of the same plans run with one choice made the other way (`braid
        /// repro ID --set …`): one more class column (repeatable).
        #[arg(long)]
        alt: Vec<PathBuf>,
        /// Read the quick versions (`<ID>-quick/`).
        #[arg(long)]
        quick: bool,
        /// The folder of plan files (default: repro/ here or above, else the source tree's).
        #[arg(long)]
        plans: Option<PathBuf>,
    },
    /// Draw the time series a run recorded (queues.csv, ood.csv, goodput.csv, …) as PNG and SVG.
    Plot {
        /// A run's output folder.
        run_dir: PathBuf,
    },
    /// Write a self-contained DIR/index.html (figures inline, runs table, scenarios, version, seeds).
    Report {
        /// A sweep, repro or run output folder.
        dir: PathBuf,
    },
    /// List a scenario's links (the ids `output.pcap` and `[[faults]]` take).
    Links {
        /// The scenario file (TOML).
        scenario: PathBuf,
        /// Override any field (as for `run`).
        #[arg(long = "set", value_name = "TABLE.FIELD=VALUE")]
        sets: Vec<String>,
    },
    /// Run the fixed benchmark scenarios and print speed figures.
    Bench {
        /// Only the scenarios whose names contain this.
        #[arg(long)]
        only: Option<String>,
        /// Run the scale curve instead (fat-trees k = 8 to 64, 1 MB permutation and all-to-all
        /// round, 1 and 2 threads; the k = 64 points take minutes and gigabytes).
        #[arg(long)]
        scale: bool,
        /// Run one scenario in this process (used internally to measure peak memory per scenario).
        #[arg(long, hide = true)]
        child: Option<String>,
        /// Override a field of every scenario (`run.departures="events" run.order="insertion"`:
        /// the engine before departures on demand and the canonical order); repeatable. Printed
        /// with the figures.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        sets: Vec<String>,
    },
    /// Send a stream over UDP with one of Braid's transports (the simulator's code, on a real
    /// clock) and print the summary a simulated flow gets; exit 2 on bad input or an
    /// unreachable / refusing peer, 3 when the transfer stops making progress.
    Send(udp::SendArgs),
    /// Receive transfers over UDP: check every packet against the stream, acknowledge with the
    /// simulator's receiver, report OOD and the digest to the sender.
    Recv(udp::RecvArgs),
    /// Emulate N network paths between senders and one receiver on this machine: per path a
    /// rate, a one-way delay, a drop-tail queue, random loss, jitter, an ECN threshold, and a
    /// low-priority class with a small threshold for probes (Rondo §6.1's switch).
    Emulate(udp::EmulateArgs),
}

fn main() -> ExitCode {
    // Large buffers come from and go back to the operating system (`alloc_policy`).
    braid_cli::alloc_policy::large_buffers_from_the_os();
    let cli = Cli::parse();
    let Some(cmd) = cli.cmd else {
        use clap::CommandFactory;
        let _ = Cli::command().print_help();
        return ExitCode::SUCCESS;
    };
    match cmd {
        Cmd::Run { scenario: path, out, seed, mut sets, quiet, threads } => {
            let out = out.unwrap_or_else(|| default_out("run", &path));
            if let Some(n) = threads {
                sets.push(format!("run.threads={n}"));
            }
            // Whatever an earlier run left in the folder must not pass for this one, even when
            // this one is refused: its outputs go first (nothing else is written on exit 2).
            if let Err(e) = run::clear_run_outputs(&out) {
                eprintln!("error: {e}");
                return ExitCode::from(1);
            }
            let sc = match scenario::load(&path, &sets, seed) {
                Ok(s) => s,
                Err(e) => return fail(&e),
            };
            for n in &sc.notes {
                eprintln!("note: {n}");
            }
            let warn = |load: &braid_cli::offered_load::OfferedLoad| {
                for w in load.warnings(5) {
                    eprintln!("{w}");
                }
            };
            let r = match run::run_with(&sc, !quiet, warn) {
                Ok(r) => r,
                Err(e) => return fail(&e),
            };
            if let Err(e) = run::write_outputs(&out, &sc, &r) {
                eprintln!("error: {e}");
                return ExitCode::from(1);
            }
            if !quiet {
                print!("{}", run::human_summary(&sc, &r));
                println!("  outputs in {}", out.display());
            }
            if let Err(e) = r.sim.conservation() {
                eprintln!("error: packet conservation violated: {e}");
                return ExitCode::from(1);
            }
            if r.end.stopped_early() {
                eprintln!("error: {}", run::stuck_message(&r));
                return ExitCode::from(3);
            }
            ExitCode::SUCCESS
        }
        Cmd::Validate { scenario: path, seed, sets } => match scenario::load(&path, &sets, seed) {
            Ok(sc) => match braid_cli::build::build(&sc) {
                Ok((sim, _)) => {
                    println!(
                        "{}: ok ({} hosts, {} links, {} flows)",
                        path.display(),
                        sim.n_hosts(),
                        sc.topology.links.len(),
                        sim.flows().len()
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&format!("{}: {e}", path.display())),
            },
            Err(e) => fail(&e),
        },
        Cmd::Compare { target, vary, cases, seeds, out, jobs, columns, quiet } => {
            let args =
                braid_cli::compare::Args { target, vary, cases, seeds, out, jobs, columns, quiet };
            match braid_cli::compare::run(&args) {
                Ok(o) => {
                    print!("{}", o.table);
                    println!(
                        "{} runs ({} run now, {} reused: complete with the same resolved scenario); runs.csv, compare.csv, figures and index.html in {}",
                        o.ran + o.reused,
                        o.ran,
                        o.reused,
                        o.out.display()
                    );
                    if !o.removed.is_empty() {
                        println!(
                            "removed {} run folder(s) not in this comparison: {}",
                            o.removed.len(),
                            o.removed.join(", ")
                        );
                    }
                    for (n, e) in &o.failed {
                        eprintln!("error: run `{n}`: {e}");
                    }
                    for e in &o.figure_errors {
                        eprintln!("error: {e}");
                    }
                    if o.failed.is_empty() && o.figure_errors.is_empty() {
                        ExitCode::SUCCESS
                    } else {
                        ExitCode::from(1)
                    }
                }
                Err((code, e)) => {
                    eprintln!("error: {e}");
                    ExitCode::from(code)
                }
            }
        }
        Cmd::Sweep { plan, out, jobs, quiet } => cmd_sweep(&plan, out, jobs, quiet),
        Cmd::Repro { id, list, out, quick, jobs, plans, quiet, sets } => {
            cmd_repro(id, list, out, quick, jobs, plans, quiet, sets)
        }
        Cmd::Evaluate { paper, from, alt, quick, plans } => {
            cmd_evaluate(&paper, &from, &alt, quick, plans)
        }
        Cmd::Plot { run_dir } => match plot::plot_run_dir(&run_dir) {
            Ok(files) if files.is_empty() => fail(&format!(
                "{}: no time series (*.csv with a time_ns column) or flows.csv to draw",
                run_dir.display()
            )),
            Ok(files) => {
                for f in
                    files.iter().filter(|f| f.extension().is_some_and(|x| x == "png" || x == "svg"))
                {
                    println!("{}", f.display());
                }
                ExitCode::SUCCESS
            }
            Err(e) => fail(&e),
        },
        Cmd::Report { dir } => match report::write_report(&dir) {
            Ok(p) => {
                println!("{}", p.display());
                ExitCode::SUCCESS
            }
            Err(e) => fail(&e),
        },
        Cmd::Links { scenario: path, sets } => {
            match scenario::load_topology(&path, &sets) {
                Ok((sc, faults_error)) => {
                    if let Some(e) = faults_error {
                        eprintln!("note: the links without the scenario's [[faults]], which do not load: {e}");
                    }
                    println!("link,a,a_name,b,b_name,rate_bps,delay_ns");
                    for (i, l) in sc.topology.links.iter().enumerate() {
                        let na = &sc.topology.nodes[l.a.idx()];
                        let nb = &sc.topology.nodes[l.b.idx()];
                        println!(
                            "{i},{},{},{},{},{},{}",
                            l.a.idx(),
                            na.name,
                            l.b.idx(),
                            nb.name,
                            l.rate.bps(),
                            l.delay.ns_f64()
                        );
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&e),
            }
        }
        Cmd::Bench { only, scale, child, sets } => match child {
            Some(name) => bench::run_child(&name, &sets),
            None => bench::run_all(only.as_deref(), scale, &sets),
        },
        Cmd::Send(a) => ExitCode::from(udp::send_main(&a)),
        Cmd::Recv(a) => ExitCode::from(udp::recv_main(&a)),
        Cmd::Emulate(a) => ExitCode::from(udp::emulate_main(&a)),
    }
}

/// The default output folder of a verb: `out/<verb>/<file name without extension>` (`braid repro`
/// uses `out/repro/<ID>` and `out/repro/<ID>-quick`, `braid compare` `out/compare/<name>`).
fn default_out(verb: &str, file: &std::path::Path) -> PathBuf {
    let stem =
        file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| verb.into());
    PathBuf::from("out").join(verb).join(stem)
}

fn cmd_sweep(
    plan_path: &std::path::Path,
    out: Option<PathBuf>,
    jobs: Option<usize>,
    quiet: bool,
) -> ExitCode {
    let plan = match sweep::Plan::load(plan_path) {
        Ok(p) => p,
        Err(e) => return fail(&e),
    };
    // A plan in a sweep's own folder (the plan.toml `braid compare` and `braid sweep` write
    // there) resumes in that folder.
    let own = plan_path
        .parent()
        .filter(|d| d.join("runs").is_dir() || d.join("runs.csv").is_file())
        .map(std::path::Path::to_path_buf);
    let out = out.or(own).unwrap_or_else(|| default_out("sweep", plan_path));
    let figures = match sweep::Plan::figures(plan_path) {
        Ok(f) => f,
        Err(e) => return fail(&e),
    };
    let runs = plan.expand();
    let scenarios = match sweep::load_all(&runs) {
        Ok(s) => s,
        Err(e) => return fail(&format!("{}: {e}", plan_path.display())),
    };
    match sweep::execute(
        &plan,
        &runs,
        scenarios,
        &sweep::Options { out: out.clone(), jobs, progress: !quiet },
    ) {
        Ok(r) => {
            println!(
                "{}: {} runs ({} run now, {} reused: complete with the same resolved scenario), {} failed; results in {}",
                plan_path.display(),
                runs.len(),
                r.ran,
                r.skipped,
                r.failed.len(),
                out.join("runs.csv").display()
            );
            if !r.removed.is_empty() {
                println!(
                    "removed {} run folder(s) not in this plan: {}",
                    r.removed.len(),
                    r.removed.join(", ")
                );
            }
            for (n, e) in &r.failed {
                eprintln!("error: run `{n}`: {e}");
            }
            let mut fig_failed = false;
            for f in sweep::draw_figures(&out, &figures) {
                match f {
                    Ok(p) => println!("{}", p.display()),
                    Err(e) => {
                        fig_failed = true;
                        eprintln!("error: {e}");
                    }
                }
            }
            if !figures.is_empty() {
                if let Err(e) = report::write_report(&out) {
                    eprintln!("error: {e}");
                }
            }
            if r.failed.is_empty() && !fig_failed {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

/// `braid evaluate PAPER`: the table on stdout, each problem (a plan not run, a folder run with
/// other settings) on stderr; exit 1 when there is a problem, so that a table with holes is never
/// taken for a whole one.
fn cmd_evaluate(
    paper: &str,
    from: &std::path::Path,
    alts: &[PathBuf],
    quick: bool,
    plans: Option<PathBuf>,
) -> ExitCode {
    let dir = repro::plans_dir(plans.as_deref());
    let all = match evaluate::plans_of(&dir, paper) {
        Ok(p) => p,
        Err(e) => return fail(&e),
    };
    for a in std::iter::once(&from.to_path_buf()).chain(alts) {
        if !a.is_dir() {
            return fail(&format!(
                "`{}` is not a folder (it should hold the plans' output folders, `<ID>/`)",
                a.display()
            ));
        }
    }
    let t = evaluate::table(&all, from, alts, quick);
    print!("{}", t.text);
    for p in &t.problems {
        eprintln!("warning: {p}");
    }
    if t.problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

#[allow(clippy::too_many_arguments)]
fn cmd_repro(
    id: Option<String>,
    list: bool,
    out: Option<PathBuf>,
    quick: bool,
    jobs: Option<usize>,
    plans: Option<PathBuf>,
    quiet: bool,
    sets: Vec<String>,
) -> ExitCode {
    let dir = repro::plans_dir(plans.as_deref());
    if list || id.is_none() {
        let all = match repro::list(&dir) {
            Ok(a) => a,
            Err(e) => return fail(&e),
        };
        let mut bad = false;
        let w = all
            .iter()
            .filter_map(|p| p.as_ref().ok())
            .map(|p| p.id.chars().count())
            .max()
            .unwrap_or(14);
        for p in all {
            match p {
                Ok(p) => {
                    // Ready only when every run of the full plan and of its quick version validates.
                    let quick_plan = p.quick_plan();
                    let st = match &quick_plan {
                        Ok(q) => match (repro::status(&p.plan), repro::status(q)) {
                            (repro::Status::Ready, repro::Status::Ready) => {
                                format!(
                                    "ready: {} runs, quick {}",
                                    p.plan.expand().len(),
                                    q.expand().len()
                                )
                            }
                            (repro::Status::Ready, s) => format!("quick version {}", s.text()),
                            (s, _) => s.text(),
                        },
                        Err(e) => format!("invalid [quick]: {e}"),
                    };
                    println!("{:<w$} [{st}] {} — {}", p.id, p.paper, p.title);
                    println!("{:<w$} claim: {}", "", p.claim);
                    println!("{:<w$} network profile: {}", "", repro::profiles(&p.plan).join(", "));
                }
                Err(e) => {
                    bad = true;
                    eprintln!("error: {e}");
                }
            }
        }
        if id.is_none() && !list {
            eprintln!("(give a figure id to run one: braid repro rondo-fig10 --out DIR)");
        }
        return if bad { ExitCode::from(2) } else { ExitCode::SUCCESS };
    }
    let id = id.expect("checked");
    let path = dir.join(format!("{id}.toml"));
    if !path.is_file() {
        return fail(&format!(
            "no repro plan `{id}` (looked for {}; `braid repro --list` shows them all)",
            path.display()
        ));
    }
    let rp = match repro::ReproPlan::load(&path) {
        Ok(p) => p,
        Err(e) => return fail(&e),
    };
    let out = out.unwrap_or_else(|| {
        PathBuf::from("out/repro").join(if quick { format!("{id}-quick") } else { id.clone() })
    });
    match repro::run(&rp, &repro::Options { out: out.clone(), quick, jobs, progress: !quiet, sets })
    {
        Ok(o) => {
            for (name, cap) in &o.captions {
                println!("fig-{name}:");
                for l in cap {
                    println!("  {l}");
                }
            }
            for (n, e) in &o.sweep.failed {
                eprintln!("error: run `{n}`: {e}");
            }
            for n in &o.skipped_figures {
                println!(
                    "fig-{n}: not drawn in the quick version (it runs none of this figure's cases)"
                );
            }
            for (n, e) in &o.figure_errors {
                eprintln!("error: figure `{n}`: {e}");
            }
            println!(
                "{id}: {} runs ({} reused: complete with the same resolved scenario); figures and index.html in {}",
                o.sweep.ran + o.sweep.skipped,
                o.sweep.skipped,
                out.display()
            );
            if !o.sweep.removed.is_empty() {
                println!(
                    "removed {} run folder(s) not in this plan: {}",
                    o.sweep.removed.len(),
                    o.sweep.removed.join(", ")
                );
            }
            if o.sweep.failed.is_empty() && o.figure_errors.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err((code, e)) => {
            eprintln!("error: {e}");
            ExitCode::from(code)
        }
    }
}

fn fail(msg: &str) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(2)
}
