//! GENGA's gas disk (`Use gas disk = 1`; Morishima, Stadel & Moore 2010, as GENGA's `gas.cu`
//! ports it from pkdgrav): a power-law disk that dissipates exponentially, with aerodynamic drag
//! and type-I tidal damping and migration on the bodies. Both are velocity-dependent, so they
//! ride in the radiation kick pair around the step (see [`crate::physics::forces`]); the device
//! twin of [`gas_accel`] is `orr_gas_accel` in `kernels/common/gas.h`.
//!
//! The disk, with the cylindrical radius `r` (AU), height `z` and time `t`:
//! - surface density `Σ = Σ_10 r^-α exp(-t / τ_diss)`;
//! - scale height `H = h_1 r^(1+β)`, `h_1 = 0.03358` AU (a sound speed of 1 km/s at 1 AU);
//! - density `ρ = Σ / (sqrt(2π) H) exp(-z² / (2H²))`;
//! - gas on circular orbits, slower than Kepler by `η = ½ [(α + 2 - β) H² + ½ z²] / r²`
//!   (`v_gas = v_K (1 - η)`, from the pressure gradient `P ∝ r^-(α+2-β)`; GENGA writes the
//!   constant 1.75 in place of `2 - β`, the same at its default β = 1/4);
//! - gas only between the edges (`inner < r < outer`) and below `|z| < 1.5 r`.
//!
//! The forces (per unit mass, heliocentric velocity `v`):
//! - drag, `a = -(c_D π s² ρ / (2 m)) |v - v_gas| (v - v_gas)` with `c_D = 2` and the body's
//!   radius s (GENGA's quadratic drag; a body without mass has the mass of a sphere of its
//!   radius at `Asteroid density rho`, as for the radiation forces);
//! - type-I damping in Tanaka & Ward's (2004) force form, with `Δv_θ = v_θ - v_K`,
//!   `a_r = (0.104 Δv_θ + 0.176 v_r) / t_wave`, `a_θ = (-1.736 Δv_θ + 0.325 v_r) / t_wave`,
//!   `a_z = (-1.088 v_z - 0.871 Ω z) / t_wave`, where
//!   `1/t_wave = (m/M0)(Σ r²/M0)(r/H)⁴ Ω / (1 + ¼ χ³)` and `χ = a sqrt(e² + sin² i) / (2H)`
//!   (Papaloizou & Larwood 2000's reduction at large eccentricity, as GENGA applies it);
//! - type-I migration (Tanaka, Takeuchi & Ward 2002), `a_θ = -½ v_K / τ_a` with
//!   `1/τ_a = (2.7 + 1.1 α) (1 - 0.683 χ⁴) / (1 + 0.269329 χ⁵) (m/M0)(Σ r²/M0)(r/H)² Ω`, so
//!   that a circular orbit shrinks as `da/dt = -a / τ_a` (GENGA writes 3.8, the same at its
//!   default α = 1).
//!
//! - the disk's own gravity ([`crate::physics::gas::gravity`]), which also speeds up the gas's
//!   Kepler speed to `v_K² = M0/r - a_r r`.
//!
//! Each is on for every body (mode 1) or for bodies lighter than `Gas Mgiant` (mode 2). The
//! elements a, e and sin² i come from the body's heliocentric two-body orbit; an unbound body
//! feels the drag only.
//!
//! Powers of `r` with real exponents are `e^(p ln r)` from in-house [`ln`] and [`exp_of`], written with + - * / and bit moves only, so every
//! backend gives the same bits.

pub mod gravity;
pub mod profile;

use crate::physics::changeover::{exp_neg, LN2_HI, LN2_LO};
use crate::physics::gas::profile::{profile_at, DiskProfile};
use crate::units;
use gravity::{disk_pull, DiskPull};
use serde::{Deserialize, Serialize};

