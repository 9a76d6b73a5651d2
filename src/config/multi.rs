//! GENGA's multi-simulation list (`-M pathfile`, `orrery run --multi LIST`): one simulation
//! directory per line, absolute or relative to the list's folder, each with its own `param.dat`.

use super::{load, parent_dir, Config, Mode, Overrides, RunSetup};
use crate::error::{Error, Location, Result};
use std::path::{Path, PathBuf};

/// The simulation directories named in `list` (blank lines and `#` comments skipped).
pub fn read_list(list: &Path) -> Result<Vec<(usize, PathBuf)>> {
    let text = std::fs::read_to_string(list).map_err(|e| {
        Error::input(
            Location::file(list),
            format!("cannot read the simulation list ({e}); expected a text file with one directory per line"),
        )
    })?;
    let base = list.parent().unwrap_or(Path::new("."));
    let mut dirs = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let dir = base.join(line);
        let param = dir.join("param.dat");
        if !param.is_file() {
            return Err(Error::input(
                Location::file(list).line(k + 1),
                format!(
                    "expected a simulation directory holding param.dat, but {} does not exist",
                    param.display()
                ),
            ));
        }
        dirs.push((k + 1, dir));
    }
    if dirs.is_empty() {
        return Err(Error::input(
            Location::file(list),
            "expected at least one simulation directory",
        ));
    }
    Ok(dirs)
}

/// A multi-simulation run from a list of GENGA simulation directories. Per simulation: output
/// name, central mass, n1, n2, input file, bodies and minimum number of bodies, and on the
/// Wisdom-Holman map its time step; everything else comes from the first simulation (a warning
/// names every other value that differs).
pub(super) fn load_multi(list: &Path, ov: &Overrides) -> Result<RunSetup> {
    let dirs = read_list(list)?;
    let mut sims = Vec::with_capacity(dirs.len());
    let mut shared: Option<Config> = None;
    let mut warnings = Vec::new();
    for (line, dir) in dirs {
        let own = Overrides {
            out: Some(dir.clone()),
            mode: None,
            ..ov.clone()
        };
        let (mut cfg, bodies) = load(&dir.join("param.dat"), &own).map_err(|e| match e {
            Error::Input { at, message } => Error::input(
                at,
                format!(
                    "{message} (simulation on line {line} of {})",
                    list.display()
                ),
            ),
            other => other,
        })?;
        if let Some(first) = &shared {
            // On the Wisdom-Holman map each simulation keeps its own step (GENGA reads one per
            // simulation); the hybrid step takes the first's.
            let own_steps = first.integrator.wisdom_holman().is_some();
            let differs = [
                (
                    "Time step in days",
                    !own_steps && cfg.time_step_days != first.time_step_days,
                ),
                ("Integration steps", cfg.steps != first.steps),
                ("Order of integrator", cfg.order != first.order),
                (
                    "Integrator or WH correctors",
                    cfg.integrator != first.integrator,
                ),
                (
                    "Energy output interval",
                    cfg.output.energy_interval != first.output.energy_interval,
                ),
                (
                    "Coordinates output interval",
                    cfg.output.coordinates_interval != first.output.coordinates_interval,
                ),
                ("Use Test Particles", cfg.mode != first.mode),
                ("Changeover function", cfg.changeover != first.changeover),
                (
                    "Use GR, J2 or Use Poynting-Robertson",
                    cfg.forces != first.forces,
                ),
                (
                    "Symplectic recursion levels or sub steps",
                    cfg.recursion != first.recursion,
                ),
            ];
            for (key, d) in differs {
                if d {
                    warnings.push(format!(
                        "{}: `{key}` differs from the first simulation's; the first one's value is used",
                        dir.join("param.dat").display()
                    ));
                }
            }
            let other_step = !own_steps && cfg.time_step_days != first.time_step_days;
            if cfg.restart_step.is_some() && other_step {
                return Err(Error::input(
                    Location::file(&dir.join("param.dat")).field("Time step in days"),
                    format!(
                        "the time step differs from the first simulation's (simulation on line \
                         {line} of {}), and the hybrid step runs every simulation with the \
                         first's, so its restart step's time is not its files' time; expected \
                         the time step the list ran with in every param.dat",
                        list.display()
                    ),
                ));
            }
            if cfg.restart_step != first.restart_step {
                return Err(Error::input(
                    Location::file(&dir.join("param.dat")).field("Restart timestep"),
                    format!(
                        "the restart step differs from the first simulation's (simulation on \
                         line {line} of {}); expected every simulation of a list to restart \
                         from the same step (or give it once on the command line, -R N)",
                        list.display()
                    ),
                ));
            }
            if first.forces.tides.is_on() && cfg.tidal != first.tidal {
                return Err(Error::input(
                    Location::file(&dir.join("param.dat")).field("Input file"),
                    format!(
                        "the bodies' tidal properties (columns k2 k2f tau Ic by body index) \
                         differ from the first simulation's (simulation on line {line} of {}); \
                         with `Use Tides` or `Use Rotational Deformation` on, expected the same \
                         properties in every simulation of a list (they are one table per run)",
                        list.display()
                    ),
                ));
            }
            cfg.mode = first.mode;
            cfg.semi_active = first.semi_active;
            cfg.forces = first.forces;
            cfg.recursion = first.recursion;
        }
        let mut sim = RunSetup::single(&cfg, &bodies).sims.remove(0);
        if let Some(first) = &shared {
            if first.integrator.wisdom_holman().is_none() {
                sim.time_step_days = first.time_step_days;
            }
        }
        sim.index = sims.len();
        sims.push(sim);
        shared.get_or_insert(cfg);
    }
    let mut cfg = shared.ok_or_else(|| Error::input(Location::file(list), "no simulations"))?;
    cfg.warnings.extend(warnings);
    cfg.source = list.to_path_buf();
    let name = list
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("multi")
        .to_string();
    Ok(RunSetup {
        semi_active: cfg.semi_active && cfg.mode == Mode::TestParticles,
        sims,
        checkpoint_dir: parent_dir(list),
        checkpoint_name: name,
        multi: true,
        summary_csv: None,
        shard: None,
        in_memory: false,
        cfg,
    })
}
