//! Binary checkpoints for bitwise-exact restarts.
//!
//! A checkpoint holds the step, the backend's full hybrid state (bodies in democratic
//! coordinates and the stored accelerations the next opening kick reuses), the run's bookkeeping
//! (E0, L0, energy lost U, angular momentum lost, counters), the lengths the append-only logs had,
//! the Wisdom-Holman map's state of each running system when that integrator runs (a section
//! at the end that hybrid-step checkpoints do not have), and a fingerprint of the physical
//! configuration (the step settings, the first simulations'
//! settings spelled out, and a 64-bit FNV-1a hash of every simulation's settings). Little-endian,
//! versioned ([`crate::io::binary`], the codec both engines' checkpoints share), written
//! atomically.

use crate::error::{Error, Result};
use crate::io::binary::{LeReader, LeWriter};
use crate::io::output::write_atomic_with;
use crate::model::{HybridSnapshot, Layout, StopReason, StopRecord, System, SystemSpec};
use crate::physics::changeover::Changeover;
use crate::state::Bodies;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"ORRERYCK";
const VERSION: u64 = 5;
/// The version before the books ended with the lengths of the optional logs (a count, then the
/// lengths in the order of [`Bookkeeping::optional_logs`]; a reader takes those it knows): still
/// read.
const VERSION_WITHOUT_SHIFTS: u64 = 4;
/// The version before the books held each system's [`StopRecord`]: still read.
const VERSION_WITHOUT_STOPS: u64 = 3;

/// Run bookkeeping carried across restarts.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Bookkeeping {
    pub e0: f64,
    pub l0: [f64; 3],
    /// Energy removed by mergers and ejections (U of the energy file).
    pub u: f64,
    /// Angular momentum removed by ejections.
    pub l_lost: [f64; 3],
    pub ejections: u64,
    pub collisions: u64,
    pub energy_log_len: u64,
    pub ejection_log_len: u64,
    pub collision_log_len: u64,
    /// Length of the `CollisionsTShift` log (0 without `collisions.time_shift`).
    pub shifted_log_len: u64,
    /// Time (years) and kind ([`EVENT_COLLISION`], [`EVENT_EJECTION`]; 0 for none) of the first
    /// collision or ejection.
    pub first_event_years: f64,
    pub first_event_kind: u64,
    /// How the system stopped, if it did.
    pub stop: Option<StopRecord>,
}

/// Kinds of [`Bookkeeping::first_event_kind`].
pub const EVENT_COLLISION: u64 = 1;
pub const EVENT_EJECTION: u64 = 2;
/// Two bodies closer than the stop's encounter distance (`stop.hill_radii`, `min_distance`).
pub const EVENT_ENCOUNTER: u64 = 3;

/// How many optional logs the books of this version know ([`Bookkeeping::optional_logs`]).
const OPTIONAL_LOGS: usize = 1;

impl Bookkeeping {
    /// The lengths of the logs a run writes only with an option, in the checkpoint's order:
    /// CollisionsTShift.
    fn optional_logs(&self) -> [u64; OPTIONAL_LOGS] {
        [self.shifted_log_len]
    }

    /// Remember the first collision or ejection.
    pub fn note_event(&mut self, t_years: f64, kind: u64) {
        // The earliest wins: within one step an ejection at a perihelion passage can precede
        // a merger recorded before it.
        if self.first_event_kind == 0 || t_years < self.first_event_years {
            self.first_event_years = t_years;
            self.first_event_kind = kind;
        }
    }

    /// The first collision or ejection, if any: time in years and its name.
    pub fn first_event(&self) -> Option<(f64, &'static str)> {
        match self.first_event_kind {
            EVENT_COLLISION => Some((self.first_event_years, "collision")),
            EVENT_EJECTION => Some((self.first_event_years, "ejection")),
            EVENT_ENCOUNTER => Some((self.first_event_years, "encounter")),
            _ => None,
        }
    }
}

