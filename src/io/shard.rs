//! Sharded ensembles and multi-simulation lists (`--shard K/N`, `orrery merge DIR`): spread the
//! systems of one run over N independent processes (a Slurm job array, or any other scheduler)
//! and combine their results into what the unsharded run writes.
//!
//! - **Balance.** Shard K of N takes a deterministic share of the systems, balanced by body
//!   count: systems by decreasing body count (then index) each go to the shard with the fewest
//!   bodies so far (then the lowest shard number), the longest-processing-time rule. Every
//!   system lands in exactly one shard, and the same input always gives the same shares.
//! - **Bits.** The systems of a multi run are independent, so each system's result in its shard
//!   is bitwise what the unsharded run gives it (tested).
//! - **Files.** A shard keeps its checkpoints (and an ensemble's shard its summary table) in
//!   the folder `shard-K-of-N` beside where the unsharded run keeps them (the ensemble's
//!   output directory, or the list's folder), with a record `shard.ron`: which systems it
//!   holds, the configuration's fingerprint, and whether it finished. A list's simulations
//!   write their own files into their own directories, as unsharded.
//! - **Merge.** `orrery merge DIR` checks that the shards in DIR are all there (0 to N-1),
//!   finished, of one configuration, and cover every system once, then writes the ensemble's
//!   `summary.csv` in DIR, byte for byte the unsharded run's (rows in system order, padded to
//!   the largest system). It refuses, naming the shards, otherwise.

use crate::error::{Error, Location, Result};
use crate::io::output::write_atomic;
use crate::io::summary_table;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// `--shard K/N`: shard `index` (0-based) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let bad = || format!("`{s}`: expected K/N with 0 <= K < N, e.g. 0/4 (K counts from 0)");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = k.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// The shard's folder name.
    pub fn folder(&self) -> String {
        format!("shard-{}-of-{}", self.index, self.count)
    }
}

/// The record a shard keeps in its folder (`shard.ron`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardRecord {
    pub shard: usize,
    pub shards: usize,
    /// `ensemble` or `list`.
    pub kind: String,
    /// The run's name.
    pub name: String,
    /// Systems of the whole run, and the global indices of this shard's.
    pub total_systems: usize,
    pub systems: Vec<usize>,
    /// Initial bodies of this shard's systems.
    pub bodies: usize,
    /// The step the run ends at (`Integration steps`, `--steps`).
    pub end_step: u64,
    /// The configuration's fingerprint (see [`crate::config::shard::fingerprint`]).
    pub fingerprint: String,
    /// True once the shard has run to its last step.
    pub finished: bool,
}

/// The record file of a shard folder.
pub fn record_path(folder: &Path) -> PathBuf {
    folder.join("shard.ron")
}

/// The shard each system goes to, for systems of `weights` bodies (module docs).
pub fn assign(weights: &[usize], count: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by_key(|&s| (std::cmp::Reverse(weights[s]), s));
    let mut load = vec![0usize; count];
    let mut out = vec![0; weights.len()];
    for s in order {
        let k = (0..count).min_by_key(|&k| (load[k], k)).unwrap_or(0);
        load[k] += weights[s];
        out[s] = k;
    }
    out
}

/// Before a shard resumes: the record in `folder` must be this shard's, of this configuration
/// (a changed ensemble resubmitted into the same folder must not continue the old checkpoints).
/// It is then rewritten as unfinished, with this run's end step, until the run finishes.
pub fn check_resume(folder: &Path, record: &ShardRecord) -> Result<()> {
    if record_path(folder).exists() {
        let before = read_record(folder)?;
        if before.fingerprint != record.fingerprint || before.systems != record.systems {
            return Err(Error::input(
                Location::file(&record_path(folder)),
                format!(
                    "shard {} of {} was started with another configuration ({}, now {}) or \
                     other systems; expected the same ensemble or list to resume, or a fresh \
                     run in a new folder (or --overwrite without --resume)",
                    record.shard, record.shards, before.fingerprint, record.fingerprint
                ),
            ));
        }
    }
    write_record(folder, record)
}

/// Write `record` into its shard folder `folder` (atomically).
pub fn write_record(folder: &Path, record: &ShardRecord) -> Result<()> {
    let text = ron::ser::to_string_pretty(record, ron::ser::PrettyConfig::default())
        .map_err(|e| Error::run(format!("cannot write the shard record: {e}")))?;
    write_atomic(&record_path(folder), text.as_bytes())
}

fn read_record(folder: &Path) -> Result<ShardRecord> {
    let path = record_path(folder);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        Error::input(
            Location::file(&path),
            format!(
                "cannot read the shard record ({e}); expected the shard.ron a sharded run writes"
            ),
        )
    })?;
    ron::from_str(&text).map_err(|e| {
        Error::input(
            Location::file(&path).line(e.span.start.line),
            format!(
                "column {}: {}; expected a shard record",
                e.span.start.col, e.code
            ),
        )
    })
}

