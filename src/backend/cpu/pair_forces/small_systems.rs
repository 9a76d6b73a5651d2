//! The pair-at-once passes of systems of at most [`SMALL_MAX`] bodies, one system at a time or
//! many vectorised across systems.

use super::{within_precheck, Accelerations, Sources, LANES, SMALL_MAX};
use crate::backend::cpu::small;
use crate::physics::changeover::{changeover_y, ratio_lanes};

/// [`accelerations`] for a system of at most [`SMALL_MAX`] bodies, without the tile machinery:
/// every pair with a source is evaluated once for both of its bodies (one square root, and one
/// division per direction), and each receiver still sums its partners in ascending order (the
/// terms from lower sources come while they are the outer index, those from higher ones when
/// the receiver is). Every term is the tile pass's term bit for bit (`(m K) / r^3` near, `m /
/// r^3` far, times the separation), so the results are bitwise those of the tile pass. The hit
/// records are marked as overflowed, so candidate pairs are looked for among all sources, and
/// each tile owns the pairs of [`owns_pair`]. Inline (a few bodies are not worth the call into
/// the run-time SIMD level).
pub(super) fn small_accelerations(src: Sources<'_>, n_src: usize, out: Accelerations<'_>) {
    crate::simd::dispatch_sized(
        src.m.len(),
        #[inline(always)]
        || small_accelerations_of(src, n_src, out),
    )
}

/// [`small_accelerations`], compiled into the caller's SIMD level.
#[inline(always)]
fn small_accelerations_of(src: Sources<'_>, n_src: usize, out: Accelerations<'_>) {
    const TILES: usize = SMALL_MAX.div_ceil(LANES);
    let n = src.m.len();
    let mut far = [[0.0; 3]; SMALL_MAX];
    let mut near = [[0.0; 3]; SMALL_MAX];
    let mut count = [0u32; SMALL_MAX];
    let mut owned = [0u32; TILES];
    let add = |acc: &mut [f64; 3], w: f64, d: [f64; 3]| {
        for c in 0..3 {
            acc[c] += w * d[c];
        }
    };
    for j in 0..n_src {
        for i in j + 1..n {
            // Receiver i pulled by source j, and j by i when i is a source too.
            let d = [
                src.x[j] - src.x[i],
                src.y[j] - src.y[i],
                src.z[j] - src.z[i],
            ];
            let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            let mutual = i < n_src;
            // Each weight is written as the tile pass writes it, `(m K) / r^3` near and `m / r^3`
            // far, one division per direction (a shared `K / r^3` times m rounds differently).
            // The term on j is `-w d`: the tile pass's `w (x_i - x_j)`, bit for bit.
            if within_precheck(r2, src.rcrit[i], src.rcrit[j]) {
                let r = r2.sqrt();
                let (k_num, k_den) = src
                    .changeover
                    .ratio(r, src.inv_rcrit[i].min(src.inv_rcrit[j]));
                let den = k_den * r2 * r;
                add(&mut near[i], src.m[j] * k_num / den, d);
                count[i] += 1;
                if mutual {
                    add(&mut near[j], -(src.m[i] * k_num / den), d);
                    count[j] += 1;
                }
                // The lower body's tile owns a pair of sources, a test particle's tile its own.
                owned[if mutual { j } else { i } / LANES] += 1;
            } else if r2 > 0.0 {
                let den = r2 * r2.sqrt();
                add(&mut far[i], src.m[j] / den, d);
                if mutual {
                    add(&mut far[j], -(src.m[i] / den), d);
                }
            }
        }
    }
    for i in 0..n {
        for c in 0..3 {
            out.far[c][i] = far[i][c];
            out.near[c][i] = near[i][c];
        }
        out.candidates[i] = count[i];
    }
    if let Some(mut kick) = out.kick {
        let (f, n_) = (
            out.far.each_ref().map(|a| &**a),
            out.near.each_ref().map(|a| &**a),
        );
        kick.apply(0..n, f, n_);
    }
    for (t, h) in out.hits.tiles.iter_mut().enumerate() {
        h.len = 0;
        h.overflow = true;
        h.owned = owned.get(t).copied().unwrap_or(0);
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
