//! Explicit flow lists from files, so users can replay their own traces.
//!
//! Three formats are read (host indices are 0-based, in the topology's host order):
//!
//! **Braid CSV** (`format = "braid"`). `#` starts a comment. The first other line is a header naming
//! the columns, in any order: `src,dst,size,start` are required; `tag` (alias `job`), `deps` and `id`
//! are optional. Unknown columns are errors.
//! - `size`: plain bytes (`65536`) or with a unit (`64KB`, `1.5MiB`);
//! - `start`: plain nanoseconds, fractions allowed (`1500`, `2.5`) or with a unit (`10us`, `2ms`) —
//!   absolute for a flow without `deps`, an offset after its dependencies otherwise;
//! - `tag`: an integer job id for JCT grouping (empty or `-`: no job); distinct values become jobs
//!   named `job <value>`, numbered in increasing value order;
//! - `deps`: flows that must complete first, separated by `;` or spaces — row numbers (0-based,
//!   counting data rows only) or, when an `id` column exists, ids;
//! - `conn`: rows with the same value are messages on one persistent connection (they must share
//!   `src`, `dst` and `group`; empty or `-`: a connection of its own). A file with this column
//!   keeps its mapping unless the scenario sets `workload.connections`;
//! - `group`: the flow group (empty: `main`), to give some flows a transport of their own
//!   (`[groups.<name>.transport]`).
//!
//! ```text
//! # my trace
//! src,dst,size,start,tag,deps
//! 0,5,1MB,0,0,
//! 1,5,1000000,10us,0,
//! 5,2,64KB,0,1,0;1
//! ```
//!
//! **HPCC** (`format = "hpcc"`, the ns-3 HPCC/LCMP flow file, `docs/lcmp.md`, traffic generator):
//! optional `#` comment lines, then the flow count, then one line per flow `src dst pg dport size
//! start_s` (start in seconds, absolute). `pg` and `dport` are ignored. Node ids are taken as host
//! indices, which holds for the HPCC/LCMP topology files (hosts are numbered first). The count must
//! match.
//!
//! **htsim connection matrix** (`format = "htsim"`, `sim/datacenter/connection_matrix.cpp`):
//! header lines `Nodes N`, `Connections C`, optional `Triggers T`/`Failures F`, then lines
//! `src->dst id I start T_us size BYTES` with fields in any order; `start` is in microseconds.
//! Triggers map onto dependencies: a flow with `trigger X` depends on the flows that signal `X`
//! (`send_done_trigger X` or `recv_done_trigger X`; both mean "completed" here); a `oneshot` or
//! `multishot` trigger must have exactly one signalling flow, a `barrier` all of its `count`.
//! Lenient: unknown tokens on a connection line are skipped (with a numeric value after them),
//! unknown header lines and `failure` lines are ignored (failures belong to the scenario).
//!
//! Bounds (all three formats): at most [`MAX_FLOWS`](crate::MAX_FLOWS) flows, declared or listed
//! (a header count above it is an error before any flow is read); sizes at most
//! [`MAX_FLOW_BYTES`]; starts at most [`MAX_START`].
//! Host indices are not bounded here: [`Workload::validate`] checks them against the topology.
//!
//! Writers for the Braid CSV and the HPCC format are provided ([`write_braid_csv`], [`write_hpcc`]).

use crate::workload::{check_flow_count, DepRange, Workload, MAX_FLOW_BYTES, MAX_START, NO_JOB};
use braid_core::units::{parse_duration, parse_size};
use braid_core::Time;
use std::collections::{BTreeSet, HashMap};
use std::path::Path;

/// The format of a flow file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowFileFormat {
    /// Braid's CSV.
    Braid,
    /// The ns-3 HPCC flow file.
    Hpcc,
    /// htsim's connection matrix.
    Htsim,
}

impl FlowFileFormat {
    /// Scenario names of the formats.
    pub const NAMES: &'static [&'static str] = &["braid", "hpcc", "htsim"];

    /// Parse a format name.
    pub fn parse(s: &str) -> Result<FlowFileFormat, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "braid" | "csv" => Ok(FlowFileFormat::Braid),
            "hpcc" | "ns3" | "ns-3" => Ok(FlowFileFormat::Hpcc),
            "htsim" => Ok(FlowFileFormat::Htsim),
            _ => Err(format!(
                "field `format`: unknown flow-file format `{s}` (valid: braid, hpcc, htsim)"
            )),
        }
    }

    /// The scenario name.
    pub fn name(self) -> &'static str {
        match self {
            FlowFileFormat::Braid => "braid",
            FlowFileFormat::Hpcc => "hpcc",
            FlowFileFormat::Htsim => "htsim",
        }
    }
}

/// Read and parse a flow file.
pub fn load_flow_file(path: &Path, format: FlowFileFormat) -> Result<Workload, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("field `file`: cannot read flow file `{}`: {e}", path.display()))?;
    parse_flow_file(&path.display().to_string(), &text, format)
}

