//! The hybrid integrator's changeover function (GENGA paper eqs 4-6, after Chambers 1999).
//!
//! The pair force is split as `F = K(r) F + (1 - K(r)) F`: the K part is applied in the kicks
//! (H_B), the (1 - K) part inside close-encounter Bulirsch-Stoer integrations (H_A). Applying K to
//! the force (not to the potential) keeps the two parts summing exactly to Newtonian gravity.
//! The function K is a choice ([`Changeover`]); GENGA's is the default.

use std::fmt;

/// Critical radius of one body, eq. 6: `max(n1 R_H, n2 tau v)` with the Hill radius
/// `R_H = r (m / 3 M0)^{1/3}` from the heliocentric distance `r`, and speed `v`.
#[inline]
pub fn critical_radius(n1: f64, n2: f64, tau: f64, m: f64, m0: f64, r: f64, v: f64) -> f64 {
    critical_radius_from(n1, r, hill_factor_of(m, m0), n2 * tau * v)
}

/// [`critical_radius`] from the parts a pass keeps: `max(n1 r hill_factor, v_part)` with the
/// Hill factor `(m / 3 M0)^{1/3}` (cached per body) and the velocity part `v_part = n2 tau v`.
#[inline(always)]
pub fn critical_radius_from(n1: f64, r: f64, hill_factor: f64, v_part: f64) -> f64 {
    (n1 * r * hill_factor).max(v_part)
}

/// A massive body's critical radius raised to `floor` when one is set (`floor > 0`; see
/// [`crate::model::StepParams::rcrit_floor`]); without one, `rcrit` itself.
#[inline(always)]
pub fn with_floor(rcrit: f64, floor: f64) -> f64 {
    if floor > 0.0 {
        rcrit.max(floor)
    } else {
        rcrit
    }
}

/// `(m / 3 M0)^{1/3}`, the Hill radius per unit heliocentric distance (0 for a massless body,
/// which skips the cube root).
#[inline]
pub fn hill_factor_of(m: f64, m0: f64) -> f64 {
    if m > 0.0 {
        (m / (3.0 * m0)).cbrt()
    } else {
        0.0
    }
}

/// The changeover function K of the hybrid step, chosen per run (scenario field `changeover`,
/// `param.dat` key `Changeover function`). Every function is a function of
/// `y = (r - 0.1 rcrit) / (0.9 rcrit)` clamped to [0, 1], with `K(0) = 0` and `K(1) = 1`, so the
/// critical radius (eq. 6) and the prechecker (`r < 3 rcrit`) are the same for all of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Changeover {
    /// GENGA's eq. 4 (after Chambers 1999), `K = y^2 / (2y^2 - 2y + 1)`: dK/dy is continuous at
    /// the edges, the second derivative is not (it jumps from 0 to 2 at y = 0 and from -2 to 0
    /// at y = 1). The default, so that GENGA runs reproduce.
    #[default]
    Genga,
    /// The quintic polynomial of Mercury 6 and REBOUND's MERCURIUS,
    /// `K = 10y^3 - 15y^4 + 6y^5`: the first and second derivatives vanish at both edges (the
    /// third jumps by 60).
    Quintic,
    /// An infinitely differentiable function (Hernandez 2019; REBOUND's `L_infinity`),
    /// `K = f(y) / (f(y) + f(1 - y))` with `f(x) = exp(-1/x)`: every derivative vanishes at
    /// both edges.
    Infinity,
}

impl Changeover {
    /// Every function, in the order of [`Changeover::code`].
    pub const ALL: [Changeover; 3] = [Changeover::Genga, Changeover::Quintic, Changeover::Infinity];

    /// The function's name in `param.dat` (`genga`, `quintic`, `infinity`).
    pub fn name(self) -> &'static str {
        match self {
            Changeover::Genga => "genga",
            Changeover::Quintic => "quintic",
            Changeover::Infinity => "infinity",
        }
    }

    /// The function named `s` (case-insensitive), as [`Changeover::name`] spells it.
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(s.trim()))
    }

    /// The function's number in the device kernels (`ORR_CHANGEOVER_*` in
    /// kernels/common/changeover.h).
    pub fn code(self) -> u32 {
        self as u32
    }

    /// K as numerator and denominator at the clamped `y` of [`changeover_y`].
    #[inline(always)]
    pub fn ratio_of_y(self, y: f64) -> (f64, f64) {
        crate::with_changeover!(self, C => C::ratio_of_y(y))
    }

    /// K(r) as numerator and denominator from the pair's inverse critical radius (see
    /// [`ChangeoverFn::ratio`]).
    #[inline(always)]
    pub fn ratio(self, r: f64, inv_rcrit: f64) -> (f64, f64) {
        self.ratio_of_y(changeover_y(r, inv_rcrit))
    }

    /// K(r) for a pair with critical radius `rcrit` (the larger of the two bodies').
    #[inline(always)]
    pub fn k(self, r: f64, rcrit: f64) -> f64 {
        let (num, den) = self.ratio(r, 1.0 / rcrit);
        num / den
    }
}

