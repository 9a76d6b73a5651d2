//! The central body's potential forces in the map's interaction kick: GR's potential and J2
//! ([`crate::physics::forces`], the same formulas the hybrid step kicks with).
//!
//! Both are `U = sum_k m_k Φ(x_k - x_0)` with `x_k - x_0` the heliocentric position, a function
//! of positions only, so they belong to `H_I` and the map stays symplectic (and the correctors
//! apply, their theory asking only that `H_I` depend on positions). Body k's inertial
//! acceleration is `g_k = -∇Φ(x_k - x_0)` and the central body's `-sum_k (m_k / m_0) g_k`, the
//! reaction that keeps the momentum; the kick then takes them to Jacobi accelerations with the
//! pairs'. J2's torque changes the bodies' angular momentum (the central body's spin takes it
//! back, as in the hybrid step): each kick's `h sum_k m_k (x_k - x_0) × g_k` is tallied per
//! system for the run's books.

use super::watch::Xyz;
use crate::physics::forces::{potential_accel, potential_accel_tangent, Forces};

/// The potential forces of the systems of a pack.
#[derive(Debug, Clone)]
pub struct CentralPotential {
    forces: Forces,
    /// Body-major, `m_k / m_0` of each body's system (slot 0 unused).
    ratio: Vec<f64>,
    /// Per system, the angular momentum the kicks gave the bodies since the last
    /// [`CentralPotential::take_torque`] (J2 only: GR's force is central).
    torque: Xyz,
    /// The tallies before the last kick ([`CentralPotential::keep_tally`]).
    kept: Xyz,
}

impl CentralPotential {
    /// The potential forces of `forces` (GR and J2; the rest is ignored) for systems of body-major
    /// masses `m` in `lanes` lanes, or `None` when both are off.
    pub fn new(forces: &Forces, m: &[f64], lanes: usize) -> Option<Self> {
        if !forces.has_potential() {
            return None;
        }
        let only = Forces {
            gr: forces.gr,
            j2r2: forces.j2r2,
            axis: forces.axis,
            ..Forces::default()
        };
        let ratio = (0..m.len()).map(|i| m[i] / m[i % lanes]).collect();
        Some(CentralPotential {
            forces: only,
            ratio,
            torque: [vec![0.0; lanes], vec![0.0; lanes], vec![0.0; lanes]],
            kept: Default::default(),
        })
    }

    /// Keep every system's torque tally as it is (allocation-free after the first call), so
    /// that [`CentralPotential::restore_tally`] can take back what the next kick adds.
    pub(super) fn keep_tally(&mut self) {
        if self.forces.has_torque() {
            self.kept.clone_from(&self.torque);
        }
    }

    /// System `s`'s torque tally back to where [`CentralPotential::keep_tally`] found it (a
    /// step whose drift failed is undone, its kick's torque with it).
    pub(super) fn restore_tally(&mut self, s: usize) {
        if self.forces.has_torque() {
            for (t, k) in self.torque.iter_mut().zip(&self.kept) {
                t[s] = k[s];
            }
        }
    }

    /// The forces it applies (GR and J2 only).
    pub fn forces(&self) -> &Forces {
        &self.forces
    }

    /// The same forces for one system of masses `m` (the central body first), as a pack of one.
    pub fn for_system(&self, m: &[f64]) -> CentralPotential {
        CentralPotential::new(&self.forces, m, 1).expect("the forces are on")
    }

    /// Add the potential forces' inertial accelerations at the inertial positions `p` to `a`
    /// (both body-major, `lanes` systems, the central body first, masses `m`), for a kick of
    /// `h`, tallying J2's torque.
    pub fn add_accelerations(&mut self, (p, a): (&Xyz, &mut Xyz), m: &[f64], lanes: usize, h: f64) {
        let n = m.len() / lanes;
        let torque = self.forces.has_torque();
        for k in 1..n {
            for s in 0..lanes {
                let i = k * lanes + s;
                let x = [p[0][i] - p[0][s], p[1][i] - p[1][s], p[2][i] - p[2][s]];
                let g = potential_accel(&self.forces, m[s], x);
                for c in 0..3 {
                    a[c][i] += g[c];
                    a[c][s] -= self.ratio[i] * g[c];
                }
                if torque {
                    let hm = h * m[i];
                    self.torque[0][s] += hm * (x[1] * g[2] - x[2] * g[1]);
                    self.torque[1][s] += hm * (x[2] * g[0] - x[0] * g[2]);
                    self.torque[2][s] += hm * (x[0] * g[1] - x[1] * g[0]);
                }
            }
        }
    }

    /// Add the change of the potential forces' inertial accelerations along the tangent
    /// positions `dp` at the inertial positions `p` to `da` (all body-major, `lanes` systems,
    /// masses `m`): body k's `J(x_k - x_0) (dp_k - dp_0)` ([`potential_accel_tangent`]) and the
    /// central body's reaction, the variational equations' term of [`Self::add_accelerations`].
    pub fn add_tangent_accelerations(
        &self,
        (p, dp): (&Xyz, &Xyz),
        da: &mut Xyz,
        m: &[f64],
        lanes: usize,
    ) {
        let n = m.len() / lanes;
        for k in 1..n {
            for s in 0..lanes {
                let i = k * lanes + s;
                let x = [0, 1, 2].map(|c| p[c][i] - p[c][s]);
                let dx = [0, 1, 2].map(|c| dp[c][i] - dp[c][s]);
                let dg = potential_accel_tangent(&self.forces, m[s], x, dx);
                for c in 0..3 {
                    da[c][i] += dg[c];
                    da[c][s] -= self.ratio[i] * dg[c];
                }
            }
        }
    }

    /// Keep the systems `keep` marks (see [`super::WhPack::retain_systems`]).
    pub(super) fn retain_systems(&mut self, keep: &[bool]) {
        super::watch::retain_lanes(&mut self.ratio, keep);
        super::watch::retain_xyz(&mut self.torque, keep);
    }

    /// The systems of `other` (`lb` of them, the same forces) after these `la` (see
    /// [`super::WhPack::append_systems`]).
    pub(super) fn append_systems(&mut self, la: usize, other: &CentralPotential, lb: usize) {
        super::watch::append_lanes(&mut self.ratio, la, &other.ratio, lb);
        super::watch::append_xyz(&mut self.torque, la, &other.torque, lb);
    }

    /// The forces and tallies as a device takes them.
    pub fn view(&self) -> super::PotentialView<'_> {
        super::PotentialView {
            forces: &self.forces,
            ratio: &self.ratio,
            torque: &self.torque,
        }
    }

    /// The tallies, for a device that takes them over.
    pub fn torque_mut(&mut self) -> &mut Xyz {
        &mut self.torque
    }

    /// Hand each system's tally of the angular momentum the kicks gave the bodies since the
    /// last call to `book` (system, tally), and start fresh tallies. Allocation-free.
    pub fn drain_torque(&mut self, mut book: impl FnMut(usize, [f64; 3])) {
        let lanes = self.torque[0].len();
        for s in 0..lanes {
            book(s, [self.torque[0][s], self.torque[1][s], self.torque[2][s]]);
        }
        self.torque.iter_mut().for_each(|t| t.fill(0.0));
    }
}
