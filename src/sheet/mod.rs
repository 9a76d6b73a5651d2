//! The shearing-sheet engine (the OCCLUDE design, Vincent 2014, section 3; REBOUND's shearing
//! sheet is the same physics): a patch of a dense planetary ring in the frame rotating with the
//! local Keplerian angular velocity Omega.
//!
//! **Units: SI** inside this engine (metres, kilograms, seconds; G = 6.67428e-11 m^3 kg^-1 s^-2
//! unless the scenario says otherwise). x points radially outwards, y along the orbit, z
//! vertically; the box is `[-L/2, L/2)` in x and y and open in z.
//!
//! One step (DESIGN.md, "The sheet step"), written once as an ordered sequence of passes on a
//! [`SheetBackend`] so a device backend can execute the same sequence on resident buffers:
//!
//! 1. SEI drift H0(dt/2) ([`sei`], Rein & Tremaine 2011; OCCLUDE eq. 15 with (y0 - y_g)),
//! 2. shear-periodic boundary ([`boundary`]),
//! 3. Morton keys, sort, octree build from the sorted keys, moments ([`tree`]),
//! 4. tree gravity with ghost boxes ([`gravity`], Bonsai group walk and opening criterion),
//! 5. kick dt and SEI drift H0(dt/2) (OCCLUDE eqs. 16-17),
//! 6. boundary, 7. tree build, 8. collision search ([`collisions`], OCCLUDE eq. 18-19 with each
//!    cell's largest radius), 9. collision resolution (hard spheres, OCCLUDE eq. 13, Bridges et
//!    al. restitution eq. 21), every pair once in a deterministic order.

pub mod boundary;
pub mod checkpoint;
pub mod collisions;
pub mod cpu;
#[cfg(test)]
mod device_math_tests;
pub mod fallback;
pub mod fields;
pub mod gravity;
pub mod run;
pub mod scenario;
pub mod sei;
pub mod tree;

use std::path::Path;
use std::time::Instant;

pub use collisions::Restitution;
pub use cpu::CpuSheet;
pub use fallback::SheetFallback;
pub use fields::{SheetField, SheetFieldData, SheetFieldSet, SheetPass, SheetPassSet};
pub use gravity::GravityStats;
pub use run::SheetSummary;

use crate::error::Result;

/// Particle state as a structure of arrays (SI units). `id` is the particle's index in the
/// initial conditions; backends may reorder the arrays (the CPU backend keeps them in Morton order).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Particles {
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    pub z: Vec<f64>,
    pub vx: Vec<f64>,
    pub vy: Vec<f64>,
    pub vz: Vec<f64>,
    /// Mass [kg].
    pub m: Vec<f64>,
    /// Radius [m].
    pub r: Vec<f64>,
    /// Index in the initial conditions.
    pub id: Vec<u32>,
}

impl Particles {
    /// Number of particles.
    pub fn len(&self) -> usize {
        self.x.len()
    }
    /// True when there are no particles.
    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }
    /// Append one particle (`id` = its position in the arrays).
    pub fn push(&mut self, pos: [f64; 3], vel: [f64; 3], m: f64, r: f64) {
        self.id.push(self.x.len() as u32);
        self.x.push(pos[0]);
        self.y.push(pos[1]);
        self.z.push(pos[2]);
        self.vx.push(vel[0]);
        self.vy.push(vel[1]);
        self.vz.push(vel[2]);
        self.m.push(m);
        self.r.push(r);
    }
    /// Reorder all arrays so that new index k holds old index `perm[k]`.
    pub fn permute(&mut self, perm: &[u32]) {
        fn gather<T: Copy>(v: &mut Vec<T>, perm: &[u32]) {
            let out: Vec<T> = perm.iter().map(|&k| v[k as usize]).collect();
            *v = out;
        }
        gather(&mut self.x, perm);
        gather(&mut self.y, perm);
        gather(&mut self.z, perm);
        gather(&mut self.vx, perm);
        gather(&mut self.vy, perm);
        gather(&mut self.vz, perm);
        gather(&mut self.m, perm);
        gather(&mut self.r, perm);
        gather(&mut self.id, perm);
    }
    /// The same particles ordered by `id` (the order of the initial conditions).
    pub fn sorted_by_id(&self) -> Particles {
        let mut perm: Vec<u32> = (0..self.len() as u32).collect();
        perm.sort_by_key(|&k| self.id[k as usize]);
        let mut p = self.clone();
        p.permute(&perm);
        p
    }
}

