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
//!   `Asteroid density rho`, as in GENGA). Velocity-dependent, so a kick pair of its own around the step; its work is
//!   booked like the mergers' energy U.
//! - **The gas disk** (GENGA's `Use gas disk = 1`; [`crate::physics::gas`]): drag, type-I
//!   damping and migration, velocity-dependent too, in the same kick pair as the radiation.

use crate::physics::energy::central_kinetic_change;
use crate::physics::gas::profile::DiskProfile;
use crate::physics::gas::{gas_accel, Gas, GasDisk, GasField, GAS_FILE, GAS_OFF, GAS_ON, GAS_PULL};
use crate::physics::merge::cross;
use crate::physics::tides::{TidalTable, TideSettings, Tides};
use crate::state::{helio, heliocentric_shift};
use crate::units;
use serde::{Deserialize, Serialize};

mod radiation;
mod settings;

pub use radiation::*;
pub use settings::*;

/// Speed of light in m/s.
pub const C_SI: f64 = 299_792_458.0;
/// Gravitational constant in SI units (CODATA 2018), for the solar mass in kg.
const G_SI: f64 = 6.674_30e-11;
/// Stefan–Boltzmann constant in W m^-2 K^-4.
const STEFAN_BOLTZMANN: f64 = 5.670_374_419e-8;

