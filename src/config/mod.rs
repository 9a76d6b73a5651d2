//! Configuration: scenario RON files and GENGA `param.dat`, validated into one [`Config`] and the
//! initial bodies.

pub mod chaos;
pub mod collisions;
pub mod ensemble;
pub mod integrator;
pub mod multi;
pub mod param_dat;
pub mod samples;
pub mod scenario;
pub mod setup;
pub mod shard;
pub mod sheet;
pub mod stop;
pub mod time_step;

use crate::backend::{BackendChoice, PassSet};
use crate::error::{Error, Location, Result};
use crate::io::initial_conditions::{read_initial_conditions_tidal, IcOptions};
use crate::physics::changeover::Changeover;
use crate::physics::elements::cartesian_from_elements;
use crate::physics::forces::ForceSettings;
use crate::physics::recursion::Recursion;
use crate::physics::tides::TidalBody;
use crate::state::Body;
use crate::units;
use scenario::{BodySource, Engine, Mode, OutputSpec, Scenario};
use serde::{Deserialize, Serialize};
use setup::RunSetup;
use std::path::{Path, PathBuf};

/// The fully resolved configuration of a run (written to the info file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Config {
    pub name: String,
    pub engine: Engine,
    pub mode: Mode,
    pub central_mass: f64,
    pub central_radius: f64,
    pub time_step_days: f64,
    pub steps: u64,
    pub order: u8,
    pub n1: f64,
    pub n2: f64,
    /// The changeover function of the hybrid step.
    #[serde(default)]
    pub changeover: Changeover,
    pub inner_truncation: f64,
    pub outer_truncation: f64,
    pub default_rho: f64,
    pub minimum_bodies: usize,
    /// The run stops when fewer test particles remain (GENGA's `Minimum number of test
    /// particles`; 0: never).
    #[serde(default)]
    pub minimum_test_particles: usize,
    pub output: OutputSpec,
    pub backend: BackendChoice,
    /// Passes that run on the CPU reference instead of the device backend.
    pub cpu_passes: PassSet,
    /// Device index of the chosen API (CUDA or OpenCL) (`--device N`, see `orrery devices`).
    #[serde(default)]
    pub device: Option<usize>,
    pub threads: Option<usize>,
    /// The scenario or param file this came from.
    pub source: PathBuf,
    /// Non-fatal remarks found while reading the input (unsupported GENGA keys at defaults, ...).
    pub warnings: Vec<String>,
    /// GENGA's `Restart timestep = -1`: continue from the newest checkpoint.
    #[serde(default)]
    pub resume_requested: bool,
    /// GENGA's `Restart timestep = N > 0`: the run starts at step N from the bodies of its
    /// `Out` file there and the books of its Energy, Collisions and Ejections files
    /// ([`crate::io::genga_restart`]).
    #[serde(default)]
    pub restart_step: Option<u64>,
    /// Test-particle mode: bodies with at most this mass are test particles.
    #[serde(default)]
    pub particle_minimum_mass: f64,
    /// Test-particle mode: semi-active small bodies (pull on the massive bodies, not on each other).
    #[serde(default)]
    pub semi_active: bool,
    /// Forces beyond point-mass gravity (GR, J2, radiation).
    #[serde(default)]
    pub forces: ForceSettings,
    /// The bodies' tidal properties by id (those with a Love number; see
    /// [`crate::physics::tides::TidalTable`]).
    pub tidal: Vec<(u64, TidalBody)>,
    /// The tabulated gas disk read from `forces.gas.file` (GENGA `Gas file name`), when set.
    #[serde(skip)]
    pub gas_profile: crate::physics::gas::profile::DiskProfile,
    /// Recursive symplectic sub-steps of the close-encounter groups.
    #[serde(default)]
    pub recursion: Recursion,
    /// The integrator: GENGA's hybrid step or the Wisdom-Holman map.
    #[serde(default)]
    pub integrator: integrator::Integrator,
    /// How each system's time step is chosen: `time_step_days` for all, or a fraction of each
    /// system's innermost period ([`time_step::TimeStep`]); `time_step_days` is then the first
    /// system's.
    pub time_step: time_step::TimeStep,
    /// When a system stops before its end step (close encounters, collisions).
    #[serde(default)]
    pub stop: stop::StopSettings,
    /// When collisions are resolved (GENGA's `Collision Precision`).
    #[serde(default)]
    pub collisions: collisions::CollisionSettings,
    /// MEGNO and the Lyapunov exponent of each system, and the stop on MEGNO.
    #[serde(default)]
    pub chaos: chaos::ChaosSettings,
    /// Each system's sampled time series.
    #[serde(default)]
    pub samples: samples::SampleSettings,
}

