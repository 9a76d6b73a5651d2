//! The drift of many bodies in lane groups (structure of arrays), with the scalar drift as the
//! fallback of lanes the vector path does not accept.

use super::scalar::{danby_step, drift_scalar, reduce_mean_anomaly, DANBY_K, ELLIPTIC_ACCEPT};
use super::sincos::{sin_cos_lanes, sin_cos_omc_lanes};
use super::KeplerError;
use crate::simd::lanes::{GroupIo, Lanes, GROUP};
use crate::simd::{dispatch_lanes, LaneKernel, NarrowKernel};

/// Bodies per lane group of [`drift_batch`] ([`GROUP`]): two AVX-512 vectors of f64, so that
/// every step of the (long, serial) Kepler solution has two independent vector chains in flight
/// (38% faster than one vector per group; four are slower again, from register spills).
pub(super) const BATCH_LANES: usize = GROUP;
/// Largest eccentricity [`drift_batch`] handles in its vector lanes; other bodies go through
/// [`drift_scalar`].
const BATCH_E_MAX: f64 = 0.9;
/// Upper bound on the vector iterations of Kepler's equation. From Danby's starting value (or
/// the series one for short steps, [`series_start`]), e < 0.9 and any |dm| <= pi need at most
/// 4 corrections to pass the [`ELLIPTIC_ACCEPT`] test (checked over a dense grid by the tests);
/// lanes still unconverged after this many go through [`drift_scalar`].
const BATCH_MAX_ITER: usize = 6;
/// Lane groups [`drift_batch`] runs stage by stage together (see `drift_batch_on`): 11.3 -> 8.4
/// ns per body for 2x10^4 bodies on one Zen 5 core (two or four alike, eight slower).
const STAGED: usize = 2;

/// Kepler drift of many bodies around a fixed central mass `mu` for time `dt`, in place on
/// structure-of-arrays slices (all of the same length). Serial; callers parallelise over chunks.
///
/// Bodies are processed in lane groups of 16 on the lane type [`crate::simd`] picks at run time
/// (two AVX-512 vectors, or arrays LLVM vectorises with AVX2 or SSE2; the bits are the same either
/// way); up to 8 bodies (one small system) take one narrow group of 4 or 8 lanes instead (see
/// [`NARROW_MAX`]). Each lane runs the elliptic method of [`drift_scalar`] (Gauss's f and g with
/// Danby's quartically convergent iteration for the change of eccentric anomaly `x` in `x - ec sin
/// x + es (1 - cos x) = n dt (mod 2 pi)`, Danby's starting value and the same `ELLIPTIC_ACCEPT`
/// test), with its products and sums fused where written (`mul_add`, one rounding: dot products,
/// the equation and its derivatives, f and g), and with sine, cosine and `1 - cos` from the
/// vectorisable [`sin_cos`] (within 1 ulp of the correctly rounded values in practice; see its
/// docs) instead of libm. The vector arithmetic spends few divisions and square roots, which
/// bound its throughput: short steps start from the series [`series_start`] (no division; the
/// first correction is usually accepted), `1 / r0` and `a / r0` come from one division, and
/// `1 / n` and `a / r` from another: 3 divisions and 2 square roots per body when the first
/// correction is accepted. The iteration is branch-free: every lane takes the correction of
/// every pass until it passes the acceptance test, after which its `x`, `sin x`, `cos x` and
/// `1 - cos x` are frozen; the group stops when all lanes are frozen or after
/// `BATCH_MAX_ITER` passes. A lane's result therefore depends on its own inputs only (not on
/// its neighbours or on how the slices are chunked), and the whole computation is deterministic.
///
/// Lanes the vector path does not accept, i.e. unbound or near-parabolic orbits,
/// `e >= 0.9`, an iteration that has not converged, a non-finite result, or invalid input, are
/// drifted by [`drift_scalar`], so their results are bitwise those of [`kepler_drift`]. A short
/// last group is padded with copies of its last body, so every body's result is independent of
/// how the bodies are grouped. Results of vector lanes agree with [`drift_scalar`] to
/// rounding (a few ulp of the state).
///
/// Errors: `Err((i, err))` for the first body `i` (in index order) whose scalar drift fails;
/// bodies before `i` have been drifted and bodies from `i` on are unchanged.
///
/// # Panics
/// If the slices do not all have the same length.
#[allow(clippy::too_many_arguments)]
pub fn drift_batch(
    mu: f64,
    dt: f64,
    x: &mut [f64],
    y: &mut [f64],
    z: &mut [f64],
    vx: &mut [f64],
    vy: &mut [f64],
    vz: &mut [f64],
) -> Result<(), (usize, KeplerError)> {
    let inv_mu = 1.0 / mu;
    drift_batch_with(Uniform(mu, inv_mu), dt, InPlace([x, y, z, vx, vy, vz]))
}

