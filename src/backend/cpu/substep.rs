//! One small system's substep without candidate pairs in one call (see
//! [`crate::backend::HybridBackend::fused_substep`]): the passes' arithmetic on the system's
//! slots directly, without the per-pass work pieces, dispatch and bookkeeping that a few bodies
//! cannot amortise.

use super::drift::sun_shift;
use super::pair_forces::{kick_slots, SMALL_MAX};
use super::CpuHybrid;
use crate::error::{Error, Result};
use crate::model::StepParams;
use crate::physics::kepler;
use crate::state::Bodies;

impl CpuHybrid {
    /// A substep of length `h` for one active system of at most [`SMALL_MAX`] bodies without
    /// candidate pairs: the opening kick `h/2` with the stored accelerations, the Sun kick
    /// `h/2`, the Kepler drift `h`, the Sun kick `h/2` and the closing kick `h/2` with fresh
    /// accelerations and the prechecker (each kick followed by the potential forces' kick when
    /// GR or J2 is on), each with the arithmetic of its pass (`kick.rs`, `drift.rs`,
    /// `forces.rs`), so the bits are those of the passes. Saving pre-drift states and the
    /// encounter search have nothing to do without candidates. `None` for any other layout.
    pub(super) fn regular_substep(&mut self, p: &StepParams, h: f64) -> Option<Result<()>> {
        let [sys] = *self.layout.systems.as_slice() else {
            return None;
        };
        let small = sys.active && sys.len <= SMALL_MAX && !self.layout.semi_active;
        if !small || !self.candidates.is_empty() {
            return None;
        }
        self.refresh_specs(p);
        let (n, m0, half) = (sys.len, self.specs[0].m0, 0.5 * h);
        // The opening kick (`kick_velocities`), and the potential forces' kick after it.
        {
            let Bodies { vx, vy, vz, .. } = &mut self.b;
            for (c, v) in [vx, vy, vz].into_iter().enumerate() {
                kick_slots(&mut v[..n], &self.far[c], &self.near[c], half);
            }
        }
        if p.forces.has_potential() {
            self.kick_potential_forces(p, half);
        }
        self.sun_kick_small(n, sys.massive, m0, half);
        let Bodies {
            x,
            y,
            z,
            vx,
            vy,
            vz,
            ..
        } = &mut self.b;
        let drifted = kepler::drift_batch(
            m0,
            h,
            &mut x[..n],
            &mut y[..n],
            &mut z[..n],
            &mut vx[..n],
            &mut vy[..n],
            &mut vz[..n],
        );
        if let Err((k, _)) = drifted {
            return Some(Err(Error::run(self.drift_failure_message(k))));
        }
        self.sun_kick_small(n, sys.massive, m0, half);
        // The closing kick (`pair_pass` of one system, with the kick fused in); the candidate
        // list is collected only when the prechecker found some.
        self.adopt_critical_radii();
        self.system_accelerations(0, true, Some(half));
        if self.candidate_count[..n].iter().any(|&c| c > 0) {
            self.collect_candidates();
        }
        if p.forces.has_potential() {
            self.kick_potential_forces(p, half);
        }
        Some(Ok(()))
    }

    /// The Sun kick of one system's `n` slots (`sun_kick_positions`), its first `pulling`
    /// bodies pulling.
    fn sun_kick_small(&mut self, n: usize, pulling: usize, m0: f64, dt: f64) {
        let d = sun_shift(dt, m0, self.b.momentum_range(0, pulling));
        let Bodies { x, y, z, .. } = &mut self.b;
        for (c, x) in [x, y, z].into_iter().enumerate() {
            x[..n].iter_mut().for_each(|x| *x += d[c]);
        }
    }
}