impl Config {
    /// Whether messages name GENGA's `param.dat` keys (a run from a `param.dat`) rather than
    /// scenario fields (a `.ron` scenario, or a Python `<Simulation>` or `<Ensemble>`, whose
    /// keywords are the scenario's fields).
    pub fn names_genga_keys(&self) -> bool {
        let ron = self.source.extension().is_some_and(|e| e == "ron");
        !ron && !self.source.to_string_lossy().starts_with('<')
    }

    /// Time step in code units.
    pub fn dt(&self) -> f64 {
        units::days_to_code(self.time_step_days)
    }
}

/// Command-line values that override the file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overrides {
    pub steps: Option<u64>,
    pub out: Option<PathBuf>,
    pub backend: Option<BackendChoice>,
    /// `--cpu-passes` for the hybrid engine.
    pub cpu_passes: Option<PassSet>,
    /// `--cpu-passes` for the sheet engine.
    pub sheet_cpu_passes: Option<crate::backend::sheet::SheetPassSet>,
    /// `--device N`.
    pub device: Option<usize>,
    /// `--shard K/N` (ensembles and multi-simulation lists).
    pub shard: Option<crate::io::shard::Shard>,
    pub threads: Option<usize>,
    pub order: Option<u8>,
    pub mode: Option<Mode>,
    /// Semi-active test particles (`--semi-active`).
    pub semi_active: bool,
    /// `--overwrite`: a fresh run removes an earlier run's files of the same name.
    pub overwrite: bool,
    /// GENGA's console arguments (`-dt 5 -I 1000 ...`), each overriding its `param.dat` key.
    pub genga_console: Vec<param_dat::ConsoleValue>,
}

/// Everything a run needs from `path`: a scenario or GENGA `param.dat` (one simulation), an
/// ensemble file, or with `multi` (or `--mode multi`) a multi-simulation list.
pub fn load_setup(path: &Path, ov: &Overrides, multi: bool) -> Result<RunSetup> {
    let mut setup = load_any_setup(path, ov, multi)?;
    setup.warn_jacobi_order();
    Ok(setup)
}

/// [`load_setup`] without its warnings on the setup as a whole.
fn load_any_setup(path: &Path, ov: &Overrides, multi: bool) -> Result<RunSetup> {
    if let Some(c) = ov.genga_console.first() {
        if is_ron(path) || looks_like_ron(path) {
            return Err(Error::input(
                Location::default().field(format!("{} on the command line", c.flag)),
                format!(
                    "`{} {}` is one of GENGA's console arguments, which set param.dat keys, but \
                     {} is a RON scenario; expected a param.dat (or its scenario field, or \
                     `orrery run`'s own option)",
                    c.flag,
                    c.value,
                    path.display()
                ),
            ));
        }
    }
    if multi || ov.mode == Some(Mode::Multi) {
        if is_ron(path) || looks_like_ron(path) {
            let how = if multi { "--multi" } else { "--mode multi" };
            return Err(Error::input(
                Location::file(path),
                format!(
                    "this is a RON scenario, but {how} expects a GENGA multi-simulation list (a \
                     text file with one simulation directory per line, each holding a param.dat); \
                     to run many systems from one scenario write an Ensemble(...) file (see \
                     inputs/ensemble_example.ron) and run it without {how}"
                ),
            ));
        }
        return sharded(multi::load_multi(path, ov)?, ov, "list");
    }
    if is_ron(path) {
        let text = read_text(path)?;
        if let Some(ens) = ensemble::parse(&text, path) {
            return ensemble::load(ens?, path, ov);
        }
    }
    if let Some(s) = ov.shard {
        return Err(Error::input(
            Location::file(path).field("--shard"),
            format!(
                "--shard {}/{} splits an ensemble or a multi-simulation list (--multi), but this \
                 is a single simulation; expected an Ensemble(...) file or --multi LIST",
                s.index, s.count
            ),
        ));
    }
    let (cfg, bodies) = load(path, ov)?;
    Ok(RunSetup::single(&cfg, &bodies))
}

