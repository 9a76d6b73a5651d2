//! The tile pass: tiles of [`LANES`] receivers against all sources, the far sum vectorised
//! across the lanes and the candidate (near) terms from the sources each tile recorded.

use super::source_outer::block_sums;
use super::{
    hit_near, hit_source, is_candidate, owns_pair, pack_hit, pair_acceleration, within_precheck,
    Accelerations, Sources, TileHits, LANES, MAX_RECORDED_SOURCES, SOURCE_OUTER_MAX,
    TILES_PER_TASK,
};

/// The tiles `t0 ..` of receivers whose outputs (accelerations, candidate counts, hit records
/// and kicked velocities) start at tile `t0`, in order, at the run-time SIMD level.
pub(super) fn tiles(src: Sources<'_>, n_src: usize, t0: usize, out: Accelerations<'_>) {
    let source_outer = n_src <= SOURCE_OUTER_MAX;
    crate::simd::dispatch(
        #[inline(always)]
        || tiles_with(src, n_src, t0, out, source_outer),
    )
}

/// [`tiles`] with the choice of the source-outer pass made by the caller (compiled into the
/// caller's SIMD level).
#[inline(always)]
pub(super) fn tiles_with(
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
            crate::with_changeover!(src.changeover, C => block_sums::<C>(
                src,
                t0 * LANES + r.start,
                n_src,
                out,
                &mut cand[r.clone()],
                hits,
            ));
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
            let (a, count, owned) = near_of(src, n_src, i0 + l, l, hits, sources);
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

/// The near acceleration, candidate count and owned candidate pairs ([`owns_pair`]) of receiver
/// `i` (lane `lane` of its tile) from the sources its tile recorded near it (all sources when
/// the record overflowed).
#[inline]
pub(super) fn near_of(
    src: Sources<'_>,
    n_src: usize,
    i: usize,
    lane: usize,
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
        sources[..hits.len]
            .iter()
            .filter(|&&h| hit_near(h, lane))
            .for_each(|&h| add(hit_source(h)));
    }
    (a, count, owned)
}

/// The vectorised far sum of one tile of receivers `i0 .. i0 + LANES` against all sources, which
/// records in `hits` and its row `sources` every source inside the precheck radius of some receiver. Lanes beyond `n`
/// repeat the last body and are discarded by the caller. The receiver itself has r = 0 and is
/// excluded like a candidate (its infinite weight is selected away, never multiplied).
#[inline(always)]
pub(super) fn tile_far(
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
    hits.needed = 0;
    let can_record = n_src <= MAX_RECORDED_SOURCES;
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
            // r2 == 0: the receiver itself, even when its critical radius is 0.
            near[l] = within_precheck(r2, rci[l], rcj) || r2 == 0.0;
            let w = mj / (r2 * r2.sqrt());
            let w = if near[l] { 0.0 } else { w };
            ax[l] += w * dx;
            ay[l] += w * dy;
            az[l] += w * dz;
        }
        if near.iter().any(|&b| b) {
            hits.needed += 1;
            if hits.len < sources.len() && can_record {
                let lanes = (0..LANES).fold(0u8, |m, l| m | (near[l] as u8) << l);
                sources[hits.len] = pack_hit(j, lanes);
                hits.len += 1;
            } else {
                hits.overflow = true;
            }
        }
    }
    [ax, ay, az]
}
