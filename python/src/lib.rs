//! `orrery._orrery`: the native half of the Python module. The Python package (`orrery/`) wraps
//! it in `Simulation`, `run`, `read`, `from_rebound` and `to_rebound`; everything here is a thin
//! bridge onto the library: a scenario comes in as a dictionary (serde, through `pythonize`),
//! runs on the library's one run driver ([`HybridRun`], [`run_request`]), and the state goes
//! out as numpy arrays.

mod pools;
mod sheet;

use pools::Pools;

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyReadonlyArray1};
use orrery::backend::BackendChoice;
use orrery::config::scenario::{Mode, Scenario};
use orrery::config::{self, Overrides};
use orrery::hybrid::run::{HybridRun, RunSetup};
use orrery::io::checkpoint;
use orrery::run::request::{run_request, Outcome, Resume, RunRequest};
use orrery::{Body, Error};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyKeyboardInterrupt};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::path::PathBuf;
use std::sync::Mutex;

create_exception!(
    _orrery,
    OrreryError,
    PyException,
    "An error reported by Orrery."
);
create_exception!(
    _orrery,
    InputError,
    OrreryError,
    "Bad input or configuration (the command line's exit code 2): `file`, `line` and `field` \
     say where, the message what was expected."
);
create_exception!(
    _orrery,
    RunError,
    OrreryError,
    "A failure during a run (the command line's exit code 1)."
);

/// The library's error as a Python exception carrying its location.
fn py_err(e: Error) -> PyErr {
    let text = e.to_string();
    match e {
        Error::Input { at, message } => Python::with_gil(|py| {
            let err = InputError::new_err(text);
            let value = err.value(py);
            let file = at.file.map(|f| f.display().to_string());
            // Setting attributes on a fresh exception object cannot fail.
            let _ = value.setattr("file", file);
            let _ = value.setattr("line", at.line);
            let _ = value.setattr("field", at.field);
            let _ = value.setattr("expected", message);
            err
        }),
        _ => RunError::new_err(text),
    }
}

fn input_err(field: &str, message: impl Into<String>) -> PyErr {
    py_err(Error::input(
        orrery::Location::default().field(field),
        message,
    ))
}

/// `value` as a `T`; an error names the field that failed by its path (`forces.tides`), or
/// `what` when the value as a whole is wrong.
pub(crate) fn depythonize_field<T: serde::de::DeserializeOwned>(
    value: &Bound<'_, PyAny>,
    what: &str,
) -> PyResult<T> {
    let mut de = pythonize::Depythonizer::from_object(value);
    serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let field = if path.is_empty() || path == "." {
            what.to_string()
        } else {
            path
        };
        input_err(&field, format!("{}", e.inner()))
    })
}

/// `f()` with SIGINT routed to the run's stop flag (Unix), so that Ctrl-C stops an integration
/// at the end of a step; its value, and whether Ctrl-C arrived.
fn interruptible<R>(f: impl FnOnce() -> R) -> PyResult<(R, bool)> {
    #[cfg(unix)]
    {
        let scope = orrery::signals::InterruptScope::new()
            .map_err(|e| RunError::new_err(format!("cannot install the Ctrl-C handler: {e}")))?;
        let out = f();
        Ok((out, scope.interrupted()))
    }
    #[cfg(not(unix))]
    Ok((f(), false))
}

/// The run state behind a `Simulation`, and the pool it runs on.
struct Inner {
    run: HybridRun,
    pools: Pools,
}

/// An in-memory hybrid simulation on the library's run driver (wrapped by
/// `orrery.Simulation`).
#[pyclass(module = "orrery._orrery")]
struct NativeSimulation {
    inner: Mutex<Inner>,
}

/// A Simulation's settings as a scenario: one system (Main or TestParticles mode).
fn simulation_scenario(settings: &Bound<'_, PyAny>) -> PyResult<Scenario> {
    let sc: Scenario = depythonize_field(settings, "settings")?;
    if sc.mode == Mode::Multi {
        return Err(input_err(
            "mode",
            "a Simulation holds one system; expected Main or TestParticles (run an ensemble \
             with orrery.run)",
        ));
    }
    Ok(sc)
}