/// `setup` cut to the shard `--shard` names, if any (see [`shard`]).
fn sharded(mut setup: RunSetup, ov: &Overrides, kind: &str) -> Result<RunSetup> {
    if let Some(s) = ov.shard {
        setup.shard = Some(shard::select(&mut setup, s, kind)?);
    }
    Ok(setup)
}

fn is_ron(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ron"))
}

/// A file whose first non-comment text opens a RON `Scenario(`, `Ensemble(` or `Sheet(`
/// whatever its name.
fn looks_like_ron(path: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    let body = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with("#!["));
    body.is_some_and(|l| {
        ["Scenario", "Ensemble", "Sheet"].iter().any(|k| {
            l.strip_prefix(k)
                .is_some_and(|r| r.trim_start().starts_with('('))
        })
    })
}

/// Apply command-line overrides to a configuration.
fn apply(cfg: &mut Config, ov: &Overrides) {
    if let Some(s) = ov.steps {
        cfg.steps = s;
    }
    if let Some(o) = &ov.out {
        cfg.output.dir = o.clone();
    }
    if let Some(b) = ov.backend {
        cfg.backend = b;
    }
    if let Some(p) = ov.cpu_passes {
        cfg.cpu_passes = p;
    }
    cfg.device = ov.device.or(cfg.device);
    cfg.threads = ov.threads.or(cfg.threads);
    if let Some(o) = ov.order {
        cfg.order = o;
    }
    if let Some(m) = ov.mode {
        cfg.mode = m;
    }
    cfg.semi_active |= ov.semi_active;
}

/// Read a scenario (`.ron`) or a GENGA `param.dat` (any other name), apply the overrides,
/// validate, and load the initial bodies (heliocentric).
pub fn load(path: &Path, ov: &Overrides) -> Result<(Config, Vec<Body>)> {
    let is_ron = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ron"));
    let (mut cfg, bodies) = if is_ron {
        load_ron(path, ov)?
    } else {
        load_param_dat(path, ov)?
    };
    apply(&mut cfg, ov);
    validate(&cfg)?;
    validate_bodies(&cfg, &bodies)?;
    Ok((cfg, bodies))
}

fn read_text(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| {
        Error::input(
            Location::file(path),
            format!("cannot read the file ({e}); expected a readable text file"),
        )
    })
}

/// The scenario of the `.ron` file `path`, as written (errors name the file, line and column).
pub fn read_scenario(path: &Path) -> Result<Scenario> {
    let text = read_text(path)?;
    ron::from_str(&text).map_err(|e| {
        Error::input(
            Location::file(path).line(e.span.start.line),
            format!("column {}: {}", e.span.start.col, e.code),
        )
    })
}

fn load_ron(path: &Path, _ov: &Overrides) -> Result<(Config, Vec<Body>)> {
    let sc = read_scenario(path)?;
    if sc.mode == Mode::Multi {
        return Err(Error::input(
            Location::file(path).field("mode"),
            "mode Multi integrates many independent systems, but a Scenario describes one: \
             write an Ensemble(systems: N, seed: S, hypothetical: [...], scenario: Scenario(...)) \
             file (see inputs/ensemble_example.ron), or run GENGA simulation directories with \
             `orrery run --multi LIST`; expected Main or TestParticles here",
        ));
    }
    from_scenario(sc, path)
}

/// A scenario built in memory (the Python module's `Simulation`), read as if from a file at
/// `origin` (relative paths are taken from its folder; error messages name it), validated as a
/// file's would be; with `resume` it may have no bodies (they come from a checkpoint).
pub fn load_scenario(sc: Scenario, origin: &Path, resume: bool) -> Result<(Config, Vec<Body>)> {
    let (cfg, bodies) = from_scenario(sc, origin)?;
    validate(&cfg)?;
    if !resume {
        validate_bodies(&cfg, &bodies)?;
    }
    Ok((cfg, bodies))
}

