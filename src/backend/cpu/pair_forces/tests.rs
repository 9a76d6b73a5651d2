//! Tests of the pair passes: every path against the tile pass and a direct pair sum.

use super::tiles::tiles_with;
use super::*;

fn brute(src: Sources<'_>, n_src: usize) -> (Vec<[f64; 3]>, Vec<u32>) {
    let n = src.m.len();
    let mut acc = vec![[0.0; 3]; n];
    let mut cand = vec![0; n];
    for i in 0..n {
        for j in 0..n_src {
            if i != j {
                let a = pair_acceleration(src, i, j);
                for c in 0..3 {
                    acc[i][c] += a[c];
                }
                cand[i] += is_candidate(src, i, j) as u32;
            }
        }
    }
    (acc, cand)
}

type Out = (Vec<Vec<f64>>, Vec<Vec<f64>>, Vec<u32>);

/// The outputs of a pair pass: accelerations (far x y z, near x y z), candidate counts and
/// hit records of `tiles` tiles with `cap` recorded sources each.
struct Outputs {
    acc: Vec<Vec<f64>>,
    cand: Vec<u32>,
    hits: Vec<TileHits>,
    rows: Vec<u32>,
    cap: usize,
}

impl Outputs {
    /// Outputs for `n` receivers, filled with `fill` and `cand_fill` to show untouched slots.
    fn new(n: usize, tiles: usize, cap: usize, fill: f64, cand_fill: u32) -> Self {
        Outputs {
            acc: vec![vec![fill; n]; 6],
            cand: vec![cand_fill; n],
            hits: vec![TileHits::default(); tiles],
            rows: vec![0; tiles * cap],
            cap,
        }
    }

    /// The outputs as a pass writes them (no kick).
    fn view(&mut self) -> Accelerations<'_> {
        let [a, b, c, d, e, f] = &mut self.acc[..] else {
            unreachable!()
        };
        Accelerations {
            far: [a, b, c],
            near: [d, e, f],
            candidates: &mut self.cand,
            hits: Hits {
                tiles: &mut self.hits,
                sources: &mut self.rows,
                cap: self.cap,
            },
            kick: None,
        }
    }

    /// The accelerations' bits.
    fn bits(&self) -> Vec<Vec<u64>> {
        let bits = |v: &Vec<f64>| v.iter().map(|x| x.to_bits()).collect();
        self.acc.iter().map(bits).collect()
    }
}

/// The sources of columns `[x, y, z, m, rcrit]` with the inverse radii `inv`.
fn columns_as_sources<'a>(
    v: &'a [Vec<f64>],
    inv: &'a [f64],
    changeover: crate::physics::changeover::Changeover,
) -> Sources<'a> {
    Sources {
        x: &v[0],
        y: &v[1],
        z: &v[2],
        m: &v[3],
        rcrit: &v[4],
        inv_rcrit: inv,
        changeover,
    }
}

fn run(src: Sources<'_>, n_src: usize, parallel: bool) -> Out {
    let n = src.m.len();
    let mut o = Outputs::new(n, n.div_ceil(LANES), Hits::capacity(n_src), 0.0, 0);
    accelerations(src, n_src, o.view(), parallel);
    let near = o.acc.split_off(3);
    (o.acc, near, o.cand)
}

