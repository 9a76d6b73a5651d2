//! Close-encounter search: the minimum separation of a pair over one drift, from a cubic Hermite
//! interpolation of the squared separation (GENGA paper section 2.2, eqs 10-12, after
//! Chambers 1999).
//!
//! With `P(t) = |dr|^2` and `Pdot = dP/dtime = 2 dr.dv` at the start (t = 0) and end (t = 1) of a
//! step of length `tau`, eq. 10 interpolates
//! `P(t) = P0 (1+2t)(1-t)^2 + P1 t^2 (3-2t) + tau Pdot0 t (1-t)^2 + tau Pdot1 t^2 (t-1)`
//! and the minimum over `t in [0, 1]` is the smallest of `P(0)`, `P(1)` and `P` at the roots of
//! `dP/dt = a t^2 + b t + c` (eq. 11) inside the interval. Differentiating eq. 10 gives
//! `a = 6 (P0 - P1) + 3 tau (Pdot0 + Pdot1)`, `b = 6 (P1 - P0) - 2 tau (2 Pdot0 + Pdot1)`,
//! `c = tau Pdot0`. (The printed paper shows `Pdot0 - Pdot1` in `a`; the derivative of eq. 10 has
//! the sum, and only the sum reproduces uniform relative motion exactly.)

#[inline(always)]
fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The interpolant's end values: `P0`, `P1`, `tau Pdot0`, `tau Pdot1`.
#[inline(always)]
fn end_values((dr0, dv0): RelativeState, (dr1, dv1): RelativeState, tau: f64) -> [f64; 4] {
    [
        dot(dr0, dr0),
        dot(dr1, dr1),
        2.0 * tau * dot(dr0, dv0),
        2.0 * tau * dot(dr1, dv1),
    ]
}

/// The cubic Hermite interpolant of eq. 10 (the same expression as eq. 12) at `t`.
#[inline(always)]
fn hermite(p0: f64, p1: f64, tpd0: f64, tpd1: f64, t: f64) -> f64 {
    let s = 1.0 - t;
    s * s * (1.0 + 2.0 * t) * p0 + t * t * (3.0 - 2.0 * t) * p1 + t * s * s * tpd0
        - t * t * s * tpd1
}

/// Minimum squared separation of a pair over a step, GENGA paper eqs 10-12.
///
/// `dr0, dv0` are the relative position and velocity at the start of the drift, `dr1, dv1` at its
/// end, and `tau` the step length (negative for a backward step). Returns `(min r^2, t)` with `t`
/// in `[0, 1]` the fraction of the step at which the minimum occurs (the earliest one on a tie).
/// End points are always candidates; interior extrema come from the roots of eq. 11, solved in a
/// cancellation-free form that also covers the linear case `a ~ 0`; a negative discriminant means
/// `P` is monotonic and the minimum lies at an end point. The interpolant can dip below zero for
/// a near-head-on pass; the result is clamped at 0. Uniform relative motion (a quadratic `P`) is
/// reproduced exactly.
pub fn min_separation_sq(
    dr0: [f64; 3],
    dv0: [f64; 3],
    dr1: [f64; 3],
    dv1: [f64; 3],
    tau: f64,
) -> (f64, f64) {
    let [p0, p1, tpd0, tpd1] = end_values((dr0, dv0), (dr1, dv1), tau);
    let (mut best, mut best_t) = if p1 < p0 { (p1, 1.0) } else { (p0, 0.0) };

    let a = 6.0 * (p0 - p1) + 3.0 * (tpd0 + tpd1);
    let b = 6.0 * (p1 - p0) - 2.0 * (2.0 * tpd0 + tpd1);
    let c = tpd0;
    let disc = b * b - 4.0 * a * c;
    if disc >= 0.0 && disc.is_finite() {
        // q = -(b + sign(b) sqrt(disc)) / 2; roots q / a and c / q (Press et al. 5.6).
        let q = -0.5 * (b + b.signum() * disc.sqrt());
        let mut roots = [f64::NAN; 2];
        if a != 0.0 {
            roots[0] = q / a;
        }
        if q != 0.0 {
            roots[1] = c / q;
        }
        for t in roots {
            if t > 0.0 && t < 1.0 {
                let p = hermite(p0, p1, tpd0, tpd1, t);
                if p < best || (p == best && t < best_t) {
                    best = p;
                    best_t = t;
                }
            }
        }
    }
    (best.max(0.0), best_t)
}

