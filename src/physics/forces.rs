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
    /// The Yarkovsky effect, diurnal and seasonal (GENGA `Use Yarkovsky = 1`; see
    /// [`yarkovsky_accel`]).
    pub yarkovsky: bool,
    /// The small bodies' thermal and bulk properties (GENGA's `Asteroid ...` keys).
    pub asteroid: Asteroid,
    /// GENGA's gas disk: drag, type-I damping and migration (see [`crate::physics::gas`]).
    pub gas: GasDisk,
    /// Tides and rotational deformation with the spins evolved (see
    /// [`crate::physics::tides`]); `central_spin` is the central body's initial spin.
    pub tides: TideSettings,
}

/// Thermal and bulk properties of the small bodies for the Yarkovsky effect (GENGA's defaults).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Asteroid {
    /// Emissivity (GENGA `Asteroid emissivity eps`).
    pub emissivity: f64,
    /// Density in kg/m^3 (GENGA `Asteroid density rho`): the thermal inertia's, and the mass of
    /// a massless body.
    pub density: f64,
    /// Specific heat capacity in J/(kg K) (GENGA `Asteroid specific heat capacity C`).
    pub heat_capacity: f64,
    /// Bond albedo (GENGA `Asteroid albedo A`).
    pub albedo: f64,
    /// Thermal conductivity in W/(m K) (GENGA `Asteroid thermal conductivity K`).
    pub conductivity: f64,
}

impl Default for Asteroid {
    fn default() -> Self {
        Asteroid {
            emissivity: 0.95,
            density: 3500.0,
            heat_capacity: 680.0,
            albedo: 0.2,
            conductivity: 2.65,
        }
    }
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
            yarkovsky: false,
            asteroid: Asteroid::default(),
            gas: GasDisk::default(),
            tides: TideSettings::default(),
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
    Emissivity,
    Density,
    HeatCapacity,
    Albedo,
    Conductivity,
    /// A setting of the gas disk.
    Gas(GasField),
    /// A tidal property of the central body (`k2`, `k2f`, `tau`, `Ic`).
    Star(&'static str),
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
            ForceField::Emissivity => "forces.asteroid.emissivity",
            ForceField::Density => "forces.asteroid.density",
            ForceField::HeatCapacity => "forces.asteroid.heat_capacity",
            ForceField::Albedo => "forces.asteroid.albedo",
            ForceField::Conductivity => "forces.asteroid.conductivity",
            ForceField::Gas(g) => g.scenario_field(),
            ForceField::Star(p) => match p {
                "k2" => "forces.tides.star.k2",
                "k2f" => "forces.tides.star.k2f",
                "tau" => "forces.tides.star.tau",
                _ => "forces.tides.star.ic",
            },
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
            ForceField::Emissivity => "Asteroid emissivity eps",
            ForceField::Density => "Asteroid density rho",
            ForceField::HeatCapacity => "Asteroid specific heat capacity C",
            ForceField::Albedo => "Asteroid albedo A",
            ForceField::Conductivity => "Asteroid thermal conductivity K",
            ForceField::Gas(g) => g.genga_key(),
            ForceField::Star(p) => match p {
                "k2" => "Star Love Number",
                "k2f" => "Star fluid Love Number",
                "tau" => "Star tau",
                _ => "Star Ic",
            },
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
        if self.yarkovsky {
            let a = &self.asteroid;
            let positive = [
                (
                    a.emissivity,
                    ForceField::Emissivity,
                    "an emissivity in (0, 1]",
                ),
                (a.density, ForceField::Density, "a density in kg/m^3"),
                (
                    a.heat_capacity,
                    ForceField::HeatCapacity,
                    "a heat capacity in J/(kg K)",
                ),
                (
                    a.conductivity,
                    ForceField::Conductivity,
                    "a thermal conductivity in W/(m K)",
                ),
                (
                    self.solar_constant,
                    ForceField::SolarConstant,
                    "a solar constant in W/m^2",
                ),
            ];
            for (v, f, what) in positive {
                if !(v.is_finite() && v > 0.0) {
                    return Err((f, format!("expected {what} > 0, got {v}")));
                }
            }
            if a.emissivity > 1.0 {
                return Err((
                    ForceField::Emissivity,
                    format!("expected an emissivity in (0, 1], got {}", a.emissivity),
                ));
            }
            if !(a.albedo.is_finite() && (0.0..1.0).contains(&a.albedo)) {
                return Err((
                    ForceField::Albedo,
                    format!("expected a Bond albedo in [0, 1), got {}", a.albedo),
                ));
            }
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
        if self.tides.is_on() {
            self.tides
                .star
                .check()
                .map_err(|(p, msg)| (ForceField::Star(p), msg))?;
        }
        self.gas
            .check()
            .map_err(|(g, msg)| (ForceField::Gas(g), msg))
    }

    /// True when no extra force is on.
    pub fn is_off(&self) -> bool {
        !self.gr
            && self.j2 == 0.0
            && !self.poynting_robertson
            && !self.yarkovsky
            && !self.gas.on
            && !self.tides.is_on()
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
                " poynting_robertson qpr={:e} solar_constant={:e} solar_wind={:e} rho={:e}",
                self.qpr, self.solar_constant, self.solar_wind, self.asteroid.density
            ));
        }
        if self.yarkovsky {
            let a = &self.asteroid;
            f.push_str(&format!(
                " yarkovsky solar_constant={:e} eps={:e} rho={:e} C={:e} A={:e} K={:e}",
                self.solar_constant,
                a.emissivity,
                a.density,
                a.heat_capacity,
                a.albedo,
                a.conductivity
            ));
        }
        f.push_str(&self.gas.fingerprint());
        if self.tides.is_on() {
            let s = self.central_spin;
            f.push_str(&self.tides.fingerprint());
            f.push_str(&format!(" star_spin=({:e},{:e},{:e})", s[0], s[1], s[2]));
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
