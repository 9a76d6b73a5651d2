//! Lanes of f64 for branch-free kernels written once: the batch Kepler drift
//! ([`crate::physics::kepler`]) is generic over [`Lanes`] and runs as
//! - a lane group of [`GROUP`] bodies, chosen at run time by [`crate::simd::dispatch_lanes`]:
//!   [`Avx512`] (two AVX-512 vectors, explicit intrinsics) on a CPU with AVX-512, [`Portable`]
//!   (an array that LLVM vectorises at the width of the dispatched code: AVX2 or SSE2)
//!   otherwise;
//! - for one small system (up to 8 bodies), a narrow group of 4 or 8 lanes: [`Avx2`] (one or
//!   two AVX vectors, explicit intrinsics, through [`crate::simd::dispatch_avx`]) on a CPU with
//!   AVX, [`Wide`] (4 or 8 lanes as an array) otherwise;
//! - `f64`, one body (the reference arithmetic the tests compare with).
//!
//! Every operation is the IEEE operation of the scalar code (`+ - * /`, `sqrt` and the fused
//! `mul_add` correctly rounded, `round`, `round_ties_even` and `floor` exact), and none contracts
//! or reorders, so a kernel gives the same bits in every implementation: the AVX-512 path only
//! changes how many lanes one instruction carries. LLVM's own vectoriser keeps to 256 bits on
//! Intel's AVX-512 cores (its `prefer-256-bit` tuning, which stable Rust cannot switch off); the
//! explicit AVX-512 lanes make the drift 1.6-1.75 times faster on a Sapphire Rapids class Xeon.

use std::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Not, Sub};

/// Bodies per lane group: two AVX-512 vectors, so every step of a long serial kernel has two
/// independent vector chains in flight.
pub const GROUP: usize = 16;

/// A vector of f64 lanes with the operations of the branch-free kernels.
pub trait Lanes:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// One truth value per lane.
    type Mask: Copy
        + BitAnd<Output = Self::Mask>
        + BitOr<Output = Self::Mask>
        + Not<Output = Self::Mask>;
    /// Every lane `v`.
    fn splat(v: f64) -> Self;
    /// Square root.
    fn sqrt(self) -> Self;
    /// `self * a + b` with one rounding (`f64::mul_add`; an FMA instruction on the AVX levels,
    /// the correctly rounded software `fma` of the C library on the base level).
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// Absolute value.
    fn abs(self) -> Self;
    /// `self` if `self > o`, else `o` (so `o` for a NaN `self`).
    fn max(self, o: Self) -> Self;
    /// Nearest integer, ties away from zero (`f64::round`).
    fn round(self) -> Self;
    /// Nearest integer, ties to even (`f64::round_ties_even`).
    fn round_ties_even(self) -> Self;
    /// Largest integer not above (`f64::floor`).
    fn floor(self) -> Self;
    /// Magnitude of `self`, sign of `sign`.
    fn copysign(self, sign: Self) -> Self;
    /// `self < o` (false with a NaN); likewise the other comparisons.
    fn lt(self, o: Self) -> Self::Mask;
    fn le(self, o: Self) -> Self::Mask;
    fn gt(self, o: Self) -> Self::Mask;
    fn ge(self, o: Self) -> Self::Mask;
    fn eq(self, o: Self) -> Self::Mask;
    /// Neither infinite nor NaN.
    #[inline(always)]
    fn is_finite(self) -> Self::Mask {
        self.abs().lt(Self::splat(f64::INFINITY))
    }
    /// `a` where `m` holds, else `b`.
    fn select(m: Self::Mask, a: Self, b: Self) -> Self;
    /// Whether `m` holds in every lane.
    fn all(m: Self::Mask) -> bool;
    /// Whether `m` holds in some lane.
    fn any(m: Self::Mask) -> bool;
    /// No lane.
    fn none() -> Self::Mask;
}