/// The Wisdom-Holman map's state of each running system: the system and its Jacobi positions
/// and velocities as the map holds them between steps (see
/// [`crate::physics::wisdom_holman::MapState`]). Empty for the hybrid step.
pub type MapStates = Vec<(usize, Vec<f64>)>;

/// Everything written to a checkpoint.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Checkpoint {
    pub step: u64,
    pub fingerprint: String,
    /// One per simulation.
    pub books: Vec<Bookkeeping>,
    pub state: HybridSnapshot,
    pub map: MapStates,
    /// Each sampled system's time series so far (see [`crate::config::samples`]): the system
    /// and its records, one after another. Empty without `samples`.
    pub samples: MapStates,
}

/// Path of the checkpoint of `step`.
pub fn checkpoint_path(dir: &Path, name: &str, step: u64) -> PathBuf {
    dir.join(format!("Checkpoint{name}_{step:012}.bin"))
}

fn body_arrays(b: &Bodies) -> [&Vec<f64>; 11] {
    [
        &b.m, &b.r, &b.x, &b.y, &b.z, &b.vx, &b.vy, &b.vz, &b.sx, &b.sy, &b.sz,
    ]
}

fn write_book(w: &mut LeWriter, k: &Bookkeeping) {
    let f = [
        k.e0,
        k.l0[0],
        k.l0[1],
        k.l0[2],
        k.u,
        k.l_lost[0],
        k.l_lost[1],
        k.l_lost[2],
        k.first_event_years,
    ];
    f.iter().for_each(|v| w.f64(*v));
    let u = [
        k.ejections,
        k.collisions,
        k.energy_log_len,
        k.ejection_log_len,
        k.collision_log_len,
        k.first_event_kind,
    ];
    u.iter().for_each(|v| w.u64(*v));
    write_stop(w, k.stop.as_ref());
    let optional = k.optional_logs();
    w.u64(optional.len() as u64);
    optional.iter().for_each(|v| w.u64(*v));
}

/// A stop record: its reason's code (0: none), step and time, then which of the two bodies and
/// the distance it has (bits 0, 1, 2) and their values (0 where absent).
fn write_stop(w: &mut LeWriter, stop: Option<&StopRecord>) {
    let Some(s) = stop else {
        (0..7).for_each(|_| w.u64(0));
        return;
    };
    w.u64(s.reason.code());
    w.u64(s.step);
    w.f64(s.years);
    let has = [
        s.bodies[0].is_some(),
        s.bodies[1].is_some(),
        s.distance.is_some(),
    ];
    w.u64((0..3).filter(|&b| has[b]).map(|b| 1 << b).sum());
    w.u64(s.bodies[0].unwrap_or(0));
    w.u64(s.bodies[1].unwrap_or(0));
    w.f64(s.distance.unwrap_or(0.0));
}

fn read_stop(r: &mut LeReader<'_>) -> Option<Option<StopRecord>> {
    let code = r.u64()?;
    let (step, years, has) = (r.u64()?, r.f64()?, r.u64()?);
    let (b0, b1, distance) = (r.u64()?, r.u64()?, r.f64()?);
    if code == 0 {
        return Some(None);
    }
    let bit = |b: u32| has & (1 << b) != 0;
    Some(Some(StopRecord {
        step,
        years,
        reason: StopReason::from_code(code)?,
        bodies: [bit(0).then_some(b0), bit(1).then_some(b1)],
        distance: bit(2).then_some(distance),
    }))
}

