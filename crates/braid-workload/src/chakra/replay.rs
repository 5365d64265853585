//! Replaying a trace as Braid workload items: ranks placed on hosts ([`Placement`]), compute
//! nodes as delays ([`ComputeModel`]), collectives decomposed into the messages their algorithm
//! sends ([`CollAlgo`]), sends matched with receives, dependencies kept ([`replay`]).

use super::*;

/// Where ranks run.
#[derive(Clone, Debug, PartialEq)]
pub enum Placement {
    /// Round robin over pods (host groups), filling each pod in host order.
    Spread,
    /// Rank `r` on the `r`-th host.
    Contiguous,
    /// Distinct random hosts (seeded).
    Random,
    /// These hosts, rank by rank.
    Hosts(HostSel),
}

impl Placement {
    /// Parse `spread`, `contiguous`, `random` or a host list (`"0-63,128-191"`).
    pub fn parse(s: &str) -> Result<Placement, String> {
        match s {
            "spread" => Ok(Placement::Spread),
            "contiguous" => Ok(Placement::Contiguous),
            "random" => Ok(Placement::Random),
            other => HostSel::parse(other).map(Placement::Hosts).map_err(|e| {
                format!("`{other}` is neither spread, contiguous, random nor a host list: {e}")
            }),
        }
    }

    /// The host of each of `ranks` ranks on `n_hosts` hosts whose groups (pods) are
    /// `host_groups` (empty: one group).
    pub fn hosts(
        &self,
        ranks: usize,
        n_hosts: usize,
        host_groups: &[u32],
        seed: u64,
    ) -> Result<Vec<u32>, String> {
        if ranks > n_hosts {
            return Err(format!(
                "the trace has {ranks} ranks but the topology only {n_hosts} hosts"
            ));
        }
        Ok(match self {
            Placement::Contiguous => (0..ranks as u32).collect(),
            Placement::Random => {
                let mut rng = Rng::derive(seed, stream::WORKLOAD, crate::patterns::streams::CHAKRA);
                let mut all: Vec<u32> = (0..n_hosts as u32).collect();
                for t in 0..ranks {
                    let j = t + rng.index(n_hosts - t);
                    all.swap(t, j);
                }
                all.truncate(ranks);
                all
            }
            Placement::Hosts(sel) => {
                let h = sel.first(n_hosts, "placement")?;
                if h.len() < ranks {
                    return Err(format!("`placement` lists {} hosts for {ranks} ranks", h.len()));
                }
                h[..ranks].to_vec()
            }
            Placement::Spread => {
                let mut pods: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
                for h in 0..n_hosts as u32 {
                    pods.entry(host_groups.get(h as usize).copied().unwrap_or(0))
                        .or_default()
                        .push(h);
                }
                if pods.len() <= 1 {
                    // One pod: evenly spaced over the hosts.
                    (0..ranks).map(|r| (r * n_hosts / ranks) as u32).collect()
                } else {
                    let pods: Vec<Vec<u32>> = pods.into_values().collect();
                    let mut next = vec![0usize; pods.len()];
                    let mut out = Vec::with_capacity(ranks);
                    let mut p = 0;
                    while out.len() < ranks {
                        if next[p] < pods[p].len() {
                            out.push(pods[p][next[p]]);
                            next[p] += 1;
                        }
                        p = (p + 1) % pods.len();
                    }
                    out
                }
            }
        })
    }
}

/// How compute nodes take time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ComputeModel {
    /// They take none: the replay measures communication alone.
    None,
    /// `duration_micros` (0 when absent).
    Duration,
    /// ASTRA-sim's roofline: `num_ops / min(mem_bw · num_ops / tensor_size, peak)`.
    Roofline {
        /// Peak compute, operations per second.
        peak_ops_per_s: f64,
        /// Local memory bandwidth, bytes (tensor elements) per second.
        mem_per_s: f64,
    },
}

/// How a collective is decomposed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollAlgo {
    /// Around a ring of the members.
    Ring,
    /// Every member to every other at once.
    Direct,
}

