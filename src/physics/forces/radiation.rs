//! The velocity-dependent forces, per body and per system: radiation pressure and
//! Poynting–Robertson drag, the Yarkovsky effect, the gas disk's acceleration through them, the
//! radiation kick's system recoil and its work.

use super::*;

/// Radiation acceleration on a body of mass `m` and radius `s` at heliocentric `x` with
/// heliocentric velocity `v` and spin `spin`, around a central body of mass `m0`, for a kick of
/// length `dt` (the gas drag's mean over it; 0 for the instantaneous value): pressure and
/// Poynting–Robertson drag with the solar wind (when on), plus the gas disk's drag and damping
/// (when on, [`gas_accel`]) and the Yarkovsky effect (when on, [`yarkovsky_accel`]), added in
/// that order. Device twin: `orr_radiation_accel`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn radiation_accel(
    f: &Forces,
    m0: f64,
    dt: f64,
    m: f64,
    s: f64,
    x: [f64; 3],
    v: [f64; 3],
    spin: [f64; 3],
) -> [f64; 3] {
    match (f.yarkovsky != 0.0, f.gas.mode()) {
        (false, GAS_OFF) => radiation_accel_of::<false, GAS_OFF>(f, m0, dt, m, s, x, v, spin),
        (false, GAS_ON) => radiation_accel_of::<false, GAS_ON>(f, m0, dt, m, s, x, v, spin),
        (false, GAS_PULL) => radiation_accel_of::<false, GAS_PULL>(f, m0, dt, m, s, x, v, spin),
        (false, _) => radiation_accel_of::<false, GAS_FILE>(f, m0, dt, m, s, x, v, spin),
        (true, GAS_OFF) => radiation_accel_of::<true, GAS_OFF>(f, m0, dt, m, s, x, v, spin),
        (true, GAS_ON) => radiation_accel_of::<true, GAS_ON>(f, m0, dt, m, s, x, v, spin),
        (true, GAS_PULL) => radiation_accel_of::<true, GAS_PULL>(f, m0, dt, m, s, x, v, spin),
        (true, _) => radiation_accel_of::<true, GAS_FILE>(f, m0, dt, m, s, x, v, spin),
    }
}

/// [`radiation_accel`] with the Yarkovsky effect on or off and the gas disk's mode (`YARKOVSKY`,
/// `GAS`), for loops that choose once (the same bits as the run-time choice; `GAS` must be
/// `f.gas.mode()`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn radiation_accel_of<const YARKOVSKY: bool, const GAS: u8>(
    f: &Forces,
    m0: f64,
    dt: f64,
    m: f64,
    s: f64,
    x: [f64; 3],
    v: [f64; 3],
    spin: [f64; 3],
) -> [f64; 3] {
    let mass = if m > 0.0 {
        m
    } else {
        s * s * s * f.massless_density
    };
    let r2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
    let ir = 1.0 / r2.sqrt();
    // Without radiation a body may have neither mass nor radius (0/0): select, not branch, so
    // that the loops over bodies still vectorise.
    let q = f.radiation * s * s / (mass * r2);
    let q = if f.radiation == 0.0 { 0.0 } else { q };
    let rdot = (x[0] * v[0] + x[1] * v[1] + x[2] * v[2]) * ir;
    let radial = q * (1.0 - f.drag * rdot) * ir;
    let along = q * f.drag;
    let mut a = [
        radial * x[0] - along * v[0],
        radial * x[1] - along * v[1],
        radial * x[2] - along * v[2],
    ];
    if GAS != GAS_OFF {
        let g = gas_accel(&f.gas, GAS, m0, dt, m, mass, s, x, v);
        a = [a[0] + g[0], a[1] + g[1], a[2] + g[2]];
    }
    if !YARKOVSKY {
        return a;
    }
    let y = yarkovsky_accel(f, m0 + mass, mass, s, x, v, spin);
    [a[0] + y[0], a[1] + y[1], a[2] + y[2]]
}

