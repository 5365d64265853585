//! Small readers for Braid's own output files: `summary.json` (a flat-ish JSON object, read back
//! in field order) and CSV files (header + rows of plain or quoted cells). They read what Braid
//! writes; they are not general JSON/CSV libraries.

use std::path::Path;

/// A summary.json value as text: numbers keep the exact text Braid wrote, so a table built
/// from files is byte-stable.
#[derive(Clone, Debug, PartialEq)]
pub enum JsonVal {
    /// A number, string, boolean or null, as text (strings unescaped).
    Scalar(String),
    /// A nested object, in file order.
    Obj(Vec<(String, JsonVal)>),
    /// An array (kept as its JSON text).
    Array(String),
}

/// Parse a JSON object into its fields in file order.
pub fn parse_json_object(text: &str) -> Result<Vec<(String, JsonVal)>, String> {
    let b = text.as_bytes();
    let mut i = 0;
    skip_ws(b, &mut i);
    let v = parse_obj(b, &mut i)?;
    match v {
        JsonVal::Obj(f) => Ok(f),
        _ => Err("not a JSON object".into()),
    }
}

/// Flatten an object: nested objects become `outer.inner` keys.
pub fn flatten(fields: &[(String, JsonVal)]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    fn go(prefix: &str, fields: &[(String, JsonVal)], out: &mut Vec<(String, String)>) {
        for (k, v) in fields {
            let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
            match v {
                JsonVal::Scalar(s) | JsonVal::Array(s) => out.push((key, s.clone())),
                JsonVal::Obj(f) => go(&key, f, out),
            }
        }
    }
    go("", fields, &mut out);
    out
}

/// Read and flatten a `summary.json`.
pub fn read_summary(path: &Path) -> Result<Vec<(String, String)>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    parse_json_object(&text).map(|f| flatten(&f)).map_err(|e| format!("`{}`: {e}", path.display()))
}

fn skip_ws(b: &[u8], i: &mut usize) {
    while *i < b.len() && b[*i].is_ascii_whitespace() {
        *i += 1;
    }
}

fn parse_obj(b: &[u8], i: &mut usize) -> Result<JsonVal, String> {
    if b.get(*i) != Some(&b'{') {
        return Err(format!("expected `{{` at byte {i}"));
    }
    *i += 1;
    let mut fields = Vec::new();
    loop {
        skip_ws(b, i);
        match b.get(*i) {
            Some(b'}') => {
                *i += 1;
                return Ok(JsonVal::Obj(fields));
            }
            Some(b',') => {
                *i += 1;
                continue;
            }
            Some(b'"') => {}
            _ => return Err(format!("expected a key at byte {i}")),
        }
        let k = parse_str(b, i)?;
        skip_ws(b, i);
        if b.get(*i) != Some(&b':') {
            return Err(format!("expected `:` at byte {i}"));
        }
        *i += 1;
        skip_ws(b, i);
        let v = parse_val(b, i)?;
        fields.push((k, v));
    }
}

fn parse_val(b: &[u8], i: &mut usize) -> Result<JsonVal, String> {
    match b.get(*i) {
        Some(b'{') => parse_obj(b, i),
        Some(b'"') => Ok(JsonVal::Scalar(parse_str(b, i)?)),
        Some(b'[') => {
            let start = *i;
            let mut depth = 0i32;
            let mut in_str = false;
            while *i < b.len() {
                let c = b[*i];
                if in_str {
                    if c == b'\\' {
                        *i += 1;
                    } else if c == b'"' {
                        in_str = false;
                    }
                } else if c == b'"' {
                    in_str = true;
                } else if c == b'[' {
                    depth += 1;
                } else if c == b']' {
                    depth -= 1;
                    if depth == 0 {
                        *i += 1;
                        return Ok(JsonVal::Array(
                            String::from_utf8_lossy(&b[start..*i]).into_owned(),
                        ));
                    }
                }
                *i += 1;
            }
            Err("unterminated array".into())
        }
        Some(_) => {
            let start = *i;
            while *i < b.len()
                && !matches!(b[*i], b',' | b'}' | b']')
                && !b[*i].is_ascii_whitespace()
            {
                *i += 1;
            }
            if start == *i {
                return Err(format!("expected a value at byte {start}"));
            }
            Ok(JsonVal::Scalar(String::from_utf8_lossy(&b[start..*i]).into_owned()))
        }
        None => Err("unexpected end".into()),
    }
}