impl CollAlgo {
    /// Parse `ring` or `direct`.
    pub fn parse(s: &str) -> Result<CollAlgo, String> {
        match s {
            "ring" => Ok(CollAlgo::Ring),
            "direct" => Ok(CollAlgo::Direct),
            _ => Err(format!("unknown algorithm `{s}` (valid: ring, direct)")),
        }
    }
}

/// Parameters of the `chakra` workload kind.
#[derive(Clone, Debug, PartialEq)]
pub struct ChakraSpec {
    /// The trace: a file prefix or a directory.
    pub trace: PathBuf,
    /// The comm-group file (default `PREFIX.json`).
    pub comm_groups: Option<PathBuf>,
    /// Where ranks run.
    pub placement: Placement,
    /// How compute nodes take time.
    pub compute: ComputeModel,
    /// Bytes per `comm_size` unit.
    pub elem_bytes: f64,
    /// Every message's size is multiplied by this.
    pub size_scale: f64,
    /// All-reduce algorithm.
    pub all_reduce: CollAlgo,
    /// All-gather algorithm.
    pub all_gather: CollAlgo,
    /// Reduce-scatter algorithm.
    pub reduce_scatter: CollAlgo,
    /// When the trace starts.
    pub start: Time,
}

impl ChakraSpec {
    /// Load the trace and build its workload on `n_hosts` hosts in groups (pods)
    /// `host_groups`.
    pub fn generate(
        &self,
        n_hosts: usize,
        host_groups: &[u32],
        seed: u64,
    ) -> Result<Workload, String> {
        let trace = load_trace(&self.trace, self.comm_groups.as_deref())?;
        let hosts = self
            .placement
            .hosts(trace.ranks.len(), n_hosts, host_groups, seed)
            .map_err(|e| format!("field `placement`: {e}"))?;
        replay(&trace, &hosts, self)
    }
}

/// What a node's completion is, as workload items that must complete (empty: time `start`).
type Handle = Vec<u32>;

/// Above this many items a handle is collapsed into one zero-delay task.
const MAX_HANDLE: usize = 8;

struct Builder<'a> {
    wl: Workload,
    spec: &'a ChakraSpec,
    hosts: &'a [u32],
    top: u32,
    jobs: HashMap<&'static str, u32>,
}

