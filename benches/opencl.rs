//! The device passes of the OpenCL backend against the same passes of the CPU backend, on the
//! state of a planetesimal disk of 2048 bodies and of 10^5 test particles around one massive
//! body: critical radii, pair accelerations with the prechecker, kick, Sun kick, Kepler drift,
//! the close-encounter substep (save-candidates, drift, search, grouping, Bulirsch-Stoer,
//! write-back), each timed to completion on the device, and whole order-2 steps. Run with
//! `cargo bench --features opencl --bench opencl`. On PoCL (OpenCL on the CPU cores) these say
//! what the device code does badly, not what a GPU would do.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use orrery::backend::cpu::CpuHybrid;
use orrery::backend::gpu::DeviceHybrid;
use orrery::backend::DeviceApi;
use orrery::backend::HybridBackend;
use orrery::config::scenario::DiskSpec;
use orrery::hybrid::stepper::Stepper;
use orrery::io::generate;
use orrery::model::StepCounts;
use orrery::model::{HybridSnapshot, Layout, StepParams};
use orrery::physics::bulirsch_stoer::BsOptions;
use orrery::state::Bodies;

fn params() -> StepParams {
    StepParams {
        m0: 1.0,
        tau: orrery::units::days_to_code(6.0),
        n1: 3.0,
        n2: 0.4,
        inner_truncation: 0.2,
        outer_truncation: 50.0,
        forces: orrery::physics::forces::Forces::NONE,
        recursion: orrery::physics::recursion::Recursion::OFF,
        rcrit_floor: 0.0,
    }
}

/// A disk of `n` bodies, the first `massive` of them massive.
fn snapshot(n: usize, massive: usize) -> HybridSnapshot {
    let spec = DiskSpec {
        n,
        total_mass_earth: 5.0,
        a_min: 0.5,
        a_max: 4.0,
        surface_density_exponent: 1.0,
        e_rayleigh: 0.01,
        i_rayleigh: 0.005,
        rho: 2.0,
        seed: 1,
    };
    let mut b = Bodies::from_bodies(&generate::disk(&spec, 1.0).expect("disk"));
    b.to_democratic(1.0);
    HybridSnapshot {
        bodies: b,
        layout: Layout::single(n, massive),
        ..Default::default()
    }
}

fn passes(c: &mut Criterion) {
    let Ok(mut gpu) = DeviceHybrid::open(DeviceApi::OpenCl, None) else {
        eprintln!("SKIPPED opencl benchmarks: no OpenCL device");
        return;
    };
    let p = params();
    for (name, n, massive) in [("disk2048", 2048, 2048), ("tp100k", 100_000, 1)] {
        let mut cpu = CpuHybrid::default();
        cpu.restore(snapshot(n, massive));
        gpu.restore(snapshot(n, massive));
        for be in [&mut cpu as &mut dyn HybridBackend, &mut gpu] {
            be.critical_radii(&p);
        }
        let mut g = c.benchmark_group(format!("opencl_passes_{name}"));
        g.sample_size(20);
        type Pass = fn(&mut dyn HybridBackend, &StepParams);
        let list: [(&str, Pass); 6] = [
            ("critical_radii", |b, p| b.critical_radii(p)),
            ("accelerations", |b, _| b.accelerations()),
            ("kick", |b, p| b.kick(0.5 * p.tau)),
            ("sun_kick", |b, p| b.sun_kick(p, 0.5 * p.tau)),
            ("drift", |b, p| b.drift(p, p.tau)),
            ("encounter_substep", encounter_substep),
        ];
        for (pass, run) in list {
            g.bench_with_input(BenchmarkId::new(pass, "cpu"), &(), |bench, _| {
                bench.iter(|| run(&mut cpu, &p))
            });
            g.bench_with_input(BenchmarkId::new(pass, "opencl"), &(), |bench, _| {
                bench.iter(|| {
                    run(&mut gpu, &p);
                    gpu.finish().expect("device")
                })
            });
        }
        g.finish();
        gpu.status().expect("no device failure");
    }
}

/// The close-encounter part of a substep: save-candidates, drift, search, and when there are
/// encounters the grouping, Bulirsch-Stoer and write-back (the state moves on each time).
fn encounter_substep(b: &mut dyn HybridBackend, p: &StepParams) {
    b.save_candidate_states();
    b.drift(p, p.tau);
    b.encounter_search(p.tau);
    if b.status().expect("status").encounters > 0 {
        let mut stats = Default::default();
        b.group_encounters(&mut stats).expect("groups");
        b.integrate_groups(p, p.tau, &BsOptions::default());
        b.apply_groups(p, &mut stats).expect("write-back");
    }
}

/// Whole order-2 steps of the 2048-body disk on each backend.
fn steps(c: &mut Criterion) {
    let Ok(mut gpu) = DeviceHybrid::open(DeviceApi::OpenCl, None) else {
        eprintln!("SKIPPED opencl benchmarks: no OpenCL device");
        return;
    };
    let p = params();
    let mut cpu = CpuHybrid::default();
    let mut g = c.benchmark_group("opencl_step_disk2048");
    g.sample_size(10);
    for (name, be) in [
        ("cpu", &mut cpu as &mut dyn HybridBackend),
        ("opencl", &mut gpu),
    ] {
        be.restore(snapshot(2048, 2048));
        let mut stepper = Stepper::new(p, 2, be, true).expect("stepper");
        let mut counts = StepCounts::default();
        g.bench_function(name, |bench| {
            bench.iter(|| stepper.step(be, &mut counts).expect("step"))
        });
    }
    g.finish();
}

criterion_group!(benches, passes, steps);
criterion_main!(benches);
