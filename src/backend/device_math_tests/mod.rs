//! Parity of the device math (`kernels/common/*.h`) with the Rust functions the CPU backend
//! runs, without any OpenCL or CUDA runtime: `build.rs` compiles the headers for the host
//! (`kernels/host/native.c`) as C99 and as C++, with contraction off, and every test here runs
//! both builds on random and adversarial inputs and requires the same bits (`to_bits`) as the
//! Rust twin (any NaN matching any NaN). See kernels/README.md for the parity policy.

use crate::backend::cpu::pair_forces::{
    accelerations, is_candidate, pair_acceleration_with, Accelerations, Hits, Sources, TileHits,
    LANES, PRECHECK_FACTOR,
};
use crate::physics::bulirsch_stoer::{integrate_group, BsOptions, BsWorkspace, GroupState};
use crate::physics::changeover::{critical_radius, exp_neg, hill_factor_of, Changeover};
use crate::physics::encounter::{min_separation_sq_lanes, SEARCH_LANES};
use crate::physics::energy::energy_split;
use crate::physics::kepler::{self, KeplerError};
use crate::physics::truncation::Grazing;
use crate::rng::Rng;
use crate::state::{Bodies, Body};
use std::f64::consts::{FRAC_PI_2, PI, TAU};

/// The `extern "C"` wrappers of one host build of native.c, with the symbol prefix `$prefix`.
macro_rules! native_build {
    ($module:ident, $prefix:literal) => {
        mod $module {
            extern "C" {
                #[link_name = concat!($prefix, "status_words")]
                pub fn status_words(out: *mut u32);
                #[link_name = concat!($prefix, "round_ties_even")]
                pub fn round_ties_even(x: f64) -> f64;
                #[link_name = concat!($prefix, "sin_cos")]
                pub fn sin_cos(x: f64, s: *mut f64, c: *mut f64);
                #[link_name = concat!($prefix, "sin_cos_lane")]
                pub fn sin_cos_lane(x: f64, s: *mut f64, c: *mut f64);
                #[link_name = concat!($prefix, "drift_body")]
                pub fn drift_body(mu: f64, inv_mu: f64, dt: f64, st: *mut f64) -> i32;
                #[link_name = concat!($prefix, "drift_scalar")]
                pub fn drift_scalar(mu: f64, dt: f64, st: *mut f64) -> i32;
                #[link_name = concat!($prefix, "drift_lane")]
                pub fn drift_lane(mu: f64, inv_mu: f64, dt: f64, st: *mut f64) -> i32;
                #[link_name = concat!($prefix, "drift_with_tangent")]
                pub fn drift_with_tangent(
                    mu: f64,
                    inv_mu: f64,
                    dt: f64,
                    st: *mut f64,
                    d: *mut f64,
                ) -> i32;
                #[link_name = concat!($prefix, "changeover_ratio")]
                pub fn changeover_ratio(
                    changeover: u32,
                    r: f64,
                    inv_rcrit: f64,
                    num: *mut f64,
                    den: *mut f64,
                );
                #[link_name = concat!($prefix, "changeover")]
                pub fn changeover(changeover: u32, r: f64, rcrit: f64) -> f64;
                #[link_name = concat!($prefix, "exp_neg")]
                pub fn exp_neg(u: f64) -> f64;
                #[link_name = concat!($prefix, "inside_perihelion")]
                pub fn inside_perihelion(
                    inv_mu: f64,
                    inv_radius: f64,
                    radius: f64,
                    st: *const f64,
                ) -> i32;
                #[link_name = concat!($prefix, "may_have_grazed")]
                pub fn may_have_grazed(
                    inv_mu: f64,
                    inv_radius: f64,
                    radius: f64,
                    short_alpha: f64,
                    st: *const f64,
                ) -> i32;
                #[link_name = concat!($prefix, "is_candidate")]
                pub fn is_candidate(d: *const f64, rcrit_i: f64, rcrit_j: f64) -> i32;
                #[link_name = concat!($prefix, "near_acceleration")]
                pub fn near_acceleration(
                    changeover: u32,
                    d: *const f64,
                    m_j: f64,
                    inv_rcrit: f64,
                    a: *mut f64,
                );
                #[link_name = concat!($prefix, "pair_sums")]
                pub fn pair_sums(
                    changeover: u32,
                    n_src: u32,
                    i: u32,
                    x: *const f64,
                    y: *const f64,
                    z: *const f64,
                    m: *const f64,
                    rcrit: *const f64,
                    inv_rcrit: *const f64,
                    far: *mut f64,
                    near: *mut f64,
                ) -> u32;
                #[link_name = concat!($prefix, "critical_radius")]
                pub fn critical_radius(n1: f64, n2_tau: f64, hill: f64, st: *const f64) -> f64;
                #[link_name = concat!($prefix, "min_separation_sq")]
                pub fn min_separation_sq(
                    dr0: *const f64,
                    dv0: *const f64,
                    dr1: *const f64,
                    dv1: *const f64,
                    tau: f64,
                ) -> f64;
                #[link_name = concat!($prefix, "energy")]
                pub fn energy(
                    m0: f64,
                    n: u32,
                    massive: u32,
                    x: *const f64,
                    y: *const f64,
                    z: *const f64,
                    vx: *const f64,
                    vy: *const f64,
                    vz: *const f64,
                    m: *const f64,
                    s: *const f64,
                    out: *mut f64,
                );
                #[link_name = concat!($prefix, "bs_group")]
                pub fn bs_group(
                    n: u32,
                    m0: f64,
                    changeover: u32,
                    tau: f64,
                    tol: f64,
                    min_step: f64,
                    max_substeps: u32,
                    states: *const f64,
                    out: *mut f64,
                    result: *mut u32,
                );
            }
        }
    };
}
native_build!(c99, "orrery_native_");
native_build!(cxx, "orrery_native_cxx_");