/// Physical and numerical parameters of the sheet step (SI units).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SheetParams {
    /// Orbital frequency Omega [1/s] (also the vertical frequency).
    pub omega: f64,
    /// Gravitational constant [m^3 kg^-1 s^-2].
    pub g: f64,
    /// Time step [s].
    pub dt: f64,
    /// Box size L in x and y [m].
    pub box_size: f64,
    /// Opening angle theta of the Bonsai criterion d > l/theta + delta.
    pub theta: f64,
    /// Plummer softening length [m].
    pub softening: f64,
    /// Ghost boxes on each side in x and y (1 = one ring, 3 x 3 boxes).
    pub ghosts: [u32; 2],
    /// Normal coefficient of restitution.
    pub restitution: Restitution,
}

/// Wall time spent in each pass [s], summed over steps.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SheetPassTimes {
    /// SEI drifts and the kick.
    pub integrate: f64,
    /// Shear-periodic boundary.
    pub boundary: f64,
    /// Morton keys, sort, reorder and octree build (both builds).
    pub tree: f64,
    /// Monopole and quadrupole moments.
    pub moments: f64,
    /// Gravity walk and interaction-list evaluation.
    pub gravity: f64,
    /// Collision search.
    pub collision_search: f64,
    /// Collision resolution.
    pub collision_resolve: f64,
}

impl SheetPassTimes {
    /// Sum of all passes.
    pub fn total(&self) -> f64 {
        self.integrate
            + self.boundary
            + self.tree
            + self.moments
            + self.gravity
            + self.collision_search
            + self.collision_resolve
    }
}

/// Counts from one step.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StepCounts {
    /// Approaching overlapping pairs found by the search.
    pub candidates: u64,
    /// Pairs resolved (still approaching when their turn came).
    pub collisions: u64,
}

/// The passes of the sheet step. A backend keeps the particles where it computes (host memory,
/// device buffers) and executes each pass on them; only counts, requested downloads and the
/// fields the per-pass fallback moves ([`fields`]) cross to the host. A pass that fails (a
/// device error) returns the error; the run stops with it.
pub trait SheetBackend: Send {
    /// A short name ("cpu", "opencl", "cuda").
    fn name(&self) -> &'static str;
    /// Number of particles.
    fn len(&self) -> usize;
    /// True when there are no particles.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// [`SheetPass::Drift`]: SEI drift under H0 for `dt` (exact epicycles, OCCLUDE eq. 15).
    fn drift(&mut self, dt: f64) -> Result<()>;
    /// [`SheetPass::Kick`]: v += dt a with the accelerations of the last gravity pass (OCCLUDE
    /// eq. 16).
    fn kick(&mut self, dt: f64) -> Result<()>;
    /// [`SheetPass::Boundary`]: shear-periodic boundary at time `t`.
    fn boundary(&mut self, t: f64) -> Result<()>;
    /// [`SheetPass::Tree`]: Morton keys, sort (the particles are reordered) and octree build.
    fn build_tree(&mut self) -> Result<()>;
    /// [`SheetPass::Moments`]: monopole, quadrupole, bounding boxes and largest radius of every
    /// cell.
    fn moments(&mut self) -> Result<()>;
    /// [`SheetPass::Gravity`]: tree gravity with ghost boxes at time `t` into the accelerations.
    fn gravity(&mut self, t: f64) -> Result<()>;
    /// [`SheetPass::CollisionSearch`]: collision search with ghost boxes at time `t`; returns
    /// the number of candidate pairs.
    fn collision_search(&mut self, t: f64) -> Result<usize>;
    /// [`SheetPass::CollisionResolution`]: resolve the candidates in their deterministic order;
    /// returns the number resolved.
    fn resolve_collisions(&mut self, t: f64) -> Result<usize>;
    /// Wait until every pass issued so far has finished (for honest per-pass times; the CPU
    /// backend is always finished).
    fn finish(&mut self) -> Result<()> {
        Ok(())
    }
    /// Work counters of the last gravity pass.
    fn gravity_stats(&mut self) -> Result<GravityStats>;
    /// Copy the particle state to the host, in the backend's current order: what a snapshot
    /// and a checkpoint hold (any backend resumes from it).
    fn download(&mut self) -> Result<Particles>;
    /// Copy one field to the host (for the per-pass fallback).
    fn export_field(&mut self, f: SheetField) -> Result<SheetFieldData>;
    /// Replace one field by `data` (for the per-pass fallback).
    fn import_field(&mut self, data: SheetFieldData) -> Result<()>;
}

