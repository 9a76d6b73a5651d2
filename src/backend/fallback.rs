//! The per-pass CPU fallback: any pass of the hybrid step runs on the device or on the CPU
//! reference, and only the fields that are stale on the side that runs it move.
//!
//! [`Fallback`] keeps, for every [`Field`], which side holds a valid copy in a [`Residency`]
//! (the bookkeeping both engines' fallbacks share). Before a pass it copies the pass's
//! [`Pass::reads`] that are stale on its side; after it, the pass's [`Pass::writes`] are valid
//! on that side only. Queries of the whole state
//! (bodies, snapshots, the layout) are served by the device after the fields they need were
//! brought there. The CPU reference ([`CpuHybrid`]) is filled from the device the first time a
//! pass needs it, so a run with no CPU passes never holds a second copy of the state.

use crate::backend::cpu::CpuHybrid;
pub use crate::backend::residency::Transfers;
use crate::backend::residency::{Residency, Side};
use crate::backend::{
    Field, FieldSet, FieldTransfer, HybridBackend, PartStep, Pass, PassSet, PassStatus,
};
use crate::error::{Error, Result};
use crate::model::{
    Collision, Ejection, EncounterStats, HybridSnapshot, Layout, StepCounts, StepEvents, StepParams,
};
use crate::physics::bulirsch_stoer::BsOptions;
use crate::physics::encounter::{PairEnds, PairLimits};
use crate::physics::energy::EnergyParts;
use crate::physics::wisdom_holman::{ResidentPack, WhPack};
use crate::state::Bodies;

/// A backend that can stand in the device's seat: it runs the passes and moves single fields.
pub trait DeviceBackend: HybridBackend + FieldTransfer {
    /// The passes the backend can run; the others always run on the CPU reference.
    fn device_passes(&self) -> PassSet {
        PassSet::all()
    }
    /// Take the step parameters before any pass: a pass that takes none (kick, accelerations)
    /// may run on the device before one that does.
    fn adopt_params(&mut self, p: &StepParams);
}

impl DeviceBackend for CpuHybrid {
    fn adopt_params(&mut self, p: &StepParams) {
        CpuHybrid::adopt_params(self, p);
    }
}

/// Fields the whole-state queries (bodies, snapshots) read.
fn state_fields() -> FieldSet {
    FieldSet::of(&[
        Field::Positions,
        Field::Velocities,
        Field::Masses,
        Field::Radii,
        Field::Spins,
        Field::Ids,
        Field::Layout,
        Field::Kick,
        Field::Candidates,
    ])
}

/// A device backend whose chosen passes run on the CPU reference (see the module docs).
pub struct Fallback {
    device: Box<dyn DeviceBackend>,
    host: CpuHybrid,
    /// True once the host holds arrays of the state's size.
    host_sized: bool,
    on_cpu: PassSet,
    residency: Residency<Field>,
    /// The step parameters of the last pass that took them (the host's per-system parameters
    /// are refreshed from them when it is filled).
    params: Option<StepParams>,
    /// Where the last drift and encounter search ran: their status comes from there.
    drift_side: Side,
    search_side: Side,
    /// The first failure of a field copy, reported by the next status read.
    failure: Option<Error>,
}

impl Fallback {
    /// Wrap `device`, running the passes in `on_cpu`, and those the device cannot run, on the
    /// CPU reference.
    pub fn new(device: Box<dyn DeviceBackend>, on_cpu: PassSet) -> Self {
        let on_cpu = on_cpu.union(device.device_passes().complement());
        Fallback {
            device,
            host: CpuHybrid::default(),
            host_sized: false,
            on_cpu,
            residency: Residency::on_device_and(FieldSet::NONE),
            params: None,
            drift_side: Side::Device,
            search_side: Side::Device,
            failure: None,
        }
    }

    /// The passes that run on the CPU.
    pub fn cpu_passes(&self) -> PassSet {
        self.on_cpu
    }

    /// The field copies made so far.
    pub fn transfers(&self) -> Transfers {
        self.residency.transfers()
    }

    fn side_of(&self, pass: Pass) -> Side {
        match self.on_cpu.contains(pass) {
            true => Side::Host,
            false => Side::Device,
        }
    }