/// [`Gas::mode`]: no disk.
pub const GAS_OFF: u8 = 0;
/// [`Gas::mode`]: the disk without its gravity.
pub const GAS_ON: u8 = 1;
/// [`Gas::mode`]: the disk with its gravity.
pub const GAS_PULL: u8 = 2;
/// [`Gas::mode`]: a tabulated disk ([`crate::physics::gas::profile`]).
pub const GAS_FILE: u8 = 3;

/// A file name in the settings (they are plain values; the name lives for the process).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileName(pub &'static str);

impl Serialize for FileName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.0)
    }
}

impl<'de> Deserialize<'de> for FileName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        Ok(FileName::new(String::deserialize(d)?))
    }
}

impl FileName {
    /// The name `s`.
    pub fn new(s: String) -> FileName {
        FileName(Box::leak(s.into_boxed_str()))
    }
}

/// Scale height at 1 AU in AU (GENGA's `def_h_1`: an isothermal sound speed of 1 km/s).
pub const GAS_H1: f64 = 0.03358;
/// Drag coefficient (GENGA's `def_Gas_cd`).
pub const GAS_CD: f64 = 2.0;

/// Which bodies feel one part of the gas disk (GENGA's 0, 1, 2 flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum GasBodies {
    /// Nobody (GENGA 0).
    Off,
    /// Every body (GENGA 1).
    All,
    /// Bodies lighter than `m_giant` (GENGA 2).
    #[default]
    BelowGiant,
}

impl GasBodies {
    /// GENGA's flag value.
    pub fn flag(self) -> u8 {
        match self {
            GasBodies::Off => 0,
            GasBodies::All => 1,
            GasBodies::BelowGiant => 2,
        }
    }

    /// The setting of GENGA's flag value, `None` for another value.
    pub fn of_flag(flag: i64) -> Option<Self> {
        match flag {
            0 => Some(GasBodies::Off),
            1 => Some(GasBodies::All),
            2 => Some(GasBodies::BelowGiant),
            _ => None,
        }
    }

    /// The mass below which a body feels the part: 0 for nobody, infinity for everybody.
    fn mass_limit(self, m_giant: f64) -> f64 {
        match self {
            GasBodies::Off => 0.0,
            GasBodies::All => f64::INFINITY,
            GasBodies::BelowGiant => m_giant,
        }
    }
}

/// The gas disk as the user sets it (scenario `forces.gas`, GENGA's `Gas ...` keys), GENGA's
/// defaults.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GasDisk {
    /// The gas disk (GENGA `Use gas disk = 1`).
    pub on: bool,
    /// Aerodynamic drag (GENGA `Use gas disk drag`).
    pub drag: GasBodies,
    /// Type-I tidal damping and migration (GENGA `Use gas disk tidal damping`).
    pub tidal_damping: GasBodies,
    /// GENGA's enhancement of super-particles (`Use gas disk enhancement`; see [`enhanced`]).
    pub enhancement: GasBodies,
    /// The disk's own gravity (`Use gas disk potential`; see [`crate::physics::gas::gravity`]).
    pub potential: GasBodies,
    /// Surface density at 1 AU in g/cm² at t = 0 (GENGA `Gas Sigma_10`).
    pub sigma_10: f64,
    /// Surface density exponent, `Σ ∝ r^-alpha` (GENGA `Gas alpha`).
    pub alpha: f64,
    /// Flaring exponent, `H ∝ r^(1+beta)` (GENGA `Gas beta`).
    pub beta: f64,
    /// Inner edge in AU (GENGA `Gas disk inner edge`).
    pub inner_edge: f64,
    /// Outer edge in AU (GENGA `Gas disk outer edge`).
    pub outer_edge: f64,
    /// e-folding time of the surface density in years (GENGA `Gas dTau_diss`).
    pub dissipation_time: f64,
    /// Mass limit of the `BelowGiant` parts in solar masses (GENGA `Gas Mgiant`).
    pub m_giant: f64,
    /// The outer edge of the gravity's table in AU (GENGA `Gas disk grid outer edge`).
    pub grid_outer_edge: f64,
    /// The radial spacing of the gravity's table and of the disk's rings in AU (GENGA `Gas disk
    /// grid dr`).
    pub grid_dr: f64,
    /// A tabulated disk in place of the power laws (GENGA `Gas file name`; see
    /// [`crate::physics::gas::profile`]), relative to the input file's directory.
    pub file: Option<FileName>,
}

