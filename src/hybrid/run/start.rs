//! How a hybrid run starts: the initial state in the backend's slots, fresh books and logs, or
//! a checkpoint checked against the run's fingerprint, and the step parameters.

use super::*;

/// Physical settings a checkpoint must agree with to be resumed.
pub(super) fn fingerprint(setup: &RunSetup) -> String {
    let cfg = &setup.cfg;
    let mut f = format!(
        "orrery-hybrid dt_days={:e} order={} mode={:?} semi={} sims={}",
        cfg.time_step_days,
        cfg.order,
        cfg.mode,
        setup.semi_active,
        setup.sims.len()
    );
    // GENGA's changeover is left out, so checkpoints from before the choice still resume.
    if cfg.changeover != Changeover::Genga {
        f.push_str(&format!(" changeover={}", cfg.changeover));
    }
    // Extra forces enter only when on, for the same reason.
    f.push_str(&cfg.forces.fingerprint());
    // A tabulated gas disk by its contents (the settings name only its file).
    let p = &cfg.gas_profile;
    if p.is_set() {
        let bytes: Vec<u8> = [p.radii, p.times, p.values]
            .concat()
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        f.push_str(&format!(" gas-table-fnv1a={:016x}", fnv1a(&bytes)));
    }
    f.push_str(&cfg.recursion.fingerprint());
    f.push_str(&cfg.integrator.fingerprint());
    f.push_str(&cfg.stop.fingerprint());
    f.push_str(&cfg.collisions.fingerprint());
    f.push_str(&cfg.chaos.fingerprint());
    f.push_str(&cfg.samples.fingerprint());
    // Every simulation's settings enter the fingerprint through a hash; the first few are also
    // spelled out so that a refusal message shows what changed.
    let mut all = String::new();
    for (k, s) in setup.sims.iter().enumerate() {
        let p = &s.spec;
        // A system's own time step enters only when it has one, so that checkpoints of runs
        // with one step for all keep their fingerprint.
        let own_dt = match s.time_step_days.to_bits() == cfg.time_step_days.to_bits() {
            true => String::new(),
            false => format!(" dt_days={:e}", s.time_step_days),
        };
        let one = format!(
            " [m0={:e} n1={:e} n2={:e} inner={:e} outer={:e}{own_dt}]",
            p.m0, p.n1, p.n2, p.inner_truncation, p.outer_truncation
        );
        if k < 16 {
            f.push_str(&one);
        }
        all.push_str(&one);
    }
    f.push_str(&format!(" settings-fnv1a={:016x}", fnv1a(all.as_bytes())));
    f
}

/// The settings in which two fingerprints differ, named: ` (the checkpoint has `a`, this run
/// `b`)` (empty when only hashed settings differ).
pub(super) fn fingerprint_difference(checkpoint: &str, now: &str) -> String {
    let only = |a: &str, b: &str| -> Vec<String> {
        let other: Vec<&str> = b.split_whitespace().collect();
        a.split_whitespace()
            .filter(|t| !other.contains(t) && !t.starts_with("settings-fnv1a"))
            .map(str::to_string)
            .collect()
    };
    let (old, new) = (only(checkpoint, now), only(now, checkpoint));
    if old.is_empty() && new.is_empty() {
        return String::new();
    }
    let list = |v: Vec<String>| match v.is_empty() {
        true => "nothing more".to_string(),
        false => format!("`{}`", v.join(" ")),
    };
    format!(
        " (the checkpoint has {}, this run {})",
        list(old),
        list(new)
    )
}

