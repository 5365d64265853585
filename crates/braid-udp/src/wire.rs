//! The datagram format, version 1 (`docs/udp.md`, "Packet format"): every field big-endian, an
//! 8-byte common header, then a body fixed by the kind. Decoding never panics: a datagram that is
//! too short, carries another magic, another version or an unknown kind is an [`WireError`].
//!
//! ```text
//! common   0  magic "BD" | 2 version | 3 kind | 4 session (u32)
//! DATA     8  psn u32 | 12 path u16 | 14 entropy u16 | 16 flags u8 | 17 hops u8 | 18 CE u8 | 19 pad u8
//!          20 ts_sent ns u64 | 28 pull_target u32 | 32 payload …           (PROBE: the same, MTU-padded)
//! ACK/NAK  8  psn u32 | 12 cum_ack u32 | 16 ood u32 | 20 path u16 | 22 entropy u16 | 24 flags u8
//!          25 hops u8 | 26 pad u16 | 28 ts_sent ns u64 | 36 ts_rx ns u64 | 44 sack u64      (52 B)
//! HELLO    8  size u64 | 16 mtu u32 | 20 header u32 | 24 rx mode u8 | 25 sack_below u8
//!          26 held_echo u8 | 27 pad u8
//!          28 nak_interval ns u64 | 36 ack_every_bytes u64 | 44 reorder buffer u64 | 52 stream seed u64
//!          60 ts ns u64 | 68 pull rate b/s u64 | 76 pulls to target u8 | 77 name length u8 | 78 name
//! HELLO_OK 8  ts echo u64 | 16 receiver ts u64
//! PATH     8  path u16 | 10 ts u64                    PATH_OK: the same, echoed
//! FIN      8  digest u64 | 16 packets u32
//! FIN_OK   8  digest, delivered bytes, OOD mean ×1000, duplicates, drops, corrupt, arrivals (u64 each)
//!          64 packets, OOD max, OOD p99, next expected PSN (u32 each)                        (80 B)
//! REFUSE   8  reason u8 | 9 version spoken u8 | 10 text length u8 | 11 text
//! RTS      the DATA header, no payload (PSN = credit asked for)   PULL: the ACK layout (PSN = pull number)
//! ```

use braid_core::PacketKind;

/// The two bytes every Braid datagram starts with.
pub const MAGIC: [u8; 2] = *b"BD";
/// The format version this build speaks.
pub const VERSION: u8 = 1;
/// Bytes of a data (or probe) packet's header before its payload.
pub const DATA_HEADER_BYTES: usize = 32;
/// Bytes of an ACK or NAK.
pub const ACK_BYTES: usize = 52;
/// The largest datagram Braid sends or accepts.
pub const MAX_DATAGRAM: usize = 9000;

/// What a datagram is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    /// Application data.
    Data = 1,
    /// A capacity probe (no payload; padded to the MTU).
    Probe = 2,
    /// A positive acknowledgement.
    Ack = 3,
    /// A negative acknowledgement.
    Nak = 4,
    /// Sender → receiver: open a transfer.
    Hello = 5,
    /// Receiver → sender: the transfer is open.
    HelloOk = 6,
    /// Sender → receiver: everything was acknowledged; here is the sender's digest.
    Fin = 7,
    /// Receiver → sender: its report.
    FinOk = 8,
    /// Receiver → sender: the transfer is refused (other version, unknown transport, busy).
    Refuse = 9,
    /// Sender → receiver on one path's socket: announce the path and measure its round trip.
    Path = 10,
    /// The echo of [`Kind::Path`].
    PathOk = 11,
    /// Sender → receiver: request to send (receiver-driven transports, EQDS): the PSN field
    /// says how many packets' worth of credit it asks for. Header only.
    Rts = 12,
    /// Receiver → sender: one pull credit (EQDS); the PSN field is the cumulative pull number.
    /// Laid out as an ACK.
    Pull = 13,
}

