//! Restart files of the sheet engine: the particles (in their current order, which the next
//! step's sort starts from), the step, the counters and the length of the time series, written
//! atomically so an interrupted run resumes bitwise identically.

use crate::error::{Error, Location, Result};
use crate::io::output::write_atomic_with;
use crate::physics::sheet::Particles;
use std::io::Write;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"ORRSHEET";
const VERSION: u64 = 1;

/// What a sheet run needs to continue.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SheetCheckpoint {
    pub step: u64,
    pub candidates: u64,
    pub collisions: u64,
    /// Length of the series file when the checkpoint was written.
    pub series_len: u64,
    /// Candidates, collisions and steps of the series window not yet written out.
    pub window: [u64; 3],
    pub particles: Particles,
}

/// Path of the restart file of run `name` in `dir`.
pub fn path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("SheetCheckpoint{name}.bin"))
}

fn f64_arrays(p: &Particles) -> [&Vec<f64>; 8] {
    [&p.x, &p.y, &p.z, &p.vx, &p.vy, &p.vz, &p.m, &p.r]
}

/// Write the restart file atomically.
pub fn save(dir: &Path, name: &str, c: &SheetCheckpoint) -> Result<()> {
    write_atomic_with(&path(dir, name), |out| {
        out.write_all(MAGIC)?;
        let [wc, wk, ws] = c.window;
        for v in [
            VERSION,
            c.step,
            c.candidates,
            c.collisions,
            c.series_len,
            wc,
            wk,
            ws,
        ] {
            out.write_all(&v.to_le_bytes())?;
        }
        let n = c.particles.len() as u64;
        out.write_all(&n.to_le_bytes())?;
        for a in f64_arrays(&c.particles) {
            for v in a {
                out.write_all(&v.to_le_bytes())?;
            }
        }
        for id in &c.particles.id {
            out.write_all(&id.to_le_bytes())?;
        }
        Ok(())
    })
}

/// Read the restart file of run `name` in `dir`.
pub fn load(dir: &Path, name: &str) -> Result<SheetCheckpoint> {
    let p = path(dir, name);
    let bad = || {
        Error::input(
            Location::file(&p),
            "expected a complete sheet checkpoint of this version to resume from",
        )
    };
    let data = std::fs::read(&p).map_err(|_| bad())?;
    decode(&data, &p)
}

/// Parse the bytes of a restart file; `source` names it in messages.
pub fn decode(data: &[u8], source: &Path) -> Result<SheetCheckpoint> {
    let bad = || {
        Error::input(
            Location::file(source),
            "expected a complete sheet checkpoint of this version to resume from",
        )
    };
    let mut at = 0usize;
    let mut take = |n: usize| -> Option<&[u8]> {
        let s = data.get(at..at.checked_add(n)?)?;
        at += n;
        Some(s)
    };
    if take(8) != Some(MAGIC.as_slice()) {
        return Err(bad());
    }
    let mut u64s = [0u64; 9];
    for v in u64s.iter_mut() {
        *v = u64::from_le_bytes(take(8).ok_or_else(bad)?.try_into().map_err(|_| bad())?);
    }
    let [version, step, candidates, collisions, series_len, wc, wk, ws, n] = u64s;
    let n = usize::try_from(n).map_err(|_| bad())?;
    if version != VERSION || n == 0 || n > data.len() / 68 {
        return Err(bad());
    }
    let mut arrays: Vec<Vec<f64>> = Vec::with_capacity(8);
    for _ in 0..8 {
        let raw = take(8 * n).ok_or_else(bad)?;
        arrays.push(
            raw.chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
                .collect(),
        );
    }
    let raw = take(4 * n).ok_or_else(bad)?;
    let id: Vec<u32> = raw
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap_or([0; 4])))
        .collect();
    if take(1).is_some() {
        return Err(bad());
    }
    // Ids index the particles (snapshots sort by them) and the tree needs finite states.
    let mut seen = vec![false; n];
    for &i in &id {
        match seen.get_mut(i as usize) {
            Some(s) if !*s => *s = true,
            _ => {
                return Err(Error::input(
                    Location::file(source).field("id"),
                    format!("particle id {i} is repeated or not below N = {n}; expected a permutation of 0..N"),
                ))
            }
        }
    }
    if let Some(k) = arrays.iter().position(|a| a.iter().any(|v| !v.is_finite())) {
        return Err(Error::input(
            Location::file(source).field(["x", "y", "z", "vx", "vy", "vz", "m", "r"][k]),
            "expected finite particle states",
        ));
    }
    if arrays[6..].iter().any(|a| a.iter().any(|v| *v < 0.0)) {
        return Err(Error::input(
            Location::file(source).field("m, r"),
            "expected masses and radii >= 0",
        ));
    }
    let mut a = arrays.into_iter();
    let mut next = || a.next().unwrap_or_default();
    let particles = Particles {
        x: next(),
        y: next(),
        z: next(),
        vx: next(),
        vy: next(),
        vz: next(),
        m: next(),
        r: next(),
        id,
    };
    Ok(SheetCheckpoint {
        step,
        candidates,
        collisions,
        series_len,
        window: [wc, wk, ws],
        particles,
    })
}