#[test]
fn small_systems_agree_with_the_tile_pass_bitwise() {
    // Eight bodies through the small-system path, against the same eight plus massless far
    // bodies through the tile path (their zero terms leave the sums unchanged).
    let mut rng = crate::rng::Rng::new(77);
    let mut v: Vec<Vec<f64>> = (0..5).map(|_| Vec::new()).collect();
    for _ in 0..LANES {
        v[0].push(rng.range(-0.2, 0.2));
        v[1].push(rng.range(-0.2, 0.2));
        v[2].push(rng.range(-0.01, 0.01));
        v[3].push(1e-6 * (1.0 + rng.uniform()));
        v[4].push(0.02 + 0.05 * rng.uniform());
    }
    let mut w = v.clone();
    for far in 0..=SMALL_MAX - LANES {
        let x = 50.0 + far as f64;
        for (k, x) in [x, 50.0, 0.0, 0.0, 0.01].into_iter().enumerate() {
            w[k].push(x);
        }
    }
    let inv = |v: &Vec<Vec<f64>>| v[4].iter().map(|r| 1.0 / r).collect::<Vec<f64>>();
    let (iv, iw) = (inv(&v), inv(&w));
    let small = columns_as_sources(&v, &iv, crate::physics::changeover::Changeover::Genga);
    let big = columns_as_sources(&w, &iw, crate::physics::changeover::Changeover::Genga);
    for n_src in [LANES, 5] {
        let (sf, sn, sc) = run(small, n_src, false);
        let (bf, bn, bc) = run(big, n_src, false);
        assert!(
            sc.iter().any(|&c| c > 0),
            "the test must have candidate pairs"
        );
        for i in 0..LANES {
            assert_eq!(sc[i], bc[i]);
            for c in 0..3 {
                assert_eq!(sf[c][i].to_bits(), bf[c][i].to_bits(), "far {i} {c}");
                assert_eq!(sn[c][i].to_bits(), bn[c][i].to_bits(), "near {i} {c}");
            }
        }
    }
}

#[test]
fn systems_across_lanes_give_each_system_its_own_sums_bitwise() {
    use crate::model::System;
    let mut rng = crate::rng::Rng::new(4711);
    for block in 1..=SMALL_MAX {
        let tiles = block.div_ceil(LANES);
        // 21 systems (two full lane groups and a short one) with holes, test particles,
        // empty systems, a stopped system and close pairs (candidates).
        let systems: Vec<System> = (0..21)
            .map(|s| {
                let len = (rng.next_u64() as usize % (block + 1)).max(usize::from(s % 5 == 0));
                System {
                    len: len.min(block),
                    massive: (rng.next_u64() as usize % (len + 1)).min(block),
                    spec: None,
                    active: s != 7,
                    central_spin: [0.0; 3],
                }
            })
            .collect();
        let n = block * systems.len();
        let mut v: Vec<Vec<f64>> = (0..5).map(|_| Vec::new()).collect();
        for _ in 0..n {
            v[0].push(rng.range(-0.3, 0.3));
            v[1].push(rng.range(-0.3, 0.3));
            v[2].push(rng.range(-0.01, 0.01));
            v[3].push(1e-5 * rng.uniform());
            v[4].push(0.01 + 0.03 * rng.uniform());
        }
        let inv: Vec<f64> = v[4].iter().map(|r| 1.0 / r).collect();
        let src = columns_as_sources(&v, &inv, crate::physics::changeover::Changeover::Genga);
        // Outputs start from a marker, so untouched slots show.
        let tiles_all = systems.len() * tiles;
        let fresh = || Outputs::new(n, tiles_all, 1, -7.0, 99);
        let mut a = fresh();
        small_systems(src, block, &systems, a.view());
        // The reference: every system alone, its empty slots zero.
        let mut b = fresh();
        for (s, sys) in systems.iter().enumerate() {
            if !sys.active {
                b.hits[s * tiles..(s + 1) * tiles]
                    .iter_mut()
                    .for_each(|h| h.owned = 0);
                continue;
            }
            let r = s * block..s * block + sys.len;
            for k in r.end..(s + 1) * block {
                b.acc.iter_mut().for_each(|o| o[k] = 0.0);
                b.cand[k] = 0;
            }
            let all = b.view();
            let [a0, a1, a2] = all.far;
            let [a3, a4, a5] = all.near;
            let out = Accelerations {
                far: [&mut a0[r.clone()], &mut a1[r.clone()], &mut a2[r.clone()]],
                near: [&mut a3[r.clone()], &mut a4[r.clone()], &mut a5[r.clone()]],
                candidates: &mut all.candidates[r.clone()],
                hits: Hits {
                    tiles: &mut all.hits.tiles[s * tiles..(s + 1) * tiles],
                    sources: &mut all.hits.sources[s * tiles..(s + 1) * tiles],
                    cap: 1,
                },
                kick: None,
            };
            accelerations(Sources::of_slices(src, r), sys.massive, out, false);
        }
        let key = |o: &Outputs| -> Vec<(usize, bool, u32)> {
            o.hits
                .iter()
                .map(|h| (h.len, h.overflow, h.owned))
                .collect()
        };
        assert_eq!(a.bits(), b.bits(), "block {block}");
        assert_eq!(a.cand, b.cand, "block {block}");
        assert_eq!(key(&a), key(&b), "block {block}");
        if block >= 3 {
            assert!(
                a.hits.iter().any(|h| h.owned > 0),
                "block {block}: candidates"
            );
        }
    }
}

