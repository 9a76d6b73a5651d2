//! Forces beyond point-mass gravity (GENGA's extra-force keys), per body, written once: the CPU
//! passes call these functions and `kernels/common/forces.h` is their device twin, operation for
//! operation (bitwise in the host C and C++ builds).
//!
//! Two kinds, placed in the step as DESIGN.md says:
//! - **Potential forces** depend on the heliocentric position only and are conservative: the
//!   central body's general-relativistic correction as the Nobili & Roxburgh (1986) potential
//!   `Φ = -3 μ² / (c² r²)` (REBOUNDx's `gr_potential`, WHFast512's GR), and the central body's
//!   oblateness `Φ = μ J2 R² (3 z'² / r² - 1) / (2 r³)` about its spin axis (z' = x·ŝ). They are
//!   part of the interaction Hamiltonian: a kick by `-∇Φ` with every interaction kick, for every
//!   body (close-encounter groups included: Bulirsch–Stoer replaces only the drift, so a group's
//!   bodies get the same kicks and an encounter never switches them off). Their energy
//!   `Σ m Φ` is part of the potential energy.
//! - **Radiation** (Burns, Lamy & Soter 1979, GENGA's `Use Poynting-Robertson = 1` with its
//!   solar-wind factor sw, Liou, Zook & Jackson 1995): radiation pressure and
//!   Poynting–Robertson drag, `a = q / r² [(1 - (1+sw) ṙ/c) r̂ - (1+sw) v / c]` with the
//!   heliocentric velocity v and `q = β μ = S AU² π s² Qpr / (c m)` from the solar constant S at
//!   1 AU, the body's radius s and mass m (a massless body has the mass of a sphere of density
//!   `Default rho`). Velocity-dependent, so a kick pair of its own around the step; its work is
//!   booked like the mergers' energy U.

use crate::units;
use serde::{Deserialize, Serialize};

/// Speed of light in m/s.
pub const C_SI: f64 = 299_792_458.0;
/// Gravitational constant in SI units (CODATA 2018), for the solar mass in kg.
const G_SI: f64 = 6.674_30e-11;

/// Speed of light in code units (AU per code time unit of 1/k days): about 10065.32.
pub fn speed_of_light() -> f64 {
    let au_m = units::AU_CM * 1e-2;
    let unit_s = units::code_to_days(1.0) * 86_400.0;
    C_SI * unit_s / au_m
}

/// The extra forces as the user asks for them (scenario field `forces`, GENGA's keys); see
/// [`Forces::resolve`] for the constants the step uses.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ForceSettings {
    /// General relativity of the central body (GENGA `Use GR = 1`; see the module docs).
    pub gr: bool,
    /// The central body's J2 (GENGA `J2`), 0 off.
    pub j2: f64,
    /// The radius (AU) J2 refers to (GENGA `J2 radius`).
    pub j2_radius: f64,
    /// The central body's spin (GENGA `Star spin_x/y/z`): its direction is J2's axis (z when 0).
    pub central_spin: [f64; 3],
    /// Radiation pressure and Poynting–Robertson drag (GENGA `Use Poynting-Robertson = 1`).
    pub poynting_robertson: bool,
    /// Radiation pressure coefficient Qpr (GENGA `Radiation Pressure Coefficient Qpr`).
    pub qpr: f64,
    /// Solar constant at 1 AU in W/m² (GENGA `Solar Constant`).
    pub solar_constant: f64,
    /// Ratio of solar-wind drag to Poynting–Robertson drag (GENGA `Solar Wind factor`).
    pub solar_wind: f64,
}

impl Default for ForceSettings {
    fn default() -> Self {
        ForceSettings {
            gr: false,
            j2: 0.0,
            j2_radius: 0.0,
            central_spin: [0.0; 3],
            poynting_robertson: false,
            qpr: 1.0,
            solar_constant: 1367.0,
            solar_wind: 0.0,
        }
    }
}

