//! Tides and rotational deformation between the central body and each body, with both spins
//! evolved (GENGA's `Use Tides = 1` and `Use Rotational Deformation = 1`; the constant-time-lag
//! model of Hut 1981 as Bolmont et al. 2015, Mercury-T, eqs. 5–6 and 15 write it, GENGA's
//! `force.h`), written once: the CPU pass calls [`tide_kick_system`], and
//! `kernels/common/tides.h` is its device twin, operation for operation.
//!
//! For a body of mass m, radius R, Love number k2, fluid Love number k2f, time lag τ and
//! moment-of-inertia factor Ic at heliocentric `x` (r = |x|) with heliocentric velocity `v`,
//! around a central body of mass M and radius R* with its own k2*, k2f*, τ*, Ic* (G = 1):
//! - **tides**: `D = 3 M² R⁵ k2 / r⁷` (the tide the central body raises on the body),
//!   `D* = 3 m² R*⁵ k2* / r⁷` (the tide the body raises on the central body), `P = D τ`, and
//!   the force on the body, one part per bulge,
//!   `F = [-D - 2 (x·v/r²) P] x̂ + P (Ω × x̂) - P v / r`, with `Ω = S / (Ic m R²)` the bulge's
//!   spin rate;
//! - **rotational deformation** (Correia 2011, Bolmont et al. 2015 eq. 15): each body's
//!   flattening `J2 = k2f Ω² R³ / (3 G m)` pulls with
//!   `F = [-3 C/r⁵ + 15 C (x·Ω)²/(Ω² r⁷)] x - 6 C (x·Ω)/(Ω² r⁵) Ω`,
//!   `C = M k2f Ω² R⁵ / 6` for the body's bulge (`m k2f* Ω*² R*⁵ / 6` for the central body's).
//!
//! Each bulge's force turns its own spin: `dS/dt = -x × F_bulge` (the body's for its bulge, the
//! central body's summed over the bodies), so the orbits' angular momentum `Σ m x × v` (in
//! democratic heliocentric coordinates, the whole system's orbital angular momentum) and the
//! spins change by opposite amounts: the total is conserved to rounding. The force acts on
//! the body and, reversed, on the central body: a kick of the body's barycentric velocity by
//! `F / m` does both (the central body's velocity is the momentum's balance), so the relative
//! motion feels `F / μ` with the reduced mass μ, as in Bolmont et al.'s heliocentric equation.
//! GENGA instead kicks the heliocentric velocity by `F / m` and scales its torques by
//! `M / (M + m)`; the two differ by `m / M` in the rates.
//!
//! The tidal and rotational forces depend on the velocities and spins, so they act as a kick
//! pair of their own around the step, as the radiation forces do: `τ/2` before and after, each
//! from the state at its start. Their work on the orbits is booked with the radiation's in
//! `U`; the spins' kinetic energy is not part of the Energy file's E.

use crate::physics::merge::cross;
use serde::{Deserialize, Serialize};

/// A body's tidal properties (GENGA's body columns `k2 k2f tau Ic`, or the central body's
/// `Star Love Number`, `Star fluid Love Number`, `Star tau`, `Star Ic`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TidalBody {
    /// Potential Love number of degree 2.
    pub k2: f64,
    /// Fluid Love number (the rotational flattening's).
    pub k2f: f64,
    /// Constant time lag, in code time units (days × k, GENGA's unit).
    pub tau: f64,
    /// Moment of inertia over m R².
    pub ic: f64,
}

impl Default for TidalBody {
    /// GENGA's defaults: no tides, Ic = 0.4 (a homogeneous sphere).
    fn default() -> Self {
        TidalBody::NONE
    }
}

impl TidalBody {
    /// No tidal response (GENGA's column defaults).
    pub const NONE: TidalBody = TidalBody {
        k2: 0.0,
        k2f: 0.0,
        tau: 0.0,
        ic: 0.4,
    };

