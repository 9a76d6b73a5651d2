//! The source-outer pass for systems with few sources (test-particle runs): the loop over
//! sources outside, many independent receivers inside.

use super::{
    is_candidate, pack_hit, pair_acceleration, within_precheck, Hits, Sources, LANES,
    TILES_PER_TASK,
};
use crate::physics::changeover::ChangeoverFn;

/// Everything the tile pass computes (with the changeover `C`, the sources' own), for the receivers `i0 .. i0 + out[0].len()` (whole tiles
/// but perhaps the system's last one) with the loop over the few sources outside, so the inner
/// loop runs over many independent receivers instead of one tile's dependent chain. Each
/// receiver takes the far terms of [`tile_far`] and the candidate terms of
/// [`pair_acceleration`], in ascending source order, so the sums are bitwise those of the tile
/// pass (a skipped term adds +0 or -0, which leaves a sum unchanged); both are evaluated for
/// every pair and the one that applies is kept, which keeps the loop vectorised.
#[inline(always)]
pub(super) fn block_sums<C: ChangeoverFn>(
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
        h.needed = 0;
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
            let inside = within_precheck(r2, rci[l], rcj);
            // r2 == 0: the receiver itself, even when its critical radius is 0.
            let is_near = inside || r2 == 0.0;
            flags[l] = is_near as u8;
            let r = r2.sqrt();
            let sum = |acc: f64| if first { 0.0 } else { acc };
            let candidate = inside && i0 + l != j;
            cand[l] = if first { 0 } else { cand[l] } + candidate as u32;
            if C::LAZY {
                // K for the candidates only, below; m / r^3 for the far sum.
                let w_far = if is_near { 0.0 } else { mj / (r2 * r) };
                fx[l] = sum(fx[l]) + w_far * dx;
                fy[l] = sum(fy[l]) + w_far * dy;
                fz[l] = sum(fz[l]) + w_far * dz;
                nx[l] = sum(nx[l]);
                ny[l] = sum(ny[l]);
                nz[l] = sum(nz[l]);
                continue;
            }
            let (k_num, k_den) = C::ratio(r, inv_i[l].min(inv_j));
            // One division for the term that applies, each written as the tile pass writes it:
            // m K / r^3 = (m k_num) / (k_den r^3) near, m / r^3 far.
            let (num, den) = if inside {
                (mj * k_num, k_den * r2 * r)
            } else {
                (mj, r2 * r)
            };
            let w = num / den;
            let w_far = if is_near { 0.0 } else { w };
            fx[l] = sum(fx[l]) + w_far * dx;
            fy[l] = sum(fy[l]) + w_far * dy;
            fz[l] = sum(fz[l]) + w_far * dz;
            let w_near = if candidate { w } else { 0.0 };
            nx[l] = sum(nx[l]) + w_near * dx;
            ny[l] = sum(ny[l]) + w_near * dy;
            nz[l] = sum(nz[l]) + w_near * dz;
        }
        for (t, h) in hits.iter_mut().enumerate() {
            let flags: [u8; LANES] = near[t * LANES..(t + 1) * LANES].try_into().unwrap();
            if u64::from_ne_bytes(flags) != 0 {
                let lanes = (0..LANES).fold(0u8, |m, l| m | ((flags[l] != 0) as u8) << l);
                sources[t * cap + h.len] = pack_hit(j, lanes);
                h.len += 1;
                h.needed += 1;
                if C::LAZY {
                    // The candidates' near terms from source j, in the order of the sums.
                    for l in t * LANES..((t + 1) * LANES).min(len) {
                        let (i, flagged) = (i0 + l, flags[l - t * LANES] != 0);
                        if flagged && i != j && is_candidate(src, i, j) {
                            let a = pair_acceleration(src, i, j);
                            nx[l] += a[0];
                            ny[l] += a[1];
                            nz[l] += a[2];
                        }
                    }
                }
            }
        }
    }
    // Owned pairs: a test particle owns all of its pairs, a source those with higher sources.
    for (t, h) in hits.iter_mut().enumerate() {
        let lanes = t * LANES..((t + 1) * LANES).min(len);
        if i0 + lanes.start >= n_src {
            // A tile of test particles: the sum of its candidate counts.
            h.owned += cand[lanes].iter().sum::<u32>();
            continue;
        }
        for l in lanes {
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
