//! The run driver of the hybrid engine: start or resume, step, bookkeep energy and angular
//! momentum per simulation, write outputs and checkpoints, stop on request.
//!
//! A run integrates one simulation (main and test-particle modes) or many independent ones
//! (multi-simulation mode, GENGA paper section 3.4), each with its own outputs, energy
//! bookkeeping and minimum number of bodies.

use crate::backend::{self, HybridBackend};
pub use crate::config::setup::{RunSetup, Simulation};
use crate::config::Config;
use crate::error::{Error, Location, Result};
use crate::hybrid::stepper::Stepper;
use crate::io::checkpoint::{self, Bookkeeping, EVENT_COLLISION, EVENT_EJECTION};
use crate::io::fingerprint::fnv1a;
use crate::io::output::{self, EnergyLine, Log};
use crate::io::output_dir::{is_numbered, prepare_output_dir, refuse_or_clear};
use crate::io::shard;
use crate::model::{
    Collision, Ejection, EncounterStats, HybridSnapshot, Layout, StepParams, System,
};
use crate::model::{PassTimes, StepCounts, StopRecord};
use crate::observe::Observer;
use crate::physics::changeover::Changeover;
use crate::physics::elements::elements_from_cartesian;
use crate::physics::energy::{energy_split, norm, EnergyParts};
use crate::state::{helio, heliocentric_shift, Bodies, Body};
use crate::units;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

mod add_bodies;
mod collision_state;
mod method;
mod outputs;
mod restart;
mod samples;
mod start;
mod stops;
mod summary;

use crate::cadence::{due, Cadence, Schedule};
use collision_state::StepStarts;
use method::StepMethod;
use outputs::{append_info, write_info, write_summary_csv, InfoStart};
pub use outputs::{check_fresh_outputs, existing_run_files};
use start::{energies_with_spins, fingerprint, fresh_start, open_logs, resumed_start, Start};
pub use start::{initial_state, step_params};
pub use summary::Summary;

/// The files of one simulation.
struct SimLogs {
    energy: Log,
    ejections: Log,
    collisions: Log,
    /// `CollisionsTShift<name>.dat`, with `collisions.time_shift`.
    shifted: Option<Log>,
}

/// Run-time state of one simulation.
struct SimState {
    book: Bookkeeping,
    logs: Option<SimLogs>,
    stopped: bool,
    records: EventRecords,
}

/// The collisions and ejections of one simulation, kept in memory when
/// [`RunSetup::in_memory`] asks for them: the rows of its Collisions and Ejections files.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventRecords {
    /// Time (years) and both bodies just before contact (heliocentric).
    pub collisions: Vec<(f64, [Body; 2])>,
    /// Time (years), the body (heliocentric) and GENGA's case (-1 too close to the star, -2
    /// inside the inner truncation radius, -3 beyond the outer one).
    pub ejections: Vec<(f64, Body, i32)>,
}

struct Driver {
    setup: Arc<RunSetup>,
    params: StepParams,
    backend: Box<dyn HybridBackend>,
    method: StepMethod,
    sims: Vec<SimState>,
    /// Each system's sampled time series, with `samples`.
    samples: Option<samples::Sampler>,
    /// The states at the last two step starts, for collision stops and backtraces.
    starts: StepStarts,
}

/// Bodies of a system (democratic) as heliocentric values.
fn heliocentric(b: &Bodies, pulling: usize, m0: f64) -> Vec<Body> {
    heliocentric_range(b, 0..b.len(), pulling, m0).collect()
}

/// The bodies `range` of a system (democratic) as heliocentric values, the first `pulling` of
/// them making up the momentum ([`heliocentric_shift`]).
fn heliocentric_range(
    b: &Bodies,
    range: std::ops::Range<usize>,
    pulling: usize,
    m0: f64,
) -> impl Iterator<Item = Body> + '_ {
    let shift = heliocentric_shift(b.momentum_range(range.start, range.start + pulling), m0);
    range.map(move |k| {
        let mut body = b.get(k);
        body.vel = helio(body.vel, shift);
        body
    })
}

impl Driver {
    /// Simulation `s`'s time step (code units): the run's, or its own.
    fn tau(&self, s: usize) -> f64 {
        units::days_to_code(self.setup.sims[s].time_step_days)
    }

    /// Time of simulation `s` at `step`, in years.
    fn time_years(&self, s: usize, step: u64) -> f64 {
        units::step_time_years(step, self.tau(s))
    }

    /// Energy and angular momentum of every system in one backend call, when `wanted` (the
    /// radiation's work is booked first, so that E + U is current).
    fn energies(&mut self, wanted: bool) -> Vec<EnergyParts> {
        self.book_work();
        if !wanted {
            return Vec::new();
        }
        energies_with_spins(self.backend.as_mut(), &self.params)
    }

