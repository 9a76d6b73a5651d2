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

/// How Orrery treats a GENGA `param.dat` key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyClass {
    /// Orrery reads the value and uses it.
    Supported,
    /// Accepted without physical effect in Orrery (noted when not at GENGA's default).
    Inert,
    /// Physics or a feature Orrery lacks: a warning at GENGA's default, an error otherwise.
    Unsupported,
}

/// The type of a key's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// A floating-point number.
    Number,
    /// An integer.
    Integer,
    /// Free text (names, file names, format strings).
    Text,
}

/// One key GENGA defines, with GENGA's default value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeySpec {
    /// The canonical (GENGA) spelling of the key.
    pub name: &'static str,
    /// GENGA's default value, as text (empty when GENGA has no usable default).
    pub default: &'static str,
    /// How Orrery treats the key.
    pub class: KeyClass,
    /// The type of the value.
    pub kind: ValueKind,
    /// For unsupported keys the missing feature, for inert keys why the key has no effect.
    pub note: &'static str,
    /// Inert key that only parameterises a feature whose switch is itself an unsupported key
    /// (e.g. the aeGrid and gas-disk parameters): accepted silently whatever its value.
    pub silent: bool,
}

const fn key(
    name: &'static str,
    default: &'static str,
    class: KeyClass,
    kind: ValueKind,
    note: &'static str,
) -> KeySpec {
    KeySpec {
        name,
        default,
        class,
        kind,
        note,
        silent: false,
    }
}

/// An inert key that only matters when an unsupported feature is switched on.
const fn dependent(
    name: &'static str,
    default: &'static str,
    kind: ValueKind,
    note: &'static str,
) -> KeySpec {
    KeySpec {
        name,
        default,
        class: KeyClass::Inert,
        kind,
        note,
        silent: true,
    }
}

use KeyClass::{Inert, Supported, Unsupported};
use ValueKind::{Integer, Number, Text};

const AE_GRID: &str = "only used when `Use aeGrid = 1`, which Orrery does not implement";
const SMALL_BODY: &str = "only used by the small-body collision model, which Orrery does not \
                          implement";
const TTV: &str = "only used by the TTV/RV/MCMC modes, which Orrery does not implement";
const FORMAT: &str = "GENGA output-file layout; Orrery writes one text file per output step";

