//! First-order variational equations of the map and the chaos indicators built on them: MEGNO
//! (Cincotta & Simó 2000) and the maximal Lyapunov exponent, with REBOUND's definitions
//! (`reb_tools_megno_update`), so that the numbers mean the same.
//!
//! Each system carries a tangent vector `(dx', dv')` in Jacobi coordinates beside its state,
//! moved by the tangent map of the same step (Mikkola & Innanen 1999; Rein & Tamayo 2016 for
//! WHFast): the kick's by the Hessian of the interaction potential, `dv'_k += h (T dx)'_k`, with
//! the tidal tensor `T_ij dd = m_j (dd / r^3 - 3 d (d . dd) / r^5)` of each pair the kick takes
//! (every pair but the centre-first one, plus the Kepler terms of Jacobi bodies 2 and up) and
//! the Jacobian of the central body's GR potential and J2 when on
//! ([`crate::physics::forces::potential_accel_tangent`]), and the drift's by the Kepler drift's
//! Jacobian ([`crate::physics::kepler::drift_tangent`]). The
//! Jacobi transform is linear, so tangent vectors transform as the state does.
//!
//! MEGNO needs `delta . d(delta)/dt / |delta|^2` at a synchronised state: REBOUND takes it at
//! the end of each step (after synchronising); here it is taken at each
//! step's kick, half a step into it, with the tangent velocity the mean of those before and
//! after the kick (the leapfrog's velocity there, to second order) and the tangent acceleration
//! of the full inertial gravity (the central body's pairs included), summed over every body in
//! inertial coordinates as REBOUND sums its variational particles. Then, per step of `dt` with
//! its kick at time `t` (from the variations' start): `Y_s += 2 t dt ratio`, `Y = Y_s / t`, `<Y> += Y dt`, and the
//! running covariance of `(t, <Y>/t)` and variance of `t`; MEGNO is `<Y>/t` and the Lyapunov
//! exponent their ratio (REBOUND's convention: the slope of MEGNO, half the tangent vector's
//! growth rate). The running sums are REBOUND's line for line; the sample's place differs as
//! said, which changes no long-time value. A tangent vector is rescaled when its length leaves `[1e-100, 1e100]`
//! (the equations are linear and MEGNO depends on its direction only).

use super::jacobi::{self, Masses};
use super::kick::{kick_bodies, KeplerTerm};
use super::pairs::{apart, pair_sums, PairTerm};
use super::potential::CentralPotential;
use super::watch::{
    append_lanes, append_xyz, body_values, muts, refs, retain_lanes, retain_xyz, set_bodies, xyz,
    LaneStop, Xyz,
};
use crate::physics::kepler::{Tangent, TangentOut};
use crate::rng::Rng;
use crate::simd::lanes::{dot3, load3, GroupIo, Lanes};

/// MEGNO below which a system counts as regular in a stability map (REBOUND's MEGNO-map example's
/// classes).
pub const MEGNO_REGULAR_BELOW: f64 = 2.5;
/// MEGNO above which a system counts as chaotic; between the two it is undecided.
pub const MEGNO_CHAOTIC_ABOVE: f64 = 4.0;

/// The class of a MEGNO value: 0 regular (below [`MEGNO_REGULAR_BELOW`]), 1 undecided, 2
/// chaotic (above [`MEGNO_CHAOTIC_ABOVE`], or not a number: a lost system).
pub fn megno_class(megno: f64) -> usize {
    if megno < MEGNO_REGULAR_BELOW {
        0
    } else if megno <= MEGNO_CHAOTIC_ABOVE {
        1
    } else {
        2
    }
}

/// REBOUND's running sums of MEGNO for one system (`megno_Ys`, `megno_Yss`, `megno_cov_Yt`,
/// `megno_var_t`, `megno_mean_t`, `megno_mean_Y`, `megno_n`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct MegnoSums {
    /// The time the variations have run (from their start).
    elapsed: f64,
    /// The time of the last sample, at the last step's kick.
    t: f64,
    ys: f64,
    yss: f64,
    cov_yt: f64,
    var_t: f64,
    mean_t: f64,
    mean_y: f64,
    n: u64,
}

