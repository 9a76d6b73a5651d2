//! What a hybrid run reports at its end: its summary ([`Summary`], the text `orrery run` prints
//! and the info file keeps). Its progress while it runs goes to the caller's
//! [`crate::observe::Observer`].

use super::*;

/// What a run did.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub backend: &'static str,
    pub first_step: u64,
    pub last_step: u64,
    pub wall_s: f64,
    /// Simulations, and those stopped for falling below their minimum number of bodies.
    pub simulations: usize,
    pub stopped_simulations: usize,
    pub n_start: usize,
    pub n_end: usize,
    /// (E + U - E0) / |E0| at the end (the largest in magnitude over the simulations).
    pub rel_energy_error: f64,
    /// (|L + L_lost| - |L0|) / |L0| at the end (the largest in magnitude over the simulations).
    pub rel_angular_momentum_error: f64,
    /// Prechecker candidate pairs and confirmed encounters in this invocation.
    pub candidates: u64,
    pub encounters: u64,
    /// Ejections and mergers over the whole run.
    pub ejections: u64,
    pub collisions: u64,
    /// Encounter groups and Bulirsch-Stoer work in this invocation.
    pub groups: EncounterStats,
    /// The recursive sub-steps of the groups (reported per level when on).
    pub recursion: crate::physics::recursion::Recursion,
    /// The integrator (the Wisdom-Holman map has no passes but its step).
    pub integrator: crate::config::integrator::Integrator,
    /// Whether the Wisdom-Holman map stepped on the backend's device (not on the CPU).
    pub map_on_device: bool,
    /// With `chaos`: the systems whose MEGNO reads regular (< 2.5), undecided and chaotic (> 4,
    /// or not a number), as [`megno_classes`] counts them.
    pub megno_classes: Option<[usize; 3]>,
    /// Time per pass over the timed steps of this invocation (pass times are sampled; see
    /// [`crate::hybrid::stepper::Stepper::step`]).
    pub times: PassTimes,
    /// Steps of this invocation whose passes were timed.
    pub timed_steps: u64,
    /// Why the run ended before its last step, if it did.
    pub stopped: Option<String>,
    /// Warnings for the user (e.g. checkpoints skipped on resume because unreadable).
    pub warnings: Vec<String>,
}

/// The systems of `chaos` (MEGNO and Lyapunov exponent per system, `None` for one that never
/// ran on the map) whose MEGNO is below 2.5 (regular), between 2.5 and 4 (undecided), and above
/// 4 or not a number (chaotic, or lost): the classes of MEGNO maps.
pub fn megno_classes(chaos: &[Option<(f64, f64)>]) -> [usize; 3] {
    let mut out = [0; 3];
    for &(megno, _) in chaos.iter().flatten() {
        out[crate::physics::wisdom_holman::megno_class(megno)] += 1;
    }
    out
}

impl Summary {
    /// Steps integrated by this invocation.
    pub fn steps(&self) -> u64 {
        self.last_step - self.first_step
    }
    /// Wall time per step in seconds.
    pub fn time_per_step(&self) -> f64 {
        self.wall_s / self.steps().max(1) as f64
    }
    /// The summary as printed and appended to the info file.
    pub fn report(&self) -> String {
        let n = self.timed_steps.max(1) as f64;
        let mut s = format!(
            "steps {} .. {} ({} steps) on {}: wall time {:.3} s, {:.4e} s per step\n",
            self.first_step,
            self.last_step,
            self.steps(),
            self.backend,
            self.wall_s,
            self.time_per_step(),
        );
        if self.simulations > 1 {
            s.push_str(&format!(
                "simulations {} ({} stopped early), {:.4e} system-steps per second\n",
                self.simulations,
                self.stopped_simulations,
                self.simulations as f64 / self.time_per_step()
            ));
        }
        if let Some(correctors) = self.integrator.wisdom_holman() {
            let on = match self.map_on_device {
                true => format!("on the {} device", self.backend),
                false => "on the CPU".to_string(),
            };
            s.push_str(&format!(
                "N {} -> {}; relative energy error (E + U) {:.3e}; relative angular momentum \
                 error {:.3e}; ejections {}\n\
                 Wisdom-Holman map (Jacobi coordinates, corrector order {correctors}, {on}): \
                 {:.3e} s per step ({} of {} steps timed)",
                self.n_start,
                self.n_end,
                self.rel_energy_error,
                self.rel_angular_momentum_error,
                self.ejections,
                self.times.drift / n,
                self.timed_steps,
                self.steps(),
            ));
            if let Some([regular, undecided, chaotic]) = self.megno_classes {
                s.push_str(&format!(
                    "\nMEGNO: {regular} systems regular (< 2.5), {undecided} undecided, {chaotic} \
                     chaotic (> 4); per system in summary.csv"
                ));
            }
            if let Some(r) = &self.stopped {
                s.push_str(&format!("\nstopped early: {r}"));
            }
            return s;
        }
        s.push_str(&format!(
            "N {} -> {}; relative energy error (E + U) {:.3e}; relative angular momentum error {:.3e}\n\
             encounter candidates {}, confirmed encounters {}, collisions {}, ejections {}\n\
             encounter groups {} (by size 2, 3-4, 5-8, 9-16, 17-32, 33-64, 65-128, >128: {:?}; \
             largest {}), Bulirsch-Stoer substeps {} ({} rejected)\n\
             time per step by pass ({} of {} steps timed): kick {:.3e} s, drift {:.3e} s, \
             encounter search {:.3e} s, groups + Bulirsch-Stoer {:.3e} s, ejections {:.3e} s",
            self.n_start,
            self.n_end,
            self.rel_energy_error,
            self.rel_angular_momentum_error,
            self.candidates,
            self.encounters,
            self.collisions,
            self.ejections,
            self.groups.groups,
            self.groups.group_sizes,
            self.groups.largest_group,
            self.groups.bs_substeps,
            self.groups.bs_rejected,
            self.timed_steps,
            self.steps(),
            self.times.kick / n,
            self.times.drift / n,
            self.times.encounter / n,
            self.times.bulirsch_stoer / n,
            self.times.ejection / n,
        ));
        if self.times.forces > 0.0 {
            s.push_str(&format!(
                ", extra forces (GR, J2, radiation, gas and tide kicks) {:.3e} s",
                self.times.forces / n
            ));
        }
        if self.backend != "cpu" {
            // Device passes are queued: a pass's host time also holds the queued work it waits
            // for at its first read.
            s.push_str(
                " (host time: a device pass also waits here for the passes queued before it; \
                 per-pass device times: `cargo bench --features opencl --bench opencl`)",
            );
        }
        if self.recursion.is_on() {
            let levels = self.recursion.levels as usize;
            let lv = &self.groups.levels;
            let mut groups = vec![self.groups.groups];
            let mut largest = vec![self.groups.largest_group];
            groups.extend_from_slice(&lv.groups[1..levels]);
            largest.extend_from_slice(&lv.largest[1..levels]);
            s.push_str(&format!(
                "\nrecursive sub-steps: {} levels of {} sub-steps, deepest level used {}; groups per \
                 level {:?}, largest group per level {:?} (level 0: the step's groups; the \
                 deepest level's groups take Bulirsch-Stoer)",
                levels,
                self.recursion.sub_steps,
                lv.deepest(),
                groups,
                largest,
            ));
        }
        if let Some(r) = &self.stopped {
            s.push_str(&format!("\nstopped early: {r}"));
        }
        s
    }
}
