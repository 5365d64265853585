//! `braid`: run, validate and benchmark Braid scenarios.
//!
//! Bad input ends with a message naming the problem and exit code 2; nothing that looks like a
//! complete run (`summary.json`) is left behind.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use braid_cli::{bench, run, scenario};

#[derive(Parser)]
#[command(name = "braid", version, about = "Braid: a deterministic packet-level simulator for multipath datacenter networking")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a scenario and write summary.json, flows.csv and any time series into --out.
    Run {
        /// The scenario file (TOML).
        scenario: PathBuf,
        /// Output folder.
        #[arg(long, default_value = "out")]
        out: PathBuf,
        /// Override the scenario's seed.
        #[arg(long)]
        seed: Option<u64>,
        /// Override any field: `--set table.field=value` (repeatable).
        #[arg(long = "set", value_name = "TABLE.FIELD=VALUE")]
        sets: Vec<String>,
        /// No progress bar and no summary on the terminal.
        #[arg(long)]
        quiet: bool,
    },
    /// Check a scenario file without running it.
    Validate {
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
        /// Run one scenario in this process (used internally to measure peak memory per scenario).
        #[arg(long, hide = true)]
        child: Option<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Run { scenario: path, out, seed, sets, quiet } => {
            let sc = match scenario::load(&path, &sets, seed) {
                Ok(s) => s,
                Err(e) => return fail(&e),
            };
            // A stale summary from an earlier run must not pass for this one.
            let _ = std::fs::remove_file(out.join("summary.json"));
            let r = match run::run(&sc, !quiet) {
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
            ExitCode::SUCCESS
        }
        Cmd::Validate { scenario: path, sets } => match scenario::load(&path, &sets, None) {
            Ok(sc) => match braid_cli::build::build(&sc) {
                Ok((sim, _)) => {
                    println!(
                        "{}: ok ({} hosts, {} links, {} flows)",
                        path.display(),
                        sim.n_hosts(),
                        sc.topology.links.len(),
                        sim.flows.len()
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&format!("{}: {e}", path.display())),
            },
            Err(e) => fail(&e),
        },
        Cmd::Bench { only, child } => match child {
            Some(name) => bench::run_child(&name),
            None => bench::run_all(only.as_deref()),
        },
    }
}

fn fail(msg: &str) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(2)
}