/// A setting of [`ForceSettings`], with its scenario field and its GENGA key, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForceField {
    J2,
    J2Radius,
    CentralSpin,
    Qpr,
    SolarConstant,
    SolarWind,
}

impl ForceField {
    /// The scenario field (`forces.j2`, ...).
    pub fn scenario_field(self) -> &'static str {
        match self {
            ForceField::J2 => "forces.j2",
            ForceField::J2Radius => "forces.j2_radius",
            ForceField::CentralSpin => "forces.central_spin",
            ForceField::Qpr => "forces.qpr",
            ForceField::SolarConstant => "forces.solar_constant",
            ForceField::SolarWind => "forces.solar_wind",
        }
    }

    /// The GENGA `param.dat` key.
    pub fn genga_key(self) -> &'static str {
        match self {
            ForceField::J2 => "J2",
            ForceField::J2Radius => "J2 radius",
            ForceField::CentralSpin => "Star spin_z",
            ForceField::Qpr => "Radiation Pressure Coefficient Qpr",
            ForceField::SolarConstant => "Solar Constant",
            ForceField::SolarWind => "Solar Wind factor",
        }
    }
}

impl ForceSettings {
    /// Check every setting: the first bad one with what was expected.
    pub fn check(&self) -> std::result::Result<(), (ForceField, String)> {
        let finite = |v: f64, f: ForceField| match v.is_finite() {
            true => Ok(()),
            false => Err((f, format!("expected a finite number, got {v}"))),
        };
        finite(self.j2, ForceField::J2)?;
        if !(self.j2_radius.is_finite() && self.j2_radius >= 0.0) {
            return Err((
                ForceField::J2Radius,
                format!("expected a J2 radius >= 0 AU, got {}", self.j2_radius),
            ));
        }
        if self.j2 != 0.0 && self.j2_radius == 0.0 {
            return Err((
                ForceField::J2Radius,
                "expected a J2 radius > 0 AU with J2 != 0 (J2 would have no effect)".into(),
            ));
        }
        for v in self.central_spin {
            finite(v, ForceField::CentralSpin)?;
        }
        if self.poynting_robertson {
            for (v, f, what) in [
                (
                    self.qpr,
                    ForceField::Qpr,
                    "a radiation pressure coefficient",
                ),
                (
                    self.solar_constant,
                    ForceField::SolarConstant,
                    "a solar constant in W/m^2",
                ),
                (
                    self.solar_wind,
                    ForceField::SolarWind,
                    "a solar-wind factor",
                ),
            ] {
                if !(v.is_finite() && v >= 0.0) {
                    return Err((f, format!("expected {what} >= 0, got {v}")));
                }
            }
        }
        Ok(())
    }

    /// True when no extra force is on.
    pub fn is_off(&self) -> bool {
        !self.gr && self.j2 == 0.0 && !self.poynting_robertson
    }

    /// The settings as a fingerprint fragment (empty when every force is off, so that
    /// checkpoints of runs without them keep their fingerprint).
    pub fn fingerprint(&self) -> String {
        let mut f = String::new();
        if self.gr {
            f.push_str(" gr=potential");
        }
        if self.j2 != 0.0 {
            let s = self.central_spin;
            f.push_str(&format!(
                " j2={:e} j2_radius={:e} spin=({:e},{:e},{:e})",
                self.j2, self.j2_radius, s[0], s[1], s[2]
            ));
        }
        if self.poynting_robertson {
            f.push_str(&format!(
                " poynting_robertson qpr={:e} solar_constant={:e} solar_wind={:e}",
                self.qpr, self.solar_constant, self.solar_wind
            ));
        }
        f
    }
}

