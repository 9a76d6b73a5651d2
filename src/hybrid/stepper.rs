//! The GENGA hybrid step (paper section 2.2), written once as an ordered list of backend passes.
//!
//! One step of length tau, for each substep weight w of the Yoshida composition (order 2: w = 1):
//! opening kick w tau/2 (stored accelerations, candidates refreshed with the new critical radii),
//! Sun kick w tau/2, Kepler drift w tau, close-encounter search, Bulirsch-Stoer integration of the
//! encounter groups with mergers, Sun kick w tau/2, closing kick w tau/2 with fresh accelerations
//! and the prechecker. Critical radii are computed once per full step, so the whole step
//! integrates one Hamiltonian split; as in GENGA (section 2.3) the encounter machinery runs in
//! every substep. Ejections are applied after the step.

use crate::backend::{Collision, Ejection, EncounterStats, HybridBackend, StepParams};
use crate::error::{Error, Result};
use crate::hybrid::yoshida::substep_weights;
use crate::physics::bulirsch_stoer::BsOptions;
use std::time::Instant;

/// Wall time spent in each kind of pass (seconds).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PassTimes {
    /// Critical radii, acceleration passes and kicks.
    pub kick: f64,
    /// Sun kicks and Kepler drifts.
    pub drift: f64,
    /// Encounter search.
    pub encounter: f64,
    /// Grouping, Bulirsch-Stoer and mergers.
    pub bulirsch_stoer: f64,
    /// Ejection pass.
    pub ejection: f64,
}

impl PassTimes {
    /// Total of all passes.
    pub fn total(&self) -> f64 {
        self.kick + self.drift + self.encounter + self.bulirsch_stoer + self.ejection
    }

    /// Every time multiplied by `f`.
    pub fn scaled(&self, f: f64) -> PassTimes {
        PassTimes {
            kick: f * self.kick,
            drift: f * self.drift,
            encounter: f * self.encounter,
            bulirsch_stoer: f * self.bulirsch_stoer,
            ejection: f * self.ejection,
        }
    }

    /// Add another set of times.
    pub fn add(&mut self, o: &PassTimes) {
        self.kick += o.kick;
        self.drift += o.drift;
        self.encounter += o.encounter;
        self.bulirsch_stoer += o.bulirsch_stoer;
        self.ejection += o.ejection;
    }
}

/// Counters of the steps taken.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StepCounts {
    /// Prechecker candidate pairs (summed over substeps).
    pub candidates: u64,
    /// Confirmed close encounters (summed over substeps).
    pub encounters: u64,
    /// Groups, Bulirsch-Stoer substeps and mergers.
    pub groups: EncounterStats,
    /// Time per pass.
    pub times: PassTimes,
}

impl StepCounts {
    /// Add the counters of another part or step.
    pub fn add(&mut self, o: &StepCounts) {
        self.candidates += o.candidates;
        self.encounters += o.encounters;
        self.groups.add(&o.groups);
        self.times.add(&o.times);
    }
}

/// What happened in one step besides the motion.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepEvents {
    /// Mergers, with `time_offset` counted from the start of the step.
    pub collisions: Vec<Collision>,
    /// Bodies removed beyond the truncation radii.
    pub ejections: Vec<Ejection>,
}

/// Drives a [`HybridBackend`] through hybrid steps.
pub struct Stepper {
    params: StepParams,
    weights: &'static [f64],
    bs: BsOptions,
}

fn timed<T>(slot: &mut f64, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    *slot += start.elapsed().as_secs_f64();
    out
}

impl Stepper {
    /// A stepper for `order` (2, 4 or 6). The backend must already hold the bodies; `fresh` is
    /// true for a new run (accelerations are computed), false after restoring a checkpoint that
    /// carries the kick state.
    pub fn new(
        params: StepParams,
        order: u8,
        backend: &mut dyn HybridBackend,
        fresh: bool,
    ) -> Result<Self> {
        let weights = substep_weights(order)
            .ok_or_else(|| Error::run(format!("integrator order {order} (expected 2, 4 or 6)")))?;
        if fresh {
            backend.critical_radii(&params);
            backend.accelerations();
        }
        Ok(Stepper {
            params,
            weights,
            bs: BsOptions::default(),
        })
    }

    /// The step parameters.
    pub fn params(&self) -> &StepParams {
        &self.params
    }

    /// Advance one full step; counters and pass times are added to `counts`. Backends holding
    /// many independent systems run the whole step part by part (see
    /// [`HybridBackend::step_parts`]).
    pub fn step(
        &mut self,
        backend: &mut dyn HybridBackend,
        counts: &mut StepCounts,
    ) -> Result<StepEvents> {
        let this = &*self;
        backend.step_parts(&|part, counts| this.step_part(part, counts), counts)
    }

    /// The passes of one full step on `backend` (or one part of it).
    fn step_part(
        &self,
        backend: &mut dyn HybridBackend,
        counts: &mut StepCounts,
    ) -> Result<StepEvents> {
        let p = self.params;
        let t = &mut counts.times;
        let mut events = StepEvents::default();
        timed(&mut t.kick, || {
            backend.critical_radii(&p);
            backend.refresh_accelerations();
        });
        let mut offset = 0.0;
        for &w in self.weights {
            let h = w * p.tau;
            timed(&mut t.kick, || backend.kick(0.5 * h));
            timed(&mut t.drift, || {
                backend.sun_kick(&p, 0.5 * h);
                backend.save_candidate_states();
                backend.drift(&p, h)
            })?;
            let found = timed(&mut t.encounter, || backend.encounter_search(h));
            counts.encounters += found as u64;
            if found > 0 {
                let merged = timed(&mut t.bulirsch_stoer, || {
                    backend.encounter_groups(&p, h, &self.bs, &mut counts.groups)
                })?;
                events.collisions.extend(merged.into_iter().map(|mut c| {
                    c.time_offset += offset;
                    c
                }));
            }
            timed(&mut t.drift, || backend.sun_kick(&p, 0.5 * h));
            counts.candidates += timed(&mut t.kick, || backend.closing_kick(0.5 * h)) as u64;
            offset += h;
        }
        events.ejections = timed(&mut t.ejection, || backend.ejections(&p));
        Ok(events)
    }
}
