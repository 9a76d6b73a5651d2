//! The in-house vectorisable sine and cosine (fdlibm's kernels with a Cody-Waite reduction).

use crate::simd::lanes::Lanes;

/// [`sin_cos`] of every lane. When every lane lies in [-pi/4, pi/4] (the usual change of
/// eccentric anomaly per step) the reduction is skipped: it would give k = 0 and r = x + 0
/// exactly (+0 for x = -0), so the result is bitwise the same.
#[inline(always)]
pub(crate) fn sin_cos_lanes<V: Lanes>(x: V) -> (V, V) {
    let [s, c, _] = sin_cos_omc_lanes(x);
    (s, c)
}

/// `[sin x, cos x, 1 - cos x]` of every lane ([`sin_cos_omc`]), without the reduction when
/// every lane lies in [-pi/4, pi/4], as [`sin_cos_lanes`].
#[inline(always)]
pub(crate) fn sin_cos_omc_lanes<V: Lanes>(x: V) -> [V; 3] {
    if V::all(x.abs().le(V::splat(SIN_COS_NO_REDUCTION))) {
        sin_cos_kernel(x + V::splat(0.0), V::splat(0.0))
    } else {
        sin_cos_omc(x)
    }
}

/// Largest |x| for which [`sin_cos`] takes k = 0: x * 2/pi rounds to 0 below 1/2, and pi/4 is
/// safely inside.
pub(super) const SIN_COS_NO_REDUCTION: f64 = 0.78;

/// pi/2 in three parts for Cody-Waite reduction (fdlibm's `__ieee754_rem_pio2`; bit patterns
/// 0x3FF921FB54400000, 0x3DD0B4611A600000, 0x3BA3198A2E037073, written as the shortest decimals
/// that round-trip): `PIO2_1` and
/// `PIO2_2` carry 33 significant bits each, so `k PIO2_1` and `k PIO2_2` are exact for integers
/// |k| < 2^20, and `PIO2_1 + PIO2_2 + PIO2_2T` is pi/2 to about 2^-118.
pub(super) const PIO2_1: f64 = 1.5707963267341256;
pub(super) const PIO2_2: f64 = 6.077100506303966e-11;
pub(super) const PIO2_2T: f64 = 2.0222662487959506e-21;
pub(super) const INV_PIO2: f64 = std::f64::consts::FRAC_2_PI;
/// Minimax coefficients of fdlibm's `__kernel_sin` on [-pi/4, pi/4]:
/// sin r = r + S1 r^3 + ... + S6 r^13, error below 2^-58 relative.
pub(super) const S: [f64; 6] = [
    -0.16666666666666632,
    8.33333333332249e-3,
    -1.984126982985795e-4,
    2.7557313707070068e-6,
    -2.5050760253406863e-8,
    1.58969099521155e-10,
];
/// Minimax coefficients of fdlibm's `__kernel_cos` on [-pi/4, pi/4]:
/// cos r = 1 - r^2/2 + C1 r^4 + ... + C6 r^14, error below 2^-58.
pub(super) const C: [f64; 6] = [
    4.16666666666666e-2,
    -1.388888888887411e-3,
    2.480158728947673e-5,
    -2.7557314351390663e-7,
    2.087572321298175e-9,
    -1.1359647557788195e-11,
];

