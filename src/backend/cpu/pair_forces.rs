//! The N^2 changeover-weighted pair accelerations with the close-encounter prechecker
//! (GENGA paper eqs 1-6 and section 3.2.3), written for SIMD on the CPU.
//!
//! Bodies are processed in tiles of [`LANES`] receivers; each tile loops over all sources j in
//! index order and keeps one accumulator per receiver, so every acceleration is the same ordered
//! sum whatever the thread count (bitwise deterministic) while the lanes vectorise.
//!
//! Pairs are split by the prechecker: a pair with `r < 3 rcrit` is a close-encounter candidate and
//! its term goes to `near` (computed for the few flagged bodies only); every other pair has K = 1
//! exactly and goes to `far`, which needs no changeover at all. The next step's opening kick reuses
//! `far` and recomputes only `near` with the new critical radii.

use super::slots::SharedSlice;
use super::small;
use crate::physics::changeover::changeover_ratio;
use rayon::prelude::*;

/// Receivers per tile (one AVX-512 vector of f64).
pub const LANES: usize = 8;

/// Systems of at most this many bodies (and blocks of many systems of at most this many slots)
/// take the pair-at-once passes (`small_accelerations` and [`small_systems`]), which evaluate
/// every pair once for both of its bodies.
pub const SMALL_MAX: usize = 2 * LANES;

/// Factor on the critical radius below which a pair is a close-encounter candidate.
pub const PRECHECK_FACTOR: f64 = 3.0;

/// Read-only source arrays of the pair sum (structure of arrays).
#[derive(Clone, Copy)]
pub struct Sources<'a> {
    pub x: &'a [f64],
    pub y: &'a [f64],
    pub z: &'a [f64],
    pub m: &'a [f64],
    pub rcrit: &'a [f64],
    /// `1 / rcrit`, per body.
    pub inv_rcrit: &'a [f64],
}

impl<'a> Sources<'a> {
    /// The sources `slots` of other sources.
    pub fn of_slices(src: Sources<'a>, slots: std::ops::Range<usize>) -> Self {
        let r = slots;
        Sources {
            x: &src.x[r.clone()],
            y: &src.y[r.clone()],
            z: &src.z[r.clone()],
            m: &src.m[r.clone()],
            rcrit: &src.rcrit[r.clone()],
            inv_rcrit: &src.inv_rcrit[r],
        }
    }

    /// The sources of the bodies in `slots` (a system's range of slots).
    pub fn of(
        b: &'a crate::state::Bodies,
        rcrit: &'a [f64],
        inv_rcrit: &'a [f64],
        slots: std::ops::Range<usize>,
    ) -> Self {
        let r = slots;
        Sources {
            x: &b.x[r.clone()],
            y: &b.y[r.clone()],
            z: &b.z[r.clone()],
            m: &b.m[r.clone()],
            rcrit: &rcrit[r.clone()],
            inv_rcrit: &inv_rcrit[r],
        }
    }
}

/// Most sources j recorded per tile whose separation to some receiver of the tile is inside
/// the precheck radius; a tile with more falls back to scanning all sources.
pub const TILE_HITS: usize = 64;

/// Per-tile record of the sources that are candidates of some receiver in the tile (ascending j,
/// kept in the tile's row of a [`Hits`] table).
#[derive(Clone, Copy, Default, Debug, PartialEq)]
pub struct TileHits {
    pub len: usize,
    pub overflow: bool,
    /// Candidate pairs the tile owns (see [`owns_pair`]).
    pub owned: u32,
}

/// Hit records of a run of tiles: every tile's [`TileHits`] and its row of `cap` recorded
/// sources. A system with `n_src` sources needs `cap = min(TILE_HITS, n_src)` (at least 1), so a
/// few massive bodies among 10^6 test particles cost a few bytes per tile.
pub struct Hits<'a> {
    pub tiles: &'a mut [TileHits],
    pub sources: &'a mut [u32],
    pub cap: usize,
}

impl<'a> Hits<'a> {
    /// Row capacity for systems of at most `n_src` sources.
    pub fn capacity(n_src: usize) -> usize {
        n_src.clamp(1, TILE_HITS)
    }

