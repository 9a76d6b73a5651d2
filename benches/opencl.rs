//! The device passes of the OpenCL backend against the same passes of the CPU backend, on the
//! state of a planetesimal disk of 2048 bodies and of 10^5 test particles around one massive
//! body: critical radii, pair accelerations with the prechecker, kick, Sun kick and Kepler
//! drift, each timed to completion on the device. Run with `cargo bench --features opencl --bench opencl`. On PoCL (OpenCL on the CPU
//! cores) these say what the device code does badly, not what a GPU would do.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use orrery::backend::cpu::CpuHybrid;
use orrery::backend::opencl::OpenclHybrid;
use orrery::backend::HybridBackend;
use orrery::config::scenario::DiskSpec;
use orrery::io::generate;
use orrery::model::{HybridSnapshot, Layout, StepParams};
use orrery::state::Bodies;

fn params() -> StepParams {
    StepParams {
        m0: 1.0,
        tau: orrery::units::days_to_code(6.0),
        n1: 3.0,
        n2: 0.4,
        inner_truncation: 0.2,
        outer_truncation: 50.0,
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
    let Ok(mut gpu) = OpenclHybrid::open(None) else {
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
        let list: [(&str, Pass); 5] = [
            ("critical_radii", |b, p| b.critical_radii(p)),
            ("accelerations", |b, _| b.accelerations()),
            ("kick", |b, p| b.kick(0.5 * p.tau)),
            ("sun_kick", |b, p| b.sun_kick(p, 0.5 * p.tau)),
            ("drift", |b, p| b.drift(p, p.tau)),
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

criterion_group!(benches, passes);
criterion_main!(benches);
