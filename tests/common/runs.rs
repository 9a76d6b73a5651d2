//! Scenarios with close encounters, mergers, ejections, test-particle impacts and stopped
//! systems within a few dozen steps, and helpers that run them on a chosen backend and read
//! their outputs (the fallback and device tests compare backends on them byte for byte).

use orrery::backend::HybridBackend;
use orrery::config::{self, Overrides};
use orrery::hybrid::run::{run_setup_on, Summary};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// A dense, hot disk with inflated radii between the inner truncation radius and an eccentric
/// giant: about ten ejections at the first step and three mergers within 30 steps.
pub const EVENTS: &str = r#"Scenario(
    name: "events",
    time_step_days: 4.0,
    steps: Some(30),
    order: ORDER,
    n1: 3.0,
    n2: 0.4,
    inner_truncation: 0.33,
    outer_truncation: 0.9,
    bodies: [
        Disk((n: 30, total_mass_earth: 10.0, a_min: 0.38, a_max: 0.6, surface_density_exponent: 1.0,
              e_rayleigh: 0.2, i_rayleigh: 0.01, rho: 0.0000005, seed: 7)),
        Kepler(name: "J", m: 9.547919e-4, radius: None, a: 0.75, e: 0.25, inc_deg: 1.0,
               node_deg: 10.0, peri_deg: 20.0, mean_anomaly_deg: 30.0),
    ],
    output: (dir: "OUT", energy_interval: 1, coordinates_interval: 0, checkpoint_interval: 0),
)"#;

/// Two massive bodies and 200 test particles: encounters, one impact, one ejection in 40 steps.
pub const TEST_PARTICLES: &str = r#"Scenario(
    name: "tp",
    mode: TestParticles,
    semi_active: SEMI,
    time_step_days: 4.0,
    steps: Some(40),
    n1: 3.0,
    n2: 0.4,
    inner_truncation: 0.33,
    outer_truncation: 1.5,
    particle_minimum_mass: 1e-12,
    bodies: [
        Kepler(name: "J", m: 9.547919e-4, radius: Some(0.01), a: 0.75, e: 0.25, inc_deg: 1.0,
               node_deg: 10.0, peri_deg: 20.0, mean_anomaly_deg: 30.0),
        Kepler(name: "S", m: 3e-5, radius: Some(0.003), a: 0.5, e: 0.1, inc_deg: 0.5,
               node_deg: 100.0, peri_deg: 70.0, mean_anomaly_deg: 250.0),
        Disk((n: 200, total_mass_earth: 1e-7, a_min: 0.55, a_max: 0.95,
              surface_density_exponent: 1.0, e_rayleigh: 0.15, i_rayleigh: 0.01, rho: 2.0, seed: 5)),
    ],
    output: (dir: "OUT", energy_interval: 1, coordinates_interval: 0, checkpoint_interval: 0),
)"#;

/// Three comets past Jupiter's orbit towards the Sun (a = 2 AU; perihelia 0.02, 0.04 and 0.08 AU
/// against an inner truncation radius of 0.05 AU, reached 43, 172 and 86 days in), in mode MODE;
/// at 6-day steps a comet spends under a day inside the radius, so step ends rarely see it.
pub const SUNGRAZERS: &str = r#"Scenario(
    name: "grazers",
    mode: MODE,
    time_step_days: 6.0,
    steps: Some(60),
    n1: 3.0,
    n2: 0.4,
    inner_truncation: 0.05,
    outer_truncation: 100.0,
    particle_minimum_mass: 1e-11,
    bodies: [
        Kepler(name: "J", m: 9.547919e-4, a: 5.2, e: 0.05, inc_deg: 1.0, node_deg: 10.0,
               peri_deg: 20.0, mean_anomaly_deg: 30.0),
        Kepler(name: "C1", m: 1e-12, a: 2.0, e: 0.99, inc_deg: 20.0, node_deg: 40.0,
               peri_deg: 10.0, mean_anomaly_deg: 345.0),
        Kepler(name: "C2", m: 1e-12, a: 2.0, e: 0.98, inc_deg: 5.0, node_deg: 200.0,
               peri_deg: 100.0, mean_anomaly_deg: 300.0),
        Kepler(name: "C3", m: 1e-12, a: 2.0, e: 0.96, inc_deg: 50.0, node_deg: 300.0,
               peri_deg: 250.0, mean_anomaly_deg: 330.0),
    ],
    output: (dir: "OUT", energy_interval: 1, coordinates_interval: 0, checkpoint_interval: 0),
)"#;

