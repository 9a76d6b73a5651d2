//! The per-pass CPU fallback of the sheet engine: any pass of the sheet step runs on the device
//! or on the CPU reference ([`CpuSheet`]), and only the fields that are stale on the side that
//! runs it move (the hybrid engine's `backend::fallback` for the sheet's passes and fields).
//!
//! [`SheetFallback`] keeps, for every [`SheetField`], which side holds a valid copy in a
//! [`Residency`] (the bookkeeping both engines' fallbacks share). Before a pass it copies the pass's [`SheetPass::reads`] that are stale on
//! its side; after it, the pass's [`SheetPass::writes`] are valid on that side only. With no
//! CPU pass nothing ever moves.

use super::fields::{SheetField, SheetFieldSet, SheetPass, SheetPassSet};
use super::{CpuSheet, SheetBackend, SheetFieldData};
use crate::backend::residency::{Residency, Side};
use crate::error::Result;
use crate::physics::sheet::gravity::GravityStats;
use crate::physics::sheet::Particles;

/// A device backend whose chosen passes run on the CPU reference (module docs).
pub struct SheetFallback {
    device: Box<dyn SheetBackend>,
    host: CpuSheet,
    on_cpu: SheetPassSet,
    residency: Residency<SheetField>,
    /// Where the last gravity pass ran (its counters are there).
    gravity_side: Side,
}

impl SheetFallback {
    /// Wrap `device`, running the passes in `on_cpu` on `host`, a CPU reference with the same
    /// parameters and particles as the device (so the particle fields start valid on both).
    pub fn new(device: Box<dyn SheetBackend>, host: CpuSheet, on_cpu: SheetPassSet) -> Self {
        SheetFallback {
            device,
            host,
            on_cpu,
            residency: Residency::on_device_and(SheetFieldSet::of(&PARTICLES)),
            gravity_side: Side::Device,
        }
    }

    /// The passes that run on the CPU.
    pub fn cpu_passes(&self) -> SheetPassSet {
        self.on_cpu
    }

    /// Field copies made so far: (to the host, to the device).
    pub fn transfers(&self) -> (u64, u64) {
        let t = self.residency.transfers();
        (t.to_host, t.to_device)
    }

    fn side_of(&self, pass: SheetPass) -> Side {
        if self.on_cpu.contains(pass) {
            Side::Host
        } else {
            Side::Device
        }
    }

    /// Make `fields` valid on `side`, copying the stale ones.
    fn bring(&mut self, fields: SheetFieldSet, side: Side) -> Result<()> {
        let (device, host) = (&mut self.device, &mut self.host);
        self.residency.bring(fields, side, |f, to| match to {
            Side::Host => host.import_field(device.export_field(f)?),
            Side::Device => device.import_field(host.export_field(f)?),
        })
    }

    /// Run `pass` through `run` on its side, with its fields brought there first; its writes
    /// are then valid on that side only.
    fn run<R>(
        &mut self,
        pass: SheetPass,
        run: impl FnOnce(&mut dyn SheetBackend) -> Result<R>,
    ) -> Result<R> {
        let side = self.side_of(pass);
        self.bring(pass.reads(), side)?;
        let out = match side {
            Side::Device => run(self.device.as_mut())?,
            Side::Host => run(&mut self.host)?,
        };
        self.residency.written(pass.writes(), side);
        Ok(out)
    }

    /// The side holding a valid copy of every field in `fields` (the device when both do).
    fn holder(&mut self, fields: SheetFieldSet) -> Result<Side> {
        if let Some(side) = self.residency.holder(fields) {
            return Ok(side);
        }
        self.bring(fields, Side::Device)?;
        Ok(Side::Device)
    }
}

/// The particle fields (what [`SheetBackend::download`] returns).
const PARTICLES: [SheetField; 3] = [
    SheetField::Positions,
    SheetField::Velocities,
    SheetField::Properties,
];

impl SheetBackend for SheetFallback {
    fn name(&self) -> &'static str {
        self.device.name()
    }
    fn len(&self) -> usize {
        self.device.len()
    }
    fn drift(&mut self, dt: f64) -> Result<()> {
        self.run(SheetPass::Drift, |b| b.drift(dt))
    }
    fn kick(&mut self, dt: f64) -> Result<()> {
        self.run(SheetPass::Kick, |b| b.kick(dt))
    }
    fn boundary(&mut self, t: f64) -> Result<()> {
        self.run(SheetPass::Boundary, |b| b.boundary(t))
    }
    fn build_tree(&mut self) -> Result<()> {
        self.run(SheetPass::Tree, |b| b.build_tree())
    }
    fn moments(&mut self) -> Result<()> {
        self.run(SheetPass::Moments, |b| b.moments())
    }
    fn gravity(&mut self, t: f64) -> Result<()> {
        self.gravity_side = self.side_of(SheetPass::Gravity);
        self.run(SheetPass::Gravity, |b| b.gravity(t))
    }
    fn collision_search(&mut self, t: f64) -> Result<usize> {
        self.run(SheetPass::CollisionSearch, |b| b.collision_search(t))
    }
    fn resolve_collisions(&mut self, t: f64) -> Result<usize> {
        self.run(SheetPass::CollisionResolution, |b| b.resolve_collisions(t))
    }
    fn finish(&mut self) -> Result<()> {
        self.device.finish()
    }
    fn gravity_stats(&mut self) -> Result<GravityStats> {
        match self.gravity_side {
            Side::Device => self.device.gravity_stats(),
            Side::Host => self.host.gravity_stats(),
        }
    }
    fn download(&mut self) -> Result<Particles> {
        match self.holder(SheetFieldSet::of(&PARTICLES))? {
            Side::Device => self.device.download(),
            Side::Host => self.host.download(),
        }
    }
    fn export_field(&mut self, f: SheetField) -> Result<SheetFieldData> {
        match self.holder(SheetFieldSet::of(&[f]))? {
            Side::Device => self.device.export_field(f),
            Side::Host => self.host.export_field(f),
        }
    }
    fn import_field(&mut self, data: SheetFieldData) -> Result<()> {
        let f = data.field();
        self.device.import_field(data)?;
        self.residency
            .written(SheetFieldSet::of(&[f]), Side::Device);
        Ok(())
    }
}