/// The first time in `[0, t_end]` (a fraction of the step, as [`min_separation_sq`]'s) at
/// which the interpolated squared separation of eq. 10 falls to `limit_sq`, with the
/// interpolant there, for a pair that starts outside it (`|dr0|^2 >= limit_sq`) and is inside
/// it at `t_end`: bisection on the interpolant (60 halvings). A pair that starts inside gives
/// `(0, |dr0|^2)`.
pub fn first_crossing(
    (dr0, dv0): RelativeState,
    (dr1, dv1): RelativeState,
    tau: f64,
    limit_sq: f64,
    t_end: f64,
) -> (f64, f64) {
    let [p0, p1, tpd0, tpd1] = end_values((dr0, dv0), (dr1, dv1), tau);
    if p0 < limit_sq || p0.is_nan() {
        return (0.0, p0);
    }
    let (mut lo, mut hi) = (0.0, t_end);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if hermite(p0, p1, tpd0, tpd1, mid) < limit_sq {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    (hi, hermite(p0, p1, tpd0, tpd1, hi).max(0.0))
}

/// A pair's relative position and velocity.
pub type RelativeState = ([f64; 3], [f64; 3]);

/// Pairs per call of [`min_separation_sq_lanes`].
pub const SEARCH_LANES: usize = 8;

/// [`min_separation_sq`]'s minimum (not its time) for [`SEARCH_LANES`] pairs at once, without
/// branches so that the lanes vectorise: the same candidates (end points, and the roots of
/// eq. 11 inside the step) with the same arithmetic, so every lane's value is bitwise the
/// scalar one. `dr0[c][l]` is component c of pair l's relative position, and so on.
#[inline(always)]
pub fn min_separation_sq_lanes(
    dr0: [[f64; SEARCH_LANES]; 3],
    dv0: [[f64; SEARCH_LANES]; 3],
    dr1: [[f64; SEARCH_LANES]; 3],
    dv1: [[f64; SEARCH_LANES]; 3],
    tau: f64,
) -> [f64; SEARCH_LANES] {
    let mut out = [0.0; SEARCH_LANES];
    for l in 0..SEARCH_LANES {
        let v = |a: &[[f64; SEARCH_LANES]; 3]| [a[0][l], a[1][l], a[2][l]];
        let (r0, v0, r1, v1) = (v(&dr0), v(&dv0), v(&dr1), v(&dv1));
        let p0 = dot(r0, r0);
        let p1 = dot(r1, r1);
        let tpd0 = 2.0 * tau * dot(r0, v0);
        let tpd1 = 2.0 * tau * dot(r1, v1);
        let mut best = if p1 < p0 { p1 } else { p0 };
        let a = 6.0 * (p0 - p1) + 3.0 * (tpd0 + tpd1);
        let b = 6.0 * (p1 - p0) - 2.0 * (2.0 * tpd0 + tpd1);
        let c = tpd0;
        let disc = b * b - 4.0 * a * c;
        let real = disc >= 0.0 && disc.is_finite();
        let q = -0.5 * (b + b.signum() * disc.sqrt());
        let roots = [
            if real && a != 0.0 { q / a } else { f64::NAN },
            if real && q != 0.0 { c / q } else { f64::NAN },
        ];
        for t in roots {
            let p = hermite(p0, p1, tpd0, tpd1, t);
            let inside = t > 0.0 && t < 1.0;
            best = if inside && p < best { p } else { best };
        }
        out[l] = best.max(0.0);
    }
    out
}

/// The encounter and collision limits of pairs, as the integrators watch the run's `stop`
/// settings (0 or false: off).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PairLimits {
    /// Stop below `hill_radii (R_H,i + R_H,j)`, `R_H = r (m / 3 M0)^(1/3)` at heliocentric r.
    pub hill_radii: f64,
    /// Stop below this distance.
    pub min_distance: f64,
    /// Stop when the physical radii touch (the central body's too).
    pub collision: bool,
}

impl PairLimits {
    /// Whether any pair limit is on.
    pub fn any(&self) -> bool {
        self.encounters() || self.collision
    }

    /// Whether an encounter distance is set (Hill radii or a fixed distance).
    pub fn encounters(&self) -> bool {
        self.hill_radii > 0.0 || self.min_distance > 0.0
    }

    /// The encounter distance of two bodies whose Hill radii sum to `hill_sum`:
    /// `max(min_distance, hill_radii (R_H,i + R_H,j))`.
    #[inline(always)]
    pub fn encounter_distance(&self, hill_sum: f64) -> f64 {
        self.min_distance.max(self.hill_radii * hill_sum)
    }
}

