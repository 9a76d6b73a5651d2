//! Reader for GENGA's `param.dat`.
//!
//! Lines are `Key = value` or `Key: value` (the key is everything before the first `=` or `:`,
//! trimmed, with internal whitespace collapsed to one space); blank lines and lines starting with
//! `#` are ignored. Keys are matched against every key GENGA defines ([`GENGA_KEYS`]); GENGA is
//! case-sensitive, Orrery also accepts a different case and uses the canonical name.
//!
//! Every GENGA key has a [`KeyClass`]:
//! - [`KeyClass::Supported`] keys fill [`GengaParams`];
//! - [`KeyClass::Inert`] keys have no physical effect in Orrery (performance and memory tuning,
//!   output layout, parameters of a feature that is switched off); they are accepted, with a note
//!   in [`GengaParams::warnings`] when they differ from GENGA's default;
//! - [`KeyClass::Unsupported`] keys ask for physics or features Orrery does not have: at GENGA's
//!   default value they give a warning, at any other value an input error.
//!
//! One key is an Orrery extension that GENGA does not read: `Changeover function = genga |
//! quintic | infinity` (see [`crate::physics::changeover::Changeover`]; GENGA always uses its
//! own, the default).
//!
//! The extra forces' keys are read into [`crate::physics::forces::ForceSettings`]: `Use GR`
//! (0, or 1: the Nobili-Roxburgh potential; GENGA's 1 is Saha & Tremaine's split, its 2 and 3
//! are refused), `J2`, `J2 radius`, `Star spin_x/y/z` (J2's axis), `Use Poynting-Robertson` (0,
//! or 1: GENGA's scheme 1; 2 is refused), `Radiation Pressure Coefficient Qpr`, `Solar
//! Constant`, `Solar Wind factor`, `Use Yarkovsky` (0, or 1: GENGA's scheme 1) and the
//! `Asteroid` emissivity, density, heat capacity, albedo and conductivity; `Use Tides` and
//! `Use Rotational Deformation` (0 or 1; GENGA's undocumented 2 is refused) with `Star Love
//! Number`, `Star fluid Love Number`, `Star tau`, `Star Ic` and the star's spin as its initial
//! spin ([`crate::physics::tides`]).
//!
//! `Symplectic recursion levels` and `Symplectic recursion sub steps` select the recursive
//! sub-steps of the close-encounter groups ([`crate::physics::recursion::Recursion`]).
//!
//! A key GENGA does not define is an error that suggests the nearest known key. Nothing is
//! silently dropped.

use crate::error::{Error, Location, Result};
use crate::physics::changeover::Changeover;
use crate::physics::gas::GasBodies;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub mod console;
mod keys;
pub use console::ConsoleValue;
pub use keys::{KeyClass, KeySpec, ValueKind, GENGA_KEYS};

