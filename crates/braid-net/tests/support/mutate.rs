//! Text mutations for the reader fuzz properties (shared by the `*_fuzz.rs` tests of braid-net,
//! braid-workload and braid-cli through `#[path]`): take a valid input file and break it the
//! ways real files break — lines deleted, duplicated or swapped, numbers replaced by huge,
//! negative, zero or NaN-ish values, unit strings replaced, the text truncated, stray bytes
//! inserted — plus strategies for arbitrary bytes and for "token soup" (random sequences of the
//! format's own words, which get past the first syntax check more often than random bytes).

#![allow(dead_code)]

use proptest::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Values a number in a file may be replaced with: zero, negatives, the edges of the integer
/// types, counts far beyond any sane bound, and the float spellings of NaN and infinity.
pub const NASTY_NUMBERS: &[&str] = &[
    "0",
    "-1",
    "-0",
    "1",
    "1000000000000",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999",
    "1e308",
    "1e-300",
    "-1e308",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "0.5",
    "1.5e12",
];

/// Unit strings the mutator looks for in a file.
pub const UNITS: &[&str] = &[
    "Gbps", "Mbps", "Kbps", "bps", "Gb/s", "GBps", "us", "ns", "ms", "ps", "KB", "MB", "GB", "KiB",
    "MiB", "B",
];

/// What a found unit string may be replaced with: nothing, larger units, unknown units.
pub const NASTY_UNITS: &[&str] =
    &["", "TB", "EB", "Tbps", "Pbps", "XB", "s", "ps", "µs", "zz", "%", "e"];

/// One edit of a text, with indices taken modulo the number of candidates when applied.
#[derive(Clone, Debug)]
pub enum Mutation {
    /// Delete line `i`.
    DeleteLine(usize),
    /// Duplicate line `i` (the copy follows it).
    DuplicateLine(usize),
    /// Swap lines `i` and `j`.
    SwapLines(usize, usize),
    /// Replace the `i`-th number in the text with `NASTY_NUMBERS[j]`.
    Number(usize, usize),
    /// Replace the `i`-th unit string in the text with `NASTY_UNITS[j]`.
    Unit(usize, usize),
    /// Cut the text at (about) byte `i`.
    Truncate(usize),
    /// Insert `s` at (about) byte `i`.
    Insert(usize, String),
}

/// A strategy for one [`Mutation`]; insertions draw from `insert_words`.
pub fn mutation(insert_words: &'static [&'static str]) -> impl Strategy<Value = Mutation> {
    let big = 0usize..10_000;
    prop_oneof![
        1 => big.clone().prop_map(Mutation::DeleteLine),
        1 => big.clone().prop_map(Mutation::DuplicateLine),
        1 => (big.clone(), big.clone()).prop_map(|(i, j)| Mutation::SwapLines(i, j)),
        3 => (big.clone(), 0..NASTY_NUMBERS.len()).prop_map(|(i, j)| Mutation::Number(i, j)),
        2 => (big.clone(), 0..NASTY_UNITS.len()).prop_map(|(i, j)| Mutation::Unit(i, j)),
        1 => big.clone().prop_map(Mutation::Truncate),
        1 => (big, prop::sample::select(insert_words)).prop_map(|(i, w)| Mutation::Insert(i, w.to_string())),
    ]
}

/// A strategy for 1–4 mutations.
pub fn mutations(insert_words: &'static [&'static str]) -> impl Strategy<Value = Vec<Mutation>> {
    prop::collection::vec(mutation(insert_words), 1..5)
}