impl Default for GasDisk {
    fn default() -> Self {
        GasDisk {
            on: false,
            drag: GasBodies::BelowGiant,
            tidal_damping: GasBodies::BelowGiant,
            enhancement: GasBodies::Off,
            potential: GasBodies::All,
            sigma_10: 2000.0,
            alpha: 1.0,
            beta: 0.25,
            inner_edge: 0.1,
            outer_edge: 35.0,
            dissipation_time: 10_000.0,
            m_giant: 1e-4,
            grid_outer_edge: 15.0,
            grid_dr: 0.1,
            file: None,
        }
    }
}

/// A setting of [`GasDisk`], for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GasField {
    Sigma10,
    Alpha,
    Beta,
    InnerEdge,
    OuterEdge,
    DissipationTime,
    MGiant,
    GridOuterEdge,
    GridDr,
}

impl GasField {
    /// The scenario field.
    pub fn scenario_field(self) -> &'static str {
        match self {
            GasField::Sigma10 => "forces.gas.sigma_10",
            GasField::Alpha => "forces.gas.alpha",
            GasField::Beta => "forces.gas.beta",
            GasField::InnerEdge => "forces.gas.inner_edge",
            GasField::OuterEdge => "forces.gas.outer_edge",
            GasField::DissipationTime => "forces.gas.dissipation_time",
            GasField::MGiant => "forces.gas.m_giant",
            GasField::GridOuterEdge => "forces.gas.grid_outer_edge",
            GasField::GridDr => "forces.gas.grid_dr",
        }
    }

    /// The GENGA `param.dat` key.
    pub fn genga_key(self) -> &'static str {
        match self {
            GasField::Sigma10 => "Gas Sigma_10",
            GasField::Alpha => "Gas alpha",
            GasField::Beta => "Gas beta",
            GasField::InnerEdge => "Gas disk inner edge",
            GasField::OuterEdge => "Gas disk outer edge",
            GasField::DissipationTime => "Gas dTau_diss",
            GasField::MGiant => "Gas Mgiant",
            GasField::GridOuterEdge => "Gas disk grid outer edge",
            GasField::GridDr => "Gas disk grid dr",
        }
    }
}

impl GasDisk {
    /// Check every setting of a disk that is on: the first bad one with what was expected.
    pub fn check(&self) -> std::result::Result<(), (GasField, String)> {
        if !self.on {
            return Ok(());
        }
        let positive = [
            (
                self.sigma_10,
                GasField::Sigma10,
                "a surface density in g/cm^2",
            ),
            (self.inner_edge, GasField::InnerEdge, "an inner edge in AU"),
            (
                self.dissipation_time,
                GasField::DissipationTime,
                "a dissipation time in years",
            ),
        ];
        for (v, f, what) in positive {
            if !(v.is_finite() && v > 0.0) {
                return Err((f, format!("expected {what} > 0, got {v}")));
            }
        }
        if !(self.outer_edge.is_finite() && self.outer_edge > self.inner_edge) {
            return Err((
                GasField::OuterEdge,
                format!(
                    "expected an outer edge beyond the inner edge ({} AU), got {}",
                    self.inner_edge, self.outer_edge
                ),
            ));
        }
        if !(self.alpha.is_finite() && self.alpha.abs() <= 10.0) {
            return Err((
                GasField::Alpha,
                format!(
                    "expected a surface density exponent in [-10, 10], got {}",
                    self.alpha
                ),
            ));
        }
        if !(self.beta.is_finite() && (0.0..=2.0).contains(&self.beta)) {
            return Err((
                GasField::Beta,
                format!("expected a flaring exponent in [0, 2], got {}", self.beta),
            ));
        }
        let parts = [
            self.drag,
            self.tidal_damping,
            self.potential,
            self.enhancement,
        ];
        let giant = parts.contains(&GasBodies::BelowGiant);
        if giant && !(self.m_giant.is_finite() && self.m_giant > 0.0) {
            return Err((
                GasField::MGiant,
                format!(
                    "expected a mass limit > 0 Msun (a part of the disk acts below it), got {}",
                    self.m_giant
                ),
            ));
        }
        if self.potential != GasBodies::Off && self.file.is_none() {
            self.check_grid()?;
        }
        Ok(())
    }

