//! The CPU backend: every hybrid pass on host arrays, parallel with rayon, deterministic for any
//! thread count (no order-dependent parallel float reductions).
//!
//! [`CpuBackend`] (`parts.rs`) holds the run; it cuts many systems into parts and steps each part
//! as a whole on one core. A part is a [`CpuHybrid`], the engine defined here: its bodies live in
//! systems stored back to back in blocks of equal size (see [`crate::model::Layout`]): one
//! block for the main and test-particle modes, one per simulation in multi-simulation mode.
//! Per-body passes run over [`Chunk`]s (pieces of one large system, or whole small systems), so
//! the same kernels serve one system of 10^6 bodies and many systems of three; blocks of at most
//! [`pair_forces::SMALL_MAX`] slots take the passes of `small.rs`, vectorised across systems.
//!
//! This file holds the engine's state, its layout and per-slot maps, and the [`HybridBackend`]
//! and [`FieldTransfer`] implementations, which hand each pass to its own file:
//! `critical_radii.rs`, `kick.rs` (pair pass, KickA/KickB, kick), `changed_tiles.rs` (the
//! refresh after a radius outgrew the precheck margin), `candidates.rs` (the candidate list),
//! `drift.rs` (Sun kick, pre-drift states, Kepler drift), `encounters.rs` (search,
//! grouping, Bulirsch-Stoer, mergers) and `removal.rs` (ejections, removal and compaction).

mod candidates;
mod changed_tiles;
#[cfg(test)]
mod changed_tiles_tests;
mod critical_radii;
mod drift;
mod encounters;
mod forces;
mod kick;
pub mod pair_forces;
mod parts;
mod removal;
pub use removal::{ejection_of, may_leave, removal_moves};
mod slots;
mod small;
mod substep;
#[cfg(test)]
mod tests;
mod tides;

pub use parts::CpuBackend;

use crate::backend::fields::{EncounterPairs, KickState, PreDriftStates};
use crate::backend::group_batch::{GroupBatch, GroupWork};
use crate::backend::{Field, FieldData, FieldTransfer, HybridBackend, PartStep, PassStatus};
use crate::error::{Error, Result};
use crate::model::{
    Collision, Ejection, EncounterStats, HybridSnapshot, Layout, StepParams, SystemSpec,
};
use crate::model::{StepCounts, StepEvents};
use crate::physics::bulirsch_stoer::BsOptions;
use crate::physics::encounter::{PairEnds, PairLimits};
use crate::physics::energy::energy_split;
use crate::physics::energy::EnergyParts;
use crate::physics::groups::EncounterGroups;
use crate::state::Bodies;
use pair_forces::{Hits, TileHits, LANES};
use rayon::prelude::*;
use slots::{Chunk, SlotMaps};

/// Bodies per rayon task in the O(N) passes of one large system.
const CHUNK: usize = 1024;

/// The bits of the step parameters that the per-system parameters and the perihelion look's
/// constants are made of (`SystemSpec::from` and `Grazing::new`): `m0`, `n1`, `n2`, the two
/// truncation radii and `tau`. Compared as bits, a few integer compares a pass, where comparing
/// the whole `StepParams` (forces included) as floats was 5 % of a 9-body step.
#[derive(Clone, Copy)]
struct SpecsKey([u64; 6]);

impl SpecsKey {
    fn of(p: &StepParams) -> Self {
        SpecsKey(
            [
                p.m0,
                p.n1,
                p.n2,
                p.inner_truncation,
                p.outer_truncation,
                p.tau,
            ]
            .map(f64::to_bits),
        )
    }

    /// Equal bits, without a branch per field or a call of `memcmp` (which the derived
    /// comparison of a `[u64; 6]` becomes).
    fn same(&self, other: &SpecsKey) -> bool {
        let diff = (0..6).fold(0, |d, k| d | (self.0[k] ^ other.0[k]));
        diff == 0
    }
}

