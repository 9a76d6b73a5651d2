//! The integrator a run steps with: GENGA's hybrid step, or the Wisdom-Holman map
//! ([`crate::hybrid::wisdom_holman`]), whose bodies reach the backend only when something reads
//! them, and whose systems stop at their first event (a body leaving the truncation radii, an
//! encounter or a collision of the run's `stop` settings).

use super::*;
use crate::hybrid::wisdom_holman::{StopLimits, SystemStop, WhStepper};
use crate::io::checkpoint::MapStates;
use crate::model::StepEvents;
use crate::physics::encounter::PairLimits;

/// The run's integrator.
pub(super) enum StepMethod {
    Hybrid(Box<Stepper>),
    WisdomHolman(Box<WhStepper>),
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
        let stop = setup.cfg.stop;
        let pairs = PairLimits {
            hill_radii: stop.hill_radii.unwrap_or(0.0),
            min_distance: stop.min_distance.unwrap_or(0.0),
            collision: stop.collision,
        };
        Ok(match setup.cfg.integrator.wisdom_holman() {
            None => {
                let mut stepper = Stepper::new(params, setup.cfg.order, backend, start.fresh)?;
                stepper.at_step(start.step);
                stepper.watch_encounters(pairs);
                stepper.refine_contacts(setup.cfg.collisions.precision);
                StepMethod::Hybrid(Box::new(stepper))
            }
            Some(correctors) => {
                let saved = (!start.fresh).then_some(&start.map);
                let limits = StopLimits {
                    pairs,
                    central_radius: setup.cfg.central_radius,
                };
                let taus = setup
                    .sims
                    .iter()
                    .map(|s| crate::units::days_to_code(s.time_step_days))
                    .collect();
                let chaos = setup.cfg.chaos;
                // Seeds by the system's index in the whole ensemble, whatever the shard.
                let seeds = setup.sims.iter().map(|s| chaos.seed_of(s.index)).collect();
                let wh = WhStepper::new(
                    backend,
                    (&params, taus),
                    (correctors, limits),
                    (chaos, seeds),
                    start.step,
                    saved,
                )?;
                StepMethod::WisdomHolman(Box::new(wh))
            }
        })
    }

    /// Take the map's stopped systems out of its packs (nothing for the hybrid step).
    pub(super) fn repack(&mut self, backend: &mut dyn HybridBackend) -> Result<()> {
        match self {
            StepMethod::Hybrid(_) => Ok(()),
            StepMethod::WisdomHolman(wh) => wh.repack(backend),
        }
    }

    /// The map states a checkpoint keeps (none for the hybrid step).
    pub(super) fn map_states(&mut self) -> Result<MapStates> {
        match self {
            StepMethod::Hybrid(_) => Ok(Vec::new()),
            StepMethod::WisdomHolman(wh) => wh.map_states(),
        }
    }
}

impl Driver {
    /// One step of every running system: the events of the hybrid step, or the events that
    /// end systems on the map.
    pub(super) fn step_once(
        &mut self,
        counts: &mut StepCounts,
    ) -> Result<(StepEvents, Vec<SystemStop>)> {
        match &mut self.method {
            StepMethod::Hybrid(stepper) => {
                Ok((stepper.step(self.backend.as_mut(), counts)?, Vec::new()))
            }
            StepMethod::WisdomHolman(wh) => {
                let stops = wh.step(counts)?;
                // J2's torque, booked every step as the hybrid step books it (`book_work`); only
                // J2 tallies one, so the packs are not walked without it.
                if self.params.forces.has_torque() {
                    let sims = &mut self.sims;
                    wh.book_torque(|s, t| (0..3).for_each(|c| sims[s].book.l_lost[c] -= t[c]))?;
                }
                Ok((StepEvents::default(), stops))
            }
        }
    }

    /// Tell the integrator the next step at which the loop reads the systems (the map's packs
    /// may step on in blocks up to it; the hybrid step takes no notice).
    pub(super) fn read_at(&mut self, step: u64) {
        if let StepMethod::WisdomHolman(wh) = &mut self.method {
            wh.read_at(step);
        }
    }

    /// Whether the integrator is at the step the loop has seen, with no block under way (always
    /// for the hybrid step): an interrupt or a checkpoint asked for by a signal waits for it.
    pub(super) fn caught_up(&self) -> bool {
        match &self.method {
            StepMethod::Hybrid(_) => true,
            StepMethod::WisdomHolman(wh) => wh.caught_up(),
        }
    }

    /// The angular momentum system `s` lost (the books'), as the state the backend holds sees
    /// it: on the map with J2, less the undone corrector's share.
    pub(super) fn l_lost(&self, s: usize) -> [f64; 3] {
        let lost = self.sims[s].book.l_lost;
        let share = match &self.method {
            StepMethod::Hybrid(_) => return lost,
            StepMethod::WisdomHolman(wh) => wh.corrector_share(s),
        };
        [lost[0] - share[0], lost[1] - share[1], lost[2] - share[2]]
    }

    /// [`Driver::sync`] of the systems `systems` only; those whose state the map cannot give
    /// back (see [`crate::hybrid::wisdom_holman::WhStepper::sync_systems`]) listed.
    pub(super) fn sync_systems(&mut self, systems: &[usize]) -> Result<Vec<usize>> {
        match &mut self.method {
            StepMethod::Hybrid(_) => Ok(Vec::new()),
            StepMethod::WisdomHolman(wh) => wh.sync_systems(self.backend.as_mut(), systems),
        }
    }

    /// With `chaos: (megno: true)` on the map, every system's MEGNO and maximal Lyapunov
    /// exponent (per year, REBOUND's convention: the slope of MEGNO), `None` for a system that
    /// never ran on the map; `None` otherwise.
    pub(super) fn chaos(&self) -> Option<Vec<Option<(f64, f64)>>> {
        let StepMethod::WisdomHolman(wh) = &self.method else {
            return None;
        };
        let per_year = units::years_to_code(1.0);
        let sums = wh.megno(self.sims.len())?;
        Some(
            sums.into_iter()
                .map(|m| m.map(|m| (m.megno(), m.lyapunov() * per_year)))
                .collect(),
        )
    }

    /// Whether the Wisdom-Holman map steps on the backend's device.
    pub(super) fn map_on_device(&self) -> bool {
        matches!(&self.method, StepMethod::WisdomHolman(wh) if wh.on_device())
    }

    /// With MEGNO on a device: bring the map's state and variations to the host packs, where
    /// [`Driver::chaos`] reads them (at the end of each piece of a run).
    pub(super) fn fetch_map(&mut self) -> Result<()> {
        match &mut self.method {
            StepMethod::WisdomHolman(wh) if wh.varies() => wh.fetch(),
            _ => Ok(()),
        }
    }

    /// Bring the backend's bodies to the integrator's state (only the map's lag behind).
    pub(super) fn sync(&mut self) -> Result<()> {
        match &mut self.method {
            StepMethod::Hybrid(_) => Ok(()),
            StepMethod::WisdomHolman(wh) => wh.sync(self.backend.as_mut()),
        }
    }
}
