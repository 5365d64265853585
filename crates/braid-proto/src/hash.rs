//! Flow hashing for multipath routing.
//!
//! MurmurHash3 x86_32 over the 12-byte key `{src ip, dst ip, sport | dport << 16}` (little-endian
//! words), seeded per switch — the ECMP hash of the HPCC/LCMP ns-3 code (`docs/lcmp.md`,
//! ECMP and UCMP). Host `i` has IP `0x0b000001 + (i / 256) << 16 + (i % 256) << 8`,
//! as in that code, so results can be compared with its ECMP choices.

/// The RoCEv2 UDP destination port.
pub const ROCE_DPORT: u16 = 4791;

/// The IPv4 address the HPCC ns-3 code gives node `id`.
#[inline]
pub fn node_ip(id: u32) -> u32 {
    0x0b00_0001 + ((id / 256) << 16) + ((id % 256) << 8)
}

#[inline]
fn mix_k(mut k: u32) -> u32 {
    k = k.wrapping_mul(0xcc9e_2d51);
    k = k.rotate_left(15);
    k.wrapping_mul(0x1b87_3593)
}

/// MurmurHash3 x86_32 of three little-endian 32-bit words.
#[inline]
pub fn murmur3_3words(words: [u32; 3], seed: u32) -> u32 {
    let mut h = seed;
    for w in words {
        h ^= mix_k(w);
        h = h.rotate_left(13);
        h = h.wrapping_mul(5).wrapping_add(0xe654_6b64);
    }
    h ^= 12;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// The ECMP hash of a packet's 5-tuple at a switch with hash seed `seed`.
#[inline]
pub fn ecmp_hash(src_ip: u32, dst_ip: u32, sport: u16, dport: u16, seed: u32) -> u32 {
    murmur3_3words([src_ip, dst_ip, sport as u32 | (dport as u32) << 16], seed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MurmurHash3_x86_32 of a byte string, straightforward reference for the test.
    fn reference(data: &[u8], seed: u32) -> u32 {
        let mut h = seed;
        let n = data.len() / 4;
        for i in 0..n {
            let k = u32::from_le_bytes([
                data[4 * i],
                data[4 * i + 1],
                data[4 * i + 2],
                data[4 * i + 3],
            ]);
            h ^= mix_k(k);
            h = h.rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
        }
        h ^= data.len() as u32;
        h ^= h >> 16;
        h = h.wrapping_mul(0x85eb_ca6b);
        h ^= h >> 13;
        h = h.wrapping_mul(0xc2b2_ae35);
        h ^ (h >> 16)
    }

    #[test]
    fn known_vectors() {
        // Published MurmurHash3_x86_32 vectors.
        assert_eq!(reference(b"", 0), 0);
        assert_eq!(reference(b"", 1), 0x514E_28B7);
        assert_eq!(reference(&[0xff, 0xff, 0xff, 0xff], 0), 0x7629_3B50);
        assert_eq!(reference(&[0x21, 0x43, 0x65, 0x87], 0), 0xF55B_516B);
        assert_eq!(reference(&[0x21, 0x43, 0x65, 0x87], 0x5082_EDEE), 0x2362_F9DE);
    }

    #[test]
    fn word_form_matches_byte_form() {
        let words = [node_ip(3), node_ip(120), 10000 | (100 << 16)];
        let mut bytes = Vec::new();
        for w in words {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        for seed in [0, 7, 176] {
            assert_eq!(murmur3_3words(words, seed), reference(&bytes, seed));
        }
    }
}