impl MegnoSums {
    /// Add a step of length `dt` with the ratio `delta . d(delta)/dt / |delta|^2` sampled at its
    /// kick, half-way through it.
    pub fn add(&mut self, dt: f64, ratio: f64) {
        let t = self.elapsed + 0.5 * dt;
        self.elapsed += dt;
        self.t = t;
        self.ys += 2.0 * t * dt * ratio;
        let y = self.ys / t;
        self.yss += y * dt;
        self.n += 1;
        let n = self.n as f64;
        self.mean_t += (t - self.mean_t) / n;
        let megno = self.megno();
        self.mean_y += (megno - self.mean_y) / n;
        let w = (n - 1.0) / n;
        self.cov_yt += w * (t - self.mean_t) * (megno - self.mean_y);
        self.var_t += w * (t - self.mean_t) * (t - self.mean_t);
    }

    /// Values of the sums, as a checkpoint keeps them ([`MegnoSums::from_values`]; the count
    /// as an `f64`, exact below 2^53 steps).
    pub fn values(&self) -> [f64; 9] {
        [
            self.elapsed,
            self.t,
            self.ys,
            self.yss,
            self.cov_yt,
            self.var_t,
            self.mean_t,
            self.mean_y,
            self.n as f64,
        ]
    }

    /// The sums of [`MegnoSums::values`] as a slice (a checkpoint's entry of a stopped
    /// system); `None` for another length or a count that is not a whole number.
    pub fn from_slice(v: &[f64]) -> Option<Self> {
        <[f64; 9]>::try_from(v).ok().and_then(Self::from_values)
    }

    /// The sums of [`MegnoSums::values`]; `None` for a count that is not a whole number.
    pub fn from_values(v: [f64; 9]) -> Option<Self> {
        let [elapsed, t, ys, yss, cov_yt, var_t, mean_t, mean_y, n] = v;
        let whole = n >= 0.0 && n.fract() == 0.0 && n < 2f64.powi(53);
        whole.then_some(MegnoSums {
            elapsed,
            t,
            ys,
            yss,
            cov_yt,
            var_t,
            mean_t,
            mean_y,
            n: n as u64,
        })
    }

    /// The time of the last sample, at the last step's kick, from the variations' start (code
    /// units).
    pub fn sampled_at(&self) -> f64 {
        self.t
    }

    /// MEGNO `<Y>` at the last sample (0 before the first).
    pub fn megno(&self) -> f64 {
        if self.t == 0.0 {
            0.0
        } else {
            self.yss / self.t
        }
    }

    /// The maximal Lyapunov exponent, per code time unit, as REBOUND's `lyapunov()`: the slope
    /// of MEGNO against time (Cincotta & Simó 2000, eq. 24; 0 before two steps). MEGNO grows as
    /// `lambda t / 2` for a tangent vector that grows as `exp(lambda t)`, so this is half of
    /// that growth rate, as REBOUND's is (measured once on a chaotic Jupiter-Saturn: 1.28e-3
    /// against a growth of 2.86e-3 per code unit).
    pub fn lyapunov(&self) -> f64 {
        if self.var_t == 0.0 {
            0.0
        } else {
            self.cov_yt / self.var_t
        }
    }
}

/// The variations as a device takes them ([`Variations::view`]; [`super::ResidentPack`]).
#[derive(Debug, Clone, Copy)]
pub struct VariationsView<'a> {
    /// Jacobi tangent positions and velocities, body-major.
    pub dx: &'a Xyz,
    pub dv: &'a Xyz,
    /// Per system, the MEGNO sums.
    pub sums: &'a [MegnoSums],
    /// The stop on MEGNO: above `.0` once the variations have run for `.1` (code units).
    pub stop: Option<(f64, f64)>,
}

/// What a device writes back into the variations.
#[derive(Debug)]
pub struct VariationsParts<'a> {
    pub dx: &'a mut Xyz,
    pub dv: &'a mut Xyz,
    pub sums: &'a mut [MegnoSums],
}