/// Below this eccentricity the seasonal Yarkovsky term takes the circular orbit's form (the
/// pericentre direction is undefined; the terms dropped are of order e).
const YARKOVSKY_CIRCULAR: f64 = 1e-8;
/// The thermal functions' argument is capped here (the in-house sine and cosine take |x| <
/// 2^19; past the cap the functions have converged to 1e-5).
const YARKOVSKY_X_MAX: f64 = 262_144.0;

/// The thermal response of a sphere of radius `R` to forcing at frequency ν with penetration
/// depth `l = sqrt(K / (ρ C ν))` (Vokrouhlický 1998, 1999; Vokrouhlický, Milani & Chesley 2000):
/// with `X = sqrt(2) R / l`, the thermal parameter `Θ` and `λ = Θ / X` (`lambda`, given),
/// returns `(G cos δ, G sin δ)`. Device twin: `orr_yarkovsky_response`.
#[inline(always)]
pub fn yarkovsky_response(x: f64, lambda: f64) -> (f64, f64) {
    let x = if x < YARKOVSKY_X_MAX {
        x
    } else {
        YARKOVSKY_X_MAX
    };
    let l = lambda / (1.0 + lambda);
    let (sx, cx) = crate::physics::kepler::sin_cos(x);
    let ex = crate::physics::changeover::exp_neg(x);
    let x2c = (x - 2.0) * cx;
    let x2s = (x - 2.0) * sx;
    let a = -ex * (x + 2.0) - (x2c - x * sx);
    let b = -ex * x - (x * cx + x2s);
    let c = a + l * (ex * 3.0 * (x + 2.0) + (3.0 * x2c + x * (x - 3.0) * sx));
    let d = b + l * (ex * x * (x + 3.0) - (x * (x - 3.0) * cx - 3.0 * x2s));
    let inv = 1.0 / (c * c + d * d);
    ((a * c + b * d) * inv, (b * c - a * d) * inv)
}

