//! The tangent map of the Kepler drift: how a small change `(dx0, dv0)` of a body's state moves
//! its state after a drift of `dt` about `mu`, from the universal-variable solution (Danby 1988,
//! ch. 6.9), differentiated as Mikkola & Innanen (1999) do for the variational equations of
//! symplectic maps (REBOUND's WHFast, Rein & Tamayo 2016, integrates the same).
//!
//! With `beta = 2 mu / r0 - v0^2`, `eta = x0 . v0` and the universal anomaly `s` solving
//! `F = r0 G1 + eta G2 + mu G3 - dt = 0` (`G_n = s^n c_n(beta s^2)`, Stumpff's `c_n`), the drift
//! is `x = f x0 + g v0`, `v = fdot x0 + gdot v0` with `f = 1 - mu G2 / r0`, `g = dt - mu G3`,
//! `fdot = -mu G1 / (r r0)`, `gdot = 1 - mu G2 / r` and `r = r0 G0 + eta G1 + mu G2`. Its first
//! variation follows from `dG_n/ds = G_{n-1}` (`dG_0/ds = -beta G_1`),
//! `dG_n/dbeta = (n G_{n+2} - s G_{n+1}) / 2`, and `ds` from `dF = 0`:
//! `ds = -(G1 dr0 + G2 deta + F_beta dbeta) / r`.

use super::scalar::{solve_elliptic, solve_universal, stumpff};
use super::KeplerError;
use crate::simd::lanes::{dot3, Lanes};

type Vec3 = [f64; 3];

