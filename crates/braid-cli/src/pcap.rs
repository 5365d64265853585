//! Packet capture as a classic pcap file (`output.pcap = [link, …]` → `DIR/capture.pcap`).
//!
//! The file uses the nanosecond-resolution magic (`0xa1b23c4d`, little-endian), link type 1
//! (Ethernet), and one record per packet that *started crossing* a chosen link (either
//! direction), stamped with the simulated time its first bit left the port. Each record is a
//! synthetic RoCEv2 frame so that Wireshark and tshark dissect it:
//!
//! | layer | contents |
//! |---|---|
//! | Ethernet | dst/src MAC `02:00:` + the node id (big-endian, 32 bits), EtherType IPv4 |
//! | IPv4 | src/dst = [`node_ip`] of the sending/receiving host (the HPCC ns-3 addressing), TTL 64 − hops, DSCP 0, ECN: CE when a switch marked the packet, ECT(0) otherwise; a correct header checksum |
//! | UDP | source port = the packet's entropy (the value ECMP hashes), destination port 4791 (RoCEv2), checksum 0 |
//! | BTH | opcode (below), QPN = 0x100 + flow id, PSN (24 bits), AckReq set on data, FECN = CE, BECN on ACKs that echo a CE mark, P_Key 0xffff |
//!
//! Opcodes (InfiniBand RC):
//! - data: SEND First (0x00) / Middle (0x01) / Last (0x02) / Only (0x04) by PSN and the
//!   packet's last-of-message flag;
//! - ACK / NAK: ACKNOWLEDGE (0x11) followed by an AETH whose syndrome is 0x1f for an ACK, 0x1e
//!   for the ACK of a capacity probe, and 0x60 (NAK, PSN sequence error) for a NAK; the AETH's
//!   MSN field carries the cumulative ACK (the receiver's next expected PSN, mod 2^24) and the BTH
//!   PSN is the PSN being acknowledged;
//! - probes, pulls (credits) and request-to-send: SEND Only with Immediate (0x05), the 4-byte
//!   immediate being ASCII `PROB`, `PULL` or `RTS ` respectively.
//!
//! Only the headers are stored (the record's captured length); the record's original length is
//! the full frame: headers + payload + 4-byte ICRC, so Wireshark reports the true sizes and marks
//! the payload as not captured. Retransmitted data is otherwise identical to the original (same
//! PSN), as on a real wire.

use std::io::{self, Write};

use braid_core::packet::flags;
use braid_core::{Packet, PacketKind};
use braid_proto::hash::{node_ip, ROCE_DPORT};

/// Writes a classic pcap stream (nanosecond timestamps, Ethernet link type).
pub struct PcapWriter<W: Write> {
    w: W,
}

impl<W: Write> PcapWriter<W> {
    /// Start a capture: writes the global header.
    pub fn new(mut w: W) -> io::Result<Self> {
        w.write_all(&0xa1b2_3c4du32.to_le_bytes())?; // nanosecond magic
        w.write_all(&2u16.to_le_bytes())?; // version 2.4
        w.write_all(&4u16.to_le_bytes())?;
        w.write_all(&0i32.to_le_bytes())?; // this zone
        w.write_all(&0u32.to_le_bytes())?; // sigfigs
        w.write_all(&65_535u32.to_le_bytes())?; // snaplen
        w.write_all(&1u32.to_le_bytes())?; // LINKTYPE_ETHERNET
        Ok(PcapWriter { w })
    }

    /// Append one record: `frame` is what was captured, `orig_len` the frame's length on the wire.
    pub fn record(&mut self, t_ns: u64, frame: &[u8], orig_len: u32) -> io::Result<()> {
        self.w.write_all(&((t_ns / 1_000_000_000) as u32).to_le_bytes())?;
        self.w.write_all(&((t_ns % 1_000_000_000) as u32).to_le_bytes())?;
        self.w.write_all(&(frame.len() as u32).to_le_bytes())?;
        self.w.write_all(&orig_len.max(frame.len() as u32).to_le_bytes())?;
        self.w.write_all(frame)
    }

    /// Flush and return the inner writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.w.flush()?;
        Ok(self.w)
    }
}

/// The BTH opcode Braid writes for a packet (see the module docs).
pub fn opcode(p: &Packet) -> u8 {
    match p.kind {
        PacketKind::Data => {
            let last = p.flags & flags::LAST != 0;
            match (p.psn == 0, last) {
                (true, true) => 0x04,
                (true, false) => 0x00,
                (false, true) => 0x02,
                (false, false) => 0x01,
            }
        }
        PacketKind::Ack | PacketKind::Nak => 0x11,
        PacketKind::Probe | PacketKind::Pull | PacketKind::Rts => 0x05,
    }
}

