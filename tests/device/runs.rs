//! Whole runs on a device backend (OpenCL on PoCL in CI, or CUDA; included by
//! tests/opencl_runs.rs and tests/cuda_runs.rs with their `API`) against the CPU backend:
//! every output file byte for byte, in main mode with mergers and ejections at orders 2 and 4,
//! with passive and semi-active test particles, for an ensemble of many systems with stopped
//! systems, with passes moved back to the CPU by `--cpu-passes`, and through checkpoints
//! written by one backend and resumed by the other. These runs check the device passes, the
//! field moves of the per-pass fallback and the resident state together.
//!
//! A test that finds no device prints a `SKIPPED` line with the reason and passes; it fails
//! instead where the device is required (OpenCL with `CI=true`, since CI installs PoCL; CUDA
//! with `ORRERY_REQUIRE_CUDA=1`). `ORRERY_TEST_DEVICE=N` picks the device.

use super::API;
use crate::common;
use crate::common::runs::*;
use crate::common::*;
use orrery::backend::{self, BackendChoice, HybridBackend, Pass, PassSet};
use orrery::hybrid::run::Summary;
use std::path::Path;

/// The device backend on the device under test, or `None` after printing why the test is
/// skipped (a failure where the device is required). A device that is there must open.
fn device_or_skip(test: &str, cpu_passes: PassSet) -> Option<Box<dyn HybridBackend>> {
    common::device::available(API, test)?;
    let device = common::device::device_index();
    let choice = common::device::choice(API);
    Some(backend::create(choice, cpu_passes, device).unwrap_or_else(|e| panic!("{e}")))
}

fn cpu() -> Box<dyn HybridBackend> {
    backend::create(BackendChoice::Cpu, PassSet::NONE, None).expect("cpu backend")
}

/// Run `scenario` on the CPU and on OpenCL (with `cpu_passes` on the CPU) and require the same
/// bytes in every output file. Returns false when skipped.
fn same_as_cpu(test: &str, dir: &Path, scenario: &Path, cpu_passes: PassSet) -> bool {
    let Some(gpu) = device_or_skip(test, cpu_passes) else {
        return false;
    };
    let s = run_on(scenario, &dir.join("cpu"), cpu());
    let g = run_on(scenario, &dir.join("device"), gpu);
    println!("cpu: {}\n{}: {}", s.report(), API.name(), g.report());
    assert_eq!(g.backend, API.name());
    assert_same_outputs(&dir.join("device"), &dir.join("cpu"), false, test);
    assert_eq!((g.collisions, g.ejections), (s.collisions, s.ejections));
    true
}

#[test]
fn mergers_and_ejections_on_the_device_are_the_cpu_bits_at_orders_2_and_4() {
    for order in ["2", "4"] {
        let d = scratch(&format!("device-events-{order}"));
        let scenario = write_scenario(&d, "events", EVENTS, &[("ORDER", order), ("OUT", "x")]);
        if !same_as_cpu("events", &d, &scenario, PassSet::NONE) {
            return;
        }
    }
}

#[test]
fn a_collision_stop_on_the_device_writes_the_cpus_collision_state() {
    // Contacts refined, the run stopped at its first merger with OutCollision.dat: the step
    // redone up to the contact from the state copied at its start, on the device.
    // With a time shift too: the backtrace redone on the device, its file and the state at it.
    for (name, shift) in [("stop", ""), ("shift", ", time_shift: Some(1.5)")] {
        let d = scratch(&format!("device-collision-{name}"));
        let stop = format!(
            "stop: (collision: true), collisions: (precision: Some(1e-4){shift}),\n    bodies: ["
        );
        let text = EVENTS.replacen("    bodies: [", &stop, 1);
        let scenario = write_scenario(&d, "events", &text, &[("ORDER", "2"), ("OUT", "x")]);
        if !same_as_cpu("collision stop", &d, &scenario, PassSet::NONE) {
            return;
        }
        let state = std::fs::read_to_string(d.join("device/OutCollision.dat")).unwrap();
        assert!(state.lines().count() > 2, "{state}");
        let shifted = d.join("device/CollisionsTShiftevents.dat");
        assert_eq!(shifted.exists(), !shift.is_empty());
    }
}