impl Kind {
    fn from_u8(b: u8) -> Option<Kind> {
        Some(match b {
            1 => Kind::Data,
            2 => Kind::Probe,
            3 => Kind::Ack,
            4 => Kind::Nak,
            5 => Kind::Hello,
            6 => Kind::HelloOk,
            7 => Kind::Fin,
            8 => Kind::FinOk,
            9 => Kind::Refuse,
            10 => Kind::Path,
            11 => Kind::PathOk,
            12 => Kind::Rts,
            13 => Kind::Pull,
            _ => return None,
        })
    }
}

/// Why a datagram could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WireError {
    /// Not a Braid datagram (other magic) or shorter than the common header.
    Foreign,
    /// A Braid datagram of another format version.
    Version(u8),
    /// A kind this version does not know.
    UnknownKind(u8),
    /// Shorter than its kind's body.
    Truncated,
    /// A field out of its range (e.g. a transport name that is not UTF-8).
    Malformed(&'static str),
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WireError::Foreign => write!(f, "not a Braid datagram"),
            WireError::Version(v) => {
                write!(f, "Braid packet format version {v} (this build speaks {VERSION})")
            }
            WireError::UnknownKind(k) => write!(f, "unknown datagram kind {k}"),
            WireError::Truncated => write!(f, "truncated datagram"),
            WireError::Malformed(what) => write!(f, "malformed datagram: {what}"),
        }
    }
}

/// The common header of a datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Common {
    /// What it is.
    pub kind: Kind,
    /// The transfer it belongs to.
    pub session: u32,
}

/// Read the common header.
pub fn common(b: &[u8]) -> Result<Common, WireError> {
    if b.len() < 8 || b[0..2] != MAGIC {
        return Err(WireError::Foreign);
    }
    if b[2] != VERSION {
        return Err(WireError::Version(b[2]));
    }
    let kind = Kind::from_u8(b[3]).ok_or(WireError::UnknownKind(b[3]))?;
    Ok(Common { kind, session: be32(b, 4) })
}

fn put_common(b: &mut [u8], kind: Kind, session: u32) {
    b[0..2].copy_from_slice(&MAGIC);
    b[2] = VERSION;
    b[3] = kind as u8;
    b[4..8].copy_from_slice(&session.to_be_bytes());
}

#[inline]
fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}
#[inline]
fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}
#[inline]
fn be64(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_be_bytes(w)
}

/// The header of a data packet or probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataHeader {
    /// Probe or data.
    pub probe: bool,
    /// Sequence number.
    pub psn: u32,
    /// Logical path index.
    pub path: u16,
    /// The sender's entropy value for the path (what a fabric would hash).
    pub entropy: u16,
    /// [`braid_core::packet::flags`] of a data packet.
    pub flags: u8,
    /// Switch hops (0 on a host-to-host link; an emulator may count itself).
    pub hops: u8,
    /// Congestion experienced: a queue on the way marked it (the emulator's ECN; byte 18 is 1).
    pub ce: bool,
    /// The sender's send time, nanoseconds of its clock.
    pub ts_sent_ns: u64,
    /// Receiver-driven transports' pull target (0 otherwise).
    pub pull_target: u32,
}

/// Write a data or probe header into `b[..DATA_HEADER_BYTES]` (the payload follows).
pub fn put_data(b: &mut [u8], session: u32, h: &DataHeader) {
    put_common(b, if h.probe { Kind::Probe } else { Kind::Data }, session);
    b[8..12].copy_from_slice(&h.psn.to_be_bytes());
    b[12..14].copy_from_slice(&h.path.to_be_bytes());
    b[14..16].copy_from_slice(&h.entropy.to_be_bytes());
    b[16] = h.flags;
    b[17] = h.hops;
    b[18] = h.ce as u8;
    b[19] = 0;
    b[20..28].copy_from_slice(&h.ts_sent_ns.to_be_bytes());
    b[28..32].copy_from_slice(&h.pull_target.to_be_bytes());
}