    /// Size the host's arrays from the device's state (once), with no field counted as valid.
    fn size_host(&mut self) {
        if self.host_sized {
            return;
        }
        self.host_sized = true;
        self.host.restore(self.device.snapshot());
        if let Some(p) = self.params {
            self.host.adopt_params(&p);
        }
    }

    /// Make `fields` valid on `side`, copying the stale ones. A failed copy is kept for the
    /// next status read.
    fn bring(&mut self, fields: FieldSet, side: Side) {
        if let Err(e) = self.try_bring(fields, side) {
            self.failure.get_or_insert(e);
        }
    }

    fn try_bring(&mut self, fields: FieldSet, side: Side) -> Result<()> {
        if side == Side::Host && !self.residency.stale(fields, side).is_empty() {
            self.size_host();
        }
        let (device, host) = (&mut self.device, &mut self.host);
        self.residency.bring(fields, side, |f, to| match to {
            Side::Host => host.import_field(device.export_field(f)?),
            Side::Device => device.import_field(host.export_field(f)?),
        })
    }

    fn backend(&mut self, side: Side) -> &mut dyn HybridBackend {
        match side {
            Side::Device => self.device.as_mut(),
            Side::Host => &mut self.host,
        }
    }

    /// Run `pass` through `run` on its side, with its fields brought there first.
    fn run<R>(&mut self, pass: Pass, run: impl FnOnce(&mut dyn HybridBackend) -> R) -> R {
        let side = self.side_of(pass);
        self.bring(pass.reads(), side);
        let out = run(self.backend(side));
        self.residency.written(pass.writes(), side);
        out
    }

    /// Remember the step parameters (see [`Fallback::params`]).
    fn saw(&mut self, p: &StepParams) {
        if self.params.as_ref() != Some(p) {
            self.params = Some(*p);
            self.device.adopt_params(p);
            if self.host_sized {
                self.host.adopt_params(p);
            }
        }
    }

    /// The device with the whole state on it (for queries).
    fn device_with_state(&mut self) -> &mut dyn DeviceBackend {
        self.bring(state_fields(), Side::Device);
        self.device.as_mut()
    }
}