/// Every key GENGA's `param.dat` defines, with GENGA's default and Orrery's treatment.
pub const GENGA_KEYS: &[KeySpec] = &[
    // Run control.
    key("Time step in days", "6", Supported, Number, ""),
    key("Output name", "test", Supported, Text, ""),
    key("Energy output interval", "100", Supported, Integer, ""),
    key("Coordinates output interval", "100", Supported, Integer, ""),
    key(
        "Number of outputs per interval",
        "1",
        Unsupported,
        Integer,
        "several outputs per interval",
    ),
    key(
        "Coordinate output buffer",
        "1",
        Inert,
        Integer,
        "a GPU output buffer size",
    ),
    key(
        "Irregular output calendar",
        "-",
        Unsupported,
        Text,
        "irregular output calendars",
    ),
    key("Integration steps", "1000", Supported, Integer, ""),
    // Input / output.
    key("Input file", "", Supported, Text, ""),
    key(
        "Input file Format",
        "<< x y z m vx vy vz >>",
        Supported,
        Text,
        "",
    ),
    key(
        "Output file Format",
        "<< t i m r x y z vx vy vz Sx Sy Sz amin amax emin emax aec aecT encc test >>",
        Inert,
        Text,
        "Orrery always writes the columns t i m r x y z vx vy vz Sx Sy Sz",
    ),
    key(
        "Use output binary files",
        "0",
        Unsupported,
        Integer,
        "binary output files",
    ),
    key("Angle units", "radians", Supported, Text, ""),
    key("Default rho", "2.0", Supported, Number, ""),
    key("Restart timestep", "0", Supported, Integer, ""),
    // Star.
    key("Central Mass", "1.0", Supported, Number, ""),
    key("Star Radius", "0.00465475877", Supported, Number, ""),
    key("Star Love Number", "1.0", Supported, Number, ""),
    key("Star fluid Love Number", "1.0", Supported, Number, ""),
    key("Star tau", "0", Supported, Number, ""),
    // The star's spin gives J2's axis (tides, which would also use it, are not implemented).
    key("Star spin_x", "0", Supported, Number, ""),
    key("Star spin_y", "0", Supported, Number, ""),
    key("Star spin_z", "0", Supported, Number, ""),
    key("Star Ic", "0.4", Supported, Number, ""),
    key("J2", "0", Supported, Number, ""),
    key("J2 radius", "0", Supported, Number, ""),
    // Integrator.
    key("n1", "3.0", Supported, Number, ""),
    key("n2", "0.4", Supported, Number, ""),
    // An Orrery extension that GENGA does not read (GENGA always uses its eq. 4).
    key("Changeover function", "genga", Supported, Text, ""),
    key("Use Test Particles", "0", Supported, Integer, ""),
    key("Particle Minimum Mass", "0", Supported, Number, ""),
    key("Symplectic recursion levels", "1", Supported, Integer, ""),
    key(
        "Symplectic recursion sub steps",
        "2",
        Supported,
        Integer,
        "",
    ),
    key("Minimum number of bodies", "0", Supported, Integer, ""),
    key(
        "Minimum number of test particles",
        "0",
        Supported,
        Integer,
        "",
    ),
    key("Inner truncation radius", "0.2", Supported, Number, ""),
    key("Outer truncation radius", "50", Supported, Number, ""),
    key("Order of integrator", "2", Supported, Integer, ""),
    key(
        "Maximum encounter pairs",
        "512",
        Inert,
        Integer,
        "a GPU memory size; Orrery sizes its lists itself",
    ),
    key(
        "Nfragments",
        "0",
        Unsupported,
        Integer,
        "collisional fragments",
    ),
    // a-e grid.
    key(
        "Use aeGrid",
        "0",
        Unsupported,
        Integer,
        "the a-e / a-i grids",
    ),
    dependent("aeGrid amin", "0", Number, AE_GRID),
    dependent("aeGrid amax", "5", Number, AE_GRID),
    dependent("aeGrid emin", "0", Number, AE_GRID),
    dependent("aeGrid emax", "1", Number, AE_GRID),
    dependent("aeGrid imin", "0", Number, AE_GRID),
    dependent("aeGrid imax", "0.1", Number, AE_GRID),
    dependent("aeGrid Na", "10", Integer, AE_GRID),
    dependent("aeGrid Ne", "10", Integer, AE_GRID),
    dependent("aeGrid Ni", "10", Integer, AE_GRID),
    dependent("aeGrid Start Count", "0", Integer, AE_GRID),
    dependent("aeGrid name", "A", Text, AE_GRID),
    // Gas disk.
    key("Use gas disk", "0", Supported, Integer, ""),
    key("Use gas disk potential", "1", Supported, Integer, ""),
    key("Use gas disk enhancement", "0", Supported, Integer, ""),
    key("Use gas disk drag", "2", Supported, Integer, ""),
    key("Use gas disk tidal damping", "2", Supported, Integer, ""),
    key("Use gas disk tidal dampening", "2", Supported, Integer, ""),
    key("Gas disk inner edge", "0.1", Supported, Number, ""),
    key("Gas disk outer edge", "35", Supported, Number, ""),
    key("Gas disk grid outer edge", "15", Supported, Number, ""),
    key("Gas disk grid dr", "0.1", Supported, Number, ""),
    key("Gas dTau_diss", "10000", Supported, Number, ""),
    key("Gas Sigma_10", "2000", Supported, Number, ""),
    key("Gas alpha", "1", Supported, Number, ""),
    key("Gas beta", "0.25", Supported, Number, ""),
    key("Gas Mgiant", "1.0E-4", Supported, Number, ""),
    key("Gas file name", "-", Supported, Text, ""),
    // Extra forces.
    key("Solar Constant", "1367", Supported, Number, ""),
    key("Use GR", "0", Supported, Integer, ""),
    key("Use Tides", "0", Supported, Integer, ""),
    key("Use Rotational Deformation", "0", Supported, Integer, ""),
    key(
        "Use force",
        "0",
        Unsupported,
        Integer,
        "GR, tidal or rotational-deformation forces",
    ),
    key("Use Yarkovsky", "0", Supported, Integer, ""),
    key("Use Poynting-Robertson", "0", Supported, Integer, ""),
    key(
        "Radiation Pressure Coefficient Qpr",
        "1",
        Supported,
        Number,
        "",
    ),
    key("Solar Wind factor", "0", Supported, Number, ""),
    // Small bodies.
    key("Asteroid emissivity eps", "0.95", Supported, Number, ""),
    key("Asteroid density rho", "3500", Supported, Number, ""),
    key(
        "Asteroid specific heat capacity C",
        "680",
        Supported,
        Number,
        "",
    ),
    key("Asteroid albedo A", "0.2", Supported, Number, ""),
    key(
        "Asteroid thermal conductivity K",
        "2.65",
        Supported,
        Number,
        "",
    ),
    dependent(
        "Asteroid collisional velocity V",
        "5000",
        Number,
        SMALL_BODY,
    ),
    dependent(
        "Asteroid minimal fragment radius",
        "0.01",
        Number,
        SMALL_BODY,
    ),
    dependent(
        "Asteroid fragment remove radius",
        "0.01",
        Number,
        SMALL_BODY,
    ),
    key(
        "Use Small Collisions",
        "0",
        Unsupported,
        Integer,
        "the small-body collision model",
    ),
    key(
        "Create Particles file name",
        "-",
        Unsupported,
        Text,
        "particle creation during a run",
    ),
    // Encounters and collisions.
    key(
        "Report Encounters",
        "0",
        Unsupported,
        Integer,
        "encounter reports",
    ),
    dependent(
        "Report Encounters Radius",
        "1",
        Number,
        "only used with `Report Encounters`, which Orrery does not implement",
    ),
    key(
        "Stop at Encounter",
        "0",
        Unsupported,
        Integer,
        "stopping at close encounters",
    ),
    dependent(
        "Stop at Encounter Radius",
        "1",
        Number,
        "only used with `Stop at Encounter`, which Orrery does not implement",
    ),
    key(
        "Collision Precision",
        "1.0E-4",
        Inert,
        Number,
        "Orrery finds collision times with its own tolerance",
    ),
    key(
        "Collision Time Shift",
        "1",
        Inert,
        Number,
        "Orrery reports collisions at contact (no time shift)",
    ),
    key(
        "Stop at Collision",
        "0",
        Unsupported,
        Integer,
        "stopping at the first collision",
    ),
    dependent(
        "Stop Minimum Mass",
        "0",
        Number,
        "only used with `Stop at Collision`, which Orrery does not implement",
    ),
    key(
        "Collision Model",
        "0",
        Unsupported,
        Integer,
        "collision models other than perfect merging",
    ),
    // Other.
    key(
        "Set Elements file name",
        "-",
        Unsupported,
        Text,
        "set-elements tables",
    ),
    key("FormatS", "0", Inert, Integer, FORMAT),
    key("FormatT", "0", Inert, Integer, FORMAT),
    key("FormatP", "1", Inert, Integer, FORMAT),
    key("FormatO", "0", Inert, Integer, FORMAT),
    key(
        "Serial Grouping",
        "0",
        Inert,
        Integer,
        "Orrery's sums are always in a fixed order (bitwise reproducible)",
    ),
    key(
        "Do kernel tuning",
        "1",
        Inert,
        Integer,
        "GPU kernel tuning; Orrery does not tune kernels",
    ),
    key(
        "Do Kick in single precision",
        "0",
        Unsupported,
        Integer,
        "single-precision kicks",
    ),
    key(
        "TTV file name",
        "-",
        Unsupported,
        Text,
        "transit-timing variations",
    ),
    key(
        "RV file name",
        "-",
        Unsupported,
        Text,
        "radial-velocity fitting",
    ),
    dependent("TTV steps", "1", Integer, TTV),
    key(
        "Print Transits",
        "0",
        Unsupported,
        Integer,
        "transit output",
    ),
    key(
        "Print RV",
        "0",
        Unsupported,
        Integer,
        "radial-velocity output",
    ),
    key("Print MCMC", "0", Unsupported, Integer, "MCMC fitting"),
    dependent("MCMC NE", "0", Integer, TTV),
    dependent("MCMC Restart", "0", Integer, TTV),
];

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
    /// `Restart timestep` (default 0; -1 continue from the last output).
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
    /// Notes on unsupported keys at their defaults and inert keys that differ from theirs.
    pub warnings: Vec<String>,
    /// The param file.
    pub source: PathBuf,
    /// 1-based line of every key given, by canonical key name.
    pub key_lines: BTreeMap<&'static str, usize>,
}