/// Parse flow-file text; `name` appears in error messages.
pub fn parse_flow_file(name: &str, text: &str, format: FlowFileFormat) -> Result<Workload, String> {
    match format {
        FlowFileFormat::Braid => parse_braid_csv(name, text),
        FlowFileFormat::Hpcc => parse_hpcc(name, text),
        FlowFileFormat::Htsim => parse_htsim(name, text),
    }
}

fn parse_u32(name: &str, ln: usize, what: &str, s: &str) -> Result<u32, String> {
    s.trim().parse::<u32>().map_err(|_| {
        format!("{name} line {ln}: {what} `{s}` is not a host index (a non-negative integer)")
    })
}

fn parse_bytes(name: &str, ln: usize, s: &str) -> Result<u64, String> {
    let s = s.trim();
    let v = match s.parse::<u64>() {
        Ok(v) => v,
        Err(_) => parse_size(s).map_err(|e| format!("{name} line {ln}: size: {e}"))?,
    };
    check_size(name, ln, v)
}

/// `Err` unless `0 < bytes ≤` [`MAX_FLOW_BYTES`].
fn check_size(name: &str, ln: usize, bytes: u64) -> Result<u64, String> {
    if bytes == 0 {
        return Err(format!("{name} line {ln}: size must be > 0 bytes"));
    }
    if bytes > MAX_FLOW_BYTES {
        return Err(format!(
            "{name} line {ln}: size of {bytes} bytes is above the limit of {MAX_FLOW_BYTES}"
        ));
    }
    Ok(bytes)
}

/// `Err` unless `t ≤` [`MAX_START`].
fn check_start(name: &str, ln: usize, t: Time) -> Result<Time, String> {
    if t > MAX_START {
        return Err(format!(
            "{name} line {ln}: start {} s is after the limit of {} s",
            t.secs_f64(),
            MAX_START.secs_f64()
        ));
    }
    Ok(t)
}

/// `Err` naming `what` unless `n` (a count a header declares, or the rows read so far) is at
/// most [`MAX_FLOWS`](crate::MAX_FLOWS).
fn check_count(name: &str, ln: usize, what: &str, n: u64) -> Result<(), String> {
    check_flow_count(n as u128, what).map_err(|e| format!("{name} line {ln}: {e}"))
}

/// A start time: plain number = nanoseconds (fractions allowed), or a duration with a unit.
fn parse_start_ns(name: &str, ln: usize, s: &str) -> Result<Time, String> {
    let s = s.trim();
    if s.is_empty() {
        return Ok(Time::ZERO);
    }
    let t = match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Time::from_secs_f64(v * 1e-9),
        Ok(_) => return Err(format!("{name} line {ln}: start `{s}` must be a non-negative time")),
        Err(_) => parse_duration(s).map_err(|e| format!("{name} line {ln}: start: {e}"))?,
    };
    check_start(name, ln, t)
}

/// Parse Braid's CSV flow list (see the module docs).
pub fn parse_braid_csv(name: &str, text: &str) -> Result<Workload, String> {
    let mut header: Option<CsvHeader> = None;
    let mut rows: Vec<CsvRow> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let ln = i + 1;
        let line = match raw.find('#') {
            Some(p) => &raw[..p],
            None => raw,
        };
        if line.trim().is_empty() {
            continue;
        }
        match &header {
            None => header = Some(CsvHeader::parse(name, ln, line)?),
            Some(h) => {
                let row = h.row(name, ln, line)?;
                check_count(name, ln, "the file", rows.len() as u64 + 1)?;
                rows.push(row);
            }
        }
    }
    let Some(h) = header else {
        return Err(format!("{name}: no header line (expected e.g. `src,dst,size,start`)"));
    };
    let mut wl = csv_flows(name, &rows, h.has(CSV_ID))?;
    if h.has(CSV_CONN) {
        wl.conn_of = csv_connections(&rows);
    }
    Ok(wl)
}

/// The columns of Braid's CSV flow format; the first four are required.
const CSV_COLS: &[&str] = &["src", "dst", "size", "start", "tag", "deps", "id", "conn", "group"];
/// The index of `id` in [`CSV_COLS`].
const CSV_ID: usize = 6;
/// The index of `conn` in [`CSV_COLS`].
const CSV_CONN: usize = 7;

/// A CSV flow file's header: where each column is, and the separator.
struct CsvHeader {
    /// `col[c]`: the field index of column `CSV_COLS[c]` (`usize::MAX`: absent).
    col: [usize; 9],
    /// Columns in the header.
    width: usize,
    /// Fields are separated by commas (else by whitespace).
    commas: bool,
}

