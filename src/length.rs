//! Declared buffer lengths (`buffer x: [T; len];`): the length computed without overflow from
//! the params' values, and the checks `build`, param setters and rebinding setters make with it.

use core::ops::{Add, BitAnd, BitOr, BitXor, Div, Mul, Rem, Shl, Shr, Sub};

use cuda_graph_runtime::error::{EditError, ShortBuffer};

/// A declared length being computed: a non-negative integer, or `None` once a step overflowed,
/// went negative or divided by zero. `cuda_graph!` writes a length's arithmetic over it, so a
/// length that does not fit is an error, never a small number that wrapped.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Len(pub Option<u128>);

/// An integer that can start a [`Len`] (negative ones give `None`).
#[doc(hidden)]
pub trait IntoLen {
    /// The value as a length.
    fn into_len(self) -> Len;
}

macro_rules! into_len {
    ($($t:ty),*) => {$(
        impl IntoLen for $t {
            fn into_len(self) -> Len {
                Len(u128::try_from(self).ok())
            }
        }
    )*};
}
into_len!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

impl IntoLen for Len {
    fn into_len(self) -> Len {
        self
    }
}

impl Len {
    /// A leaf of the expression: a param, a constant, a literal, or a part `cuda_graph!`
    /// leaves as written (a call, a cast to a narrower type).
    pub fn of(v: impl IntoLen) -> Len {
        v.into_len()
    }

    fn with(self, other: Len, f: impl FnOnce(u128, u128) -> Option<u128>) -> Len {
        Len(match (self.0, other.0) {
            (Some(a), Some(b)) => f(a, b),
            _ => None,
        })
    }

    /// `a.div_ceil(b)`.
    pub fn div_ceil(self, b: Len) -> Len {
        self.with(b, |a, b| (b != 0).then(|| a.div_ceil(b)))
    }

    /// `a.next_multiple_of(b)`.
    pub fn next_multiple_of(self, b: Len) -> Len {
        self.with(b, |a, b| {
            if b == 0 {
                None
            } else {
                a.checked_next_multiple_of(b)
            }
        })
    }

    /// `a.min(b)`.
    pub fn min(self, b: Len) -> Len {
        self.with(b, |a, b| Some(a.min(b)))
    }

    /// `a.max(b)`.
    pub fn max(self, b: Len) -> Len {
        self.with(b, |a, b| Some(a.max(b)))
    }

    /// `a.pow(b)`.
    pub fn pow(self, b: Len) -> Len {
        self.with(b, |a, b| a.checked_pow(u32::try_from(b).ok()?))
    }

    /// `a.next_power_of_two()`.
    pub fn next_power_of_two(self) -> Len {
        Len(self.0.and_then(u128::checked_next_power_of_two))
    }
}

macro_rules! len_ops {
    ($($tr:ident $m:ident $f:expr;)*) => {$(
        impl $tr for Len {
            type Output = Len;
            fn $m(self, b: Len) -> Len {
                self.with(b, $f)
            }
        }
    )*};
}
len_ops! {
    Add add |a: u128, b| a.checked_add(b);
    Sub sub |a: u128, b| a.checked_sub(b);
    Mul mul |a: u128, b| a.checked_mul(b);
    Div div |a: u128, b| a.checked_div(b);
    Rem rem |a: u128, b| a.checked_rem(b);
    Shl shl |a: u128, b| {
        let s = u32::try_from(b).ok().filter(|&s| s < 128)?;
        let v = a << s;
        (v >> s == a).then_some(v)
    };
    Shr shr |a: u128, b| Some(u32::try_from(b).ok().map_or(0, |s| a.checked_shr(s).unwrap_or(0)));
    BitAnd bitand |a: u128, b| Some(a & b);
    BitOr bitor |a: u128, b| Some(a | b);
    BitXor bitxor |a: u128, b| Some(a ^ b);
}

/// Checks that buffer `buffer` (the `position`th of a stack, if one), bound with `len`
/// elements, holds its declared length `declared` (written `written`; `values` lists the
/// params it uses, for the message).
pub fn fits(
    buffer: &str,
    position: Option<usize>,
    len: usize,
    declared: Len,
    written: &str,
    values: impl FnOnce() -> String,
) -> Result<(), Box<ShortBuffer>> {
    match declared.0 {
        Some(n) if n <= len as u128 => Ok(()),
        needed => Err(Box::new(ShortBuffer {
            buffer: buffer.to_owned(),
            position,
            len,
            declared: written.to_owned(),
            needed,
            values: values(),
        })),
    }
}

/// Sets an input like [`set_input`](crate::__private::set_input) once `check` accepts the state with the
/// new value in it (every buffer still holds its declared length); else puts the old value
/// back and returns `check`'s error: nothing changed.
pub fn set_checked<E: crate::__private::Resend, T>(
    e: &mut E,
    input: usize,
    field: impl Fn(&mut E) -> &mut T,
    value: T,
    check: impl FnOnce(&E) -> Result<(), EditError>,
) -> Result<(), EditError> {
    let old = core::mem::replace(field(e), value);
    if let Err(err) = check(e) {
        *field(e) = old;
        return Err(err);
    }
    crate::__private::commit(e, input, |e| *field(e) = old)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(v: u128) -> Len {
        Len(Some(v))
    }

    #[test]
    fn arithmetic_is_exact_or_none() {
        assert_eq!(l(3) * l(4) + l(1), l(13));
        assert_eq!(l(1000).div_ceil(l(256)), l(4));
        assert_eq!(l(0) - l(1), Len(None));
        assert_eq!(l(7) / l(0), Len(None));
        assert_eq!(l(7).div_ceil(l(0)), Len(None));
        assert_eq!(l(u128::MAX) * l(2), Len(None));
        assert_eq!(l(1) << l(127), l(1 << 127));
        assert_eq!(l(2) << l(127), Len(None));
        assert_eq!(l(1) << l(200), Len(None));
        assert_eq!(l(5) >> l(200), l(0));
        assert_eq!(Len::of(-1i32), Len(None));
        assert_eq!(Len::of(u32::MAX) * Len::of(4), l(4 * u32::MAX as u128));
        assert_eq!(l(5).max(l(9)).min(l(7)), l(7));
        assert_eq!(l(2).pow(l(10)), l(1024));
        assert_eq!(l(5).next_power_of_two(), l(8));
        assert_eq!(l(5).next_multiple_of(l(4)), l(8));
    }

    #[test]
    fn fits_names_the_buffer_and_the_values() {
        assert!(fits("x", None, 400, l(400), "n * 4", String::new).is_ok());
        let e = fits("x", None, 399, l(400), "n * 4", || "n = 100".into()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "buffer `x` holds 399 elements, fewer than its declared length `n * 4` = 400 with n = 100"
        );
        let e = fits("kv", Some(2), 10, Len(None), "n - 1", || "n = 0".into()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "buffer 2 of stack `kv`: its declared length `n - 1` cannot be computed with n = 0 (it overflows, is negative or divides by zero)"
        );
    }
}
