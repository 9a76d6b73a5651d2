//! The Wisdom-Holman map in Jacobi coordinates (Wisdom & Holman 1991; Rein & Tamayo 2015,
//! WHFast), for systems that are meant to have no close encounters: stability ensembles.
//!
//! The Hamiltonian splits into a Kepler part, each Jacobi body i >= 1 on a Kepler orbit about
//! the interior mass `eta_i = m_0 + ... + m_i` (`H_K = sum p'^2/(2 m'_i) - G m'_i eta_i / r'_i`
//! with `m'_i = m_i eta_{i-1} / eta_i`), and the interaction
//! `H_I = sum_i G m'_i eta_i / r'_i - sum_{i<j} G m_i m_j / r_ij`, which depends on positions
//! only. One step of length dt is drift-kick-drift, `D(dt/2) K(dt) D(dt/2)` (the standard
//! kernel); consecutive half drifts are taken as one, so the state kept between steps is half a
//! drift ahead of the step's end, and [`WisdomHolman::state`] drifts a copy back. The interaction
//! kick takes every pair's acceleration in inertial coordinates, transforms them to Jacobi
//! accelerations and adds the Kepler term `G eta_i x'_i / r'_i^3` (i >= 2; for i = 1 the
//! centre-first pair and its Kepler term cancel exactly, so both are left out, as in WHFast).
//! The Kepler drift is `physics::kepler`'s. Symplectic correctors of order 3 to 17
//! ([`correctors`]) map real coordinates to the map's at the start and back for every output.
//!
//! Units: G = 1 (AU, Msun, the code time unit 1/k days), as the rest of the engine.

pub mod correctors;
pub mod jacobi;
#[cfg(test)]
mod tests;

use crate::physics::kepler::{kepler_drift, KeplerError};

/// Positions and velocities of every body, in input order.
pub type States = (Vec<[f64; 3]>, Vec<[f64; 3]>);

/// One planetary system on the Wisdom-Holman map: body 0 is the central body.
#[derive(Debug, Clone)]
pub struct WisdomHolman {
    /// Masses, the central body's first.
    m: Vec<f64>,
    /// Interior masses `eta_i = m_0 + ... + m_i`.
    eta: Vec<f64>,
    /// Jacobi positions (slot 0: the centre of mass), half a drift ahead of the step's end.
    x: Vec<[f64; 3]>,
    /// Jacobi velocities (slot 0: the centre of mass's).
    v: Vec<[f64; 3]>,
    /// Scratch: inertial positions and accelerations of the kick.
    inertial: Vec<[f64; 3]>,
    acc: Vec<[f64; 3]>,
    dt: f64,
    correctors: u8,
    steps: u64,
}

/// Why a Wisdom-Holman system cannot be set up or stepped.
#[derive(Debug, Clone, PartialEq)]
pub enum WhError {
    /// A corrector order other than 0, 3, 5, 7, 11 or 17.
    CorrectorOrder(u8),
    /// Fewer than two bodies, arrays of different lengths, a mass that is not positive or finite
    /// (body index), or a time step that is zero or not finite.
    Input(String),
    /// A Kepler drift failed (the body index, the solver's reason).
    Drift(usize, KeplerError),
}

impl std::fmt::Display for WhError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WhError::CorrectorOrder(n) => write!(
                f,
                "symplectic corrector order {n} (expected one of 0, 3, 5, 7, 11, 17)"
            ),
            WhError::Input(what) => f.write_str(what),
            WhError::Drift(i, e) => write!(f, "Kepler drift of Jacobi body {i}: {e}"),
        }
    }
}

impl WisdomHolman {
    /// A system of masses `m` at inertial (or heliocentric) positions `pos` and velocities
    /// `vel` at time 0, to be stepped with `dt` and corrector order `correctors` (0 for none).
    pub fn new(
        m: &[f64],
        pos: &[[f64; 3]],
        vel: &[[f64; 3]],
        dt: f64,
        correctors: u8,
    ) -> Result<Self, WhError> {
        correctors::coefficients(correctors).ok_or(WhError::CorrectorOrder(correctors))?;
        let n = m.len();
        if n < 2 || pos.len() != n || vel.len() != n {
            return Err(WhError::Input(format!(
                "{n} masses, {} positions and {} velocities (expected at least 2 bodies, one of \
                 each per body)",
                pos.len(),
                vel.len()
            )));
        }
        if let Some(i) = m.iter().position(|&mi| !(mi > 0.0 && mi.is_finite())) {
            return Err(WhError::Input(format!(
                "body {i}: mass {} (expected a positive finite number)",
                m[i]
            )));
        }
        if !(dt != 0.0 && dt.is_finite()) {
            return Err(WhError::Input(format!(
                "time step {dt} (expected a finite non-zero number)"
            )));
        }
        let eta = jacobi::interior_masses(m);
        let mut x = vec![[0.0; 3]; n];
        let mut v = vec![[0.0; 3]; n];
        jacobi::to_jacobi(m, &eta, pos, &mut x);
        jacobi::to_jacobi(m, &eta, vel, &mut v);
        let mut s = WisdomHolman {
            m: m.to_vec(),
            eta,
            x,
            v,
            inertial: vec![[0.0; 3]; n],
            acc: vec![[0.0; 3]; n],
            dt,
            correctors,
            steps: 0,
        };
        s.correct(1.0)?;
        s.drift(0.5 * dt)?;
        Ok(s)
    }