/// Write a header-only RTS (the data header layout; `h.psn` is the credit asked for).
pub fn put_rts(b: &mut [u8], session: u32, h: &DataHeader) {
    put_data(b, session, h);
    b[3] = Kind::Rts as u8;
}

/// Read a data or probe header (after [`common`] said it is one).
pub fn data(b: &[u8]) -> Result<DataHeader, WireError> {
    if b.len() < DATA_HEADER_BYTES {
        return Err(WireError::Truncated);
    }
    Ok(DataHeader {
        probe: b[3] == Kind::Probe as u8,
        psn: be32(b, 8),
        path: be16(b, 12),
        entropy: be16(b, 14),
        flags: b[16],
        hops: b[17],
        ce: b[18] != 0,
        ts_sent_ns: be64(b, 20),
        pull_target: be32(b, 28),
    })
}

/// An acknowledgement on the wire: [`braid_proto::receiver::AckOut`] with times in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckWire {
    /// ACK or NAK.
    pub nak: bool,
    /// PSN acknowledged.
    pub psn: u32,
    /// Next expected PSN.
    pub cum_ack: u32,
    /// The flow's OOD after the arrival.
    pub ood: u32,
    /// Logical path echoed.
    pub path: u16,
    /// Entropy echoed.
    pub entropy: u16,
    /// [`braid_core::packet::flags`]: ECN echo, probe ACK, reorder buffer full.
    pub flags: u8,
    /// Hops echoed.
    pub hops: u8,
    /// Echo of the data packet's send time (sender's clock, ns).
    pub ts_sent_ns: u64,
    /// When the receiver got the data packet (receiver's clock, ns).
    pub ts_rx_ns: u64,
    /// SACK bitmap.
    pub sack: u64,
}

/// Write an ACK/NAK into `b[..ACK_BYTES]`.
pub fn put_ack(b: &mut [u8], session: u32, a: &AckWire) {
    put_common(b, if a.nak { Kind::Nak } else { Kind::Ack }, session);
    b[8..12].copy_from_slice(&a.psn.to_be_bytes());
    b[12..16].copy_from_slice(&a.cum_ack.to_be_bytes());
    b[16..20].copy_from_slice(&a.ood.to_be_bytes());
    b[20..22].copy_from_slice(&a.path.to_be_bytes());
    b[22..24].copy_from_slice(&a.entropy.to_be_bytes());
    b[24] = a.flags;
    b[25] = a.hops;
    b[26..28].fill(0);
    b[28..36].copy_from_slice(&a.ts_sent_ns.to_be_bytes());
    b[36..44].copy_from_slice(&a.ts_rx_ns.to_be_bytes());
    b[44..52].copy_from_slice(&a.sack.to_be_bytes());
}

/// Write a pull (the ACK layout, kind PULL) into `b[..ACK_BYTES]`.
pub fn put_pull(b: &mut [u8], session: u32, a: &AckWire) {
    put_ack(b, session, a);
    b[3] = Kind::Pull as u8;
}

/// Read an ACK/NAK (after [`common`] said it is one).
pub fn ack(b: &[u8]) -> Result<AckWire, WireError> {
    if b.len() < ACK_BYTES {
        return Err(WireError::Truncated);
    }
    Ok(AckWire {
        nak: b[3] == Kind::Nak as u8,
        psn: be32(b, 8),
        cum_ack: be32(b, 12),
        ood: be32(b, 16),
        path: be16(b, 20),
        entropy: be16(b, 22),
        flags: b[24],
        hops: b[25],
        ts_sent_ns: be64(b, 28),
        ts_rx_ns: be64(b, 36),
        sack: be64(b, 44),
    })
}

/// The kind of the sans-IO ACK for a wire ACK.
pub fn ack_kind(a: &AckWire) -> PacketKind {
    if a.nak {
        PacketKind::Nak
    } else {
        PacketKind::Ack
    }
}