    /// The records of the tiles `range`.
    pub fn range(&mut self, range: std::ops::Range<usize>) -> Hits<'_> {
        let cap = self.cap;
        Hits {
            sources: &mut self.sources[range.start * cap..range.end * cap],
            tiles: &mut self.tiles[range],
            cap,
        }
    }

    /// Tile `k`'s record and its row of sources.
    fn tile(&mut self, k: usize) -> (&mut TileHits, &mut [u32]) {
        let cap = self.cap;
        (
            &mut self.tiles[k],
            &mut self.sources[k * cap..(k + 1) * cap],
        )
    }

    /// The records in runs of `tiles` tiles, in parallel.
    pub fn par_runs(self, tiles: usize) -> impl IndexedParallelIterator<Item = Hits<'a>> {
        let cap = self.cap;
        self.tiles
            .par_chunks_mut(tiles)
            .zip(self.sources.par_chunks_mut(tiles * cap))
            .map(move |(tiles, sources)| Hits {
                tiles,
                sources,
                cap,
            })
    }

    /// The records in runs of `tiles` tiles.
    fn runs(self, tiles: usize) -> impl Iterator<Item = Hits<'a>> {
        let cap = self.cap;
        self.tiles
            .chunks_mut(tiles)
            .zip(self.sources.chunks_mut(tiles * cap))
            .map(move |(tiles, sources)| Hits {
                tiles,
                sources,
                cap,
            })
    }
}

