//! The `Sheet(...)` scenario (RON) and the ring-patch particle generator (OCCLUDE report section
//! 3.10.1 and table 1; REBOUND's shearing-sheet example draws particles the same way).
//!
//! Particles are drawn until their total mass reaches `surface_density * L^2` (the particle that
//! reaches it is kept): radius from the power law `N(r) dr ~ r^-p dr` on `[r_min, r_max]`
//! (OCCLUDE eq. 20) by inverting its cumulative distribution, mass `rho 4/3 pi r^3`, x and y
//! uniform in the box, z normal with `z_sigma`, velocity the shear flow `(0, -3/2 Omega x, 0)`.
//! All quantities are SI.

use crate::error::{Error, Location, Result};
use crate::physics::sheet::collisions::Restitution;
use crate::physics::sheet::{Particles, SheetParams};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Power-law radius distribution `N(r) ~ r^-slope` on `[min, max]` (metres).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RadiusLaw {
    /// Smallest radius [m].
    pub min: f64,
    /// Largest radius [m].
    pub max: f64,
    /// The exponent q of `N(r) ~ r^-q`.
    pub slope: f64,
}

/// Output settings of a sheet run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SheetOutput {
    /// Output directory.
    pub dir: PathBuf,
    /// Write a snapshot every this many steps (0: only the first and the last).
    #[serde(default)]
    pub snapshot_every: u64,
    /// Write a time-series line every this many steps.
    #[serde(default = "one")]
    pub series_every: u64,
}

fn one() -> u64 {
    1
}
fn default_g() -> f64 {
    6.67428e-11
}
fn default_ghosts() -> (u32, u32, u32) {
    (1, 1, 0)
}
fn default_seed() -> u64 {
    1
}

/// A shearing-sheet scenario (`inputs/ring.ron`). SI units.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename = "Sheet")]
pub struct Sheet {
    /// Run name (output file names).
    pub name: String,
    /// Number of steps.
    pub steps: u64,
    /// Seed of the particle generator.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Orbital frequency Omega [1/s].
    pub omega: f64,
    /// Gravitational constant [m^3 kg^-1 s^-2].
    #[serde(default = "default_g")]
    pub g: f64,
    /// Surface density [kg/m^2].
    pub surface_density: f64,
    /// Particle (bulk) density [kg/m^3].
    pub particle_density: f64,
    /// Box size L in x and y [m].
    pub box_size: f64,
    /// Radius distribution [m].
    pub radius: RadiusLaw,
    /// Standard deviation of the initial z [m].
    pub z_sigma: f64,
    /// Time step in orbital periods (2 pi / Omega).
    pub dt_orbits: f64,
    /// Opening angle.
    pub theta: f64,
    /// Plummer softening [m].
    pub softening: f64,
    /// Ghost boxes on each side in x, y and z (z must be 0: the sheet is open in z).
    #[serde(default = "default_ghosts")]
    pub ghosts: (u32, u32, u32),
    /// Normal coefficient of restitution.
    pub restitution: Restitution,
    /// Outputs.
    pub output: SheetOutput,
}

/// True when the first value in `text` (after whitespace, comments and `#![...]` attributes) is
/// a `Sheet(` struct.
pub fn starts_with_sheet(text: &str) -> bool {
    let mut s = text;
    loop {
        s = s.trim_start();
        if let Some(r) = s.strip_prefix("//") {
            s = r.find('\n').map_or("", |k| &r[k..]);
        } else if let Some(r) = s.strip_prefix("/*") {
            s = r.find("*/").map_or("", |k| &r[k + 2..]);
        } else if let Some(r) = s.strip_prefix("#![") {
            s = r.find(']').map_or("", |k| &r[k + 1..]);
        } else {
            break;
        }
    }
    s.strip_prefix("Sheet")
        .is_some_and(|r| r.trim_start().starts_with('('))
}