/// [`drift_batch`] with a central mass per body, `mu[i]` for body i, and its inverse
/// `inv_mu[i]` (bodies of different systems share lane groups). A body with `mu[i] == 0` is an
/// empty slot and is left unchanged.
pub fn drift_batch_per_body(
    mu: &[f64],
    inv_mu: &[f64],
    dt: f64,
    state: [&mut [f64]; 6],
) -> Result<(), (usize, KeplerError)> {
    assert!(mu.len() == state[0].len() && inv_mu.len() == mu.len());
    drift_batch_with(PerBody(mu, inv_mu), dt, InPlace(state))
}

/// [`drift_batch_per_body`] with the positions read from `x` and written to `x_to` (the
/// velocities `v` in place; every slice of the same length), going on past failures: a body
/// whose drift fails keeps its velocity, gets its position copied into `x_to` unchanged, and is
/// handed to `failed` (its index and the error, in index order); every other body drifts with
/// the bits [`drift_batch_per_body`] gives it. `x` is left as it was, so a caller can take back
/// the positions before the drift of whatever a failure touched (the Wisdom-Holman map puts a
/// system whose drift failed back to the start of its step; see
/// [`crate::physics::wisdom_holman::WhPack::step`]).
pub fn drift_batch_per_body_into(
    (mu, inv_mu): (&[f64], &[f64]),
    dt: f64,
    (x, x_to): ([&[f64]; 3], [&mut [f64]; 3]),
    v: [&mut [f64]; 3],
    failed: &mut dyn FnMut(usize, KeplerError),
) {
    assert!(mu.len() == x[0].len() && inv_mu.len() == mu.len());
    let apart = Apart { x, x_to, v, failed };
    // An `Apart` drift records its failures instead of returning them.
    let _ = drift_batch_with(PerBody(mu, inv_mu), dt, apart);
}

/// Where a batch drift reads its bodies and writes them, and what a failed body does: in place
/// ([`InPlace`], the first failure ends the drift) or with the positions written apart
/// ([`Apart`], failures are recorded and the drift goes on).
pub(super) trait DriftIo {
    /// Bodies.
    fn len(&self) -> usize;
    /// The state read, `[x, y, z, vx, vy, vz]`.
    fn from(&self) -> [&[f64]; 6];
    /// Write body `i`'s new position and velocity.
    fn put(&mut self, i: usize, p: [f64; 3], v: [f64; 3]);
    /// Write the bodies from `o` on (as many as the lanes).
    fn put_group<const L: usize>(&mut self, o: usize, p: [[f64; L]; 3], v: [[f64; L]; 3]);
    /// Body `i`'s drift failed with `e` (its state unchanged): `Err` ends the drift there.
    fn fail(&mut self, i: usize, e: KeplerError) -> Result<(), (usize, KeplerError)>;
    /// The lane group of the bodies from `o` on (`m` of them, the rest padding) before its
    /// results are written: its drift's stages, central masses `(mu, 1 / mu)` and state before
    /// the drift, for a tangent map that shares the solution of Kepler's equation
    /// ([`super::tangent_lanes`]). Nothing by default.
    #[inline(always)]
    fn staged<const L: usize, G: GroupIo<L>>(
        &mut self,
        _at: (usize, usize),
        _stages: (&DriftSetup<G>, &DriftRoot<G>),
        _mass: (G, G),
        _state: ([G; 3], [G; 3]),
    ) {
    }
}