/// Speed of light in code units (AU per code time unit of 1/k days): about 10065.32.
pub fn speed_of_light() -> f64 {
    let au_m = units::AU_CM * 1e-2;
    let unit_s = units::code_to_days(1.0) * 86_400.0;
    C_SI * unit_s / au_m
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
    /// Mass per cubed radius of a body without mass (`4π/3 ρ` of `Asteroid density rho`, code
    /// units), for the radiation forces.
    pub massless_density: f64,
    /// 1 with the Yarkovsky effect on, else 0, and its constants (SI): the thermal inertia
    /// `sqrt(K ρ C)`, `ε σ`, `1 - A`, `ρ C`, `K` and the solar constant.
    pub yarkovsky: f64,
    pub thermal_inertia: f64,
    pub eps_sigma: f64,
    pub absorbed: f64,
    pub rho_c: f64,
    pub conductivity: f64,
    pub solar_constant: f64,
    /// `3 / (ρ c)` (SI): `(1 - A) F / (3 ρ R c)` is the Yarkovsky force scale per unit mass.
    pub inv_rho_c_light: f64,
    /// The gas disk's constants (all 0 when off).
    pub gas: Gas,
    /// The tides' and rotational deformation's constants (off unless set with
    /// [`Forces::with_tides`]).
    pub tides: Tides,
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
        yarkovsky: 0.0,
        thermal_inertia: 0.0,
        eps_sigma: 0.0,
        absorbed: 0.0,
        rho_c: 0.0,
        conductivity: 0.0,
        solar_constant: 0.0,
        inv_rho_c_light: 0.0,
        gas: Gas::OFF,
        tides: Tides::OFF,
    };

    /// The step's constants for `settings`.
    pub fn resolve(settings: &ForceSettings) -> Forces {
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
        // kg/m³ to Msun/AU³.
        let a = &settings.asteroid;
        let rho = a.density * 1e-3 * units::AU_CM.powi(3) / units::MSUN_G;
        let yarkovsky = settings.yarkovsky;
        let on = |v: f64| if yarkovsky { v } else { 0.0 };
        Forces {
            gr: if settings.gr { 6.0 / (c * c) } else { 0.0 },
            j2r2: settings.j2 * settings.j2_radius * settings.j2_radius,
            axis,
            radiation,
            drag,
            massless_density: 4.0 / 3.0 * std::f64::consts::PI * rho,
            yarkovsky: on(1.0),
            thermal_inertia: on((a.conductivity * a.density * a.heat_capacity).sqrt()),
            eps_sigma: on(a.emissivity * STEFAN_BOLTZMANN),
            absorbed: on(1.0 - a.albedo),
            rho_c: on(a.density * a.heat_capacity),
            conductivity: on(a.conductivity),
            solar_constant: on(settings.solar_constant),
            inv_rho_c_light: on(3.0 / (a.density * C_SI)),
            gas: Gas::resolve(&settings.gas),
            tides: Tides::OFF,
        }
    }

    /// These constants with the tides of `settings` around a central body of radius
    /// `star_radius` (AU), the bodies' properties in `bodies`.
    pub fn with_tides(
        mut self,
        settings: &ForceSettings,
        star_radius: f64,
        bodies: TidalTable,
    ) -> Forces {
        self.tides = Tides::resolve(&settings.tides, star_radius, bodies);
        self
    }

    /// Length of [`Forces::device_constants`] (`ORR_FORCES_LEN` of `kernels/common/forces.h`).
    pub const DEVICE_LEN: usize = 45;

    /// The device's forces buffer: [`Forces::device_constants`], then the gas disk's gravity
    /// table (`gravity::DiskPull::values`; empty without it), then a tabulated disk's radii
    /// and values (`gas::profile::DiskProfile`; empty without it).
    pub fn device_buffer(&self) -> Vec<f64> {
        let mut b = self.device_constants().to_vec();
        b.extend_from_slice(self.gas.pull.values);
        b.extend_from_slice(self.gas.profile.radii);
        b.extend_from_slice(self.gas.profile.values);
        b
    }

    /// The length of [`Forces::device_buffer`].
    pub fn device_buffer_len(&self) -> usize {
        let p = &self.gas.profile;
        Self::DEVICE_LEN + self.gas.pull.values.len() + p.radii.len() + p.values.len()
    }

    /// The gas disk tabulated by `profile` (see [`Gas::with_profile`]).
    pub fn with_gas_profile(mut self, profile: DiskProfile) -> Forces {
        self.gas = self.gas.with_profile(profile);
        self
    }

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
            self.yarkovsky,
            self.thermal_inertia,
            self.eps_sigma,
            self.absorbed,
            self.rho_c,
            self.conductivity,
            self.solar_constant,
            self.inv_rho_c_light,
            self.gas.drag_below,
            self.gas.damping_below,
            self.gas.sigma,
            self.gas.alpha,
            self.gas.beta,
            self.gas.eta_slope,
            self.gas.migration,
            self.gas.inner,
            self.gas.outer,
            self.tides.tides,
            self.tides.rotation,
            self.tides.star.k2,
            self.tides.star.k2f,
            self.tides.star.tau,
            self.tides.star.ic,
            self.tides.star_radius,
            self.gas.enhance_below,
            self.gas.potential_below,
            self.gas.depletion,
            self.gas.pull.rows as f64,
            self.gas.pull.r0,
            self.gas.pull.dr,
            self.gas.pull.ds,
            self.gas.profile.radii.len() as f64,
            self.gas.profile.ln_r0,
            self.gas.profile.dln,
            self.gas.block,
            self.gas.block_frac,
            (Self::DEVICE_LEN + self.gas.pull.values.len()) as f64,
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

    /// True when a velocity-dependent force (radiation, Yarkovsky, the gas disk's drag and
    /// damping) is on: the step has a radiation kick pair, which carries them all.
    #[inline(always)]
    pub fn has_radiation(&self) -> bool {
        self.radiation != 0.0 || self.yarkovsky != 0.0 || self.gas.is_on()
    }

    /// True when tides or rotational deformation are on: the step has a tide kick pair.
    #[inline(always)]
    pub fn has_tides(&self) -> bool {
        self.tides.is_on()
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

/// The change of [`potential_accel`] for the change `dx` of `x`: its Jacobian times `dx`, the
/// potential's term of the variational equations (Mikkola & Innanen 1999). With `ρ = x·dx / r²`
/// and `dz' = dx·ŝ`: GR's `-g dx + 4 g ρ x` (`g = (6/c²) μ² / r⁴`); J2's `k = (3/2) μ J2 R² / r⁵`
/// and `P = 5 z'²/r² - 1` change by `-5 k ρ` and `10 (z'/r²)(dz' - z' ρ)`, and the acceleration
/// `(k P - g) x - 2 k z' ŝ` by the product rule.
#[inline(always)]
pub fn potential_accel_tangent(f: &Forces, mu: f64, x: [f64; 3], dx: [f64; 3]) -> [f64; 3] {
    let r2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
    let ir2 = 1.0 / r2;
    let rho = (x[0] * dx[0] + x[1] * dx[1] + x[2] * dx[2]) * ir2;
    let g = f.gr * mu * mu * ir2 * ir2;
    let dg = -4.0 * g * rho;
    if f.j2r2 == 0.0 {
        return [0, 1, 2].map(|c| -g * dx[c] - dg * x[c]);
    }
    let ir = 1.0 / r2.sqrt();
    let zp = x[0] * f.axis[0] + x[1] * f.axis[1] + x[2] * f.axis[2];
    let dzp = dx[0] * f.axis[0] + dx[1] * f.axis[1] + dx[2] * f.axis[2];
    let k = 1.5 * mu * f.j2r2 * ir2 * ir2 * ir;
    let dk = -5.0 * k * rho;
    let p = 5.0 * zp * zp * ir2 - 1.0;
    let dp = 10.0 * zp * ir2 * (dzp - zp * rho);
    let radial = k * p - g;
    let d_radial = dk * p + k * dp - dg;
    let d_axial = 2.0 * (dk * zp + k * dzp);
    [0, 1, 2].map(|c| d_radial * x[c] + radial * dx[c] - d_axial * f.axis[c])
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
    torque_of_kick(pulling, |k| {
        let (m, x) = bodies(k);
        let a = potential_accel(f, mu, x);
        (m, x, [dt * a[0], dt * a[1], dt * a[2]])
    })
}

/// `sum m x × d` over the `pulling` bodies in slot order, `bodies(k)` giving `(m, x, d)` with
/// `d` the kick's velocity change ([`potential_torque`] with the changes known).
#[inline(always)]
pub fn torque_of_kick(
    pulling: usize,
    bodies: impl Fn(usize) -> (f64, [f64; 3], [f64; 3]),
) -> [f64; 3] {
    let mut l = [0.0; 3];
    for k in 0..pulling {
        let (m, x, d) = bodies(k);
        l[0] += m * (x[1] * d[2] - x[2] * d[1]);
        l[1] += m * (x[2] * d[0] - x[0] * d[2]);
        l[2] += m * (x[0] * d[1] - x[1] * d[0]);
    }
    l
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
        Forces::resolve(&s)
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
            asteroid: Asteroid {
                density: 1000.0,
                ..Default::default()
            },
            ..Default::default()
        };
        let f = Forces::resolve(&s);
        let r = 1e-4 / units::AU_CM;
        let a = radiation_accel(&f, 1.0, 0.0, 0.0, r, [1.0, 0.0, 0.0], [0.0; 3], [0.0; 3]);
        assert!((a[0] - 0.576).abs() < 0.002, "{}", a[0]);
        // The same grain given its mass instead.
        let r_cm = r * units::AU_CM;
        let m = 4.0 / 3.0 * std::f64::consts::PI * r_cm * r_cm * r_cm / units::MSUN_G;
        let b = radiation_accel(&f, 1.0, 0.0, m, r, [1.0, 0.0, 0.0], [0.0; 3], [0.0; 3]);
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
        let spin = [0.0; 3];
        let body = [
            Irradiated {
                m: 1e-3,
                s: 1e-4,
                x: [1.0, 0.1, 0.0],
                v: [0.1, 1.0, 0.0],
                spin,
            },
            Irradiated {
                m: 2e-3,
                s: 2e-4,
                x: [-0.5, 1.5, 0.1],
                v: [-0.7, -0.2, 0.05],
                spin,
            },
        ];
        let (m0, dt) = (1.0, 0.01);
        let sys = radiation_system(&f, m0, dt, 2, |k| body[k]);
        let dv: Vec<[f64; 3]> = body
            .iter()
            .map(|&b| radiation_dv(&f, m0, dt, &sys, b))
            .collect();
        let dp: [f64; 3] = std::array::from_fn(|c| body[0].m * dv[0][c] + body[1].m * dv[1][c]);
        for (k, b) in body.iter().enumerate() {
            let a = radiation_accel(&f, m0, dt, b.m, b.s, b.x, helio(b.v, sys.shift), b.spin);
            for c in 0..3 {
                let dh = dv[k][c] + dp[c] / m0;
                assert!((dh - dt * a[c]).abs() < 1e-15 * (dt * a[c]).abs().max(1e-12));
            }
        }
    }
}
