//! What a run needs: the shared settings and its simulations, as the loaders build them and the
//! hybrid driver ([`crate::hybrid::run`]) consumes them.

use crate::config::scenario::Mode;
use crate::config::Config;
use crate::model::SystemSpec;
use crate::state::Body;
use std::path::PathBuf;

/// One simulation of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Simulation {
    /// Output name (`Out<name>_...`).
    pub name: String,
    /// Index of the simulation in its ensemble or list (its row of the summary table; kept when
    /// a shard holds only some of them).
    pub index: usize,
    /// Output directory.
    pub dir: PathBuf,
    pub spec: SystemSpec,
    /// The simulation stops when fewer bodies remain (0: never).
    pub min_bodies: usize,
    /// The simulation stops when fewer test particles remain (0: never).
    pub min_test_particles: usize,
    /// Initial bodies, heliocentric, the `massive` ones first, then the test particles.
    pub bodies: Vec<Body>,
    pub massive: usize,
    /// Generator seed (ensembles), for the summary table.
    pub seed: Option<u64>,
    /// Write this simulation's own files (energy, snapshots, collision and ejection logs).
    pub files: bool,
    /// Its time step in days: the run's, or its own (`time_step: InnerPeriodFraction(...)`,
    /// a multi-simulation list's or a Python ensemble's on the Wisdom-Holman map).
    pub time_step_days: f64,
}

impl Simulation {
    /// An ensemble system's minimum: a `minimum_bodies` of 0 means every initial massive body,
    /// so the system stops at its first collision or ejection (a stability ensemble's question).
    /// The one rule for ensemble files and the Python module's `Ensemble`.
    pub fn ensemble_minimum(&mut self) {
        if self.min_bodies == 0 {
            self.min_bodies = self.massive;
        }
    }
}

/// Everything a run needs: shared settings and the simulations.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSetup {
    /// Shared settings (time step, steps, order, intervals, backend); the physical parameters of
    /// each simulation are in its [`Simulation::spec`].
    pub cfg: Config,
    pub sims: Vec<Simulation>,
    /// Where the run's checkpoints go, and their name.
    pub checkpoint_dir: PathBuf,
    pub checkpoint_name: String,
    /// Semi-active test particles (they pull on the massive bodies, not on each other).
    pub semi_active: bool,
    /// Multi-simulation mode: every system has its own parameters.
    pub multi: bool,
    /// Write an ensemble summary table here at the end.
    pub summary_csv: Option<PathBuf>,
    /// The shard this run is of a sharded ensemble or list (`--shard K/N`), with its record.
    pub shard: Option<crate::io::shard::ShardRecord>,
    /// An in-memory run (the Python module's `Simulation`): it creates no directory and writes
    /// no file until asked, and keeps every simulation's collisions and ejections in memory.
    pub in_memory: bool,
}

impl RunSetup {
    /// The `stop` settings as the run's parameters: the escape radius (`stop.escape`) as the
    /// run's and every system's outer truncation radius where it is the smaller (the radius
    /// both integrators stop a system at); for the hybrid step, `n1` at least twice
    /// `stop.hill_radii`, so that every pair within its encounter distance
    /// `hill_radii (R_H,i + R_H,j) <= 2 hill_radii max(R_H)` is within the larger critical
    /// radius and the encounter search sees it (as GENGA's `Stop at Encounter Radius` sets the
    /// critical radius).
    pub fn apply_stop(&mut self) {
        if let Some(r) = self.cfg.stop.escape {
            self.cfg.outer_truncation = self.cfg.outer_truncation.min(r);
            for sim in &mut self.sims {
                sim.spec.outer_truncation = sim.spec.outer_truncation.min(r);
            }
        }
        let hybrid = self.cfg.integrator.wisdom_holman().is_none();
        if let Some(x) = self.cfg.stop.hill_radii.filter(|_| hybrid) {
            self.cfg.n1 = self.cfg.n1.max(2.0 * x);
            for sim in &mut self.sims {
                sim.spec.n1 = sim.spec.n1.max(2.0 * x);
            }
        }
    }

    /// Whether the simulations step with time steps of their own (not all the run's).
    pub fn own_time_steps(&self) -> bool {
        let dt = self.cfg.time_step_days.to_bits();
        self.sims.iter().any(|s| s.time_step_days.to_bits() != dt)
    }

