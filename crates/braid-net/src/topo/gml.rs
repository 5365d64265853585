//! Internet Topology Zoo GML importer (scenario kind `zoo-gml`), as the LCMP paper builds
//! its 13-DC network from the Zoo's BSONetworkSolutions map (LCMP §6.2): a DC per GML node, built
//! with [`inter_dc`], DCI links from the GML edges.
//!
//! The parser is a small hand-written tokenizer plus a recursive-descent parser for the GML
//! subset the Zoo uses: `key value` pairs where a value is an integer, a float, a `"string"`
//! (no escapes; may span lines) or a `[ … ]` list of pairs; `#` starts a comment running to the
//! end of the line. Nesting deeper than 64 lists is rejected.
//!
//! Mapping to a network (see [`ZooParams`]):
//! - Every `node [ id N … ]` becomes one DC, in file order (DC index = position in the file, not
//!   the GML id). The DC is named `dc<index>-<label>` with characters other than ASCII letters,
//!   digits, `-`, `_`, `.` in the label replaced by `_` (Zoo labels repeat, e.g. two
//!   "New York" nodes in BsonetEurope, hence the index). A missing label gives `dc<index>`.
//! - Every `edge [ source a target b … ]` becomes a DCI–DCI link. Self-loops are skipped.
//!   Parallel edges (Zoo files are multigraphs) are merged into one link whose rate is the sum of
//!   the parallel edges' rates when `merge_parallel` is set (the default), else kept as parallel
//!   links.
//! - Capacity: `LinkSpeedRaw` (bits/s) if present, else `LinkSpeed` × `LinkSpeedUnits`
//!   (`K`, `M`, `G`, `T`) if both are present, else `default_rate`; or always `default_rate` when
//!   `use_link_speed` is off. A present but malformed or zero speed is an error.
//! - Delay: `delay_override` if set; else the great-circle (haversine, Earth radius 6371 km)
//!   distance between the two nodes' `Latitude`/`Longitude` times `delay_per_km` (5 µs/km in
//!   fibre); else, when either node lacks coordinates, `fallback_delay`.
//! - Missing `id`, `source` or `target`, unknown node ids, duplicate node ids, coordinates out of
//!   range and a disconnected graph are errors.

use super::inter_dc::{inter_dc, DcLink, InterDcParams, IntraDcParams};
use crate::topology::Topology;
use braid_core::{Rate, Time};
use std::collections::HashMap;

/// A GML value.
#[derive(Clone, Debug, PartialEq)]
pub enum GmlValue {
    /// An integer.
    Int(i64),
    /// A real number.
    Float(f64),
    /// A string (quotes removed).
    Str(String),
    /// A `[ … ]` list of key–value pairs, in file order (keys may repeat).
    List(Vec<(String, GmlValue)>),
}

impl GmlValue {
    fn as_f64(&self) -> Option<f64> {
        match self {
            GmlValue::Int(i) => Some(*i as f64),
            GmlValue::Float(f) => Some(*f),
            GmlValue::Str(s) => s.trim().parse().ok(),
            GmlValue::List(_) => None,
        }
    }
    fn as_id(&self) -> Option<i64> {
        match self {
            GmlValue::Int(i) => Some(*i),
            GmlValue::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => Some(*f as i64),
            GmlValue::Str(s) => s.trim().parse().ok(),
            _ => None,
        }
    }
    fn get<'a>(list: &'a [(String, GmlValue)], key: &str) -> Option<&'a GmlValue> {
        list.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

#[derive(Debug, PartialEq)]
enum Tok {
    Open,
    Close,
    Key(String),
    Val(GmlValue),
}

