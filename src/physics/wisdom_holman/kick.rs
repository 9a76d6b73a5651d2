//! The end of an interaction kick, written once for the map and its tangent map: each Jacobi
//! body `k >= 1`'s velocity changes by `h` times its Jacobi acceleration `ja` plus, for
//! `k >= 2`, a Kepler term ([`KeplerTerm`]: the map's `eta_k x'_k / r'_k^3`, whose body-1 term
//! cancels the centre-first pair, see the module docs; or that term's change along a tangent
//! vector), the systems in the vector lanes at the run-time SIMD level (groups of [`GROUP`],
//! the rest one by one with the same arithmetic). One system alone of four or eight planets
//! has its planets in the lanes of one narrow group instead ([`crate::simd::dispatch_narrow`]),
//! with the same arithmetic per body.

use super::watch::Xyz;
use crate::simd::lanes::{load, load3, store, GroupIo, GROUP};
use crate::simd::{dispatch_lanes, dispatch_narrow, LaneKernel, NarrowKernel};

/// The Kepler term of a kick for Jacobi bodies 2 and up.
pub(super) trait KeplerTerm: Copy {
    /// The term of the `W` bodies at body-major index `i` on, at Jacobi positions `x` (theirs)
    /// with `eta` their interior masses.
    fn at<V: GroupIo<W>, const W: usize>(self, x: [V; 3], eta: V, i: usize) -> [V; 3];
}

/// The map's own Kepler term, `eta x / r^3`.
#[derive(Clone, Copy)]
pub(super) struct MapTerm;

impl KeplerTerm for MapTerm {
    #[inline(always)]
    fn at<V: GroupIo<W>, const W: usize>(self, x: [V; 3], eta: V, _: usize) -> [V; 3] {
        let r2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
        let kepler = eta / (r2 * r2.sqrt());
        [kepler * x[0], kepler * x[1], kepler * x[2]]
    }
}

/// The kick `v += h (ja + Kepler term)` of every Jacobi body `k >= 1` of `lanes` systems at
/// Jacobi positions `x` (body-major, `eta` the interior masses), from `v` into `out` (the
/// centres of mass, slot 0, copied).
pub(super) fn kick_bodies<T: KeplerTerm>(
    (x, ja, eta, h): (&Xyz, &Xyz, &[f64], f64),
    (v, out): (&Xyz, &mut Xyz),
    lanes: usize,
    term: T,
) {
    let planets = eta.len() / lanes - 1;
    if lanes == 1 && matches!(planets, 4 | 8) {
        for c in 0..3 {
            out[c][0] = v[c][0];
        }
        return dispatch_narrow(
            planets,
            OneSystem {
                at: (x, ja, eta, h),
                v: (v, out),
                term,
            },
        );
    }
    for c in 0..3 {
        out[c][..lanes].copy_from_slice(&v[c][..lanes]);
    }
    let full = lanes - lanes % GROUP;
    if full > 0 {
        dispatch_lanes(Kick {
            at: (x, ja, eta, h),
            v: (v, &mut *out),
            lanes,
            full,
            term,
        });
    }
    for o in full..lanes {
        kick_group::<f64, 1, T>((x, ja, eta, h), (v, out), (lanes, o), term);
    }
}

/// [`kick_bodies`]' full lane groups, run on the lane group the dispatch picks.
struct Kick<'a, T> {
    at: (&'a Xyz, &'a Xyz, &'a [f64], f64),
    /// The velocities before the kick, and where those after it go.
    v: (&'a Xyz, &'a mut Xyz),
    lanes: usize,
    /// Lanes in full groups of [`GROUP`].
    full: usize,
    term: T,
}

impl<T: KeplerTerm> LaneKernel for Kick<'_, T> {
    type Output = ();
    #[inline(always)]
    fn run<G: GroupIo>(self) {
        for o in (0..self.full).step_by(GROUP) {
            let v = (self.v.0, &mut *self.v.1);
            kick_group::<G, GROUP, T>(self.at, v, (self.lanes, o), self.term);
        }
    }
}

/// [`kick_bodies`] for one system of `W` planets, the planets (Jacobi bodies 1 to `W`) in the
/// lanes of the narrow group the dispatch picks.
struct OneSystem<'a, T> {
    at: (&'a Xyz, &'a Xyz, &'a [f64], f64),
    /// The velocities before the kick, and where those after it go.
    v: (&'a Xyz, &'a mut Xyz),
    term: T,
}

impl<T: KeplerTerm> NarrowKernel for OneSystem<'_, T> {
    type Output = ();
    #[inline(always)]
    fn run<const W: usize, V: GroupIo<W>>(self) {
        let ((x, ja, eta, h), (v, out)) = (self.at, self.v);
        let mut first = [0.0; W];
        first[0] = 1.0;
        // Jacobi body 1, in the first lane, takes no Kepler term (see the module docs).
        let first = V::from_array(first).eq(V::splat(1.0));
        let mut acc: [V; 3] = load3([&ja[0], &ja[1], &ja[2]], 1);
        let xk: [V; 3] = load3([&x[0], &x[1], &x[2]], 1);
        let t = self.term.at::<V, W>(xk, load(eta, 1), 1);
        for c in 0..3 {
            acc[c] = V::select(first, acc[c], acc[c] + t[c]);
            let vc = load::<V, W>(&v[c], 1) + V::splat(h) * acc[c];
            store(&mut out[c], 1, vc);
        }
    }
}

/// [`kick_bodies`] for the `W` systems from lane `o` on, on the lane group `V`.
#[inline(always)]
fn kick_group<V: GroupIo<W>, const W: usize, T: KeplerTerm>(
    (x, ja, eta, h): (&Xyz, &Xyz, &[f64], f64),
    (v, out): (&Xyz, &mut Xyz),
    (l, o): (usize, usize),
    term: T,
) {
    let n = eta.len() / l;
    for k in 1..n {
        let i = k * l + o;
        let mut acc: [V; 3] = load3([&ja[0], &ja[1], &ja[2]], i);
        if k >= 2 {
            let xk: [V; 3] = load3([&x[0], &x[1], &x[2]], i);
            let t = term.at::<V, W>(xk, load(eta, i), i);
            for c in 0..3 {
                acc[c] = acc[c] + t[c];
            }
        }
        for c in 0..3 {
            let vc = load::<V, W>(&v[c], i) + V::splat(h) * acc[c];
            store(&mut out[c], i, vc);
        }
    }
}