/// Check a Simulation's settings (a scenario dictionary, its bodies not yet given) as a
/// scenario file's are checked, so a typo or a value out of range is an error at construction
/// naming its field, not at the first integrate.
#[pyfunction]
fn check_settings(settings: &Bound<'_, PyAny>, origin: &str) -> PyResult<()> {
    let mut sc = simulation_scenario(settings)?;
    // A time step from the innermost orbit waits for the bodies; the rest is checked now.
    if sc.time_step.per_system() && sc.bodies.is_empty() {
        if let Some(msg) = sc.time_step.check() {
            return Err(input_err("time_step", format!("expected {msg}")));
        }
        if sc.time_step_days != 0.0 {
            return Err(input_err(
                "time_step_days",
                "`time_step` gives the simulation its step; expected no `time_step_days`",
            ));
        }
        sc.time_step = Default::default();
        sc.time_step_days = 1.0;
    }
    config::load_scenario(sc, &PathBuf::from(origin), true).map_err(py_err)?;
    Ok(())
}

/// A Simulation's settings with every default filled in (the scenario as the library reads
/// it, its bodies left out), so that two spellings of the same settings compare equal.
#[pyfunction]
fn resolve_settings<'py>(
    py: Python<'py>,
    settings: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let sc = simulation_scenario(settings)?;
    pythonize::pythonize(py, &sc).map_err(|e| input_err("settings", format!("{e}")))
}

/// The scenario of a `.ron` file as a dictionary (every field, defaults filled in), for
/// `Simulation.from_file`.
#[pyfunction]
fn read_scenario<'py>(py: Python<'py>, path: &str) -> PyResult<Bound<'py, PyAny>> {
    let sc = config::read_scenario(std::path::Path::new(path)).map_err(py_err)?;
    pythonize::pythonize(py, &sc).map_err(|e| input_err("scenario", format!("{e}")))
}

/// The scenario dictionary as the library's settings: no end step, no files.
fn in_memory_setup(settings: &Bound<'_, PyAny>, origin: &str, resume: bool) -> PyResult<RunSetup> {
    let sc = simulation_scenario(settings)?;
    let (mut cfg, bodies) =
        config::load_scenario(sc, &PathBuf::from(origin), resume).map_err(py_err)?;
    cfg.steps = u64::MAX;
    cfg.output.energy_interval = 0;
    cfg.output.coordinates_interval = 0;
    cfg.output.checkpoint_interval = 0;
    let mut setup = RunSetup::single(&cfg, &bodies);
    setup.in_memory = true;
    setup.sims[0].files = false;
    Ok(setup)
}

/// On the Wisdom-Holman map, a Python `UserWarning` when systems list their bodies out of order
/// of semi-major axis (the map's Jacobi order is the order of `add`; see
/// [`RunSetup::warn_jacobi_order`]), as `orrery run` warns of it.
fn warn_jacobi_order(py: Python<'_>, setup: &mut RunSetup) -> PyResult<()> {
    let before = setup.cfg.warnings.len();
    setup.warn_jacobi_order();
    let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
    for text in &setup.cfg.warnings[before..] {
        let message = std::ffi::CString::new(text.as_str()).unwrap_or_default();
        PyErr::warn(py, category.as_any(), &message, 1)?;
    }
    Ok(())
}

impl NativeSimulation {
    fn start(
        py: Python<'_>,
        settings: &Bound<'_, PyAny>,
        origin: &str,
        threads: Option<usize>,
        from: Option<checkpoint::Checkpoint>,
    ) -> PyResult<Self> {
        let setup = in_memory_setup(settings, origin, from.is_some())?;
        Self::start_setup(py, setup, threads, from)
    }

