//! The pair-at-once passes of systems of at most [`SMALL_MAX`] bodies, one system at a time or
//! many vectorised across systems.

use super::{
    kick_slots, owns_pair, pair_acceleration, within_precheck, within_precheck_lanes,
    Accelerations, Kick, Sources, LANES, SMALL_MAX,
};
use crate::backend::cpu::small;
use crate::physics::changeover::{changeover_y, ratio_lanes};
use crate::simd::lanes::GroupIo;
use crate::simd::NarrowKernel;

/// [`accelerations`] for a system of at most [`SMALL_MAX`] bodies, without the tile machinery:
/// the receivers are narrow lane groups ([`crate::simd::dispatch_narrow`]), and each source j
/// pulls on a whole group at once, sources in ascending order, so each receiver sums its
/// partners in the order of the tile pass. Every term is the tile pass's
/// term bit for bit (`(m K) / r^3` near, `m / r^3` far, times the separation `x_j - x_i`), and
/// a pair that does not apply adds nothing (its lane adds `0 * 0`), so the results are bitwise
/// those of the tile pass. The hit records are marked as overflowed, so candidate pairs are
/// looked for among all sources, and each tile owns the pairs of [`owns_pair`].
pub(super) fn small_accelerations(src: Sources<'_>, n_src: usize, out: Accelerations<'_>) {
    struct Pass<'a> {
        src: Sources<'a>,
        n_src: usize,
        out: Accelerations<'a>,
    }
    impl NarrowKernel for Pass<'_> {
        type Output = ();
        #[inline(always)]
        fn run<const W: usize, V: GroupIo<W>>(self) {
            receiver_groups::<W, V>(self.src, self.n_src, self.out)
        }
    }
    crate::simd::dispatch_narrow(src.m.len(), Pass { src, n_src, out })
}

/// [`small_accelerations`] on lane groups `V` of `W` lanes, compiled into the caller's SIMD
/// level: the receivers' sums group by group with the fused kick ([`kick_slots`]), then the
/// tile records.
#[inline(always)]
fn receiver_groups<const W: usize, V: GroupIo<W>>(
    src: Sources<'_>,
    n_src: usize,
    out: Accelerations<'_>,
) {
    const TILES: usize = SMALL_MAX.div_ceil(LANES);
    let n = src.m.len();
    let mut owned = [0u32; TILES];
    let Accelerations {
        far: far_out,
        near: near_out,
        candidates,
        hits,
        mut kick,
    } = out;
    // One set of sums, filled in place by each group's call (no copy out of the call).
    let mut sums = GroupSums {
        far: [[0.0; W]; 3],
        near: [[0.0; W]; 3],
        count: [0; W],
    };
    for first in (0..n).step_by(W) {
        let rows = first..(first + W).min(n);
        receiver_group::<W, V>(src, n_src, first, &mut owned, &mut sums);
        for c in 0..3 {
            store_lanes(&mut far_out[c][rows.clone()], &sums.far[c]);
            store_lanes(&mut near_out[c][rows.clone()], &sums.near[c]);
        }
        for (k, &count) in candidates[rows.clone()].iter_mut().zip(&sums.count) {
            *k = count;
        }
        if let Some(Kick { dt, v }) = &mut kick {
            for (c, v) in v.iter_mut().enumerate() {
                kick_slots(&mut v[rows.clone()], &sums.far[c], &sums.near[c], *dt);
            }
        }
    }
    for (t, h) in hits.tiles.iter_mut().enumerate() {
        h.len = 0;
        h.overflow = true;
        h.owned = owned.get(t).copied().unwrap_or(0);
    }
}

/// The sums of one group of receivers: far and near accelerations and candidate partners.
struct GroupSums<const W: usize> {
    far: [[f64; W]; 3],
    near: [[f64; W]; 3],
    count: [u32; W],
}

