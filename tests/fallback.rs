//! The per-pass CPU fallback (issue 11 §1) with the CPU backend standing in for the device: for
//! every subset of passes on the "CPU side", a run through the fallback wrapper writes the same
//! bytes (energies every step, collisions, ejections, final snapshot, checkpoint) as the plain
//! CPU backend. A pass that read a field missing from its table, or changed one missing from its
//! writes, would run on stale data on one side and change the bits. The scenarios have close
//! encounters, mergers, ejections, test-particle impacts and stopped systems within a few dozen
//! steps.

mod common;
use common::runs::*;
use common::*;
use orrery::backend::cpu::{CpuBackend, CpuHybrid};
use orrery::backend::fallback::Fallback;
use orrery::backend::{HybridBackend, Pass, PassSet};
use orrery::hybrid::run::Summary;
use rayon::prelude::*;
use std::path::Path;

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

/// Pass sets from the project's generator with a fixed seed, for the modes not run
/// exhaustively.
fn sampled_sets(count: usize, seed: u64) -> Vec<PassSet> {
    let mut rng = orrery::rng::Rng::new(seed);
    let mut sets = vec![PassSet::NONE, PassSet::all()];
    sets.extend((0..Pass::ALL.len()).map(|k| PassSet::of(&[Pass::ALL[k]])));
    while sets.len() < count {
        sets.push(PassSet::from_mask(rng.next_u64() as u32));
    }
    sets
}

#[test]
fn every_subset_of_cpu_passes_gives_the_plain_cpu_bits_in_main_mode() {
    let d = scratch("fallback-main");
    let scenario = write_scenario(&d, "events", EVENTS, &[("ORDER", "2"), ("OUT", "unused")]);
    // Every subset of the step's point-mass passes (the force passes and the map do not run
    // here; the forces have a test of their own below); the energy pass on the CPU for every
    // other subset.
    let step: Vec<Pass> = Pass::ALL
        .into_iter()
        .filter(|p| {
            !matches!(
                p,
                Pass::PotentialKick | Pass::RadiationKick | Pass::Energy | Pass::WisdomHolman
            )
        })
        .collect();
    let sets: Vec<PassSet> = (0..1u32 << step.len())
        .map(|mask| {
            let mut on: Vec<Pass> = (0..step.len())
                .filter(|k| mask & (1 << k) != 0)
                .map(|k| step[k])
                .collect();
            if mask.count_ones() % 2 == 1 {
                on.push(Pass::Energy);
            }
            PassSet::of(&on)
        })
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
fn sampled_cpu_passes_give_the_plain_cpu_bits_with_extra_forces() {
    // GR, J2, radiation, the gas disk and the tides in main mode (mergers and ejections), with passive and semi-active
    // test particles and for many systems: the force passes and their neighbours on either side.
    let runs = force_runs();
    for (k, (name, text, fill)) in runs.into_iter().enumerate() {
        let d = scratch(&format!("fallback-forces-{name}"));
        let scenario = write_scenario(&d, name, &text, &fill);
        let mut sets = sampled_sets(24, 0x5eed_0026 + k as u64);
        for force in [Pass::PotentialKick, Pass::RadiationKick, Pass::TideKick] {
            for other in Pass::ALL {
                sets.push(PassSet::of(&[force, other]));
            }
        }
        let s = same_bits_for(&d, &scenario, &sets);
        assert!(
            s.times.forces > 0.0 && s.collisions + s.ejections >= 1,
            "{name}: the forces must run and the scenario have events: {}",
            s.report()
        );
    }
}

#[test]
fn sampled_cpu_passes_give_the_plain_cpu_bits_with_recursive_sub_steps() {
    // Mergers at the deepest level of the sub-steps, with every pass on either side.
    let d = scratch("fallback-recursion");
    let text = with_recursion(EVENTS);
    let scenario = write_scenario(&d, "events", &text, &[("ORDER", "2"), ("OUT", "x")]);
    let s = same_bits_for(&d, &scenario, &sampled_sets(24, 0x2727_0027));
    assert!(
        s.collisions >= 1 && s.groups.levels.groups[1] > 0,
        "{}",
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
    let rest = set.complement();
    assert!(Pass::ALL
        .iter()
        .all(|&p| set.contains(p) != rest.contains(p)));
    assert_eq!(set.union(rest), PassSet::all());
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