#[test]
fn test_particles_on_the_device_are_the_cpu_bits() {
    for semi in ["false", "true"] {
        let d = scratch(&format!("device-tp-{semi}"));
        let scenario = write_scenario(&d, "tp", TEST_PARTICLES, &[("SEMI", semi), ("OUT", "x")]);
        if !same_as_cpu("test particles", &d, &scenario, PassSet::NONE) {
            return;
        }
    }
}

#[test]
fn comets_passing_inside_the_inner_radius_leave_as_on_the_cpu() {
    // The device's ejection check lists bodies whose perihelion lies inside the inner radius;
    // the host removes those that passed it within the step, with the CPU's rule. The comets
    // (e >= 0.9) drift on the scalar fallback, which is the CPU's to rounding on a device (its
    // sin, cos and log are the device's), so their records agree to rounding, not bits.
    for mode in ["Main", "TestParticles"] {
        let d = scratch(&format!("device-grazers-{mode}"));
        let scenario = write_scenario(&d, "grazers", SUNGRAZERS, &[("MODE", mode), ("OUT", "x")]);
        let Some(gpu) = device_or_skip("sungrazers", PassSet::NONE) else {
            return;
        };
        let s = run_on(&scenario, &d.join("cpu"), cpu());
        let g = run_on(&scenario, &d.join("device"), gpu);
        assert_eq!((g.ejections, s.ejections), (2, 2), "{mode}");
        let rows = |dir: &str| -> Vec<Vec<f64>> {
            std::fs::read_to_string(d.join(dir).join("Ejectionsgrazers.dat"))
                .unwrap()
                .lines()
                .map(|l| l.split_whitespace().map(|t| t.parse().unwrap()).collect())
                .collect()
        };
        let (want, got) = (rows("cpu"), rows("device"));
        assert_eq!(want.len(), got.len(), "{mode}");
        for (w, g) in want.iter().zip(&got) {
            assert_eq!((w[1], w[13]), (g[1], g[13]), "{mode}: id and case");
            for (a, b) in w.iter().zip(g) {
                assert!(
                    (a - b).abs() <= 1e-11 * a.abs().max(1e-3),
                    "{mode}: {w:?} vs {g:?}"
                );
            }
        }
    }
}

#[test]
fn an_ensemble_with_stopped_systems_on_the_device_is_the_cpu_bits() {
    let d = scratch("device-ensemble");
    let scenario = write_scenario(&d, "ens", ENSEMBLE, &[("OUT", "x")]);
    same_as_cpu("ensemble", &d, &scenario, PassSet::NONE);
}

#[test]
fn wisdom_holman_ensembles_on_the_device_are_the_cpu_bits() {
    // One pack of 150 systems on the device against packs of 64 on the CPU; with per-system
    // time steps (several packs), and with GR and J2 (J2's torque booked every step); the map
    // moved back to the CPU by `--cpu-passes wisdom_holman` too; sampled every 50 steps
    // (the systems read back from the device at their samples: the npz the same bytes); and
    // with MEGNO, its stop and its samples (the tangent vectors stepped on the device).
    let days = "time_step_days: 20.0,";
    let runs = [
        ("plain", days, "", PassSet::NONE),
        (
            "own-steps",
            "time_step: InnerPeriodFraction(0.05),",
            "",
            PassSet::NONE,
        ),
        ("forces", days, WH_FORCES, PassSet::NONE),
        ("on-cpu", days, "", PassSet::of(&[Pass::WisdomHolman])),
        ("samples", days, WH_SAMPLES, PassSet::NONE),
        ("megno", days, WH_MEGNO, PassSet::NONE),
    ];
    for (name, step, extra, cpu_passes) in runs {
        let d = scratch(&format!("device-wh-{name}"));
        let fill = [("STEP", step), ("EXTRA", extra), ("OUT", "x")];
        let scenario = write_scenario(&d, "whens", WH_ENSEMBLE, &fill);
        let test = "wisdom-holman ensemble";
        let Some((s, g)) = stopping_on_both(test, name, &d, &scenario, cpu_passes) else {
            return;
        };
        assert_eq!(g.map_on_device, cpu_passes.is_empty(), "{name}");
        assert!(!s.map_on_device);
    }
}