/// One host build of the device headers, as safe functions.
struct Native {
    name: &'static str,
    round_ties_even: unsafe extern "C" fn(f64) -> f64,
    sin_cos: unsafe extern "C" fn(f64, *mut f64, *mut f64),
    sin_cos_lane: unsafe extern "C" fn(f64, *mut f64, *mut f64),
    drift_body: unsafe extern "C" fn(f64, f64, f64, *mut f64) -> i32,
    drift_scalar: unsafe extern "C" fn(f64, f64, *mut f64) -> i32,
    drift_lane: unsafe extern "C" fn(f64, f64, f64, *mut f64) -> i32,
    drift_with_tangent: unsafe extern "C" fn(f64, f64, f64, *mut f64, *mut f64) -> i32,
    changeover_ratio: unsafe extern "C" fn(u32, f64, f64, *mut f64, *mut f64),
    changeover: unsafe extern "C" fn(u32, f64, f64) -> f64,
    exp_neg: unsafe extern "C" fn(f64) -> f64,
    inside_perihelion: unsafe extern "C" fn(f64, f64, f64, *const f64) -> i32,
    may_have_grazed: unsafe extern "C" fn(f64, f64, f64, f64, *const f64) -> i32,
    is_candidate: unsafe extern "C" fn(*const f64, f64, f64) -> i32,
    near_acceleration: unsafe extern "C" fn(u32, *const f64, f64, f64, *mut f64),
    #[allow(clippy::type_complexity)]
    pair_sums: unsafe extern "C" fn(
        u32,
        u32,
        u32,
        *const f64,
        *const f64,
        *const f64,
        *const f64,
        *const f64,
        *const f64,
        *mut f64,
        *mut f64,
    ) -> u32,
    critical_radius: unsafe extern "C" fn(f64, f64, f64, *const f64) -> f64,
    min_separation_sq:
        unsafe extern "C" fn(*const f64, *const f64, *const f64, *const f64, f64) -> f64,
    #[allow(clippy::type_complexity)]
    energy: unsafe extern "C" fn(
        f64,
        u32,
        u32,
        *const f64,
        *const f64,
        *const f64,
        *const f64,
        *const f64,
        *const f64,
        *const f64,
        *const f64,
        *mut f64,
    ),
    #[allow(clippy::type_complexity)]
    bs_group:
        unsafe extern "C" fn(u32, f64, u32, f64, f64, f64, u32, *const f64, *mut f64, *mut u32),
}

