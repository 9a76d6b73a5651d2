//! The Wisdom-Holman map as the hybrid engine's second integrator (`integrator:
//! WisdomHolman(correctors: N)`): the run driver's outputs, books and checkpoints stay those of
//! the hybrid step, while the bodies move on the map ([`crate::physics::wisdom_holman`]).
//!
//! The systems are packed by body count, [`LANES`] systems to a pack, the packs stepped in
//! parallel; a system's bits do not depend on its pack, so every thread count and every
//! neighbour gives the same results. The backend keeps the bodies for the outputs and the
//! energy; it is brought up to the map's state only when something reads it ([`WhStepper::sync`]):
//! outputs, checkpoints, the end of a run's piece. The first event a step finds in a system (at
//! its kick, a body outside the truncation radii; with the run's `stop` settings, two bodies
//! within their encounter distance or touching, at the kick or within the drift after it; a
//! Kepler drift that failed) stops that system; the map removes nobody. A system whose drift
//! failed stops a step behind, at the last state the map reached, and the others step on.
//!
//! On a device backend (OpenCL, CUDA; not with `--cpu-passes wisdom_holman`) each pack holds
//! every system of its body count and time step, resident on the device
//! ([`crate::physics::wisdom_holman::ResidentPack`], one work-item per system), and its state
//! comes back to the host pack when something reads it: the same bits as the CPU's packs.

use crate::backend::HybridBackend;
use crate::config::chaos::ChaosSettings;
use crate::error::{Error, Result};
use crate::io::checkpoint::MapStates;
use crate::model::{HybridSnapshot, StepCounts, StepParams};
use crate::physics::changeover::hill_factor_of;
use crate::physics::wisdom_holman::{
    LaneStop, MapState, MegnoSums, PairLimits, ResidentPack, States, Watch, WhError, WhPack,
};
use crate::state::{democratic_from_inertial, inertial_from_democratic, Bodies};
use rayon::prelude::*;
use std::sync::OnceLock;
use std::time::Instant;

/// Systems per pack: wide enough for the vector lanes, small enough that an ensemble of a few
/// hundred systems fills every thread.
pub const LANES: usize = 64;

/// Steps between two timed steps (a clock read is a tenth of a small system's step).
const SAMPLE_EVERY: u64 = 64;

/// The steps of a block: on the CPU each pack runs up to this many steps in a row while its
/// arrays are in the core's caches (temporal blocking), ahead of the driver, which reads the
/// systems only where it said it would ([`WhStepper::read_at`]). Blocks end at multiples of
/// it, so that packs that paused at a stop line up with the others again at the next block's
/// end. `ORRERY_WH_BLOCK=N` sets another length (1: no blocks); the bits are the same, and an
/// interrupt or a checkpoint asked for by a signal waits for the end of the block under way.
pub const BLOCK: u64 = 8;

/// The block length: [`BLOCK`], or `ORRERY_WH_BLOCK` when set (read once).
fn block_steps() -> u64 {
    static STEPS: OnceLock<u64> = OnceLock::new();
    *STEPS.get_or_init(|| {
        let Ok(text) = std::env::var("ORRERY_WH_BLOCK") else {
            return BLOCK;
        };
        match text.trim().parse::<u64>() {
            Ok(n @ 1..=4096) => n,
            _ => {
                eprintln!(
                    "warning: ORRERY_WH_BLOCK={text} is not a number of steps from 1 to 4096; \
                     using {BLOCK}"
                );
                BLOCK
            }
        }
    })
}

/// The event that ends a system on the map: the system and what happened, its bodies
/// numbered as in the map (the central body 0, the backend's body k as k + 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SystemStop {
    pub system: usize,
    pub event: LaneStop,
    /// When: the fraction of a step after the kick of the step that found it
    /// ([`WhPack::stop_after`]).
    pub after: f64,
    /// Whether the system's state is a step behind: the step's drift failed and the system
    /// went back to where it was before the step ([`WhPack::behind`]).
    pub behind: bool,
}

/// What stops a system besides the truncation radii: the pair limits and the central body's
/// radius (for collisions with it).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StopLimits {
    pub pairs: PairLimits,
    pub central_radius: f64,
}