/// One row of a CSV flow file, checked.
struct CsvRow {
    ln: usize,
    src: u32,
    dst: u32,
    size: u64,
    start: Time,
    tag: Option<u64>,
    deps: Vec<u64>,
    id: Option<u64>,
    conn: Option<u64>,
    group: String,
}

fn csv_split(line: &str, commas: bool) -> Vec<String> {
    if commas {
        line.split(',').map(|f| f.trim().to_string()).collect()
    } else {
        line.split_whitespace().map(str::to_string).collect()
    }
}

/// An optional non-negative integer (`""`, or `"-"` when `dash_ok`, is none).
fn csv_opt_u64(
    name: &str,
    ln: usize,
    what: &str,
    t: &str,
    dash_ok: bool,
) -> Result<Option<u64>, String> {
    match t {
        "" => Ok(None),
        "-" if dash_ok => Ok(None),
        t => t
            .parse::<u64>()
            .map(Some)
            .map_err(|_| format!("{name} line {ln}: {what} `{t}` is not a non-negative integer")),
    }
}

impl CsvHeader {
    /// Read the header line `ln`: known column names (`job` for `tag`), each once, the four
    /// required ones present.
    fn parse(name: &str, ln: usize, line: &str) -> Result<CsvHeader, String> {
        let commas = line.contains(',');
        let names: Vec<String> =
            csv_split(line, commas).into_iter().map(|s| s.to_ascii_lowercase()).collect();
        let mut col = [usize::MAX; 9];
        for (k, n) in names.iter().enumerate() {
            let n = if n == "job" { "tag" } else { n.as_str() };
            match CSV_COLS.iter().position(|c| *c == n) {
                Some(c) if col[c] == usize::MAX => col[c] = k,
                Some(_) => return Err(format!("{name} line {ln}: column `{n}` appears twice in the header")),
                None => return Err(format!("{name} line {ln}: unknown column `{n}` (valid: {}; required: src, dst, size, start)", CSV_COLS.join(", "))),
            }
        }
        for req in 0..4 {
            if col[req] == usize::MAX {
                return Err(format!("{name} line {ln}: the header lacks column `{}` (expected e.g. `src,dst,size,start`)", CSV_COLS[req]));
            }
        }
        Ok(CsvHeader { col, width: names.len(), commas })
    }

    /// Whether the header has column `c`.
    fn has(&self, c: usize) -> bool {
        self.col[c] != usize::MAX
    }

    /// Read data line `ln`.
    fn row(&self, name: &str, ln: usize, line: &str) -> Result<CsvRow, String> {
        let fields = csv_split(line, self.commas);
        if fields.len() > self.width {
            return Err(format!(
                "{name} line {ln}: {} fields but the header has {} columns",
                fields.len(),
                self.width
            ));
        }
        let get = |c: usize| -> &str {
            if self.col[c] == usize::MAX {
                ""
            } else {
                fields.get(self.col[c]).map(|s| s.as_str()).unwrap_or("")
            }
        };
        for (req, col_name) in CSV_COLS.iter().enumerate().take(4) {
            if get(req).is_empty() {
                return Err(format!("{name} line {ln}: missing `{col_name}`"));
            }
        }
        let src = parse_u32(name, ln, "src", get(0))?;
        let dst = parse_u32(name, ln, "dst", get(1))?;
        let size = parse_bytes(name, ln, get(2))?;
        let start = parse_start_ns(name, ln, get(3))?;
        let tag = csv_opt_u64(name, ln, "tag", get(4), true)?;
        let deps = get(5)
            .split(|c: char| c == ';' || c.is_whitespace())
            .filter(|s| !s.is_empty())
            .map(|s| {
                s.parse::<u64>()
                    .map_err(|_| format!("{name} line {ln}: dependency `{s}` is not a flow number"))
            })
            .collect::<Result<Vec<u64>, String>>()?;
        let id = csv_opt_u64(name, ln, "id", get(CSV_ID), false)?;
        let conn = csv_opt_u64(name, ln, "conn", get(CSV_CONN), true)?;
        let group = match get(8) {
            "" | "-" => crate::workload::MAIN_GROUP.to_string(),
            g if g.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') => {
                g.to_string()
            }
            g => {
                return Err(format!(
                    "{name} line {ln}: group `{g}` must be a name of letters, digits, `-` and `_`"
                ))
            }
        };
        Ok(CsvRow { ln, src, dst, size, start, tag, deps, id, conn, group })
    }
}

