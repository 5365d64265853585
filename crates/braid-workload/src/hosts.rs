//! Host selections: which hosts take part in a pattern.
//!
//! Written in a scenario as an integer (a count) or a string list of indices and inclusive ranges,
//! `"0-15,32,40-47"`, or `"all"`. Host indices are 0-based in the topology's host order.

use braid_core::Rng;

/// A selection of hosts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostSel {
    /// Every host of the topology.
    All,
    /// A number of hosts; each pattern documents which ones (the first `n`, or `n` at random).
    Count(u32),
    /// Exactly these hosts, in this order (no duplicates).
    List(Vec<u32>),
}

impl HostSel {
    /// Parse `"all"`, a count `"16"`, or a list `"0-15,32"`. A list with one element is written
    /// `"5-5"` or `"5,"`, since a bare number is a count.
    pub fn parse(s: &str) -> Result<HostSel, String> {
        let t = s.trim();
        if t.eq_ignore_ascii_case("all") {
            return Ok(HostSel::All);
        }
        if !t.is_empty() && t.chars().all(|c| c.is_ascii_digit()) {
            return t
                .parse::<u32>()
                .map(HostSel::Count)
                .map_err(|_| format!("host count `{t}` is too large"));
        }
        let mut out: Vec<u32> = Vec::new();
        for part in t.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (a, b) = match part.split_once('-') {
                Some((a, b)) => (a.trim(), b.trim()),
                None => (part, part),
            };
            let a: u32 = a
                .parse()
                .map_err(|_| format!("`{part}` in host list `{t}` is not an index or range"))?;
            let b: u32 = b
                .parse()
                .map_err(|_| format!("`{part}` in host list `{t}` is not an index or range"))?;
            if b < a {
                return Err(format!("range `{part}` in host list `{t}` is backwards"));
            }
            if (b - a) as usize > 10_000_000 {
                return Err(format!("range `{part}` in host list `{t}` is too large"));
            }
            out.extend(a..=b);
        }
        if out.is_empty() {
            return Err(format!(
                "host list `{t}` is empty (write `all`, a count, or e.g. `0-15,32`)"
            ));
        }
        let mut sorted = out.clone();
        sorted.sort_unstable();
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!("host {} appears twice in host list `{t}`", w[0]));
        }
        Ok(HostSel::List(out))
    }

    /// Resolve to host indices: `All` → `0..n_hosts`; `Count(k)` → the first `k` hosts; `List` as
    /// given. Errors name `field` when a host does not exist or the count exceeds the topology.
    pub fn first(&self, n_hosts: usize, field: &str) -> Result<Vec<u32>, String> {
        match self {
            HostSel::All => Ok((0..n_hosts as u32).collect()),
            HostSel::Count(k) => {
                if *k as usize > n_hosts {
                    return Err(format!(
                        "field `{field}`: {k} hosts requested but the topology has {n_hosts}"
                    ));
                }
                Ok((0..*k).collect())
            }
            HostSel::List(v) => {
                check_list(v, n_hosts, field)?;
                Ok(v.clone())
            }
        }
    }

    /// Resolve like [`HostSel::first`], except that `Count(k)` picks `k` distinct hosts at random
    /// from `0..n_hosts` minus `exclude`.
    pub fn random(
        &self,
        n_hosts: usize,
        exclude: &[u32],
        field: &str,
        rng: &mut Rng,
    ) -> Result<Vec<u32>, String> {
        match self {
            HostSel::Count(k) => {
                let mut pool: Vec<u32> =
                    (0..n_hosts as u32).filter(|h| !exclude.contains(h)).collect();
                if *k as usize > pool.len() {
                    return Err(format!(
                        "field `{field}`: {k} hosts requested but only {} are available",
                        pool.len()
                    ));
                }
                // Partial Fisher–Yates: the first k entries become a uniform random k-subset.
                for i in 0..*k as usize {
                    let j = i + rng.index(pool.len() - i);
                    pool.swap(i, j);
                }
                pool.truncate(*k as usize);
                Ok(pool)
            }
            HostSel::All => Ok((0..n_hosts as u32).filter(|h| !exclude.contains(h)).collect()),
            HostSel::List(v) => {
                check_list(v, n_hosts, field)?;
                Ok(v.clone())
            }
        }
    }
}

fn check_list(v: &[u32], n_hosts: usize, field: &str) -> Result<(), String> {
    if let Some(&h) = v.iter().find(|&&h| h as usize >= n_hosts) {
        return Err(format!(
            "field `{field}`: host {h} does not exist (the topology has {n_hosts} hosts, 0..{})",
            n_hosts.saturating_sub(1)
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lists() {
        assert_eq!(HostSel::parse("all").unwrap(), HostSel::All);
        assert_eq!(HostSel::parse("16").unwrap(), HostSel::Count(16));
        assert_eq!(HostSel::parse("0-3, 7,9-9").unwrap(), HostSel::List(vec![0, 1, 2, 3, 7, 9]));
        assert_eq!(HostSel::parse("5,").unwrap(), HostSel::List(vec![5]));
        assert!(HostSel::parse("3-1").unwrap_err().contains("backwards"));
        assert!(HostSel::parse("1,1").unwrap_err().contains("twice"));
        assert!(HostSel::parse("a-b").is_err());
        assert!(HostSel::parse("").is_err());
        let e = HostSel::List(vec![1, 200]).first(128, "hosts").unwrap_err();
        assert!(e.contains("host 200 does not exist") && e.contains("`hosts`"), "{e}");
        assert!(HostSel::Count(200).first(128, "hosts").is_err());
        let mut r = Rng::new(1);
        let v = HostSel::Count(5).random(10, &[0], "senders", &mut r).unwrap();
        assert_eq!(v.len(), 5);
        assert!(!v.contains(&0));
        assert!(HostSel::Count(10).random(10, &[0], "senders", &mut r).is_err());
    }
}