/// Steps the running systems of a backend on the Wisdom-Holman map.
pub struct WhStepper {
    packs: Vec<WhPack>,
    /// On a device: each pack resident there (empty on the CPU).
    resident: Vec<Box<dyn ResidentPack>>,
    /// Whether the packs hold the device's state at `step` (always on the CPU).
    fetched: bool,
    /// Whether the packs step on the device (the backend has one).
    device: bool,
    /// The systems in each pack, in lane order.
    members: Vec<Vec<usize>>,
    /// Each system's time step (code units).
    taus: Vec<f64>,
    correctors: u8,
    limits: StopLimits,
    /// MEGNO and its stop: the variations step beside every system.
    chaos: ChaosSettings,
    /// With MEGNO: each system's tangent seed ([`ChaosSettings::seed_of`] its index in the
    /// whole ensemble, whatever the shard).
    seeds: Vec<u64>,
    /// With MEGNO: the sums of the systems that left the packs, by system.
    finished: Vec<(usize, MegnoSums)>,
    /// Steps since the start of the run: the step the driver has seen (the packs may be
    /// ahead of it, see [`WhStepper::step`]).
    step: u64,
    /// Per pack, the step it has reached: at least `step`; beyond it only on the CPU, inside a
    /// block ([`BLOCK`]), up to `read_at`.
    at: Vec<u64>,
    /// Per pack, with J2, the torque tallies of its steps beyond `step`, one per step and
    /// system, so that the books take them step by step as without blocks.
    torque_logs: Vec<TorqueLog>,
    /// The next step at which the driver reads the systems: the packs never step beyond it.
    read_at: u64,
    /// Whether packs lost systems since the last merge ([`WhStepper::merge_packs`], done when
    /// every pack is at `step`).
    merge_due: bool,
    /// Whether the backend holds the map's state at `step`.
    synced: bool,
    /// With J2: per system of the backend, the angular momentum the undone corrector's kicks
    /// gave the bodies at the last sync ([`WhPack::state_and_torque`]): the real coordinates'
    /// angular momentum is the map's plus this.
    copy_torque: Vec<[f64; 3]>,
    untimed_left: u64,
}

/// A failed map step or setup as a run error naming the system.
fn run_error(e: WhError) -> Error {
    Error::run(format!("Wisdom-Holman integrator: {e}"))
}

/// A pack's error with its lane named as the run's system (`members` of the pack).
fn in_run(e: WhError, members: &[usize]) -> WhError {
    match e {
        WhError::Drift(lane, body, why) => WhError::Drift(members[lane], body, why),
        other => other,
    }
}

impl WhStepper {
    /// The running systems of `backend` at step `step`, each with its time step `taus[s]`
    /// (code units), from their bodies (a fresh start, with the corrector applied) or, with
    /// `states`, from a checkpoint's map states (bit for bit where the run was; with MEGNO,
    /// also the sums of the systems that had stopped, see [`WhStepper::map_states`]). With
    /// `chaos` on, system `s` draws its tangent vector with `seeds[s]`.
    pub fn new(
        backend: &mut dyn HybridBackend,
        (params, taus): (&StepParams, Vec<f64>),
        (correctors, limits): (u8, StopLimits),
        (chaos, seeds): (ChaosSettings, Vec<u64>),
        step: u64,
        states: Option<&MapStates>,
    ) -> Result<Self> {
        // A stopped system's entry is its sums alone (a running one's has at least 12 values).
        let finished = states.map_or(Vec::new(), |saved| {
            let sums = |(s, v): &(usize, Vec<f64>)| Some((*s, MegnoSums::from_slice(v)?));
            saved.iter().filter_map(sums).collect()
        });
        let mut me = WhStepper {
            packs: Vec::new(),
            resident: Vec::new(),
            fetched: true,
            device: false,
            members: Vec::new(),
            taus,
            correctors,
            limits,
            chaos,
            seeds,
            finished,
            step,
            at: Vec::new(),
            torque_logs: Vec::new(),
            read_at: step + 1,
            merge_due: false,
            synced: true,
            copy_torque: Vec::new(),
            untimed_left: 0,
        };
        me.pack(backend, params, states)?;
        if params.forces.has_torque() {
            let systems = backend.layout().systems.len();
            me.copy_torque = vec![[0.0; 3]; systems];
            // A resumed run's books hold the undone corrector's share of its last sync.
            if states.is_some() {
                for (pack, members) in me.packs.iter().zip(&me.members) {
                    for (lane, &s) in members.iter().enumerate() {
                        me.copy_torque[s] = pack.state_and_torque(lane).map_err(run_error)?.1;
                    }
                }
            }
        }
        Ok(me)
    }