impl Lanes for f64 {
    type Mask = bool;
    #[inline(always)]
    fn splat(v: f64) -> Self {
        v
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
    #[inline(always)]
    fn mul_add(self, a: Self, b: Self) -> Self {
        f64::mul_add(self, a, b)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        f64::abs(self)
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        if self > o {
            self
        } else {
            o
        }
    }
    #[inline(always)]
    fn round(self) -> Self {
        f64::round(self)
    }
    #[inline(always)]
    fn round_ties_even(self) -> Self {
        f64::round_ties_even(self)
    }
    #[inline(always)]
    fn floor(self) -> Self {
        f64::floor(self)
    }
    #[inline(always)]
    fn copysign(self, sign: Self) -> Self {
        f64::copysign(self, sign)
    }
    #[inline(always)]
    fn lt(self, o: Self) -> bool {
        self < o
    }
    #[inline(always)]
    fn le(self, o: Self) -> bool {
        self <= o
    }
    #[inline(always)]
    fn gt(self, o: Self) -> bool {
        self > o
    }
    #[inline(always)]
    fn ge(self, o: Self) -> bool {
        self >= o
    }
    #[inline(always)]
    fn eq(self, o: Self) -> bool {
        self == o
    }
    #[inline(always)]
    fn select(m: bool, a: Self, b: Self) -> Self {
        if m {
            a
        } else {
            b
        }
    }
    #[inline(always)]
    fn all(m: bool) -> bool {
        m
    }
    #[inline(always)]
    fn any(m: bool) -> bool {
        m
    }
    #[inline(always)]
    fn none() -> bool {
        false
    }
}

/// `W` lanes as an array, one `f64` operation per lane (LLVM vectorises the loops at the width
/// of the dispatched code). [`Portable`] is the lane group of [`GROUP`]; narrower ones serve a
/// few bodies (one small system) without the padding of a whole group.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wide<const W: usize>(pub [f64; W]);

/// `W` truth values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WideMask<const W: usize>(pub [bool; W]);

/// The portable lane group: [`GROUP`] lanes.
pub type Portable = Wide<GROUP>;
/// The truth values of a [`Portable`] group.
pub type PortableMask = WideMask<GROUP>;

impl<const W: usize> Wide<W> {
    #[inline(always)]
    fn map(self, f: impl Fn(f64) -> f64) -> Self {
        let mut out = self.0;
        for v in &mut out {
            *v = f(*v);
        }
        Wide(out)
    }

    #[inline(always)]
    fn zip(self, o: Self, f: impl Fn(f64, f64) -> f64) -> Self {
        let mut out = self.0;
        for l in 0..W {
            out[l] = f(out[l], o.0[l]);
        }
        Wide(out)
    }

