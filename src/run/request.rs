//! One entry for a run from a file, whichever engine it is for: `orrery run` and the Python
//! module's `orrery.run()` both call [`run_request`], so they write the same files and end the
//! same way.

use crate::backend::PassSet;
use crate::config::{self, Overrides};
use crate::error::{Error, Location, Result};
use crate::hybrid::run::{check_fresh_outputs, run_setup, Summary};
pub use crate::observe::{Engine, Observer, Progress, RunEvent};
use crate::sheet::run::SheetSummary;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

/// How a run starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resume {
    /// From the initial conditions (unless a GENGA `param.dat` asks to restart).
    Fresh,
    /// From the newest checkpoint (`--resume`).
    Always,
    /// From the newest checkpoint when there is one, from the initial conditions otherwise
    /// (`--resume auto`).
    Auto,
}

/// A run of a scenario, ensemble, GENGA `param.dat`, multi-simulation list or sheet scenario,
/// with the command line's overrides.
#[derive(Debug, Clone)]
pub struct RunRequest {
    pub file: PathBuf,
    /// `file` is a multi-simulation list (GENGA's `-M`).
    pub multi: bool,
    pub overrides: Overrides,
    /// `--cpu-passes`: pass names of the engine the file is for.
    pub cpu_passes: Option<String>,
    pub resume: Resume,
}

/// What a run did.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Hybrid(Summary),
    Sheet(SheetSummary),
}

impl Outcome {
    /// The summary as printed and appended to the info file.
    pub fn report(&self) -> String {
        match self {
            Outcome::Hybrid(s) => s.report(),
            Outcome::Sheet(s) => s.report(),
        }
    }

    /// Warnings for the user (e.g. checkpoints skipped on resume because unreadable).
    pub fn warnings(&self) -> &[String] {
        match self {
            Outcome::Hybrid(s) => &s.warnings,
            Outcome::Sheet(_) => &[],
        }
    }
}

/// Run `req` to its end step, or until `interrupt` is set (the run then writes its snapshots
/// and a checkpoint and returns; continue it with [`Resume::Always`]). `observer` hears the
/// start, warnings and progress.
pub fn run_request(
    req: &RunRequest,
    interrupt: &AtomicBool,
    observer: &mut Observer<'_>,
) -> Result<Outcome> {
    let mut ov = req.overrides.clone();
    let passes_at = Location::default().field("--cpu-passes");
    if !req.multi && crate::sheet::is_sheet_scenario(&req.file) {
        if let Some(list) = &req.cpu_passes {
            ov.sheet_cpu_passes = Some(crate::sheet::SheetPassSet::parse(list, &passes_at)?);
        }
        let resume = match req.resume {
            Resume::Auto => None,
            other => Some(other == Resume::Always),
        };
        let summary =
            crate::sheet::run::run_file_resume(&req.file, &ov, interrupt, resume, observer)?;
        return Ok(Outcome::Sheet(summary));
    }
    if let Some(list) = &req.cpu_passes {
        ov.cpu_passes = Some(PassSet::parse(list, &passes_at)?);
    }
    let setup = config::load_setup(&req.file, &ov, req.multi)?;
    let cfg = &setup.cfg;
    for w in &cfg.warnings {
        observer(RunEvent::Warning(w.clone()));
    }
    // The whole run executes on a pool thread, so the many short parallel passes of a step do
    // not hand work back and forth with a waiting caller.
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = cfg.threads {
        pool = pool.num_threads(n);
    }
    let pool = pool
        .build()
        .map_err(|e| Error::run(format!("cannot start the worker threads: {e}")))?;
    if let (Some(step), Resume::Always | Resume::Auto) = (cfg.restart_step, req.resume) {
        return Err(Error::input(
            Location::default().field("--resume"),
            format!(
                "{} restarts from step {step} (Restart timestep), and --resume continues from a \
                 checkpoint; expected one of the two (Restart timestep = -1 is the checkpoint's)",
                cfg.source.display()
            ),
        ));
    }
    let resume = match req.resume {
        Resume::Auto => {
            !crate::io::checkpoint::list(&setup.checkpoint_dir, &setup.checkpoint_name).is_empty()
        }
        Resume::Always => true,
        Resume::Fresh => cfg.resume_requested,
    };
    // A restart from a step continues the files of the run that wrote it.
    if !resume && cfg.restart_step.is_none() {
        check_fresh_outputs(&setup, ov.overwrite)?;
    }
    let bodies: usize = setup.sims.iter().map(|s| s.bodies.len()).sum();
    let massive: usize = setup.sims.iter().map(|s| s.massive).sum();
    observer(RunEvent::Started {
        engine: Engine::Hybrid,
        n: bodies,
        line: format!(
            "orrery {}: {} ({} simulation(s), {} bodies of which {} test particles, dt {} days{}, \
             order {}, steps to {}) -> {}",
            env!("CARGO_PKG_VERSION"),
            cfg.name,
            setup.sims.len(),
            bodies,
            bodies - massive,
            cfg.time_step_days,
            if setup.own_time_steps() {
                " (the first's; each its own)"
            } else {
                ""
            },
            cfg.order,
            cfg.steps,
            setup.checkpoint_dir.display()
        ),
    });
    let summary = pool.install(|| run_setup(setup, resume, interrupt, observer))?;
    Ok(Outcome::Hybrid(summary))
}
