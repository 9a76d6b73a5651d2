//! The run driver of the sheet engine: read the scenario, generate the patch, step, write
//! snapshots and the time series, stop on request, summarise.
//!
//! Files in the output directory (`<name>` the scenario name):
//!
//! | file | content |
//! |---|---|
//! | `Sheet<name>_<step, 12 digits>.dat` | `#` header (time, box, N), then one line per particle in input order: `x y z vx vy vz r m` (SI) |
//! | `Series<name>.dat` | `step t[s] t[orbits] N sigma_x sigma_y sigma_z sigma tau filling_factor z_rms candidates_per_step collisions_per_step` |
//! | `info<name>.dat` | the scenario and the run summary |
//!
//! Velocity dispersions are taken relative to the shear flow (`u_y = v_y + 3/2 Omega x`), as
//! plain (unweighted) standard deviations over particles. `tau = sum pi r^2 / L^2` is the
//! geometric optical depth; the filling factor is the solid volume over the volume of a slab of
//! thickness `2 sqrt(3) z_rms` (the uniform slab with the same z_rms):
//! `FF = sum 4/3 pi r^3 / (L^2 2 sqrt(3) z_rms)`.

use super::{step, SheetPassTimes};
use crate::backend::sheet::{BackendSpec, SheetPassSet};
use crate::cadence::{Cadence, Schedule};
use crate::config::sheet::Sheet;
use crate::config::Overrides;
use crate::error::{Error, Location, Result};
use crate::io::output_dir::{is_numbered, prepare_output_dir, refuse_or_clear, run_files};
use crate::io::sheet_checkpoint as checkpoint;
use crate::observe::{Engine, Observer, RunEvent};
use crate::physics::sheet::Particles;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// Observables of one state (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Observables {
    pub sigma: [f64; 3],
    pub sigma_total: f64,
    pub tau: f64,
    pub filling_factor: f64,
    pub z_rms: f64,
}

/// Compute the observables (sequential sums in array order).
pub fn observables(p: &Particles, omega: f64, l: f64) -> Observables {
    let n = p.len().max(1) as f64;
    let mut s1 = [0.0; 3];
    let mut s2 = [0.0; 3];
    let (mut area, mut vol, mut z2) = (0.0, 0.0, 0.0);
    for k in 0..p.len() {
        let u = [p.vx[k], p.vy[k] + 1.5 * omega * p.x[k], p.vz[k]];
        for a in 0..3 {
            s1[a] += u[a];
            s2[a] += u[a] * u[a];
        }
        let r = p.r[k];
        area += std::f64::consts::PI * r * r;
        vol += 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
        z2 += p.z[k] * p.z[k];
    }
    let mut sigma = [0.0; 3];
    for a in 0..3 {
        let mean = s1[a] / n;
        sigma[a] = (s2[a] / n - mean * mean).max(0.0).sqrt();
    }
    let z_rms = (z2 / n).sqrt();
    let slab = l * l * 2.0 * 3f64.sqrt() * z_rms;
    Observables {
        sigma,
        sigma_total: (sigma[0] * sigma[0] + sigma[1] * sigma[1] + sigma[2] * sigma[2]).sqrt(),
        tau: area / (l * l),
        filling_factor: if slab > 0.0 { vol / slab } else { 0.0 },
        z_rms,
    }
}

/// What a sheet run did.
#[derive(Debug, Clone, PartialEq)]
pub struct SheetSummary {
    pub name: String,
    pub backend: &'static str,
    pub threads: usize,
    /// Number of particles.
    pub n: usize,
    /// Steps integrated.
    pub steps: u64,
    /// Simulated time at the end [s] and in orbits.
    pub t_end: f64,
    pub orbits: f64,
    /// Wall time of the stepping loop (outputs excluded) [s].
    pub wall_s: f64,
    /// Time per pass summed over steps [s].
    pub times: SheetPassTimes,
    /// Candidate pairs found and collisions resolved over the run.
    pub candidates: u64,
    pub collisions: u64,
    /// Particle-particle and particle-cell interactions of the last gravity pass.
    pub gravity_pp: u64,
    pub gravity_pc: u64,
    /// Observables at the start and the end.
    pub start: Observables,
    pub end: Observables,
    pub out_dir: PathBuf,
    /// True when the run was stopped by a signal (SIGINT, SIGTERM, SIGHUP).
    pub interrupted: bool,
    /// The step this invocation started from (0, or the checkpoint's step on resume); `steps`
    /// counts this invocation's steps, the collision counts and rates the whole run's.
    pub first_step: u64,
}

