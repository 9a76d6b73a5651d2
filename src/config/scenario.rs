//! Scenario files in RON: the user-facing description of a run. `inputs/example.ron` documents
//! every field. Unknown fields are errors (a typo must never be silently ignored).

use crate::backend::BackendChoice;
use crate::physics::tides::TidalBody;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Which engine integrates the scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Engine {
    /// The GENGA hybrid symplectic integrator.
    #[default]
    Hybrid,
    /// The OCCLUDE shearing-sheet ring patch.
    Sheet,
}

/// The hybrid engine's mode (GENGA paper section 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Mode {
    /// All bodies interact (up to a few thousand bodies).
    #[default]
    Main,
    /// Massless test particles around a few massive bodies.
    TestParticles,
    /// Many independent small systems.
    Multi,
}

impl std::str::FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "main" => Ok(Mode::Main),
            "test-particles" => Ok(Mode::TestParticles),
            "multi" => Ok(Mode::Multi),
            _ => Err(format!(
                "unknown mode `{s}` (expected main, test-particles or multi)"
            )),
        }
    }
}

/// A scenario as written in a `.ron` file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Run name: output files are `Out<name>_<step>.dat`, `Energy<name>.dat`, ...
    pub name: String,
    /// The engine: `Hybrid` (the default; a `Sheet(...)` file selects the ring engine).
    #[serde(default)]
    pub engine: Engine,
    /// The hybrid engine's mode: `Main`, `TestParticles` or `Multi` (`--mode` overrides it).
    #[serde(default)]
    pub mode: Mode,
    /// Central mass (Msun).
    #[serde(default = "one")]
    pub central_mass: f64,
    /// Central body radius (AU); bodies inside it are rejected.
    #[serde(default = "sun_radius")]
    pub central_radius: f64,
    /// Time step in days (required unless `time_step` gives each system its own).
    #[serde(default)]
    pub time_step_days: f64,
    /// Each system's own time step instead: `InnerPeriodFraction(f)`, `f` times its innermost
    /// orbital period at the start (see [`crate::config::time_step::TimeStep`]).
    #[serde(default)]
    pub time_step: crate::config::time_step::TimeStep,
    /// Number of steps (exactly one of `steps` and `end_time_years`).
    #[serde(default)]
    pub steps: Option<u64>,
    /// End time in years of 365.25 days (rounded up to whole steps).
    #[serde(default)]
    pub end_time_years: Option<f64>,
    /// Integrator order: 2, 4 or 6.
    #[serde(default = "two")]
    pub order: u8,
    /// Hill-radius factor of the critical radius.
    #[serde(default = "three")]
    pub n1: f64,
    /// Velocity factor of the critical radius.
    #[serde(default = "zero_point_four")]
    pub n2: f64,
    /// The changeover function K of the hybrid step: `Genga` (GENGA's eq. 4, the default),
    /// `Quintic` (Mercury's and MERCURIUS's) or `Infinity` (infinitely smooth).
    #[serde(default)]
    pub changeover: crate::physics::changeover::Changeover,
    /// Bodies closer to the centre than this (AU) are removed as ejections (case -2).
    #[serde(default = "inner")]
    pub inner_truncation: f64,
    /// Bodies farther than this (AU) are removed as ejections (case -3).
    #[serde(default = "outer")]
    pub outer_truncation: f64,
    /// Density (g/cm^3) for bodies without a radius.
    #[serde(default = "rho")]
    pub default_rho: f64,
    /// The run stops when fewer bodies remain.
    #[serde(default)]
    pub minimum_bodies: usize,
    /// The run stops when fewer test particles remain (0: never; GENGA's `Minimum number of
    /// test particles`).
    #[serde(default)]
    pub minimum_test_particles: usize,
    /// Test-particle mode: bodies with at most this mass (Msun) are test particles.
    #[serde(default)]
    pub particle_minimum_mass: f64,
    /// Test-particle mode: small bodies pull on the massive bodies (but not on each other).
    #[serde(default)]
    pub semi_active: bool,
    /// Forces beyond point-mass gravity: general relativity, the central body's J2, radiation
    /// pressure and Poynting-Robertson drag (see [`ForceSettings`]).
    #[serde(default)]
    pub forces: crate::physics::forces::ForceSettings,
    /// Recursive symplectic sub-steps for close-encounter groups (GENGA's `Symplectic recursion
    /// levels` and `sub steps`): `(levels: 2, sub_steps: 10)`; the default, one level, gives
    /// whole groups to Bulirsch-Stoer (see [`crate::physics::recursion`]).
    #[serde(default)]
    pub recursion: crate::physics::recursion::Recursion,
    /// The integrator: `Hybrid` (GENGA's step, the default) or `WisdomHolman(correctors: N)`,
    /// the Wisdom-Holman map for systems without close encounters (stability ensembles), with
    /// symplectic correctors of order N (0, 3, 5, 7, 11 or 17).
    #[serde(default)]
    pub integrator: crate::config::integrator::Integrator,
    /// When a system stops before its end step: `(hill_radii: Some(x), min_distance: None,
    /// collision: true)` (see [`crate::config::stop::StopSettings`]); nothing by default.
    #[serde(default)]
    pub stop: crate::config::stop::StopSettings,
    /// When a collision is resolved: `(precision: Some(1e-4))` refines the contact time (see
    /// [`crate::config::collisions::CollisionSettings`]); merged where contact is found by
    /// default.
    #[serde(default)]
    pub collisions: crate::config::collisions::CollisionSettings,
    /// Chaos indicators on the Wisdom-Holman map: `(megno: true, seed: 0)`, and the stop
    /// `stop_above: Some(5.0), stop_after_years: 1e3` (see
    /// [`crate::config::chaos::ChaosSettings`]); off by default.
    #[serde(default)]
    pub chaos: crate::config::chaos::ChaosSettings,
    /// Time series of every system: `(every: Years(10.0), what: [elements, megno])`, written to
    /// `Samples<name>.npz` (see [`crate::config::samples::SampleSettings`]); off by default.
    #[serde(default)]
    pub samples: crate::config::samples::SampleSettings,
    /// Where the bodies come from, concatenated in order; body ids count from 0 across them.
    pub bodies: Vec<BodySource>,
    /// Output directory and intervals.
    pub output: OutputSpec,
    /// Which backend runs the passes: `Auto`, `Cpu`, `Opencl` or `Cuda` (`--backend`
    /// overrides it).
    #[serde(default)]
    pub backend: BackendChoice,
    /// Passes to run on the CPU reference instead of the device backend: comma-separated pass
    /// names (see `orrery run --help`), `all` or `none` (the default).
    #[serde(default)]
    pub cpu_passes: Option<String>,
    /// Device index of the chosen API (CUDA or OpenCL), as `orrery devices` lists them;
    /// `--device N` overrides it.
    #[serde(default)]
    pub device: Option<usize>,
}