impl Sheet {
    /// Read and validate a scenario file.
    pub fn load(path: &Path) -> Result<Sheet> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let sc: Sheet = ron::from_str(&text).map_err(|e| {
            Error::input(
                Location::file(path).line(e.span.start.line),
                format!("column {}: {}", e.span.start.col, e.code),
            )
        })?;
        sc.validate(path)?;
        Ok(sc)
    }

    /// Check every field; the error names the field and what was expected.
    pub fn validate(&self, path: &Path) -> Result<()> {
        let at = |f: &str| Location::file(path).field(f);
        let positive = |v: f64, f: &str| -> Result<()> {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(Error::input(
                    at(f),
                    format!("expected a finite number > 0, got {v}"),
                ))
            }
        };
        positive(self.omega, "omega")?;
        positive(self.g, "g")?;
        positive(self.surface_density, "surface_density")?;
        positive(self.particle_density, "particle_density")?;
        positive(self.box_size, "box_size")?;
        positive(self.radius.min, "radius.min")?;
        positive(self.radius.max, "radius.max")?;
        positive(self.dt_orbits, "dt_orbits")?;
        positive(self.theta, "theta")?;
        if self.radius.max < self.radius.min {
            return Err(Error::input(at("radius.max"), "expected max >= min"));
        }
        if !self.radius.slope.is_finite() {
            return Err(Error::input(at("radius.slope"), "expected a finite number"));
        }
        if !(self.z_sigma.is_finite() && self.z_sigma >= 0.0) {
            return Err(Error::input(at("z_sigma"), "expected a finite number >= 0"));
        }
        if !(self.softening.is_finite() && self.softening >= 0.0) {
            return Err(Error::input(
                at("softening"),
                "expected a finite number >= 0",
            ));
        }
        if self.ghosts.2 != 0 {
            return Err(Error::input(
                at("ghosts"),
                "expected 0 ghost boxes in z (the sheet is open in z), e.g. (1, 1, 0)",
            ));
        }
        if self.ghosts.0 > 4 || self.ghosts.1 > 4 {
            return Err(Error::input(
                at("ghosts"),
                "expected at most 4 rings of ghost boxes",
            ));
        }
        if self.box_size <= 4.0 * self.radius.max {
            return Err(Error::input(
                at("box_size"),
                "expected a box wider than 4 largest radii (radius.max)",
            ));
        }
        match self.restitution {
            Restitution::Bridges { v_c } => positive(v_c, "restitution.v_c")?,
            Restitution::Constant(e) => {
                if !(0.0..=1.0).contains(&e) {
                    return Err(Error::input(
                        at("restitution"),
                        "expected a constant in [0, 1]",
                    ));
                }
            }
        }
        if self.name.is_empty() || self.name.contains(['/', '\\']) {
            return Err(Error::input(
                at("name"),
                "expected a non-empty name without slashes",
            ));
        }
        if self.dt_orbits > 0.05 {
            return Err(Error::input(
                at("dt_orbits"),
                format!(
                    "expected a step of at most 0.05 orbits, got {}",
                    self.dt_orbits
                ),
            ));
        }
        if self.theta > 1.0 {
            return Err(Error::input(
                at("theta"),
                format!("expected an opening angle in (0, 1], got {}", self.theta),
            ));
        }
        let ends = [
            self.draw_radius(0.0),
            self.draw_radius(0.5),
            self.draw_radius(1.0),
        ];
        if !ends.iter().all(|r| r.is_finite() && *r > 0.0) {
            return Err(Error::input(
                at("radius"),
                format!(
                    "the radius distribution gives radii {ends:?}; expected finite positive radii"
                ),
            ));
        }
        let n = self.expected_count();
        if !(n.is_finite() && n <= 5.0e7) {
            return Err(Error::input(
                at("box_size"),
                format!("about {n:.3e} particles; expected at most 5e7"),
            ));
        }
        Ok(())
    }

    /// The step parameters.
    pub fn params(&self) -> SheetParams {
        SheetParams {
            omega: self.omega,
            g: self.g,
            dt: self.dt_orbits * 2.0 * std::f64::consts::PI / self.omega,
            box_size: self.box_size,
            theta: self.theta,
            softening: self.softening,
            ghosts: [self.ghosts.0, self.ghosts.1],
            restitution: self.restitution,
        }
    }

    /// Mean of r^3 of the radius law (for the expected particle count).
    fn mean_r3(&self) -> f64 {
        let (a, b, p) = (self.radius.min, self.radius.max, self.radius.slope);
        if b <= a {
            return a * a * a;
        }
        let integral = |k: f64| {
            // int_a^b r^(k - p) dr
            let e = k - p + 1.0;
            if e.abs() < 1e-12 {
                (b / a).ln()
            } else {
                (b.powf(e) - a.powf(e)) / e
            }
        };
        integral(3.0) / integral(0.0)
    }

    /// Expected number of particles.
    pub fn expected_count(&self) -> f64 {
        let m = self.particle_density * 4.0 / 3.0 * std::f64::consts::PI * self.mean_r3();
        self.surface_density * self.box_size * self.box_size / m
    }

    /// Draw one radius from the power law by inverting its cumulative distribution.
    fn draw_radius(&self, u: f64) -> f64 {
        let (a, b, p) = (self.radius.min, self.radius.max, self.radius.slope);
        if b <= a {
            return a;
        }
        let e = 1.0 - p;
        if e.abs() < 1e-12 {
            a * (b / a).powf(u)
        } else {
            ((b.powf(e) - a.powf(e)) * u + a.powf(e)).powf(1.0 / e)
        }
    }

    /// Generate the particles (module docs).
    pub fn generate(&self) -> Particles {
        let mut rng = Rng::new(self.seed);
        let target = self.surface_density * self.box_size * self.box_size;
        let half = 0.5 * self.box_size;
        let mut p = Particles::default();
        let mut mass = 0.0;
        while mass < target {
            let r = self.draw_radius(rng.uniform());
            let m = self.particle_density * 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
            let x = rng.range(-half, half);
            let y = rng.range(-half, half);
            let z = self.z_sigma * rng.normal();
            p.push([x, y, z], [0.0, -1.5 * self.omega * x, 0.0], m, r);
            mass += m;
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_sheet_scenarios() {
        assert!(starts_with_sheet(
            "// ring\n/* x */ #![enable(implicit_some)]\n Sheet (name: \"a\")"
        ));
        assert!(!starts_with_sheet("Scenario(name: \"Sheet(\")"));
        assert!(!starts_with_sheet("Sheets(x: 1)"));
    }
}