/// The values of a GENGA `param.dat` that Orrery uses, with GENGA's defaults for keys not given.
#[derive(Debug, Clone, PartialEq)]
pub struct GengaParams {
    /// `Time step in days` (default 6).
    pub time_step_days: f64,
    /// `Output name` (default `test`).
    pub output_name: String,
    /// `Energy output interval` in steps (default 100; 0 off, -1 last only).
    pub energy_interval: i64,
    /// `Coordinates output interval` in steps (default 100; 0 off, -1 last only).
    pub coordinates_interval: i64,
    /// `Number of outputs per interval`: consecutive snapshots ending each coordinate output
    /// interval (default 1).
    pub outputs_per_interval: u64,
    /// `Integration steps` (default 1000).
    pub integration_steps: u64,
    /// `Central Mass` in Msun (default 1).
    pub central_mass: f64,
    /// `Star Radius` in AU (default one solar radius).
    pub star_radius: f64,
    /// `n1` (default 3.0).
    pub n1: f64,
    /// `n2` (default 0.4).
    pub n2: f64,
    /// `Changeover function` (Orrery extension; default `genga`).
    pub changeover: Changeover,
    /// `Input file`, resolved against the folder of the param file (`None` when not given).
    pub input_file: Option<PathBuf>,
    /// `Input file Format` (default `<< x y z m vx vy vz >>`).
    pub input_format: String,
    /// `Default rho` in g/cm^3 (default 2.0).
    pub default_rho: f64,
    /// `Use Test Particles`: 0 off, 1 passive, 2 semi-active (default 0).
    pub use_test_particles: u8,
    /// `Particle Minimum Mass` in Msun (default 0).
    pub particle_minimum_mass: f64,
    /// `Restart timestep` (default 0; N > 0 restart from GENGA's files of step N, -1 continue
    /// from the newest checkpoint).
    pub restart_timestep: i64,
    /// `Minimum number of bodies` (default 0).
    pub minimum_bodies: usize,
    /// `Minimum number of test particles` (default 0).
    pub minimum_test_particles: usize,
    /// `Order of integrator`: 2, 4 or 6 (default 2).
    pub order: u8,
    /// `Inner truncation radius` in AU (default 0.2).
    pub inner_truncation: f64,
    /// `Outer truncation radius` in AU (default 50).
    pub outer_truncation: f64,
    /// `Angle units = degrees` (default radians).
    pub angle_degrees: bool,
    /// `Use GR`, `J2`, `J2 radius`, `Star spin_x/y/z`, `Use Poynting-Robertson`, `Radiation
    /// Pressure Coefficient Qpr`, `Solar Constant`, `Solar Wind factor`.
    pub forces: crate::physics::forces::ForceSettings,
    /// `Symplectic recursion levels` and `Symplectic recursion sub steps` (default 1 and 2).
    pub recursion: crate::physics::recursion::Recursion,
    /// `Integrator = WH` (Orrery's extension; `hybrid`, GENGA's step, by default) and its `WH
    /// correctors` (default 0).
    pub wisdom_holman: bool,
    pub wh_correctors: u8,
    /// `Stop at Encounter`, `Stop at Encounter Radius` (Hill radii, default 1) and `Stop at
    /// Collision`.
    pub stop_at_encounter: bool,
    pub stop_encounter_radius: f64,
    pub stop_at_collision: bool,
    /// `Stop Minimum Mass` (Msun, default 0): a collision stops the run only when both bodies
    /// have at least this mass.
    pub stop_minimum_mass: f64,
    /// `Collision Precision` (default 1e-4; 1 or more: no refinement) and `Collision Time
    /// Shift` (default 1: none).
    pub collisions: crate::config::collisions::CollisionSettings,
    /// Notes on unsupported keys at their defaults and inert keys that differ from theirs.
    pub warnings: Vec<String>,
    /// The param file.
    pub source: PathBuf,
    /// 1-based line of every key given, by canonical key name.
    pub key_lines: BTreeMap<&'static str, usize>,
    /// The GENGA console argument that set a key, by canonical key name (it overrides the
    /// file's line).
    pub console_keys: BTreeMap<&'static str, &'static str>,
}

impl GengaParams {
    /// GENGA's defaults, for a param file at `source`.
    pub fn genga_defaults(source: &Path) -> Self {
        GengaParams {
            time_step_days: 6.0,
            output_name: "test".to_string(),
            energy_interval: 100,
            coordinates_interval: 100,
            outputs_per_interval: 1,
            integration_steps: 1000,
            central_mass: 1.0,
            star_radius: crate::units::SUN_RADIUS_AU,
            n1: 3.0,
            n2: 0.4,
            changeover: Changeover::Genga,
            input_file: None,
            input_format: "<< x y z m vx vy vz >>".to_string(),
            default_rho: 2.0,
            use_test_particles: 0,
            particle_minimum_mass: 0.0,
            restart_timestep: 0,
            minimum_bodies: 0,
            minimum_test_particles: 0,
            order: 2,
            inner_truncation: 0.2,
            outer_truncation: 50.0,
            angle_degrees: false,
            forces: Default::default(),
            recursion: Default::default(),
            wisdom_holman: false,
            wh_correctors: 0,
            stop_at_encounter: false,
            stop_encounter_radius: 1.0,
            stop_at_collision: false,
            stop_minimum_mass: 0.0,
            collisions: crate::config::collisions::CollisionSettings {
                precision: Some(1e-4),
                time_shift: None,
            },
            warnings: Vec::new(),
            source: source.to_path_buf(),
            key_lines: BTreeMap::new(),
            console_keys: BTreeMap::new(),
        }
    }