    /// Bodies that pull on the others in system `s` (massive, or all when semi-active).
    fn pulling(&self, s: usize) -> usize {
        self.backend.layout().pulling(s)
    }

    /// Move the work of the non-conservative forces since the last call into every system's
    /// books, as the mergers' energy is: U and L_lost grow by what the forces took away, so
    /// that E + U and L + L_lost stay those of the conservative dynamics.
    fn book_work(&mut self) {
        for (sim, w) in self.sims.iter_mut().zip(self.backend.take_work()) {
            sim.book.u -= w[0];
            sim.book.u -= w[crate::physics::forces::WORK_TIDES];
            for c in 0..3 {
                sim.book.l_lost[c] -= w[1 + c];
            }
            for c in 0..3 {
                sim.book.l_lost[c] -= w[crate::physics::forces::WORK_TORQUE + c];
            }
        }
    }

    /// The energy line of system `s` at `step`, from `e`, one entry of
    /// [`HybridBackend::energies`].
    fn write_energy(&mut self, s: usize, step: u64, e: &EnergyParts) -> Result<()> {
        let line = self.energy_line(s, step, e);
        match &mut self.sims[s].logs {
            Some(logs) => logs.energy.line(&line.format()),
            None => Ok(()),
        }
    }

    /// The energy line of system `s` at `step`, from `e`.
    fn energy_line(&self, s: usize, step: u64, e: &EnergyParts) -> EnergyLine {
        let t = self.time_years(s, step);
        let n = self.backend.layout().systems[s].len;
        let lost = self.l_lost(s);
        let book = &self.sims[s].book;
        let l = e.angular_momentum;
        let lt = [l[0] + lost[0], l[1] + lost[1], l[2] + lost[2]];
        let l_total = norm(lt);
        let e_total = e.kinetic + e.potential + book.u;
        let l0 = norm(book.l0);
        EnergyLine {
            t_years: t,
            n,
            potential: e.potential,
            kinetic: e.kinetic,
            l_lost: norm(lost),
            u: book.u,
            e_total,
            l_total,
            l_relative: if l0 > 0.0 { (l_total - l0) / l0 } else { 0.0 },
            e_relative: (e_total - book.e0) / book.e0.abs(),
            central_spin: self
                .params
                .forces
                .has_tides()
                .then(|| self.backend.layout().systems[s].central_spin),
        }
    }

    fn write_snapshot(&mut self, s: usize, step: u64) -> Result<()> {
        if !self.setup.sims[s].files {
            return Ok(());
        }
        let sim = &self.setup.sims[s];
        let t = self.time_years(s, step);
        let binary = self.setup.cfg.output.binary_snapshots;
        let path = if binary {
            output::binary_snapshot_path(&sim.dir, &sim.name, step)
        } else {
            output::snapshot_path(&sim.dir, &sim.name, step)
        };
        self.write_bodies(s, &path, (t, binary))
    }

    /// System `s`'s bodies, heliocentric, as a snapshot at `t` years (text or binary).
    fn write_bodies(&mut self, s: usize, path: &Path, (t, binary): (f64, bool)) -> Result<()> {
        let pulling = self.pulling(s);
        let m0 = self.setup.sims[s].spec.m0;
        let mut result = Ok(());
        // Straight from the backend's arrays to the file, heliocentric on the fly.
        self.backend.visit_bodies(s, &mut |b, range| {
            let bodies = heliocentric_range(b, range, pulling, m0);
            result = if binary {
                output::write_binary_snapshot(path, t, bodies)
            } else {
                output::write_snapshot(path, t, bodies)
            };
        });
        result
    }

    /// Every simulation's books as a checkpoint holds them: the forces' work booked, the logs
    /// flushed and their lengths noted.
    fn books(&mut self) -> Result<Vec<Bookkeeping>> {
        self.book_work();
        for sim in &mut self.sims {
            if let Some(logs) = &mut sim.logs {
                sim.book.energy_log_len = logs.energy.flush_len()?;
                sim.book.ejection_log_len = logs.ejections.flush_len()?;
                sim.book.collision_log_len = logs.collisions.flush_len()?;
                if let Some(shifted) = &mut logs.shifted {
                    sim.book.shifted_log_len = shifted.flush_len()?;
                }
            }
        }
        Ok(self.sims.iter().map(|s| s.book.clone()).collect())
    }