    /// Check the values against their physical ranges: the name of the first bad one
    /// (`k2`, `k2f`, `tau`, `Ic`) and what was expected. A homogeneous fluid body has the
    /// largest Love numbers, 3/2; a sphere's moment-of-inertia factor is at most 2/3 (a thin
    /// shell).
    pub fn check(&self) -> std::result::Result<(), (&'static str, String)> {
        for (v, name) in [(self.k2, "k2"), (self.k2f, "k2f")] {
            if !(v.is_finite() && (0.0..=1.5).contains(&v)) {
                return Err((
                    name,
                    format!(
                        "expected a Love number in [0, 1.5] (a fluid body's 3/2 at most), got {v}"
                    ),
                ));
            }
        }
        if !(self.tau.is_finite() && self.tau >= 0.0) {
            return Err((
                "tau",
                format!(
                    "expected a time lag >= 0 (code time units), got {}",
                    self.tau
                ),
            ));
        }
        if !(self.ic.is_finite() && self.ic > 0.0 && self.ic <= 2.0 / 3.0) {
            return Err((
                "Ic",
                format!(
                    "expected a moment-of-inertia factor I/(m R^2) in (0, 2/3], got {}",
                    self.ic
                ),
            ));
        }
        Ok(())
    }

    /// True when the body raises or feels no tidal or rotational force of its own.
    pub fn is_inert(&self) -> bool {
        self.k2 == 0.0 && self.k2f == 0.0
    }
}

/// The tidal settings as the user asks for them (scenario field `forces.tides`, GENGA's
/// `Use Tides`, `Use Rotational Deformation` and `Star ...` keys). The central body's radius
/// is the run's `central_radius` (GENGA `Star Radius`), its initial spin `forces.central_spin`
/// (GENGA `Star spin_x/y/z`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TideSettings {
    /// The constant-time-lag tides (GENGA `Use Tides = 1`).
    pub tides: bool,
    /// The rotational flattening of the central body and the bodies (GENGA `Use Rotational
    /// Deformation = 1`).
    pub rotational_deformation: bool,
    /// The central body's tidal properties.
    pub star: TidalBody,
}

impl Default for TideSettings {
    fn default() -> Self {
        TideSettings {
            tides: false,
            rotational_deformation: false,
            // GENGA's defaults for the star.
            star: TidalBody {
                k2: 1.0,
                k2f: 1.0,
                tau: 0.0,
                ic: 0.4,
            },
        }
    }
}

impl TideSettings {
    /// True when tides or rotational deformation are on.
    pub fn is_on(&self) -> bool {
        self.tides || self.rotational_deformation
    }

    /// The settings as a fingerprint fragment (empty when off).
    pub fn fingerprint(&self) -> String {
        if !self.is_on() {
            return String::new();
        }
        let s = &self.star;
        format!(
            " tides={} rotational_deformation={} star=({:e},{:e},{:e},{:e})",
            self.tides, self.rotational_deformation, s.k2, s.k2f, s.tau, s.ic
        )
    }
}

/// The bodies' tidal properties by body id, sorted, for the run's whole length (the properties
/// do not change; a merged body keeps its id and its properties). Compared by address: the
/// step parameters that hold it are compared often.
#[derive(Clone, Copy, Default)]
pub struct TidalTable(&'static [(u64, TidalBody)]);

impl TidalTable {
    /// The table of `entries` (any order; the last entry of an id wins). It lives for the rest
    /// of the process: the step parameters that carry it are plain values.
    pub fn new(mut entries: Vec<(u64, TidalBody)>) -> TidalTable {
        entries.reverse();
        entries.sort_by_key(|e| e.0);
        entries.dedup_by_key(|e| e.0);
        match entries.is_empty() {
            true => TidalTable(&[]),
            false => TidalTable(Box::leak(entries.into_boxed_slice())),
        }
    }

    /// The properties of body `id` ([`TidalBody::NONE`] when not listed).
    #[inline]
    pub fn get(&self, id: u64) -> TidalBody {
        match self.0.binary_search_by_key(&id, |e| e.0) {
            Ok(k) => self.0[k].1,
            Err(_) => TidalBody::NONE,
        }
    }

    /// The listed entries.
    pub fn entries(&self) -> &'static [(u64, TidalBody)] {
        self.0
    }
}

impl PartialEq for TidalTable {
    fn eq(&self, o: &TidalTable) -> bool {
        std::ptr::eq(self.0.as_ptr(), o.0.as_ptr()) && self.0.len() == o.0.len()
    }
}

impl std::fmt::Debug for TidalTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TidalTable({} bodies)", self.0.len())
    }
}

