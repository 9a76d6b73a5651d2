//! A critical radius that outgrew the precheck margin, in one system with few massive bodies
//! (a test-particle run): the stored pair pass brought to the new radii by recomputing only the
//! tiles whose prechecker flags change, with the bits of the full pass.

use super::pair_forces::{self, is_candidate, within_precheck, Sources};
use super::pair_forces::{LANES, SMALL_MAX};
use super::CpuHybrid;
use rayon::prelude::*;

/// Tiles scanned per task, and so the stack arrays of a scan.
const TILES_PER_SCAN: usize = 32;

/// The full pass runs instead when more than one tile in this many would be recomputed.
const FULL_PASS_SHARE: usize = 16;

impl CpuHybrid {
    /// After some critical radius outgrew three times the one of the stored accelerations, give
    /// the stored far and near sums, candidate counts, tile records and candidate list of one
    /// system the bits of the full pair pass with the new radii (which `kick.rs` ran before, so
    /// that one fast test particle cost a whole pass), by recomputing only
    /// - the tiles holding massive bodies, and
    /// - the tiles of test particles of which some particle's candidate partners under the new
    ///   radii are not the ones the candidate list holds for it.
    ///
    /// Every other test particle keeps its far and near sums (the same K = 1 terms of the same
    /// positions in the same order) and its candidate pairs; KickA then sums their near terms
    /// with the new radii as the pass does. (Their candidate counts and tile records are left
    /// as they are: nothing reads them before the next full pass.) Returns false, having changed
    /// nothing but perhaps adopted the new radii, where the full pass is needed (no stored pass
    /// of these bodies, as after a restore without kick state or an import; an engine of many
    /// systems; semi-active test particles, which pull) or cheaper (more than one tile in
    /// [`FULL_PASS_SHARE`] to recompute).
    pub(super) fn refresh_changed_tiles(&mut self) -> bool {
        let [sys] = *self.layout.systems.as_slice() else {
            return false;
        };
        if !self.pass_stored || !sys.active || self.layout.semi_active || sys.len <= SMALL_MAX {
            return false;
        }
        let (tiles, massive_tiles) = (sys.len.div_ceil(LANES), sys.massive.div_ceil(LANES));
        let most = tiles / FULL_PASS_SHARE;
        if massive_tiles > most {
            return false;
        }
        self.adopt_critical_radii();
        self.flag_changed_tiles(massive_tiles);
        let mut changed = std::mem::take(&mut self.changed_tiles);
        changed.clear();
        changed.extend(0..massive_tiles as u32);
        let flags = &self.tile_changed[massive_tiles..tiles];
        changed.extend(
            (massive_tiles..tiles)
                .filter(|&g| flags[g - massive_tiles])
                .map(|g| g as u32),
        );
        let cheaper = changed.len() <= most;
        if cheaper {
            for &g in &changed {
                self.recompute_tile(g as usize);
            }
            self.replace_tile_candidates(&changed);
        }
        self.changed_tiles = changed;
        cheaper
    }

    /// Flag, in `tile_changed[massive_tiles..]`, the tiles of test particles (slots from
    /// `massive_tiles * LANES`) in which the prechecker with the kick radii flags other sources
    /// for some particle than its pairs in the candidate list.
    fn flag_changed_tiles(&mut self, massive_tiles: usize) {
        let sys = self.layout.systems[0];
        let tiles = sys.len.div_ceil(LANES);
        self.tile_changed.clear();
        self.tile_changed.resize(tiles, false);
        let src = Sources::of(
            &self.b,
            &self.rcrit_kick,
            &self.inv_rcrit_kick,
            0..sys.len,
            self.layout.changeover,
        );
        let pairs = &self.candidates;
        self.tile_changed[massive_tiles..]
            .par_chunks_mut(TILES_PER_SCAN)
            .enumerate()
            .for_each(|(c, flags)| {
                let start = (massive_tiles + c * TILES_PER_SCAN) * LANES;
                let rows = start..(start + flags.len() * LANES).min(sys.len);
                crate::simd::dispatch(
                    #[inline(always)]
                    || scan_tiles(src, sys.massive, rows.clone(), pairs, flags),
                )
            });
    }

    /// The full pair pass's results for tile `g` of the one system alone.
    fn recompute_tile(&mut self, g: usize) {
        let sys = self.layout.systems[0];
        let rows = g * LANES..((g + 1) * LANES).min(sys.len);
        let (src, out) = self.pass_io(0..sys.len, rows, g..g + 1, None);
        pair_forces::tile_accelerations(src, sys.massive, g, out);
    }
}

/// Flag each tile of the test particles `rows` (whole tiles from a tile boundary after the
/// tiles holding massive bodies, but perhaps the system's last) whose particles' prechecker
/// flags (vectorised over the rows) differ from their pairs in the candidate list `pairs`. The
/// list is in tile order ([`CpuHybrid::collect_candidates`]): a test particle's pairs have it
/// as the second slot, in ascending order of particles, after every pair of the massive
/// bodies' tiles (whose second slots are all below `rows.start`).
#[inline(always)]
pub(super) fn scan_tiles(
    src: Sources<'_>,
    massive: usize,
    rows: std::ops::Range<usize>,
    pairs: &[(u32, u32)],
    flags: &mut [bool],
) {
    const ROWS: usize = TILES_PER_SCAN * LANES;
    let (start, len) = (rows.start, rows.len());
    let (xi, yi, zi) = (
        &src.x[rows.clone()],
        &src.y[rows.clone()],
        &src.z[rows.clone()],
    );
    let rci = &src.rcrit[rows.clone()];
    let mut now = [0u32; ROWS];
    let now = &mut now[..len];
    for j in 0..massive {
        let (xj, yj, zj, rcj) = (src.x[j], src.y[j], src.z[j], src.rcrit[j]);
        for l in 0..len {
            let (dx, dy, dz) = (xj - xi[l], yj - yi[l], zj - zi[l]);
            now[l] += within_precheck(dx * dx + dy * dy + dz * dz, rci[l], rcj) as u32;
        }
    }
    let mut listed = [0u32; ROWS];
    let mut dropped = [false; TILES_PER_SCAN];
    let first = pairs.partition_point(|p| (p.1 as usize) < start);
    for &(j, i) in pairs[first..]
        .iter()
        .take_while(|p| rows.contains(&(p.1 as usize)))
    {
        let l = i as usize - start;
        listed[l] += 1;
        dropped[l / LANES] |= !is_candidate(src, i as usize, j as usize);
    }
    for (t, flag) in flags.iter_mut().enumerate() {
        let lanes = t * LANES..((t + 1) * LANES).min(len);
        *flag = dropped[t] || now[lanes.clone()] != listed[lanes];
    }
}