impl SheetSummary {
    /// Wall time per step [s].
    pub fn time_per_step(&self) -> f64 {
        self.wall_s / self.steps.max(1) as f64
    }

    /// A human-readable summary (time per step and the per-pass breakdown).
    pub fn report(&self) -> String {
        let s = self.steps.max(1) as f64;
        // Counts are over the whole run (from step 0): so are their rates.
        let run_steps = (self.first_step + self.steps).max(1) as f64;
        let t = &self.times;
        format!(
            "sheet {}: N = {}, {} steps ({:.4} orbits) on {} ({} threads){}\n\
             wall time {:.3} s, {:.4e} s per step, {:.3} us per particle-step\n\
             time per step by pass: integrate {:.3e} s, boundary {:.3e} s, tree {:.3e} s, \
             moments {:.3e} s, gravity {:.3e} s, collision search {:.3e} s, \
             collision resolution {:.3e} s\n\
             collisions {} ({:.1} per step, {:.3} per particle-step), candidates {}\n\
             gravity interactions per particle: {:.0} particle-particle, {:.0} particle-cell\n\
             velocity dispersion {:.4e} -> {:.4e} m/s (x y z: {:.3e} {:.3e} {:.3e}); \
             z_rms {:.3} -> {:.3} m; tau {:.4}; filling factor {:.4} -> {:.4}\n\
             outputs in {}",
            self.name,
            self.n,
            self.steps,
            self.orbits,
            self.backend,
            self.threads,
            if self.interrupted {
                " (interrupted)"
            } else {
                ""
            },
            self.wall_s,
            self.time_per_step(),
            1e6 * self.time_per_step() / self.n.max(1) as f64,
            t.integrate / s,
            t.boundary / s,
            t.tree / s,
            t.moments / s,
            t.gravity / s,
            t.collision_search / s,
            t.collision_resolve / s,
            self.collisions,
            self.collisions as f64 / run_steps,
            self.collisions as f64 / run_steps / self.n.max(1) as f64,
            self.candidates,
            self.gravity_pp as f64 / self.n.max(1) as f64,
            self.gravity_pc as f64 / self.n.max(1) as f64,
            self.start.sigma_total,
            self.end.sigma_total,
            self.end.sigma[0],
            self.end.sigma[1],
            self.end.sigma[2],
            self.start.z_rms,
            self.end.z_rms,
            self.end.tau,
            self.start.filling_factor,
            self.end.filling_factor,
            self.out_dir.display()
        )
    }
}

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::io(path, e)
}

/// Write a snapshot (particles in input order; module docs).
pub fn write_snapshot(path: &Path, p: &Particles, t: f64, omega: f64, l: f64) -> Result<()> {
    let p = p.sorted_by_id();
    let orbits = t * omega / (2.0 * std::f64::consts::PI);
    // Written to a temporary name and renamed: a snapshot that exists is complete.
    crate::io::output::write_atomic_with(path, |w| {
        writeln!(
            w,
            "# orrery sheet snapshot: t = {t:.17e} s = {orbits:.6} orbits, L = {l} m, Omega = {omega} 1/s, N = {}\n\
             # x y z vx vy vz r m (SI)",
            p.len()
        )?;
        for k in 0..p.len() {
            writeln!(
                w,
                "{:.17e} {:.17e} {:.17e} {:.17e} {:.17e} {:.17e} {:.17e} {:.17e}",
                p.x[k], p.y[k], p.z[k], p.vx[k], p.vy[k], p.vz[k], p.r[k], p.m[k]
            )?;
        }
        Ok(())
    })
}

/// The scenario as a resume must find it: everything but the end step and the output
/// directory.
fn resume_fingerprint(sc: &Sheet) -> String {
    let mut s = sc.clone();
    s.steps = 0;
    s.output.dir = PathBuf::new();
    ron::ser::to_string_pretty(&s, ron::ser::PrettyConfig::default()).unwrap_or_default()
}

/// Path of the record of the scenario a run started with (compared on resume).
/// The files a sheet run named `name` writes in `dir` that are there: its snapshots, series,
/// info, scenario record and checkpoint.
pub fn sheet_run_files(dir: &Path, name: &str) -> Vec<PathBuf> {
    let fixed = [
        format!("Series{name}.dat"),
        format!("info{name}.dat"),
        format!("Scenario{name}.ron"),
        format!("SheetCheckpoint{name}.bin"),
    ];
    let snapshot = format!("Sheet{name}_");
    run_files(dir, |f| {
        fixed.iter().any(|x| x == f) || is_numbered(f, &snapshot, &[".dat"])
    })
}