impl fmt::Display for Changeover {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One changeover function as a type, for the vectorised pair loops, which are compiled once per
/// function ([`with_changeover!`](crate::with_changeover) picks the instance at the pass).
pub trait ChangeoverFn: Copy {
    /// The function this type computes.
    const KIND: Changeover;
    /// True when K costs enough (an exponential and a division) that a vectorised pair loop
    /// should evaluate it for the candidate pairs only, after the loop, rather than for every
    /// pair in it (the sums are the same bits: a pair that is not a candidate adds nothing).
    const LAZY: bool = false;

    /// K as numerator and denominator at `y` in [0, 1] (branch-free, so that pair loops
    /// vectorise).
    fn ratio_of_y(y: f64) -> (f64, f64);

    /// K(r) as numerator and denominator, from the inverse critical radius, so that a force
    /// loop can fold the division into its own (`1 / max(a, b) = min(1/a, 1/b)` exactly, so
    /// per-body inverses serve every pair).
    #[inline(always)]
    fn ratio(r: f64, inv_rcrit: f64) -> (f64, f64) {
        Self::ratio_of_y(changeover_y(r, inv_rcrit))
    }
}

/// GENGA's eq. 4 ([`Changeover::Genga`]).
#[derive(Debug, Clone, Copy)]
pub struct Genga;
/// The quintic of Mercury and MERCURIUS ([`Changeover::Quintic`]).
#[derive(Debug, Clone, Copy)]
pub struct Quintic;
/// The infinitely smooth function ([`Changeover::Infinity`]).
#[derive(Debug, Clone, Copy)]
pub struct Infinity;

impl ChangeoverFn for Genga {
    const KIND: Changeover = Changeover::Genga;
    /// `(y^2, 2y^2 - 2y + 1)`.
    #[inline(always)]
    fn ratio_of_y(y: f64) -> (f64, f64) {
        let y2 = y * y;
        (y2, 2.0 * y2 - 2.0 * y + 1.0)
    }
}

impl ChangeoverFn for Quintic {
    const KIND: Changeover = Changeover::Quintic;
    /// `(y^3 (10 + y (6y - 15)), 1)`: exactly 0 at y = 0 and 1 at y = 1.
    #[inline(always)]
    fn ratio_of_y(y: f64) -> (f64, f64) {
        (y * y * y * (10.0 + y * (6.0 * y - 15.0)), 1.0)
    }
}

impl ChangeoverFn for Infinity {
    const KIND: Changeover = Changeover::Infinity;
    const LAZY: bool = true;
    /// With `t = (1 - 2y) / (y (1 - y))`, `K = 1 / (1 + e^t)`: `(e, 1 + e)` with `e = e^-t`
    /// for t >= 0 (y <= 1/2), `(1, 1 + e)` with `e = e^t` for t < 0, so the exponential never
    /// overflows; exactly 0 at y = 0 and 1 at y = 1. Outside the shell (y = 0 or 1, most
    /// candidate pairs) the exponential is skipped: it would give exactly these bits.
    #[inline(always)]
    fn ratio_of_y(y: f64) -> (f64, f64) {
        if y >= 1.0 {
            return (1.0, 1.0);
        }
        if y <= 0.0 {
            return (0.0, 1.0);
        }
        let t = (1.0 - 2.0 * y) / (y * (1.0 - y));
        let e = exp_neg(t.abs());
        let num = if t >= 0.0 { e } else { 1.0 };
        (if y > 0.0 { num } else { 0.0 }, 1.0 + e)
    }
}

/// Picks the [`ChangeoverFn`] type of a [`Changeover`] for a block of code:
/// `with_changeover!(kind, C => pass::<C>(..))`.
#[macro_export]
macro_rules! with_changeover {
    ($kind:expr, $c:ident => $body:expr) => {
        match $kind {
            $crate::physics::changeover::Changeover::Genga => {
                type $c = $crate::physics::changeover::Genga;
                $body
            }
            $crate::physics::changeover::Changeover::Quintic => {
                type $c = $crate::physics::changeover::Quintic;
                $body
            }
            $crate::physics::changeover::Changeover::Infinity => {
                type $c = $crate::physics::changeover::Infinity;
                $body
            }
        }
    };
}

/// K as numerator and denominator of every lane of `y` (clamped values of [`changeover_y`]):
/// the choice of function made once for the lanes, so each arm is a loop that vectorises.
#[inline(always)]
pub fn ratio_lanes<const L: usize>(kind: Changeover, y: [f64; L]) -> ([f64; L], [f64; L]) {
    crate::with_changeover!(kind, C => {
        let (mut num, mut den) = ([0.0; L], [0.0; L]);
        for l in 0..L {
            (num[l], den[l]) = C::ratio_of_y(y[l]);
        }
        (num, den)
    })
}

/// The changeover variable of eq. 5, `y = (r / rcrit - 0.1) / 0.9` clamped to [0, 1] (the three
/// branches of eq. 4 without branching).
#[inline(always)]
pub fn changeover_y(r: f64, inv_rcrit: f64) -> f64 {
    ((r * inv_rcrit - 0.1) * (1.0 / 0.9)).clamp(0.0, 1.0)
}

/// `e^-u` for `u >= 0` within a few ulp (a NaN `u` gives `e^-708`), from + - * /, `round` and bit moves
/// only, so that the device twin (`orr_exp_neg` in kernels/common/changeover.h) gives the same
/// bits: `u = k ln 2 + s` with `k = round(u / ln 2)` (Cody-Waite: ln 2 in two parts),
/// `e^-u = 2^-k e^-s` with `|s| <= ln 2 / 2` and `e^-s` from its Taylor polynomial to degree 13
/// (truncation below 5e-18). `u` is capped at 708 (`e^-708 = 3.3e-308`, still a normal
/// number), so the power of two is built from its exponent bits.
#[inline(always)]
pub fn exp_neg(u: f64) -> f64 {
    // 1/n! for n = 13 down to 2.
    const C: [f64; 12] = [
        1.0 / 6_227_020_800.0,
        1.0 / 479_001_600.0,
        1.0 / 39_916_800.0,
        1.0 / 3_628_800.0,
        1.0 / 362_880.0,
        1.0 / 40_320.0,
        1.0 / 5_040.0,
        1.0 / 720.0,
        1.0 / 120.0,
        1.0 / 24.0,
        1.0 / 6.0,
        0.5,
    ];
    let u = u.min(708.0);
    let k = (u * std::f64::consts::LOG2_E).round();
    let x = -((u - k * LN2_HI) - k * LN2_LO);
    let mut p = C[0];
    for c in &C[1..] {
        p = p * x + c;
    }
    let p = (p * x + 1.0) * x + 1.0;
    // 2^-k for k in 0 ..= 1022: the integer 1023 - k sits in the low mantissa bits of
    // 2^52 + (1023 - k), from where it moves into the exponent field.
    let biased = ((1023.0 - k) + TWO_52).to_bits() - TWO_52.to_bits();
    p * f64::from_bits(biased << 52)
}

/// ln 2 in two parts (Cody-Waite): `LN2_HI` has zeros in its low bits, so `k * LN2_HI` is exact
/// for the integers k of [`exp_neg`] and `gas::ln`.
pub(crate) const LN2_HI: f64 = 6.931_471_803_691_238e-1;
pub(crate) const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;

/// 2^52, whose mantissa bits hold any integer below 2^52 added to it.
const TWO_52: f64 = 4_503_599_627_370_496.0;

#[cfg(test)]
mod tests {
    use super::*;