/// The configuration and bodies of a parsed scenario read from `path`.
fn from_scenario(sc: Scenario, path: &Path) -> Result<(Config, Vec<Body>)> {
    let at = |field: &str| Location::file(path).field(field);
    let cpu_passes = match &sc.cpu_passes {
        Some(list) => PassSet::parse(list, &at("cpu_passes"))?,
        None => PassSet::NONE,
    };
    if sc.time_step.per_system() {
        if let Some(msg) = sc.time_step.check() {
            return Err(Error::input(at("time_step"), format!("expected {msg}")));
        }
        if sc.time_step_days != 0.0 {
            return Err(Error::input(
                at("time_step_days"),
                "`time_step` gives each system its own step; expected no `time_step_days`",
            ));
        }
        if sc.end_time_years.is_some() {
            return Err(Error::input(
                at("end_time_years"),
                "with `time_step: InnerPeriodFraction(...)` each system ends at its own time; \
                 expected `steps` (the number of steps of every system)",
            ));
        }
    }
    let steps = match (sc.steps, sc.end_time_years) {
        (Some(s), None) => s,
        (None, Some(t)) => {
            if !(t.is_finite() && t >= 0.0) {
                return Err(Error::input(
                    at("end_time_years"),
                    "expected a finite time >= 0 in years",
                ));
            }
            if !(sc.time_step_days.is_finite() && sc.time_step_days > 0.0) {
                return Err(Error::input(
                    at("time_step_days"),
                    "expected a positive finite time step in days",
                ));
            }
            (t * units::DAYS_PER_YEAR / sc.time_step_days).ceil() as u64
        }
        _ => {
            return Err(Error::input(
                at("steps"),
                "expected exactly one of `steps` and `end_time_years`",
            ))
        }
    };
    let base = path.parent().unwrap_or(Path::new("."));
    let (bodies, tidal) = scenario_bodies(&sc, path, base)?;
    // The run's step: its own bodies' (an ensemble's systems have theirs; 0 when the scenario
    // alone has no bound orbit, as an ensemble's fixed bodies may not).
    let time_step_days = sc
        .time_step
        .days_for(sc.time_step_days, sc.central_mass, &bodies)
        .unwrap_or(0.0);
    let cfg = Config {
        name: sc.name,
        engine: sc.engine,
        mode: sc.mode,
        central_mass: sc.central_mass,
        central_radius: sc.central_radius,
        time_step_days,
        steps,
        order: sc.order,
        n1: sc.n1,
        n2: sc.n2,
        changeover: sc.changeover,
        inner_truncation: sc.inner_truncation,
        outer_truncation: sc.outer_truncation,
        default_rho: sc.default_rho,
        minimum_bodies: sc.minimum_bodies,
        minimum_test_particles: sc.minimum_test_particles,
        output: sc.output,
        backend: sc.backend,
        cpu_passes,
        device: sc.device,
        threads: None,
        source: path.to_path_buf(),
        warnings: Vec::new(),
        resume_requested: false,
        restart_step: None,
        particle_minimum_mass: sc.particle_minimum_mass,
        semi_active: sc.semi_active,
        forces: sc.forces,
        tidal,
        gas_profile: gas_profile(
            &sc.forces,
            base,
            Location::file(path).field("forces.gas.file"),
        )?,
        recursion: sc.recursion,
        integrator: sc.integrator,
        time_step: sc.time_step,
        stop: sc.stop,
        collisions: sc.collisions,
        chaos: sc.chaos,
        samples: sc.samples,
    };
    Ok((cfg, bodies))
}

/// The tabulated gas disk of `forces` (its file relative to `base`; `named` is where the file
/// was named), when the disk is on and has one.
fn gas_profile(
    forces: &ForceSettings,
    base: &Path,
    named: Location,
) -> Result<crate::physics::gas::profile::DiskProfile> {
    match (forces.gas.on, forces.gas.file) {
        (true, Some(f)) => crate::io::gas_profile::read_gas_profile(&base.join(f.0), named),
        _ => Ok(Default::default()),
    }
}

/// The bodies of a scenario, with ids counting from 0 across all sources.
/// The bodies' tidal properties by id (see [`Config::tidal`]).
type TidalList = Vec<(u64, TidalBody)>;

