//! The Wisdom-Holman map in Jacobi coordinates (Wisdom & Holman 1991; Rein & Tamayo 2015,
//! WHFast), for systems that are meant to have no close encounters: stability ensembles.
//!
//! The Hamiltonian splits into a Kepler part, each Jacobi body i >= 1 on a Kepler orbit about
//! the interior mass `eta_i = m_0 + ... + m_i` (`H_K = sum p'^2/(2 m'_i) - G m'_i eta_i / r'_i`
//! with `m'_i = m_i eta_{i-1} / eta_i`), and the interaction
//! `H_I = sum_i G m'_i eta_i / r'_i - sum_{i<j} G m_i m_j / r_ij`, which depends on positions
//! only. One step of length dt is drift-kick-drift, `D(dt/2) K(dt) D(dt/2)` (the standard
//! kernel); consecutive half drifts are taken as one, so the state kept between steps is half a
//! drift ahead of the step's end, and [`WhPack::state`] drifts a copy back. The interaction
//! kick takes every pair's acceleration in inertial coordinates, transforms them to Jacobi
//! accelerations and adds the Kepler term `G eta_i x'_i / r'_i^3` (i >= 2; for i = 1 the
//! centre-first pair and its Kepler term cancel exactly, so both are left out, as in WHFast).
//! Symplectic correctors of order 3 to 17 ([`correctors`]) map real coordinates to the map's at
//! the start and back for every output. The central body's GR potential and J2, functions of
//! the positions, join `H_I` ([`CentralPotential`]).
//!
//! A [`WhPack`] holds systems of one body count side by side: every array is body-major
//! (`[k * systems + s]`), so the loops over systems are the vector lanes, the Kepler drift of
//! every Jacobi body of every system is one `physics::kepler::drift_batch_per_body` call (one
//! system alone has its planets in the lanes), the kick's loops take lane groups of 16 systems
//! at the run-time SIMD level (one system alone of up to 16 bodies has its bodies in the lanes
//! for the pair sums, `one_system`), and each system's arithmetic is the same whatever its
//! neighbours: a system's bits do not depend on the pack it is in. [`WisdomHolman`] is a pack
//! of one.
//!
//! Units: G = 1 (AU, Msun, the code time unit 1/k days), as the rest of the engine.

pub mod correctors;
pub mod jacobi;
mod kick;
#[cfg(test)]
mod kick_tests;
mod one_system;
mod pack;
mod pairs;
mod potential;
#[cfg(test)]
mod potential_tests;
pub mod resident;
#[cfg(test)]
mod tests;
mod variational;
#[cfg(test)]
mod variational_tests;
mod watch;

pub use pack::{step_packs, MapState, WhPack};
pub use potential::CentralPotential;
pub use resident::{PackParts, PackView, PotentialView, ResidentPack, WatchView};
pub use variational::{
    megno_class, MegnoSums, Variations, VariationsParts, VariationsView, MEGNO_CHAOTIC_ABOVE,
    MEGNO_REGULAR_BELOW,
};
pub use watch::{LaneStop, PairLimits, Watch};

use crate::physics::kepler::KeplerError;

/// Positions and velocities of every body, in input order.
pub type States = (Vec<[f64; 3]>, Vec<[f64; 3]>);

/// One system as input: masses, positions and velocities of its bodies, the central body first.
pub type SystemRef<'a> = (&'a [f64], &'a [[f64; 3]], &'a [[f64; 3]]);

/// Why a Wisdom-Holman system cannot be set up or stepped.
#[derive(Debug, Clone, PartialEq)]
pub enum WhError {
    /// A corrector order other than 0, 3, 5, 7, 11 or 17.
    CorrectorOrder(u8),
    /// Fewer than two bodies, arrays of different lengths, a mass that is not positive or finite
    /// (body index), or a time step that is zero or not finite.
    Input(String),
    /// A Kepler drift failed: the system, the body and the solver's reason.
    Drift(usize, usize, KeplerError),
    /// The device that steps the pack failed (its message).
    Device(String),
}

impl std::fmt::Display for WhError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WhError::CorrectorOrder(n) => write!(
                f,
                "symplectic corrector order {n} (expected one of 0, 3, 5, 7, 11, 17)"
            ),
            WhError::Input(what) => f.write_str(what),
            WhError::Device(what) => write!(f, "device: {what}"),
            WhError::Drift(s, i, e) => {
                write!(f, "system {s}: Kepler drift of Jacobi body {i}: {e}")
            }
        }
    }
}

/// One planetary system on the Wisdom-Holman map (body 0 the central body): a [`WhPack`] of
/// one system.
#[derive(Debug, Clone)]
pub struct WisdomHolman(WhPack);

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
        WhPack::new(&[(m, pos, vel)], dt, correctors).map(WisdomHolman)
    }

    /// [`WisdomHolman::new`] with the central body's GR potential and J2 of `forces` in the
    /// kick (see [`CentralPotential`]).
    pub fn with_forces(
        (m, pos, vel): SystemRef<'_>,
        (dt, correctors): (f64, u8),
        forces: &crate::physics::forces::Forces,
    ) -> Result<Self, WhError> {
        WhPack::with_forces(&[(m, pos, vel)], (dt, correctors), forces).map(WisdomHolman)
    }

    /// Number of bodies.
    pub fn len(&self) -> usize {
        self.0.bodies()
    }

    /// Whether the system has no bodies (never: it has at least two).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.0.steps()
    }

    /// Time reached, `steps * dt`.
    pub fn time(&self) -> f64 {
        self.0.time()
    }

    /// One step (see [`WhPack::step`]). A drift that fails leaves the system where it was
    /// before the step, bit for bit, and is the error.
    pub fn step(&mut self) -> Result<(), WhError> {
        let pack = &mut self.0;
        pack.step()?;
        if !pack.behind[0] {
            return Ok(());
        }
        pack.behind[0] = false;
        pack.steps -= 1;
        match pack.stops[0].take() {
            Some(LaneStop::Failed(body, why)) => Err(WhError::Drift(0, body, why)),
            _ => unreachable!("a system without a watch stops only at a failed drift"),
        }
    }

    /// Inertial positions and velocities at [`WisdomHolman::time`] (see [`WhPack::state`]).
    pub fn state(&self) -> Result<States, WhError> {
        self.0.state(0)
    }
}
