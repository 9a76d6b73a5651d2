//! The symplectic epicycle integrator (SEI; Rein & Tremaine 2011; OCCLUDE report section 3.2).
//!
//! H0 (Hill's equations without self-gravity: x'' = 2 Omega y' + 3 Omega^2 x, y'' = -2 Omega x',
//! z'' = -Omega^2 z) is solved exactly (OCCLUDE eq. 15, with the misprint corrected to
//! (y0 - y_g)): with the guiding centre x_g = 4 x0 + 2 vy0 / Omega, y_g = y0 - 2 vx0 / Omega and
//! phase phi = Omega t,
//!
//! ```text
//! x(t)  = x_g + (x0 - x_g) cos phi + (vx0 / Omega) sin phi
//! y(t)  = y_g - 3/2 Omega x_g t + (y0 - y_g) cos phi - 2 (x0 - x_g) sin phi
//! vx(t) = vx0 cos phi - Omega (x0 - x_g) sin phi
//! vy(t) = -3/2 Omega x_g - 2 Omega (x(t) - x_g)
//! z(t)  = z0 cos phi + (vz0 / Omega) sin phi,  vz(t) = vz0 cos phi - Omega z0 sin phi
//! ```
//!
//! The step is drift H0(dt/2), kick by self-gravity dt, drift H0(dt/2) (OCCLUDE eq. 17).

use rayon::prelude::*;

/// The exact H0 flow for a fixed time interval (cos and sin precomputed).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Epicycle {
    omega: f64,
    dt: f64,
    cos: f64,
    sin: f64,
}

impl Epicycle {
    /// The flow of H0 over `dt` at orbital frequency `omega`.
    pub fn new(omega: f64, dt: f64) -> Self {
        let phi = omega * dt;
        Epicycle {
            omega,
            dt,
            cos: phi.cos(),
            sin: phi.sin(),
        }
    }

    /// Advance one particle (module docs).
    #[inline]
    pub fn apply(&self, p: [f64; 6]) -> [f64; 6] {
        let [x, y, z, vx, vy, vz] = p;
        let (o, c, s) = (self.omega, self.cos, self.sin);
        let xg = 4.0 * x + 2.0 * vy / o;
        let yg = y - 2.0 * vx / o;
        let dx = x - xg;
        let nx = xg + dx * c + (vx / o) * s;
        let ny = yg - 1.5 * o * xg * self.dt + (y - yg) * c - 2.0 * dx * s;
        let nvx = vx * c - o * dx * s;
        let nvy = -1.5 * o * xg - 2.0 * o * (nx - xg);
        let nz = z * c + (vz / o) * s;
        let nvz = vz * c - o * z * s;
        [nx, ny, nz, nvx, nvy, nvz]
    }
}

/// Drift all particles under H0 for the interval of `e` (parallel; each particle independent).
pub fn drift(e: &Epicycle, p: &mut super::Particles) {
    let super::Particles {
        x,
        y,
        z,
        vx,
        vy,
        vz,
        ..
    } = p;
    (x, y, z, vx, vy, vz)
        .into_par_iter()
        .with_min_len(1024)
        .for_each(|(x, y, z, vx, vy, vz)| {
            let n = e.apply([*x, *y, *z, *vx, *vy, *vz]);
            (*x, *y, *z, *vx, *vy, *vz) = (n[0], n[1], n[2], n[3], n[4], n[5]);
        });
}

/// Kick: v += dt a (OCCLUDE eq. 16).
pub fn kick(p: &mut super::Particles, a: &[[f64; 3]], dt: f64) {
    let super::Particles { vx, vy, vz, .. } = p;
    (vx, vy, vz, a)
        .into_par_iter()
        .with_min_len(1024)
        .for_each(|(vx, vy, vz, a)| {
            *vx += dt * a[0];
            *vy += dt * a[1];
            *vz += dt * a[2];
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_shear_flow_is_stationary_in_x() {
        let o = 1.3e-4;
        let e = Epicycle::new(o, 100.0);
        let p = e.apply([10.0, 0.0, 0.0, 0.0, -1.5 * o * 10.0, 0.0]);
        assert!((p[0] - 10.0).abs() < 1e-12);
        assert!((p[1] + 1.5 * o * 10.0 * 100.0).abs() < 1e-9);
        assert!((p[4] + 1.5 * o * 10.0).abs() < 1e-15);
    }
}