/// The Yarkovsky acceleration (GENGA's `Use Yarkovsky = 1`, a velocity kick) of a spherical
/// body of mass `mass` (code units) and radius `s` (AU) spinning with angular momentum `spin`
/// (a solid sphere: `ω = spin / (2/5 m s²)`) on the heliocentric orbit `(x, v)` around `mu`:
/// the linear theory of Vokrouhlický (1998, 1999) as Vokrouhlický, Milani & Chesley (2000)
/// write it, with the diurnal term
/// `a_d = (4/9) (1 - A) Φ / (1 + λ_d) G_d [sin δ_d (r̂ × ŝ) + cos δ_d ŝ × (r̂ × ŝ)]`
/// and the seasonal term's first harmonic (Vokrouhlický & Farinella 1999, appendix B)
/// `a_s = (4/9) (1 - A) Φ / (1 + λ_s) G_s [α₁ s_P (cos M cos δ_s - sin M sin δ_s)
///        + β₁ s_Q (sin M cos δ_s + cos M sin δ_s)] ŝ`,
/// `Φ = π s² F / (m c)`, the flux F at the orbit's time-averaged distance `a (1 + e²/2)`, the
/// subsolar temperature `T⁴ = (1 - A) F / (ε σ)`, the thermal parameters `Θ = Γ sqrt(ν) / (ε σ
/// T³)` at the rotation and the mean motion, `α₁ = 2 J₁'(e)`, `β₁ = 2 J₁(e) / e` to e⁶, s_P and
/// s_Q the spin's components along the pericentre and the direction 90° ahead, M the mean
/// anomaly. No spin gives no acceleration; the seasonal term is left out on unbound orbits.
/// Device twin: `orr_yarkovsky_accel`.
#[allow(clippy::too_many_arguments)]
pub fn yarkovsky_accel(
    f: &Forces,
    mu: f64,
    mass: f64,
    s: f64,
    x: [f64; 3],
    v: [f64; 3],
    spin: [f64; 3],
) -> [f64; 3] {
    let inertia = 0.4 * mass * s * s;
    let w = [spin[0] / inertia, spin[1] / inertia, spin[2] / inertia];
    let omega = (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).sqrt();
    if omega.is_nan() || omega <= 0.0 {
        return [0.0; 3];
    }
    let sh = [w[0] / omega, w[1] / omega, w[2] / omega];
    let r2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
    let ir = 1.0 / r2.sqrt();
    let v2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    let u = x[0] * v[0] + x[1] * v[1] + x[2] * v[2];
    let ia = 2.0 * ir - v2 / mu;
    let h = cross(x, v);
    let hn = (h[0] * h[0] + h[1] * h[1] + h[2] * h[2]).sqrt();
    let vh = cross(v, h);
    let ev = [
        vh[0] / mu - x[0] * ir,
        vh[1] / mu - x[1] * ir,
        vh[2] / mu - x[2] * ir,
    ];
    let e2 = ev[0] * ev[0] + ev[1] * ev[1] + ev[2] * ev[2];
    let e = e2.sqrt();
    let a = 1.0 / ia.abs();
    // SI: the time unit in seconds, radius in m, frequencies in 1/s.
    let unit_s = 86_400.0 / crate::units::K_GAUSS;
    let au_m = crate::units::AU_CM * 1e-2;
    let radius = s * au_m;
    let n = (mu * ia.abs() * ia.abs() * ia.abs()).sqrt() / unit_s;
    let nu = omega / unit_s;
    let d = a * (1.0 + 0.5 * e2);
    let flux = f.solar_constant / (d * d);
    let t4 = f.absorbed * flux / f.eps_sigma;
    let t = t4.sqrt().sqrt();
    let theta_scale = f.thermal_inertia / (f.eps_sigma * t * t * t);
    let force = f.absorbed * flux * f.inv_rho_c_light / (9.0 * radius);
    let depth =
        |nu: f64| std::f64::consts::SQRT_2 * radius * (f.rho_c * nu / f.conductivity).sqrt();
    // Diurnal.
    let xd = depth(nu);
    let lambda_d = theta_scale * nu.sqrt() / xd;
    let (gc, gs) = yarkovsky_response(xd, lambda_d);
    let wd = force / (1.0 + lambda_d);
    let rs = cross(x, sh).map(|c| c * ir);
    let srs = cross(sh, rs);
    let mut acc = [
        wd * (gs * rs[0] + gc * srs[0]),
        wd * (gs * rs[1] + gc * srs[1]),
        wd * (gs * rs[2] + gc * srs[2]),
    ];
    // Seasonal, on bound orbits.
    if ia > 0.0 && e < 1.0 {
        let xs = depth(n);
        let eta = (1.0 - e2).sqrt();
        let lambda_s = theta_scale * n.sqrt() / xs * (eta * eta * eta).sqrt().sqrt();
        let (gc, gs) = yarkovsky_response(xs, lambda_s);
        let e4 = e2 * e2;
        let e6 = e4 * e2;
        let alpha = 1.0 - 0.375 * e2 + 5.0 / 192.0 * e4 - 7.0 / 9216.0 * e6;
        let beta = 1.0 - e2 / 8.0 + e4 / 192.0 - e6 / 9216.0;
        // s_P cos M and s_Q sin M, ... from the state: e cos E = 1 - r / a,
        // e sin E = r.v / sqrt(mu a), M = E - e sin E.
        let (sp, sq, cm, sm) = if e > YARKOVSKY_CIRCULAR {
            let hev = cross(h, ev);
            let sp = dot(sh, ev) / e;
            let sq = dot(sh, hev) / (e * hn);
            let ecos = 1.0 - ia / ir;
            let esin = u * (ia / mu).sqrt();
            let (ss, cs) = crate::physics::kepler::sin_cos(esin);
            let (ce, se) = (ecos / e, esin / e);
            (sp, sq, ce * cs + se * ss, se * cs - ce * ss)
        } else {
            // Circular: the position is the reference direction (M = 0 there).
            let q = cross(h, x).map(|c| c * ir / hn);
            (dot(sh, x) * ir, dot(sh, q), 1.0, 0.0)
        };
        let ws =
            (sp * alpha * (cm * gc - sm * gs) + sq * beta * (sm * gc + cm * gs)) / (1.0 + lambda_s);
        let fs = force * ws;
        for c in 0..3 {
            acc[c] += fs * sh[c];
        }
    }
    // m/s² to AU per code time unit squared.
    let to_code = unit_s * unit_s / au_m;
    [acc[0] * to_code, acc[1] * to_code, acc[2] * to_code]
}