    /// Build the packs of `backend`'s running systems (see [`WhStepper::new`]).
    fn pack(
        &mut self,
        backend: &mut dyn HybridBackend,
        params: &StepParams,
        states: Option<&MapStates>,
    ) -> Result<()> {
        // One snapshot for every system (a device backend's `bodies` reads one system per call).
        let snap = backend.snapshot();
        let layout = &snap.layout;
        let running: Vec<usize> = (0..layout.systems.len())
            .filter(|&s| layout.systems[s].active && layout.systems[s].len > 0)
            .collect();
        let mut by_count: Vec<Vec<usize>> = Vec::new();
        for &s in &running {
            let n = layout.systems[s].len;
            if layout.systems[s].massive < n {
                return Err(Error::run(format!(
                    "Wisdom-Holman integrator: system {s} has {} bodies without mass; expected \
                     massive bodies only",
                    n - layout.systems[s].massive
                )));
            }
            // A pack's systems share their body count and their time step.
            let alike = |g: &&mut Vec<usize>| {
                layout.systems[g[0]].len == n && self.taus[g[0]].to_bits() == self.taus[s].to_bits()
            };
            match by_count.iter_mut().find(alike) {
                Some(g) => g.push(s),
                None => by_count.push(vec![s]),
            }
        }
        self.packs.clear();
        self.members.clear();
        self.resident.clear();
        // A device takes all of a group's systems at once: one work-item each (with MEGNO on,
        // each system's variations too).
        let on_device = backend.map_on_device();
        self.device = on_device;
        let lanes = if on_device { usize::MAX } else { LANES };
        for group in by_count {
            for members in group.chunks(lanes) {
                let mut pack = self.one_pack(&snap, params, members, states)?;
                if on_device {
                    self.resident.push(backend.resident_pack(&mut pack)?);
                }
                self.packs.push(pack);
                self.members.push(members.to_vec());
            }
        }
        self.at = vec![self.step; self.packs.len()];
        self.torque_logs = vec![TorqueLog::default(); self.packs.len()];
        self.fetched = true;
        Ok(())
    }

    /// The pack of systems `members` of the backend's snapshot `snap`.
    fn one_pack(
        &self,
        snap: &HybridSnapshot,
        params: &StepParams,
        members: &[usize],
        states: Option<&MapStates>,
    ) -> Result<WhPack> {
        let layout = &snap.layout;
        let spec = |s: usize| layout.systems[s].spec;
        let dt = self.taus[members[0]];
        let bodies: Vec<_> = members
            .iter()
            .map(|&s| {
                let mut b = Bodies::default();
                b.extend_from(&snap.bodies, layout.range(s));
                b
            })
            .collect();
        let systems: Vec<_> = members
            .iter()
            .zip(&bodies)
            .map(|(&s, b)| inertial_from_democratic(spec(s).map_or(params.m0, |p| p.m0), b))
            .collect();
        let mut pack = match states {
            None => {
                let refs: Vec<_> = systems
                    .iter()
                    .map(|(m, x, v)| (&m[..], &x[..], &v[..]))
                    .collect();
                WhPack::with_forces(&refs, (dt, self.correctors), &params.forces)
            }
            Some(saved) => {
                // The states are in system order (`map_states`).
                let state = |s: usize| {
                    saved
                        .binary_search_by_key(&s, |(k, _)| *k)
                        .map(|at| saved[at].1.clone())
                        .map_err(|_| {
                            Error::run(format!("the checkpoint has no map state of system {s}"))
                        })
                };
                let values = members.iter().map(|&s| state(s)).collect::<Result<_>>()?;
                let masses: Vec<&[f64]> = systems.iter().map(|(m, _, _)| &m[..]).collect();
                let settings = (dt, self.correctors);
                WhPack::from_map_state(&masses, &(self.step, values), settings, &params.forces)
            }
        }
        .map_err(run_error)?;
        self.vary(&mut pack, members, states.is_some())?;
        let radii = |f: &dyn Fn(&crate::model::SystemSpec) -> f64, default: f64| -> Vec<f64> {
            members
                .iter()
                .map(|&s| spec(s).map_or(default, |p| f(&p)))
                .collect()
        };
        // Per body, body-major, the central body first: Hill factors and physical radii.
        let lanes = members.len();
        let n = systems[0].0.len();
        let (mut hill, mut radius) = (vec![0.0; n * lanes], vec![0.0; n * lanes]);
        for (s, ((m, _, _), b)) in systems.iter().zip(&bodies).enumerate() {
            radius[s] = self.limits.central_radius;
            for k in 1..n {
                hill[k * lanes + s] = hill_factor_of(m[k], m[0]);
                radius[k * lanes + s] = b.r[k - 1];
            }
        }
        pack.set_watch(Watch::new(
            &radii(&|p| p.inner_truncation, params.inner_truncation),
            &radii(&|p| p.outer_truncation, params.outer_truncation),
            hill,
            radius,
            self.limits.pairs,
        ));
        Ok(pack)
    }