/// Bodies placed in their slots (democratic coordinates) and the layout of a fresh run.
pub fn initial_state(setup: &RunSetup) -> (Bodies, Layout) {
    let block = setup
        .sims
        .iter()
        .map(|s| s.bodies.len())
        .max()
        .unwrap_or(0)
        .max(1);
    let mut slots = Bodies::with_capacity(block * setup.sims.len());
    let mut systems = Vec::with_capacity(setup.sims.len());
    let hole = Body {
        id: u64::MAX,
        m: 0.0,
        r: 0.0,
        pos: [0.0; 3],
        vel: [0.0; 3],
        spin: [0.0; 3],
    };
    for sim in &setup.sims {
        // Heliocentric to barycentric velocities: v_b = v_h - sum(m v_h) / (M0 + sum m) over
        // the bodies that pull (the massive ones, or all when semi-active).
        let pulling = if setup.semi_active {
            sim.bodies.len()
        } else {
            sim.massive
        };
        let mut p = [0.0; 3];
        for b in &sim.bodies[..pulling] {
            for c in 0..3 {
                p[c] += b.m * b.vel[c];
            }
        }
        let mt = sim.spec.m0 + sim.bodies[..pulling].iter().map(|b| b.m).sum::<f64>();
        let shift = [p[0] / mt, p[1] / mt, p[2] / mt];
        for b in &sim.bodies {
            let mut body = *b;
            for c in 0..3 {
                body.vel[c] -= shift[c];
            }
            slots.push(&body);
        }
        for _ in sim.bodies.len()..block {
            slots.push(&hole);
        }
        systems.push(System {
            len: sim.bodies.len(),
            massive: sim.massive,
            spec: setup.multi.then_some(sim.spec),
            active: true,
            central_spin: match setup.cfg.forces.tides.is_on() {
                true => setup.cfg.forces.central_spin,
                false => [0.0; 3],
            },
        });
    }
    (
        slots,
        Layout {
            block,
            systems,
            semi_active: setup.semi_active,
            changeover: setup.cfg.changeover,
        },
    )
}

/// The logs of `sim`, fresh or (with `keep`, a checkpoint's books) cut back to the lengths
/// they had then; `shifts`: with the CollisionsTShift log.
pub(super) fn open_logs(
    sim: &Simulation,
    keep: Option<&Bookkeeping>,
    shifts: bool,
) -> Result<Option<SimLogs>> {
    if !sim.files {
        return Ok(None);
    }
    prepare_output_dir(&sim.dir)?;
    let open = |path: PathBuf, len: Option<u64>| Log::open(&path, len);
    let shifted_path = output::shifted_collisions_path(&sim.dir, &sim.name);
    let shifted_len = keep.map(|k| k.shifted_log_len);
    Ok(Some(SimLogs {
        shifted: shifts
            .then(|| open(shifted_path, shifted_len))
            .transpose()?,
        energy: open(
            output::energy_path(&sim.dir, &sim.name),
            keep.map(|k| k.energy_log_len),
        )?,
        ejections: open(
            output::ejections_path(&sim.dir, &sim.name),
            keep.map(|k| k.ejection_log_len),
        )?,
        collisions: open(
            output::collisions_path(&sim.dir, &sim.name),
            keep.map(|k| k.collision_log_len),
        )?,
    }))
}

/// Every system's energy and angular momentum ([`HybridBackend::energies`]), the angular
/// momentum with the central body's spin when the tides exchange it with the orbits and the
/// bodies' spins.
pub(super) fn energies_with_spins(
    backend: &mut dyn HybridBackend,
    p: &StepParams,
) -> Vec<EnergyParts> {
    let mut parts = backend.energies(p);
    if p.forces.has_tides() {
        let layout = backend.layout();
        for (e, sys) in parts.iter_mut().zip(&layout.systems) {
            for c in 0..3 {
                e.angular_momentum[c] += sys.central_spin[c];
            }
        }
    }
    parts
}

/// The step parameters of the run (those of the first simulation; the others carry their own).
pub fn step_params(setup: &RunSetup) -> StepParams {
    let first = &setup.sims[0].spec;
    StepParams {
        m0: first.m0,
        tau: setup.cfg.dt(),
        n1: first.n1,
        n2: first.n2,
        inner_truncation: first.inner_truncation,
        outer_truncation: first.outer_truncation,
        forces: crate::physics::forces::Forces::resolve(&setup.cfg.forces)
            .with_tides(
                &setup.cfg.forces,
                setup.cfg.central_radius,
                crate::physics::tides::TidalTable::new(setup.cfg.tidal.clone()),
            )
            .with_gas_profile(setup.cfg.gas_profile),
        recursion: setup.cfg.recursion,
        rcrit_floor: match setup.cfg.integrator.wisdom_holman() {
            None => setup.cfg.stop.min_distance.unwrap_or(0.0),
            Some(_) => 0.0,
        },
    }
}

/// Where a run starts: its first step, the simulations' books and logs, and whether it starts
/// from the initial conditions (`fresh`) or from a checkpoint.
pub(super) struct Start {
    pub(super) step: u64,
    pub(super) sims: Vec<SimState>,
    /// The integrator starts from the bodies in the slots (the initial conditions, or GENGA's
    /// files at a restart step), not from a checkpoint's states.
    pub(super) fresh: bool,
    /// The run writes the initial energy line and snapshots (a run from its initial conditions).
    pub(super) first_outputs: bool,
    pub(super) warnings: Vec<String>,
    /// The Wisdom-Holman map's states from the checkpoint (empty otherwise).
    pub(super) map: checkpoint::MapStates,
    /// The samples' records from the checkpoint (empty otherwise).
    pub(super) samples: checkpoint::MapStates,
}