    fn start_setup(
        py: Python<'_>,
        mut setup: RunSetup,
        threads: Option<usize>,
        from: Option<checkpoint::Checkpoint>,
    ) -> PyResult<Self> {
        if from.is_none() {
            warn_jacobi_order(py, &mut setup)?;
        }
        let pools = Pools::new(threads)?;
        let cfg = &setup.cfg;
        let backend =
            orrery::backend::create(cfg.backend, cfg.cpu_passes, cfg.device).map_err(py_err)?;
        let run = py
            .allow_threads(|| {
                pools.install(|| match from {
                    Some(c) => HybridRun::from_checkpoint(setup, backend, c),
                    None => HybridRun::start(setup, backend, false),
                })
            })?
            .map_err(py_err)?;
        Ok(NativeSimulation {
            inner: Mutex::new(Inner { run, pools }),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic inside a step poisons the lock; the state is still the last whole step's.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// `system` names one of the run's systems.
fn check_system(run: &HybridRun, system: usize) -> PyResult<()> {
    let n = run.setup().sims.len();
    match system < n {
        true => Ok(()),
        false => Err(input_err(
            "system",
            format!(
                "system {system} of {n}; expected 0 to {}",
                n.saturating_sub(1)
            ),
        )),
    }
}

/// Twelve columns per body: `i m r x y z vx vy vz Sx Sy Sz` (the snapshot's).
fn body_row(b: &Body) -> [f64; 12] {
    [
        b.id as f64,
        b.m,
        b.r,
        b.pos[0],
        b.pos[1],
        b.pos[2],
        b.vel[0],
        b.vel[1],
        b.vel[2],
        b.spin[0],
        b.spin[1],
        b.spin[2],
    ]
}

fn table(py: Python<'_>, rows: Vec<Vec<f64>>, width: usize) -> PyResult<PyObject> {
    let n = rows.len();
    let flat: Vec<f64> = rows.into_iter().flatten().collect();
    let a = Array2::from_shape_vec((n, width), flat)
        .map_err(|e| RunError::new_err(format!("table shape: {e}")))?;
    Ok(a.into_pyarray(py).into_any().unbind())
}

#[pymethods]
impl NativeSimulation {
    /// Start a simulation from a scenario dictionary (the fields of a `.ron` scenario; bodies
    /// included) on `threads` threads. `origin` names the settings in error messages and is the
    /// folder relative paths start from.
    #[new]
    #[pyo3(signature = (settings, origin, threads=None))]
    fn new(
        py: Python<'_>,
        settings: &Bound<'_, PyAny>,
        origin: &str,
        threads: Option<usize>,
    ) -> PyResult<Self> {
        Self::start(py, settings, origin, threads, None)
    }

    /// A simulation continued from checkpoint bytes written by `checkpoint()`, with the same
    /// settings (a checkpoint of other settings is refused, naming what differs).
    #[staticmethod]
    #[pyo3(signature = (settings, origin, data, threads=None))]
    fn from_checkpoint(
        py: Python<'_>,
        settings: &Bound<'_, PyAny>,
        origin: &str,
        data: &[u8],
        threads: Option<usize>,
    ) -> PyResult<Self> {
        let c = checkpoint::decode(data).ok_or_else(|| {
            input_err(
                "checkpoint",
                "not a complete Orrery checkpoint of this version",
            )
        })?;
        Self::start(py, settings, origin, threads, Some(c))
    }

    /// Many systems stepped together (GENGA's multi-simulation mode, in memory): one scenario
    /// dictionary per system, each of one body list and its own central mass, n1, n2,
    /// truncation radii and minimum; the other settings are the first one's. With `data`
    /// (`checkpoint()` bytes of an ensemble of the same settings), the systems continue from
    /// it and their body lists are empty.
    #[staticmethod]
    #[pyo3(signature = (systems, threads=None, data=None))]
    fn ensemble(
        py: Python<'_>,
        systems: Vec<Bound<'_, PyAny>>,
        threads: Option<usize>,
        data: Option<&[u8]>,
    ) -> PyResult<Self> {
        let from = data
            .map(|d| {
                checkpoint::decode(d).ok_or_else(|| {
                    input_err(
                        "checkpoint",
                        "not a complete Orrery checkpoint of this version",
                    )
                })
            })
            .transpose()?;
        let mut sims = Vec::with_capacity(systems.len());
        let mut first = None;
        for (k, d) in systems.iter().enumerate() {
            let setup = in_memory_setup(d, "<Ensemble>", from.is_some())?;
            let mut sim = setup.sims.into_iter().next().ok_or_else(|| {
                input_err(&format!("systems[{k}]"), "expected bodies in every system")
            })?;
            sim.index = k;
            sim.files = false;
            sim.ensemble_minimum();
            sims.push(sim);
            first.get_or_insert(setup.cfg);
        }
        let cfg = first.ok_or_else(|| input_err("systems", "expected at least one system"))?;
        let setup = RunSetup {
            semi_active: false,
            sims,
            checkpoint_dir: PathBuf::new(),
            checkpoint_name: cfg.name.clone(),
            multi: true,
            summary_csv: None,
            shard: None,
            in_memory: true,
            cfg,
        };
        // Each system keeps its own time step on the Wisdom-Holman map; the hybrid step takes
        // one for all.
        setup
            .check_time_steps(orrery::Location::default().field("systems[..].time_step_days"))
            .map_err(py_err)?;
        Self::start_setup(py, setup, threads, from)
    }

    /// The smallest number of massive bodies `system` keeps before it stops (an ensemble's 0
    /// resolved to every initial massive body).
    #[pyo3(signature = (system=0))]
    fn minimum_bodies(&self, system: usize) -> PyResult<usize> {
        let guard = self.lock();
        check_system(&guard.run, system)?;
        Ok(guard.run.setup().sims[system].min_bodies)
    }

    /// The time step (days) of `system`: the run's, or its own.
    #[pyo3(signature = (system=0))]
    fn time_step_days(&self, system: usize) -> PyResult<f64> {
        let guard = self.lock();
        check_system(&guard.run, system)?;
        Ok(guard.run.setup().sims[system].time_step_days)
    }

    /// The number of systems.
    #[getter]
    fn systems(&self) -> usize {
        self.lock().run.setup().sims.len()
    }

    /// Whether `system` stopped (fewer bodies than its minimum); the others step on.
    fn system_stopped(&self, system: usize) -> PyResult<bool> {
        let guard = self.lock();
        check_system(&guard.run, system)?;
        Ok(guard.run.system_stopped(system))
    }

    /// Step `steps` steps further (fewer when every body's system stopped). The interpreter's
    /// lock is released meanwhile; Ctrl-C stops at the end of a step and raises
    /// KeyboardInterrupt with the state of that step intact. Returns the step reached.
    fn integrate(&self, py: Python<'_>, steps: u64) -> PyResult<u64> {
        let (result, interrupted) = py.allow_threads(|| {
            interruptible(|| {
                let mut guard = self.lock();
                let Inner { run, pools } = &mut *guard;
                let until = run.step().saturating_add(steps);
                pools.install(|| run.advance(until, &orrery::signals::STOP, &mut |_| {}))
            })
        })?;
        result?.map_err(py_err)?;
        let step = {
            let mut guard = self.lock();
            if interrupted {
                guard.run.clear_stop();
            }
            guard.run.step()
        };
        if interrupted {
            return Err(PyKeyboardInterrupt::new_err(format!(
                "stopped at the end of step {step}; the simulation holds that step's state"
            )));
        }
        Ok(step)
    }

    /// Add the bodies of `new` (the settings with only the new sources) to the simulation at
    /// the step reached. `settings` holds every source so far, the new ones last: the new bodies
    /// get their ids from it (their places in the order of adding), or, with `first_id`, ids
    /// from `first_id` on (a loaded simulation, whose earlier sources are not in `settings`).
    #[pyo3(signature = (settings, new, first_id=None))]
    fn add_bodies(
        &self,
        py: Python<'_>,
        settings: &Bound<'_, PyAny>,
        new: &Bound<'_, PyAny>,
        first_id: Option<u64>,
    ) -> PyResult<()> {
        let load = |d: &Bound<'_, PyAny>| -> PyResult<Vec<Body>> {
            let mut sc: Scenario = depythonize_field(d, "settings")?;
            // The step is the running one's: new bodies alone need not have a bound orbit.
            sc.time_step = Default::default();
            sc.time_step_days = 1.0;
            let (_, bodies) =
                config::load_scenario(sc, &PathBuf::from("<Simulation>"), false).map_err(py_err)?;
            Ok(bodies)
        };
        let count = load(new)?.len();
        let all = load(settings)?;
        let mut added = all[all.len() - count.min(all.len())..].to_vec();
        if let Some(first) = first_id {
            for (k, b) in added.iter_mut().enumerate() {
                b.id = first + k as u64;
            }
        }
        py.allow_threads(|| {
            let mut guard = self.lock();
            let Inner { run, pools } = &mut *guard;
            pools.install(|| run.add_bodies(&added))
        })?
        .map_err(py_err)
    }

    /// The step reached.
    #[getter]
    fn step(&self) -> u64 {
        self.lock().run.step()
    }

    /// Time reached, in years.
    #[getter]
    fn time_years(&self) -> f64 {
        self.lock().run.time_years()
    }

    /// Why the simulation stopped (fewer bodies than `minimum_bodies`, a `stop` condition), or
    /// None.
    #[getter]
    fn stopped(&self) -> Option<String> {
        self.lock().run.stopped().map(str::to_string)
    }

    /// What stopped the simulation (`encounter`, `collision`, `ejection`, `escape`, `minimum
    /// bodies`, `interrupt`), or None.
    #[getter]
    fn stop_kind(&self) -> Option<&'static str> {
        self.lock().run.stop_kind()
    }

    /// How `system` stopped, or None: a dictionary of `reason` (`encounter`, `collision`,
    /// `ejection`, `escape`, `minimum bodies`, `failure`, `chaotic`), `years` (the event's time), `step` (the step at
    /// whose end it stopped), `bodies` (the ids involved: two, one or none) and `distance` (AU:
    /// between the two bodies, or of the one from the central body; None when there is none).
    #[pyo3(signature = (system=0))]
    fn stop_record<'py>(
        &self,
        py: Python<'py>,
        system: usize,
    ) -> PyResult<Option<Bound<'py, PyDict>>> {
        let record = {
            let guard = self.lock();
            check_system(&guard.run, system)?;
            guard.run.stop_record(system)
        };
        let Some(r) = record else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item("reason", r.reason.name())?;
        d.set_item("years", r.years)?;
        d.set_item("step", r.step)?;
        d.set_item(
            "bodies",
            r.bodies.iter().flatten().copied().collect::<Vec<u64>>(),
        )?;
        d.set_item("distance", r.distance)?;
        Ok(Some(d))
    }