/// One sheet step from time `t` to `t + dt` as the ordered list of passes (module docs). Each
/// pass's wall time (waiting for the backend to finish it) goes to `times`.
pub fn step<B: SheetBackend + ?Sized>(
    b: &mut B,
    t: f64,
    dt: f64,
    times: &mut SheetPassTimes,
) -> Result<StepCounts> {
    let mut clock = Instant::now();
    let mut lap = |b: &mut B, slot: &mut f64| -> Result<()> {
        b.finish()?;
        let now = Instant::now();
        *slot += (now - clock).as_secs_f64();
        clock = now;
        Ok(())
    };
    let half = 0.5 * dt;
    b.drift(half)?;
    lap(b, &mut times.integrate)?;
    b.boundary(t + half)?;
    lap(b, &mut times.boundary)?;
    b.build_tree()?;
    lap(b, &mut times.tree)?;
    b.moments()?;
    lap(b, &mut times.moments)?;
    b.gravity(t + half)?;
    lap(b, &mut times.gravity)?;
    b.kick(dt)?;
    b.drift(half)?;
    lap(b, &mut times.integrate)?;
    b.boundary(t + dt)?;
    lap(b, &mut times.boundary)?;
    b.build_tree()?;
    lap(b, &mut times.tree)?;
    b.moments()?;
    lap(b, &mut times.moments)?;
    let candidates = b.collision_search(t + dt)? as u64;
    lap(b, &mut times.collision_search)?;
    let collisions = b.resolve_collisions(t + dt)? as u64;
    lap(b, &mut times.collision_resolve)?;
    Ok(StepCounts {
        candidates,
        collisions,
    })
}

/// The backend `spec` chooses, holding `particles`: the CPU backend, or a device backend
/// (OpenCL, CUDA; `Auto` as for the hybrid engine, see [`crate::backend::auto_device`]), wrapped
/// in the per-pass fallback when `spec.cpu_passes` names passes for the CPU reference.
pub fn create_backend(
    spec: &run::BackendSpec,
    params: SheetParams,
    particles: Particles,
) -> Result<Box<dyn SheetBackend>> {
    use crate::backend::{BackendChoice, DeviceApi};
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
        BackendChoice::Auto => crate::backend::auto_device(spec.device)?.map(|(a, n)| (a, Some(n))),
        BackendChoice::Opencl => Some((DeviceApi::OpenCl, spec.device)),
        BackendChoice::Cuda => Some((DeviceApi::Cuda, spec.device)),
    };
    let Some((api, index)) = device else {
        return Ok(Box::new(CpuSheet::new(params, particles)));
    };
    if spec.cpu_passes.is_empty() {
        return device_sheet(api, index, params, particles);
    }
    let host = CpuSheet::new(params, particles.clone());
    let gpu = device_sheet(api, index, params, particles)?;
    Ok(Box::new(SheetFallback::new(gpu, host, spec.cpu_passes)))
}

#[cfg(any(feature = "opencl", feature = "cuda"))]
fn device_sheet(
    api: crate::backend::DeviceApi,
    index: Option<usize>,
    params: SheetParams,
    particles: Particles,
) -> Result<Box<dyn SheetBackend>> {
    let gpu = crate::backend::gpu::DeviceSheet::open(api, index, params, &particles)?;
    Ok(Box::new(gpu))
}

#[cfg(not(any(feature = "opencl", feature = "cuda")))]
fn device_sheet(
    api: crate::backend::DeviceApi,
    _index: Option<usize>,
    _params: SheetParams,
    _particles: Particles,
) -> Result<Box<dyn SheetBackend>> {
    Err(crate::backend::select::not_compiled(api))
}

/// True when `path` holds a sheet scenario: a RON file whose top-level value is `Sheet(...)`
/// (comments and whitespace before it are skipped). Unreadable files give false, so that the
/// regular loader reports the problem.
pub fn is_sheet_scenario(path: &Path) -> bool {
    match std::fs::read_to_string(path) {
        Ok(text) => scenario::starts_with_sheet(&text),
        Err(_) => false,
    }
}