/// The drift of a state in place (the first failure ends it).
struct InPlace<'a>([&'a mut [f64]; 6]);

impl DriftIo for InPlace<'_> {
    fn len(&self) -> usize {
        self.0[0].len()
    }
    #[inline(always)]
    fn from(&self) -> [&[f64]; 6] {
        let [x, y, z, vx, vy, vz] = &self.0;
        [x, y, z, vx, vy, vz]
    }
    #[inline(always)]
    fn put(&mut self, i: usize, p: [f64; 3], v: [f64; 3]) {
        for c in 0..3 {
            self.0[c][i] = p[c];
            self.0[3 + c][i] = v[c];
        }
    }
    #[inline(always)]
    fn put_group<const L: usize>(&mut self, o: usize, p: [[f64; L]; 3], v: [[f64; L]; 3]) {
        for c in 0..3 {
            self.0[c][o..o + L].copy_from_slice(&p[c]);
            self.0[3 + c][o..o + L].copy_from_slice(&v[c]);
        }
    }
    fn fail(&mut self, i: usize, e: KeplerError) -> Result<(), (usize, KeplerError)> {
        Err((i, e))
    }
}

/// The drift of the positions `x` into `x_to` and of the velocities `v` in place, its failures
/// handed to `failed`.
pub(super) struct Apart<'a, 'f> {
    pub(super) x: [&'a [f64]; 3],
    pub(super) x_to: [&'a mut [f64]; 3],
    pub(super) v: [&'a mut [f64]; 3],
    pub(super) failed: &'f mut dyn FnMut(usize, KeplerError),
}

impl DriftIo for Apart<'_, '_> {
    fn len(&self) -> usize {
        self.x[0].len()
    }
    #[inline(always)]
    fn from(&self) -> [&[f64]; 6] {
        let [x, y, z] = self.x;
        let [vx, vy, vz] = &self.v;
        [x, y, z, vx, vy, vz]
    }
    #[inline(always)]
    fn put(&mut self, i: usize, p: [f64; 3], v: [f64; 3]) {
        for c in 0..3 {
            self.x_to[c][i] = p[c];
            self.v[c][i] = v[c];
        }
    }
    #[inline(always)]
    fn put_group<const L: usize>(&mut self, o: usize, p: [[f64; L]; 3], v: [[f64; L]; 3]) {
        for c in 0..3 {
            self.x_to[c][o..o + L].copy_from_slice(&p[c]);
            self.v[c][o..o + L].copy_from_slice(&v[c]);
        }
    }
    fn fail(&mut self, i: usize, e: KeplerError) -> Result<(), (usize, KeplerError)> {
        for c in 0..3 {
            self.x_to[c][i] = self.x[c][i];
        }
        (self.failed)(i, e);
        Ok(())
    }
}

/// Where the drift finds the central mass `mu_i` of body i and its inverse.
pub(super) trait CentralMass: Copy {
    /// `(mu_i, 1 / mu_i)`.
    fn at(self, i: usize) -> (f64, f64);
    /// `(mu, 1 / mu)` of the lane group of `L` bodies starting at `o`, of which `m` exist (a
    /// short group padded with its last body, as [`load_group`] pads the state).
    fn lanes<const L: usize>(self, o: usize, m: usize) -> ([f64; L], [f64; L]);
}

/// One central mass for every body.
#[derive(Clone, Copy)]
struct Uniform(f64, f64);

impl CentralMass for Uniform {
    #[inline(always)]
    fn at(self, _: usize) -> (f64, f64) {
        (self.0, self.1)
    }
    #[inline(always)]
    fn lanes<const L: usize>(self, _: usize, _: usize) -> ([f64; L], [f64; L]) {
        ([self.0; L], [self.1; L])
    }
}

/// A central mass per body (slices as long as the state's).
#[derive(Clone, Copy)]
pub(super) struct PerBody<'a>(pub(super) &'a [f64], pub(super) &'a [f64]);

impl CentralMass for PerBody<'_> {
    #[inline(always)]
    fn at(self, i: usize) -> (f64, f64) {
        (self.0[i], self.1[i])
    }
    #[inline(always)]
    fn lanes<const L: usize>(self, o: usize, m: usize) -> ([f64; L], [f64; L]) {
        (load_group::<L>(self.0, o, m), load_group::<L>(self.1, o, m))
    }
}

/// Bodies up to which the batch drift takes narrow lane groups: one small system, where a group
/// of [`BATCH_LANES`] would mostly drift padding. Up to 4 bodies take one AVX vector, up to 8
/// two ([`crate::simd::lanes::Avx2`]), or the portable [`crate::simd::lanes::Wide`] groups
/// of 4 and 8 lanes without AVX.
const NARROW_MAX: usize = 8;

/// The batch drift with `mu.at(i) = (mu_i, 1 / mu_i)` of body i, at the run-time SIMD level. A few
/// bodies (at most [`NARROW_MAX`], one small system) take one narrow lane group
/// ([`crate::simd::dispatch_narrow`]), more take groups of [`BATCH_LANES`]
/// ([`crate::simd::dispatch_lanes`]); a lane's arithmetic is that of any width, so the bits are
/// the same.
pub(super) fn drift_batch_with(
    mu: impl CentralMass,
    dt: f64,
    io: impl DriftIo,
) -> Result<(), (usize, KeplerError)> {
    let n = io.len();
    let drift = Drift { mu, dt, io };
    if n <= NARROW_MAX {
        return crate::simd::dispatch_narrow(n, drift);
    }
    dispatch_lanes(drift)
}

/// The batch drift's arguments, run on the lane group a dispatch picks.
struct Drift<M, Io> {
    mu: M,
    dt: f64,
    io: Io,
}

impl<M: CentralMass, Io: DriftIo> LaneKernel for Drift<M, Io> {
    type Output = Result<(), (usize, KeplerError)>;
    #[inline(always)]
    fn run<G: GroupIo>(self) -> Self::Output {
        drift_batch_on::<BATCH_LANES, G>(self.mu, self.dt, self.io)
    }
}

impl<M: CentralMass, Io: DriftIo> NarrowKernel for Drift<M, Io> {
    type Output = Result<(), (usize, KeplerError)>;
    #[inline(always)]
    fn run<const W: usize, V: GroupIo<W>>(self) -> Self::Output {
        drift_batch_on::<W, V>(self.mu, self.dt, self.io)
    }
}

#[inline(always)]
fn drift_batch_on<const L: usize, G: GroupIo<L>>(
    mu: impl CentralMass,
    dt: f64,
    mut io: impl DriftIo,
) -> Result<(), (usize, KeplerError)> {
    let n = io.len();
    assert!(
        io.from().iter().all(|s| s.len() == n),
        "drift_batch: slices of different lengths"
    );
    // dt = 0 and an invalid dt: the scalar path returns the input or the error.
    let vector = dt.is_finite() && dt != 0.0;
    let groups = if vector { n.div_ceil(L) } else { 0 };
    // A short last group is padded with copies of its last body (`group_state`): every body
    // takes the same lane arithmetic whatever its position, so results do not depend on
    // chunking. The groups run stage by stage in batches of `STAGED`: one group's Kepler solution is a
    // long chain of dependent operations, and the stages of neighbouring groups are independent
    // of each other, so the core overlaps them. Each lane's arithmetic is that of
    // `drift_group`.
    let zero = G::splat(0.0);
    let mut setups = [drift_setup(zero, zero, 1.0, [zero; 3], [zero; 3]); STAGED];
    let mut roots = [drift_solve(&setups[0]); STAGED];
    for batch in (0..groups).step_by(STAGED) {
        let ks = batch..(batch + STAGED).min(groups);
        for k in ks.clone() {
            let (lane_mu, lane_inv_mu) = mu.lanes::<L>(k * L, L.min(n - k * L));
            let (pos, vel) = group_state::<L, G>(k, io.from());
            setups[k - batch] = drift_setup(
                G::from_array(lane_mu),
                G::from_array(lane_inv_mu),
                dt,
                pos,
                vel,
            );
        }
        for k in ks.clone() {
            roots[k - batch] = drift_solve(&setups[k - batch]);
        }
        for k in ks {
            let (o, m) = (k * L, L.min(n - k * L));
            let (lane_mu, lane_inv_mu) = mu.lanes::<L>(o, m);
            let (pos, vel) = group_state::<L, G>(k, io.from());
            let stages = (&setups[k - batch], &roots[k - batch]);
            let (p, v, ok) = drift_finish(stages.0, stages.1, pos, vel);
            let mass = (G::from_array(lane_mu), G::from_array(lane_inv_mu));
            io.staged::<L, G>((o, m), stages, mass, (pos, vel));
            let p = [p[0].to_array(), p[1].to_array(), p[2].to_array()];
            let v = [v[0].to_array(), v[1].to_array(), v[2].to_array()];
            let ok = G::mask_array(ok);
            let valid = |l: usize| (lane_mu[l] > 0.0) & lane_mu[l].is_finite();
            // Without short cuts, so the test is vector code.
            let all_taken = (0..L).fold(m == L, |all, l| all & ok[l] & valid(l));
            if all_taken {
                io.put_group(o, p, v);
            } else {
                for l in 0..m {
                    if ok[l] & valid(l) {
                        io.put(o + l, p.map(|c| c[l]), v.map(|c| c[l]));
                    } else {
                        drift_one(mu, dt, o + l, &mut io)?;
                    }
                }
            }
        }
    }
    if !vector {
        for i in 0..n {
            drift_one(mu, dt, i, &mut io)?;
        }
    }
    Ok(())
}

/// The scalar drift ([`drift_scalar`]) of body `i` of `io`: an empty slot (`mu_i = 0`) is
/// left unchanged, a failure goes to [`DriftIo::fail`].
fn drift_one(
    mu: impl CentralMass,
    dt: f64,
    i: usize,
    io: &mut impl DriftIo,
) -> Result<(), (usize, KeplerError)> {
    let [x, y, z, vx, vy, vz] = io.from();
    let (p0, v0) = ([x[i], y[i], z[i]], [vx[i], vy[i], vz[i]]);
    let mu_i = mu.at(i).0;
    if mu_i == 0.0 {
        io.put(i, p0, v0);
        return Ok(());
    }
    match drift_scalar(mu_i, dt, p0, v0) {
        Ok((p, v)) => {
            io.put(i, p, v);
            Ok(())
        }
        Err(e) => io.fail(i, e),
    }
}

/// Positions and velocities of lane group `k` of the state `[x, y, z, vx, vy, vz]` (see
/// [`load_group`]).
#[inline(always)]
fn group_state<const L: usize, G: GroupIo<L>>(k: usize, state: [&[f64]; 6]) -> ([G; 3], [G; 3]) {
    let (o, n) = (k * L, state[0].len());
    let at = |s: &[f64]| G::from_array(load_group::<L>(s, o, L.min(n - o)));
    let [x, y, z, vx, vy, vz] = state;
    ([at(x), at(y), at(z)], [at(vx), at(vy), at(vz)])
}

/// The lane group of `s` starting at `o`, of which `m` bodies exist: a short last group is
/// padded with copies of its last body.
#[inline(always)]
pub(super) fn load_group<const L: usize>(s: &[f64], o: usize, m: usize) -> [f64; L] {
    match s.get(o..o + L) {
        Some(full) => full.try_into().expect("a full lane group"),
        None => {
            let mut a = [0.0; L];
            for l in 0..L {
                a[l] = s[o + l.min(m - 1)];
            }
            a
        }
    }
}

/// Position, velocity and acceptance mask of one lane group of `L` lanes.
#[cfg(test)]
type GroupDrift<const L: usize> = ([[f64; L]; 3], [[f64; L]; 3], [bool; L]);

/// The vector path of [`drift_batch`] for one group of lanes on the lane group `G` of `L`
/// lanes: see [`drift_group`].
#[cfg(test)]
#[inline(always)]
pub(super) fn drift_lanes<const L: usize, G: GroupIo<L>>(
    mu: [f64; L],
    inv_mu: [f64; L],
    dt: f64,
    pos: [[f64; L]; 3],
    vel: [[f64; L]; 3],
) -> GroupDrift<L> {
    let (p, v, ok) = drift_group(
        G::from_array(mu),
        G::from_array(inv_mu),
        dt,
        pos.map(G::from_array),
        vel.map(G::from_array),
    );
    (p.map(G::to_array), v.map(G::to_array), G::mask_array(ok))
}

/// The elliptic f and g of [`elliptic_fg`] on every lane of `V`, with [`sin_cos`]. `mu > 0` and
/// `dt` finite and non-zero. Lanes with `false` in the mask must be redone by [`drift_scalar`];
/// their values are garbage. The composition of its three stages, [`drift_setup`],
/// [`drift_solve`] and [`drift_finish`] (`drift_batch` runs the stages of a few groups at a
/// time); the tests' reference for one lane group.
#[cfg(test)]
#[inline(always)]
pub(crate) fn drift_group<V: Lanes>(
    mu: V,
    inv_mu: V,
    dt: f64,
    pos: [V; 3],
    vel: [V; 3],
) -> ([V; 3], [V; 3], V::Mask) {
    let setup = drift_setup(mu, inv_mu, dt, pos, vel);
    let solved = drift_solve(&setup);
    drift_finish(&setup, &solved, pos, vel)
}

/// What [`drift_setup`] hands to the later stages of [`drift_group`].
#[derive(Clone, Copy)]
pub(crate) struct DriftSetup<V: Lanes> {
    /// Lanes the vector path handles (bound, e < [`BATCH_E_MAX`], finite).
    pub(super) ok: V::Mask,
    /// `a / r0`, the semi-major axis over the starting distance.
    a_over_r0: V,
    /// The mean motion.
    pub(super) n: V,
    /// `e cos E0` and `e sin E0`.
    ec: V,
    es: V,
    /// The change of mean anomaly, reduced to [-pi, pi].
    dm: V,
    /// The starting value of the change of eccentric anomaly.
    x0: V,
}

/// The root of Kepler's equation found by [`drift_solve`]: `x` with its sine, cosine and
/// `1 - cos x`, and the lanes that converged.
#[derive(Clone, Copy)]
pub(crate) struct DriftRoot<V: Lanes> {
    pub(super) x: V,
    pub(super) sin: V,
    pub(super) cos: V,
    pub(super) one_minus_cos: V,
    pub(super) converged: V::Mask,
}

/// The first stage of [`drift_group`]: the orbit's elements and the starting value of Kepler's
/// equation.
#[inline(always)]
pub(crate) fn drift_setup<V: Lanes>(
    mu: V,
    inv_mu: V,
    dt: f64,
    pos: [V; 3],
    vel: [V; 3],
) -> DriftSetup<V> {
    let k = V::splat;
    let [x, y, z] = pos;
    let [vx, vy, vz] = vel;
    let r0 = z.mul_add(z, y.mul_add(y, x * x)).sqrt();
    let v2 = vz.mul_add(vz, vy.mul_add(vy, vx * vx));
    let u = z.mul_add(vz, y.mul_add(vy, x * vx));
    // e cos E0 = r0 v0^2 / mu - 1 and r0 / a = 1 - e cos E0; 1 / r0 and a / r0 from one
    // division.
    let ec = (r0 * v2).mul_add(inv_mu, k(-1.0));
    let r0_over_a = k(1.0) - ec;
    let inv = k(1.0) / (r0 * r0_over_a);
    let inv_r0 = r0_over_a * inv;
    let a_over_r0 = r0 * inv;
    let alpha = r0_over_a * inv_r0;
    let w = (mu * alpha).sqrt();
    let n = alpha * w;
    let es = u * w * inv_mu;
    let e2 = es.mul_add(es, ec * ec);
    // NaN-safe: false for any non-finite or unbound input.
    let ok = alpha.gt(k(0.0))
        & r0.gt(k(0.0))
        & v2.is_finite()
        & r0.is_finite()
        & e2.lt(k(BATCH_E_MAX * BATCH_E_MAX));
    let dm = reduce_mean_anomaly(n * k(dt));
    // The series start for short steps, otherwise Danby's, which needs sin and cos of dm - es
    // (skipped if no lane uses it).
    let (mut xa, series) = series_start(ec, es, a_over_r0, dm);
    if V::any(ok & !series) {
        let ya = dm - es;
        let (sy, cy) = sin_cos_lanes(ya);
        let xd = ya + (k(DANBY_K) * e2.sqrt()).copysign(es.mul_add(cy, ec * sy));
        xa = V::select(series, xa, xd);
    }
    DriftSetup {
        ok,
        a_over_r0,
        n,
        ec,
        es,
        dm,
        x0: xa,
    }
}

/// Largest `|t|`, `t = dm a / r0`, and `|A t|`, `A = es a / (2 r0)`, for which [`series_start`]
/// is taken: over random orbits with e < 0.9 and |dm| <= pi, Danby's iteration then needs at
/// most 4 corrections, as from Danby's start (1.47 on average against 1.77 for the quadratic
/// start that came before; checked by the tests over a dense grid).
const SERIES_T_MAX: f64 = 0.6;
/// See [`SERIES_T_MAX`].
const SERIES_AT_MAX: f64 = 0.25;

/// The starting value of Kepler's equation `x - ec sin x + es (1 - cos x) = dm` for short
/// steps, without a division or a square root: divided by `r0/a = 1 - ec` it reads
/// `x + A x^2 + B x^3 + C x^4 + D x^5 + ... = t` with `t = dm a/r0`, `A = es a/(2 r0)`,
/// `B = ec a/(6 r0)`, `C = -es a/(24 r0)`, `D = -ec a/(120 r0)`, whose inverse series is
/// `x = t - A t^2 + (2A^2 - B) t^3 + (5A(B - A^2) - C) t^4 + (14A^4 - 21A^2 B + 6AC + 3B^2 - D) t^5
/// + O(t^6)`. Its error is below 10^-6 for the Earth at dt = 5 days, so one correction of
/// Danby's iteration is accepted; the mask is that of the lanes where it is taken
/// ([`SERIES_T_MAX`], [`SERIES_AT_MAX`]).
#[inline(always)]
pub(super) fn series_start<V: Lanes>(ec: V, es: V, a_over_r0: V, dm: V) -> (V, V::Mask) {
    let k = V::splat;
    let t = dm * a_over_r0;
    let a1 = k(0.5) * es * a_over_r0;
    let b = k(1.0 / 6.0) * ec * a_over_r0;
    let c = k(-1.0 / 24.0) * es * a_over_r0;
    let d = k(-1.0 / 120.0) * ec * a_over_r0;
    let a_sq = a1 * a1;
    let c3 = k(2.0).mul_add(a_sq, -b);
    let c4 = (k(5.0) * a1).mul_add(b - a_sq, -c);
    let c5 = a_sq.mul_add(
        k(14.0).mul_add(a_sq, k(-21.0) * b),
        (k(6.0) * a1).mul_add(c, (k(3.0) * b).mul_add(b, -d)),
    );
    let x = t * t.mul_add(t.mul_add(t.mul_add(t.mul_add(c5, c4), c3), -a1), k(1.0));
    let taken = t.abs().lt(k(SERIES_T_MAX)) & (a1 * t).abs().lt(k(SERIES_AT_MAX));
    (x, taken)
}

/// The second stage of [`drift_group`]: Danby's iteration. Lanes freeze once accepted, and
/// lanes the vector path does not handle start frozen.
#[inline(always)]
pub(crate) fn drift_solve<V: Lanes>(setup: &DriftSetup<V>) -> DriftRoot<V> {
    let k = V::splat;
    let DriftSetup { ok, ec, es, dm, .. } = *setup;
    let mut xa = setup.x0;
    let (mut sa, mut ca, mut oa) = (k(0.0), k(0.0), k(0.0));
    let mut done = !ok;
    let mut conv = V::none();
    for _ in 0..BATCH_MAX_ITER {
        if V::all(done) {
            break;
        }
        let [s, c, omc] = sin_cos_omc_lanes(xa);
        let ecs = ec * s;
        let esc = es * c;
        let f = es.mul_add(omc, xa - ecs) - dm;
        let fp = es.mul_add(s, (-ec).mul_add(c, k(1.0)));
        let dx = danby_step(f, fp, ecs + esc, ec.mul_add(c, -(es * s)));
        let accept = dx.abs().le(k(0.5 * ELLIPTIC_ACCEPT) * fp);
        let h2 = k(0.5) * dx * dx;
        let h3 = h2 * dx * k(1.0 / 3.0);
        let active = !done;
        xa = V::select(active, xa + dx, xa);
        let taken = active & accept;
        let s_new = (-c).mul_add(h3, (-s).mul_add(h2, c.mul_add(dx, s)));
        let c_new = s.mul_add(h3, (-c).mul_add(h2, (-s).mul_add(dx, c)));
        let omc_new = (-s).mul_add(h3, c.mul_add(h2, s.mul_add(dx, omc)));
        sa = V::select(taken, s_new, sa);
        ca = V::select(taken, c_new, ca);
        oa = V::select(taken, omc_new, oa);
        conv = conv | taken;
        done = done | accept | !xa.is_finite();
    }
    DriftRoot {
        x: xa,
        sin: sa,
        cos: ca,
        one_minus_cos: oa,
        converged: conv,
    }
}

/// The last stage of [`drift_group`]: Gauss's f and g applied to the state.
#[inline(always)]
pub(crate) fn drift_finish<V: Lanes>(
    setup: &DriftSetup<V>,
    root: &DriftRoot<V>,
    pos: [V; 3],
    vel: [V; 3],
) -> ([V; 3], [V; 3], V::Mask) {
    let k = V::splat;
    let [x, y, z] = pos;
    let [vx, vy, vz] = vel;
    let DriftSetup {
        ok,
        a_over_r0,
        n,
        ec,
        es,
        dm,
        ..
    } = *setup;
    let DriftRoot {
        x: xa,
        sin: sa,
        cos: ca,
        one_minus_cos: one_minus_c,
        converged: conv,
    } = *root;
    // r / a = 1 - ec cos x + es sin x; 1 / n and a / r from one division.
    let r_over_a = es.mul_add(sa, (-ec).mul_add(ca, k(1.0)));
    let inv = k(1.0) / (n * r_over_a);
    let inv_n = r_over_a * inv;
    let a_over_r = n * inv;
    // f - 1 and gdot - 1: the new state is the old one plus a change, so that their rounding is
    // that of the small parts (Brouwer's law; see the module docs).
    let f_minus_1 = -a_over_r0 * one_minus_c;
    let g = (dm + (sa - xa)) * inv_n;
    let fdot = -(a_over_r0 * n) * sa * a_over_r;
    let gdot_minus_1 = -a_over_r * one_minus_c;
    let p = [
        x + g.mul_add(vx, f_minus_1 * x),
        y + g.mul_add(vy, f_minus_1 * y),
        z + g.mul_add(vz, f_minus_1 * z),
    ];
    let v = [
        vx + gdot_minus_1.mul_add(vx, fdot * x),
        vy + gdot_minus_1.mul_add(vy, fdot * y),
        vz + gdot_minus_1.mul_add(vz, fdot * z),
    ];
    let mut finite = !V::none();
    for c in 0..3 {
        finite = finite & p[c].is_finite() & v[c].is_finite();
    }
    // The accepted root lies within pi + 2 e of 0; the bound guards sin_cos's range.
    (p, v, ok & conv & xa.abs().lt(k(8.0)) & finite)
}
