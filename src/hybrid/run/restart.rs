//! GENGA's restart from a step (`Restart timestep = N`, `-R N`; GENGA's `Run.rst`): the run
//! starts at step N from the bodies of its `Out` file there (read with the configuration), with
//! E0, U, the lost angular momentum, the central spin and the event counts read back from its
//! logs ([`crate::io::genga_restart`]), and appends to those logs as GENGA does. Unlike a
//! checkpoint's resume it is not bitwise: the snapshot holds heliocentric velocities, and the
//! encounter state, the Wisdom-Holman map's correctors and any stop record start anew.
//! Checkpoints of the earlier run past step N are removed, so that a later `-1` cannot continue
//! a history this run replaces.

use super::start::fill_slots;
use super::*;
use crate::io::genga_restart::{lost_angular_momentum, read_books, RestartBooks};

/// Fill `backend` with the bodies of the restart step `step`, open the logs for appending and
/// take the books from the earlier run's files.
pub(super) fn restart_start(
    setup: &mut RunSetup,
    backend: &mut dyn HybridBackend,
    params: &StepParams,
    step: u64,
) -> Result<Start> {
    let cfg = &setup.cfg;
    let at = Location::file(&cfg.source).field("Restart timestep");
    if step >= cfg.steps {
        return Err(Error::input(
            at,
            format!(
                "the restart step {step} is not before the end step {}; expected a step the run \
                 has still to pass (or more Integration steps)",
                cfg.steps
            ),
        ));
    }
    if let Some(sim) = setup.sims.iter().find(|s| !s.files) {
        return Err(Error::input(
            at,
            format!(
                "simulation `{}` writes no files, and a restart from a step reads them; expected \
                 a run with output files",
                sim.name
            ),
        ));
    }
    if setup.shard.is_some() {
        return Err(Error::input(
            Location::default().field("--shard"),
            "a shard's record follows its checkpoints, and a restart from a step replaces \
             them; expected a restart without --shard (run the list's simulations as one \
             list, or resume the shard from its checkpoints)",
        ));
    }
    let mut books = Vec::with_capacity(setup.sims.len());
    for sim in &setup.sims {
        let tau = units::days_to_code(sim.time_step_days);
        let t = units::step_time_years(step, tau);
        books.push(read_books(
            &sim.dir,
            &sim.name,
            t,
            units::code_to_years(tau),
        )?);
    }
    let (bodies, mut layout) = initial_state(setup);
    if cfg.forces.tides.is_on() {
        for (sys, b) in layout.systems.iter_mut().zip(&books) {
            sys.central_spin = b.central_spin.unwrap_or(sys.central_spin);
        }
    }
    write_info(setup, backend.name(), InfoStart::Restarted(step))?;
    fill_slots(setup, backend, bodies, layout);
    let energies = energies_with_spins(backend, params);
    let shifts = setup.cfg.collisions.time_shift.is_some();
    let mut sims = Vec::with_capacity(setup.sims.len());
    for ((sim, e), read) in setup.sims.iter().zip(&energies).zip(&books) {
        let book = restart_book(sim, read, e.angular_momentum)?;
        sims.push(SimState {
            logs: open_logs(sim, Some(&book), shifts)?,
            book,
            stopped: false,
            records: EventRecords::default(),
        });
    }
    // Last, when nothing else can fail: the removal cannot be undone.
    let warnings = remove_later_checkpoints(setup, step)?;
    Ok(Start {
        step,
        sims,
        fresh: true,
        first_outputs: false,
        warnings,
        map: Vec::new(),
        samples: Vec::new(),
    })
}

/// The books of `sim` from what its files hold (`l`: the bodies' angular momentum now), with
/// its logs' lengths up to their last whole line, so that the run appends to them (a line a
/// killed run left unfinished is cut off).
fn restart_book(sim: &Simulation, read: &RestartBooks, l: [f64; 3]) -> Result<Bookkeeping> {
    let len = |path: PathBuf| match std::fs::read(&path) {
        Ok(bytes) => Ok(bytes
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |k| k as u64 + 1)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(0),
        Err(e) => Err(Error::io(&path, e)),
    };
    let l_lost = lost_angular_momentum(l, read.l_lost, read.l_total);
    // Only |L0| enters the energy file's LRelativ; its direction is taken as the total's now.
    let total = [l[0] + l_lost[0], l[1] + l_lost[1], l[2] + l_lost[2]];
    let n = norm(total);
    let l0 = match n > 0.0 {
        true => total.map(|c| read.l0 * c / n),
        false => [read.l0, 0.0, 0.0],
    };
    let mut book = Bookkeeping {
        e0: read.e0,
        l0,
        u: read.u,
        l_lost,
        ejections: read.ejections,
        collisions: read.collisions,
        energy_log_len: len(output::energy_path(&sim.dir, &sim.name))?,
        ejection_log_len: len(output::ejections_path(&sim.dir, &sim.name))?,
        collision_log_len: len(output::collisions_path(&sim.dir, &sim.name))?,
        shifted_log_len: len(output::shifted_collisions_path(&sim.dir, &sim.name))?,
        ..Default::default()
    };
    if let Some((t, kind)) = read.first_event {
        book.note_event(t, kind);
    }
    Ok(book)
}

/// Remove the checkpoints of the run's name past `step`; a warning names them.
fn remove_later_checkpoints(setup: &RunSetup, step: u64) -> Result<Vec<String>> {
    let (dir, name) = (&setup.checkpoint_dir, &setup.checkpoint_name);
    let mut later: Vec<u64> = checkpoint::list(dir, name)
        .into_iter()
        .filter(|&s| s > step)
        .collect();
    later.sort_unstable();
    for &s in &later {
        let path = checkpoint::checkpoint_path(dir, name, s);
        std::fs::remove_file(&path).map_err(|e| Error::io(&path, e))?;
    }
    Ok(match later.is_empty() {
        true => Vec::new(),
        false => vec![format!(
            "the restart from step {step} removed the earlier run's checkpoints at steps {:?} \
             in {}: they continue the history this run replaces",
            later,
            dir.display()
        )],
    })
}