/// Only the bodies with a Love number have an entry in the tidal list.
fn scenario_bodies(sc: &Scenario, path: &Path, base: &Path) -> Result<(Vec<Body>, TidalList)> {
    let opts = IcOptions {
        central_mass: sc.central_mass,
        default_rho: sc.default_rho,
        angle_degrees: false,
        central_radius: sc.central_radius,
        tides: sc.forces.tides.is_on(),
    };
    let mut out = Vec::new();
    let mut tidal = Vec::new();
    let check_tides = |t: &Option<TidalBody>, field: &str| -> Result<TidalBody> {
        let t = t.unwrap_or(TidalBody::NONE);
        t.check().map_err(|(p, msg)| {
            let name = if p == "Ic" { "ic" } else { p };
            Error::input(
                Location::file(path).field(format!("{field}.tides.{name}")),
                msg,
            )
        })?;
        Ok(t)
    };
    for (k, src) in sc.bodies.iter().enumerate() {
        let field = format!("bodies[{k}]");
        let at = || Location::file(path).field(field.clone());
        let radius = |m: f64, r: Option<f64>| {
            r.unwrap_or_else(|| units::radius_from_density(m, sc.default_rho))
        };
        match src {
            BodySource::File {
                path: p,
                format,
                count,
            } => {
                let file = base.join(p);
                let (mut list, mut props) = read_initial_conditions_tidal(&file, format, &opts)?;
                if let Some(c) = count {
                    if *c > list.len() {
                        return Err(Error::input(
                            at(),
                            format!(
                                "count {c} exceeds the {} bodies in {}",
                                list.len(),
                                file.display()
                            ),
                        ));
                    }
                    list.truncate(*c);
                }
                props.truncate(list.len());
                tidal.extend(props);
                out.extend(list);
            }
            BodySource::Columns {
                m,
                radius: r,
                pos,
                vel,
                spin,
            } => {
                let n = m.len();
                let lengths = [
                    ("radius", r.as_ref().map(Vec::len)),
                    ("pos", Some(pos.len())),
                    ("vel", Some(vel.len())),
                    ("spin", spin.as_ref().map(Vec::len)),
                ];
                for (name, len) in lengths {
                    if len.is_some_and(|len| len != n) {
                        return Err(Error::input(
                            Location::file(path).field(format!("{field}.{name}")),
                            format!("{} entries; expected one per mass ({n})", len.unwrap_or(0)),
                        ));
                    }
                }
                for k in 0..n {
                    out.push(Body {
                        id: 0,
                        m: m[k],
                        r: radius(m[k], r.as_ref().map(|r| r[k])),
                        pos: pos[k],
                        vel: vel[k],
                        spin: spin.as_ref().map_or([0.0; 3], |s| s[k]),
                    });
                }
                tidal.extend((0..n).map(|_| TidalBody::NONE));
            }
            BodySource::Disk(d) => {
                let disk = crate::io::generate::disk(d, sc.central_mass)
                    .map_err(|m| Error::input(at(), m))?;
                tidal.extend(disk.iter().map(|_| TidalBody::NONE));
                out.extend(disk);
            }
            BodySource::Kepler {
                name,
                m,
                radius: r,
                a,
                e,
                inc_deg,
                node_deg,
                peri_deg,
                mean_anomaly_deg,
                spin,
                tides,
            } => {
                let deg = std::f64::consts::PI / 180.0;
                let (pos, vel) = cartesian_from_elements(
                    sc.central_mass + m,
                    *a,
                    *e,
                    inc_deg * deg,
                    node_deg * deg,
                    peri_deg * deg,
                    mean_anomaly_deg * deg,
                )
                .map_err(|err| {
                    Error::input(
                        at(),
                        format!(
                            "body `{name}`: invalid orbital elements a = {a} AU, e = {e}: {err}"
                        ),
                    )
                })?;
                tidal.push(check_tides(tides, &field)?);
                out.push(Body {
                    id: 0,
                    m: *m,
                    r: radius(*m, *r),
                    pos,
                    vel,
                    spin: *spin,
                });
            }
            BodySource::Cartesian {
                m,
                radius: r,
                pos,
                vel,
                spin,
                tides,
                ..
            } => {
                tidal.push(check_tides(tides, &field)?);
                out.push(Body {
                    id: 0,
                    m: *m,
                    r: radius(*m, *r),
                    pos: *pos,
                    vel: *vel,
                    spin: *spin,
                });
            }
        }
    }
    for (k, b) in out.iter_mut().enumerate() {
        b.id = k as u64;
    }
    let tidal = tidal_list(&out, tidal);
    Ok((out, tidal))
}