fn parse_str(b: &[u8], i: &mut usize) -> Result<String, String> {
    *i += 1;
    let mut out = Vec::new();
    while *i < b.len() {
        let c = b[*i];
        *i += 1;
        match c {
            b'"' => return Ok(String::from_utf8_lossy(&out).into_owned()),
            b'\\' => {
                let e = *b.get(*i).ok_or("unterminated escape")?;
                *i += 1;
                match e {
                    b'n' => out.push(b'\n'),
                    b't' => out.push(b'\t'),
                    b'r' => out.push(b'\r'),
                    b'u' => {
                        let hex = std::str::from_utf8(b.get(*i..*i + 4).ok_or("short \\u escape")?)
                            .map_err(|e| e.to_string())?;
                        let cp = u32::from_str_radix(hex, 16).map_err(|e| e.to_string())?;
                        *i += 4;
                        let ch = char::from_u32(cp).unwrap_or('\u{fffd}');
                        let mut tmp = [0u8; 4];
                        out.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
                    }
                    other => out.push(other),
                }
            }
            _ => out.push(c),
        }
    }
    Err("unterminated string".into())
}

/// A CSV table: header and rows of cells (strings).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Csv {
    /// Column names.
    pub header: Vec<String>,
    /// Rows, each as long as the header (short rows are padded with empty cells).
    pub rows: Vec<Vec<String>>,
}

impl Csv {
    /// Parse CSV text (RFC 4180 quoting).
    pub fn parse(text: &str) -> Csv {
        let mut lines = split_records(text).into_iter();
        let header = lines.next().unwrap_or_default();
        let n = header.len();
        let rows = lines
            .filter(|r| !(r.len() == 1 && r[0].is_empty()))
            .map(|mut r| {
                r.resize(n.max(r.len()), String::new());
                r
            })
            .collect();
        Csv { header, rows }
    }

    /// Read a CSV file.
    pub fn read(path: &Path) -> Result<Csv, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        Ok(Csv::parse(&text))
    }

    /// Index of a column.
    pub fn col(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    /// A column's values parsed as numbers (`None` where empty or not a number).
    pub fn numbers(&self, name: &str) -> Option<Vec<Option<f64>>> {
        let c = self.col(name)?;
        Some(
            self.rows.iter().map(|r| r.get(c).and_then(|s| s.trim().parse::<f64>().ok())).collect(),
        )
    }
}

fn split_records(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut row = Vec::new();
    let mut cell = String::new();
    let mut in_q = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if in_q {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    cell.push('"');
                    chars.next();
                } else {
                    in_q = false;
                }
            } else {
                cell.push(c);
            }
            continue;
        }
        match c {
            '"' => in_q = true,
            ',' => row.push(std::mem::take(&mut cell)),
            '\r' => {}
            '\n' => {
                row.push(std::mem::take(&mut cell));
                out.push(std::mem::take(&mut row));
            }
            _ => cell.push(c),
        }
    }
    if !cell.is_empty() || !row.is_empty() {
        row.push(cell);
        out.push(row);
    }
    out
}

/// Quote a CSV cell if needed.
pub fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Whether `file` in run folder `dir` is older than the run: written before the run's
/// `scenario.resolved.toml`, which a run writes first (after removing an earlier run's files,
/// [`crate::run::clear_run_outputs`]). Such a file is not the run's: `braid plot` and `braid
/// report` leave it out and say so. False outside a run folder or when a time is unreadable.
pub fn older_than_run(dir: &std::path::Path, file: &std::path::Path) -> bool {
    let mtime = |p: &std::path::Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    match (mtime(&dir.join("scenario.resolved.toml")), mtime(file)) {
        (Some(run), Some(f)) => f < run,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_round_trip() {
        let j = "{\n  \"scenario\": \"a \\\"b\\\"\",\n  \"seed\": 1,\n  \"x\": 1.5,\n  \"drops\": {\"buffer\": 0, \"link\": 2},\n  \"ok\": true\n}\n";
        let f = flatten(&parse_json_object(j).unwrap());
        assert_eq!(
            f,
            vec![
                ("scenario".into(), "a \"b\"".into()),
                ("seed".into(), "1".into()),
                ("x".into(), "1.5".into()),
                ("drops.buffer".into(), "0".into()),
                ("drops.link".into(), "2".into()),
                ("ok".into(), "true".into()),
            ]
        );
    }

    #[test]
    fn csv_quotes() {
        let c = Csv::parse("a,b\n1,\"x,y\"\n2,\"q\"\"\"\n");
        assert_eq!(
            c.rows,
            vec![vec!["1".to_string(), "x,y".into()], vec!["2".into(), "q\"".into()]]
        );
        assert_eq!(csv_cell("x,y"), "\"x,y\"");
    }
}