#[inline(always)]
fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// What one system's radiation kick does, computed before any velocity changes: the shift that
/// makes its velocities heliocentric (`P / M0`), the uniform correction `w = Σ m a / M_tot` that
/// keeps the central body's motion free of the radiation (the barycentre recoils; every
/// heliocentric velocity changes by exactly `dt a` of its own body), and the work on the
/// system's energy and angular momentum (`[ΔE, ΔLx, ΔLy, ΔLz]` of the democratic-heliocentric
/// energy `Σ ½ m v² + |P|²/(2 M0)` and of `Σ m x × v`). `bodies(k)` gives the k-th pulling body's
/// state; sums run in slot order. Device twin: `orr_radiation_system`.
pub fn radiation_system(
    f: &Forces,
    m0: f64,
    dt: f64,
    pulling: usize,
    bodies: impl Fn(usize) -> Irradiated,
) -> RadiationSystem {
    let momentum = system_momentum(pulling, &bodies);
    let shift = heliocentric_shift(momentum.0, m0);
    let accel = |k: usize| {
        let b = bodies(k);
        radiation_accel(f, m0, dt, b.m, b.s, b.x, helio(b.v, shift), b.spin)
    };
    radiation_system_with(m0, dt, pulling, &bodies, momentum, accel)
}

/// The momentum `P = Σ m v` of a system's pulling bodies and their mass, summed in slot order
/// (the first sums of [`radiation_system`]).
pub fn system_momentum(pulling: usize, bodies: impl Fn(usize) -> Irradiated) -> ([f64; 3], f64) {
    let mut p = [0.0; 3];
    let mut mass = 0.0;
    for k in 0..pulling {
        let Irradiated { m, v, .. } = bodies(k);
        for c in 0..3 {
            p[c] += m * v[c];
        }
        mass += m;
    }
    (p, mass)
}

/// [`radiation_system`] from the momentum and mass of [`system_momentum`] and every pulling
/// body's acceleration `accel(k)` (the value [`radiation_accel`] gives at its heliocentric
/// velocity, with the shift [`heliocentric_shift`]): a pass that computed the accelerations once, in
/// parallel, gets the same bits.
pub fn radiation_system_with(
    m0: f64,
    dt: f64,
    pulling: usize,
    bodies: impl Fn(usize) -> Irradiated,
    (p, mass): ([f64; 3], f64),
    accel: impl Fn(usize) -> [f64; 3],
) -> RadiationSystem {
    let mut ma = [0.0; 3];
    for k in 0..pulling {
        let (m, a) = (bodies(k).m, accel(k));
        for c in 0..3 {
            ma[c] += m * a[c];
        }
    }
    let mtot = m0 + mass;
    let w = [ma[0] / mtot, ma[1] / mtot, ma[2] / mtot];
    let shift = heliocentric_shift(p, m0);
    let mut work = [0.0; 4];
    let mut dp = [0.0; 3];
    for k in 0..pulling {
        let d = kick_of(dt, accel(k), w);
        let Irradiated { m, x, v, .. } = bodies(k);
        work[0] += m * (v[0] * d[0] + v[1] * d[1] + v[2] * d[2])
            + 0.5 * m * (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        work[1] += m * (x[1] * d[2] - x[2] * d[1]);
        work[2] += m * (x[2] * d[0] - x[0] * d[2]);
        work[3] += m * (x[0] * d[1] - x[1] * d[0]);
        for c in 0..3 {
            dp[c] += m * d[c];
        }
    }
    work[0] += central_kinetic_change(m0, p, dp);
    RadiationSystem { shift, w, work }
}

/// The radiation kick's velocity change `dt (a - w)` of a body with acceleration `a` in a
/// system with recoil `w` (see [`radiation_dv`]).
#[inline(always)]
pub fn kick_of(dt: f64, a: [f64; 3], w: [f64; 3]) -> [f64; 3] {
    [dt * (a[0] - w[0]), dt * (a[1] - w[1]), dt * (a[2] - w[2])]
}

/// What the radiation forces need of one body: mass, radius, heliocentric position, democratic
/// (barycentric) velocity and spin.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Irradiated {
    pub m: f64,
    pub s: f64,
    pub x: [f64; 3],
    pub v: [f64; 3],
    pub spin: [f64; 3],
}