/// A book of a checkpoint of `version`: from [`VERSION_WITHOUT_SHIFTS`] on the books end with a
/// stop record, from [`VERSION`] on then with the CollisionsTShift log's length.
fn read_book(r: &mut LeReader<'_>, version: u64) -> Option<Bookkeeping> {
    let f: Vec<f64> = (0..9).map(|_| r.f64()).collect::<Option<_>>()?;
    let u: Vec<u64> = (0..6).map(|_| r.u64()).collect::<Option<_>>()?;
    let stop = match version >= VERSION_WITHOUT_SHIFTS {
        true => read_stop(r)?,
        false => None,
    };
    let mut optional = [0; OPTIONAL_LOGS];
    if version >= VERSION {
        let n = r.length()?;
        let lengths: Vec<u64> = (0..n).map(|_| r.u64()).collect::<Option<_>>()?;
        // Logs of later versions past the ones known here are left alone.
        optional.iter_mut().zip(lengths).for_each(|(o, l)| *o = l);
    }
    let shifted_log_len = optional[0];
    Some(Bookkeeping {
        stop,
        shifted_log_len,
        first_event_years: f[8],
        first_event_kind: u[5],
        e0: f[0],
        l0: [f[1], f[2], f[3]],
        u: f[4],
        l_lost: [f[5], f[6], f[7]],
        ejections: u[0],
        collisions: u[1],
        energy_log_len: u[2],
        ejection_log_len: u[3],
        collision_log_len: u[4],
    })
}

fn write_layout(w: &mut LeWriter, l: &Layout) {
    w.u64(l.block as u64);
    // The rules of the run in one word: bit 0 semi-active, bits 8.. the changeover function
    // (0, GENGA's, in checkpoints from before the choice existed).
    w.u64(l.semi_active as u64 | (l.changeover.code() as u64) << 8);
    w.u64(l.systems.len() as u64);
    for s in &l.systems {
        w.u64(s.len as u64);
        w.u64(s.massive as u64);
        w.u64(s.active as u64);
        // Bit 0: own parameters follow; bit 1: the central body's spin follows (checkpoints
        // of runs without tides have none, as before the spin was evolved).
        let spin = s.central_spin != [0.0; 3];
        w.u64(s.spec.is_some() as u64 | (spin as u64) << 1);
        if let Some(p) = &s.spec {
            [p.m0, p.n1, p.n2, p.inner_truncation, p.outer_truncation]
                .iter()
                .for_each(|v| w.f64(*v));
        }
        if spin {
            s.central_spin.iter().for_each(|v| w.f64(*v));
        }
    }
}

fn read_layout(r: &mut LeReader<'_>) -> Option<Layout> {
    let block = usize::try_from(r.u64()?).ok()?;
    let rules = r.u64()?;
    let semi_active = rules & 1 != 0;
    let changeover = *Changeover::ALL.get(usize::try_from(rules >> 8).ok()?)?;
    let n = r.length()?;
    let mut systems = Vec::with_capacity(n);
    for _ in 0..n {
        let len = usize::try_from(r.u64()?).ok()?;
        let massive = usize::try_from(r.u64()?).ok()?;
        let active = r.u64()? != 0;
        let parts = r.u64()?;
        if parts > 3 {
            return None;
        }
        let spec = match parts & 1 {
            0 => None,
            _ => Some(SystemSpec {
                m0: r.f64()?,
                n1: r.f64()?,
                n2: r.f64()?,
                inner_truncation: r.f64()?,
                outer_truncation: r.f64()?,
            }),
        };
        let central_spin = match parts & 2 {
            0 => [0.0; 3],
            _ => [r.f64()?, r.f64()?, r.f64()?],
        };
        systems.push(System {
            len,
            massive,
            spec,
            active,
            central_spin,
        });
    }
    Some(Layout {
        block,
        systems,
        semi_active,
        changeover,
    })
}

/// Serialise a checkpoint.
pub fn encode(c: &Checkpoint) -> Vec<u8> {
    let mut data = Vec::new();
    encode_into(c, &mut data).expect("writing to memory cannot fail");
    data
}

/// Serialise a checkpoint into `out` as it goes (no copy of the whole state in memory).
pub fn encode_into(c: &Checkpoint, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    encode_parts(
        c.step,
        &c.fingerprint,
        &c.books,
        [&c.map, &c.samples],
        std::slice::from_ref(&c.state),
        out,
    )
}