/// Run an ensemble `scenario` that stops many of its 150 systems, not all, on the CPU and on
/// the device (with `cpu_passes` on the CPU): every file the same bytes, the ensemble table
/// with each stop's reason, time, pair and distance too. The CPU's and the device's summaries,
/// or `None` when skipped.
fn stopping_on_both(
    test: &str,
    name: &str,
    d: &Path,
    scenario: &Path,
    cpu_passes: PassSet,
) -> Option<(Summary, Summary)> {
    let gpu = device_or_skip(test, cpu_passes)?;
    let s = run_on(scenario, &d.join("cpu"), cpu());
    let g = run_on(scenario, &d.join("device"), gpu);
    println!(
        "{name}: cpu: {}\n{}: {}",
        s.report(),
        API.name(),
        g.report()
    );
    assert!(
        s.stopped_simulations > 10 && s.stopped_simulations < 140,
        "{name}: expected many stops, not all: {}",
        s.stopped_simulations
    );
    assert_same_outputs(&d.join("device"), &d.join("cpu"), false, name);
    Some((s, g))
}

#[test]
fn the_hybrid_steps_encounter_stops_on_the_device_are_the_cpu_bits() {
    // The Wisdom-Holman ensemble's systems on the hybrid step, stopped at one mutual Hill
    // radius (n1 stays 3), or at 0.6 AU (the critical radii raised to it); and with the
    // search on the CPU, which reads the masses and ids the device's mergers changed.
    let hill = "(hill_radii: Some(1.0), min_distance: None, collision: true)";
    let search = PassSet::of(&[Pass::EncounterSearch]);
    let runs = [
        ("hill", hill, PassSet::NONE),
        ("distance", "(min_distance: Some(0.6))", PassSet::NONE),
        ("search-on-cpu", hill, search),
    ];
    for (name, stop, cpu_passes) in runs {
        let d = scratch(&format!("device-hybrid-stop-{name}"));
        let text = WH_ENSEMBLE
            .replace("integrator: WisdomHolman(correctors: 5),", "")
            .replace(hill, stop);
        let fill = [
            ("STEP", "time_step_days: 20.0,"),
            ("EXTRA", ""),
            ("OUT", "x"),
        ];
        let scenario = write_scenario(&d, "hstop", &text, &fill);
        let test = "hybrid encounter stops";
        if stopping_on_both(test, name, &d, &scenario, cpu_passes).is_none() {
            return;
        }
    }
}

#[test]
fn a_wisdom_holman_run_resumes_across_backends() {
    // Stopped at step 1234 on one side, resumed on the other: the CPU's straight run's bits.
    let d = scratch("device-wh-resume");
    let fill = [
        ("STEP", "time_step_days: 20.0,"),
        ("EXTRA", WH_FORCES),
        ("OUT", "x"),
    ];
    let scenario = write_scenario(&d, "whens", WH_ENSEMBLE, &fill);
    let expected = d.join("straight");
    run_on(&scenario, &expected, cpu());
    for (first, second) in [(true, false), (false, true)] {
        let side = |device: bool| match device {
            true => device_or_skip("wisdom-holman resume", PassSet::NONE),
            false => Some(cpu()),
        };
        let (Some(a), Some(b)) = (side(first), side(second)) else {
            return;
        };
        let out = d.join(format!("from-device-{first}"));
        run_until(&scenario, &out, a, Some(1234), false);
        run_until(&scenario, &out, b, None, true);
        assert_same_outputs(&out, &expected, true, &format!("device first: {first}"));
    }
}