/// A source of bodies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum BodySource {
    /// A GENGA initial-condition file (path relative to the scenario file).
    File {
        /// The file, relative to the scenario file's folder.
        path: PathBuf,
        /// GENGA format string, e.g. `<< x y z m vx vy vz >>`.
        format: String,
        /// Use only the first `count` bodies of the file.
        #[serde(default)]
        count: Option<usize>,
    },
    /// A generated planetesimal disk.
    Disk(DiskSpec),
    /// One body from Keplerian elements (angles in degrees).
    Kepler {
        /// The body's name (for messages and the ensemble table).
        name: String,
        /// Mass (Msun).
        m: f64,
        /// Radius (AU); from `default_rho` when absent.
        #[serde(default)]
        radius: Option<f64>,
        /// Semi-major axis (AU; negative for a hyperbolic orbit).
        a: f64,
        /// Eccentricity.
        e: f64,
        /// Inclination (degrees).
        inc_deg: f64,
        /// Longitude of the ascending node (degrees).
        node_deg: f64,
        /// Argument of pericentre (degrees).
        peri_deg: f64,
        /// Mean anomaly (degrees).
        mean_anomaly_deg: f64,
        /// Spin angular momentum (Msun AU² per code time unit, GENGA's `Sx Sy Sz`).
        #[serde(default)]
        spin: [f64; 3],
        /// Tidal properties (GENGA's `k2 k2f tau Ic`), for `forces.tides`.
        #[serde(default)]
        tides: Option<TidalBody>,
    },
    /// Many bodies from columns of heliocentric Cartesian coordinates (AU, AU per code time
    /// unit), one entry per body: what the Python module passes for numpy arrays.
    Columns {
        /// Masses (Msun).
        m: Vec<f64>,
        /// Radii (AU); from `default_rho` when absent.
        #[serde(default)]
        radius: Option<Vec<f64>>,
        /// Heliocentric positions (AU).
        pos: Vec<[f64; 3]>,
        /// Heliocentric velocities (AU per code time unit).
        vel: Vec<[f64; 3]>,
        /// Spin angular momenta (Msun AU² per code time unit); zero when absent.
        #[serde(default)]
        spin: Option<Vec<[f64; 3]>>,
    },
    /// One body from heliocentric Cartesian coordinates (AU, AU per code time unit).
    Cartesian {
        /// The body's name (for messages and the ensemble table).
        name: String,
        /// Mass (Msun).
        m: f64,
        /// Radius (AU); from `default_rho` when absent.
        #[serde(default)]
        radius: Option<f64>,
        /// Heliocentric position (AU).
        pos: [f64; 3],
        /// Heliocentric velocity (AU per code time unit).
        vel: [f64; 3],
        /// Spin angular momentum (Msun AU² per code time unit, GENGA's `Sx Sy Sz`).
        #[serde(default)]
        spin: [f64; 3],
        /// Tidal properties (GENGA's `k2 k2f tau Ic`), for `forces.tides`.
        #[serde(default)]
        tides: Option<TidalBody>,
    },
}

