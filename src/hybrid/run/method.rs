//! The integrator a run steps with: GENGA's hybrid step, or the Wisdom-Holman map
//! ([`crate::hybrid::wisdom_holman`]), whose bodies reach the backend only when something reads
//! them, and whose systems stop when a body leaves their truncation radii.

use super::*;
use crate::hybrid::wisdom_holman::{Escape, WhStepper};
use crate::io::checkpoint::MapStates;
use crate::model::StepEvents;

/// The run's integrator.
pub(super) enum StepMethod {
    Hybrid(Box<Stepper>),
    WisdomHolman(WhStepper),
}

impl StepMethod {
    /// The integrator `setup` asks for, on `backend` (filled by `start`), from the step `start`
    /// begins at; a resumed Wisdom-Holman run continues from the checkpoint's map states.
    pub(super) fn new(
        setup: &RunSetup,
        params: StepParams,
        backend: &mut dyn HybridBackend,
        start: &Start,
    ) -> Result<Self> {
        Ok(match setup.cfg.integrator.wisdom_holman() {
            None => {
                let mut stepper = Stepper::new(params, setup.cfg.order, backend, start.fresh)?;
                stepper.at_step(start.step);
                StepMethod::Hybrid(Box::new(stepper))
            }
            Some(correctors) => {
                let saved = (!start.fresh).then_some(&start.map);
                let wh = WhStepper::new(backend, &params, correctors, start.step, saved)?;
                StepMethod::WisdomHolman(wh)
            }
        })
    }

    /// The map states a checkpoint keeps (none for the hybrid step).
    pub(super) fn map_states(&self) -> MapStates {
        match self {
            StepMethod::Hybrid(_) => Vec::new(),
            StepMethod::WisdomHolman(wh) => wh.map_states(),
        }
    }
}

impl Driver {
    /// One step of every running system: the events of the hybrid step, or the bodies that
    /// left their truncation radii on the map.
    pub(super) fn step_once(
        &mut self,
        counts: &mut StepCounts,
    ) -> Result<(StepEvents, Vec<Escape>)> {
        match &mut self.method {
            StepMethod::Hybrid(stepper) => {
                Ok((stepper.step(self.backend.as_mut(), counts)?, Vec::new()))
            }
            StepMethod::WisdomHolman(wh) => Ok((StepEvents::default(), wh.step(counts)?)),
        }
    }

    /// Bring the backend's bodies to the integrator's state (only the map's lag behind).
    pub(super) fn sync(&mut self) -> Result<()> {
        match &mut self.method {
            StepMethod::Hybrid(_) => Ok(()),
            StepMethod::WisdomHolman(wh) => wh.sync(self.backend.as_mut()),
        }
    }

    /// Stop the systems whose bodies left their truncation radii on the map at `step`: each
    /// body's heliocentric state at the step's end goes to the Ejections file with its case,
    /// the system's energy line and snapshot are written, and the system leaves the packs.
    /// Returns how many systems stopped.
    pub(super) fn stop_escaped(&mut self, step: u64, escapes: &[Escape]) -> Result<usize> {
        self.sync()?;
        let t = self.time_years(step);
        let mut stopped = 0;
        for e in escapes {
            let s = e.system;
            if self.sims[s].stopped {
                continue;
            }
            let body = self.bodies_now(s)[e.body];
            self.record_ejection_lines(s, &[(t, body, e.case)])?;
            let energies = self.energies(true);
            self.write_energy(s, step, &energies[s])?;
            self.write_snapshot(s, step)?;
            self.backend.stop_system(s);
            self.sims[s].stopped = true;
            stopped += 1;
        }
        if let StepMethod::WisdomHolman(wh) = &mut self.method {
            wh.repack(self.backend.as_mut(), &self.params)?;
        }
        Ok(stopped)
    }
}