/// Load checkpoint `c` into `backend` after checking that it belongs to `setup` and lies
/// before the end step; reopen the simulations' logs with their books.
pub(super) fn resumed_start(
    setup: &mut RunSetup,
    backend: &mut dyn HybridBackend,
    c: checkpoint::Checkpoint,
) -> Result<Start> {
    let cfg = &setup.cfg;
    let now = fingerprint(setup);
    if c.fingerprint != now || c.books.len() != setup.sims.len() {
        return Err(Error::input(
            Location::file(&cfg.source),
            format!(
                "the checkpoint at step {} was written with different settings{} ({}); \
                 expected the same physical configuration ({})",
                c.step,
                fingerprint_difference(&c.fingerprint, &now),
                c.fingerprint,
                now
            ),
        ));
    }
    if let Some(s) = c
        .state
        .layout
        .systems
        .iter()
        .position(|s| s.len > c.state.layout.block)
    {
        return Err(Error::input(
            Location::file(&checkpoint::checkpoint_path(
                &setup.checkpoint_dir,
                &setup.checkpoint_name,
                c.step,
            )),
            format!("inconsistent checkpoint: system {s} is longer than its slots"),
        ));
    }
    if c.step > cfg.steps {
        return Err(Error::input(
            Location::default().field("--steps"),
            format!(
                "the newest checkpoint is at step {}, beyond the requested end step {}",
                c.step, cfg.steps
            ),
        ));
    }
    let mut sims = Vec::with_capacity(setup.sims.len());
    let shifts = cfg.collisions.time_shift.is_some();
    for (sim, book) in setup.sims.iter().zip(c.books) {
        let logs = open_logs(sim, Some(&book), shifts)?;
        sims.push(SimState {
            book,
            logs,
            stopped: false,
            records: EventRecords::default(),
        });
    }
    for (s, sys) in c.state.layout.systems.iter().enumerate() {
        sims[s].stopped = !sys.active;
    }
    write_info(setup, backend.name(), InfoStart::Resumed(c.step))?;
    setup
        .sims
        .iter_mut()
        .for_each(|sim| sim.bodies = Vec::new());
    backend.restore(c.state);
    Ok(Start {
        step: c.step,
        sims,
        fresh: false,
        first_outputs: false,
        warnings: Vec::new(),
        map: c.map,
        samples: c.samples,
    })
}

/// Put `bodies` in `layout` into `backend`'s slots. The slots hold the bodies then: the initial
/// lists of `setup` are freed first, before the backend sizes its per-body arrays (10^6 test
/// particles).
pub(super) fn fill_slots(
    setup: &mut RunSetup,
    backend: &mut dyn HybridBackend,
    bodies: Bodies,
    layout: Layout,
) {
    setup
        .sims
        .iter_mut()
        .for_each(|sim| sim.bodies = Vec::new());
    backend.restore(HybridSnapshot {
        bodies,
        layout,
        ..Default::default()
    });
}

/// Fill `backend` with the initial conditions of `setup`, open fresh logs and take every
/// simulation's initial energy and angular momentum for its books.
pub(super) fn fresh_start(
    setup: &mut RunSetup,
    backend: &mut dyn HybridBackend,
    params: &StepParams,
) -> Result<Start> {
    let (bodies, layout) = initial_state(setup);
    write_info(setup, backend.name(), InfoStart::Fresh)?;
    fill_slots(setup, backend, bodies, layout);
    let mut sims = Vec::with_capacity(setup.sims.len());
    let shifts = setup.cfg.collisions.time_shift.is_some();
    let energies = energies_with_spins(backend, params);
    for (sim, e) in setup.sims.iter().zip(&energies) {
        let book = Bookkeeping {
            e0: e.kinetic + e.potential,
            l0: e.angular_momentum,
            ..Default::default()
        };
        sims.push(SimState {
            book,
            logs: open_logs(sim, None, shifts)?,
            stopped: false,
            records: EventRecords::default(),
        });
    }
    Ok(Start {
        step: 0,
        sims,
        fresh: true,
        first_outputs: true,
        warnings: Vec::new(),
        map: Vec::new(),
        samples: Vec::new(),
    })
}