/// Host-resident state of the hybrid engine.
#[derive(Default)]
pub struct CpuHybrid {
    b: Bodies,
    layout: Layout,
    /// Work pieces of the per-body passes and per-slot lookups, rebuilt when the layout changes.
    chunks: Vec<Chunk>,
    maps: SlotMaps,
    /// Parameters of every system, and the step parameters they were taken with.
    specs: Vec<SystemSpec>,
    /// Per system, the constants of the ejection pass's perihelion look (with `specs`).
    grazing: Vec<crate::physics::truncation::Grazing>,
    /// Whether every system has the same parameters (an ensemble around one kind of star), so
    /// per-slot passes may take system 0's constants for every slot.
    shared_spec: bool,
    /// The parts of the step parameters `specs` and `grazing` were taken from (see
    /// [`SpecsKey`]); `None` until a pass has seen step parameters.
    specs_from: Option<SpecsKey>,
    /// Critical radii of the current step.
    rcrit: Vec<f64>,
    /// Critical radii the stored accelerations were computed with, and their inverses.
    rcrit_kick: Vec<f64>,
    inv_rcrit_kick: Vec<f64>,
    far: [Vec<f64>; 3],
    near: [Vec<f64>; 3],
    candidate_count: Vec<u32>,
    /// Per tile of each system's block: the sources inside some receiver's precheck radius.
    hits: Vec<TileHits>,
    /// The sources each tile recorded, `hit_cap` per tile (see [`pair_forces::Hits`]).
    hit_sources: Vec<u32>,
    hit_cap: usize,
    /// Candidate pairs (i < j, slot indices) of the stored pair pass, in tile order (see
    /// `collect_candidates`).
    candidates: Vec<(u32, u32)>,
    /// The stored far and near sums, candidate list, counts and tile records are a pair pass of
    /// these bodies at their positions (set by the pass; cleared where the state comes from
    /// elsewhere: a restore without kick state, an import, a change of layout).
    pass_stored: bool,
    /// Positions and velocities of candidate bodies before the drift.
    pre_drift: Vec<[f64; 6]>,
    /// Index into `pre_drift` of every slot (only bodies of candidate pairs are saved).
    pre_index: Vec<u32>,
    /// Offsets in `pre_drift` of the states saved for every segment of the candidate list.
    segment_saved: Vec<u32>,
    /// Confirmed close-encounter pairs of the last search, and the search's flag per candidate.
    encounters: Vec<(u32, u32)>,
    confirmed: Vec<bool>,
    /// The search's smallest squared separation of every candidate pair (same order).
    candidate_d2: Vec<f64>,
    /// Offset in `candidates` of the pairs of every run of tiles.
    run_pair_offset: Vec<u32>,
    /// Scratch of the refresh after a radius outgrew the precheck margin (`changed_tiles.rs`):
    /// a flag per tile, the tiles to recompute, and the candidate list being rebuilt.
    tile_changed: Vec<bool>,
    changed_tiles: Vec<u32>,
    candidate_scratch: Vec<(u32, u32)>,
    /// Confirmed encounters of test particles (test particle, massive partner), sorted.
    tp_encounters: Vec<(u32, u32)>,
    groups: EncounterGroups,
    /// One slot per encounter group, reused from step to step; the first `group_count` hold
    /// the groups of the current substep.
    group_work: Vec<GroupWork>,
    group_count: usize,
    /// Bodies to remove after mergers.
    removed: Removals,
    /// Per-system scratch (Sun-kick shifts).
    shift: Vec<[f64; 3]>,
    /// `(m / 3 M0)^{1/3}` of every slot and the mass it was computed for.
    hill_factor: Vec<f64>,
    hill_mass: Vec<f64>,
    /// Set by the critical-radius pass: some radius exceeds 3 times the one the stored
    /// accelerations were computed with.
    radii_grew: bool,
    /// `rcrit_kick` and its inverses equal `rcrit` (cleared where `rcrit` changes otherwise).
    radii_adopted: bool,
    /// Counts the changes of the layout (removals, stopped systems, restores).
    layout_version: u64,
    /// What the next [`HybridBackend::status`] reports.
    status: PassStatus,
    drift_failure: Option<String>,
    /// Work of the non-conservative forces per system since the last `take_work` (empty: none).
    work: Vec<crate::physics::forces::Work>,
    /// The potential kick's velocity changes, kept for J2's torque (empty without J2).
    kick_dv: [Vec<f64>; 3],
    /// Every system's radiation kick constants of the running kick.
    radiation: Vec<crate::physics::forces::RadiationSystem>,
    /// Per system, the momentum, mass and number of the pulling bodies at the radiation kick;
    /// per slot, the radiation acceleration of a pulling body (`forces::kick_radiation`).
    momentum: Vec<([f64; 3], f64)>,
    pulling: Vec<u32>,
    radiation_accel: Vec<[f64; 3]>,
}

