//! What a GENGA restart from a step (`Restart timestep = N`, console `-R N`) reads back from the
//! files of the run that wrote that step (GENGA's `Run.rst`, "Restarting GENGA"):
//! - the bodies of `Out<name>_<N>.dat`, in its 13 columns or GENGA's 21 ([`read_snapshot`]);
//! - the energy books: E0 from the first line of `Energy<name>.dat`, the inner energy `U`, the
//!   lost angular momentum `LI`, `LTotal` and the central body's spin from the line of step N
//!   ([`read_books`]); GENGA reuses E0 and U the same way;
//! - how many collisions and ejections the run had by then, and its first one, from the lines of
//!   `Collisions<name>.dat` and `Ejections<name>.dat` up to that time.
//!
//! Times are matched to the step's time within a millionth of a step, so files that GENGA wrote
//! with fewer digits match too.

use crate::error::{Error, Location, Result};
use crate::io::checkpoint::{EVENT_COLLISION, EVENT_EJECTION};
use crate::io::initial_conditions::{read_initial_conditions_str, IcOptions};
use crate::io::output;
use crate::state::Body;
use std::path::Path;

/// Orrery's snapshot columns, and GENGA's default ones (the last four, `aec aecT encc test`,
/// are counters a restart does not read back).
const SNAPSHOT_FORMATS: [&str; 2] = [
    "t i m r x y z vx vy vz Sx Sy Sz",
    "t i m r x y z vx vy vz Sx Sy Sz amin amax emin emax - - - -",
];

/// The books of a run at the step it restarts from, as its files hold them.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RestartBooks {
    /// `ETotal` of the Energy file's first line: the run's initial energy.
    pub e0: f64,
    /// `LTotal` of the first line: the magnitude of the initial angular momentum.
    pub l0: f64,
    /// `U` at the step.
    pub u: f64,
    /// `LI` at the step: the magnitude of the angular momentum lost.
    pub l_lost: f64,
    /// `LTotal` at the step.
    pub l_total: f64,
    /// The central body's spin at the step, when the line has it (tides on).
    pub central_spin: Option<[f64; 3]>,
    pub collisions: u64,
    pub ejections: u64,
    /// Time (years) and kind of the first collision or ejection.
    pub first_event: Option<(f64, u64)>,
}

/// Whether a file's time `t` is the step's time `at` (within a millionth of the step `dt`,
/// both in years).
fn same_time(t: f64, at: f64, dt: f64) -> bool {
    (t - at).abs() <= 1e-6 * dt.abs()
}

/// The bodies of the snapshot `path` of the step at `t_years` (`dt_years` the run's step),
/// read as initial conditions with `opts`. A missing file is an error at `key` (where the
/// restart step was given); one with neither column layout or another time, in the file.
pub fn read_snapshot(
    path: &Path,
    key: Location,
    (t_years, dt_years): (f64, f64),
    opts: &IcOptions,
) -> Result<Vec<Body>> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::input(
            key,
            format!(
                "cannot read {} ({e}); expected the coordinate output the earlier run wrote at \
                 the restart step (the Output name and the step name it)",
                path.display()
            ),
        )
    })?;
    let Some((line, first)) = text
        .lines()
        .enumerate()
        .find(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
    else {
        return Err(Error::input(
            Location::file(path),
            "the coordinate output holds no bodies; expected one line per body",
        ));
    };
    let words: Vec<&str> = first.split_whitespace().collect();
    let format = SNAPSHOT_FORMATS
        .iter()
        .find(|f| f.split_whitespace().count() == words.len())
        .ok_or_else(|| {
            Error::input(
                Location::file(path).line(line + 1),
                format!(
                    "expected the 13 columns `{}` or GENGA's 21, got {}",
                    SNAPSHOT_FORMATS[0],
                    words.len()
                ),
            )
        })?;
    let t: f64 = words[0].parse().map_err(|_| {
        Error::input(
            Location::file(path).line(line + 1).field("t"),
            format!("expected the time in years, got `{}`", words[0]),
        )
    })?;
    if !same_time(t, t_years, dt_years) {
        return Err(Error::input(
            Location::file(path).line(line + 1).field("t"),
            format!(
                "the file is at {t} years, but the restart step is at {t_years} years; expected \
                 the time step of the run that wrote it (a restart keeps the step count; to start \
                 a new run from this file make it the Input file, with Restart timestep = 0)"
            ),
        ));
    }
    read_initial_conditions_str(&text, path, format, opts)
}