fn scenario_record_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("Scenario{name}.ron"))
}

/// Refuse (exit code 2) to resume run `sc` from a checkpoint written with another scenario.
fn check_same_scenario(sc: &Sheet, source: &Path) -> Result<()> {
    let path = scenario_record_path(&sc.output.dir, &sc.name);
    let Ok(before) = std::fs::read_to_string(&path) else {
        return Ok(());
    };
    let now = resume_fingerprint(sc);
    // The record's values decide, not its text: a record written by another version of `ron`
    // (spacing, float spelling) that reads back to the same scenario matches.
    let before = match ron::from_str::<Sheet>(&before) {
        Ok(old) => resume_fingerprint(&old),
        Err(_) => before,
    };
    if before == now {
        return Ok(());
    }
    let changed: Vec<String> = before
        .lines()
        .zip(now.lines())
        .filter(|(a, b)| a != b)
        .map(|(a, b)| format!("`{}` is now `{}`", a.trim(), b.trim()))
        .take(4)
        .collect();
    Err(Error::input(
        Location::file(source),
        format!(
            "the checkpoint in {} was written with a different scenario ({}); expected the same \
             scenario (only `steps` and the output directory may change on resume), or a fresh \
             run without --resume",
            sc.output.dir.display(),
            if changed.is_empty() {
                "fields added or removed".to_string()
            } else {
                changed.join(", ")
            }
        ),
    ))
}

/// Read and run a sheet scenario file with the command-line overrides (the CLI's entry point).
/// `--threads` selects the size of a rayon pool used for this run; `--backend`, `--device` and
/// `--cpu-passes` (sheet pass names) choose the backend; `--order`, `--mode` and
/// `--semi-active` belong to the hybrid engine and are rejected.
pub fn run_file(
    path: &Path,
    ov: &Overrides,
    interrupt: &AtomicBool,
    resume: bool,
) -> Result<SheetSummary> {
    run_file_resume(path, ov, interrupt, Some(resume), &mut |_| {})
}

/// [`run_file`] where `resume` `None` means `--resume auto`: resume when the run's checkpoint
/// exists, start fresh otherwise.
pub fn run_file_resume(
    path: &Path,
    ov: &Overrides,
    interrupt: &AtomicBool,
    resume: Option<bool>,
    observer: &mut Observer<'_>,
) -> Result<SheetSummary> {
    let mut sc = Sheet::load(path)?;
    let at = |f: &str| Location::file(path).field(f);
    if ov.order.is_some() {
        return Err(Error::input(
            at("--order"),
            "not used by the sheet engine (SEI is second order)",
        ));
    }
    if ov.mode.is_some() {
        return Err(Error::input(at("--mode"), "not used by the sheet engine"));
    }
    if let Some(s) = ov.shard {
        return Err(Error::input(
            at("--shard"),
            format!(
                "--shard {}/{} splits an ensemble or a multi-simulation list, not a sheet run",
                s.index, s.count
            ),
        ));
    }
    if ov.semi_active {
        return Err(Error::input(
            at("--semi-active"),
            "not used by the sheet engine",
        ));
    }
    if let Some(s) = ov.steps {
        sc.steps = s;
    }
    if let Some(o) = &ov.out {
        sc.output.dir = o.clone();
    }
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = ov.threads {
        if n == 0 {
            return Err(Error::input(at("--threads"), "expected at least 1 thread"));
        }
        builder = builder.num_threads(n);
    }
    let pool = builder
        .build()
        .map_err(|e| Error::run(format!("cannot start the thread pool: {e}")))?;
    let resume = resume.unwrap_or_else(|| checkpoint::path(&sc.output.dir, &sc.name).exists());
    match resume {
        true => check_same_scenario(&sc, path)?,
        false => refuse_or_clear(&sheet_run_files(&sc.output.dir, &sc.name), ov.overwrite)?,
    }
    let choice = BackendSpec {
        backend: ov.backend.unwrap_or_default(),
        cpu_passes: ov.sheet_cpu_passes.unwrap_or(SheetPassSet::NONE),
        device: ov.device,
    };
    pool.install(|| run_scenario_on(&sc, &choice, interrupt, resume, observer))
}

/// Run a validated scenario on the CPU backend in the current rayon pool, or with `resume`
/// continue it from its restart file in the output directory.
pub fn run_scenario(sc: &Sheet, interrupt: &AtomicBool, resume: bool) -> Result<SheetSummary> {
    run_scenario_with(sc, interrupt, resume, &mut |_| {})
}