impl GengaParams {
    /// GENGA's defaults, for a param file at `source`.
    pub fn genga_defaults(source: &Path) -> Self {
        GengaParams {
            time_step_days: 6.0,
            output_name: "test".to_string(),
            energy_interval: 100,
            coordinates_interval: 100,
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
            warnings: Vec::new(),
            source: source.to_path_buf(),
            key_lines: BTreeMap::new(),
        }
    }

    /// The 1-based line on which `key` was given (any case and spacing), if it was.
    pub fn line_of(&self, key: &str) -> Option<usize> {
        let spec = lookup(&normalize_key(key))?;
        self.key_lines.get(spec.name).copied()
    }

    /// The location of `key` in the param file: file, line (when given) and field.
    fn at(&self, key: &str) -> Location {
        let loc = Location::file(&self.source).field(key);
        match self.line_of(key) {
            Some(l) => loc.line(l),
            None => loc,
        }
    }
}

/// Read and check a GENGA `param.dat`.
pub fn parse_param_file(path: &Path) -> Result<GengaParams> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::input(
            Location::file(path),
            format!("cannot read the param file ({e}); expected a readable text file"),
        )
    })?;
    parse_param_str(&text, path)
}

/// Parse and check the text of a GENGA `param.dat`; `source` names it in messages and is the
/// folder `Input file` is resolved against.
pub fn parse_param_str(text: &str, source: &Path) -> Result<GengaParams> {
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
        match spec.class {
            KeyClass::Supported => apply_supported(&mut p, spec, value, &at)?,
            KeyClass::Inert => {
                if !spec.silent && !matches!(is_default(spec, value), Ok(true)) {
                    p.warnings.push(format!(
                        "{}, line {n}: `{} = {value}` has no effect in Orrery ({})",
                        source.display(),
                        spec.name,
                        spec.note
                    ));
                }
            }
            KeyClass::Unsupported => {
                if is_default(spec, value).map_err(|m| Error::input(at.clone(), m))? {
                    p.warnings.push(format!(
                        "{}, line {n}: `{} = {value}` is GENGA's default; Orrery does not \
                         implement {} and ignores this key",
                        source.display(),
                        spec.name,
                        spec.note
                    ));
                } else {
                    return Err(Error::input(
                        at,
                        format!(
                            "`{} = {value}` asks for {}, which Orrery does not implement yet; \
                             expected GENGA's default `{}` or no such line",
                            spec.name, spec.note, spec.default
                        ),
                    ));
                }
            }
        }
    }
    validate(&p)?;
    Ok(p)
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
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<GengaParams> {
        parse_param_str(text, Path::new("/runs/a/param.dat"))
    }

    /// The message of an input error, with its location; panics on success.
    fn err(text: &str) -> (Location, String) {
        match parse(text) {
            Err(Error::Input { at, message }) => (at, message),
            other => panic!("expected an input error, got {other:?}"),
        }
    }

    #[test]
    fn changeover_function_is_read_and_checked() {
        assert_eq!(parse("n1 = 3\n").unwrap().changeover, Changeover::Genga);
        for (text, want) in [
            ("genga", Changeover::Genga),
            ("quintic", Changeover::Quintic),
            ("Infinity", Changeover::Infinity),
        ] {
            let p = parse(&format!("Changeover function = {text}\n")).unwrap();
            assert_eq!(p.changeover, want);
        }
        let (at, msg) = err("n1 = 3\nChangeover function = cubic\n");
        assert_eq!(at.field.as_deref(), Some("Changeover function"));
        assert_eq!(at.line, Some(2));
        assert!(
            msg.contains("genga, quintic or infinity") && msg.contains("cubic"),
            "{msg}"
        );
    }

    #[test]
    fn genga_example_param_file_loads() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("inputs/genga/param.dat");
        let p = parse_param_file(&path).unwrap();
        assert_eq!(p.time_step_days, 6.0);
        assert_eq!(p.output_name, "test");
        assert_eq!(p.energy_interval, 100);
        assert_eq!(p.coordinates_interval, 100);
        assert_eq!(p.integration_steps, 100_000);
        assert_eq!(p.central_mass, 1.0);
        assert_eq!((p.n1, p.n2), (3.0, 0.4));
        assert_eq!(
            p.input_file,
            Some(path.parent().unwrap().join("initialplanet_2048.dat"))
        );
        assert_eq!(p.input_format, "<< x y z m vx vy vz >>");
        assert_eq!(p.default_rho, 2.0);
        assert_eq!(p.use_test_particles, 0);
        assert_eq!(p.restart_timestep, 0);
        assert_eq!(p.minimum_bodies, 1);
        assert_eq!(p.order, 2);
        // Keys not in the file keep GENGA's defaults.
        assert_eq!(p.star_radius, crate::units::SUN_RADIUS_AU);
        assert_eq!((p.inner_truncation, p.outer_truncation), (0.2, 50.0));
        assert!(!p.angle_degrees);
        // Only `Number of outputs per interval = 1` (unsupported, at its default) is noted; the
        // aeGrid and gas keys are all at GENGA's defaults.
        assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
        assert!(p.warnings[0].contains("line 5"), "{}", p.warnings[0]);
        assert!(p.warnings[0].contains("Number of outputs per interval"));
        assert_eq!(p.line_of("Input file Format"), Some(11));
        assert_eq!(p.line_of("order  OF integrator"), Some(16));
        assert_eq!(p.line_of("Star Radius"), None);
    }

    #[test]
    fn empty_text_gives_genga_defaults() {
        let p = parse("\n# only a comment\n\n").unwrap();
        assert_eq!(
            p,
            GengaParams::genga_defaults(Path::new("/runs/a/param.dat"))
        );
        assert_eq!(p.integration_steps, 1000);
        assert_eq!(p.input_file, None);
    }

    #[test]
    fn colon_separator_whitespace_and_case_are_accepted() {
        let p = parse("  time   STEP in days : 0.5\r\nOutput name=run1\n\tCentral Mass =2.5\n")
            .unwrap();
        assert_eq!(p.time_step_days, 0.5);
        assert_eq!(p.output_name, "run1");
        assert_eq!(p.central_mass, 2.5);
        assert_eq!(p.line_of("Time step in days"), Some(1));
        assert_eq!(p.line_of("Central Mass"), Some(3));
    }

    #[test]
    fn input_file_is_resolved_against_the_param_folder() {
        let p = parse("Input file = ics/bodies.dat\n").unwrap();
        assert_eq!(p.input_file, Some(PathBuf::from("/runs/a/ics/bodies.dat")));
        let p = parse("Input file = /abs/bodies.dat\n").unwrap();
        assert_eq!(p.input_file, Some(PathBuf::from("/abs/bodies.dat")));
    }

    #[test]
    fn supported_keys_are_read() {
        let text = "Angle units = degrees\nUse Test Particles = 2\nParticle Minimum Mass = 1e-9\n\
                    Restart timestep = -1\nMinimum number of test particles = 7\n\
                    Order of integrator = 6\nInner truncation radius = 0.05\n\
                    Outer truncation radius = 100\nStar Radius = 0\nEnergy output interval = -1\n\
                    Coordinates output interval = 0\nInput file Format: << i m r a e inc O w M >>\n";
        let p = parse(text).unwrap();
        assert!(p.angle_degrees);
        assert_eq!(p.use_test_particles, 2);
        assert_eq!(p.particle_minimum_mass, 1e-9);
        assert_eq!(p.restart_timestep, -1);
        assert_eq!(p.minimum_test_particles, 7);
        assert_eq!(p.order, 6);
        assert_eq!((p.inner_truncation, p.outer_truncation), (0.05, 100.0));
        assert_eq!(p.star_radius, 0.0);
        assert_eq!((p.energy_interval, p.coordinates_interval), (-1, 0));
        assert_eq!(p.input_format, "<< i m r a e inc O w M >>");
        assert!(p.warnings.is_empty());
    }

    #[test]
    fn unknown_key_suggests_the_nearest_one() {
        let (at, msg) = err("n1 = 3\nTime step in day = 6\n");
        assert_eq!(at.line, Some(2));
        assert_eq!(at.file, Some(PathBuf::from("/runs/a/param.dat")));
        assert!(msg.contains("unknown key `Time step in day`"), "{msg}");
        assert!(msg.contains("did you mean `Time step in days`"), "{msg}");
        let (_, msg) = err("central mas = 1\n");
        assert!(msg.contains("`Central Mass`"), "{msg}");
    }

    #[test]
    fn levenshtein_distances() {
        assert_eq!(levenshtein("", ""), 0);
        assert_eq!(levenshtein("abc", ""), 3);
        assert_eq!(levenshtein("kitten", "sitting"), 3);
        assert_eq!(levenshtein("n1", "n2"), 1);
        assert_eq!(nearest_key("use gr"), "Use GR");
    }

    #[test]
    fn bad_numbers_name_line_key_and_type() {
        let (at, msg) = err("\nCentral Mass = one\n");
        assert_eq!(at.line, Some(2));
        assert_eq!(at.field.as_deref(), Some("Central Mass"));
        assert!(msg.contains("expected a finite number"), "{msg}");
        let (_, msg) = err("Integration steps = 1e5\n");
        assert!(msg.contains("integer"), "{msg}");
        let (_, msg) = err("Integration steps = -5\n");
        assert!(msg.contains(">= 0"), "{msg}");
        let (_, msg) = err("Time step in days = nan\n");
        assert!(msg.contains("finite number"), "{msg}");
        let (at, msg) = err("Order of integrator = 3\n");
        assert_eq!(at.field.as_deref(), Some("Order of integrator"));
        assert!(msg.contains("expected an integer 2, 4 or 6"), "{msg}");
        let (_, msg) = err("Use Test Particles = 3\n");
        assert!(msg.contains("0, 1 or 2"), "{msg}");
        let (_, msg) = err("Angle units = gradians\n");
        assert!(msg.contains("`radians` or `degrees`"), "{msg}");
        let (_, msg) = err("Energy output interval = -2\n");
        assert!(msg.contains("-1 (last only)"), "{msg}");
        let (_, msg) = err("Minimum number of bodies = x\n");
        assert!(msg.contains("integer >= 0"), "{msg}");
    }

    #[test]
    fn duplicate_key_is_an_error() {
        let (at, msg) = err("n1 = 3\nn2 = 0.4\nN1 = 4\n");
        assert_eq!(at.line, Some(3));
        assert_eq!(at.field.as_deref(), Some("n1"));
        assert!(msg.contains("given twice (first on line 1)"), "{msg}");
    }

    #[test]
    fn line_without_separator_is_an_error() {
        let (at, msg) = err("n1 = 3\nTime step in days 6\n");
        assert_eq!(at.line, Some(2));
        assert!(msg.contains("expected `Key = value`"), "{msg}");
        let (at, msg) = err("= 6\n");
        assert_eq!(at.line, Some(1));
        assert!(msg.contains("expected a key"), "{msg}");
    }

    #[test]
    fn unsupported_key_at_default_warns_otherwise_errors() {
        let p = parse("Use force = 0\nCollision Model = 0\nSet Elements file name = -\n").unwrap();
        assert_eq!(p.warnings.len(), 3, "{:?}", p.warnings);
        assert!(p.warnings[0].contains("line 1") && p.warnings[0].contains("Use force"));
        let (at, msg) = err("n1 = 3\nUse force = 2\n");
        assert_eq!(at.line, Some(2));
        assert_eq!(at.field.as_deref(), Some("Use force"));
        assert!(msg.contains("does not implement"), "{msg}");
        assert!(msg.contains("tidal"), "{msg}");
        let (_, msg) = err("Collision Model = 1\n");
        assert!(
            msg.contains("does not implement") && msg.contains("perfect merging"),
            "{msg}"
        );
        let (_, msg) = err("Number of outputs per interval = 2\n");
        assert!(msg.contains("does not implement"), "{msg}");
        let (_, msg) = err("Set Elements file name = elements.dat\n");
        assert!(msg.contains("set-elements"), "{msg}");
        // A malformed value of an unsupported key is a type error.
        let (_, msg) = err("Use force = maybe\n");
        assert!(msg.contains("expected an integer"), "{msg}");
    }

    #[test]
    fn tide_keys_are_read_and_checked() {
        let p = parse(
            "Use Tides = 1\nUse Rotational Deformation = 1\nStar Love Number = 0.03\n\
             Star fluid Love Number = 0.9\nStar tau = 0.0002\nStar Ic = 0.07\nStar spin_z = 2e-5\n",
        )
        .unwrap();
        let t = p.forces.tides;
        assert!(t.tides && t.rotational_deformation);
        assert_eq!(
            (t.star.k2, t.star.k2f, t.star.tau, t.star.ic),
            (0.03, 0.9, 0.0002, 0.07)
        );
        assert_eq!(p.forces.central_spin, [0.0, 0.0, 2e-5]);
        for (text, line, key, want) in [
            ("Use Tides = 2\n", 1, "Use Tides", "expected 0 (off) or 1"),
            (
                "Use Rotational Deformation = 2\n",
                1,
                "Use Rotational Deformation",
                "expected 0",
            ),
            (
                "Use Tides = 1\nStar Love Number = -0.1\n",
                2,
                "Star Love Number",
                "Love number",
            ),
            (
                "Use Tides = 1\nStar fluid Love Number = 3\n",
                2,
                "Star fluid Love Number",
                "[0, 1.5]",
            ),
            (
                "Use Tides = 1\nStar tau = -1\n",
                2,
                "Star tau",
                "time lag >= 0",
            ),
            ("Use Tides = 1\nStar Ic = 0\n", 2, "Star Ic", "(0, 2/3]"),
        ] {
            let (at, msg) = err(text);
            assert_eq!(at.line, Some(line), "{text}: {msg}");
            assert_eq!(at.field.as_deref(), Some(key), "{text}");
            assert!(msg.contains(want), "{text}: {msg}");
        }
        // Off, the star's values are not checked (GENGA's defaults are sane anyway).
        assert!(parse("Star Ic = 0\n").is_ok());
    }

    #[test]
    fn gas_disk_keys_are_read_and_checked() {
        let p = parse(
            "Use gas disk = 1\nUse gas disk potential = 0\nGas Sigma_10 = 1500\nGas alpha = 1.5\n\
             Gas dTau_diss = 2e5\nUse gas disk drag = 1\nUse gas disk tidal dampening = 0\n",
        )
        .unwrap();
        let g = p.forces.gas;
        assert!(g.on);
        assert_eq!(
            (g.sigma_10, g.alpha, g.dissipation_time),
            (1500.0, 1.5, 2e5)
        );
        assert_eq!((g.drag, g.tidal_damping), (GasBodies::All, GasBodies::Off));
        assert_eq!((g.beta, g.inner_edge, g.outer_edge), (0.25, 0.1, 35.0));
        assert_eq!(g.potential, GasBodies::Off);
        // GENGA's default turns the disk's own gravity on, on GENGA's grid.
        let g = parse("Use gas disk = 1\nGas disk grid dr = 0.5\n")
            .unwrap()
            .forces
            .gas;
        assert_eq!(
            (g.potential, g.grid_outer_edge, g.grid_dr),
            (GasBodies::All, 15.0, 0.5)
        );
        let on = "n1 = 3\nUse gas disk = 1\n";
        for (text, line, field, want) in [
            ("Gas Sigma_10 = -5\n", 3, "Gas Sigma_10", "> 0"),
            ("Gas Sigma_10 = 0\n", 3, "Gas Sigma_10", "> 0"),
            (
                "Gas disk inner edge = 2\nGas disk outer edge = 1\n",
                4,
                "Gas disk outer edge",
                "beyond",
            ),
            ("Gas dTau_diss = 0\n", 3, "Gas dTau_diss", "> 0"),
            ("Gas beta = -1\n", 3, "Gas beta", "[0, 2]"),
            (
                "Use gas disk drag = 3\n",
                3,
                "Use gas disk drag",
                "Gas Mgiant",
            ),
            ("Gas Mgiant = 0\n", 3, "Gas Mgiant", "> 0"),
            ("Gas disk grid dr = 0\n", 3, "Gas disk grid dr", "> 0"),
            (
                "Gas disk grid dr = 1e-3\n",
                3,
                "Gas disk grid dr",
                "can hold",
            ),
            (
                "Gas disk grid outer edge = 0.15\n",
                3,
                "Gas disk grid outer edge",
                "beyond the inner",
            ),
            (
                "Use gas disk potential = 3\n",
                3,
                "Use gas disk potential",
                "expected 0 (off)",
            ),
            (
                "Use gas disk enhancement = 3\n",
                3,
                "Use gas disk enhancement",
                "expected 0 (off), 1 (every body) or 2",
            ),
        ] {
            let (at, msg) = err(&format!("{on}{text}"));
            assert_eq!(at.line, Some(line), "{text}: {msg}");
            assert_eq!(at.field.as_deref(), Some(field), "{text}");
            assert!(msg.contains(want), "{text}: {msg}");
        }
        // With the disk off its parameters are not checked (GENGA reads them and ignores them).
        assert!(parse("Gas Sigma_10 = -5\nGas file name = disk.dat\n").is_ok());
    }

    #[test]
    fn inert_keys_are_accepted_and_noted_when_changed() {
        let p = parse("aeGrid amax = 5.0\nDo kernel tuning = 1\nGas alpha = 1\n").unwrap();
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        // Parameters of a feature that is off are accepted silently, whatever their value.
        let p =
            parse("aeGrid Start Count = 1\nGas alpha = 7\naeGrid amin = x\nSymplectic recursion sub steps = 4\n").unwrap();
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        let p = parse("Do kernel tuning = 0\nMaximum encounter pairs = whatever\n").unwrap();
        assert_eq!(p.warnings.len(), 2, "{:?}", p.warnings);
        assert!(p.warnings[0].contains("line 1") && p.warnings[0].contains("no effect"));
    }

    #[test]
    fn ranges_are_validated() {
        let (at, msg) = err("n1 = 3\nTime step in days = 0\n");
        assert_eq!(at.line, Some(2));
        assert!(msg.contains("time step > 0"), "{msg}");
        let (_, msg) = err("Time step in days = -6\n");
        assert!(msg.contains("backward"), "{msg}");
        let (at, _) = err("Central Mass = 0\n");
        assert_eq!(at.field.as_deref(), Some("Central Mass"));
        let (at, _) = err("n2 = -0.1\n");
        assert_eq!(at.field.as_deref(), Some("n2"));
        let (at, _) = err("Star Radius = -1\n");
        assert_eq!(at.field.as_deref(), Some("Star Radius"));
        let (at, _) = err("Default rho = 0\n");
        assert_eq!(at.field.as_deref(), Some("Default rho"));
        let (at, msg) = err("Inner truncation radius = 60\n");
        assert_eq!(at.line, Some(1));
        assert!(msg.contains("smaller than the outer"), "{msg}");
        let (at, _) = err("\nOuter truncation radius = 0.1\n");
        assert_eq!(
            (at.line, at.field.as_deref()),
            (Some(2), Some("Outer truncation radius"))
        );
        let (_, msg) = err("Restart timestep = -3\n");
        assert!(msg.contains("-1 (continue)"), "{msg}");
    }

    #[test]
    fn bad_input_format_is_reported_at_its_line() {
        let (at, msg) = err("n1 = 3\nInput file Format: << x y z m vx vy vz q >>\n");
        assert_eq!(at.line, Some(2));
        assert_eq!(at.field.as_deref(), Some("Input file Format"));
        assert!(msg.contains("`q`"), "{msg}");
        let (_, msg) = err("Input file Format: << x y z m a e >>\n");
        assert!(msg.contains("cannot be mixed"), "{msg}");
    }

    #[test]
    fn unreadable_param_file_names_the_path() {
        let path = Path::new("/nonexistent/orrery/param.dat");
        match parse_param_file(path) {
            Err(e @ Error::Input { .. }) => {
                assert!(
                    e.to_string().contains("/nonexistent/orrery/param.dat"),
                    "{e}"
                )
            }
            other => panic!("expected an input error, got {other:?}"),
        }
    }

    #[test]
    fn every_key_has_a_well_typed_default_and_a_note() {
        for (k, s) in GENGA_KEYS.iter().enumerate() {
            assert!(
                GENGA_KEYS[k + 1..]
                    .iter()
                    .all(|o| !o.name.eq_ignore_ascii_case(s.name)),
                "duplicate key {}",
                s.name
            );
            if s.class != KeyClass::Supported {
                assert!(
                    is_default(s, s.default) == Ok(true),
                    "default of {}",
                    s.name
                );
                assert!(!s.note.is_empty(), "note of {}", s.name);
            }
        }
        // Every supported key has a handler.
        for s in GENGA_KEYS.iter().filter(|s| s.class == KeyClass::Supported) {
            let value = match s.name {
                "Input file" => "bodies.dat",
                _ => s.default,
            };
            parse(&format!("{} = {value}\n", s.name)).unwrap();
        }
    }
}