    /// The integrator `Integrator` and `WH correctors` select.
    pub fn integrator(&self) -> crate::config::integrator::Integrator {
        use crate::config::integrator::Integrator;
        match self.wisdom_holman {
            true => Integrator::WisdomHolman {
                correctors: self.wh_correctors,
            },
            false => Integrator::Hybrid,
        }
    }

    /// The stop conditions `Stop at Encounter`, its radius and `Stop at Collision` select.
    pub fn stop(&self) -> crate::config::stop::StopSettings {
        crate::config::stop::StopSettings {
            hill_radii: self.stop_at_encounter.then_some(self.stop_encounter_radius),
            min_distance: None,
            collision: self.stop_at_collision,
            collision_minimum_mass: (self.stop_minimum_mass != 0.0)
                .then_some(self.stop_minimum_mass),
            escape: None,
            ejection: false,
        }
    }

    /// The 1-based line on which `key` was given (any case and spacing), if it was.
    pub fn line_of(&self, key: &str) -> Option<usize> {
        let spec = lookup(&normalize_key(key))?;
        self.key_lines.get(spec.name).copied()
    }

    /// The location of `key`: the console argument that set it, else the param file, its line
    /// (when given) and the field.
    pub fn at(&self, key: &str) -> Location {
        if let Some((name, flag)) = lookup(&normalize_key(key))
            .and_then(|spec| Some((spec.name, *self.console_keys.get(spec.name)?)))
        {
            return console::console_location(flag, name);
        }
        let loc = Location::file(&self.source).field(key);
        match self.line_of(key) {
            Some(l) => loc.line(l),
            None => loc,
        }
    }
}

/// Read and check a GENGA `param.dat`.
pub fn parse_param_file(path: &Path) -> Result<GengaParams> {
    parse_param_file_with(path, &[])
}

/// [`parse_param_file`] with GENGA's console arguments ([`parse_param_with`]).
pub fn parse_param_file_with(path: &Path, console: &[ConsoleValue]) -> Result<GengaParams> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::input(
            Location::file(path),
            format!("cannot read the param file ({e}); expected a readable text file"),
        )
    })?;
    parse_param_with(&text, path, console)
}

/// Parse and check the text of a GENGA `param.dat`; `source` names it in messages and is the
/// folder `Input file` is resolved against.
pub fn parse_param_str(text: &str, source: &Path) -> Result<GengaParams> {
    parse_param_with(text, source, &[])
}

/// [`parse_param_str`] with GENGA's console arguments: each value replaces the file's (or
/// GENGA's default) for its key, checked as the key is in the file (a console `-in` is resolved
/// against the param file's folder, as the key is).
pub fn parse_param_with(
    text: &str,
    source: &Path,
    console: &[ConsoleValue],
) -> Result<GengaParams> {
    let mut p = GengaParams::genga_defaults(source);
    for (idx, raw) in text.lines().enumerate() {
        let n = idx + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at_line = Location::file(source).line(n);
        let Some(sep) = line.find(['=', ':']) else {
            return Err(Error::input(
                at_line,
                format!("expected `Key = value` or `Key: value`, got `{line}` (no `=` or `:`)"),
            ));
        };
        let key = normalize_key(&line[..sep]);
        let value = line[sep + 1..].trim();
        if key.is_empty() {
            return Err(Error::input(
                at_line,
                "expected a key before the `=` or `:`",
            ));
        }
        let Some(spec) = lookup(&key) else {
            let near = nearest_key(&key);
            return Err(Error::input(
                at_line.field(key.as_str()),
                format!("unknown key `{key}`; GENGA defines no such key (did you mean `{near}`?)"),
            ));
        };
        let at = at_line.field(spec.name);
        if let Some(first) = p.key_lines.insert(spec.name, n) {
            return Err(Error::input(
                at,
                format!(
                    "key `{}` given twice (first on line {first}); expected it once",
                    spec.name
                ),
            ));
        }
        let origin = format!("{}, line {n}", source.display());
        apply_entry(&mut p, spec, value, &at, &origin)?;
    }
    for c in console {
        let known = console::console_key(&c.flag);
        let Some((flag, spec)) = known.and_then(|(f, k)| Some((f, lookup(k)?))) else {
            return Err(Error::input(
                Location::default().field(format!("{} on the command line", c.flag)),
                "expected one of GENGA's console arguments that set a param.dat key",
            ));
        };
        p.console_keys.insert(spec.name, flag);
        let at = console::console_location(flag, spec.name);
        let origin = format!("`{flag} {}` on the command line", c.value);
        apply_entry(&mut p, spec, &c.value, &at, &origin)?;
    }
    validate(&p)?;
    Ok(p)
}

