//! The `braid` command end to end: bad input, outputs owned by a run, compare / sweep / repro / evaluate, reports, captures, the golden outputs, the tutorial, real packets.
//!
//! One test binary (so that `cargo test` links the stack once per group, not once per file);
//! each module is one subject, run alone with `cargo test -p braid-cli --test cli MODULE::`.

#[path = "../scratch/mod.rs"]
mod scratch;

mod bad_input;
mod compare;
mod defaults_matrix;
mod golden;
mod kind_switch;
mod nothing_silent;
mod pcap_tshark;
mod report_chromium;
mod repro_quick;
mod scenario_fuzz;
mod sweep_resume;
mod tutorial;
mod udp;
mod watchdog;