/// Bodies flagged for removal: a flag per slot (false except for the flagged slots) and the
/// list of flagged slots.
#[derive(Default)]
struct Removals {
    flags: Vec<bool>,
    slots: Vec<u32>,
}

impl Removals {
    /// Flag slot `k`.
    fn flag(&mut self, k: usize) {
        if !self.flags[k] {
            self.flags[k] = true;
            self.slots.push(k as u32);
        }
    }

    /// True when slot `k` is flagged.
    fn contains(&self, k: usize) -> bool {
        self.flags[k]
    }
}

fn norm2(x: f64, y: f64, z: f64) -> f64 {
    x * x + y * y + z * z
}

impl CpuHybrid {
    /// Counts the changes of the layout; a caller holding a copy of it refreshes the copy when
    /// this number moves.
    pub fn layout_version(&self) -> u64 {
        self.layout_version
    }

    /// The restart state, with the engine's arrays moved into it (no copy); give them back with
    /// [`CpuHybrid::take_back`] before the next pass.
    fn lend_snapshot(&mut self) -> HybridSnapshot {
        HybridSnapshot {
            bodies: std::mem::take(&mut self.b),
            layout: std::mem::take(&mut self.layout),
            rcrit: std::mem::take(&mut self.rcrit_kick),
            far: std::mem::take(&mut self.far),
            near: std::mem::take(&mut self.near),
            candidates: std::mem::take(&mut self.candidates),
        }
    }

    /// Take back the arrays lent by [`CpuHybrid::lend_snapshot`].
    fn take_back(&mut self, snap: HybridSnapshot) {
        self.b = snap.bodies;
        self.layout = snap.layout;
        self.rcrit_kick = snap.rcrit;
        self.far = snap.far;
        self.near = snap.near;
        self.candidates = snap.candidates;
    }

    /// Size the per-body arrays to the slots and rebuild the work pieces.
    fn resize(&mut self) {
        let n = self.b.len();
        self.radii_adopted = false;
        self.pass_stored = false;
        self.rcrit.resize(n, 0.0);
        self.rcrit_kick.resize(n, 0.0);
        self.inv_rcrit_kick.resize(n, 0.0);
        for c in 0..3 {
            self.far[c].resize(n, 0.0);
            self.near[c].resize(n, 0.0);
        }
        self.candidate_count.resize(n, 0);
        let tiles = self.layout.block.div_ceil(LANES) * self.layout.systems.len();
        self.hits.resize(tiles, TileHits::default());
        let most_sources = self.layout.systems.iter().map(|s| s.massive).max();
        self.hit_cap = Hits::capacity(most_sources.unwrap_or(0));
        self.hit_sources.clear();
        self.hit_sources.resize(tiles * self.hit_cap, 0);
        self.hit_sources.shrink_to_fit();
        self.pre_index.resize(n, u32::MAX);
        self.removed.flags.clear();
        self.removed.flags.resize(n, false);
        self.removed.slots.clear();
        self.shift.resize(self.layout.systems.len(), [0.0; 3]);
        self.specs_from = None;
        self.hill_mass.clear();
        self.rebuild_maps();
    }

    /// Rebuild the work pieces and the per-slot lookups after a layout change.
    /// A system's parameters come from the step parameters unless it carries its own (many
    /// systems always do), so the maps are complete before any pass has seen the step
    /// parameters whenever every system has its own.
    fn rebuild_maps(&mut self) {
        self.chunks = slots::chunks(&self.layout, CHUNK);
        let (specs, systems) = (&self.specs, &self.layout.systems);
        let known = self.specs_from.is_some();
        self.maps
            .rebuild(&self.layout, |s| match (known, systems[s].spec) {
                (true, _) => (specs[s].m0, specs[s].n1, specs[s].n2),
                (false, Some(own)) => (own.m0, own.n1, own.n2),
                (false, None) => (0.0, 0.0, 0.0),
            });
    }

    /// Take the parameters of every system for the step parameters `p` (the passes that take
    /// `p` do this themselves; a caller that fills the engine field by field does it first).
    pub fn adopt_params(&mut self, p: &StepParams) {
        self.refresh_specs(p);
    }

