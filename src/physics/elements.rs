//! Conversions between Cartesian states and Keplerian orbital elements (angles in radians).
//!
//! Conventions: `a > 0` and `0 <= e < 1` for bound orbits with the mean anomaly
//! `M = E - e sin E`; `a < 0` and `e > 1` for hyperbolic orbits with the hyperbolic mean anomaly
//! `M = e sinh F - F` (negative before pericentre). The orientation is the usual
//! `R = Rz(node) Rx(inc) Rz(peri)` from the perifocal frame (x towards pericentre) to the
//! reference frame. Degenerate orbits: for equatorial orbits (inc = 0 or pi) the node is 0 and
//! the argument of pericentre is measured from the x-axis; for circular orbits (e = 0) the
//! argument of pericentre is 0 and the mean anomaly is measured from the node (from the x-axis if
//! also equatorial).

use std::f64::consts::TAU;
use std::fmt;

/// Keplerian elements of a two-body orbit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Elements {
    /// Semi-major axis (AU); negative for hyperbolic orbits, infinite for a parabola.
    pub a: f64,
    /// Eccentricity.
    pub e: f64,
    /// Inclination in [0, pi].
    pub inc: f64,
    /// Longitude of the ascending node in [0, 2 pi).
    pub node: f64,
    /// Argument of pericentre in [0, 2 pi).
    pub peri: f64,
    /// Mean anomaly: in [0, 2 pi) for bound orbits, the hyperbolic mean anomaly e sinh F - F
    /// for unbound ones, and Barker's `D + D^3/3` with `D = tan(f/2)` for an exact parabola.
    pub mean_anomaly: f64,
}

/// Why a set of elements was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElementsError {
    /// A value is NaN or infinite.
    NonFinite,
    /// `mu` must be positive.
    NonPositiveMu,
    /// `e` must be >= 0.
    NegativeEccentricity,
    /// The pericentre distance `a (1 - e)` must be positive: a > 0 with e < 1, a < 0 with e > 1
    /// (parabolas, e = 1, cannot be given by `a`).
    BadSemiMajorAxis,
    /// Kepler's equation did not converge (not expected for finite input).
    NoConvergence,
}

impl fmt::Display for ElementsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            ElementsError::NonFinite => "an element is not finite",
            ElementsError::NonPositiveMu => "expected mu > 0",
            ElementsError::NegativeEccentricity => "expected e >= 0",
            ElementsError::BadSemiMajorAxis => {
                "expected a (1 - e) > 0 (a > 0 with e < 1, a < 0 with e > 1)"
            }
            ElementsError::NoConvergence => "Kepler's equation did not converge",
        };
        f.write_str(s)
    }
}

impl std::error::Error for ElementsError {}

/// Eccentric anomaly E solving Kepler's equation `E - e sin E = M` for `0 <= e < 1`, by Newton's
/// method from Danby's starting value `M + 0.85 e sign(sin M)` (Danby 1988 section 6.6), which
/// converges for every e < 1.
fn eccentric_anomaly(e: f64, mean_anomaly: f64) -> Option<f64> {
    let m = mean_anomaly - TAU * (mean_anomaly / TAU).round(); // [-pi, pi]
    let mut ea = m + (0.85 * e).copysign(m.sin());
    let mut d = f64::INFINITY;
    for _ in 0..60 {
        let (s, c) = ea.sin_cos();
        d = (ea - e * s - m) / (1.0 - e * c);
        ea -= d;
        if d.abs() <= 4.0 * f64::EPSILON * (1.0 + ea.abs()) {
            break;
        }
    }
    // Rounding can keep the last correction a few ulps above the threshold.
    (d.abs() <= 1e-12).then_some(ea + (mean_anomaly - m))
}

/// Hyperbolic anomaly F solving `e sinh F - F = M` for `e > 1`, by Newton's method. The function
/// is odd and, for F > 0, increasing and convex, so Newton started above the root converges
/// monotonically; `min(cbrt(6|M|/e), asinh(|M|/(e - 1)))` is such a start (from
/// `sinh F >= F + F^3/6` and `sinh F >= F`).
fn hyperbolic_anomaly(e: f64, m: f64) -> Option<f64> {
    let am = m.abs();
    let mut f = (6.0 * am / e).cbrt().min((am / (e - 1.0)).asinh());
    let mut d = f64::INFINITY;
    for _ in 0..200 {
        d = (e * f.sinh() - f - am) / (e * f.cosh() - 1.0);
        f -= d;
        if d.abs() <= 4.0 * f64::EPSILON * (1.0 + f) {
            break;
        }
    }
    (f.is_finite() && d.abs() <= 1e-12 * (1.0 + f)).then_some(f.copysign(m))
}