    /// The gravity's table: a spacing > 0, at least two rows, and no more rows times rings
    /// than [`gravity::MAX_TABLE_WORK`].
    fn check_grid(&self) -> std::result::Result<(), (GasField, String)> {
        if !(self.grid_dr.is_finite() && self.grid_dr > 0.0) {
            return Err((
                GasField::GridDr,
                format!("expected a grid spacing > 0 AU, got {}", self.grid_dr),
            ));
        }
        if !(self.grid_outer_edge.is_finite()
            && self.grid_outer_edge >= self.inner_edge + self.grid_dr)
        {
            return Err((
                GasField::GridOuterEdge,
                format!(
                    "expected a grid outer edge at least one spacing ({} AU) beyond the inner \
                     edge ({} AU), got {}",
                    self.grid_dr, self.inner_edge, self.grid_outer_edge
                ),
            ));
        }
        let (rows, rings) = gravity::table_size(self);
        if rows.saturating_mul(rings) > gravity::MAX_TABLE_WORK {
            return Err((
                GasField::GridDr,
                format!(
                    "expected a grid the disk's gravity table can hold: a spacing of {} AU makes \
                     {rows} rows of the table times {rings} rings of the disk, more than {} \
                     (a coarser spacing or a nearer grid outer edge)",
                    self.grid_dr,
                    gravity::MAX_TABLE_WORK
                ),
            ));
        }
        Ok(())
    }

    /// The settings as a fingerprint fragment (empty when off).
    pub fn fingerprint(&self) -> String {
        if !self.on {
            return String::new();
        }
        format!(
            " gas drag={} damping={} sigma_10={:e} alpha={:e} beta={:e} edges=({:e},{:e}) \
             tau_diss={:e} m_giant={:e}",
            self.drag.flag(),
            self.tidal_damping.flag(),
            self.sigma_10,
            self.alpha,
            self.beta,
            self.inner_edge,
            self.outer_edge,
            self.dissipation_time,
            self.m_giant
        ) + &match self.enhancement {
            GasBodies::Off => String::new(),
            e => format!(" enhancement={}", e.flag()),
        } + &match (self.potential, self.file) {
            (_, Some(f)) => format!(" file={}", f.0),
            (GasBodies::Off, None) => String::new(),
            (p, None) => format!(
                " potential={} grid=({:e},{:e})",
                p.flag(),
                self.grid_outer_edge,
                self.grid_dr
            ),
        }
    }
}

