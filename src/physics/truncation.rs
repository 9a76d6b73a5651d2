//! The inner truncation radius within the step: a body whose Kepler orbit passed perihelion
//! inside the radius during the step is removed with the time of that passage, not only when it
//! happens to be inside at a step end (GENGA's check, which lets a sungrazer that spends an hour
//! inside 0.01 AU per perihelion survive for years).
//!
//! Within a step a body moves on the Kepler orbit of its democratic heliocentric state around
//! M0 (the drift) between small kicks, so the osculating orbit at the step's end tells when it
//! last passed perihelion. The test runs in two stages: [`may_have_grazed`] (an exact test of
//! `q < R`, [`inside_perihelion`], for a body moving outward or on a short period), from
//! multiplications only, for every body in the ejection pass (and in the device's ejection
//! kernel, with the same arithmetic), then [`last_perihelion`], with the conic's anomaly, for
//! the few bodies it lets through ([`passage_within`]).

use crate::simd::lanes::Lanes;
/// True when the Kepler orbit of the state `(pos, vel)` around `mu` has its perihelion
/// distance `q` below `radius` (`inv_radius = 1 / radius`, `inv_mu = 1 / mu`), for any conic:
/// with the semi-latus rectum `p = |r x v|^2 / mu` and `e^2 = 1 - p (2/r - v^2/mu)`,
/// `q = p / (1 + e) < R` holds iff `p < R`, or `A = (p/R - 1)^2 - 1 - p v^2/mu < 0` and
/// `r^2 A^2 > 4 p^2` (the squared form of `p/R - 1 < e` multiplied by `r > 0`), so no square
/// root or division is taken. A NaN state gives false.
#[inline(always)]
pub fn inside_perihelion<V: Lanes>(
    inv_mu: f64,
    inv_radius: f64,
    radius: f64,
    pos: [V; 3],
    vel: [V; 3],
) -> V::Mask {
    let [x, y, z] = pos;
    let [vx, vy, vz] = vel;
    let hx = y * vz - z * vy;
    let hy = z * vx - x * vz;
    let hz = x * vy - y * vx;
    let p = (hx * hx + hy * hy + hz * hz) * V::splat(inv_mu);
    let r2 = x * x + y * y + z * z;
    let v2 = vx * vx + vy * vy + vz * vz;
    let k = p * V::splat(inv_radius) - V::splat(1.0);
    let a = k * k - V::splat(1.0) - p * v2 * V::splat(inv_mu);
    p.lt(V::splat(radius)) | (a.lt(V::splat(0.0)) & (r2 * (a * a)).gt(V::splat(4.0) * (p * p)))
}

/// The constants of one system for [`may_have_grazed`], computed once per step length.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grazing {
    /// `1 / mu` (mu = G M0, the drift's).
    pub inv_mu: f64,
    /// The inner truncation radius R and `1 / R`.
    pub radius: f64,
    pub inv_radius: f64,
    /// `1/a` above which an orbit's period is below two steps,
    /// `(pi / tau)^(2/3) / mu^(1/3)` (Kepler's third law).
    pub short_alpha: f64,
}

impl Grazing {
    /// The constants for a system of central mass `mu`, inner radius `radius` and step `tau`.
    pub fn new(mu: f64, radius: f64, tau: f64) -> Self {
        Grazing {
            inv_mu: 1.0 / mu,
            radius,
            inv_radius: 1.0 / radius,
            short_alpha: (std::f64::consts::PI / tau.abs()).powf(2.0 / 3.0) / mu.cbrt(),
        }
    }
}

/// The ejection pass's first look for a perihelion passage inside the inner radius within the
/// last step: [`inside_perihelion`], and the body moving outward (`r.v >= 0`, as it is within
/// half a period after any perihelion) or on an orbit of period below two steps (`1/a >
/// short_alpha`, tested as `r^2 (short_alpha + v^2/mu)^2 < 4` without a root), so that a comet
/// on its way in is not looked at every step. Multiplications and comparisons only, as in the
/// device's ejection kernel (`orr_may_have_grazed`).
#[inline(always)]
pub fn may_have_grazed<V: Lanes>(g: &Grazing, pos: [V; 3], vel: [V; 3]) -> V::Mask {
    let [x, y, z] = pos;
    let [vx, vy, vz] = vel;
    let u = x * vx + y * vy + z * vz;
    let r2 = x * x + y * y + z * z;
    let v2 = vx * vx + vy * vy + vz * vz;
    let s = V::splat(g.short_alpha) + v2 * V::splat(g.inv_mu);
    let moving_or_short = u.ge(V::splat(0.0)) | (r2 * (s * s)).lt(V::splat(4.0));
    moving_or_short & inside_perihelion(g.inv_mu, g.inv_radius, g.radius, pos, vel)
}