/// How the receiver treats out-of-order packets, as the sender asks for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxModeWire {
    /// Hold out-of-order packets.
    Selective,
    /// Go-back-N with this NAK interval.
    GoBackN {
        /// Minimum time between two NAKs of one hole, ns.
        nak_interval_ns: u64,
    },
}

/// A transfer's opening: what the receiver must set up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    /// Bytes the transfer carries.
    pub size_bytes: u64,
    /// Payload bytes per packet.
    pub mtu_bytes: u32,
    /// Header bytes a packet counts for besides its payload (for ACK coalescing's byte count).
    pub header_bytes: u32,
    /// Receiver mode.
    pub rx_mode: RxModeWire,
    /// Per-packet ACKs carry the SACK bitmap below the acknowledged PSN.
    pub sack_below: bool,
    /// ACKs echo the packets held above the cumulative ACK instead of the OOD
    /// (`Receiver::with_held_echo`).
    pub held_echo: bool,
    /// Coalesce ACKs, one per this many wire bytes (0: an ACK per packet).
    pub ack_every_bytes: u64,
    /// The receiver's reorder buffer, bytes.
    pub reorder_buffer_bytes: u64,
    /// Seed of the byte stream (both ends generate it; see [`crate::stream`]).
    pub stream_seed: u64,
    /// The sender's clock when sent, ns.
    pub ts_ns: u64,
    /// Receiver-driven transports: the rate the receiver paces pull credits at (its NIC's, as
    /// in the simulator), b/s; 0 when the transport is not pulled.
    pub pull_rate_bps: u64,
    /// Receiver-driven: pull up to the target each data packet carries rather than once per
    /// packet.
    pub pulls_to_target: bool,
    /// The transport's name (for the receiver's log and report).
    pub transport: String,
}

/// Bytes of a HELLO before the transport name.
const HELLO_FIXED: usize = 78;

/// Write a HELLO; returns its length.
pub fn put_hello(b: &mut [u8], session: u32, h: &Hello) -> usize {
    put_common(b, Kind::Hello, session);
    b[8..16].copy_from_slice(&h.size_bytes.to_be_bytes());
    b[16..20].copy_from_slice(&h.mtu_bytes.to_be_bytes());
    b[20..24].copy_from_slice(&h.header_bytes.to_be_bytes());
    let (mode, nak) = match h.rx_mode {
        RxModeWire::Selective => (0u8, 0u64),
        RxModeWire::GoBackN { nak_interval_ns } => (1, nak_interval_ns),
    };
    b[24] = mode;
    b[25] = h.sack_below as u8;
    b[26] = h.held_echo as u8;
    b[27] = 0;
    b[28..36].copy_from_slice(&nak.to_be_bytes());
    b[36..44].copy_from_slice(&h.ack_every_bytes.to_be_bytes());
    b[44..52].copy_from_slice(&h.reorder_buffer_bytes.to_be_bytes());
    b[52..60].copy_from_slice(&h.stream_seed.to_be_bytes());
    b[60..68].copy_from_slice(&h.ts_ns.to_be_bytes());
    b[68..76].copy_from_slice(&h.pull_rate_bps.to_be_bytes());
    b[76] = h.pulls_to_target as u8;
    let name = &h.transport.as_bytes()[..h.transport.len().min(64)];
    b[77] = name.len() as u8;
    b[HELLO_FIXED..HELLO_FIXED + name.len()].copy_from_slice(name);
    HELLO_FIXED + name.len()
}

