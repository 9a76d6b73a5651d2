//! Reader for GENGA initial-condition text files.
//!
//! One body per line, whitespace-separated columns named by a format string such as
//! `<< x y z m vx vy vz >>` (GENGA's `Input file Format`; the `<<` `>>` brackets are optional).
//! Blank lines and lines starting with `#` are skipped; line numbers in messages are those of the
//! file. The central body is not in the file.
//!
//! Column tokens (case-sensitive, as in GENGA):
//! - `t` time, `i` body index, `m` mass (Msun), `r` radius (AU), `rho` density (g/cm^3);
//! - Cartesian heliocentric `x y z` (AU) and `vx vy vz` (AU per code time unit);
//! - spin `Sx Sy Sz`;
//! - Keplerian `a` (AU) or `P` (period in days), `e`, `inc`, `O` (node), `w` (argument of
//!   pericentre), `M` (mean anomaly); `T` (time of pericentre) is not supported yet;
//! - the tidal properties `k2 k2f tau Ic` (Love number, fluid Love number, time lag in code
//!   time units, moment-of-inertia factor; GENGA's defaults 0 0 0 0.4 when absent), checked
//!   against their physical ranges when [`IcOptions::tides`] is on;
//! - `amin amax emin emax` and `t` are read (they must be numbers) and ignored;
//! - `-` skips a column.
//!
//! Required: `m`, and either all six Cartesian columns or Keplerian `a` (or `P`) and `e`; the
//! Keplerian angles `inc`, `O`, `w` and `M` default to 0 when absent (GENGA's default for a value
//! not given). Keplerian and Cartesian columns cannot be mixed. Angles are in radians unless
//! [`IcOptions::angle_degrees`]. Keplerian elements are heliocentric with `mu = central_mass + m`
//! (G = 1). The radius comes from `r`, else (no `r` column, or `r = 0`, as in GENGA) from `rho`,
//! else from [`IcOptions::default_rho`].
//! The body id is the `i` column, else the 0-based index of the line among the data lines.

use crate::error::{Error, Location, Result};
use crate::physics::elements::cartesian_from_elements;
use crate::physics::tides::TidalBody;
use crate::state::Body;
use crate::units;
use std::collections::HashMap;
use std::path::Path;

/// Settings that the initial-condition reader takes from the run configuration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IcOptions {
    /// Mass of the central body (Msun), for Keplerian columns.
    pub central_mass: f64,
    /// Density (g/cm^3) for bodies without an `r` or `rho` column.
    pub default_rho: f64,
    /// Angles of Keplerian columns are in degrees (GENGA's `Angle units = degrees`).
    pub angle_degrees: bool,
    /// Radius of the central body (AU); bodies at or inside it are rejected.
    pub central_radius: f64,
    /// Tides or rotational deformation are on: the tidal columns are checked.
    pub tides: bool,
}

/// Every column token GENGA's input format knows, in the order of the `C_*` indices below.
const TOKENS: [&str; 31] = [
    "t", "i", "m", "r", "rho", "x", "y", "z", "vx", "vy", "vz", "Sx", "Sy", "Sz", "a", "P", "e",
    "inc", "O", "w", "M", "T", "amin", "amax", "emin", "emax", "k2", "k2f", "tau", "Ic", "-",
];
const C_I: usize = 1;
const C_M: usize = 2;
const C_R: usize = 3;
const C_RHO: usize = 4;
const C_X: usize = 5;
const C_VZ: usize = 10;
const C_SX: usize = 11;
const C_A: usize = 14;
const C_P: usize = 15;
const C_E: usize = 16;
const C_INC: usize = 17;
const C_O: usize = 18;
const C_W: usize = 19;
const C_MA: usize = 20;
const C_T: usize = 21;
const C_K2: usize = 26;
const C_IC: usize = 29;
const C_SKIP: usize = 30;
const CARTESIAN: [usize; 6] = [5, 6, 7, 8, 9, 10];
const KEPLERIAN: [usize; 8] = [C_A, C_P, C_E, C_INC, C_O, C_W, C_MA, C_T];

/// A checked format: the token index of every column.
struct Format {
    cols: Vec<usize>,
    keplerian: bool,
}

impl Format {
    fn has(&self, tok: usize) -> bool {
        self.cols.contains(&tok)
    }
}