    #[inline(always)]
    fn test(self, o: Self, f: impl Fn(f64, f64) -> bool) -> WideMask<W> {
        let mut out = [false; W];
        for l in 0..W {
            out[l] = f(self.0[l], o.0[l]);
        }
        WideMask(out)
    }
}

macro_rules! portable_binary {
    ($trait:ident, $method:ident, $op:tt) => {
        impl<const W: usize> $trait for Wide<W> {
            type Output = Wide<W>;
            #[inline(always)]
            fn $method(self, o: Wide<W>) -> Wide<W> {
                self.zip(o, |a, b| a $op b)
            }
        }
    };
}
portable_binary!(Add, add, +);
portable_binary!(Sub, sub, -);
portable_binary!(Mul, mul, *);
portable_binary!(Div, div, /);

impl<const W: usize> Neg for Wide<W> {
    type Output = Wide<W>;
    #[inline(always)]
    fn neg(self) -> Wide<W> {
        self.map(|a| -a)
    }
}

macro_rules! portable_mask_binary {
    ($trait:ident, $method:ident, $op:tt) => {
        impl<const W: usize> $trait for WideMask<W> {
            type Output = WideMask<W>;
            #[inline(always)]
            fn $method(self, o: WideMask<W>) -> WideMask<W> {
                let mut out = self.0;
                for l in 0..W {
                    out[l] $op o.0[l];
                }
                WideMask(out)
            }
        }
    };
}
portable_mask_binary!(BitAnd, bitand, &=);
portable_mask_binary!(BitOr, bitor, |=);

impl<const W: usize> Not for WideMask<W> {
    type Output = WideMask<W>;
    #[inline(always)]
    fn not(self) -> WideMask<W> {
        WideMask(self.0.map(|b| !b))
    }
}

impl<const W: usize> Lanes for Wide<W> {
    type Mask = WideMask<W>;
    #[inline(always)]
    fn splat(v: f64) -> Self {
        Wide([v; W])
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        self.map(f64::sqrt)
    }
    #[inline(always)]
    fn mul_add(self, a: Self, b: Self) -> Self {
        let mut out = self.0;
        for l in 0..W {
            out[l] = f64::mul_add(out[l], a.0[l], b.0[l]);
        }
        Wide(out)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        self.map(f64::abs)
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        self.zip(o, Lanes::max)
    }
    #[inline(always)]
    fn round(self) -> Self {
        self.map(f64::round)
    }
    #[inline(always)]
    fn round_ties_even(self) -> Self {
        self.map(f64::round_ties_even)
    }
    #[inline(always)]
    fn floor(self) -> Self {
        self.map(f64::floor)
    }
    #[inline(always)]
    fn copysign(self, sign: Self) -> Self {
        self.zip(sign, f64::copysign)
    }
    #[inline(always)]
    fn lt(self, o: Self) -> WideMask<W> {
        self.test(o, |a, b| a < b)
    }
    #[inline(always)]
    fn le(self, o: Self) -> WideMask<W> {
        self.test(o, |a, b| a <= b)
    }
    #[inline(always)]
    fn gt(self, o: Self) -> WideMask<W> {
        self.test(o, |a, b| a > b)
    }
    #[inline(always)]
    fn ge(self, o: Self) -> WideMask<W> {
        self.test(o, |a, b| a >= b)
    }
    #[inline(always)]
    fn eq(self, o: Self) -> WideMask<W> {
        self.test(o, |a, b| a == b)
    }
    #[inline(always)]
    fn select(m: WideMask<W>, a: Self, b: Self) -> Self {
        let mut out = b.0;
        for l in 0..W {
            out[l] = if m.0[l] { a.0[l] } else { out[l] };
        }
        Wide(out)
    }
    #[inline(always)]
    fn all(m: WideMask<W>) -> bool {
        m.0.iter().all(|&b| b)
    }
    #[inline(always)]
    fn any(m: WideMask<W>) -> bool {
        m.0.iter().any(|&b| b)
    }
    #[inline(always)]
    fn none() -> WideMask<W> {
        WideMask([false; W])
    }
}

/// A lane group of `L` lanes as arrays and back.
pub trait GroupIo<const L: usize = GROUP>: Lanes {
    /// The lanes of `a`.
    fn from_array(a: [f64; L]) -> Self;
    /// The lanes as an array.
    fn to_array(self) -> [f64; L];
    /// The truth values of a mask.
    fn mask_array(m: Self::Mask) -> [bool; L];
}

/// The `W` lanes of `s` from index `at` on.
#[inline(always)]
pub fn load<V: GroupIo<W>, const W: usize>(s: &[f64], at: usize) -> V {
    V::from_array(s[at..at + W].try_into().expect("W lanes"))
}

/// The `W` lanes of each of three component arrays from index `at` on. (Lane code builds its
/// arrays this way, never with closures or `array::map`: a closure is compiled without the
/// dispatched level's features, and would call every vector operation out of line.)
#[inline(always)]
pub fn load3<V: GroupIo<W>, const W: usize>(s: [&[f64]; 3], at: usize) -> [V; 3] {
    [load(s[0], at), load(s[1], at), load(s[2], at)]
}

/// The dot product of two 3-vectors of lanes, `a0 b0 + a1 b1 + a2 b2` (in that order, unfused).
#[inline(always)]
pub fn dot3<V: Lanes>(a: [V; 3], b: [V; 3]) -> V {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Store the lanes of `v` into `s` from index `at` on.
#[inline(always)]
pub fn store<V: GroupIo<W>, const W: usize>(s: &mut [f64], at: usize, v: V) {
    s[at..at + W].copy_from_slice(&v.to_array());
}

/// One lane as a plain number (the scalar remainder of a loop over lane groups).
impl GroupIo<1> for f64 {
    #[inline(always)]
    fn from_array(a: [f64; 1]) -> Self {
        a[0]
    }
    #[inline(always)]
    fn to_array(self) -> [f64; 1] {
        [self]
    }
    #[inline(always)]
    fn mask_array(m: bool) -> [bool; 1] {
        [m]
    }
}

impl<const W: usize> GroupIo<W> for Wide<W> {
    #[inline(always)]
    fn from_array(a: [f64; W]) -> Self {
        Wide(a)
    }
    #[inline(always)]
    fn to_array(self) -> [f64; W] {
        self.0
    }
    #[inline(always)]
    fn mask_array(m: WideMask<W>) -> [bool; W] {
        m.0
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::{GroupIo, Lanes, GROUP};
    use std::arch::x86_64::*;
    use std::ops::{Add, Div, Mul, Neg, Sub};

    // The AVX-512 lane group. SAFETY of every `unsafe` block here: it calls AVX-512F
    // intrinsics, and the type is used only by code running under `crate::simd`'s AVX-512
    // level (which the CPU has); every method is `#[inline(always)]`, so the intrinsics are
    // compiled into that level's wrapper with its features.

    /// [`GROUP`] lanes as two AVX-512 vectors; a mask is one bit per lane. Only for code that
    /// runs at [`crate::simd::Level::Avx512`] (through [`crate::simd::dispatch_lanes`]).
    #[derive(Clone, Copy, Debug)]
    pub struct Avx512([__m512d; 2]);

    const SIGN: i64 = i64::MIN;

    impl Avx512 {
        #[inline(always)]
        fn map(self, f: impl Fn(__m512d) -> __m512d) -> Self {
            Avx512([f(self.0[0]), f(self.0[1])])
        }

        #[inline(always)]
        fn zip(self, o: Self, f: impl Fn(__m512d, __m512d) -> __m512d) -> Self {
            Avx512([f(self.0[0], o.0[0]), f(self.0[1], o.0[1])])
        }

        #[inline(always)]
        fn test(self, o: Self, f: impl Fn(__m512d, __m512d) -> __mmask8) -> u16 {
            f(self.0[0], o.0[0]) as u16 | (f(self.0[1], o.0[1]) as u16) << 8
        }
    }

    macro_rules! binary {
        ($trait:ident, $method:ident, $intrinsic:ident) => {
            impl $trait for Avx512 {
                type Output = Avx512;
                #[inline(always)]
                fn $method(self, o: Avx512) -> Avx512 {
                    self.zip(o, |a, b| unsafe { $intrinsic(a, b) })
                }
            }
        };
    }
    binary!(Add, add, _mm512_add_pd);
    binary!(Sub, sub, _mm512_sub_pd);
    binary!(Mul, mul, _mm512_mul_pd);
    binary!(Div, div, _mm512_div_pd);

    /// Flip the sign bit (exactly `-x`, also for zeros and NaNs).
    #[inline(always)]
    fn negate(a: __m512d) -> __m512d {
        unsafe {
            let bits = _mm512_xor_si512(_mm512_castpd_si512(a), _mm512_set1_epi64(SIGN));
            _mm512_castsi512_pd(bits)
        }
    }

    impl Neg for Avx512 {
        type Output = Avx512;
        #[inline(always)]
        fn neg(self) -> Avx512 {
            self.map(negate)
        }
    }

    impl Lanes for Avx512 {
        type Mask = u16;
        #[inline(always)]
        fn splat(v: f64) -> Self {
            Avx512([unsafe { _mm512_set1_pd(v) }; 2])
        }
        #[inline(always)]
        fn sqrt(self) -> Self {
            self.map(|a| unsafe { _mm512_sqrt_pd(a) })
        }
        #[inline(always)]
        fn mul_add(self, a: Self, b: Self) -> Self {
            let f = |k: usize| unsafe { _mm512_fmadd_pd(self.0[k], a.0[k], b.0[k]) };
            Avx512([f(0), f(1)])
        }
        #[inline(always)]
        fn abs(self) -> Self {
            self.map(|a| unsafe { _mm512_abs_pd(a) })
        }
        #[inline(always)]
        fn max(self, o: Self) -> Self {
            // maxpd returns its second operand unless the first is greater.
            self.zip(o, |a, b| unsafe { _mm512_max_pd(a, b) })
        }
        #[inline(always)]
        fn round(self) -> Self {
            // Truncate, then step away from zero when the dropped part is at least 1/2 (it is
            // exact); the truncated value keeps the sign of zero, as `f64::round` does.
            let t = self.map(|a| unsafe { _mm512_roundscale_pd::<0x0B>(a) });
            let up = (self - t).abs().ge(Avx512::splat(0.5));
            Avx512::select(up, t + Avx512::splat(1.0).copysign(self), t)
        }
        #[inline(always)]
        fn round_ties_even(self) -> Self {
            self.map(|a| unsafe { _mm512_roundscale_pd::<0x08>(a) })
        }
        #[inline(always)]
        fn floor(self) -> Self {
            self.map(|a| unsafe { _mm512_roundscale_pd::<0x09>(a) })
        }
        #[inline(always)]
        fn copysign(self, sign: Self) -> Self {
            self.zip(sign, |a, s| unsafe {
                let mask = _mm512_set1_epi64(SIGN);
                let magnitude = _mm512_andnot_si512(mask, _mm512_castpd_si512(a));
                let sign = _mm512_and_si512(mask, _mm512_castpd_si512(s));
                _mm512_castsi512_pd(_mm512_or_si512(magnitude, sign))
            })
        }
        #[inline(always)]
        fn lt(self, o: Self) -> u16 {
            self.test(o, |a, b| unsafe { _mm512_cmp_pd_mask::<_CMP_LT_OQ>(a, b) })
        }
        #[inline(always)]
        fn le(self, o: Self) -> u16 {
            self.test(o, |a, b| unsafe { _mm512_cmp_pd_mask::<_CMP_LE_OQ>(a, b) })
        }
        #[inline(always)]
        fn gt(self, o: Self) -> u16 {
            self.test(o, |a, b| unsafe { _mm512_cmp_pd_mask::<_CMP_GT_OQ>(a, b) })
        }
        #[inline(always)]
        fn ge(self, o: Self) -> u16 {
            self.test(o, |a, b| unsafe { _mm512_cmp_pd_mask::<_CMP_GE_OQ>(a, b) })
        }
        #[inline(always)]
        fn eq(self, o: Self) -> u16 {
            self.test(o, |a, b| unsafe { _mm512_cmp_pd_mask::<_CMP_EQ_OQ>(a, b) })
        }
        #[inline(always)]
        fn select(m: u16, a: Self, b: Self) -> Self {
            // blend takes its second operand where the mask bit is set.
            unsafe {
                Avx512([
                    _mm512_mask_blend_pd(m as __mmask8, b.0[0], a.0[0]),
                    _mm512_mask_blend_pd((m >> 8) as __mmask8, b.0[1], a.0[1]),
                ])
            }
        }
        #[inline(always)]
        fn all(m: u16) -> bool {
            m == u16::MAX
        }
        #[inline(always)]
        fn any(m: u16) -> bool {
            m != 0
        }
        #[inline(always)]
        fn none() -> u16 {
            0
        }
    }

    impl GroupIo for Avx512 {
        #[inline(always)]
        fn from_array(a: [f64; GROUP]) -> Self {
            // SAFETY: both are 16 f64 (128 bytes), and every bit pattern is valid for both.
            Avx512(unsafe { std::mem::transmute::<[f64; GROUP], [__m512d; 2]>(a) })
        }
        #[inline(always)]
        fn to_array(self) -> [f64; GROUP] {
            // SAFETY: as in `from_array`.
            unsafe { std::mem::transmute::<[__m512d; 2], [f64; GROUP]>(self.0) }
        }
        #[inline(always)]
        fn mask_array(m: u16) -> [bool; GROUP] {
            std::array::from_fn(|l| m >> l & 1 == 1)
        }
    }
}

#[cfg(target_arch = "x86_64")]
pub use avx512::Avx512;

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{GroupIo, Lanes};
    use std::arch::x86_64::*;
    use std::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Not, Sub};

    // The AVX2 lane groups of one small system. SAFETY of every `unsafe` block here: it calls
    // AVX and FMA intrinsics, and the types are used only by code running under `crate::simd`'s
    // AVX2 or AVX-512 level (whose features include AVX and FMA: `crate::simd::dispatch_avx`);
    // every method is `#[inline(always)]`, so the intrinsics are compiled into that level's
    // wrapper.

    /// `4 K` lanes (K < 8) as `K` AVX vectors of f64 (4 and 8 lanes serve systems of up to 4 and 8
    /// bodies, where LLVM's code for [`super::Wide`] loses a third of the time to its boolean
    /// masks); a mask is `K` vectors of all-ones or all-zeros lanes. Only for code that runs at
    /// the AVX2 or AVX-512 level.
    #[derive(Clone, Copy, Debug)]
    pub struct Avx2<const K: usize>([__m256d; K]);

    /// The truth values of an [`Avx2`] group: all bits set in a true lane.
    #[derive(Clone, Copy, Debug)]
    pub struct Avx2Mask<const K: usize>([__m256d; K]);

    const SIGN: f64 = -0.0;

    impl<const K: usize> Avx2<K> {
        // (Loops rather than `array::map`, which LLVM may leave out of line, outside the SIMD
        // level's code.)
        #[inline(always)]
        fn map(self, f: impl Fn(__m256d) -> __m256d) -> Self {
            let mut out = self.0;
            for k in 0..K {
                out[k] = f(self.0[k]);
            }
            Avx2(out)
        }

        #[inline(always)]
        fn zip(self, o: Self, f: impl Fn(__m256d, __m256d) -> __m256d) -> Self {
            let mut out = self.0;
            for k in 0..K {
                out[k] = f(self.0[k], o.0[k]);
            }
            Avx2(out)
        }
    }

    impl<const K: usize> Avx2Mask<K> {
        #[inline(always)]
        fn zip(self, o: Self, f: impl Fn(__m256d, __m256d) -> __m256d) -> Self {
            let mut out = self.0;
            for k in 0..K {
                out[k] = f(self.0[k], o.0[k]);
            }
            Avx2Mask(out)
        }

        /// One bit per lane, lane 0 lowest.
        #[inline(always)]
        fn bits(self) -> u32 {
            let mut b = 0;
            for k in 0..K {
                b |= (unsafe { _mm256_movemask_pd(self.0[k]) } as u32) << (4 * k);
            }
            b
        }
    }

    macro_rules! binary {
        ($trait:ident, $method:ident, $intrinsic:ident) => {
            impl<const K: usize> $trait for Avx2<K> {
                type Output = Avx2<K>;
                #[inline(always)]
                fn $method(self, o: Avx2<K>) -> Avx2<K> {
                    self.zip(o, |a, b| unsafe { $intrinsic(a, b) })
                }
            }
        };
    }
    binary!(Add, add, _mm256_add_pd);
    binary!(Sub, sub, _mm256_sub_pd);
    binary!(Mul, mul, _mm256_mul_pd);
    binary!(Div, div, _mm256_div_pd);

    impl<const K: usize> Neg for Avx2<K> {
        type Output = Avx2<K>;
        /// Flip the sign bit (exactly `-x`, also for zeros and NaNs).
        #[inline(always)]
        fn neg(self) -> Avx2<K> {
            self.map(|a| unsafe { _mm256_xor_pd(a, _mm256_set1_pd(SIGN)) })
        }
    }

    impl<const K: usize> BitAnd for Avx2Mask<K> {
        type Output = Avx2Mask<K>;
        #[inline(always)]
        fn bitand(self, o: Self) -> Self {
            self.zip(o, |a, b| unsafe { _mm256_and_pd(a, b) })
        }
    }

    impl<const K: usize> BitOr for Avx2Mask<K> {
        type Output = Avx2Mask<K>;
        #[inline(always)]
        fn bitor(self, o: Self) -> Self {
            self.zip(o, |a, b| unsafe { _mm256_or_pd(a, b) })
        }
    }

    impl<const K: usize> Not for Avx2Mask<K> {
        type Output = Avx2Mask<K>;
        #[inline(always)]
        fn not(self) -> Self {
            let ones = unsafe { _mm256_castsi256_pd(_mm256_set1_epi64x(-1)) };
            let mut out = self.0;
            for k in 0..K {
                out[k] = unsafe { _mm256_xor_pd(self.0[k], ones) };
            }
            Avx2Mask(out)
        }
    }

    macro_rules! compare {
        ($method:ident, $predicate:ident) => {
            #[inline(always)]
            fn $method(self, o: Self) -> Avx2Mask<K> {
                let mut out = self.0;
                for k in 0..K {
                    out[k] = unsafe { _mm256_cmp_pd::<$predicate>(self.0[k], o.0[k]) };
                }
                Avx2Mask(out)
            }
        };
    }

    impl<const K: usize> Lanes for Avx2<K> {
        type Mask = Avx2Mask<K>;
        #[inline(always)]
        fn splat(v: f64) -> Self {
            Avx2([unsafe { _mm256_set1_pd(v) }; K])
        }
        #[inline(always)]
        fn sqrt(self) -> Self {
            self.map(|a| unsafe { _mm256_sqrt_pd(a) })
        }
        #[inline(always)]
        fn mul_add(self, a: Self, b: Self) -> Self {
            let mut out = self.0;
            for k in 0..K {
                out[k] = unsafe { _mm256_fmadd_pd(self.0[k], a.0[k], b.0[k]) };
            }
            Avx2(out)
        }
        #[inline(always)]
        fn abs(self) -> Self {
            self.map(|a| unsafe { _mm256_andnot_pd(_mm256_set1_pd(SIGN), a) })
        }
        #[inline(always)]
        fn max(self, o: Self) -> Self {
            // maxpd returns its second operand unless the first is greater.
            self.zip(o, |a, b| unsafe { _mm256_max_pd(a, b) })
        }
        #[inline(always)]
        fn round(self) -> Self {
            // As the AVX-512 lanes: truncate, then step away from zero when the dropped part
            // is at least 1/2 (it is exact); the truncated value keeps the sign of zero.
            let t = self.map(|a| unsafe { _mm256_round_pd::<0x0B>(a) });
            let up = (self - t).abs().ge(Self::splat(0.5));
            Self::select(up, t + Self::splat(1.0).copysign(self), t)
        }
        #[inline(always)]
        fn round_ties_even(self) -> Self {
            self.map(|a| unsafe { _mm256_round_pd::<0x08>(a) })
        }
        #[inline(always)]
        fn floor(self) -> Self {
            self.map(|a| unsafe { _mm256_round_pd::<0x09>(a) })
        }
        #[inline(always)]
        fn copysign(self, sign: Self) -> Self {
            self.zip(sign, |a, s| unsafe {
                let mask = _mm256_set1_pd(SIGN);
                _mm256_or_pd(_mm256_andnot_pd(mask, a), _mm256_and_pd(mask, s))
            })
        }
        compare!(lt, _CMP_LT_OQ);
        compare!(le, _CMP_LE_OQ);
        compare!(gt, _CMP_GT_OQ);
        compare!(ge, _CMP_GE_OQ);
        compare!(eq, _CMP_EQ_OQ);
        #[inline(always)]
        fn select(m: Avx2Mask<K>, a: Self, b: Self) -> Self {
            // blendv takes its second operand where the mask lane's sign bit is set.
            let mut out = b.0;
            for k in 0..K {
                out[k] = unsafe { _mm256_blendv_pd(b.0[k], a.0[k], m.0[k]) };
            }
            Avx2(out)
        }
        #[inline(always)]
        fn all(m: Avx2Mask<K>) -> bool {
            m.bits() == (1u32 << (4 * K)) - 1
        }
        #[inline(always)]
        fn any(m: Avx2Mask<K>) -> bool {
            m.bits() != 0
        }
        #[inline(always)]
        fn none() -> Avx2Mask<K> {
            Avx2Mask([unsafe { _mm256_setzero_pd() }; K])
        }
    }

    macro_rules! group_io {
        ($k:literal, $lanes:literal) => {
            impl GroupIo<$lanes> for Avx2<$k> {
                #[inline(always)]
                fn from_array(a: [f64; $lanes]) -> Self {
                    // SAFETY: both are the same number of f64, every bit pattern valid for both.
                    Avx2(unsafe { std::mem::transmute::<[f64; $lanes], [__m256d; $k]>(a) })
                }
                #[inline(always)]
                fn to_array(self) -> [f64; $lanes] {
                    // SAFETY: as in `from_array`.
                    unsafe { std::mem::transmute::<[__m256d; $k], [f64; $lanes]>(self.0) }
                }
                #[inline(always)]
                fn mask_array(m: Avx2Mask<$k>) -> [bool; $lanes] {
                    let bits = m.bits();
                    let mut out = [false; $lanes];
                    for l in 0..$lanes {
                        out[l] = bits >> l & 1 == 1;
                    }
                    out
                }
            }
        };
    }
    group_io!(1, 4);
    group_io!(2, 8);
}

#[cfg(target_arch = "x86_64")]
pub(crate) use avx2::Avx2;

#[cfg(test)]
mod tests;