/// The tangent vectors of a pack's systems (body-major, the pack's layout) and their MEGNO sums.
#[derive(Debug, Clone)]
pub struct Variations {
    /// Jacobi tangent positions and velocities.
    pub(super) dx: Xyz,
    pub(super) dv: Xyz,
    /// Per system, the running sums.
    pub(super) sums: Vec<MegnoSums>,
    /// The tangent vectors before the last step (the step writes its new ones apart and swaps
    /// them in), and the sums, for a system whose drift failed.
    before: (Xyz, Xyz),
    kept_sums: Vec<MegnoSums>,
    /// Stop a system whose MEGNO exceeds `.0` once the variations have run for `.1` (code
    /// units; [`Variations::stop_above`]).
    stop: Option<(f64, f64)>,
    /// Scratch: inertial positions, tangent positions, the mean tangent velocities of the
    /// kick, tangent accelerations; Jacobi tangent accelerations, then the mean tangent
    /// velocities, then the drift's new tangent velocities.
    p: Xyz,
    dp: Xyz,
    du: Xyz,
    da: Xyz,
    w: Xyz,
    /// Scratch: per system, sums over its bodies (MEGNO's sample, the tangent vector's length).
    per_system: (Vec<f64>, Vec<f64>),
}

impl Variations {
    /// Keep only the systems `keep` marks (see [`super::WhPack::retain_systems`]).
    pub(super) fn retain_systems(&mut self, keep: &[bool]) {
        let scratch = [
            &mut self.before.0,
            &mut self.before.1,
            &mut self.p,
            &mut self.dp,
            &mut self.du,
            &mut self.da,
            &mut self.w,
        ];
        for a in [&mut self.dx, &mut self.dv].into_iter().chain(scratch) {
            retain_xyz(a, keep);
        }
        retain_lanes(&mut self.sums, keep);
        retain_lanes(&mut self.kept_sums, keep);
    }

    /// The systems of `other` (`lb` of them) after this one's `la` (see
    /// [`super::WhPack::append_systems`]).
    pub(super) fn append_systems(&mut self, la: usize, other: &Variations, lb: usize) {
        let pairs = [
            (&mut self.dx, &other.dx),
            (&mut self.dv, &other.dv),
            (&mut self.before.0, &other.before.0),
            (&mut self.before.1, &other.before.1),
            (&mut self.p, &other.p),
            (&mut self.dp, &other.dp),
            (&mut self.du, &other.du),
            (&mut self.da, &other.da),
            (&mut self.w, &other.w),
        ];
        for (a, b) in pairs {
            append_xyz(a, la, b, lb);
        }
        append_lanes(&mut self.sums, la, &other.sums, lb);
        append_lanes(&mut self.kept_sums, la, &other.kept_sums, lb);
    }

    /// Per system, the MEGNO sums.
    pub fn sums(&self) -> &[MegnoSums] {
        &self.sums
    }