/// [`run_scenario`], telling `observer` about the start and the progress.
pub fn run_scenario_with(
    sc: &Sheet,
    interrupt: &AtomicBool,
    resume: bool,
    observer: &mut Observer<'_>,
) -> Result<SheetSummary> {
    run_scenario_on(sc, &BackendSpec::default(), interrupt, resume, observer)
}

/// [`run_scenario_with`] on the backend `spec` chooses (created after the checkpoint or the
/// initial conditions are read, so that any backend resumes any backend's checkpoint).
pub fn run_scenario_on(
    sc: &Sheet,
    spec: &BackendSpec,
    interrupt: &AtomicBool,
    resume: bool,
    observer: &mut Observer<'_>,
) -> Result<SheetSummary> {
    let params = sc.params();
    let dir = &sc.output.dir;
    let series_path = dir.join(format!("Series{}.dat", sc.name));
    // A resume reads its checkpoint, and the backend is opened (a missing device is exit code
    // 2), before anything is created; an output directory that cannot be written is bad input
    // (exit code 2) with its path.
    let restart = if resume {
        Some(checkpoint::load(dir, &sc.name)?)
    } else {
        None
    };
    let (particles, first_step, cand0, coll0) = match &restart {
        Some(c) => (c.particles.clone(), c.step, c.candidates, c.collisions),
        None => (sc.generate(), 0, 0, 0),
    };
    let n = particles.len();
    let start = observables(&particles, sc.omega, sc.box_size);
    let mut b = super::create_backend(spec, params, particles.clone())?;
    if restart.is_none() {
        prepare_output_dir(dir)?;
        crate::io::output::write_atomic(
            &scenario_record_path(dir, &sc.name),
            resume_fingerprint(sc).as_bytes(),
        )?;
    }
    observer(RunEvent::Started {
        engine: Engine::Sheet,
        n,
        line: format!(
            "orrery sheet {}: L = {} m, dt = {:.4} s, theta {}, steps {} .. {} -> {}",
            sc.name,
            sc.box_size,
            params.dt,
            sc.theta,
            first_step,
            sc.steps,
            sc.output.dir.display()
        ),
    });
    let snap = |step: u64, p: &Particles, t: f64| -> Result<()> {
        let path = dir.join(format!("Sheet{}_{:012}.dat", sc.name, step));
        write_snapshot(&path, p, t, sc.omega, sc.box_size)
    };
    let orbit = 2.0 * std::f64::consts::PI / sc.omega;
    let line = |w: &mut dyn Write, step: u64, t: f64, o: &Observables, cand: f64, coll: f64| {
        writeln!(
            w,
            "{step} {t:.10e} {:.6} {n} {:.6e} {:.6e} {:.6e} {:.6e} {:.6e} {:.6e} {:.6e} {cand:.2} {coll:.2}",
            t / orbit,
            o.sigma[0],
            o.sigma[1],
            o.sigma[2],
            o.sigma_total,
            o.tau,
            o.filling_factor,
            o.z_rms
        )
    };
    let mut series = match &restart {
        Some(c) => {
            // Cut the series back to what the checkpoint had seen, then append.
            let f = std::fs::OpenOptions::new()
                .write(true)
                .open(&series_path)
                .and_then(|mut f| {
                    f.set_len(c.series_len)?;
                    std::io::Seek::seek(&mut f, std::io::SeekFrom::End(0))?;
                    Ok(f)
                })
                .map_err(io_err(&series_path))?;
            std::io::BufWriter::new(f)
        }
        None => {
            snap(0, &particles, 0.0)?;
            let mut w = std::io::BufWriter::new(
                std::fs::File::create(&series_path).map_err(io_err(&series_path))?,
            );
            writeln!(
                w,
                "# step t[s] t[orbits] N sigma_x sigma_y sigma_z sigma[m/s] tau filling_factor z_rms[m] candidates_per_step collisions_per_step"
            )
            .and_then(|_| line(&mut w, 0, 0.0, &start, 0.0, 0.0))
            .map_err(io_err(&series_path))?;
            w
        }
    };

    let mut times = SheetPassTimes::default();
    let (mut candidates, mut collisions) = (cand0, coll0);
    let (mut win_cand, mut win_coll, mut win_steps) = (0u64, 0u64, 0u64);
    let mut wall = 0.0;
    let mut cadence = Cadence::new(interrupt, first_step, sc.steps);
    let mut done = first_step;
    let mut interrupted = false;
    if let Some(c) = &restart {
        [win_cand, win_coll, win_steps] = c.window;
    }
    let save = |series: &mut std::io::BufWriter<std::fs::File>,
                p: &Particles,
                step: u64,
                candidates: u64,
                collisions: u64,
                window: [u64; 3]|
     -> Result<()> {
        series.flush().map_err(io_err(&series_path))?;
        let series_len = series
            .get_ref()
            .metadata()
            .map_err(io_err(&series_path))?
            .len();
        let c = checkpoint::SheetCheckpoint {
            step,
            candidates,
            collisions,
            series_len,
            window,
            particles: p.clone(),
        };
        checkpoint::save(dir, &sc.name, &c)
    };
    let mut series_steps = Schedule::after(sc.output.series_every.max(1) as i64, done);
    let mut snapshot_steps = Schedule::after(sc.output.snapshot_every as i64, done);
    while done < sc.steps {
        if cadence.stop_requested() {
            interrupted = true;
            break;
        }
        let t = done as f64 * params.dt;
        let clock = Instant::now();
        let c = step(b.as_mut(), t, params.dt, &mut times)?;
        wall += clock.elapsed().as_secs_f64();
        done += 1;
        candidates += c.candidates;
        collisions += c.collisions;
        win_cand += c.candidates;
        win_coll += c.collisions;
        win_steps += 1;
        let t = done as f64 * params.dt;
        // The particles of this step, downloaded once when an output needs them.
        let mut current: Option<Particles> = None;
        if series_steps.hit(done) {
            let p = current.insert(b.download()?);
            let o = observables(p, sc.omega, sc.box_size);
            let w = win_steps.max(1) as f64;
            line(
                &mut series,
                done,
                t,
                &o,
                win_cand as f64 / w,
                win_coll as f64 / w,
            )
            .map_err(io_err(&series_path))?;
            (win_cand, win_coll, win_steps) = (0, 0, 0);
        }
        // A due snapshot comes with a checkpoint; SIGUSR1 asks for a checkpoint alone.
        let due_snapshot = snapshot_steps.hit(done);
        let requested = cadence.checkpoint_requested();
        if (due_snapshot || requested) && done < sc.steps {
            let p = match current.take() {
                Some(p) => p,
                None => b.download()?,
            };
            if due_snapshot {
                snap(done, &p, t)?;
            }
            let window = [win_cand, win_coll, win_steps];
            save(&mut series, &p, done, candidates, collisions, window)?;
        }
        cadence.report(done, n, observer);
    }
    let t_end = done as f64 * params.dt;
    let last = b.download()?;
    snap(done, &last, t_end)?;
    let window = [win_cand, win_coll, win_steps];
    save(&mut series, &last, done, candidates, collisions, window)?;
    // The last, partial window gets its line after the checkpoint, so a resumed run continues
    // the series exactly as an uninterrupted one would have written it.
    if win_steps > 0 {
        let o = observables(&last, sc.omega, sc.box_size);
        let w = win_steps as f64;
        line(
            &mut series,
            done,
            t_end,
            &o,
            win_cand as f64 / w,
            win_coll as f64 / w,
        )
        .and_then(|_| series.flush())
        .map_err(io_err(&series_path))?;
    }
    let stats = b.gravity_stats()?;
    let summary = SheetSummary {
        name: sc.name.clone(),
        backend: b.name(),
        threads: rayon::current_num_threads(),
        n,
        steps: done - first_step,
        t_end,
        orbits: t_end / orbit,
        wall_s: wall,
        times,
        candidates,
        collisions,
        gravity_pp: stats.pp,
        gravity_pc: stats.pc,
        start,
        end: observables(&last, sc.omega, sc.box_size),
        out_dir: dir.clone(),
        interrupted,
        first_step,
    };
    let info = dir.join(format!("info{}.dat", sc.name));
    let cfg = ron::ser::to_string_pretty(sc, ron::ser::PrettyConfig::default())
        .unwrap_or_else(|e| format!("(cannot print the scenario: {e})"));
    // A resumed run appends its summary: the info file keeps every part's.
    let mut text = match (&restart, std::fs::read_to_string(&info)) {
        (Some(_), Ok(before)) => format!("{before}\nresumed at step {first_step}:\n"),
        _ => format!(
            "orrery {} sheet engine\n{cfg}\n\n",
            env!("CARGO_PKG_VERSION")
        ),
    };
    text.push_str(&summary.report());
    text.push('\n');
    crate::io::output::write_atomic(&info, text.as_bytes())?;
    Ok(summary)
}
