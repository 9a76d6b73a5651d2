//! The terms of a single pair: the changeover-weighted acceleration, the prechecker and which
//! tile owns a candidate pair.

use super::{Sources, PRECHECK_FACTOR};
use crate::simd::lanes::Lanes;

/// True when the tile of receiver `i` owns its candidate pair with source `j < n_src`: a pair of
/// two sources (massive bodies) is seen from both receivers and owned by the lower one; a pair of
/// a test particle `i >= n_src` is seen only from the particle's tile.
#[inline(always)]
pub fn owns_pair(n_src: usize, i: usize, j: usize) -> bool {
    i >= n_src || j > i
}

/// Acceleration on body i from body j with the changeover (the `near` term of one pair), as the
/// tile computes it, for recomputing candidate pairs with new critical radii.
#[inline(always)]
pub fn pair_acceleration(src: Sources<'_>, i: usize, j: usize) -> [f64; 3] {
    pair_acceleration_with(src, i, j, src.inv_rcrit[i].min(src.inv_rcrit[j]))
}

/// [`pair_acceleration`] with the pair's inverse critical radius given (`1 / max(rcrit_i,
/// rcrit_j)`), for critical radii other than the sources'.
#[inline(always)]
pub fn pair_acceleration_with(src: Sources<'_>, i: usize, j: usize, inv_rcrit: f64) -> [f64; 3] {
    let dx = src.x[j] - src.x[i];
    let dy = src.y[j] - src.y[i];
    let dz = src.z[j] - src.z[i];
    let r2 = dx * dx + dy * dy + dz * dz;
    let r = r2.sqrt();
    let (k_num, k_den) = src.changeover.ratio(r, inv_rcrit);
    let w = src.m[j] * k_num / (k_den * r2 * r);
    [w * dx, w * dy, w * dz]
}

/// True when bodies i and j are prechecker candidates (`r_ij < 3 max(rcrit_i, rcrit_j)`).
#[inline(always)]
pub fn is_candidate(src: Sources<'_>, i: usize, j: usize) -> bool {
    let dx = src.x[j] - src.x[i];
    let dy = src.y[j] - src.y[i];
    let dz = src.z[j] - src.z[i];
    within_precheck(dx * dx + dy * dy + dz * dz, src.rcrit[i], src.rcrit[j])
}

/// The prechecker of a pair at squared separation `r2` with critical radii `rcrit_i` and
/// `rcrit_j`: `r < 3 max(rcrit_i, rcrit_j)`, compared squared. Every pass that flags candidates
/// decides with it, so that their flags agree bit for bit.
#[inline(always)]
pub fn within_precheck(r2: f64, rcrit_i: f64, rcrit_j: f64) -> bool {
    let limit = PRECHECK_FACTOR * rcrit_i.max(rcrit_j);
    r2 < limit * limit
}

/// [`within_precheck`] on lanes: the same comparisons, lane by lane.
#[inline(always)]
pub fn within_precheck_lanes<V: Lanes>(r2: V, rcrit_i: V, rcrit_j: V) -> V::Mask {
    let limit = V::splat(PRECHECK_FACTOR) * rcrit_i.max(rcrit_j);
    r2.lt(limit * limit)
}
