//! Loading a trace: every rank's `PREFIX.<rank>.et` (gzip or plain) and the process groups of
//! the comm-group file `PREFIX.json`, into a [`Trace`].

use super::*;

/// Parse a comm-group file: `{"<id>": [rank, …], …}`.
pub fn read_comm_groups(text: &str, name: &str) -> Result<BTreeMap<i64, Vec<u32>>, String> {
    let err = |at: usize, what: &str| {
        format!("{name}: byte {at}: {what} (expected {{\"<group id>\": [rank, …], …}})")
    };
    let b = text.as_bytes();
    let mut i = 0;
    let ws = |i: &mut usize| {
        while *i < b.len() && b[*i].is_ascii_whitespace() {
            *i += 1;
        }
    };
    let mut groups = BTreeMap::new();
    ws(&mut i);
    if b.get(i) != Some(&b'{') {
        return Err(err(i, "not a JSON object"));
    }
    i += 1;
    loop {
        ws(&mut i);
        match b.get(i) {
            Some(b'}') => break,
            Some(b'"') => {}
            _ => return Err(err(i, "a group id in quotes")),
        }
        let s = i + 1;
        let e = s + text[s..].find('"').ok_or_else(|| err(i, "an unterminated string"))?;
        let id: i64 = text[s..e]
            .trim()
            .parse()
            .map_err(|_| err(s, &format!("group id `{}` is not an integer", &text[s..e])))?;
        i = e + 1;
        ws(&mut i);
        if b.get(i) != Some(&b':') {
            return Err(err(i, "`:`"));
        }
        i += 1;
        ws(&mut i);
        if b.get(i) != Some(&b'[') {
            return Err(err(i, "a list of ranks"));
        }
        let s = i + 1;
        let e = s + text[s..].find(']').ok_or_else(|| err(i, "an unterminated list"))?;
        let mut ranks = Vec::new();
        for t in text[s..e].split(',').map(str::trim).filter(|t| !t.is_empty()) {
            ranks.push(t.parse::<u32>().map_err(|_| {
                err(s, &format!("rank `{t}` of group {id} is not a non-negative integer"))
            })?);
        }
        if groups.insert(id, ranks).is_some() {
            return Err(err(s, &format!("group {id} is given twice")));
        }
        i = e + 1;
        ws(&mut i);
        match b.get(i) {
            Some(b',') => i += 1,
            Some(b'}') => break,
            _ => return Err(err(i, "`,` or `}`")),
        }
    }
    Ok(groups)
}

/// A whole trace: every rank's nodes and the process groups.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// Nodes by rank.
    pub ranks: Vec<Vec<EtNode>>,
    /// Process groups by id.
    pub groups: BTreeMap<i64, Vec<u32>>,
}

/// The file prefix of a trace given as a prefix (`dir/moe7b`, files `dir/moe7b.0.et`, …) or as
/// a directory holding the files of one prefix.
pub fn trace_prefix(path: &Path) -> Result<PathBuf, String> {
    if path.is_dir() {
        let mut prefixes: Vec<String> = std::fs::read_dir(path)
            .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .filter_map(|n| n.strip_suffix(".0.et").map(str::to_string))
            .collect();
        prefixes.sort();
        return match prefixes.as_slice() {
            [p] => Ok(path.join(p)),
            [] => Err(format!("`{}` holds no Chakra trace (no `*.0.et` file)", path.display())),
            _ => Err(format!(
                "`{}` holds several traces ({}); name one as `{}/PREFIX`",
                path.display(),
                prefixes.join(", "),
                path.display()
            )),
        };
    }
    Ok(path.to_path_buf())
}

/// Load every rank of the trace at `prefix` and its comm-group file (`groups`, or
/// `PREFIX.json` when it exists; none means every collective spans every rank).
pub fn load_trace(prefix: &Path, groups: Option<&Path>) -> Result<Trace, String> {
    let prefix = trace_prefix(prefix)?;
    let mut ranks = Vec::new();
    loop {
        let p = PathBuf::from(format!("{}.{}.et", prefix.display(), ranks.len()));
        if !p.exists() {
            break;
        }
        let bytes = std::fs::read(&p).map_err(|e| format!("cannot read `{}`: {e}", p.display()))?;
        ranks.push(read_et(&bytes, &p.display().to_string())?);
    }
    if ranks.is_empty() {
        return Err(format!(
            "no Chakra trace at `{}` (expected `{}.0.et`, `.1.et`, …)",
            prefix.display(),
            prefix.display()
        ));
    }
    let gpath = groups.map(Path::to_path_buf).or_else(|| {
        let p = PathBuf::from(format!("{}.json", prefix.display()));
        p.exists().then_some(p)
    });
    let groups = match gpath {
        None => BTreeMap::new(),
        Some(p) => {
            let t = std::fs::read_to_string(&p)
                .map_err(|e| format!("cannot read comm-group file `{}`: {e}", p.display()))?;
            read_comm_groups(&t, &p.display().to_string())?
        }
    };
    Ok(Trace { ranks, groups })
}