/// The QPN Braid writes for a flow.
pub fn qpn(flow: u32) -> u32 {
    (0x100 + flow) & 0x00ff_ffff
}

/// Build the synthetic frame headers of `p` into `buf` (cleared first) and return the frame's
/// full length on the wire. `payload` is the number of bytes the packet carries after its
/// transport headers (application data; the probe's padding).
pub fn frame(p: &Packet, payload: u32, buf: &mut Vec<u8>) -> u32 {
    buf.clear();
    let mac = |n: u32| [0x02, 0x00, (n >> 24) as u8, (n >> 16) as u8, (n >> 8) as u8, n as u8];
    buf.extend_from_slice(&mac(p.dst.0));
    buf.extend_from_slice(&mac(p.src.0));
    buf.extend_from_slice(&[0x08, 0x00]);
    let op = opcode(p);
    let ext: usize = if p.kind == PacketKind::Data { 0 } else { 4 }; // AETH or immediate
    let ip_len = 20 + 8 + 12 + ext + payload as usize + 4;
    // IPv4
    let ip_start = buf.len();
    let ecn = if p.ecn_ce() { 0b11 } else { 0b10 };
    buf.extend_from_slice(&[0x45, ecn]);
    buf.extend_from_slice(&(ip_len.min(65_535) as u16).to_be_bytes());
    buf.extend_from_slice(&[0, 0, 0x40, 0]); // id 0, don't fragment
    buf.extend_from_slice(&[64u8.saturating_sub(p.hops), 17, 0, 0]);
    buf.extend_from_slice(&node_ip(p.src.0).to_be_bytes());
    buf.extend_from_slice(&node_ip(p.dst.0).to_be_bytes());
    let mut sum: u32 = buf[ip_start..ip_start + 20]
        .chunks(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]) as u32)
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    let ck = !(sum as u16);
    buf[ip_start + 10..ip_start + 12].copy_from_slice(&ck.to_be_bytes());
    // UDP
    buf.extend_from_slice(&p.entropy.to_be_bytes());
    buf.extend_from_slice(&ROCE_DPORT.to_be_bytes());
    buf.extend_from_slice(&((ip_len - 20).min(65_535) as u16).to_be_bytes());
    buf.extend_from_slice(&[0, 0]);
    // BTH: opcode, SE|M|Pad|TVer, P_Key, F|B|resv6 + DestQP, A|resv7 + PSN
    buf.extend_from_slice(&[op, 0, 0xff, 0xff]);
    let is_ack = matches!(p.kind, PacketKind::Ack | PacketKind::Nak);
    let fecn = if p.ecn_ce() { 0x80 } else { 0 };
    let becn = if is_ack && p.flags & flags::ECN_ECHO != 0 { 0x40 } else { 0 };
    let q = qpn(p.flow.0);
    buf.extend_from_slice(&[fecn | becn, (q >> 16) as u8, (q >> 8) as u8, q as u8]);
    let areq = if p.kind == PacketKind::Data { 0x80 } else { 0 };
    let psn = p.psn & 0x00ff_ffff;
    buf.extend_from_slice(&[areq, (psn >> 16) as u8, (psn >> 8) as u8, psn as u8]);
    match p.kind {
        PacketKind::Ack | PacketKind::Nak => {
            let syndrome = if p.kind == PacketKind::Nak {
                0x60
            } else if p.flags & flags::PROBE_ACK != 0 {
                0x1e
            } else {
                0x1f
            };
            let msn = p.cum_ack & 0x00ff_ffff;
            buf.extend_from_slice(&[syndrome, (msn >> 16) as u8, (msn >> 8) as u8, msn as u8]);
        }
        PacketKind::Probe => buf.extend_from_slice(b"PROB"),
        PacketKind::Pull => buf.extend_from_slice(b"PULL"),
        PacketKind::Rts => buf.extend_from_slice(b"RTS "),
        PacketKind::Data => {}
    }
    14 + ip_len as u32
}

/// Write `records` (time in picoseconds, egress port, packet) as a pcap stream. `header_bytes`
/// is the scenario's per-packet header allowance (`network.header`), subtracted from a packet's
/// wire size to find the payload of probes and control packets.
pub fn write_capture<W: Write>(
    w: W,
    records: &[(u64, u32, Packet)],
    header_bytes: u32,
) -> io::Result<W> {
    let mut pw = PcapWriter::new(w)?;
    let mut buf = Vec::with_capacity(128);
    for (t_ps, _port, p) in records {
        let payload = match p.kind {
            PacketKind::Data => p.payload_bytes(header_bytes),
            PacketKind::Probe => p.size_bytes.saturating_sub(header_bytes),
            _ => 0,
        };
        let len = frame(p, payload, &mut buf);
        pw.record(t_ps / 1000, &buf, len)?;
    }
    pw.finish()
}