/// 24 systems of Jupiter and two drawn bodies near its orbit, stopped at their first loss:
/// mergers, ejections and stopped systems in 400 steps.
pub const ENSEMBLE: &str = r#"Ensemble(
    systems: 24,
    seed: 4242,
    hypothetical: [
        Drawn(name: "X", m: (1e-5, 1e-4), radius: Some(0.05), a: (5.0, 5.4), e: (0.0, 0.05),
              inc_deg: (0.0, 1.0)),
        Drawn(name: "Y", m: (1e-6, 1e-5), radius: Some(0.02), a: (4.4, 4.9), e: (0.05, 0.15),
              inc_deg: (0.0, 1.0)),
    ],
    scenario: Scenario(
        name: "ens",
        mode: Multi,
        time_step_days: 20.0,
        steps: Some(400),
        n1: 3.0,
        n2: 0.4,
        inner_truncation: 4.0,
        outer_truncation: 30.0,
        minimum_bodies: 3,
        bodies: [
            Kepler(name: "Jupiter", m: 9.547919e-4, radius: Some(4.673e-4), a: 5.20288700,
                   e: 0.04838624, inc_deg: 1.30439695, node_deg: 100.47390909,
                   peri_deg: 274.25457074, mean_anomaly_deg: 19.66796068),
        ],
        output: (dir: "OUT", energy_interval: 0, coordinates_interval: 0,
                 checkpoint_interval: 1000000),
    ),
)"#;

/// An ensemble of 150 systems on the Wisdom-Holman map with corrector order 5: the Sun,
/// Jupiter and Saturn and a planet drawn between 10.2 and 12.5 AU, stopped at one mutual Hill radius
/// or a touch (many stop within 2000 steps, at the kick or within a drift), with energy and
/// coordinate outputs; STEP is the time step (`time_step_days: 20.0,` or a rule), EXTRA adds
/// scenario fields (forces).
pub const WH_ENSEMBLE: &str = r#"Ensemble(
    systems: 150,
    seed: 700,
    hypothetical: [
        Drawn(name: "X", m: (1e-5, 1e-4), radius: Some(0.002), a: (10.2, 12.5), e: (0.0, 0.2),
              inc_deg: (0.0, 2.0)),
    ],
    scenario: Scenario(
        name: "whens",
        mode: Multi,
        STEP
        steps: Some(2000),
        integrator: WisdomHolman(correctors: 5),
        stop: (hill_radii: Some(1.0), min_distance: None, collision: true),
        inner_truncation: 0.5,
        outer_truncation: 40.0,
        EXTRA
        bodies: [
            Kepler(name: "Jupiter", m: 9.547919e-4, radius: Some(4.673e-4), a: 5.20288700,
                   e: 0.04838624, inc_deg: 1.30439695, node_deg: 100.47390909,
                   peri_deg: 274.25457074, mean_anomaly_deg: 19.66796068),
            Kepler(name: "Saturn", m: 2.858860e-4, radius: Some(3.893e-4), a: 9.53667594,
                   e: 0.05386179, inc_deg: 2.48599187, node_deg: 113.66242448,
                   peri_deg: 338.93645383, mean_anomaly_deg: 317.35536592),
        ],
        output: (dir: "OUT", energy_interval: 250, coordinates_interval: 500,
                 checkpoint_interval: 1000),
    ),
)"#;

/// The forces the Wisdom-Holman map takes (GR and a strong J2 about a tilted axis), for
/// [`WH_ENSEMBLE`]'s EXTRA.
pub const WH_FORCES: &str =
    "forces: (gr: true, j2: 0.05, j2_radius: 1.0, central_spin: (0.2, -0.1, 1.0)),";

/// Samples of every kind but MEGNO every 50 steps, for [`WH_ENSEMBLE`]'s EXTRA.
pub const WH_SAMPLES: &str =
    "samples: (every: Steps(50), what: [elements, jacobi_elements, min_distance, energy]),";

/// MEGNO with its stop (above 3 after 20 years), sampled every 50 steps with the elements, and
/// GR and J2 in the tangent map, for [`WH_ENSEMBLE`]'s EXTRA.
pub const WH_MEGNO: &str =
    "forces: (gr: true, j2: 0.05, j2_radius: 1.0, central_spin: (0.2, -0.1, \
     1.0)), chaos: (megno: true, seed: 3, stop_above: Some(3.0), stop_after_years: 20.0), \
     samples: (every: Steps(50), what: [megno, elements, min_distance]),";

/// A narrow, dense ring of 500 planetesimals whose critical radii chain close-encounter pairs
/// into groups of dozens of bodies (GENGA's limit at large N, issue 27), with recursive
/// sub-steps RECURSION (e.g. `recursion: (levels: 2, sub_steps: 10),` or nothing).
pub const CHAINED: &str = r#"Scenario(
    name: "chained",
    time_step_days: 6.0,
    steps: Some(STEPS),
    n1: 3.0,
    n2: 0.4,
    RECURSION
    bodies: [
        Disk((n: 500, total_mass_earth: 2.0, a_min: 0.95, a_max: 1.05, surface_density_exponent: 1.0,
              e_rayleigh: 0.01, i_rayleigh: 0.002, rho: 2.0, seed: 27)),
    ],
    output: (dir: "OUT", energy_interval: 5, coordinates_interval: 0, checkpoint_interval: 10),
)"#;

/// Recursive sub-steps of two levels with ten sub-steps, for the scenarios' templates.
pub const RECURSION: &str = "recursion: (levels: 2, sub_steps: 10),";

/// A scenario template with [`RECURSION`] on (before its first `bodies` list).
pub fn with_recursion(text: &str) -> String {
    text.replacen("bodies: [", &format!("{RECURSION}\n    bodies: ["), 1)
}