/// The sums of the receivers `first .. first + W` (those below `src.m.len()`) over the
/// sources `0 .. n_src`, into `sums`; the candidate pairs the group owns are added to `owned`.
#[inline(always)]
fn receiver_group<const W: usize, V: GroupIo<W>>(
    src: Sources<'_>,
    n_src: usize,
    first: usize,
    owned: &mut [u32],
    sums: &mut GroupSums<W>,
) {
    let n = src.m.len();
    let load = |v: &[f64]| V::from_array(load_lanes::<W>(&v[first..(first + W).min(n)]));
    let pos = [load(src.x), load(src.y), load(src.z)];
    let rcrit = load(src.rcrit);
    let index = V::from_array(std::array::from_fn(|l| (first + l) as f64));
    let occupied = index.lt(V::splat(n as f64));
    let zero = V::splat(0.0);
    let mut far = [zero; 3];
    sums.near = [[0.0; W]; 3];
    sums.count = [0; W];
    for j in 0..n_src {
        // No closures with lane arithmetic here: a closure is compiled without the caller's
        // target features, so its vector instructions would not inline.
        let d = [
            V::splat(src.x[j]) - pos[0],
            V::splat(src.y[j]) - pos[1],
            V::splat(src.z[j]) - pos[2],
        ];
        let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        // A receiver other than j itself (which the pair loop never meets).
        let other = occupied & !index.eq(V::splat(j as f64));
        let inside = other & within_precheck_lanes(r2, rcrit, V::splat(src.rcrit[j]));
        let is_far = other & !inside & r2.gt(zero);
        let w = V::select(is_far, V::splat(src.m[j]) / (r2 * r2.sqrt()), zero);
        for c in 0..3 {
            far[c] = far[c] + w * V::select(is_far, d[c], zero);
        }
        // Candidate pairs are rare: their changeover lane by lane.
        if V::any(inside) {
            let inside = V::mask_array(inside);
            for l in (0..W).filter(|&l| inside[l]) {
                near_term(src, n_src, first + l, j, sums, owned);
            }
        }
    }
    sums.far = [far[0].to_array(), far[1].to_array(), far[2].to_array()];
}

/// The near term of candidate pair (receiver `i`, source `j`) into its lane of `sums`, with
/// the pair counted for receiver i and, when its tile owns the pair, in `owned`.
#[inline(always)]
fn near_term<const W: usize>(
    src: Sources<'_>,
    n_src: usize,
    i: usize,
    j: usize,
    sums: &mut GroupSums<W>,
    owned: &mut [u32],
) {
    let acc = pair_acceleration(src, i, j);
    let l = i % W;
    for c in 0..3 {
        sums.near[c][l] += acc[c];
    }
    sums.count[l] += 1;
    if owns_pair(n_src, i, j) {
        owned[i / LANES] += 1;
    }
}

/// The first `W` values of `v`, zeros past its end.
#[inline(always)]
pub fn load_lanes<const W: usize>(v: &[f64]) -> [f64; W] {
    match <&[f64; W]>::try_from(v) {
        Ok(all) => *all,
        Err(_) => std::array::from_fn(|l| v.get(l).copied().unwrap_or(0.0)),
    }
}

/// The first `dst.len() <= W` lanes of `lanes` into `dst`.
#[inline(always)]
fn store_lanes<const W: usize>(dst: &mut [f64], lanes: &[f64; W]) {
    match <&mut [f64; W]>::try_from(&mut *dst) {
        Ok(all) => *all = *lanes,
        Err(_) => dst.iter_mut().zip(lanes).for_each(|(d, &l)| *d = l),
    }
}

/// The pair-at-once pass (`small_accelerations`) of many small systems at once, vectorised
/// across systems: the
/// systems are stored in blocks of `block <= SMALL_MAX` slots (`src` and `out` cover the blocks
/// of `systems`, `out.hits` the tiles of every block), and lane l of a group holds system l of
/// [`LANES`] consecutive systems, so each pair (j, i) is evaluated for a whole group at once.
/// Every system gets the sums of `small_accelerations` bit for bit: the same terms in the
/// same order (a pair a system does not have adds a zero, which leaves a sum unchanged).
/// The empty slots of a system's block get zeros; stopped systems keep their outputs and own
/// no candidate pairs.
pub fn small_systems(
    src: Sources<'_>,
    block: usize,
    systems: &[crate::model::System],
    out: Accelerations<'_>,
) {
    crate::simd::dispatch(
        #[inline(always)]
        || small::with_block!(block, small_systems_of(src, systems, out)),
    )
}

