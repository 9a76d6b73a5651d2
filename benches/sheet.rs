//! Benchmarks of the sheet engine (issue 5) at the OCCLUDE table-1 ring parameters: one full step
//! for N ~ 4k (L = 103.6 m) and 16k (L = 207.1 m), the box sizes of REBOUND's reference runs
//! (51.6 ms per step at N = 4,010 and 0.241 s at 16,034 on one core of this machine type), and
//! the passes one by one at 4k. N ~ 64k is measured with `orrery run` (see the README).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use orrery::sheet::scenario::Sheet;
use orrery::sheet::{self, CpuSheet, SheetBackend, SheetPassTimes};
use std::path::Path;

/// The ring of `inputs/ring.ron` in a box of `l` metres, after five warm-up steps.
fn ring(l: f64) -> (CpuSheet, f64, f64) {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/inputs/ring.ron"));
    let mut sc = Sheet::load(path).expect("inputs/ring.ron");
    sc.box_size = l;
    let p = sc.params();
    let mut b = CpuSheet::new(p, sc.generate());
    let mut times = SheetPassTimes::default();
    let mut t = 0.0;
    for _ in 0..5 {
        sheet::step(&mut b, t, p.dt, &mut times).expect("step");
        t += p.dt;
    }
    (b, t, p.dt)
}

fn full_step(c: &mut Criterion) {
    let mut g = c.benchmark_group("sheet_step");
    g.sample_size(10);
    for l in [103.6, 207.1] {
        let (mut b, mut t, dt) = ring(l);
        let n = b.len();
        let mut times = SheetPassTimes::default();
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |bench, _| {
            bench.iter(|| {
                sheet::step(&mut b, t, dt, &mut times).expect("step");
                t += dt;
            })
        });
    }
    g.finish();
}

fn passes(c: &mut Criterion) {
    let mut g = c.benchmark_group("sheet_passes_4k");
    g.sample_size(20);
    let (mut b, t, _) = ring(103.6);
    g.bench_function("tree_build", |bench| bench.iter(|| b.build_tree()));
    g.bench_function("moments", |bench| bench.iter(|| b.moments()));
    g.bench_function("gravity", |bench| bench.iter(|| b.gravity(t)));
    g.bench_function("collision_search", |bench| {
        bench.iter(|| b.collision_search(t))
    });
    g.finish();
}

criterion_group!(benches, full_step, passes);
criterion_main!(benches);
