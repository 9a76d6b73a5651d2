//! The Kepler drift's tangent map for many bodies in lane groups (structure of arrays): the
//! root of Kepler's equation from the vector drift's own solver ([`drift_setup`],
//! [`drift_solve`]), then [`drift_tangent`]'s formulas on every lane, with the scalar
//! [`drift_tangent`] as the fallback of lanes the vector path does not accept.
//!
//! In eccentric anomaly, with `x` the change of `E` over the drift, the universal anomaly is
//! `s = x / sqrt(beta)` and `z = beta s^2 = x^2`, so Stumpff's functions follow from `x`,
//! `sin x` and `cos x`: `c0 = cos x`, `c1 = sin x / x`, `c2 = (1 - cos x) / z`,
//! `c3 = (x - sin x) / (x z)`, `c4 = (1/2 - c2) / z`, `c5 = (1/6 - c3) / z`, and their series
//! for `z < 0.1`, where those differences would cancel.

use super::batch::{
    drift_batch_with, drift_setup, drift_solve, load_group, Apart, DriftIo, DriftRoot, DriftSetup,
    PerBody,
};
use super::tangent::{drift_tangent, stumpff_series, tangent_from_stumpff};
use super::KeplerError;
use crate::simd::lanes::{dot3, load, load3, store, GroupIo, Lanes, GROUP};
use crate::simd::{dispatch_lanes, LaneKernel};

/// [`drift_tangent`] on every lane of `V`: the change `(dx0, dv0)` of each body's state moved
/// through a drift of `dt` about `mu` (`inv_mu` its inverse) from `(x0, v0)`. Lanes with
/// `false` in the mask (unbound orbits, e >= 0.9, drifts of more than half a period, an
/// iteration that did not converge, a result that is not finite) must be redone by
/// [`drift_tangent`]; their values are garbage.
#[inline(always)]
pub(crate) fn drift_tangent_lanes<V: Lanes>(
    (mu, inv_mu): (V, V),
    dt: f64,
    (x0, v0): ([V; 3], [V; 3]),
    tangent: ([V; 3], [V; 3]),
) -> ([V; 3], [V; 3], V::Mask) {
    let setup = drift_setup(mu, inv_mu, dt, x0, v0);
    let root = drift_solve(&setup);
    tangent_from_root((&setup, &root), mu, dt, (x0, v0), tangent)
}

/// [`drift_tangent_lanes`] from the drift's own stages, its setup and its root of Kepler's
/// equation (the map's drift of the same state hands them over: [`drift_with_tangent`]).
#[inline(always)]
fn tangent_from_root<V: Lanes>(
    (setup, root): (&DriftSetup<V>, &DriftRoot<V>),
    mu: V,
    dt: f64,
    (x0, v0): ([V; 3], [V; 3]),
    (dx0, dv0): ([V; 3], [V; 3]),
) -> ([V; 3], [V; 3], V::Mask) {
    let k = V::splat;
    let (x, sin, cos) = (root.x, root.sin, root.cos);
    let r0 = dot3(x0, x0).sqrt();
    let beta = k(2.0) * mu / r0 - dot3(v0, v0);
    let s = x / beta.sqrt();
    let z = x * x;
    let small = z.lt(k(0.1));
    // Each branch only where some lane takes it (short steps: the series on every lane).
    let [p2, p3, p4, p5] = match V::any(small) {
        true => stumpff_series(z),
        false => [k(0.0); 4],
    };
    let [mut c1, mut c2, mut c3, mut c4, mut c5] = [k(1.0) - z * p3, p2, p3, p4, p5];
    if !V::all(small) {
        let d2 = root.one_minus_cos / z;
        let d3 = (x - sin) / (x * z);
        c1 = V::select(small, c1, sin / x);
        c2 = V::select(small, p2, d2);
        c3 = V::select(small, p3, d3);
        c4 = V::select(small, p4, (k(0.5) - c2) / z);
        c5 = V::select(small, p5, (k(1.0 / 6.0) - c3) / z);
    }
    let (dx, dv) = tangent_from_stumpff(
        (mu, dt),
        (s, beta),
        [cos, c1, c2, c3, c4, c5],
        (x0, v0),
        (dx0, dv0),
    );
    // Within half a period: the root is the whole change of anomaly (see `elliptic_anomaly`).
    let mut ok = setup.ok & root.converged & (setup.n * k(dt)).abs().le(k(std::f64::consts::PI));
    for c in 0..3 {
        ok = ok & dx[c].is_finite() & dv[c].is_finite();
    }
    (dx, dv, ok)
}