/// The gas disk's constants in code units (part of [`crate::physics::forces::Forces`]); all 0
/// when the disk is off.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Gas {
    /// Bodies lighter than this feel the drag (0: nobody; infinity: everybody).
    pub drag_below: f64,
    /// Bodies lighter than this (and with mass) feel the tidal damping and migration.
    pub damping_below: f64,
    /// The surface density at 1 AU now (Msun/AU²): `sigma_10` times the dissipation, set for
    /// every step by [`Gas::at_time`].
    pub sigma: f64,
    /// The surface density at 1 AU at t = 0 (Msun/AU²).
    pub sigma_10: f64,
    /// `1 / τ_diss` per code time unit.
    pub inv_tau: f64,
    pub alpha: f64,
    pub beta: f64,
    /// `α + 2 - β`: the pressure gradient's exponent in η.
    pub eta_slope: f64,
    /// `2.7 + 1.1 α`: Tanaka, Takeuchi & Ward's migration factor.
    pub migration: f64,
    pub inner: f64,
    pub outer: f64,
    /// Bodies lighter than this are super-particles of GENGA's enhancement (0: nobody).
    pub enhance_below: f64,
    /// Bodies lighter than this feel the disk's gravity (0: nobody).
    pub potential_below: f64,
    /// The dissipation's factor now, `exp(-t / τ_diss)`.
    pub depletion: f64,
    /// The disk's gravity tabulated at t = 0 ([`gravity`]).
    pub pull: DiskPull,
    /// A tabulated disk ([`DiskProfile`]; not set for the power laws), its block now and the
    /// fraction of the way to the next.
    pub profile: DiskProfile,
    pub block: f64,
    pub block_frac: f64,
}

impl Gas {
    /// No gas disk: every constant 0 (also the `Default`).
    pub const OFF: Gas = Gas {
        drag_below: 0.0,
        damping_below: 0.0,
        sigma: 0.0,
        sigma_10: 0.0,
        inv_tau: 0.0,
        alpha: 0.0,
        beta: 0.0,
        eta_slope: 0.0,
        migration: 0.0,
        inner: 0.0,
        outer: 0.0,
        enhance_below: 0.0,
        potential_below: 0.0,
        depletion: 0.0,
        pull: DiskPull {
            rows: 0,
            r0: 0.0,
            dr: 0.0,
            ds: 0.0,
            values: &[],
        },
        profile: DiskProfile {
            radii: &[],
            ln_r0: 0.0,
            dln: 0.0,
            times: &[],
            values: &[],
        },
        block: 0.0,
        block_frac: 0.0,
    };

    /// The constants of `disk` at t = 0 ([`Gas::OFF`] when off).
    pub fn resolve(disk: &GasDisk) -> Gas {
        if !disk.on {
            return Gas::OFF;
        }
        // g/cm² to Msun/AU².
        let sigma_10 = disk.sigma_10 * units::AU_CM * units::AU_CM / units::MSUN_G;
        Gas {
            drag_below: disk.drag.mass_limit(disk.m_giant),
            damping_below: disk.tidal_damping.mass_limit(disk.m_giant),
            sigma: sigma_10,
            sigma_10,
            inv_tau: 1.0 / units::years_to_code(disk.dissipation_time),
            alpha: disk.alpha,
            beta: disk.beta,
            eta_slope: disk.alpha + 2.0 - disk.beta,
            migration: 2.7 + 1.1 * disk.alpha,
            inner: disk.inner_edge,
            outer: disk.outer_edge,
            enhance_below: disk.enhancement.mass_limit(disk.m_giant),
            potential_below: disk.potential.mass_limit(disk.m_giant),
            depletion: 1.0,
            pull: match disk.file {
                None => gravity::build(disk),
                Some(_) => DiskPull::default(),
            },
            profile: DiskProfile::default(),
            block: 0.0,
            block_frac: 0.0,
        }
    }

    /// The disk tabulated by `profile` in place of the power laws (a disk that is on): gas
    /// between its first and its last radius, no gravity of its own (as GENGA's tabulated
    /// disk), Σ and H from the table.
    pub fn with_profile(self, profile: DiskProfile) -> Gas {
        if !self.is_on() || !profile.is_set() {
            return self;
        }
        Gas {
            profile,
            inner: profile.radii[0],
            outer: profile.radii[profile.radii.len() - 1],
            potential_below: 0.0,
            pull: DiskPull::default(),
            ..self
        }
        .at_time(0.0)
    }