/// [`small_systems`] for blocks of `B` slots, compiled into the caller's SIMD level.
#[inline(always)]
fn small_systems_of<const B: usize>(
    src: Sources<'_>,
    systems: &[crate::model::System],
    out: Accelerations<'_>,
) {
    const L: usize = LANES;
    const TILES: usize = SMALL_MAX.div_ceil(LANES);
    let tiles = B.div_ceil(L);
    let [fx, fy, fz] = out.far;
    let [nx, ny, nz] = out.near;
    for (g, group) in systems.chunks(L).enumerate() {
        let first = g * L;
        // Bodies and sources of every lane (none in stopped systems and padding lanes).
        let mut len = [0usize; L];
        let mut n_src = [0usize; L];
        for (l, sys) in group.iter().enumerate() {
            if sys.active {
                len[l] = sys.len;
                n_src[l] = sys.massive;
            }
        }
        // The group transposed: coordinate of body b in lane l at [b][l].
        let slots = first * B..(first + group.len()) * B;
        let load = |v: &[f64]| small::load::<B>(v, first, group.len());
        let pos = [load(src.x), load(src.y), load(src.z)];
        let (m, rc, inv) = (load(src.m), load(src.rcrit), load(src.inv_rcrit));
        let mut far = [[[0.0; L]; B]; 3];
        let mut near = far;
        let mut count = [[0u32; L]; B];
        let mut owned = [[0u32; L]; TILES];
        for j in 0..B {
            for i in j + 1..B {
                let pair: [bool; L] = std::array::from_fn(|l| j < n_src[l] && i < len[l]);
                let mutual: [bool; L] = std::array::from_fn(|l| i < n_src[l]);
                // Weights of receiver i (pulled by j) and of j (pulled by i), near and far.
                let (mut wi_near, mut wi_far) = ([0.0; L], [0.0; L]);
                let (mut wj_near, mut wj_far) = ([0.0; L], [0.0; L]);
                let mut d = [[0.0; L]; 3];
                let mut is_near = [false; L];
                let (mut r2, mut r, mut y) = ([0.0; L], [0.0; L], [0.0; L]);
                let mut inside = [false; L];
                for l in 0..L {
                    for c in 0..3 {
                        d[c][l] = pos[c][j][l] - pos[c][i][l];
                    }
                    r2[l] = d[0][l] * d[0][l] + d[1][l] * d[1][l] + d[2][l] * d[2][l];
                    inside[l] = within_precheck(r2[l], rc[i][l], rc[j][l]);
                    is_near[l] = pair[l] & inside[l];
                    r[l] = r2[l].sqrt();
                    y[l] = changeover_y(r[l], inv[i][l].min(inv[j][l]));
                }
                // K is used only where a lane is inside the precheck radius (rare): skip it
                // otherwise, which saves the smooth function's exponentials.
                let (k_num, k_den) = if inside.iter().any(|&a| a) {
                    ratio_lanes(src.changeover, y)
                } else {
                    ([0.0; L], [1.0; L])
                };
                for l in 0..L {
                    let (inside, r2, r) = (inside[l], r2[l], r[l]);
                    let is_far = pair[l] & !inside & (r2 > 0.0);
                    // The weights of the term that applies, one division per direction, each
                    // exactly as `small_accelerations` (and the tile pass) writes it:
                    // (m k_num) / (k_den r^3) near, m / r^3 far.
                    let (mi, mj) = (m[i][l], m[j][l]);
                    let (k, den) = if inside {
                        (k_num[l], k_den[l] * r2 * r)
                    } else {
                        (1.0, r2 * r)
                    };
                    // `m * 1.0` is m exactly, so the far weights are m / r^3.
                    let (wi, wj) = (mj * k / den, mi * k / den);
                    wi_near[l] = if is_near[l] { wi } else { 0.0 };
                    wi_far[l] = if is_far { wi } else { 0.0 };
                    wj_near[l] = if is_near[l] & mutual[l] { -wj } else { 0.0 };
                    wj_far[l] = if is_far & mutual[l] { -wj } else { 0.0 };
                }
                for c in 0..3 {
                    for l in 0..L {
                        near[c][i][l] += wi_near[l] * d[c][l];
                        far[c][i][l] += wi_far[l] * d[c][l];
                        near[c][j][l] += wj_near[l] * d[c][l];
                        far[c][j][l] += wj_far[l] * d[c][l];
                    }
                }
                for l in 0..L {
                    count[i][l] += is_near[l] as u32;
                    count[j][l] += (is_near[l] & mutual[l]) as u32;
                    // As in `small_accelerations`: the lower body's tile, or the test particle's.
                    owned[j / L][l] += (is_near[l] & mutual[l]) as u32;
                    owned[i / L][l] += (is_near[l] & !mutual[l]) as u32;
                }
            }
        }
        for (l, sys) in group.iter().enumerate() {
            for t in 0..tiles {
                let h = &mut out.hits.tiles[(first + l) * tiles + t];
                h.owned = owned[t][l];
                if sys.active {
                    h.len = 0;
                    h.overflow = true;
                }
            }
        }
        // Back to the slots of active systems (their empty slots get zeros).
        let active: [bool; L] = std::array::from_fn(|l| l < group.len() && group[l].active);
        let store =
            |t: &[[f64; L]; B], v: &mut [f64]| small::store::<B>(t, v, first, group.len(), &active);
        store(&far[0], fx);
        store(&far[1], fy);
        store(&far[2], fz);
        store(&near[0], nx);
        store(&near[1], ny);
        store(&near[2], nz);
        for (cand, l) in out.candidates[slots.clone()].chunks_exact_mut(B).zip(0..L) {
            if active[l] {
                for b in 0..B {
                    cand[b] = count[b][l];
                }
            }
        }
    }
}
