//! The extra forces' settings as the scenario and GENGA's keys give them ([`ForceSettings`]),
//! checked, and their fingerprint.

use super::*;

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
