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

// ------------------------------------------------------------------------------------- sin/cos

/// Awkward arguments of the in-house sine and cosine.
fn sin_cos_adversarial() -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        5e-324,
        -5e-324,
        1e-300,
        0.78,
        -0.78,
        ulps(0.78, 1),
        ulps(0.78, -1),
        PI / 4.0,
        PI,
        -PI,
        TAU,
        8.0,
        -8.0,
        524287.9,
        -524287.9,
        524288.0,
        1e6,
        1e22,
        1e300,
        f64::MAX,
        -f64::MAX,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    // Multiples of pi/2 (and their neighbours) over the whole valid range and beyond.
    for k in -2000i64..=2000 {
        let x = k as f64 * FRAC_PI_2;
        v.extend([x, ulps(x, 1), ulps(x, -1)]);
    }
    for e in 0..24 {
        let x = (1u64 << e) as f64 * FRAC_PI_2;
        v.extend([x, -x, ulps(x, 1), ulps(-x, 1)]);
    }
    // Ties of the quadrant rounding: x (2/pi) = k + 1/2 exactly or nearly.
    for k in -50i64..50 {
        let x = (k as f64 + 0.5) * FRAC_PI_2;
        v.extend([x, ulps(x, 1), ulps(x, -1)]);
    }
    v
}

fn check_sin_cos(nat: &Native, x: f64) {
    let (s, c) = kepler::sin_cos::<f64>(x);
    let (ns, nc) = nat.sin_cos(x);
    assert!(
        same(s, ns) && same(c, nc),
        "{}: sin_cos({x:e}) = ({ns:e}, {nc:e}), Rust ({s:e}, {c:e})",
        nat.name
    );
    let (s, c) = kepler::sin_cos_lanes::<f64>(x);
    let (ns, nc) = nat.sin_cos_lane(x);
    assert!(
        same(s, ns) && same(c, nc),
        "{}: sin_cos_lane({x:e}) = ({ns:e}, {nc:e}), Rust ({s:e}, {c:e})",
        nat.name
    );
}

#[test]
fn the_status_words_are_status_h_s() {
    // The host's indices (src/backend/status.rs) against kernels/common/status.h's, as the C and
    // C++ builds of the header export them.
    for (lang, words) in [
        ("C", c99::status_words as unsafe extern "C" fn(*mut u32)),
        ("C++", cxx::status_words),
    ] {
        let mut got = [u32::MAX; 8];
        // SAFETY: the function writes exactly 8 words.
        unsafe { words(got.as_mut_ptr()) };
        let want = crate::backend::status::STATUS_WORDS.map(|w| w as u32);
        assert_eq!(got, want, "{lang}");
    }
}

#[test]
fn round_ties_even_is_bitwise_f64_round_ties_even() {
    let mut rng = Rng::new(11);
    let mut xs = vec![
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.5,
        -2.5,
        0.49999999999999994,
        -0.49999999999999994,
        4503599627370495.5,
        -4503599627370495.5,
        4503599627370497.0,
        9007199254740993.0,
        f64::MAX,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        5e-324,
    ];
    for k in -1000..1000 {
        xs.push(k as f64 * 0.5);
        xs.push(ulps(k as f64 * 0.5, 1));
        xs.push(ulps(k as f64 * 0.5, -1));
    }
    for _ in 0..100_000 {
        xs.push(log_uniform(&mut rng, -5.0, 17.0));
    }
    for nat in &BUILDS {
        for &x in &xs {
            let got = nat.round_ties_even(x);
            assert!(
                same(got, x.round_ties_even()),
                "{}: {x:e} -> {got:e}",
                nat.name
            );
        }
    }
}

#[test]
fn sin_cos_is_bitwise_the_rust_kernel() {
    let mut rng = Rng::new(12);
    let adversarial = sin_cos_adversarial();
    for nat in &BUILDS {
        for &x in &adversarial {
            check_sin_cos(nat, x);
        }
    }
    // 10^6 random arguments per build: the Kepler range, the reduction range and all scales.
    for nat in &BUILDS {
        for k in 0..1_000_000 {
            let x = match k % 4 {
                0 => rng.range(-8.0, 8.0),
                1 => rng.range(-0.8, 0.8),
                2 => log_uniform(&mut rng, -20.0, 5.7),
                _ => log_uniform(&mut rng, -320.0, 300.0),
            };
            check_sin_cos(nat, x);
        }
    }
}