/// [`drift_tangent`] of many bodies, structure of arrays: body `i` at `x[.][i]`, `v[.][i]`
/// (its state before the drift) about `mu[i]` (`inv_mu[i]` its inverse), its tangent vector
/// `dx[.][i]`, `dv[.][i]` moved into `out` (apart, so that the caller keeps the one before). Lane groups of [`GROUP`] at the run-time SIMD level,
/// the rest one by one with the same arithmetic, so a body's bits do not depend on its place;
/// lanes the vector path does not accept take the scalar [`drift_tangent`]. A body whose
/// tangent drift fails there gets a NaN tangent vector (never a silent wrong value).
pub fn drift_tangent_batch(
    (mu, inv_mu): (&[f64], &[f64]),
    dt: f64,
    (x, v): ([&[f64]; 3], [&[f64]; 3]),
    tangent: ([&[f64]; 3], [&[f64]; 3]),
    out: ([&mut [f64]; 3], [&mut [f64]; 3]),
) {
    let len = mu.len();
    let mut job = TangentBatch {
        mu,
        inv_mu,
        dt,
        state: (x, v),
        tangent,
        out,
        full: len - len % GROUP,
    };
    if job.full > 0 {
        job = dispatch_lanes(job);
    }
    for o in job.full..len {
        tangent_group::<f64, 1>(&mut job, o);
    }
}

/// [`drift_tangent_batch`]'s arguments, run on the lane group the dispatch picks.
struct TangentBatch<'a> {
    mu: &'a [f64],
    inv_mu: &'a [f64],
    dt: f64,
    state: ([&'a [f64]; 3], [&'a [f64]; 3]),
    tangent: ([&'a [f64]; 3], [&'a [f64]; 3]),
    out: ([&'a mut [f64]; 3], [&'a mut [f64]; 3]),
    /// Bodies in full groups of [`GROUP`].
    full: usize,
}

impl<'a> LaneKernel for TangentBatch<'a> {
    type Output = TangentBatch<'a>;
    #[inline(always)]
    fn run<G: GroupIo>(mut self) -> Self::Output {
        for o in (0..self.full).step_by(GROUP) {
            tangent_group::<G, GROUP>(&mut self, o);
        }
        self
    }
}

/// The `W` bodies from `o` on, on the lane group `V`, the lanes it does not accept by the
/// scalar [`drift_tangent`].
#[inline(always)]
fn tangent_group<V: GroupIo<W>, const W: usize>(job: &mut TangentBatch<'_>, o: usize) {
    let (x, v) = job.state;
    let (dx, dv) = job.tangent;
    let tangent: ([V; 3], [V; 3]) = (load3(dx, o), load3(dv, o));
    let mass = (load::<V, W>(job.mu, o), load::<V, W>(job.inv_mu, o));
    let state = (load3(x, o), load3(v, o));
    let (tx, tv, ok) = drift_tangent_lanes(mass, job.dt, state, tangent);
    let (ox, ov) = &mut job.out;
    for c in 0..3 {
        store(ox[c], o, tx[c]);
        store(ov[c], o, tv[c]);
    }
    for (lane, ok) in V::mask_array(ok).into_iter().enumerate() {
        if ok {
            continue;
        }
        let i = o + lane;
        let before = (
            [dx[0][i], dx[1][i], dx[2][i]],
            [dv[0][i], dv[1][i], dv[2][i]],
        );
        let at = ([x[0][i], x[1][i], x[2][i]], [v[0][i], v[1][i], v[2][i]]);
        let (nx, nv) = scalar_tangent(job.mu[i], job.dt, at, before);
        for c in 0..3 {
            ox[c][i] = nx[c];
            ov[c][i] = nv[c];
        }
    }
}

/// The scalar [`drift_tangent`] of a lane the vector path does not accept: NaN where it fails
/// (never a silent wrong value).
fn scalar_tangent(
    mu: f64,
    dt: f64,
    state: ([f64; 3], [f64; 3]),
    tangent: ([f64; 3], [f64; 3]),
) -> ([f64; 3], [f64; 3]) {
    drift_tangent(mu, dt, state, tangent).unwrap_or(([f64::NAN; 3], [f64::NAN; 3]))
}