/// Read a HELLO.
pub fn hello(b: &[u8]) -> Result<Hello, WireError> {
    if b.len() < HELLO_FIXED {
        return Err(WireError::Truncated);
    }
    let n = b[77] as usize;
    let name = b.get(HELLO_FIXED..HELLO_FIXED + n).ok_or(WireError::Truncated)?;
    let transport = std::str::from_utf8(name)
        .map_err(|_| WireError::Malformed("transport name is not UTF-8"))?
        .to_string();
    let rx_mode = match b[24] {
        0 => RxModeWire::Selective,
        1 => RxModeWire::GoBackN { nak_interval_ns: be64(b, 28) },
        _ => return Err(WireError::Malformed("receiver mode")),
    };
    let mtu_bytes = be32(b, 16);
    if mtu_bytes == 0 || mtu_bytes as usize + DATA_HEADER_BYTES > MAX_DATAGRAM {
        return Err(WireError::Malformed("MTU out of range"));
    }
    Ok(Hello {
        size_bytes: be64(b, 8),
        mtu_bytes,
        header_bytes: be32(b, 20),
        rx_mode,
        sack_below: b[25] != 0,
        held_echo: b[26] != 0,
        ack_every_bytes: be64(b, 36),
        reorder_buffer_bytes: be64(b, 44),
        stream_seed: be64(b, 52),
        ts_ns: be64(b, 60),
        pull_rate_bps: be64(b, 68),
        pulls_to_target: b[76] != 0,
        transport,
    })
}

/// Write a HELLO_OK (the sender's timestamp echoed, the receiver's clock).
pub fn put_hello_ok(b: &mut [u8], session: u32, echo_ns: u64, rx_ns: u64) -> usize {
    put_common(b, Kind::HelloOk, session);
    b[8..16].copy_from_slice(&echo_ns.to_be_bytes());
    b[16..24].copy_from_slice(&rx_ns.to_be_bytes());
    24
}

/// Read a HELLO_OK: (echoed sender time, receiver time).
pub fn hello_ok(b: &[u8]) -> Result<(u64, u64), WireError> {
    if b.len() < 24 {
        return Err(WireError::Truncated);
    }
    Ok((be64(b, 8), be64(b, 16)))
}

/// Write a PATH or PATH_OK.
pub fn put_path(b: &mut [u8], ok: bool, session: u32, path: u16, ts_ns: u64) -> usize {
    put_common(b, if ok { Kind::PathOk } else { Kind::Path }, session);
    b[8..10].copy_from_slice(&path.to_be_bytes());
    b[10..18].copy_from_slice(&ts_ns.to_be_bytes());
    18
}

/// Read a PATH or PATH_OK: (path, timestamp).
pub fn path(b: &[u8]) -> Result<(u16, u64), WireError> {
    if b.len() < 18 {
        return Err(WireError::Truncated);
    }
    Ok((be16(b, 8), be64(b, 10)))
}

/// Write a FIN: the digest of the stream the sender sent and its packet count.
pub fn put_fin(b: &mut [u8], session: u32, digest: u64, packets: u32) -> usize {
    put_common(b, Kind::Fin, session);
    b[8..16].copy_from_slice(&digest.to_be_bytes());
    b[16..20].copy_from_slice(&packets.to_be_bytes());
    20
}

/// Read a FIN: (digest, packets).
pub fn fin(b: &[u8]) -> Result<(u64, u32), WireError> {
    if b.len() < 20 {
        return Err(WireError::Truncated);
    }
    Ok((be64(b, 8), be32(b, 16)))
}

/// What the receiver saw of a transfer (carried by FIN_OK).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxReport {
    /// Digest of the delivered stream ([`crate::stream::Digest`]).
    pub digest: u64,
    /// Payload bytes delivered (each PSN once).
    pub delivered_bytes: u64,
    /// Distinct data packets accepted.
    pub packets: u32,
    /// Largest OOD of the receiving NIC seen at a data arrival.
    pub ood_max: u32,
    /// 99th percentile of the NIC OOD over data arrivals.
    pub ood_p99: u32,
    /// Mean NIC OOD over data arrivals, in thousandths.
    pub ood_mean_milli: u64,
    /// Data packets that had already arrived (spurious retransmissions or duplicates).
    pub duplicates: u64,
    /// Data packets dropped because the reorder buffer was full (or out of order under go-back-N).
    pub rx_drops: u64,
    /// Data packets whose payload differed from the stream (corrupted or foreign).
    pub corrupt: u64,
    /// Data and probe arrivals.
    pub arrivals: u64,
    /// The receiver's next expected PSN (every packet below it was delivered in order).
    pub cum_packets: u32,
}

