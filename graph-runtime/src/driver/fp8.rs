//! CUDA's 8-bit floating-point types (`cuda_fp8.h`) as Rust types of the same layout, usable as
//! buffer elements and by-value kernel arguments: `__nv_fp8_e4m3`, `__nv_fp8_e5m2`,
//! `__nv_fp8_e8m0` and their pairs and quads.
//!
//! The conversions are written from the formats' definitions (the OCP 8-bit floating point
//! specification, which CUDA follows):
//!
//! | format | bits (sign.exponent.mantissa) | bias | largest finite | smallest subnormal | infinities | NaN |
//! |---|---|---|---|---|---|---|
//! | e4m3 | 1.4.3 | 7 | 448 (`S.1111.110`) | 2^-9 | none | `S.1111.111` |
//! | e5m2 | 1.5.2 | 15 | 57344 (`S.11110.11`) | 2^-16 | `S.11111.00` | `S.11111.{01,10,11}` |
//! | e8m0 | 0.8.0 | 127 | 2^127 (`0xFE`) | none (2^-127 is `0x00`) | none | `0xFF` |
//!
//! `from_f32` rounds as CUDA's constructors from `float` do: to nearest, ties to even, with
//! `__NV_SATFINITE` (a magnitude beyond the largest finite value, infinities included, becomes
//! the largest finite value of its sign; a NaN stays a NaN). `to_f32` is exact.

use cudarc::driver::{DeviceRepr, ValidAsZeroBits};

/// `2^k` as an `f32`, for `k` in `-149..=127`.
fn exp2i(k: i32) -> f32 {
    debug_assert!((-149..=127).contains(&k));
    if k >= -126 {
        f32::from_bits(((k + 127) as u32) << 23)
    } else {
        f32::from_bits(1 << (k + 149))
    }
}

/// A sign-exponent-mantissa format of 8 bits: `man` mantissa bits, exponent bias `bias`, the
/// largest finite magnitude's code `max` (the code after it is an infinity where it is below
/// `first_nan`), the magnitude codes from `first_nan` up are NaNs, and `nan` is the one
/// `from_f32` gives.
struct Minifloat {
    man: u32,
    bias: i32,
    max: u8,
    first_nan: u8,
    nan: u8,
}

/// `S.1111.111` is NaN; no infinities.
const E4M3: Minifloat = Minifloat {
    man: 3,
    bias: 7,
    max: 0x7E,
    first_nan: 0x7F,
    nan: 0x7F,
};

/// `S.11111.00` is an infinity, `S.11111.{01,10,11}` NaNs (`0x7E`: a half's quiet NaN's high
/// byte).
const E5M2: Minifloat = Minifloat {
    man: 2,
    bias: 15,
    max: 0x7B,
    first_nan: 0x7D,
    nan: 0x7E,
};

impl Minifloat {
    /// Whether the magnitude code `m` (the 7 low bits) is a NaN.
    fn is_nan(&self, m: u8) -> bool {
        m >= self.first_nan
    }

    fn decode(&self, bits: u8) -> f32 {
        let m = bits & 0x7F;
        let sign = if bits & 0x80 != 0 { -1.0 } else { 1.0 };
        if self.is_nan(m) {
            return f32::NAN;
        }
        if m > self.max {
            return sign * f32::INFINITY;
        }
        let exp = (m >> self.man) as i32;
        let frac = (m & ((1 << self.man) - 1)) as u32;
        // A subnormal (exponent 0) is `frac` units of the smallest subnormal; a normal number
        // has the implicit leading one. Both are exact in `f32`.
        let (units, e) = if exp == 0 {
            (frac, 1 - self.bias)
        } else {
            (frac | (1 << self.man), exp - self.bias)
        };
        sign * (units as f32 * exp2i(e - self.man as i32))
    }

