//! Which systems of an ensemble or multi-simulation list a shard runs (`--shard K/N`), and the
//! fingerprint of the configuration its record carries (see [`crate::io::shard`] for the
//! records, the balance rule and `orrery merge`).

use crate::config::setup::RunSetup;
use crate::error::{Error, Location, Result};
use crate::io::fingerprint::Fnv1a;
use crate::io::shard::{assign, Shard, ShardRecord};

/// A 64-bit FNV-1a hash of the whole resolved configuration that decides the results: every
/// simulation's name, parameters and initial bodies (exact), the time step, the order and the
/// mode. The end step is recorded on its own (a shard run to an earlier step and resumed is the
/// same configuration); backends, threads and output folders are left out: shards run on
/// different machines may be merged.
pub fn fingerprint(setup: &RunSetup) -> String {
    use std::fmt::Write as _;
    let c = &setup.cfg;
    // Hashed as it is formatted: 10^6 systems never make one string.
    let mut h = Fnv1a::default();
    let _ = writeln!(
        h,
        "{} {} {} {:?} {} {}",
        c.name,
        c.time_step_days.to_bits(),
        c.order,
        c.mode,
        setup.semi_active,
        setup.sims.len()
    );
    for s in &setup.sims {
        // A simulation's own step (the map's lists) only when it has one, so that the
        // fingerprints of lists with one step stay as they were.
        let own_dt = match s.time_step_days.to_bits() == c.time_step_days.to_bits() {
            true => String::new(),
            false => format!(" dt={}", s.time_step_days.to_bits()),
        };
        let _ = writeln!(
            h,
            "{} {:?} {} {} {:?}{own_dt}",
            s.name, s.spec, s.min_bodies, s.massive, s.seed
        );
        for b in &s.bodies {
            let _ = writeln!(h, "{b:?}");
        }
    }
    h.hex()
}

/// Keep only shard `shard`'s systems of a multi run (a list, loaded whole), and make the run
/// that shard's (see [`adopt`]).
pub fn select(setup: &mut RunSetup, shard: Shard, kind: &str) -> Result<ShardRecord> {
    let total = setup.sims.len();
    let print = fingerprint(setup);
    let weights: Vec<usize> = setup.sims.iter().map(|s| s.bodies.len()).collect();
    let owner = assign(&weights, shard.count);
    let sims = std::mem::take(&mut setup.sims);
    setup.sims = sims
        .into_iter()
        .zip(&owner)
        .filter(|(_, &k)| k == shard.index)
        .map(|(s, _)| s)
        .collect();
    adopt(setup, shard, kind, total, print)
}

/// Make `setup`, holding shard `shard`'s systems of a run of `total` systems whose
/// configuration has the fingerprint `print`, that shard's run: its checkpoints, info file and
/// summary table go into its shard folder. Returns its record, not yet finished.
pub fn adopt(
    setup: &mut RunSetup,
    shard: Shard,
    kind: &str,
    total: usize,
    print: String,
) -> Result<ShardRecord> {
    if setup.sims.is_empty() {
        return Err(Error::input(
            Location::default().field("--shard"),
            format!(
                "shard {} of {} holds no system: the run has {total} systems; expected at most \
                 {total} shards",
                shard.index, shard.count
            ),
        ));
    }
    let folder = setup.checkpoint_dir.join(shard.folder());
    if let Some(csv) = &mut setup.summary_csv {
        *csv = folder.join("summary.csv");
    }
    setup.checkpoint_dir = folder;
    Ok(ShardRecord {
        shard: shard.index,
        shards: shard.count,
        kind: kind.to_string(),
        name: setup.checkpoint_name.clone(),
        total_systems: total,
        systems: setup.sims.iter().map(|s| s.index).collect(),
        bodies: setup.sims.iter().map(|s| s.bodies.len()).sum(),
        end_step: setup.cfg.steps,
        fingerprint: print,
        finished: false,
    })
}