/// Values of a system's [`Work`].
pub const WORK_LEN: usize = 8;
/// Where J2's torque starts in a [`Work`].
pub const WORK_TORQUE: usize = 4;
/// Where the tides' work is in a [`Work`].
pub const WORK_TIDES: usize = 7;

/// The work of the non-conservative forces on one system, tallied in parts so that each
/// force's sum keeps its order whichever backend runs it: `[0]` the radiation's ΔE, `[1..4]` its
/// ΔL, `[4..7]` the angular momentum J2's torque gave the orbits, `[7]` the tides' ΔE (their
/// angular momentum goes to the spins; device buffer: 8 per system).
pub type Work = [f64; WORK_LEN];

/// Two tallies of work per system added (an empty one counts as zeros).
pub fn add_work(a: Vec<Work>, b: Vec<Work>) -> Vec<Work> {
    match (a.is_empty(), b.is_empty()) {
        (_, true) => a,
        (true, false) => b,
        (false, false) => a
            .iter()
            .zip(&b)
            .map(|(x, y)| std::array::from_fn(|c| x[c] + y[c]))
            .collect(),
    }
}

/// One system's radiation kick constants and work (see [`radiation_system`]).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RadiationSystem {
    pub shift: [f64; 3],
    pub w: [f64; 3],
    pub work: [f64; 4],
}

/// The radiation kick's velocity change of one body of a system around `m0`: `dt (a - w)`,
/// with `a` at the body's heliocentric velocity. Device twin: `orr_radiation_dv`.
#[inline(always)]
pub fn radiation_dv(
    f: &Forces,
    m0: f64,
    dt: f64,
    sys: &RadiationSystem,
    b: Irradiated,
) -> [f64; 3] {
    match f.yarkovsky == 0.0 {
        true => match f.gas.mode() {
            GAS_OFF => radiation_dv_of::<false, GAS_OFF>(f, m0, dt, sys, b),
            GAS_ON => radiation_dv_of::<false, GAS_ON>(f, m0, dt, sys, b),
            GAS_PULL => radiation_dv_of::<false, GAS_PULL>(f, m0, dt, sys, b),
            _ => radiation_dv_of::<false, GAS_FILE>(f, m0, dt, sys, b),
        },
        false => match f.gas.mode() {
            GAS_OFF => radiation_dv_of::<true, GAS_OFF>(f, m0, dt, sys, b),
            GAS_ON => radiation_dv_of::<true, GAS_ON>(f, m0, dt, sys, b),
            GAS_PULL => radiation_dv_of::<true, GAS_PULL>(f, m0, dt, sys, b),
            _ => radiation_dv_of::<true, GAS_FILE>(f, m0, dt, sys, b),
        },
    }
}

/// [`radiation_dv`] with the Yarkovsky effect and the gas disk chosen at compile time (see
/// [`radiation_accel_of`]; the same bits).
#[inline(always)]
pub fn radiation_dv_of<const YARKOVSKY: bool, const GAS: u8>(
    f: &Forces,
    m0: f64,
    dt: f64,
    sys: &RadiationSystem,
    b: Irradiated,
) -> [f64; 3] {
    let h = helio(b.v, sys.shift);
    let a = radiation_accel_of::<YARKOVSKY, GAS>(f, m0, dt, b.m, b.s, b.x, h, b.spin);
    kick_of(dt, a, sys.w)
}