#[test]
fn passes_moved_back_to_the_cpu_give_the_same_bits() {
    // Every pass alone and every pair of passes on the CPU, and all of them: a pass that needs
    // a field or a setting its side did not get shows up as a pair.
    let d = scratch("device-cpu-passes");
    let scenario = write_scenario(&d, "events", EVENTS, &[("ORDER", "2"), ("OUT", "x")]);
    // The force passes do not run here (see extra_forces_on_the_device_are_the_cpu_bits).
    let passes: Vec<Pass> = Pass::ALL
        .into_iter()
        .filter(|p| {
            !matches!(
                p,
                Pass::PotentialKick | Pass::RadiationKick | Pass::WisdomHolman
            )
        })
        .collect();
    let mut sets = vec![PassSet::all()];
    for (k, &a) in passes.iter().enumerate() {
        sets.push(PassSet::of(&[a]));
        sets.extend(passes[k + 1..].iter().map(|&b| PassSet::of(&[a, b])));
    }
    let expected = d.join("cpu");
    run_on(&scenario, &expected, cpu());
    for (k, set) in sets.into_iter().enumerate() {
        let Some(gpu) = device_or_skip("cpu passes", set) else {
            return;
        };
        let out = d.join(format!("set{k}"));
        run_on(&scenario, &out, gpu);
        assert_same_outputs(&out, &expected, false, &format!("cpu passes {set}"));
        std::fs::remove_dir_all(&out).expect("clean up");
    }
}

#[test]
fn extra_forces_on_the_device_are_the_cpu_bits() {
    // GR, J2 and radiation (issue 26) in main mode with mergers and ejections, with passive and
    // semi-active test particles, for an ensemble, and with each force pass on the CPU.
    let runs = force_runs();
    for (name, text, fill) in runs {
        let d = scratch(&format!("device-forces-{name}"));
        let scenario = write_scenario(&d, name, &text, &fill);
        if !same_as_cpu("extra forces", &d, &scenario, PassSet::NONE) {
            return;
        }
    }
    // The Yarkovsky effect needs spins: the family example's fragments have them.
    let d = scratch("device-forces-yarkovsky");
    let Some(gpu) = device_or_skip("yarkovsky", PassSet::NONE) else {
        return;
    };
    let scenario = inputs().join("yarkovsky_family.ron");
    run_until(&scenario, &d.join("device"), gpu, Some(60), false);
    run_until(&scenario, &d.join("cpu"), cpu(), Some(60), false);
    assert_same_outputs(&d.join("device"), &d.join("cpu"), false, "yarkovsky family");
    let d = scratch("device-forces-cpu-passes");
    let scenario = write_scenario(
        &d,
        "main",
        &with_forces(EVENTS),
        &[("ORDER", "4"), ("OUT", "x")],
    );
    for set in [
        PassSet::of(&[Pass::PotentialKick]),
        PassSet::of(&[Pass::RadiationKick]),
        PassSet::of(&[Pass::PotentialKick, Pass::Kick]),
        PassSet::of(&[Pass::RadiationKick, Pass::Drift, Pass::Energy]),
    ] {
        let dir = d.join(format!("{set}"));
        if !same_as_cpu("extra forces with cpu passes", &dir, &scenario, set) {
            return;
        }
    }
}

#[test]
fn recursive_sub_steps_and_large_groups_on_the_device_are_the_cpu_bits() {
    // The chained ring (groups of up to a hundred bodies, beyond the device's Bulirsch-Stoer
    // limit: integrated on the host, only their bodies moved) without and with recursive
    // sub-steps, the events run with mergers at the deepest level, and the group passes on the
    // CPU.
    let d = scratch("device-recursion");
    let ring = |name: &str, recursion: &str| {
        let fill = [("RECURSION", recursion), ("STEPS", "20"), ("OUT", "x")];
        write_scenario(&d, name, CHAINED, &fill)
    };
    for (name, scenario, set) in [
        ("ring", ring("ring", ""), PassSet::NONE),
        ("ring-rec", ring("ring-rec", RECURSION), PassSet::NONE),
        (
            "ring-rec-cpu-groups",
            ring("ring-rec", RECURSION),
            PassSet::of(&[Pass::Grouping, Pass::BulirschStoer]),
        ),
        (
            "events-rec",
            write_scenario(
                &d,
                "events-rec",
                &with_recursion(EVENTS),
                &[("ORDER", "2"), ("OUT", "x")],
            ),
            PassSet::NONE,
        ),
    ] {
        if !same_as_cpu("recursive sub-steps", &d.join(name), &scenario, set) {
            return;
        }
    }
}

