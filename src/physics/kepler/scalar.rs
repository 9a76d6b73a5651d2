//! The drift of one body: Gauss's f and g with Danby's iteration for bound orbits, universal
//! variables with Stumpff functions for the rest.

use super::KeplerError;
use crate::simd::lanes::Lanes;
use std::f64::consts::TAU;

/// Largest eccentricity handled by the eccentric-anomaly solver; above it (and for unbound orbits)
/// the universal-variable solver is used.
const ELLIPTIC_E_MAX: f64 = 0.99;
/// Convergence of the eccentric-anomaly iteration: stop after a correction dE with
/// `|dE| <= ELLIPTIC_ACCEPT r/(2a)` (r/a = f'(E), at least 1 - e). Danby's iteration converges
/// quartically, so the error left after that correction is of order
/// `(2a/r)^3 |dE|^4 < 1e-20` radians: machine precision is reached without spending one more
/// sine and cosine just to see a correction below 1e-16.
pub(super) const ELLIPTIC_ACCEPT: f64 = 1e-5;
/// Iterations of the eccentric-anomaly solver before falling back on universal variables.
const ELLIPTIC_MAX_ITER: usize = 10;
/// Danby's starting value: E = M + 0.85 e sign(sin M).
pub(super) const DANBY_K: f64 = 0.85;
/// Relative convergence of the universal-variable iteration, |ds| <= UNIVERSAL_TOL |s|.
const UNIVERSAL_TOL: f64 = 1e-12;
/// Iterations of the safeguarded universal-variable solver (bisection halves the bracket each
/// time, so this also covers finding a bracket over the whole double range).
const UNIVERSAL_MAX_ITER: usize = 300;

/// Drifts one body on its Kepler orbit around a fixed central mass `mu` (G M0) for time `dt`
/// (any sign, any length), in place. On error `pos` and `vel` are unchanged.
///
/// Convenience wrapper around [`drift_scalar`].
#[inline]
pub fn kepler_drift(
    mu: f64,
    dt: f64,
    pos: &mut [f64; 3],
    vel: &mut [f64; 3],
) -> Result<(), KeplerError> {
    let (p, v) = drift_scalar(mu, dt, *pos, *vel)?;
    *pos = p;
    *vel = v;
    Ok(())
}

/// Scalar core of the Kepler drift: returns the position and velocity after time `dt` on the
/// Kepler orbit around a fixed mass `mu`, starting from `pos`, `vel` (values in, values out; no
/// memory traffic, so a caller looping over structure-of-arrays data keeps everything in
/// registers).
///
/// The state is advanced with Gauss's f and g functions (Danby 1988):
/// `r = f r0 + g v0`, `v = fdot r0 + gdot v0`. Elliptic orbits (e < 0.99) solve Kepler's equation
/// in differential form for the change of eccentric anomaly `x`,
/// `x - ec sin x + es (1 - cos x) = n dt (mod 2 pi)` with `ec = 1 - r0/a`, `es = r0.v0/sqrt(mu a)`,
/// and use `f = 1 - a/r0 (1 - cos x)`, `g = dt + (sin x - x)/n`, `fdot = -a^2 n sin x/(r r0)`,
/// `gdot = 1 - a/r (1 - cos x)`. Everything else uses universal variables: with the Stumpff
/// functions `c_k(beta s^2)` and `G_k = s^k c_k`, `beta = 2 mu/r0 - v0^2`, solve
/// `r0 G1 + (r0.v0) G2 + mu G3 = dt` for `s` and use `f = 1 - mu G2/r0`, `g = r0 G1 + (r0.v0) G2`,
/// `fdot = -mu G1/(r r0)`, `gdot = 1 - mu G2/r`.
///
/// Errors: [`KeplerError::InvalidInput`] for `mu <= 0`, `r0 = 0` or non-finite input,
/// [`KeplerError::NoConvergence`] if even the safeguarded universal-variable solver fails, and
/// [`KeplerError::NonFinite`] if the result is not finite (radial infall onto the centre).
#[inline]
pub fn drift_scalar(
    mu: f64,
    dt: f64,
    pos: [f64; 3],
    vel: [f64; 3],
) -> Result<([f64; 3], [f64; 3]), KeplerError> {
    let [x, y, z] = pos;
    let [vx, vy, vz] = vel;
    let r0 = (x * x + y * y + z * z).sqrt();
    let v2 = vx * vx + vy * vy + vz * vz;
    let u = x * vx + y * vy + z * vz;
    if !(mu > 0.0
        && r0 > 0.0
        && mu.is_finite()
        && r0.is_finite()
        && v2.is_finite()
        && dt.is_finite())
    {
        return Err(KeplerError::InvalidInput);
    }
    if dt == 0.0 {
        return Ok((pos, vel));
    }
    let fg = match elliptic_fg(mu, dt, r0, v2, u) {
        Some(fg) => fg,
        None => universal_fg(mu, dt, r0, v2, u).ok_or(KeplerError::NoConvergence)?,
    };
    let FG {
        f_minus_1: fm,
        g,
        fdot,
        gdot_minus_1: gm,
    } = fg;
    let p = [
        x + (fm * x + g * vx),
        y + (fm * y + g * vy),
        z + (fm * z + g * vz),
    ];
    let v = [
        vx + (fdot * x + gm * vx),
        vy + (fdot * y + gm * vy),
        vz + (fdot * z + gm * vz),
    ];
    if p.iter().chain(v.iter()).all(|c| c.is_finite()) {
        Ok((p, v))
    } else {
        Err(KeplerError::NonFinite)
    }
}