/// Every force beyond point masses (issues 26 and 29), strong enough to change the bits of
/// every step: GR, J2 about a tilted axis, radiation with the solar wind (a solar constant 10^6
/// times the Sun's, so that the drag also matters for the massive bodies), and a gas disk 100
/// times GENGA's default that dissipates within the runs, with drag and type-I damping on every
/// body and its own gravity on the bodies lighter than 1e-9 Msun (a table to 3 AU, the extended
/// disk's pull beyond; on every body, it would be 14 % of the Sun's pull and take the runs'
/// collisions and ejections away), and tides with rotational deformation: a star with an hour-long lag that every massive
/// body raises a tide on, and (through [`with_forces`]) a spinning Jupiter with its own tide.
pub const FORCES: &str = "forces: (gr: true, j2: 1e-3, j2_radius: 0.02, \
    central_spin: (1e-7, -2e-7, 1e-6), poynting_robertson: true, qpr: 0.8, \
    solar_constant: 1.4e9, solar_wind: 0.35, gas: (on: true, drag: All, tidal_damping: All, \
    sigma_10: 2e5, dissipation_time: 1.0, potential: BelowGiant, m_giant: 1e-9, grid_outer_edge: 3.0, grid_dr: 0.25), \
    tides: (tides: true, rotational_deformation: true, \
    star: (k2: 0.5, k2f: 0.9, tau: 30.0, ic: 0.2))),";

/// A scenario template with [`FORCES`] on (before its first `bodies` list).
pub fn with_forces(text: &str) -> String {
    text.replacen("bodies: [", &format!("{FORCES}\n    bodies: ["), 1)
        .replacen(
            "peri_deg: 20.0, mean_anomaly_deg: 30.0)",
            "peri_deg: 20.0, mean_anomaly_deg: 30.0, spin: (0.0, 2e-10, 2e-9), \
             tides: Some((k2: 0.5, k2f: 0.5, tau: 1.0, ic: 0.25)))",
            1,
        )
}

/// Placeholder fills of a scenario template (`write_scenario`).
pub type Fills = Vec<(&'static str, &'static str)>;

/// The runs with every extra force on: main mode with mergers and ejections, passive and
/// semi-active test particles, an ensemble; (name, scenario text, placeholder fills).
pub fn force_runs() -> Vec<(&'static str, String, Fills)> {
    vec![
        (
            "main",
            with_forces(EVENTS),
            vec![("ORDER", "2"), ("OUT", "x")],
        ),
        (
            "tp",
            with_forces(TEST_PARTICLES),
            vec![("SEMI", "false"), ("OUT", "x")],
        ),
        (
            "semi",
            with_forces(TEST_PARTICLES),
            vec![("SEMI", "true"), ("OUT", "x")],
        ),
        ("ens", with_forces(ENSEMBLE), vec![("OUT", "x")]),
    ]
}

/// Write `text` with its placeholders filled to `dir/name.ron`.
pub fn write_scenario(dir: &Path, name: &str, text: &str, fill: &[(&str, &str)]) -> PathBuf {
    let text = fill
        .iter()
        .fold(text.to_string(), |t, (k, v)| t.replace(k, v));
    let path = dir.join(format!("{name}.ron"));
    std::fs::write(&path, text).expect("write scenario");
    path
}

/// Run `scenario` with its outputs in `out` on `backend`.
pub fn run_on(scenario: &Path, out: &Path, backend: Box<dyn HybridBackend>) -> Summary {
    run_until(scenario, out, backend, None, false)
}

/// [`run_on`] up to step `steps` (the scenario's end when `None`), resuming from the newest
/// checkpoint in `out` when `resume`.
pub fn run_until(
    scenario: &Path,
    out: &Path,
    backend: Box<dyn HybridBackend>,
    steps: Option<u64>,
    resume: bool,
) -> Summary {
    let ov = Overrides {
        out: Some(out.to_path_buf()),
        steps,
        ..Default::default()
    };
    let setup = config::load_setup(scenario, &ov, false).expect("scenario loads");
    let stop = AtomicBool::new(false);
    run_setup_on(setup, backend, resume, &stop, &mut |_| {}).expect("run")
}

/// Require the files of `got` to be byte for byte those of `expected` (all output files but
/// info; with `common_only`, the files both have, which must include the energy file).
pub fn assert_same_outputs(got: &Path, expected: &Path, common_only: bool, what: &str) {
    let (got, expected) = (outputs(got), outputs(expected));
    let names = |v: &[(String, Vec<u8>)]| v.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
    if !common_only {
        assert_eq!(names(&got), names(&expected), "{what}: output files");
    }
    let mut compared = 0;
    for (name, bytes) in &got {
        if let Some((_, want)) = expected.iter().find(|(n, _)| n == name) {
            assert!(bytes == want, "{what}: {name} differs");
            compared += 1;
        }
    }
    assert!(compared >= 2, "{what}: only {compared} files in common");
}

/// The output files of a run (all but the info file, which holds wall times), sorted by name.
pub fn outputs(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("output dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with("info"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).expect("read output"))
        })
        .collect();
    files.sort();
    files
}