/// Serialise a checkpoint from its parts: the state as consecutive pieces borrowed from the
/// backend (see [`crate::backend::HybridBackend::visit_snapshot`]), written as one state, and
/// the map's states and the samples (`[map, samples]`, optional sections at the end).
pub fn encode_parts(
    step: u64,
    fingerprint: &str,
    books: &[Bookkeeping],
    [map, samples]: [&[(usize, Vec<f64>)]; 2],
    pieces: &[HybridSnapshot],
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let mut w = LeWriter::with_header(out, MAGIC, VERSION, step);
    w.bytes(fingerprint.as_bytes());
    w.u64(books.len() as u64);
    books.iter().for_each(|k| write_book(&mut w, k));
    let layout = Layout {
        block: pieces.first().map_or(0, |p| p.layout.block),
        systems: pieces
            .iter()
            .flat_map(|p| p.layout.systems.iter().copied())
            .collect(),
        semi_active: pieces.first().is_some_and(|p| p.layout.semi_active),
        changeover: pieces
            .first()
            .map_or(Changeover::Genga, |p| p.layout.changeover),
    };
    write_layout(&mut w, &layout);
    w.u64(pieces.iter().map(|p| p.bodies.len()).sum::<usize>() as u64);
    for p in pieces {
        p.bodies.id.iter().for_each(|&i| w.u64(i));
    }
    let arrays: Vec<[&Vec<f64>; 11]> = pieces.iter().map(|p| body_arrays(&p.bodies)).collect();
    for a in 0..11 {
        let joined: Vec<&[f64]> = arrays.iter().map(|p| p[a].as_slice()).collect();
        w.f64s_joined(&joined);
    }
    let joined = |f: &dyn Fn(&HybridSnapshot) -> &Vec<f64>| -> Vec<&[f64]> {
        pieces.iter().map(|p| f(p).as_slice()).collect()
    };
    w.f64s_joined(&joined(&|p| &p.rcrit));
    for c in 0..3 {
        w.f64s_joined(&joined(&|p| &p.far[c]));
    }
    for c in 0..3 {
        w.f64s_joined(&joined(&|p| &p.near[c]));
    }
    // Candidate slots of a piece are its own; in the whole state they follow the earlier pieces.
    w.u64(pieces.iter().map(|p| p.candidates.len()).sum::<usize>() as u64);
    let mut offset = 0u32;
    for p in pieces {
        for &(i, j) in &p.candidates {
            w.u64((((i + offset) as u64) << 32) | (j + offset) as u64);
        }
        offset += p.bodies.len() as u32;
    }
    // The map's section comes before the samples' (empty when only they are there).
    let sections = match (map.is_empty(), samples.is_empty()) {
        (true, true) => 0,
        (_, true) => 1,
        (_, false) => 2,
    };
    for section in [map, samples].into_iter().take(sections) {
        w.u64(section.len() as u64);
        for (s, values) in section {
            w.u64(*s as u64);
            w.f64s_joined(&[values]);
        }
    }
    w.finish()
}

