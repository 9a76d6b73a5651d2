//! Benchmarks of the sheet engine (issue 5) at the OCCLUDE table-1 ring parameters: one full step
//! for N ~ 4k (L = 103.6 m) and 16k (L = 207.1 m), the box sizes of REBOUND's reference runs
//! (51.6 ms per step at N = 4,010 and 0.241 s at 16,034 on one core of this machine type), and
//! the passes one by one at 4k. N ~ 64k is measured with `orrery run` (see the README). With
//! `--features opencl`, the same passes at 4k and 16k on the first OpenCL device beside the CPU
//! backend (each timed to its completion on the device; on PoCL these say what the device code
//! does badly on CPU cores, not what a GPU would do): `cargo bench --features opencl --bench
//! sheet`.

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

/// The passes on the CPU backend and on the first OpenCL device, at 4k and 16k. Every
/// iteration starts from the same state (particles in Morton order with their tree, moments and
/// candidate pairs; restoring it is not timed), so the drift does not carry the particles away
/// and the resolution has its pairs to resolve each time.
#[cfg(feature = "opencl")]
fn device_passes(c: &mut Criterion) {
    use orrery::backend::gpu::DeviceSheet;
    use orrery::backend::DeviceApi;
    use orrery::sheet::SheetField;
    use std::time::{Duration, Instant};
    for l in [103.6, 207.1] {
        let (mut cpu, t, dt) = ring(l);
        cpu.build_tree().expect("tree");
        cpu.moments().expect("moments");
        let params = cpu.params;
        let Ok(mut dev) = DeviceSheet::open(DeviceApi::OpenCl, None, params, &cpu.particles) else {
            eprintln!("SKIPPED sheet device benchmarks: no OpenCL device");
            return;
        };
        let mut g = c.benchmark_group(format!("sheet_device_passes_{}", cpu.len()));
        g.sample_size(10);
        for (name, b) in [
            ("cpu", &mut cpu as &mut dyn SheetBackend),
            ("opencl", &mut dev),
        ] {
            b.build_tree().expect("tree");
            b.moments().expect("moments");
            b.collision_search(t).expect("search");
            let fields = [
                SheetField::Positions,
                SheetField::Velocities,
                SheetField::Properties,
            ];
            let state: Vec<_> = fields
                .iter()
                .map(|&f| b.export_field(f).expect("export"))
                .collect();
            type PassFn = fn(&mut dyn SheetBackend, f64, f64) -> orrery::Result<()>;
            let list: [(&str, PassFn); 6] = [
                ("drift", |b, _, dt| b.drift(0.5 * dt)),
                ("tree", |b, _, _| b.build_tree()),
                ("moments", |b, _, _| b.moments()),
                ("gravity", |b, t, _| b.gravity(t)),
                ("collision_search", |b, t, _| {
                    b.collision_search(t).map(|_| ())
                }),
                ("collision_resolution", |b, t, _| {
                    b.resolve_collisions(t).map(|_| ())
                }),
            ];
            for (pass, f) in list {
                g.bench_function(format!("{pass}/{name}"), |bench| {
                    bench.iter_custom(|iters| {
                        let mut total = Duration::ZERO;
                        for _ in 0..iters {
                            for d in &state {
                                b.import_field(d.clone()).expect("restore");
                            }
                            b.finish().expect("finish");
                            let clock = Instant::now();
                            f(b, t, dt).expect("pass");
                            b.finish().expect("finish");
                            total += clock.elapsed();
                        }
                        total
                    })
                });
            }
        }
        g.finish();
    }
}

#[cfg(feature = "opencl")]
criterion_group!(benches, full_step, passes, device_passes);
#[cfg(not(feature = "opencl"))]
criterion_group!(benches, full_step, passes);
criterion_main!(benches);