// ------------------------------------------------------------------------------------- Kepler

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

/// A time step relative to the orbital time scale: tiny to many orbits, either sign, and the
/// special values (0, +-0, subnormal, huge, non-finite).
fn random_dt(rng: &mut Rng) -> f64 {
    match rng.next_u64() % 40 {
        0 => 0.0,
        1 => -0.0,
        2 => 5e-324,
        3 => -1e-300,
        4 => 1e12,
        5 => -1e12,
        6 => f64::NAN,
        7 => f64::INFINITY,
        _ => log_uniform(rng, -9.0, 4.0),
    }
}

fn error_code(e: Option<KeplerError>) -> i32 {
    match e {
        None => 0,
        Some(KeplerError::InvalidInput) => 1,
        Some(KeplerError::NoConvergence) => 2,
        Some(KeplerError::NonFinite) => 3,
    }
}

/// `drift_batch_per_body` on every body, with the error of each failing body (the batch stops
/// at the first failure, so it is resumed after it).
fn rust_batch(mu: &[f64], inv_mu: &[f64], dt: f64, states: &[[f64; 6]]) -> Vec<([f64; 6], i32)> {
    let n = states.len();
    let mut cols: [Vec<f64>; 6] = std::array::from_fn(|c| states.iter().map(|s| s[c]).collect());
    let mut err = vec![0; n];
    let mut start = 0;
    while start < n {
        let [x, y, z, vx, vy, vz] = &mut cols;
        let state = [
            &mut x[start..],
            &mut y[start..],
            &mut z[start..],
            &mut vx[start..],
            &mut vy[start..],
            &mut vz[start..],
        ];
        match kepler::drift_batch_per_body(&mu[start..], &inv_mu[start..], dt, state) {
            Ok(()) => break,
            Err((i, e)) => {
                err[start + i] = error_code(Some(e));
                start += i + 1;
            }
        }
    }
    (0..n)
        .map(|i| (std::array::from_fn(|c| cols[c][i]), err[i]))
        .collect()
}

#[test]
fn drift_body_is_bitwise_the_batch_drift() {
    let mut rng = Rng::new(13);
    let (mut total, mut failures, mut lane_path) = (0usize, 0usize, 0usize);
    // 1250 batches of 80 bodies (5 lane groups) with one dt each: 10^5 drifts per build.
    for _ in 0..1250 {
        let dt = random_dt(&mut rng);
        let n = 80;
        let mut mu = Vec::with_capacity(n);
        let mut states = Vec::with_capacity(n);
        for _ in 0..n {
            let m = match rng.next_u64() % 50 {
                0 => 0.0, // an empty slot
                1 => 1e-12,
                2 => 1e6,
                _ => rng.range(0.5, 2.0),
            };
            let mut s = random_state(&mut rng, if m > 0.0 { m } else { 1.0 });
            // Scale the step to the orbit so every phase of it is visited.
            s = match rng.next_u64() % 200 {
                0 => [0.0; 6], // at the centre: invalid input
                1 => [s[0], s[1], s[2], f64::INFINITY, 0.0, 0.0],
                _ => s,
            };
            mu.push(m);
            states.push(s);
        }
        let inv_mu: Vec<f64> = mu.iter().map(|&m| 1.0 / m).collect();
        let want = rust_batch(&mu, &inv_mu, dt, &states);
        for nat in &BUILDS {
            for i in 0..n {
                let (got, err) = nat.drift_body(mu[i], inv_mu[i], dt, states[i]);
                let (w, werr) = want[i];
                assert!(
                    err == werr && same_all(&got, &w),
                    "{}: body mu={:e} dt={dt:e} state={:?}\n got {got:?} err {err}\nwant {w:?} err {werr}",
                    nat.name,
                    mu[i],
                    states[i]
                );
            }
        }
        for i in 0..n {
            total += 1;
            failures += (want[i].1 != 0) as usize;
            lane_path += (dt.is_finite() && dt != 0.0 && mu[i] > 0.0 && {
                let s = states[i];
                let p = kepler::drift_group::<f64>(
                    mu[i],
                    inv_mu[i],
                    dt,
                    [s[0], s[1], s[2]],
                    [s[3], s[4], s[5]],
                );
                p.2
            }) as usize;
        }
    }
    eprintln!("{total} drifts: {lane_path} on the lane path, {failures} failures");
    // Both paths and the failures are exercised.
    assert!(lane_path > total / 4 && lane_path < total - total / 10);
    assert!(failures > 100);
}