    /// K(y) of `c` at y in [0, 1] (and the clamped values outside).
    fn k_of_y(c: Changeover, y: f64) -> f64 {
        let (n, d) = c.ratio_of_y(y.clamp(0.0, 1.0));
        n / d
    }

    /// The m-th derivative of K at `y` by central differences of step `h` (one-sided from
    /// outside the interval at the edges, where K is constant).
    fn derivative(c: Changeover, m: u32, y: f64, h: f64) -> f64 {
        // Binomial central difference of order m.
        let mut sum = 0.0;
        let mut binom = 1.0;
        for i in 0..=m {
            let sign = if i % 2 == 0 { 1.0 } else { -1.0 };
            let at = y + (m as f64 / 2.0 - i as f64) * h;
            sum += sign * binom * k_of_y(c, at);
            binom = binom * (m - i) as f64 / (i + 1) as f64;
        }
        sum / h.powi(m as i32)
    }

    #[test]
    fn every_function_is_zero_below_one_above_and_monotone_between() {
        for c in Changeover::ALL {
            let rc = 2.0;
            assert_eq!(c.k(0.0, rc), 0.0, "{c}");
            assert_eq!(c.k(0.1 * rc, rc), 0.0, "{c}");
            assert_eq!(c.k(rc, rc), 1.0, "{c}");
            assert_eq!(c.k(10.0 * rc, rc), 1.0, "{c}");
            // Symmetric about y = 1/2: K(1/2) = 1/2 and K(y) + K(1 - y) = 1.
            assert!((k_of_y(c, 0.5) - 0.5).abs() < 1e-15, "{c}");
            let mut prev = 0.0;
            for k in 0..=2000 {
                let y = k as f64 / 2000.0;
                let v = k_of_y(c, y);
                assert!(v >= prev && (0.0..=1.0).contains(&v), "{c} y {y}");
                assert!((v + k_of_y(c, 1.0 - y) - 1.0).abs() < 4e-15, "{c} y {y}");
                prev = v;
            }
            // The ratio from r and the inverse radius is the one from y.
            let r = 0.37 * rc;
            assert_eq!(
                c.ratio(r, 1.0 / rc),
                c.ratio_of_y(changeover_y(r, 1.0 / rc))
            );
        }
    }