    fn write_checkpoint(&mut self, step: u64) -> Result<()> {
        let books = self.books()?;
        let (dir, name) = (&self.setup.checkpoint_dir, &self.setup.checkpoint_name);
        let print = fingerprint(&self.setup);
        let map = self.method.map_states()?;
        let samples = self
            .samples
            .as_ref()
            .map(|p| p.states())
            .unwrap_or_default();
        // The samples' file first: it never lags behind the newest checkpoint.
        self.write_samples()?;
        let mut result = Ok(());
        self.backend.visit_snapshot(&mut |pieces| {
            let sections = [map.as_slice(), samples.as_slice()];
            result = checkpoint::save_parts(dir, name, step, &print, &books, sections, pieces)
                .map(|_| ());
        });
        result
    }

    /// Log mergers (both bodies just before contact) and add their energy to U. `step` is the
    /// step the collisions happened in (counted from 0).
    fn record_collisions(&mut self, step: u64, collisions: &[Collision]) -> Result<()> {
        for c in collisions {
            let t = units::code_to_years(step as f64 * self.tau(c.system) + c.time_offset);
            if let Some(lost) = c.lost {
                self.book_removal(c.system, &[(lost, false)]);
            }
            self.sims[c.system].book.u += c.u;
            self.record_collision_line(c.system, t, c.bodies)?;
        }
        Ok(())
    }

    /// Count, log and keep a collision of system `s` at `t` (years) between `bodies`
    /// (heliocentric, just before contact), as its first event if it is.
    fn record_collision_line(&mut self, s: usize, t: f64, bodies: [Body; 2]) -> Result<()> {
        let sim = &mut self.sims[s];
        sim.book.collisions += 1;
        sim.book.note_event(t, EVENT_COLLISION);
        if let Some(logs) = &mut sim.logs {
            logs.collisions
                .line(&output::collision_line(t, &bodies[0], &bodies[1]))?;
        }
        if self.setup.in_memory {
            sim.records.collisions.push((t, bodies));
        }
        Ok(())
    }

    /// Log ejected bodies and move their energy and angular momentum into U and L_lost.
    fn record_ejections(&mut self, step: u64, ejected: &[Ejection]) -> Result<()> {
        let mut systems: Vec<usize> = ejected.iter().map(|e| e.system).collect();
        systems.dedup();
        for s in systems {
            let mine: Vec<&Ejection> = ejected.iter().filter(|e| e.system == s).collect();
            let removed: Vec<(Body, bool)> =
                mine.iter().map(|e| (e.democratic, e.massive)).collect();
            self.book_removal(s, &removed);
            // The event's time: the step's end, or the perihelion passage within the step.
            let tau = self.tau(s);
            let time = |e: &Ejection| units::code_to_years(step as f64 * tau - e.before_end);
            let lines: Vec<_> = mine.iter().map(|e| (time(e), e.body, e.case)).collect();
            self.record_ejection_lines(s, &lines)?;
        }
        Ok(())
    }

    /// Count, log and keep the ejections `(time in years, heliocentric body, case)` of system
    /// `s`, the earliest as its first event if it is.
    fn record_ejection_lines(&mut self, s: usize, lines: &[(f64, Body, i32)]) -> Result<()> {
        let sim = &mut self.sims[s];
        sim.book.ejections += lines.len() as u64;
        let first = lines.iter().map(|l| l.0).fold(f64::INFINITY, f64::min);
        sim.book.note_event(first, EVENT_EJECTION);
        if let Some(logs) = &mut sim.logs {
            for (t, body, case) in lines {
                logs.ejections
                    .line(&output::ejection_line(*t, body, *case))?;
            }
        }
        if self.setup.in_memory {
            sim.records.ejections.extend_from_slice(lines);
        }
        Ok(())
    }

    /// The bodies of system `s` as the backend holds them, heliocentric.
    fn bodies_now(&mut self, s: usize) -> Vec<Body> {
        let pulling = self.pulling(s);
        let m0 = self.setup.sims[s].spec.m0;
        heliocentric(&self.backend.bodies(s), pulling, m0)
    }