/// The extra forces as the step uses them: constants in code units, zero where a force is off.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Forces {
    /// `6 / c²` with GR on, else 0: `a = -(6 / c²) μ² x / r⁴`.
    pub gr: f64,
    /// `J2 R²`, 0 without J2.
    pub j2r2: f64,
    /// J2's axis (unit vector).
    pub axis: [f64; 3],
    /// `S AU² π Qpr / (c M☉)` in code units with radiation on, else 0: `q = radiation s² / m`.
    pub radiation: f64,
    /// `(1 + sw) / c`: the drag terms' factor.
    pub drag: f64,
    /// Mass per cubed radius of a body without mass (`4π/3 ρ` of `Default rho`, code units).
    pub massless_density: f64,
}

impl Forces {
    /// No extra force.
    pub const NONE: Forces = Forces {
        gr: 0.0,
        j2r2: 0.0,
        axis: [0.0, 0.0, 1.0],
        radiation: 0.0,
        drag: 0.0,
        massless_density: 0.0,
    };

    /// The step's constants for `settings`; `default_rho` (g/cm³) gives massless bodies a
    /// mass for the radiation forces.
    pub fn resolve(settings: &ForceSettings, default_rho: f64) -> Forces {
        let c = speed_of_light();
        let spin = settings.central_spin;
        let norm = (spin[0] * spin[0] + spin[1] * spin[1] + spin[2] * spin[2]).sqrt();
        let axis = if norm > 0.0 {
            [spin[0] / norm, spin[1] / norm, spin[2] / norm]
        } else {
            [0.0, 0.0, 1.0]
        };
        let (radiation, drag) = if settings.poynting_robertson {
            // F = S (AU/r)² π s² Qpr / c on a body of radius s (m) and mass m (kg); in code
            // units (s and r in AU, m in Msun) the acceleration is radiation s² / (m r²).
            let au_m = units::AU_CM * 1e-2;
            let unit_s = units::code_to_days(1.0) * 86_400.0;
            let msun_kg =
                units::K_GAUSS * units::K_GAUSS * au_m * au_m * au_m / (86_400.0 * 86_400.0) / G_SI;
            let k = settings.solar_constant * std::f64::consts::PI * au_m * unit_s * unit_s
                / (C_SI * msun_kg);
            (k * settings.qpr, (1.0 + settings.solar_wind) / c)
        } else {
            (0.0, 0.0)
        };
        // g/cm³ to Msun/AU³.
        let rho = default_rho * units::AU_CM.powi(3) / units::MSUN_G;
        Forces {
            gr: if settings.gr { 6.0 / (c * c) } else { 0.0 },
            j2r2: settings.j2 * settings.j2_radius * settings.j2_radius,
            axis,
            radiation,
            drag,
            massless_density: 4.0 / 3.0 * std::f64::consts::PI * rho,
        }
    }

    /// Length of [`Forces::device_constants`] (`ORR_FORCES_LEN` of `kernels/common/forces.h`).
    pub const DEVICE_LEN: usize = 8;

    /// The constants in the order the device functions read them from their buffer.
    pub fn device_constants(&self) -> [f64; Self::DEVICE_LEN] {
        let [ax, ay, az] = self.axis;
        [
            self.gr,
            self.j2r2,
            ax,
            ay,
            az,
            self.radiation,
            self.drag,
            self.massless_density,
        ]
    }

    /// True when a potential force (GR, J2) is on: the interaction kicks carry it.
    #[inline(always)]
    pub fn has_potential(&self) -> bool {
        self.gr != 0.0 || self.j2r2 != 0.0
    }

    /// True when J2 is on: its torque on the orbits is booked (see [`potential_torque`]).
    #[inline(always)]
    pub fn has_torque(&self) -> bool {
        self.j2r2 != 0.0
    }

    /// True when the radiation forces are on: the step has a radiation kick pair.
    #[inline(always)]
    pub fn has_radiation(&self) -> bool {
        self.radiation != 0.0
    }
}

