//! Energy and angular momentum in democratic heliocentric coordinates (G = 1).
//!
//! With heliocentric positions x_i and barycentric velocities v_i the barycentric total energy is
//! `E = sum 1/2 m v^2 + |sum m v|^2 / (2 M0) - sum M0 m / |x| - sum_{i<j} m_i m_j / r_ij`
//! (the middle term is the central body's kinetic energy, H_C of the GENGA paper eq. 3), and the
//! total angular momentum is `sum m x cross v` plus the spins.

use crate::state::Bodies;
use rayon::prelude::*;

/// Energy and angular momentum of the state in democratic heliocentric coordinates (G = 1).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct EnergyParts {
    /// Kinetic energy: sum 1/2 m v_b^2 + |sum m v_b|^2 / (2 M0).
    pub kinetic: f64,
    /// Potential energy: -sum M0 m / r - sum_{i<j} m_i m_j / r_ij.
    pub potential: f64,
    /// Total angular momentum (orbital sum m x_h cross v_b, plus spins).
    pub angular_momentum: [f64; 3],
}

/// Energy and angular momentum of `b` around a central mass `m0`. Deterministic: partial sums
/// are formed per body and added in index order.
pub fn energy(m0: f64, b: &Bodies) -> EnergyParts {
    energy_split(m0, b, 0, b.len(), b.len())
}

/// Energy and angular momentum of the `n` bodies of `b` from index `start`, of which the first
/// `massive` are massive and the others small bodies that interact with the massive ones only
/// (semi-active test particles; pairs of two small bodies are left out). With `n == massive`
/// this is the full energy.
pub fn energy_split(m0: f64, b: &Bodies, start: usize, n: usize, massive: usize) -> EnergyParts {
    let pair: Vec<f64> = (start..start + massive)
        .into_par_iter()
        .map(|i| {
            let mut s = 0.0;
            for j in i + 1..start + n {
                let dx = b.x[j] - b.x[i];
                let dy = b.y[j] - b.y[i];
                let dz = b.z[j] - b.z[i];
                s += b.m[j] / (dx * dx + dy * dy + dz * dz).sqrt();
            }
            b.m[i] * s
        })
        .collect();
    let mut kinetic = 0.0;
    let mut potential = 0.0;
    let mut l = [0.0; 3];
    let mut p = [0.0; 3];
    for i in start..start + n {
        let (m, x, y, z) = (b.m[i], b.x[i], b.y[i], b.z[i]);
        let (vx, vy, vz) = (b.vx[i], b.vy[i], b.vz[i]);
        kinetic += 0.5 * m * (vx * vx + vy * vy + vz * vz);
        potential -=
            m0 * m / (x * x + y * y + z * z).sqrt() + pair.get(i - start).copied().unwrap_or(0.0);
        l[0] += m * (y * vz - z * vy) + b.sx[i];
        l[1] += m * (z * vx - x * vz) + b.sy[i];
        l[2] += m * (x * vy - y * vx) + b.sz[i];
        p[0] += m * vx;
        p[1] += m * vy;
        p[2] += m * vz;
    }
    kinetic += (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) / (2.0 * m0);
    EnergyParts {
        kinetic,
        potential,
        angular_momentum: l,
    }
}

/// The change of the central body's kinetic energy `|P|² / (2 M0)` (democratic heliocentric
/// coordinates) when a kick changes the bodies' momentum `p` by `dp`.
#[inline(always)]
pub fn central_kinetic_change(m0: f64, p: [f64; 3], dp: [f64; 3]) -> f64 {
    (2.0 * (p[0] * dp[0] + p[1] * dp[1] + p[2] * dp[2])
        + (dp[0] * dp[0] + dp[1] * dp[1] + dp[2] * dp[2]))
        / (2.0 * m0)
}

/// Euclidean norm of a 3-vector.
pub fn norm(v: [f64; 3]) -> f64 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Body;

    #[test]
    fn matches_barycentric_energy_of_the_full_system() {
        // Sun + two planets given in barycentric coordinates.
        let m0 = 1.0;
        let planets = [
            (1e-3, [1.0, 0.2, 0.01], [-0.1, 0.9, 0.02]),
            (3e-4, [-2.0, 0.5, -0.03], [0.05, -0.7, 0.0]),
        ];
        let p: [f64; 3] = std::array::from_fn(|c| planets.iter().map(|(m, _, v)| m * v[c]).sum());
        let mx: [f64; 3] = std::array::from_fn(|c| planets.iter().map(|(m, x, _)| m * x[c]).sum());
        let sun_x: [f64; 3] = std::array::from_fn(|c| -mx[c] / m0);
        let sun_v: [f64; 3] = std::array::from_fn(|c| -p[c] / m0);
        let all = [(m0, sun_x, sun_v), planets[0], planets[1]];
        let mut e_ref = 0.0;
        let mut l_ref = [0.0; 3];
        for (a, &(ma, xa, va)) in all.iter().enumerate() {
            e_ref += 0.5 * ma * (va[0] * va[0] + va[1] * va[1] + va[2] * va[2]);
            l_ref[0] += ma * (xa[1] * va[2] - xa[2] * va[1]);
            l_ref[1] += ma * (xa[2] * va[0] - xa[0] * va[2]);
            l_ref[2] += ma * (xa[0] * va[1] - xa[1] * va[0]);
            for &(mb, xb, _) in &all[a + 1..] {
                let d = norm([xb[0] - xa[0], xb[1] - xa[1], xb[2] - xa[2]]);
                e_ref -= ma * mb / d;
            }
        }
        let bodies: Vec<Body> = planets
            .iter()
            .enumerate()
            .map(|(k, &(m, x, v))| Body {
                id: k as u64,
                m,
                r: 0.0,
                pos: std::array::from_fn(|c| x[c] - sun_x[c]),
                vel: v,
                spin: [0.0; 3],
            })
            .collect();
        let e = energy(m0, &Bodies::from_bodies(&bodies));
        assert!(((e.kinetic + e.potential) - e_ref).abs() < 1e-15);
        for c in 0..3 {
            assert!((e.angular_momentum[c] - l_ref[c]).abs() < 1e-16);
        }
    }
}