    fn encode(&self, x: f32) -> u8 {
        if x.is_nan() {
            return self.nan;
        }
        let sign = if x.is_sign_negative() { 0x80 } else { 0 };
        let a = x.abs();
        if a == f32::INFINITY {
            return sign | self.max;
        }
        let field = (a.to_bits() >> 23) as i32;
        if field == 0 {
            // Zero, or an `f32` subnormal: far below half the smallest subnormal here.
            return sign;
        }
        // `a` is `r` units of `2^u`, the spacing of the codes around it (the subnormals' spacing
        // below the smallest normal number). Scaling by a power of two is exact.
        let min_exp = 1 - self.bias;
        let e = (field - 127).max(min_exp);
        let u = e - self.man as i32;
        let r = a * exp2i(-u);
        let n = r.round_ties_even() as u32;
        // Codes are consecutive over the subnormals and the first binade (code = units), then
        // each binade adds `2^man`; a carry into the next binade lands on its first code.
        let code = (((e - min_exp) as u32) << self.man) + n;
        sign | code.min(self.max as u32) as u8
    }
}

macro_rules! scalars {
    ($($(#[$doc:meta])* $name:ident = $fmt:ident, $c:literal;)*) => {$(
        $(#[$doc])*
        #[repr(transparent)]
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub struct $name(u8);

        impl $name {
            /// Zero (all bits clear).
            pub const ZERO: Self = Self(0);
            /// The largest finite value.
            pub const MAX: Self = Self($fmt.max);
            /// The NaN `from_f32` gives.
            pub const NAN: Self = Self($fmt.nan);

            /// The value nearest `x` (ties to even); beyond the largest finite value (an
            /// infinity included) the largest finite value of its sign (`__NV_SATFINITE`); a NaN
            /// for a NaN.
            pub fn from_f32(x: f32) -> Self {
                Self($fmt.encode(x))
            }

            /// The value as an `f32` (exact).
            pub fn to_f32(self) -> f32 {
                $fmt.decode(self.0)
            }

            #[doc = concat!("The value whose encoding is `bits` (`", $c, "`'s `__x`).")]
            pub const fn from_bits(bits: u8) -> Self {
                Self(bits)
            }

            /// The encoding.
            pub const fn to_bits(self) -> u8 {
                self.0
            }

            /// Whether this is a NaN.
            pub fn is_nan(self) -> bool {
                $fmt.is_nan(self.0 & 0x7F)
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}({:?} = {:#04x})", stringify!($name), self.to_f32(), self.0)
            }
        }

        impl From<$name> for f32 {
            fn from(v: $name) -> f32 {
                v.to_f32()
            }
        }
    )*};
}

scalars! {
    /// C `__nv_fp8_e4m3`: 1 sign, 4 exponent and 3 mantissa bits, bias 7; finite values up to
    /// ±448, subnormals down to 2^-9, no infinities, NaN `S.1111.111`.
    ///
    /// Equality compares the encodings: a NaN equals itself, `0.0` and `-0.0` differ.
    ///
    /// ```
    /// use cuda_graph_runtime::fp8::F8E4M3;
    /// assert_eq!(F8E4M3::from_f32(1.0).to_bits(), 0x38);
    /// assert_eq!(F8E4M3::from_f32(1000.0).to_f32(), 448.0); // saturates
    /// assert_eq!(F8E4M3::from_f32(0.3).to_f32(), 0.3125); // nearest
    /// ```
    F8E4M3 = E4M3, "__nv_fp8_e4m3";
    /// C `__nv_fp8_e5m2`: 1 sign, 5 exponent and 2 mantissa bits, bias 15 (the high byte of an
    /// IEEE half); finite values up to ±57344, subnormals down to 2^-16, infinities
    /// `S.11111.00`, NaNs `S.11111.{01,10,11}`. `from_f32` saturates, so it never gives an
    /// infinity; `from_bits(0x7C)` is one.
    ///
    /// Equality compares the encodings: a NaN equals itself, `0.0` and `-0.0` differ.
    ///
    /// ```
    /// use cuda_graph_runtime::fp8::F8E5M2;
    /// assert_eq!(F8E5M2::from_f32(1.0).to_bits(), 0x3C);
    /// assert_eq!(F8E5M2::from_f32(f32::INFINITY).to_f32(), 57344.0);
    /// assert_eq!(F8E5M2::from_bits(0x7C).to_f32(), f32::INFINITY);
    /// ```
    F8E5M2 = E5M2, "__nv_fp8_e5m2";
}

impl F8E5M2 {
    /// Positive infinity (never the result of [`from_f32`](Self::from_f32), which saturates).
    pub const INFINITY: Self = Self(0x7C);
}

/// C `__nv_fp8_e8m0` (CUDA 12.8): a scale factor, a power of two and nothing else: 8 exponent
/// bits, bias 127, no sign and no mantissa; `0x00..=0xFE` are 2^-127 ..= 2^127, `0xFF` is NaN.
///
/// [`from_f32`](Self::from_f32) rounds as `__nv_fp8_e8m0(float)` does (`__nv_cvt_float_to_e8m0`
/// with `__NV_SATFINITE` and `cudaRoundPosInf`): up to the nearest power of two at or above
/// the magnitude, within 2^-127 ..= 2^127. Rounding down (`cudaRoundZero`) is
/// [`from_f32_down`](Self::from_f32_down).
///
/// ```
/// use cuda_graph_runtime::fp8::F8E8M0;
/// assert_eq!(F8E8M0::from_f32(1.0).to_bits(), 127);
/// assert_eq!(F8E8M0::from_f32(3.0).to_f32(), 4.0);
/// assert_eq!(F8E8M0::from_f32_down(3.0).to_f32(), 2.0);
/// ```
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct F8E8M0(u8);

impl F8E8M0 {
    /// 1.0.
    pub const ONE: Self = Self(127);
    /// The largest value, 2^127.
    pub const MAX: Self = Self(0xFE);
    /// The smallest value, 2^-127 (all bits clear).
    pub const MIN: Self = Self(0);
    /// NaN.
    pub const NAN: Self = Self(0xFF);

    /// The power of two at or above `|x|` (`cudaRoundPosInf`), within 2^-127 ..= 2^127 (zero
    /// gives 2^-127, an infinity 2^127: `__NV_SATFINITE`); a NaN for a NaN. A scale has no
    /// sign: the sign of `x` is ignored.
    pub fn from_f32(x: f32) -> Self {
        Self::convert(x, true)
    }

    /// The power of two at or below `|x|` (`cudaRoundZero`), within 2^-127 ..= 2^127; a NaN
    /// for a NaN.
    pub fn from_f32_down(x: f32) -> Self {
        Self::convert(x, false)
    }

    fn convert(x: f32, up: bool) -> Self {
        if x.is_nan() {
            return Self::NAN;
        }
        let bits = x.abs().to_bits();
        let (field, frac) = (bits >> 23, bits & 0x7F_FFFF);
        let code = match field {
            0xFF => 0xFE,
            // Below 2^-126 (`f32` subnormals and zero): 2^-127 is `0x0040_0000`.
            0 => u32::from(up && bits > 0x0040_0000),
            _ => (field + u32::from(up && frac != 0)).min(0xFE),
        };
        Self(code as u8)
    }

    /// The value as an `f32` (exact: 2^-127 is an `f32` subnormal).
    pub fn to_f32(self) -> f32 {
        match self.0 {
            0xFF => f32::NAN,
            0 => f32::from_bits(0x0040_0000),
            e => f32::from_bits(u32::from(e) << 23),
        }
    }

    /// The value whose encoding is `bits` (`__nv_fp8_e8m0`'s `__x`).
    pub const fn from_bits(bits: u8) -> Self {
        Self(bits)
    }

    /// The encoding: the biased exponent.
    pub const fn to_bits(self) -> u8 {
        self.0
    }

    /// Whether this is the NaN.
    pub fn is_nan(self) -> bool {
        self.0 == 0xFF
    }
}

impl std::fmt::Debug for F8E8M0 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "F8E8M0({:?} = {:#04x})", self.to_f32(), self.0)
    }
}

