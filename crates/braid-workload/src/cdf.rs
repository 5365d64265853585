//! Empirical flow-size distributions (CDFs): parsing, sampling, mean.
//!
//! Two text formats are read:
//!
//! - **Braid** (`*.cdf`, see `data/cdf/`): `#` starts a comment (whole line or tail) — the header
//!   comments name the source; then one point per line, `<size_bytes> <cumulative_fraction>`, with
//!   the fraction in `[0, 1]`. Fields may be separated by spaces, tabs or a comma; a size may carry a
//!   unit (`10KB`).
//! - **HPCC** (`traffic_gen/*.txt` of the ns-3 HPCC generator, `flowCDF/*.txt` of the LCMP artifact):
//!   `<size_bytes> <cdf_percent>`, the percentage in `[0, 100]`.
//!
//! Both need sizes and cumulative values non-decreasing, and the last cumulative value equal to
//! 1 (100 %) — anything else is an error, never silently renormalised. At most [`MAX_CDF_POINTS`]
//! points, sizes at most [`MAX_FLOW_BYTES`]. A first point with a positive
//! cumulative value is a point mass at that size.
//!
//! Sampling is inverse-transform with linear interpolation inside the segment that contains the
//! uniform draw, exactly as the HPCC generator's `getValueFromPercentile` does; the result is
//! rounded to whole bytes and is at least 1 byte (the HPCC generator truncates; rounding keeps the
//! sample mean equal to [`EmpiricalCdf::mean`]). The mean is the trapezoid rule over the points
//! (HPCC `getAvg`), which is the exact mean of the piecewise-linear distribution the sampler draws
//! from. Published means (`docs/lcmp.md`, traffic generator): WebSearch 1,711,250 B;
//! FbHdp 120,421 B; AliStorage 40,870 B.
//!
//! Built-ins (embedded at compile time from `data/cdf/`, so they need no files at run time):
//! `websearch`, `hadoop`, `alistorage`, `cachefollower`; each file's header names its source.

use crate::workload::MAX_FLOW_BYTES;
use braid_core::Rng;
use std::path::Path;

/// The most points a CDF file may have: 1,000,000 (the shipped CDFs have 20–100). A CDF is read
/// whole into memory and searched per sample; more points is a wrong file, not a distribution.
pub const MAX_CDF_POINTS: usize = 1_000_000;

/// Which text format a CDF is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CdfFormat {
    /// Braid's: cumulative fractions in `[0, 1]`.
    Braid,
    /// HPCC's: cumulative percentages in `[0, 100]`.
    Hpcc,
    /// Decide from the values: percentages if any cumulative value exceeds 1.
    Auto,
}

const BUILTIN: &[(&str, &str)] = &[
    ("websearch", include_str!("../../../data/cdf/websearch.cdf")),
    ("hadoop", include_str!("../../../data/cdf/hadoop.cdf")),
    ("alistorage", include_str!("../../../data/cdf/alistorage.cdf")),
    ("cachefollower", include_str!("../../../data/cdf/cachefollower.cdf")),
];

/// Names accepted by [`EmpiricalCdf::builtin`] (case, `-` and `_` are ignored; `fbhdp` is an alias
/// of `hadoop`).
pub const BUILTIN_CDFS: &[&str] = &["websearch", "hadoop", "alistorage", "cachefollower"];

/// A piecewise-linear empirical CDF of flow sizes.
#[derive(Clone, Debug, PartialEq)]
pub struct EmpiricalCdf {
    name: String,
    source: String,
    /// (size in bytes, cumulative fraction); validated non-decreasing, last fraction exactly 1.
    points: Vec<(f64, f64)>,
}

fn normalise_name(s: &str) -> String {
    s.chars().filter(|c| *c != '-' && *c != '_').flat_map(|c| c.to_lowercase()).collect()
}

