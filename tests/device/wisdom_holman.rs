//! The Wisdom-Holman map's step on a device against the CPU's packs (included by
//! tests/opencl_passes.rs and tests/cuda_passes.rs with their `API`): a pack of systems with
//! the watch's limits and the central body's GR and J2, stepped on both sides, must keep the
//! same bits in every system's map state, stop, stop time and J2 torque tally, step by step.
//!
//! A test that finds no device prints a `SKIPPED` line and passes; it fails instead where the
//! device is required (OpenCL with `CI=true`; CUDA with `ORRERY_REQUIRE_CUDA=1`).

use super::API;
use crate::common;
use orrery::backend::gpu::{wisdom_holman, DeviceHybrid};
use orrery::physics::changeover::hill_factor_of;
use orrery::physics::forces::Forces;
use orrery::physics::wisdom_holman::{LaneStop, PairLimits, ResidentPack, Watch, WhPack};

/// Systems in the pack: two full lane groups of the CPU's kick and a remainder.
const SYSTEMS: usize = 37;

/// One system's masses, positions and velocities.
type System = (Vec<f64>, Vec<[f64; 3]>, Vec<[f64; 3]>);

/// System `s`: the star and three planets near circular orbits, the outer two close (a ratio
/// from 1.04 up) and near conjunction, the inner one at the pericentre of an orbit that reaches
/// past the outer one's, so that many systems meet their Hill stop within a few hundred steps,
/// at a kick or within a drift.
fn system(s: usize) -> System {
    let f = s as f64;
    let a = [1.0, 1.9 + 0.002 * f, (1.9 + 0.002 * f) * (1.04 + 0.002 * f)];
    let m = vec![1.0, 3e-6, 3e-5 + 1e-7 * f, 2e-5];
    let (mut pos, mut vel) = (vec![[0.0; 3]], vec![[0.0; 3]]);
    for (k, &a) in a.iter().enumerate() {
        let phase = [0.0, 1.0, 1.0 + 0.01 * f][k] + 0.13 * f;
        let speed = (1.0 / a).sqrt() * [0.99, 1.02, 1.0][k];
        pos.push([a * phase.cos(), a * phase.sin(), 0.01 * a * phase.sin()]);
        vel.push([-speed * phase.sin(), speed * phase.cos(), 0.0]);
    }
    (m, pos, vel)
}

/// The central body's GR and J2.
fn forces() -> Forces {
    Forces {
        gr: 6.0 / (10065.3 * 10065.3),
        j2r2: 1e-4,
        axis: [0.0, 0.6, 0.8],
        ..Forces::default()
    }
}

/// The pack of [`SYSTEMS`] systems with corrector order 5, GR and J2, and the watch: truncation
/// radii 0.3 and 10, a stop at one mutual Hill radius and at a touch.
fn pack(dt: f64) -> WhPack {
    let systems: Vec<_> = (0..SYSTEMS).map(system).collect();
    let refs: Vec<_> = systems
        .iter()
        .map(|(m, x, v)| (&m[..], &x[..], &v[..]))
        .collect();
    let mut pack = WhPack::with_forces(&refs, (dt, 5), &forces()).expect("pack");
    pack.set_watch(watch(&systems));
    pack
}

/// The watch of [`pack`].
fn watch(systems: &[System]) -> Watch {
    let n = 4;
    let (mut hill, mut radius) = (vec![0.0; n * SYSTEMS], vec![0.0; n * SYSTEMS]);
    for (s, (m, _, _)) in systems.iter().enumerate() {
        radius[s] = 0.005;
        for k in 1..n {
            hill[k * SYSTEMS + s] = hill_factor_of(m[k], m[0]);
            radius[k * SYSTEMS + s] = 1e-4;
        }
    }
    let limits = PairLimits {
        hill_radii: 1.0,
        min_distance: 0.0,
        collision: true,
    };
    let (inner, outer) = (vec![0.3; SYSTEMS], vec![10.0; SYSTEMS]);
    Watch::new(&inner, &outer, hill, radius, limits)
}

