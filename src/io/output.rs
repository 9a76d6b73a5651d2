//! GENGA-compatible output files: snapshots `Out<name>_<step12>.dat`, `Energy<name>.dat`,
//! `Ejections<name>.dat` and the run information `info<name>.dat`.
//!
//! Numbers are written in Rust's shortest round-trip exponent form, so a snapshot holds the
//! state exactly; snapshots are written to a temporary name and renamed, so a file that exists is
//! always complete.

use crate::error::{Error, Result};
use crate::state::Body;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Path of the snapshot of `step`.
pub fn snapshot_path(dir: &Path, name: &str, step: u64) -> PathBuf {
    dir.join(format!("Out{name}_{step:012}.dat"))
}

/// Path of the binary snapshot of `step`.
pub fn binary_snapshot_path(dir: &Path, name: &str, step: u64) -> PathBuf {
    dir.join(format!("Out{name}_{step:012}.bin"))
}

/// Write a binary snapshot: per body the 13 values `t i m r x y z vx vy vz Sx Sy Sz` of the text
/// snapshot as little-endian f64 (the index `i` exactly, as every index is below 2^53). Read it
/// with numpy as `numpy.fromfile(path, "<f8").reshape(-1, 13)`.
pub fn write_binary_snapshot(
    path: &Path,
    t_years: f64,
    bodies: impl IntoIterator<Item = Body>,
) -> Result<()> {
    write_atomic_with(path, |out| {
        for b in bodies {
            let row = [t_years, b.id as f64].into_iter().chain(state_columns(&b));
            for v in row {
                out.write_all(&v.to_le_bytes())?;
            }
        }
        Ok(())
    })
}

/// Path of GENGA's `OutCollision.dat` (`.bin` for binary snapshots): every body at the time of
/// the collision that stopped the run (GENGA's `Files.rst`; the name carries no run name).
pub fn collision_state_path(dir: &Path, binary: bool) -> PathBuf {
    dir.join(if binary {
        "OutCollision.bin"
    } else {
        "OutCollision.dat"
    })
}

/// Path of the energy file.
pub fn energy_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("Energy{name}.dat"))
}

/// Path of the ejections file.
pub fn ejections_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("Ejections{name}.dat"))
}

/// Path of the collisions file.
pub fn collisions_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("Collisions{name}.dat"))
}

/// Path of the backtraced collisions file (GENGA's `CollisionsTShift<name>.dat`, spelled as
/// GENGA's code writes it).
pub fn shifted_collisions_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("CollisionsTShift{name}.dat"))
}

/// Path of the run-information file.
pub fn info_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("info{name}.dat"))
}

/// Write `contents` to `path` atomically (temporary file, then rename).
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<()> {
    let tmp = path.with_extension("tmp");
    let io = |e| Error::io(path, e);
    {
        let mut f = File::create(&tmp).map_err(io)?;
        f.write_all(contents).map_err(io)?;
        f.sync_data().map_err(io)?;
    }
    std::fs::rename(&tmp, path).map_err(io)
}

/// The columns `m r x y z vx vy vz Sx Sy Sz` of a body (after its index `i`).
fn state_columns(b: &Body) -> [f64; 11] {
    [
        b.m, b.r, b.pos[0], b.pos[1], b.pos[2], b.vel[0], b.vel[1], b.vel[2], b.spin[0], b.spin[1],
        b.spin[2],
    ]
}

/// One body as the columns `i m r x y z vx vy vz Sx Sy Sz` (heliocentric).
fn body_columns(b: &Body) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(256);
    let _ = write!(s, "{}", b.id);
    for v in state_columns(b) {
        let _ = write!(s, " {v:e}");
    }
    s
}

/// Write a snapshot with the columns `t i m r x y z vx vy vz Sx Sy Sz` (t in years,
/// heliocentric positions and velocities).
pub fn write_snapshot(
    path: &Path,
    t_years: f64,
    bodies: impl IntoIterator<Item = Body>,
) -> Result<()> {
    write_atomic_with(path, |out| {
        for b in bodies {
            writeln!(out, "{t_years:e} {}", body_columns(&b))?;
        }
        Ok(())
    })
}