    /// Take the parameters of every system for the step parameters `p`.
    fn refresh_specs(&mut self, p: &StepParams) {
        if self.specs_current(p) {
            return;
        }
        self.specs.clear();
        self.grazing.clear();
        for s in 0..self.layout.systems.len() {
            let spec = self.spec(s, p);
            self.specs.push(spec);
            let g = crate::physics::truncation::Grazing::new(spec.m0, spec.inner_truncation, p.tau);
            self.grazing.push(g);
        }
        self.shared_spec = self.specs.windows(2).all(|w| w[0] == w[1]);
        self.specs_from = Some(SpecsKey::of(p));
        self.rebuild_maps();
    }

    /// Whether `specs` and `grazing` were taken from step parameters with the same bits as `p`
    /// in every field they read.
    fn specs_current(&self, p: &StepParams) -> bool {
        self.specs_from
            .is_some_and(|from| from.same(&SpecsKey::of(p)))
    }

    /// Parameters of system `s`.
    fn spec(&self, s: usize, p: &StepParams) -> SystemSpec {
        self.layout.systems[s]
            .spec
            .unwrap_or_else(|| SystemSpec::from(p))
    }

    /// The system a slot belongs to.
    fn system_of(&self, slot: usize) -> usize {
        slot / self.layout.block.max(1)
    }

    /// The sources of the pair terms in `slots` with the kick's critical radii and the run's
    /// changeover function.
    fn kick_sources(&self, slots: std::ops::Range<usize>) -> pair_forces::Sources<'_> {
        pair_forces::Sources::of(
            &self.b,
            &self.rcrit_kick,
            &self.inv_rcrit_kick,
            slots,
            self.layout.changeover,
        )
    }

    /// True when the slot holds a test particle.
    fn is_test_particle(&self, slot: usize) -> bool {
        self.maps.test_particle[slot]
    }

    /// Adopt the current critical radii for the stored accelerations.
    fn adopt_critical_radii(&mut self) {
        if self.radii_adopted {
            return;
        }
        self.radii_adopted = true;
        let adopt = |((kick, inv), rc): ((&mut [f64], &mut [f64]), &[f64])| {
            kick.copy_from_slice(rc);
            crate::simd::dispatch_sized(
                rc.len(),
                #[inline(always)]
                || {
                    for (inv, rc) in inv.iter_mut().zip(rc) {
                        *inv = 1.0 / rc;
                    }
                },
            )
        };
        // One chunk (a small system or a part of many): inline.
        if self.rcrit.len() <= CHUNK {
            return adopt((
                (&mut self.rcrit_kick, &mut self.inv_rcrit_kick),
                &self.rcrit,
            ));
        }
        self.rcrit_kick
            .par_chunks_mut(CHUNK)
            .zip(self.inv_rcrit_kick.par_chunks_mut(CHUNK))
            .zip(self.rcrit.par_chunks(CHUNK))
            .for_each(adopt);
    }
}

impl HybridBackend for CpuHybrid {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn step_parts(&mut self, step: &PartStep<'_>, counts: &mut StepCounts) -> Result<StepEvents> {
        step(self, counts)
    }

    fn layout(&self) -> &Layout {
        &self.layout
    }

    fn stop_system(&mut self, s: usize) {
        self.layout_version += 1;
        self.layout.systems[s].active = false;
        self.pass_stored = false;
        self.candidates
            .retain(|&(i, _)| (i as usize) / self.layout.block.max(1) != s);
        self.rebuild_maps();
    }

    fn critical_radii(&mut self, p: &StepParams) {
        self.compute_critical_radii(p);
    }

    fn refresh_accelerations(&mut self) {
        self.refresh_kick_accelerations();
    }

    fn accelerations(&mut self) {
        self.pair_pass(None);
    }

    fn closing_kick(&mut self, dt: f64) {
        self.pair_pass(Some(dt));
    }

    fn kick(&mut self, dt: f64) {
        self.kick_velocities(dt);
    }

    fn potential_kick(&mut self, p: &StepParams, dt: f64) {
        self.kick_potential_forces(p, dt);
    }

    fn radiation_kick(&mut self, p: &StepParams, dt: f64) {
        self.kick_radiation(p, dt);
    }