macro_rules! native_of {
    ($module:ident, $name:literal) => {
        Native {
            name: $name,
            round_ties_even: $module::round_ties_even,
            sin_cos: $module::sin_cos,
            sin_cos_lane: $module::sin_cos_lane,
            drift_body: $module::drift_body,
            drift_scalar: $module::drift_scalar,
            drift_lane: $module::drift_lane,
            drift_with_tangent: $module::drift_with_tangent,
            changeover_ratio: $module::changeover_ratio,
            changeover: $module::changeover,
            exp_neg: $module::exp_neg,
            inside_perihelion: $module::inside_perihelion,
            may_have_grazed: $module::may_have_grazed,
            is_candidate: $module::is_candidate,
            near_acceleration: $module::near_acceleration,
            pair_sums: $module::pair_sums,
            critical_radius: $module::critical_radius,
            min_separation_sq: $module::min_separation_sq,
            energy: $module::energy,
            bs_group: $module::bs_group,
        }
    };
}

/// Both host builds: C99 (as OpenCL C) and C++ (as CUDA).
const BUILDS: [Native; 2] = [native_of!(c99, "C99"), native_of!(cxx, "C++")];

// SAFETY of every `unsafe` block below: the C functions read and write exactly the arrays their
// signatures in kernels/host/native.c name, with the lengths given here, and keep no pointer.
impl Native {
    fn round_ties_even(&self, x: f64) -> f64 {
        unsafe { (self.round_ties_even)(x) }
    }
    fn sin_cos(&self, x: f64) -> (f64, f64) {
        let (mut s, mut c) = (0.0, 0.0);
        unsafe { (self.sin_cos)(x, &mut s, &mut c) };
        (s, c)
    }
    fn sin_cos_lane(&self, x: f64) -> (f64, f64) {
        let (mut s, mut c) = (0.0, 0.0);
        unsafe { (self.sin_cos_lane)(x, &mut s, &mut c) };
        (s, c)
    }
    /// One body of the batch drift: the new state, or the error code (state unchanged).
    fn drift_body(&self, mu: f64, inv_mu: f64, dt: f64, st: [f64; 6]) -> ([f64; 6], i32) {
        let mut s = st;
        let err = unsafe { (self.drift_body)(mu, inv_mu, dt, s.as_mut_ptr()) };
        (s, err)
    }
    fn drift_scalar(&self, mu: f64, dt: f64, st: [f64; 6]) -> ([f64; 6], i32) {
        let mut s = st;
        let err = unsafe { (self.drift_scalar)(mu, dt, s.as_mut_ptr()) };
        (s, err)
    }
    /// One body of the drift with its tangent map: the new state and tangent vector, and the
    /// drift's error code (state unchanged then).
    fn drift_with_tangent(
        &self,
        (mu, inv_mu, dt): (f64, f64, f64),
        st: [f64; 6],
        d: [f64; 6],
    ) -> ([f64; 6], [f64; 6], i32) {
        let (mut s, mut d) = (st, d);
        let err =
            unsafe { (self.drift_with_tangent)(mu, inv_mu, dt, s.as_mut_ptr(), d.as_mut_ptr()) };
        (s, d, err)
    }
    fn drift_lane(&self, mu: f64, inv_mu: f64, dt: f64, st: [f64; 6]) -> ([f64; 6], bool) {
        let mut s = st;
        let ok = unsafe { (self.drift_lane)(mu, inv_mu, dt, s.as_mut_ptr()) };
        (s, ok != 0)
    }
    fn changeover_ratio(&self, c: Changeover, r: f64, inv_rcrit: f64) -> (f64, f64) {
        let (mut n, mut d) = (0.0, 0.0);
        unsafe { (self.changeover_ratio)(c.code(), r, inv_rcrit, &mut n, &mut d) };
        (n, d)
    }
    fn changeover(&self, c: Changeover, r: f64, rcrit: f64) -> f64 {
        unsafe { (self.changeover)(c.code(), r, rcrit) }
    }
    fn exp_neg(&self, u: f64) -> f64 {
        unsafe { (self.exp_neg)(u) }
    }
    fn inside_perihelion(&self, inv_mu: f64, radius: f64, st: [f64; 6]) -> bool {
        unsafe { (self.inside_perihelion)(inv_mu, 1.0 / radius, radius, st.as_ptr()) != 0 }
    }
    fn may_have_grazed(&self, g: &Grazing, st: [f64; 6]) -> bool {
        let f = self.may_have_grazed;
        unsafe { f(g.inv_mu, g.inv_radius, g.radius, g.short_alpha, st.as_ptr()) != 0 }
    }
    fn is_candidate(&self, d: [f64; 3], rc_i: f64, rc_j: f64) -> bool {
        unsafe { (self.is_candidate)(d.as_ptr(), rc_i, rc_j) != 0 }
    }
    fn near_acceleration(&self, c: Changeover, d: [f64; 3], m_j: f64, inv_rcrit: f64) -> [f64; 3] {
        let mut a = [0.0; 3];
        unsafe { (self.near_acceleration)(c.code(), d.as_ptr(), m_j, inv_rcrit, a.as_mut_ptr()) };
        a
    }
    /// Receiver i's (far, near, candidates) summed over the sources `0 .. n_src` in order.
    fn pair_sums(&self, src: Sources<'_>, n_src: usize, i: usize) -> ([f64; 3], [f64; 3], u32) {
        let (mut far, mut near) = ([0.0; 3], [0.0; 3]);
        assert!(src.m.len() >= n_src && i < src.m.len());
        let count = unsafe {
            (self.pair_sums)(
                src.changeover.code(),
                n_src as u32,
                i as u32,
                src.x.as_ptr(),
                src.y.as_ptr(),
                src.z.as_ptr(),
                src.m.as_ptr(),
                src.rcrit.as_ptr(),
                src.inv_rcrit.as_ptr(),
                far.as_mut_ptr(),
                near.as_mut_ptr(),
            )
        };
        (far, near, count)
    }
    fn critical_radius(&self, n1: f64, n2_tau: f64, hill: f64, st: [f64; 6]) -> f64 {
        unsafe { (self.critical_radius)(n1, n2_tau, hill, st.as_ptr()) }
    }
    fn min_separation_sq(&self, p: [[f64; 3]; 4], tau: f64) -> f64 {
        let [a, b, c, d] = p;
        unsafe { (self.min_separation_sq)(a.as_ptr(), b.as_ptr(), c.as_ptr(), d.as_ptr(), tau) }
    }
    /// One group through the device's Bulirsch-Stoer (one work-item): the end states, and the
    /// status (0 done, 1 handed to the host), accepted and rejected substeps.
    fn bs_group(
        &self,
        g: &GroupState,
        m0: f64,
        tau: f64,
        opts: &BsOptions,
    ) -> (Vec<f64>, [u32; 3]) {
        let states: Vec<f64> = (0..g.len())
            .flat_map(|k| {
                let (p, v, s) = (g.pos[k], g.vel[k], g.spin[k]);
                [
                    p[0], p[1], p[2], v[0], v[1], v[2], g.m[k], g.r[k], s[0], s[1], s[2],
                    g.rcrit[k],
                ]
            })
            .collect();
        let mut out = vec![0.0; 6 * g.len()];
        let mut result = [0u32; 3];
        unsafe {
            (self.bs_group)(
                g.len() as u32,
                m0,
                g.changeover.code(),
                tau,
                opts.rel_tol,
                opts.min_step,
                opts.max_substeps as u32,
                states.as_ptr(),
                out.as_mut_ptr(),
                result.as_mut_ptr(),
            )
        };
        (out, result)
    }
    /// [kinetic, potential, Lx, Ly, Lz] of the first `n` bodies, `massive` of them massive.
    fn energy(&self, m0: f64, b: &Bodies, n: usize, massive: usize) -> [f64; 5] {
        let spins: Vec<f64> = (0..n).flat_map(|i| [b.sx[i], b.sy[i], b.sz[i]]).collect();
        let mut out = [0.0; 5];
        assert!(b.len() >= n);
        unsafe {
            (self.energy)(
                m0,
                n as u32,
                massive as u32,
                b.x.as_ptr(),
                b.y.as_ptr(),
                b.z.as_ptr(),
                b.vx.as_ptr(),
                b.vy.as_ptr(),
                b.vz.as_ptr(),
                b.m.as_ptr(),
                spins.as_ptr(),
                out.as_mut_ptr(),
            )
        };
        out
    }
}