/// Step `cpu` and the device's copy of it once (step `step`): the same stops, stop times,
/// systems a step behind and J2 torque tallies (drained; the CPU's returned).
fn step_both(
    cpu: &mut WhPack,
    (copy, device): (&mut WhPack, &mut dyn ResidentPack),
    step: u32,
) -> Vec<[f64; 3]> {
    cpu.step().expect("cpu step");
    device.step(copy).expect("device step");
    assert_eq!(cpu.stops(), copy.stops(), "step {step}: stops");
    assert_eq!(cpu.behind(), copy.behind(), "step {step}: behind");
    let after = |p: &WhPack| {
        p.stop_after()
            .iter()
            .map(|t| t.to_bits())
            .collect::<Vec<_>>()
    };
    assert_eq!(after(cpu), after(copy), "step {step}: stop times");
    let torque = cpu.take_torque();
    let mut on_device = vec![[0.0; 3]; SYSTEMS];
    device
        .drain_torque(&mut |s, t| on_device[s] = t)
        .expect("torque");
    let bits = |t: &[[f64; 3]]| t.iter().flatten().map(|c| c.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&torque), bits(&on_device), "step {step}: J2's torque");
    torque
}

/// Every system's map state, as bits (states that are not finite compare).
fn bits(p: &WhPack) -> Vec<Vec<u64>> {
    let (_, states) = p.map_state();
    states
        .iter()
        .map(|s| s.iter().map(|v| v.to_bits()).collect())
        .collect()
}

#[test]
fn the_map_steps_a_pack_on_the_device_with_the_cpu_bits() {
    if common::device::available(API, "the_map_steps_a_pack_on_the_device_with_the_cpu_bits")
        .is_none()
    {
        return;
    }
    let dev =
        DeviceHybrid::open(API, common::device::device_index()).unwrap_or_else(|e| panic!("{e}"));
    let mut cpu = pack(0.05);
    let mut on_device = cpu.clone();
    let mut resident = wisdom_holman::resident(dev.gpu(), &mut on_device).expect("upload");
    let mut stopped = 0;
    for step in 1..=400 {
        step_both(&mut cpu, (&mut on_device, resident.as_mut()), step);
        // Odd steps too: the device's state alternates between two buffers.
        if step % 50 == 0 || step == 77 {
            resident.fetch(&mut on_device).expect("fetch");
            assert_eq!(bits(&cpu), bits(&on_device), "step {step}: map states");
            assert_eq!(cpu.steps(), on_device.steps());
        }
        stopped = cpu.stops().iter().filter(|s| s.is_some()).count();
    }
    let swept = cpu.stop_after().iter().filter(|&&t| t > 0.0).count();
    println!("{stopped} of {SYSTEMS} systems met an event, {swept} within a drift");
    assert!(
        (3..SYSTEMS).contains(&stopped) && swept >= 1,
        "expected some systems to stop, not all, and one within a drift: {stopped}, {swept}"
    );
    assert!(torque_is_on(&mut cpu), "J2's torque must be tallied");
    common::device::params_match_the_ptx(dev.gpu(), &["orr_wh_step"]);
}

/// Whether a step of `pack` tallies a torque (J2 is on and the orbits are tilted to its axis).
fn torque_is_on(pack: &mut WhPack) -> bool {
    pack.step().expect("step");
    pack.take_torque()
        .iter()
        .any(|t| t.iter().any(|&c| c != 0.0))
}