/// fdlibm's `__kernel_sin(hi, lo)` and `__kernel_cos(hi, lo)`: sine and cosine of `hi + lo`
/// for |hi| <= pi/4 and |lo| tiny, with fdlibm's grouping of the terms and every product
/// followed by a sum fused (`mul_add`, one rounding), which shortens the dependency chains of
/// the polynomials; and `1 - cos`, the same polynomial without its leading 1
/// (`r^2/2 - (r^2 rc - hi lo)`), so that it has no cancellation for small `r`.
#[inline(always)]
fn sin_cos_kernel<V: Lanes>(hi: V, lo: V) -> [V; 3] {
    let k = V::splat;
    let z = hi * hi;
    let zz = z * z;
    let v = z * hi;
    // rs = S1 + z (S2 + z S3) + z zz (S4 + z S5)
    let rs_lo = z.mul_add(z.mul_add(k(S[3]), k(S[2])), k(S[1]));
    let rs = (z * zz).mul_add(z.mul_add(k(S[5]), k(S[4])), rs_lo);
    // sin = hi - ((z (lo/2 - v rs) - lo) - v S0)
    let t = (-v).mul_add(rs, k(0.5) * lo);
    let sin_r = hi - (-v).mul_add(k(S[0]), z.mul_add(t, -lo));
    // rc = z (C0 + z (C1 + z C2)) + zz^2 (C3 + z (C4 + z C5))
    let rc_lo = z * z.mul_add(z.mul_add(k(C[2]), k(C[1])), k(C[0]));
    let rc = (zz * zz).mul_add(z.mul_add(z.mul_add(k(C[5]), k(C[4])), k(C[3])), rc_lo);
    let hz = k(0.5) * z;
    let wc = k(1.0) - hz;
    let tail = z.mul_add(rc, -(hi * lo));
    let cos_r = wc + (((k(1.0) - wc) - hz) + tail);
    [sin_r, cos_r, hz - tail]
}

/// `a + b = s + err` exactly (Knuth's TwoSum).
#[inline(always)]
fn two_sum<V: Lanes>(a: V, b: V) -> (V, V) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// Branch-free, vectorisable sine and cosine, for |x| < 2^19 (about 8e5 rad; the Kepler lanes
/// use |x| < 8). Accuracy: within 1 ulp of the exact values (the tests find at most 1 ulp
/// difference from the correctly rounded libm results over millions of arguments).
///
/// Method (fdlibm): Cody-Waite reduction `x = k pi/2 + r` with `k = round(2x/pi)` and pi/2 in
/// three parts, the first two of 33 bits so that `k PIO2_1` and `k PIO2_2` are exact, with
/// TwoSum error terms, giving `r = hi + lo` to about 2^-118 |k| absolute; then fdlibm's
/// `__kernel_sin` and `__kernel_cos` minimax polynomials on |r| <= pi/4 with the `lo`
/// correction (`sin(hi + lo) = sin hi + lo cos hi`), and `cos` written as
/// `w + ((1 - w) - r^2/2 + ...)` with `w = 1 - r^2/2` so the leading term carries no rounding
/// error; finally the quadrant `k mod 4` selects and negates (sin, cos) of `r`. The quadrant is
/// computed in floating point with `floor`, and selections are lane selects, so the whole
/// function is branch-free on every [`Lanes`] type.
#[inline(always)]
pub(crate) fn sin_cos<V: Lanes>(x: V) -> (V, V) {
    let [s, c, _] = sin_cos_omc(x);
    (s, c)
}

/// `[sin x, cos x, 1 - cos x]`: [`sin_cos`] with `1 - cos x` beside it, from the kernel's
/// polynomial without its leading 1 in the quadrant where cos x is near 1 (`k mod 4 = 0`), and
/// as `1 - cos x` in the others, where it is at least `1 - 1/sqrt 2` and so has no
/// cancellation. For the Kepler drift's `1 - cos x` of small changes of anomaly, without a
/// division.
#[inline(always)]
pub(crate) fn sin_cos_omc<V: Lanes>(x: V) -> [V; 3] {
    let c = V::splat;
    let k = (x * c(INV_PIO2)).round_ties_even();
    // x - k PIO2_1 is exact (Sterbenz for k != 0), and so is k PIO2_2.
    let r1 = x - k * c(PIO2_1);
    let (r2, e2) = two_sum(r1, -(k * c(PIO2_2)));
    let w = k * c(PIO2_2T) - e2;
    let (hi, lo) = two_sum(r2, -w);
    let [sin_r, cos_r, omc_r] = sin_cos_kernel(hi, lo);
    // Quadrant q = k mod 4 in {0, 1, 2, 3}, exactly.
    let q = k - c(4.0) * (c(0.25) * k).floor();
    let odd = q.eq(c(1.0)) | q.eq(c(3.0));
    let (s, co) = (V::select(odd, cos_r, sin_r), V::select(odd, sin_r, cos_r));
    let s = V::select(q.ge(c(2.0)), -s, s);
    let co = V::select(q.eq(c(1.0)) | q.eq(c(2.0)), -co, co);
    let omc = V::select(q.eq(c(0.0)), omc_r, c(1.0) - co);
    [s, co, omc]
}
