//! GENGA's `OutCollision.dat`: with `stop.collision`, every body at the time of the collision
//! that stops the run, for an external collision code to resolve before the run is restarted
//! (GENGA's `Collisions.rst`, "Stop at Collision"; `Files.rst`).
//!
//! GENGA keeps a copy of the state at each step's start and, at a stopping collision, redoes the
//! step from it up to the collision's time. Orrery does the same with the backend's snapshot: it
//! takes one hybrid step of that length from the step's start, with the colliding pair spared
//! (it must not merge before the file is written) and the run's contact precision, writes every
//! body then, and restores the state after the step, so that the run stops as it does without
//! the file (its energy line and snapshot at the step's end, after the merger). Like GENGA, only
//! runs of one simulation write it; the copy per step is the price of the option.

use super::*;
use crate::model::StepEvents;

impl Driver {
    /// Whether the run writes `OutCollision.dat`: the hybrid step with `stop.collision` and one
    /// simulation (GENGA does not support it in its multi-simulation mode).
    fn writes_collision_state(&self) -> bool {
        let hybrid = matches!(self.method, StepMethod::Hybrid(_));
        hybrid && self.setup.cfg.stop.collision && self.setup.sims.len() == 1
    }

    /// The backend's state before a step, kept while a collision may stop the run within it.
    pub(super) fn state_before_step(&mut self) -> Option<HybridSnapshot> {
        self.writes_collision_state()
            .then(|| self.backend.snapshot())
    }

    /// If `events` of the step that ended at `step` hold a merger that stops the run, every body
    /// at its time to `OutCollision.dat`, from `before`, the state at the step's start (see the
    /// module docs).
    pub(super) fn write_collision_state(
        &mut self,
        step: u64,
        before: Option<HybridSnapshot>,
        events: &StepEvents,
    ) -> Result<()> {
        let Some(before) = before else {
            return Ok(());
        };
        let heavy = self.setup.cfg.stop.collision_minimum_mass.unwrap_or(0.0);
        let stopping = events.collisions.iter().filter(|c| c.system == 0);
        let stopping = stopping.filter(|c| c.bodies.iter().all(|b| b.m >= heavy));
        let Some(c) = stopping.min_by(|a, b| a.time_offset.total_cmp(&b.time_offset)) else {
            return Ok(());
        };
        let tau = self.tau(0);
        let until = c.time_offset.clamp(0.0, tau);
        let after = self.backend.snapshot();
        self.backend.restore(before);
        if until > 0.0 {
            let params = StepParams {
                tau: until,
                ..self.params
            };
            let backend = self.backend.as_mut();
            let mut stepper = Stepper::new(params, self.setup.cfg.order, backend, false)?;
            stepper.at_step(step - 1);
            stepper.refine_contacts(self.setup.cfg.collisions.precision);
            stepper.spare(Some([c.bodies[0].id, c.bodies[1].id]));
            stepper.step(backend, &mut StepCounts::default())?;
        }
        let binary = self.setup.cfg.output.binary_snapshots;
        let path = output::collision_state_path(&self.setup.sims[0].dir, binary);
        let t = units::code_to_years((step - 1) as f64 * tau + until);
        let written = self.write_bodies(0, &path, (t, binary));
        self.backend.restore(after);
        written
    }
}
