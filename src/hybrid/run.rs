//! The run driver of the hybrid engine: start or resume, step, bookkeep energy and angular
//! momentum, write outputs and checkpoints, stop on request.

use crate::backend::{self, Collision, EncounterStats, HybridBackend, HybridSnapshot, StepParams};
use crate::config::Config;
use crate::error::{Error, Location, Result};
use crate::hybrid::stepper::{PassTimes, StepCounts, Stepper};
use crate::io::checkpoint::{self, Bookkeeping, Checkpoint};
use crate::io::output::{self, EnergyLine, Log};
use crate::physics::energy::{energy, norm};
use crate::state::{Bodies, Body};
use crate::units;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Progress of a running integration, reported to the caller's callback.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    pub step: u64,
    pub first_step: u64,
    pub last_step: u64,
    pub n: usize,
    pub elapsed_s: f64,
}

/// What a run did.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub backend: &'static str,
    pub first_step: u64,
    pub last_step: u64,
    pub wall_s: f64,
    pub n_start: usize,
    pub n_end: usize,
    /// (E + U - E0) / |E0| at the end.
    pub rel_energy_error: f64,
    /// (|L + L_lost| - |L0|) / |L0| at the end.
    pub rel_angular_momentum_error: f64,
    /// Prechecker candidate pairs and confirmed encounters in this invocation.
    pub candidates: u64,
    pub encounters: u64,
    /// Ejections and mergers over the whole run.
    pub ejections: u64,
    pub collisions: u64,
    /// Encounter groups and Bulirsch-Stoer work in this invocation.
    pub groups: EncounterStats,
    /// Time per pass in this invocation.
    pub times: PassTimes,
    /// Why the run ended before its last step, if it did.
    pub stopped: Option<String>,
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
        let n = self.steps().max(1) as f64;
        let mut s = format!(
            "steps {} .. {} ({} steps) on {}: wall time {:.3} s, {:.4e} s per step\n\
             N {} -> {}; relative energy error (E + U) {:.3e}; relative angular momentum error {:.3e}\n\
             encounter candidates {}, confirmed encounters {}, collisions {}, ejections {}\n\
             encounter groups {} (by size 2, 3-4, 5-8, 9-16, 17-32, 33-64, 65-128, >128: {:?}; \
             largest {}), Bulirsch-Stoer substeps {} ({} rejected)\n\
             time per step by pass: kick {:.3e} s, drift {:.3e} s, encounter search {:.3e} s, \
             groups + Bulirsch-Stoer {:.3e} s, ejections {:.3e} s",
            self.first_step,
            self.last_step,
            self.steps(),
            self.backend,
            self.wall_s,
            self.time_per_step(),
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
            self.times.kick / n,
            self.times.drift / n,
            self.times.encounter / n,
            self.times.bulirsch_stoer / n,
            self.times.ejection / n,
        );
        if let Some(r) = &self.stopped {
            s.push_str(&format!("\nstopped early: {r}"));
        }
        s
    }
}

/// Physical settings a checkpoint must agree with to be resumed.
fn fingerprint(cfg: &Config) -> String {
    format!(
        "orrery-hybrid m0={:e} dt_days={:e} order={} n1={:e} n2={:e} inner={:e} outer={:e} mode={:?}",
        cfg.central_mass,
        cfg.time_step_days,
        cfg.order,
        cfg.n1,
        cfg.n2,
        cfg.inner_truncation,
        cfg.outer_truncation,
        cfg.mode
    )
}

fn due(interval: i64, step: u64) -> bool {
    interval > 0 && step % interval as u64 == 0
}

/// Heliocentric bodies from democratic ones.
fn heliocentric(b: &Bodies, m0: f64) -> Vec<Body> {
    let shift = b.heliocentric_velocity_shift(m0);
    (0..b.len())
        .map(|k| {
            let mut body = b.get(k);
            for c in 0..3 {
                body.vel[c] += shift[c];
            }
            body
        })
        .collect()
}