    /// How the force loops take the disk: [`GAS_OFF`], [`GAS_ON`] or, with its gravity,
    /// [`GAS_PULL`] (a compile-time choice of theirs, so that the loops without the gravity's
    /// table lookups still vectorise).
    #[inline(always)]
    pub fn mode(&self) -> u8 {
        match (
            self.is_on(),
            self.profile.is_set(),
            self.potential_below > 0.0,
        ) {
            (false, _, _) => GAS_OFF,
            (true, true, _) => GAS_FILE,
            (true, false, false) => GAS_ON,
            (true, false, true) => GAS_PULL,
        }
    }

    /// True when some body may feel the disk.
    #[inline(always)]
    pub fn is_on(&self) -> bool {
        self.drag_below > 0.0 || self.damping_below > 0.0 || self.potential_below > 0.0
    }

    /// The constants at code time `t`: the surface density dissipated by `exp(-t / τ_diss)`
    /// from its value at t = 0 (whatever time `self` was taken at).
    pub fn at_time(self, t: f64) -> Gas {
        let depletion = exp_neg(t * self.inv_tau);
        let (block, block_frac) = match self.profile.is_set() {
            true => self.profile.block_at(t),
            false => (0, 0.0),
        };
        Gas {
            sigma: self.sigma_10 * depletion,
            depletion,
            block: block as f64,
            block_frac,
            ..self
        }
    }
}

/// `ln x` for a positive normal `x` within a few ulp, from + - * / and bit moves only (device
/// twin `orr_ln` in `kernels/common/gas.h`): `x = 2^k m` with `m` in `(√½, √2]`, and
/// `ln m = 2 atanh(s) = 2 (s + s³/3 + ... + s²¹/21)` with `s = (m - 1)/(m + 1)`, `|s| < 0.172`
/// (truncation below 1e-18); `ln 2` in two parts.
#[inline(always)]
pub fn ln(x: f64) -> f64 {
    // 1/(2n+1) for n = 10 down to 1.
    const C: [f64; 10] = [
        1.0 / 21.0,
        1.0 / 19.0,
        1.0 / 17.0,
        1.0 / 15.0,
        1.0 / 13.0,
        1.0 / 11.0,
        1.0 / 9.0,
        1.0 / 7.0,
        1.0 / 5.0,
        1.0 / 3.0,
    ];
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mantissa = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    let (m, k) = if mantissa > std::f64::consts::SQRT_2 {
        (0.5 * mantissa, (exponent + 1) as f64)
    } else {
        (mantissa, exponent as f64)
    };
    let s = (m - 1.0) / (m + 1.0);
    let z = s * s;
    let mut p = C[0];
    for c in &C[1..] {
        p = p * z + c;
    }
    let p = p * z + 1.0;
    k * LN2_HI + (k * LN2_LO + 2.0 * s * p)
}

