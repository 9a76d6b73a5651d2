//! The per-pass CPU fallback (issue 11 §1) with the CPU backend standing in for the device: for
//! every subset of passes on the "CPU side", a run through the fallback wrapper writes the same
//! bytes (energies every step, collisions, ejections, final snapshot, checkpoint) as the plain
//! CPU backend. A pass that read a field missing from its table, or changed one missing from its
//! writes, would run on stale data on one side and change the bits. The scenarios have close
//! encounters, mergers, ejections, test-particle impacts and stopped systems within a few dozen
//! steps.

mod common;
use common::*;
use orrery::backend::cpu::{CpuBackend, CpuHybrid};
use orrery::backend::fallback::Fallback;
use orrery::backend::{HybridBackend, Pass, PassSet};
use orrery::config::{self, Overrides};
use orrery::hybrid::run::{run_setup_on, Summary};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// A dense, hot disk with inflated radii between the inner truncation radius and an eccentric
/// giant: about ten ejections at the first step and three mergers within 30 steps.
const EVENTS: &str = r#"Scenario(
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
const TEST_PARTICLES: &str = r#"Scenario(
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

/// 24 systems of Jupiter and two drawn bodies near its orbit, stopped at their first loss:
/// mergers, ejections and stopped systems in 400 steps.
const ENSEMBLE: &str = r#"Ensemble(
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

/// Write `text` with its placeholders filled to `dir/name.ron`.
fn write_scenario(dir: &Path, name: &str, text: &str, fill: &[(&str, &str)]) -> PathBuf {
    let text = fill
        .iter()
        .fold(text.to_string(), |t, (k, v)| t.replace(k, v));
    let path = dir.join(format!("{name}.ron"));
    std::fs::write(&path, text).expect("write scenario");
    path
}

/// Run `scenario` with its outputs in `out` on `backend`.
fn run_on(scenario: &Path, out: &Path, backend: Box<dyn HybridBackend>) -> Summary {
    let ov = Overrides {
        out: Some(out.to_path_buf()),
        ..Default::default()
    };
    let setup = config::load_setup(scenario, &ov, false).expect("scenario loads");
    let stop = AtomicBool::new(false);
    run_setup_on(setup, backend, false, &stop, &mut |_| {}).expect("run")
}

/// The output files of a run (all but the info file, which holds wall times), sorted by name.
fn outputs(dir: &Path) -> Vec<(String, Vec<u8>)> {
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

fn fallback(on_cpu: PassSet) -> Box<dyn HybridBackend> {
    Box::new(Fallback::new(Box::new(CpuHybrid::default()), on_cpu))
}

/// Run `scenario` through the fallback for every pass set in `sets` and require the outputs of
/// the plain CPU backend, byte for byte. Returns the plain run's summary.
fn same_bits_for(dir: &Path, scenario: &Path, sets: &[PassSet]) -> Summary {
    let reference = dir.join("plain");
    let summary = run_on(scenario, &reference, Box::new(CpuBackend::default()));
    let expected = outputs(&reference);
    assert!(
        expected.len() >= 2,
        "reference outputs: {:?}",
        expected.len()
    );
    sets.par_iter().enumerate().for_each(|(k, &set)| {
        let out = dir.join(format!("set{k}"));
        run_on(scenario, &out, fallback(set));
        let got = outputs(&out);
        let names = |v: &[(String, Vec<u8>)]| v.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
        assert_eq!(names(&got), names(&expected), "files with CPU passes {set}");
        for ((name, a), (_, b)) in got.iter().zip(&expected) {
            assert!(a == b, "{name} differs with CPU passes {set}");
        }
        std::fs::remove_dir_all(&out).expect("clean up");
    });
    summary
}

/// Pass sets from a fixed-seed generator (xorshift), for the modes not run exhaustively.
fn sampled_sets(count: usize, seed: u64) -> Vec<PassSet> {
    let mut x = seed;
    let mut sets = vec![PassSet::NONE, PassSet::all()];
    sets.extend((0..Pass::ALL.len()).map(|k| PassSet::of(&[Pass::ALL[k]])));
    while sets.len() < count {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        sets.push(PassSet::from_mask(x as u32));
    }
    sets
}

#[test]
fn every_subset_of_cpu_passes_gives_the_plain_cpu_bits_in_main_mode() {
    let d = scratch("fallback-main");
    let scenario = write_scenario(&d, "events", EVENTS, &[("ORDER", "2"), ("OUT", "unused")]);
    // Every subset of the step's passes; the energy pass on the CPU for every other subset.
    let step_passes = Pass::ALL.len() - 1;
    let energy_bit = 1 << step_passes;
    let sets: Vec<PassSet> = (0..1u32 << step_passes)
        .map(|mask| PassSet::from_mask(mask | ((mask.count_ones() % 2) * energy_bit)))
        .collect();
    let s = same_bits_for(&d, &scenario, &sets);
    println!("{} subsets: {}", sets.len(), s.report());
    assert!(
        s.collisions >= 2 && s.ejections >= 5,
        "the scenario must have events: {}",
        s.report()
    );
}

#[test]
fn sampled_cpu_passes_give_the_plain_cpu_bits_at_order_4() {
    let d = scratch("fallback-order4");
    let scenario = write_scenario(&d, "events4", EVENTS, &[("ORDER", "4"), ("OUT", "unused")]);
    let s = same_bits_for(&d, &scenario, &sampled_sets(48, 0x9e37_79b9_7f4a_7c15));
    assert!(
        s.collisions >= 1 && s.ejections >= 5,
        "events: {}",
        s.report()
    );
}

#[test]
fn sampled_cpu_passes_give_the_plain_cpu_bits_with_test_particles() {
    for semi in ["false", "true"] {
        let d = scratch(&format!("fallback-tp-{semi}"));
        let scenario = write_scenario(&d, "tp", TEST_PARTICLES, &[("SEMI", semi), ("OUT", "x")]);
        let s = same_bits_for(&d, &scenario, &sampled_sets(40, 0x2545_f491_4f6c_dd1d));
        assert!(
            s.encounters > 100 && s.collisions >= 1,
            "events: {}",
            s.report()
        );
    }
}

#[test]
fn sampled_cpu_passes_give_the_plain_cpu_bits_for_many_systems() {
    let d = scratch("fallback-ensemble");
    let scenario = write_scenario(&d, "ens", ENSEMBLE, &[("OUT", "x")]);
    let s = same_bits_for(&d, &scenario, &sampled_sets(40, 0x1234_5678_9abc_def1));
    assert!(
        s.collisions >= 1 && s.ejections >= 5,
        "events: {}",
        s.report()
    );
}

#[test]
fn pass_lists_parse_and_name_the_unknown_pass() {
    let at = orrery::Location::default().field("--cpu-passes");
    assert_eq!(PassSet::parse("none", &at).unwrap(), PassSet::NONE);
    assert_eq!(PassSet::parse("all", &at).unwrap(), PassSet::all());
    let set = PassSet::parse("drift, bulirsch_stoer", &at).unwrap();
    assert_eq!(set, PassSet::of(&[Pass::Drift, Pass::BulirschStoer]));
    assert_eq!(set.to_string(), "drift,bulirsch_stoer");
    let err = PassSet::parse("drift,bs", &at).unwrap_err().to_string();
    assert!(
        err.contains("unknown pass `bs`") && err.contains("bulirsch_stoer"),
        "{err}"
    );
    // Every pass works on the systems' slots, so every pass reads the layout.
    for p in Pass::ALL {
        assert!(p.reads().contains(orrery::backend::Field::Layout), "{p}");
    }
}