impl Builder<'_> {
    fn job(&mut self, name: &'static str) -> u32 {
        if let Some(&j) = self.jobs.get(name) {
            return j;
        }
        let j = self.wl.add_job(name, self.top);
        self.jobs.insert(name, j);
        j
    }

    /// One handle for `items`: themselves, or one zero-delay task that waits for them all.
    fn handle(&mut self, rank: usize, mut items: Vec<u32>) -> Handle {
        items.sort_unstable();
        items.dedup();
        if items.len() <= MAX_HANDLE {
            return items;
        }
        vec![self.wl.add_task(self.hosts[rank], Time::ZERO, &items, self.top)]
    }

    /// A message from rank `a` to rank `b`, waiting for `deps` (a flow without dependencies
    /// starts at the trace's start).
    fn message(&mut self, a: usize, b: usize, bytes: u64, deps: &[u32], job: u32) -> u32 {
        let start = if deps.is_empty() { self.spec.start } else { Time::ZERO };
        self.wl.add_flow(self.hosts[a], self.hosts[b], bytes, start, deps, job)
    }

    fn bytes(&self, size: i64) -> u64 {
        ((size.max(0) as f64) * self.spec.elem_bytes * self.spec.size_scale).round().max(1.0) as u64
    }

    /// The messages of one collective instance among `members` (ranks, sorted), each entering
    /// with `entry[i]`; returns each member's completion handle.
    fn collective(
        &mut self,
        ctype: i64,
        size: i64,
        members: &[usize],
        entry: &[Handle],
    ) -> Result<Vec<Handle>, String> {
        let n = members.len();
        if n == 1 {
            return Ok(entry.to_vec());
        }
        let job = self.job(coll_name(ctype));
        let total = self.bytes(size);
        let algo = match ctype {
            coll_type::ALL_REDUCE => self.spec.all_reduce,
            coll_type::ALL_GATHER => self.spec.all_gather,
            coll_type::REDUCE_SCATTER => self.spec.reduce_scatter,
            coll_type::ALL_TO_ALL => CollAlgo::Direct,
            t => {
                return Err(format!(
                    "collective `{}` ({t}) is not supported (ASTRA-sim neither replays it)",
                    coll_name(t)
                ))
            }
        };
        // A ring all-gather moves the whole per-rank input each step; the others a 1/N chunk.
        let chunks = split_chunks(total, n);
        let gather = ctype == coll_type::ALL_GATHER;
        let mut out = Vec::with_capacity(n);
        match algo {
            CollAlgo::Ring => {
                let steps = if ctype == coll_type::ALL_REDUCE { 2 * (n - 1) } else { n - 1 };
                let mut prev: Vec<u32> = Vec::new();
                for s in 0..steps {
                    let mut cur = Vec::with_capacity(n);
                    for i in 0..n {
                        let b = if gather { total } else { chunks[(i + n - s % n) % n] };
                        let deps: Vec<u32> = if s == 0 {
                            entry[i].clone()
                        } else {
                            vec![prev[i], prev[(i + n - 1) % n]]
                        };
                        cur.push(self.message(members[i], members[(i + 1) % n], b, &deps, job));
                    }
                    prev = cur;
                }
                for i in 0..n {
                    out.push(vec![prev[i], prev[(i + n - 1) % n]]);
                }
            }
            CollAlgo::Direct => {
                // All-gather sends the whole input to each peer; the others a 1/N chunk.
                let phases = if ctype == coll_type::ALL_REDUCE { 2 } else { 1 };
                let mut enter: Vec<Handle> = entry.to_vec();
                for _ in 0..phases {
                    let mut touching: Vec<Vec<u32>> = vec![Vec::with_capacity(2 * (n - 1)); n];
                    for i in 0..n {
                        for j in 0..n {
                            if i != j {
                                let b = if gather { total } else { chunks[j] };
                                let f = self.message(members[i], members[j], b, &enter[i], job);
                                touching[i].push(f);
                                touching[j].push(f);
                            }
                        }
                    }
                    enter = touching
                        .into_iter()
                        .enumerate()
                        .map(|(i, t)| self.handle(members[i], t))
                        .collect();
                }
                out = enter;
            }
        }
        Ok(out)
    }

    /// The delay of compute node `n`.
    fn compute_delay(&self, n: &EtNode) -> Time {
        match self.spec.compute {
            ComputeModel::None => Time::ZERO,
            ComputeModel::Duration => Time::from_us(n.duration_us),
            ComputeModel::Roofline { peak_ops_per_s, mem_per_s } => {
                let (ops, ts) = (
                    n.num_ops.unwrap_or(0).max(0) as f64,
                    n.tensor_size.unwrap_or(0).max(0) as f64,
                );
                if n.duration_us > 0 {
                    Time::from_us(n.duration_us)
                } else if ops <= 0.0 || ts <= 0.0 {
                    Time::ZERO
                } else {
                    let perf = (mem_per_s * ops / ts).min(peak_ops_per_s);
                    Time::from_secs_f64(ops / perf)
                }
            }
        }
    }
}

