//! The byte stream a transfer carries and its end-to-end check. Both ends generate the stream
//! from the HELLO's seed: packet `psn` carries `min(mtu, size − psn·mtu)` bytes whose 8-byte
//! word `j` is `mix(seed + psn·2³² + j)` (little-endian, the last word cut short). The receiver
//! hashes every packet it accepts as it arrived and checks it against the hash of what the
//! stream holds at that PSN (a mismatch is a corrupt or foreign packet, refused like a loss);
//! the [`Digest`] of a transfer is the wrapping sum of the accepted packets' hashes, each PSN
//! once — so the sender's and the receiver's digests agree exactly when every byte arrived once.

use braid_core::rng::mix64;

#[inline]
fn word(seed: u64, psn: u32, j: u64) -> u64 {
    mix64(seed.wrapping_add(((psn as u64) << 32) | j))
}

/// Payload bytes of packet `psn` of a `size_bytes` stream cut in `mtu`-byte packets.
pub fn payload_len(size_bytes: u64, mtu: u32, psn: u32) -> u32 {
    size_bytes.saturating_sub(psn as u64 * mtu as u64).min(mtu as u64) as u32
}

/// Write packet `psn`'s payload into `out` (its length is the payload length).
pub fn fill(seed: u64, psn: u32, out: &mut [u8]) {
    let mut chunks = out.chunks_exact_mut(8);
    let mut j = 0u64;
    for c in &mut chunks {
        c.copy_from_slice(&word(seed, psn, j).to_le_bytes());
        j += 1;
    }
    let rest = chunks.into_remainder();
    if !rest.is_empty() {
        let w = word(seed, psn, j).to_le_bytes();
        let n = rest.len();
        rest.copy_from_slice(&w[..n]);
    }
}

#[inline]
fn absorb(h: u64, w: u64) -> u64 {
    (h.rotate_left(23) ^ w).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// The hash of packet `psn` carrying `bytes`.
pub fn packet_hash(psn: u32, bytes: &[u8]) -> u64 {
    let mut h = mix64(psn as u64 ^ 0x5bd1_e995_0000_0000);
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = absorb(h, u64::from_le_bytes(w));
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        h = absorb(h, u64::from_le_bytes(w));
    }
    mix64(h ^ bytes.len() as u64)
}

/// The hash packet `psn` of the stream has (what [`packet_hash`] gives on its true payload of
/// `len` bytes), computed without materialising the payload.
pub fn expected_hash(seed: u64, psn: u32, len: u32) -> u64 {
    let mut h = mix64(psn as u64 ^ 0x5bd1_e995_0000_0000);
    let full = len as u64 / 8;
    for j in 0..full {
        h = absorb(h, word(seed, psn, j));
    }
    let rest = len as u64 % 8;
    if rest > 0 {
        let w = word(seed, psn, full) & ((1u64 << (8 * rest)) - 1);
        h = absorb(h, w);
    }
    mix64(h ^ len as u64)
}

/// The order-independent digest of a set of packets: the wrapping sum of their hashes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Digest(pub u64);

impl Digest {
    /// Count one packet's hash.
    #[inline]
    pub fn add(&mut self, h: u64) {
        self.0 = self.0.wrapping_add(h);
    }
}

/// The digest of a whole stream (what the receiver's digest must equal).
pub fn stream_digest(seed: u64, size_bytes: u64, mtu: u32) -> Digest {
    let packets = size_bytes.div_ceil(mtu as u64) as u32;
    let mut d = Digest::default();
    for psn in 0..packets {
        d.add(expected_hash(seed, psn, payload_len(size_bytes, mtu, psn)));
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filled_payload_hashes_as_expected() {
        for len in [0u32, 1, 7, 8, 9, 999, 1000] {
            let mut b = vec![0u8; len as usize];
            fill(17, 5, &mut b);
            assert_eq!(packet_hash(5, &b), expected_hash(17, 5, len), "len {len}");
            if len > 0 {
                b[len as usize / 2] ^= 1;
                assert_ne!(packet_hash(5, &b), expected_hash(17, 5, len));
            }
        }
        let mut b = vec![0u8; 100];
        fill(17, 5, &mut b);
        assert_ne!(packet_hash(6, &b), expected_hash(17, 5, 100), "the PSN is part of the hash");
    }

    #[test]
    fn digest_counts_each_packet_once() {
        let (seed, size, mtu) = (3, 10_500, 1000);
        let full = stream_digest(seed, size, mtu);
        let mut d = Digest::default();
        for psn in (0..11).rev() {
            let mut b = vec![0u8; payload_len(size, mtu, psn) as usize];
            fill(seed, psn, &mut b);
            d.add(packet_hash(psn, &b));
        }
        assert_eq!(d, full);
        d.add(expected_hash(seed, 3, 1000));
        assert_ne!(d, full, "a duplicate changes the digest");
    }
}
