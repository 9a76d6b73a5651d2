//! What happens in a step besides the motion: mergers, ejections and encounter counters.

use crate::state::Body;

/// A perfect merger found while integrating an encounter group.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Collision {
    /// The system it happened in.
    pub system: usize,
    /// Time of the recorded states from the start of the drift (code units).
    pub time_offset: f64,
    /// Both bodies just before contact (start of the Bulirsch-Stoer substep): heliocentric
    /// velocities, and positions as the drift holds them, which include the whole first half
    /// Sun kick; the stepper subtracts the part still pending at `time_offset` (see
    /// `sun_velocity`), so the bodies reach the driver as true heliocentric states.
    pub bodies: [Body; 2],
    /// The velocity of the Sun kick during this drift, P / M0 (P the momentum of the bodies that
    /// pull): positions in the drift are ahead of heliocentric ones by
    /// `sun_velocity * (h/2 - time_offset)` (h the drift's length).
    pub sun_velocity: [f64; 3],
    /// Its rate of change at the end of the drift, d(P/M0)/dt = -sum m x / r^3 over the bodies
    /// that pull: the velocities are made heliocentric with P/M0 at the end of the drift, and the
    /// stepper takes that back to the record's time with this rate.
    pub sun_velocity_rate: [f64; 3],
    /// Id of the surviving body.
    pub survivor: u64,
    /// Energy removed by the merger (added to U).
    pub u: f64,
    /// A semi-active small body removed by the impact, in democratic coordinates at contact:
    /// its energy and angular momentum leave the system (booked like an ejection).
    pub lost: Option<Body>,
}

/// Number of group-size classes in [`EncounterStats::group_sizes`]: 2, 3-4, 5-8, ..., 65-128, >128.
pub const GROUP_CLASSES: usize = 8;

/// Counters of the close-encounter passes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct EncounterStats {
    /// Encounter groups integrated.
    pub groups: u64,
    /// Groups per size class (see [`GROUP_CLASSES`]).
    pub group_sizes: [u64; GROUP_CLASSES],
    /// The largest group seen.
    pub largest_group: u64,
    /// Accepted and rejected Bulirsch-Stoer substeps.
    pub bs_substeps: u64,
    pub bs_rejected: u64,
    /// Mergers.
    pub collisions: u64,
    /// Groups formed by the recursive sub-steps below the top level.
    pub levels: crate::physics::recursion::LevelStats,
}

impl EncounterStats {
    /// Count one group of `size` members.
    pub fn add_group(&mut self, size: usize) {
        let class = (usize::BITS - (size.max(2) - 1).leading_zeros()) as usize - 1;
        self.group_sizes[class.min(GROUP_CLASSES - 1)] += 1;
        self.groups += 1;
        self.largest_group = self.largest_group.max(size as u64);
    }

    /// Add another set of counters.
    pub fn add(&mut self, o: &EncounterStats) {
        self.groups += o.groups;
        for c in 0..GROUP_CLASSES {
            self.group_sizes[c] += o.group_sizes[c];
        }
        self.largest_group = self.largest_group.max(o.largest_group);
        self.bs_substeps += o.bs_substeps;
        self.bs_rejected += o.bs_rejected;
        self.collisions += o.collisions;
        self.levels.add(&o.levels);
    }
}

/// A body removed by the ejection pass with its ejection case (-3 outer, -2 inner).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ejection {
    /// The system it left.
    pub system: usize,
    /// Heliocentric position and velocity at the event (as written to the ejections file): at
    /// the step's end, or at the perihelion passage inside the inner truncation radius that
    /// removed it.
    pub body: Body,
    /// How long before the step's end the event happened (code units): 0 for a body outside a
    /// truncation radius at the step's end, the time since its perihelion passage for one that
    /// passed inside the inner radius within the step.
    pub before_end: f64,
    /// Democratic heliocentric state at removal (for the energy bookkeeping).
    pub democratic: Body,
    /// True for a massive body, false for a test particle.
    pub massive: bool,
    pub case: i32,
}

/// Two bodies of the hybrid step that came closer than the `stop` settings' encounter
/// distance (found by the encounter search over a drift, [`crate::physics::encounter::PairEnds`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EncounterEvent {
    /// The system of the pair.
    pub system: usize,
    /// Both bodies' ids.
    pub ids: [u64; 2],
    /// When the pair first crossed its encounter distance, from the start of the step.
    pub time_offset: f64,
    /// Their separation then (AU).
    pub distance: f64,
}