/// Acceleration of the potential forces on a body at heliocentric `x` around a central body of
/// `mu = G M0` (GR: `-(6/c²) μ² x / r⁴`; J2: `(3/2) μ J2 R² / r⁵ [(5 z'²/r² - 1) x - 2 z' ŝ]`).
/// Device twin: `orr_potential_accel`.
#[inline(always)]
pub fn potential_accel(f: &Forces, mu: f64, x: [f64; 3]) -> [f64; 3] {
    let r2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
    let ir2 = 1.0 / r2;
    let g = f.gr * mu * mu * ir2 * ir2;
    if f.j2r2 == 0.0 {
        // GR alone (the same bits as the general form with J2 = 0, without its root).
        return [-g * x[0], -g * x[1], -g * x[2]];
    }
    let ir = 1.0 / r2.sqrt();
    let zp = x[0] * f.axis[0] + x[1] * f.axis[1] + x[2] * f.axis[2];
    let k = 1.5 * mu * f.j2r2 * ir2 * ir2 * ir;
    let radial = k * (5.0 * zp * zp * ir2 - 1.0) - g;
    let axial = 2.0 * k * zp;
    [
        radial * x[0] - axial * f.axis[0],
        radial * x[1] - axial * f.axis[1],
        radial * x[2] - axial * f.axis[2],
    ]
}

/// Potential energy per unit mass of the potential forces at `x` (`-3 μ²/(c² r²)` and
/// `μ J2 R² (3 z'²/r² - 1) / (2 r³)`). Device twin: `orr_potential_energy`.
#[inline(always)]
pub fn potential_energy(f: &Forces, mu: f64, x: [f64; 3]) -> f64 {
    let r2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
    let ir2 = 1.0 / r2;
    let ir = 1.0 / r2.sqrt();
    let zp = x[0] * f.axis[0] + x[1] * f.axis[1] + x[2] * f.axis[2];
    0.5 * mu * f.j2r2 * ir2 * ir * (3.0 * zp * zp * ir2 - 1.0) - 0.5 * f.gr * mu * mu * ir2
}

/// The angular momentum one potential kick of `dt` gives the `pulling` bodies of a system,
/// `sum m x × (dt a)`, summed in slot order: J2's torque, which the central body's spin takes
/// back (booked like the mergers' lost angular momentum; GR's central force gives none).
/// `bodies(k)` gives the k-th pulling body's `(m, x)`. Device twin: `orr_potential_torque`.
pub fn potential_torque(
    f: &Forces,
    mu: f64,
    dt: f64,
    pulling: usize,
    bodies: impl Fn(usize) -> (f64, [f64; 3]),
) -> [f64; 3] {
    let mut l = [0.0; 3];
    for k in 0..pulling {
        let (m, x) = bodies(k);
        let a = potential_accel(f, mu, x);
        let d = [dt * a[0], dt * a[1], dt * a[2]];
        l[0] += m * (x[1] * d[2] - x[2] * d[1]);
        l[1] += m * (x[2] * d[0] - x[0] * d[2]);
        l[2] += m * (x[0] * d[1] - x[1] * d[0]);
    }
    l
}

/// Radiation acceleration (pressure and Poynting–Robertson drag with the solar wind) on a body
/// of mass `m` and radius `s` at heliocentric `x` with heliocentric velocity `v`. Device twin:
/// `orr_radiation_accel`.
#[inline(always)]
pub fn radiation_accel(f: &Forces, m: f64, s: f64, x: [f64; 3], v: [f64; 3]) -> [f64; 3] {
    let mass = if m > 0.0 {
        m
    } else {
        s * s * s * f.massless_density
    };
    let r2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
    let ir = 1.0 / r2.sqrt();
    let q = f.radiation * s * s / (mass * r2);
    let rdot = (x[0] * v[0] + x[1] * v[1] + x[2] * v[2]) * ir;
    let radial = q * (1.0 - f.drag * rdot) * ir;
    let along = q * f.drag;
    [
        radial * x[0] - along * v[0],
        radial * x[1] - along * v[1],
        radial * x[2] - along * v[2],
    ]
}

