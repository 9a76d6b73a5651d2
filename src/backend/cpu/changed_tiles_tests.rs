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
        forces: crate::physics::forces::Forces::NONE,
        recursion: crate::physics::recursion::Recursion::OFF,
        rcrit_floor: 0.0,
    }
}

/// Uniform in [0, 1) from the project's generator.
fn unit(rng: &mut crate::rng::Rng) -> f64 {
    rng.uniform()
}

/// One system: `massive` bodies on circular orbits (the first a giant, the rest of 1e-9 solar
/// masses, whose critical radii are their velocity terms, about 0.04, as their test particles'
/// are) and `tps` test particles, half of them in a cube of side 0.8 around a massive body.
fn snapshot(massive: usize, tps: usize, changeover: Changeover) -> HybridSnapshot {
    let mut rng = crate::rng::Rng::new(7 + massive as u64);
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
            let c = centres[(unit(&mut rng) * massive as f64) as usize];
            std::array::from_fn(|d| c[d] + 0.8 * (unit(&mut rng) - 0.5))
        } else {
            let (r, phase) = (0.6 + 2.0 * unit(&mut rng), 6.3 * unit(&mut rng));
            [
                r * phase.cos(),
                r * phase.sin(),
                0.1 * (unit(&mut rng) - 0.5),
            ]
        };
        let r = (pos[0] * pos[0] + pos[1] * pos[1]).sqrt();
        let v = r.powf(-1.5) * (0.9 + 0.2 * unit(&mut rng));
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
                central_spin: [0.0; 3],
            }],
            semi_active: false,
            changeover,
        },
        ..Default::default()
    }
}

/// Multiply the velocity of slot `k` by `f` (its critical radius follows).
fn scale(e: &mut CpuHybrid, k: usize, f: f64) {
    e.b.vx[k] *= f;
    e.b.vy[k] *= f;
    e.b.vz[k] *= f;
}

/// Distance from slot `k` to the nearest small massive body.
fn nearest_small(e: &CpuHybrid, k: usize) -> f64 {
    let massive = e.layout.systems[0].massive;
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
}

/// How the speeds change between the full pass and the next critical radii.
struct Change {
    /// Test particles changed besides the three fast ones, spread over the system.
    count: usize,
    /// Chosen near small massive bodies, where their own radii decide their pairs (else any).
    near_small: bool,
    /// The first small massive body's speed times 1.2 too.
    massive: bool,
}

/// The engine after a full pass, then a step's new critical radii with speeds changed: three
/// test particles (at a quarter, half and three quarters of the system) 5 times faster, so that
/// their radii outgrow the precheck margin; and `change.count` more, spread over the system,
/// taken (when `near_small`) at 0.02 .. 0.06 from a small massive body, inside its changeover
/// shell, 1.5 times faster (K changes, the candidates do not), or at 0.13 .. 0.33 from it, in
/// turn 2.9 times faster (the pair joins the candidates) or 2.9 times faster before the full
/// pass and back after it (the pair leaves them).
fn grown(snap: &HybridSnapshot, change: &Change) -> CpuHybrid {
    grown_with(snap, change, |_| {})
}