/// Byte ranges of the numbers in `text` (a run of ASCII digits, with `.` and an exponent, and a
/// leading `-`).
fn number_spans(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let start = if i > 0 && b[i - 1] == b'-' { i - 1 } else { i };
            let mut j = i;
            while j < b.len()
                && (b[j].is_ascii_digit() || b[j] == b'.' || b[j] == b'e' || b[j] == b'E')
            {
                j += 1;
            }
            out.push((start, j));
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// Byte ranges of the unit strings in `text` that directly follow a digit.
fn unit_spans(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    for i in 1..b.len() {
        if !b[i - 1].is_ascii_digit() {
            continue;
        }
        if let Some(u) = UNITS.iter().find(|u| text[i..].starts_with(**u)) {
            out.push((i, i + u.len()));
        }
    }
    out
}

/// The largest char boundary of `text` at or below `i`.
fn boundary(text: &str, i: usize) -> usize {
    let mut i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Apply one mutation.
pub fn apply(text: &str, m: &Mutation) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let n = lines.len().max(1);
    match m {
        Mutation::DeleteLine(i) => {
            lines.iter().enumerate().filter(|(k, _)| *k != i % n).map(|(_, l)| *l).collect()
        }
        Mutation::DuplicateLine(i) => {
            let mut v: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            if let Some(l) = lines.get(i % n) {
                let copy = if l.ends_with('\n') { l.to_string() } else { format!("\n{l}") };
                v.insert(i % n + 1, copy);
            }
            v.concat()
        }
        Mutation::SwapLines(i, j) => {
            let mut v: Vec<String> =
                lines.iter().map(|l| l.trim_end_matches('\n').to_string()).collect();
            if !v.is_empty() {
                v.swap(i % n, j % n);
            }
            v.join("\n")
        }
        Mutation::Number(i, j) => replace_span(text, &number_spans(text), *i, NASTY_NUMBERS[*j]),
        Mutation::Unit(i, j) => replace_span(text, &unit_spans(text), *i, NASTY_UNITS[*j]),
        Mutation::Truncate(i) => text[..boundary(text, i % (text.len() + 1))].to_string(),
        Mutation::Insert(i, s) => {
            let at = boundary(text, i % (text.len() + 1));
            format!("{}{s}{}", &text[..at], &text[at..])
        }
    }
}

fn replace_span(text: &str, spans: &[(usize, usize)], i: usize, with: &str) -> String {
    if spans.is_empty() {
        return text.to_string();
    }
    let (a, b) = spans[i % spans.len()];
    format!("{}{with}{}", &text[..a], &text[b..])
}

/// Apply mutations in order.
pub fn apply_all(text: &str, ms: &[Mutation]) -> String {
    ms.iter().fold(text.to_string(), |t, m| apply(&t, m))
}

/// Arbitrary bytes (up to `max_len`), read as text the way `read_to_string` callers would after a
/// lossy conversion.
pub fn arbitrary_text(max_len: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(any::<u8>(), 0..max_len)
        .prop_map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// Up to `max_words` words of `vocab` joined by spaces and newlines.
pub fn token_soup(
    vocab: &'static [&'static str],
    max_words: usize,
) -> impl Strategy<Value = String> {
    prop::collection::vec((prop::sample::select(vocab), prop::bool::weighted(0.2)), 0..max_words)
        .prop_map(|ws| {
            let mut s = String::new();
            for (w, nl) in ws {
                s.push_str(w);
                s.push(if nl { '\n' } else { ' ' });
            }
            s
        })
}

/// Run `f`; a panic becomes a test failure that shows the input. An `Err` must have a message.
pub fn no_panic<T, F: FnOnce() -> Result<T, String>>(
    what: &str,
    input: &str,
    f: F,
) -> Result<Option<T>, TestCaseError> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(Some(v)),
        Ok(Err(e)) => {
            prop_assert!(!e.trim().is_empty(), "{what}: empty error message for input {input:?}");
            Ok(None)
        }
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
            Err(TestCaseError::fail(format!("{what} panicked ({msg:?}) on input {input:?}")))
        }
    }
}

/// The proptest config of the fuzz properties: `cases` unless `PROPTEST_CASES` is set.
pub fn config(cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(cases);
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}
