//! An ensemble file made into a run: every system's bodies, steps and seeds, in multi mode.

use super::{system_bodies, Ensemble};
use crate::config::setup::RunSetup;
use crate::config::{apply, from_scenario, shard, validate, validate_bodies, Overrides};
use crate::error::{Error, Location, Result};
use crate::io::fingerprint::Fnv1a;
use crate::state::Body;
use std::path::Path;

/// An ensemble: the scenario's bodies plus drawn ones, `systems` times, in multi mode.
pub(in crate::config) fn load(ens: Ensemble, path: &Path, ov: &Overrides) -> Result<RunSetup> {
    if ens.systems == 0 || ens.systems > 100_000_000 {
        return Err(Error::input(
            Location::file(path).field("systems"),
            format!("expected between 1 and 10^8 systems, got {}", ens.systems),
        ));
    }
    ens.check(path)?;
    let (mut cfg, fixed) = from_scenario(ens.scenario.clone(), path)?;
    apply(&mut cfg, ov);
    // With steps of their own, the run's is system 0's (the same in every shard).
    let (rule, days, m0) = (cfg.time_step, cfg.time_step_days, cfg.central_mass);
    let own_step = |bodies: &[Body]| {
        rule.days_for(days, m0, bodies).ok_or_else(|| {
            Error::input(
                Location::file(path).field("time_step"),
                "a system has no body on a bound orbit to take its innermost period from",
            )
        })
    };
    if cfg.time_step.per_system() {
        // The hybrid step takes one step for all: refused for any ensemble of more than one
        // system, whatever the draws (so every shard decides alike).
        if cfg.integrator.wisdom_holman().is_none() && ens.systems > 1 {
            return Err(Error::input(
                Location::file(path).field("time_step"),
                "the hybrid step steps every system of a run alike; expected `time_step_days`, \
                 or `integrator: WisdomHolman(...)` for steps of their own",
            ));
        }
        cfg.time_step_days = own_step(&system_bodies(&ens, &fixed, 0, path)?)?;
    }
    validate(&cfg)?;
    let dir = cfg.output.dir.clone();
    // A shard generates only its own systems (every system has the same bodies, so the shares
    // need none of them).
    let owner = ov.shard.map(|sh| {
        let bodies = fixed.len() + ens.hypothetical.len();
        crate::io::shard::assign(&vec![bodies; ens.systems], sh.count)
    });
    let mut sims = Vec::new();
    for s in 0..ens.systems {
        if let (Some(owner), Some(sh)) = (&owner, ov.shard) {
            if owner[s] != sh.index {
                continue;
            }
        }
        let bodies = system_bodies(&ens, &fixed, s, path)?;
        validate_bodies(&cfg, &bodies)?;
        let mut sim = RunSetup::single(&cfg, &bodies).sims.remove(0);
        sim.time_step_days = own_step(&bodies)?;
        sim.name = format!("{}_{s}", cfg.name);
        sim.index = s;
        sim.seed = Some(ens.seed.wrapping_add(s as u64));
        sim.files = false;
        sim.ensemble_minimum();
        sims.push(sim);
    }
    let print = ov.shard.map(|_| ensemble_fingerprint(&ens, &fixed, &cfg));
    let mut setup = RunSetup {
        semi_active: false,
        sims,
        checkpoint_dir: dir.clone(),
        checkpoint_name: cfg.name.clone(),
        multi: true,
        summary_csv: Some(dir.join("summary.csv")),
        shard: None,
        in_memory: false,
        cfg,
    };
    setup.check_time_steps(Location::file(path).field("time_step"))?;
    if let (Some(sh), Some(print)) = (ov.shard, print) {
        let record = shard::adopt(&mut setup, sh, "ensemble", ens.systems, print)?;
        setup.shard = Some(record);
    }
    Ok(setup)
}

/// The fingerprint of an ensemble from what makes its systems (a shard generates only its own):
/// the number of systems, the seed, the drawn bodies' ranges, the fixed bodies (exact) and the
/// physical settings, as [`shard::fingerprint`] does for a list.
fn ensemble_fingerprint(
    ens: &Ensemble,
    fixed: &[crate::state::Body],
    cfg: &crate::config::Config,
) -> String {
    use std::fmt::Write as _;
    let mut h = Fnv1a::default();
    let _ = writeln!(
        h,
        "ensemble {} {} {} {:?} {} {} {}",
        cfg.name,
        ens.systems,
        ens.seed,
        ens.hypothetical,
        cfg.time_step_days.to_bits(),
        cfg.order,
        cfg.minimum_bodies
    );
    let _ = writeln!(
        h,
        "{:?} {} {} {} {} {} {} {} {:?}",
        cfg.mode,
        cfg.central_mass.to_bits(),
        cfg.n1.to_bits(),
        cfg.n2.to_bits(),
        cfg.inner_truncation.to_bits(),
        cfg.outer_truncation.to_bits(),
        cfg.default_rho.to_bits(),
        cfg.particle_minimum_mass.to_bits(),
        cfg.semi_active
    );
    for b in fixed {
        let _ = writeln!(h, "{b:?}");
    }
    h.hex()
}