/// The tidal constants the step uses (all 0 when off).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Tides {
    /// 1 with the tides on, else 0.
    pub tides: f64,
    /// 1 with the rotational deformation on, else 0.
    pub rotation: f64,
    /// The central body's properties and radius (AU).
    pub star: TidalBody,
    pub star_radius: f64,
    /// The bodies' properties.
    pub bodies: TidalTable,
}

impl Tides {
    /// No tides.
    pub const OFF: Tides = Tides {
        tides: 0.0,
        rotation: 0.0,
        star: TidalBody::NONE,
        star_radius: 0.0,
        bodies: TidalTable(&[]),
    };

    /// The constants of `settings` around a central body of radius `star_radius` (AU), with
    /// the bodies' properties `bodies`.
    pub fn resolve(settings: &TideSettings, star_radius: f64, bodies: TidalTable) -> Tides {
        if !settings.is_on() {
            return Tides::OFF;
        }
        Tides {
            tides: if settings.tides { 1.0 } else { 0.0 },
            rotation: if settings.rotational_deformation {
                1.0
            } else {
                0.0
            },
            star: settings.star,
            star_radius,
            bodies,
        }
    }

    /// True when tides or rotational deformation are on: the step has a tide kick pair.
    #[inline(always)]
    pub fn is_on(&self) -> bool {
        self.tides != 0.0 || self.rotation != 0.0
    }
}

/// What the tides and the rotational deformation do to one body and the central body at one
/// instant: the body's acceleration `F / m` (both bulges' forces), and the rates of the body's
/// and the central body's spin angular momenta, `-x × F_body's bulge` and `-x × F_central
/// bulge`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TidalRates {
    pub accel: [f64; 3],
    pub spin: [f64; 3],
    pub star_spin: [f64; 3],
}

/// One bulge's force on the body (the module docs' tidal and rotational forces) with its
/// constants: `d = 3 M_other² R⁵ k2` (over r⁷ below), `c = M_other k2f R⁵ / 6` (C over Ω²),
/// the lag τ and the bulge's spin rate Ω.
#[inline(always)]
fn bulge_force(
    t: &Tides,
    d: f64,
    c: f64,
    tau: f64,
    omega: [f64; 3],
    x: [f64; 3],
    v: [f64; 3],
) -> [f64; 3] {
    let r2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
    let ir2 = 1.0 / r2;
    let ir = ir2.sqrt();
    let ir5 = ir2 * ir2 * ir;
    let ir7 = ir5 * ir2;
    // Tides: with D = d / r⁷ and P = D τ,
    // F = -(D + 2 (x·v / r²) P) x / r + P (Ω × x) / r - P v / r.
    let big_d = t.tides * d * ir7;
    let p = big_d * tau;
    let xv = x[0] * v[0] + x[1] * v[1] + x[2] * v[2];
    let radial = -(big_d + 2.0 * xv * ir2 * p) * ir;
    let wx = cross(omega, x);
    let pr = p * ir;
    // Rotational deformation: with C = c Ω²,
    // F = (-3 C / r⁵ + 15 c (x·Ω)² / r⁷) x - 6 c (x·Ω) / r⁵ Ω.
    let w2 = omega[0] * omega[0] + omega[1] * omega[1] + omega[2] * omega[2];
    let xw = x[0] * omega[0] + x[1] * omega[1] + x[2] * omega[2];
    let cr = t.rotation * c;
    let flat = cr * (15.0 * xw * xw * ir7 - 3.0 * w2 * ir5);
    let along = 6.0 * cr * xw * ir5;
    std::array::from_fn(|k| (radial + flat) * x[k] + pr * (wx[k] - v[k]) - along * omega[k])
}

/// Spin rate `S / (Ic m R²)` (0 for a body without moment of inertia).
#[inline(always)]
fn spin_rate(spin: [f64; 3], ic: f64, m: f64, radius: f64) -> [f64; 3] {
    let inertia = ic * m * radius * radius;
    match inertia > 0.0 {
        true => spin.map(|s| s / inertia),
        false => [0.0; 3],
    }
}