/// Unit vectors P (towards pericentre) and Q (90 degrees ahead in the orbital plane) of the
/// rotation `Rz(node) Rx(inc) Rz(peri)`.
fn perifocal_basis(inc: f64, node: f64, peri: f64) -> ([f64; 3], [f64; 3]) {
    let (si, ci) = inc.sin_cos();
    let (sn, cn) = node.sin_cos();
    let (sw, cw) = peri.sin_cos();
    let p = [cn * cw - sn * sw * ci, sn * cw + cn * sw * ci, sw * si];
    let q = [-cn * sw - sn * cw * ci, -sn * sw + cn * cw * ci, cw * si];
    (p, q)
}

/// Cartesian position and velocity (relative to the central mass) from Keplerian elements, for
/// the gravitational parameter `mu` (G (M0 + m) for a heliocentric two-body orbit).
///
/// Bound orbits (`a > 0`, `0 <= e < 1`): solves `E - e sin E = M`, then
/// `x' = a (cos E - e)`, `y' = a sqrt(1 - e^2) sin E` in the perifocal frame. Hyperbolic orbits
/// (`a < 0`, `e > 1`): solves `e sinh F - F = M`, then `x' = a (cosh F - e)`,
/// `y' = -a sqrt(e^2 - 1) sinh F`. Both are rotated by `Rz(node) Rx(inc) Rz(peri)`.
///
/// Errors: [`ElementsError`] for non-finite values, `mu <= 0`, `e < 0`, or `a (1 - e) <= 0`
/// (which includes e = 1).
pub fn cartesian_from_elements(
    mu: f64,
    a: f64,
    e: f64,
    inc: f64,
    node: f64,
    peri: f64,
    mean_anomaly: f64,
) -> Result<([f64; 3], [f64; 3]), ElementsError> {
    if ![mu, a, e, inc, node, peri, mean_anomaly]
        .iter()
        .all(|v| v.is_finite())
    {
        return Err(ElementsError::NonFinite);
    }
    if mu <= 0.0 {
        return Err(ElementsError::NonPositiveMu);
    }
    if e < 0.0 {
        return Err(ElementsError::NegativeEccentricity);
    }
    // a and e are finite here, so the product is not NaN.
    if a * (1.0 - e) <= 0.0 {
        return Err(ElementsError::BadSemiMajorAxis);
    }
    let (xp, yp, vxp, vyp) = if e < 1.0 {
        let ea = eccentric_anomaly(e, mean_anomaly).ok_or(ElementsError::NoConvergence)?;
        let (s, c) = ea.sin_cos();
        let b = (1.0 - e * e).sqrt();
        let n = (mu / (a * a * a)).sqrt();
        let edot = n / (1.0 - e * c);
        (a * (c - e), a * b * s, -a * s * edot, a * b * c * edot)
    } else {
        let f = hyperbolic_anomaly(e, mean_anomaly).ok_or(ElementsError::NoConvergence)?;
        let (sh, ch) = (f.sinh(), f.cosh());
        let b = (e * e - 1.0).sqrt();
        let n = (mu / (-a * a * a)).sqrt();
        let fdot = n / (e * ch - 1.0);
        (a * (ch - e), -a * b * sh, a * sh * fdot, -a * b * ch * fdot)
    };
    let (p, q) = perifocal_basis(inc, node, peri);
    let pos = [0, 1, 2].map(|k| xp * p[k] + yp * q[k]);
    let vel = [0, 1, 2].map(|k| vxp * p[k] + vyp * q[k]);
    if pos.iter().chain(vel.iter()).all(|v| v.is_finite()) {
        Ok((pos, vel))
    } else {
        Err(ElementsError::NonFinite)
    }
}