/// Make sure the output directory exists and is writable (bad input, exit code 2, otherwise).
pub fn prepare_output_dir(dir: &Path) -> Result<()> {
    let fail = |e: std::io::Error| {
        Error::input(
            Location::file(dir).field("output directory"),
            format!("cannot write to the output directory ({e}); expected a writable directory"),
        )
    };
    std::fs::create_dir_all(dir).map_err(fail)?;
    let probe = dir.join(".orrery-write-test");
    std::fs::write(&probe, b"").map_err(fail)?;
    std::fs::remove_file(&probe).map_err(fail)
}

struct Driver<'a> {
    cfg: &'a Config,
    params: StepParams,
    backend: Box<dyn HybridBackend>,
    book: Bookkeeping,
    energy_log: Log,
    ejection_log: Log,
    collision_log: Log,
}

impl Driver<'_> {
    fn time_years(&self, step: u64) -> f64 {
        units::code_to_years(step as f64 * self.params.tau)
    }

    fn write_energy(&mut self, step: u64) -> Result<()> {
        let e = self.backend.energy(&self.params);
        let l = e.angular_momentum;
        let l_total = norm([
            l[0] + self.book.l_lost[0],
            l[1] + self.book.l_lost[1],
            l[2] + self.book.l_lost[2],
        ]);
        let e_total = e.kinetic + e.potential + self.book.u;
        let l0 = norm(self.book.l0);
        let line = EnergyLine {
            t_years: self.time_years(step),
            n: self.backend.len(),
            potential: e.potential,
            kinetic: e.kinetic,
            l_lost: norm(self.book.l_lost),
            u: self.book.u,
            e_total,
            l_total,
            l_relative: if l0 > 0.0 { (l_total - l0) / l0 } else { 0.0 },
            e_relative: (e_total - self.book.e0) / self.book.e0.abs(),
        };
        self.energy_log.line(&line.format())
    }

    fn write_snapshot(&mut self, step: u64) -> Result<()> {
        let bodies = heliocentric(&self.backend.bodies(), self.params.m0);
        let path = output::snapshot_path(&self.cfg.output.dir, &self.cfg.name, step);
        output::write_snapshot(&path, self.time_years(step), &bodies)
    }

    fn write_checkpoint(&mut self, step: u64) -> Result<()> {
        self.book.energy_log_len = self.energy_log.flush_len()?;
        self.book.ejection_log_len = self.ejection_log.flush_len()?;
        self.book.collision_log_len = self.collision_log.flush_len()?;
        let c = Checkpoint {
            step,
            fingerprint: fingerprint(self.cfg),
            book: self.book.clone(),
            state: self.backend.snapshot(),
        };
        checkpoint::save(&self.cfg.output.dir, &self.cfg.name, &c).map(|_| ())
    }

    /// Log mergers (both bodies just before contact) and add their energy to U. `step` is the
    /// step the collisions happened in (counted from 0).
    fn record_collisions(&mut self, step: u64, collisions: &[Collision]) -> Result<()> {
        for c in collisions {
            self.book.u += c.u;
            self.book.collisions += 1;
            let t = units::code_to_years(step as f64 * self.params.tau + c.time_offset);
            self.collision_log
                .line(&output::collision_line(t, &c.bodies[0], &c.bodies[1]))?;
        }
        Ok(())
    }

    /// Log ejected bodies and move their energy and angular momentum into U and L_lost.
    fn record_ejections(&mut self, step: u64, ejected: &[backend::Ejection]) -> Result<()> {
        let after = self.backend.bodies();
        let mut before = after.clone();
        for e in ejected {
            before.push(&e.democratic);
        }
        let (eb, ea) = (
            energy(self.params.m0, &before),
            energy(self.params.m0, &after),
        );
        self.book.u += (eb.kinetic + eb.potential) - (ea.kinetic + ea.potential);
        for c in 0..3 {
            self.book.l_lost[c] += eb.angular_momentum[c] - ea.angular_momentum[c];
        }
        self.book.ejections += ejected.len() as u64;
        let t = self.time_years(step);
        for e in ejected {
            self.ejection_log
                .line(&output::ejection_line(t, &e.body, e.case))?;
        }
        Ok(())
    }
}