fn dot(a: Vec3, b: Vec3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Stumpff's `c_4(z)` and `c_5(z)` from `c_2` and `c_3`: their series for small `|z|`, where
/// `(1/2 - c_2) / z` would cancel ([`stumpff_series`]), the recurrence
/// `c_n = (1/(n-2)! - c_{n-2}) / z` otherwise.
fn stumpff_45(z: f64, c2: f64, c3: f64) -> (f64, f64) {
    if z.abs() < 0.1 {
        let [_, _, c4, c5] = stumpff_series(z);
        (c4, c5)
    } else {
        ((0.5 - c2) / z, (1.0 / 6.0 - c3) / z)
    }
}

/// Stumpff's `c2 .. c5` from their series in `z` (for `|z| < 0.1`; [`stumpff_45`] takes `c4`
/// and `c5` from here, the lane groups all four), multiplied by the divisors' reciprocals
/// (constants).
#[inline(always)]
pub(super) fn stumpff_series<V: Lanes>(z: V) -> [V; 4] {
    let k = V::splat;
    let c2 = nested(z, &[12.0, 30.0, 56.0, 90.0, 132.0, 182.0]) * k(1.0 / 2.0);
    let c3 = nested(z, &[20.0, 42.0, 72.0, 110.0, 156.0, 210.0]) * k(1.0 / 6.0);
    let c4 = nested(z, &[30.0, 56.0, 90.0, 132.0]) * k(1.0 / 24.0);
    let c5 = nested(z, &[42.0, 72.0, 110.0, 156.0]) * k(1.0 / 120.0);
    [c2, c3, c4, c5]
}

/// `1 - z (1 - z (1 - ...) / d1) / d0` for the divisors `d`, innermost last, each division a
/// product with the divisor's reciprocal.
#[inline(always)]
fn nested<V: Lanes>(z: V, d: &[f64]) -> V {
    let one = V::splat(1.0);
    let mut inner = one;
    for &dk in d.iter().rev() {
        inner = one - z * inner * V::splat(1.0 / dk);
    }
    inner
}

/// The universal anomaly `s` of a drift of `dt` on a bound orbit of `r0`, `eta = x0 . v0` and
/// `beta`, from the change of eccentric anomaly `E` (`s = E / sqrt(beta)`) that Danby's
/// iteration finds in a few steps ([`solve_elliptic`]); `None` where that does not apply
/// (unbound or very eccentric orbits, drifts of more than half a period, whose mean anomaly the
/// iteration would reduce by whole periods that the derivative must not forget).
fn elliptic_anomaly(mu: f64, dt: f64, (r0, eta, beta): (f64, f64, f64)) -> Option<f64> {
    // NaN-safe: only a positive beta passes.
    if beta.is_nan() || beta <= 0.0 {
        return None;
    }
    let alpha = beta / mu;
    let n = (mu * alpha * alpha * alpha).sqrt();
    let ec = 1.0 - r0 * alpha;
    let es = eta * (alpha / mu).sqrt();
    let dm = n * dt;
    if ec * ec + es * es >= 0.9 * 0.9 || dm.abs() > std::f64::consts::PI {
        return None;
    }
    let (x, _, _, _) = solve_elliptic(ec, es, r0 * alpha, dm)?;
    Some(x / beta.sqrt())
}

/// The change of a body's state after a Kepler drift of `dt` about `mu` from `(x0, v0)`, for the
/// change `(dx0, dv0)` of its state before (the drift's Jacobian applied to it; see the module
/// docs). Errors as [`super::drift_scalar`]'s for input it cannot drift.
pub fn drift_tangent(
    mu: f64,
    dt: f64,
    (x0, v0): (Vec3, Vec3),
    (dx0, dv0): (Vec3, Vec3),
) -> Result<(Vec3, Vec3), KeplerError> {
    let r0 = dot(x0, x0).sqrt();
    let v2 = dot(v0, v0);
    let finite = mu.is_finite() && r0.is_finite() && v2.is_finite() && dt.is_finite();
    if !(mu > 0.0 && r0 > 0.0 && finite) {
        return Err(KeplerError::InvalidInput);
    }
    if dt == 0.0 {
        return Ok((dx0, dv0));
    }
    let eta = dot(x0, v0);
    let beta = 2.0 * mu / r0 - v2;
    let s = match elliptic_anomaly(mu, dt, (r0, eta, beta)) {
        Some(s) => s,
        None => {
            solve_universal(mu, dt, r0, eta, beta)
                .ok_or(KeplerError::NoConvergence)?
                .0
        }
    };
    let z = beta * s * s;
    let [c0, c1, c2, c3] = stumpff(z);
    let (c4, c5) = stumpff_45(z, c2, c3);
    let stumpff = [c0, c1, c2, c3, c4, c5];
    let (dx, dv) = tangent_from_stumpff((mu, dt), (s, beta), stumpff, (x0, v0), (dx0, dv0));
    if dx.iter().chain(&dv).all(|c| c.is_finite()) {
        Ok((dx, dv))
    } else {
        Err(KeplerError::NonFinite)
    }
}

/// The drift's tangent map from its universal anomaly `s`, `beta = 2 mu / r0 - v0^2` and
/// Stumpff's `c0 .. c5` at `beta s^2` (see the module docs): the change of the state after the
/// drift for the change `(dx0, dv0)` before it. Written once for the scalar drift and the lane
/// groups ([`super::tangent_lanes`]).
#[inline(always)]
pub(super) fn tangent_from_stumpff<V: Lanes>(
    (mu, dt): (V, f64),
    (s, beta): (V, V),
    [c0, c1, c2, c3, c4, c5]: [V; 6],
    (x0, v0): ([V; 3], [V; 3]),
    (dx0, dv0): ([V; 3], [V; 3]),
) -> ([V; 3], [V; 3]) {
    let k = V::splat;
    let dot = dot3::<V>;
    let r0 = dot(x0, x0).sqrt();
    let eta = dot(x0, v0);
    let s2 = s * s;
    let [g0, g1, g2, g3, g4, g5] = [
        c0,
        s * c1,
        s2 * c2,
        s2 * s * c3,
        s2 * s2 * c4,
        s2 * s2 * s * c5,
    ];
    let r = r0 * g0 + eta * g1 + mu * g2;
    // Two divisions, their reciprocals multiplied everywhere else.
    let (inv_r0, inv_r) = (k(1.0) / r0, k(1.0) / r);
    let inv_r0_sq = inv_r0 * inv_r0;
    let (f, g) = (k(1.0) - mu * g2 * inv_r0, k(dt) - mu * g3);
    let (fdot, gdot) = (-mu * g1 * (inv_r * inv_r0), k(1.0) - mu * g2 * inv_r);
    // The variations of the orbit's invariants.
    let dr0 = dot(x0, dx0) * inv_r0;
    let deta = dot(dx0, v0) + dot(x0, dv0);
    let dbeta = k(-2.0) * mu * dr0 * inv_r0_sq - k(2.0) * dot(v0, dv0);
    // dG_n / dbeta.
    let b0 = k(-0.5) * s * g1;
    let b1 = k(0.5) * (g3 - s * g2);
    let b2 = k(0.5) * (k(2.0) * g4 - s * g3);
    let b3 = k(0.5) * (k(3.0) * g5 - s * g4);
    let f_beta = r0 * b1 + eta * b2 + mu * b3;
    let ds = -(g1 * dr0 + g2 * deta + f_beta * dbeta) * inv_r;
    let dg0 = -beta * g1 * ds + b0 * dbeta;
    let dg1 = g0 * ds + b1 * dbeta;
    let dg2 = g1 * ds + b2 * dbeta;
    let dg3 = g2 * ds + b3 * dbeta;
    let dr = g0 * dr0 + r0 * dg0 + g1 * deta + eta * dg1 + mu * dg2;
    let df = -mu * (dg2 * inv_r0 - g2 * dr0 * inv_r0_sq);
    let dg = -mu * dg3;
    let dfdot = -mu * (dg1 - g1 * (dr * inv_r + dr0 * inv_r0)) * (inv_r * inv_r0);
    let dgdot = -mu * (dg2 - g2 * dr * inv_r) * inv_r;
    let mut dx = [k(0.0); 3];
    let mut dv = [k(0.0); 3];
    for c in 0..3 {
        dx[c] = df * x0[c] + f * dx0[c] + dg * v0[c] + g * dv0[c];
        dv[c] = dfdot * x0[c] + fdot * dx0[c] + dgdot * v0[c] + gdot * dv0[c];
    }
    (dx, dv)
}
