//! Backends execute the passes of an engine's step on their own resident buffers.
//!
//! The hybrid step (`crate::hybrid::stepper`) is written once as an ordered sequence of calls on
//! [`HybridBackend`]; a backend keeps the body state where it computes (host memory for the CPU,
//! device buffers for OpenCL/CUDA) and returns only counts, small event lists and the outputs that
//! were asked for. The CPU backend (rayon) is always built and is the reference.

pub mod cpu;
#[cfg(feature = "cuda")]
pub mod cuda;
pub mod device_api;
#[cfg(test)]
mod device_math_tests;
pub mod fallback;
pub mod fields;
#[cfg(test)]
mod forces_device_tests;
#[cfg(any(feature = "opencl", feature = "cuda"))]
pub mod gpu;
pub mod group_batch;
#[cfg(feature = "opencl")]
pub mod opencl;
pub mod residency;
pub mod select;
pub mod sets;
pub mod sheet;
pub mod status;

pub use select::{DeviceApi, NO_CUDA, NO_OPENCL};

pub use fields::{Field, FieldData, FieldSet, FieldTransfer, Pass, PassSet};

use crate::error::{Error, Result};
use crate::model::{
    Collision, Ejection, EncounterStats, HybridSnapshot, Layout, StepCounts, StepEvents, StepParams,
};
use crate::physics::bulirsch_stoer::BsOptions;
use crate::physics::encounter::{PairEnds, PairLimits};
use crate::physics::energy::EnergyParts;
use crate::physics::wisdom_holman::{ResidentPack, WhPack};
use crate::state::Bodies;
use serde::{Deserialize, Serialize};

/// Which backend executes the passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum BackendChoice {
    /// The fastest backend available at run time (a GPU backend when compiled in and a device is
    /// present, otherwise the CPU).
    #[default]
    #[serde(alias = "auto", alias = "AUTO")]
    Auto,
    /// The CPU reference (rayon): always built, bitwise the same for any thread count.
    #[serde(alias = "cpu", alias = "CPU")]
    Cpu,
    /// An OpenCL device with double precision (a build with `--features opencl`).
    #[serde(alias = "opencl", alias = "OpenCL", alias = "OPENCL")]
    Opencl,
    /// An NVIDIA GPU of compute capability 7.0 or newer (a build with `--features cuda`).
    #[serde(alias = "cuda", alias = "CUDA")]
    Cuda,
}

impl std::str::FromStr for BackendChoice {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "auto" => Ok(Self::Auto),
            "cpu" => Ok(Self::Cpu),
            "opencl" => Ok(Self::Opencl),
            "cuda" => Ok(Self::Cuda),
            _ => Err(format!(
                "unknown backend `{s}` (expected auto, cpu, opencl or cuda)"
            )),
        }
    }
}

/// One whole step (all passes, see [`crate::hybrid::stepper`]) applied to a backend or to one
/// part of it, adding its counters to the [`StepCounts`].
pub type PartStep<'a> =
    dyn Fn(&mut dyn HybridBackend, &mut StepCounts) -> Result<StepEvents> + Sync + 'a;

/// What the passes of one substep report: the one small read the host waits for in the regular
/// step (paper section 3: GENGA reads the encounter count once per step). A drift failure is
/// reported by [`HybridBackend::status`] as an error.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PassStatus {
    /// Prechecker candidate pairs searched by the last encounter search.
    pub candidates: u64,
    /// Close encounters it confirmed.
    pub encounters: u64,
}