impl HybridBackend for Fallback {
    fn name(&self) -> &'static str {
        self.device.name()
    }

    fn layout(&self) -> &Layout {
        match self.residency.valid(Side::Device).contains(Field::Layout) {
            true => self.device.layout(),
            false => self.host.layout(),
        }
    }

    fn stop_system(&mut self, s: usize) {
        let fields = FieldSet::of(&[Field::Layout, Field::Candidates]);
        self.bring(fields, Side::Device);
        self.device.stop_system(s);
        self.residency.written(fields, Side::Device);
    }

    fn step_parts(&mut self, step: &PartStep<'_>, counts: &mut StepCounts) -> Result<StepEvents> {
        step(self, counts)
    }

    fn critical_radii(&mut self, p: &StepParams) {
        self.saw(p);
        self.run(Pass::CriticalRadii, |b| b.critical_radii(p));
    }

    fn refresh_accelerations(&mut self) {
        self.run(Pass::RefreshAccelerations, |b| b.refresh_accelerations());
    }

    fn accelerations(&mut self) {
        self.run(Pass::Accelerations, |b| b.accelerations());
    }

    fn kick(&mut self, dt: f64) {
        self.run(Pass::Kick, |b| b.kick(dt));
    }

    fn closing_kick(&mut self, dt: f64) {
        let side = self.side_of(Pass::Accelerations);
        if side != self.side_of(Pass::Kick) {
            self.accelerations();
            self.kick(dt);
            return;
        }
        // Both on one side: that side may fuse them.
        let (a, k) = (Pass::Accelerations, Pass::Kick);
        self.bring(a.reads().union(k.reads()), side);
        self.backend(side).closing_kick(dt);
        self.residency.written(a.writes().union(k.writes()), side);
    }

    fn potential_kick(&mut self, p: &StepParams, dt: f64) {
        self.saw(p);
        self.run(Pass::PotentialKick, |b| b.potential_kick(p, dt));
    }

    fn radiation_kick(&mut self, p: &StepParams, dt: f64) {
        self.saw(p);
        self.run(Pass::RadiationKick, |b| b.radiation_kick(p, dt));
    }

    fn tide_kick(&mut self, p: &StepParams, dt: f64) {
        self.saw(p);
        self.run(Pass::TideKick, |b| b.tide_kick(p, dt));
    }

    fn take_work(&mut self) -> Vec<crate::physics::forces::Work> {
        // Each side tallies the kicks it ran (the pass runs on one side for the whole run, so
        // the other side's tally is empty and the sum keeps the bits).
        let device = self.backend(Side::Device).take_work();
        let host = self.backend(Side::Host).take_work();
        crate::physics::forces::add_work(device, host)
    }

    fn sun_kick(&mut self, p: &StepParams, dt: f64) {
        self.saw(p);
        self.run(Pass::SunKick, |b| b.sun_kick(p, dt));
    }

    fn save_candidate_states(&mut self) {
        self.run(Pass::SaveCandidates, |b| b.save_candidate_states());
    }

    fn drift(&mut self, p: &StepParams, dt: f64) {
        self.saw(p);
        self.drift_side = self.side_of(Pass::Drift);
        self.run(Pass::Drift, |b| b.drift(p, dt));
    }

    fn encounter_search(&mut self, dt: f64) {
        self.search_side = self.side_of(Pass::EncounterSearch);
        self.run(Pass::EncounterSearch, |b| b.encounter_search(dt));
    }

    fn status(&mut self) -> Result<PassStatus> {
        if let Some(e) = self.failure.take() {
            return Err(e);
        }
        let (drift, search) = (self.drift_side, self.search_side);
        let drift_status = self.backend(drift).status()?;
        match drift == search {
            true => Ok(drift_status),
            false => self.backend(search).status(),
        }
    }

    fn candidate_ends(&mut self, limits: &PairLimits) -> Result<Vec<PairEnds>> {
        // The search's side holds its candidates, their pre-drift states and the drifted ones;
        // the masses (for the Hill radii) and ids (for the record) come to it too.
        let search = self.search_side;
        self.bring(FieldSet::of(&[Field::Masses, Field::Ids]), search);
        self.backend(search).candidate_ends(limits)
    }

    fn group_encounters(&mut self, stats: &mut EncounterStats) -> Result<()> {
        self.run(Pass::Grouping, |b| b.group_encounters(stats))
    }

    fn integrate_groups(&mut self, p: &StepParams, dt: f64, opts: &BsOptions) {
        self.saw(p);
        self.run(Pass::BulirschStoer, |b| b.integrate_groups(p, dt, opts));
    }

    fn apply_groups(
        &mut self,
        p: &StepParams,
        stats: &mut EncounterStats,
    ) -> Result<Vec<Collision>> {
        self.saw(p);
        self.run(Pass::Mergers, |b| b.apply_groups(p, stats))
    }

    fn ejections(&mut self, p: &StepParams) -> Vec<Ejection> {
        self.saw(p);
        self.run(Pass::Ejections, |b| b.ejections(p))
    }

    fn energies(&mut self, p: &StepParams) -> Vec<EnergyParts> {
        self.saw(p);
        self.run(Pass::Energy, |b| b.energies(p))
    }

    fn bodies(&mut self, s: usize) -> Bodies {
        self.device_with_state().bodies(s)
    }

    fn visit_bodies(&mut self, s: usize, f: &mut dyn FnMut(&Bodies, std::ops::Range<usize>)) {
        self.device_with_state().visit_bodies(s, f)
    }

    fn snapshot(&mut self) -> HybridSnapshot {
        self.device_with_state().snapshot()
    }

    fn visit_snapshot(&mut self, f: &mut dyn FnMut(&[HybridSnapshot])) {
        self.device_with_state().visit_snapshot(f)
    }

    fn restore(&mut self, s: HybridSnapshot) {
        self.device.restore(s);
        if let Some(p) = self.params {
            self.device.adopt_params(&p);
        }
        self.residency = Residency::on_device_and(FieldSet::NONE);
        self.host_sized = false;
    }

    fn map_on_device(&self) -> bool {
        !self.on_cpu.contains(Pass::WisdomHolman) && self.device.map_on_device()
    }

    fn resident_pack(&mut self, pack: &mut WhPack) -> Result<Box<dyn ResidentPack>> {
        self.device.resident_pack(pack)
    }
}