/// Gauss's f and g functions and their time derivatives for one drift, `f` and `gdot` as their
/// differences from 1 (the new state is the old one plus a change: Brouwer's law).
#[derive(Debug, Clone, Copy)]
pub(super) struct FG {
    pub(super) f_minus_1: f64,
    pub(super) g: f64,
    pub(super) fdot: f64,
    pub(super) gdot_minus_1: f64,
}

/// `1 - cos x` from `sin x` and `cos x` without cancellation: `sin^2 x / (1 + cos x)` where
/// `cos x > 0`. Computed as `1 - cos x`, a short drift's `f - 1` and `gdot - 1` would carry the
/// rounding error of `cos x` near 1, the same at every drift of a near-circular orbit, and the
/// energy would drift linearly with the number of drifts instead of as its square root
/// (Brouwer's law).
#[inline(always)]
pub(super) fn one_minus_cos<V: Lanes>(s: V, c: V) -> V {
    let one = V::splat(1.0);
    V::select(c.gt(V::splat(0.0)), s * s / (one + c), one - c)
}

/// Danby's quartically convergent correction for a root of `y(x)` from `y` and its first three
/// derivatives (Danby 1988 section 6.6): the Newton step `d1 = -y/y'`, then
/// `d2 = -y/(y' + d1 y''/2)`, then `d3 = -y/(y' + d2 y''/2 + d2^2 y'''/6)`, rearranged to a
/// single division (each product followed by a difference fused, `mul_add`).
#[inline(always)]
pub(super) fn danby_step<V: Lanes>(y: V, yp: V, ypp: V, yppp: V) -> V {
    let k = V::splat;
    let num = y * yp;
    let den1 = yp.mul_add(yp, -(k(0.5) * y * ypp));
    let den1_sq = den1 * den1;
    let inner = ypp.mul_add(den1, -(num * yppp * k(1.0 / 3.0)));
    let den2 = yp.mul_add(den1_sq, -(k(0.5) * num * inner));
    -y * den1_sq / den2
}

/// Reduces `t` into [-period/2, period/2] modulo `period`.
#[inline(always)]
fn reduce(t: f64, period: f64) -> f64 {
    t - period * (t / period).round()
}

/// Reduces an angle into [-pi, pi] modulo 2 pi (within rounding of the bounds), with a
/// multiplication instead of [`reduce`]'s division.
#[inline(always)]
pub(super) fn reduce_mean_anomaly<V: Lanes>(t: V) -> V {
    const INV_TAU: f64 = 1.0 / TAU;
    t - V::splat(TAU) * (t * V::splat(INV_TAU)).round()
}