    /// Number of bodies.
    pub fn len(&self) -> usize {
        self.m.len()
    }

    /// Whether the system has no bodies (never: it has at least two).
    pub fn is_empty(&self) -> bool {
        self.m.is_empty()
    }

    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Time reached, `steps * dt`.
    pub fn time(&self) -> f64 {
        self.steps as f64 * self.dt
    }

    /// One step: the kick `K(dt)` and the drift `D(dt)` that holds the next step's first half.
    /// Allocation-free. On a failed drift the state is partly drifted and must be discarded.
    pub fn step(&mut self) -> Result<(), WhError> {
        self.kick(self.dt);
        self.drift(self.dt)?;
        self.steps += 1;
        Ok(())
    }

    /// Inertial positions and velocities at [`WisdomHolman::time`] (the same frame as the
    /// input): a copy drifted back half a step, with the corrector undone. Allocates; for outputs.
    pub fn state(&self) -> Result<States, WhError> {
        let mut copy = self.clone();
        copy.drift(-0.5 * self.dt)?;
        copy.correct(-1.0)?;
        let n = self.len();
        let (mut pos, mut vel) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        jacobi::from_jacobi(&self.m, &self.eta, &copy.x, &mut pos);
        jacobi::from_jacobi(&self.m, &self.eta, &copy.v, &mut vel);
        Ok((pos, vel))
    }

    /// The Kepler drift `D(h)`: each Jacobi body about its interior mass, the centre of mass in
    /// a straight line.
    fn drift(&mut self, h: f64) -> Result<(), WhError> {
        for k in 0..3 {
            self.x[0][k] += h * self.v[0][k];
        }
        for i in 1..self.len() {
            kepler_drift(self.eta[i], h, &mut self.x[i], &mut self.v[i])
                .map_err(|e| WhError::Drift(i, e))?;
        }
        Ok(())
    }

    /// The interaction kick `K(h)`: the Jacobi velocities change by `h` times the Jacobi
    /// accelerations of `H_I`.
    fn kick(&mut self, h: f64) {
        let n = self.len();
        jacobi::from_jacobi(&self.m, &self.eta, &self.x, &mut self.inertial);
        for a in self.acc.iter_mut() {
            *a = [0.0; 3];
        }
        for i in 0..n {
            for j in (i + 1)..n {
                if i == 0 && j == 1 {
                    continue;
                }
                let d = [
                    self.inertial[j][0] - self.inertial[i][0],
                    self.inertial[j][1] - self.inertial[i][1],
                    self.inertial[j][2] - self.inertial[i][2],
                ];
                let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                let inv_r3 = 1.0 / (r2 * r2.sqrt());
                let (fi, fj) = (self.m[j] * inv_r3, self.m[i] * inv_r3);
                for k in 0..3 {
                    self.acc[i][k] += fi * d[k];
                    self.acc[j][k] -= fj * d[k];
                }
            }
        }
        // The Jacobi accelerations, written into `inertial` (no longer needed) as scratch.
        jacobi::to_jacobi(&self.m, &self.eta, &self.acc, &mut self.inertial);
        for i in 1..n {
            let mut a = self.inertial[i];
            if i >= 2 {
                let xi = self.x[i];
                let r2 = xi[0] * xi[0] + xi[1] * xi[1] + xi[2] * xi[2];
                let kepler = self.eta[i] / (r2 * r2.sqrt());
                for k in 0..3 {
                    a[k] += kepler * xi[k];
                }
            }
            for k in 0..3 {
                self.v[i][k] += h * a[k];
            }
        }
    }

    /// The corrector `C` (`sign` +1: real to map coordinates) or `C^-1` (-1), as
    /// `Z(a, b) = D(a) K(-b) D(-2a) K(b) D(a)` in [`correctors::z_sequence`]'s order.
    fn correct(&mut self, sign: f64) -> Result<(), WhError> {
        for (a, b) in correctors::z_sequence(self.correctors, self.dt, sign) {
            self.drift(a)?;
            self.kick(-b);
            self.drift(-2.0 * a)?;
            self.kick(b);
            self.drift(a)?;
        }
        Ok(())
    }
}