/// Parse a checkpoint; `None` when the data is not a complete checkpoint of this version.
pub fn decode(data: &[u8]) -> Option<Checkpoint> {
    let versions = [VERSION, VERSION_WITHOUT_SHIFTS, VERSION_WITHOUT_STOPS];
    let (mut r, step, version) = versions
        .into_iter()
        .find_map(|v| LeReader::after_header(data, MAGIC, v).map(|(r, step)| (r, step, v)))?;
    let fingerprint = String::from_utf8(r.bytes()?).ok()?;
    let nb = r.length()?;
    let books = (0..nb)
        .map(|_| read_book(&mut r, version))
        .collect::<Option<_>>()?;
    let layout = read_layout(&mut r)?;
    let n = r.length()?;
    // A layout that does not describe these slots would index out of bounds on restore.
    let consistent = layout
        .systems
        .iter()
        .all(|s| s.len <= layout.block && s.massive <= s.len)
        && (layout.systems.is_empty() || layout.block.checked_mul(layout.systems.len()) == Some(n));
    if !consistent {
        return None;
    }
    let mut b = Bodies {
        id: (0..n).map(|_| r.u64()).collect::<Option<_>>()?,
        ..Default::default()
    };
    let arrays: Vec<Vec<f64>> = (0..11).map(|_| r.f64s()).collect::<Option<_>>()?;
    if arrays.iter().any(|a| a.len() != n) {
        return None;
    }
    let mut arrays = arrays.into_iter();
    for dst in [
        &mut b.m, &mut b.r, &mut b.x, &mut b.y, &mut b.z, &mut b.vx, &mut b.vy, &mut b.vz,
    ] {
        *dst = arrays.next()?;
    }
    for dst in [&mut b.sx, &mut b.sy, &mut b.sz] {
        *dst = arrays.next()?;
    }
    let rcrit = r.f64s()?;
    let acc: Vec<Vec<f64>> = (0..6).map(|_| r.f64s()).collect::<Option<_>>()?;
    let mut acc = acc.into_iter();
    let far = [acc.next()?, acc.next()?, acc.next()?];
    let near = [acc.next()?, acc.next()?, acc.next()?];
    let nc = r.length()?;
    let candidates = (0..nc)
        .map(|_| r.u64().map(|v| ((v >> 32) as u32, v as u32)))
        .collect::<Option<_>>()?;
    let mut sections = [Vec::new(), Vec::new()];
    for section in &mut sections {
        if r.at_end() {
            break;
        }
        let n = r.length()?;
        for _ in 0..n {
            section.push((usize::try_from(r.u64()?).ok()?, r.f64s()?));
        }
    }
    if !r.at_end() {
        return None;
    }
    let [map, samples] = sections;
    Some(Checkpoint {
        step,
        fingerprint,
        books,
        state: HybridSnapshot {
            bodies: b,
            layout,
            rcrit,
            far,
            near,
            candidates,
        },
        map,
        samples,
    })
}

/// Write a checkpoint atomically and keep only the newest two checkpoints of the run.
pub fn save(dir: &Path, name: &str, c: &Checkpoint) -> Result<PathBuf> {
    save_parts(
        dir,
        name,
        c.step,
        &c.fingerprint,
        &c.books,
        [&c.map, &c.samples],
        std::slice::from_ref(&c.state),
    )
}

/// [`save`] from the parts of a checkpoint.
pub fn save_parts(
    dir: &Path,
    name: &str,
    step: u64,
    fingerprint: &str,
    books: &[Bookkeeping],
    sections: [&[(usize, Vec<f64>)]; 2],
    pieces: &[HybridSnapshot],
) -> Result<PathBuf> {
    let path = checkpoint_path(dir, name, step);
    write_atomic_with(&path, |out| {
        encode_parts(step, fingerprint, books, sections, pieces, out)
    })?;
    let mut steps = list(dir, name);
    steps.retain(|&s| s < step);
    steps.sort_unstable();
    if steps.len() > 1 {
        for s in &steps[..steps.len() - 1] {
            let _ = std::fs::remove_file(checkpoint_path(dir, name, *s));
        }
    }
    Ok(path)
}

/// Steps of the checkpoints of run `name` found in `dir`.
pub fn list(dir: &Path, name: &str) -> Vec<u64> {
    let prefix = format!("Checkpoint{name}_");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let f = e.file_name().into_string().ok()?;
            let digits = f.strip_prefix(&prefix)?.strip_suffix(".bin")?;
            (digits.len() == 12).then(|| digits.parse().ok()).flatten()
        })
        .collect()
}