/// Change of eccentric anomaly `x` solving `x - ec sin x + es (1 - cos x) = dm`, with sin x and
/// cos x at the solution and the iteration count; `None` if it does not converge.
#[inline(always)]
pub(super) fn solve_elliptic(
    ec: f64,
    es: f64,
    r0_over_a: f64,
    dm: f64,
) -> Option<(f64, f64, f64, usize)> {
    // Starting value. Short steps: the root of the quadratic Taylor polynomial
    // r0/a x + es x^2/2 = dm (no trigonometry). Otherwise Danby's E = M + 0.85 e sign(sin M)
    // written in differential form: with y = dm - es, sin M has the sign of es cos y + ec sin y.
    let disc = r0_over_a * r0_over_a + 2.0 * es * dm;
    let xq = 2.0 * dm / (r0_over_a + disc.max(0.0).sqrt());
    let mut x = if disc >= 0.0 && xq.abs() < 0.3 {
        xq
    } else {
        let y = dm - es;
        let (sy, cy) = y.sin_cos();
        y + (DANBY_K * (ec * ec + es * es).sqrt()).copysign(es * cy + ec * sy)
    };
    for it in 1..=ELLIPTIC_MAX_ITER {
        let (s, c) = x.sin_cos();
        let ecs = ec * s;
        let esc = es * c;
        let f = x - ecs + es * (1.0 - c) - dm;
        let fp = 1.0 - ec * c + es * s;
        let dx = danby_step(f, fp, ecs + esc, ec * c - es * s);
        x += dx;
        if dx.abs() <= 0.5 * ELLIPTIC_ACCEPT * fp {
            // sin and cos at the corrected x by Taylor series; the neglected terms are below
            // dx^4 / 24 < 1e-21.
            let h2 = 0.5 * dx * dx;
            let h3 = h2 * dx * (1.0 / 3.0);
            return Some((
                x,
                s + c * dx - s * h2 - c * h3,
                c - s * dx - c * h2 + s * h3,
                it,
            ));
        }
        if !x.is_finite() {
            return None;
        }
    }
    None
}

/// f and g from the eccentric-anomaly solution (Danby 1988), or `None` if the orbit is unbound,
/// too eccentric, or the iteration does not converge.
#[inline(always)]
pub(super) fn elliptic_fg(mu: f64, dt: f64, r0: f64, v2: f64, u: f64) -> Option<FG> {
    let inv_r0 = 1.0 / r0;
    let inv_mu = 1.0 / mu;
    let alpha = 2.0 * inv_r0 - v2 * inv_mu; // 1/a
                                            // NaN-safe: only a finite positive alpha passes.
    if alpha.is_nan() || alpha <= 0.0 {
        return None;
    }
    let a = 1.0 / alpha;
    let w = (mu * alpha).sqrt();
    let n = alpha * w; // sqrt(mu / a^3)
    let r0_over_a = r0 * alpha;
    let ec = 1.0 - r0_over_a;
    let es = u * w * inv_mu; // r0.v0 / sqrt(mu a)
    let e2 = ec * ec + es * es;
    if e2.is_nan() || e2 >= ELLIPTIC_E_MAX * ELLIPTIC_E_MAX {
        return None;
    }
    let dm = reduce_mean_anomaly(n * dt);
    let (x, s, c, _) = solve_elliptic(ec, es, r0_over_a, dm)?;
    let one_minus_c = one_minus_cos(s, c);
    let inv_n = 1.0 / n;
    let a_over_r = 1.0 / (1.0 - ec * c + es * s);
    Some(FG {
        f_minus_1: -a * inv_r0 * one_minus_c,
        g: (dm + (s - x)) * inv_n,
        fdot: -a * n * s * inv_r0 * a_over_r,
        gdot_minus_1: -a_over_r * one_minus_c,
    })
}

/// Stumpff functions c0..c3 of `z` (Danby 1988 section 6.9): the Taylor series for |z| < 0.1,
/// with argument reduction by quartering z and the doubling formulas
/// c0(4z) = 2 c0^2 - 1, c1(4z) = c0 c1, c2(4z) = c1^2 / 2, c3(4z) = (c2 + c0 c3) / 4
/// (as in Swift's `drift_kepu_stumpff` and Mercury). `z` must be finite.
#[inline]
pub(super) fn stumpff(z: f64) -> [f64; 4] {
    let mut z = z;
    let mut n = 0;
    while z.abs() > 0.1 {
        z *= 0.25;
        n += 1;
    }
    let mut c2 = (1.0
        - z * (1.0
            - z * (1.0 - z * (1.0 - z * (1.0 - z * (1.0 - z / 182.0) / 132.0) / 90.0) / 56.0)
                / 30.0)
            / 12.0)
        / 2.0;
    let mut c3 = (1.0
        - z * (1.0
            - z * (1.0 - z * (1.0 - z * (1.0 - z * (1.0 - z / 210.0) / 156.0) / 110.0) / 72.0)
                / 42.0)
            / 20.0)
        / 6.0;
    let mut c1 = 1.0 - z * c3;
    let mut c0 = 1.0 - z * c2;
    for _ in 0..n {
        c3 = (c2 + c0 * c3) * 0.25;
        c2 = 0.5 * c1 * c1;
        c1 *= c0;
        c0 = 2.0 * c0 * c0 - 1.0;
    }
    [c0, c1, c2, c3]
}