/// One pair at both ends of a drift of the hybrid step, for its encounter stop: both bodies'
/// states `[x, y, z, vx, vy, vz]` (heliocentric positions; any common velocity frame) before
/// and after the drift.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairEnds {
    /// The system of the pair (in the backend that reports it).
    pub system: usize,
    /// Both bodies' ids.
    pub ids: [u64; 2],
    /// Both bodies' Hill factors `(m / 3 M0)^(1/3)` (0 for a test particle).
    pub hill_factors: [f64; 2],
    /// Both bodies before the drift.
    pub start: [[f64; 6]; 2],
    /// Both bodies after it.
    pub end: [[f64; 6]; 2],
}

impl PairEnds {
    /// The pair's encounter distance of `limits`, each Hill radius at the body's heliocentric
    /// distance before the drift.
    pub fn limit(&self, limits: &PairLimits) -> f64 {
        let helio = |k: usize| {
            let x = &self.start[k];
            dot([x[0], x[1], x[2]], [x[0], x[1], x[2]]).sqrt()
        };
        let hill = self.hill_factors[0] * helio(0) + self.hill_factors[1] * helio(1);
        limits.encounter_distance(hill)
    }

    /// The pair's first crossing of its encounter distance over the drift of length `tau`, if
    /// its smallest separation (eqs 10-12) falls below it ([`PairEnds::limit`]): the fraction
    /// of the drift at which it crosses ([`first_crossing`]) and the separation then.
    pub fn encounter(&self, limits: &PairLimits, tau: f64) -> Option<(f64, f64)> {
        let relative = |s: &[[f64; 6]; 2]| -> RelativeState {
            let d = |c: usize| s[1][c] - s[0][c];
            ([d(0), d(1), d(2)], [d(3), d(4), d(5)])
        };
        let (start, end) = (relative(&self.start), relative(&self.end));
        let limit = self.limit(limits);
        let (r2, t_min) = min_separation_sq(start.0, start.1, end.0, end.1, tau);
        (r2 < limit * limit).then(|| {
            let (t, p) = first_crossing(start, end, tau, limit * limit, t_min);
            (t, p.sqrt())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add(a: [f64; 3], b: [f64; 3], s: f64) -> [f64; 3] {
        [a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2]]
    }

    /// Closest approach of uniform relative motion r(t) = r0 + v t over [0, tau].
    fn analytic(r0: [f64; 3], v: [f64; 3], tau: f64) -> (f64, f64) {
        let vv = dot(v, v);
        let ts = if vv > 0.0 {
            (-dot(r0, v) / vv / tau).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let r = add(r0, v, ts * tau);
        (dot(r, r), ts)
    }

    #[test]
    fn straight_line_motion_is_exact() {
        let mut rng = crate::rng::Rng::new(0x1234_5678_9abc_def0);
        let mut next = || rng.range(-1.0, 1.0);
        let mut interior = 0;
        for _ in 0..2000 {
            let r0 = [next(), next(), next()];
            let v = [next() * 3.0, next() * 3.0, next() * 3.0];
            let tau = 0.2 + next().abs();
            let r1 = add(r0, v, tau);
            let (p, t) = min_separation_sq(r0, v, r1, v, tau);
            let (pa, ta) = analytic(r0, v, tau);
            assert!((p - pa).abs() <= 1e-13 * dot(r0, r0).max(1.0), "{p} {pa}");
            if ta > 0.0 && ta < 1.0 {
                interior += 1;
                assert!((t - ta).abs() < 1e-8, "{t} {ta}");
            }
            // Backward step: same path traversed the other way.
            let (pb, tb) = min_separation_sq(r1, v, r0, v, -tau);
            assert!((pb - pa).abs() <= 1e-13 * dot(r0, r0).max(1.0));
            if ta > 0.0 && ta < 1.0 {
                assert!((tb - (1.0 - ta)).abs() < 1e-8);
            }
        }
        assert!(interior > 200, "{interior}");
    }

    #[test]
    fn lanes_give_the_scalar_minimum_bitwise() {
        let mut rng = crate::rng::Rng::new(31);
        let mut interior = 0;
        for round in 0..4000 {
            let mut v = || -> [[f64; SEARCH_LANES]; 3] {
                std::array::from_fn(|_| std::array::from_fn(|_| rng.range(-1.0, 1.0)))
            };
            let (r0, v0, mut r1, mut v1) = (v(), v(), v(), v());
            // Some lanes in uniform motion (interior minima), some stationary or identical.
            for l in 0..SEARCH_LANES {
                for c in 0..3 {
                    match (round + l) % 4 {
                        0 => {
                            r1[c][l] = r0[c][l] + 0.7 * v0[c][l];
                            v1[c][l] = v0[c][l];
                        }
                        1 if l == 1 => {
                            r1[c][l] = r0[c][l];
                            v1[c][l] = 0.0;
                        }
                        _ => {}
                    }
                }
            }
            let tau = if round % 3 == 0 { -0.7 } else { 0.7 };
            let lanes = min_separation_sq_lanes(r0, v0, r1, v1, tau);
            for l in 0..SEARCH_LANES {
                let pick = |a: &[[f64; SEARCH_LANES]; 3]| [a[0][l], a[1][l], a[2][l]];
                let (p, t) = min_separation_sq(pick(&r0), pick(&v0), pick(&r1), pick(&v1), tau);
                assert_eq!(lanes[l].to_bits(), p.to_bits(), "round {round} lane {l}");
                interior += (t > 0.0 && t < 1.0) as usize;
            }
        }
        assert!(interior > 2000, "{interior}");
    }

    #[test]
    fn head_on_pass_between_end_points() {
        // Bodies pass through each other at mid-step: both end points are far, the minimum is 0.
        let v = [-2.0, 0.0, 0.0];
        let r0 = [1.0, 0.0, 0.0];
        let r1 = [-1.0, 0.0, 0.0];
        let (p, t) = min_separation_sq(r0, v, r1, v, 1.0);
        assert!(p < 1e-15 && (t - 0.5).abs() < 1e-14, "{p} {t}");
        // A flyby with impact parameter 1e-3: 1e-6 at t = 0.5, up to round-off relative to the
        // end-point values P ~ 1 (the cubic's terms cancel).
        let r0 = [1.0, 1e-3, 0.0];
        let r1 = [-1.0, 1e-3, 0.0];
        let (p, t) = min_separation_sq(r0, v, r1, v, 1.0);
        assert!(
            (p - 1e-6).abs() < 1e-15 && (t - 0.5).abs() < 1e-12,
            "{p} {t}"
        );
    }

    #[test]
    fn curved_encounter_interior_minimum() {
        // Relative orbit on a circle of radius 1 around a point at distance d from the origin:
        // r(s) = (d + cos s, sin s), the closest approach d - 1 is at s = pi.
        let d = 1.2;
        let (s0, s1) = (2.9, 3.4);
        let pos = |s: f64| [d + s.cos(), s.sin(), 0.0];
        let vel = |s: f64| [-s.sin(), s.cos(), 0.0];
        let (p, t) = min_separation_sq(pos(s0), vel(s0), pos(s1), vel(s1), s1 - s0);
        let t_true = (std::f64::consts::PI - s0) / (s1 - s0);
        assert!(t > 0.0 && t < 1.0);
        assert!((t - t_true).abs() < 1e-2, "{t} {t_true}");
        let exact = (d - 1.0) * (d - 1.0);
        // The cubic in t approximates the squared distance along the arc to about 1%.
        assert!((p - exact).abs() < 2e-2 * exact, "{p} {exact}");
        // Both end points are much farther than the interior minimum.
        assert!(p < 0.5 * dot(pos(s0), pos(s0)).min(dot(pos(s1), pos(s1))));
    }

    #[test]
    fn far_and_receding_pairs_take_an_end_point() {
        // Receding: minimum at the start.
        let (p, t) = min_separation_sq(
            [5.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [6.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            1.0,
        );
        assert_eq!((p, t), (25.0, 0.0));
        // Approaching but never reaching the minimum within the step: minimum at the end.
        let (p, t) = min_separation_sq(
            [6.0, 1.0, 0.0],
            [-1.0, 0.0, 0.0],
            [5.0, 1.0, 0.0],
            [-1.0, 0.0, 0.0],
            1.0,
        );
        assert!((p - 26.0).abs() < 1e-13 && t == 1.0);
        // Stationary pair: a = b = c = 0.
        let (p, t) = min_separation_sq([3.0, 4.0, 0.0], [0.0; 3], [3.0, 4.0, 0.0], [0.0; 3], 1.0);
        assert_eq!((p, t), (25.0, 0.0));
        // Far pair on crossing circular orbits (Pdot of opposite signs, negative discriminant or
        // roots outside): the result never exceeds the end points and is never negative.
        let (p, _) = min_separation_sq(
            [10.0, 0.0, 0.0],
            [0.0, 0.1, 0.0],
            [10.0, 0.1, 0.0],
            [0.0, 0.1, 0.0],
            1.0,
        );
        assert!((99.99..=100.0).contains(&p));
    }
}
