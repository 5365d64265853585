//! Simulated time in integer picoseconds, and link rates in bits per second.
//!
//! 400 Gb/s serialises one byte in 20 ps, so nanoseconds are too coarse; `u64` picoseconds cover
//! about 213 days of simulated time.

use std::fmt;
use std::ops::{Add, AddAssign, Sub, SubAssign};

/// Simulated time in integer picoseconds: one type for both an instant and a duration.
///
/// The rule: a `Time` named as a moment (`now`, `start`, `*_at`, `deadline`) is an instant measured
/// from the start of the simulation; one named as a span (`delay`, `rtt`, `*_timeout`, `interval`)
/// is a duration. Instant − instant is a duration, instant + duration an instant; subtraction
/// panics in debug builds if it would go below zero (use [`Time::saturating_sub`] where that can
/// happen). The picosecond count is private: code outside `braid-core` goes through
/// [`Time::from_ps`]/[`Time::ps`] and the unit-named constructors and accessors, so a unit is
/// always named where a raw number enters or leaves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(u64);

impl Time {
    /// Time zero.
    pub const ZERO: Time = Time(0);
    /// The largest representable time ("never").
    pub const MAX: Time = Time(u64::MAX);

    /// From picoseconds.
    pub const fn from_ps(ps: u64) -> Time {
        Time(ps)
    }
    /// From nanoseconds.
    pub const fn from_ns(ns: u64) -> Time {
        Time(ns * 1_000)
    }
    /// From microseconds.
    pub const fn from_us(us: u64) -> Time {
        Time(us * 1_000_000)
    }
    /// From milliseconds.
    pub const fn from_ms(ms: u64) -> Time {
        Time(ms * 1_000_000_000)
    }
    /// From seconds as a float (rounded to the nearest picosecond; negative values give zero).
    pub fn from_secs_f64(s: f64) -> Time {
        Time(round_to_u64(s * 1e12))
    }
    /// Picoseconds.
    pub const fn ps(self) -> u64 {
        self.0
    }
    /// Whole nanoseconds (truncated).
    pub const fn ns(self) -> u64 {
        self.0 / 1_000
    }
    /// Nanoseconds as a float.
    pub fn ns_f64(self) -> f64 {
        self.0 as f64 / 1e3
    }
    /// Microseconds as a float.
    pub fn us_f64(self) -> f64 {
        self.0 as f64 / 1e6
    }
    /// Seconds as a float.
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 / 1e12
    }
    /// `self - other`, or zero when `other` is later.
    pub fn saturating_sub(self, other: Time) -> Time {
        Time(self.0.saturating_sub(other.0))
    }
    /// `self + other`, saturating at [`Time::MAX`].
    pub fn saturating_add(self, other: Time) -> Time {
        Time(self.0.saturating_add(other.0))
    }
    /// Multiply a duration by a float factor (rounded; negative results give zero).
    pub fn mul_f64(self, k: f64) -> Time {
        Time(round_to_u64(self.0 as f64 * k))
    }
}

impl Add for Time {
    type Output = Time;
    #[inline]
    fn add(self, rhs: Time) -> Time {
        Time(self.0 + rhs.0)
    }
}
impl AddAssign for Time {
    #[inline]
    fn add_assign(&mut self, rhs: Time) {
        self.0 += rhs.0;
    }
}
impl Sub for Time {
    type Output = Time;
    #[inline]
    fn sub(self, rhs: Time) -> Time {
        Time(self.0 - rhs.0)
    }
}
impl SubAssign for Time {
    #[inline]
    fn sub_assign(&mut self, rhs: Time) {
        self.0 -= rhs.0;
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ps = self.0;
        if ps >= 1_000_000_000 {
            write!(f, "{}ms", ps as f64 / 1e9)
        } else if ps >= 1_000_000 {
            write!(f, "{}us", ps as f64 / 1e6)
        } else if ps >= 1_000 {
            write!(f, "{}ns", ps as f64 / 1e3)
        } else {
            write!(f, "{ps}ps")
        }
    }
}