/// Time since the most recent perihelion passage of the Kepler orbit of `(pos, vel)` around
/// `mu` (code units, >= 0): from the mean anomaly of the ellipse (`M = E - e sin E`, one period
/// back when M < 0), of the hyperbola (`M = e sinh H - H`) or Barker's equation for an exact
/// parabola. `None` for an unbound orbit still approaching perihelion and for degenerate input.
pub fn last_perihelion(mu: f64, pos: [f64; 3], vel: [f64; 3]) -> Option<f64> {
    let r = (pos[0] * pos[0] + pos[1] * pos[1] + pos[2] * pos[2]).sqrt();
    let v2 = vel[0] * vel[0] + vel[1] * vel[1] + vel[2] * vel[2];
    let u = pos[0] * vel[0] + pos[1] * vel[1] + pos[2] * vel[2];
    if !(r > 0.0 && mu > 0.0 && r.is_finite() && v2.is_finite()) {
        return None;
    }
    let alpha = 2.0 / r - v2 / mu;
    let t = if alpha > 0.0 {
        // Ellipse: e cos E = 1 - r / a, e sin E = u / sqrt(mu a).
        let ec = 1.0 - r * alpha;
        let es = u * (alpha / mu).sqrt();
        let m = es.atan2(ec) - es;
        let m = if m < 0.0 {
            m + std::f64::consts::TAU
        } else {
            m
        };
        m / (alpha * (mu * alpha).sqrt())
    } else if alpha < 0.0 {
        // Hyperbola: e cosh H = 1 - r / a, e sinh H = u / sqrt(-mu a).
        let ec = 1.0 - r * alpha;
        let es = u * (-alpha / mu).sqrt();
        let e = (ec * ec - es * es).sqrt();
        let m = es - (es / e).asinh();
        m / (-alpha * (-mu * alpha).sqrt())
    } else {
        // Parabola: t = (q D + D^3 / 6) / sqrt(mu) with D = u / sqrt(mu), q = r - D^2 / 2.
        let d = u / mu.sqrt();
        let q = r - 0.5 * d * d;
        (q * d + d * d * d / 6.0) / mu.sqrt()
    };
    (t >= 0.0 && t.is_finite()).then_some(t)
}