#[test]
fn the_fused_kick_is_the_separate_kick_bitwise() {
    let mut rng = crate::rng::Rng::new(2024);
    // Small (pair-at-once), source-outer (few sources) and tile passes.
    for (n, n_src) in [(12, 12), (300, 3), (100, 100)] {
        let mut v: Vec<Vec<f64>> = (0..5).map(|_| Vec::new()).collect();
        for k in 0..n {
            v[0].push(rng.range(-1.0, 1.0));
            v[1].push(rng.range(-1.0, 1.0));
            v[2].push(rng.range(-0.05, 0.05));
            v[3].push(if k < n_src { 1e-5 * rng.uniform() } else { 0.0 });
            v[4].push(0.05 + 0.1 * rng.uniform());
        }
        let inv: Vec<f64> = v[4].iter().map(|r| 1.0 / r).collect();
        let src = columns_as_sources(&v, &inv, crate::physics::changeover::Changeover::Genga);
        let vel0: Vec<Vec<f64>> = (0..3)
            .map(|_| (0..n).map(|_| rng.range(-1.0, 1.0)).collect())
            .collect();
        for parallel in [false, true] {
            let pass = |fused: bool| {
                let mut o = Outputs::new(n, n.div_ceil(LANES), Hits::capacity(n_src), 0.0, 0);
                let mut vel = vel0.clone();
                {
                    let [vx, vy, vz] = &mut vel[..] else {
                        unreachable!()
                    };
                    let mut out = o.view();
                    out.kick = fused.then_some(Kick {
                        dt: 0.37,
                        v: [vx, vy, vz],
                    });
                    accelerations(src, n_src, out, parallel);
                }
                if !fused {
                    for c in 0..3 {
                        for k in 0..n {
                            vel[c][k] += 0.37 * (o.acc[c][k] + o.acc[3 + c][k]);
                        }
                    }
                }
                let vel: Vec<Vec<u64>> = vel
                    .iter()
                    .map(|v| v.iter().map(|x| x.to_bits()).collect())
                    .collect();
                (o.bits(), vel, o.cand)
            };
            let (fused, separate) = (pass(true), pass(false));
            assert!(separate.2.iter().any(|&c| c > 0), "{n}: candidates");
            assert_eq!(
                fused, separate,
                "{n} bodies, {n_src} sources, parallel {parallel}"
            );
        }
    }
}