/// What one system's radiation kick does, computed before any velocity changes: the shift that
/// makes its velocities heliocentric (`P / M0`), the uniform correction `w = Σ m a / M_tot` that
/// keeps the central body's motion free of the radiation (the barycentre recoils; every
/// heliocentric velocity changes by exactly `dt a` of its own body), and the work on the
/// system's energy and angular momentum (`[ΔE, ΔLx, ΔLy, ΔLz]` of the democratic-heliocentric
/// energy `Σ ½ m v² + |P|²/(2 M0)` and of `Σ m x × v`). `bodies(k)` gives the k-th pulling body's
/// `(m, s, x, v)`; sums run in slot order. Device twin: `orr_radiation_system`.
pub fn radiation_system(
    f: &Forces,
    m0: f64,
    dt: f64,
    pulling: usize,
    bodies: impl Fn(usize) -> (f64, f64, [f64; 3], [f64; 3]),
) -> RadiationSystem {
    let mut p = [0.0; 3];
    let mut mass = 0.0;
    for k in 0..pulling {
        let (m, _, _, v) = bodies(k);
        for c in 0..3 {
            p[c] += m * v[c];
        }
        mass += m;
    }
    let shift = [p[0] / m0, p[1] / m0, p[2] / m0];
    let mut ma = [0.0; 3];
    for k in 0..pulling {
        let (m, s, x, v) = bodies(k);
        let a = radiation_accel(f, m, s, x, helio(v, shift));
        for c in 0..3 {
            ma[c] += m * a[c];
        }
    }
    let mtot = m0 + mass;
    let w = [ma[0] / mtot, ma[1] / mtot, ma[2] / mtot];
    let mut work = [0.0; 4];
    let mut dp = [0.0; 3];
    for k in 0..pulling {
        let (m, s, x, v) = bodies(k);
        let d = radiation_dv(f, dt, w, m, s, x, v, shift);
        work[0] += m * (v[0] * d[0] + v[1] * d[1] + v[2] * d[2])
            + 0.5 * m * (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        work[1] += m * (x[1] * d[2] - x[2] * d[1]);
        work[2] += m * (x[2] * d[0] - x[0] * d[2]);
        work[3] += m * (x[0] * d[1] - x[1] * d[0]);
        for c in 0..3 {
            dp[c] += m * d[c];
        }
    }
    work[0] += (2.0 * (p[0] * dp[0] + p[1] * dp[1] + p[2] * dp[2])
        + (dp[0] * dp[0] + dp[1] * dp[1] + dp[2] * dp[2]))
        / (2.0 * m0);
    RadiationSystem { shift, w, work }
}

/// Values of a system's [`Work`].
pub const WORK_LEN: usize = 7;
/// Where J2's torque starts in a [`Work`].
pub const WORK_TORQUE: usize = 4;

/// The work of the non-conservative forces on one system, tallied in two parts so that each
/// force's sum keeps its order whichever backend runs it: `[0]` the radiation's ΔE, `[1..4]` its
/// ΔL, `[4..7]` the angular momentum J2's torque gave the orbits (device buffer: 7 per system).
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

/// The heliocentric velocity of a democratic-heliocentric velocity `v` (`v + P/M0`).
#[inline(always)]
fn helio(v: [f64; 3], shift: [f64; 3]) -> [f64; 3] {
    [v[0] + shift[0], v[1] + shift[1], v[2] + shift[2]]
}

/// The radiation kick's velocity change of one body: `dt (a - w)`, with `a` at the body's
/// heliocentric velocity. Device twin: `orr_radiation_dv`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn radiation_dv(
    f: &Forces,
    dt: f64,
    w: [f64; 3],
    m: f64,
    s: f64,
    x: [f64; 3],
    v: [f64; 3],
    shift: [f64; 3],
) -> [f64; 3] {
    let a = radiation_accel(f, m, s, x, helio(v, shift));
    [dt * (a[0] - w[0]), dt * (a[1] - w[1]), dt * (a[2] - w[2])]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on(gr: bool, j2: f64, spin: [f64; 3]) -> Forces {
        let s = ForceSettings {
            gr,
            j2,
            j2_radius: 0.01,
            central_spin: spin,
            poynting_robertson: true,
            ..Default::default()
        };
        Forces::resolve(&s, 2.0)
    }

    #[test]
    fn speed_of_light_in_code_units() {
        // 173.1446 AU/day times 58.1324 days.
        assert!(
            (speed_of_light() - 10065.32).abs() < 0.01,
            "{}",
            speed_of_light()
        );
    }

    #[test]
    fn potential_accel_is_minus_the_gradient_of_the_energy() {
        let f = on(true, 1e-2, [0.3, -0.2, 1.0]);
        let mu = 1.3;
        let x = [0.31, -0.17, 0.09];
        let a = potential_accel(&f, mu, x);
        for c in 0..3 {
            let h = 1e-6;
            let mut xp = x;
            let mut xm = x;
            xp[c] += h;
            xm[c] -= h;
            let g = (potential_energy(&f, mu, xp) - potential_energy(&f, mu, xm)) / (2.0 * h);
            assert!(
                (a[c] + g).abs() < 1e-7 * a[c].abs().max(1e-12),
                "{c}: {} {}",
                a[c],
                -g
            );
        }
    }

    #[test]
    fn radiation_beta_of_a_micron_grain() {
        // β = 0.57 Qpr / (ρ[g/cm³] s[µm]) for S = 1361 W/m² (Burns et al. 1979); with S = 1367
        // a 1 µm grain of 1 g/cm³ has β = 0.576.
        let s = ForceSettings {
            poynting_robertson: true,
            ..Default::default()
        };
        let f = Forces::resolve(&s, 1.0);
        let r = 1e-4 / units::AU_CM;
        let a = radiation_accel(&f, 0.0, r, [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]);
        assert!((a[0] - 0.576).abs() < 0.002, "{}", a[0]);
        // The same grain given its mass instead.
        let r_cm = r * units::AU_CM;
        let m = 4.0 / 3.0 * std::f64::consts::PI * r_cm * r_cm * r_cm / units::MSUN_G;
        let b = radiation_accel(&f, m, r, [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]);
        assert!((b[0] / a[0] - 1.0).abs() < 1e-12);
    }

    #[test]
    fn the_radiation_kick_leaves_the_central_body_alone() {
        // Two massive bodies: after the kick, each heliocentric velocity changed by dt a of its
        // own body alone.
        let f = on(false, 0.0, [0.0; 3]);
        let f = Forces {
            radiation: f.radiation * 1e6,
            ..f
        };
        let body = [
            (1e-3, 1e-4, [1.0, 0.1, 0.0], [0.1, 1.0, 0.0]),
            (2e-3, 2e-4, [-0.5, 1.5, 0.1], [-0.7, -0.2, 0.05]),
        ];
        let (m0, dt) = (1.0, 0.01);
        let sys = radiation_system(&f, m0, dt, 2, |k| body[k]);
        let dv: Vec<[f64; 3]> = body
            .iter()
            .map(|&(m, s, x, v)| radiation_dv(&f, dt, sys.w, m, s, x, v, sys.shift))
            .collect();
        let dp: [f64; 3] = std::array::from_fn(|c| body[0].0 * dv[0][c] + body[1].0 * dv[1][c]);
        for (k, &(m, s, x, v)) in body.iter().enumerate() {
            let a = radiation_accel(&f, m, s, x, helio(v, sys.shift));
            for c in 0..3 {
                let dh = dv[k][c] + dp[c] / m0;
                assert!((dh - dt * a[c]).abs() < 1e-15 * (dt * a[c]).abs().max(1e-12));
            }
        }
    }
}