/// The passes of the hybrid step (GENGA paper section 2.2). Every method works on the backend's
/// resident state; [`Pass`] names them and declares the fields each reads and writes. No pass
/// calls another: the order is the stepper's alone.
pub trait HybridBackend: Send {
    /// Short name for reports (`cpu`, `opencl`, `cuda`).
    fn name(&self) -> &'static str;
    /// The systems and how their bodies are stored.
    fn layout(&self) -> &Layout;
    /// Number of bodies in active systems.
    fn len(&self) -> usize {
        let l = self.layout();
        l.systems.iter().filter(|s| s.active).map(|s| s.len).sum()
    }
    /// True when no bodies are left.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Stop system `s`: its bodies are no longer integrated.
    fn stop_system(&mut self, s: usize);
    /// Apply `step` to the whole state and return what happened. A backend holding independent
    /// systems may apply it to parts of them (each part a backend of its own, with whole
    /// systems) in parallel, so that a whole step runs on data that stays in cache; it then
    /// reports system indices of the whole state, the events in system order, and pass times
    /// scaled to the wall time of the step. A backend that does not split calls `step(self)`.
    fn step_parts(&mut self, step: &PartStep<'_>, counts: &mut StepCounts) -> Result<StepEvents>;
    /// [`Pass::CriticalRadii`]: critical radii of all bodies for the coming step (eq. 6).
    fn critical_radii(&mut self, p: &StepParams);
    /// [`Pass::RefreshAccelerations`]: bring the stored accelerations in line with the new
    /// critical radii before the opening kick: nothing to do without candidates (KickB),
    /// otherwise the candidate pairs are recomputed (KickA). Falls back to a full recomputation
    /// if a critical radius grew so much that a pair outside the precheck radius could have
    /// entered the changeover zone.
    fn refresh_accelerations(&mut self);
    /// [`Pass::Accelerations`]: full pair accelerations with the changeover and the prechecker
    /// at the current positions and critical radii (the closing kick), and the candidate pairs.
    fn accelerations(&mut self);
    /// [`Pass::Kick`]: velocity kick `v += dt a`.
    fn kick(&mut self, dt: f64);
    /// The closing kick: [`HybridBackend::accelerations`], then [`HybridBackend::kick`] by `dt`
    /// (a backend may fuse the two passes, with the same result).
    fn closing_kick(&mut self, dt: f64) {
        self.accelerations();
        self.kick(dt);
    }
    /// [`Pass::PotentialKick`]: `v += dt a` of the potential forces of `p.forces` (GR, J2;
    /// [`crate::physics::forces::potential_accel`]) at the current positions, for every body.
    /// The stepper calls it with every interaction kick, only when such a force is on.
    fn potential_kick(&mut self, p: &StepParams, dt: f64);
    /// [`Pass::RadiationKick`]: the kick of the velocity-dependent forces of `p.forces`
    /// (radiation, Yarkovsky, the gas disk) over `dt` (see
    /// [`crate::physics::forces::radiation_system`]); its work on every system is added to
    /// the backend's tally ([`HybridBackend::take_work`]). Called only with such a force on.
    fn radiation_kick(&mut self, p: &StepParams, dt: f64);
    /// [`Pass::TideKick`]: the kick of the tides and the rotational deformation of `p.forces`
    /// over `dt` (see [`crate::physics::tides::tide_kick_system`]): the bodies' velocities and
    /// spins and every system's central spin; its work is added to the backend's tally.
    /// Called only with tides or rotational deformation on.
    fn tide_kick(&mut self, p: &StepParams, dt: f64);
    /// The work done on every system by the non-conservative forces since the last call (the
    /// radiation's energy and angular momentum, J2's torque; see
    /// [`crate::physics::forces::Work`]) per system (empty when there was none), and the tally
    /// cleared.
    fn take_work(&mut self) -> Vec<crate::physics::forces::Work>;
    /// [`Pass::SunKick`]: H_C, `x += dt sum(m v) / M0`.
    fn sun_kick(&mut self, p: &StepParams, dt: f64);
    /// A whole substep of length `h` without encounters in one call, for a backend that can
    /// tell none is possible (no candidate pairs: nothing to save and nothing to search): the
    /// opening kick `h/2`, the Sun kick `h/2`, the drift `h`, the Sun kick `h/2` and the
    /// closing kick `h/2` (each kick followed by [`HybridBackend::potential_kick`] when
    /// `p.forces` has a potential force), those passes' arithmetic in their order (the same
    /// bits), without a call per pass. `None` when the backend cannot (the stepper then runs the passes);
    /// `Some(Err)` when the drift failed.
    fn fused_substep(&mut self, _p: &StepParams, _h: f64) -> Option<Result<()>> {
        None
    }
    /// [`Pass::SaveCandidates`]: remember the state of candidate bodies before the drift (for
    /// the encounter search).
    fn save_candidate_states(&mut self);
    /// [`Pass::Drift`]: Kepler drift of every body around M0 for `dt` by f and g functions. A
    /// failure is reported by the next [`HybridBackend::status`].
    fn drift(&mut self, p: &StepParams, dt: f64);
    /// [`Pass::EncounterSearch`]: confirm candidate pairs by the cubic Hermite minimum distance
    /// over the drift (eqs 10-12).
    fn encounter_search(&mut self, dt: f64);
    /// The counts and failure flags of the passes since the last call, in one small read: an
    /// error if the last drift failed.
    fn status(&mut self) -> Result<PassStatus>;
    /// The candidate pairs of the last [`HybridBackend::encounter_search`] with both bodies'
    /// states before and after its drift, for the encounter distance of `limits` (read only by
    /// runs that stop at encounters, and only when the search had candidates). A backend may
    /// leave out the pairs whose smallest separation in the search lies beyond that distance
    /// ([`PairEnds::limit`]), since [`PairEnds::encounter`] finds none for them.
    fn candidate_ends(&mut self, limits: &PairLimits) -> Result<Vec<PairEnds>>;
    /// [`Pass::Grouping`]: group the confirmed encounters (union-find, paper appendix A; a
    /// passive test particle gets a group of its own with its massive partners), largest group
    /// first, and load every group's pre-drift state. Adds the group sizes to `stats`.
    fn group_encounters(&mut self, stats: &mut EncounterStats) -> Result<()>;
    /// [`Pass::BulirschStoer`]: integrate every group over `dt` from its pre-drift state under
    /// the Kepler and (1 - K) forces (paper 3.2.6), with collisions inside the integration
    /// (3.2.7): by Bulirsch-Stoer, or with `p.recursion` on by recursive symplectic sub-steps
    /// with Bulirsch-Stoer at the deepest level ([`crate::physics::recursion`]). Groups run in
    /// parallel, largest first.
    fn integrate_groups(&mut self, p: &StepParams, dt: f64, opts: &BsOptions);
    /// [`Pass::Mergers`]: write the integrated groups back, book the mergers' energies with the
    /// bodies outside their groups, and remove the bodies merged away. Adds the Bulirsch-Stoer
    /// counts and mergers to `stats`; fails if a group's integration failed.
    fn apply_groups(
        &mut self,
        p: &StepParams,
        stats: &mut EncounterStats,
    ) -> Result<Vec<Collision>>;
    /// [`Pass::Ejections`]: remove bodies beyond the truncation radii and return them. The
    /// stored accelerations are then stale (the stepper recomputes them).
    fn ejections(&mut self, p: &StepParams) -> Vec<Ejection>;
    /// [`Pass::Energy`]: energy and angular momentum of every system, in one call (the
    /// potential energy includes the potential forces' `sum m Phi`).
    fn energies(&mut self, p: &StepParams) -> Vec<EnergyParts>;
    /// The bodies of system `s` in democratic heliocentric coordinates (copied to the host if
    /// need be).
    fn bodies(&mut self, s: usize) -> Bodies;
    /// Call `f` with the arrays holding system `s` and its slot range, without copying where
    /// the backend can (the default copies through [`HybridBackend::bodies`]).
    fn visit_bodies(&mut self, s: usize, f: &mut dyn FnMut(&Bodies, std::ops::Range<usize>)) {
        let b = self.bodies(s);
        f(&b, 0..b.len());
    }
    /// Rewrite the positions and velocities of the bodies of `systems` (an integrator that
    /// keeps its own state, the Wisdom-Holman map, writing it back): `f` gets each system's
    /// place in `systems`, the bodies and the system's range of them, and changes only
    /// positions and velocities; the kick state stays as it is. By default through one
    /// snapshot and one restore; the CPU writes in place.
    fn update_systems(
        &mut self,
        systems: &[usize],
        f: &mut dyn FnMut(usize, &mut Bodies, std::ops::Range<usize>),
    ) {
        let mut snap = self.snapshot();
        for (k, &s) in systems.iter().enumerate() {
            let range = snap.layout.range(s);
            f(k, &mut snap.bodies, range);
        }
        self.restore(snap);
    }
    /// Everything needed to restart bitwise exactly.
    fn snapshot(&mut self) -> HybridSnapshot;
    /// Call `f` with the restart state as consecutive pieces (their systems and slots in order,
    /// the candidate pairs of each in its own slots), without copying where the backend can.
    fn visit_snapshot(&mut self, f: &mut dyn FnMut(&[HybridSnapshot])) {
        let snap = self.snapshot();
        f(std::slice::from_ref(&snap));
    }
    /// Replace the state by a snapshot (fresh start or restart).
    fn restore(&mut self, s: HybridSnapshot);
    /// Whether the Wisdom-Holman map steps on this backend's device ([`HybridBackend::resident_pack`]):
    /// not on the CPU backend, nor with `--cpu-passes wisdom_holman`.
    fn map_on_device(&self) -> bool {
        false
    }
    /// The Wisdom-Holman pack `pack` resident on this backend's device, to be stepped there
    /// ([`ResidentPack`]); an error where the map does not step on the device.
    fn resident_pack(&mut self, _pack: &mut WhPack) -> Result<Box<dyn ResidentPack>> {
        Err(Error::run(format!(
            "the {} backend steps the Wisdom-Holman map on the CPU",
            self.name()
        )))
    }
}

/// Create the backend for `choice`; `device` is `--device N` (an index of `orrery devices`), and
/// the passes in `cpu_passes` run on the CPU reference (see [`fallback::Fallback`]; the CPU
/// backend runs every pass on the CPU anyway). `Auto` picks a CUDA GPU, then an OpenCL GPU with
/// double precision (never an OpenCL CPU device), among the APIs compiled in, and the CPU
/// backend otherwise (see [`auto_device`]).
pub fn create(
    choice: BackendChoice,
    cpu_passes: PassSet,
    device: Option<usize>,
) -> Result<Box<dyn HybridBackend>> {
    match choice {
        BackendChoice::Cpu => {
            if let Some(n) = device {
                return Err(Error::input(
                    crate::error::Location::default().field("device"),
                    format!(
                        "--device {n} picks an OpenCL or CUDA device, but the backend is `cpu` \
                         (expected --backend opencl, cuda or auto with --device)"
                    ),
                ));
            }
            Ok(Box::new(cpu::CpuBackend::default()))
        }
        BackendChoice::Auto => match auto_device(device)? {
            Some((api, n)) => device_backend(api, Some(n), cpu_passes),
            None => Ok(Box::new(cpu::CpuBackend::default())),
        },
        BackendChoice::Opencl => device_backend(DeviceApi::OpenCl, device, cpu_passes),
        BackendChoice::Cuda => device_backend(DeviceApi::Cuda, device, cpu_passes),
    }
}

/// The backend `spec` chooses, holding `particles`: the CPU backend, or a device backend
/// (OpenCL, CUDA; `Auto` as for the hybrid engine, see [`crate::backend::auto_device`]), wrapped
/// in the per-pass fallback when `spec.cpu_passes` names passes for the CPU reference.
pub fn create_sheet(
    spec: &sheet::BackendSpec,
    params: crate::physics::sheet::SheetParams,
    particles: crate::physics::sheet::Particles,
) -> Result<Box<dyn sheet::SheetBackend>> {
    let device = match spec.backend {
        BackendChoice::Cpu => {
            if let Some(n) = spec.device {
                return Err(crate::error::Error::input(
                    crate::error::Location::default().field("device"),
                    format!(
                        "--device {n} picks an OpenCL or CUDA device, but the backend is `cpu` \
                         (expected --backend opencl, cuda or auto with --device)"
                    ),
                ));
            }
            None
        }
        BackendChoice::Auto => auto_device(spec.device)?.map(|(a, n)| (a, Some(n))),
        BackendChoice::Opencl => Some((DeviceApi::OpenCl, spec.device)),
        BackendChoice::Cuda => Some((DeviceApi::Cuda, spec.device)),
    };
    let Some((api, index)) = device else {
        return Ok(Box::new(sheet::CpuSheet::new(params, particles)));
    };
    if spec.cpu_passes.is_empty() {
        return device_sheet(api, index, params, particles);
    }
    let host = sheet::CpuSheet::new(params, particles.clone());
    let gpu = device_sheet(api, index, params, particles)?;
    Ok(Box::new(sheet::SheetFallback::new(
        gpu,
        host,
        spec.cpu_passes,
    )))
}

#[cfg(any(feature = "opencl", feature = "cuda"))]
fn device_sheet(
    api: DeviceApi,
    index: Option<usize>,
    params: crate::physics::sheet::SheetParams,
    particles: crate::physics::sheet::Particles,
) -> Result<Box<dyn sheet::SheetBackend>> {
    let gpu = gpu::DeviceSheet::open(api, index, params, &particles)?;
    Ok(Box::new(gpu))
}

#[cfg(not(any(feature = "opencl", feature = "cuda")))]
fn device_sheet(
    api: DeviceApi,
    _index: Option<usize>,
    _params: crate::physics::sheet::SheetParams,
    _particles: crate::physics::sheet::Particles,
) -> Result<Box<dyn sheet::SheetBackend>> {
    Err(select::not_compiled(api))
}

/// Open device `index` of `api` (`None`: the API's default choice) with the kernels of
/// `modules`, through that API's adapter: the one place the device backends' host side meets
/// the adapters ([`device_api`]).
pub fn open_device(
    api: DeviceApi,
    index: Option<usize>,
    modules: &[&str],
) -> Result<device_api::OpenDevice> {
    let _ = (index, modules);
    match api {
        #[cfg(feature = "opencl")]
        DeviceApi::OpenCl => opencl::context::open(index, modules),
        #[cfg(feature = "cuda")]
        DeviceApi::Cuda => cuda::context::open(index, modules),
        #[allow(unreachable_patterns)]
        other => Err(select::not_compiled(other)),
    }
}

/// The devices of `api`: an error when it is not compiled in or has no runtime.
pub fn list_devices(api: DeviceApi) -> Result<Vec<select::DeviceSummary>> {
    match api {
        #[cfg(feature = "opencl")]
        DeviceApi::OpenCl => opencl::list(),
        #[cfg(feature = "cuda")]
        DeviceApi::Cuda => cuda::list(),
        #[allow(unreachable_patterns)]
        other => Err(select::not_compiled(other)),
    }
}

/// Whether `api` is compiled into this build.
pub fn compiled(api: DeviceApi) -> bool {
    match api {
        DeviceApi::OpenCl => cfg!(feature = "opencl"),
        DeviceApi::Cuda => cfg!(feature = "cuda"),
    }
}

/// The device `--backend auto` uses, if any: the first usable CUDA GPU, else the first OpenCL
/// GPU with double precision (see [`select::auto_choice`]); an API without a runtime or device
/// counts as empty. With `--device N`, device N of the API that has a GPU (OpenCL when neither
/// has one, so that `--backend auto --device N` still reaches an OpenCL CPU device).
pub fn auto_device(device: Option<usize>) -> Result<Option<(DeviceApi, usize)>> {
    for api in [DeviceApi::Cuda, DeviceApi::OpenCl] {
        let list = list_devices(api).unwrap_or_default();
        if let Some(i) = select::auto_choice(&list) {
            return Ok(Some((api, device.unwrap_or(i))));
        }
    }
    match device {
        None => Ok(None),
        Some(n) => match [DeviceApi::OpenCl, DeviceApi::Cuda]
            .into_iter()
            .find(|&a| compiled(a))
        {
            Some(api) => Ok(Some((api, n))),
            None => Err(select::not_compiled(DeviceApi::OpenCl)),
        },
    }
}

#[cfg(any(feature = "opencl", feature = "cuda"))]
fn device_backend(
    api: DeviceApi,
    device: Option<usize>,
    cpu_passes: PassSet,
) -> Result<Box<dyn HybridBackend>> {
    let gpu = gpu::DeviceHybrid::open(api, device)?;
    Ok(Box::new(fallback::Fallback::new(Box::new(gpu), cpu_passes)))
}

#[cfg(not(any(feature = "opencl", feature = "cuda")))]
fn device_backend(
    api: DeviceApi,
    _device: Option<usize>,
    _cpu_passes: PassSet,
) -> Result<Box<dyn HybridBackend>> {
    Err(select::not_compiled(api))
}

/// The text of `orrery devices`: the CUDA and OpenCL devices with the index `--device N` takes
/// (or why an API has none, or how to build it in), and what `--backend auto` uses. An error
/// (exit 2) when every API compiled in fails to list its devices.
pub fn describe_devices() -> Result<String> {
    let mut out = String::new();
    let mut first_error = None;
    let mut any_listed = false;
    for api in [DeviceApi::Cuda, DeviceApi::OpenCl] {
        if !compiled(api) {
            let text = match api {
                DeviceApi::OpenCl => NO_OPENCL,
                DeviceApi::Cuda => NO_CUDA,
            };
            out.push_str(&format!("{text}.\n"));
            continue;
        }
        match list_devices(api) {
            Ok(list) => {
                any_listed = true;
                out.push_str(&format!(
                    "{} {} device{} (use one with `--backend {} --device N`):\n",
                    list.len(),
                    api.title(),
                    if list.len() == 1 { "" } else { "s" },
                    api.name()
                ));
                for d in &list {
                    out.push_str(&d.describe());
                    out.push('\n');
                }
            }
            Err(e) => {
                out.push_str(&format!("{}: {e}\n", api.title()));
                first_error.get_or_insert(e);
            }
        }
    }
    if let (false, Some(e)) = (any_listed, first_error) {
        return Err(e);
    }
    if compiled(DeviceApi::OpenCl) || compiled(DeviceApi::Cuda) {
        let auto = match auto_device(None)? {
            Some((api, i)) => format!("{} device {i}", api.title()),
            None => "the CPU backend (no CUDA GPU and no OpenCL GPU with double precision; \
                     OpenCL CPU devices such as PoCL are never chosen automatically)"
                .to_string(),
        };
        out.push_str(&format!("--backend auto uses: {auto}\n"));
    }
    Ok(out)
}