    /// With the Wisdom-Holman map, a warning in `cfg.warnings` when systems list their bodies
    /// out of order of semi-major axis (heliocentric, `mu = G (M0 + m)`; unbound bodies last):
    /// the map takes the input order as its Jacobi order, and its errors grow when an outer body
    /// comes before an inner one (500 times in energy for an Earth-like planet after Jupiter
    /// and Saturn).
    pub fn warn_jacobi_order(&mut self) {
        if self.cfg.integrator.wisdom_holman().is_none() {
            return;
        }
        let mut out_of_order = self.sims.iter().filter_map(|sim| {
            let a = |b: &crate::state::Body| {
                let r = (b.pos[0] * b.pos[0] + b.pos[1] * b.pos[1] + b.pos[2] * b.pos[2]).sqrt();
                let v2 = b.vel[0] * b.vel[0] + b.vel[1] * b.vel[1] + b.vel[2] * b.vel[2];
                let inv = 2.0 / r - v2 / (sim.spec.m0 + b.m);
                if inv > 0.0 {
                    1.0 / inv
                } else {
                    f64::INFINITY
                }
            };
            let pair = sim.bodies.windows(2).find(|w| a(&w[1]) < a(&w[0]))?;
            Some((
                sim.name.clone(),
                pair[0].id,
                a(&pair[0]),
                pair[1].id,
                a(&pair[1]),
            ))
        });
        let Some((name, i, ai, j, aj)) = out_of_order.next() else {
            return;
        };
        let more = out_of_order.count();
        self.cfg.warnings.push(format!(
            "{} of {} systems list their bodies out of order of semi-major axis (first: `{name}`, \
             body {j} at a = {aj:.4} AU after body {i} at a = {ai:.4} AU): the Wisdom-Holman map \
             takes the input order as its Jacobi order, and its errors grow when an outer body \
             comes first; list the bodies from the inside out (an ensemble's drawn bodies come \
             after its fixed ones: write fixed bodies as draws of one value after them)",
            more + 1,
            self.sims.len()
        ));
    }

    /// Refuse time steps of their own where the integrator cannot take them: the hybrid step
    /// steps every system of a run with one step (`field` names the setting that gave them).
    pub fn check_time_steps(&self, field: crate::error::Location) -> crate::error::Result<()> {
        if self.own_time_steps() && self.cfg.integrator.wisdom_holman().is_none() {
            let dts: Vec<f64> = self.sims.iter().map(|s| s.time_step_days).collect();
            let (lo, hi) = dts
                .iter()
                .fold((f64::MAX, f64::MIN), |(a, b), &d| (a.min(d), b.max(d)));
            return Err(crate::error::Error::input(
                field,
                format!(
                    "the systems' time steps differ ({lo} to {hi} days); the hybrid step steps \
                     every system of a run alike: expected one time step, or `integrator: \
                     WisdomHolman(...)`"
                ),
            ));
        }
        Ok(())
    }

    /// One simulation from a configuration and its bodies (main mode, or test-particle mode
    /// when `cfg.mode` says so: bodies with mass <= `cfg.particle_minimum_mass` are test
    /// particles).
    pub fn single(cfg: &Config, bodies: &[Body]) -> Self {
        let test_particles = cfg.mode == Mode::TestParticles;
        let is_tp = |b: &Body| test_particles && b.m <= cfg.particle_minimum_mass;
        let mut ordered: Vec<Body> = bodies.iter().filter(|b| !is_tp(b)).copied().collect();
        let massive = ordered.len();
        ordered.extend(bodies.iter().filter(|b| is_tp(b)).copied());
        RunSetup {
            sims: vec![Simulation {
                name: cfg.name.clone(),
                index: 0,
                dir: cfg.output.dir.clone(),
                spec: SystemSpec {
                    m0: cfg.central_mass,
                    n1: cfg.n1,
                    n2: cfg.n2,
                    inner_truncation: cfg.inner_truncation,
                    outer_truncation: cfg.outer_truncation,
                },
                min_bodies: cfg.minimum_bodies,
                min_test_particles: cfg.minimum_test_particles,
                bodies: ordered,
                massive,
                seed: None,
                files: true,
                time_step_days: cfg.time_step_days,
            }],
            checkpoint_dir: cfg.output.dir.clone(),
            checkpoint_name: cfg.name.clone(),
            semi_active: test_particles && cfg.semi_active,
            multi: false,
            summary_csv: None,
            shard: None,
            in_memory: false,
            cfg: cfg.clone(),
        }
    }

    /// Whether the run writes files (every run but an in-memory one).
    pub fn has_files(&self) -> bool {
        !self.in_memory
    }
}