/// Why a decoded checkpoint cannot be resumed: candidate pairs beyond the slots, per-body
/// arrays of the wrong length, books that do not match the systems. `None` when consistent.
pub fn inconsistency(c: &Checkpoint) -> Option<String> {
    let s = &c.state;
    let n = s.bodies.len();
    if let Some(&(i, j)) = s
        .candidates
        .iter()
        .find(|&&(i, j)| i as usize >= n || j as usize >= n)
    {
        return Some(format!(
            "candidate pair ({i}, {j}) beyond the {n} body slots"
        ));
    }
    let per_body = std::iter::once(&s.rcrit).chain(&s.far).chain(&s.near);
    if per_body.clone().any(|v| !v.is_empty() && v.len() != n) {
        return Some(format!(
            "per-body arrays (critical radii, accelerations) of a length other than the {n} slots"
        ));
    }
    if !s.layout.systems.is_empty() && c.books.len() != s.layout.systems.len() {
        return Some(format!(
            "{} books for {} systems",
            c.books.len(),
            s.layout.systems.len()
        ));
    }
    None
}

/// The newest readable checkpoint of run `name` in `dir`, with a warning naming each newer
/// checkpoint that was skipped because it could not be read, and why. A checkpoint that reads
/// but is inconsistent is an error (exit code 2), not skipped.
pub fn load_newest(dir: &Path, name: &str) -> Result<(Checkpoint, Vec<String>)> {
    let mut steps = list(dir, name);
    steps.sort_unstable_by(|a, b| b.cmp(a));
    let mut skipped = Vec::new();
    for s in steps {
        let path = checkpoint_path(dir, name, s);
        let c = match std::fs::read(&path) {
            Err(e) => {
                skipped.push(format!(
                    "skipped the checkpoint {} (cannot read it: {e})",
                    path.display()
                ));
                continue;
            }
            Ok(data) => match decode(&data) {
                None => {
                    skipped.push(format!(
                        "skipped the checkpoint {} (not a complete checkpoint of this version: \
                         truncated, corrupt or from another version)",
                        path.display()
                    ));
                    continue;
                }
                Some(c) => c,
            },
        };
        if let Some(why) = inconsistency(&c) {
            return Err(Error::input(
                crate::error::Location::file(&path),
                format!("inconsistent checkpoint: {why}; expected a checkpoint written by orrery"),
            ));
        }
        return Ok((c, skipped));
    }
    let mut msg = format!("no readable checkpoint `Checkpoint{name}_<step>.bin` to resume from");
    for w in &skipped {
        msg.push_str(&format!("; {w}"));
    }
    Err(Error::input(crate::error::Location::file(dir), msg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_is_exact_and_truncation_is_detected() {
        let mut state = HybridSnapshot::default();
        let body = crate::state::Body {
            id: 7,
            m: 1e-9,
            r: 1e-6,
            pos: [1.0, -0.5, 1e-300],
            vel: [0.1, 0.2, -0.3],
            spin: [0.0, 1e-20, 0.0],
        };
        // Two systems in blocks of one slot: the second one's slot is empty.
        state.bodies = Bodies::from_bodies(&[
            body,
            crate::state::Body {
                id: u64::MAX,
                ..body
            },
        ]);
        state.rcrit = vec![0.01, 0.0];
        state.far = [vec![1.0, 0.0], vec![2.0, 0.0], vec![3.0, 0.0]];
        state.near = [vec![4.0, 0.0], vec![5.0, 0.0], vec![6.0, 0.0]];
        state.candidates = vec![(0, 0), (3, 9)];
        state.layout = Layout::single(1, 1);
        state.layout.systems.push(System {
            len: 0,
            massive: 0,
            spec: Some(SystemSpec {
                m0: 1.1,
                n1: 3.0,
                n2: 0.4,
                inner_truncation: 0.1,
                outer_truncation: 9.0,
            }),
            active: false,
            central_spin: [1e-6, -2e-7, 3e-5],
        });
        let book = |e0| Bookkeeping {
            e0,
            u: 1e-12,
            energy_log_len: 99,
            shifted_log_len: 314,
            ..Default::default()
        };
        // A stopped system's record comes back with the bodies and distance it has.
        let stopped = Bookkeeping {
            stop: Some(StopRecord {
                step: 7,
                years: 0.125,
                reason: StopReason::Escape,
                bodies: [Some(3), None],
                distance: Some(101.5),
            }),
            ..book(-2.5)
        };
        let c = Checkpoint {
            step: 42,
            fingerprint: "dt=6".into(),
            books: vec![book(-1.5), stopped],
            state,
            map: Vec::new(),
            samples: Vec::new(),
        };
        let data = encode(&c);
        assert_eq!(decode(&data), Some(c.clone()));
        assert_eq!(decode(&data[..data.len() - 1]), None);
        // The map's section, when there is one, comes back too; a cut one is refused.
        let mut wh = c.clone();
        wh.map = vec![(1, vec![0.5, -1e-300, 3.0]), (4, vec![])];
        let data = encode(&wh);
        assert_eq!(decode(&data), Some(wh.clone()));
        assert_eq!(decode(&data[..data.len() - 8]), None);
        // The samples' section after it, with or without a map.
        for map in [wh.map.clone(), Vec::new()] {
            let sampled = Checkpoint {
                map,
                samples: vec![(0, vec![0.0, 0.0, 2.5]), (1, vec![7.0])],
                ..c.clone()
            };
            assert_eq!(decode(&encode(&sampled)), Some(sampled));
        }
        // A layout that does not fit the slots is refused instead of panicking later.
        let mut bad = c;
        bad.state.layout.block = 3;
        assert_eq!(decode(&encode(&bad)), None);
    }

    /// Checkpoints of the versions before stop records (books of 15 numbers) and before the
    /// CollisionsTShift log's length (books ending with the stop record) are still read, with no
    /// system stopped by a record and an empty CollisionsTShift log.
    #[test]
    fn a_checkpoint_without_stop_records_is_read() {
        let book = Bookkeeping {
            e0: -1.25,
            first_event_kind: EVENT_EJECTION,
            ..Default::default()
        };
        let c = Checkpoint {
            step: 9,
            fingerprint: "dt=6".into(),
            books: vec![book.clone(), book],
            ..Default::default()
        };
        let new = encode(&c);
        // Header (magic, version, step), the fingerprint (length and bytes), the book count.
        let books_at = 24 + 8 + c.fingerprint.len() + 8;
        let (book_len, stop_len) = (15 * 8, 7 * 8);
        // Books of this version end with the stop record and the optional logs' lengths.
        let tail = stop_len + 8 + 8 * OPTIONAL_LOGS;
        for (version, kept) in [
            (VERSION_WITHOUT_STOPS, 0),
            (VERSION_WITHOUT_SHIFTS, stop_len),
        ] {
            let mut old = new[..books_at].to_vec();
            old[8..16].copy_from_slice(&version.to_le_bytes());
            for k in 0..2 {
                let at = books_at + k * (book_len + tail);
                old.extend_from_slice(&new[at..at + book_len + kept]);
            }
            old.extend_from_slice(&new[books_at + 2 * (book_len + tail)..]);
            assert_eq!(decode(&old), Some(c.clone()), "version {version}");
        }
        // Books that list more optional logs than this code knows (written by a later Orrery of
        // the same checkpoint version) are read with the ones it knows.
        let mut later = new[..books_at].to_vec();
        for k in 0..2 {
            let at = books_at + k * (book_len + tail);
            later.extend_from_slice(&new[at..at + book_len + stop_len]);
            later.extend_from_slice(&(OPTIONAL_LOGS as u64 + 1).to_le_bytes());
            later.extend_from_slice(&new[at + book_len + stop_len + 8..at + book_len + tail]);
            later.extend_from_slice(&77u64.to_le_bytes());
        }
        later.extend_from_slice(&new[books_at + 2 * (book_len + tail)..]);
        assert_eq!(decode(&later), Some(c.clone()), "more optional logs");
    }
}
