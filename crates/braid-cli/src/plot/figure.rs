//! The figure data model every plot is made of: a [`Figure`] of [`Panel`]s, each drawing
//! [`Line`]s over numeric axes or grouped bars ([`BarGroup`]), plus the number formatting the
//! axes and captions share ([`fmt_si`]) and the long-format CSV (`panel,series,x,y`) written next
//! to every image, so the numbers behind a picture can be read without the picture.
//!
//! Nothing here draws: the `render` module turns a [`Figure`] into PNG and SVG.

use crate::table::csv_cell;

/// A line of a line panel.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// Legend entry.
    pub name: String,
    /// Points (x, y), in drawing order.
    pub points: Vec<(f64, f64)>,
    /// Draw a marker at each point.
    pub markers: bool,
    /// Draw dashed.
    pub dashed: bool,
    /// Colour index (lines of one series share a colour; their y columns differ by dashing).
    pub color: usize,
}

/// One legend entry of a bar panel: a value per category (NaN: no bar).
#[derive(Clone, Debug, PartialEq)]
pub struct BarGroup {
    /// Legend entry.
    pub name: String,
    /// One value per category.
    pub values: Vec<f64>,
}

/// What a panel draws.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// Lines over numeric axes.
    Lines(Vec<Line>),
    /// Grouped bars: one group of bars per category, one bar per [`BarGroup`].
    Bars {
        /// Category names (the x axis).
        categories: Vec<String>,
        /// Legend entries.
        groups: Vec<BarGroup>,
    },
}

/// One chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Panel {
    /// Title above the chart.
    pub title: String,
    /// X axis label (with units).
    pub x_label: String,
    /// Y axis label (with units).
    pub y_label: String,
    /// Logarithmic x axis (values must be positive).
    pub log_x: bool,
    /// Logarithmic y axis (values must be positive).
    pub log_y: bool,
    /// Start the x axis at 0 (time series).
    pub x_zero: bool,
    /// Contents.
    pub body: Body,
}

/// A figure: a title, panels in a grid, and caption lines (the paper's number next to Braid's).
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    /// Title.
    pub title: String,
    /// Panels.
    pub panels: Vec<Panel>,
    /// Caption lines under the panels.
    pub caption: Vec<String>,
}

/// Format a number compactly: 1234567 → `1.23M`, 0.5 → `0.5`.
pub fn fmt_si(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    let a = v.abs();
    let (x, suf) = if a >= 1e12 {
        (v / 1e12, "T")
    } else if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e4 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let s = if x.abs() >= 100.0 || (x.fract() == 0.0 && x.abs() < 1e4) {
        format!("{x:.0}")
    } else if x.abs() >= 10.0 {
        format!("{x:.1}")
    } else if x.abs() >= 1.0 || x == 0.0 {
        format!("{x:.2}")
    } else if x.abs() >= 0.01 {
        format!("{x:.3}")
    } else {
        format!("{x:.2e}")
    };
    let s = if s.contains('.') && !s.contains('e') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    format!("{s}{suf}")
}

pub(super) fn finite_range(vals: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for v in vals.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    (lo <= hi).then_some((lo, hi))
}

/// The data of a figure as long-format CSV: `panel,series,x,y` (bars: x is the category).
pub fn figure_csv(fig: &Figure) -> String {
    let mut s = String::from("panel,series,x,y\n");
    for p in &fig.panels {
        match &p.body {
            Body::Lines(lines) => {
                for l in lines {
                    for &(x, y) in &l.points {
                        s.push_str(&format!(
                            "{},{},{},{}\n",
                            csv_cell(&p.title),
                            csv_cell(&l.name),
                            num(x),
                            num(y)
                        ));
                    }
                }
            }
            Body::Bars { categories, groups } => {
                for g in groups {
                    for (c, v) in categories.iter().zip(&g.values) {
                        if v.is_finite() {
                            s.push_str(&format!(
                                "{},{},{},{}\n",
                                csv_cell(&p.title),
                                csv_cell(&g.name),
                                csv_cell(c),
                                num(*v)
                            ));
                        }
                    }
                }
            }
        }
    }
    s
}

fn num(v: f64) -> String {
    braid_metrics::fmt_f64(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn si_format() {
        assert_eq!(fmt_si(1234567.0), "1.23M");
        assert_eq!(fmt_si(0.5), "0.5");
        assert_eq!(fmt_si(338.0), "338");
        assert_eq!(fmt_si(12.5), "12.5");
        assert_eq!(fmt_si(95.2e9), "95.2G");
    }
}
