//! Benchmarks of whole hybrid steps in the test-particle and multi-simulation modes, on the
//! shipped benchmark scenarios of issue 4: `inputs/bench/tp100k.ron` (Sun, Jupiter, Saturn and
//! 10^5 test particles) and `inputs/bench/multi10k.ron` (10^4 Sun + 2 planet systems). One
//! iteration is one full step with the encounter machinery; divide by 10^5 particles or 10^4
//! systems for the per-particle and per-system costs.

use criterion::{criterion_group, criterion_main, Criterion};
use orrery::backend::{self, BackendChoice, PassSet};
use orrery::config::{self, Overrides};
use orrery::hybrid::run::initial_state;
use orrery::hybrid::stepper::Stepper;
use orrery::model::StepCounts;
use orrery::model::{HybridSnapshot, StepParams};
use std::path::Path;

fn bench_scenario(c: &mut Criterion, name: &str, file: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let setup = config::load_setup(&path, &Overrides::default(), false).expect("scenario loads");
    let first = &setup.sims[0].spec;
    let params = StepParams {
        m0: first.m0,
        tau: setup.cfg.dt(),
        n1: first.n1,
        n2: first.n2,
        inner_truncation: first.inner_truncation,
        outer_truncation: first.outer_truncation,
    };
    let (bodies, layout) = initial_state(&setup);
    let mut be = backend::create(BackendChoice::Cpu, PassSet::NONE, None).expect("cpu backend");
    be.restore(HybridSnapshot {
        bodies,
        layout,
        ..Default::default()
    });
    let mut stepper = Stepper::new(params, setup.cfg.order, be.as_mut(), true).expect("stepper");
    let mut counts = StepCounts::default();
    // As `orrery run` does: the step runs on a worker thread of the pool.
    let pool = rayon::ThreadPoolBuilder::new()
        .build()
        .expect("thread pool");
    let mut g = c.benchmark_group("mode_step");
    g.sample_size(30);
    g.bench_function(name, |b| {
        b.iter_custom(|iters| {
            pool.install(|| {
                let start = std::time::Instant::now();
                for _ in 0..iters {
                    stepper.step(be.as_mut(), &mut counts).expect("step");
                }
                start.elapsed()
            })
        })
    });
    g.finish();
}

fn modes(c: &mut Criterion) {
    bench_scenario(c, "tp100k", "inputs/bench/tp100k.ron");
    bench_scenario(c, "multi10k", "inputs/bench/multi10k.ron");
}

criterion_group!(benches, modes);
criterion_main!(benches);