/// The flows of `rows`, with their jobs (one per distinct tag, in tag order), dependencies (by
/// `id` when the file has an id column, else by row number) and groups.
fn csv_flows(name: &str, rows: &[CsvRow], has_id: bool) -> Result<Workload, String> {
    let mut by_id: HashMap<u64, u32> = HashMap::new();
    if has_id {
        for (k, r) in rows.iter().enumerate() {
            let Some(id) = r.id else {
                return Err(format!(
                    "{name} line {}: missing `id` (the header has an id column)",
                    r.ln
                ));
            };
            if by_id.insert(id, k as u32).is_some() {
                return Err(format!("{name} line {}: id {id} is used twice", r.ln));
            }
        }
    }
    let tags: BTreeSet<u64> = rows.iter().filter_map(|r| r.tag).collect();
    let mut wl = Workload::new();
    let mut tag_index: HashMap<u64, u32> = HashMap::new();
    for t in tags {
        tag_index.insert(t, wl.add_job(format!("job {t}"), NO_JOB));
    }
    let mut deps: Vec<u32> = Vec::new();
    for r in rows {
        deps.clear();
        for &d in &r.deps {
            let idx = if has_id {
                *by_id.get(&d).ok_or_else(|| {
                    format!("{name} line {}: depends on id {d}, which no row has", r.ln)
                })?
            } else {
                if d >= rows.len() as u64 {
                    return Err(format!("{name} line {}: depends on flow {d}, but the file has {} flows (rows are numbered from 0)", r.ln, rows.len()));
                }
                d as u32
            };
            deps.push(idx);
        }
        let tag = r.tag.map(|t| tag_index[&t]).unwrap_or(NO_JOB);
        let f = wl.add_flow(r.src, r.dst, r.size, r.start, &deps, tag);
        if r.group != crate::workload::MAIN_GROUP {
            wl.set_group(f as usize, &r.group);
        }
    }
    Ok(wl)
}

/// `conn`: rows with the same value share one persistent connection (numbered in the order of
/// first appearance); a row without one is a connection of its own.
fn csv_connections(rows: &[CsvRow]) -> Vec<u32> {
    let mut ids: HashMap<u64, u32> = HashMap::new();
    let mut conn_of = Vec::with_capacity(rows.len());
    let mut next = 0u32;
    for r in rows {
        let c = match r.conn {
            Some(v) => *ids.entry(v).or_insert_with(|| {
                next += 1;
                next - 1
            }),
            None => {
                next += 1;
                next - 1
            }
        };
        conn_of.push(c);
    }
    conn_of
}

/// Parse an ns-3 HPCC flow file (see the module docs).
pub fn parse_hpcc(name: &str, text: &str) -> Result<Workload, String> {
    let mut count: Option<u64> = None;
    let mut wl = Workload::new();
    for (i, raw) in text.lines().enumerate() {
        let ln = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        if count.is_none() {
            if fields.len() != 1 {
                return Err(format!("{name} line {ln}: expected the flow count, got `{line}`"));
            }
            count = Some(fields[0].parse::<u64>().map_err(|_| {
                format!("{name} line {ln}: flow count `{}` is not a number", fields[0])
            })?);
            check_count(name, ln, "the declared flow count", count.unwrap_or(0))?;
            continue;
        }
        if fields.len() < 6 {
            return Err(format!(
                "{name} line {ln}: expected `src dst pg dport size start_s`, got `{line}`"
            ));
        }
        let src = parse_u32(name, ln, "src", fields[0])?;
        let dst = parse_u32(name, ln, "dst", fields[1])?;
        let size = match fields[4].parse::<u64>() {
            Ok(v) => v,
            Err(_) => match fields[4].parse::<f64>() {
                Ok(v) if v.is_finite() && v >= 0.0 && v.fract() == 0.0 => v as u64,
                _ => {
                    return Err(format!(
                        "{name} line {ln}: size `{}` is not a byte count",
                        fields[4]
                    ))
                }
            },
        };
        let size = check_size(name, ln, size)?;
        let secs: f64 = fields[5].parse().map_err(|_| {
            format!("{name} line {ln}: start time `{}` is not a number of seconds", fields[5])
        })?;
        if !(secs.is_finite() && secs >= 0.0) {
            return Err(format!(
                "{name} line {ln}: start time `{}` must be ≥ 0 seconds",
                fields[5]
            ));
        }
        let start = check_start(name, ln, Time::from_secs_f64(secs))?;
        wl.add_flow(src, dst, size, start, &[], NO_JOB);
    }
    let Some(count) = count else {
        return Err(format!("{name}: empty flow file (expected a flow count line)"));
    };
    if count != wl.flows.len() as u64 {
        return Err(format!(
            "{name}: the header declares {count} flows but the file lists {}",
            wl.flows.len()
        ));
    }
    Ok(wl)
}

/// Parse an htsim connection matrix (see the module docs).
pub fn parse_htsim(name: &str, text: &str) -> Result<Workload, String> {
    let mut file = HtsimFile { name, ..HtsimFile::default() };
    for (i, raw) in text.lines().enumerate() {
        let ln = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some((l, r)) = line.split_once("->") {
            file.connection(ln, l, r)?;
            continue;
        }
        let toks: Vec<&str> = line.split_whitespace().collect();
        match toks[0] {
            "Nodes" => file.nodes = Some(file.num(ln, "Nodes", toks.get(1))?),
            "Connections" => {
                let n = file.num(ln, "Connections", toks.get(1))?;
                check_count(name, ln, "`Connections`", n)?;
                file.declared = Some(n);
            }
            "trigger" => file.trigger(ln, &toks)?,
            // Triggers/Failures counts, failure lines and unknown headers: ignored (lenient).
            _ => {}
        }
    }
    file.check_counts()?;
    file.into_workload()
}