impl EmpiricalCdf {
    /// Build from points `(size_bytes, cumulative_fraction)`; validates them (see module docs).
    pub fn from_points(
        name: impl Into<String>,
        points: Vec<(f64, f64)>,
    ) -> Result<EmpiricalCdf, String> {
        let name = name.into();
        if points.is_empty() {
            return Err(format!("CDF `{name}` is empty (no points)"));
        }
        let mut prev: Option<(f64, f64)> = None;
        for (i, &(x, c)) in points.iter().enumerate() {
            if !x.is_finite() || x < 0.0 {
                return Err(format!(
                    "CDF `{name}`: point {}: size {x} must be a finite non-negative number",
                    i + 1
                ));
            }
            if x > MAX_FLOW_BYTES as f64 {
                return Err(format!(
                    "CDF `{name}`: point {}: size {x} is above the limit of {MAX_FLOW_BYTES} bytes",
                    i + 1
                ));
            }
            if !c.is_finite() || !(0.0..=1.0 + 1e-9).contains(&c) {
                return Err(format!(
                    "CDF `{name}`: point {}: cumulative value {c} is outside [0, 1]",
                    i + 1
                ));
            }
            if let Some((px, pc)) = prev {
                if x < px {
                    return Err(format!("CDF `{name}` is not monotone: size {x} at point {} is smaller than {px} before it", i + 1));
                }
                if c < pc {
                    return Err(format!("CDF `{name}` is not monotone: cumulative value {c} at point {} is smaller than {pc} before it", i + 1));
                }
            }
            prev = Some((x, c));
        }
        let last = points[points.len() - 1].1;
        if (last - 1.0).abs() > 1e-6 {
            return Err(format!(
                "CDF `{name}` ends at cumulative value {last}; it must end at 1 (100 %)"
            ));
        }
        let mut points = points;
        let k = points.len() - 1;
        points[k].1 = 1.0;
        for p in points.iter_mut() {
            p.1 = p.1.min(1.0);
        }
        if points.iter().all(|p| p.0 == 0.0) {
            return Err(format!("CDF `{name}`: every size is 0"));
        }
        Ok(EmpiricalCdf { name, source: String::new(), points })
    }

    /// Parse CDF text in the given format. `name` is used in messages and kept as the CDF's name.
    pub fn parse(name: &str, text: &str, format: CdfFormat) -> Result<EmpiricalCdf, String> {
        let mut raw: Vec<(f64, f64)> = Vec::new();
        let mut comments: Vec<&str> = Vec::new();
        for (ln, line) in text.lines().enumerate() {
            let (body, comment) = match line.find('#') {
                Some(p) => (&line[..p], Some(&line[p + 1..])),
                None => (line, None),
            };
            if let Some(c) = comment {
                if body.trim().is_empty() {
                    comments.push(c.trim());
                }
            }
            let body = body.trim();
            if body.is_empty() {
                continue;
            }
            let fields: Vec<&str> = body
                .split(|c: char| c.is_whitespace() || c == ',')
                .filter(|f| !f.is_empty())
                .collect();
            if fields.len() < 2 {
                return Err(format!(
                    "CDF `{name}` line {}: expected `<size_bytes> <cumulative>`, got `{body}`",
                    ln + 1
                ));
            }
            let x: f64 = match fields[0].parse::<f64>() {
                Ok(v) => v,
                Err(_) => braid_core::units::parse_size(fields[0])
                    .map_err(|e| format!("CDF `{name}` line {}: size: {e}", ln + 1))?
                    as f64,
            };
            let c: f64 = fields[1].parse().map_err(|_| {
                format!(
                    "CDF `{name}` line {}: cumulative value `{}` is not a number",
                    ln + 1,
                    fields[1]
                )
            })?;
            if raw.len() >= MAX_CDF_POINTS {
                return Err(format!(
                    "CDF `{name}` line {}: more than {MAX_CDF_POINTS} points",
                    ln + 1
                ));
            }
            raw.push((x, c));
        }
        let percent = match format {
            CdfFormat::Braid => false,
            CdfFormat::Hpcc => true,
            CdfFormat::Auto => raw.iter().any(|p| p.1 > 1.0 + 1e-9),
        };
        if percent {
            for p in raw.iter_mut() {
                p.1 /= 100.0;
            }
        }
        let mut cdf = EmpiricalCdf::from_points(name, raw)?;
        cdf.source = comments
            .iter()
            .filter(|c| c.starts_with("source:"))
            .map(|c| c.trim_start_matches("source:").trim())
            .collect::<Vec<_>>()
            .join(" ");
        if cdf.source.is_empty() {
            cdf.source = comments.first().map(|c| c.to_string()).unwrap_or_default();
        }
        Ok(cdf)
    }

