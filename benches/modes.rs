//! Benchmarks of whole hybrid steps, as `orrery run` takes them:
//! - `mode_step`: the test-particle and multi-simulation modes on the shipped benchmark
//!   scenarios of issue 4, `inputs/bench/tp100k.ron` (Sun, Jupiter, Saturn and 10^5 test
//!   particles) and `inputs/bench/multi10k.ron` (10^4 Sun + 2 planet systems), on all threads;
//!   divide by 10^5 particles or 10^4 systems for the per-particle and per-system costs;
//! - `one_system_step` (issue 16): one small planetary system on one thread, the outer solar
//!   system (Sun and four giants, dt 50 days, `inputs/outer_solar_system.ron`) and the full
//!   solar system (Sun and eight planets, dt 6 days, `inputs/bench/solar_system_6d.ron`).
//!   REBOUND's WHFast and MERCURIUS on the same systems: `scripts/peers/rebound_small.py`,
//!   which also runs Orrery in the same hour;
//! - `whfast512_rows` (issue 28): the rows of the comparison with REBOUND's WHFast512 on one
//!   thread, the Sun and eight planets at dt 5 days (`inputs/bench/solar_system_5d.ron`) and the
//!   ensembles of 10^4 Sun + Earth-like + Jupiter + Saturn and Sun + Jupiter + Saturn systems
//!   (`inputs/bench/ensemble_ejs10k.ron`, `ensemble_js10k.ron`; divide by 10^4 systems).
//!   REBOUND in the same hour: `scripts/peers/rebound_whfast512.py`.
//!
//! One iteration is one full step with the encounter machinery.

use criterion::{criterion_group, criterion_main, Criterion};
use orrery::backend::{self, BackendChoice, PassSet};
use orrery::config::{self, Overrides};
use orrery::hybrid::run::{initial_state, step_params};
use orrery::hybrid::stepper::Stepper;
use orrery::model::HybridSnapshot;
use orrery::model::StepCounts;
use std::path::Path;

/// Whole steps of the scenario `file` in the benchmark group `group`, on a pool of `threads`
/// (all cores when `None`).
fn bench_scenario(c: &mut Criterion, group: &str, name: &str, file: &str, threads: Option<usize>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let setup = config::load_setup(&path, &Overrides::default(), false).expect("scenario loads");
    let params = step_params(&setup);
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
        .num_threads(threads.unwrap_or(0))
        .build()
        .expect("thread pool");
    let mut g = c.benchmark_group(group);
    if threads.is_none() {
        g.sample_size(30);
    }
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
    bench_scenario(c, "mode_step", "tp100k", "inputs/bench/tp100k.ron", None);
    bench_scenario(
        c,
        "mode_step",
        "multi10k",
        "inputs/bench/multi10k.ron",
        None,
    );
    let one = Some(1);
    let outer = "inputs/outer_solar_system.ron";
    bench_scenario(c, "one_system_step", "outer_solar_system_5", outer, one);
    let solar = "inputs/bench/solar_system_6d.ron";
    bench_scenario(c, "one_system_step", "solar_system_9", solar, one);
    for (name, file) in [
        ("solar_system_5d", "inputs/bench/solar_system_5d.ron"),
        ("ensemble_ejs10k", "inputs/bench/ensemble_ejs10k.ron"),
        ("ensemble_js10k", "inputs/bench/ensemble_js10k.ron"),
    ] {
        bench_scenario(c, "whfast512_rows", name, file, one);
    }
}

criterion_group!(benches, modes);
criterion_main!(benches);