/// The books at the step at `t_years` of the run named `name` in `dir` (`dt_years` its step).
pub fn read_books(dir: &Path, name: &str, t_years: f64, dt_years: f64) -> Result<RestartBooks> {
    let path = output::energy_path(dir, name);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        Error::input(
            Location::file(&path),
            format!(
                "cannot read the energy file ({e}); a restart from a step takes E0 and U from it, \
                 so expected the Energy file of the run that wrote the step"
            ),
        )
    })?;
    let mut first = None;
    let mut at_step = None;
    for (k, raw) in whole_lines(&text) {
        if raw.trim().is_empty() || raw.trim_start().starts_with('#') {
            continue;
        }
        let line = EnergyColumns::parse(raw, &path, k + 1)?;
        first.get_or_insert(line);
        // The last line of the step: a run restarted before appended after the old lines.
        if same_time(line.t, t_years, dt_years) {
            at_step = Some(line);
        }
    }
    let (Some(first), Some(now)) = (first, at_step) else {
        return Err(Error::input(
            Location::file(&path),
            format!(
                "no line at {t_years} years, the restart step's time; expected the energy line of \
                 that step (an Energy output interval that divides it)"
            ),
        ));
    };
    let mut books = RestartBooks {
        e0: first.e_total,
        l0: first.l_total,
        u: now.u,
        l_lost: now.l_lost,
        l_total: now.l_total,
        central_spin: now.central_spin,
        ..Default::default()
    };
    let logs = [
        (output::collisions_path(dir, name), EVENT_COLLISION),
        (output::ejections_path(dir, name), EVENT_EJECTION),
    ];
    for (path, kind) in logs {
        for t in event_times(&path)? {
            if t > t_years && !same_time(t, t_years, dt_years) {
                continue;
            }
            match kind {
                EVENT_COLLISION => books.collisions += 1,
                _ => books.ejections += 1,
            }
            if books.first_event.is_none_or(|(f, _)| t < f) {
                books.first_event = Some((t, kind));
            }
        }
    }
    Ok(books)
}

/// The times (first column) of the lines of the event log `path`; none when it does not exist.
fn event_times(path: &Path) -> Result<Vec<f64>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(path, e)),
    };
    let mut times = Vec::new();
    for (k, raw) in whole_lines(&text) {
        let Some(word) = raw
            .split_whitespace()
            .next()
            .filter(|w| !w.starts_with('#'))
        else {
            continue;
        };
        let t: f64 = word
            .parse()
            .ok()
            .filter(|t: &f64| t.is_finite())
            .ok_or_else(|| {
                Error::input(
                    Location::file(path).line(k + 1).field("time"),
                    format!("expected the event's time in years, got `{word}`"),
                )
            })?;
        times.push(t);
    }
    Ok(times)
}

/// The numbered lines (from 0) of a log that end with a newline: a last line a killed run
/// left unfinished is not read (and the restart cuts it off before appending).
fn whole_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let end = text.rfind('\n').map_or(0, |k| k + 1);
    text[..end].lines().enumerate()
}

/// The columns of one energy line a restart reads.
#[derive(Debug, Clone, Copy)]
struct EnergyColumns {
    t: f64,
    l_lost: f64,
    u: f64,
    e_total: f64,
    l_total: f64,
    central_spin: Option<[f64; 3]>,
}