/// One connection line of an htsim connection matrix.
#[derive(Default)]
struct HtsimConn {
    ln: usize,
    src: u32,
    dst: u32,
    size: Option<u64>,
    start: Option<Time>,
    trigger: Option<u64>,
}

/// How an htsim trigger fires.
#[derive(Clone, Copy, PartialEq)]
enum HtsimTrigger {
    OneShot,
    MultiShot,
    Barrier,
}

/// An htsim connection matrix as read so far.
#[derive(Default)]
struct HtsimFile<'a> {
    /// The file's name, for errors.
    name: &'a str,
    /// `Nodes N`.
    nodes: Option<u64>,
    /// `Connections N`.
    declared: Option<u64>,
    conns: Vec<HtsimConn>,
    /// Trigger id → the connections that signal it (send/recv done).
    signals: HashMap<u64, Vec<u32>>,
    /// Trigger id → (type, count, line).
    triggers: HashMap<u64, (HtsimTrigger, u64, usize)>,
}

impl HtsimFile<'_> {
    /// The non-negative integer after `key` on line `ln`.
    fn num(&self, ln: usize, key: &str, v: Option<&&str>) -> Result<u64, String> {
        let name = self.name;
        let v = v.ok_or_else(|| format!("{name} line {ln}: `{key}` needs a value"))?;
        v.parse::<u64>().map_err(|_| {
            format!("{name} line {ln}: `{key}` value `{v}` is not a non-negative integer")
        })
    }

    /// `SRC->DST key value …`: a connection with a size and either a start or a trigger.
    fn connection(&mut self, ln: usize, l: &str, r: &str) -> Result<(), String> {
        let name = self.name;
        let mut toks = r.split_whitespace();
        let src = parse_u32(name, ln, "source", l.trim())?;
        let dst = parse_u32(name, ln, "destination", toks.next().unwrap_or(""))?;
        let toks: Vec<&str> = toks.collect();
        let mut c = HtsimConn { ln, src, dst, ..HtsimConn::default() };
        let mut k = 0;
        while k < toks.len() {
            let key = toks[k];
            match key {
                "start" => {
                    let v = toks
                        .get(k + 1)
                        .ok_or_else(|| format!("{name} line {ln}: `start` needs a value"))?;
                    let us: f64 = v.parse().map_err(|_| {
                        format!("{name} line {ln}: start `{v}` is not a number of microseconds")
                    })?;
                    if !(us.is_finite() && us >= 0.0) {
                        return Err(format!("{name} line {ln}: start `{v}` must be ≥ 0"));
                    }
                    c.start = Some(check_start(name, ln, Time::from_secs_f64(us * 1e-6))?);
                    k += 2;
                }
                "size" => {
                    let v = self.num(ln, key, toks.get(k + 1))?;
                    c.size = Some(check_size(name, ln, v)?);
                    k += 2;
                }
                "trigger" => {
                    c.trigger = Some(self.num(ln, key, toks.get(k + 1))?);
                    k += 2;
                }
                "send_done_trigger" | "recv_done_trigger" => {
                    let t = self.num(ln, key, toks.get(k + 1))?;
                    self.signals.entry(t).or_default().push(self.conns.len() as u32);
                    k += 2;
                }
                "id" | "prio" => {
                    self.num(ln, key, toks.get(k + 1))?;
                    k += 2;
                }
                _ => {
                    // Lenient: skip an unknown token and a numeric value after it.
                    k += 1;
                    if toks.get(k).is_some_and(|v| v.parse::<f64>().is_ok()) {
                        k += 1;
                    }
                }
            }
        }
        if c.size.is_none() {
            return Err(format!("{name} line {ln}: connection has no `size`"));
        }
        match (c.start, c.trigger) {
            (None, None) => {
                return Err(format!(
                    "{name} line {ln}: connection has neither `start` nor `trigger`"
                ))
            }
            (Some(_), Some(_)) => {
                return Err(format!("{name} line {ln}: connection has both `start` and `trigger`"))
            }
            _ => {}
        }
        check_count(name, ln, "the file", self.conns.len() as u64 + 1)?;
        self.conns.push(c);
        Ok(())
    }

    /// `trigger id N (oneshot|multishot|barrier) [count M]`.
    fn trigger(&mut self, ln: usize, toks: &[&str]) -> Result<(), String> {
        let name = self.name;
        let mut id = None;
        let mut kind = None;
        let mut count = 0u64;
        let mut k = 1;
        while k < toks.len() {
            match toks[k] {
                "id" => {
                    id = Some(self.num(ln, "id", toks.get(k + 1))?);
                    k += 2;
                }
                "count" => {
                    count = self.num(ln, "count", toks.get(k + 1))?;
                    k += 2;
                }
                "oneshot" => {
                    kind = Some(HtsimTrigger::OneShot);
                    k += 1;
                }
                "multishot" => {
                    kind = Some(HtsimTrigger::MultiShot);
                    k += 1;
                }
                "barrier" => {
                    kind = Some(HtsimTrigger::Barrier);
                    k += 1;
                }
                _ => k += 1,
            }
        }
        let id = id.ok_or_else(|| format!("{name} line {ln}: trigger without `id`"))?;
        let kind = kind.ok_or_else(|| {
            format!("{name} line {ln}: trigger {id} has no type (oneshot, multishot or barrier)")
        })?;
        self.triggers.insert(id, (kind, count, ln));
        Ok(())
    }

    /// The declared `Connections` and `Nodes` agree with the connections listed.
    fn check_counts(&self) -> Result<(), String> {
        let name = self.name;
        if let Some(d) = self.declared {
            if d != self.conns.len() as u64 {
                return Err(format!(
                    "{name}: `Connections {d}` but the file lists {} connections",
                    self.conns.len()
                ));
            }
        }
        if let Some(n) = self.nodes {
            if let Some(c) = self.conns.iter().find(|c| c.src as u64 >= n || c.dst as u64 >= n) {
                return Err(format!(
                    "{name} line {}: host {} is outside `Nodes {n}`",
                    c.ln,
                    c.src.max(c.dst)
                ));
            }
        }
        Ok(())
    }

    /// The flows: a started connection at its start, a triggered one after every connection that
    /// signals its trigger (a barrier; a one-shot trigger with one signaller is the same).
    fn into_workload(self) -> Result<Workload, String> {
        let name = self.name;
        let mut wl = Workload::new();
        let job = wl.add_job(format!("htsim {name}"), NO_JOB);
        // One stored dependency list per trigger, shared by every flow it starts: n flows waiting
        // on a barrier of m flows cost n + m entries, not n × m.
        let mut shared_deps: HashMap<u64, DepRange> = HashMap::new();
        for c in &self.conns {
            let size = c.size.unwrap_or(1);
            let Some(t) = c.trigger else {
                wl.add_flow(c.src, c.dst, size, c.start.unwrap_or(Time::ZERO), &[], job);
                continue;
            };
            let Some(&(kind, count, tln)) = self.triggers.get(&t) else {
                return Err(format!("{name} line {}: trigger {t} is used but never defined", c.ln));
            };
            let sig = self.signals.get(&t).map(|v| v.as_slice()).unwrap_or(&[]);
            if sig.is_empty() {
                return Err(format!(
                    "{name} line {}: trigger {t} is never signalled (no send_done_trigger/recv_done_trigger {t}), so the flow could never start",
                    c.ln
                ));
            }
            match kind {
                HtsimTrigger::OneShot | HtsimTrigger::MultiShot if sig.len() > 1 => {
                    return Err(format!(
                        "{name} line {tln}: trigger {t} fires on the first of {} signalling flows; Braid's dependencies mean \"after all of\" — use a barrier with count {}",
                        sig.len(),
                        sig.len()
                    ))
                }
                HtsimTrigger::Barrier if count != 0 && count != sig.len() as u64 => {
                    return Err(format!("{name} line {tln}: barrier trigger {t} has count {count} but {} signalling flows", sig.len()))
                }
                _ => {}
            }
            let deps = *shared_deps.entry(t).or_insert_with(|| wl.push_deps(sig));
            wl.add_flow_with(c.src, c.dst, size, Time::ZERO, deps, job);
        }
        Ok(wl)
    }
}

