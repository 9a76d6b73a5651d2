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
//!
//! This file holds the types and the entry points [`accelerations`] (a system) and
//! [`tile_accelerations`] (one tile of it, with the same bits); the passes live in
//! `tiles.rs` (the tile pass), `source_outer.rs` (few sources, many receivers),
//! `small_systems.rs` (systems of at most [`SMALL_MAX`] bodies, alone or vectorised across
//! systems), `semi_active.rs` (the small bodies' pull) and `pair.rs` (the terms of one pair).

mod pair;
mod semi_active;
mod small_systems;
mod source_outer;
#[cfg(test)]
mod tests;
mod tiles;

pub use pair::{
    is_candidate, owns_pair, pair_acceleration, pair_acceleration_with, within_precheck,
    within_precheck_lanes,
};
pub use semi_active::small_body_pull;
pub use small_systems::{load_lanes, small_systems};

use super::slots::SharedSlice;
use crate::physics::changeover::Changeover;
use rayon::prelude::*;
use small_systems::small_accelerations;
use tiles::tiles;

pub use super::small::{LANES, SMALL_MAX};

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
    /// The changeover function of every pair.
    pub changeover: Changeover,
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
            changeover: src.changeover,
        }
    }

    /// The sources of the bodies in `slots` (a system's range of slots), with the changeover
    /// function `changeover`.
    pub fn of(
        b: &'a crate::state::Bodies,
        rcrit: &'a [f64],
        inv_rcrit: &'a [f64],
        slots: std::ops::Range<usize>,
        changeover: Changeover,
    ) -> Self {
        let r = slots;
        Sources {
            x: &b.x[r.clone()],
            y: &b.y[r.clone()],
            z: &b.z[r.clone()],
            m: &b.m[r.clone()],
            rcrit: &rcrit[r.clone()],
            inv_rcrit: &inv_rcrit[r],
            changeover,
        }
    }
}

/// Most sources j recorded per tile whose separation to some receiver of the tile is inside
/// the precheck radius; a tile with more falls back to scanning all sources.
pub const TILE_HITS: usize = 64;

/// Sources a tile can record (their slot numbers take 24 bits of a record, see [`pack_hit`]);
/// a system with more makes every tile scan all sources.
pub const MAX_RECORDED_SOURCES: usize = 1 << 24;

/// A tile's record of source `j` with the receivers it is near: `j << 8 | lanes`, bit `l` of
/// `lanes` set when receiver `l` of the tile is inside the precheck radius of `j` (or is `j`).
/// A receiver's candidates are then looked for only among its own sources.
#[inline(always)]
pub fn pack_hit(j: usize, lanes: u8) -> u32 {
    (j as u32) << 8 | lanes as u32
}

/// The source of a record made by [`pack_hit`].
#[inline(always)]
pub fn hit_source(hit: u32) -> usize {
    (hit >> 8) as usize
}

/// True when the record made by [`pack_hit`] is near receiver `lane` of its tile.
#[inline(always)]
pub fn hit_near(hit: u32, lane: usize) -> bool {
    hit >> lane & 1 != 0
}

/// Per-tile record of the sources that are candidates of some receiver in the tile (ascending j,
/// kept in the tile's row of a [`Hits`] table).
#[derive(Clone, Copy, Default, Debug, PartialEq)]
pub struct TileHits {
    pub len: usize,
    pub overflow: bool,
    /// Sources inside the precheck radius of some receiver, counted past the row's capacity
    /// too: the capacity the next pass needs to record them all ([`Hits::capacity_for`]).
    pub needed: u32,
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

    /// The row capacity that records the `needed` sources of the tile that found most (the
    /// largest [`TileHits::needed`]) with a quarter to spare, for systems of at most `n_src`
    /// sources: a pass whose tiles overflowed grows the rows for the next one, so that its
    /// tiles need not scan every source again. Never below [`Hits::capacity`].
    pub fn capacity_for(needed: usize, n_src: usize) -> usize {
        let spare = (needed + needed / 4).next_power_of_two();
        spare.min(n_src).max(Self::capacity(n_src))
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
    #[inline(always)]
    fn apply(&mut self, range: std::ops::Range<usize>, far: [&[f64]; 3], near: [&[f64]; 3]) {
        for c in 0..3 {
            let r = range.clone();
            kick_slots(
                &mut self.v[c][r.clone()],
                &far[c][r.clone()],
                &near[c][r],
                self.dt,
            );
        }
    }
}

/// The kick of one velocity component, `v += dt (far + near)`, slot by slot (`far` and `near`
/// at least as long as `v`): the arithmetic of every CPU kick.
#[inline(always)]
pub fn kick_slots(v: &mut [f64], far: &[f64], near: &[f64], dt: f64) {
    let (far, near) = (&far[..v.len()], &near[..v.len()]);
    for l in 0..v.len() {
        v[l] += dt * (far[l] + near[l]);
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

/// [`accelerations`] of the one tile `tile` of a system (receivers `tile * LANES ..`): `out`
/// holds that tile's slots and its one hit record, and gets the bits the whole pass gives them
/// (every receiver's sums and every tile's record depend only on its own receivers).
pub fn tile_accelerations(src: Sources<'_>, n_src: usize, tile: usize, out: Accelerations<'_>) {
    debug_assert!(out.hits.tiles.len() == 1 && out.far[0].len() <= LANES && out.kick.is_none());
    tiles(src, n_src, tile, out)
}

/// Tiles per rayon task in the parallel pass of one large system.
const TILES_PER_TASK: usize = 32;

/// Systems with at most this many sources take the source-outer pass ([`block_sums`]).
const SOURCE_OUTER_MAX: usize = 32;
const _: () = assert!(
    SOURCE_OUTER_MAX <= TILE_HITS,
    "a tile must record every source"
);