impl EnergyColumns {
    /// `time N V T LI U ETotal LTotal LRelativ ERelativ`, and optionally `Sx Sy Sz`.
    fn parse(raw: &str, path: &Path, line: usize) -> Result<Self> {
        const NAMES: [&str; 13] = [
            "time", "N", "V", "T", "LI", "U", "ETotal", "LTotal", "LRelativ", "ERelativ", "Sx",
            "Sy", "Sz",
        ];
        let words: Vec<&str> = raw.split_whitespace().collect();
        if words.len() != 10 && words.len() != 13 {
            return Err(Error::input(
                Location::file(path).line(line),
                format!(
                    "expected the 10 columns `{}` (13 with the central spin), got {}",
                    NAMES[..10].join(" "),
                    words.len()
                ),
            ));
        }
        let mut v = [0.0; 13];
        for (k, w) in words.iter().enumerate() {
            v[k] = w
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite())
                .ok_or_else(|| {
                    Error::input(
                        Location::file(path).line(line).field(NAMES[k]),
                        format!("expected a finite number, got `{w}`"),
                    )
                })?;
        }
        Ok(EnergyColumns {
            t: v[0],
            l_lost: v[4],
            u: v[5],
            e_total: v[6],
            l_total: v[7],
            central_spin: (words.len() == 13).then_some([v[10], v[11], v[12]]),
        })
    }
}

/// A lost angular momentum of magnitude `lost` that, added to the bodies' `l`, has magnitude
/// `total`: the files keep only the two magnitudes, so the vector is put in the plane of `l`
/// and the z axis (the azimuth around `l` is not recorded; both magnitudes are kept).
pub fn lost_angular_momentum(l: [f64; 3], lost: f64, total: f64) -> [f64; 3] {
    let b = crate::physics::energy::norm(l);
    if lost == 0.0 || b == 0.0 {
        return [lost, 0.0, 0.0];
    }
    let u = [l[0] / b, l[1] / b, l[2] / b];
    let cos = ((total * total - b * b - lost * lost) / (2.0 * b * lost)).clamp(-1.0, 1.0);
    let sin = (1.0 - cos * cos).sqrt();
    // A unit vector normal to `l`: z minus its part along `l`, or x when `l` is along z.
    let axis = if u[2].abs() < 0.9 {
        [0.0, 0.0, 1.0]
    } else {
        [1.0, 0.0, 0.0]
    };
    let along = axis[0] * u[0] + axis[1] * u[1] + axis[2] * u[2];
    let mut w = [0.0; 3];
    for c in 0..3 {
        w[c] = axis[c] - along * u[c];
    }
    let wn = crate::physics::energy::norm(w);
    let mut out = [0.0; 3];
    for c in 0..3 {
        out[c] = lost * (cos * u[c] + sin * w[c] / wn);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lost_vector_keeps_both_magnitudes() {
        for (l, lost, total) in [
            ([0.1, 0.2, 3.0], 0.05, 3.02),
            ([1.0, 0.0, 0.0], 0.3, 0.8),
            ([0.0, 0.0, 2.0], 0.1, 2.1),
        ] {
            let v = lost_angular_momentum(l, lost, total);
            let sum = [l[0] + v[0], l[1] + v[1], l[2] + v[2]];
            let norm = crate::physics::energy::norm;
            assert!((norm(v) - lost).abs() < 1e-15 * lost.max(1.0), "{v:?}");
            assert!((norm(sum) - total).abs() < 1e-14 * total, "{sum:?}");
        }
    }

    #[test]
    fn energy_lines_name_the_bad_column() {
        let p = Path::new("Energyx.dat");
        let e = EnergyColumns::parse("0 3 -1 0.5 0 x -0.5 1 0 0", p, 4).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("line 4") && text.contains("U"), "{text}");
        assert!(EnergyColumns::parse("0 3 -1", p, 1).is_err());
        assert!(EnergyColumns::parse("0 3 -1 0.5 0 NaN -0.5 1 0 0", p, 1).is_err());
        let ok = EnergyColumns::parse("1 3 -1 0.5 0.1 0.2 -0.3 1 0 0 1 2 3", p, 1).unwrap();
        assert_eq!((ok.u, ok.central_spin), (0.2, Some([1.0, 2.0, 3.0])));
    }
}
