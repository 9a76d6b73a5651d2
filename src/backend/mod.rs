//! Backends execute the passes of an engine's step on their own resident buffers.
//!
//! The hybrid step (`crate::hybrid::stepper`) is written once as an ordered sequence of calls on
//! [`HybridBackend`]; a backend keeps the body state where it computes (host memory for the CPU,
//! device buffers for OpenCL/CUDA) and returns only counts, small event lists and the outputs that
//! were asked for. The CPU backend (rayon) is always built and is the reference.

pub mod cpu;
#[cfg(test)]
mod device_math_tests;

use crate::error::{Error, Result};
use crate::hybrid::stepper::{StepCounts, StepEvents};
use crate::physics::bulirsch_stoer::BsOptions;
use crate::state::{Bodies, Body};
use serde::{Deserialize, Serialize};

/// Which backend executes the passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum BackendChoice {
    /// The fastest backend available at run time (a GPU backend when compiled in and a device is
    /// present, otherwise the CPU).
    #[default]
    Auto,
    Cpu,
    Opencl,
    Cuda,
}

impl std::str::FromStr for BackendChoice {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "auto" => Ok(Self::Auto),
            "cpu" => Ok(Self::Cpu),
            "opencl" => Ok(Self::Opencl),
            "cuda" => Ok(Self::Cuda),
            _ => Err(format!(
                "unknown backend `{s}` (expected auto, cpu, opencl or cuda)"
            )),
        }
    }
}

/// Parameters of the hybrid step that every pass may need (code units).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepParams {
    /// Central mass M0 (G = 1, so also mu of the Kepler drift).
    pub m0: f64,
    /// Full time step tau.
    pub tau: f64,
    /// Hill-radius factor of the critical radius.
    pub n1: f64,
    /// Velocity factor of the critical radius.
    pub n2: f64,
    /// Bodies closer to the centre than this are ejected (case -2).
    pub inner_truncation: f64,
    /// Bodies farther from the centre than this are ejected (case -3).
    pub outer_truncation: f64,
}

/// Physical parameters of one system of a multi-simulation run (otherwise [`StepParams`] holds
/// them for the single system).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SystemSpec {
    pub m0: f64,
    pub n1: f64,
    pub n2: f64,
    pub inner_truncation: f64,
    pub outer_truncation: f64,
}

impl From<&StepParams> for SystemSpec {
    fn from(p: &StepParams) -> Self {
        SystemSpec {
            m0: p.m0,
            n1: p.n1,
            n2: p.n2,
            inner_truncation: p.inner_truncation,
            outer_truncation: p.outer_truncation,
        }
    }
}

/// One independent system in the body slots. Systems are stored back to back in blocks of
/// [`Layout::block`] slots; system s uses the slots `s * block .. s * block + len`, the first
/// `massive` of them massive bodies and the rest test particles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct System {
    pub len: usize,
    pub massive: usize,
    /// Own parameters (multi-simulation mode); `None` uses the [`StepParams`].
    pub spec: Option<SystemSpec>,
    /// False once the system was stopped (too few bodies left).
    pub active: bool,
}

/// How bodies are arranged in the backend's arrays.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Layout {
    /// Slots per system.
    pub block: usize,
    pub systems: Vec<System>,
    /// GENGA's semi-active test particles (`Use Test Particles = 2`): they pull on the massive
    /// bodies but not on each other. Otherwise test particles pull on nobody.
    pub semi_active: bool,
}

impl Layout {
    /// One system of `n` bodies, the first `massive` of them massive, parameters from the step.
    pub fn single(n: usize, massive: usize) -> Self {
        Layout {
            block: n,
            systems: vec![System {
                len: n,
                massive,
                spec: None,
                active: true,
            }],
            semi_active: false,
        }
    }

    /// Slot range of system `s`.
    pub fn range(&self, s: usize) -> std::ops::Range<usize> {
        let start = s * self.block;
        start..start + self.systems[s].len
    }
}

/// A perfect merger found while integrating an encounter group.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Collision {
    /// The system it happened in.
    pub system: usize,
    /// Time of the recorded states from the start of the drift (code units).
    pub time_offset: f64,
    /// Both bodies just before contact (start of the Bulirsch-Stoer substep), heliocentric.
    pub bodies: [Body; 2],
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
    }
}

/// A body removed by the ejection pass with its ejection case (-3 outer, -2 inner).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ejection {
    /// The system it left.
    pub system: usize,
    /// Heliocentric position and velocity (as written to the ejections file).
    pub body: Body,
    /// Democratic heliocentric state at removal (for the energy bookkeeping).
    pub democratic: Body,
    /// True for a massive body, false for a test particle.
    pub massive: bool,
    pub case: i32,
}

/// Energy and angular momentum of the state in democratic heliocentric coordinates (G = 1).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct EnergyParts {
    /// Kinetic energy: sum 1/2 m v_b^2 + |sum m v_b|^2 / (2 M0).
    pub kinetic: f64,
    /// Potential energy: -sum M0 m / r - sum_{i<j} m_i m_j / r_ij.
    pub potential: f64,
    /// Total angular momentum (orbital sum m x_h cross v_b, plus spins).
    pub angular_momentum: [f64; 3],
}

/// The state a backend must hand over for a bitwise-exact restart: the bodies (democratic
/// coordinates) in their slots, the layout, and the kick state reused by the next opening kick.
/// An empty layout means one system of all bodies, all massive.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HybridSnapshot {
    pub bodies: Bodies,
    pub layout: Layout,
    pub rcrit: Vec<f64>,
    pub far: [Vec<f64>; 3],
    pub near: [Vec<f64>; 3],
    pub candidates: Vec<(u32, u32)>,
}

