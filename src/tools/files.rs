//! Readers of Orrery's output files for the tools: hybrid snapshots (text `Out<name>_<step>.dat`
//! and binary `Out<name>_<step>.bin`), `Energy<name>.dat` and sheet snapshots. Every error names
//! the file, line and column.

use crate::error::{Error, Location, Result};
use std::path::Path;

/// Column names of a hybrid snapshot.
pub const SNAPSHOT_COLUMNS: [&str; 13] = [
    "t", "i", "m", "r", "x", "y", "z", "vx", "vy", "vz", "Sx", "Sy", "Sz",
];

/// One body of a snapshot (heliocentric; t in years).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SnapshotRow {
    pub t: f64,
    pub id: u64,
    pub m: f64,
    pub r: f64,
    pub pos: [f64; 3],
    pub vel: [f64; 3],
}

fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| {
        Error::input(
            Location::file(path),
            format!("cannot read the file ({e}); expected an Orrery output file"),
        )
    })
}

fn row_from(v: &[f64; 13], at: impl Fn(&str) -> Location) -> Result<SnapshotRow> {
    let id = v[1];
    if !(id.is_finite() && id >= 0.0 && id.fract() == 0.0 && id < 9.0e15) {
        return Err(Error::input(
            at("i"),
            format!("expected a non-negative integer body index, got {id}"),
        ));
    }
    Ok(SnapshotRow {
        t: v[0],
        id: id as u64,
        m: v[2],
        r: v[3],
        pos: [v[4], v[5], v[6]],
        vel: [v[7], v[8], v[9]],
    })
}

/// Read a hybrid snapshot: binary when the name ends in `.bin` (13 little-endian f64 per body),
/// text otherwise (13 columns `t i m r x y z vx vy vz Sx Sy Sz`; blank and `#` lines skipped).
pub fn read_snapshot(path: &Path) -> Result<Vec<SnapshotRow>> {
    let data = read_bytes(path)?;
    let binary = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("bin"));
    if binary {
        return parse_binary_snapshot(&data, path);
    }
    let text = String::from_utf8(data).map_err(|e| {
        Error::input(
            Location::file(path),
            format!(
                "not UTF-8 text at byte {}; expected a text snapshot (or a `.bin` binary one)",
                e.utf8_error().valid_up_to()
            ),
        )
    })?;
    parse_text_snapshot(&text, path)
}

/// Parse the bytes of a binary snapshot; `source` names it in messages.
pub fn parse_binary_snapshot(data: &[u8], source: &Path) -> Result<Vec<SnapshotRow>> {
    if !data.len().is_multiple_of(13 * 8) {
        return Err(Error::input(
            Location::file(source),
            format!(
                "{} bytes is not a whole number of bodies; expected 13 little-endian f64 \
                 (104 bytes) per body",
                data.len()
            ),
        ));
    }
    data.chunks_exact(13 * 8)
        .enumerate()
        .map(|(k, rec)| {
            let mut v = [0.0; 13];
            for (c, w) in v.iter_mut().zip(rec.chunks_exact(8)) {
                let mut b = [0u8; 8];
                b.copy_from_slice(w);
                *c = f64::from_le_bytes(b);
            }
            row_from(&v, |f| {
                Location::file(source).field(format!("body record {} column {f}", k + 1))
            })
        })
        .collect()
}

/// Parse numeric whitespace-separated rows with the `N` columns named `names`, or (`more` > 0)
/// with `more` further columns, which are not read.
fn numeric_rows<const N: usize>(
    text: &str,
    source: &Path,
    names: &[&str; N],
    more: usize,
) -> Result<Vec<(usize, [f64; N])>> {
    let mut rows = Vec::new();
    for (k, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = Location::file(source).line(k + 1);
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.len() != N && (more == 0 || words.len() != N + more) {
            let or = match more {
                0 => String::new(),
                m => format!(" (or {} with {m} more)", N + m),
            };
            return Err(Error::input(
                at,
                format!(
                    "expected {N} columns `{}`{or}, got {}",
                    names.join(" "),
                    words.len()
                ),
            ));
        }
        let mut v = [0.0; N];
        for (c, (w, name)) in words.iter().zip(names).enumerate() {
            v[c] = w.parse().map_err(|_| {
                Error::input(
                    at.clone().field(*name),
                    format!("expected a number in column {}, got `{w}`", c + 1),
                )
            })?;
        }
        rows.push((k + 1, v));
    }
    Ok(rows)
}

/// Parse the text of a snapshot; `source` names it in messages.
pub fn parse_text_snapshot(text: &str, source: &Path) -> Result<Vec<SnapshotRow>> {
    numeric_rows(text, source, &SNAPSHOT_COLUMNS, 0)?
        .into_iter()
        .map(|(line, v)| row_from(&v, |f| Location::file(source).line(line).field(f)))
        .collect()
}

/// Column names of `Energy<name>.dat`.
pub const ENERGY_COLUMNS: [&str; 10] = [
    "time", "N", "V", "T", "LI", "U", "ETotal", "LTotal", "LRelativ", "ERelativ",
];

/// Time (years) and ERelativ of every line of an energy file (a run with tides has the
/// central body's spin in three more columns).
pub fn read_energy(path: &Path) -> Result<Vec<(f64, f64)>> {
    let data = read_bytes(path)?;
    let text = String::from_utf8_lossy(&data);
    Ok(numeric_rows(&text, path, &ENERGY_COLUMNS, 3)?
        .into_iter()
        .map(|(_, v)| (v[0], v[9]))
        .collect())
}

/// A sheet snapshot: box size (from the header, when present) and `x y z vx vy vz r m` rows (SI).
#[derive(Debug, Clone, PartialEq)]
pub struct SheetSnapshot {
    pub box_size: Option<f64>,
    /// The time in orbits, from the header.
    pub orbits: Option<f64>,
    pub rows: Vec<[f64; 8]>,
}

/// Column names of a sheet snapshot.
pub const SHEET_COLUMNS: [&str; 8] = ["x", "y", "z", "vx", "vy", "vz", "r", "m"];

/// Read a sheet snapshot (`# ... L = <box> m ...` header, then `x y z vx vy vz r m`).
pub fn read_sheet_snapshot(path: &Path) -> Result<SheetSnapshot> {
    let data = read_bytes(path)?;
    let text = String::from_utf8_lossy(&data);
    let box_size = text
        .lines()
        .take_while(|l| l.trim_start().starts_with('#'))
        .find_map(|l| {
            let rest = &l[l.find(" L = ")? + 5..];
            rest.split_whitespace().next()?.parse::<f64>().ok()
        })
        .filter(|l| l.is_finite() && *l > 0.0);
    let orbits = text
        .lines()
        .take_while(|l| l.trim_start().starts_with('#'))
        .find_map(|l| {
            let before = &l[..l.find(" orbits")?];
            before.split_whitespace().last()?.parse::<f64>().ok()
        });
    let rows = numeric_rows(&text, path, &SHEET_COLUMNS, 0)?
        .into_iter()
        .map(|(_, v)| v)
        .collect();
    Ok(SheetSnapshot {
        box_size,
        orbits,
        rows,
    })
}
