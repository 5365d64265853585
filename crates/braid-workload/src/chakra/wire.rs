//! Reading the Chakra ET wire format: length-prefixed protobuf messages (varints, fields by
//! number), a `GlobalMetadata` then `Node`s with their attributes by name, into [`EtNode`]s.

use super::*;

/// Chakra node types (`NodeType` of `et_def.proto`).
pub mod node_type {
    /// Metadata.
    pub const METADATA: u32 = 1;
    /// Memory load.
    pub const MEM_LOAD: u32 = 2;
    /// Memory store.
    pub const MEM_STORE: u32 = 3;
    /// Compute.
    pub const COMP: u32 = 4;
    /// Point-to-point send.
    pub const COMM_SEND: u32 = 5;
    /// Point-to-point receive.
    pub const COMM_RECV: u32 = 6;
    /// Collective.
    pub const COMM_COLL: u32 = 7;
}

/// Chakra collective types (`CollectiveCommType`).
pub mod coll_type {
    /// All-reduce.
    pub const ALL_REDUCE: i64 = 0;
    /// All-gather.
    pub const ALL_GATHER: i64 = 2;
    /// All-to-all.
    pub const ALL_TO_ALL: i64 = 6;
    /// Reduce-scatter.
    pub const REDUCE_SCATTER: i64 = 7;
}

/// The name of a collective type, for messages and job names.
pub fn coll_name(t: i64) -> &'static str {
    match t {
        0 => "all-reduce",
        1 => "reduce",
        2 => "all-gather",
        3 => "gather",
        4 => "scatter",
        5 => "broadcast",
        6 => "all-to-all",
        7 => "reduce-scatter",
        8 => "reduce-scatter-block",
        9 => "barrier",
        _ => "unknown",
    }
}

/// One node of a rank's trace, with the fields a network replay reads.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EtNode {
    /// Node id (unique within the rank).
    pub id: u64,
    /// `NodeType`.
    pub kind: u32,
    /// Data and control dependencies (node ids of the same rank).
    pub deps: Vec<u64>,
    /// `duration_micros`.
    pub duration_us: u64,
    /// `comm_type` (collectives).
    pub comm_type: Option<i64>,
    /// `comm_size`.
    pub comm_size: Option<i64>,
    /// Process group: `pg_name` (a decimal id) or `comm_group`.
    pub pg: Option<i64>,
    /// `comm_src` (receives).
    pub comm_src: Option<i64>,
    /// `comm_dst` (sends).
    pub comm_dst: Option<i64>,
    /// `comm_tag`.
    pub comm_tag: Option<i64>,
    /// `num_ops` (compute).
    pub num_ops: Option<i64>,
    /// `tensor_size` (compute).
    pub tensor_size: Option<i64>,
}

/// A protobuf reader over one message body (the wire format, without generated code).
struct Wire<'a> {
    buf: &'a [u8],
    pos: usize,
}

/// One field of a message: its number and its value.
enum Val<'a> {
    Varint(u64),
    Fixed64(u64),
    Fixed32(u32),
    Bytes(&'a [u8]),
}