    /// With MEGNO on: the variations of the systems `members` of `pack`, fresh (their tangent
    /// vectors drawn with each system's seed) or, `resumed`, checked to be in the pack's
    /// checkpointed state; and the stop on MEGNO.
    fn vary(&self, pack: &mut WhPack, members: &[usize], resumed: bool) -> Result<()> {
        let chaos = &self.chaos;
        if !chaos.megno {
            return Ok(());
        }
        if !resumed {
            let seeds: Vec<u64> = members.iter().map(|&s| self.seeds[s]).collect();
            pack.set_variations(&seeds).map_err(run_error)?;
        } else if pack.variations().is_none() {
            return Err(Error::run(
                "the checkpoint's map states have no tangent vectors, but this run has `chaos: \
                 (megno: true)`",
            ));
        }
        if let Some(above) = chaos.stop_above {
            let after = crate::units::years_to_code(chaos.stop_after_years);
            pack.stop_above_megno(above, after).map_err(run_error)?;
        }
        Ok(())
    }

    /// Whether the variations (MEGNO) step beside the systems.
    pub fn varies(&self) -> bool {
        self.chaos.megno
    }

    /// With MEGNO, every system's sums (running, or kept when it stopped; `None` for a system
    /// that never ran on the map), of the `systems` of the run, in one pass; `None` without.
    /// On a device, the sums of the last [`WhStepper::fetch`].
    pub fn megno(&self, systems: usize) -> Option<Vec<Option<MegnoSums>>> {
        debug_assert!(self.caught_up(), "MEGNO read inside a block");
        if !self.chaos.megno {
            return None;
        }
        let mut out = vec![None; systems];
        for &(s, sums) in &self.finished {
            out[s] = Some(sums);
        }
        for (pack, members) in self.packs.iter().zip(&self.members) {
            let Some(var) = pack.variations() else {
                continue;
            };
            for (&s, &sums) in members.iter().zip(var.sums()) {
                out[s] = Some(sums);
            }
        }
        Some(out)
    }

    /// Whether the packs step on the backend's device.
    pub fn on_device(&self) -> bool {
        self.device
    }

    /// Let the packs step on without a read of the systems up to step `step` (the driver's
    /// next output, checkpoint, sample or end of its piece; at least the next step).
    pub fn read_at(&mut self, step: u64) {
        self.read_at = step.max(self.step + 1);
    }

    /// Whether every pack is at the step the driver has seen (no block is under way), so that
    /// the systems can be read, checkpointed or interrupted there.
    pub fn caught_up(&self) -> bool {
        self.at.iter().all(|&at| at == self.step)
    }