    /// Every system's MEGNO and maximal Lyapunov exponent (per year, REBOUND's convention): an
    /// (S, 2) array, NaN for a system without (none yet); an InputError naming `chaos` when the
    /// variations are off.
    fn chaos_table(&self, py: Python<'_>) -> PyResult<PyObject> {
        let rows = {
            let guard = self.lock();
            let row = |c: Option<(f64, f64)>| c.map_or(vec![f64::NAN; 2], |(m, l)| vec![m, l]);
            let rows = guard.run.chaos().map(|c| c.into_iter().map(row).collect());
            rows.ok_or_else(|| {
                input_err(
                    "chaos",
                    "MEGNO and the Lyapunov exponent need the variational equations; expected \
                     chaos=True (or {\"megno\": True, \"seed\": N}) with integrator=\"wh\"",
                )
            })?
        };
        table(py, rows, 2)
    }

    /// Every system's sampled time series so far: a dict of arrays by name (`system`, `step`,
    /// `time` in years, the system's values `[S, N]`, the bodies' `[S, N, B]`), as the run's
    /// `Samples<name>.npz` holds them; an InputError naming `samples` without them.
    fn samples(&self, py: Python<'_>) -> PyResult<PyObject> {
        use orrery::io::samples::Values;
        let arrays = self.lock().run.samples().ok_or_else(|| {
            input_err(
                "samples",
                "no sampled series; expected samples={\"every\": {\"Years\": x}, \"what\": \
                 [\"elements\", ...]} when the simulation is made",
            )
        })?;
        let d = PyDict::new(py);
        for a in arrays {
            let shape: Vec<usize> = a.shape.iter().map(|&n| n as usize).collect();
            let shape = numpy::ndarray::IxDyn(&shape);
            let bad =
                |e: numpy::ndarray::ShapeError| RunError::new_err(format!("samples shape: {e}"));
            let value: PyObject = match a.values {
                Values::F64(v) => numpy::ndarray::ArrayD::from_shape_vec(shape, v)
                    .map_err(bad)?
                    .into_pyarray(py)
                    .into_any()
                    .unbind(),
                Values::I64(v) => numpy::ndarray::ArrayD::from_shape_vec(shape, v)
                    .map_err(bad)?
                    .into_pyarray(py)
                    .into_any()
                    .unbind(),
            };
            d.set_item(a.name, value)?;
        }
        Ok(d.into_any().unbind())
    }