fn tokenize(text: &str) -> Result<Vec<(usize, Tok)>, String> {
    let mut out = Vec::new();
    let mut line = 1;
    let mut it = text.char_indices().peekable();
    while let Some(&(i, c)) = it.peek() {
        match c {
            '\n' => {
                line += 1;
                it.next();
            }
            c if c.is_whitespace() => {
                it.next();
            }
            '#' => {
                while let Some(&(_, c)) = it.peek() {
                    if c == '\n' {
                        break;
                    }
                    it.next();
                }
            }
            '[' => {
                out.push((line, Tok::Open));
                it.next();
            }
            ']' => {
                out.push((line, Tok::Close));
                it.next();
            }
            '"' => {
                let start_line = line;
                it.next();
                let mut s = String::new();
                loop {
                    match it.next() {
                        Some((_, '"')) => break,
                        Some((_, ch)) => {
                            if ch == '\n' {
                                line += 1;
                            }
                            s.push(ch);
                        }
                        None => return Err(format!("GML line {start_line}: unterminated string")),
                    }
                }
                out.push((start_line, Tok::Val(GmlValue::Str(s))));
            }
            c if c.is_ascii_digit() || c == '-' || c == '+' || c == '.' => {
                let mut end = i;
                while let Some(&(j, ch)) = it.peek() {
                    if ch.is_ascii_alphanumeric() || ch == '.' || ch == '-' || ch == '+' {
                        end = j + ch.len_utf8();
                        it.next();
                    } else {
                        break;
                    }
                }
                let word = &text[i..end];
                let v = if let Ok(n) = word.parse::<i64>() {
                    GmlValue::Int(n)
                } else {
                    match word.parse::<f64>() {
                        Ok(f) if f.is_finite() => GmlValue::Float(f),
                        _ => return Err(format!("GML line {line}: `{word}` is not a number")),
                    }
                };
                out.push((line, Tok::Val(v)));
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let mut end = i;
                while let Some(&(j, ch)) = it.peek() {
                    if ch.is_ascii_alphanumeric() || ch == '_' {
                        end = j + ch.len_utf8();
                        it.next();
                    } else {
                        break;
                    }
                }
                out.push((line, Tok::Key(text[i..end].to_string())));
            }
            c => return Err(format!("GML line {line}: unexpected character `{c}`")),
        }
    }
    Ok(out)
}

const MAX_DEPTH: usize = 64;

fn parse_list(
    toks: &[(usize, Tok)],
    pos: &mut usize,
    depth: usize,
) -> Result<Vec<(String, GmlValue)>, String> {
    if depth > MAX_DEPTH {
        let line = toks.get(*pos).map_or(0, |t| t.0);
        return Err(format!("GML line {line}: lists nested more than {MAX_DEPTH} deep"));
    }
    let mut out = Vec::new();
    loop {
        let Some((line, tok)) = toks.get(*pos) else {
            if depth == 0 {
                return Ok(out);
            }
            return Err("GML: the file ends inside a `[ … ]` list (missing `]`)".into());
        };
        match tok {
            Tok::Close => {
                if depth == 0 {
                    return Err(format!("GML line {line}: `]` without a matching `[`"));
                }
                *pos += 1;
                return Ok(out);
            }
            Tok::Key(k) => {
                *pos += 1;
                let value = match toks.get(*pos) {
                    Some((_, Tok::Open)) => {
                        *pos += 1;
                        GmlValue::List(parse_list(toks, pos, depth + 1)?)
                    }
                    Some((_, Tok::Val(v))) => {
                        *pos += 1;
                        v.clone()
                    }
                    Some((l, _)) => {
                        return Err(format!("GML line {l}: key `{k}` is not followed by a value"))
                    }
                    None => {
                        return Err(format!(
                            "GML line {line}: key `{k}` at the end of the file has no value"
                        ))
                    }
                };
                out.push((k.clone(), value));
            }
            Tok::Open => return Err(format!("GML line {line}: expected a key, found `[`")),
            Tok::Val(v) => {
                return Err(format!("GML line {line}: expected a key, found the value {v:?}"))
            }
        }
    }
}

/// Parse GML text into its top-level list of key–value pairs (see the [module docs](self)).
pub fn parse_gml(text: &str) -> Result<Vec<(String, GmlValue)>, String> {
    let toks = tokenize(text.strip_prefix('\u{feff}').unwrap_or(text))?;
    let mut pos = 0;
    parse_list(&toks, &mut pos, 0)
}