/// One whole step (all passes, see [`crate::hybrid::stepper`]) applied to a backend or to one
/// part of it, adding its counters to the [`StepCounts`].
pub type PartStep<'a> =
    dyn Fn(&mut dyn HybridBackend, &mut StepCounts) -> Result<StepEvents> + Sync + 'a;

/// The passes of the hybrid step (GENGA paper section 2.2). Every method works on the backend's
/// resident state.
pub trait HybridBackend: Send {
    /// Short name for reports (`cpu`, `opencl`, `cuda`).
    fn name(&self) -> &'static str;
    /// The systems and how their bodies are stored.
    fn layout(&self) -> &Layout;
    /// Number of bodies in active systems.
    fn len(&self) -> usize {
        let l = self.layout();
        l.systems.iter().filter(|s| s.active).map(|s| s.len).sum()
    }
    /// True when no bodies are left.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Stop system `s`: its bodies are no longer integrated.
    fn stop_system(&mut self, s: usize);
    /// Apply `step` to the whole state and return what happened. A backend holding independent
    /// systems may apply it to parts of them (each part a backend of its own, with whole
    /// systems) in parallel, so that a whole step runs on data that stays in cache; it then
    /// reports system indices of the whole state, the events in system order, and pass times
    /// scaled to the wall time of the step. A backend that does not split calls `step(self)`.
    fn step_parts(&mut self, step: &PartStep<'_>, counts: &mut StepCounts) -> Result<StepEvents>;
    /// Critical radii of all bodies for the coming step (eq. 6).
    fn critical_radii(&mut self, p: &StepParams);
    /// Bring the stored accelerations in line with the new critical radii before the opening kick:
    /// nothing to do without candidates (KickB), otherwise the candidate pairs are recomputed
    /// (KickA). Falls back to a full recomputation if a critical radius grew so much that a pair
    /// outside the precheck radius could have entered the changeover zone.
    fn refresh_accelerations(&mut self);
    /// Full pair accelerations with the changeover and the prechecker at the current positions
    /// and critical radii (the closing kick). Returns the number of candidate pairs.
    fn accelerations(&mut self) -> usize;
    /// Velocity kick `v += dt a`.
    fn kick(&mut self, dt: f64);
    /// The closing kick: [`HybridBackend::accelerations`], then [`HybridBackend::kick`] by `dt`
    /// (a backend may fuse the two passes). Returns the number of candidate pairs.
    fn closing_kick(&mut self, dt: f64) -> usize {
        let candidates = self.accelerations();
        self.kick(dt);
        candidates
    }
    /// Sun kick (H_C): `x += dt sum(m v) / M0`.
    fn sun_kick(&mut self, p: &StepParams, dt: f64);
    /// Remember the state of candidate bodies before the drift (for the encounter search).
    fn save_candidate_states(&mut self);
    /// Kepler drift of every body around M0 for `dt` by f and g functions.
    fn drift(&mut self, p: &StepParams, dt: f64) -> Result<()>;
    /// Confirm candidate pairs by the cubic Hermite minimum distance over the drift (eqs 10-12);
    /// returns the number of confirmed close encounters.
    fn encounter_search(&mut self, dt: f64) -> usize;
    /// Group the confirmed encounters (union-find, paper appendix A), integrate every group by
    /// Bulirsch-Stoer over `dt` from its pre-drift state under the Kepler and (1 - K) forces
    /// (paper 3.2.6), merge colliding bodies (3.2.7), and remove the bodies merged away. Groups run
    /// in parallel, largest first. Returns the mergers.
    fn encounter_groups(
        &mut self,
        p: &StepParams,
        dt: f64,
        opts: &BsOptions,
        stats: &mut EncounterStats,
    ) -> Result<Vec<Collision>>;
    /// Remove bodies beyond the truncation radii and return them.
    fn ejections(&mut self, p: &StepParams) -> Vec<Ejection>;
    /// Energy and angular momentum of system `s`.
    fn energy(&mut self, p: &StepParams, s: usize) -> EnergyParts;
    /// The bodies of system `s` in democratic heliocentric coordinates (copied to the host if
    /// need be).
    fn bodies(&mut self, s: usize) -> Bodies;
    /// Call `f` with the arrays holding system `s` and its slot range, without copying where
    /// the backend can (the default copies through [`HybridBackend::bodies`]).
    fn visit_bodies(&mut self, s: usize, f: &mut dyn FnMut(&Bodies, std::ops::Range<usize>)) {
        let b = self.bodies(s);
        f(&b, 0..b.len());
    }
    /// Everything needed to restart bitwise exactly.
    fn snapshot(&mut self) -> HybridSnapshot;
    /// Call `f` with the restart state as consecutive pieces (their systems and slots in order,
    /// the candidate pairs of each in its own slots), without copying where the backend can.
    fn visit_snapshot(&mut self, f: &mut dyn FnMut(&[HybridSnapshot])) {
        let snap = self.snapshot();
        f(std::slice::from_ref(&snap));
    }
    /// Replace the state by a snapshot (fresh start or restart).
    fn restore(&mut self, s: HybridSnapshot);
}

/// Create the backend for `choice`. `Auto` picks the CPU in builds without GPU backends.
pub fn create(choice: BackendChoice) -> Result<Box<dyn HybridBackend>> {
    match choice {
        BackendChoice::Auto | BackendChoice::Cpu => Ok(Box::new(cpu::CpuBackend::default())),
        BackendChoice::Opencl | BackendChoice::Cuda => Err(Error::input(
            crate::error::Location::default().field("backend"),
            format!(
                "the {} backend is not available in this build yet (expected `cpu` or `auto`)",
                if choice == BackendChoice::Opencl {
                    "opencl"
                } else {
                    "cuda"
                }
            ),
        )),
    }
}