/// Check a GENGA input format string such as `<< x y z m vx vy vz >>`; `Err` says what was
/// expected (unknown or repeated token, mixed Keplerian and Cartesian columns, missing columns).
pub fn validate_format(format: &str) -> std::result::Result<(), String> {
    parse_format(format).map(|_| ())
}

fn parse_format(format: &str) -> std::result::Result<Format, String> {
    let mut words: Vec<&str> = format.split_whitespace().collect();
    if words.first() == Some(&"<<") {
        words.remove(0);
    }
    if words.last() == Some(&">>") {
        words.pop();
    }
    let mut cols = Vec::with_capacity(words.len());
    for w in words {
        let Some(k) = TOKENS.iter().position(|t| *t == w) else {
            return Err(format!(
                "unknown column token `{w}` in the format `{format}`; expected tokens from: {}",
                TOKENS.join(" ")
            ));
        };
        if k != C_SKIP && cols.contains(&k) {
            return Err(format!(
                "column token `{w}` appears twice in the format `{format}`"
            ));
        }
        cols.push(k);
    }
    let f = Format {
        cols,
        keplerian: false,
    };
    let names = |list: &[usize]| {
        list.iter()
            .filter(|&&k| f.has(k))
            .map(|&k| TOKENS[k])
            .collect::<Vec<_>>()
            .join(" ")
    };
    let cart = names(&CARTESIAN);
    let kep = names(&KEPLERIAN);
    if !cart.is_empty() && !kep.is_empty() {
        return Err(format!(
            "Keplerian columns ({kep}) and Cartesian columns ({cart}) cannot be mixed in the \
             format `{format}`"
        ));
    }
    if !f.has(C_M) {
        return Err(format!(
            "the format `{format}` has no mass column `m`; expected one"
        ));
    }
    if !kep.is_empty() {
        if f.has(C_A) && f.has(C_P) {
            return Err(format!(
                "the format `{format}` has both `a` and `P`; expected one of them"
            ));
        }
        if !f.has(C_A) && !f.has(C_P) {
            return Err(format!(
                "the format `{format}` has Keplerian columns but no `a` or `P`; expected one of them"
            ));
        }
        if !f.has(C_E) {
            return Err(format!(
                "the format `{format}` has Keplerian columns but no `e`; expected it"
            ));
        }
        if f.has(C_T) {
            return Err(format!(
                "the time of pericentre `T` in the format `{format}` is not supported yet; \
                 expected the mean anomaly `M` instead"
            ));
        }
        return Ok(Format {
            keplerian: true,
            ..f
        });
    }
    let missing: Vec<&str> = CARTESIAN
        .iter()
        .filter(|&&k| !f.has(k))
        .map(|&k| TOKENS[k])
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "the format `{format}` lacks the columns {}; expected all of x y z vx vy vz, or \
             Keplerian a (or P) and e with optional inc O w M",
            missing.join(" ")
        ));
    }
    Ok(f)
}

/// Read the bodies of a GENGA initial-condition file with the given format.
pub fn read_initial_conditions(path: &Path, format: &str, opts: &IcOptions) -> Result<Vec<Body>> {
    read_initial_conditions_tidal(path, format, opts).map(|(b, _)| b)
}

/// [`read_initial_conditions`] with every body's tidal properties (in the bodies' order).
pub fn read_initial_conditions_tidal(
    path: &Path,
    format: &str,
    opts: &IcOptions,
) -> Result<(Vec<Body>, Vec<TidalBody>)> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::input(
            Location::file(path),
            format!("cannot read the initial-condition file ({e}); expected a readable text file"),
        )
    })?;
    parse(&text, path, format, opts)
}

/// Parse the text of an initial-condition file; `source` names it in messages.
pub fn read_initial_conditions_str(
    text: &str,
    source: &Path,
    format: &str,
    opts: &IcOptions,
) -> Result<Vec<Body>> {
    parse(text, source, format, opts).map(|(b, _)| b)
}

