//! Counters and pass times of the steps taken.

use crate::model::EncounterStats;

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
    /// Kicks of the forces beyond point-mass gravity (GR, J2, radiation).
    pub forces: f64,
}

impl PassTimes {
    /// Total of all passes.
    pub fn total(&self) -> f64 {
        self.kick + self.drift + self.encounter + self.bulirsch_stoer + self.ejection + self.forces
    }

    /// Every time multiplied by `f`.
    pub fn scaled(&self, f: f64) -> PassTimes {
        PassTimes {
            kick: f * self.kick,
            drift: f * self.drift,
            encounter: f * self.encounter,
            bulirsch_stoer: f * self.bulirsch_stoer,
            ejection: f * self.ejection,
            forces: f * self.forces,
        }
    }

    /// Add another set of times.
    pub fn add(&mut self, o: &PassTimes) {
        self.kick += o.kick;
        self.drift += o.drift;
        self.encounter += o.encounter;
        self.bulirsch_stoer += o.bulirsch_stoer;
        self.ejection += o.ejection;
        self.forces += o.forces;
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
    /// Time per pass, summed over the timed steps.
    pub times: PassTimes,
    /// Steps whose passes were timed (see [`crate::hybrid::stepper::Stepper::step`]).
    pub timed_steps: u64,
    /// Substeps a backend ran fused (see [`crate::backend::HybridBackend::fused_substep`]).
    pub fused_substeps: u64,
}

impl StepCounts {
    /// Add the counters of another part or step.
    pub fn add(&mut self, o: &StepCounts) {
        self.candidates += o.candidates;
        self.encounters += o.encounters;
        self.groups.add(&o.groups);
        self.times.add(&o.times);
        self.timed_steps += o.timed_steps;
        self.fused_substeps += o.fused_substeps;
    }
}