/// What `orrery merge` did.
#[derive(Debug, Clone, PartialEq)]
pub struct Merged {
    pub name: String,
    pub kind: String,
    pub shards: usize,
    pub systems: usize,
    /// The summary table written (ensembles).
    pub summary: Option<PathBuf>,
    /// The samples file written (runs with `samples`).
    pub samples: Option<PathBuf>,
    /// Largest shard's bodies over the mean.
    pub balance: f64,
}

/// The shards' `Samples<name>.npz` as the unsharded run's, in `dir` (none when no shard has
/// one; an error naming the shard when some have and some have not).
fn merge_samples(
    dir: &Path,
    records: &[(PathBuf, ShardRecord)],
    name: &str,
    total: usize,
) -> Result<Option<PathBuf>> {
    use crate::io::samples::{merge_arrays, read_npz, samples_path, write_npz};
    let files: Vec<PathBuf> = records.iter().map(|(f, _)| samples_path(f, name)).collect();
    if files.iter().all(|f| !f.exists()) {
        return Ok(None);
    }
    if let Some(f) = files.iter().find(|f| !f.exists()) {
        return Err(Error::input(
            Location::file(f),
            "missing while other shards have their samples; expected every shard's",
        ));
    }
    let parts = files
        .iter()
        .map(|f| read_npz(f))
        .collect::<Result<Vec<_>>>()?;
    let merged = merge_arrays(&parts, total).map_err(|m| Error::input(Location::file(dir), m))?;
    let path = samples_path(dir, name);
    write_npz(&path, &merged)?;
    Ok(Some(path))
}

/// Combine the shards in `dir` (module docs).
pub fn merge(dir: &Path) -> Result<Merged> {
    let at = || Location::file(dir);
    let entries = std::fs::read_dir(dir).map_err(|e| {
        Error::input(
            at(),
            format!("cannot read the folder ({e}); expected the output folder of a sharded run"),
        )
    })?;
    let mut folders: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.is_dir()
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("shard-"))
        })
        .collect();
    folders.sort();
    if folders.is_empty() {
        return Err(Error::input(
            at(),
            "no shard folders (shard-K-of-N) here; expected the output folder of a run with --shard",
        ));
    }
    let records: Vec<(PathBuf, ShardRecord)> = folders
        .into_iter()
        .map(|f| read_record(&f).map(|r| (f, r)))
        .collect::<Result<_>>()?;
    let first = &records[0].1;
    let (count, print) = (first.shards, first.fingerprint.clone());
    let foreign: Vec<String> = records
        .iter()
        .filter(|(_, r)| r.shards != count || r.fingerprint != print || r.name != first.name)
        .map(|(f, r)| {
            format!(
                "{} (shard {} of {}, configuration {})",
                f.display(),
                r.shard,
                r.shards,
                r.fingerprint
            )
        })
        .collect();
    if !foreign.is_empty() {
        return Err(Error::input(
            at(),
            format!(
                "shards of a different configuration than {} (shard {} of {count}, configuration \
                 {print}): {}; expected the shards of one run only",
                records[0].0.display(),
                first.shard,
                foreign.join(", ")
            ),
        ));
    }
    let missing: Vec<String> = (0..count)
        .filter(|k| !records.iter().any(|(_, r)| r.shard == *k))
        .map(|k| format!("shard {k} of {count} (shard-{k}-of-{count})"))
        .collect();
    if !missing.is_empty() {
        return Err(Error::input(
            at(),
            format!(
                "missing {}; expected all {count} shards (run them with --shard K/{count})",
                missing.join(", ")
            ),
        ));
    }
    let ends: Vec<String> = records
        .iter()
        .filter(|(_, r)| r.end_step != first.end_step)
        .map(|(f, r)| format!("{} (to step {})", f.display(), r.end_step))
        .collect();
    if !ends.is_empty() {
        return Err(Error::input(
            at(),
            format!(
                "shards run to a different end step than {} (to step {}): {}; expected every \
                 shard run to the same step (resume the short ones with --steps and --resume)",
                records[0].0.display(),
                first.end_step,
                ends.join(", ")
            ),
        ));
    }
    let unfinished: Vec<String> = records
        .iter()
        .filter(|(_, r)| !r.finished)
        .map(|(f, r)| format!("shard {} ({})", r.shard, f.display()))
        .collect();
    if !unfinished.is_empty() {
        return Err(Error::input(
            at(),
            format!(
                "unfinished {}; expected every shard run to its last step (resume it with \
                 --resume auto)",
                unfinished.join(", ")
            ),
        ));
    }
    // The shard of every system (each exactly once).
    let mut seen = vec![usize::MAX; first.total_systems];
    for (_, r) in &records {
        for &s in &r.systems {
            match seen.get(s) {
                Some(&k) if k == usize::MAX => seen[s] = r.shard,
                _ => {
                    return Err(Error::input(
                        at(),
                        format!(
                            "system {s} is in shard {} and another shard, or beyond the run's {} \
                             systems; expected each system in one shard",
                            r.shard, first.total_systems
                        ),
                    ))
                }
            }
        }
    }
    if let Some(s) = seen.iter().position(|&k| k == usize::MAX) {
        return Err(Error::input(
            at(),
            format!("no shard holds system {s}; expected every system in one shard"),
        ));
    }
    let loads: Vec<f64> = records.iter().map(|(_, r)| r.bodies as f64).collect();
    let mean = loads.iter().sum::<f64>() / loads.len() as f64;
    let balance = loads.iter().fold(0.0f64, |m, &l| m.max(l)) / mean.max(1.0);
    let summary = if first.kind == "ensemble" {
        let path = dir.join("summary.csv");
        merge_tables(&records, &seen, &path)?;
        Some(path)
    } else {
        None
    };
    let samples = merge_samples(dir, &records, &first.name, first.total_systems)?;
    Ok(Merged {
        name: first.name.clone(),
        kind: first.kind.clone(),
        shards: count,
        systems: first.total_systems,
        summary,
        samples,
        balance,
    })
}