/// Build the workload of `trace` with rank `r` on host `hosts[r]`.
pub fn replay(trace: &Trace, hosts: &[u32], spec: &ChakraSpec) -> Result<Workload, String> {
    let nr = trace.ranks.len();
    // Index nodes and check dependencies.
    let mut pos: Vec<HashMap<u64, usize>> = Vec::with_capacity(nr);
    for (r, nodes) in trace.ranks.iter().enumerate() {
        let mut m = HashMap::with_capacity(nodes.len());
        for (k, n) in nodes.iter().enumerate() {
            if m.insert(n.id, k).is_some() {
                return Err(format!("rank {r}: node id {} appears twice", n.id));
            }
        }
        for n in nodes {
            if let Some(d) = n.deps.iter().find(|d| !m.contains_key(d)) {
                return Err(format!(
                    "rank {r}: node {} depends on node {d}, which the rank's trace does not have",
                    n.id
                ));
            }
        }
        pos.push(m);
    }
    // Members of each group used, and collective instances: the k-th node (by id) of group g on
    // each member rank.
    let all: Vec<u32> = (0..nr as u32).collect();
    let members_of = |pg: Option<i64>| -> Result<Vec<usize>, String> {
        let ranks = match pg {
            None | Some(0) => &all,
            Some(g) => trace
                .groups
                .get(&g)
                .ok_or_else(|| format!("process group {g} is not in the comm-group file"))?,
        };
        let mut m: Vec<usize> = ranks.iter().map(|&r| r as usize).collect();
        m.sort_unstable();
        m.dedup();
        if let Some(&r) = m.iter().find(|&&r| r >= nr) {
            return Err(format!(
                "process group {} names rank {r}, but the trace has {nr} ranks",
                pg.unwrap_or(0)
            ));
        }
        Ok(m)
    };
    // (group, instance k) -> per member rank: node position.
    let mut instance_of: Vec<HashMap<usize, (i64, usize)>> = vec![HashMap::new(); nr];
    let mut instances: BTreeMap<(i64, usize), Vec<(usize, usize)>> = BTreeMap::new();
    for (r, nodes) in trace.ranks.iter().enumerate() {
        let mut colls: Vec<(u64, usize)> = nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.kind == node_type::COMM_COLL)
            .map(|(k, n)| (n.id, k))
            .collect();
        colls.sort_unstable();
        let mut count: HashMap<i64, usize> = HashMap::new();
        for (_, k) in colls {
            let n = &nodes[k];
            let g = n.pg.unwrap_or(0);
            let members = members_of(n.pg).map_err(|e| format!("rank {r}, node {}: {e}", n.id))?;
            if !members.contains(&r) {
                return Err(format!(
                    "rank {r}, node {}: rank {r} is not a member of process group {g}",
                    n.id
                ));
            }
            if n.comm_type.is_none() || n.comm_size.is_none() {
                return Err(format!(
                    "rank {r}, node {}: a collective without `comm_type` or `comm_size`",
                    n.id
                ));
            }
            let c = count.entry(g).or_insert(0);
            instance_of[r].insert(k, (g, *c));
            instances.entry((g, *c)).or_default().push((r, k));
            *c += 1;
        }
    }
    for ((g, c), parts) in &instances {
        let members = members_of(Some(*g).filter(|&g| g != 0))?;
        let (r0, k0) = parts[0];
        let n0 = &trace.ranks[r0][k0];
        if parts.len() != members.len() {
            let have: Vec<usize> = parts.iter().map(|p| p.0).collect();
            let missing: Vec<usize> =
                members.iter().copied().filter(|m| !have.contains(m)).collect();
            return Err(format!(
                "collective #{c} of process group {g} ({} of {} bytes units, node {} of rank {r0}) has no matching node on rank(s) {missing:?}",
                coll_name(n0.comm_type.unwrap_or(-1)),
                n0.comm_size.unwrap_or(0),
                n0.id
            ));
        }
        for &(r, k) in parts {
            let n = &trace.ranks[r][k];
            if n.comm_type != n0.comm_type || n.comm_size != n0.comm_size {
                return Err(format!(
                    "collective #{c} of process group {g}: rank {r0} node {} is {} of {}, rank {r} node {} is {} of {}",
                    n0.id,
                    coll_name(n0.comm_type.unwrap_or(-1)),
                    n0.comm_size.unwrap_or(0),
                    n.id,
                    coll_name(n.comm_type.unwrap_or(-1)),
                    n.comm_size.unwrap_or(0)
                ));
            }
        }
    }
    // Sends and receives, matched on (src, dst, tag) in id order.
    let mut sends: HashMap<(usize, usize, i64), Vec<(usize, usize)>> = HashMap::new();
    let mut recv_of: HashMap<(usize, usize), (usize, usize, i64, usize)> = HashMap::new();
    let mut recv_count: HashMap<(usize, usize, i64), usize> = HashMap::new();
    for (r, nodes) in trace.ranks.iter().enumerate() {
        let mut order: Vec<(u64, usize)> =
            nodes.iter().enumerate().map(|(k, n)| (n.id, k)).collect();
        order.sort_unstable();
        for (_, k) in order {
            let n = &nodes[k];
            let peer = |v: Option<i64>, what: &str| -> Result<usize, String> {
                match v {
                    Some(p) if p >= 0 && (p as usize) < nr && p as usize != r => Ok(p as usize),
                    Some(p) => Err(format!(
                        "rank {r}, node {}: {what} {p} is not another rank of the trace (0–{})",
                        n.id,
                        nr - 1
                    )),
                    None => Err(format!(
                        "rank {r}, node {}: a point-to-point node without `{what}`",
                        n.id
                    )),
                }
            };
            match n.kind {
                node_type::COMM_SEND => {
                    let d = peer(n.comm_dst, "comm_dst")?;
                    sends.entry((r, d, n.comm_tag.unwrap_or(0))).or_default().push((r, k));
                }
                node_type::COMM_RECV => {
                    let s = peer(n.comm_src, "comm_src")?;
                    let key = (s, r, n.comm_tag.unwrap_or(0));
                    let c = recv_count.entry(key).or_insert(0);
                    recv_of.insert((r, k), (s, r, key.2, *c));
                    *c += 1;
                }
                node_type::COMP
                | node_type::COMM_COLL
                | node_type::METADATA
                | node_type::MEM_LOAD
                | node_type::MEM_STORE => {}
                t => return Err(format!("rank {r}, node {}: unknown node type {t}", n.id)),
            }
        }
    }
    for (&(s, d, tag), &c) in &recv_count {
        let have = sends.get(&(s, d, tag)).map_or(0, Vec::len);
        if have != c {
            return Err(format!("rank {d} receives {c} message(s) from rank {s} with tag {tag}, but rank {s} sends {have}"));
        }
    }
    for (&(s, d, tag), v) in &sends {
        if recv_count.get(&(s, d, tag)).copied().unwrap_or(0) != v.len() {
            return Err(format!("rank {s} sends {} message(s) to rank {d} with tag {tag} that rank {d} never receives", v.len()));
        }
    }
    let mut b = Builder { wl: Workload::new(), spec, hosts, top: 0, jobs: HashMap::new() };
    b.top = b.wl.add_job("chakra", NO_JOB);
    // Global worklist: a node is built once its dependencies are; a collective instance once
    // all its members are ready; a receive once its send's message exists.
    let mut handle: Vec<Vec<Option<Handle>>> =
        trace.ranks.iter().map(|n| vec![None; n.len()]).collect();
    let mut unmet: Vec<Vec<usize>> =
        trace.ranks.iter().map(|n| n.iter().map(|x| x.deps.len()).collect()).collect();
    let mut dependents: Vec<Vec<Vec<usize>>> =
        trace.ranks.iter().map(|n| vec![Vec::new(); n.len()]).collect();
    for (r, nodes) in trace.ranks.iter().enumerate() {
        for (k, n) in nodes.iter().enumerate() {
            for d in &n.deps {
                dependents[r][pos[r][d]].push(k);
            }
        }
    }
    let mut ready: Vec<(usize, usize)> = Vec::new();
    for (r, u) in unmet.iter().enumerate() {
        for (k, &c) in u.iter().enumerate().rev() {
            if c == 0 {
                ready.push((r, k));
            }
        }
    }
    let mut waiting_coll: HashMap<(i64, usize), usize> = HashMap::new();
    let mut send_msg: HashMap<(usize, usize, i64, usize), u32> = HashMap::new();
    let mut send_count: HashMap<(usize, usize, i64), usize> = HashMap::new();
    let mut waiting_recv: HashMap<(usize, usize, i64, usize), (usize, usize)> = HashMap::new();
    let mut built = 0usize;
    let total: usize = trace.ranks.iter().map(Vec::len).sum();
    let entry = |handle: &Vec<Vec<Option<Handle>>>, r: usize, k: usize| -> Vec<u32> {
        let mut v: Vec<u32> = Vec::new();
        for d in &trace.ranks[r][k].deps {
            v.extend(handle[r][pos[r][d]].as_ref().expect("dependency built first"));
        }
        v
    };
    let mut done: Vec<(usize, usize, Handle)> = Vec::new();
    while let Some((r, k)) = ready.pop() {
        let n = &trace.ranks[r][k];
        match n.kind {
            node_type::COMM_COLL => {
                let key = instance_of[r][&k];
                let c = waiting_coll.entry(key).or_insert(0);
                *c += 1;
                let parts = &instances[&key];
                if *c == parts.len() {
                    let mut parts = parts.clone();
                    parts.sort_unstable();
                    let members: Vec<usize> = parts.iter().map(|p| p.0).collect();
                    let mut entries = Vec::with_capacity(parts.len());
                    for &(pr, pk) in &parts {
                        let e = entry(&handle, pr, pk);
                        entries.push(b.handle(pr, e));
                    }
                    let outs = b
                        .collective(
                            n.comm_type.unwrap_or(-1),
                            n.comm_size.unwrap_or(0),
                            &members,
                            &entries,
                        )
                        .map_err(|e| format!("rank {r}, node {}: {e}", n.id))?;
                    for (&(pr, pk), h) in parts.iter().zip(outs) {
                        done.push((pr, pk, h));
                    }
                }
            }
            node_type::COMM_SEND => {
                let d = n.comm_dst.unwrap_or(0) as usize;
                let tag = n.comm_tag.unwrap_or(0);
                let c = send_count.entry((r, d, tag)).or_insert(0);
                let key = (r, d, tag, *c);
                *c += 1;
                let deps = entry(&handle, r, k);
                let deps = b.handle(r, deps);
                let job = b.job("send-recv");
                let bytes = b.bytes(n.comm_size.unwrap_or(0));
                let f = b.message(r, d, bytes, &deps, job);
                send_msg.insert(key, f);
                done.push((r, k, vec![f]));
                if let Some((rr, rk)) = waiting_recv.remove(&key) {
                    let mut e = entry(&handle, rr, rk);
                    e.push(f);
                    let h = b.handle(rr, e);
                    done.push((rr, rk, h));
                }
            }
            node_type::COMM_RECV => {
                let key = recv_of[&(r, k)];
                match send_msg.get(&key) {
                    Some(&f) => {
                        let mut e = entry(&handle, r, k);
                        e.push(f);
                        let h = b.handle(r, e);
                        done.push((r, k, h));
                    }
                    None => {
                        waiting_recv.insert(key, (r, k));
                    }
                }
            }
            _ => {
                let e = entry(&handle, r, k);
                let delay = if n.kind == node_type::COMP { b.compute_delay(n) } else { Time::ZERO };
                let h = if delay > Time::ZERO {
                    let e = b.handle(r, e);
                    let d = if e.is_empty() { spec.start + delay } else { delay };
                    vec![b.wl.add_task(hosts[r], d, &e, b.top)]
                } else {
                    b.handle(r, e)
                };
                done.push((r, k, h));
            }
        }
        for (dr, dk, h) in done.drain(..) {
            handle[dr][dk] = Some(h);
            built += 1;
            for &x in &dependents[dr][dk] {
                unmet[dr][x] -= 1;
                if unmet[dr][x] == 0 {
                    ready.push((dr, x));
                }
            }
        }
    }
    if built < total {
        let (r, k) = (0..nr)
            .flat_map(|r| (0..trace.ranks[r].len()).map(move |k| (r, k)))
            .find(|&(r, k)| handle[r][k].is_none())
            .expect("some node is unbuilt");
        let n = &trace.ranks[r][k];
        let why = if unmet[r][k] > 0 {
            "its dependencies never complete (a cycle)".to_string()
        } else if n.kind == node_type::COMM_COLL {
            "it waits for the other members of its collective, which never get there (a cycle across ranks)".to_string()
        } else {
            "it waits for a message that is never sent (a cycle across ranks)".to_string()
        };
        return Err(format!(
            "{} of {total} nodes can never run: e.g. rank {r}, node {}: {why}",
            total - built,
            n.id
        ));
    }
    if b.wl.flows.iter().all(|f| f.size_bytes == 0) {
        return Err("the trace has no communication".into());
    }
    Ok(b.wl)
}
