//! What a hybrid run writes besides its logs: the contract with an earlier run's files, the
//! ensemble table and the info file (the output schedules are [`crate::cadence`]'s).

use super::*;

/// Whether `file` is one of the files a run named `name` writes: its snapshots, Energy,
/// Ejections, Collisions and info files, GENGA's `OutCollision.dat` (which has no name), and
/// (when `checkpoints`) its checkpoints.
pub(super) fn is_run_file(file: &str, name: &str, checkpoints: bool) -> bool {
    let numbered = |prefix: &str, exts: &[&str]| is_numbered(file, prefix, exts);
    let fixed = [
        "Energy",
        "Ejections",
        "Collisions",
        "CollisionsTShift",
        "info",
    ]
    .iter()
    .any(|k| file == format!("{k}{name}.dat"));
    let collision_state = ["OutCollision.dat", "OutCollision.bin"].contains(&file);
    fixed
        || collision_state
        || numbered(&format!("Out{name}_"), &[".dat", ".bin"])
        || (checkpoints && numbered(&format!("Checkpoint{name}_"), &[".bin"]))
}

/// The files of an earlier run of the same name that a fresh run of `setup` would mix with.
pub fn existing_run_files(setup: &RunSetup) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut scan = |dir: &Path, name: &str, outputs: bool, checkpoints: bool| {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.filter_map(|e| e.ok()) {
            let Ok(f) = e.file_name().into_string() else {
                continue;
            };
            let hit = if outputs {
                is_run_file(&f, name, checkpoints)
            } else {
                let samples = crate::io::samples::samples_path(Path::new(""), name);
                (is_run_file(&f, name, true) && f.starts_with("Checkpoint"))
                    || Path::new(&f) == samples
            };
            if hit && !found.contains(&e.path()) {
                found.push(e.path());
            }
        }
    };
    for sim in setup.sims.iter().filter(|s| s.files) {
        scan(&sim.dir, &sim.name, true, false);
    }
    scan(&setup.checkpoint_dir, &setup.checkpoint_name, false, true);
    found.sort();
    found
}

/// Before a fresh run: refuse (exit code 2, naming the files) to write into a directory that
/// holds files of a run of the same name, or with `overwrite` remove them first
/// ([`crate::io::output_dir::refuse_or_clear`]).
pub fn check_fresh_outputs(setup: &RunSetup, overwrite: bool) -> Result<()> {
    refuse_or_clear(&existing_run_files(setup), overwrite)
}

/// The ensemble table: one row per system with its seed, whether it survived (no collision,
/// ejection or stop), the time and kind of its first event, how it stopped, its MEGNO and
/// Lyapunov exponent, and the final heliocentric a, e, i (degrees) of every body.
pub(super) fn write_summary_csv(d: &mut Driver, path: &Path) -> Result<()> {
    use crate::io::summary_table::{header, push_body, push_chaos, start_row, EMPTY_SLOT};
    use std::io::Write as _;
    let slots = d.backend.layout().block;
    let chaos = d.chaos();
    // Streamed row by row: 10^5 systems of 16 bodies make a table of about 100 MB.
    output::write_atomic_with(path, |out| {
        writeln!(out, "{}", header(slots))?;
        let mut row = String::new();
        for s in 0..d.setup.sims.len() {
            let sim = &d.setup.sims[s];
            let pulling = d.pulling(s);
            let bodies = heliocentric(&d.backend.bodies(s), pulling, sim.spec.m0);
            let state = &d.sims[s];
            let first = state.book.first_event();
            let survived = first.is_none() && !state.stopped;
            let event = match first {
                Some((t, k)) => (Some(t), k),
                None if state.stopped => (None, "stopped"),
                None => (None, ""),
            };
            let stop = state.book.stop.as_ref();
            start_row(
                &mut row,
                sim.index,
                sim.seed,
                survived,
                event,
                bodies.len(),
                stop,
            );
            push_chaos(&mut row, chaos.as_ref().and_then(|c| c[s]));
            for b in &bodies {
                let el = elements_from_cartesian(sim.spec.m0 + b.m, b.pos, b.vel);
                push_body(&mut row, b.id, el.a, el.e, el.inc.to_degrees());
            }
            for _ in bodies.len()..slots {
                row.push_str(EMPTY_SLOT);
            }
            writeln!(out, "{row}")?;
        }
        Ok(())
    })
}

/// How a run's info file begins: a fresh run writes it anew, a resumed or restarted one appends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum InfoStart {
    Fresh,
    /// From a checkpoint at this step.
    Resumed(u64),
    /// From GENGA's files at this step (`Restart timestep`), with the settings written again
    /// (they may have changed).
    Restarted(u64),
}

pub(super) fn write_info(setup: &RunSetup, backend: &str, how: InfoStart) -> Result<()> {
    let threads = rayon::current_num_threads();
    let head = format!(
        "Orrery {} ({} backend, {} threads)\n",
        env!("CARGO_PKG_VERSION"),
        backend,
        threads
    );
    let pretty = ron::ser::PrettyConfig::new().depth_limit(3);
    let config = ron::ser::to_string_pretty(&setup.cfg, pretty)
        .map_err(|e| Error::run(format!("cannot serialise the configuration: {e}")))?;
    for sim in setup.sims.iter().filter(|s| s.files) {
        let path = output::info_path(&sim.dir, &sim.name);
        let earlier = || std::fs::read_to_string(&path).unwrap_or_default();
        if let InfoStart::Resumed(step) = how {
            let mut text = earlier();
            text.push_str(&format!("\nresumed at step {step}: {head}"));
            output::write_atomic(&path, text.as_bytes())?;
            continue;
        }
        if let InfoStart::Restarted(step) = how {
            let mut text = earlier();
            text.push_str(&format!(
                "\nrestarted at step {step} from its output files: {head}configuration (fully \
                 resolved):\n{config}\n"
            ));
            output::write_atomic(&path, text.as_bytes())?;
            continue;
        }
        let mut text = format!("{head}configuration (fully resolved):\n{config}\n");
        let p = &sim.spec;
        text.push_str(&format!(
            "simulation `{}`: central mass {}, n1 {}, n2 {}, truncation {} .. {} AU, {} bodies ({} massive), minimum {}, time step {} days\n",
            sim.name, p.m0, p.n1, p.n2, p.inner_truncation, p.outer_truncation,
            sim.bodies.len(), sim.massive, sim.min_bodies, sim.time_step_days
        ));
        for w in &setup.cfg.warnings {
            text.push_str(&format!("warning: {w}\n"));
        }
        output::write_atomic(&path, text.as_bytes())?;
    }
    Ok(())
}

pub(super) fn append_info(setup: &RunSetup, report: &str) -> Result<()> {
    for sim in setup.sims.iter().filter(|s| s.files) {
        let path = output::info_path(&sim.dir, &sim.name);
        let mut text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
        text.push_str(&format!("\nsummary of the run:\n{report}\n"));
        output::write_atomic(&path, text.as_bytes())?;
    }
    Ok(())
}