    /// The tangent vectors, sums and stop as a device takes them.
    pub(super) fn view(&self) -> VariationsView<'_> {
        VariationsView {
            dx: &self.dx,
            dv: &self.dv,
            sums: &self.sums,
            stop: self.stop,
        }
    }

    /// The tangent vectors and sums a device writes back.
    pub(super) fn parts(&mut self) -> VariationsParts<'_> {
        VariationsParts {
            dx: &mut self.dx,
            dv: &mut self.dv,
            sums: &mut self.sums,
        }
    }

    /// Stop each system whose MEGNO sampled at `after` (code units from the variations' start)
    /// or later exceeds `megno`, with the event [`LaneStop::Chaotic`].
    pub(super) fn stop_above(&mut self, megno: f64, after: f64) {
        self.stop = Some((megno, after));
    }

    /// The systems that the stop on MEGNO ends at this step (those without an event yet); the
    /// event falls at the step's kick, where MEGNO is sampled (so no later event of the step's
    /// drift can be earlier).
    pub(super) fn check_stop(&self, stops: &mut [Option<LaneStop>], when: &mut [f64]) {
        let Some((above, after)) = self.stop else {
            return;
        };
        for (s, sums) in self.sums.iter().enumerate() {
            let megno = sums.megno();
            if stops[s].is_none() && sums.t >= after && megno > above {
                stops[s] = Some(LaneStop::Chaotic(megno));
                when[s] = 0.0;
            }
        }
    }

    /// System `s`'s tangent vector (Jacobi, per body `dx dy dz dvx dvy dvz`) and sums, as a
    /// checkpoint keeps them after the map state ([`Variations::set_system`]).
    pub(super) fn system_values(&self, s: usize) -> impl Iterator<Item = f64> + '_ {
        body_values((&self.dx, &self.dv), s, self.sums.len()).chain(self.sums[s].values())
    }

    /// Set system `s`'s tangent vector and sums from [`Variations::system_values`]' values
    /// (`6 n + 9` of them); `false` when they do not fit.
    pub(super) fn set_system(&mut self, s: usize, values: &[f64]) -> bool {
        let n = self.dx[0].len() / self.sums.len();
        let Some(sums) = values.get(6 * n..).and_then(MegnoSums::from_slice) else {
            return false;
        };
        set_bodies((&mut self.dx, &mut self.dv), s, &values[..6 * n]);
        self.sums[s] = sums;
        true
    }

    /// Tangent vectors for systems of `n` bodies, one per seed of `seeds` (the systems in lane
    /// order): each component drawn from the normal distribution with the system's seed, the
    /// whole Jacobi vector scaled to unit length (REBOUND's `init_megno` draws its components
    /// the same way but scales each body's inertial vector; MEGNO does not depend on where the
    /// tangent vector starts, once it has turned towards the fastest-growing direction).
    pub fn new(seeds: &[u64], n: usize) -> Self {
        let lanes = seeds.len();
        let len = lanes * n;
        let (mut dx, mut dv) = (xyz(len), xyz(len));
        for (s, &seed) in seeds.iter().enumerate() {
            let mut rng = Rng::new(seed);
            let w: Vec<f64> = (0..6 * n).map(|_| rng.normal()).collect();
            let norm = w.iter().map(|c| c * c).sum::<f64>().sqrt();
            for k in 0..n {
                for c in 0..3 {
                    dx[c][k * lanes + s] = w[6 * k + c] / norm;
                    dv[c][k * lanes + s] = w[6 * k + 3 + c] / norm;
                }
            }
        }
        Variations {
            before: (xyz(len), xyz(len)),
            kept_sums: vec![MegnoSums::default(); lanes],
            dx,
            dv,
            sums: vec![MegnoSums::default(); lanes],
            stop: None,
            p: xyz(len),
            dp: xyz(len),
            du: xyz(len),
            da: xyz(len),
            w: xyz(len),
            per_system: (Vec::new(), Vec::new()),
        }
    }

    /// The inertial positions of the map's kick (`p`, swapped with the variations' own
    /// buffer: the map needs them no more), where the tangent kick takes its tidal terms.
    pub(super) fn take_positions(&mut self, p: &mut Xyz) {
        std::mem::swap(&mut self.p, p);
    }

    /// The first part of a step of the tangent vectors, after the map's kick: the tangent kick
    /// at the Jacobi positions `x` (those of the map's kick, whose inertial ones
    /// [`Variations::take_positions`] took), with `potential`'s terms when on, and MEGNO's
    /// sample there. The tangent drift goes with the map's
    /// ([`Variations::drift_parts`], [`Variations::end_drift`]).
    // Not inlined into the map's step: that slowed the step without variations by a quarter.
    #[inline(never)]
    pub(super) fn kick_and_sample(
        &mut self,
        (ms, potential): (&Masses, Option<&CentralPotential>),
        x: &Xyz,
        h: f64,
    ) {
        jacobi::from_jacobi(ms, refs(&self.dx), muts(&mut self.dp));
        self.kick((ms, potential), x, h);
        self.sample(ms, h);
    }

    /// The tangent kick: `dv' += h (Jacobi tidal accelerations + Kepler terms of k >= 2)`,
    /// the systems in the vector lanes, the new tangent velocities written apart and swapped in
    /// (`before.1` keeps the old ones). The tidal accelerations are those of the kick's pairs
    /// and of the central body's potential forces (GR and J2) when on; they stay in `da`,
    /// inertial.
    fn kick(&mut self, (ms, potential): (&Masses, Option<&CentralPotential>), x: &Xyz, h: f64) {
        let l = ms.lanes;
        // The kick's pairs' tidal terms (all but the centre-first pair's).
        pair_sums(&ms.m, l, &mut self.da, Tidal(&self.p, &self.dp));
        if let Some(potential) = potential {
            potential.add_tangent_accelerations((&self.p, &self.dp), &mut self.da, &ms.m, l);
        }
        jacobi::to_jacobi(ms, refs(&self.da), muts(&mut self.w));
        let at = (x, &self.w, &ms.eta[..], h);
        let term = TangentTerm(&self.dx);
        kick_bodies(at, (&self.dv, &mut self.before.1), l, term);
        std::mem::swap(&mut self.dv, &mut self.before.1);
    }

    /// MEGNO's sample at the kick: the ratio over every body in inertial coordinates, with the
    /// tangent velocities the mean of those before and after the kick, and the tidal
    /// accelerations of the full gravity (the kick's, `da`, and the centre-first pair's).
    fn sample(&mut self, ms: &Masses, h: f64) {
        let l = ms.lanes;
        let mean = &mut self.w;
        for c in 0..3 {
            let (a, b) = (&self.before.1[c], &self.dv[c]);
            for ((m, &a), &b) in mean[c].iter_mut().zip(a).zip(b) {
                *m = 0.5 * (a + b);
            }
        }
        jacobi::from_jacobi(ms, refs(mean), muts(&mut self.du));
        add_centre_pair(&self.p, &self.dp, &ms.m, l, &mut self.da);
        let (dd, d2) = &mut self.per_system;
        for sums in [&mut *dd, &mut *d2] {
            sums.clear();
            sums.resize(l, 0.0);
        }
        let n = ms.m.len() / l;
        for k in 0..n {
            let at = k * l..(k + 1) * l;
            for c in 0..3 {
                let (dp, u) = (&self.dp[c][at.clone()], &self.du[c][at.clone()]);
                let da = &self.da[c][at.clone()];
                let lanes = dd.iter_mut().zip(d2.iter_mut()).zip(dp).zip(u).zip(da);
                for ((((dd, d2), &dp), &u), &da) in lanes {
                    *dd += dp * u + u * da;
                    *d2 += dp * dp + u * u;
                }
            }
        }
        // The new sums into `kept_sums`, swapped in: it keeps those before the step.
        for s in 0..l {
            let mut sums = self.sums[s];
            sums.add(h, dd[s] / d2[s]);
            self.kept_sums[s] = sums;
        }
        std::mem::swap(&mut self.sums, &mut self.kept_sums);
    }

    /// System `s`'s tangent vector and sums back to where they were before the last step (its
    /// drift failed and the map took the step back).
    pub(super) fn restore_system(&mut self, s: usize) {
        let l = self.sums.len();
        let (bx, bv) = &self.before;
        for i in (s..self.dx[0].len()).step_by(l) {
            for c in 0..3 {
                self.dx[c][i] = bx[c][i];
                self.dv[c][i] = bv[c][i];
            }
        }
        self.sums[s] = self.kept_sums[s];
    }

    /// The tangent drift's parts (`lanes` systems, a drift of `h`): the centres of mass move
    /// in a straight line here; every Jacobi body's tangent vector (slot `lanes` on) and where
    /// its moved one goes are handed to the map's drift, which moves them by the Kepler
    /// drift's Jacobian at its state before the drift
    /// ([`crate::physics::kepler::drift_with_tangent`]). [`Variations::end_drift`] takes the
    /// moved ones in. A body whose tangent drift fails (where the map's own drift did not, its
    /// tangent solver taking other paths) makes its system's tangent vector NaN, and so its
    /// MEGNO: never a silent wrong value.
    pub(super) fn drift_parts(&mut self, lanes: usize, h: f64) -> (Tangent<'_>, TangentOut<'_>) {
        let l = lanes;
        // The new tangent vector into `before.0` (positions) and `w` (velocities), swapped in
        // by `end_drift`: `before.0` keeps the positions before the step.
        let (to_x, to_v) = (&mut self.before.0, &mut self.w);
        for c in 0..3 {
            for s in 0..l {
                to_x[c][s] = self.dx[c][s] + h * self.dv[c][s];
                to_v[c][s] = self.dv[c][s];
            }
        }
        fn bodies(a: &Xyz, l: usize) -> [&[f64]; 3] {
            [&a[0][l..], &a[1][l..], &a[2][l..]]
        }
        fn bodies_mut(a: &mut Xyz, l: usize) -> [&mut [f64]; 3] {
            let [a0, a1, a2] = a;
            [&mut a0[l..], &mut a1[l..], &mut a2[l..]]
        }
        let tangent = (bodies(&self.dx, l), bodies(&self.dv, l));
        (tangent, (bodies_mut(to_x, l), bodies_mut(to_v, l)))
    }

    /// The end of a step of the tangent vectors: the moved ones of [`Variations::drift_parts`]
    /// taken in, each system's rescaled where it has grown too long or short.
    pub(super) fn end_drift(&mut self, lanes: usize) {
        std::mem::swap(&mut self.dx, &mut self.before.0);
        std::mem::swap(&mut self.dv, &mut self.w);
        self.rescale(lanes);
    }

    /// Rescale each system's tangent vector to unit length when its length leaves
    /// `[1e-100, 1e100]`.
    fn rescale(&mut self, l: usize) {
        let d2 = &mut self.per_system.1;
        d2.clear();
        d2.resize(l, 0.0);
        let n = self.dx[0].len() / l;
        // Body by body, the components in order (the sum's order is part of the bits).
        for k in 0..n {
            for c in 0..3 {
                let at = k * l..(k + 1) * l;
                let (dx, dv) = (&self.dx[c][at.clone()], &self.dv[c][at]);
                for ((d2, dx), dv) in d2.iter_mut().zip(dx).zip(dv) {
                    *d2 += dx.powi(2) + dv.powi(2);
                }
            }
        }
        for (s, &d2) in d2.iter().enumerate() {
            // NaN (a failed tangent drift) stays NaN.
            if (1e-200..=1e200).contains(&d2) || !(d2 > 0.0 && d2.is_finite()) {
                continue;
            }
            let f = 1.0 / d2.sqrt();
            for k in 0..n {
                for c in 0..3 {
                    self.dx[c][k * l + s] *= f;
                    self.dv[c][k * l + s] *= f;
                }
            }
        }
    }
}