/// Parameters of [`zoo_gml`].
#[derive(Clone, Debug, PartialEq)]
pub struct ZooParams {
    /// The shape of each DC (default: the LCMP testbed's DC, LCMP §6.1, 16 hosts, 4 leaves, 2
    /// spines).
    pub intra: IntraDcParams,
    /// Capacity of an inter-DC link whose edge has no speed, or of every link when
    /// `use_link_speed` is off (default 100 Gb/s).
    pub default_rate: Rate,
    /// Take capacities from the edges' `LinkSpeedRaw` / `LinkSpeed`+`LinkSpeedUnits` (default on).
    pub use_link_speed: bool,
    /// Propagation delay per km of great-circle distance (default 5 µs, light in fibre).
    pub delay_per_km: Time,
    /// Delay of a link with an endpoint that has no coordinates (default 10 ms).
    pub fallback_delay: Time,
    /// If set, every inter-DC link gets this delay, ignoring coordinates.
    pub delay_override: Option<Time>,
    /// Merge parallel edges into one link with the summed rate (default on); off keeps them as
    /// parallel links.
    pub merge_parallel: bool,
}

impl Default for ZooParams {
    fn default() -> Self {
        Self {
            intra: IntraDcParams::default(),
            default_rate: Rate::from_gbps(100),
            use_link_speed: true,
            delay_per_km: Time::from_us(5),
            fallback_delay: Time::from_ms(10),
            delay_override: None,
            merge_parallel: true,
        }
    }
}

/// Great-circle distance in km between two (latitude, longitude) points in degrees.
pub(crate) fn haversine_km(a: (f64, f64), b: (f64, f64)) -> f64 {
    const R: f64 = 6371.0;
    let (p1, p2) = (a.0.to_radians(), b.0.to_radians());
    let dp = p2 - p1;
    let dl = (b.1 - a.1).to_radians();
    let h = (dp / 2.0).sin().powi(2) + p1.cos() * p2.cos() * (dl / 2.0).sin().powi(2);
    2.0 * R * h.sqrt().min(1.0).asin()
}

fn sanitize(label: &str) -> String {
    label
        .chars()
        .map(
            |c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' { c } else { '_' },
        )
        .collect()
}

fn link_speed(e: &[(String, GmlValue)], idx: usize) -> Result<Option<Rate>, String> {
    let bad =
        |what: &str, v: &GmlValue| format!("GML edge {idx}: {what} {v:?} is not a positive speed");
    if let Some(v) = GmlValue::get(e, "LinkSpeedRaw") {
        let bps = v
            .as_f64()
            .filter(|x| *x > 0.0 && x.is_finite())
            .ok_or_else(|| bad("LinkSpeedRaw", v))?;
        return Ok(Some(Rate::from_bps_f64(bps)));
    }
    let (Some(v), Some(u)) = (GmlValue::get(e, "LinkSpeed"), GmlValue::get(e, "LinkSpeedUnits"))
    else {
        return Ok(None);
    };
    let x = v.as_f64().filter(|x| *x > 0.0 && x.is_finite()).ok_or_else(|| bad("LinkSpeed", v))?;
    let scale = match u {
        GmlValue::Str(s) => match s.trim() {
            "" => 1.0,
            "K" | "k" => 1e3,
            "M" | "m" => 1e6,
            "G" | "g" => 1e9,
            "T" | "t" => 1e12,
            other => {
                return Err(format!(
                    "GML edge {idx}: unknown LinkSpeedUnits {other:?} (use K, M, G or T)"
                ))
            }
        },
        other => {
            return Err(format!("GML edge {idx}: LinkSpeedUnits {other:?} is not a unit string"))
        }
    };
    Ok(Some(Rate::from_bps_f64(x * scale)))
}