    /// Read and parse a CDF file (format decided by the values, see [`CdfFormat::Auto`]).
    pub fn load(path: &Path) -> Result<EmpiricalCdf, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read CDF file `{}`: {e}", path.display()))?;
        EmpiricalCdf::parse(&path.display().to_string(), &text, CdfFormat::Auto)
    }

    /// One of the built-in CDFs ([`BUILTIN_CDFS`]).
    pub fn builtin(name: &str) -> Result<EmpiricalCdf, String> {
        let mut key = normalise_name(name);
        if key == "fbhdp" || key == "fbhadoop" {
            key = "hadoop".to_string();
        }
        match BUILTIN.iter().find(|(n, _)| *n == key) {
            Some((n, text)) => EmpiricalCdf::parse(n, text, CdfFormat::Braid),
            None => Err(format!(
                "unknown built-in CDF `{name}` (built-ins: {})",
                BUILTIN_CDFS.join(", ")
            )),
        }
    }

    /// A built-in name if `spec` is one, otherwise a file path.
    pub fn resolve(spec: &str) -> Result<EmpiricalCdf, String> {
        let key = normalise_name(spec);
        if BUILTIN_CDFS.contains(&key.as_str()) || key == "fbhdp" || key == "fbhadoop" {
            EmpiricalCdf::builtin(spec)
        } else {
            EmpiricalCdf::load(Path::new(spec))
        }
    }

    /// The CDF's name (built-in name or file path).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The source named in the file's `# source:` comment (or its first comment), if any.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The validated points `(size_bytes, cumulative_fraction)`.
    pub fn points(&self) -> &[(f64, f64)] {
        &self.points
    }

    /// The size at cumulative probability `u` in `[0, 1)`, interpolating linearly within the segment
    /// whose cumulative range contains `u` (values outside `[0, 1)` are clamped).
    pub fn quantile(&self, u: f64) -> f64 {
        let u = if u.is_nan() { 0.0 } else { u.clamp(0.0, 1.0) };
        let pts = &self.points;
        // First point whose cumulative value is strictly above u.
        let i = pts.partition_point(|p| p.1 <= u);
        if i == 0 {
            return pts[0].0;
        }
        if i >= pts.len() {
            return pts[pts.len() - 1].0;
        }
        let (x0, c0) = pts[i - 1];
        let (x1, c1) = pts[i];
        // c0 <= u < c1, so c1 > c0.
        x0 + (x1 - x0) * (u - c0) / (c1 - c0)
    }

    /// Draw one flow size in bytes (rounded, at least 1).
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        let x = self.quantile(rng.f64()).round();
        if x < 1.0 {
            1
        } else if x >= u64::MAX as f64 {
            u64::MAX
        } else {
            x as u64
        }
    }

    /// The mean size in bytes: the trapezoid rule over the points (plus the point mass of the first
    /// point, if its cumulative value is positive) — the exact mean of the sampled distribution
    /// before rounding.
    pub fn mean(&self) -> f64 {
        let pts = &self.points;
        let mut m = pts[0].0 * pts[0].1;
        for w in pts.windows(2) {
            m += (w[0].0 + w[1].0) / 2.0 * (w[1].1 - w[0].1);
        }
        m
    }

    /// Render in Braid's format, with `#` header lines naming the source.
    pub fn to_braid_text(&self) -> String {
        let mut s =
            format!("# Braid flow-size CDF (format: braid-cdf v1)\n# name: {}\n", self.name);
        if !self.source.is_empty() {
            s.push_str(&format!("# source: {}\n", self.source));
        }
        for &(x, c) in &self.points {
            s.push_str(&format!("{x} {c}\n"));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_means_match_published() {
        let ws = EmpiricalCdf::builtin("websearch").unwrap();
        assert!((ws.mean() - 1_711_250.0).abs() < 1e-6, "{}", ws.mean());
        assert!(ws.source().contains("DCTCP"));
        let h = EmpiricalCdf::builtin("Hadoop").unwrap();
        assert_eq!(h.mean().round(), 120_421.0);
        assert_eq!(EmpiricalCdf::builtin("fb_hdp").unwrap().mean().round(), 120_421.0);
        let a = EmpiricalCdf::builtin("ali-storage").unwrap();
        assert_eq!(a.mean().round(), 40_870.0);
        let c = EmpiricalCdf::builtin("cache_follower").unwrap();
        assert!((c.mean() - 609_883.0).abs() < 1.0, "{}", c.mean());
        assert!(c.source().contains("Roy"));
        assert!(EmpiricalCdf::builtin("googlerpc").unwrap_err().contains("websearch"));
    }

    #[test]
    fn shipped_files_match_hpcc_originals() {
        // The built-ins are the LCMP artifact's percent files converted to fractions.
        for (file, name) in [
            ("WebSearch_distribution.txt", "websearch"),
            ("FbHdp_distribution2015.txt", "hadoop"),
            ("AliStorage2019.txt", "alistorage"),
        ] {
            let Some(path) = crate::shared_data::shared_file(&format!("lcmp/flowCDF/{file}"))
            else {
                return;
            };
            let text = std::fs::read_to_string(&path).unwrap();
            let orig = EmpiricalCdf::parse(file, &text, CdfFormat::Hpcc).unwrap();
            let auto = EmpiricalCdf::parse(file, &text, CdfFormat::Auto).unwrap();
            let ours = EmpiricalCdf::builtin(name).unwrap();
            assert_eq!(orig.points(), auto.points());
            assert_eq!(orig.points().len(), ours.points().len());
            for (a, b) in orig.points().iter().zip(ours.points()) {
                assert_eq!(a.0, b.0);
                assert!((a.1 - b.1).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn sampling_reproduces_mean() {
        for name in BUILTIN_CDFS {
            let cdf = EmpiricalCdf::builtin(name).unwrap();
            let mut rng = Rng::derive(7, braid_core::rng::stream::WORKLOAD, 0);
            let n = 100_000;
            let sum: f64 = (0..n).map(|_| cdf.sample(&mut rng) as f64).sum();
            let m = sum / n as f64;
            let err = (m - cdf.mean()).abs() / cdf.mean();
            assert!(err < 0.02, "{name}: sample mean {m} vs {} ({:.2}%)", cdf.mean(), err * 100.0);
        }
    }

    #[test]
    fn quantile_interpolates() {
        let c = EmpiricalCdf::parse(
            "t",
            "# test\n0 0\n100 0.5\n100 0.6 # atom\n300 1\n",
            CdfFormat::Braid,
        )
        .unwrap();
        assert_eq!(c.source(), "test");
        assert_eq!(c.quantile(0.0), 0.0);
        assert_eq!(c.quantile(0.25), 50.0);
        assert_eq!(c.quantile(0.55), 100.0);
        assert!((c.quantile(0.8) - 200.0).abs() < 1e-9);
        assert_eq!(c.quantile(1.0), 300.0);
        // mean = 0.5*50 + 0.1*100 + 0.4*200
        assert!((c.mean() - 115.0).abs() < 1e-9);
        // point mass at the first point
        let d = EmpiricalCdf::from_points("d", vec![(10.0, 0.5), (20.0, 1.0)]).unwrap();
        assert_eq!(d.quantile(0.3), 10.0);
        assert!((d.mean() - (5.0 + 7.5)).abs() < 1e-9);
    }

    #[test]
    fn bad_cdfs_are_errors() {
        let e = EmpiricalCdf::parse("e", "# only comments\n", CdfFormat::Braid).unwrap_err();
        assert!(e.contains("empty"), "{e}");
        let e =
            EmpiricalCdf::parse("m", "0 0\n10 0.5\n5 0.7\n20 1\n", CdfFormat::Braid).unwrap_err();
        assert!(e.contains("not monotone"), "{e}");
        let e =
            EmpiricalCdf::parse("m", "0 0\n10 0.5\n15 0.4\n20 1\n", CdfFormat::Braid).unwrap_err();
        assert!(e.contains("not monotone"), "{e}");
        let e = EmpiricalCdf::parse("s", "0 0\n10 0.5\n", CdfFormat::Braid).unwrap_err();
        assert!(e.contains("must end at 1"), "{e}");
        let e = EmpiricalCdf::parse("p", "0 0\n10 50\n20 100\n", CdfFormat::Braid).unwrap_err();
        assert!(e.contains("outside [0, 1]"), "{e}");
        let ok = EmpiricalCdf::parse("p", "0 0\n10 50\n20 100\n", CdfFormat::Hpcc).unwrap();
        assert_eq!(ok.mean(), 10.0);
        let e = EmpiricalCdf::parse("x", "0 0\nabc 1\n", CdfFormat::Braid).unwrap_err();
        assert!(e.contains("line 2"), "{e}");
        let e = EmpiricalCdf::parse("x", "0 0\n10\n", CdfFormat::Braid).unwrap_err();
        assert!(e.contains("line 2"), "{e}");
        assert!(EmpiricalCdf::parse("x", "0 0\n-5 1\n", CdfFormat::Braid).is_err());
        assert!(EmpiricalCdf::parse("x", "0 0\n0 1\n", CdfFormat::Braid).is_err());
        assert!(EmpiricalCdf::load(Path::new("/nonexistent/x.cdf"))
            .unwrap_err()
            .contains("cannot read"));
    }

    #[test]
    fn units_and_commas_and_roundtrip() {
        let c = EmpiricalCdf::parse("u", "0, 0\n1KB, 0.5\n2KB, 1\n", CdfFormat::Braid).unwrap();
        assert_eq!(c.points()[2].0, 2000.0);
        let again = EmpiricalCdf::parse("u", &c.to_braid_text(), CdfFormat::Braid).unwrap();
        assert_eq!(again.points(), c.points());
    }
}
