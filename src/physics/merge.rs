//! Perfect (inelastic) mergers in democratic heliocentric coordinates (GENGA paper section 3.2.7).
//!
//! Two bodies i, j become one body of mass `m = mi + mj` at their centre of mass with their
//! total momentum; the orbital angular momentum of the pair about the centre of mass goes into
//! the spin, so total angular momentum (orbital + spin) is conserved to round-off, and the radius
//! follows from the summed volume. The survivor keeps the heavier body's id (the lower id on a
//! tie).
//!
//! Energy: the paper records `U = 1/2 mu v_ij^2 - mi mj / r_ij` (`mu = mi mj / (mi + mj)`), the
//! energy of the relative motion that the merger removes. In democratic coordinates the total
//! energy is `E = sum 1/2 m v^2 + |sum m v|^2 / (2 M0) - sum M0 m / |x| - sum_{a<b} m_a m_b / r_ab`.
//! The merger keeps `sum m v`, so the H_C term is unchanged, but the merged body sits at the centre
//! of mass, so the Sun potential changes by `-M0 m / |x_c| + M0 mi / |x_i| + M0 mj / |x_j|` and the
//! potential with every third body k by `-m_k (m / r_ck - mi / r_ik - mj / r_jk)`. [`Merger::u`]
//! holds `U = E_before - E_after` for the pair and the Sun (so `E + U` is conserved exactly for a
//! system of the two bodies); [`third_body_potential_change`] gives the term of each other body, to
//! be added by the caller for exact bookkeeping.

use crate::state::Body;
use std::fmt;

/// Why a merger could not be formed.
#[derive(Debug, Clone, PartialEq)]
pub enum MergeError {
    /// The total mass is not positive: the centre of mass is undefined.
    NonPositiveMass { ids: [u64; 2], m: [f64; 2] },
    /// A non-finite input or result (position at the origin, overflow, NaN).
    NonFinite { ids: [u64; 2] },
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MergeError::NonPositiveMass { ids, m } => write!(
                f,
                "merger of bodies {} and {}: masses {} and {} must not be negative",
                ids[0], ids[1], m[0], m[1]
            ),
            MergeError::NonFinite { ids } => {
                write!(
                    f,
                    "merger of bodies {} and {}: non-finite state",
                    ids[0], ids[1]
                )
            }
        }
    }
}

impl std::error::Error for MergeError {}

/// Result of [`perfect_merger`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Merger {
    /// Which input survives (0 = `a`, 1 = `b`): the heavier, the lower id on equal masses.
    pub survivor: usize,
    /// The merged body, carrying the survivor's id.
    pub body: Body,
    /// Energy removed by the merger for the pair and the Sun: `u_pair + u_sun` (`E_before -
    /// E_after` of a system holding only the two bodies).
    pub u: f64,
    /// GENGA's internal energy `1/2 mu v_ij^2 - mi mj / r_ij` (paper 3.2.7).
    pub u_pair: f64,
    /// Change of the Sun potential: `-M0 mi / |x_i| - M0 mj / |x_j| + M0 m / |x_c|`.
    pub u_sun: f64,
}

/// `a × b`.
#[inline(always)]
pub(crate) fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

#[inline(always)]
fn norm(a: [f64; 3]) -> f64 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

#[inline(always)]
fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// Which of `a`, `b` survives a merger: 0 for `a`, 1 for `b`. The heavier survives; on equal
/// masses the lower id (GENGA paper 3.2.7).
pub fn survivor(a: &Body, b: &Body) -> usize {
    if b.m > a.m || (b.m == a.m && b.id < a.id) {
        1
    } else {
        0
    }
}