impl<'a> Wire<'a> {
    fn new(buf: &'a [u8]) -> Wire<'a> {
        Wire { buf, pos: 0 }
    }

    fn varint(&mut self) -> Result<u64, String> {
        let mut v = 0u64;
        for i in 0..10 {
            let b = *self.buf.get(self.pos).ok_or("truncated varint")?;
            self.pos += 1;
            v |= ((b & 0x7F) as u64) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("varint longer than 10 bytes".into())
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or("a field runs past the end of its message")?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn next(&mut self) -> Result<Option<(u32, Val<'a>)>, String> {
        if self.pos >= self.buf.len() {
            return Ok(None);
        }
        let key = self.varint()?;
        let field = (key >> 3) as u32;
        let v = match key & 7 {
            0 => Val::Varint(self.varint()?),
            1 => Val::Fixed64(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes"))),
            2 => {
                let n = self.varint()?;
                Val::Bytes(self.take(usize::try_from(n).map_err(|_| "length too large")?)?)
            }
            5 => Val::Fixed32(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes"))),
            w => return Err(format!("field {field} has wire type {w}, which Chakra does not use")),
        };
        Ok(Some((field, v)))
    }
}

/// Packed or unpacked repeated varints.
fn push_varints(v: Val, out: &mut Vec<u64>) -> Result<(), String> {
    match v {
        Val::Varint(x) => out.push(x),
        Val::Bytes(b) => {
            let mut w = Wire::new(b);
            while w.pos < b.len() {
                out.push(w.varint()?);
            }
        }
        _ => return Err("a dependency list is not a list of integers".into()),
    }
    Ok(())
}

/// An attribute's name and its value as an integer (any integer case of the oneof, a bool, or a
/// decimal string) or a string.
fn read_attr(b: &[u8]) -> Result<(String, Option<i64>, Option<String>), String> {
    let mut w = Wire::new(b);
    let (mut name, mut int, mut text) = (String::new(), None, None);
    while let Some((f, v)) = w.next()? {
        match (f, v) {
            (1, Val::Bytes(s)) => name = String::from_utf8_lossy(s).into_owned(),
            // int32, int64, uint32, uint64, bool (varints; int32 is sign-extended to 64 bits)
            (7 | 9 | 11 | 13 | 27, Val::Varint(x)) => int = Some(x as i64),
            // sint32, sint64 (ZigZag)
            (15 | 17, Val::Varint(x)) => int = Some(((x >> 1) as i64) ^ -((x & 1) as i64)),
            (19 | 23, Val::Fixed32(x)) => {
                int = Some(if f == 23 { x as i32 as i64 } else { x as i64 })
            }
            (21 | 25, Val::Fixed64(x)) => int = Some(x as i64),
            (3, Val::Fixed64(x)) => int = Some(f64::from_bits(x) as i64),
            (5, Val::Fixed32(x)) => int = Some(f32::from_bits(x) as i64),
            (29, Val::Bytes(s)) => text = Some(String::from_utf8_lossy(s).into_owned()),
            _ => {}
        }
    }
    Ok((name, int, text))
}

fn read_node(b: &[u8]) -> Result<EtNode, String> {
    let mut w = Wire::new(b);
    let mut n = EtNode::default();
    while let Some((f, v)) = w.next()? {
        match (f, v) {
            (1, Val::Varint(x)) => n.id = x,
            (3, Val::Varint(x)) => n.kind = x as u32,
            (4 | 5, v) => push_varints(v, &mut n.deps)?,
            (7, Val::Varint(x)) => n.duration_us = x,
            (10, Val::Bytes(a)) => {
                let (name, int, text) = read_attr(a)?;
                let int =
                    int.or_else(|| text.as_deref().and_then(|t| t.trim().parse::<i64>().ok()));
                match name.as_str() {
                    "comm_type" => n.comm_type = int,
                    "comm_size" => n.comm_size = int,
                    "pg_name" | "comm_group" => {
                        if let Some(t) = text.as_deref().filter(|t| t.trim().is_empty()) {
                            let _ = t; // an empty pg_name: no group
                        } else {
                            n.pg = int.or(n.pg);
                            if int.is_none() && text.is_some() {
                                return Err(format!(
                                    "pg_name {:?} is not a comm-group id",
                                    text.unwrap_or_default()
                                ));
                            }
                        }
                    }
                    "comm_src" => n.comm_src = int,
                    "comm_dst" => n.comm_dst = int,
                    "comm_tag" => n.comm_tag = int,
                    "num_ops" => n.num_ops = int,
                    "tensor_size" => n.tensor_size = int,
                    _ => {}
                }
            }
            _ => {}
        }
    }
    n.deps.sort_unstable();
    n.deps.dedup();
    Ok(n)
}

/// Read one rank's trace (plain or gzip bytes). `name` is for messages.
pub fn read_et(bytes: &[u8], name: &str) -> Result<Vec<EtNode>, String> {
    let plain;
    let data: &[u8] = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(bytes)
            .read_to_end(&mut out)
            .map_err(|e| format!("{name}: not a readable gzip file: {e}"))?;
        plain = out;
        &plain
    } else {
        bytes
    };
    if data.is_empty() {
        return Err(format!("{name}: empty file (a Chakra ET starts with its GlobalMetadata)"));
    }
    let mut w = Wire::new(data);
    let mut nodes = Vec::new();
    let mut first = true;
    while w.pos < data.len() {
        let at = w.pos;
        let len = w.varint().map_err(|e| format!("{name}: byte {at}: message length: {e}"))?;
        let body = w
            .take(usize::try_from(len).unwrap_or(usize::MAX))
            .map_err(|_| format!("{name}: byte {at}: a message of {len} bytes runs past the end of the file ({} bytes): truncated?", data.len()))?;
        if first {
            first = false;
            // GlobalMetadata: only checked to be a well-formed message.
            let mut m = Wire::new(body);
            while m.next().map_err(|e| format!("{name}: GlobalMetadata: {e}"))?.is_some() {}
            continue;
        }
        let node = read_node(body).map_err(|e| format!("{name}: node at byte {at}: {e}"))?;
        nodes.push(node);
    }
    Ok(nodes)
}