/// The same bits, or both NaN (compilers may pick either operand's NaN payload).
fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fn same_all(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(&x, &y)| same(x, y))
}

/// `x` moved by `k` units in the last place (towards +inf for k > 0).
fn ulps(x: f64, k: i64) -> f64 {
    if x == 0.0 && k != 0 {
        return f64::from_bits(k.unsigned_abs()).copysign(k as f64);
    }
    let b = x.to_bits() as i64;
    f64::from_bits(if x > 0.0 { b + k } else { b - k } as u64)
}

/// A random number of magnitude 10^[lo, hi) and random sign.
fn log_uniform(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    let v = 10f64.powf(rng.range(lo, hi));
    if rng.uniform() < 0.5 {
        -v
    } else {
        v
    }
}

/// A random unit vector.
fn unit(rng: &mut Rng) -> [f64; 3] {
    loop {
        let v = [
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        ];
        let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        if n > 0.1 && n <= 1.0 {
            return v.map(|c| c / n);
        }
    }
}

/// A component of `b` perpendicular to `a` (both unit), normalised.
fn perpendicular(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    let d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let p = [b[0] - d * a[0], b[1] - d * a[1], b[2] - d * a[2]];
    let n = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
    p.map(|c| c / n)
}

/// A random body state around `mu`: every kind of orbit, with a weight on the awkward ones
/// (eccentricities at the solvers' limits 0.9 and 0.99, near-parabolic both sides, exactly
/// parabolic speed, hyperbolic, radial, circular).
fn random_state(rng: &mut Rng, mu: f64) -> [f64; 6] {
    let r = 10f64.powf(rng.range(-1.5, 1.5));
    let rhat = unit(rng);
    let that = perpendicular(rhat, unit(rng));
    let vc = (mu.abs() / r).sqrt();
    let kind = rng.next_u64() % 10;
    let (vt, vr) = match kind {
        // Tangential at an apse: e = |f^2 - 1| exactly enough to hit the limits.
        0..=2 => {
            let e = [
                0.9,
                0.99,
                ulps(0.9, -1),
                ulps(0.9, 1),
                0.98,
                0.995,
                1.0 - 1e-6,
                1.0 - 1e-12,
                1.0,
                1.0 + 1e-12,
                1.0 + 1e-6,
                1.5,
                5.0,
                0.0,
                0.5,
                0.89,
            ][(rng.next_u64() % 16) as usize];
            let f = if rng.uniform() < 0.5 {
                (1.0 + e).sqrt() // pericentre
            } else {
                (1.0 - e).max(0.0).sqrt() // apocentre (radial for e >= 1)
            };
            (f * vc, 0.0)
        }
        // Radial.
        3 => (0.0, rng.range(-2.0, 2.0) * vc),
        // Exactly parabolic speed in a random direction.
        4 => {
            let psi = rng.range(0.0, TAU);
            let v = 2f64.sqrt() * vc;
            (v * psi.cos(), v * psi.sin())
        }
        // Anything from slow to fast.
        9 => {
            let f = rng.range(0.0, 1.8);
            let psi = rng.range(0.0, TAU);
            (f * vc * psi.cos(), f * vc * psi.sin())
        }
        // Bound, mostly moderate eccentricities (the lane path's orbits).
        _ => {
            let f = rng.range(0.4, 1.3);
            let psi = rng.range(0.0, TAU);
            (f * vc * psi.cos(), f * vc * psi.sin())
        }
    };
    [
        r * rhat[0],
        r * rhat[1],
        r * rhat[2],
        vt * that[0] + vr * rhat[0],
        vt * that[1] + vr * rhat[1],
        vt * that[2] + vr * rhat[2],
    ]
}

mod drift;
mod energy;
mod hermite;
mod pairs;
mod trig;