/// The gas disk's acceleration on a body of mass `m` (0 for a test particle; `mass` the mass
/// its drag takes) and radius `s` at heliocentric `x` with heliocentric velocity `v`, around a
/// central body of mass `m0` (module docs), as the mean over a kick of length `dt` (0: the
/// instantaneous acceleration). The drag's mean is exact for the quadratic law with the gas
/// held: `dv/dt = -k v` with `k = c |v|` takes the relative velocity to `v / (1 + k |dt|)`, so
/// the kick never overshoots, however short the stopping time `1/k` against the step (dust
/// in dense gas); the damping's is the instantaneous value. `mode` must be `g.mode()` (a
/// constant in the loops that call it): with [`GAS_PULL`] the disk's gravity too, with
/// [`GAS_FILE`] Σ and H from the table. Device twin: `orr_gas_accel`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn gas_accel(
    g: &Gas,
    mode: u8,
    m0: f64,
    dt: f64,
    m: f64,
    mass: f64,
    s: f64,
    x: [f64; 3],
    v: [f64; 3],
) -> [f64; 3] {
    let drag = m < g.drag_below && s > 0.0;
    let damp = m > 0.0 && m < g.damping_below;
    let pot = m < g.potential_below;
    let r1sq = x[0] * x[0] + x[1] * x[1];
    let r1 = r1sq.sqrt();
    let inside = r1 > g.inner && r1 < g.outer && x[2].abs() < 1.5 * r1;
    // Everything below is computed for every body and its parts selected at the end (no
    // branches), so that loops over bodies vectorise; a part that does not act gives 0.
    let (drag, damp, pot) = (drag && inside, damp && inside, pot && inside);
    let (m, mass, s) = enhanced(g, m, mass, s);
    let lr = ln(r1);
    let (sigma, h) = match mode == GAS_FILE {
        true => profile_at(&g.profile, g.block, g.block_frac, r1, lr),
        false => (
            g.sigma * exp_of(-g.alpha * lr),
            GAS_H1 * r1 * exp_of(g.beta * lr),
        ),
    };
    let ir1 = 1.0 / r1;
    let (ar, az) = match mode == GAS_PULL {
        true => disk_pull(&g.pull, g.depletion, r1, x[2], h, sigma),
        false => (0.0, 0.0),
    };
    let (ar, az) = if pot { (ar, az) } else { (0.0, 0.0) };
    // The Kepler speed with the disk's radial pull (GENGA's v_kep).
    let vk = (m0 * ir1 - ar * r1).sqrt();
    // Radial and azimuthal unit vectors in the plane.
    let (er, et) = ([x[0] * ir1, x[1] * ir1], [-x[1] * ir1, x[0] * ir1]);
    let z = x[2];
    let eta = 0.5 * (g.eta_slope * h * h + 0.5 * z * z) * (ir1 * ir1);
    let vgas = vk * (1.0 - eta);
    let rho = sigma / (SQRT_2PI * h) * exp_neg(z * z / (2.0 * h * h));
    let w = [v[0] - vgas * et[0], v[1] - vgas * et[1], v[2]];
    let speed = (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).sqrt();
    let k = GAS_CD * std::f64::consts::PI * s * s * rho / (2.0 * mass) * speed;
    let k = k / (1.0 + k * dt.abs());
    let a: [f64; 3] = std::array::from_fn(|c| if drag { 0.0 - k * w[c] } else { 0.0 });
    let [dr, dt_, dz] = type_one(g, m0, m, sigma, h, [r1, vk], x, v);
    let a = [
        if damp {
            a[0] + (dr * er[0] + dt_ * et[0])
        } else {
            a[0]
        },
        if damp {
            a[1] + (dr * er[1] + dt_ * et[1])
        } else {
            a[1]
        },
        if damp { a[2] + dz } else { a[2] },
    ];
    match pot {
        true => [a[0] + ar * er[0], a[1] + ar * er[1], a[2] + az],
        false => a,
    }
}

/// `sqrt(2π)`.
const SQRT_2PI: f64 = 2.506_628_274_631_000_5;

/// GENGA's enhancement constants (`define.h`): the largest super-particle (1 % of the Earth's
/// mass), the planetesimal mass it maps the smallest to (10^19 g), the mass mapped to it, and
/// the smallest mass GENGA's gas sees.
const M_ENHANCE: f64 = 5.98 / 1.98 * 1e-8;
const MASS_PL: f64 = 0.502e-14;
const F_MASS_MIN: f64 = 7.55e-9;
const M_GAS_SMALL: f64 = 1e-14;

