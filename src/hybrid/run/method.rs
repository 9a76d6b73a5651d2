//! The integrator a run steps with: GENGA's hybrid step, or the Wisdom-Holman map
//! ([`crate::hybrid::wisdom_holman`]), whose bodies reach the backend only when something reads
//! them, and whose systems stop at their first event (a body leaving the truncation radii, an
//! encounter or a collision of the run's `stop` settings).

use super::*;
use crate::hybrid::wisdom_holman::{StopLimits, SystemStop, WhStepper};
use crate::io::checkpoint::MapStates;
use crate::io::checkpoint::EVENT_ENCOUNTER;
use crate::model::StepEvents;
use crate::physics::wisdom_holman::{LaneStop, PairLimits};

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
                let stop = setup.cfg.stop;
                let limits = StopLimits {
                    pairs: PairLimits {
                        hill_radii: stop.hill_radii.unwrap_or(0.0),
                        min_distance: stop.min_distance.unwrap_or(0.0),
                        collision: stop.collision,
                    },
                    central_radius: setup.cfg.central_radius,
                };
                let wh = WhStepper::new(backend, &params, (correctors, limits), start.step, saved)?;
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

    /// Stop the systems that met an event on the map at `step` (see [`SystemStop`]): a body
    /// beyond a truncation radius, or into the central body, goes to the Ejections file with
    /// GENGA's case (-3, -2, -1), two touching bodies to the Collisions file, an encounter is
    /// the system's first event; the system's energy line and snapshot are written and it
    /// leaves the packs. Returns how many systems stopped and what stopped the first one.
    pub(super) fn stop_on_map(
        &mut self,
        step: u64,
        stops: &[SystemStop],
    ) -> Result<(usize, Option<(String, &'static str)>)> {
        self.sync()?;
        let t = self.time_years(step);
        let (mut count, mut first) = (0, None);
        for stop in stops {
            let s = stop.system;
            if self.sims[s].stopped {
                continue;
            }
            let bodies = self.bodies_now(s);
            // The map numbers the central body 0 and the backend's body k as k + 1.
            let id = |k: usize| bodies[k - 1].id;
            let (what, kind) = match stop.event {
                LaneStop::Inner(k) | LaneStop::Outer(k) => {
                    let case = match stop.event {
                        LaneStop::Inner(_) => -2,
                        _ => -3,
                    };
                    self.record_ejection_lines(s, &[(t, bodies[k - 1], case)])?;
                    let kind = if case == -3 { "escape" } else { "ejection" };
                    let why = format!("body {} left the truncation radii (case {case})", id(k));
                    (why, kind)
                }
                LaneStop::Collision(0, k, d) => {
                    self.record_ejection_lines(s, &[(t, bodies[k - 1], -1)])?;
                    let why = format!(
                        "body {} touched the central body (distance {d:e} AU)",
                        id(k)
                    );
                    (why, "ejection")
                }
                LaneStop::Collision(a, b, d) => {
                    self.record_collision_line(s, t, [bodies[a - 1], bodies[b - 1]])?;
                    let why = format!("bodies {} and {} touched (distance {d:e} AU)", id(a), id(b));
                    (why, "collision")
                }
                LaneStop::Encounter(a, b, d) => {
                    self.sims[s].book.note_event(t, EVENT_ENCOUNTER);
                    let why = format!(
                        "bodies {} and {} came within {d:e} AU of each other (the stop's \
                         encounter distance)",
                        id(a),
                        id(b)
                    );
                    (why, "encounter")
                }
            };
            first.get_or_insert_with(|| (format!("{what} at step {step}"), kind));
            self.stop_system_at(s, step)?;
            count += 1;
        }
        if let StepMethod::WisdomHolman(wh) = &mut self.method {
            wh.repack(self.backend.as_mut(), &self.params)?;
        }
        Ok((count, first))
    }
}
