//! One small planetary system for many steps (issue 16): a whole second-order hybrid step of the
//! outer solar system (Sun and four giants, dt 50 days, `inputs/outer_solar_system.ron`) and of
//! the full solar system (Sun and eight planets, dt 6 days, `inputs/bench/solar_system_6d.ron`)
//! on one thread, as `orrery run --threads 1` steps them. REBOUND's WHFast and MERCURIUS on the
//! same systems: `scripts/peers/rebound_small.py`, which also runs Orrery in the same hour.

use criterion::{criterion_group, criterion_main, Criterion};
use orrery::backend::{self, BackendChoice, PassSet};
use orrery::config::{self, Overrides};
use orrery::hybrid::run::initial_state;
use orrery::hybrid::stepper::Stepper;
use orrery::model::StepCounts;
use orrery::model::{HybridSnapshot, StepParams};
use std::path::Path;

fn bench_system(c: &mut Criterion, name: &str, file: &str) {
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
    // As `orrery run --threads 1` does: the step runs on the one worker of a pool.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("thread pool");
    let mut g = c.benchmark_group("one_system_step");
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

fn small(c: &mut Criterion) {
    bench_system(c, "outer_solar_system_5", "inputs/outer_solar_system.ron");
    bench_system(c, "solar_system_9", "inputs/bench/solar_system_6d.ron");
}

criterion_group!(benches, small);
criterion_main!(benches);