/// The tidal entries of the bodies that have a Love number, by id (`props` in the bodies'
/// order).
fn tidal_list(bodies: &[Body], props: Vec<TidalBody>) -> TidalList {
    bodies
        .iter()
        .zip(props)
        .filter(|(_, t)| !t.is_inert())
        .map(|(b, t)| (b.id, t))
        .collect()
}

fn load_param_dat(path: &Path, ov: &Overrides) -> Result<(Config, Vec<Body>)> {
    let p = crate::config::param_dat::parse_param_file_with(path, &ov.genga_console)?;
    let at = |key: &str| p.at(key);
    let mode = match p.use_test_particles {
        0 => Mode::Main,
        _ => Mode::TestParticles,
    };
    let opts = IcOptions {
        central_mass: p.central_mass,
        default_rho: p.default_rho,
        angle_degrees: p.angle_degrees,
        central_radius: p.star_radius,
        tides: p.forces.tides.is_on(),
    };
    let input = p.input_file.clone().ok_or_else(|| {
        Error::input(
            Location::file(path).field("Input file"),
            "expected the name of the initial-condition file",
        )
    })?;
    let (mut bodies, props) = read_initial_conditions_tidal(&input, &p.input_format, &opts)?;
    // At a restart the tidal properties stay the initial file's, by body index.
    let tidal = tidal_list(&bodies, props);
    let out_dir = ov.out.clone().unwrap_or_else(|| PathBuf::from("."));
    let restart = (p.restart_timestep > 0).then_some(p.restart_timestep as u64);
    if let Some(step) = restart {
        let tau = crate::units::days_to_code(p.time_step_days);
        let snapshot = crate::io::output::snapshot_path(&out_dir, &p.output_name, step);
        bodies = crate::io::genga_restart::read_snapshot(
            &snapshot,
            at("Restart timestep"),
            (
                crate::units::step_time_years(step, tau),
                crate::units::code_to_years(tau),
            ),
            &IcOptions {
                tides: false,
                ..opts
            },
        )?;
    }
    let checkpoint_interval = if p.coordinates_interval > 0 {
        p.coordinates_interval.max(1000)
    } else {
        1000
    };
    let cfg = Config {
        name: p.output_name.clone(),
        engine: Engine::Hybrid,
        mode,
        central_mass: p.central_mass,
        central_radius: p.star_radius,
        time_step_days: p.time_step_days,
        steps: p.integration_steps,
        order: p.order,
        n1: p.n1,
        n2: p.n2,
        changeover: p.changeover,
        inner_truncation: p.inner_truncation,
        outer_truncation: p.outer_truncation,
        default_rho: p.default_rho,
        minimum_bodies: p.minimum_bodies,
        minimum_test_particles: p.minimum_test_particles,
        output: OutputSpec {
            dir: out_dir,
            energy_interval: p.energy_interval,
            coordinates_interval: p.coordinates_interval,
            outputs_per_interval: p.outputs_per_interval,
            checkpoint_interval,
            binary_snapshots: false,
        },
        backend: BackendChoice::Auto,
        cpu_passes: PassSet::NONE,
        device: None,
        threads: None,
        source: path.to_path_buf(),
        warnings: p.warnings.clone(),
        resume_requested: p.restart_timestep == -1,
        restart_step: restart,
        particle_minimum_mass: p.particle_minimum_mass,
        semi_active: p.use_test_particles == 2,
        forces: p.forces,
        tidal,
        gas_profile: gas_profile(
            &p.forces,
            path.parent().unwrap_or(Path::new(".")),
            at("Gas file name"),
        )?,
        recursion: p.recursion,
        integrator: p.integrator(),
        time_step: time_step::TimeStep::Days,
        stop: p.stop(),
        collisions: p.collisions,
        chaos: Default::default(),
        samples: Default::default(),
    };
    Ok((cfg, bodies))
}