/// A rate in bits per second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl Rate {
    /// From bits per second.
    pub const fn from_bps(bps: u64) -> Rate {
        Rate(bps)
    }
    /// From gigabits per second.
    pub const fn from_gbps(g: u64) -> Rate {
        Rate(g * 1_000_000_000)
    }
    /// From a float number of bits per second (negative gives zero).
    pub fn from_bps_f64(bps: f64) -> Rate {
        Rate(round_to_u64(bps))
    }
    /// Bits per second.
    pub const fn bps(self) -> u64 {
        self.0
    }
    /// Bits per second as a float.
    pub fn bps_f64(self) -> f64 {
        self.0 as f64
    }
    /// Gigabits per second as a float.
    pub fn gbps_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    /// Time to serialise `bytes` at this rate, rounded up to the next picosecond.
    /// A zero rate never finishes ([`Time::MAX`]).
    #[inline]
    pub fn tx_time(self, bytes: u64) -> Time {
        if self.0 == 0 {
            return Time::MAX;
        }
        // Bits in picoseconds-per-second units fit a u64 below ~2.3 MB (every packet): the same
        // exact quotient without a 128-bit division.
        const PS_BITS: u64 = 8 * 1_000_000_000_000;
        if bytes <= u64::MAX / PS_BITS {
            return Time((bytes * PS_BITS).div_ceil(self.0));
        }
        let num = bytes as u128 * 8 * 1_000_000_000_000u128;
        let r = self.0 as u128;
        Time(num.div_ceil(r) as u64)
    }
    /// Time to serialise `bytes` at this rate in whole nanoseconds, rounded down (the ns-3
    /// simulator's conversion of a double seconds value to its nanosecond `Time`).
    pub fn tx_time_floor_ns(self, bytes: u64) -> Time {
        if self.0 == 0 {
            return Time::MAX;
        }
        Time::from_ns((bytes as u128 * 8 * 1_000_000_000u128 / self.0 as u128) as u64)
    }
    /// [`Rate::tx_time`], or [`Rate::tx_time_floor_ns`] when `floor_ns`.
    #[inline]
    pub fn tx_time_as(self, bytes: u64, floor_ns: bool) -> Time {
        if floor_ns {
            self.tx_time_floor_ns(bytes)
        } else {
            self.tx_time(bytes)
        }
    }
    /// Bytes sent at this rate during `t` (rounded down).
    pub fn bytes_in(self, t: Time) -> u64 {
        (self.0 as u128 * t.0 as u128 / 8 / 1_000_000_000_000u128) as u64
    }
    /// Bandwidth-delay product in bytes for a delay `t`.
    pub fn bdp_bytes(self, t: Time) -> u64 {
        self.bytes_in(t)
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}Gbps", self.0 as f64 / 1e9)
    }
}

/// `x.round().max(0.0) as u64` — the nearest integer, halves away from zero, negative and NaN
/// giving 0, saturating at `u64::MAX` — without the `round` library call that x86-64's baseline
/// instruction set needs (it sat on Rondo's per-packet path). Exact: below 2^52 the fraction
/// `x − ⌊x⌋` is representable, and from 2^52 on every float is an integer.
#[inline]
pub fn round_to_u64(x: f64) -> u64 {
    // NaN, zero and negatives.
    if x.is_nan() || x <= 0.0 {
        return 0;
    }
    if x >= 18_446_744_073_709_551_616.0 {
        return u64::MAX;
    }
    let i = x as u64;
    if x - i as f64 >= 0.5 {
        i + 1
    } else {
        i
    }
}

#[cfg(test)]
mod tests {
    use super::round_to_u64;

    /// The same integers as `round().max(0.0) as u64`, on halves, edges and random values.
    #[test]
    fn round_to_u64_is_rounding() {
        let mut vals = vec![
            0.0,
            -0.0,
            0.5,
            1.5,
            2.5,
            0.49999999999999994,
            -0.4,
            -0.5,
            -3.7,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            4503599627370495.5,
            4503599627370496.0,
            9007199254740993.0,
            1.8446744073709552e19,
            1e300,
            1e-300,
        ];
        let mut rng = crate::Rng::new(5);
        for _ in 0..100_000 {
            let m = rng.below(1 << 53) as f64 / (1u64 << 53) as f64;
            let e = rng.below(140) as i32 - 70;
            vals.push(m * 2f64.powi(e));
            vals.push((rng.below(1 << 20) as f64) + 0.5);
        }
        for x in vals {
            assert_eq!(round_to_u64(x), x.round().max(0.0) as u64, "{x:e}");
        }
    }

    use super::*;

    /// The 64-bit quotient of `tx_time` equals the 128-bit one, on both sides of its bound.
    #[test]
    fn tx_time_fast_path_is_exact() {
        let mut rng = crate::rng::Rng::new(3);
        let bound = u64::MAX / 8_000_000_000_000;
        for i in 0..20_000u64 {
            let bytes = match i % 3 {
                0 => rng.below(10_000),
                1 => bound - 2 + rng.below(5),
                _ => rng.below(1 << 40),
            };
            let rate = Rate(1 + rng.below(1 << 45));
            let want = (bytes as u128 * 8_000_000_000_000).div_ceil(rate.0 as u128) as u64;
            assert_eq!(rate.tx_time(bytes), Time(want), "{bytes} B at {} b/s", rate.0);
        }
    }

    #[test]
    fn tx_time_is_exact_at_common_rates() {
        assert_eq!(Rate::from_gbps(400).tx_time(1), Time(20));
        assert_eq!(Rate::from_gbps(100).tx_time(1000), Time::from_ns(80));
        assert_eq!(Rate::from_gbps(25).tx_time(4096), Time(1_310_720));
        // 15 Gb/s does not divide: round up.
        assert_eq!(Rate::from_gbps(15).tx_time(3), Time(1600));
        assert_eq!(Rate::from_gbps(15).tx_time(1), Time(534));
    }

    #[test]
    fn bytes_in_inverts_tx_time() {
        let r = Rate::from_gbps(100);
        assert_eq!(r.bytes_in(Time::from_us(10)), 125_000);
    }
}