#[test]
fn source_outer_pass_gives_the_tile_results_bitwise() {
    let n = 300; // more than one block, not a multiple of LANES
    let mut rng = crate::rng::Rng::new(99);
    let mut v: Vec<Vec<f64>> = (0..5).map(|_| Vec::new()).collect();
    for k in 0..n {
        v[0].push(rng.range(-3.0, 3.0));
        v[1].push(rng.range(-3.0, 3.0));
        v[2].push(rng.range(-0.1, 0.1));
        v[3].push(if k < 5 {
            1e-4 * (1.0 + rng.uniform())
        } else {
            0.0
        });
        v[4].push(if k < 5 {
            0.3 + 0.2 * rng.uniform()
        } else {
            0.01
        });
    }
    let inv: Vec<f64> = v[4].iter().map(|r| 1.0 / r).collect();
    // Every changeover function (GENGA's and the quintic in the loop, the smooth one after
    // it), at every SIMD level the CPU has (the source-outer pass runs on lane groups).
    for changeover in crate::physics::changeover::Changeover::ALL {
        let src = columns_as_sources(&v, &inv, changeover);
        let pass = |source_outer: bool| {
            let mut o = Outputs::new(n, n.div_ceil(LANES), Hits::capacity(5), 0.0, 0);
            tiles_with(src, 5, 0, o.view(), source_outer);
            let hits: Vec<_> = (o.hits.iter().zip(o.rows.chunks(o.cap)))
                .map(|(h, row)| (h.len, h.owned, row[..h.len].to_vec()))
                .collect();
            (o.bits(), o.cand, hits)
        };
        let tile = pass(false);
        assert!(
            tile.1.iter().filter(|&&c| c > 0).count() > 10,
            "needs candidates"
        );
        for level in crate::simd::supported_levels() {
            let source_outer = crate::simd::with_level(level, || pass(true));
            assert_eq!(tile, source_outer, "{changeover}, {}", level.name());
        }
    }
}

#[test]
fn tiles_match_direct_pair_sum_serial_and_parallel_alike() {
    let n = 37; // not a multiple of LANES
    let mut rng = crate::rng::Rng::new(0x1234_5678);
    let mut rnd = || rng.uniform();
    let mut v: Vec<Vec<f64>> = (0..5).map(|_| Vec::new()).collect();
    for _ in 0..n {
        v[0].push(rnd() * 2.0 - 1.0);
        v[1].push(rnd() * 2.0 - 1.0);
        v[2].push(rnd() * 0.1);
        v[3].push(1e-6 * (1.0 + rnd()));
        v[4].push(0.05 + 0.1 * rnd());
    }
    let inv: Vec<f64> = v[4].iter().map(|r| 1.0 / r).collect();
    let src = columns_as_sources(&v, &inv, crate::physics::changeover::Changeover::Genga);
    // All bodies massive, and the last 17 as test particles.
    for n_src in [n, 20] {
        let (far, near, cand) = run(src, n_src, true);
        assert_eq!(
            run(src, n_src, false),
            (far.clone(), near.clone(), cand.clone())
        );
        let (acc, bc) = brute(src, n_src);
        assert_eq!(cand, bc);
        assert!(
            cand.iter().any(|&c| c > 0),
            "test must exercise the candidate path"
        );
        for i in 0..n {
            for c in 0..3 {
                let got = far[c][i] + near[c][i];
                let scale = acc[i][c].abs().max(1e-6);
                assert!((got - acc[i][c]).abs() <= 1e-12 * scale, "{i} {c}");
            }
        }
    }
}

/// The agreed arithmetic of the pair sums, as a plain loop: receiver i sums its sources
/// `0 .. n_src` (not itself) in ascending order from +0, far terms `(m_j / r^3) d` where
/// `r >= 3 rcrit_ij` and near terms `((m_j K) / (K_den r^3)) d` inside, and counts the near
/// partners; semi-active small bodies `n_src .. n` add their own ascending sums to the massive
/// bodies' afterwards (the pull pass after the pair pass).
fn reference(src: Sources<'_>, n_src: usize, semi_active: bool) -> (Vec<Vec<u64>>, Vec<u32>) {
    let n = src.m.len();
    let mut acc = vec![vec![0.0; n]; 6];
    let mut cand = vec![0; n];
    let sum = |i: usize, js: std::ops::Range<usize>, acc: &mut [f64; 6], count: &mut u32| {
        for j in js.filter(|&j| j != i) {
            let d = [
                src.x[j] - src.x[i],
                src.y[j] - src.y[i],
                src.z[j] - src.z[i],
            ];
            let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            let r = r2.sqrt();
            let limit = PRECHECK_FACTOR * src.rcrit[i].max(src.rcrit[j]);
            let (off, w) = if r2 < limit * limit {
                *count += 1;
                let inv = src.inv_rcrit[i].min(src.inv_rcrit[j]);
                let (k_num, k_den) = crate::physics::changeover::Changeover::Genga.ratio(r, inv);
                (3, src.m[j] * k_num / (k_den * r2 * r))
            } else if r2 > 0.0 {
                (0, src.m[j] / (r2 * r))
            } else {
                continue;
            };
            for c in 0..3 {
                acc[off + c] += w * d[c];
            }
        }
    };
    for i in 0..n {
        let mut a = [0.0; 6];
        sum(i, 0..n_src, &mut a, &mut cand[i]);
        if semi_active && i < n_src {
            let mut pull = [0.0; 6];
            sum(i, n_src..n, &mut pull, &mut cand[i]);
            for c in 0..6 {
                a[c] += pull[c];
            }
        }
        for c in 0..6 {
            acc[c][i] = a[c];
        }
    }
    let bits = acc
        .iter()
        .map(|v| v.iter().map(|x| x.to_bits()).collect())
        .collect();
    (bits, cand)
}