    /// The backend's name (cpu, opencl or cuda).
    #[getter]
    fn backend(&self) -> &'static str {
        self.lock().run.backend_name()
    }

    /// The bodies of `system` now, heliocentric: an (N, 12) array of `i m r x y z vx vy vz Sx
    /// Sy Sz`.
    #[pyo3(signature = (system=0))]
    fn state(&self, py: Python<'_>, system: usize) -> PyResult<PyObject> {
        // On the object's threads, the interpreter's lock released: the map's systems are
        // brought to the step reached first (the calling thread's own pool reads a small system
        // without a hop).
        let rows = py.allow_threads(|| -> PyResult<Vec<Vec<f64>>> {
            let mut guard = self.lock();
            let Inner { run, pools } = &mut *guard;
            check_system(run, system)?;
            let bodies = pools.install(|| run.bodies(system))?.map_err(py_err)?;
            Ok(bodies.iter().map(|b| body_row(b).to_vec()).collect())
        })?;
        table(py, rows, 12)
    }

    /// The Energy file's line of `system` now, as a dictionary.
    #[pyo3(signature = (system=0))]
    fn energy<'py>(&self, py: Python<'py>, system: usize) -> PyResult<Bound<'py, PyDict>> {
        let line = py.allow_threads(|| {
            let mut guard = self.lock();
            let Inner { run, pools } = &mut *guard;
            check_system(run, system)?;
            pools.install(|| run.energy_line(system))?.map_err(py_err)
        })?;
        let d = PyDict::new(py);
        d.set_item("time", line.t_years)?;
        d.set_item("n", line.n)?;
        d.set_item("potential", line.potential)?;
        d.set_item("kinetic", line.kinetic)?;
        d.set_item("u", line.u)?;
        d.set_item("l_lost", line.l_lost)?;
        d.set_item("e_total", line.e_total)?;
        d.set_item("l_total", line.l_total)?;
        d.set_item("e_relative", line.e_relative)?;
        d.set_item("l_relative", line.l_relative)?;
        d.set_item("central_spin", line.central_spin)?;
        Ok(d)
    }

    /// The collisions and ejections of `system` so far: an (K, 25) array `t` + both bodies' 12
    /// columns, and an (J, 14) array `t` + the body's 12 columns + GENGA's case.
    #[pyo3(signature = (system=0))]
    fn events(&self, py: Python<'_>, system: usize) -> PyResult<(PyObject, PyObject)> {
        let (collisions, ejections) = {
            let guard = self.lock();
            check_system(&guard.run, system)?;
            let ev = guard.run.events(system);
            let c: Vec<Vec<f64>> = ev
                .collisions
                .iter()
                .map(|(t, [a, b])| {
                    let mut row = vec![*t];
                    row.extend(body_row(a));
                    row.extend(body_row(b));
                    row
                })
                .collect();
            let e: Vec<Vec<f64>> = ev
                .ejections
                .iter()
                .map(|(t, b, case)| {
                    let mut row = vec![*t];
                    row.extend(body_row(b));
                    row.push(*case as f64);
                    row
                })
                .collect();
            (c, e)
        };
        Ok((table(py, collisions, 25)?, table(py, ejections, 14)?))
    }

    /// How many ejections each system has had so far (cheap: no table is built), so that a
    /// caller converts only the new rows of `events`.
    fn ejection_counts(&self) -> Vec<usize> {
        let guard = self.lock();
        let n = guard.run.setup().sims.len();
        (0..n)
            .map(|s| guard.run.events(s).ejections.len())
            .collect()
    }

    /// The whole state as checkpoint bytes (the format of `Checkpoint<name>_<step>.bin`).
    fn checkpoint<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let data = py.allow_threads(|| {
            let mut guard = self.lock();
            let Inner { run, pools } = &mut *guard;
            pools.install(|| run.checkpoint_bytes())?.map_err(py_err)
        })?;
        Ok(PyBytes::new(py, &data))
    }
}

