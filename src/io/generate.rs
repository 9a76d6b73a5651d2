//! Initial-condition generators.

use crate::physics::elements::cartesian_from_elements;
use crate::rng::Rng;
use crate::state::Body;
use crate::units;
use serde::{Deserialize, Serialize};
use std::f64::consts::TAU;

/// Parameters of the planetesimal-disk generator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiskSpec {
    /// Number of bodies (equal masses).
    pub n: usize,
    /// Total mass in Earth masses.
    pub total_mass_earth: f64,
    /// Inner edge of the semi-major axes (AU).
    pub a_min: f64,
    /// Outer edge of the semi-major axes (AU).
    pub a_max: f64,
    /// Surface density exponent p of Sigma ~ a^-p.
    #[serde(default = "one")]
    pub surface_density_exponent: f64,
    /// Rayleigh parameter of the eccentricities.
    #[serde(default = "e_rms")]
    pub e_rayleigh: f64,
    /// Rayleigh parameter of the inclinations (radians).
    #[serde(default = "i_rms")]
    pub i_rayleigh: f64,
    /// Density (g/cm^3).
    #[serde(default = "rho")]
    pub rho: f64,
    /// Random seed.
    pub seed: u64,
}

fn one() -> f64 {
    1.0
}
fn e_rms() -> f64 {
    0.01
}
fn i_rms() -> f64 {
    0.005
}
fn rho() -> f64 {
    2.0
}

/// A disk of `n` equal-mass planetesimals around a central mass `m0`: semi-major axes from a
/// surface density `Sigma ~ a^-p` between `a_min` and `a_max` (so `dN/da ~ a^{1-p}`), Rayleigh
/// eccentricities and inclinations, uniform angles, radii from the density. Heliocentric,
/// ids 0..n. Returns a message naming the bad parameter on invalid input.
pub fn disk(spec: &DiskSpec, m0: f64) -> Result<Vec<Body>, String> {
    check(spec)?;
    let m = spec.total_mass_earth * units::EARTH_MASS / spec.n as f64;
    let r = units::radius_from_density(m, spec.rho);
    let mut rng = Rng::new(spec.seed);
    let q = 2.0 - spec.surface_density_exponent;
    let (lo, hi) = (spec.a_min, spec.a_max);
    let mut out = Vec::with_capacity(spec.n);
    for id in 0..spec.n {
        let u = rng.uniform();
        let a = if q.abs() < 1e-12 {
            lo * (hi / lo).powf(u)
        } else {
            (lo.powf(q) + u * (hi.powf(q) - lo.powf(q))).powf(1.0 / q)
        };
        let e = rng.rayleigh(spec.e_rayleigh).min(0.9);
        let inc = rng.rayleigh(spec.i_rayleigh).min(1.5);
        let (node, peri, mean) = (
            rng.range(0.0, TAU),
            rng.range(0.0, TAU),
            rng.range(0.0, TAU),
        );
        let (pos, vel) = cartesian_from_elements(m0 + m, a, e, inc, node, peri, mean)
            .map_err(|err| format!("body {id}: invalid elements ({err:?})"))?;
        out.push(Body {
            id: id as u64,
            m,
            r,
            pos,
            vel,
            spin: [0.0; 3],
        });
    }
    Ok(out)
}

/// The largest generated disk (10^7 bodies, about a gigabyte of state).
pub const MAX_DISK_BODIES: usize = 10_000_000;

fn check(s: &DiskSpec) -> Result<(), String> {
    if s.n == 0 || s.n > MAX_DISK_BODIES {
        return Err(format!(
            "disk: expected 1 <= n <= {MAX_DISK_BODIES}, got {}",
            s.n
        ));
    }
    let finite_pos = |v: f64| v.is_finite() && v > 0.0;
    if !finite_pos(s.total_mass_earth) {
        return Err(format!(
            "disk: expected total_mass_earth > 0, got {}",
            s.total_mass_earth
        ));
    }
    if !(finite_pos(s.a_min) && finite_pos(s.a_max) && s.a_min < s.a_max) {
        return Err(format!(
            "disk: expected 0 < a_min < a_max, got {} and {}",
            s.a_min, s.a_max
        ));
    }
    if !(s.e_rayleigh.is_finite()
        && s.e_rayleigh >= 0.0
        && s.i_rayleigh.is_finite()
        && s.i_rayleigh >= 0.0)
    {
        return Err("disk: expected e_rayleigh >= 0 and i_rayleigh >= 0".into());
    }
    if !finite_pos(s.rho) || !s.surface_density_exponent.is_finite() {
        return Err("disk: expected rho > 0 and a finite surface_density_exponent".into());
    }
    Ok(())
}

/// Write bodies as a GENGA initial-condition file with the format `<< i m r x y z vx vy vz >>`
/// (heliocentric, code units), full precision.
pub fn write_genga(bodies: &[Body], out: &mut dyn std::io::Write) -> std::io::Result<()> {
    for b in bodies {
        writeln!(
            out,
            "{} {:e} {:e} {:e} {:e} {:e} {:e} {:e} {:e}",
            b.id, b.m, b.r, b.pos[0], b.pos[1], b.pos[2], b.vel[0], b.vel[1], b.vel[2]
        )?;
    }
    Ok(())
}

/// The format string of files written by [`write_genga`].
pub const GENGA_FORMAT: &str = "<< i m r x y z vx vy vz >>";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::elements::elements_from_cartesian;

    fn spec() -> DiskSpec {
        DiskSpec {
            n: 4000,
            total_mass_earth: 5.0,
            a_min: 0.5,
            a_max: 4.0,
            surface_density_exponent: 1.0,
            e_rayleigh: 0.01,
            i_rayleigh: 0.005,
            rho: 2.0,
            seed: 3,
        }
    }

    #[test]
    fn disk_has_the_requested_distribution() {
        let s = spec();
        let bodies = disk(&s, 1.0).unwrap();
        let total: f64 = bodies.iter().map(|b| b.m).sum();
        assert!((total / units::EARTH_MASS - 5.0).abs() < 1e-9);
        // Sigma ~ 1/a gives dN/da = const: the mean a is the midpoint.
        let els: Vec<_> = bodies
            .iter()
            .map(|b| elements_from_cartesian(1.0 + b.m, b.pos, b.vel))
            .collect();
        let mean_a = els.iter().map(|e| e.a).sum::<f64>() / s.n as f64;
        assert!((mean_a - 2.25).abs() < 0.05, "{mean_a}");
        assert!(els.iter().all(|e| e.a >= 0.5 - 1e-9 && e.a <= 4.0 + 1e-9));
        // Rayleigh mean = sigma sqrt(pi/2).
        let mean_e = els.iter().map(|e| e.e).sum::<f64>() / s.n as f64;
        assert!(
            (mean_e / (0.01 * (std::f64::consts::PI / 2.0).sqrt()) - 1.0).abs() < 0.05,
            "{mean_e}"
        );
        assert_eq!(disk(&s, 1.0).unwrap(), bodies, "same seed, same disk");
    }

    #[test]
    fn bad_parameters_are_named() {
        let mut s = spec();
        s.a_min = 5.0;
        assert!(disk(&s, 1.0).unwrap_err().contains("a_min"));
    }
}
