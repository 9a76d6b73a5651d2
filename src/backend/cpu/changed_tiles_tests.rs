//! The refresh after a critical radius outgrew the precheck margin gives the full pass's bits.

use super::*;
use crate::model::System;
use crate::physics::changeover::Changeover;
use crate::state::Body;

fn params() -> StepParams {
    StepParams {
        m0: 1.0,
        tau: 0.1,
        n1: 3.0,
        n2: 0.4,
        inner_truncation: 0.05,
        outer_truncation: 50.0,
    }
}

/// Uniform in [0, 1) from a 64-bit LCG.
fn unit(seed: &mut u64) -> f64 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (*seed >> 11) as f64 / (1u64 << 53) as f64
}

/// One system: `massive` bodies on circular orbits (the first a giant, the rest of 1e-9 solar
/// masses, whose critical radii are their test particles' velocity terms) and `tps` test
/// particles, half of them within 0.4 of some massive body.
fn snapshot(massive: usize, tps: usize, changeover: Changeover) -> HybridSnapshot {
    let mut seed = 7 + massive as u64;
    let mut b = Bodies::default();
    let mut centres = Vec::new();
    for k in 0..massive {
        let (r, phase) = (1.0 + 0.05 * k as f64, 2.4 * k as f64);
        let pos = [r * phase.cos(), r * phase.sin(), 0.0];
        let v = r.powf(-0.5);
        let vel = [-v * phase.sin(), v * phase.cos(), 0.0];
        let m = if k == 0 { 1e-3 } else { 1e-9 };
        b.push(&Body::without_spin(k as u64, m, 1e-5, pos, vel));
        centres.push(pos);
    }
    for k in 0..tps {
        let pos = if k % 2 == 0 {
            let c = centres[(unit(&mut seed) * massive as f64) as usize];
            std::array::from_fn(|d| c[d] + 0.8 * (unit(&mut seed) - 0.5))
        } else {
            let (r, phase) = (0.6 + 2.0 * unit(&mut seed), 6.3 * unit(&mut seed));
            [
                r * phase.cos(),
                r * phase.sin(),
                0.1 * (unit(&mut seed) - 0.5),
            ]
        };
        let r = (pos[0] * pos[0] + pos[1] * pos[1]).sqrt();
        let v = r.powf(-1.5) * (0.9 + 0.2 * unit(&mut seed));
        let vel = [-v * pos[1], v * pos[0], 0.0];
        b.push(&Body::without_spin(
            (massive + k) as u64,
            0.0,
            0.0,
            pos,
            vel,
        ));
    }
    HybridSnapshot {
        bodies: b,
        layout: Layout {
            block: massive + tps,
            systems: vec![System {
                len: massive + tps,
                massive,
                spec: None,
                active: true,
            }],
            semi_active: false,
            changeover,
        },
        ..Default::default()
    }
}

/// The engine after a full pass, then a step's new critical radii with the speeds of `count`
/// test particles scaled: three (every `stride`-th) by 5, so that their radii outgrow the
/// precheck margin, and the rest (every `stride`-th of those 0.13 .. 0.33 from a small massive
/// body when `near_small`) so that the pair with it joins or leaves the candidates without
/// outgrowing: every other one by 2.9, the others by 2.9 before the full pass and back by
/// 1 / 2.9 after it (their radii then decide the pair, the small body's being near 0.04).
fn grown(snap: &HybridSnapshot, stride: usize, count: usize, near_small: bool) -> CpuHybrid {
    let p = params();
    let mut e = CpuHybrid::default();
    e.restore(snap.clone());
    let massive = snap.layout.systems[0].massive;
    let nearest_small = |e: &CpuHybrid, k: usize| {
        (1..massive)
            .map(|j| {
                let d = [
                    e.b.x[k] - e.b.x[j],
                    e.b.y[k] - e.b.y[j],
                    e.b.z[k] - e.b.z[j],
                ];
                (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
            })
            .fold(f64::INFINITY, f64::min)
    };
    let fast: Vec<usize> = (massive..e.b.len()).step_by(stride).take(3).collect();
    let rest: Vec<usize> = (massive..e.b.len())
        .filter(|&k| {
            !fast.contains(&k) && (!near_small || (0.13..0.33).contains(&nearest_small(&e, k)))
        })
        .step_by(stride)
        .take(count - 3)
        .collect();
    let scale = |e: &mut CpuHybrid, k: usize, f: f64| {
        e.b.vx[k] *= f;
        e.b.vy[k] *= f;
        e.b.vz[k] *= f;
    };
    for &k in rest.iter().step_by(2) {
        scale(&mut e, k, 2.9);
    }
    e.critical_radii(&p);
    e.pair_pass(None);
    for &k in &fast {
        scale(&mut e, k, 5.0);
    }
    for (n, &k) in rest.iter().enumerate() {
        scale(&mut e, k, if n % 2 == 0 { 1.0 / 2.9 } else { 2.9 });
    }
    e.critical_radii(&p);
    assert!(e.radii_grew, "three radii grew fivefold");
    e
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// Everything the pair pass leaves for the next passes: the far and near sums as bits, the
/// candidate counts, the candidate list and every tile's record with its row of sources.
type PassState = (Vec<Vec<u64>>, Vec<u32>, Vec<(u32, u32)>, Vec<Vec<u32>>);

/// The [`PassState`] of an engine.
fn pass_state(e: &CpuHybrid) -> PassState {
    let sums = e.far.iter().chain(&e.near).map(|v| bits(v)).collect();
    let records = e
        .hits
        .iter()
        .enumerate()
        .map(|(g, h)| {
            let row = &e.hit_sources[g * e.hit_cap..g * e.hit_cap + h.len];
            [vec![h.len as u32, h.overflow as u32, h.owned], row.to_vec()].concat()
        })
        .collect();
    (
        sums,
        e.candidate_count.clone(),
        e.candidates.clone(),
        records,
    )
}

#[test]
fn recomputing_the_changed_tiles_gives_the_full_pass_bits() {
    for (massive, changeover) in [
        (3, Changeover::Genga),
        (3, Changeover::Infinity),
        (40, Changeover::Quintic),
    ] {
        let snap = snapshot(massive, 12000, changeover);
        let what = format!("{massive} massive bodies, {changeover}");
        let mut full = grown(&snap, 1, 80, true);
        full.pair_pass(None);
        let mut tiles = grown(&snap, 1, 80, true);
        tiles.refresh_kick_accelerations();
        // The tile path ran: a few tiles beside the massive bodies' were recomputed, more than
        // the grown particles' own (particles whose partners changed without outgrowing).
        let massive_tiles = massive.div_ceil(LANES);
        let recomputed = tiles.changed_tiles.len() - massive_tiles;
        let total = tiles.layout.systems[0].len.div_ceil(LANES);
        assert!(
            recomputed >= 8 && tiles.changed_tiles.len() <= total / 16,
            "{what}: {recomputed} tiles recomputed of {total}"
        );
        assert!(!full.candidates.is_empty(), "{what}: no candidates");
        assert!(
            pass_state(&tiles) == pass_state(&full),
            "{what}: the refresh differs from the full pass"
        );
    }
}

#[test]
fn many_changed_tiles_take_the_full_pass() {
    let snap = snapshot(3, 6000, Changeover::Genga);
    let mut full = grown(&snap, 3, 2000, false);
    full.pair_pass(None);
    let mut e = grown(&snap, 3, 2000, false);
    assert!(!e.refresh_changed_tiles(), "every third particle changed");
    e.refresh_kick_accelerations();
    assert!(pass_state(&e) == pass_state(&full));
}