/// [`crate::physics::kepler::drift_batch_per_body_into`] of the bodies' states, and with it the
/// tangent map of every body's drift (`tangent` moved into `out`, as [`drift_tangent_batch`]
/// moves them, bit for bit) from the same solution of Kepler's equation: a lane group's tangent
/// map takes the drift's setup and root instead of solving again.
pub fn drift_with_tangent(
    (mu, inv_mu): (&[f64], &[f64]),
    dt: f64,
    (x, x_to): ([&[f64]; 3], [&mut [f64]; 3]),
    v: [&mut [f64]; 3],
    failed: &mut dyn FnMut(usize, KeplerError),
    (tangent, out): (Tangent<'_>, TangentOut<'_>),
) {
    assert!(mu.len() == x[0].len() && inv_mu.len() == mu.len());
    if !(dt.is_finite() && dt != 0.0) {
        // No lane groups: every body's tangent by the scalar drift, from the state before.
        for i in 0..mu.len() {
            let at = |a: [&[f64]; 3]| [a[0][i], a[1][i], a[2][i]];
            let state = (at(x), at([&*v[0], &*v[1], &*v[2]]));
            let (ox, ov) = scalar_tangent(mu[i], dt, state, (at(tangent.0), at(tangent.1)));
            for c in 0..3 {
                out.0[c][i] = ox[c];
                out.1[c][i] = ov[c];
            }
        }
    }
    let io = WithTangent {
        drift: Apart { x, x_to, v, failed },
        dt,
        tangent,
        out,
    };
    // The drift records its failures instead of returning them.
    let _ = drift_batch_with(PerBody(mu, inv_mu), dt, io);
}

/// Tangent positions and velocities, structure of arrays.
pub type Tangent<'a> = ([&'a [f64]; 3], [&'a [f64]; 3]);
/// Where moved tangent positions and velocities go.
pub type TangentOut<'a> = ([&'a mut [f64]; 3], [&'a mut [f64]; 3]);

/// [`drift_with_tangent`]'s drift: an [`Apart`] drift that moves the tangent vectors of each
/// lane group with the group's stages.
struct WithTangent<'a, 'f> {
    drift: Apart<'a, 'f>,
    dt: f64,
    tangent: Tangent<'a>,
    out: TangentOut<'a>,
}

impl DriftIo for WithTangent<'_, '_> {
    fn len(&self) -> usize {
        self.drift.len()
    }
    #[inline(always)]
    fn from(&self) -> [&[f64]; 6] {
        self.drift.from()
    }
    #[inline(always)]
    fn put(&mut self, i: usize, p: [f64; 3], v: [f64; 3]) {
        self.drift.put(i, p, v)
    }
    #[inline(always)]
    fn put_group<const L: usize>(&mut self, o: usize, p: [[f64; L]; 3], v: [[f64; L]; 3]) {
        self.drift.put_group(o, p, v)
    }
    fn fail(&mut self, i: usize, e: KeplerError) -> Result<(), (usize, KeplerError)> {
        self.drift.fail(i, e)
    }
    #[inline(always)]
    fn staged<const L: usize, G: GroupIo<L>>(
        &mut self,
        (o, m): (usize, usize),
        stages: (&DriftSetup<G>, &DriftRoot<G>),
        (mu, _): (G, G),
        state: ([G; 3], [G; 3]),
    ) {
        let at = |a: [&[f64]; 3]| a.map(|s| G::from_array(load_group::<L>(s, o, m)));
        let tangent = (at(self.tangent.0), at(self.tangent.1));
        let (tx, tv, ok) = tangent_from_root(stages, mu, self.dt, state, tangent);
        let (tx, tv) = (tx.map(G::to_array), tv.map(G::to_array));
        let ok = G::mask_array(ok);
        let (ox, ov) = &mut self.out;
        for c in 0..3 {
            ox[c][o..o + m].copy_from_slice(&tx[c][..m]);
            ov[c][o..o + m].copy_from_slice(&tv[c][..m]);
        }
        if ok[..m].iter().all(|&ok| ok) {
            return;
        }
        let lanes = |a: [G; 3], l: usize| a.map(|c| c.to_array()[l]);
        let mu = mu.to_array();
        let (px, pv) = state;
        for l in (0..m).filter(|&l| !ok[l]) {
            let (dx, dv) = (lanes(tangent.0, l), lanes(tangent.1, l));
            let (nx, nv) = scalar_tangent(mu[l], self.dt, (lanes(px, l), lanes(pv, l)), (dx, dv));
            for c in 0..3 {
                ox[c][o + l] = nx[c];
                ov[c][o + l] = nv[c];
            }
        }
    }
}