/// Perfect merger of `a` and `b` (GENGA paper 3.2.7) around a central mass `m0` fixed at the
/// origin: `m = ma + mb`, centre-of-mass position, velocity `(ma va + mb vb) / m`,
/// spin `Sa + Sb + ma (xa - xc) x (va - vc) + mb (xb - xc) x (vb - vc)`,
/// radius `(ra^3 + rb^3)^(1/3)`, and the energy bookkeeping described in the module docs.
pub fn perfect_merger(m0: f64, a: &Body, b: &Body) -> Result<Merger, MergeError> {
    let ids = [a.id, b.id];
    let m = a.m + b.m;
    let masses_ok = a.m >= 0.0 && b.m >= 0.0;
    if !masses_ok {
        return Err(MergeError::NonPositiveMass { ids, m: [a.m, b.m] });
    }
    // Two massless bodies (main mode allows m = 0) merge at their midpoint.
    let (fa, fb) = if m > 0.0 {
        (a.m / m, b.m / m)
    } else {
        (0.5, 0.5)
    };
    let mut xc = [0.0; 3];
    let mut vc = [0.0; 3];
    for k in 0..3 {
        xc[k] = fa * a.pos[k] + fb * b.pos[k];
        vc[k] = fa * a.vel[k] + fb * b.vel[k];
    }
    let la = cross(sub(a.pos, xc), sub(a.vel, vc));
    let lb = cross(sub(b.pos, xc), sub(b.vel, vc));
    let mut spin = [0.0; 3];
    for k in 0..3 {
        spin[k] = a.spin[k] + b.spin[k] + a.m * la[k] + b.m * lb[k];
    }
    let radius = (a.r * a.r * a.r + b.r * b.r * b.r).cbrt();

    let dv = sub(a.vel, b.vel);
    let dv2 = dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2];
    let rab = norm(sub(a.pos, b.pos));
    let mu = a.m * fb;
    let u_pair = 0.5 * mu * dv2 - a.m * b.m / rab;
    let u_sun = -m0 * a.m / norm(a.pos) - m0 * b.m / norm(b.pos) + m0 * m / norm(xc);

    let s = survivor(a, b);
    let id = if s == 0 { a.id } else { b.id };
    let body = Body {
        id,
        m,
        r: radius,
        pos: xc,
        vel: vc,
        spin,
    };
    let finite = [xc, vc, spin].iter().flatten().all(|x| x.is_finite())
        && radius.is_finite()
        && u_pair.is_finite()
        && u_sun.is_finite();
    if !finite {
        return Err(MergeError::NonFinite { ids });
    }
    Ok(Merger {
        survivor: s,
        body,
        u: u_pair + u_sun,
        u_pair,
        u_sun,
    })
}