    fn tide_kick(&mut self, p: &StepParams, dt: f64) {
        self.kick_tides(p, dt);
    }

    fn take_work(&mut self) -> Vec<crate::physics::forces::Work> {
        self.take_force_work()
    }

    fn sun_kick(&mut self, p: &StepParams, dt: f64) {
        self.sun_kick_positions(p, dt);
    }

    fn save_candidate_states(&mut self) {
        self.save_pre_drift_states();
    }

    fn fused_substep(&mut self, p: &StepParams, h: f64) -> Option<Result<()>> {
        self.regular_substep(p, h)
    }

    fn drift(&mut self, p: &StepParams, dt: f64) {
        self.kepler_drift(p, dt);
    }

    fn encounter_search(&mut self, dt: f64) {
        self.search_encounters(dt);
    }

    fn status(&mut self) -> Result<PassStatus> {
        let status = std::mem::take(&mut self.status);
        match self.drift_failure.take() {
            Some(msg) => Err(Error::run(msg)),
            None => Ok(status),
        }
    }

    fn candidate_ends(&mut self, limits: &PairLimits) -> Result<Vec<PairEnds>> {
        Ok(self.candidate_pair_ends(limits))
    }

    fn group_encounters(&mut self, stats: &mut EncounterStats) -> Result<()> {
        self.form_groups(stats)
    }

    fn integrate_groups(&mut self, p: &StepParams, dt: f64, opts: &BsOptions) {
        self.integrate_groups_bs(p, dt, opts);
    }

    fn apply_groups(
        &mut self,
        p: &StepParams,
        stats: &mut EncounterStats,
    ) -> Result<Vec<Collision>> {
        self.apply_group_results(p, stats)
    }

    fn ejections(&mut self, p: &StepParams) -> Vec<Ejection> {
        self.eject_bodies(p)
    }

    fn energies(&mut self, p: &StepParams) -> Vec<EnergyParts> {
        (0..self.layout.systems.len())
            .map(|s| {
                let sys = self.layout.systems[s];
                let included = self.layout.pulling(s);
                let start = self.layout.range(s).start;
                let m0 = self.spec(s, p).m0;
                let mut e = energy_split(m0, &self.b, start, included, sys.massive);
                if p.forces.has_potential() {
                    e.potential += self.potential_force_energy(&p.forces, m0, start, included);
                }
                e
            })
            .collect()
    }

    fn visit_bodies(&mut self, s: usize, f: &mut dyn FnMut(&Bodies, std::ops::Range<usize>)) {
        f(&self.b, self.layout.range(s));
    }

    fn update_systems(
        &mut self,
        systems: &[usize],
        f: &mut dyn FnMut(usize, &mut Bodies, std::ops::Range<usize>),
    ) {
        for (k, &s) in systems.iter().enumerate() {
            let range = self.layout.range(s);
            f(k, &mut self.b, range);
        }
    }

    fn visit_snapshot(&mut self, f: &mut dyn FnMut(&[HybridSnapshot])) {
        // Lend the arrays to a snapshot value and take them back: no copy of 10^6 bodies.
        let snap = [self.lend_snapshot()];
        f(&snap);
        let [snap] = snap;
        self.take_back(snap);
    }

    fn bodies(&mut self, s: usize) -> Bodies {
        let mut out = Bodies::default();
        for k in self.layout.range(s) {
            out.push(&self.b.get(k));
        }
        out
    }

    fn snapshot(&mut self) -> HybridSnapshot {
        HybridSnapshot {
            bodies: self.b.clone(),
            layout: self.layout.clone(),
            rcrit: self.rcrit_kick.clone(),
            far: self.far.clone(),
            near: self.near.clone(),
            candidates: self.candidates.clone(),
        }
    }