    /// Move the energy and angular momentum of bodies just removed from system `s` (democratic
    /// states, with whether each was massive) into U and L_lost: the difference between the
    /// system with and without them. Passive test particles carry neither.
    fn book_removal(&mut self, s: usize, removed: &[(Body, bool)]) {
        let semi = self.setup.semi_active;
        if !semi && removed.iter().all(|(_, massive)| !massive) {
            return;
        }
        let after = self.backend.bodies(s);
        let sys = self.backend.layout().systems[s];
        // Rebuild the state before the removal: massive bodies first, then the others.
        let mut before = Bodies::default();
        for k in 0..sys.massive {
            before.push(&after.get(k));
        }
        let mut massive_before = sys.massive;
        for (b, _) in removed.iter().filter(|(_, massive)| *massive) {
            before.push(b);
            massive_before += 1;
        }
        for k in sys.massive..sys.len {
            before.push(&after.get(k));
        }
        for (b, _) in removed.iter().filter(|(_, massive)| !massive) {
            before.push(b);
        }
        let m0 = self.setup.sims[s].spec.m0;
        let inc_b = if semi { before.len() } else { massive_before };
        let inc_a = if semi { sys.len } else { sys.massive };
        let eb = energy_split(m0, &before, 0, inc_b, massive_before);
        let ea = energy_split(m0, &after, 0, inc_a, sys.massive);
        let book = &mut self.sims[s].book;
        book.u += (eb.kinetic + eb.potential) - (ea.kinetic + ea.potential);
        for c in 0..3 {
            book.l_lost[c] += eb.angular_momentum[c] - ea.angular_momentum[c];
        }
    }

    /// Relative energy and angular momentum error of system `s` now.
    fn errors(&mut self, s: usize, e: &EnergyParts) -> (f64, f64) {
        let lost = self.l_lost(s);
        let book = &self.sims[s].book;
        let l = e.angular_momentum;
        let lt = norm([l[0] + lost[0], l[1] + lost[1], l[2] + lost[2]]);
        let l0 = norm(book.l0);
        let de = (e.kinetic + e.potential + book.u - book.e0) / book.e0.abs();
        (de, if l0 > 0.0 { (lt - l0) / l0 } else { 0.0 })
    }
}

/// Run one configuration from `bodies` (heliocentric); see [`run_setup`].
pub fn run(
    cfg: &Config,
    bodies: &[Body],
    resume: bool,
    interrupt: &AtomicBool,
    observer: &mut Observer<'_>,
) -> Result<Summary> {
    run_setup(RunSetup::single(cfg, bodies), resume, interrupt, observer)
}

/// Run `setup`, or resume it from the newest checkpoint. `interrupt` is polled every step; when
/// set, the run writes snapshots and a checkpoint and returns with `stopped` set. `observer`
/// hears the progress about once a second.
pub fn run_setup(
    setup: RunSetup,
    resume: bool,
    interrupt: &AtomicBool,
    observer: &mut Observer<'_>,
) -> Result<Summary> {
    let backend = backend::create(setup.cfg.backend, setup.cfg.cpu_passes, setup.cfg.device)?;
    run_setup_on(setup, backend, resume, interrupt, observer)
}

/// [`run_setup`] on a given backend (empty until the run fills it).
pub fn run_setup_on(
    setup: RunSetup,
    backend: Box<dyn HybridBackend>,
    resume: bool,
    interrupt: &AtomicBool,
    observer: &mut Observer<'_>,
) -> Result<Summary> {
    if rayon::current_thread_index().is_some() {
        return run_on_pool(setup, backend, resume, interrupt, observer);
    }
    // Run on a pool thread, so the many short parallel passes of a step do not hand work back
    // and forth with a waiting caller thread.
    let pool = rayon::ThreadPoolBuilder::new()
        .build()
        .map_err(|e| Error::run(format!("cannot start the worker threads: {e}")))?;
    pool.install(|| run_on_pool(setup, backend, resume, interrupt, observer))
}

fn run_on_pool(
    setup: RunSetup,
    backend: Box<dyn HybridBackend>,
    resume: bool,
    interrupt: &AtomicBool,
    observer: &mut Observer<'_>,
) -> Result<Summary> {
    let end = setup.cfg.steps;
    let mut run = HybridRun::start(setup, backend, resume)?;
    run.advance(end, interrupt, observer)?;
    run.finish()
}

/// A hybrid run under way: started fresh or from a checkpoint, stepped on to any step, then
/// finished (the last step's outputs, checkpoint, ensemble table and summary). The command
/// line's [`run_setup`] runs it to its end step in one piece; the Python module steps it in
/// pieces and reads its state in between. Every method must be called on a thread of the rayon
/// pool the run is to use (see [`run_setup_on`]).
pub struct HybridRun {
    driver: Driver,
    step: u64,
    first_step: u64,
    fresh: bool,
    n_start: usize,
    counts: StepCounts,
    wall_s: f64,
    /// The steps whose energy line and snapshots the step loop wrote last.
    written: (u64, u64),
    stopped: Option<String>,
    stop_kind: Option<&'static str>,
    warnings: Vec<String>,
}