fn fmt_time_ns(t: Time) -> String {
    if t.ps() % 1000 == 0 {
        format!("{}", t.ns())
    } else {
        format!("{}ps", t.ps())
    }
}

/// Write a workload as Braid CSV (`src,dst,size,start,tag,deps`; sizes in bytes, start in ns, or
/// `…ps` when not a whole number of nanoseconds). Job names are not kept, only their indices.
pub fn write_braid_csv(wl: &Workload) -> String {
    let mut s = String::with_capacity(32 * wl.flows.len() + 128);
    s.push_str("# Braid flow list: size in bytes; start in ns (absolute, or an offset after deps complete)\n");
    s.push_str("# deps: 0-based row numbers separated by ';'; tag: job index (empty: none)\n");
    s.push_str("src,dst,size,start,tag,deps\n");
    for (i, f) in wl.flows.iter().enumerate() {
        let tag = if f.tag == NO_JOB { String::new() } else { f.tag.to_string() };
        let deps: Vec<String> = wl.deps(i).iter().map(|d| d.to_string()).collect();
        s.push_str(&format!(
            "{},{},{},{},{},{}\n",
            f.src,
            f.dst,
            f.size_bytes,
            fmt_time_ns(f.start),
            tag,
            deps.join(";")
        ));
    }
    s
}

