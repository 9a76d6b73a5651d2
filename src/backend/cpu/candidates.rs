//! The candidate pairs the pair pass flagged: collected in tile order, and walked per test
//! particle in parallel.

use super::pair_forces::{self, LANES};
use super::slots::SharedSlice;
use super::CpuHybrid;
use rayon::prelude::*;

impl CpuHybrid {
    /// Call `emit` with every candidate pair (lower slot first) that tile `tile` of system `s`
    /// owns: a pair of massive bodies is seen from both tiles and kept by the lower receiver; a
    /// test particle's pairs are seen only from its own tile.
    fn tile_pairs(&self, s: usize, tile: usize, mut emit: impl FnMut(u32, u32)) {
        let sys = self.layout.systems[s];
        if !sys.active {
            return;
        }
        let r = self.layout.range(s);
        let src = self.kick_sources(r.clone());
        let g = s * self.layout.block.div_ceil(LANES) + tile;
        let hits = &self.hits[g];
        let recorded = &self.hit_sources[g * self.hit_cap..g * self.hit_cap + hits.len];
        for i in tile * LANES..((tile + 1) * LANES).min(sys.len) {
            if self.candidate_count[r.start + i] == 0 {
                continue;
            }
            let lane = i - tile * LANES;
            let mut push = |j: usize| {
                if pair_forces::owns_pair(sys.massive, i, j)
                    && j != i
                    && pair_forces::is_candidate(src, i, j)
                {
                    let (a, b) = (i.min(j), i.max(j));
                    emit((r.start + a) as u32, (r.start + b) as u32);
                }
            };
            if hits.overflow {
                (0..sys.massive).for_each(&mut push);
            } else {
                recorded
                    .iter()
                    .filter(|&&h| pair_forces::hit_near(h, lane))
                    .for_each(|&h| push(pair_forces::hit_source(h)));
            }
        }
    }

    /// The candidate pairs from the sources each tile recorded, in tile order (deterministic):
    /// the pair pass counted the pairs every tile owns, so runs of tiles sum their counts in
    /// parallel, and after a prefix sum over the runs each run writes its pairs at its offset.
    pub(super) fn collect_candidates(&mut self) {
        const RUN: usize = 256;
        let tiles = self.layout.block.div_ceil(LANES);
        let (layout, hits) = (&self.layout, &self.hits);
        // The pairs tile g owns (the pair pass left 0 in stopped systems' tiles and in those
        // past a system's last body).
        let owned = |g: usize| hits[g].owned;
        let total_tiles = tiles * layout.systems.len();
        let mut offsets = std::mem::take(&mut self.run_pair_offset);
        let runs = total_tiles.div_ceil(RUN);
        let count_run = |r: usize| {
            (r * RUN..((r + 1) * RUN).min(total_tiles))
                .map(owned)
                .sum::<u32>()
        };
        // One run (a small system): inline, without the parallel runtime.
        if runs == 1 {
            offsets.clear();
            offsets.push(count_run(0));
        } else {
            (0..runs)
                .into_par_iter()
                .map(count_run)
                .collect_into_vec(&mut offsets);
        }
        let mut total = 0usize;
        for o in offsets.iter_mut() {
            let n = *o as usize;
            *o = total as u32;
            total += n;
        }
        let mut pairs = std::mem::take(&mut self.candidates);
        pairs.clear();
        pairs.resize(total, (0, 0));
        let out = SharedSlice::new(&mut pairs);
        let this = &*self;
        let write_run = |(r, &first): (usize, &u32)| {
            let mut next = first as usize;
            for g in r * RUN..((r + 1) * RUN).min(total_tiles) {
                let n = owned(g) as usize;
                if n == 0 {
                    continue;
                }
                // SAFETY: every tile writes its own offset range.
                let slot = unsafe { out.range(next, n) };
                let mut k = 0;
                this.tile_pairs(g / tiles, g % tiles, |a, b| {
                    slot[k] = (a, b);
                    k += 1;
                });
                debug_assert_eq!(k, n, "tile {g}: owned pairs miscounted");
                next += n;
            }
        };
        if total > 0 && runs == 1 {
            offsets.iter().enumerate().for_each(write_run);
        } else if total > 0 {
            offsets.par_iter().enumerate().for_each(write_run);
        }
        self.candidates = pairs;
        self.run_pair_offset = offsets;
    }

    /// Replace, in the candidate list of one system (slots from 0), the pairs of the tiles
    /// `changed` (ascending) by those their hit records give now, so that the list is what
    /// [`Self::collect_candidates`] would collect. A pair belongs to the tile that emits it: a
    /// test particle's tile, else the lower body's; the list runs in tile order.
    pub(super) fn replace_tile_candidates(&mut self, changed: &[u32]) {
        let massive = self.layout.systems[0].massive;
        let owner = |&(a, b): &(u32, u32)| {
            let receiver = if b as usize >= massive { b } else { a };
            receiver as usize / LANES
        };
        let old = std::mem::take(&mut self.candidates);
        debug_assert!(
            old.windows(2).all(|w| owner(&w[0]) <= owner(&w[1])),
            "the candidate list is in tile order"
        );
        let mut new = std::mem::take(&mut self.candidate_scratch);
        new.clear();
        let mut k = 0;
        for &g in changed {
            let g = g as usize;
            let start = k + old[k..].partition_point(|p| owner(p) < g);
            let end = start + old[start..].partition_point(|p| owner(p) == g);
            new.extend_from_slice(&old[k..start]);
            self.tile_pairs(0, g, |a, b| new.push((a, b)));
            k = end;
        }
        new.extend_from_slice(&old[k..]);
        self.candidates = new;
        self.candidate_scratch = old;
    }
}

/// Candidate pairs per task in the passes over the candidate list.
pub(super) const CANDIDATE_SEGMENT: usize = 512;

/// The test particles whose runs of pairs start in segment `seg` of the candidate list
/// `pairs`, each with the range of its pairs. A test particle's pairs are adjacent in the list
/// (its tile emits them together, in ascending partner order) and have it as the second slot.
pub(super) fn test_particle_runs<'a>(
    pairs: &'a [(u32, u32)],
    test_particle: &'a [bool],
    seg: usize,
) -> impl Iterator<Item = (usize, std::ops::Range<usize>)> + 'a {
    let lo = seg * CANDIDATE_SEGMENT;
    let hi = (lo + CANDIDATE_SEGMENT).min(pairs.len());
    (lo..hi)
        .filter(move |&k| {
            let tp = pairs[k].1;
            test_particle[tp as usize] && (k == 0 || pairs[k - 1].1 != tp)
        })
        .map(move |k| {
            let tp = pairs[k].1;
            let end = k + pairs[k..].iter().take_while(|p| p.1 == tp).count();
            (tp as usize, k..end)
        })
}

/// Calls `f(tp, pairs)`, in parallel, for every test particle in the candidate list `pairs` with
/// the range of its pairs (see [`test_particle_runs`]).
pub(super) fn for_each_candidate_test_particle(
    pairs: &[(u32, u32)],
    test_particle: &[bool],
    f: impl Fn(usize, std::ops::Range<usize>) + Sync,
) {
    let segments = pairs.len().div_ceil(CANDIDATE_SEGMENT);
    (0..segments).into_par_iter().for_each(|seg| {
        test_particle_runs(pairs, test_particle, seg).for_each(|(tp, run)| f(tp, run))
    });
}