/// Run `cfg` from `bodies` (heliocentric), or resume from the newest checkpoint in the output
/// directory. `interrupt` is polled every step; when set, the run writes a snapshot and a
/// checkpoint and returns with `stopped` set. `progress` is called about once a second.
pub fn run(
    cfg: &Config,
    bodies: &[Body],
    resume: bool,
    interrupt: &AtomicBool,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Summary> {
    let dir = &cfg.output.dir;
    prepare_output_dir(dir)?;
    let params = StepParams {
        m0: cfg.central_mass,
        tau: cfg.dt(),
        n1: cfg.n1,
        n2: cfg.n2,
        inner_truncation: cfg.inner_truncation,
        outer_truncation: cfg.outer_truncation,
    };
    let mut backend = backend::create(cfg.backend)?;
    let energy_path = output::energy_path(dir, &cfg.name);
    let ejection_path = output::ejections_path(dir, &cfg.name);
    let collision_path = output::collisions_path(dir, &cfg.name);
    let (first_step, book, energy_log, ejection_log, collision_log, fresh) = if resume {
        let c = checkpoint::load_newest(dir, &cfg.name)?;
        if c.fingerprint != fingerprint(cfg) {
            return Err(Error::input(
                Location::file(&cfg.source),
                format!(
                    "the checkpoint at step {} was written with different settings ({}); expected \
                     the same physical configuration ({})",
                    c.step,
                    c.fingerprint,
                    fingerprint(cfg)
                ),
            ));
        }
        if c.step > cfg.steps {
            return Err(Error::input(
                Location::default().field("--steps"),
                format!(
                    "the newest checkpoint is at step {}, beyond the requested end step {}",
                    c.step, cfg.steps
                ),
            ));
        }
        let energy_log = Log::open(&energy_path, Some(c.book.energy_log_len))?;
        let ejection_log = Log::open(&ejection_path, Some(c.book.ejection_log_len))?;
        let collision_log = Log::open(&collision_path, Some(c.book.collision_log_len))?;
        backend.restore(c.state);
        (
            c.step,
            c.book,
            energy_log,
            ejection_log,
            collision_log,
            false,
        )
    } else {
        let mut b = Bodies::from_bodies(bodies);
        b.to_democratic(cfg.central_mass);
        backend.restore(HybridSnapshot {
            bodies: b,
            ..Default::default()
        });
        let e = backend.energy(&params);
        let book = Bookkeeping {
            e0: e.kinetic + e.potential,
            l0: e.angular_momentum,
            ..Default::default()
        };
        (
            0,
            book,
            Log::open(&energy_path, None)?,
            Log::open(&ejection_path, None)?,
            Log::open(&collision_path, None)?,
            true,
        )
    };
    let mut stepper = Stepper::new(params, cfg.order, backend.as_mut(), fresh)?;
    let n_start = backend.len();
    let mut d = Driver {
        cfg,
        params,
        backend,
        book,
        energy_log,
        ejection_log,
        collision_log,
    };
    write_info(cfg, d.backend.name(), first_step, resume)?;
    if fresh {
        if cfg.output.energy_interval > 0 {
            d.write_energy(0)?;
        }
        if cfg.output.coordinates_interval > 0 {
            d.write_snapshot(0)?;
        }
    }

    let mut counts = StepCounts::default();
    let start = Instant::now();
    let mut last_report = start;
    let mut step = first_step;
    let mut stopped = None;
    while step < cfg.steps {
        if interrupt.load(Ordering::Relaxed) {
            stopped = Some(format!(
                "interrupted at step {step}; continue with --resume"
            ));
            break;
        }
        let events = stepper.step(d.backend.as_mut(), &mut counts)?;
        if !events.collisions.is_empty() {
            d.record_collisions(step, &events.collisions)?;
        }
        step += 1;
        if !events.ejections.is_empty() {
            d.record_ejections(step, &events.ejections)?;
        }
        if cfg.minimum_bodies > 0 && d.backend.len() < cfg.minimum_bodies {
            stopped = Some(format!(
                "{} bodies left at step {step}, fewer than the minimum {}",
                d.backend.len(),
                cfg.minimum_bodies
            ));
            break;
        }
        if step < cfg.steps {
            if due(cfg.output.energy_interval, step) {
                d.write_energy(step)?;
            }
            if due(cfg.output.coordinates_interval, step) {
                d.write_snapshot(step)?;
            }
            if due(cfg.output.checkpoint_interval, step) {
                d.write_checkpoint(step)?;
            }
        }
        if last_report.elapsed().as_secs_f64() >= 1.0 {
            last_report = Instant::now();
            progress(&Progress {
                step,
                first_step,
                last_step: cfg.steps,
                n: d.backend.len(),
                elapsed_s: start.elapsed().as_secs_f64(),
            });
        }
    }
    let wall_s = start.elapsed().as_secs_f64();
    // The last step reached always gets an energy line, a snapshot and a checkpoint.
    if step > first_step || fresh {
        if cfg.output.energy_interval != 0 {
            d.write_energy(step)?;
        }
        d.write_snapshot(step)?;
    }
    d.write_checkpoint(step)?;
    let e = d.backend.energy(&params);
    let l = e.angular_momentum;
    let l_total = norm([
        l[0] + d.book.l_lost[0],
        l[1] + d.book.l_lost[1],
        l[2] + d.book.l_lost[2],
    ]);
    let l0 = norm(d.book.l0);
    let summary = Summary {
        backend: d.backend.name(),
        first_step,
        last_step: step,
        wall_s,
        n_start,
        n_end: d.backend.len(),
        rel_energy_error: (e.kinetic + e.potential + d.book.u - d.book.e0) / d.book.e0.abs(),
        rel_angular_momentum_error: if l0 > 0.0 { (l_total - l0) / l0 } else { 0.0 },
        candidates: counts.candidates,
        encounters: counts.encounters,
        ejections: d.book.ejections,
        collisions: d.book.collisions,
        groups: counts.groups,
        times: counts.times,
        stopped,
    };
    append_info(cfg, &summary.report())?;
    Ok(summary)
}

fn write_info(cfg: &Config, backend: &str, first_step: u64, resume: bool) -> Result<()> {
    let path = output::info_path(&cfg.output.dir, &cfg.name);
    let threads = rayon::current_num_threads();
    let head = format!(
        "Orrery {} ({} backend, {} threads)\n",
        env!("CARGO_PKG_VERSION"),
        backend,
        threads
    );
    if resume {
        let mut text = std::fs::read_to_string(&path).unwrap_or_default();
        text.push_str(&format!("\nresumed at step {first_step}: {head}"));
        return output::write_atomic(&path, text.as_bytes());
    }
    let pretty = ron::ser::PrettyConfig::new().depth_limit(3);
    let config = ron::ser::to_string_pretty(cfg, pretty)
        .map_err(|e| Error::run(format!("cannot serialise the configuration: {e}")))?;
    let mut text = format!("{head}configuration (fully resolved):\n{config}\n");
    for w in &cfg.warnings {
        text.push_str(&format!("warning: {w}\n"));
    }
    output::write_atomic(&path, text.as_bytes())
}

fn append_info(cfg: &Config, report: &str) -> Result<()> {
    let path = output::info_path(&cfg.output.dir, &cfg.name);
    let mut text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
    text.push_str(&format!("\nsummary:\n{report}\n"));
    output::write_atomic(&path, text.as_bytes())
}
