//! The run-time SIMD levels (issue 12 §6): whole runs at every level the CPU has (AVX-512,
//! AVX2, the baseline) write the same bytes (energies every step, collisions, ejections, final
//! snapshot, checkpoint). The scenarios take every dispatched pass: the tile pass with many
//! sources, the source-outer pass, the small-system passes across lanes, the semi-active pull,
//! the batch drift, the Sun kick, the critical radii and the encounter search.

mod common;
use common::runs::*;
use common::*;
use orrery::backend::cpu::CpuBackend;
use orrery::simd::{self, Level};
use std::path::Path;

/// Run `scenario` at every SIMD level this CPU has and require the bytes of the baseline run.
fn same_bits_at_every_level(dir: &Path, scenario: &Path) {
    let levels = simd::supported_levels();
    assert_eq!(levels[0], Level::Base);
    let reference = dir.join("base");
    simd::with_level(Level::Base, || {
        run_on(scenario, &reference, Box::new(CpuBackend::default()))
    });
    for &level in &levels[1..] {
        let out = dir.join(level.name());
        simd::with_level(level, || {
            run_on(scenario, &out, Box::new(CpuBackend::default()))
        });
        assert_same_outputs(&out, &reference, false, &format!("SIMD level {level}"));
    }
    if levels.len() == 1 {
        eprintln!("this CPU runs only the baseline SIMD level: nothing to compare");
    }
}

#[test]
fn every_simd_level_gives_the_same_bits_for_a_disk_with_encounters() {
    let d = scratch("simd-events");
    let scenario = write_scenario(&d, "events", EVENTS, &[("ORDER", "4"), ("OUT", "x")]);
    same_bits_at_every_level(&d, &scenario);
}

#[test]
fn every_simd_level_gives_the_same_bits_for_a_disk_of_many_sources() {
    // 120 planetesimals: more sources than the source-outer pass takes, so the tile pass.
    let d = scratch("simd-disk");
    let fill = [("ORDER", "2"), ("OUT", "x"), ("n: 30,", "n: 120,")];
    let scenario = write_scenario(&d, "disk", EVENTS, &fill);
    same_bits_at_every_level(&d, &scenario);
}

#[test]
fn every_simd_level_gives_the_same_bits_with_test_particles() {
    for semi in ["false", "true"] {
        let d = scratch(&format!("simd-tp-{semi}"));
        let scenario = write_scenario(&d, "tp", TEST_PARTICLES, &[("SEMI", semi), ("OUT", "x")]);
        same_bits_at_every_level(&d, &scenario);
    }
}

#[test]
fn every_simd_level_gives_the_same_bits_for_many_systems() {
    let d = scratch("simd-ensemble");
    let scenario = write_scenario(&d, "ens", ENSEMBLE, &[("OUT", "x")]);
    same_bits_at_every_level(&d, &scenario);
}

/// The Wisdom-Holman map's ensemble (packs of systems in the lanes, the swept stops, GR and J2)
/// with MEGNO's variational equations and every kind of sample: the same bytes, the
/// `Samples<name>.npz` and the MEGNO column of `summary.csv` included, at every level.
#[test]
fn every_simd_level_gives_the_same_bits_for_the_map_with_megno_and_samples() {
    let d = scratch("simd-map");
    let extra = format!(
        "{WH_FORCES} chaos: (megno: true, seed: 3), samples: (every: Steps(37), what: \
         [elements, jacobi_elements, megno, min_distance, energy]),"
    );
    let fill = [
        ("STEP", "time_step_days: 20.0,"),
        ("EXTRA", &extra),
        ("OUT", "x"),
    ];
    let scenario = write_scenario(&d, "whens", WH_ENSEMBLE, &fill);
    same_bits_at_every_level(&d, &scenario);
    for level in simd::supported_levels() {
        let out = d.join(level.name());
        assert!(out.join("Sampleswhens.npz").exists(), "{level}: no samples");
    }
}