/// The shards' summary tables as one, rows in system order, padded to the widest shard;
/// `owner[s]` is the shard of system s.
fn merge_tables(records: &[(PathBuf, ShardRecord)], owner: &[usize], out: &Path) -> Result<()> {
    let total = owner.len();
    let mut rows: Vec<Option<(String, usize)>> = vec![None; total];
    let mut widest = 0usize;
    let mut header = String::new();
    for (folder, r) in records {
        let path = folder.join("summary.csv");
        let text = std::fs::read_to_string(&path).map_err(|e| {
            Error::input(
                Location::file(&path),
                format!("cannot read the shard's summary table ({e}); expected the summary.csv of a finished shard"),
            )
        })?;
        let mut lines = text.lines();
        let head = lines.next().unwrap_or_default();
        if !summary_table::header_is_current(head) {
            return Err(Error::input(
                Location::file(&path).line(1),
                format!(
                    "the shard's summary table has other columns than this version writes; \
                     expected `{},id0,...`: rerun the shard with this version, or merge with the \
                     version that wrote it",
                    summary_table::fixed_columns()
                ),
            ));
        }
        let bodies = summary_table::header_slots(head);
        if bodies >= widest {
            widest = bodies;
            header = head.to_string();
        }
        for (k, line) in lines.enumerate() {
            let s: usize = summary_table::row_system(line)
                .filter(|&s| s < total && owner[s] == r.shard)
                .ok_or_else(|| {
                    Error::input(
                        Location::file(&path).line(k + 2),
                        format!("expected a row of one of shard {}'s systems", r.shard),
                    )
                })?;
            rows[s] = Some((line.to_string(), bodies));
        }
    }
    if let Some(s) = rows.iter().position(Option::is_none) {
        return Err(Error::input(
            Location::file(out),
            format!("no shard's summary table has a row for system {s}"),
        ));
    }
    crate::io::output::write_atomic_with(out, |w| {
        use std::io::Write as _;
        writeln!(w, "{header}")?;
        for (line, bodies) in rows.iter().flatten() {
            w.write_all(line.as_bytes())?;
            for _ in *bodies..widest {
                w.write_all(summary_table::EMPTY_SLOT.as_bytes())?;
            }
            w.write_all(b"\n")?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_balance() {
        assert_eq!("2/5".parse::<Shard>(), Ok(Shard { index: 2, count: 5 }));
        assert!("5/5".parse::<Shard>().is_err());
        assert!("1/0".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().is_err());
        // A skewed list: one large system and many small ones.
        let mut w = vec![40];
        w.extend(std::iter::repeat_n(3, 30));
        w.extend(std::iter::repeat_n(9, 10));
        let owner = assign(&w, 4);
        let mut load = [0usize; 4];
        for (s, &k) in owner.iter().enumerate() {
            load[k] += w[s];
        }
        let mean = w.iter().sum::<usize>() as f64 / 4.0;
        let worst = *load.iter().max().unwrap() as f64;
        assert!(worst / mean < 1.07, "{load:?}");
        assert_eq!(owner, assign(&w, 4), "deterministic");
    }
}
