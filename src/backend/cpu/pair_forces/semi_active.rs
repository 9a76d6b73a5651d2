//! The pull of semi-active small bodies on the massive bodies.

use super::{is_candidate, pair_acceleration, Sources};

/// Semi-active test particles (GENGA's `Use Test Particles = 2`): the pull of the small bodies
/// `n_src .. n` on massive body `i < n_src`, split like the tile pass into the far part (K = 1)
/// and the changeover-weighted candidate part, with the number of candidate partners.
pub fn small_body_pull(src: Sources<'_>, n_src: usize, i: usize) -> ([f64; 3], [f64; 3], u32) {
    crate::simd::dispatch(
        #[inline(always)]
        || small_body_pull_of(src, n_src, i),
    )
}

/// [`small_body_pull`], compiled into the caller's SIMD level.
#[inline(always)]
fn small_body_pull_of(src: Sources<'_>, n_src: usize, i: usize) -> ([f64; 3], [f64; 3], u32) {
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