impl From<F8E8M0> for f32 {
    fn from(v: F8E8M0) -> f32 {
        v.to_f32()
    }
}

macro_rules! packs {
    ($($(#[$doc:meta])* $name:ident([$elem:ident; $n:literal], $bits:ty) align $a:literal;)*) => {$(
        $(#[$doc])*
        ///
        /// Element 0 is the low byte of the C type's `__x` (its `.x` as a float vector).
        #[repr(C, align($a))]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub struct $name(pub [$elem; $n]);

        impl $name {
            /// The vector of these elements.
            pub const fn new(v: [$elem; $n]) -> Self {
                Self(v)
            }

            /// Each of `v` converted with the element type's `from_f32`.
            pub fn from_f32(v: [f32; $n]) -> Self {
                Self(v.map($elem::from_f32))
            }

            /// Each element as an `f32` (exact).
            pub fn to_f32(self) -> [f32; $n] {
                self.0.map($elem::to_f32)
            }

            /// The vector whose encoding (the C type's `__x`) is `bits`.
            pub fn from_bits(bits: $bits) -> Self {
                Self(bits.to_le_bytes().map($elem::from_bits))
            }

            /// The encoding (the C type's `__x`).
            pub fn to_bits(self) -> $bits {
                <$bits>::from_le_bytes(self.0.map($elem::to_bits))
            }
        }
    )*};
}

packs! {
    /// C `__nv_fp8x2_e4m3`: two [`F8E4M3`].
    F8E4M3x2([F8E4M3; 2], u16) align 2;
    /// C `__nv_fp8x2_e5m2`: two [`F8E5M2`].
    F8E5M2x2([F8E5M2; 2], u16) align 2;
    /// C `__nv_fp8x2_e8m0`: two [`F8E8M0`].
    F8E8M0x2([F8E8M0; 2], u16) align 2;
    /// C `__nv_fp8x4_e4m3`: four [`F8E4M3`].
    F8E4M3x4([F8E4M3; 4], u32) align 4;
    /// C `__nv_fp8x4_e5m2`: four [`F8E5M2`].
    F8E5M2x4([F8E5M2; 4], u32) align 4;
    /// C `__nv_fp8x4_e8m0`: four [`F8E8M0`].
    F8E8M0x4([F8E8M0; 4], u32) align 4;
}

macro_rules! device_repr {
    ($($name:ident),*) => {$(
        // SAFETY: plain bytes with the C type's size and alignment (checked by the tests
        // below); every bit pattern is a value, all zeros included.
        unsafe impl DeviceRepr for $name {}
        // SAFETY: as above: all-zero bits are a value (zero, or 2^-127 for e8m0).
        unsafe impl ValidAsZeroBits for $name {}
    )*};
}

device_repr!(F8E4M3, F8E5M2, F8E8M0, F8E4M3x2, F8E5M2x2, F8E8M0x2, F8E4M3x4, F8E5M2x4, F8E8M0x4);

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, size_of};

    /// Sizes and alignments as `cuda_fp8.h` lays the types out.
    #[test]
    fn fp8_layouts_are_cudas() {
        let cases = [
            (size_of::<F8E4M3>(), align_of::<F8E4M3>(), 1, 1),
            (size_of::<F8E5M2>(), align_of::<F8E5M2>(), 1, 1),
            (size_of::<F8E8M0>(), align_of::<F8E8M0>(), 1, 1),
            (size_of::<F8E4M3x2>(), align_of::<F8E4M3x2>(), 2, 2),
            (size_of::<F8E5M2x2>(), align_of::<F8E5M2x2>(), 2, 2),
            (size_of::<F8E8M0x2>(), align_of::<F8E8M0x2>(), 2, 2),
            (size_of::<F8E4M3x4>(), align_of::<F8E4M3x4>(), 4, 4),
            (size_of::<F8E5M2x4>(), align_of::<F8E5M2x4>(), 4, 4),
            (size_of::<F8E8M0x4>(), align_of::<F8E8M0x4>(), 4, 4),
        ];
        for (k, (s, a, cs, ca)) in cases.into_iter().enumerate() {
            assert_eq!((s, a), (cs, ca), "case {k}");
        }
    }

    /// The value of an e4m3/e5m2 code straight from the definition, in `f64`.
    fn reference(bits: u8, man: u32, bias: i32) -> f64 {
        let sign = if bits & 0x80 != 0 { -1.0 } else { 1.0 };
        let exp = i32::from((bits & 0x7F) >> man);
        let frac = f64::from(bits & ((1 << man) - 1));
        let scale = f64::from(1u32 << man);
        if exp == 0 {
            sign * frac / scale * 2f64.powi(1 - bias)
        } else {
            sign * (1.0 + frac / scale) * 2f64.powi(exp - bias)
        }
    }

    #[test]
    fn fp8_every_e4m3_code_round_trips() {
        for b in 0..=255u8 {
            let v = F8E4M3::from_bits(b);
            let f = v.to_f32();
            if b & 0x7F == 0x7F {
                assert!(f.is_nan() && v.is_nan(), "{b:#04x}");
                assert!(F8E4M3::from_f32(f).is_nan());
                continue;
            }
            assert!(!v.is_nan(), "{b:#04x}");
            assert_eq!(f64::from(f), reference(b, 3, 7), "{b:#04x}");
            assert_eq!(F8E4M3::from_f32(f).to_bits(), b, "{b:#04x} = {f}");
        }
    }

    #[test]
    fn fp8_every_e5m2_code_round_trips() {
        for b in 0..=255u8 {
            let v = F8E5M2::from_bits(b);
            let f = v.to_f32();
            match b & 0x7F {
                0x7C => {
                    assert_eq!(f.abs(), f32::INFINITY, "{b:#04x}");
                    assert!(f.is_sign_negative() == (b & 0x80 != 0));
                    // Saturating: an infinity becomes the largest finite value.
                    assert_eq!(F8E5M2::from_f32(f).to_bits(), (b & 0x80) | 0x7B);
                }
                0x7D..=0x7F => {
                    assert!(f.is_nan() && v.is_nan(), "{b:#04x}");
                    assert!(F8E5M2::from_f32(f).is_nan());
                }
                _ => {
                    assert_eq!(f64::from(f), reference(b, 2, 15), "{b:#04x}");
                    assert_eq!(F8E5M2::from_f32(f).to_bits(), b, "{b:#04x} = {f}");
                }
            }
        }
    }

    /// e5m2 is the high byte of an IEEE half: every finite code agrees with `half::f16`.
    #[test]
    fn fp8_e5m2_is_the_high_byte_of_a_half() {
        for b in 0..=255u8 {
            let h = half::f16::from_bits(u16::from(b) << 8);
            let f = F8E5M2::from_bits(b).to_f32();
            assert!(f == h.to_f32() || (f.is_nan() && h.is_nan()), "{b:#04x}");
        }
    }

    #[test]
    fn fp8_known_values() {
        assert_eq!(F8E4M3::MAX.to_f32(), 448.0);
        assert_eq!(F8E4M3::MAX.to_bits(), 0x7E);
        assert_eq!(F8E4M3::from_bits(0x08).to_f32(), 2f32.powi(-6)); // smallest normal
        assert_eq!(F8E4M3::from_bits(0x01).to_f32(), 2f32.powi(-9)); // smallest subnormal
        assert_eq!(F8E4M3::from_bits(0x07).to_f32(), 7.0 * 2f32.powi(-9));
        assert_eq!(F8E4M3::from_f32(-448.0).to_bits(), 0xFE);
        assert_eq!(F8E4M3::from_f32(-0.0).to_bits(), 0x80);
        assert_eq!(F8E4M3::from_f32(1.0).to_bits(), 0x38);

        assert_eq!(F8E5M2::MAX.to_f32(), 57344.0);
        assert_eq!(F8E5M2::from_bits(0x01).to_f32(), 2f32.powi(-16));
        assert_eq!(F8E5M2::from_bits(0x04).to_f32(), 2f32.powi(-14));
        assert_eq!(F8E5M2::INFINITY.to_f32(), f32::INFINITY);
        assert_eq!(F8E5M2::from_f32(1.0).to_bits(), 0x3C);
        assert_eq!(F8E5M2::from_f32(-2.0).to_bits(), 0xC0);
    }

    #[test]
    fn fp8_rounding_is_to_nearest_ties_to_even() {
        let e4 = |x: f32| F8E4M3::from_f32(x).to_f32();
        // Around 1 the e4m3 spacing is 1/8.
        assert_eq!(e4(1.0625), 1.0); // tie: 1.0 (mantissa 000) is even
        assert_eq!(e4(1.1875), 1.25); // tie: 1.25 (mantissa 010) is even
        assert_eq!(e4(1.07), 1.125);
        assert_eq!(e4(1.06), 1.0);
        // A tie that carries into the next binade: 1.9375 is halfway between 1.875 and 2.
        assert_eq!(e4(1.9375), 2.0);
        // Subnormals: spacing 2^-9; half of the smallest rounds to zero (even), above it up.
        assert_eq!(e4(2f32.powi(-10)), 0.0);
        assert_eq!(e4(1.5 * 2f32.powi(-10)), 2f32.powi(-9));
        // 1.5 and 2.5 units: both to 2.
        assert_eq!(e4(3.0 * 2f32.powi(-10)), 2.0 * 2f32.powi(-9));
        assert_eq!(e4(5.0 * 2f32.powi(-10)), 2.0 * 2f32.powi(-9));
        // Subnormal into normal: 7.5 units of 2^-9 rounds to 8 units = 2^-6.
        assert_eq!(e4(7.5 * 2f32.powi(-9)), 2f32.powi(-6));
        assert_eq!(e4(-1.0625), -1.0);
        assert_eq!(e4(1e-30), 0.0);
        assert_eq!(F8E4M3::from_f32(-1e-30).to_bits(), 0x80);
        assert_eq!(F8E4M3::from_f32(f32::from_bits(1)).to_bits(), 0);

        let e5 = |x: f32| F8E5M2::from_f32(x).to_f32();
        // Around 1 the e5m2 spacing is 1/4.
        assert_eq!(e5(1.125), 1.0);
        assert_eq!(e5(1.375), 1.5);
        assert_eq!(e5(1.3), 1.25);
        assert_eq!(e5(2f32.powi(-17)), 0.0);
        assert_eq!(e5(3.0 * 2f32.powi(-17)), 2.0 * 2f32.powi(-16));
    }

    /// On a sweep of values in range: no finite code is nearer than the one `from_f32` picks,
    /// and of two as near it picks the even one.
    #[test]
    fn fp8_rounding_picks_the_nearest_code() {
        fn check(x: f32, code: u8, value: fn(u8) -> f32) {
            let err = (f64::from(value(code)) - f64::from(x)).abs();
            for other in 0..=255u8 {
                let v = value(other);
                if !v.is_finite() {
                    continue;
                }
                let d = (f64::from(v) - f64::from(x)).abs();
                assert!(d >= err, "{x}: {code:#04x} but {other:#04x} is nearer");
                if d == err && v != value(code) {
                    assert_eq!(code & 1, 0, "{x}: a tie goes to the even code");
                }
            }
        }
        for k in 0..4_000u32 {
            let x = (k as f32 * 0.37).sin() * 2f32.powi((k % 36) as i32 - 20);
            if x.abs() <= 448.0 {
                check(x, F8E4M3::from_f32(x).to_bits(), |b| {
                    F8E4M3::from_bits(b).to_f32()
                });
            }
            if x.abs() <= 57344.0 {
                check(x, F8E5M2::from_f32(x).to_bits(), |b| {
                    F8E5M2::from_bits(b).to_f32()
                });
            }
        }
    }

    #[test]
    fn fp8_large_values_saturate() {
        assert_eq!(F8E4M3::from_f32(449.0), F8E4M3::MAX);
        assert_eq!(F8E4M3::from_f32(464.0), F8E4M3::MAX); // would round to 480: not finite
        assert_eq!(F8E4M3::from_f32(1e30), F8E4M3::MAX);
        assert_eq!(F8E4M3::from_f32(f32::MAX).to_f32(), 448.0);
        assert_eq!(F8E4M3::from_f32(f32::INFINITY), F8E4M3::MAX);
        assert_eq!(F8E4M3::from_f32(f32::NEG_INFINITY).to_f32(), -448.0);
        assert_eq!(F8E5M2::from_f32(61440.0), F8E5M2::MAX); // halfway to 65536
        assert_eq!(F8E5M2::from_f32(1e9).to_f32(), 57344.0);
        assert_eq!(F8E5M2::from_f32(-1e9).to_f32(), -57344.0);
        assert_eq!(F8E5M2::from_f32(f32::INFINITY), F8E5M2::MAX);
    }

    #[test]
    fn fp8_nan_stays_nan() {
        for x in [f32::NAN, -f32::NAN, f32::from_bits(0x7FC0_0001)] {
            assert!(F8E4M3::from_f32(x).is_nan());
            assert!(F8E4M3::from_f32(x).to_f32().is_nan());
            assert!(F8E5M2::from_f32(x).is_nan());
            assert!(F8E5M2::from_f32(x).to_f32().is_nan());
            assert!(F8E8M0::from_f32(x).is_nan());
            assert!(F8E8M0::from_f32(x).to_f32().is_nan());
        }
        assert_eq!(F8E4M3::NAN.to_bits(), 0x7F);
        assert!(F8E4M3::from_bits(0xFF).is_nan());
        assert!(!F8E5M2::INFINITY.is_nan());
    }

    #[test]
    fn fp8_e8m0_is_a_power_of_two() {
        for b in 0..=254u8 {
            let v = F8E8M0::from_bits(b);
            let f = v.to_f32();
            assert_eq!(f64::from(f), 2f64.powi(i32::from(b) - 127), "{b:#04x}");
            assert_eq!(F8E8M0::from_f32(f), v);
            assert_eq!(F8E8M0::from_f32_down(f), v);
            if (1..254).contains(&b) {
                // Just above a power of two: up rounds up, down rounds down.
                let above = f32::from_bits(f.to_bits() + 1);
                assert_eq!(F8E8M0::from_f32(above).to_bits(), b + 1);
                assert_eq!(F8E8M0::from_f32_down(above).to_bits(), b);
            }
        }
        assert!(F8E8M0::from_bits(0xFF).to_f32().is_nan());
        assert_eq!(F8E8M0::from_f32(3.0).to_f32(), 4.0);
        assert_eq!(F8E8M0::from_f32(-3.0).to_f32(), 4.0);
        assert_eq!(F8E8M0::from_f32(0.0), F8E8M0::MIN);
        assert_eq!(F8E8M0::from_f32(f32::MAX), F8E8M0::MAX);
        assert_eq!(F8E8M0::from_f32(f32::INFINITY), F8E8M0::MAX);
        assert_eq!(F8E8M0::from_f32_down(f32::MAX), F8E8M0::MAX);
        assert_eq!(F8E8M0::from_f32(1.0), F8E8M0::ONE);
        // Below 2^-126: the `f32` subnormals.
        assert_eq!(F8E8M0::from_f32(f32::from_bits(1)).to_bits(), 0);
        assert_eq!(F8E8M0::from_f32(f32::from_bits(0x0040_0001)).to_bits(), 1);
        assert_eq!(
            F8E8M0::from_f32_down(f32::from_bits(0x0040_0001)).to_bits(),
            0
        );
    }

    #[test]
    fn fp8_pairs_and_quads() {
        let p = F8E4M3x2::from_f32([1.0, -2.0]);
        assert_eq!(p.to_f32(), [1.0, -2.0]);
        assert_eq!(p.to_bits(), 0xC0_38);
        assert_eq!(F8E4M3x2::from_bits(0xC0_38), p);
        let q = F8E5M2x4::new([
            F8E5M2::from_f32(0.5),
            F8E5M2::MAX,
            F8E5M2::ZERO,
            F8E5M2::NAN,
        ]);
        let f = q.to_f32();
        assert_eq!(&f[..3], &[0.5, 57344.0, 0.0]);
        assert!(f[3].is_nan());
        assert_eq!(F8E5M2x4::from_bits(q.to_bits()), q);
        assert_eq!(F8E4M3x4::default().to_f32(), [0.0; 4]);
        assert_eq!(F8E8M0x4::default().to_f32(), [2f32.powi(-127); 4]);
        assert_eq!(F8E8M0x2::from_f32([3.0, 1.0]).to_bits(), 0x7F_81);
        assert_eq!(F8E5M2x2::from_f32([1.0, 1.0]).to_bits(), 0x3C3C);
    }
}