/// The tidal and rotational rates of a body of mass `m > 0`, radius `radius` and properties
/// `body` at heliocentric `x` with heliocentric velocity `v` and spin `spin`, around a central
/// body of mass `m0` with spin `star_spin` (see the module docs; zero for `m <= 0`).
#[allow(clippy::too_many_arguments)]
pub fn tidal_rates(
    t: &Tides,
    body: &TidalBody,
    m0: f64,
    m: f64,
    radius: f64,
    x: [f64; 3],
    v: [f64; 3],
    spin: [f64; 3],
    star_spin: [f64; 3],
) -> TidalRates {
    if m <= 0.0 {
        return TidalRates::default();
    }
    let r5 = |r: f64| r * r * r * r * r;
    let (rb, rs) = (r5(radius), r5(t.star_radius));
    let own = bulge_force(
        t,
        3.0 * m0 * m0 * rb * body.k2,
        m0 * body.k2f * rb / 6.0,
        body.tau,
        spin_rate(spin, body.ic, m, radius),
        x,
        v,
    );
    let star = bulge_force(
        t,
        3.0 * m * m * rs * t.star.k2,
        m * t.star.k2f * rs / 6.0,
        t.star.tau,
        spin_rate(star_spin, t.star.ic, m0, t.star_radius),
        x,
        v,
    );
    let (lo, ls) = (cross(x, own), cross(x, star));
    TidalRates {
        accel: std::array::from_fn(|k| (own[k] + star[k]) / m),
        spin: lo.map(|c| -c),
        star_spin: ls.map(|c| -c),
    }
}

/// One body of a system as the tide kick reads and changes it: mass, radius, properties,
/// heliocentric position, democratic (barycentric) velocity and spin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tidal {
    pub m: f64,
    pub radius: f64,
    pub body: TidalBody,
    pub x: [f64; 3],
    pub v: [f64; 3],
    pub spin: [f64; 3],
}

/// A system's pulling bodies as the tide kick reads and changes them.
pub trait TidalSystem {
    /// Body `k`'s state.
    fn get(&self, k: usize) -> Tidal;
    /// `v += dv`, `S += ds` for body `k`.
    fn add(&mut self, k: usize, dv: [f64; 3], ds: [f64; 3]);
}