/// The bodies of an initial-condition file and their tidal properties.
fn parse(
    text: &str,
    source: &Path,
    format: &str,
    opts: &IcOptions,
) -> Result<(Vec<Body>, Vec<TidalBody>)> {
    let fmt = parse_format(format)
        .map_err(|m| Error::input(Location::file(source).field("Input file Format"), m))?;
    let ncols = fmt.cols.len();
    let deg = if opts.angle_degrees {
        std::f64::consts::PI / 180.0
    } else {
        1.0
    };
    let mut bodies = Vec::new();
    let mut tidal = Vec::new();
    let mut id_lines: HashMap<u64, usize> = HashMap::new();
    let mut position_lines: HashMap<[u64; 3], usize> = HashMap::new();
    for (idx, raw) in text.lines().enumerate() {
        let n = idx + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |tok: &str| Location::file(source).line(n).field(tok);
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.len() != ncols {
            return Err(Error::input(
                Location::file(source).line(n),
                format!(
                    "expected {ncols} columns (format `{format}`), got {}",
                    words.len()
                ),
            ));
        }
        let mut v = [0.0f64; TOKENS.len()];
        let mut id = None;
        for (col, (&tok, word)) in fmt.cols.iter().zip(&words).enumerate() {
            if tok == C_SKIP {
                continue;
            }
            if tok == C_I {
                id = Some(parse_id(word).ok_or_else(|| {
                    Error::input(
                        at("i"),
                        format!(
                            "expected a non-negative integer body index in column {}, got `{word}`",
                            col + 1
                        ),
                    )
                })?);
                continue;
            }
            v[tok] = word.parse::<f64>().map_err(|_| {
                Error::input(
                    at(TOKENS[tok]),
                    format!(
                        "expected a number in column {} (`{}`), got `{word}`",
                        col + 1,
                        TOKENS[tok]
                    ),
                )
            })?;
        }
        let id = id.unwrap_or(bodies.len() as u64);
        let name = format!("body {id}");
        let m = v[C_M];
        if !(m.is_finite() && m >= 0.0) {
            return Err(Error::input(
                at("m"),
                format!("{name}: expected a finite mass >= 0, got {m}"),
            ));
        }
        for k in (C_SX..C_SX + 3).chain(if fmt.keplerian {
            C_A..C_MA + 1
        } else {
            C_X..C_VZ + 1
        }) {
            if fmt.has(k) && !v[k].is_finite() {
                return Err(Error::input(
                    at(TOKENS[k]),
                    format!("{name}: expected a finite `{}`, got {}", TOKENS[k], v[k]),
                ));
            }
        }
        if fmt.has(C_R) && !(v[C_R].is_finite() && v[C_R] >= 0.0) {
            return Err(Error::input(
                at("r"),
                format!("{name}: expected a finite radius >= 0 AU, got {}", v[C_R]),
            ));
        }
        // As GENGA's reader: a radius of 0 is one not given.
        let r = if fmt.has(C_R) && v[C_R] > 0.0 {
            v[C_R]
        } else if fmt.has(C_RHO) {
            let rho = v[C_RHO];
            if !(rho.is_finite() && rho > 0.0) {
                return Err(Error::input(
                    at("rho"),
                    format!("{name}: expected a finite density > 0 g/cm^3, got {rho}"),
                ));
            }
            units::radius_from_density(m, rho)
        } else {
            units::radius_from_density(m, opts.default_rho)
        };
        let (pos, vel) = if fmt.keplerian {
            let mu = opts.central_mass + m;
            let a = if fmt.has(C_P) {
                let p = v[C_P];
                if p <= 0.0 {
                    return Err(Error::input(
                        at("P"),
                        format!("{name}: expected a period > 0 days, got {p}"),
                    ));
                }
                let pk = p * units::K_GAUSS;
                (mu * pk * pk / (4.0 * std::f64::consts::PI * std::f64::consts::PI)).cbrt()
            } else {
                v[C_A]
            };
            let field = if fmt.has(C_P) { "P" } else { "a" };
            if a <= 0.0 {
                return Err(Error::input(
                    at(field),
                    format!("{name}: expected a semi-major axis > 0 AU (a bound orbit), got {a}"),
                ));
            }
            let e = v[C_E];
            if !(0.0..1.0).contains(&e) {
                return Err(Error::input(
                    at("e"),
                    format!("{name}: expected an eccentricity 0 <= e < 1 (a bound orbit), got {e}"),
                ));
            }
            cartesian_from_elements(
                mu,
                a,
                e,
                v[C_INC] * deg,
                v[C_O] * deg,
                v[C_W] * deg,
                v[C_MA] * deg,
            )
            .map_err(|err| {
                Error::input(
                    at(field),
                    format!(
                        "{name}: cannot convert the orbital elements (a = {a}, e = {e}) to a \
                         position and velocity: {err}"
                    ),
                )
            })?
        } else {
            (
                [v[C_X], v[C_X + 1], v[C_X + 2]],
                [v[C_X + 3], v[C_X + 4], v[C_X + 5]],
            )
        };
        if pos.iter().chain(&vel).any(|c| !c.is_finite()) {
            return Err(Error::input(
                Location::file(source).line(n),
                format!("{name}: the position or velocity is not finite"),
            ));
        }
        let dist = (pos[0] * pos[0] + pos[1] * pos[1] + pos[2] * pos[2]).sqrt();
        if dist <= opts.central_radius {
            return Err(Error::input(
                Location::file(source).line(n),
                format!(
                    "{name} is inside the central body: distance {dist:e} AU <= central radius {:e} AU",
                    opts.central_radius
                ),
            ));
        }
        if let Some(first) = id_lines.insert(id, n) {
            return Err(Error::input(
                at(if fmt.has(C_I) { "i" } else { "-" }),
                format!(
                    "{name}: the index is already used on line {first}; expected unique indices"
                ),
            ));
        }
        // Two bodies at one point would divide by zero in the first kick.
        if let Some(first) = position_lines.insert(pos.map(|c| (c + 0.0).to_bits()), n) {
            return Err(Error::input(
                Location::file(source).line(n),
                format!(
                    "{name} sits exactly on the body of line {first} (x y z = {} {} {}); \
                     expected distinct positions",
                    pos[0], pos[1], pos[2]
                ),
            ));
        }
        let own = |k: usize, default: f64| if fmt.has(k) { v[k] } else { default };
        let t = TidalBody {
            k2: own(C_K2, 0.0),
            k2f: own(C_K2 + 1, 0.0),
            tau: own(C_K2 + 2, 0.0),
            ic: own(C_IC, TidalBody::NONE.ic),
        };
        if opts.tides {
            t.check()
                .map_err(|(field, msg)| Error::input(at(field), format!("{name}: {msg}")))?;
        }
        tidal.push(t);
        let spin = [v[C_SX], v[C_SX + 1], v[C_SX + 2]];
        bodies.push(Body {
            id,
            m,
            r,
            pos,
            vel,
            spin,
        });
    }
    if bodies.is_empty() {
        return Err(Error::input(
            Location::file(source),
            "no bodies found; expected at least one data line",
        ));
    }
    Ok((bodies, tidal))
}