/// Energy removed by a merger through its effect on the potential with a third body of mass
/// `mk` at `xk`: `-mk mi / r_ik - mk mj / r_jk + mk m / r_ck` (`E_before - E_after` of that pair
/// term). `merged` is the merged body from [`perfect_merger`].
pub fn third_body_potential_change(
    a: &Body,
    b: &Body,
    merged: &Body,
    mk: f64,
    xk: [f64; 3],
) -> f64 {
    -mk * a.m / norm(sub(a.pos, xk)) - mk * b.m / norm(sub(b.pos, xk))
        + mk * merged.m / norm(sub(merged.pos, xk))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Full democratic-coordinate energy of bodies around `m0` (see the module docs).
    fn energy(m0: f64, bodies: &[Body]) -> f64 {
        let mut e = 0.0;
        let mut p = [0.0; 3];
        for (i, b) in bodies.iter().enumerate() {
            let v2 = b.vel.iter().map(|v| v * v).sum::<f64>();
            e += 0.5 * b.m * v2 - m0 * b.m / norm(b.pos);
            for k in 0..3 {
                p[k] += b.m * b.vel[k];
            }
            for c in &bodies[i + 1..] {
                e -= b.m * c.m / norm(sub(b.pos, c.pos));
            }
        }
        e + (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) / (2.0 * m0)
    }

    fn momentum(bodies: &[Body]) -> [f64; 3] {
        let mut p = [0.0; 3];
        for b in bodies {
            for k in 0..3 {
                p[k] += b.m * b.vel[k];
            }
        }
        p
    }

    fn angular_momentum(bodies: &[Body]) -> [f64; 3] {
        let mut l = [0.0; 3];
        for b in bodies {
            let c = cross(b.pos, b.vel);
            for k in 0..3 {
                l[k] += b.m * c[k] + b.spin[k];
            }
        }
        l
    }

    fn close(a: [f64; 3], b: [f64; 3], scale: f64, tol: f64) -> bool {
        (0..3).all(|k| (a[k] - b[k]).abs() <= tol * scale)
    }

    fn pair(grazing: bool) -> (Body, Body) {
        let r = 4e-5;
        let a = Body {
            id: 11,
            m: 3e-6,
            r,
            pos: [1.0, 0.02, 0.001],
            vel: [0.01, 1.0, 0.002],
            spin: [1e-14, -2e-14, 3e-13],
        };
        let (off, dv) = if grazing {
            ([0.3 * r, 1.95 * r, 0.1 * r], [0.002, -0.004, 0.001])
        } else {
            ([1.9 * r, 0.0, 0.0], [-0.01, 0.0, 0.0])
        };
        let b = Body {
            id: 4,
            m: 1e-6,
            r: 0.5 * r,
            pos: [a.pos[0] + off[0], a.pos[1] + off[1], a.pos[2] + off[2]],
            vel: [a.vel[0] + dv[0], a.vel[1] + dv[1], a.vel[2] + dv[2]],
            spin: [0.0, 5e-15, -1e-14],
        };
        (a, b)
    }

    fn check_conservation(m0: f64, a: Body, b: Body, others: &[Body]) -> Merger {
        let mg = perfect_merger(m0, &a, &b).unwrap();
        let mut before = vec![a, b];
        before.extend_from_slice(others);
        let mut after = vec![mg.body];
        after.extend_from_slice(others);
        assert_eq!(mg.body.m, a.m + b.m);
        let p0 = momentum(&before);
        let pscale = before.iter().map(|b| b.m * norm(b.vel)).sum::<f64>();
        assert!(close(momentum(&after), p0, pscale, 2e-15), "momentum");
        let l0 = angular_momentum(&before);
        let lscale = before
            .iter()
            .map(|b| b.m * norm(b.pos) * norm(b.vel))
            .sum::<f64>();
        let l1 = angular_momentum(&after);
        assert!(
            close(l1, l0, lscale, 2e-15),
            "angular momentum {l0:?} {l1:?}"
        );
        let mut u = mg.u;
        for o in others {
            u += third_body_potential_change(&a, &b, &mg.body, o.m, o.pos);
        }
        let e0 = energy(m0, &before);
        let e1 = energy(m0, &after);
        let escale = before.iter().map(|b| m0 * b.m / norm(b.pos)).sum::<f64>()
            + a.m * b.m / norm(sub(a.pos, b.pos));
        assert!(
            ((e1 + u) - e0).abs() <= 4e-15 * escale,
            "E + U: {e0} {e1} {u}"
        );
        // A merged radius from summed volume.
        let vol = a.r.powi(3) + b.r.powi(3);
        assert!((mg.body.r.powi(3) - vol).abs() <= 1e-15 * vol);
        mg
    }

    #[test]
    fn head_on_merger_conserves_everything() {
        let (a, b) = pair(false);
        let mg = check_conservation(1.0, a, b, &[]);
        // Heavier body survives; head-on: no spin added along the line of approach.
        assert_eq!((mg.survivor, mg.body.id), (0, 11));
        let spin0: Vec<f64> = (0..3).map(|k| a.spin[k] + b.spin[k]).collect();
        for k in 0..3 {
            assert!((mg.body.spin[k] - spin0[k]).abs() < 1e-25);
        }
        // u_pair is the relative-orbit energy of the paper.
        let mu = a.m * b.m / (a.m + b.m);
        let expect = 0.5 * mu * 1e-4 - a.m * b.m / (1.9 * a.r);
        assert!((mg.u_pair - expect).abs() < 1e-12 * expect.abs());
    }

    #[test]
    fn grazing_merger_conserves_everything_with_third_bodies() {
        let (a, b) = pair(true);
        let others = [
            Body {
                id: 1,
                m: 1e-3,
                r: 1e-3,
                pos: [-5.2, 0.3, 0.0],
                vel: [0.0, -0.43, 0.01],
                spin: [0.0; 3],
            },
            Body {
                id: 2,
                m: 2e-7,
                r: 1e-6,
                pos: [1.0001, 0.0205, 0.0],
                vel: [0.0, 0.99, 0.0],
                spin: [0.0; 3],
            },
        ];
        let mg = check_conservation(1.0, a, b, &others);
        // Grazing: the orbital angular momentum of the pair went into spin.
        assert!(norm(sub(mg.body.spin, [1e-14, -1.5e-14, 2.9e-13])) > 1e-14);
    }

    #[test]
    fn survivor_rules_and_errors() {
        let (mut a, mut b) = pair(false);
        b.m = a.m;
        assert_eq!(
            survivor(&a, &b),
            1,
            "equal masses: lower id (b = 4) survives"
        );
        b.id = 20;
        assert_eq!(survivor(&a, &b), 0);
        b.m = 2.0 * a.m;
        assert_eq!(perfect_merger(1.0, &a, &b).unwrap().body.id, 20);
        a.m = 0.0;
        b.m = 0.0;
        let mid = perfect_merger(1.0, &a, &b).unwrap().body;
        assert_eq!(mid.m, 0.0);
        assert_eq!(mid.pos[0], 0.5 * (a.pos[0] + b.pos[0]));
        a.m = -1e-9;
        assert!(matches!(
            perfect_merger(1.0, &a, &b),
            Err(MergeError::NonPositiveMass { .. })
        ));
        a.m = 0.0;
        b.m = 1e-6;
        a.pos = [f64::NAN, 0.0, 0.0];
        let e = perfect_merger(1.0, &a, &b).unwrap_err();
        assert!(
            e.to_string().contains("11") && e.to_string().contains("20"),
            "{e}"
        );
    }
}