/// `G_k = s^k c_k(beta s^2)` for k = 0..3, or `None` if they overflow.
#[inline]
fn g_functions(beta: f64, s: f64) -> Option<[f64; 4]> {
    let z = beta * s * s;
    if !z.is_finite() {
        return None;
    }
    let [c0, c1, c2, c3] = stumpff(z);
    let g = [c0, s * c1, s * s * c2, s * s * s * c3];
    g.iter().all(|v| v.is_finite()).then_some(g)
}

/// Starting value for the universal anomaly `s` (after Swift's `drift_kepu_guess`).
fn universal_guess(mu: f64, dt: f64, r0: f64, u: f64, beta: f64) -> f64 {
    if beta > 0.0 {
        if dt.abs() / r0 <= 0.4 {
            return dt / r0 - dt * dt * u / (2.0 * r0 * r0 * r0);
        }
        // Danby's elliptic starting value, as in `solve_elliptic`.
        let sb = beta.sqrt();
        let n = beta * sb / mu;
        let ec = 1.0 - r0 * beta / mu;
        let es = u * sb / mu; // u / (n a^2) with a = mu / beta
        let e = (ec * ec + es * es).sqrt();
        let y = n * dt - es;
        let (sy, cy) = y.sin_cos();
        return (y + (DANBY_K * e).copysign(es * cy + ec * sy)) / sb;
    }
    // Parabolic approximation: the real root of r0 s + u s^2/2 + mu s^3/6 = dt.
    let cubic = parabolic_root(mu, dt, r0, u);
    if beta < 0.0 {
        // Hyperbolic: for large |s| the equation tends to exp(k|s|)/2 D = |dt| with k =
        // sqrt(-beta) and D = (r0 k^2 +- u k + mu)/k^3; the cubic overestimates |s| there.
        let k = (-beta).sqrt();
        let d = (r0 * k * k + u * 1f64.copysign(dt) * k + mu) / (k * k * k);
        let arg = 2.0 * dt.abs() / d;
        if d > 0.0 && arg > 1.0 {
            let s_log = arg.ln() / k;
            if s_log.is_finite() && s_log < cubic.abs() {
                return s_log.copysign(dt);
            }
        }
    }
    cubic
}

/// Real root of `mu s^3/6 + u s^2/2 + r0 s - dt = 0` (Cardano), the universal Kepler equation at
/// beta = 0; falls back on `dt / r0` if that is not finite.
fn parabolic_root(mu: f64, dt: f64, r0: f64, u: f64) -> f64 {
    // s^3 + a2 s^2 + a1 s + a0 = 0
    let a2 = 3.0 * u / mu;
    let a1 = 6.0 * r0 / mu;
    let a0 = -6.0 * dt / mu;
    let q = (3.0 * a1 - a2 * a2) / 9.0;
    let r = (9.0 * a2 * a1 - 27.0 * a0 - 2.0 * a2 * a2 * a2) / 54.0;
    let d = q * q * q + r * r;
    let s = if d >= 0.0 {
        let sd = d.sqrt();
        (r + sd).cbrt() + (r - sd).cbrt() - a2 / 3.0
    } else {
        // Three real roots; the function is monotonic only for beta = 0 along physical paths,
        // so pick the root nearest the linear estimate.
        let rho = (-q).sqrt();
        let theta = (r / (rho * rho * rho)).clamp(-1.0, 1.0).acos();
        let lin = dt / r0;
        (0..3)
            .map(|k| 2.0 * rho * ((theta + TAU * k as f64) / 3.0).cos() - a2 / 3.0)
            .fold(f64::NAN, |best, s| {
                if best.is_nan() || (s - lin).abs() < (best - lin).abs() {
                    s
                } else {
                    best
                }
            })
    };
    if s.is_finite() {
        s
    } else {
        dt / r0
    }
}