/// Build an inter-DC network from Internet Topology Zoo GML text: one DC per GML node, one
/// DCI–DCI link per (merged) GML edge. See the [module docs](self) for the mapping. The result
/// has passed [`Topology::validate`].
pub fn zoo_gml(text: &str, p: &ZooParams) -> Result<Topology, String> {
    let top = parse_gml(text)?;
    let graph = match GmlValue::get(&top, "graph") {
        Some(GmlValue::List(g)) => g,
        Some(_) => return Err("GML: `graph` is not a `[ … ]` list".into()),
        None => return Err("GML: no top-level `graph [ … ]`".into()),
    };
    if p.default_rate.bps() == 0 {
        return Err("`default_rate` must be a positive rate, got 0bps".into());
    }
    let mut ids: HashMap<i64, usize> = HashMap::new();
    let mut names = Vec::new();
    let mut coords: Vec<Option<(f64, f64)>> = Vec::new();
    for (k, v) in graph {
        if k != "node" {
            continue;
        }
        let i = names.len();
        let GmlValue::List(n) = v else {
            return Err(format!("GML node {i}: `node` is not a `[ … ]` list"));
        };
        let id = GmlValue::get(n, "id")
            .ok_or_else(|| format!("GML node {i} has no `id`"))?
            .as_id()
            .ok_or_else(|| format!("GML node {i}: `id` is not an integer"))?;
        if ids.insert(id, i).is_some() {
            return Err(format!("GML node id {id} is used twice"));
        }
        let label = match GmlValue::get(n, "label") {
            Some(GmlValue::Str(s)) => s.clone(),
            Some(GmlValue::Int(x)) => x.to_string(),
            Some(GmlValue::Float(x)) => x.to_string(),
            _ => String::new(),
        };
        names.push(if label.is_empty() {
            format!("dc{i}")
        } else {
            format!("dc{i}-{}", sanitize(&label))
        });
        let lat = GmlValue::get(n, "Latitude").and_then(GmlValue::as_f64);
        let lon = GmlValue::get(n, "Longitude").and_then(GmlValue::as_f64);
        coords.push(match (lat, lon) {
            (Some(la), Some(lo)) => {
                if !(-90.0..=90.0).contains(&la) || !(-180.0..=180.0).contains(&lo) {
                    return Err(format!(
                        "GML node {id} ({label}): coordinates ({la}, {lo}) are out of range"
                    ));
                }
                Some((la, lo))
            }
            _ => None,
        });
    }
    if names.is_empty() {
        return Err("GML: the graph has no nodes".into());
    }
    let mut links: Vec<DcLink> = Vec::new();
    let mut pair_index: HashMap<(usize, usize), usize> = HashMap::new();
    let mut n_edges = 0;
    for (k, v) in graph {
        if k != "edge" {
            continue;
        }
        let idx = n_edges;
        n_edges += 1;
        let GmlValue::List(e) = v else {
            return Err(format!("GML edge {idx}: `edge` is not a `[ … ]` list"));
        };
        let end = |key: &str| -> Result<usize, String> {
            let id = GmlValue::get(e, key)
                .ok_or_else(|| format!("GML edge {idx} has no `{key}`"))?
                .as_id()
                .ok_or_else(|| format!("GML edge {idx}: `{key}` is not an integer"))?;
            ids.get(&id)
                .copied()
                .ok_or_else(|| format!("GML edge {idx}: `{key}` {id} is not a node id"))
        };
        let (a, b) = (end("source")?, end("target")?);
        if a == b {
            continue;
        }
        let rate = if p.use_link_speed {
            link_speed(e, idx)?.unwrap_or(p.default_rate)
        } else {
            p.default_rate
        };
        let delay = match (p.delay_override, coords[a], coords[b]) {
            (Some(d), _, _) => d,
            (None, Some(ca), Some(cb)) => p.delay_per_km.mul_f64(haversine_km(ca, cb)),
            _ => p.fallback_delay,
        };
        let key = (a.min(b), a.max(b));
        match pair_index.get(&key) {
            Some(&j) if p.merge_parallel => {
                let l: &mut DcLink = &mut links[j];
                l.rate = Rate(l.rate.bps().saturating_add(rate.bps()));
                l.delay = l.delay.min(delay);
            }
            _ => {
                pair_index.insert(key, links.len());
                links.push(DcLink { a, b, rate, delay });
            }
        }
    }
    inter_dc(&InterDcParams { dcs: names.len(), graph: links, names, intra: p.intra.clone() })
        .map_err(|e| format!("zoo-gml: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topo::testutil::{find, shared_data};
    use crate::topology::NodeKind;

    fn dci_links(t: &Topology) -> Vec<(String, String, Rate, Time)> {
        t.links
            .iter()
            .filter(|l| {
                t.nodes[l.a.idx()].kind == NodeKind::Dci && t.nodes[l.b.idx()].kind == NodeKind::Dci
            })
            .map(|l| {
                (t.nodes[l.a.idx()].name.clone(), t.nodes[l.b.idx()].name.clone(), l.rate, l.delay)
            })
            .collect()
    }

    #[test]
    fn parses_gml_values() {
        let v =
            parse_gml("# c\nCreator \"x y\"\ngraph [ a 1 b -2.5 c \"multi\nline\" d [ e 1e3 ] ]\n")
                .unwrap();
        assert_eq!(v[0], ("Creator".into(), GmlValue::Str("x y".into())));
        let GmlValue::List(g) = &v[1].1 else { panic!() };
        assert_eq!(g[0].1, GmlValue::Int(1));
        assert_eq!(g[1].1, GmlValue::Float(-2.5));
        assert_eq!(g[2].1, GmlValue::Str("multi\nline".into()));
        assert_eq!(g[3].1, GmlValue::List(vec![("e".into(), GmlValue::Float(1000.0))]));
    }

    #[test]
    fn rejects_malformed_gml() {
        let cases: &[(&str, &str)] = &[
            ("graph [ a 1 ", "missing `]`"),
            ("graph [ a ] ", "line 1: key `a` is not followed"),
            ("graph [ a \"x ]", "unterminated"),
            ("graph [ a 1.2.3 ]", "not a number"),
            ("graph [ 1 2 ]", "expected a key"),
            ("graph [ a 1 ] ]", "without a matching"),
            ("graph [ a @ ]", "unexpected character"),
        ];
        for (text, want) in cases {
            let e = parse_gml(text).unwrap_err();
            assert!(e.contains(want), "{text:?}: got `{e}`, wanted `{want}`");
        }
        let deep = "a [ ".repeat(100);
        assert!(parse_gml(&deep).unwrap_err().contains("nested"));
    }

    const SMALL: &str = r#"
graph [
  multigraph 1
  node [ id 10 label "Paris" Latitude 48.85341 Longitude 2.3488 ]
  node [ id 20 label "London" Latitude 51.50853 Longitude -0.12574 ]
  node [ id 30 ]
  edge [ source 10 target 20 LinkSpeed "10" LinkSpeedUnits "G" ]
  edge [ source 20 target 10 LinkSpeedRaw 40000000000.0 ]
  edge [ source 30 target 30 ]
  edge [ source 20 target 30 ]
]
"#;

    #[test]
    fn inline_graph_merged() {
        let t = zoo_gml(SMALL, &ZooParams::default()).unwrap();
        assert_eq!(t.hosts().len(), 48);
        let l = dci_links(&t);
        assert_eq!(l.len(), 2);
        assert_eq!(l[0].0, "dc0-Paris-dci");
        assert_eq!(l[0].1, "dc1-London-dci");
        assert_eq!(l[0].2, Rate::from_gbps(50));
        // Paris–London ≈ 344 km → ≈ 1.72 ms.
        let ms = l[0].3.secs_f64() * 1e3;
        assert!((1.70..1.74).contains(&ms), "{ms}");
        // Node 30 has no label and no coordinates.
        assert_eq!(l[1].1, "dc2-dci");
        assert_eq!(l[1].2, Rate::from_gbps(100));
        assert_eq!(l[1].3, Time::from_ms(10));
        assert_eq!(t.nodes[find(&t, "dc2-h0").idx()].group, 2);
    }

    #[test]
    fn inline_graph_knobs() {
        let p = ZooParams {
            merge_parallel: false,
            use_link_speed: false,
            delay_override: Some(Time::from_ms(3)),
            default_rate: Rate::from_gbps(40),
            intra: IntraDcParams { hosts_per_dc: 2, leaves: 1, spines: 1, ..Default::default() },
            ..Default::default()
        };
        let t = zoo_gml(SMALL, &p).unwrap();
        let l = dci_links(&t);
        assert_eq!(l.len(), 3);
        assert!(l.iter().all(|x| x.2 == Rate::from_gbps(40) && x.3 == Time::from_ms(3)));
        assert_eq!(t.hosts().len(), 6);
    }

    #[test]
    fn rejects_bad_graphs() {
        let d = ZooParams::default();
        let cases: &[(&str, &str)] = &[
            ("Creator \"x\"", "no top-level `graph"),
            ("graph 1", "not a `[ … ]` list"),
            ("graph [ ]", "no nodes"),
            ("graph [ node [ label \"a\" ] ]", "has no `id`"),
            ("graph [ node [ id 1 ] node [ id 1 ] ]", "used twice"),
            ("graph [ node [ id 1 ] node [ id 2 ] edge [ source 1 ] ]", "has no `target`"),
            ("graph [ node [ id 1 ] node [ id 2 ] edge [ source 1 target 3 ] ]", "`target` 3 is not a node id"),
            ("graph [ node [ id 1 ] node [ id 2 ] ]", "disconnected"),
            ("graph [ node [ id 1 Latitude 95 Longitude 0 ] ]", "out of range"),
            ("graph [ node [ id 1 ] node [ id 2 ] edge [ source 1 target 2 LinkSpeed \"x\" LinkSpeedUnits \"G\" ] ]", "LinkSpeed"),
            ("graph [ node [ id 1 ] node [ id 2 ] edge [ source 1 target 2 LinkSpeed 1 LinkSpeedUnits \"Q\" ] ]", "LinkSpeedUnits"),
            ("graph [ node [ id 1 ] node [ id 2 ] edge [ source 1 target 2 LinkSpeedRaw 0 ] ]", "LinkSpeedRaw"),
        ];
        for (text, want) in cases {
            let e = zoo_gml(text, &d).unwrap_err();
            assert!(e.contains(want), "{text:?}: got `{e}`, wanted `{want}`");
        }
        let e =
            zoo_gml(SMALL, &ZooParams { default_rate: Rate(0), ..Default::default() }).unwrap_err();
        assert!(e.contains("`default_rate`"), "{e}");
    }

    #[test]
    fn haversine_known_distances() {
        // New York – Chicago ≈ 1145 km; a quarter meridian ≈ 10008 km.
        let d = haversine_km((40.71427, -74.00597), (41.85003, -87.65005));
        assert!((1140.0..1150.0).contains(&d), "{d}");
        let q = haversine_km((0.0, 0.0), (90.0, 0.0));
        assert!((q - 10007.5).abs() < 1.0, "{q}");
        assert_eq!(haversine_km((10.0, 10.0), (10.0, 10.0)), 0.0);
    }

    #[test]
    fn bsonet_europe() {
        let Some(text) = shared_data("zoo/BsonetEurope.gml") else { return };
        let t = zoo_gml(&text, &ZooParams::default()).unwrap();
        assert_eq!(t.hosts().len(), 18 * 16);
        assert_eq!(t.nodes.iter().filter(|n| n.kind == NodeKind::Dci).count(), 18);
        let l = dci_links(&t);
        // 24 edges, one parallel pair (Helsinki–Stockholm) merged.
        assert_eq!(l.len(), 23);
        let hs =
            l.iter().find(|x| x.0 == "dc10-Helsinki-dci" && x.1 == "dc11-Stockholm-dci").unwrap();
        assert_eq!(hs.2, Rate::from_gbps(200));
        // Prague–Frankfurt ≈ 410 km → ≈ 2.05 ms.
        let pf = l.iter().find(|x| x.0 == "dc0-Prague-dci" && x.1 == "dc1-Frankfurt-dci").unwrap();
        let ms = pf.3.secs_f64() * 1e3;
        assert!((2.0..2.1).contains(&ms), "{ms}");
        // Dubai has no coordinates: the fallback delay.
        let dubai = l.iter().find(|x| x.0 == "dc4-Dubai-dci").unwrap();
        assert_eq!(dubai.3, Time::from_ms(10));
        // The two "New York" nodes stay distinct.
        find(&t, "dc15-New_York-dci");
        find(&t, "dc16-New_York-dci");
        let kept =
            zoo_gml(&text, &ZooParams { merge_parallel: false, ..Default::default() }).unwrap();
        assert_eq!(dci_links(&kept).len(), 24);
    }

    #[test]
    fn abilene() {
        let Some(text) = shared_data("zoo/Abilene.gml") else { return };
        let t = zoo_gml(&text, &ZooParams::default()).unwrap();
        assert_eq!(t.hosts().len(), 11 * 16);
        let l = dci_links(&t);
        assert_eq!(l.len(), 14);
        assert!(
            l.iter().all(|x| x.2 == Rate::from_gbps(100)),
            "no LinkSpeed in Abilene: default rate"
        );
        let nc = l.iter().find(|x| x.0 == "dc0-New_York-dci" && x.1 == "dc1-Chicago-dci").unwrap();
        let ms = nc.3.secs_f64() * 1e3;
        assert!((5.65..5.8).contains(&ms), "{ms}");
    }
}