/// The time since the perihelion passage inside `radius` that the orbit of `(pos, vel)` around
/// `mu` made within the last `tau` (the step just taken), if it made one.
pub fn passage_within(mu: f64, radius: f64, tau: f64, pos: [f64; 3], vel: [f64; 3]) -> Option<f64> {
    let grazing =
        radius > 0.0 && tau > 0.0 && inside_perihelion(1.0 / mu, 1.0 / radius, radius, pos, vel);
    if !grazing {
        return None;
    }
    last_perihelion(mu, pos, vel).filter(|&t| t <= tau)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::elements::{cartesian_from_elements, elements_from_cartesian};
    use crate::physics::kepler::kepler_drift;
    use std::f64::consts::{PI, TAU};

    fn orbit(a: f64, e: f64, m: f64) -> ([f64; 3], [f64; 3]) {
        cartesian_from_elements(1.0, a, e, 0.3, 1.1, 2.0, m).unwrap()
    }

    #[test]
    fn the_perihelion_test_is_q_below_the_radius_for_every_conic() {
        let mut rng = crate::rng::Rng::new(3);
        let mut inside = 0;
        for _ in 0..20_000 {
            let e = match rng.next_u64() % 3 {
                0 => rng.range(0.0, 0.999),
                1 => rng.range(1.001, 5.0),
                _ => rng.range(0.99, 1.01),
            };
            let q = 10f64.powf(rng.range(-3.0, 0.5));
            let a = q / (1.0 - e);
            let m = if e < 1.0 {
                rng.range(-PI, PI)
            } else {
                rng.range(-2.0, 2.0)
            };
            let (pos, vel) = orbit(a, e, m);
            let radius = 10f64.powf(rng.range(-3.0, 0.5));
            // q from the state itself (the elements' round trip is not exact).
            let el = elements_from_cartesian(1.0, pos, vel);
            let q_state = el.a * (1.0 - el.e);
            if (q_state / radius - 1.0).abs() < 1e-9 {
                continue;
            }
            let want = q_state < radius;
            assert_eq!(
                inside_perihelion(1.0, 1.0 / radius, radius, pos, vel),
                want,
                "a {a} e {e} m {m} q {q_state} R {radius}"
            );
            inside += want as usize;
        }
        assert!(inside > 5000, "{inside}");
        assert!(!inside_perihelion(1.0, 1.0, 1.0, [f64::NAN; 3], [0.0; 3]));
    }

    #[test]
    fn time_since_perihelion_is_the_mean_anomaly_over_the_mean_motion() {
        for e in [0.01, 0.3, 0.9, 0.9999] {
            for m in [0.0, 0.1, 1.0, 3.0, -0.2, -3.0] {
                let a: f64 = 2.0;
                let (pos, vel) = orbit(a, e, m);
                let n = (1.0 / (a * a * a)).sqrt();
                let want = if m < 0.0 { (m + TAU) / n } else { m / n };
                let got = last_perihelion(1.0, pos, vel).unwrap();
                let tol = 1e-9 * (1.0 + want) / (1.0 - e).max(1e-3);
                assert!((got - want).abs() < tol, "e {e} m {m}: {got} vs {want}");
            }
        }
        // Hyperbola: after perihelion M / n, before it nothing.
        for e in [1.0001, 1.5, 4.0] {
            let a: f64 = -0.5;
            let n = (1.0 / (-a * a * a)).sqrt();
            let (pos, vel) = orbit(a, e, 0.7);
            let got = last_perihelion(1.0, pos, vel).unwrap();
            assert!((got - 0.7 / n).abs() < 1e-9 * (0.7 / n), "e {e}: {got}");
            let (pos, vel) = orbit(a, e, -0.7);
            assert_eq!(last_perihelion(1.0, pos, vel), None);
        }
        // Drifting from perihelion for t gives t back, on every conic, through the drift.
        for (a, e) in [(1.0, 0.5), (-1.0, 2.0), (50.0, 0.9998)] {
            let (mut pos, mut vel) = orbit(a, e, 0.0);
            kepler_drift(1.0, 0.37, &mut pos, &mut vel).unwrap();
            let got = last_perihelion(1.0, pos, vel).unwrap();
            assert!((got - 0.37).abs() < 1e-9, "a {a} e {e}: {got}");
        }
        // Parabola (alpha = 0 exactly): r = 2, v^2 = 1 around mu = 1.
        let (pos, vel) = ([2.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
        assert_eq!(last_perihelion(1.0, pos, vel), Some(0.0));
    }

    #[test]
    fn the_first_look_lets_every_passage_within_the_step_through() {
        // Every state that passed perihelion inside R within the last tau is let through, on
        // long and short periods; states on the way in (long periods) are not.
        let mut rng = crate::rng::Rng::new(9);
        let (mut passed, mut inbound) = (0, 0);
        for _ in 0..20_000 {
            let e = rng.range(0.0, 2.0);
            let q = 10f64.powf(rng.range(-3.0, -1.0));
            let a = q / (1.0 - e);
            if !a.is_finite() || (e - 1.0).abs() < 1e-3 {
                continue;
            }
            let tau = 10f64.powf(rng.range(-2.0, 0.5));
            let radius = 0.1;
            let g = Grazing::new(1.0, radius, tau);
            let m = if e < 1.0 {
                rng.range(-PI, PI)
            } else {
                rng.range(-3.0, 3.0)
            };
            let (pos, vel) = orbit(a, e, m);
            if passage_within(1.0, radius, tau, pos, vel).is_some() {
                assert!(may_have_grazed(&g, pos, vel), "a {a} e {e} m {m} tau {tau}");
                passed += 1;
            }
            let u = pos[0] * vel[0] + pos[1] * vel[1] + pos[2] * vel[2];
            let period = TAU * (a.abs().powi(3)).sqrt();
            if u < 0.0 && (e >= 1.0 || period > 2.0 * tau) {
                assert!(
                    !may_have_grazed(&g, pos, vel),
                    "a {a} e {e} m {m} tau {tau}"
                );
                inbound += 1;
            }
        }
        assert!(passed > 500 && inbound > 5000, "{passed} {inbound}");
    }

    #[test]
    fn a_sungrazer_is_caught_only_in_the_step_of_its_passage() {
        // q = 0.005 AU, a = 20 AU, inner radius 0.01: 0.3 code units after perihelion the
        // body is far outside the radius again, but the passage lies within a step of 0.5.
        let (a, e) = (20.0, 1.0 - 0.005 / 20.0);
        let (mut pos, mut vel) = orbit(a, e, 0.0);
        kepler_drift(1.0, 0.3, &mut pos, &mut vel).unwrap();
        let r = (pos[0] * pos[0] + pos[1] * pos[1] + pos[2] * pos[2]).sqrt();
        assert!(r > 0.1, "{r}");
        let t = passage_within(1.0, 0.01, 0.5, pos, vel).unwrap();
        assert!((t - 0.3).abs() < 1e-9, "{t}");
        // Not within a step of 0.2, and not with a radius below q.
        assert_eq!(passage_within(1.0, 0.01, 0.2, pos, vel), None);
        assert_eq!(passage_within(1.0, 0.004, 0.5, pos, vel), None);
        // Approaching perihelion: nothing yet.
        let (mut pos, mut vel) = orbit(a, e, 0.0);
        kepler_drift(1.0, -0.3, &mut pos, &mut vel).unwrap();
        assert_eq!(passage_within(1.0, 0.01, 0.5, pos, vel), None);
    }
}