    #[test]
    fn the_closed_forms_hold_inside() {
        for k in 1..100 {
            let y = k as f64 / 100.0;
            let genga = y * y / (2.0 * y * y - 2.0 * y + 1.0);
            let quintic = 10.0 * y.powi(3) - 15.0 * y.powi(4) + 6.0 * y.powi(5);
            let f = |x: f64| (-1.0 / x).exp();
            let infinity = f(y) / (f(y) + f(1.0 - y));
            assert!((k_of_y(Changeover::Genga, y) - genga).abs() < 1e-15);
            // The power form cancels terms up to 10 in size.
            assert!((k_of_y(Changeover::Quintic, y) - quintic).abs() < 1e-14);
            assert!(
                (k_of_y(Changeover::Infinity, y) - infinity).abs() < 1e-15,
                "y {y}"
            );
        }
    }

    /// Continuity of K and its derivatives across the edges y = 0 and y = 1: the one-sided
    /// limits from inside match the constant outside (derivatives 0) up to the order each
    /// function promises, and the first derivative that may jump does jump by the amount its
    /// closed form gives.
    #[test]
    fn derivatives_at_the_edges() {
        // (function, derivatives continuous at the edges, the first jump at y = 0)
        let cases = [
            (Changeover::Genga, 1, Some(2.0)),
            (Changeover::Quintic, 2, Some(60.0)),
            (Changeover::Infinity, 4, None),
        ];
        for (c, smooth, jump) in cases {
            for edge in [0.0, 1.0] {
                let inside = if edge == 0.0 { 1.0 } else { -1.0 };
                for m in 0..=smooth {
                    // Just inside the edge, the m-th derivative tends to 0 (and K to its edge
                    // value): evaluate a few step widths in, where the difference is clean.
                    let h = 1e-3;
                    let y = edge + inside * (m as f64 + 1.0) * h;
                    let d = derivative(c, m, y, h);
                    let limit = if m == 0 { edge } else { 0.0 };
                    // The m-th derivative is O(y - edge) near the edge, up to its
                    // next-derivative's size, which the (m + 1)(m + 2) h bound covers.
                    let tol = 70.0 * (m as f64 + 1.0) * (m as f64 + 2.0) * h;
                    assert!(
                        (d - limit).abs() < tol,
                        "{c}: derivative {m} at {y} is {d}, expected -> {limit}"
                    );
                }
            }
            if let Some(j) = jump {
                // The next derivative jumps at y = 0: its one-sided limit from inside is j.
                let h = 1e-4;
                let d = derivative(c, smooth + 1, (smooth as f64 + 2.0) * h, h);
                assert!((d - j).abs() < 0.01 * j, "{c}: jump {d}, expected {j}");
            }
        }
        // Infinity: every derivative vanishes at the edges; K itself is below any power of y.
        for y in [1e-3, 1e-2, 3e-2] {
            let v = k_of_y(Changeover::Infinity, y);
            assert!(v <= y.powi(8), "K({y}) = {v} is not flat");
        }
    }

    #[test]
    fn exp_neg_is_within_a_few_ulp_of_libm() {
        let mut worst = 0.0f64;
        for k in 0..=200_000 {
            let u = 708.0 * (k as f64 / 200_000.0).powi(3);
            let want = (-u).exp();
            let got = exp_neg(u);
            let ulp = want * f64::EPSILON;
            worst = worst.max((got - want).abs() / ulp);
        }
        assert!(worst <= 4.0, "worst {worst} ulp");
        assert_eq!(exp_neg(0.0), 1.0);
        assert_eq!(exp_neg(f64::INFINITY), exp_neg(708.0));
        assert!(exp_neg(708.0) > 0.0 && exp_neg(708.0).is_normal());
    }

    #[test]
    fn critical_radius_takes_the_larger_term() {
        // Hill term dominates for a slow body.
        let rc = critical_radius(3.0, 0.4, 0.1, 3e-6, 1.0, 1.0, 0.0);
        assert!((rc - 3.0 * (1e-6f64).cbrt()).abs() < 1e-15);
        // Velocity term dominates for a tiny body.
        let rc = critical_radius(3.0, 0.4, 0.1, 1e-12, 1.0, 1.0, 1.0);
        assert!((rc - 0.04).abs() < 1e-15);
    }
}