/// Parameters of the planetesimal-disk generator (defined with the generator).
pub use crate::io::generate::DiskSpec;

/// Output directory and intervals (in steps; 0 switches an output off, -1 writes it only at the
/// end; the final step always gets a snapshot and a checkpoint).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// Output directory (relative to the current directory).
    pub dir: PathBuf,
    /// Steps between lines of `Energy<name>.dat` (0 off, -1 only at the end).
    #[serde(default = "hundred")]
    pub energy_interval: i64,
    /// Steps between snapshots `Out<name>_<step>.dat` (0 off, -1 only at the end).
    #[serde(default = "hundred")]
    pub coordinates_interval: i64,
    /// Consecutive snapshots at the end of each coordinates interval (GENGA's `Number of
    /// outputs per interval`: 100 and 5 write steps 96-100, 196-200, ...).
    #[serde(default = "one_output")]
    pub outputs_per_interval: u64,
    /// Steps between checkpoints `Checkpoint<name>_<step>.bin` (0 off, -1 only at the end).
    #[serde(default = "thousand")]
    pub checkpoint_interval: i64,
    /// Write snapshots as `Out<name>_<step>.bin` (little-endian f64, 13 per body, the columns of
    /// the text snapshot) instead of text: compact and fast for 10^5-10^6 test particles.
    #[serde(default)]
    pub binary_snapshots: bool,
}

fn one() -> f64 {
    1.0
}
fn two() -> u8 {
    2
}
fn three() -> f64 {
    3.0
}
fn zero_point_four() -> f64 {
    0.4
}
fn sun_radius() -> f64 {
    crate::units::SUN_RADIUS_AU
}
fn inner() -> f64 {
    0.2
}
fn outer() -> f64 {
    50.0
}
fn rho() -> f64 {
    2.0
}
fn hundred() -> i64 {
    100
}
fn one_output() -> u64 {
    1
}
fn thousand() -> i64 {
    1000
}