/// Check every scalar setting; the error names the field and what was expected.
pub fn validate(cfg: &Config) -> Result<()> {
    let at = |field: &str| Location::file(&cfg.source).field(field);
    let positive = |v: f64, field: &str, what: &str| {
        if v.is_finite() && v > 0.0 {
            Ok(())
        } else {
            Err(Error::input(
                at(field),
                format!("expected a positive finite {what}, got {v}"),
            ))
        }
    };
    if cfg.time_step.per_system() && cfg.time_step_days == 0.0 {
        return Err(Error::input(
            at("time_step"),
            "no body on a bound orbit to take the innermost period from",
        ));
    }
    positive(cfg.time_step_days, "time_step_days", "time step in days")?;
    positive(cfg.central_mass, "central_mass", "central mass in Msun")?;
    positive(cfg.default_rho, "default_rho", "density in g/cm^3")?;
    positive(
        cfg.outer_truncation,
        "outer_truncation",
        "outer truncation radius in AU",
    )?;
    for (v, f) in [
        (cfg.central_radius, "central_radius"),
        (cfg.inner_truncation, "inner_truncation"),
        (cfg.n1, "n1"),
        (cfg.n2, "n2"),
    ] {
        if !(v.is_finite() && v >= 0.0) {
            return Err(Error::input(
                at(f),
                format!("expected a finite value >= 0, got {v}"),
            ));
        }
    }
    if cfg.inner_truncation >= cfg.outer_truncation {
        return Err(Error::input(
            at("inner_truncation"),
            "expected inner_truncation < outer_truncation",
        ));
    }
    if let Err((field, msg)) = cfg.forces.check() {
        // A param.dat names its key; a scenario its field.
        let name = match cfg.names_genga_keys() {
            false => field.scenario_field(),
            true => field.genga_key(),
        };
        return Err(Error::input(at(name), msg));
    }
    if let Some((field, msg)) = cfg.recursion.check() {
        let name = match cfg.names_genga_keys() {
            false => format!("recursion.{field}"),
            true if field == "levels" => "Symplectic recursion levels".to_string(),
            true => "Symplectic recursion sub steps".to_string(),
        };
        return Err(Error::input(at(&name), msg));
    }
    if cfg.n1 == 0.0 && cfg.n2 == 0.0 {
        return Err(Error::input(
            at("n1"),
            "expected n1 > 0 or n2 > 0 (a zero critical radius disables the changeover)",
        ));
    }
    if !matches!(cfg.order, 2 | 4 | 6) {
        return Err(Error::input(
            at("order"),
            format!("expected integrator order 2, 4 or 6, got {}", cfg.order),
        ));
    }
    if let Some((field, msg)) = integrator::check(cfg) {
        return Err(Error::input(at(field), msg));
    }
    let stop = cfg.stop.check();
    if let Some((field, msg)) = stop.or_else(|| cfg.collisions.check()) {
        let genga = match field {
            "stop.hill_radii" => "Stop at Encounter Radius",
            "stop.collision_minimum_mass" => "Stop Minimum Mass",
            "collisions.precision" => "Collision Precision",
            "collisions.time_shift" => "Collision Time Shift",
            _ => field,
        };
        let name = if cfg.names_genga_keys() { genga } else { field };
        return Err(Error::input(at(name), msg));
    }
    if let Some(r) = cfg.stop.escape.filter(|&r| r <= cfg.inner_truncation) {
        return Err(Error::input(
            at("stop.escape"),
            format!(
                "{r} AU is inside the inner truncation radius {} AU; expected a larger distance",
                cfg.inner_truncation
            ),
        ));
    }
    if cfg.name.is_empty() || cfg.name.contains(['/', '\\']) {
        return Err(Error::input(
            at("name"),
            "expected a non-empty run name without path separators",
        ));
    }
    let (ci, per) = (
        cfg.output.coordinates_interval,
        cfg.output.outputs_per_interval,
    );
    if per == 0 || (ci > 0 && per > ci as u64) {
        return Err(Error::input(
            at("output.outputs_per_interval"),
            format!(
                "expected 1 to coordinates_interval ({ci}) consecutive snapshots per interval, \
                 got {per}"
            ),
        ));
    }
    for (v, f) in [
        (cfg.output.energy_interval, "output.energy_interval"),
        (
            cfg.output.coordinates_interval,
            "output.coordinates_interval",
        ),
        (cfg.output.checkpoint_interval, "output.checkpoint_interval"),
    ] {
        if v < -1 {
            return Err(Error::input(
                at(f),
                format!("expected an interval in steps >= -1, got {v}"),
            ));
        }
    }
    if cfg.threads == Some(0) {
        return Err(Error::input(
            Location::default().field("--threads"),
            "expected at least 1 thread",
        ));
    }
    if cfg.engine == Engine::Sheet {
        return Err(Error::input(
            at("engine"),
            "a Scenario runs the hybrid engine (expected Hybrid); the sheet engine runs files \
             that start with `Sheet(` instead of `Scenario(` (ring-patch fields in SI units, see \
             inputs/ring.ron), e.g. `orrery run inputs/ring.ron`",
        ));
    }
    if cfg.semi_active && cfg.mode != Mode::TestParticles {
        return Err(Error::input(
            at("semi_active"),
            format!(
                "semi-active bodies (`--semi-active`, `semi_active: true`) exist only in \
                 test-particle mode, but the mode is {:?}: add `--mode test-particles` (or \
                 `mode: TestParticles` with `particle_minimum_mass`, or GENGA's `Use Test \
                 Particles = 2`), or drop --semi-active",
                cfg.mode
            ),
        ));
    }
    if !(cfg.particle_minimum_mass.is_finite() && cfg.particle_minimum_mass >= 0.0) {
        return Err(Error::input(
            at("particle_minimum_mass"),
            "expected a finite mass >= 0",
        ));
    }
    Ok(())
}

