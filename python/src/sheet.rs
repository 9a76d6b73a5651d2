//! The sheet engine in memory (`orrery.Sheet`): a shearing-sheet ring patch built from a
//! scenario dictionary (the fields of a `Sheet(...)` `.ron` file), stepped by the library's one
//! sheet step (`orrery::sheet::step`) on any backend, with the particles read back as numpy.

use super::{input_err, interruptible, py_err, table, Pools};
use orrery::backend::BackendChoice;
use orrery::sheet::run::observables;
use orrery::sheet::scenario::Sheet;
use orrery::sheet::{BackendSpec, SheetBackend, SheetPassSet, SheetPassTimes};
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Mutex;

/// The state behind an `orrery.Sheet`.
struct SheetState {
    sc: Sheet,
    backend: Box<dyn SheetBackend>,
    pools: Pools,
    step: u64,
    candidates: u64,
    collisions: u64,
    times: SheetPassTimes,
}

/// An in-memory sheet (wrapped by `orrery.Sheet`).
#[pyclass(module = "orrery._orrery")]
pub struct NativeSheet {
    inner: Mutex<SheetState>,
}

impl NativeSheet {
    fn lock(&self) -> std::sync::MutexGuard<'_, SheetState> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[pymethods]
impl NativeSheet {
    /// A sheet from a scenario dictionary, its particles generated from `seed`, on `backend`
    /// (`cpu`, `opencl`, `cuda`, `auto`) with the sheet passes `cpu_passes` on the CPU.
    #[new]
    #[pyo3(signature = (settings, threads=None, backend=None, cpu_passes=None, device=None))]
    fn new(
        py: Python<'_>,
        settings: &Bound<'_, PyAny>,
        threads: Option<usize>,
        backend: Option<&str>,
        cpu_passes: Option<&str>,
        device: Option<usize>,
    ) -> PyResult<Self> {
        let sc: Sheet = crate::depythonize_field(settings, "settings")?;
        sc.validate(Path::new("<Sheet>")).map_err(py_err)?;
        let at = orrery::Location::default().field("cpu_passes");
        let spec = BackendSpec {
            backend: match backend {
                Some(b) => b
                    .parse::<BackendChoice>()
                    .map_err(|m| input_err("backend", m))?,
                None => BackendChoice::Cpu,
            },
            cpu_passes: match cpu_passes {
                Some(list) => SheetPassSet::parse(list, &at).map_err(py_err)?,
                None => SheetPassSet::NONE,
            },
            device,
        };
        let pools = Pools::new(threads)?;
        let backend = py
            .allow_threads(|| {
                pools.install(|| orrery::sheet::create_backend(&spec, sc.params(), sc.generate()))
            })?
            .map_err(py_err)?;
        Ok(NativeSheet {
            inner: Mutex::new(SheetState {
                sc,
                backend,
                pools,
                step: 0,
                candidates: 0,
                collisions: 0,
                times: SheetPassTimes::default(),
            }),
        })
    }

    /// Step `steps` steps further with the interpreter's lock released; Ctrl-C stops at the
    /// end of a step and raises KeyboardInterrupt with that step's state kept. Returns the
    /// step reached.
    fn integrate(&self, py: Python<'_>, steps: u64) -> PyResult<u64> {
        let (result, interrupted) = py.allow_threads(|| {
            interruptible(|| {
                let mut guard = self.lock();
                let s = &mut *guard;
                let dt = s.sc.params().dt;
                let until = s.step.saturating_add(steps);
                let pools = s.pools;
                pools.install(|| -> orrery::Result<()> {
                    while s.step < until && !orrery::signals::STOP.load(Ordering::Relaxed) {
                        let t = s.step as f64 * dt;
                        let c = orrery::sheet::step(s.backend.as_mut(), t, dt, &mut s.times)?;
                        s.step += 1;
                        s.candidates += c.candidates;
                        s.collisions += c.collisions;
                    }
                    Ok(())
                })
            })
        })?;
        result?.map_err(py_err)?;
        let step = self.lock().step;
        if interrupted {
            return Err(PyKeyboardInterrupt::new_err(format!(
                "stopped at the end of step {step}; the sheet holds that step's state"
            )));
        }
        Ok(step)
    }

    /// The step reached.
    #[getter]
    fn step(&self) -> u64 {
        self.lock().step
    }

    /// The time step in seconds.
    #[getter]
    fn dt(&self) -> f64 {
        self.lock().sc.params().dt
    }

    /// Collision candidates and collisions resolved so far.
    #[getter]
    fn counts(&self) -> (u64, u64) {
        let s = self.lock();
        (s.candidates, s.collisions)
    }

    /// The backend's name.
    #[getter]
    fn backend(&self) -> &'static str {
        self.lock().backend.name()
    }

    /// The particles sorted by id, one row each: `id x y z vx vy vz r m` (SI, the snapshot's
    /// columns after the id).
    fn particles(&self, py: Python<'_>) -> PyResult<PyObject> {
        let p = self
            .lock()
            .backend
            .download()
            .map_err(py_err)?
            .sorted_by_id();
        let rows: Vec<Vec<f64>> = (0..p.len())
            .map(|k| {
                vec![
                    p.id[k] as f64,
                    p.x[k],
                    p.y[k],
                    p.z[k],
                    p.vx[k],
                    p.vy[k],
                    p.vz[k],
                    p.r[k],
                    p.m[k],
                ]
            })
            .collect();
        table(py, rows, 9)
    }

    /// The ring's observables now (the Series file's columns): velocity dispersions in x, y, z
    /// and in all (m/s, about the shear flow), optical depth, filling factor, rms height (m).
    fn observables<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let mut s = self.lock();
        let p = s.backend.download().map_err(py_err)?;
        let o = observables(&p, s.sc.omega, s.sc.box_size);
        let d = PyDict::new(py);
        d.set_item("sigma", o.sigma.to_vec())?;
        d.set_item("sigma_total", o.sigma_total)?;
        d.set_item("tau", o.tau)?;
        d.set_item("filling_factor", o.filling_factor)?;
        d.set_item("z_rms", o.z_rms)?;
        Ok(d)
    }
}