    /// One step of every running system as the driver sees it; the events that end systems at
    /// that step (they must be stopped, then [`WhStepper::repack`]).
    ///
    /// On the CPU a pack at the driver's step runs a block: it steps on to the next multiple of
    /// [`BLOCK`], never beyond [`WhStepper::read_at`], and pauses after a step that gave one of
    /// its systems an event, until the driver has reached that step and taken the system out.
    /// Every system's bits, event and torque tallies are those of one step per call; only the
    /// time of a call moves (most calls step nothing). A device steps every call. The wall
    /// time of about one step in [`SAMPLE_EVERY`] goes to `counts.times.drift` (the map's kick
    /// and drift are one pass).
    pub fn step(&mut self, counts: &mut StepCounts) -> Result<Vec<SystemStop>> {
        let target = self.step + 1;
        if self.merge_due && self.caught_up() {
            self.merge_packs();
            self.merge_due = false;
        }
        let timed = match self.at.iter().any(|&at| at < target) {
            true => self.advance_to(target, counts)?,
            false => false,
        };
        if !timed {
            self.untimed_left = self.untimed_left.saturating_sub(1);
        }
        self.step = target;
        self.synced = false;
        Ok(self.stops())
    }

    /// Step the packs that are at the driver's step: to `target` on a device, a block on the
    /// CPU (see [`WhStepper::step`]). Whether the call was timed: one that starts with every
    /// pack at the driver's step, once [`SAMPLE_EVERY`] steps have passed since the last.
    fn advance_to(&mut self, target: u64, counts: &mut StepCounts) -> Result<bool> {
        let timing = self.untimed_left == 0 && self.caught_up();
        let start = timing.then(Instant::now);
        let from = self.step;
        let packs = self.packs.as_mut_slice();
        if !self.resident.is_empty() {
            self.fetched = false;
            let on = self.resident.iter_mut().zip(packs.iter_mut());
            on.zip(&self.members)
                .try_for_each(|((d, p), m)| d.step(p).map_err(|e| in_run(e, m)))
                .map_err(run_error)?;
            self.at.iter_mut().for_each(|at| *at = target);
        } else {
            let block = block_steps();
            let block_end = (from / block + 1) * block;
            let limit = block_end.min(self.read_at).max(target);
            let logging = !self.copy_torque.is_empty();
            let run = |(((pack, at), log), members): PackRun<'_>| {
                if *at != from {
                    return Ok(());
                }
                let mut events = pack.stop_count();
                while *at < limit {
                    pack.step().map_err(|e| in_run(e, members))?;
                    *at += 1;
                    if logging {
                        log.push(pack, *at);
                    }
                    let now = pack.stop_count();
                    if now > events {
                        break;
                    }
                    events = now;
                }
                Ok(())
            };
            let (at, logs, members) = (&mut self.at, &mut self.torque_logs, &self.members);
            match packs.len() {
                1 => packs
                    .iter_mut()
                    .zip(at)
                    .zip(logs)
                    .zip(members)
                    .try_for_each(run),
                _ => packs
                    .par_iter_mut()
                    .zip(at)
                    .zip(logs)
                    .zip(members)
                    .try_for_each(run),
            }
            .map_err(run_error)?;
        }
        let steps = self.at.iter().max().map_or(1, |&at| at - from);
        if let Some(start) = start {
            counts.times.drift += start.elapsed().as_secs_f64();
            counts.timed_steps += steps;
            self.untimed_left = SAMPLE_EVERY.saturating_sub(steps);
        }
        Ok(timing)
    }

    /// The events that end systems at the driver's step, in system order whatever the packs
    /// (usually none: no allocation then). A pack ahead of the driver has none: it would have
    /// paused at the step that found one.
    fn stops(&self) -> Vec<SystemStop> {
        let mut out = Vec::new();
        let now = self.packs.iter().zip(&self.members).zip(&self.at);
        for ((pack, members), _) in now.filter(|(_, &at)| at == self.step) {
            for (lane, stop) in pack.stops().iter().enumerate() {
                if let Some(event) = *stop {
                    out.push(SystemStop {
                        system: members[lane],
                        event,
                        after: pack.stop_after()[lane],
                        behind: pack.behind()[lane],
                    });
                }
            }
        }
        out.sort_by_key(|stop| stop.system);
        out
    }

    /// An error unless every pack is at the driver's step (a read inside a block would give
    /// states of a later step).
    fn check_caught_up(&self, what: &str) -> Result<()> {
        match self.caught_up() {
            true => Ok(()),
            false => Err(Error::run(format!(
                "Wisdom-Holman integrator: {what} at step {} while packs are at steps up to {} \
                 (a read inside a block; the driver must read only at WhStepper::read_at)",
                self.step,
                self.at.iter().max().copied().unwrap_or(self.step)
            ))),
        }
    }

    /// Bring the backend's bodies to the map's state at the step reached (nothing when they
    /// are there already): inertial positions and velocities of each running system, drifted
    /// back half a step and with the corrector undone, as democratic heliocentric coordinates.
    pub fn sync(&mut self, backend: &mut dyn HybridBackend) -> Result<()> {
        if self.synced {
            return Ok(());
        }
        self.sync_where(backend, |_| true, false)?;
        self.synced = true;
        Ok(())
    }

    /// [`WhStepper::sync`] of the systems `systems` only (those a step stopped: a system's
    /// copy drifted back and uncorrected costs as much as a few steps, so a stop does not sync
    /// the whole ensemble). A system whose copy cannot be drifted back (a state the map broke
    /// down on) does not end the run: its bodies' positions and velocities become NaN, and it
    /// is in the list returned.
    pub fn sync_systems(
        &mut self,
        backend: &mut dyn HybridBackend,
        systems: &[usize],
    ) -> Result<Vec<usize>> {
        if self.synced {
            return Ok(Vec::new());
        }
        self.sync_where(backend, |s| systems.contains(&s), true)
    }

    /// Bring the systems `pick` chooses in the backend to the map's state. A system whose copy
    /// cannot be drifted back is an error, or with `lenient` gets NaN states and is listed.
    fn sync_where(
        &mut self,
        backend: &mut dyn HybridBackend,
        pick: impl Fn(usize) -> bool,
        lenient: bool,
    ) -> Result<Vec<usize>> {
        self.fetch()?;
        // (system, pack, lane) of every system to bring over.
        let mut wanted = Vec::new();
        for (p, members) in self.members.iter().enumerate() {
            let picked = members.iter().enumerate().filter(|(_, &s)| pick(s));
            wanted.extend(picked.map(|(lane, &s)| (s, p, lane)));
        }
        if wanted.iter().any(|&(_, p, _)| self.at[p] != self.step) {
            self.check_caught_up("a read of systems")?;
        }
        let systems: Vec<usize> = wanted.iter().map(|w| w.0).collect();
        let (packs, copy_torque) = (&self.packs, &mut self.copy_torque);
        let mut whole = whole_pack_states(packs, &wanted);
        let tracking = !copy_torque.is_empty();
        let mut failure = None;
        let mut lost = Vec::new();
        backend.update_systems(&systems, &mut |k, bodies, range| {
            let (s, p, lane) = wanted[k];
            let masses = packs[p].masses(lane);
            let state = match whole[p].as_mut() {
                Some(all) => all[lane].take().expect("each system once"),
                None => packs[p].state_and_torque(lane),
            };
            match state {
                Ok(((pos, vel), copy)) => {
                    democratic_from_inertial(&masses, &pos, &vel, bodies, range);
                    if tracking {
                        copy_torque[s] = copy;
                    }
                }
                Err(_) if lenient => {
                    let nan = vec![[f64::NAN; 3]; masses.len()];
                    democratic_from_inertial(&masses, &nan, &nan, bodies, range);
                    lost.push(s);
                }
                Err(e) => {
                    // Named by the run's system, whichever copy (a pack's, or its own) failed.
                    let e = match e {
                        WhError::Drift(_, body, why) => WhError::Drift(s, body, why),
                        other => other,
                    };
                    failure.get_or_insert(e);
                }
            }
        });
        failure.map_or(Ok(lost), |e| Err(run_error(e)))
    }

    /// Bring the device's state of every resident pack to the host packs, with MEGNO their
    /// variations too (nothing on the CPU, or when they hold it already): [`WhStepper::megno`]
    /// reads the host packs.
    pub fn fetch(&mut self) -> Result<()> {
        if self.fetched {
            return Ok(());
        }
        for (device, pack) in self.resident.iter_mut().zip(&mut self.packs) {
            device.fetch(pack).map_err(run_error)?;
        }
        self.fetched = true;
        Ok(())
    }

    /// Hand `book` (system, angular momentum) what J2's kicks gave each running system's bodies
    /// in the driver's last step: called after every step, so that the books' sums do not
    /// depend on where outputs, checkpoints and blocks fall (a pack ahead of the driver keeps a
    /// tally per step, [`TorqueLog`]). Allocation-free on the CPU; nothing without J2.
    pub fn book_torque(&mut self, mut book: impl FnMut(usize, [f64; 3])) -> Result<()> {
        if !self.resident.is_empty() {
            for (device, members) in self.resident.iter_mut().zip(&self.members) {
                let mut give = |lane: usize, t: [f64; 3]| book(members[lane], t);
                device.drain_torque(&mut give).map_err(run_error)?;
            }
            return Ok(());
        }
        for (log, members) in self.torque_logs.iter_mut().zip(&self.members) {
            log.take(self.step, |lane, t| book(members[lane], t));
        }
        Ok(())
    }

    /// The angular momentum the undone corrector gave system `s`'s bodies at the last sync
    /// (zero without J2): the books' angular momentum lost is theirs minus this.
    pub fn corrector_share(&self, s: usize) -> [f64; 3] {
        self.copy_torque.get(s).copied().unwrap_or_default()
    }

    /// Take the systems that stopped out of their packs: the others step on unchanged, in
    /// their packs (a pack's systems are kept in order and in place, no pack is built anew;
    /// a resident pack that lost systems goes to its device again, an emptied one is dropped).
    /// On the CPU, packs of the same kind that fit in [`LANES`] systems together are then
    /// merged, so that an ensemble whose systems stop keeps its vector lanes full.
    pub fn repack(&mut self, backend: &mut dyn HybridBackend) -> Result<()> {
        self.fetch()?;
        let layout = backend.layout();
        let running = |s: usize| layout.systems[s].active && layout.systems[s].len > 0;
        let keeps: Vec<Vec<bool>> = self
            .members
            .iter()
            .map(|m| m.iter().map(|&s| running(s)).collect())
            .collect();
        let on_device = !self.resident.is_empty();
        for p in (0..self.packs.len()).rev() {
            let keep = &keeps[p];
            if keep.iter().all(|&k| k) {
                continue;
            }
            if !keep.iter().any(|&k| k) {
                self.keep_sums(p, keep);
                self.packs.remove(p);
                self.members.remove(p);
                self.at.remove(p);
                self.torque_logs.remove(p);
                if on_device {
                    self.resident.remove(p);
                }
                continue;
            }
            self.keep_sums(p, keep);
            // A stop is seen at the step its pack paused at: the pack's tallies are booked.
            debug_assert!(self.at[p] == self.step && self.torque_logs[p].is_empty());
            self.packs[p].retain_systems(keep);
            let mut flags = keep.iter();
            self.members[p].retain(|_| *flags.next().expect("a flag per system"));
            if on_device {
                self.resident[p] = backend.resident_pack(&mut self.packs[p])?;
            }
        }
        // Packs merge when every one is at the driver's step (at the latest at the block's end).
        if !on_device {
            match self.caught_up() {
                true => self.merge_packs(),
                false => self.merge_due = true,
            }
        }
        Ok(())
    }

    /// With MEGNO: keep the sums of pack `p`'s systems that leave it (`keep` false).
    fn keep_sums(&mut self, p: usize, keep: &[bool]) {
        let Some(var) = self.packs[p].variations() else {
            return;
        };
        for (lane, (&s, sums)) in self.members[p].iter().zip(var.sums()).enumerate() {
            if !keep[lane] {
                if let Err(at) = self.finished.binary_search_by_key(&s, |f| f.0) {
                    self.finished.insert(at, (s, *sums));
                }
            }
        }
    }

    /// Merge each pack with the later packs of its kind ([`WhPack::same_kind`]) while their
    /// systems fit in [`LANES`]: a system's bits do not depend on its pack, so only the vector
    /// lanes' occupancy changes. Every pack must be at the driver's step (no block under way).
    fn merge_packs(&mut self) {
        let mut p = 0;
        while p < self.packs.len() {
            let mut q = p + 1;
            while q < self.packs.len() {
                let (a, b) = (&self.packs[p], &self.packs[q]);
                if a.same_kind(b) && a.systems() + b.systems() <= LANES {
                    let other = self.packs.remove(q);
                    let members = self.members.remove(q);
                    self.at.remove(q);
                    self.torque_logs.remove(q);
                    self.packs[p].append_systems(other);
                    self.members[p].extend(members);
                } else {
                    q += 1;
                }
            }
            p += 1;
        }
    }

    /// The map state of every running system, for a checkpoint (see [`MapState`]); with
    /// MEGNO, also the 9 values of the sums of every stopped system
    /// ([`MegnoSums::values`]; a running system's state has at least 12).
    pub fn map_states(&mut self) -> Result<MapStates> {
        self.check_caught_up("a checkpoint")?;
        self.fetch()?;
        let mut out = Vec::new();
        for (pack, members) in self.packs.iter().zip(&self.members) {
            let (_, values): MapState = pack.map_state();
            out.extend(members.iter().copied().zip(values));
        }
        let stopped = self.finished.iter().map(|(s, m)| (*s, m.values().to_vec()));
        out.extend(stopped);
        out.sort_unstable_by_key(|(s, _)| *s);
        Ok(out)
    }
}