/// Bytes of a FIN_OK.
pub const FIN_OK_BYTES: usize = 8 + 7 * 8 + 4 * 4;

/// Write a FIN_OK.
pub fn put_fin_ok(b: &mut [u8], session: u32, r: &RxReport) -> usize {
    put_common(b, Kind::FinOk, session);
    let mut at = 8;
    for v in [
        r.digest,
        r.delivered_bytes,
        r.ood_mean_milli,
        r.duplicates,
        r.rx_drops,
        r.corrupt,
        r.arrivals,
    ] {
        b[at..at + 8].copy_from_slice(&v.to_be_bytes());
        at += 8;
    }
    for v in [r.packets, r.ood_max, r.ood_p99, r.cum_packets] {
        b[at..at + 4].copy_from_slice(&v.to_be_bytes());
        at += 4;
    }
    at
}

/// Read a FIN_OK.
pub fn fin_ok(b: &[u8]) -> Result<RxReport, WireError> {
    if b.len() < FIN_OK_BYTES {
        return Err(WireError::Truncated);
    }
    let q = |i: usize| be64(b, 8 + 8 * i);
    let d = |i: usize| be32(b, 64 + 4 * i);
    Ok(RxReport {
        digest: q(0),
        delivered_bytes: q(1),
        ood_mean_milli: q(2),
        duplicates: q(3),
        rx_drops: q(4),
        corrupt: q(5),
        arrivals: q(6),
        packets: d(0),
        ood_max: d(1),
        ood_p99: d(2),
        cum_packets: d(3),
    })
}

/// Why a receiver refused a transfer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum RefuseReason {
    /// It speaks another version (the version byte says which).
    Version = 1,
    /// The HELLO asked for something it cannot do (the text says what).
    Unsupported = 2,
    /// It is serving another transfer.
    Busy = 3,
}

/// Write a REFUSE with a short reason text.
pub fn put_refuse(b: &mut [u8], session: u32, reason: RefuseReason, text: &str) -> usize {
    put_common(b, Kind::Refuse, session);
    b[8] = reason as u8;
    b[9] = VERSION;
    let t = &text.as_bytes()[..text.len().min(200)];
    b[10] = t.len() as u8;
    b[11..11 + t.len()].copy_from_slice(t);
    11 + t.len()
}

/// A REFUSE in a form that old and new versions both read: the common header's version byte may
/// differ, so this reads bytes 8.. without [`common`]. Returns (reason byte, version spoken, text).
pub fn refuse(b: &[u8]) -> Option<(u8, u8, String)> {
    if b.len() < 11 || b[0..2] != MAGIC || b[3] != Kind::Refuse as u8 {
        return None;
    }
    let n = b[10] as usize;
    let text =
        b.get(11..11 + n).map(|t| String::from_utf8_lossy(t).into_owned()).unwrap_or_default();
    Some((b[8], b[9], text))
}

