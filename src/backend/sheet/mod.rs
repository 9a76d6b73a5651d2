//! The sheet engine's backends, by the rule both engines follow: the pass interface
//! ([`SheetBackend`]) and the choice of a backend here, the CPU backend ([`cpu`]), the passes and
//! the fields each reads and writes ([`fields`]), the per-pass CPU fallback ([`fallback`]); the
//! device backend is [`crate::backend::gpu::DeviceSheet`] (features `opencl`, `cuda`).

pub mod cpu;
pub mod fallback;
pub mod fields;

pub use cpu::CpuSheet;
pub use fallback::SheetFallback;
pub use fields::{SheetField, SheetFieldData, SheetFieldSet, SheetPass, SheetPassSet};

use crate::backend::BackendChoice;
use crate::error::Result;
use crate::physics::sheet::{GravityStats, Particles};

/// Which backend runs a sheet scenario: `--backend`, `--cpu-passes` and `--device` (the
/// default: the CPU backend).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BackendSpec {
    pub backend: BackendChoice,
    pub cpu_passes: SheetPassSet,
    pub device: Option<usize>,
}

impl Default for BackendSpec {
    fn default() -> Self {
        BackendSpec {
            backend: BackendChoice::Cpu,
            cpu_passes: SheetPassSet::NONE,
            device: None,
        }
    }
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