impl HybridRun {
    /// Start `setup` on `backend` (empty until now): from the initial conditions, from GENGA's
    /// files at its restart step (`Restart timestep`), or with `resume` from the newest
    /// checkpoint in its checkpoint directory.
    pub fn start(
        mut setup: RunSetup,
        mut backend: Box<dyn HybridBackend>,
        resume: bool,
    ) -> Result<Self> {
        setup.apply_stop();
        let params = step_params(&setup);
        let samples = samples::Sampler::new(&setup)?;
        // A resume reads its checkpoint before creating anything: a resume into a missing
        // directory is an input error that leaves no empty directory behind.
        let start = if let Some(step) = setup.cfg.restart_step.filter(|_| !resume) {
            restart::restart_start(&mut setup, backend.as_mut(), &params, step)?
        } else if resume {
            if let Some(record) = &setup.shard {
                shard::check_resume(&setup.checkpoint_dir, record)?;
            }
            let (c, warnings) =
                checkpoint::load_newest(&setup.checkpoint_dir, &setup.checkpoint_name)?;
            let mut start = resumed_start(&mut setup, backend.as_mut(), c)?;
            start.warnings = warnings;
            start
        } else {
            if setup.has_files() {
                prepare_output_dir(&setup.checkpoint_dir)?;
            }
            if let Some(record) = &setup.shard {
                shard::write_record(&setup.checkpoint_dir, record)?;
            }
            fresh_start(&mut setup, backend.as_mut(), &params)?
        };
        Self::begin(setup, backend, params, start, samples)
    }

    /// Start `setup` on `backend` from checkpoint `c` (e.g. one the Python module kept in a
    /// file of its own), after the same checks as a resume.
    pub fn from_checkpoint(
        mut setup: RunSetup,
        mut backend: Box<dyn HybridBackend>,
        c: checkpoint::Checkpoint,
    ) -> Result<Self> {
        setup.apply_stop();
        let params = step_params(&setup);
        let samples = samples::Sampler::new(&setup)?;
        let start = resumed_start(&mut setup, backend.as_mut(), c)?;
        Self::begin(setup, backend, params, start, samples)
    }

    fn begin(
        setup: RunSetup,
        mut backend: Box<dyn HybridBackend>,
        params: StepParams,
        mut start: Start,
        mut samples: Option<samples::Sampler>,
    ) -> Result<Self> {
        let method = StepMethod::new(&setup, params, backend.as_mut(), &start)?;
        let n_start = backend.len();
        if let Some(p) = &mut samples {
            p.restore(std::mem::take(&mut start.samples))?;
        }
        let mut driver = Driver {
            setup: Arc::new(setup),
            params,
            backend,
            method,
            sims: start.sims,
            samples,
            starts: StepStarts::default(),
        };
        if start.first_outputs {
            driver.write_initial_outputs()?;
        }
        Ok(HybridRun {
            driver,
            step: start.step,
            first_step: start.step,
            fresh: start.first_outputs,
            n_start,
            counts: StepCounts::default(),
            wall_s: 0.0,
            written: (u64::MAX, u64::MAX),
            stopped: None,
            stop_kind: None,
            warnings: start.warnings,
        })
    }

    /// Step on to step `until` (at most the configuration's end step), or until `interrupt` is
    /// set or every simulation stopped ([`HybridRun::stopped`] then says why). `observer` hears
    /// the progress about once a second.
    pub fn advance(
        &mut self,
        until: u64,
        interrupt: &AtomicBool,
        observer: &mut Observer<'_>,
    ) -> Result<()> {
        if self.stopped.is_some() {
            return Ok(());
        }
        let until = until.min(self.driver.setup.cfg.steps);
        let end =
            self.driver
                .step_loop((self.step, until), &mut self.counts, interrupt, observer)?;
        self.step = end.step;
        // One simulation that a failed drift stopped a step back is at that step (its time,
        // and where `add_bodies` carries on from).
        if let (1, Some(record)) = (self.driver.sims.len(), self.stop_record(0)) {
            self.step = self.step.min(record.step);
        }
        self.wall_s += end.wall_s;
        self.written = (end.energy_written, end.snapshot_written);
        self.stopped = end.stopped;
        self.stop_kind = end.stop_kind;
        self.driver.fetch_map()?;
        // The backend is brought to the step reached when something reads it (a small
        // system's single step costs less than that sync).
        Ok(())
    }

    /// The step reached.
    pub fn step(&self) -> u64 {
        self.step
    }

    /// Why the run stopped before its end step, if it did (an interrupt, every simulation
    /// stopped, or the event that stopped its one simulation: fewer bodies than its minimum, or
    /// a `stop` condition; see [`HybridRun::stop_kind`]). An interrupted run steps on after
    /// [`HybridRun::clear_stop`].
    pub fn stopped(&self) -> Option<&str> {
        self.stopped.as_deref()
    }