/// A body index: a non-negative integer, also written as an integral float (`3.0`).
fn parse_id(word: &str) -> Option<u64> {
    if let Ok(i) = word.parse::<u64>() {
        return Some(i);
    }
    let f = word.parse::<f64>().ok()?;
    (f.is_finite() && f >= 0.0 && f.fract() == 0.0 && f < 9.0e15).then_some(f as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    const CART: &str = "<< x y z m vx vy vz >>";

    fn opts() -> IcOptions {
        IcOptions {
            central_mass: 1.0,
            default_rho: 2.0,
            angle_degrees: false,
            central_radius: 0.005,
            tides: false,
        }
    }

    fn read(text: &str, format: &str) -> Result<Vec<Body>> {
        read_initial_conditions_str(text, Path::new("ic.dat"), format, &opts())
    }

    fn err(text: &str, format: &str) -> (Location, String) {
        match read(text, format) {
            Err(Error::Input { at, message }) => (at, message),
            other => panic!("expected an input error, got {other:?}"),
        }
    }

    #[test]
    fn genga_example_files_load() {
        let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/inputs/genga"));
        let p = crate::config::param_dat::parse_param_file(&dir.join("param.dat")).unwrap();
        let o = IcOptions {
            central_mass: p.central_mass,
            default_rho: p.default_rho,
            angle_degrees: p.angle_degrees,
            central_radius: p.star_radius,
            tides: false,
        };
        let input = p.input_file.clone().unwrap();
        assert_eq!(input, dir.join("initialplanet_2048.dat"));
        let bodies = read_initial_conditions(&input, &p.input_format, &o).unwrap();
        assert_eq!(bodies.len(), 2048);
        let r = units::radius_from_density(7.332687758e-09, 2.0);
        for (k, b) in bodies.iter().enumerate() {
            assert_eq!(b.id, k as u64);
            assert_eq!(b.m, 7.332687758e-09);
            assert_eq!(b.r, r);
            assert_eq!(b.spin, [0.0; 3]);
            let d = b.pos.iter().map(|c| c * c).sum::<f64>().sqrt();
            assert!(d > 0.45 && d < 4.1, "body {k} at {d} AU");
        }
        assert_eq!(bodies[0].pos, [2.31756637, 1.23665459, -0.001849207098]);
        assert_eq!(
            bodies[0].vel,
            [-0.2885404985, 0.5427243945, -6.952225588e-05]
        );
    }

    #[test]
    fn cartesian_columns_with_index_radius_and_spin() {
        let text = "# i m r x y z vx vy vz Sx Sy Sz\n7 1e-3 1e-4 1 0 0 0 1 0 0 0 1e-9\n\n\
                    3.0 2e-3 2e-4 0 2 0 -0.7 0 0 0 0 0\n";
        let b = read(text, "<< i m r x y z vx vy vz Sx Sy Sz >>").unwrap();
        assert_eq!(b.len(), 2);
        assert_eq!(
            b[0],
            Body {
                id: 7,
                m: 1e-3,
                r: 1e-4,
                pos: [1.0, 0.0, 0.0],
                vel: [0.0, 1.0, 0.0],
                spin: [0.0, 0.0, 1e-9]
            }
        );
        assert_eq!(b[1].id, 3);
        assert_eq!(b[1].pos, [0.0, 2.0, 0.0]);
        assert_eq!(b[1].vel, [-0.7, 0.0, 0.0]);
    }

    #[test]
    fn radius_from_rho_column_or_default_rho() {
        let b = read("1e-6 3.0 1 0 0 0 1 0\n", "m rho x y z vx vy vz").unwrap();
        assert_eq!(b[0].r, units::radius_from_density(1e-6, 3.0));
        let b = read("1e-6 1 0 0 0 1 0\n", "m x y z vx vy vz").unwrap();
        assert_eq!(b[0].r, units::radius_from_density(1e-6, 2.0));
        // `r` wins over `rho`.
        let b = read("1e-6 3.0 5e-5 1 0 0 0 1 0\n", "m rho r x y z vx vy vz").unwrap();
        assert_eq!(b[0].r, 5e-5);
        // A radius of 0 is one not given (GENGA's readic): from `rho`, else the default.
        let b = read("1e-6 3.0 0 1 0 0 0 1 0\n", "m rho r x y z vx vy vz").unwrap();
        assert_eq!(b[0].r, units::radius_from_density(1e-6, 3.0));
        let b = read("1e-6 0 1 0 0 0 1 0\n", "m r x y z vx vy vz").unwrap();
        assert_eq!(b[0].r, units::radius_from_density(1e-6, 2.0));
        let b = read("0 0 1 0 0 0 1 0\n", "m r x y z vx vy vz").unwrap();
        assert_eq!(b[0].r, 0.0, "a massless body stays a point");
        let (at, msg) = err("1e-6 -3.0 1 0 0 0 1 0\n", "m rho x y z vx vy vz");
        assert_eq!(at.field.as_deref(), Some("rho"));
        assert!(msg.contains("density > 0"), "{msg}");
    }

    #[test]
    fn skipped_and_ignored_columns_count() {
        let text = "0.0 junk 1e-6 1 0 0 0 1 0 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8\n";
        let f = "<< t - m x y z vx vy vz amin amax emin emax k2 k2f tau Ic >>";
        let b = read(text, f).unwrap();
        assert_eq!(b[0].pos, [1.0, 0.0, 0.0]);
        assert_eq!(b[0].vel, [0.0, 1.0, 0.0]);
        let (at, _) = err(
            "0.0 junk 1e-6 1 0 0 0 1 0 0.1 0.2 0.3 0.4 0.5 0.6 0.7 x\n",
            f,
        );
        assert_eq!(at.field.as_deref(), Some("Ic"));
    }

    #[test]
    fn comments_and_blank_lines_keep_file_line_numbers() {
        let text = "# header\n\n1e-6 1 0 0 0 1 0\n   # indented comment\n1e-6 2 0 0 0 0.7\n";
        let (at, msg) = err(text, CART);
        assert_eq!(at.line, Some(5));
        assert!(msg.contains("expected 7 columns"), "{msg}");
        assert!(msg.contains("got 6"), "{msg}");
        assert!(msg.contains(CART), "{msg}");
        assert_eq!(at.file, Some(PathBuf::from("ic.dat")));
        // Ids count data lines only.
        let b = read("# a\n1e-6 1 0 0 0 1 0\n\n1e-6 2 0 0 0 0.7 0\n", CART).unwrap();
        assert_eq!((b[0].id, b[1].id), (0, 1));
    }

    #[test]
    fn bad_number_names_line_and_column() {
        let (at, msg) = err("1 0 0 1e-6 0 1 0\n2 0.0.1 0 1e-6 0 0.7 0\n", CART);
        assert_eq!(at.line, Some(2));
        assert_eq!(at.field.as_deref(), Some("y"));
        assert!(msg.contains("column 2") && msg.contains("`0.0.1`"), "{msg}");
        let (at, msg) = err("-1 1e-6 1 0 0 0 1 0\n", "i m x y z vx vy vz");
        assert_eq!(at.field.as_deref(), Some("i"));
        assert!(msg.contains("non-negative integer"), "{msg}");
    }

    #[test]
    fn bad_masses_are_rejected() {
        for m in ["-1e-6", "NaN", "inf"] {
            let (at, msg) = err(&format!("1 0 0 {m} 0 1 0\n"), CART);
            assert_eq!((at.line, at.field.as_deref()), (Some(1), Some("m")), "{m}");
            assert!(msg.contains("finite mass >= 0"), "{msg}");
        }
        // Massless bodies (test particles) are fine.
        assert_eq!(read("1 0 0 0 0 1 0\n", CART).unwrap()[0].m, 0.0);
    }

    #[test]
    fn non_finite_coordinates_are_rejected() {
        let (at, msg) = err("1 nan 0 1e-6 0 1 0\n", CART);
        assert_eq!(at.field.as_deref(), Some("y"));
        assert!(msg.contains("finite"), "{msg}");
        let (at, _) = err("1 0 0 1e-6 0 -inf 0\n", CART);
        assert_eq!(at.field.as_deref(), Some("vy"));
        let (at, _) = err("1e-6 1 0 0 0 1 0 NaN\n", "m x y z vx vy vz Sx");
        assert_eq!(at.field.as_deref(), Some("Sx"));
    }

    #[test]
    fn negative_radius_is_rejected() {
        let (at, msg) = err("1e-6 -1e-5 1 0 0 0 1 0\n", "m r x y z vx vy vz");
        assert_eq!((at.line, at.field.as_deref()), (Some(1), Some("r")));
        assert!(msg.contains("radius >= 0"), "{msg}");
    }

    #[test]
    fn body_inside_the_central_radius_is_rejected() {
        let (at, msg) = err("1 0 0 1e-6 0 1 0\n0.001 0.001 0 1e-6 0 1 0\n", CART);
        assert_eq!(at.line, Some(2));
        assert!(msg.contains("body 1 is inside the central body"), "{msg}");
        let (_, msg) = err("0 0 0 1e-6 0 1 0\n", CART);
        assert!(msg.contains("body 0"), "{msg}");
    }

    #[test]
    fn duplicate_index_is_rejected() {
        let (at, msg) = err(
            "4 1e-6 1 0 0 0 1 0\n4 1e-6 2 0 0 0 0.7 0\n",
            "i m x y z vx vy vz",
        );
        assert_eq!(at.line, Some(2));
        assert!(msg.contains("already used on line 1"), "{msg}");
    }

    #[test]
    fn empty_file_is_rejected() {
        let (at, msg) = err("# nothing\n\n", CART);
        assert_eq!(at.file, Some(PathBuf::from("ic.dat")));
        assert!(msg.contains("no bodies"), "{msg}");
        assert!(read("", CART).is_err());
    }

    #[test]
    fn format_errors() {
        let (at, msg) = err("1\n", "<< x y z m vx vy vz q >>");
        assert_eq!(at.field.as_deref(), Some("Input file Format"));
        assert!(msg.contains("unknown column token `q`"), "{msg}");
        // Tokens are case-sensitive: `X` is not `x`.
        assert!(validate_format("X y z m vx vy vz").is_err());
        let (_, msg) = err("1\n", "<< x y z m vx vy vz a e >>");
        assert!(
            msg.contains("cannot be mixed") && msg.contains("x y z vx vy vz"),
            "{msg}"
        );
        let (_, msg) = err("1\n", "<< x y z vx vy vz >>");
        assert!(msg.contains("no mass column"), "{msg}");
        let (_, msg) = err("1\n", "<< x y z m vx vy >>");
        assert!(msg.contains("lacks the columns vz"), "{msg}");
        let (_, msg) = err("1\n", "<< m e inc >>");
        assert!(msg.contains("no `a` or `P`"), "{msg}");
        let (_, msg) = err("1\n", "<< m a inc >>");
        assert!(msg.contains("no `e`"), "{msg}");
        let (_, msg) = err("1\n", "<< m a P e >>");
        assert!(msg.contains("both `a` and `P`"), "{msg}");
        let (_, msg) = err("1\n", "<< m a e T >>");
        assert!(msg.contains("not supported yet"), "{msg}");
        let (_, msg) = err("1\n", "<< m m x y z vx vy vz >>");
        assert!(msg.contains("twice"), "{msg}");
        assert!(validate_format("m - - x y z vx vy vz").is_ok());
        assert!(validate_format(CART).is_ok());
    }

    #[test]
    fn keplerian_columns_are_converted() {
        // A circular orbit at 2 AU: distance a, speed sqrt(mu / a).
        let b = read("1e-3 2.0 0 0 0 0 0.3\n", "<< m a e inc O w M >>").unwrap();
        let d = b[0].pos.iter().map(|c| c * c).sum::<f64>().sqrt();
        let s = b[0].vel.iter().map(|c| c * c).sum::<f64>().sqrt();
        assert!((d - 2.0).abs() < 1e-12, "{d}");
        assert!((s - (1.001f64 / 2.0).sqrt()).abs() < 1e-12, "{s}");
        // Missing angles are 0; degrees and radians agree.
        let a = read("0 1.5 0\n", "m a e").unwrap();
        let b = read("0 1.5 0 0\n", "m a e M").unwrap();
        assert_eq!(a[0].pos, b[0].pos);
        let deg = IcOptions {
            angle_degrees: true,
            ..opts()
        };
        let c =
            read_initial_conditions_str("0 1.5 0 90\n", Path::new("x"), "m a e M", &deg).unwrap();
        let d = read("0 1.5 0 1.5707963267948966\n", "m a e M").unwrap();
        for k in 0..3 {
            assert!((c[0].pos[k] - d[0].pos[k]).abs() < 1e-14);
            assert!((c[0].vel[k] - d[0].vel[k]).abs() < 1e-14);
        }
    }

    #[test]
    fn period_column_gives_the_semi_major_axis() {
        // One Gaussian year (2 pi / k days) around one solar mass is a = 1 AU.
        let year = 2.0 * std::f64::consts::PI / units::K_GAUSS;
        let b = read(&format!("0 {year} 0\n"), "m P e").unwrap();
        let d = b[0].pos.iter().map(|c| c * c).sum::<f64>().sqrt();
        assert!((d - 1.0).abs() < 1e-12, "{d}");
        let (at, _) = err("0 -3 0\n", "m P e");
        assert_eq!(at.field.as_deref(), Some("P"));
        let (at, msg) = err("0 -1.5 0\n", "m a e");
        assert_eq!(at.field.as_deref(), Some("a"));
        assert!(msg.contains("semi-major axis > 0"), "{msg}");
        for e in ["1.0", "-0.1", "2"] {
            let (at, msg) = err(&format!("0 1.5 {e}\n"), "m a e");
            assert_eq!(at.field.as_deref(), Some("e"));
            assert!(msg.contains("0 <= e < 1"), "{msg}");
        }
    }

    #[test]
    fn unreadable_file_names_the_path() {
        let path = Path::new("/nonexistent/orrery/ic.dat");
        match read_initial_conditions(path, CART, &opts()) {
            Err(e @ Error::Input { .. }) => {
                assert!(e.to_string().contains("/nonexistent/orrery/ic.dat"), "{e}")
            }
            other => panic!("expected an input error, got {other:?}"),
        }
    }
}