/// Angle in [0, 2 pi).
fn wrap(x: f64) -> f64 {
    let y = x.rem_euclid(TAU);
    // rem_euclid can round up to exactly 2 pi for tiny negative x
    if y >= TAU {
        0.0
    } else {
        y
    }
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Keplerian elements from a Cartesian position and velocity relative to the central mass, for
/// the gravitational parameter `mu`.
///
/// `a = 1 / (2/r - v^2/mu)`, the eccentricity vector `e = v x h / mu - r/|r|`,
/// `inc = atan2(|h_xy|, h_z)`, the node from `z x h`, and the argument of pericentre and true
/// anomaly as angles in the orbital plane (basis: node direction, `h x node / |h|`), so that
/// `cartesian_from_elements` inverts it exactly up to rounding. Equatorial orbits (|h_xy| at
/// rounding level of |h|) get node = 0; circular orbits (e = 0 exactly) get peri = 0. Degenerate
/// input (r = 0, h = 0 radial orbits, non-finite values) gives NaN or meaningless angles; `a` and
/// `e` stay meaningful for radial orbits.
pub fn elements_from_cartesian(mu: f64, pos: [f64; 3], vel: [f64; 3]) -> Elements {
    let r = dot(pos, pos).sqrt();
    let v2 = dot(vel, vel);
    let h = cross(pos, vel);
    let hxy = h[0].hypot(h[1]);
    let hm = hxy.hypot(h[2]);
    let inc = hxy.atan2(h[2]);
    // Orbital-plane basis: P0 towards the ascending node, Q0 = h x P0 / |h|.
    let (node, p0) = if hxy <= f64::EPSILON * hm {
        // Equatorial: node 0, P0 = x-axis; for retrograde orbits Q0 = -y.
        (0.0, [1.0, 0.0, 0.0])
    } else {
        let nx = -h[1] / hxy;
        let ny = h[0] / hxy;
        (wrap(ny.atan2(nx)), [nx, ny, 0.0])
    };
    let hu = [h[0] / hm, h[1] / hm, h[2] / hm];
    let q0 = cross(hu, p0);
    let vxh = cross(vel, h);
    let ev = [0, 1, 2].map(|k| vxh[k] / mu - pos[k] / r);
    let e = dot(ev, ev).sqrt();
    let alpha = 2.0 / r - v2 / mu;
    let a = 1.0 / alpha;
    let peri = if e == 0.0 {
        0.0
    } else {
        wrap(dot(ev, q0).atan2(dot(ev, p0)))
    };
    // True anomaly from the angle of r in the orbital plane.
    let true_long = dot(pos, q0).atan2(dot(pos, p0));
    let f = true_long - peri;
    let (sf, cf) = f.sin_cos();
    let mean_anomaly = if e < 1.0 {
        let ea = ((1.0 - e * e).sqrt() * sf).atan2(e + cf);
        wrap(ea - e * ea.sin())
    } else if e > 1.0 {
        let fh = ((e * e - 1.0).sqrt() * sf / (1.0 + e * cf)).asinh();
        e * fh.sinh() - fh
    } else {
        let d = (0.5 * f).tan();
        d + d * d * d / 3.0
    };
    let a = if e == 1.0 { f64::INFINITY } else { a };
    Elements {
        a,
        e,
        inc,
        node,
        peri,
        mean_anomaly,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    use crate::rng::Rng;

    fn norm(v: [f64; 3]) -> f64 {
        dot(v, v).sqrt()
    }

    /// Difference of two angles, in (-pi, pi].
    fn angle_diff(a: f64, b: f64) -> f64 {
        let d = (a - b).rem_euclid(TAU);
        if d > PI {
            d - TAU
        } else {
            d
        }
    }

    #[test]
    fn circular_orbit_at_one_au_has_unit_speed() {
        for m in [0.0, 1.0, 4.0] {
            let (p, v) = cartesian_from_elements(1.0, 1.0, 0.0, 0.0, 0.0, 0.0, m).unwrap();
            assert!((norm(p) - 1.0).abs() < 1e-15);
            assert!((norm(v) - 1.0).abs() < 1e-15);
            assert!(dot(p, v).abs() < 1e-15);
            // counter-clockwise about +z
            assert!(cross(p, v)[2] > 0.999_999_999);
        }
        let (p, v) = cartesian_from_elements(1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0).unwrap();
        assert_eq!(p, [1.0, 0.0, 0.0]);
        assert!((v[1] - 1.0).abs() < 1e-15 && v[0].abs() < 1e-15);
    }

    #[test]
    fn pericentre_and_apocentre_of_an_ellipse() {
        let (mu, a, e) = (1.5, 2.0, 0.6);
        let (inc, node, peri) = (0.3, 1.1, 2.2);
        let (p, v) = cartesian_from_elements(mu, a, e, inc, node, peri, 0.0).unwrap();
        assert!((norm(p) - a * (1.0 - e)).abs() < 1e-14);
        // vis-viva at pericentre: v^2 = mu (1 + e) / (a (1 - e))
        assert!((dot(v, v) - mu * (1.0 + e) / (a * (1.0 - e))).abs() < 1e-14);
        // pericentre direction is P = Rz(node) Rx(inc) x-axis rotated by peri
        let (pp, _) = perifocal_basis(inc, node, peri);
        assert!((dot(p, pp) / norm(p) - 1.0).abs() < 1e-15);
        let (p, _) = cartesian_from_elements(mu, a, e, inc, node, peri, PI).unwrap();
        assert!((norm(p) - a * (1.0 + e)).abs() < 1e-14);
        assert!((dot(p, pp) / norm(p) + 1.0).abs() < 1e-15);
    }

    #[test]
    fn energy_and_angular_momentum_match_the_elements() {
        let mut rng = Rng::new(7);
        for _ in 0..2000 {
            let hyper = rng.uniform() < 0.3;
            let (a, e) = if hyper {
                (-rng.range(0.1, 10.0), rng.range(1.01, 6.0))
            } else {
                (rng.range(0.1, 50.0), rng.range(0.0, 0.999))
            };
            let mu = rng.range(0.1, 2.0);
            let m = if hyper {
                rng.range(-10.0, 10.0)
            } else {
                rng.range(0.0, TAU)
            };
            let (inc, node, peri) = (rng.range(0.0, PI), rng.range(0.0, TAU), rng.range(0.0, TAU));
            let (p, v) = cartesian_from_elements(mu, a, e, inc, node, peri, m).unwrap();
            let energy = 0.5 * dot(v, v) - mu / norm(p);
            assert!(
                (energy / (-mu / (2.0 * a)) - 1.0).abs() < 1e-11,
                "{a} {e} {m}"
            );
            let h = cross(p, v);
            let hm = (mu * a * (1.0 - e * e)).sqrt();
            assert!((norm(h) / hm - 1.0).abs() < 1e-12);
            // h along Rz(node) Rx(inc) z-axis
            let hz = [inc.sin() * node.sin(), -inc.sin() * node.cos(), inc.cos()];
            assert!((dot(h, hz) / norm(h) - 1.0).abs() < 1e-13);
        }
    }

    #[test]
    fn round_trips_elliptic_and_hyperbolic() {
        let mut rng = Rng::new(42);
        for k in 0..20_000 {
            let hyper = k % 3 == 0;
            let (a, e) = if hyper {
                (-rng.range(0.05, 20.0), rng.range(1.001, 10.0))
            } else {
                (rng.range(0.05, 100.0), rng.range(0.0, 0.999))
            };
            let mu = rng.range(0.01, 3.0);
            let inc = rng.range(0.001, PI - 0.001);
            let (node, peri) = (rng.range(0.0, TAU), rng.range(0.0, TAU));
            let m = if hyper {
                rng.range(-20.0, 20.0)
            } else {
                rng.range(0.0, TAU)
            };
            let (p, v) = cartesian_from_elements(mu, a, e, inc, node, peri, m).unwrap();
            let el = elements_from_cartesian(mu, p, v);
            let ctx = format!("a={a} e={e} inc={inc} node={node} peri={peri} M={m} -> {el:?}");
            assert!((el.a / a - 1.0).abs() < 1e-11, "{ctx}");
            assert!((el.e - e).abs() < 1e-12 * e.max(1.0), "{ctx}");
            assert!((el.inc - inc).abs() < 1e-12, "{ctx}");
            assert!(angle_diff(el.node, node).abs() < 1e-11, "{ctx}");
            // peri is ill-conditioned for nearly circular orbits (~ eps / e)
            let tol = 1e-11 + 1e-14 / e;
            assert!(angle_diff(el.peri, peri).abs() < tol, "{ctx}");
            if hyper {
                assert!(
                    (el.mean_anomaly - m).abs() < 1e-10 * m.abs().max(1.0),
                    "{ctx}"
                );
            } else {
                // M is ill-conditioned near e = 1 at pericentre, as (1 - e)^-1
                let tol = 1e-11 / (1.0 - e) + 1e-14 / e;
                assert!(angle_diff(el.mean_anomaly, m).abs() < tol, "{ctx}");
                assert!((0.0..TAU).contains(&el.mean_anomaly));
            }
            // And back again: the state is reproduced.
            let (p2, v2) =
                cartesian_from_elements(mu, el.a, el.e, el.inc, el.node, el.peri, el.mean_anomaly)
                    .unwrap();
            for i in 0..3 {
                assert!((p2[i] - p[i]).abs() < 1e-11 * norm(p), "{ctx}");
                assert!((v2[i] - v[i]).abs() < 1e-11 * norm(v), "{ctx}");
            }
        }
    }

    #[test]
    fn degenerate_orientations() {
        // Equatorial prograde: node 0, peri measured from x.
        let (p, v) = cartesian_from_elements(1.0, 2.0, 0.3, 0.0, 1.0, 0.5, 1.0).unwrap();
        let el = elements_from_cartesian(1.0, p, v);
        assert_eq!(el.inc, 0.0);
        assert_eq!(el.node, 0.0);
        assert!(angle_diff(el.peri, 1.5).abs() < 1e-13, "{el:?}");
        assert!(angle_diff(el.mean_anomaly, 1.0).abs() < 1e-13, "{el:?}");
        // Equatorial retrograde: node 0, peri measured from x in the orbit's (clockwise) sense.
        let (p, v) = cartesian_from_elements(1.0, 2.0, 0.3, PI, 0.0, 0.5, 1.0).unwrap();
        let el = elements_from_cartesian(1.0, p, v);
        assert!((el.inc - PI).abs() < 1e-15 && el.node == 0.0, "{el:?}");
        assert!(angle_diff(el.peri, 0.5).abs() < 1e-13, "{el:?}");
        // Circular inclined: peri 0, M measured from the node.
        let (p, v) = cartesian_from_elements(1.0, 1.0, 0.0, 0.4, 2.0, 0.0, 0.7).unwrap();
        let el = elements_from_cartesian(1.0, p, v);
        assert!(el.e < 1e-15, "{el:?}");
        let lon = if el.e == 0.0 {
            el.mean_anomaly
        } else {
            el.peri + el.mean_anomaly
        };
        assert!(angle_diff(lon, 0.7).abs() < 1e-13, "{el:?}");
        // Exactly circular, equatorial: everything from the x-axis.
        let el = elements_from_cartesian(1.0, [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]);
        assert_eq!(
            (el.a, el.e, el.inc, el.node, el.peri),
            (1.0, 0.0, 0.0, 0.0, 0.0)
        );
        assert!((el.mean_anomaly - PI / 2.0).abs() < 1e-15);
        // Exact parabola: a infinite.
        let el = elements_from_cartesian(1.0, [1.0, 0.0, 0.0], [0.0, 2f64.sqrt(), 0.0]);
        assert!((el.e - 1.0).abs() < 1e-15);
        assert!(el.a.is_infinite() || el.a.abs() > 1e14);
    }

    #[test]
    fn invalid_elements_are_rejected() {
        let c = |a: f64, e: f64| cartesian_from_elements(1.0, a, e, 0.0, 0.0, 0.0, 0.0);
        assert_eq!(c(1.0, -0.1), Err(ElementsError::NegativeEccentricity));
        assert_eq!(c(1.0, 1.0), Err(ElementsError::BadSemiMajorAxis));
        assert_eq!(c(1.0, 1.5), Err(ElementsError::BadSemiMajorAxis));
        assert_eq!(c(-1.0, 0.5), Err(ElementsError::BadSemiMajorAxis));
        assert_eq!(c(0.0, 0.5), Err(ElementsError::BadSemiMajorAxis));
        assert_eq!(c(f64::NAN, 0.5), Err(ElementsError::NonFinite));
        assert_eq!(c(1.0, f64::INFINITY), Err(ElementsError::NonFinite));
        assert_eq!(
            cartesian_from_elements(0.0, 1.0, 0.1, 0.0, 0.0, 0.0, 0.0),
            Err(ElementsError::NonPositiveMu)
        );
        assert!(c(-1.0, 1.5).is_ok());
        assert!(cartesian_from_elements(1.0, -1.0, 3.0, 0.0, 0.0, 0.0, 1e6).is_ok());
    }
}