/// Solves the universal Kepler equation `r0 G1 + u G2 + mu G3 = dt` for `s`, returning `s` and the
/// G functions there. The left side is monotonic in `s` (its derivative is r > 0), so every
/// evaluation tightens a bracket around the root; Danby's quartic steps are taken when they stay
/// inside the bracket, otherwise Newton steps, otherwise bisection (or doubling while the bracket
/// is open on one side).
pub(super) fn solve_universal(
    mu: f64,
    dt: f64,
    r0: f64,
    u: f64,
    beta: f64,
) -> Option<(f64, [f64; 4])> {
    // f(0) = -dt, so 0 bounds the root on one side.
    let (mut lo, mut hi) = if dt > 0.0 {
        (0.0, f64::INFINITY)
    } else {
        (f64::NEG_INFINITY, 0.0)
    };
    let mut s = universal_guess(mu, dt, r0, u, beta);
    if !(s > lo && s < hi) {
        s = dt / r0;
    }
    let mut f_prev = f64::INFINITY;
    for _ in 0..UNIVERSAL_MAX_ITER {
        let Some(g) = g_functions(beta, s) else {
            // Overflow: |s| is far beyond the root.
            if s > 0.0 {
                hi = s;
            } else {
                lo = s;
            }
            s = next_in_bracket(s, lo, hi);
            continue;
        };
        let [g0, g1, g2, g3] = g;
        let f = r0 * g1 + u * g2 + mu * g3 - dt;
        if f == 0.0 {
            return Some((s, g));
        }
        if f > 0.0 {
            hi = s;
        } else {
            lo = s;
        }
        let fp = r0 * g0 + u * g1 + mu * g2;
        let newton = -f / fp;
        // Far from the root (or when the residual is not shrinking) the quartic step can stall,
        // so it is only used close in; bisection takes over whenever |f| fails to halve.
        let ds = if newton.abs() > 1e-3 * s.abs() {
            newton
        } else {
            let z = mu - beta * r0;
            danby_step(f, fp, z * g1 + u * g0, z * g0 - beta * u * g1)
        };
        let stalled = f.abs() > 0.5 * f_prev;
        f_prev = f.abs();
        let closed = lo.is_finite() && hi.is_finite();
        let (s_new, converging) = if !stalled && s + ds > lo && s + ds < hi {
            (s + ds, true)
        } else if !(stalled && closed) && s + newton > lo && s + newton < hi {
            (s + newton, true)
        } else {
            (next_in_bracket(s, lo, hi), false)
        };
        // A small Newton or quartic correction means the error left is far smaller still; a
        // small bisection step only bounds it, so then the bracket itself must be tiny.
        let small_step = converging && (s_new - s).abs() <= UNIVERSAL_TOL * s_new.abs();
        let tiny_bracket = closed && hi - lo <= 4.0 * f64::EPSILON * lo.abs().max(hi.abs());
        if small_step || tiny_bracket {
            // One more evaluation of the G functions at the accepted s.
            return g_functions(beta, s_new).map(|g| (s_new, g));
        }
        s = s_new;
    }
    None
}

/// A point strictly inside (lo, hi): the midpoint if the bracket is closed, otherwise a step
/// outwards from `s` (doubling) towards the open side. `s` is never 0 here: it lies strictly on
/// the side of dt.
#[inline]
fn next_in_bracket(s: f64, lo: f64, hi: f64) -> f64 {
    if lo.is_finite() && hi.is_finite() {
        0.5 * (lo + hi)
    } else {
        // The open side is the side of dt, and `s` (already on that side of 0) moves outwards.
        2.0 * s
    }
}

/// f and g from universal variables (Danby 1988), or `None` if the solver fails. Bound orbits
/// reduce `dt` modulo the period first so the Stumpff arguments stay small.
pub(super) fn universal_fg(mu: f64, dt: f64, r0: f64, v2: f64, u: f64) -> Option<FG> {
    let beta = 2.0 * mu / r0 - v2;
    let dt = if beta > 0.0 {
        let period = TAU * mu / (beta * beta.sqrt());
        reduce(dt, period)
    } else {
        dt
    };
    if dt == 0.0 {
        return Some(FG {
            f_minus_1: 0.0,
            g: 0.0,
            fdot: 0.0,
            gdot_minus_1: 0.0,
        });
    }
    let (_, [g0, g1, g2, _]) = solve_universal(mu, dt, r0, u, beta)?;
    let r = r0 * g0 + u * g1 + mu * g2;
    Some(FG {
        f_minus_1: -mu * g2 / r0,
        g: r0 * g1 + u * g2,
        fdot: -mu * g1 / (r * r0),
        gdot_minus_1: -mu * g2 / r,
    })
}