#[test]
fn drift_paths_are_bitwise_their_rust_twins() {
    // The lane path alone (drift_group on one lane, with its acceptance) and the scalar solver
    // alone (drift_scalar), including the orbits the batch never sends to the other one.
    let mut rng = Rng::new(14);
    for _ in 0..20_000 {
        let mu = rng.range(0.5, 2.0);
        let inv_mu = 1.0 / mu;
        let s = random_state(&mut rng, mu);
        let dt = random_dt(&mut rng);
        let want = kepler::drift_scalar(mu, dt, [s[0], s[1], s[2]], [s[3], s[4], s[5]]);
        let (wp, wv, werr) = match want {
            Ok((p, v)) => (p, v, 0),
            Err(e) => ([s[0], s[1], s[2]], [s[3], s[4], s[5]], error_code(Some(e))),
        };
        let w = [wp[0], wp[1], wp[2], wv[0], wv[1], wv[2]];
        for nat in &BUILDS {
            let (got, err) = nat.drift_scalar(mu, dt, s);
            assert!(
                err == werr && same_all(&got, &w),
                "{}: drift_scalar mu={mu:e} dt={dt:e} {s:?}: {got:?} {err}, want {w:?} {werr}",
                nat.name
            );
        }
        if dt.is_finite() && dt != 0.0 {
            let (p, v, ok) =
                kepler::drift_group::<f64>(mu, inv_mu, dt, [s[0], s[1], s[2]], [s[3], s[4], s[5]]);
            let w = [p[0], p[1], p[2], v[0], v[1], v[2]];
            for nat in &BUILDS {
                let (got, gok) = nat.drift_lane(mu, inv_mu, dt, s);
                assert_eq!(
                    gok, ok,
                    "{}: lane acceptance mu={mu:e} dt={dt:e} {s:?}",
                    nat.name
                );
                if ok {
                    assert!(
                        same_all(&got, &w),
                        "{}: lane mu={mu:e} dt={dt:e} {s:?}: {got:?}, want {w:?}",
                        nat.name
                    );
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------- changeover

/// Separations at the joins of K's pieces (r = 0.1 rcrit, r = rcrit), at the precheck radius
/// 3 rcrit, their neighbours, and random ones.
fn separations(rng: &mut Rng, rc: f64) -> Vec<f64> {
    let inv = 1.0 / rc;
    let mut r = vec![
        0.0,
        0.1 * rc,
        rc,
        1.0 / inv,
        0.1 / inv,
        3.0 * rc,
        0.55 * rc,
        1e300,
    ];
    for base in [0.1 * rc, rc, 3.0 * rc, 0.1 / inv, 1.0 / inv] {
        for k in [-2, -1, 1, 2] {
            r.push(ulps(base, k));
        }
    }
    for _ in 0..32 {
        r.push(rng.range(0.0, 4.0) * rc);
    }
    r
}

#[test]
fn changeover_is_bitwise_the_rust_changeover() {
    let mut rng = Rng::new(15);
    for k in 0..6_000 {
        let c = Changeover::ALL[k % 3];
        let rc = match rng.next_u64() % 20 {
            0 => 0.0,
            1 => 5e-324,
            _ => 10f64.powf(rng.range(-6.0, 1.0)),
        };
        let inv = 1.0 / rc;
        for r in separations(&mut rng, rc) {
            for nat in &BUILDS {
                let (n, d) = nat.changeover_ratio(c, r, inv);
                let (wn, wd) = c.ratio(r, inv);
                assert!(
                    same(n, wn) && same(d, wd),
                    "{}: {c} ratio r={r:e} rc={rc:e}",
                    nat.name
                );
                let k = nat.changeover(c, r, rc);
                assert!(same(k, c.k(r, rc)), "{}: {c} K r={r:e} rc={rc:e}", nat.name);
            }
        }
    }
}

#[test]
fn perihelion_test_is_bitwise_the_rust_test() {
    let mut rng = Rng::new(26);
    let mut inside = 0;
    for _ in 0..100_000 {
        let radius = 10f64.powf(rng.range(-3.0, 0.0));
        let mu = rng.range(0.5, 2.0);
        let st: [f64; 6] = std::array::from_fn(|c| {
            if c < 3 {
                rng.range(-2.0, 2.0)
            } else {
                rng.range(-1.5, 1.5)
            }
        });
        let want = crate::physics::truncation::inside_perihelion(
            1.0 / mu,
            1.0 / radius,
            radius,
            [st[0], st[1], st[2]],
            [st[3], st[4], st[5]],
        );
        inside += want as usize;
        let g = Grazing::new(mu, radius, rng.range(0.01, 3.0));
        let (pos, vel) = ([st[0], st[1], st[2]], [st[3], st[4], st[5]]);
        let grazed = crate::physics::truncation::may_have_grazed(&g, pos, vel);
        for nat in &BUILDS {
            let got = nat.inside_perihelion(1.0 / mu, radius, st);
            assert_eq!(got, want, "{}: {st:?}", nat.name);
            assert_eq!(nat.may_have_grazed(&g, st), grazed, "{}: {st:?}", nat.name);
        }
    }
    assert!(inside > 1000, "{inside}");
}

#[test]
fn exp_neg_is_bitwise_the_rust_exp_neg() {
    let mut rng = Rng::new(25);
    let edges = [
        0.0,
        1e-300,
        0.5 * std::f64::consts::LN_2,
        707.9,
        708.0,
        709.0,
        f64::INFINITY,
    ];
    for k in 0..200_000 {
        let u = match k {
            k if k < edges.len() => edges[k],
            _ => 10f64.powf(rng.range(-12.0, 2.86)),
        };
        for nat in &BUILDS {
            assert!(same(nat.exp_neg(u), exp_neg(u)), "{}: e^-{u:e}", nat.name);
        }
    }
}

#[test]
fn pair_term_and_prechecker_are_bitwise_the_cpu_pair() {
    let mut rng = Rng::new(16);
    for _ in 0..20_000 {
        let rc_i = 10f64.powf(rng.range(-4.0, -1.0));
        let rc_j = match rng.next_u64() % 8 {
            0 => 0.0,
            1 => rc_i,
            _ => 10f64.powf(rng.range(-4.0, -1.0)),
        };
        let rc = rc_i.max(rc_j);
        let dir = unit(&mut rng);
        for r in separations(&mut rng, rc) {
            // Along an axis the separation is exact, so r = 3 rcrit is exactly the precheck
            // radius; in a random direction it is within rounding of it.
            let axis = [r, 0.0, 0.0];
            let along = dir.map(|c| c * r);
            for d in [axis, along] {
                let (x, y, z) = ([0.0, d[0]], [0.0, d[1]], [0.0, d[2]]);
                let m = [1e-3, rng.range(1e-9, 1e-3)];
                let rcrit = [rc_i, rc_j];
                let inv_rcrit = [1.0 / rc_i, 1.0 / rc_j];
                let src = Sources {
                    x: &x,
                    y: &y,
                    z: &z,
                    m: &m,
                    rcrit: &rcrit,
                    inv_rcrit: &inv_rcrit,
                    changeover: Changeover::ALL[rng.next_u64() as usize % 3],
                };
                let inv = inv_rcrit[0].min(inv_rcrit[1]);
                let want_a = pair_acceleration_with(src, 0, 1, inv);
                let want_c = is_candidate(src, 0, 1);
                for nat in &BUILDS {
                    let a = nat.near_acceleration(src.changeover, d, m[1], inv);
                    assert!(
                        same_all(&a, &want_a),
                        "{}: pair d={d:?} rc={rc:e}",
                        nat.name
                    );
                    let c = nat.is_candidate(d, rc_i, rc_j);
                    assert_eq!(c, want_c, "{}: candidate d={d:?} rc={rc:e}", nat.name);
                }
            }
        }
    }
    // The precheck radius itself along an axis: not a candidate; one ulp inside: a candidate.
    for nat in &BUILDS {
        let rc = 0.01;
        assert!(!nat.is_candidate([PRECHECK_FACTOR * rc, 0.0, 0.0], rc, 0.0));
        assert!(nat.is_candidate([ulps(PRECHECK_FACTOR * rc, -1), 0.0, 0.0], rc, 0.0));
    }
}

/// Positions of `n` bodies in a small box, so that many pairs are prechecker candidates, with
/// critical radii (some zero) and masses.
fn cluster(rng: &mut Rng, n: usize) -> [Vec<f64>; 6] {
    let mut c: [Vec<f64>; 6] = Default::default();
    for _ in 0..n {
        let rc = if rng.uniform() < 0.1 {
            0.0
        } else {
            rng.range(0.005, 0.05)
        };
        c[0].push(rng.range(-0.5, 0.5));
        c[1].push(rng.range(-0.5, 0.5));
        c[2].push(rng.range(-0.1, 0.1));
        c[3].push(rng.range(1e-9, 1e-4));
        c[4].push(rc);
        c[5].push(1.0 / rc);
    }
    c
}

#[test]
fn pair_terms_summed_in_order_are_bitwise_the_cpu_pair_pass() {
    // The tile pass (n_src > 32) and the source-outer pass (n_src <= 32) of a system larger than
    // SMALL_MAX: each receiver's far and near sums and candidate count are those of the device
    // pair term summed over the sources in ascending order.
    let mut rng = Rng::new(17);
    for sys in 0..200 {
        let n = 40 + sys % 30;
        let n_src = if sys % 2 == 0 { n } else { 20 + sys % 12 };
        let c = cluster(&mut rng, n);
        let src = Sources {
            x: &c[0],
            y: &c[1],
            z: &c[2],
            m: &c[3],
            rcrit: &c[4],
            inv_rcrit: &c[5],
            changeover: Changeover::ALL[sys % 3],
        };
        let tiles = n.div_ceil(LANES);
        let cap = Hits::capacity(n_src);
        let mut acc = vec![vec![f64::NAN; n]; 6];
        let mut cand = vec![u32::MAX; n];
        let mut hit_tiles = vec![TileHits::default(); tiles];
        let mut rows = vec![0u32; tiles * cap];
        {
            let [a, b, cc, d, e, f] = &mut acc[..] else {
                unreachable!()
            };
            let out = Accelerations {
                far: [a, b, cc],
                near: [d, e, f],
                candidates: &mut cand,
                hits: Hits {
                    tiles: &mut hit_tiles,
                    sources: &mut rows,
                    cap,
                },
                kick: None,
            };
            accelerations(src, n_src, out, false);
        }
        let mut candidates = 0;
        for nat in &BUILDS {
            for i in 0..n {
                let (far, near, count) = nat.pair_sums(src, n_src, i);
                let want_far = [acc[0][i], acc[1][i], acc[2][i]];
                let want_near = [acc[3][i], acc[4][i], acc[5][i]];
                assert!(
                    same_all(&far, &want_far) && same_all(&near, &want_near) && count == cand[i],
                    "{}: system {sys} (n {n}, n_src {n_src}) body {i}: far {far:?} near \
                     {near:?} {count}, want {want_far:?} {want_near:?} {}",
                    nat.name,
                    cand[i]
                );
                candidates += count;
            }
        }
        assert!(candidates > 0, "system {sys} has no candidate pair");
    }
}

#[test]
fn critical_radius_is_bitwise_the_cpu_critical_radius() {
    let mut rng = Rng::new(18);
    for k in 0..100_000 {
        // Either sign of tau (backward integrations); a massless body at rest has both terms 0.
        let (n1, n2) = (rng.range(1.0, 5.0), rng.range(0.1, 1.0));
        let tau = log_uniform(&mut rng, -4.0, 0.0);
        let m0 = rng.range(0.5, 2.0);
        let m = match k % 10 {
            0 => 0.0,
            _ => 10f64.powf(rng.range(-12.0, -2.0)),
        };
        let mut st = random_state(&mut rng, m0);
        if k % 7 == 0 {
            st[3..].fill(0.0);
        }
        let dist = (st[0] * st[0] + st[1] * st[1] + st[2] * st[2]).sqrt();
        let speed = (st[3] * st[3] + st[4] * st[4] + st[5] * st[5]).sqrt();
        let want = critical_radius(n1, n2, tau, m, m0, dist, speed);
        let hill = hill_factor_of(m, m0); // uploaded by the host
        for nat in &BUILDS {
            let got = nat.critical_radius(n1, n2 * tau, hill, st);
            assert!(
                same(got, want),
                "{}: rcrit {got:e}, want {want:e}",
                nat.name
            );
        }
    }
}

// ------------------------------------------------------------------------------------- Hermite

#[test]
fn hermite_minimum_is_bitwise_the_cpu_search() {
    let mut rng = Rng::new(19);
    let mut pairs: Vec<([[f64; 3]; 4], f64)> = Vec::new();
    for k in 0..200_000 {
        let tau = match k % 5 {
            0 => -log_uniform(&mut rng, -4.0, 0.0).abs(),
            _ => log_uniform(&mut rng, -4.0, 0.0).abs(),
        };
        let r0 = unit(&mut rng).map(|c| c * rng.range(1e-4, 1.0));
        let v0 = unit(&mut rng).map(|c| c * rng.range(0.0, 10.0));
        let uniform: [f64; 3] = std::array::from_fn(|c| r0[c] + tau * v0[c]);
        let p = match k % 8 {
            // Zero relative velocity: P constant.
            0 => [r0, [0.0; 3], r0, [0.0; 3]],
            // Uniform relative motion (a quadratic P), perhaps through the origin.
            1 => [r0, v0, uniform, v0],
            2 => {
                let v = r0.map(|c| -c / tau);
                [r0, v, [0.0; 3], v]
            }
            // Head-on and reversed.
            3 => [r0, v0, r0.map(|c| -c), v0.map(|c| -c)],
            // b = -0 or +0 exactly: P0 = P1 and no radial motion.
            4 => [r0, [0.0; 3], r0.map(|c| -c), [0.0; 3]],
            // A curved path: the end state perturbed.
            _ => {
                let v1 = unit(&mut rng).map(|c| c * rng.range(0.0, 10.0));
                let r1: [f64; 3] = std::array::from_fn(|c| uniform[c] + rng.range(-0.1, 0.1));
                [r0, v0, r1, v1]
            }
        };
        pairs.push((p, tau));
    }
    // The CPU search evaluates SEARCH_LANES pairs of one step per call.
    for chunk in pairs.chunks(SEARCH_LANES) {
        if chunk.len() < SEARCH_LANES {
            break;
        }
        for &(_, tau) in chunk {
            let lanes = |q: usize| -> [[f64; SEARCH_LANES]; 3] {
                std::array::from_fn(|c| std::array::from_fn(|l| chunk[l].0[q][c]))
            };
            let want = min_separation_sq_lanes(lanes(0), lanes(1), lanes(2), lanes(3), tau);
            for nat in &BUILDS {
                for (l, &(p, _)) in chunk.iter().enumerate() {
                    let got = nat.min_separation_sq(p, tau);
                    assert!(
                        same(got, want[l]),
                        "{}: min r^2 {got:e}, want {:e} for {p:?} tau {tau:e}",
                        nat.name,
                        want[l]
                    );
                }
            }
        }
    }
}

// -------------------------------------------------------------------------------------- energy

#[test]
fn energy_terms_are_bitwise_the_cpu_energy() {
    let mut rng = Rng::new(20);
    for sys in 0..300 {
        let n = 1 + sys % 40;
        let massive = if sys % 3 == 0 { n } else { 1 + (sys % n) };
        let m0 = rng.range(0.5, 2.0);
        let bodies: Vec<Body> = (0..n)
            .map(|k| {
                let s = random_state(&mut rng, m0);
                Body {
                    id: k as u64,
                    m: 10f64.powf(rng.range(-12.0, -3.0)),
                    r: 0.0,
                    pos: [s[0], s[1], s[2]],
                    vel: [s[3], s[4], s[5]],
                    spin: [
                        rng.range(-1e-9, 1e-9),
                        rng.range(-1e-9, 1e-9),
                        rng.range(-1e-9, 1e-9),
                    ],
                }
            })
            .collect();
        let b = Bodies::from_bodies(&bodies);
        let e = energy_split(m0, &b, 0, n, massive);
        let want = [
            e.kinetic,
            e.potential,
            e.angular_momentum[0],
            e.angular_momentum[1],
            e.angular_momentum[2],
        ];
        for nat in &BUILDS {
            let got = nat.energy(m0, &b, n, massive);
            assert!(
                same_all(&got, &want),
                "{}: energy {got:?}, want {want:?}",
                nat.name
            );
        }
    }
}

/// A cluster of `n` bodies around 1 AU on nearly the same orbit, close enough to pass through
/// each other's changeover zones; with `collide`, radii large enough for contacts.
fn encounter_group(rng: &mut Rng, n: usize, collide: bool) -> GroupState {
    let mut g = GroupState::new();
    for k in 0..n {
        let spread = 0.02;
        let pos = [
            1.0 + spread * (rng.uniform() - 0.5),
            spread * (rng.uniform() - 0.5),
            0.1 * spread * (rng.uniform() - 0.5),
        ];
        let vel = [
            0.02 * (rng.uniform() - 0.5),
            1.0 + 0.02 * (rng.uniform() - 0.5),
            0.002 * (rng.uniform() - 0.5),
        ];
        let m = log_uniform(rng, -7.0, -4.0).abs();
        let r = if collide { 2e-3 } else { 1e-7 };
        let mut body = Body::without_spin(k as u64 + 1, m, r, pos, vel);
        body.spin = [0.0, 0.0, 1e-12 * rng.uniform()];
        g.push(&body, 0.01 + 0.02 * rng.uniform());
    }
    g
}

#[test]
fn bulirsch_stoer_group_is_bitwise_the_cpu_integration() {
    // Groups of every size up to two beyond the device's limit, with and without contacts, over
    // forward and backward steps: a group the device finishes has the CPU's bits and counters
    // and no CPU event; a group it hands back is one the CPU merges in, fails, or is too large.
    let mut rng = Rng::new(21);
    let opts = BsOptions::default();
    let mut ws = BsWorkspace::new();
    for nat in &BUILDS {
        let (mut done, mut handed_back_contact) = (0, 0);
        for case in 0..180 {
            let n = 1 + case % 18;
            let collide = case % 5 == 4;
            let mut g0 = encounter_group(&mut rng, n, collide);
            g0.changeover = Changeover::ALL[case % 3];
            let tau = if case % 2 == 0 { 0.05 } else { -0.03 };
            let m0 = 1.0;
            let (out, [status, accepted, rejected]) = nat.bs_group(&g0, m0, tau, &opts);
            let mut g = g0.clone();
            let mut events = Vec::new();
            let cpu = integrate_group(m0, tau, &mut g, &mut ws, &opts, &mut events);
            if status == 0 {
                let stats =
                    cpu.unwrap_or_else(|e| panic!("{}: case {case}: CPU failed: {e}", nat.name));
                assert!(
                    events.is_empty(),
                    "{}: case {case}: device missed a contact",
                    nat.name
                );
                assert_eq!(
                    (stats.accepted, stats.rejected),
                    (accepted as usize, rejected as usize)
                );
                let cpu_states: Vec<f64> = (0..n)
                    .flat_map(|k| g.pos[k].into_iter().chain(g.vel[k]))
                    .collect();
                assert!(
                    same_all(&cpu_states, &out),
                    "{}: case {case}: end states differ",
                    nat.name
                );
                done += 1;
            } else {
                assert!(
                    n > 16 || cpu.is_err() || !events.is_empty(),
                    "{}: case {case}: device handed back a group the CPU integrates plainly",
                    nat.name
                );
                handed_back_contact += (!events.is_empty() && n <= 16) as usize;
            }
        }
        assert!(
            done > 100 && handed_back_contact > 20,
            "{}: {done} done, {handed_back_contact} contacts",
            nat.name
        );
        // Input the CPU refuses is handed back too.
        let mut bad = encounter_group(&mut rng, 3, false);
        bad.m[1] = -1e-6;
        assert_eq!(nat.bs_group(&bad, 1.0, 0.05, &opts).1[0], 1, "{}", nat.name);
    }
}