/// A system's state drifted back and uncorrected, with its torque (see
/// [`WhPack::state_and_torque`]).
type CopiedBack = std::result::Result<(States, [f64; 3]), WhError>;

/// Per pack, every system's state from one copy of the whole pack
/// ([`WhPack::states_and_torques`], the packs in parallel) where at least an eighth of its
/// systems are `wanted` (system, pack, lane), `None` where fewer are: those take a copy each.
/// The bits are the same either way.
fn whole_pack_states(
    packs: &[WhPack],
    wanted: &[(usize, usize, usize)],
) -> Vec<Option<Vec<Option<CopiedBack>>>> {
    let mut count = vec![0; packs.len()];
    for &(_, p, _) in wanted {
        count[p] += 1;
    }
    packs
        .par_iter()
        .zip(count)
        .map(|(pack, n)| {
            (8 * n >= pack.systems())
                .then(|| pack.states_and_torques().into_iter().map(Some).collect())
        })
        .collect()
}

/// A pack on the CPU, the step it has reached, its torque log and its systems, for a block.
type PackRun<'a> = (
    ((&'a mut WhPack, &'a mut u64), &'a mut TorqueLog),
    &'a Vec<usize>,
);

/// With J2, a pack's torque tallies of the steps it took beyond the driver's, one per step
/// and system, in step order: the books take them step by step ([`WhStepper::book_torque`]),
/// with the bits of draining the pack after every step. Allocation-free once its first block
/// has filled it.
#[derive(Debug, Clone, Default)]
struct TorqueLog {
    /// The step of the tallies at `tallies[0..lanes]`.
    first: u64,
    lanes: usize,
    /// Per step, per system, the tally.
    tallies: Vec<[f64; 3]>,
    /// Where the tallies not booked yet begin.
    read: usize,
}

impl TorqueLog {
    /// Whether every tally is booked.
    fn is_empty(&self) -> bool {
        self.read == self.tallies.len()
    }

    /// Drain `pack`'s tallies of its step `step` (the one it just took) into the log.
    fn push(&mut self, pack: &mut WhPack, step: u64) {
        if self.is_empty() {
            self.tallies.clear();
            self.read = 0;
            self.first = step;
            self.lanes = pack.systems();
        }
        pack.drain_torque(|_, t| self.tallies.push(t));
    }

    /// Hand `book` (lane, tally) the tallies of step `step`, when the log holds that step.
    fn take(&mut self, step: u64, mut book: impl FnMut(usize, [f64; 3])) {
        if self.is_empty() || self.first + (self.read / self.lanes) as u64 != step {
            return;
        }
        let tallies = &self.tallies[self.read..self.read + self.lanes];
        tallies
            .iter()
            .enumerate()
            .for_each(|(lane, &t)| book(lane, t));
        self.read += self.lanes;
    }
}
