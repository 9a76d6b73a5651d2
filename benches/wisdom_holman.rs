//! The Wisdom-Holman map's step (physics::wisdom_holman): one system of the Sun and
//! eight planets (inputs/bench/solar_system_5d.ron, dt 5 days), and a pack of the 10^4 systems of
//! inputs/bench/ensemble_ejs10k.ron (the Sun, an Earth-like planet, Jupiter, Saturn; dt 5 days)
//! per system-step, each without and with order-17 correctors (the correctors cost nothing per
//! step: they act at the start and at outputs), on one thread and on every thread of rayon's
//! pool. Run: `cargo bench --bench wisdom_holman`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use orrery::config::{self, Overrides};
use orrery::physics::wisdom_holman::{step_packs, WhPack, WisdomHolman};
use orrery::units::days_to_code;
use std::path::Path;

type System = (Vec<f64>, Vec<[f64; 3]>, Vec<[f64; 3]>);

/// A system's masses and heliocentric states, the central body (at rest at the origin) first.
fn system(m0: f64, bodies: &[orrery::state::Body]) -> System {
    let mut s = (vec![m0], vec![[0.0; 3]], vec![[0.0; 3]]);
    for b in bodies {
        s.0.push(b.m);
        s.1.push(b.pos);
        s.2.push(b.vel);
    }
    s
}

/// The 10^4 systems of inputs/bench/ensemble_ejs10k.ron.
fn ejs10k() -> Vec<System> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("inputs/bench/ensemble_ejs10k.ron");
    let setup = config::load_setup(&path, &Overrides::default(), false).expect("ensemble loads");
    setup
        .sims
        .iter()
        .map(|s| system(s.spec.m0, &s.bodies))
        .collect()
}

fn one_system(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("inputs/bench/solar_system_5d.ron");
    let (cfg, bodies) = config::load(&path, &Overrides::default()).expect("solar system loads");
    let (m, p, v) = system(cfg.central_mass, &bodies);
    let mut g = c.benchmark_group("wh_one_system_9_bodies");
    for order in [0u8, 17] {
        let mut wh = WisdomHolman::new(&m, &p, &v, days_to_code(5.0), order).expect("system");
        g.bench_function(format!("correctors_{order}"), |b| {
            b.iter(|| wh.step().expect("step"))
        });
    }
    g.finish();
}

fn ensemble(c: &mut Criterion) {
    let systems = ejs10k();
    let refs: Vec<_> = systems
        .iter()
        .map(|(m, p, v)| (m.as_slice(), p.as_slice(), v.as_slice()))
        .collect();
    let mut g = c.benchmark_group("wh_ensemble_ejs10k");
    g.throughput(Throughput::Elements(refs.len() as u64));
    for lanes in [64usize, 512] {
        let mut packs: Vec<WhPack> = refs
            .chunks(lanes)
            .map(|chunk| WhPack::new(chunk, days_to_code(5.0), 0).expect("pack"))
            .collect();
        g.bench_function(format!("packs_of_{lanes}"), |b| {
            b.iter(|| {
                for p in packs.iter_mut() {
                    p.step().expect("step");
                }
            })
        });
    }
    // Blocks of 8 steps per pack while its arrays are in the caches (the run's temporal
    // blocking, hybrid::wisdom_holman::BLOCK), per system-step.
    g.throughput(Throughput::Elements(8 * refs.len() as u64));
    let mut packs: Vec<WhPack> = refs
        .chunks(64)
        .map(|chunk| WhPack::new(chunk, days_to_code(5.0), 0).expect("pack"))
        .collect();
    g.bench_function("packs_of_64_blocks_of_8", |b| {
        b.iter(|| {
            for p in packs.iter_mut() {
                (0..8).for_each(|_| p.step().expect("step"));
            }
        })
    });
    g.throughput(Throughput::Elements(refs.len() as u64));
    // With the variational equations and MEGNO (the bar is twice the step; the first,
    // scalar version took about 20 times, the lanes 4-5.5, the tangent drift sharing the map's
    // Kepler solution and reciprocals 2.6), each system seeded with its index.
    let mut packs: Vec<WhPack> = refs
        .chunks(64)
        .enumerate()
        .map(|(k, chunk)| {
            let mut p = WhPack::new(chunk, days_to_code(5.0), 0).expect("pack");
            let seeds: Vec<u64> = (0..chunk.len() as u64).map(|s| 64 * k as u64 + s).collect();
            p.set_variations(&seeds).expect("one seed per system");
            p
        })
        .collect();
    g.bench_function("packs_of_64_megno", |b| {
        b.iter(|| {
            for p in packs.iter_mut() {
                p.step().expect("step");
            }
        })
    });
    // The same in the run's blocks of 8 steps per pack, per system-step: against
    // `packs_of_64_blocks_of_8`, the cost of MEGNO in a run.
    g.throughput(Throughput::Elements(8 * refs.len() as u64));
    g.bench_function("packs_of_64_megno_blocks_of_8", |b| {
        b.iter(|| {
            for p in packs.iter_mut() {
                (0..8).for_each(|_| p.step().expect("step"));
            }
        })
    });
    g.throughput(Throughput::Elements(refs.len() as u64));
    // Every thread of rayon's pool (RAYON_NUM_THREADS; all cores by default), packs of 64.
    let mut packs: Vec<WhPack> = refs
        .chunks(64)
        .map(|chunk| WhPack::new(chunk, days_to_code(5.0), 0).expect("pack"))
        .collect();
    g.bench_function("packs_of_64_all_threads", |b| {
        b.iter(|| step_packs(&mut packs).expect("step"))
    });
    g.finish();
}

/// 10^5 systems (the 10^4 of inputs/bench/ensemble_ejs10k.ron ten times): about 40 MB of
/// packs, beyond the caches, stepped once per pass over them or in blocks of 8 steps per pack
/// (the run's temporal blocking), per system-step on one thread.
fn large_ensemble(c: &mut Criterion) {
    let systems = ejs10k();
    let refs: Vec<_> = systems
        .iter()
        .map(|(m, p, v)| (m.as_slice(), p.as_slice(), v.as_slice()))
        .collect();
    let packs = || -> Vec<WhPack> {
        (0..10)
            .flat_map(|_| refs.chunks(64))
            .map(|chunk| WhPack::new(chunk, days_to_code(5.0), 0).expect("pack"))
            .collect()
    };
    let mut g = c.benchmark_group("wh_ensemble_ejs100k");
    g.sample_size(20);
    for block in [1usize, 8] {
        g.throughput(Throughput::Elements((block * 10 * refs.len()) as u64));
        let mut packs = packs();
        g.bench_function(format!("packs_of_64_blocks_of_{block}"), |b| {
            b.iter(|| {
                for p in packs.iter_mut() {
                    (0..block).for_each(|_| p.step().expect("step"));
                }
            })
        });
    }
    g.finish();
}

criterion_group!(benches, one_system, ensemble, large_ensemble);
criterion_main!(benches);