/// [`grown`], with `between` done to the engine after the full pass.
fn grown_with(
    snap: &HybridSnapshot,
    change: &Change,
    between: impl FnOnce(&mut CpuHybrid),
) -> CpuHybrid {
    let p = params();
    let mut e = CpuHybrid::default();
    e.restore(snap.clone());
    let (massive, n) = (snap.layout.systems[0].massive, e.b.len());
    let fast: Vec<usize> = (1..4).map(|q| massive + q * (n - massive) / 4).collect();
    let band = |d: f64| {
        if (0.02..0.06).contains(&d) {
            Some(1.5)
        } else if (0.13..0.33).contains(&d) {
            Some(2.9)
        } else {
            None
        }
    };
    let candidates: Vec<(usize, f64)> = (massive..n)
        .filter(|k| !fast.contains(k))
        .filter_map(|k| match change.near_small {
            true => band(nearest_small(&e, k)).map(|f| (k, f)),
            false => Some((k, 2.0)),
        })
        .collect();
    let rest: Vec<(usize, f64)> = (0..change.count)
        .map(|i| candidates[i * candidates.len() / change.count])
        .collect();
    let leaving = |i: usize, f: f64| f == 2.9 && i.is_multiple_of(2);
    for (i, &(k, f)) in rest.iter().enumerate() {
        if leaving(i, f) {
            scale(&mut e, k, f);
        }
    }
    e.critical_radii(&p);
    e.pair_pass(None);
    between(&mut e);
    for &k in &fast {
        scale(&mut e, k, 5.0);
    }
    for (i, &(k, f)) in rest.iter().enumerate() {
        scale(&mut e, k, if leaving(i, f) { 1.0 / f } else { f });
    }
    if change.massive {
        scale(&mut e, 1, 1.2);
    }
    e.critical_radii(&p);
    assert!(e.radii_grew, "three radii grew fivefold");
    e
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// The far and near sums as bits and the candidate list: what the next passes read.
type Sums = (Vec<Vec<u64>>, Vec<(u32, u32)>);

/// The [`Sums`] of an engine.
fn sums(e: &CpuHybrid) -> Sums {
    let sums = e.far.iter().chain(&e.near).map(|v| bits(v)).collect();
    (sums, e.candidates.clone())
}

/// The [`Sums`], the candidate counts and every tile's record with its row of sources.
type PassState = (Sums, Vec<u32>, Vec<Vec<u32>>);

/// The [`PassState`] of an engine.
fn pass_state(e: &CpuHybrid) -> PassState {
    let records = e
        .hits
        .iter()
        .enumerate()
        .map(|(g, h)| {
            let row = &e.hit_sources[g * e.hit_cap..g * e.hit_cap + h.len];
            [vec![h.len as u32, h.overflow as u32, h.owned], row.to_vec()].concat()
        })
        .collect();
    (sums(e), e.candidate_count.clone(), records)
}

#[test]
fn recomputing_the_changed_tiles_gives_the_full_pass_bits() {
    // 3 massive bodies: the source-outer pass; 67: the tile pass, the ninth tile mixed.
    for (massive, changeover, massive_change) in [
        (3, Changeover::Genga, false),
        (3, Changeover::Infinity, true),
        (67, Changeover::Quintic, true),
    ] {
        let snap = snapshot(massive, 12000, changeover);
        let what = format!("{massive} massive bodies, {changeover}");
        let change = Change {
            count: 60,
            near_small: true,
            massive: massive_change,
        };
        let mut full = grown(&snap, &change);
        full.pair_pass(None);
        let mut tiles = grown(&snap, &change);
        tiles.refresh_kick_accelerations();
        // The tile path ran, beyond the massive bodies' tiles and the fast particles' own.
        let massive_tiles = massive.div_ceil(LANES);
        let recomputed = tiles.changed_tiles.len() - massive_tiles;
        let total = tiles.layout.systems[0].len.div_ceil(LANES);
        assert!(
            recomputed >= 20 && tiles.changed_tiles.len() <= total / 16,
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
    let change = Change {
        count: 2000,
        near_small: false,
        massive: false,
    };
    let mut full = grown(&snap, &change);
    full.pair_pass(None);
    let mut e = grown(&snap, &change);
    assert!(
        !e.refresh_changed_tiles(),
        "a third of the particles changed"
    );
    e.refresh_kick_accelerations();
    assert!(pass_state(&e) == pass_state(&full));
}

#[test]
fn without_a_stored_pass_the_refresh_is_the_full_pass() {
    // A restore without kick state: every radius outgrew the zeros, and no sums are stored.
    // The test particles moved ten times farther out, so that almost none has a candidate (the
    // few tiles with one would not tell a missing pass).
    let p = params();
    let snap = snapshot(3, 6000, Changeover::Genga);
    let mut far_out = snap.clone();
    for k in 3..far_out.bodies.len() {
        let mut b = far_out.bodies.get(k);
        b.pos = b.pos.map(|x| 10.0 * x);
        b.vel = b.vel.map(|v| v / 10f64.sqrt());
        far_out.bodies.set(k, &b);
    }
    let fresh = || {
        let mut e = CpuHybrid::default();
        e.restore(far_out.clone());
        e.critical_radii(&p);
        assert!(e.radii_grew);
        e
    };
    let mut full = fresh();
    full.pair_pass(None);
    let mut e = fresh();
    assert!(!e.refresh_changed_tiles(), "nothing stored to refresh");
    e.refresh_kick_accelerations();
    assert!(pass_state(&e) == pass_state(&full));
    // Restored from a checkpoint's state after the full pass (no counts or tile records): the
    // tile path, with the full pass's sums and list.
    let change = Change {
        count: 30,
        near_small: true,
        massive: true,
    };
    let mut full = grown(&snap, &change);
    full.pair_pass(None);
    let mut restored = grown_with(&snap, &change, |e| {
        let state = e.snapshot();
        *e = CpuHybrid::default();
        e.restore(state);
    });
    assert!(restored.refresh_changed_tiles(), "the tile path runs");
    restored.refresh_kick_accelerations();
    assert!(sums(&restored) == sums(&full));
}

#[test]
fn a_particle_that_traded_a_partner_is_flagged() {
    // The same number of candidate partners, another one: flagged by the partner check alone.
    let p = params();
    let mut e = CpuHybrid::default();
    e.restore(snapshot(67, 2000, Changeover::Genga));
    e.critical_radii(&p);
    e.pair_pass(None);
    let massive = e.layout.systems[0].massive;
    let rows = massive.div_ceil(LANES) * LANES..e.b.len();
    let scan = |e: &CpuHybrid, pairs: &[(u32, u32)]| {
        let src = e.kick_sources(0..e.b.len());
        let mut flags = vec![false; rows.len().div_ceil(LANES)];
        for (c, flags) in flags.chunks_mut(32).enumerate() {
            let start = rows.start + c * 32 * LANES;
            let end = (start + 32 * LANES).min(rows.end);
            changed_tiles::scan_tiles(src, massive, start..end, pairs, flags);
        }
        flags
    };
    assert!(
        scan(&e, &e.candidates).iter().all(|&f| !f),
        "nothing changed"
    );
    let src = e.kick_sources(0..e.b.len());
    let at = (0..e.candidates.len())
        .find(|&k| e.candidates[k].1 as usize >= rows.start)
        .expect("a test particle with a candidate partner");
    let (j, i) = e.candidates[at];
    let other = (0..massive as u32)
        .find(|&o| o != j && !is_candidate_pair(src, i as usize, o as usize, &e.candidates))
        .expect("a massive body that is not a partner");
    let mut traded = e.candidates.clone();
    traded[at] = (other, i);
    let flags = scan(&e, &traded);
    let tile = (i as usize - rows.start) / LANES;
    assert!(flags[tile], "the traded partner is seen");
    assert_eq!(flags.iter().filter(|&&f| f).count(), 1);
}

/// True when `(j, i)` is in the candidate list or the prechecker flags the pair.
fn is_candidate_pair(
    src: pair_forces::Sources<'_>,
    i: usize,
    j: usize,
    pairs: &[(u32, u32)],
) -> bool {
    pairs.contains(&(j as u32, i as u32)) || pair_forces::is_candidate(src, i, j)
}