/// Apply one key's value, from the file or the command line; `origin` says where in warnings.
fn apply_entry(
    p: &mut GengaParams,
    spec: &'static KeySpec,
    value: &str,
    at: &Location,
    origin: &str,
) -> Result<()> {
    match spec.class {
        KeyClass::Supported => apply_supported(p, spec, value, at)?,
        KeyClass::Inert => {
            if !spec.silent && !matches!(is_default(spec, value), Ok(true)) {
                p.warnings.push(format!(
                    "{origin}: `{} = {value}` has no effect in Orrery ({})",
                    spec.name, spec.note
                ));
            }
        }
        KeyClass::Unsupported => {
            if is_default(spec, value).map_err(|m| Error::input(at.clone(), m))? {
                p.warnings.push(format!(
                    "{origin}: `{} = {value}` is GENGA's default; Orrery does not \
                     implement {} and ignores this key",
                    spec.name, spec.note
                ));
            } else {
                return Err(Error::input(
                    at.clone(),
                    format!(
                        "`{} = {value}` asks for {}, which Orrery does not implement yet; \
                         expected GENGA's default `{}` or no such line",
                        spec.name, spec.note, spec.default
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Trim and collapse runs of whitespace to one space.
fn normalize_key(key: &str) -> String {
    key.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The spec of a normalized key: exact match first, then case-insensitive.
fn lookup(key: &str) -> Option<&'static KeySpec> {
    GENGA_KEYS
        .iter()
        .find(|s| s.name == key)
        .or_else(|| GENGA_KEYS.iter().find(|s| s.name.eq_ignore_ascii_case(key)))
}

/// The known key nearest to `key` (case-insensitive Levenshtein distance).
fn nearest_key(key: &str) -> &'static str {
    let k = key.to_lowercase();
    GENGA_KEYS
        .iter()
        .map(|s| (levenshtein(&k, &s.name.to_lowercase()), s.name))
        .min_by_key(|&(d, _)| d)
        .map(|(_, name)| name)
        .unwrap_or("Time step in days")
}

/// Levenshtein edit distance between two strings, by characters.
fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// Whether `value` equals GENGA's default for `spec`; `Err` (what was expected) when the value
/// does not have the key's type.
fn is_default(spec: &KeySpec, value: &str) -> std::result::Result<bool, String> {
    match spec.kind {
        ValueKind::Number => {
            let v = parse_number(value)?;
            Ok(parse_number(spec.default).is_ok_and(|d| d == v))
        }
        ValueKind::Integer => {
            let v = parse_integer(value)?;
            Ok(parse_integer(spec.default).is_ok_and(|d| d == v))
        }
        ValueKind::Text => {
            let v = normalize_key(value);
            Ok(v == normalize_key(spec.default) || (spec.default == "-" && v.is_empty()))
        }
    }
}

/// A finite floating-point number.
fn parse_number(value: &str) -> std::result::Result<f64, String> {
    match value.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!("expected a finite number, got `{value}`")),
    }
}

/// An integer (no decimal point or exponent, as GENGA reads it with `%d`).
fn parse_integer(value: &str) -> std::result::Result<i64, String> {
    value
        .parse::<i64>()
        .map_err(|_| format!("expected an integer, got `{value}`"))
}

/// Store the value of a supported key.
fn apply_supported(p: &mut GengaParams, spec: &KeySpec, value: &str, at: &Location) -> Result<()> {
    let err = |m: String| Error::input(at.clone(), m);
    let number = || parse_number(value).map_err(err);
    let integer = || parse_integer(value).map_err(err);
    let count = |what: &str| {
        parse_integer(value)
            .ok()
            .and_then(|v| usize::try_from(v).ok())
            .ok_or_else(|| err(format!("expected {what} (an integer >= 0), got `{value}`")))
    };
    let flag = || match parse_integer(value) {
        Ok(v @ (0 | 1)) => Ok(v == 1),
        _ => Err(err(format!("expected 0 (off) or 1 (on), got `{value}`"))),
    };
    let count_u32 = |what: &str| {
        parse_integer(value)
            .ok()
            .and_then(|v| u32::try_from(v).ok())
            .ok_or_else(|| {
                err(format!(
                    "expected a number of {what} (an integer >= 0), got `{value}`"
                ))
            })
    };
    let interval = || {
        match parse_integer(value) {
        Ok(v) if v >= -1 => Ok(v),
        _ => Err(err(format!(
            "expected an interval in steps: an integer > 0, 0 (off) or -1 (last only), got `{value}`"
        ))),
    }
    };
    match spec.name {
        "Time step in days" => p.time_step_days = number()?,
        "Output name" => {
            if value.is_empty() {
                return Err(err("expected a name for the output files".into()));
            }
            p.output_name = value.to_string();
        }
        "Energy output interval" => p.energy_interval = interval()?,
        "Coordinates output interval" => p.coordinates_interval = interval()?,
        "Integration steps" => p.integration_steps = count("a number of steps")? as u64,
        "Central Mass" => p.central_mass = number()?,
        "Star Radius" => p.star_radius = number()?,
        "n1" => p.n1 = number()?,
        "n2" => p.n2 = number()?,
        "Changeover function" => {
            p.changeover = Changeover::from_name(value).ok_or_else(|| {
                err(format!(
                    "expected genga, quintic or infinity, got `{value}`"
                ))
            })?
        }
        "Integrator" => {
            p.wisdom_holman = match value.to_ascii_lowercase().as_str() {
                "hybrid" => false,
                "wh" | "wisdom-holman" => true,
                _ => return Err(err(format!("expected hybrid or WH, got `{value}`"))),
            }
        }
        "Stop at Encounter" => p.stop_at_encounter = flag()?,
        "Stop at Encounter Radius" => p.stop_encounter_radius = number()?,
        "Stop at Collision" => p.stop_at_collision = flag()?,
        "Collision Time Shift" => {
            let f = number()?;
            if !(f.is_finite() && f >= 1.0) {
                return Err(err(format!(
                    "expected a factor of the sum of the radii of at least 1 (1: no backtrace), \
                     got {f}"
                )));
            }
            p.collisions.time_shift = (f > 1.0).then_some(f);
        }
        "Stop Minimum Mass" => {
            let m = number()?;
            let stop = crate::config::stop::StopSettings {
                collision_minimum_mass: Some(m),
                ..Default::default()
            };
            if let Some((_, msg)) = stop.check() {
                return Err(err(msg));
            }
            p.stop_minimum_mass = m;
        }
        "Collision Precision" => {
            // GENGA refines nothing from 1 up (`(R - r) / R` never exceeds 1).
            let precision = Some(number()?).filter(|&v| v < 1.0);
            let settings = crate::config::collisions::CollisionSettings {
                precision,
                ..Default::default()
            };
            if let Some((_, msg)) = settings.check() {
                return Err(err(msg));
            }
            p.collisions.precision = precision;
        }
        "WH correctors" => {
            p.wh_correctors = match parse_integer(value) {
                Ok(v @ (0 | 3 | 5 | 7 | 11 | 17)) => v as u8,
                _ => {
                    return Err(err(format!(
                        "expected a corrector order 0, 3, 5, 7, 11 or 17, got `{value}`"
                    )))
                }
            }
        }
        "Input file" => {
            if value.is_empty() {
                return Err(err("expected the name of the initial-condition file".into()));
            }
            let base = p.source.parent().unwrap_or(Path::new(""));
            p.input_file = Some(base.join(value));
        }
        "Input file Format" => {
            crate::io::initial_conditions::validate_format(value).map_err(err)?;
            p.input_format = value.to_string();
        }
        "Angle units" => {
            p.angle_degrees = if value.eq_ignore_ascii_case("degrees") {
                true
            } else if value.eq_ignore_ascii_case("radians") {
                false
            } else {
                return Err(err(format!(
                    "expected `radians` or `degrees`, got `{value}`"
                )));
            }
        }
        "Default rho" => p.default_rho = number()?,
        "Use Test Particles" => {
            p.use_test_particles = match parse_integer(value) {
                Ok(v @ 0..=2) => v as u8,
                _ => return Err(err(format!("expected an integer 0, 1 or 2, got `{value}`"))),
            }
        }
        "Particle Minimum Mass" => p.particle_minimum_mass = number()?,
        "Number of outputs per interval" => {
            p.outputs_per_interval = match integer()? {
                v if v >= 1 => v as u64,
                v => {
                    return Err(err(format!(
                        "expected at least 1 snapshot at the end of each coordinate output \
                         interval, got {v}"
                    )));
                }
            }
        }
        "Restart timestep" => {
            p.restart_timestep = match integer()? {
                v if v >= -1 => v,
                v => {
                    return Err(err(format!(
                        "expected 0 (new run), a step > 0 or -1 (continue), got {v}"
                    )));
                }
            }
        }
        "Minimum number of bodies" => p.minimum_bodies = count("a number of bodies")?,
        "Minimum number of test particles" => {
            p.minimum_test_particles = count("a number of test particles")?
        }
        "Order of integrator" => {
            p.order = match parse_integer(value) {
                Ok(v @ (2 | 4 | 6)) => v as u8,
                _ => return Err(err(format!("expected an integer 2, 4 or 6, got `{value}`"))),
            }
        }
        "Inner truncation radius" => p.inner_truncation = number()?,
        "Outer truncation radius" => p.outer_truncation = number()?,
        "Use GR" => {
            p.forces.gr = match parse_integer(value) {
                Ok(0) => false,
                Ok(1) => true,
                _ => {
                    return Err(err(format!(
                        "expected 0 (off) or 1 (the central body's GR as the Nobili-Roxburgh \
                         potential in the kicks; GENGA's implicit-midpoint (2) and direct-force \
                         (3) schemes are not implemented), got `{value}`"
                    )))
                }
            }
        }
        "Symplectic recursion levels" => p.recursion.levels = count_u32("levels")?,
        "Symplectic recursion sub steps" => p.recursion.sub_steps = count_u32("sub steps")?,
        "J2" => p.forces.j2 = number()?,
        "J2 radius" => p.forces.j2_radius = number()?,
        "Use Tides" => {
            p.forces.tides.tides = match parse_integer(value) {
                Ok(0) => false,
                Ok(1) => true,
                _ => {
                    return Err(err(format!(
                        "expected 0 (off) or 1 (the constant-time-lag tides of Bolmont et al. \
                         2015 with the spins evolved; GENGA's undocumented conservative-only \
                         mode 2 is not implemented), got `{value}`"
                    )))
                }
            }
        }
        "Use Rotational Deformation" => {
            p.forces.tides.rotational_deformation = match parse_integer(value) {
                Ok(0) => false,
                Ok(1) => true,
                _ => {
                    return Err(err(format!(
                        "expected 0 (off) or 1 (the rotational flattening of the star and the \
                         bodies, Bolmont et al. 2015 eq. 15; GENGA's undocumented star-only \
                         mode 2 is not implemented), got `{value}`"
                    )))
                }
            }
        }
        "Star Love Number" => p.forces.tides.star.k2 = number()?,
        "Star fluid Love Number" => p.forces.tides.star.k2f = number()?,
        "Star tau" => p.forces.tides.star.tau = number()?,
        "Star Ic" => p.forces.tides.star.ic = number()?,
        "Star spin_x" => p.forces.central_spin[0] = number()?,
        "Star spin_y" => p.forces.central_spin[1] = number()?,
        "Star spin_z" => p.forces.central_spin[2] = number()?,
        "Use Poynting-Robertson" => {
            p.forces.poynting_robertson = match parse_integer(value) {
                Ok(0) => false,
                Ok(1) => true,
                _ => {
                    return Err(err(format!(
                        "expected 0 (off) or 1 (radiation pressure and Poynting-Robertson drag \
                         as a velocity kick; GENGA's orbit-averaged scheme 2 is not \
                         implemented), got `{value}`"
                    )))
                }
            }
        }
        "Radiation Pressure Coefficient Qpr" => p.forces.qpr = number()?,
        "Use Yarkovsky" => {
            p.forces.yarkovsky = match parse_integer(value) {
                Ok(0) => false,
                Ok(1) => true,
                _ => {
                    return Err(err(format!(
                        "expected 0 (off) or 1 (the diurnal and seasonal Yarkovsky effect as a \
                         velocity kick; GENGA's orbit-averaged scheme 2 is not implemented), \
                         got `{value}`"
                    )))
                }
            }
        }
        "Asteroid emissivity eps" => p.forces.asteroid.emissivity = number()?,
        "Asteroid density rho" => p.forces.asteroid.density = number()?,
        "Asteroid specific heat capacity C" => p.forces.asteroid.heat_capacity = number()?,
        "Asteroid albedo A" => p.forces.asteroid.albedo = number()?,
        "Asteroid thermal conductivity K" => p.forces.asteroid.conductivity = number()?,
        "Solar Constant" => p.forces.solar_constant = number()?,
        "Solar Wind factor" => p.forces.solar_wind = number()?,
        "Use gas disk" => {
            p.forces.gas.on = match parse_integer(value) {
                Ok(0) => false,
                Ok(1) => true,
                _ => return Err(err(format!("expected 0 (off) or 1 (on), got `{value}`"))),
            }
        }
        "Use gas disk potential" => p.forces.gas.potential = gas_flag(value).map_err(err)?,
        "Use gas disk enhancement" => p.forces.gas.enhancement = gas_flag(value).map_err(err)?,
        "Use gas disk drag" => p.forces.gas.drag = gas_flag(value).map_err(err)?,
        "Use gas disk tidal damping" | "Use gas disk tidal dampening" => {
            p.forces.gas.tidal_damping = gas_flag(value).map_err(err)?
        }
        "Gas disk inner edge" => p.forces.gas.inner_edge = number()?,
        "Gas disk outer edge" => p.forces.gas.outer_edge = number()?,
        "Gas disk grid outer edge" => p.forces.gas.grid_outer_edge = number()?,
        "Gas disk grid dr" => p.forces.gas.grid_dr = number()?,
        "Gas dTau_diss" => p.forces.gas.dissipation_time = number()?,
        "Gas Sigma_10" => p.forces.gas.sigma_10 = number()?,
        "Gas alpha" => p.forces.gas.alpha = number()?,
        "Gas beta" => p.forces.gas.beta = number()?,
        "Gas Mgiant" => p.forces.gas.m_giant = number()?,
        "Gas file name" => {
            p.forces.gas.file = match value {
                "-" => None,
                name => Some(crate::physics::gas::FileName::new(name.to_string())),
            }
        }
        other => {
            return Err(Error::run(format!(
                "internal error: supported key `{other}` has no handler in the param.dat reader"
            )));
        }
    }
    Ok(())
}

/// Range checks of the supported values; errors name the line of the offending key.
fn validate(p: &GengaParams) -> Result<()> {
    let check = |ok: bool, key: &str, msg: String| {
        if ok {
            Ok(())
        } else {
            Err(Error::input(p.at(key), msg))
        }
    };
    check(
        p.time_step_days > 0.0,
        "Time step in days",
        format!(
            "expected a time step > 0 days (backward integration is not supported), got {}",
            p.time_step_days
        ),
    )?;
    check(
        p.central_mass > 0.0,
        "Central Mass",
        format!("expected a central mass > 0 Msun, got {}", p.central_mass),
    )?;
    check(
        p.star_radius >= 0.0,
        "Star Radius",
        format!("expected a star radius >= 0 AU, got {}", p.star_radius),
    )?;
    check(p.n1 >= 0.0, "n1", format!("expected n1 >= 0, got {}", p.n1))?;
    check(p.n2 >= 0.0, "n2", format!("expected n2 >= 0, got {}", p.n2))?;
    check(
        p.coordinates_interval <= 0 || p.outputs_per_interval <= p.coordinates_interval as u64,
        "Number of outputs per interval",
        format!(
            "expected at most `Coordinates output interval` ({}) consecutive snapshots per \
             interval, got {}",
            p.coordinates_interval, p.outputs_per_interval
        ),
    )?;
    check(
        p.default_rho > 0.0,
        "Default rho",
        format!("expected a density > 0 g/cm^3, got {}", p.default_rho),
    )?;
    check(
        p.particle_minimum_mass >= 0.0,
        "Particle Minimum Mass",
        format!("expected a mass >= 0 Msun, got {}", p.particle_minimum_mass),
    )?;
    check(
        p.inner_truncation >= 0.0,
        "Inner truncation radius",
        format!("expected a radius >= 0 AU, got {}", p.inner_truncation),
    )?;
    check(
        p.outer_truncation >= 0.0,
        "Outer truncation radius",
        format!("expected a radius >= 0 AU, got {}", p.outer_truncation),
    )?;
    check(
        p.wisdom_holman || p.wh_correctors == 0,
        "WH correctors",
        "the corrector order belongs to the Wisdom-Holman integrator: expected `Integrator = \
         WH` with it"
            .to_string(),
    )?;
    if let Some((field, msg)) = p.recursion.check() {
        let key = match field {
            "levels" => "Symplectic recursion levels",
            _ => "Symplectic recursion sub steps",
        };
        return Err(Error::input(p.at(key), msg));
    }
    if let Err((field, msg)) = p.forces.check() {
        let key = match field {
            // The spin's bad component: the first given that is not finite.
            crate::physics::forces::ForceField::CentralSpin => {
                ["Star spin_x", "Star spin_y", "Star spin_z"]
                    .into_iter()
                    .zip(p.forces.central_spin)
                    .find(|(_, v)| !v.is_finite())
                    .map_or("Star spin_z", |(k, _)| k)
            }
            f => f.genga_key(),
        };
        return Err(Error::input(p.at(key), msg));
    }
    let key = if p.line_of("Inner truncation radius").is_some() {
        "Inner truncation radius"
    } else {
        "Outer truncation radius"
    };
    check(
        p.inner_truncation < p.outer_truncation,
        key,
        format!(
            "expected the inner truncation radius ({} AU) to be smaller than the outer one ({} AU)",
            p.inner_truncation, p.outer_truncation
        ),
    )
}

/// A gas-disk flag: 0 (nobody), 1 (every body) or 2 (bodies lighter than `Gas Mgiant`).
fn gas_flag(value: &str) -> std::result::Result<GasBodies, String> {
    parse_integer(value)
        .ok()
        .and_then(GasBodies::of_flag)
        .ok_or_else(|| {
            format!(
                "expected 0 (off), 1 (every body) or 2 (bodies lighter than `Gas Mgiant`), got \
                 `{value}`"
            )
        })
}

#[cfg(test)]
mod tests;