#[test]
fn a_system_whose_drift_fails_goes_back_a_step_on_the_device_as_on_the_cpu() {
    let name = "a_system_whose_drift_fails_goes_back_a_step_on_the_device_as_on_the_cpu";
    if common::device::available(API, name).is_none() {
        return;
    }
    let dev =
        DeviceHybrid::open(API, common::device::device_index()).unwrap_or_else(|e| panic!("{e}"));
    // After 30 steps, the first system without an event in the next 40 gets a velocity that
    // is not finite on its Jacobi body 2, and the last such an infinite one on its body 3:
    // their drifts fail at the next step, and every step after it.
    let dt = 0.05;
    let mut clean = pack(dt);
    for _ in 0..30 {
        clean.step().expect("step");
    }
    let mut ahead = clean.clone();
    for _ in 0..40 {
        ahead.step().expect("step");
    }
    let quiet: Vec<usize> = (0..SYSTEMS)
        .filter(|&s| ahead.stops()[s].is_none())
        .collect();
    let broken = [quiet[0], quiet[quiet.len() - 1]];
    assert!(broken[0] != broken[1], "two quiet systems");
    let masses: Vec<Vec<f64>> = (0..SYSTEMS).map(|s| clean.masses(s)).collect();
    let refs: Vec<&[f64]> = masses.iter().map(|m| &m[..]).collect();
    let (steps, mut states) = clean.map_state();
    states[broken[0]][6 * 2 + 4] = f64::NAN;
    states[broken[1]][6 * 3 + 3] = f64::INFINITY;
    let state = (steps, states);
    let mut cpu = WhPack::from_map_state(&refs, &state, (dt, 5), &forces()).expect("pack");
    let systems: Vec<_> = (0..SYSTEMS).map(system).collect();
    cpu.set_watch(watch(&systems));
    let start = bits(&cpu);
    let mut on_device = cpu.clone();
    let mut resident = wisdom_holman::resident(dev.gpu(), &mut on_device).expect("upload");
    for step in 1..=40 {
        let torque = step_both(&mut cpu, (&mut on_device, resident.as_mut()), step);
        // The undone steps' kicks leave no torque behind.
        for s in broken {
            assert_eq!(torque[s], [0.0; 3], "step {step}: system {s}'s torque");
        }
        if step % 10 == 0 || step == 7 {
            resident.fetch(&mut on_device).expect("fetch");
            assert_eq!(bits(&cpu), bits(&on_device), "step {step}: map states");
        }
    }
    for s in broken {
        assert!(cpu.behind()[s], "system {s}");
        assert!(
            matches!(cpu.stops()[s], Some(LaneStop::Failed(..))),
            "system {s}: {:?}",
            cpu.stops()[s]
        );
        assert_eq!(bits(&cpu)[s], start[s], "system {s} stays where it was");
    }
    let behind = cpu.behind().iter().filter(|&&b| b).count();
    assert_eq!(behind, broken.len(), "only the broken systems are behind");
}

/// The MEGNO sums of every system, as bits.
fn megno_bits(p: &WhPack) -> Vec<[u64; 9]> {
    let var = p.variations().expect("variations on");
    var.sums()
        .iter()
        .map(|s| s.values().map(f64::to_bits))
        .collect()
}

#[test]
fn the_variations_step_on_the_device_with_the_cpu_bits() {
    let name = "the_variations_step_on_the_device_with_the_cpu_bits";
    if common::device::available(API, name).is_none() {
        return;
    }
    let dev =
        DeviceHybrid::open(API, common::device::device_index()).unwrap_or_else(|e| panic!("{e}"));
    // The pack of the map's test (GR, J2, the watch, correctors) with its tangent vectors and
    // a stop on MEGNO low enough for some systems to meet it before their Hill stop.
    let dt = 0.05;
    let mut cpu = pack(dt);
    let seeds: Vec<u64> = (0..SYSTEMS as u64).map(|s| 1000 + s).collect();
    cpu.set_variations(&seeds).expect("variations");
    cpu.stop_above_megno(1.2, 2.0).expect("stop on MEGNO");
    let mut on_device = cpu.clone();
    let mut resident = wisdom_holman::resident(dev.gpu(), &mut on_device).expect("upload");
    for step in 1..=300 {
        step_both(&mut cpu, (&mut on_device, resident.as_mut()), step);
        if step % 50 == 0 || step == 7 || step == 33 {
            resident.fetch(&mut on_device).expect("fetch");
            assert_eq!(bits(&cpu), bits(&on_device), "step {step}: map states");
            assert_eq!(
                megno_bits(&cpu),
                megno_bits(&on_device),
                "step {step}: MEGNO"
            );
        }
    }
    let chaotic = cpu
        .stops()
        .iter()
        .filter(|s| matches!(s, Some(LaneStop::Chaotic(_))))
        .count();
    let others = cpu.stops().iter().flatten().count() - chaotic;
    let sums = cpu.variations().expect("variations").sums();
    let megno: Vec<f64> = sums.iter().map(|s| s.megno()).collect();
    println!("{chaotic} systems stopped on MEGNO, {others} on other events; MEGNO {megno:?}");
    assert!(
        chaotic >= 1 && others >= 1,
        "expected stops on MEGNO and on other events: {chaotic}, {others}"
    );
    assert!(
        megno.iter().all(|m| m.is_finite() && *m > 0.0),
        "every system's MEGNO runs"
    );
    common::device::params_match_the_ptx(dev.gpu(), &["orr_wh_step_megno"]);
}
