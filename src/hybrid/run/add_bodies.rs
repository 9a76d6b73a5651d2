//! Bodies added to a running in-memory simulation (Python's `Simulation.add` between
//! integrations, as REBOUND users add particles).

use super::*;

impl HybridRun {
    /// Add `new` bodies (heliocentric, with their ids) to the one system of an in-memory run at
    /// the step reached, as a REBOUND user adds particles between integrations. The state is
    /// rebuilt from every body's heliocentric state, as a fresh start builds it (democratic
    /// velocities about the new barycentre, massive bodies first; the next step computes the
    /// accelerations), keeping the central body's spin. E0 and L0 move by the change of E and L
    /// the new bodies bring, so `E + U - E0` (the energy error) carries on unchanged. A stopped
    /// simulation steps on, its stop forgotten.
    pub fn add_bodies(&mut self, new: &[Body]) -> Result<()> {
        let setup = Arc::clone(&self.driver.setup);
        if !setup.in_memory || setup.sims.len() != 1 {
            return Err(Error::run(
                "bodies are added during a run only to one in-memory simulation",
            ));
        }
        if new.is_empty() {
            return Ok(());
        }
        if self.driver.samples.is_some() {
            return Err(Error::input(
                Location::default().field("samples"),
                "a sampled simulation keeps the bodies it started with; expected every body \
                 added before the first integration",
            ));
        }
        let mut all = self.bodies(0)?;
        let before = self.driver.energies(true)[0];
        let central_spin = self.driver.backend.layout().systems[0].central_spin;
        all.extend_from_slice(new);
        let mut state = RunSetup::single(&setup.cfg, &all);
        state.semi_active = setup.semi_active;
        let (bodies, mut layout) = initial_state(&state);
        layout.systems[0].central_spin = central_spin;
        self.driver.backend.restore(HybridSnapshot {
            bodies,
            layout,
            ..Default::default()
        });
        self.driver.forget_step_starts();
        let start = start::Start {
            step: self.step,
            sims: Vec::new(),
            fresh: true,
            first_outputs: false,
            warnings: Vec::new(),
            map: Vec::new(),
            samples: Vec::new(),
        };
        let d = &mut self.driver;
        // The undone corrector's share of J2's torque joins the books: the new map starts from
        // the real coordinates.
        d.sims[0].book.l_lost = d.l_lost(0);
        d.method = StepMethod::new(&setup, d.params, d.backend.as_mut(), &start)?;
        let after = self.driver.energies(true)[0];
        let book = &mut self.driver.sims[0].book;
        book.e0 += (after.kinetic + after.potential) - (before.kinetic + before.potential);
        for c in 0..3 {
            book.l0[c] += after.angular_momentum[c] - before.angular_momentum[c];
        }
        self.driver.sims[0].stopped = false;
        self.driver.sims[0].book.stop = None;
        self.stopped = None;
        self.stop_kind = None;
        Ok(())
    }
}