/// Every pair path at every SIMD level the CPU has (the tile, source-outer and small-system
/// passes compiled for AVX-512, AVX2 and the baseline) gives the reference sums bitwise.
#[test]
fn every_pair_path_gives_the_reference_sums_bitwise() {
    for level in crate::simd::supported_levels() {
        crate::simd::with_level(level, every_pair_path_at_the_current_level);
    }
}

fn every_pair_path_at_the_current_level() {
    use crate::model::System;
    let level = crate::simd::level();
    let mut rng = crate::rng::Rng::new(0x5eed);
    let mut with_candidates = 0;
    for case in 0..240 {
        let n = 2 + case % 39;
        // All massive, some test particles, or only a few massive bodies.
        let n_src = match case % 3 {
            0 => n,
            1 => (n / 2).max(1),
            _ => 1 + rng.next_u64() as usize % n.min(4),
        };
        let semi_active = n_src < n && case % 2 == 1;
        let mut v: Vec<Vec<f64>> = (0..5).map(|_| Vec::new()).collect();
        for k in 0..n {
            v[0].push(rng.range(-0.5, 0.5));
            v[1].push(rng.range(-0.5, 0.5));
            v[2].push(rng.range(-0.02, 0.02));
            let massive = k < n_src || semi_active;
            v[3].push(if massive { 1e-5 * rng.uniform() } else { 0.0 });
            v[4].push(0.005 + 0.03 * rng.uniform());
        }
        let inv: Vec<f64> = v[4].iter().map(|r| 1.0 / r).collect();
        let src = columns_as_sources(&v, &inv, crate::physics::changeover::Changeover::Genga);
        let want = reference(src, n_src, semi_active);
        with_candidates += want.1.iter().any(|&c| c > 0) as usize;
        let tiles = n.div_ceil(LANES);
        // The semi-active pull added after a pass, as the engine adds it.
        let finish = |mut o: Outputs| {
            if semi_active {
                for i in 0..n_src {
                    let (far, near, count) = small_body_pull(src, n_src, i);
                    for c in 0..3 {
                        o.acc[c][i] += far[c];
                        o.acc[3 + c][i] += near[c];
                    }
                    o.cand[i] += count;
                }
            }
            (o.bits(), o.cand)
        };
        let fresh = || Outputs::new(n, tiles, Hits::capacity(n_src), 0.0, 0);
        let mut got = Vec::new();
        for parallel in [false, true] {
            let mut o = fresh();
            accelerations(src, n_src, o.view(), parallel);
            got.push((format!("entry, parallel {parallel}"), finish(o)));
        }
        for source_outer in [false, true]
            .into_iter()
            .filter(|&s| !s || n_src <= TILE_HITS)
        {
            let mut o = fresh();
            tiles_with(src, n_src, 0, o.view(), source_outer);
            got.push((format!("tiles, source outer {source_outer}"), finish(o)));
        }
        if n <= SMALL_MAX {
            let mut o = fresh();
            small_accelerations(src, n_src, o.view());
            got.push(("small system".into(), finish(o)));
            // The system in lane 1 of a block of SMALL_MAX slots among two other systems.
            let block = SMALL_MAX;
            let mut w: Vec<Vec<f64>> = (0..5).map(|_| vec![0.0; 3 * block]).collect();
            for (c, col) in w.iter_mut().enumerate() {
                for k in 0..3 * block {
                    col[k] = if (block..block + n).contains(&k) {
                        v[c][k - block]
                    } else {
                        0.1 + 0.01 * (k % block) as f64
                    };
                }
            }
            let winv: Vec<f64> = w[4].iter().map(|r| 1.0 / r).collect();
            let all = columns_as_sources(&w, &winv, crate::physics::changeover::Changeover::Genga);
            let sys = |len, massive| System {
                len,
                massive,
                spec: None,
                active: true,
                central_spin: [0.0; 3],
            };
            let systems = [sys(block, block), sys(n, n_src), sys(3, 2)];
            let bt = block.div_ceil(LANES);
            let mut o = Outputs::new(3 * block, 3 * bt, 1, 0.0, 0);
            small_systems(all, block, &systems, o.view());
            let mut mine = Outputs::new(n, tiles, 1, 0.0, 0);
            for c in 0..6 {
                mine.acc[c].copy_from_slice(&o.acc[c][block..block + n]);
            }
            mine.cand.copy_from_slice(&o.cand[block..block + n]);
            got.push(("small systems across lanes".into(), finish(mine)));
        }
        // KickA's form: the near sum of candidate partners from `pair_acceleration_with`.
        let mut o = fresh();
        accelerations(src, n_src, o.view(), false);
        for i in 0..n {
            let mut a = [0.0; 3];
            for j in (0..n_src).filter(|&j| j != i && is_candidate(src, i, j)) {
                let inv = src.inv_rcrit[i].min(src.inv_rcrit[j]);
                let p = pair_acceleration_with(src, i, j, inv);
                for c in 0..3 {
                    a[c] += p[c];
                }
            }
            for c in 0..3 {
                o.acc[3 + c][i] = a[c];
            }
        }
        got.push(("KickA near sums".into(), finish(o)));
        for (path, got) in got {
            assert_eq!(
                got, want,
                "case {case}: {n} bodies, {n_src} sources, semi-active {semi_active}: {path}, \
                 SIMD level {level}"
            );
        }
    }
    assert!(
        with_candidates > 150,
        "{with_candidates} cases with candidates"
    );
}