/// Check the initial bodies: finite, non-negative masses, outside the central body, no two at
/// the same position.
pub fn validate_bodies(cfg: &Config, bodies: &[Body]) -> Result<()> {
    let at = |field: String| Location::file(&cfg.source).field(field);
    if bodies.is_empty() {
        return Err(Error::input(
            at("bodies".into()),
            "expected at least one body",
        ));
    }
    for b in bodies {
        let name = format!("body {}", b.id);
        if !(b.m.is_finite() && b.m >= 0.0) {
            return Err(Error::input(
                at(name),
                format!("expected a finite mass >= 0, got {}", b.m),
            ));
        }
        if !(b.r.is_finite() && b.r >= 0.0) {
            return Err(Error::input(
                at(name),
                format!("expected a finite radius >= 0, got {}", b.r),
            ));
        }
        if (cfg.forces.poynting_robertson || cfg.forces.yarkovsky) && b.r <= 0.0 {
            return Err(Error::input(
                at(name),
                "expected a radius > 0 with radiation forces on (radiation pressure, \
                 Poynting-Robertson drag and the Yarkovsky effect scale with the \
                 cross-section); give the body a radius or a density",
            ));
        }
        if b.pos
            .iter()
            .chain(&b.vel)
            .chain(&b.spin)
            .any(|v| !v.is_finite())
        {
            return Err(Error::input(
                at(name),
                "expected finite coordinates and velocities",
            ));
        }
        let r = (b.pos[0] * b.pos[0] + b.pos[1] * b.pos[1] + b.pos[2] * b.pos[2]).sqrt();
        if r <= cfg.central_radius {
            return Err(Error::input(
                at(name),
                format!(
                    "the body is inside the central body (r = {r:e} AU <= {:e} AU)",
                    cfg.central_radius
                ),
            ));
        }
    }
    let mut order: Vec<usize> = (0..bodies.len()).collect();
    let key = |k: &usize| bodies[*k].pos.map(f64::to_bits);
    order.sort_unstable_by_key(key);
    if let Some(w) = order.windows(2).find(|w| key(&w[0]) == key(&w[1])) {
        let (a, b) = (
            bodies[w[0]].id.min(bodies[w[1]].id),
            bodies[w[0]].id.max(bodies[w[1]].id),
        );
        return Err(Error::input(
            at(format!("body {b}")),
            format!(
                "body {b} sits exactly on body {a} (ids count from 0 across the body sources); \
                 expected distinct positions"
            ),
        ));
    }
    Ok(())
}

/// The directory a file lies in; `.` for a bare file name (whose `parent()` is empty).
pub(crate) fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}