/// `dd / r^3 - 3 d (d . dd) / r^5`: the change of `d / r^3` for the change `dd` of `d`, on
/// every lane of `V`.
#[inline(always)]
fn tidal<V: Lanes>(d: [V; 3], dd: [V; 3]) -> [V; 3] {
    let r2 = dot3(d, d);
    let inv_r3 = V::splat(1.0) / (r2 * r2.sqrt());
    let k = V::splat(3.0) * dot3(d, dd) / r2 * inv_r3;
    [
        dd[0] * inv_r3 - k * d[0],
        dd[1] * inv_r3 - k * d[1],
        dd[2] * inv_r3 - k * d[2],
    ]
}

/// The tidal term of a pair: `da_i += m_j T dd`, `da_j -= m_i T dd` with `d = p_j - p_i` at
/// the inertial positions `.0` and `dd = dp_j - dp_i` of the tangent positions `.1`.
#[derive(Clone, Copy)]
struct Tidal<'a>(&'a Xyz, &'a Xyz);

impl PairTerm for Tidal<'_> {
    #[inline(always)]
    fn terms<V: GroupIo<W>, const W: usize>(
        self,
        (bi, bj): (usize, usize),
        (mi, mj): (V, V),
    ) -> ([V; 3], [V; 3]) {
        let t = tidal(apart::<V, W>(self.0, bi, bj), apart::<V, W>(self.1, bi, bj));
        (
            [mj * t[0], mj * t[1], mj * t[2]],
            [mi * t[0], mi * t[1], mi * t[2]],
        )
    }
}

/// Add the centre-first pair's tidal term to `da` (the kick's pairs), for the full gravity.
fn add_centre_pair(p: &Xyz, dp: &Xyz, m: &[f64], lanes: usize, da: &mut Xyz) {
    for s in 0..lanes {
        let (b0, b1) = (s, lanes + s);
        let t = tidal(apart::<f64, 1>(p, b0, b1), apart::<f64, 1>(dp, b0, b1));
        for c in 0..3 {
            da[c][b0] += m[b1] * t[c];
            da[c][b1] -= m[b0] * t[c];
        }
    }
}

/// The Kepler term's change along the tangent positions `dx`: `eta T(x) dx`.
#[derive(Clone, Copy)]
struct TangentTerm<'a>(&'a Xyz);

impl KeplerTerm for TangentTerm<'_> {
    #[inline(always)]
    fn at<V: GroupIo<W>, const W: usize>(self, x: [V; 3], eta: V, i: usize) -> [V; 3] {
        let t = tidal(x, load3(refs(self.0), i));
        [eta * t[0], eta * t[1], eta * t[2]]
    }
}