    fn restore(&mut self, s: HybridSnapshot) {
        self.layout_version += 1;
        self.b = s.bodies;
        let n = self.b.len();
        // No systems: one system of every body, with the snapshot's changeover.
        self.layout = if s.layout.systems.is_empty() {
            Layout {
                changeover: s.layout.changeover,
                ..Layout::single(n, n)
            }
        } else {
            s.layout
        };
        self.resize();
        let complete = s.rcrit.len() == n && s.far.iter().chain(&s.near).all(|v| v.len() == n);
        if complete {
            self.rcrit_kick = s.rcrit;
            self.rcrit.copy_from_slice(&self.rcrit_kick);
            for (inv, rc) in self.inv_rcrit_kick.iter_mut().zip(&self.rcrit_kick) {
                *inv = 1.0 / rc;
            }
            self.radii_adopted = true;
            self.far = s.far;
            self.near = s.near;
            self.candidates = s.candidates;
            // A checkpoint's kick state is the closing pass of its step (its counts and tile
            // records are not stored: the refresh of changed tiles recomputes those it reads).
            self.pass_stored = true;
        } else {
            self.candidates.clear();
        }
    }
}

impl FieldTransfer for CpuHybrid {
    fn export_field(&mut self, f: Field) -> Result<FieldData> {
        let b = &self.b;
        Ok(match f {
            Field::Positions => FieldData::Positions([b.x.clone(), b.y.clone(), b.z.clone()]),
            Field::Velocities => FieldData::Velocities([b.vx.clone(), b.vy.clone(), b.vz.clone()]),
            Field::Masses => FieldData::Masses(b.m.clone()),
            Field::Radii => FieldData::Radii(b.r.clone()),
            Field::Spins => FieldData::Spins([b.sx.clone(), b.sy.clone(), b.sz.clone()]),
            Field::Ids => FieldData::Ids(b.id.clone()),
            Field::Layout => FieldData::Layout(self.layout.clone()),
            Field::CriticalRadii => FieldData::CriticalRadii(self.rcrit.clone()),
            Field::Kick => FieldData::Kick(KickState {
                rcrit: self.rcrit_kick.clone(),
                far: self.far.clone(),
                near: self.near.clone(),
                radii_grew: self.radii_grew,
            }),
            Field::Candidates => FieldData::Candidates(self.candidates.clone()),
            Field::PreDrift => FieldData::PreDrift(PreDriftStates {
                states: self.pre_drift.clone(),
                index: self.pre_index.clone(),
            }),
            Field::Encounters => FieldData::Encounters(EncounterPairs {
                pairs: self.encounters.clone(),
                test_particles: self.tp_encounters.clone(),
            }),
            Field::Groups => FieldData::Groups(Box::new(GroupBatch {
                groups: self.groups.clone(),
                work: self.group_work[..self.group_count].to_vec(),
            })),
        })
    }

    fn import_field(&mut self, data: FieldData) -> Result<()> {
        self.pass_stored = false;
        let b = &mut self.b;
        match data {
            FieldData::Positions([x, y, z]) => (b.x, b.y, b.z) = (x, y, z),
            FieldData::Velocities([x, y, z]) => (b.vx, b.vy, b.vz) = (x, y, z),
            FieldData::Masses(m) => b.m = m,
            FieldData::Radii(r) => b.r = r,
            FieldData::Spins([x, y, z]) => (b.sx, b.sy, b.sz) = (x, y, z),
            FieldData::Ids(id) => b.id = id,
            FieldData::Layout(layout) => {
                self.layout_version += 1;
                self.layout = layout;
                self.rebuild_maps();
            }
            FieldData::CriticalRadii(rcrit) => {
                self.rcrit = rcrit;
                self.radii_adopted = false;
            }
            FieldData::Kick(k) => {
                self.rcrit_kick = k.rcrit;
                for (inv, rc) in self.inv_rcrit_kick.iter_mut().zip(&self.rcrit_kick) {
                    *inv = 1.0 / rc;
                }
                self.far = k.far;
                self.near = k.near;
                self.radii_grew = k.radii_grew;
                self.radii_adopted = false;
            }
            FieldData::Candidates(c) => self.candidates = c,
            FieldData::PreDrift(p) => {
                self.pre_drift = p.states;
                self.pre_index = p.index;
            }
            FieldData::Encounters(e) => {
                self.encounters = e.pairs;
                self.tp_encounters = e.test_particles;
            }
            FieldData::Groups(g) => {
                let GroupBatch { groups, work } = *g;
                self.groups = groups;
                self.group_count = work.len();
                if self.group_work.len() < work.len() {
                    self.group_work.resize_with(work.len(), GroupWork::default);
                }
                for (slot, w) in self.group_work.iter_mut().zip(work) {
                    *slot = w;
                }
            }
        }
        Ok(())
    }
}