/// Outputs of the acceleration pass.
pub struct Accelerations<'a> {
    pub far: [&'a mut [f64]; 3],
    pub near: [&'a mut [f64]; 3],
    pub candidates: &'a mut [u32],
    /// One record per tile of [`LANES`] bodies.
    pub hits: Hits<'a>,
    /// The closing kick, applied to every receiver once its accelerations are summed.
    pub kick: Option<Kick<'a>>,
}

impl<'a> Accelerations<'a> {
    /// The outputs cut into pieces of `slots` slots and `tiles` tile records, in parallel (the
    /// first piece holds slots `0 .. slots` and records `0 .. tiles`, and so on), without a
    /// kick.
    pub fn par_pieces(
        far: [&'a mut [f64]; 3],
        near: [&'a mut [f64]; 3],
        candidates: &'a mut [u32],
        hits: Hits<'a>,
        slots: usize,
        tiles: usize,
    ) -> impl IndexedParallelIterator<Item = Accelerations<'a>> {
        let [fx, fy, fz] = far;
        let [nx, ny, nz] = near;
        fx.par_chunks_mut(slots)
            .zip(fy.par_chunks_mut(slots))
            .zip(fz.par_chunks_mut(slots))
            .zip(nx.par_chunks_mut(slots))
            .zip(ny.par_chunks_mut(slots))
            .zip(nz.par_chunks_mut(slots))
            .zip(candidates.par_chunks_mut(slots))
            .zip(hits.par_runs(tiles))
            .map(
                |(((((((fx, fy), fz), nx), ny), nz), candidates), hits)| Accelerations {
                    far: [fx, fy, fz],
                    near: [nx, ny, nz],
                    candidates,
                    hits,
                    kick: None,
                },
            )
    }
}

/// The kick `v += dt (far + near)` (velocities of the same slots as the accelerations), fused
/// into the pair pass so that the accelerations are used while they are in cache; it is the
/// arithmetic of the separate kick pass.
pub struct Kick<'a> {
    pub dt: f64,
    pub v: [&'a mut [f64]; 3],
}

impl Kick<'_> {
    /// Kick the receivers `range` with their accelerations `far` and `near`.
    fn apply(&mut self, range: std::ops::Range<usize>, far: [&[f64]; 3], near: [&[f64]; 3]) {
        for c in 0..3 {
            let v = &mut self.v[c][range.clone()];
            let (f, n) = (&far[c][range.clone()], &near[c][range.clone()]);
            for l in 0..v.len() {
                v[l] += self.dt * (f[l] + n[l]);
            }
        }
    }
}

/// Compute, over tiles of [`LANES`] receivers `0 .. n` (all bodies of one system) against the
/// sources `0 .. n_src` (its massive bodies; test particles, stored after them, pull on nobody):
/// - the far accelerations `a_i = sum_{j: r_ij >= 3 rcrit_ij} m_j (x_j - x_i) / r_ij^3`, where
///   K = 1 exactly, in a vectorised loop that needs no changeover;
/// - the candidate (near) accelerations of the pairs with `r_ij < 3 rcrit_ij` with the
///   changeover, from the sources the vector loop recorded for the tile;
/// - the number of candidate partners of every body.
///
/// Tiles run in parallel when `parallel` is set (one large system) and in order otherwise (one of
/// many small systems, which are themselves spread over threads). Every sum runs over j in
/// ascending order, so the result is the same either way and for any thread count.
pub fn accelerations(src: Sources<'_>, n_src: usize, out: Accelerations<'_>, parallel: bool) {
    let n = src.m.len();
    if n <= SMALL_MAX {
        return small_accelerations(src, n_src, out);
    }
    let [fx, fy, fz] = out.far;
    let [nx, ny, nz] = out.near;
    let mut all = out.hits;
    let hits = all.range(0..n.div_ceil(LANES));
    if !parallel {
        let out = Accelerations {
            far: [fx, fy, fz],
            near: [nx, ny, nz],
            candidates: out.candidates,
            hits,
            kick: out.kick,
        };
        return tiles(src, n_src, 0, out);
    }
    const TASK: usize = TILES_PER_TASK * LANES;
    // The kick's velocities, cut like the accelerations.
    let kick = out.kick.map(|k| (k.dt, k.v.map(SharedSlice::new)));
    let far = [fx, fy, fz];
    let near = [nx, ny, nz];
    Accelerations::par_pieces(far, near, out.candidates, hits, TASK, TILES_PER_TASK)
        .enumerate()
        .for_each(|(k, mut out)| {
            let len = out.far[0].len();
            // SAFETY: every task takes the slots of its own chunk.
            out.kick = kick.as_ref().map(|(dt, v)| Kick {
                dt: *dt,
                v: std::array::from_fn(|c| unsafe { v[c].range(k * TASK, len) }),
            });
            tiles(src, n_src, k * TILES_PER_TASK, out)
        });
}

/// Tiles per rayon task in the parallel pass of one large system.
const TILES_PER_TASK: usize = 32;

/// Systems with at most this many sources take the source-outer pass ([`block_sums`]).
const SOURCE_OUTER_MAX: usize = 32;
const _: () = assert!(
    SOURCE_OUTER_MAX <= TILE_HITS,
    "a tile must record every source"
);

/// The tiles `t0 ..` of receivers whose outputs (accelerations, candidate counts, hit records
/// and kicked velocities) start at tile `t0`, in order.
fn tiles(src: Sources<'_>, n_src: usize, t0: usize, out: Accelerations<'_>) {
    tiles_with(src, n_src, t0, out, n_src <= SOURCE_OUTER_MAX)
}

/// [`tiles`] with the choice of the source-outer pass made by the caller.
fn tiles_with(
    src: Sources<'_>,
    n_src: usize,
    t0: usize,
    out: Accelerations<'_>,
    source_outer: bool,
) {
    let Accelerations {
        far: [fx, fy, fz],
        near: [nx, ny, nz],
        candidates: cand,
        mut hits,
        mut kick,
    } = out;
    let n = src.m.len();
    if source_outer {
        const BLOCK: usize = TILES_PER_TASK * LANES;
        for (b, hits) in hits.runs(TILES_PER_TASK).enumerate() {
            let r = b * BLOCK..(b * BLOCK + BLOCK).min(fx.len());
            let out = [
                &mut fx[r.clone()],
                &mut fy[r.clone()],
                &mut fz[r.clone()],
                &mut nx[r.clone()],
                &mut ny[r.clone()],
                &mut nz[r.clone()],
            ];
            block_sums(
                src,
                t0 * LANES + r.start,
                n_src,
                out,
                &mut cand[r.clone()],
                hits,
            );
            if let Some(kick) = &mut kick {
                kick.apply(r, [&*fx, &*fy, &*fz], [&*nx, &*ny, &*nz]);
            }
        }
        return;
    }
    for k in 0..hits.tiles.len() {
        let (hits, sources) = hits.tile(k);
        let i0 = (t0 + k) * LANES;
        let lo = k * LANES;
        let len = LANES.min(fx.len() - lo);
        let far = tile_far(src, i0, n, n_src, hits, sources);
        fx[lo..lo + len].copy_from_slice(&far[0][..len]);
        fy[lo..lo + len].copy_from_slice(&far[1][..len]);
        fz[lo..lo + len].copy_from_slice(&far[2][..len]);
        hits.owned = 0;
        for l in 0..len {
            let (a, count, owned) = near_of(src, n_src, i0 + l, hits, sources);
            hits.owned += owned;
            nx[lo + l] = a[0];
            ny[lo + l] = a[1];
            nz[lo + l] = a[2];
            cand[lo + l] = count;
        }
        if let Some(kick) = &mut kick {
            let (far, near) = ([&*fx, &*fy, &*fz], [&*nx, &*ny, &*nz]);
            kick.apply(lo..lo + len, far, near);
        }
    }
}

/// Everything the tile pass computes, for the receivers `i0 .. i0 + out[0].len()` (whole tiles
/// but perhaps the system's last one) with the loop over the few sources outside, so the inner
/// loop runs over many independent receivers instead of one tile's dependent chain. Each
/// receiver takes the far terms of [`tile_far`] and the candidate terms of
/// [`pair_acceleration`], in ascending source order, so the sums are bitwise those of the tile
/// pass (a skipped term adds +0 or -0, which leaves a sum unchanged); both are evaluated for
/// every pair and the one that applies is kept, which keeps the loop vectorised.
fn block_sums(
    src: Sources<'_>,
    i0: usize,
    n_src: usize,
    out: [&mut [f64]; 6],
    cand: &mut [u32],
    hits: Hits<'_>,
) {
    const BLOCK: usize = TILES_PER_TASK * LANES;
    let len = out[0].len();
    debug_assert!(len <= BLOCK && hits.tiles.len() == len.div_ceil(LANES));
    debug_assert!(hits.cap >= n_src, "a tile must record every source");
    let (cap, sources, hits) = (hits.cap, hits.sources, hits.tiles);
    let [fx, fy, fz, nx, ny, nz] = out;
    let (fx, fy, fz) = (&mut fx[..len], &mut fy[..len], &mut fz[..len]);
    let (nx, ny, nz, cand) = (
        &mut nx[..len],
        &mut ny[..len],
        &mut nz[..len],
        &mut cand[..len],
    );
    let r = i0..i0 + len;
    let (xi, yi, zi) = (&src.x[r.clone()], &src.y[r.clone()], &src.z[r.clone()]);
    let (rci, inv_i) = (&src.rcrit[r.clone()], &src.inv_rcrit[r]);
    if n_src == 0 {
        for v in [&mut *fx, &mut *fy, &mut *fz, &mut *nx, &mut *ny, &mut *nz] {
            v.fill(0.0);
        }
        cand.fill(0);
    }
    for h in hits.iter_mut() {
        h.len = 0;
        h.overflow = false;
        h.owned = 0;
    }
    // One byte per receiver, zero beyond `len`, so each tile's flags read as one u64.
    let mut near = [0u8; BLOCK];
    for j in 0..n_src {
        // The first source starts the sums (from +0, as an accumulator would).
        let first = j == 0;
        let (xj, yj, zj, mj) = (src.x[j], src.y[j], src.z[j], src.m[j]);
        let (rcj, inv_j) = (src.rcrit[j], src.inv_rcrit[j]);
        let flags = &mut near[..len];
        for l in 0..len {
            let dx = xj - xi[l];
            let dy = yj - yi[l];
            let dz = zj - zi[l];
            let r2 = dx * dx + dy * dy + dz * dz;
            let limit = PRECHECK_FACTOR * rci[l].max(rcj);
            let inside = r2 < limit * limit;
            // r2 == 0: the receiver itself, even when its critical radius is 0.
            let is_near = inside || r2 == 0.0;
            flags[l] = is_near as u8;
            let r = r2.sqrt();
            let (k_num, k_den) = changeover_ratio(r, inv_i[l].min(inv_j));
            // One division for the term that applies, each written as the tile pass writes it:
            // m K / r^3 = (m k_num) / (k_den r^3) near, m / r^3 far.
            let (num, den) = if inside {
                (mj * k_num, k_den * r2 * r)
            } else {
                (mj, r2 * r)
            };
            let w = num / den;
            let w_far = if is_near { 0.0 } else { w };
            let sum = |acc: f64| if first { 0.0 } else { acc };
            fx[l] = sum(fx[l]) + w_far * dx;
            fy[l] = sum(fy[l]) + w_far * dy;
            fz[l] = sum(fz[l]) + w_far * dz;
            let candidate = inside && i0 + l != j;
            let w_near = if candidate { w } else { 0.0 };
            nx[l] = sum(nx[l]) + w_near * dx;
            ny[l] = sum(ny[l]) + w_near * dy;
            nz[l] = sum(nz[l]) + w_near * dz;
            cand[l] = if first { 0 } else { cand[l] } + candidate as u32;
        }
        for (t, h) in hits.iter_mut().enumerate() {
            let flags: [u8; LANES] = near[t * LANES..(t + 1) * LANES].try_into().unwrap();
            if u64::from_ne_bytes(flags) != 0 {
                sources[t * cap + h.len] = j as u32;
                h.len += 1;
            }
        }
    }
    // Owned pairs: a test particle owns all of its pairs, a source those with higher sources.
    for (t, h) in hits.iter_mut().enumerate() {
        for l in t * LANES..((t + 1) * LANES).min(len) {
            let i = i0 + l;
            h.owned += if i >= n_src {
                cand[l]
            } else {
                (0..n_src)
                    .filter(|&j| j > i && is_candidate(src, i, j))
                    .count() as u32
            };
        }
    }
}

/// [`accelerations`] for a system of at most [`SMALL_MAX`] bodies, without the tile machinery:
/// every pair with a source is evaluated once for both of its bodies (one square root and one
/// division), and each receiver still sums its partners in ascending order. The results agree
/// with the tile pass to rounding. The hit records are marked as overflowed, so candidate pairs
/// are looked for among all sources, and each tile owns the pairs of [`owns_pair`].
fn small_accelerations(src: Sources<'_>, n_src: usize, out: Accelerations<'_>) {
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
            let limit = PRECHECK_FACTOR * src.rcrit[i].max(src.rcrit[j]);
            let mutual = i < n_src;
            if r2 < limit * limit {
                let r = r2.sqrt();
                let (k_num, k_den) = changeover_ratio(r, src.inv_rcrit[i].min(src.inv_rcrit[j]));
                let w = k_num / (k_den * r2 * r);
                add(&mut near[i], src.m[j] * w, d);
                count[i] += 1;
                if mutual {
                    add(&mut near[j], -(src.m[i] * w), d);
                    count[j] += 1;
                }
                // The lower body's tile owns a pair of sources, a test particle's tile its own.
                owned[if mutual { j } else { i } / LANES] += 1;
            } else if r2 > 0.0 {
                let w = 1.0 / (r2 * r2.sqrt());
                add(&mut far[i], src.m[j] * w, d);
                if mutual {
                    add(&mut far[j], -(src.m[i] * w), d);
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
    small::with_block!(block, small_systems_of(src, systems, out))
}

/// [`small_systems`] for blocks of `B` slots.
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
                for l in 0..L {
                    for c in 0..3 {
                        d[c][l] = pos[c][j][l] - pos[c][i][l];
                    }
                    let r2 = d[0][l] * d[0][l] + d[1][l] * d[1][l] + d[2][l] * d[2][l];
                    let limit = PRECHECK_FACTOR * rc[i][l].max(rc[j][l]);
                    let inside = r2 < limit * limit;
                    is_near[l] = pair[l] & inside;
                    let is_far = pair[l] & !inside & (r2 > 0.0);
                    let r = r2.sqrt();
                    let (k_num, k_den) = changeover_ratio(r, inv[i][l].min(inv[j][l]));
                    // One division for the term that applies: k_num / (k_den r^3) near, 1 / r^3
                    // far, each exactly as `small_accelerations` writes it.
                    let (num, den) = if inside {
                        (k_num, k_den * r2 * r)
                    } else {
                        (1.0, r2 * r)
                    };
                    let w = num / den;
                    let (mi, mj) = (m[i][l], m[j][l]);
                    wi_near[l] = if is_near[l] { mj * w } else { 0.0 };
                    wi_far[l] = if is_far { mj * w } else { 0.0 };
                    wj_near[l] = if is_near[l] & mutual[l] {
                        -(mi * w)
                    } else {
                        0.0
                    };
                    wj_far[l] = if is_far & mutual[l] { -(mi * w) } else { 0.0 };
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

/// Semi-active test particles (GENGA's `Use Test Particles = 2`): the pull of the small bodies
/// `n_src .. n` on massive body `i < n_src`, split like the tile pass into the far part (K = 1)
/// and the changeover-weighted candidate part, with the number of candidate partners.
pub fn small_body_pull(src: Sources<'_>, n_src: usize, i: usize) -> ([f64; 3], [f64; 3], u32) {
    let (mut far, mut near, mut count) = ([0.0; 3], [0.0; 3], 0);
    for j in n_src..src.m.len() {
        let a = if is_candidate(src, i, j) {
            count += 1;
            &mut near
        } else {
            &mut far
        };
        let p = pair_acceleration(src, i, j);
        for c in 0..3 {
            a[c] += p[c];
        }
    }
    (far, near, count)
}

/// True when the tile of receiver `i` owns its candidate pair with source `j < n_src`: a pair of
/// two sources (massive bodies) is seen from both receivers and owned by the lower one; a pair of
/// a test particle `i >= n_src` is seen only from the particle's tile.
#[inline]
pub fn owns_pair(n_src: usize, i: usize, j: usize) -> bool {
    i >= n_src || j > i
}

/// The near acceleration, candidate count and owned candidate pairs ([`owns_pair`]) of receiver
/// `i` from the sources its tile recorded (all sources when the record overflowed).
fn near_of(
    src: Sources<'_>,
    n_src: usize,
    i: usize,
    hits: &TileHits,
    sources: &[u32],
) -> ([f64; 3], u32, u32) {
    let mut a = [0.0; 3];
    let (mut count, mut owned) = (0, 0);
    let mut add = |j: usize| {
        if j != i && is_candidate(src, i, j) {
            let p = pair_acceleration(src, i, j);
            for c in 0..3 {
                a[c] += p[c];
            }
            count += 1;
            owned += owns_pair(n_src, i, j) as u32;
        }
    };
    if hits.overflow {
        (0..n_src).for_each(&mut add);
    } else {
        sources[..hits.len].iter().for_each(|&j| add(j as usize));
    }
    (a, count, owned)
}

/// The vectorised far sum of one tile of receivers `i0 .. i0 + LANES` against all sources, which
/// records in `hits` and its row `sources` every source inside the precheck radius of some receiver. Lanes beyond `n`
/// repeat the last body and are discarded by the caller. The receiver itself has r = 0 and is
/// excluded like a candidate (its infinite weight is selected away, never multiplied).
#[inline(always)]
fn tile_far(
    src: Sources<'_>,
    i0: usize,
    n: usize,
    n_src: usize,
    hits: &mut TileHits,
    sources: &mut [u32],
) -> [[f64; LANES]; 3] {
    let (xs, ys, zs, ms, rcs) = (
        &src.x[..n],
        &src.y[..n],
        &src.z[..n],
        &src.m[..n],
        &src.rcrit[..n],
    );
    let mut xi = [0.0; LANES];
    let mut yi = [0.0; LANES];
    let mut zi = [0.0; LANES];
    let mut rci = [0.0; LANES];
    for l in 0..LANES {
        let i = (i0 + l).min(n - 1);
        xi[l] = xs[i];
        yi[l] = ys[i];
        zi[l] = zs[i];
        rci[l] = rcs[i];
    }
    hits.len = 0;
    hits.overflow = false;
    let mut ax = [0.0; LANES];
    let mut ay = [0.0; LANES];
    let mut az = [0.0; LANES];
    for j in 0..n_src {
        let (xj, yj, zj, mj, rcj) = (xs[j], ys[j], zs[j], ms[j], rcs[j]);
        let mut near = [false; LANES];
        for l in 0..LANES {
            let dx = xj - xi[l];
            let dy = yj - yi[l];
            let dz = zj - zi[l];
            let r2 = dx * dx + dy * dy + dz * dz;
            let limit = PRECHECK_FACTOR * rci[l].max(rcj);
            // r2 == 0: the receiver itself, even when its critical radius is 0.
            near[l] = r2 < limit * limit || r2 == 0.0;
            let w = mj / (r2 * r2.sqrt());
            let w = if near[l] { 0.0 } else { w };
            ax[l] += w * dx;
            ay[l] += w * dy;
            az[l] += w * dz;
        }
        if near.iter().any(|&b| b) {
            if hits.len < sources.len() {
                sources[hits.len] = j as u32;
                hits.len += 1;
            } else {
                hits.overflow = true;
            }
        }
    }
    [ax, ay, az]
}

/// Acceleration on body i from body j with the changeover (the `near` term of one pair), as the
/// tile computes it, for recomputing candidate pairs with new critical radii.
#[inline]
pub fn pair_acceleration(src: Sources<'_>, i: usize, j: usize) -> [f64; 3] {
    pair_acceleration_with(src, i, j, src.inv_rcrit[i].min(src.inv_rcrit[j]))
}

/// [`pair_acceleration`] with the pair's inverse critical radius given (`1 / max(rcrit_i,
/// rcrit_j)`), for critical radii other than the sources'.
#[inline]
pub fn pair_acceleration_with(src: Sources<'_>, i: usize, j: usize, inv_rcrit: f64) -> [f64; 3] {
    let dx = src.x[j] - src.x[i];
    let dy = src.y[j] - src.y[i];
    let dz = src.z[j] - src.z[i];
    let r2 = dx * dx + dy * dy + dz * dz;
    let r = r2.sqrt();
    let (k_num, k_den) = changeover_ratio(r, inv_rcrit);
    let w = src.m[j] * k_num / (k_den * r2 * r);
    [w * dx, w * dy, w * dz]
}

/// True when bodies i and j are prechecker candidates (`r_ij < 3 max(rcrit_i, rcrit_j)`).
#[inline]
pub fn is_candidate(src: Sources<'_>, i: usize, j: usize) -> bool {
    let dx = src.x[j] - src.x[i];
    let dy = src.y[j] - src.y[i];
    let dz = src.z[j] - src.z[i];
    let limit = PRECHECK_FACTOR * src.rcrit[i].max(src.rcrit[j]);
    dx * dx + dy * dy + dz * dz < limit * limit
}

#[cfg(test)]
mod tests {
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

    fn run(src: Sources<'_>, n_src: usize, parallel: bool) -> Out {
        let n = src.m.len();
        let mut o = Outputs::new(n, n.div_ceil(LANES), Hits::capacity(n_src), 0.0, 0);
        accelerations(src, n_src, o.view(), parallel);
        let near = o.acc.split_off(3);
        (o.acc, near, o.cand)
    }

    #[test]
    fn small_systems_agree_with_the_tile_pass() {
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
        let small = Sources {
            x: &v[0],
            y: &v[1],
            z: &v[2],
            m: &v[3],
            rcrit: &v[4],
            inv_rcrit: &iv,
        };
        let big = Sources {
            x: &w[0],
            y: &w[1],
            z: &w[2],
            m: &w[3],
            rcrit: &w[4],
            inv_rcrit: &iw,
        };
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
                    let close = |a: f64, b: f64| (a - b).abs() <= 1e-14 * a.abs().max(b.abs());
                    assert!(close(sf[c][i], bf[c][i]), "far {i} {c}");
                    assert!(close(sn[c][i], bn[c][i]), "near {i} {c}");
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
            let src = Sources {
                x: &v[0],
                y: &v[1],
                z: &v[2],
                m: &v[3],
                rcrit: &v[4],
                inv_rcrit: &inv,
            };
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
            let src = Sources {
                x: &v[0],
                y: &v[1],
                z: &v[2],
                m: &v[3],
                rcrit: &v[4],
                inv_rcrit: &inv,
            };
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
        let src = Sources {
            x: &v[0],
            y: &v[1],
            z: &v[2],
            m: &v[3],
            rcrit: &v[4],
            inv_rcrit: &inv,
        };
        let pass = |source_outer: bool| {
            let mut o = Outputs::new(n, n.div_ceil(LANES), Hits::capacity(5), 0.0, 0);
            tiles_with(src, 5, 0, o.view(), source_outer);
            let hits: Vec<_> = (o.hits.iter().zip(o.rows.chunks(o.cap)))
                .map(|(h, row)| (h.len, h.owned, row[..h.len].to_vec()))
                .collect();
            (o.bits(), o.cand, hits)
        };
        let (tile, source_outer) = (pass(false), pass(true));
        assert!(
            tile.1.iter().filter(|&&c| c > 0).count() > 10,
            "needs candidates"
        );
        assert_eq!(tile, source_outer);
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
        let src = Sources {
            x: &v[0],
            y: &v[1],
            z: &v[2],
            m: &v[3],
            rcrit: &v[4],
            inv_rcrit: &inv,
        };
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
}
