//! Benchmarks of the hybrid engine's CPU passes: the changeover kick with the prechecker for
//! N = 128, 512, 2048, and for the dense disks of 8192 and 16384 bodies; the f&g drift for 2048
//! and 10^5 bodies; one regular step of GENGA's 2048-body disk; the close-encounter groups of
//! one step of an 8192-body disk, by Bulirsch-Stoer of whole groups and by recursive sub-steps.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use orrery::backend::{self, BackendChoice, HybridBackend, PassSet};
use orrery::config::scenario::DiskSpec;
use orrery::config::{self, Overrides};
use orrery::io::generate;
use orrery::model::{HybridSnapshot, StepParams};
use orrery::state::Bodies;
use std::path::Path;

fn params(tau_days: f64) -> StepParams {
    params_with(tau_days, orrery::physics::recursion::Recursion::OFF)
}

fn params_with(tau_days: f64, recursion: orrery::physics::recursion::Recursion) -> StepParams {
    StepParams {
        m0: 1.0,
        tau: orrery::units::days_to_code(tau_days),
        n1: 3.0,
        n2: 0.4,
        inner_truncation: 0.2,
        outer_truncation: 50.0,
        forces: orrery::physics::forces::Forces::NONE,
        recursion,
        rcrit_floor: 0.0,
    }
}

/// The passes of a regular step up to the encounter search: the opening kick `tau/2` with the
/// stored accelerations, the Sun kick `tau/2`, the saved pre-drift states, the drift and the
/// search.
fn open_step(be: &mut dyn HybridBackend, p: &StepParams) {
    be.kick(0.5 * p.tau);
    be.sun_kick(p, 0.5 * p.tau);
    be.save_candidate_states();
    be.drift(p, p.tau);
    be.encounter_search(p.tau);
    be.status().expect("drift");
}

fn disk(n: usize) -> Box<dyn HybridBackend> {
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
    let mut be = backend::create(BackendChoice::Cpu, PassSet::NONE, None).expect("cpu backend");
    be.restore(HybridSnapshot {
        bodies: b,
        ..Default::default()
    });
    be.critical_radii(&params(6.0));
    be
}

/// The full pair pass of generated disks of `sizes` bodies, as the group `name`.
fn kick_group(c: &mut Criterion, name: &str, sizes: &[usize], samples: usize) {
    let mut g = c.benchmark_group(name);
    g.sample_size(samples);
    for &n in sizes {
        let mut be = disk(n);
        be.accelerations();
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| be.accelerations())
        });
    }
    g.finish();
}

fn kick(c: &mut Criterion) {
    kick_group(c, "kick_accelerations", &[128, 512, 2048], 100);
}

fn kick_large(c: &mut Criterion) {
    kick_group(c, "kick_accelerations_large", &[8192, 16384], 10);
}

/// Grouping and integration of the close-encounter groups of one step of an 8192-body disk
/// (groups of up to about 750 bodies), from the same pre-drift states every iteration.
fn encounter_groups(c: &mut Criterion) {
    use orrery::physics::bulirsch_stoer::BsOptions;
    use orrery::physics::recursion::Recursion;
    let mut g = c.benchmark_group("encounter_groups_8192");
    g.sample_size(10);
    let mut be = disk(8192);
    let p = params(6.0);
    be.accelerations();
    open_step(be.as_mut(), &p);
    let opts = BsOptions::default();
    let on = Recursion {
        levels: 2,
        sub_steps: 10,
    };
    for (name, rec) in [("bulirsch_stoer", Recursion::OFF), ("recursive_2x10", on)] {
        let p = params_with(6.0, rec);
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut stats = orrery::model::EncounterStats::default();
                be.group_encounters(&mut stats).expect("groups");
                be.integrate_groups(&p, p.tau, &opts);
            })
        });
    }
    g.finish();
}

fn drift(c: &mut Criterion) {
    let mut g = c.benchmark_group("kepler_drift");
    g.sample_size(20);
    for n in [2048, 100_000] {
        let mut be = disk(n);
        let p = params(6.0);
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                be.drift(&p, p.tau);
                be.status().expect("drift")
            })
        });
    }
    g.finish();
}

fn regular_step(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("inputs/disk2048.ron");
    let (cfg, bodies) = config::load(&path, &Overrides::default()).expect("disk2048 loads");
    let mut b = Bodies::from_bodies(&bodies);
    b.to_democratic(cfg.central_mass);
    let mut be = backend::create(BackendChoice::Cpu, PassSet::NONE, None).expect("cpu backend");
    be.restore(HybridSnapshot {
        bodies: b,
        ..Default::default()
    });
    let p = params(cfg.time_step_days);
    be.critical_radii(&p);
    be.accelerations();
    // The passes of one regular (encounter-free) second-order step, timed as a whole.
    c.bench_function("regular_step_disk2048", |bench| {
        bench.iter(|| {
            be.critical_radii(&p);
            be.refresh_accelerations();
            open_step(be.as_mut(), &p);
            be.sun_kick(&p, 0.5 * p.tau);
            be.accelerations();
            be.kick(0.5 * p.tau);
        })
    });
}

criterion_group!(
    benches,
    kick,
    kick_large,
    drift,
    regular_step,
    encounter_groups
);
criterion_main!(benches);