/// GENGA's enhancement of super-particles (`Use gas disk enhancement`, its `gas.cu`): a body
/// of mass `MgasSmall < m < M_Enhance` (and lighter than the flag's limit) stands for real
/// planetesimals of the log-interpolated mass `m' = Mass_pl (M_Enhance / Mass_pl)^p`,
/// `p = ln(m / fMass_min) / ln(M_Enhance / fMass_min)`, and radius `s (m'/m)^(1/3)` (the same
/// density): the drag and the type-I damping and migration use those (`(m', mass', s')`;
/// `(m, mass, s)` unchanged for any other body). Device twin: `orr_gas_enhanced`.
#[inline(always)]
pub fn enhanced(g: &Gas, m: f64, mass: f64, s: f64) -> (f64, f64, f64) {
    let on = m < g.enhance_below && m > M_GAS_SMALL && m < M_ENHANCE;
    let p = ln(m / F_MASS_MIN) / ln(M_ENHANCE / F_MASS_MIN);
    let m_eff = MASS_PL * exp_of(p * ln(M_ENHANCE / MASS_PL));
    let s_eff = s * exp_of(ln(m_eff / m) / 3.0);
    match on {
        true => (m_eff, m_eff, s_eff),
        false => (m, mass, s),
    }
}

/// `e^u` of either sign from [`exp_neg`] (a positive `u` through the reciprocal), for the
/// powers `r^p = e^(p ln r)` of the disk's laws. Device twin: `orr_exp_of`.
#[inline(always)]
pub fn exp_of(u: f64) -> f64 {
    let e = exp_neg(u.abs());
    if u <= 0.0 {
        e
    } else {
        1.0 / e
    }
}

/// The type-I damping and migration of [`gas_accel`] in cylindrical components
/// `[a_r, a_θ, a_z]` (0 for an unbound body), with the cylindrical radius and the Kepler speed
/// there, `[r, v_K]`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn type_one(
    g: &Gas,
    m0: f64,
    m: f64,
    sigma: f64,
    h: f64,
    [r1, vk]: [f64; 2],
    x: [f64; 3],
    v: [f64; 3],
) -> [f64; 3] {
    let mu = m0 + m;
    let r = (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt();
    let v2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    let energy = 0.5 * v2 - mu / r;
    let bound = energy < 0.0;
    let semi = -mu / (2.0 * energy);
    let l = [
        x[1] * v[2] - x[2] * v[1],
        x[2] * v[0] - x[0] * v[2],
        x[0] * v[1] - x[1] * v[0],
    ];
    let l2 = l[0] * l[0] + l[1] * l[1] + l[2] * l[2];
    let e2 = (1.0 + 2.0 * energy * l2 / (mu * mu)).max(0.0);
    let sin2i = if l2 > 0.0 {
        (1.0 - l[2] * l[2] / l2).max(0.0)
    } else {
        0.0
    };
    let chi = 0.5 * semi * (e2 + sin2i).sqrt() / h;
    let ir1 = 1.0 / r1;
    let omega = vk * ir1;
    let hr = r1 / h;
    // 1/t_mig0 = (m/M0)(Σ r²/M0)(r/H)² Ω.
    let base = m / m0 * (sigma * (r1 * r1) / m0) * (hr * hr) * omega;
    let chi2 = chi * chi;
    let chi4 = chi2 * chi2;
    let inv_wave = base * (hr * hr) / (1.0 + 0.25 * chi2 * chi);
    let inv_tau_a = g.migration * (1.0 - 0.683 * chi4) / (1.0 + 0.269_329 * chi4 * chi) * base;
    let vr = (v[0] * x[0] + v[1] * x[1]) * ir1;
    let vt = (v[1] * x[0] - v[0] * x[1]) * ir1;
    let dvt = vt - vk;
    let d = [
        (0.104 * dvt + 0.176 * vr) * inv_wave,
        -0.5 * vk * inv_tau_a + (-1.736 * dvt + 0.325 * vr) * inv_wave,
        (-1.088 * v[2] - 0.871 * omega * x[2]) * inv_wave,
    ];
    d.map(|c| if bound { c } else { 0.0 })
}

#[cfg(test)]
mod tests;