    /// What stopped the run before its end step, if it did: `interrupt`, `minimum bodies`,
    /// `every simulation`, or the event that ended its one simulation (`encounter`,
    /// `collision`, `ejection` below the inner truncation radius or into the central body,
    /// `escape` beyond the outer one, `failure` of the map's Kepler drift, `chaotic` MEGNO).
    pub fn stop_kind(&self) -> Option<&'static str> {
        self.stop_kind
    }

    /// With `chaos: (megno: true)` on the Wisdom-Holman map, every simulation's MEGNO and
    /// maximal Lyapunov exponent (per year, REBOUND's convention), `None` for one that never
    /// ran on the map (adding bodies restarts the variations); `None` otherwise.
    pub fn chaos(&self) -> Option<Vec<Option<(f64, f64)>>> {
        self.driver.chaos()
    }

    /// Every system's sampled time series so far as arrays (see [`crate::io::samples`]);
    /// `None` without `samples`.
    pub fn samples(&self) -> Option<Vec<crate::io::samples::Array>> {
        let systems: Vec<usize> = self.driver.setup.sims.iter().map(|s| s.index).collect();
        Some(self.driver.samples.as_ref()?.arrays(&systems))
    }

    /// Whether simulation `s` stopped (below its minimum number of bodies, or at a `stop`
    /// condition); the others step on.
    pub fn system_stopped(&self, s: usize) -> bool {
        self.driver.sims.get(s).is_some_and(|sim| sim.stopped)
    }

    /// Forget an interrupt, so that [`HybridRun::advance`] steps on (a run whose simulations
    /// all stopped stays stopped).
    pub fn clear_stop(&mut self) {
        let sims = &self.driver.sims;
        if sims.iter().any(|s| !s.stopped) {
            self.stopped = None;
            self.stop_kind = None;
        }
    }

    /// The run's setup.
    pub fn setup(&self) -> &RunSetup {
        &self.driver.setup
    }

    /// The step parameters.
    pub fn params(&self) -> &StepParams {
        &self.driver.params
    }

    /// The backend's name.
    pub fn backend_name(&self) -> &'static str {
        self.driver.backend.name()
    }

    /// Time of the step reached, in years (of the first simulation, when they have steps of
    /// their own).
    pub fn time_years(&self) -> f64 {
        self.driver.time_years(0, self.step)
    }

    /// The bodies of simulation `s` now, heliocentric, in their order in the backend.
    pub fn bodies(&mut self, s: usize) -> Result<Vec<Body>> {
        self.driver.sync()?;
        Ok(self.driver.bodies_now(s))
    }

    /// The energy line of simulation `s` now (what the Energy file would hold; a stopped
    /// simulation's at the step it stopped at).
    pub fn energy_line(&mut self, s: usize) -> Result<EnergyLine> {
        self.driver.sync()?;
        let e = self.driver.energies(true)[s];
        // A stopped system's state is that of the step it stopped at.
        let step = self.stop_record(s).map_or(self.step, |r| r.step);
        Ok(self.driver.energy_line(s, step, &e))
    }

    /// How simulation `s` stopped (when, why, which bodies, how close), if it did.
    pub fn stop_record(&self, s: usize) -> Option<StopRecord> {
        self.driver.sims.get(s)?.book.stop
    }

    /// The collisions and ejections of simulation `s` since the start of this process's part
    /// of the run, kept when [`RunSetup::in_memory`] is set (the files hold them otherwise).
    pub fn events(&self, s: usize) -> &EventRecords {
        &self.driver.sims[s].records
    }

    /// The run's state as a checkpoint (the bytes of `Checkpoint<name>_<step>.bin`).
    pub fn checkpoint_bytes(&mut self) -> Result<Vec<u8>> {
        self.driver.sync()?;
        let books = self.driver.books()?;
        let print = fingerprint(&self.driver.setup);
        let step = self.step;
        let map = self.driver.method.map_states()?;
        let samples = self
            .driver
            .samples
            .as_ref()
            .map(|p| p.states())
            .unwrap_or_default();
        let mut data = Vec::new();
        let mut result = Ok(());
        self.driver.backend.visit_snapshot(&mut |pieces| {
            let sections = [map.as_slice(), samples.as_slice()];
            result = checkpoint::encode_parts(step, &print, &books, sections, pieces, &mut data);
        });
        result.map_err(|e| Error::run(format!("cannot encode the checkpoint: {e}")))?;
        Ok(data)
    }

    /// End the run at the step reached: the last step's energy line, snapshot and checkpoint,
    /// the ensemble table when asked for, a finished shard's record, and the summary.
    pub fn finish(self) -> Result<Summary> {
        let end = LoopEnd {
            step: self.step,
            stopped: self.stopped,
            stop_kind: self.stop_kind,
            wall_s: self.wall_s,
            energy_written: self.written.0,
            snapshot_written: self.written.1,
        };
        let setup = Arc::clone(&self.driver.setup);
        let mut summary =
            self.driver
                .finish(self.first_step, self.fresh, self.n_start, end, self.counts)?;
        summary.warnings = self.warnings;
        // A shard is finished when it reached its last step or every system in it stopped; an
        // interrupted one is resumed (`--resume auto`).
        let finished = summary.last_step >= setup.cfg.steps
            || summary.stopped_simulations == summary.simulations;
        if let (Some(record), true) = (&setup.shard, finished) {
            let done = shard::ShardRecord {
                finished: true,
                end_step: setup.cfg.steps,
                ..record.clone()
            };
            shard::write_record(&setup.checkpoint_dir, &done)?;
        }
        Ok(summary)
    }
}