/// Mark a data packet's congestion-experienced byte and count a hop (what an emulated switch
/// does to a datagram in place); no-op on anything shorter than a data header.
pub fn mark_hop(b: &mut [u8], ce: bool) {
    if b.len() >= DATA_HEADER_BYTES {
        b[17] = b[17].saturating_add(1);
        if ce {
            b[18] = 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use braid_core::packet::flags;
    use proptest::prelude::*;

    #[test]
    fn data_and_ack_round_trip() {
        let mut b = [0u8; 64];
        let h = DataHeader {
            probe: false,
            psn: 7,
            path: 3,
            entropy: 49_155,
            flags: flags::RETX | flags::LAST,
            hops: 1,
            ce: true,
            ts_sent_ns: 123_456_789,
            pull_target: 9,
        };
        put_data(&mut b, 42, &h);
        assert_eq!(common(&b).unwrap(), Common { kind: Kind::Data, session: 42 });
        assert_eq!(data(&b).unwrap(), h);
        let a = AckWire {
            nak: true,
            psn: 5,
            cum_ack: 3,
            ood: 2,
            path: 1,
            entropy: 7,
            flags: flags::PROBE_ACK,
            hops: 2,
            ts_sent_ns: 11,
            ts_rx_ns: 22,
            sack: 0xF0F0,
        };
        put_ack(&mut b, 42, &a);
        assert_eq!(common(&b).unwrap().kind, Kind::Nak);
        assert_eq!(ack(&b).unwrap(), a);
    }

    #[test]
    fn hello_fin_refuse_round_trip() {
        let mut b = [0u8; 256];
        let h = Hello {
            size_bytes: 1 << 30,
            mtu_bytes: 1000,
            header_bytes: 64,
            rx_mode: RxModeWire::GoBackN { nak_interval_ns: 4000 },
            sack_below: true,
            held_echo: true,
            ack_every_bytes: 16_384,
            reorder_buffer_bytes: 1_200_000,
            stream_seed: 99,
            ts_ns: 5,
            pull_rate_bps: 100_000_000,
            pulls_to_target: true,
            transport: "rondo".into(),
        };
        let n = put_hello(&mut b, 1, &h);
        assert_eq!(hello(&b[..n]).unwrap(), h);
        assert_eq!(hello(&b[..n - 1]), Err(WireError::Truncated));
        let r = RxReport {
            digest: 1,
            delivered_bytes: 2,
            packets: 3,
            ood_max: 4,
            ood_p99: 5,
            ood_mean_milli: 6,
            duplicates: 7,
            rx_drops: 8,
            corrupt: 9,
            arrivals: 10,
            cum_packets: 11,
        };
        let n = put_fin_ok(&mut b, 1, &r);
        assert_eq!(n, FIN_OK_BYTES);
        assert_eq!(fin_ok(&b[..n]).unwrap(), r);
        let n = put_refuse(&mut b, 1, RefuseReason::Unsupported, "no such transport");
        assert_eq!(refuse(&b[..n]), Some((2, VERSION, "no such transport".into())));
    }

    #[test]
    fn foreign_and_other_versions_are_named() {
        assert_eq!(common(b"hello world"), Err(WireError::Foreign));
        assert_eq!(common(b"BD\x02\x01\0\0\0\0"), Err(WireError::Version(2)));
        assert_eq!(common(b"BD\x01\x63\0\0\0\0"), Err(WireError::UnknownKind(0x63)));
    }

    proptest! {
        /// Any byte string decodes to a value or an error, never a panic.
        #[test]
        fn decoding_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..120), kind in 0u8..15) {
            let mut b = bytes.clone();
            if b.len() >= 4 {
                b[0..2].copy_from_slice(&MAGIC);
                b[2] = VERSION;
                b[3] = kind;
            }
            for v in [&bytes, &b] {
                if let Ok(c) = common(v) {
                    let _ = match c.kind {
                        Kind::Data | Kind::Probe | Kind::Rts => data(v).map(|_| ()),
                        Kind::Ack | Kind::Nak | Kind::Pull => ack(v).map(|_| ()),
                        Kind::Hello => hello(v).map(|_| ()),
                        Kind::HelloOk => hello_ok(v).map(|_| ()),
                        Kind::Fin => fin(v).map(|_| ()),
                        Kind::FinOk => fin_ok(v).map(|_| ()),
                        Kind::Path | Kind::PathOk => path(v).map(|_| ()),
                        Kind::Refuse => Ok(()),
                    };
                }
                let _ = refuse(v);
            }
        }
    }
}