/// Radii (AU) of uniform spheres of masses `m` (Msun) and density `rho` (g/cm^3): the radius a
/// body without one gets from `default_rho` (`orrery::units::radius_from_density`).
#[pyfunction]
fn radius_from_density(py: Python<'_>, m: PyReadonlyArray1<'_, f64>, rho: f64) -> PyObject {
    let r: Vec<f64> = m
        .as_array()
        .iter()
        .map(|&mk| orrery::units::radius_from_density(mk, rho))
        .collect();
    r.into_pyarray(py).into_any().unbind()
}

/// Heliocentric Cartesian states of Keplerian orbits (the scenario's `Kepler` bodies' formula):
/// `mu = G (M + m)`, angles in radians. Returns (N, 3) positions and velocities.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn cartesian_from_elements(
    py: Python<'_>,
    mu: PyReadonlyArray1<'_, f64>,
    a: PyReadonlyArray1<'_, f64>,
    e: PyReadonlyArray1<'_, f64>,
    inc: PyReadonlyArray1<'_, f64>,
    node: PyReadonlyArray1<'_, f64>,
    peri: PyReadonlyArray1<'_, f64>,
    mean_anomaly: PyReadonlyArray1<'_, f64>,
) -> PyResult<(PyObject, PyObject)> {
    let cols = [&mu, &a, &e, &inc, &node, &peri, &mean_anomaly].map(|c| c.as_array());
    let n = cols[0].len();
    if cols.iter().any(|c| c.len() != n) {
        return Err(input_err("elements", "expected arrays of one length"));
    }
    let (mut pos, mut vel) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for k in 0..n {
        let [mu, a, e, i, o, w, m] = cols.map(|c| c[k]);
        let (p, v) = orrery::physics::elements::cartesian_from_elements(mu, a, e, i, o, w, m)
            .map_err(|err| {
                input_err(
                    &format!("body {k}"),
                    format!("invalid orbital elements a = {a} AU, e = {e}: {err}"),
                )
            })?;
        pos.push(p.to_vec());
        vel.push(v.to_vec());
    }
    Ok((table(py, pos, 3)?, table(py, vel, 3)?))
}