/// How the step loop ended: the last step reached, why it stopped early (if it did), the wall
/// time, and the steps whose energy line and snapshots it wrote.
struct LoopEnd {
    step: u64,
    stopped: Option<String>,
    stop_kind: Option<&'static str>,
    wall_s: f64,
    energy_written: u64,
    snapshot_written: u64,
}

impl Driver {
    /// The energy line and snapshot of step 0 of a fresh run.
    fn write_initial_outputs(&mut self) -> Result<()> {
        self.take_samples(0)?;
        let setup = Arc::clone(&self.setup);
        let cfg = &setup.cfg;
        let energies = self.energies(cfg.output.energy_interval > 0);
        for s in 0..self.setup.sims.len() {
            if cfg.output.energy_interval > 0 {
                self.write_energy(s, 0, &energies[s])?;
            }
            if cfg.output.coordinates_interval > 0 {
                self.write_snapshot(s, 0)?;
            }
        }
        Ok(())
    }

    /// Step from `first_step` to the end step, or until an interrupt or every simulation
    /// stopped: record the events, stop the systems that fall below their minimum, write the
    /// outputs and checkpoints that are due, and report progress about once a second.
    fn step_loop(
        &mut self,
        (first_step, until): (u64, u64),
        counts: &mut StepCounts,
        interrupt: &AtomicBool,
        observer: &mut Observer<'_>,
    ) -> Result<LoopEnd> {
        let setup = Arc::clone(&self.setup);
        let (setup, d) = (&*setup, self);
        let cfg = &setup.cfg;
        let n_sims = setup.sims.len();
        let mut cadence = Cadence::new(interrupt, first_step, cfg.steps);
        let mut timed_seen = 0;
        let mut step = first_step;
        let out = &cfg.output;
        let mut energy_steps = Schedule::after(out.energy_interval, step);
        let mut snapshot_steps =
            Schedule::bursts_after(out.coordinates_interval, out.outputs_per_interval, step);
        let mut checkpoint_steps = Schedule::after(out.checkpoint_interval, step);
        let mut stopped = None;
        // What stopped the run, as HybridRun::stop_kind names it.
        let mut stop_kind = None;
        // Steps whose energy line and snapshots the loop already wrote (an interrupt right after
        // them must not write them twice).
        let (mut energy_written, mut snapshot_written) = (u64::MAX, u64::MAX);
        let mut n_stopped = d.sims.iter().filter(|s| s.stopped).count();
        while step < until {
            // An interrupt waits for the end of a block of the map's (a few steps at most).
            if cadence.stop_requested() && d.caught_up() {
                stopped = Some(format!(
                    "interrupted at step {step}; continue with --resume"
                ));
                stop_kind = Some("interrupt");
                break;
            }
            let sample_at = d.samples.as_ref().map_or(u64::MAX, |s| s.next_due());
            let reads = [&energy_steps, &snapshot_steps, &checkpoint_steps];
            let next_read = reads
                .iter()
                .map(|s| s.next())
                .fold(until.min(sample_at), u64::min);
            d.read_at(next_read);
            d.keep_step_start();
            let (events, map_stops) = d.step_once(counts)?;
            if !events.collisions.is_empty() {
                d.record_collisions(step, &events.collisions)?;
            }
            step += 1;
            d.see_collisions_again(step, &events)?;
            let mut ended = d.stop_on_map(step, &map_stops)?;
            if !events.ejections.is_empty() {
                d.record_ejections(step, &events.ejections)?;
            }
            d.stop_after_events(step, &events, &mut ended)?;
            n_stopped += ended.count;
            if let (1, Some((why, kind))) = (n_sims, ended.first) {
                stopped = Some(why);
                stop_kind = Some(kind);
            }
            if stopped.is_some() || n_stopped == n_sims {
                stopped.get_or_insert_with(|| format!("every simulation stopped by step {step}"));
                stop_kind.get_or_insert("every simulation");
                break;
            }
            d.take_samples(step)?;
            let energy_due = energy_steps.hit(step);
            let snapshot_due = snapshot_steps.hit(step);
            let checkpoint_due = checkpoint_steps.hit(step);
            if step < cfg.steps {
                let requested = d.caught_up() && cadence.checkpoint_requested();
                if energy_due || snapshot_due || checkpoint_due || requested {
                    d.sync()?;
                }
                let energies = d.energies(energy_due);
                for s in (0..n_sims).filter(|_| energy_due || snapshot_due) {
                    if d.sims[s].stopped {
                        continue;
                    }
                    if energy_due {
                        d.write_energy(s, step, &energies[s])?;
                        energy_written = step;
                    }
                    if snapshot_due {
                        d.write_snapshot(s, step)?;
                        snapshot_written = step;
                    }
                }
                if checkpoint_due || requested {
                    d.write_checkpoint(step)?;
                }
            }
            // The clock is read on timed steps only (every step once timed steps average 50 us).
            let timed = counts.timed_steps != timed_seen;
            timed_seen = counts.timed_steps;
            if timed {
                cadence.report(step, d.backend.len(), observer);
            }
        }
        Ok(LoopEnd {
            step,
            stopped,
            stop_kind,
            wall_s: cadence.elapsed_s(),
            energy_written,
            snapshot_written,
        })
    }