/// Write `path` atomically from a streaming writer (temporary file, then rename), without
/// holding the whole contents in memory.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) -> Result<()> {
    let tmp = path.with_extension("tmp");
    let io = |e| Error::io(path, e);
    let mut out = BufWriter::new(File::create(&tmp).map_err(io)?);
    fill(&mut out).map_err(io)?;
    let f = out.into_inner().map_err(|e| io(e.into_error()))?;
    f.sync_data().map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)
}

/// An append-only text log (energy, ejections) that can be cut back to a known length on resume.
pub struct Log {
    path: PathBuf,
    out: BufWriter<File>,
}

impl Log {
    /// Create (truncating) or, with `keep_bytes`, reopen and cut back to that length.
    pub fn open(path: &Path, keep_bytes: Option<u64>) -> Result<Self> {
        let io = |e| Error::io(path, e);
        let f = match keep_bytes {
            None => File::create(path).map_err(io)?,
            Some(len) => {
                let f = OpenOptions::new()
                    .create(true)
                    .truncate(false)
                    .write(true)
                    .open(path)
                    .map_err(io)?;
                let have = f.metadata().map_err(io)?.len();
                if have < len {
                    return Err(Error::input(
                        crate::error::Location::file(path),
                        format!(
                            "the file is shorter ({have} bytes) than the checkpoint recorded \
                             ({len} bytes): it was truncated or replaced since; expected the \
                             file the checkpoint's run wrote"
                        ),
                    ));
                }
                f.set_len(len).map_err(io)?;
                let mut f = f;
                std::io::Seek::seek(&mut f, std::io::SeekFrom::End(0)).map_err(io)?;
                f
            }
        };
        Ok(Log {
            path: path.to_path_buf(),
            out: BufWriter::new(f),
        })
    }

    /// Append one line.
    pub fn line(&mut self, text: &str) -> Result<()> {
        writeln!(self.out, "{text}").map_err(|e| Error::io(&self.path, e))
    }

    /// Flush and return the file length (recorded in checkpoints).
    pub fn flush_len(&mut self) -> Result<u64> {
        let io = |e| Error::io(&self.path, e);
        self.out.flush().map_err(io)?;
        self.out.get_ref().sync_data().map_err(io)?;
        Ok(self.out.get_ref().metadata().map_err(io)?.len())
    }
}

/// One line of `Energy<name>.dat`: `time N V T LI U ETotal LTotal LRelativ ERelativ`, and with
/// tides or rotational deformation on, the central body's spin `Sx Sy Sz` after them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EnergyLine {
    pub t_years: f64,
    pub n: usize,
    pub potential: f64,
    pub kinetic: f64,
    pub l_lost: f64,
    pub u: f64,
    pub e_total: f64,
    pub l_total: f64,
    pub l_relative: f64,
    pub e_relative: f64,
    /// The central body's spin, written when the tides evolve it.
    pub central_spin: Option<[f64; 3]>,
}

impl EnergyLine {
    /// The line as written to the file.
    pub fn format(&self) -> String {
        let line = format!(
            "{:e} {} {:e} {:e} {:e} {:e} {:e} {:e} {:e} {:e}",
            self.t_years,
            self.n,
            self.potential,
            self.kinetic,
            self.l_lost,
            self.u,
            self.e_total,
            self.l_total,
            self.l_relative,
            self.e_relative
        );
        match self.central_spin {
            None => line,
            Some(s) => format!("{line} {:e} {:e} {:e}", s[0], s[1], s[2]),
        }
    }
}

/// One line of `Ejections<name>.dat`: time, `i m r x y z vx vy vz Sx Sy Sz`, case.
pub fn ejection_line(t_years: f64, b: &Body, case: i32) -> String {
    format!("{t_years:e} {} {case}", body_columns(b))
}

/// One line of `Collisions<name>.dat`: time, then `i m r x y z vx vy vz Sx Sy Sz` of both bodies
/// just before contact (heliocentric).
pub fn collision_line(t_years: f64, a: &Body, b: &Body) -> String {
    format!("{t_years:e} {} {}", body_columns(a), body_columns(b))
}
