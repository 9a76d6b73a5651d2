//! Refining the contact time of a collision to a precision (GENGA's `Collision Precision`,
//! `Collisions.rst`, section "Collision precision").
//!
//! With a precision `p`, a merger is made where the separation `r` of the pair lies in the band
//! `R (1 - p) <= r <= R` (`p > 0`, a slight overlap) or `R <= r <= R (1 + |p|)` (`p < 0`, just
//! before contact), `R` the sum of the radii. After an accepted substep in which some pair
//! touches (the test of `collide`: the end-point separation or the cubic Hermite minimum of
//! [`crate::physics::encounter`] below `R`), a pair whose end separation is outside its band
//! asks for the substep to be redone from its start, shortened to the time at which the
//! interpolated separation first reaches the band's middle (or, for a graze that never does, to
//! the time of its minimum). The earliest such time over the pairs wins. A redone substep that
//! ends short of the band is accepted as it is (the next one touches again); one that ends in
//! the band merges that pair even when it does not overlap (`p < 0`).

use super::{spared, BsWorkspace, GroupState};
use crate::physics::encounter::{first_crossing, min_separation_sq};

/// Redone substeps allowed in a row for one contact; the substep after the last is kept as
/// without refinement (merged at its end when it touches).
pub(super) const MAX_REFINEMENTS: u32 = 60;

/// What the pairs of an accepted substep ask for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Contact {
    /// Keep the substep; `forced` is a pair to merge at its end (the refined pair, in its band).
    Keep { forced: Option<(usize, usize)> },
    /// Redo the substep from its start, shortened to this fraction of it, for this pair.
    Redo { fraction: f64, pair: (usize, usize) },
}

/// The band `[lo, hi]` of end separations, in units of the sum of the radii, for precision `p`.
fn band(p: f64) -> (f64, f64) {
    if p >= 0.0 {
        (1.0 - p, 1.0)
    } else {
        (1.0, 1.0 - p)
    }
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The pairs' verdict on the substep of length `h` from `(ws.x0, ws.v0)` to the state in `g`,
/// for precision `p`. `refining` is the pair a redone substep was shortened for; the pair of
/// ids `spare` is left alone.
pub(super) fn refine_contact(
    p: f64,
    h: f64,
    (g, ws): (&GroupState, &BsWorkspace),
    (refining, spare): (Option<(usize, usize)>, Option<[u64; 2]>),
) -> Contact {
    let (lo, hi) = band(p);
    let n = g.len();
    let mut redo: Option<(f64, (usize, usize))> = None;
    let mut forced = None;
    for i in 0..n {
        for j in i + 1..n {
            let rsum = g.r[i] + g.r[j];
            if !g.alive[i] || !g.alive[j] || rsum <= 0.0 || spared(spare, g.id[i], g.id[j]) {
                continue;
            }
            let rel0 = (sub(ws.x0[j], ws.x0[i]), sub(ws.v0[j], ws.v0[i]));
            let rel1 = (sub(g.pos[j], g.pos[i]), sub(g.vel[j], g.vel[i]));
            let d1 = dot(rel1.0, rel1.0).sqrt();
            let (min_sq, t_min) = min_separation_sq(rel0.0, rel0.1, rel1.0, rel1.1, h);
            let touches = d1 < rsum || min_sq < rsum * rsum;
            let in_band = d1 >= lo * rsum && d1 <= hi * rsum;
            // Approaching or overlapping at the end: the band's crossing is not behind us.
            let arriving = dot(rel1.0, rel1.1) < 0.0 || d1 < rsum;
            if in_band && arriving && (touches || refining == Some((i, j))) {
                forced = forced.or(Some((i, j)));
                continue;
            }
            if !touches {
                continue;
            }
            let target = 0.5 * (lo + hi) * rsum;
            let target_sq = target * target;
            if dot(rel0.0, rel0.0) <= target_sq {
                // Inside the band's middle from the start (e.g. bodies placed overlapping):
                // nothing earlier to find; merged where contact was found.
                continue;
            }
            let fraction = if min_sq < target_sq {
                let t_end = if d1 < target { 1.0 } else { t_min };
                first_crossing(rel0, rel1, h, target_sq, t_end).0
            } else {
                t_min
            };
            let useful = fraction > 0.0 && fraction < 1.0;
            if useful && redo.is_none_or(|(f, _)| fraction < f) {
                redo = Some((fraction, (i, j)));
            }
        }
    }
    match redo {
        Some((fraction, pair)) => Contact::Redo { fraction, pair },
        None => Contact::Keep { forced },
    }
}