    /// The end of a run: the last step reached always gets an energy line, a snapshot and a
    /// checkpoint; then the ensemble table when asked for, and the summary (also appended to
    /// the info files).
    fn finish(
        mut self,
        first_step: u64,
        fresh: bool,
        n_start: usize,
        end: LoopEnd,
        counts: StepCounts,
    ) -> Result<Summary> {
        let setup = Arc::clone(&self.setup);
        let (setup, d) = (&*setup, &mut self);
        d.sync()?;
        let cfg = &setup.cfg;
        let n_sims = setup.sims.len();
        let LoopEnd {
            step,
            stopped,
            stop_kind: _,
            wall_s,
            energy_written,
            snapshot_written,
        } = end;
        // The last step reached always gets an energy line, a snapshot and a checkpoint. The
        // checkpoint records the logs' lengths before an energy line that is not on the
        // schedule, so a resume cuts that line off and the Energy file holds exactly the lines
        // of an uninterrupted run.
        let energies = d.energies(true);
        let wanted = |d: &Driver, s: usize| !d.sims[s].stopped && (step > first_step || fresh);
        let energy_line = cfg.output.energy_interval != 0 && energy_written != step;
        let on_schedule = due(cfg.output.energy_interval, step);
        for s in 0..n_sims {
            if wanted(d, s) && energy_line && on_schedule {
                d.write_energy(s, step, &energies[s])?;
            }
            if wanted(d, s) && snapshot_written != step {
                d.write_snapshot(s, step)?;
            }
        }
        d.write_checkpoint(step)?;
        if energy_line && !on_schedule {
            for s in 0..n_sims {
                if wanted(d, s) {
                    d.write_energy(s, step, &energies[s])?;
                }
            }
        }
        for sim in &mut d.sims {
            if let Some(logs) = &mut sim.logs {
                logs.energy.flush_len()?;
            }
        }
        let (mut de, mut dl) = (0.0f64, 0.0f64);
        for s in 0..n_sims {
            let (e, l) = d.errors(s, &energies[s]);
            if e.abs() >= de.abs() {
                de = e;
            }
            if l.abs() >= dl.abs() {
                dl = l;
            }
        }
        if let Some(path) = &setup.summary_csv {
            write_summary_csv(d, path)?;
        }
        let summary = Summary {
            backend: d.backend.name(),
            first_step,
            last_step: step,
            wall_s,
            simulations: n_sims,
            stopped_simulations: d.sims.iter().filter(|s| s.stopped).count(),
            n_start,
            n_end: d.backend.len(),
            rel_energy_error: de,
            rel_angular_momentum_error: dl,
            candidates: counts.candidates,
            encounters: counts.encounters,
            ejections: d.sims.iter().map(|s| s.book.ejections).sum(),
            collisions: d.sims.iter().map(|s| s.book.collisions).sum(),
            groups: counts.groups,
            recursion: setup.cfg.recursion,
            integrator: setup.cfg.integrator,
            map_on_device: d.map_on_device(),
            megno_classes: d.chaos().map(|c| summary::megno_classes(&c)),
            times: counts.times,
            timed_steps: counts.timed_steps,
            stopped,
            warnings: Vec::new(),
        };
        append_info(setup, &summary.report())?;
        Ok(summary)
    }
}
