//! The pair sums of a kick, written once for the map and its tangent map: every pair of bodies
//! of a system but the centre-first one (see the module docs) adds a term to one body and takes
//! one from the other ([`PairTerm`]: the map's accelerations, or their change along a tangent
//! vector), the systems in the vector lanes at the run-time SIMD level (groups of [`GROUP`],
//! the rest one by one with the same arithmetic), pairs in order.

use super::watch::Xyz;
use crate::simd::lanes::{load, store, GroupIo, Lanes, GROUP};
use crate::simd::{dispatch_lanes, LaneKernel};

/// What a pair adds to its bodies' sums.
pub(super) trait PairTerm: Copy {
    /// For the `W` systems from body-major indices `bi`, `bj` on (bodies `i < j`, masses `mi`,
    /// `mj`): what body `i` gains and what body `j` loses.
    fn terms<V: GroupIo<W>, const W: usize>(
        self,
        at: (usize, usize),
        masses: (V, V),
    ) -> ([V; 3], [V; 3]);
}

/// Gravity at inertial positions: `a_i += (m_j / r^3) d`, `a_j -= (m_i / r^3) d` with
/// `d = x_j - x_i`.
#[derive(Clone, Copy)]
pub(super) struct Gravity<'a>(pub &'a Xyz);

impl PairTerm for Gravity<'_> {
    #[inline(always)]
    fn terms<V: GroupIo<W>, const W: usize>(
        self,
        (bi, bj): (usize, usize),
        (mi, mj): (V, V),
    ) -> ([V; 3], [V; 3]) {
        let d = apart::<V, W>(self.0, bi, bj);
        let inv_r3 = inv_r3(d);
        let (fi, fj) = (mj * inv_r3, mi * inv_r3);
        (
            [fi * d[0], fi * d[1], fi * d[2]],
            [fj * d[0], fj * d[1], fj * d[2]],
        )
    }
}

/// `1 / r^3 = 1 / (r^2 sqrt(r^2))` of the separations `d`, `r^2 = dx dx + dy dy + dz dz`
/// (in that order, unfused): the map's pair term, for every path of the kick.
#[inline(always)]
pub(super) fn inv_r3<V: Lanes>(d: [V; 3]) -> V {
    let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    V::splat(1.0) / (r2 * r2.sqrt())
}

/// Body `j`'s vector less body `i`'s (`w_j - w_i`, body-major indices) for the `W` systems
/// from there on.
#[inline(always)]
pub(super) fn apart<V: GroupIo<W>, const W: usize>(w: &Xyz, i: usize, j: usize) -> [V; 3] {
    [
        load::<V, W>(&w[0], j) - load(&w[0], i),
        load::<V, W>(&w[1], j) - load(&w[1], i),
        load::<V, W>(&w[2], j) - load(&w[2], i),
    ]
}

/// The pair accelerations of `lanes` systems of body-major masses `m` at inertial positions
/// `p` into `a` (overwritten): every pair but the centre-first one.
pub(super) fn pair_accelerations(p: &Xyz, m: &[f64], lanes: usize, a: &mut Xyz) {
    pair_sums(m, lanes, a, Gravity(p));
}

/// The sums of `term` over the pairs of `lanes` systems of body-major masses `m`, into `a`
/// (overwritten).
pub(super) fn pair_sums<T: PairTerm>(m: &[f64], lanes: usize, a: &mut Xyz, term: T) {
    for c in a.iter_mut() {
        c.fill(0.0);
    }
    let full = lanes - lanes % GROUP;
    if full > 0 {
        dispatch_lanes(Pairs {
            m,
            lanes,
            a: &mut *a,
            full,
            term,
        });
    }
    for o in full..lanes {
        add_pairs::<f64, 1, T>((m, lanes, a), o, term);
    }
}

/// [`pair_sums`]' full lane groups, run on the lane group the dispatch picks.
struct Pairs<'a, T> {
    m: &'a [f64],
    lanes: usize,
    a: &'a mut Xyz,
    /// Lanes in full groups of [`GROUP`].
    full: usize,
    term: T,
}

impl<T: PairTerm> LaneKernel for Pairs<'_, T> {
    type Output = ();
    #[inline(always)]
    fn run<G: GroupIo>(self) {
        for o in (0..self.full).step_by(GROUP) {
            add_pairs::<G, GROUP, T>((self.m, self.lanes, &mut *self.a), o, self.term);
        }
    }
}

/// Add every pair's terms to `a` for the `W` systems from lane `o` on, on the lane group `V`.
#[inline(always)]
fn add_pairs<V: GroupIo<W>, const W: usize, T: PairTerm>(
    (m, l, a): (&[f64], usize, &mut Xyz),
    o: usize,
    term: T,
) {
    let n = m.len() / l;
    for i in 0..n {
        for j in (i + 1)..n {
            if i == 0 && j == 1 {
                continue;
            }
            let (bi, bj) = (i * l + o, j * l + o);
            let masses = (load::<V, W>(m, bi), load::<V, W>(m, bj));
            let (ti, tj) = term.terms::<V, W>((bi, bj), masses);
            for c in 0..3 {
                let ai = load::<V, W>(&a[c], bi) + ti[c];
                store(&mut a[c], bi, ai);
                let aj = load::<V, W>(&a[c], bj) - tj[c];
                store(&mut a[c], bj, aj);
            }
        }
    }
}