/// The tide kick of one system over `dt` around a central body of mass `m0`: every one of its
/// `n` pulling bodies gets `v += dt F/m` and `S += dt dS/dt`, the central body's spin
/// `dt Σ dS*/dt` (summed in slot order), all from the state at the start (a body is read
/// before it is changed, and the momentum before any). Returns the kick's work on the
/// orbits, the change of the democratic-heliocentric kinetic energy
/// `Σ ½ m v² + |P|²/(2 M0)`.
pub fn tide_kick_system(
    t: &Tides,
    m0: f64,
    dt: f64,
    n: usize,
    star_spin: &mut [f64; 3],
    bodies: &mut impl TidalSystem,
) -> f64 {
    let mut p = [0.0; 3];
    for k in 0..n {
        let b = bodies.get(k);
        for c in 0..3 {
            p[c] += b.m * b.v[c];
        }
    }
    let shift = crate::state::heliocentric_shift(p, m0);
    let s0 = *star_spin;
    let mut work = 0.0;
    let mut dp = [0.0; 3];
    for k in 0..n {
        let b = bodies.get(k);
        let h = crate::state::helio(b.v, shift);
        let r = tidal_rates(t, &b.body, m0, b.m, b.radius, b.x, h, b.spin, s0);
        let d = r.accel.map(|a| dt * a);
        work += b.m * (b.v[0] * d[0] + b.v[1] * d[1] + b.v[2] * d[2])
            + 0.5 * b.m * (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        for c in 0..3 {
            dp[c] += b.m * d[c];
            star_spin[c] += dt * r.star_spin[c];
        }
        bodies.add(k, d, r.spin.map(|s| dt * s));
    }
    work + crate::physics::energy::central_kinetic_change(m0, p, dp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::forces::{potential_accel, ForceSettings, Forces};
    use crate::rng::Rng;

    fn on(tides: bool, rotation: bool, star: TidalBody, radius: f64) -> Tides {
        let settings = TideSettings {
            tides,
            rotational_deformation: rotation,
            star,
        };
        Tides::resolve(&settings, radius, TidalTable::default())
    }

    const STAR: TidalBody = TidalBody {
        k2: 0.03,
        k2f: 0.9,
        tau: 2e-3,
        ic: 0.07,
    };
    const PLANET: TidalBody = TidalBody {
        k2: 0.5,
        k2f: 0.6,
        tau: 1e-3,
        ic: 0.25,
    };

    /// On a circular orbit with aligned spins the tangential force of each bulge is
    /// `P (Ω - n)` and the radial one `-D`: the spins change by `-a P (Ω - n)` each.
    #[test]
    fn circular_orbit_forces_are_the_constant_time_lag_ones() {
        let (m0, m, rp, rs, a): (f64, f64, f64, f64, f64) = (1.0, 1e-3, 4.7e-4, 4.65e-3, 0.03);
        let t = on(true, false, STAR, rs);
        let n = ((m0 + m) / (a * a * a)).sqrt();
        let (wp, ws) = (2.5 * n, 0.1 * n);
        let spin = [0.0, 0.0, PLANET.ic * m * rp * rp * wp];
        let star = [0.0, 0.0, STAR.ic * m0 * rs * rs * ws];
        let r = tidal_rates(
            &t,
            &PLANET,
            m0,
            m,
            rp,
            [a, 0.0, 0.0],
            [0.0, n * a, 0.0],
            spin,
            star,
        );
        let a7 = a.powi(7);
        let (dp, ds) = (
            3.0 * m0 * m0 * rp.powi(5) * PLANET.k2 / a7,
            3.0 * m * m * rs.powi(5) * STAR.k2 / a7,
        );
        let (pp, ps) = (dp * PLANET.tau, ds * STAR.tau);
        let close = |x: f64, y: f64| (x - y).abs() <= 1e-13 * y.abs();
        assert!(close(r.accel[0] * m, -(dp + ds)), "{:?}", r.accel);
        assert!(close(r.accel[1] * m, pp * (wp - n) + ps * (ws - n)));
        assert_eq!(r.accel[2], 0.0);
        assert!(close(r.spin[2], -a * pp * (wp - n)));
        assert!(close(r.star_spin[2], -a * ps * (ws - n)));
        assert_eq!(
            [r.spin[0], r.spin[1], r.star_spin[0], r.star_spin[1]],
            [0.0; 4]
        );
    }

    /// The central body's rotational flattening pulls as its J2 `k2f Ω² R³ / (3 M)` about its
    /// spin axis (the potential forces' J2 term, times the body's mass).
    #[test]
    fn rotational_flattening_is_the_spin_axis_j2() {
        let (m0, m, rs) = (1.1, 2e-4, 5e-3);
        let t = on(false, true, STAR, rs);
        let ws: [f64; 3] = [0.3, -0.2, 0.9];
        let w = (ws[0] * ws[0] + ws[1] * ws[1] + ws[2] * ws[2]).sqrt();
        let star = ws.map(|c| c * STAR.ic * m0 * rs * rs);
        let x = [0.04, -0.013, 0.021];
        let r = tidal_rates(
            &t,
            &TidalBody::NONE,
            m0,
            m,
            0.0,
            x,
            [0.1; 3],
            [0.0; 3],
            star,
        );
        let j2 = STAR.k2f * w * w * rs * rs * rs / (3.0 * m0);
        let f = Forces::resolve(&ForceSettings {
            j2,
            j2_radius: rs,
            central_spin: ws,
            ..Default::default()
        });
        let want = potential_accel(&f, m0, x);
        for c in 0..3 {
            assert!(
                (r.accel[c] - want[c]).abs() <= 1e-12 * want[c].abs().max(1e-30),
                "{c}"
            );
        }
        // The central body's spin takes the opposite torque.
        let torque = cross(x, want.map(|a| a * m));
        for c in 0..3 {
            assert!((r.star_spin[c] + torque[c]).abs() <= 1e-12 * torque[c].abs().max(1e-40));
        }
    }

    struct Many(Vec<Tidal>);

    impl TidalSystem for Many {
        fn get(&self, k: usize) -> Tidal {
            self.0[k]
        }
        fn add(&mut self, k: usize, dv: [f64; 3], ds: [f64; 3]) {
            for c in 0..3 {
                self.0[k].v[c] += dv[c];
                self.0[k].spin[c] += ds[c];
            }
        }
    }

    /// Orbital angular momentum `Σ m x × v` plus every spin, and the democratic-heliocentric
    /// kinetic energy.
    fn totals(m0: f64, b: &Many, star: [f64; 3]) -> ([f64; 3], f64) {
        let mut l = star;
        let (mut e, mut p) = (0.0, [0.0; 3]);
        for one in &b.0 {
            let h = cross(one.x, one.v);
            for c in 0..3 {
                l[c] += one.m * h[c] + one.spin[c];
                p[c] += one.m * one.v[c];
            }
            e += 0.5 * one.m * (one.v[0] * one.v[0] + one.v[1] * one.v[1] + one.v[2] * one.v[2]);
        }
        (
            l,
            e + (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) / (2.0 * m0),
        )
    }

    /// A kick of strong tides and flattening on random bodies with random spins moves
    /// angular momentum between the orbits and the spins, and keeps the total to rounding;
    /// the work it reports is the kinetic energy's change.
    #[test]
    fn kick_conserves_total_angular_momentum_and_reports_its_work() {
        let mut rng = Rng::new(29);
        let m0 = 0.9;
        let t = on(true, true, STAR, 0.02);
        for _ in 0..50 {
            let mut b = Many(
                (0..4)
                    .map(|_| {
                        let m = 10f64.powf(rng.range(-6.0, -3.0));
                        let radius = 10f64.powf(rng.range(-4.0, -2.5));
                        let x: [f64; 3] = std::array::from_fn(|_| rng.range(-0.1, 0.1));
                        let v: [f64; 3] = std::array::from_fn(|_| rng.range(-5.0, 5.0));
                        let w: [f64; 3] = std::array::from_fn(|_| rng.range(-50.0, 50.0));
                        Tidal {
                            m,
                            radius,
                            body: PLANET,
                            x,
                            v,
                            spin: w.map(|c| c * PLANET.ic * m * radius * radius),
                        }
                    })
                    .collect(),
            );
            let mut star: [f64; 3] =
                std::array::from_fn(|_| rng.range(-1.0, 1.0) * 0.07 * m0 * 4e-4 * 30.0);
            let (l0, e0) = totals(m0, &b, star);
            let orbit0 = totals(m0, &b, [0.0; 3]).0;
            let work = tide_kick_system(&t, m0, 0.01, 4, &mut star, &mut b);
            let (l1, e1) = totals(m0, &b, star);
            let scale = l0.iter().map(|c| c.abs()).fold(0.0, f64::max);
            let mut moved = 0.0f64;
            for c in 0..3 {
                assert!((l1[c] - l0[c]).abs() <= 1e-14 * scale, "{l0:?} -> {l1:?}");
                moved = moved.max((totals(m0, &b, [0.0; 3]).0[c] - orbit0[c]).abs());
            }
            assert!(moved > 1e-9 * scale, "the kick moved no angular momentum");
            assert!(
                (work - (e1 - e0)).abs() <= 1e-12 * e0.abs(),
                "{work} vs {}",
                e1 - e0
            );
        }
    }

    #[test]
    fn table_lookup_and_checks() {
        let late = TidalBody { k2: 0.1, ..PLANET };
        let t = TidalTable::new(vec![(7, PLANET), (2, STAR), (7, late)]);
        assert_eq!(t.get(2), STAR);
        assert_eq!(t.get(7), late, "the last entry of an id wins");
        assert_eq!(t.get(3), TidalBody::NONE);
        assert_eq!(t, t);
        assert_ne!(t, TidalTable::new(vec![(2, STAR)]));
        for (bad, field) in [
            (TidalBody { k2: -0.1, ..PLANET }, "k2"),
            (TidalBody { k2f: 1.6, ..PLANET }, "k2f"),
            (
                TidalBody {
                    tau: f64::NAN,
                    ..PLANET
                },
                "tau",
            ),
            (TidalBody { ic: 0.0, ..PLANET }, "Ic"),
            (TidalBody { ic: 0.7, ..PLANET }, "Ic"),
        ] {
            assert_eq!(bad.check().unwrap_err().0, field);
        }
        assert!(PLANET.check().is_ok() && STAR.check().is_ok());
    }
}
