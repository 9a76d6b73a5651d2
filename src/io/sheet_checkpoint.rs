//! Restart files of the sheet engine: the particles (in their current order, which the next
//! step's sort starts from), the step, the counters and the length of the time series, written
//! atomically so an interrupted run resumes bitwise identically. The bytes go through
//! [`crate::io::binary`], the codec both engines' checkpoints share.

use crate::error::{Error, Location, Result};
use crate::io::binary::{LeReader, LeWriter};
use crate::io::output::write_atomic_with;
use crate::physics::sheet::Particles;
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
        let mut w = LeWriter::with_header(out, MAGIC, VERSION, c.step);
        let [wc, wk, ws] = c.window;
        for v in [c.candidates, c.collisions, c.series_len, wc, wk, ws] {
            w.u64(v);
        }
        w.u64(c.particles.len() as u64);
        f64_arrays(&c.particles).iter().for_each(|a| w.f64s(a));
        c.particles.id.iter().for_each(|&i| w.u32(i));
        w.finish()
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
    let (mut r, step) = LeReader::after_header(data, MAGIC, VERSION).ok_or_else(bad)?;
    let mut words = [0u64; 7];
    for v in words.iter_mut() {
        *v = r.u64().ok_or_else(bad)?;
    }
    let [candidates, collisions, series_len, wc, wk, ws, n] = words;
    let n = usize::try_from(n).map_err(|_| bad())?;
    // 8 arrays of f64 and one of u32 ids: 68 bytes a particle.
    if n == 0 || n.checked_mul(68) != Some(r.remaining()) {
        return Err(bad());
    }
    let arrays: Vec<Vec<f64>> = (0..8)
        .map(|_| r.f64s_exact(n))
        .collect::<Option<_>>()
        .ok_or_else(bad)?;
    let id = r.u32s_exact(n).ok_or_else(bad)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> SheetCheckpoint {
        let n = 3;
        let ramp = |k: f64| (0..n).map(|i| k + i as f64 * 0.25).collect::<Vec<_>>();
        SheetCheckpoint {
            step: 77,
            candidates: 12,
            collisions: 5,
            series_len: 1234,
            window: [3, 2, 9],
            particles: Particles {
                x: ramp(-1.0),
                y: ramp(2.0),
                z: vec![1e-300, -0.0, 3.0],
                vx: ramp(0.1),
                vy: ramp(0.2),
                vz: ramp(0.3),
                m: vec![1.0, 2.0, 3.0],
                r: vec![0.5, 0.25, 0.125],
                id: vec![2, 0, 1],
            },
        }
    }

    fn bytes(c: &SheetCheckpoint) -> Vec<u8> {
        let dir = std::env::temp_dir().join(format!("orrery-sheet-ck-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        save(&dir, "t", c).unwrap();
        let data = std::fs::read(path(&dir, "t")).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        data
    }

    #[test]
    fn round_trip_is_exact_and_damage_is_refused() {
        let c = sample();
        let data = bytes(&c);
        // Header, 7 words, then 68 bytes a particle.
        assert_eq!(data.len(), 8 + 8 + 8 + 7 * 8 + 68 * 3);
        let src = Path::new("t.bin");
        assert_eq!(decode(&data, src).unwrap(), c);
        assert!(decode(&data[..data.len() - 1], src).is_err());
        let mut longer = data.clone();
        longer.push(0);
        assert!(decode(&longer, src).is_err());
        let mut repeated = c.clone();
        repeated.particles.id = vec![0, 0, 1];
        let e = decode(&bytes(&repeated), src).unwrap_err().to_string();
        assert!(e.contains("permutation"), "{e}");
    }
}