/// Orbital elements of heliocentric states: an (N, 6) array `a e inc node peri M` (AU,
/// radians) for `mu = G (M + m)`.
#[pyfunction]
fn elements_from_cartesian(
    py: Python<'_>,
    mu: PyReadonlyArray1<'_, f64>,
    pos: numpy::PyReadonlyArray2<'_, f64>,
    vel: numpy::PyReadonlyArray2<'_, f64>,
) -> PyResult<PyObject> {
    let (mu, pos, vel) = (mu.as_array(), pos.as_array(), vel.as_array());
    let n = mu.len();
    if pos.shape() != [n, 3] || vel.shape() != [n, 3] {
        return Err(input_err("pos", "expected (N, 3) positions and velocities"));
    }
    let rows = (0..n)
        .map(|k| {
            let p = [pos[[k, 0]], pos[[k, 1]], pos[[k, 2]]];
            let v = [vel[[k, 0]], vel[[k, 1]], vel[[k, 2]]];
            let el = orrery::physics::elements::elements_from_cartesian(mu[k], p, v);
            vec![el.a, el.e, el.inc, el.node, el.peri, el.mean_anomaly]
        })
        .collect();
    table(py, rows, 6)
}

/// Run a scenario, ensemble, GENGA `param.dat`, multi-simulation list or sheet scenario as
/// `orrery run` does, with its files; returns the summary as a dictionary with its `report`.
#[pyfunction]
#[pyo3(signature = (path, *, multi=false, steps=None, out=None, backend=None, cpu_passes=None,
    device=None, shard=None, threads=None, order=None, mode=None, semi_active=false,
    resume=None, overwrite=false))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    path: PathBuf,
    multi: bool,
    steps: Option<u64>,
    out: Option<PathBuf>,
    backend: Option<&str>,
    cpu_passes: Option<String>,
    device: Option<usize>,
    shard: Option<&str>,
    threads: Option<usize>,
    order: Option<u8>,
    mode: Option<&str>,
    semi_active: bool,
    resume: Option<&str>,
    overwrite: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let overrides = Overrides {
        steps,
        out,
        backend: backend
            .map(|b| {
                b.parse::<BackendChoice>()
                    .map_err(|m| input_err("backend", m))
            })
            .transpose()?,
        cpu_passes: None,
        sheet_cpu_passes: None,
        device,
        shard: shard
            .map(|s| s.parse().map_err(|m| input_err("shard", m)))
            .transpose()?,
        threads,
        order,
        mode: mode
            .map(|m| m.parse::<Mode>().map_err(|e| input_err("mode", e)))
            .transpose()?,
        semi_active,
        overwrite,
        genga_console: Vec::new(),
    };
    let resume = match resume {
        None | Some("no") => Resume::Fresh,
        Some("auto") => Resume::Auto,
        Some("yes") => Resume::Always,
        Some(other) => {
            return Err(input_err(
                "resume",
                format!("`{other}`: expected True, False or \"auto\""),
            ))
        }
    };
    let request = RunRequest {
        file: path,
        multi,
        overrides,
        cpu_passes,
        resume,
    };
    let (outcome, interrupted) = py.allow_threads(|| {
        interruptible(|| run_request(&request, &orrery::signals::STOP, &mut |_| {}))
    })?;
    let outcome = outcome.map_err(py_err)?;
    if interrupted {
        return Err(PyKeyboardInterrupt::new_err(format!(
            "the run stopped at the end of a step with its snapshots and a checkpoint; continue \
             with resume=True\n{}",
            outcome.report()
        )));
    }
    let d = PyDict::new(py);
    d.set_item("report", outcome.report())?;
    d.set_item("warnings", outcome.warnings().to_vec())?;
    match &outcome {
        Outcome::Hybrid(s) => {
            d.set_item("engine", "hybrid")?;
            d.set_item("backend", s.backend)?;
            d.set_item("first_step", s.first_step)?;
            d.set_item("last_step", s.last_step)?;
            d.set_item("wall_s", s.wall_s)?;
            d.set_item("time_per_step", s.time_per_step())?;
            d.set_item("simulations", s.simulations)?;
            d.set_item("n_start", s.n_start)?;
            d.set_item("n_end", s.n_end)?;
            d.set_item("rel_energy_error", s.rel_energy_error)?;
            d.set_item("rel_angular_momentum_error", s.rel_angular_momentum_error)?;
            d.set_item("collisions", s.collisions)?;
            d.set_item("ejections", s.ejections)?;
            d.set_item("stopped", s.stopped.clone())?;
        }
        Outcome::Sheet(s) => {
            d.set_item("engine", "sheet")?;
            d.set_item("backend", s.backend)?;
            d.set_item("first_step", s.first_step)?;
            d.set_item("last_step", s.first_step + s.steps)?;
            d.set_item("wall_s", s.wall_s)?;
            d.set_item("time_per_step", s.time_per_step())?;
            d.set_item("n_end", s.n)?;
            d.set_item("collisions", s.collisions)?;
            d.set_item("stopped", s.interrupted.then_some("interrupted"))?;
        }
    }
    Ok(d)
}