/// The pair pass of a system large enough for the parallel tile pass (many rayon tasks, tiles
/// with overflowing hit records), and with few sources for the source-outer pass, gives the
/// reference sums bitwise at every SIMD level the CPU has, serial and parallel.
#[test]
fn every_simd_level_gives_the_reference_sums_bitwise_in_large_systems() {
    let n = 1100;
    let mut rng = crate::rng::Rng::new(0xa5a5);
    let mut v: Vec<Vec<f64>> = (0..5).map(|_| Vec::new()).collect();
    for _ in 0..n {
        v[0].push(rng.range(-1.0, 1.0));
        v[1].push(rng.range(-1.0, 1.0));
        v[2].push(rng.range(-0.02, 0.02));
        v[3].push(1e-6 * rng.uniform());
        v[4].push(0.002 + 0.02 * rng.uniform());
    }
    let inv: Vec<f64> = v[4].iter().map(|r| 1.0 / r).collect();
    let src = columns_as_sources(&v, &inv, crate::physics::changeover::Changeover::Genga);
    let levels = crate::simd::supported_levels();
    for n_src in [n, 300, 20] {
        let want = reference(src, n_src, false);
        assert!(want.1.iter().filter(|&&c| c > 0).count() > 20);
        for &level in &levels {
            for parallel in [false, true] {
                let mut o = Outputs::new(n, n.div_ceil(LANES), Hits::capacity(n_src), 0.0, 0);
                crate::simd::with_level(level, || accelerations(src, n_src, o.view(), parallel));
                assert!(
                    (o.bits(), o.cand.clone()) == want,
                    "SIMD level {level}, {n_src} sources, parallel {parallel}"
                );
            }
        }
    }
}