/// What happened in one step besides the motion.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepEvents {
    /// Mergers, with `time_offset` counted from the start of the step.
    pub collisions: Vec<Collision>,
    /// Bodies removed beyond the truncation radii.
    pub ejections: Vec<Ejection>,
    /// Pairs within the stop's encounter distance (only when the run stops at encounters).
    pub encounters: Vec<EncounterEvent>,
}

impl StepEvents {
    /// Count the systems of the events from `first` on (the events of a part of the systems).
    pub fn shift_systems(&mut self, first: usize) {
        self.collisions.iter_mut().for_each(|c| c.system += first);
        self.ejections.iter_mut().for_each(|e| e.system += first);
        self.encounters.iter_mut().for_each(|e| e.system += first);
    }

    /// Whether nothing happened.
    pub fn is_empty(&self) -> bool {
        self.collisions.is_empty() && self.ejections.is_empty() && self.encounters.is_empty()
    }
}

/// Why a system stopped before the run's end (the reasons of the stability literature, e.g.
/// SPOCK, Tamayo et al. 2020, and GENGA's `Stop at` keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// Two bodies came closer than the `stop` settings' encounter distance.
    Encounter,
    /// Two bodies touched (`stop.collision`).
    Collision,
    /// A body came inside the inner truncation radius or touched the central body.
    Ejection,
    /// A body went beyond the outer truncation radius.
    Escape,
    /// Mergers and ejections left fewer massive bodies than the system's minimum.
    MinimumBodies,
    /// The Wisdom-Holman map's Kepler drift failed (typically after a close approach the map
    /// cannot resolve): the system stopped at the last state the map reached, the start of the
    /// failed step.
    Failure,
    /// MEGNO exceeded `chaos.stop_above` after `chaos.stop_after_years`.
    Chaotic,
}

impl StopReason {
    /// Every reason, in the order of their codes (1, 2, ...; 0 is none).
    pub const ALL: [StopReason; 7] = [
        StopReason::Encounter,
        StopReason::Collision,
        StopReason::Ejection,
        StopReason::Escape,
        StopReason::MinimumBodies,
        StopReason::Failure,
        StopReason::Chaotic,
    ];

    /// Its name in outputs: `encounter`, `collision`, `ejection`, `escape`, `minimum bodies`,
    /// `failure`, `chaotic`.
    pub fn name(self) -> &'static str {
        match self {
            StopReason::Encounter => "encounter",
            StopReason::Collision => "collision",
            StopReason::Ejection => "ejection",
            StopReason::Escape => "escape",
            StopReason::MinimumBodies => "minimum bodies",
            StopReason::Failure => "failure",
            StopReason::Chaotic => "chaotic",
        }
    }

    /// Its code in checkpoints (1 to 7).
    pub fn code(self) -> u64 {
        Self::ALL.iter().position(|r| *r == self).unwrap_or(0) as u64 + 1
    }

    /// The reason of code `c`, if it is one.
    pub fn from_code(c: u64) -> Option<StopReason> {
        Self::ALL
            .get(usize::try_from(c).ok()?.checked_sub(1)?)
            .copied()
    }
}

/// How a system stopped: when, why, and which bodies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StopRecord {
    /// The step at whose end it stopped (its state stays that of this step).
    pub step: u64,
    /// The time of the event (years): for the hybrid step the step's end, or within the step
    /// for a merger, an encounter or a perihelion passage inside the inner truncation radius;
    /// for the
    /// Wisdom-Holman map the step's kick, half a step before its end, where its watch checks,
    /// or for a pair the time its sweep of the drift after the kick saw it cross its limit (up
    /// to half a step after the step's end).
    pub years: f64,
    /// Why it stopped.
    pub reason: StopReason,
    /// The bodies' ids: both of an encounter or collision, the one of an ejection or escape
    /// (none for a minimum-bodies stop with no event of its own in the step).
    pub bodies: [Option<u64>; 2],
    /// The distance (AU) between the two bodies, or of the one body from the central body, at
    /// that time (a merger of the hybrid step: in the states its Collisions line records, at
    /// the start of the Bulirsch-Stoer substep that brings the bodies into contact).
    pub distance: Option<f64>,
}