/// The devices `backend="opencl"`/`"cuda"` and `device=N` can pick, as `orrery devices` lists
/// them.
#[pyfunction]
fn devices() -> PyResult<String> {
    orrery::backend::describe_devices().map_err(py_err)
}

/// The backends compiled into this build of the module: `cpu` always, `opencl` and `cuda` when
/// it was built with those features (`MATURIN_PEP517_ARGS="--features opencl"`).
#[pyfunction]
fn backends() -> Vec<&'static str> {
    let mut b = vec!["cpu"];
    if cfg!(feature = "opencl") {
        b.push("opencl");
    }
    if cfg!(feature = "cuda") {
        b.push("cuda");
    }
    b
}

#[pymodule]
fn _orrery(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<NativeSimulation>()?;
    m.add_class::<sheet::NativeSheet>()?;
    m.add_function(wrap_pyfunction!(cartesian_from_elements, m)?)?;
    m.add_function(wrap_pyfunction!(radius_from_density, m)?)?;
    m.add_function(wrap_pyfunction!(check_settings, m)?)?;
    m.add_function(wrap_pyfunction!(resolve_settings, m)?)?;
    m.add_function(wrap_pyfunction!(read_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(elements_from_cartesian, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(devices, m)?)?;
    m.add_function(wrap_pyfunction!(backends, m)?)?;
    m.add("OrreryError", py.get_type::<OrreryError>())?;
    m.add("InputError", py.get_type::<InputError>())?;
    m.add("RunError", py.get_type::<RunError>())?;
    m.add("VERSION", env!("CARGO_PKG_VERSION"))?;
    m.add("K_GAUSS", orrery::units::K_GAUSS)?;
    Ok(())
}