#[test]
fn a_candidate_list_that_grows_on_the_device_keeps_the_cpu_bits() {
    // The device's candidate list starts at 64 pairs (ORRERY_DEVICE_LIST_PAIRS) and must grow,
    // emitting each pass's candidates again, for the ring's thousands of candidates per step.
    if common::device::available(API, "growing candidate list").is_none() {
        return;
    }
    let d = scratch("device-list-growth");
    let fill = [("RECURSION", ""), ("STEPS", "20"), ("OUT", "x")];
    let scenario = write_scenario(&d, "ring", CHAINED, &fill);
    let run = |backend: &str, out: &str| {
        let out = d.join(out);
        let mut args = vec!["run", scenario.to_str().unwrap(), "--backend", backend];
        let device = common::device::device_index().map(|k| k.to_string());
        if let Some(k) = &device {
            args.extend(["--device", k.as_str()]);
        }
        args.extend(["--out", out.to_str().unwrap()]);
        let o = std::process::Command::new(common::orrery_bin())
            .args(&args)
            .env("ORRERY_DEVICE_LIST_PAIRS", "64")
            .output()
            .expect("run orrery");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    run("cpu", "cpu");
    let stdout = run(API.name(), "device");
    assert!(
        summary_count(&stdout, "encounter candidates ") > 20 * 64,
        "{stdout}"
    );
    assert_same_outputs(&d.join("device"), &d.join("cpu"), false, "grown list");
}

#[test]
fn checkpoints_resume_across_backends() {
    let d = scratch("device-resume");
    let scenario = write_scenario(&d, "events", EVENTS, &[("ORDER", "2"), ("OUT", "x")]);
    let Some(gpu) = device_or_skip("resume", PassSet::NONE) else {
        return;
    };
    run_on(&scenario, &d.join("whole"), cpu());
    // OpenCL to step 13, then the CPU to the end.
    run_until(&scenario, &d.join("cl_then_cpu"), gpu, Some(13), false);
    run_until(&scenario, &d.join("cl_then_cpu"), cpu(), None, true);
    assert_same_outputs(
        &d.join("cl_then_cpu"),
        &d.join("whole"),
        true,
        "device -> cpu",
    );
    // The CPU to step 17, then OpenCL to the end.
    let gpu = device_or_skip("resume", PassSet::NONE).expect("device");
    run_until(&scenario, &d.join("cpu_then_cl"), cpu(), Some(17), false);
    run_until(&scenario, &d.join("cpu_then_cl"), gpu, None, true);
    assert_same_outputs(
        &d.join("cpu_then_cl"),
        &d.join("whole"),
        true,
        "cpu -> device",
    );
}

#[test]
fn the_outer_solar_system_on_the_device_conserves_energy_and_matches_the_cpu() {
    let d = scratch("device-outer");
    let scenario = inputs().join("outer_solar_system.ron");
    let Some(gpu) = device_or_skip("outer solar system", PassSet::NONE) else {
        return;
    };
    let s = run_until(&scenario, &d.join("device"), gpu, Some(2000), false);
    run_until(&scenario, &d.join("cpu"), cpu(), Some(2000), false);
    assert_same_outputs(
        &d.join("device"),
        &d.join("cpu"),
        false,
        "outer solar system",
    );
    assert!(s.rel_energy_error.abs() < 5e-7, "{}", s.report());
}