/// Write a workload in the ns-3 HPCC flow-file format (`pg` 3, `dport` 100, start in seconds with
/// nanosecond precision). Workloads with dependencies cannot be expressed and are an error.
pub fn write_hpcc(wl: &Workload) -> Result<String, String> {
    if wl.has_deps() {
        return Err("the HPCC flow-file format cannot express flow dependencies".into());
    }
    let mut s = format!("{}\n", wl.flows.len());
    for f in &wl.flows {
        let ns = (f.start.ps() + 500) / 1000;
        s.push_str(&format!(
            "{} {} 3 100 {} {}.{:09}\n",
            f.src,
            f.dst,
            f.size_bytes,
            ns / 1_000_000_000,
            ns % 1_000_000_000
        ));
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn braid_csv_inline() {
        let text = "# my trace\nsrc,dst,size,start,tag,deps\n0,5,1MB,0,0,\n1,5,1000000,10us,0,\n5,2,64KB,2.5,1,0;1\n";
        let wl = parse_braid_csv("t.csv", text).unwrap();
        assert_eq!(wl.flows.len(), 3);
        assert_eq!(wl.flows[0].size_bytes, 1_000_000);
        assert_eq!(wl.flows[1].start, Time::from_us(10));
        assert_eq!(wl.flows[2].start, Time::from_ps(2500));
        assert_eq!(wl.flows[2].size_bytes, 64_000);
        assert_eq!(wl.deps(2), &[0, 1]);
        assert_eq!(wl.jobs.len(), 2);
        assert_eq!(wl.flows[2].tag, 1);
        wl.validate(6).unwrap();
        assert!(wl.validate(5).unwrap_err().contains("host 5 does not exist"));

        // ids, columns in another order, whitespace separated, forward references
        let text = "id start size src dst deps\n10 0 100 0 1 20\n20 1us 200 1 0\n";
        let wl = parse_braid_csv("w", text).unwrap();
        assert_eq!(wl.deps(0), &[1]);
        assert_eq!(wl.flows[0].tag, NO_JOB);
        wl.validate(2).unwrap();
    }

    #[test]
    fn braid_csv_errors() {
        let e = parse_braid_csv("f", "src,dst,size\n0,1,5\n").unwrap_err();
        assert!(e.contains("lacks column `start`"), "{e}");
        let e = parse_braid_csv("f", "src,dst,size,start,prio\n").unwrap_err();
        assert!(e.contains("unknown column `prio`"), "{e}");
        let e = parse_braid_csv("f", "src,dst,size,start\n0,1,0,0\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("size"), "{e}");
        let e = parse_braid_csv("f", "src,dst,size,start\n0,x,1,0\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("dst"), "{e}");
        let e = parse_braid_csv("f", "src,dst,size,start,deps\n0,1,1,0,5\n").unwrap_err();
        assert!(e.contains("depends on flow 5"), "{e}");
        let e = parse_braid_csv("f", "src,dst,size,start\n0,1,1,0,9\n").unwrap_err();
        assert!(e.contains("fields"), "{e}");
        let e = parse_braid_csv("f", "src,dst,size,start\n0,1,1,-3\n").unwrap_err();
        assert!(e.contains("start"), "{e}");
        assert!(parse_braid_csv("f", "# nothing\n").unwrap_err().contains("header"));
    }

    #[test]
    fn braid_csv_roundtrip() {
        let mut wl = Workload::new();
        let j = wl.add_job("x", NO_JOB);
        let a = wl.add_flow(0, 1, 123, Time::from_ps(1_500), &[], j);
        let b = wl.add_flow(1, 2, 456, Time::from_us(3), &[], NO_JOB);
        wl.add_flow(2, 0, 789, Time::from_ns(7), &[a, b], j);
        let text = write_braid_csv(&wl);
        let back = parse_braid_csv("rt", &text).unwrap();
        assert_eq!(back.flows, wl.flows);
        assert_eq!(back.dep_list, wl.dep_list);
    }

    #[test]
    fn hpcc_inline_and_roundtrip() {
        let text = "# src dst pg dport size start\n2\n25 123 3 100 66130 2.000001009\n106 60 3 100 44195 2.000003456\n";
        let wl = parse_hpcc("h", text).unwrap();
        assert_eq!(wl.flows.len(), 2);
        assert_eq!(wl.flows[0].src, 25);
        assert_eq!(wl.flows[0].size_bytes, 66130);
        assert_eq!(wl.flows[0].start.ns(), 2_000_001_009);
        let out = write_hpcc(&wl).unwrap();
        assert_eq!(out, "2\n25 123 3 100 66130 2.000001009\n106 60 3 100 44195 2.000003456\n");
        assert_eq!(parse_hpcc("h2", &out).unwrap(), wl);

        let e = parse_hpcc("h", "3\n0 1 3 100 10 0.1\n").unwrap_err();
        assert!(e.contains("declares 3 flows but the file lists 1"), "{e}");
        let e = parse_hpcc("h", "1\n0 1 3 100 10\n").unwrap_err();
        assert!(e.contains("line 2"), "{e}");
        let e = parse_hpcc("h", "x\n").unwrap_err();
        assert!(e.contains("count"), "{e}");
        assert!(parse_hpcc("h", "").unwrap_err().contains("empty"));
        let mut d = Workload::new();
        d.add_flow(0, 1, 1, Time::ZERO, &[], NO_JOB);
        d.add_flow(0, 1, 1, Time::ZERO, &[0], NO_JOB);
        assert!(write_hpcc(&d).is_err());
    }

    #[test]
    fn htsim_inline() {
        let text = "\
# ring step
Nodes 16
Connections 4
Triggers 2
0->1 id 1 start 0 size 4096 send_done_trigger 10
1->2 id 2 start 2.5 size 4096 prio 3 flowsize_hint 7 send_done_trigger 10
2->3 id 3 trigger 10 size 8192 recv_done_trigger 20
3 -> 4 id 4 size 100 trigger 20
trigger id 10 barrier count 2
trigger id 20 oneshot
failure switch_type TOR switch_id 0 link_id 1
";
        let wl = parse_htsim("cm", text).unwrap();
        assert_eq!(wl.flows.len(), 4);
        assert_eq!(wl.flows[1].start, Time::from_ns(2500));
        assert_eq!(wl.deps(2), &[0, 1]);
        assert_eq!(wl.deps(3), &[2]);
        assert_eq!(wl.flows[3].src, 3);
        assert_eq!(wl.flows[3].dst, 4);
        wl.validate(16).unwrap();

        let e = parse_htsim("cm", "Nodes 4\nConnections 2\n0->1 start 0 size 1\n").unwrap_err();
        assert!(e.contains("Connections 2"), "{e}");
        let e = parse_htsim("cm", "Nodes 4\n0->9 start 0 size 1\n").unwrap_err();
        assert!(e.contains("outside `Nodes 4`"), "{e}");
        let e = parse_htsim("cm", "0->1 start 0\n").unwrap_err();
        assert!(e.contains("no `size`"), "{e}");
        let e = parse_htsim("cm", "0->1 size 5\n").unwrap_err();
        assert!(e.contains("neither"), "{e}");
        let e = parse_htsim("cm", "0->1 size 5 trigger 3\n").unwrap_err();
        assert!(e.contains("never defined"), "{e}");
        let e = parse_htsim(
            "cm",
            "0->1 start 0 size 5 send_done_trigger 3\n1->2 start 0 size 5 send_done_trigger 3\n2->3 size 5 trigger 3\ntrigger id 3 oneshot\n",
        )
        .unwrap_err();
        assert!(e.contains("first of 2"), "{e}");
        let e = parse_htsim("cm", "x->1 start 0 size 5\n").unwrap_err();
        assert!(e.contains("line 1"), "{e}");
    }

    #[test]
    fn real_lcmp_flow_file() {
        let Some(file) =
            crate::shared_data::shared_file("lcmp/8DC-hetero/traffic_WebSearch_8DC-0.3util.txt")
        else {
            return;
        };
        let path = file.to_str().unwrap();
        let wl = load_flow_file(Path::new(path), FlowFileFormat::Hpcc).unwrap();
        assert_eq!(wl.flows.len(), 2774);
        wl.validate(128).unwrap();
        assert!(wl.validate(100).is_err());
        // `docs/lcmp.md`, traffic generator: 4.75 GB over a 10 ms arrival span starting at 2.0 s.
        let gb = wl.total_bytes() as f64 / 1e9;
        assert!((gb - 4.75).abs() < 0.01, "{gb}");
        let first = wl.flows.iter().map(|f| f.start).min().unwrap();
        let last = wl.flows.iter().map(|f| f.start).max().unwrap();
        assert!(first >= Time::from_secs_f64(2.0) && first < Time::from_secs_f64(2.001));
        let span_ms = (last - first).secs_f64() * 1e3;
        assert!(span_ms > 9.0 && span_ms <= 10.0, "{span_ms}");
        assert_eq!(wl.flows[0].src, 25);
        assert_eq!(wl.flows[0].dst, 123);
        // 8 DCs of 16 hosts: every flow crosses DCs.
        assert!(wl.flows.iter().all(|f| f.src / 16 != f.dst / 16));
    }
}
