//! The CPU backend: every hybrid pass on host arrays, parallel with rayon, deterministic for any
//! thread count (no order-dependent parallel float reductions).
//!
//! [`CpuBackend`] (`parts.rs`) holds the run; it cuts many systems into parts and steps each part
//! as a whole on one core. A part is a [`CpuHybrid`], the engine of this file: its bodies live in
//! systems stored back to back in blocks of equal size (see [`crate::model::Layout`]): one
//! block for the main and test-particle modes, one per simulation in multi-simulation mode.
//! Per-body passes run over [`Chunk`]s (pieces of one large system, or whole small systems), so
//! the same kernels serve one system of 10^6 bodies and many systems of three; blocks of at most
//! [`SMALL_MAX`] slots take the passes of `small.rs`, vectorised across systems.

pub mod pair_forces;
mod parts;
mod slots;
mod small;

pub use parts::CpuBackend;

use crate::backend::fields::{EncounterPairs, KickState, PreDriftStates};
use crate::backend::{Field, FieldData, FieldTransfer, HybridBackend, PartStep, PassStatus};
use crate::error::{Error, Result};
use crate::hybrid::groups::EncounterGroups;
use crate::model::{
    Collision, Ejection, EncounterStats, HybridSnapshot, Layout, StepParams, SystemSpec,
};
use crate::model::{StepCounts, StepEvents};
use crate::physics::bulirsch_stoer::{
    integrate_group, BsError, BsOptions, BsStats, BsWorkspace, CollisionEvent, GroupState,
};
use crate::physics::encounter::{min_separation_sq_lanes, SEARCH_LANES};
use crate::physics::energy::energy_split;
use crate::physics::energy::EnergyParts;
use crate::physics::merge::third_body_potential_change;
use crate::physics::{changeover::hill_factor_of, kepler};
use crate::state::Bodies;
use pair_forces::{
    Accelerations, Hits, Kick, Sources, TileHits, LANES, PRECHECK_FACTOR, SMALL_MAX,
};
use rayon::prelude::*;
use slots::{Chunk, SharedSlice, SlotMaps};

/// Bodies per rayon task in the O(N) passes of one large system.
const CHUNK: usize = 1024;

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
    specs_from: Option<StepParams>,
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
    /// Candidate pairs (i < j, slot indices) from the last full acceleration pass, sorted.
    candidates: Vec<(u32, u32)>,
    /// Positions and velocities of candidate bodies before the drift.
    pre_drift: Vec<[f64; 6]>,
    /// Index into `pre_drift` of every slot (only bodies of candidate pairs are saved).
    pre_index: Vec<u32>,
    /// Offsets in `pre_drift` of the states saved for every segment of the candidate list.
    segment_saved: Vec<u32>,
    /// Confirmed close-encounter pairs of the last search, and the search's flag per candidate.
    encounters: Vec<(u32, u32)>,
    confirmed: Vec<bool>,
    /// Offset in `candidates` of the pairs of every run of tiles.
    run_pair_offset: Vec<u32>,
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

/// Scratch of one encounter group's Bulirsch-Stoer integration.
#[derive(Default, Clone, Debug)]
struct GroupWork {
    state: GroupState,
    workspace: BsWorkspace,
    events: Vec<CollisionEvent>,
    result: Option<std::result::Result<BsStats, BsError>>,
    /// Slots of the members, in group order.
    slots: Vec<u32>,
    /// Only the last member (a test particle) is written back.
    test_particle: bool,
}

/// The encounter groups of one substep with their Bulirsch-Stoer states and results: the host
/// copy of [`Field::Groups`].
#[derive(Default, Clone, Debug)]
pub struct GroupBatch {
    groups: EncounterGroups,
    work: Vec<GroupWork>,
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
        if self.specs_from == Some(*p) {
            return;
        }
        self.specs.clear();
        for s in 0..self.layout.systems.len() {
            let spec = self.spec(s, p);
            self.specs.push(spec);
        }
        self.specs_from = Some(*p);
        self.rebuild_maps();
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
        self.rcrit_kick
            .par_chunks_mut(CHUNK)
            .zip(self.inv_rcrit_kick.par_chunks_mut(CHUNK))
            .zip(self.rcrit.par_chunks(CHUNK))
            .for_each(|((kick, inv), rc)| {
                kick.copy_from_slice(rc);
                for (inv, rc) in inv.iter_mut().zip(rc) {
                    *inv = 1.0 / rc;
                }
            });
    }

    /// Full pair pass of system `s` (tiles in parallel when `parallel`), with the kick
    /// `v += kick_dt a` fused in when given.
    fn system_accelerations(&mut self, s: usize, parallel: bool, kick_dt: Option<f64>) {
        let sys = self.layout.systems[s];
        let (tiles, cap) = (self.layout.block.div_ceil(LANES), self.hit_cap);
        let r = self.layout.range(s);
        let Bodies {
            x,
            y,
            z,
            m,
            vx,
            vy,
            vz,
            ..
        } = &mut self.b;
        let src = Sources {
            x: &x[r.clone()],
            y: &y[r.clone()],
            z: &z[r.clone()],
            m: &m[r.clone()],
            rcrit: &self.rcrit_kick[r.clone()],
            inv_rcrit: &self.inv_rcrit_kick[r.clone()],
        };
        let [fx, fy, fz] = &mut self.far;
        let [nx, ny, nz] = &mut self.near;
        let out = Accelerations {
            far: [&mut fx[r.clone()], &mut fy[r.clone()], &mut fz[r.clone()]],
            near: [&mut nx[r.clone()], &mut ny[r.clone()], &mut nz[r.clone()]],
            candidates: &mut self.candidate_count[r.clone()],
            hits: Hits {
                tiles: &mut self.hits[s * tiles..(s + 1) * tiles],
                sources: &mut self.hit_sources[s * tiles * cap..(s + 1) * tiles * cap],
                cap,
            },
            kick: kick_dt.map(|dt| Kick {
                dt,
                v: [&mut vx[r.clone()], &mut vy[r.clone()], &mut vz[r.clone()]],
            }),
        };
        pair_forces::accelerations(src, sys.massive, out, parallel);
    }

    /// The full pair pass (the closing kick's accelerations with the prechecker), with the kick
    /// `v += kick_dt a` when given: fused into the pass for one system of bodies that pull
    /// only through it, after it otherwise.
    fn pair_pass(&mut self, kick_dt: Option<f64>) {
        self.adopt_critical_radii();
        let systems = self.layout.systems.len();
        // Semi-active small bodies add their pull after the pass; many systems kick after it.
        let fused = kick_dt.filter(|_| systems == 1 && !self.layout.semi_active);
        if systems == 1 {
            let sys = self.layout.systems[0];
            let used = if sys.active {
                sys.len.div_ceil(LANES)
            } else {
                0
            };
            for h in &mut self.hits[used..] {
                h.owned = 0;
            }
            if sys.active {
                self.system_accelerations(0, true, fused);
            }
        } else {
            let tiles = self.layout.block.div_ceil(LANES);
            let block = self.layout.block;
            let b = &self.b;
            let layout = &self.layout;
            let (rk, ik) = (&self.rcrit_kick, &self.inv_rcrit_kick);
            // Whole systems per task, about `CHUNK / 4` slots each.
            let per_task = (CHUNK / 4 / block).max(1);
            let (slots, task_tiles) = (per_task * block, per_task * tiles);
            let hits = Hits {
                tiles: &mut self.hits,
                sources: &mut self.hit_sources,
                cap: self.hit_cap,
            };
            let far = self.far.each_mut().map(Vec::as_mut_slice);
            let near = self.near.each_mut().map(Vec::as_mut_slice);
            let cand = &mut self.candidate_count;
            Accelerations::par_pieces(far, near, cand, hits, slots, task_tiles)
                .enumerate()
                .for_each(|(t, out)| {
                    let first = t * per_task;
                    if block <= SMALL_MAX {
                        // Small systems: vectorised across systems.
                        let systems = &layout.systems[first..first + out.far[0].len() / block];
                        let r = first * block..(first + systems.len()) * block;
                        let src = Sources::of(b, rk, ik, r);
                        pair_forces::small_systems(src, block, systems, out);
                        return;
                    }
                    let Accelerations {
                        far: [fx, fy, fz],
                        near: [nx, ny, nz],
                        candidates: cand,
                        mut hits,
                        ..
                    } = out;
                    for k in 0..fx.len() / block {
                        let s = t * per_task + k;
                        let sys = layout.systems[s];
                        let used = if sys.active {
                            sys.len.div_ceil(LANES)
                        } else {
                            0
                        };
                        for h in &mut hits.tiles[k * tiles + used..(k + 1) * tiles] {
                            h.owned = 0;
                        }
                        if !sys.active {
                            continue;
                        }
                        let n = sys.len;
                        let lo = k * block;
                        let src = Sources::of(b, rk, ik, layout.range(s));
                        let out = Accelerations {
                            far: [
                                &mut fx[lo..lo + n],
                                &mut fy[lo..lo + n],
                                &mut fz[lo..lo + n],
                            ],
                            near: [
                                &mut nx[lo..lo + n],
                                &mut ny[lo..lo + n],
                                &mut nz[lo..lo + n],
                            ],
                            candidates: &mut cand[lo..lo + n],
                            hits: hits.range(k * tiles..(k + 1) * tiles),
                            kick: None,
                        };
                        pair_forces::accelerations(src, sys.massive, out, false);
                    }
                });
        }
        if self.layout.semi_active {
            self.small_body_pull();
        }
        self.collect_candidates();
        if let (Some(dt), None) = (kick_dt, fused) {
            self.kick(dt);
        }
    }

    /// Semi-active mode: add the small bodies' pull to the massive bodies of every system.
    fn small_body_pull(&mut self) {
        for s in 0..self.layout.systems.len() {
            let sys = self.layout.systems[s];
            if !sys.active || sys.massive == sys.len {
                continue;
            }
            let r = self.layout.range(s);
            let src = Sources::of(&self.b, &self.rcrit_kick, &self.inv_rcrit_kick, r.clone());
            let pulls: Vec<_> = (0..sys.massive)
                .into_par_iter()
                .map(|i| pair_forces::small_body_pull(src, sys.massive, i))
                .collect();
            for (i, (far, near, count)) in pulls.into_iter().enumerate() {
                let k = r.start + i;
                for c in 0..3 {
                    self.far[c][k] += far[c];
                    self.near[c][k] += near[c];
                }
                self.candidate_count[k] += count;
            }
        }
    }

    /// Call `emit` with every candidate pair (lower slot first) that tile `tile` of system `s`
    /// owns: a pair of massive bodies is seen from both tiles and kept by the lower receiver; a
    /// test particle's pairs are seen only from its own tile.
    fn tile_pairs(&self, s: usize, tile: usize, mut emit: impl FnMut(u32, u32)) {
        let sys = self.layout.systems[s];
        if !sys.active {
            return;
        }
        let r = self.layout.range(s);
        let src = Sources::of(&self.b, &self.rcrit_kick, &self.inv_rcrit_kick, r.clone());
        let g = s * self.layout.block.div_ceil(LANES) + tile;
        let hits = &self.hits[g];
        let recorded = &self.hit_sources[g * self.hit_cap..g * self.hit_cap + hits.len];
        for i in tile * LANES..((tile + 1) * LANES).min(sys.len) {
            if self.candidate_count[r.start + i] == 0 {
                continue;
            }
            let mut push = |j: usize| {
                if pair_forces::owns_pair(sys.massive, i, j)
                    && j != i
                    && pair_forces::is_candidate(src, i, j)
                {
                    let (a, b) = (i.min(j), i.max(j));
                    emit((r.start + a) as u32, (r.start + b) as u32);
                }
            };
            if hits.overflow {
                (0..sys.massive).for_each(&mut push);
            } else {
                recorded.iter().for_each(|&j| push(j as usize));
            }
        }
    }

    /// The candidate pairs from the sources each tile recorded, in tile order (deterministic):
    /// the pair pass counted the pairs every tile owns, so runs of tiles sum their counts in
    /// parallel, and after a prefix sum over the runs each run writes its pairs at its offset.
    fn collect_candidates(&mut self) {
        const RUN: usize = 256;
        let tiles = self.layout.block.div_ceil(LANES);
        let (layout, hits) = (&self.layout, &self.hits);
        // The pairs tile g owns (the pair pass left 0 in stopped systems' tiles and in those
        // past a system's last body).
        let owned = |g: usize| hits[g].owned;
        let total_tiles = tiles * layout.systems.len();
        let mut offsets = std::mem::take(&mut self.run_pair_offset);
        (0..total_tiles.div_ceil(RUN))
            .into_par_iter()
            .map(|r| {
                (r * RUN..((r + 1) * RUN).min(total_tiles))
                    .map(owned)
                    .sum::<u32>()
            })
            .collect_into_vec(&mut offsets);
        let mut total = 0usize;
        for o in offsets.iter_mut() {
            let n = *o as usize;
            *o = total as u32;
            total += n;
        }
        let mut pairs = std::mem::take(&mut self.candidates);
        pairs.clear();
        pairs.resize(total, (0, 0));
        let out = SharedSlice::new(&mut pairs);
        let this = &*self;
        offsets.par_iter().enumerate().for_each(|(r, &first)| {
            let mut next = first as usize;
            for g in r * RUN..((r + 1) * RUN).min(total_tiles) {
                let n = owned(g) as usize;
                if n == 0 {
                    continue;
                }
                // SAFETY: every tile writes its own offset range.
                let slot = unsafe { out.range(next, n) };
                let mut k = 0;
                this.tile_pairs(g / tiles, g % tiles, |a, b| {
                    slot[k] = (a, b);
                    k += 1;
                });
                debug_assert_eq!(k, n, "tile {g}: owned pairs miscounted");
                next += n;
            }
        });
        self.candidates = pairs;
        self.run_pair_offset = offsets;
    }

    /// KickA for passive test particles, in parallel over the candidate list: the near term of
    /// every test particle with candidates, summed over its candidate partners in ascending order
    /// with the new critical radii (the terms the pair pass summed with the old ones).
    fn refresh_test_particles(&mut self) {
        let (b, maps) = (&self.b, &self.maps);
        let (old, old_inv, new) = (&self.rcrit_kick, &self.inv_rcrit_kick, &self.rcrit);
        let src = Sources::of(b, old, old_inv, 0..b.len());
        let pairs = &self.candidates;
        let near = {
            let [x, y, z] = &mut self.near;
            [
                SharedSlice::new(x),
                SharedSlice::new(y),
                SharedSlice::new(z),
            ]
        };
        // Stopped systems and empty slots have no candidate pairs.
        for_each_candidate_test_particle(pairs, &maps.test_particle, |i, run| {
            let mut a = [0.0; 3];
            for &(j, _) in &pairs[run] {
                let j = j as usize;
                let inv = (1.0 / new[i]).min(1.0 / new[j]);
                let p = pair_forces::pair_acceleration_with(src, i, j, inv);
                for c in 0..3 {
                    a[c] += p[c];
                }
            }
            for c in 0..3 {
                // SAFETY: each test particle has one run of pairs, handled by one task.
                unsafe { near[c].range(i, 1)[0] = a[c] };
            }
        });
    }

    /// Load the members of an encounter group into its Bulirsch-Stoer state (pre-drift).
    fn load_group(&self, w: &mut GroupWork) {
        w.state.clear();
        w.events.clear();
        for &k in &w.slots {
            let k = k as usize;
            let mut body = self.b.get(k);
            let s = &self.pre_drift[self.pre_index[k] as usize];
            body.pos = [s[0], s[1], s[2]];
            body.vel = [s[3], s[4], s[5]];
            w.state.push(&body, self.rcrit[k]);
        }
    }

    /// Fill the group slots: massive groups from union-find, then one group per test particle
    /// with all its massive partners.
    fn build_groups(&mut self, stats: &mut EncounterStats) -> Result<usize> {
        let n = self.b.len();
        self.groups.build(n, &self.encounters)?;
        let ng = self.groups.n_groups();
        let mut tp_groups = 0;
        let mut k = 0;
        while k < self.tp_encounters.len() {
            let tp = self.tp_encounters[k].0;
            while k < self.tp_encounters.len() && self.tp_encounters[k].0 == tp {
                k += 1;
            }
            tp_groups += 1;
        }
        let total = ng + tp_groups;
        if self.group_work.len() < total {
            self.group_work.resize_with(total, GroupWork::default);
        }
        for g in 0..ng {
            let w = &mut self.group_work[g];
            w.slots.clear();
            w.slots.extend_from_slice(self.groups.members(g));
            w.test_particle = false;
        }
        let mut g = ng;
        let mut k = 0;
        while k < self.tp_encounters.len() {
            let tp = self.tp_encounters[k].0;
            let w = &mut self.group_work[g];
            w.slots.clear();
            while k < self.tp_encounters.len() && self.tp_encounters[k].0 == tp {
                w.slots.push(self.tp_encounters[k].1);
                k += 1;
            }
            w.slots.push(tp);
            w.test_particle = true;
            g += 1;
        }
        for g in 0..total {
            let mut w = std::mem::take(&mut self.group_work[g]);
            self.load_group(&mut w);
            stats.add_group(w.state.len());
            self.group_work[g] = w;
        }
        Ok(total)
    }

    /// Remove the flagged bodies. As in GENGA, a removed body's slot takes the last body of its
    /// system; massive bodies stay before test particles, so a removed massive body's slot takes
    /// the system's last massive body, whose slot takes the system's last body. The work is
    /// proportional to the removed bodies, not to the slots. (The stored accelerations are
    /// recomputed by the caller.)
    fn remove_flagged(&mut self) {
        if self.removed.slots.is_empty() {
            return;
        }
        self.layout_version += 1;
        let mut slots = std::mem::take(&mut self.removed.slots);
        slots.sort_unstable();
        let block = self.layout.block.max(1);
        let mut last = None;
        for &k in &slots {
            let s = k as usize / block;
            if last != Some(s) {
                last = Some(s);
                self.remove_from_system(s);
            }
        }
        slots.clear();
        self.removed.slots = slots;
        self.candidates.clear();
        self.rebuild_maps();
    }

    /// [`CpuHybrid::remove_flagged`] for system `s`; clears its flags.
    fn remove_from_system(&mut self, s: usize) {
        let start = s * self.layout.block;
        let sys = self.layout.systems[s];
        let (mut len, mut massive) = (sys.len, sys.massive);
        let mut k = 0;
        while k < len {
            if !self.removed.contains(start + k) {
                k += 1;
                continue;
            }
            // Slot k takes the last body of its kind, and a massive body's place the last body;
            // the moved bodies' flags move with them, so slot k is looked at again.
            if k < massive {
                massive -= 1;
                self.move_slot(start + massive, start + k);
                len -= 1;
                self.move_slot(start + len, start + massive);
            } else {
                len -= 1;
                self.move_slot(start + len, start + k);
            }
        }
        for k in len..sys.len {
            self.removed.flags[start + k] = false;
        }
        let sys = &mut self.layout.systems[s];
        sys.len = len;
        sys.massive = massive;
    }

    /// Copy the body in slot `from`, its critical radius and removal flag, into slot `to`.
    fn move_slot(&mut self, from: usize, to: usize) {
        if from == to {
            return;
        }
        let body = self.b.get(from);
        self.b.set(to, &body);
        self.rcrit[to] = self.rcrit[from];
        self.removed.flags[to] = self.removed.flags[from];
        self.radii_adopted = false;
    }
}

/// Candidate pairs per task in the passes over the candidate list.
const CANDIDATE_SEGMENT: usize = 512;

/// The test particles whose runs of pairs start in segment `seg` of the candidate list
/// `pairs`, each with the range of its pairs. A test particle's pairs are adjacent in the list
/// (its tile emits them together, in ascending partner order) and have it as the second slot.
fn test_particle_runs<'a>(
    pairs: &'a [(u32, u32)],
    test_particle: &'a [bool],
    seg: usize,
) -> impl Iterator<Item = (usize, std::ops::Range<usize>)> + 'a {
    let lo = seg * CANDIDATE_SEGMENT;
    let hi = (lo + CANDIDATE_SEGMENT).min(pairs.len());
    (lo..hi)
        .filter(move |&k| {
            let tp = pairs[k].1;
            test_particle[tp as usize] && (k == 0 || pairs[k - 1].1 != tp)
        })
        .map(move |k| {
            let tp = pairs[k].1;
            let end = k + pairs[k..].iter().take_while(|p| p.1 == tp).count();
            (tp as usize, k..end)
        })
}

/// Calls `f(tp, pairs)`, in parallel, for every test particle in the candidate list `pairs` with
/// the range of its pairs (see [`test_particle_runs`]).
fn for_each_candidate_test_particle(
    pairs: &[(u32, u32)],
    test_particle: &[bool],
    f: impl Fn(usize, std::ops::Range<usize>) + Sync,
) {
    let segments = pairs.len().div_ceil(CANDIDATE_SEGMENT);
    (0..segments).into_par_iter().for_each(|seg| {
        test_particle_runs(pairs, test_particle, seg).for_each(|(tp, run)| f(tp, run))
    });
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
        self.candidates
            .retain(|&(i, _)| (i as usize) / self.layout.block.max(1) != s);
        self.rebuild_maps();
    }

    fn critical_radii(&mut self, p: &StepParams) {
        self.refresh_specs(p);
        // The Hill-factor cache of one system covers its massive bodies (they come first, so a
        // test-particle run needs almost none of it); that of many systems every slot.
        let hill_end = match self.layout.systems.as_slice() {
            [one] => one.massive,
            _ => self.b.len(),
        };
        self.hill_mass.resize(hill_end, f64::NAN);
        self.hill_factor.resize(hill_end, 0.0);
        let (b, layout, specs, maps) = (&self.b, &self.layout, &self.specs, &self.maps);
        let out = SharedSlice::new(&mut self.rcrit);
        let kick = SharedSlice::new(&mut self.rcrit_kick);
        let inv_kick = SharedSlice::new(&mut self.inv_rcrit_kick);
        let hill_mass = SharedSlice::new(&mut self.hill_mass);
        let hill_factor = SharedSlice::new(&mut self.hill_factor);
        let single = layout.systems.len() == 1;
        // Also tell whether a radius grew beyond the precheck margin of the stored accelerations,
        // and adopt the new radii for the kicks in the same sweep (the opening kick's refresh
        // needs only the new ones).
        self.radii_adopted = true;
        self.radii_grew = self
            .chunks
            .par_iter()
            .map(|c| {
                let end = c.start + c.len;
                let hill = c.start.min(hill_end)..end.min(hill_end);
                // SAFETY: chunks are disjoint slot ranges.
                let (rc, old, inv, hm, hf) = unsafe {
                    (
                        out.range(c.start, c.len),
                        kick.range(c.start, c.len),
                        inv_kick.range(c.start, c.len),
                        hill_mass.range(hill.start, hill.len()),
                        hill_factor.range(hill.start, hill.len()),
                    )
                };
                // The cube root of the Hill factor changes only when the mass does (a merger).
                let mut refresh_hill = |k: usize, i: usize, m0: f64| {
                    if hm[k] != b.m[i] {
                        hm[k] = b.m[i];
                        hf[k] = hill_factor_of(b.m[i], m0);
                    }
                };
                if single {
                    (0..hill.len()).for_each(|k| refresh_hill(k, c.start + k, specs[0].m0));
                } else {
                    let (live_mu, tps) = (&maps.live_mu, &maps.test_particle);
                    for k in 0..c.len {
                        let i = c.start + k;
                        if live_mu[i] > 0.0 && !tps[i] {
                            refresh_hill(k, i, live_mu[i]);
                        }
                    }
                }
                // Then every slot in branch-free (vectorised) loops: rcrit = max(n1 R_H, n2 tau v)
                // (eq. 6); a test particle has no Hill sphere of its own; empty slots keep their
                // radii. One system reads its factors once, many systems per slot.
                let mut grew = false;
                let n = c.len;
                let (rc, old, inv) = (&mut rc[..n], &mut old[..n], &mut inv[..n]);
                let mut adopt = |k: usize, new: f64, live: bool| {
                    grew |= live & (new > PRECHECK_FACTOR * old[k]);
                    rc[k] = if live { new } else { rc[k] };
                    old[k] = rc[k];
                    inv[k] = if live { 1.0 / new } else { inv[k] };
                };
                let r = c.start..end;
                let (x, y, z) = (&b.x[r.clone()], &b.y[r.clone()], &b.z[r.clone()]);
                let (vx, vy, vz) = (&b.vx[r.clone()], &b.vy[r.clone()], &b.vz[r.clone()]);
                let (x, y, z, vx, vy, vz) =
                    (&x[..n], &y[..n], &z[..n], &vx[..n], &vy[..n], &vz[..n]);
                let speed = |k: usize| norm2(vx[k], vy[k], vz[k]).sqrt();
                let dist = |k: usize| norm2(x[k], y[k], z[k]).sqrt();
                if single {
                    let (n1, v_factor) = (specs[0].n1, specs[0].n2 * p.tau);
                    // Massive slots are below `hill_end`, so `hill` covers them.
                    let hf = &hf[..hill.len()];
                    for k in 0..hf.len() {
                        adopt(k, (n1 * dist(k) * hf[k]).max(v_factor * speed(k)), true);
                    }
                    for k in hf.len()..n {
                        adopt(k, v_factor * speed(k), true);
                    }
                } else {
                    // The cache covers every slot here.
                    let (n1s, n2s) = (&maps.n1[r.clone()], &maps.n2[r.clone()]);
                    let (live_mu, tps) = (&maps.live_mu[r.clone()], &maps.test_particle[r]);
                    let (n1s, n2s, live_mu, tps, hf) =
                        (&n1s[..n], &n2s[..n], &live_mu[..n], &tps[..n], &hf[..n]);
                    for k in 0..n {
                        let v_part = n2s[k] * p.tau * speed(k);
                        let hill_part = (n1s[k] * dist(k) * hf[k]).max(v_part);
                        let new = if tps[k] { v_part } else { hill_part };
                        adopt(k, new, live_mu[k] > 0.0);
                    }
                }
                grew
            })
            .reduce(|| false, |a, b| a || b);
    }

    fn refresh_accelerations(&mut self) {
        // A pair outside the precheck radius has K = 1 for any critical radius up to three times
        // the old one; beyond that the stored far terms may be wrong: recompute everything.
        if self.radii_grew {
            self.accelerations();
            return;
        }
        if self.candidates.is_empty() {
            // KickB: every stored pair term has K = 1 and stays valid; adopt the new radii.
            self.adopt_critical_radii();
            return;
        }
        // KickA: recompute only the candidate pairs with the new critical radii.
        let semi = self.layout.semi_active;
        if !semi {
            self.refresh_test_particles();
        }
        self.adopt_critical_radii();
        let passive_tp = |this: &Self, j: u32| !semi && this.is_test_particle(j as usize);
        for &(i, j) in &self.candidates {
            if passive_tp(self, j) {
                continue;
            }
            for k in [i, j] {
                for c in 0..3 {
                    self.near[c][k as usize] = 0.0;
                }
            }
        }
        let src = Sources::of(
            &self.b,
            &self.rcrit_kick,
            &self.inv_rcrit_kick,
            0..self.b.len(),
        );
        for &(i, j) in &self.candidates {
            if passive_tp(self, j) {
                continue;
            }
            let (i, j) = (i as usize, j as usize);
            // Test particles pull only when semi-active (pairs are stored lower slot first, so
            // a test particle is always `j`).
            let j_pulls = !self.is_test_particle(j) || semi;
            let i_pulls = !self.is_test_particle(i) || semi;
            if j_pulls {
                let a = pair_forces::pair_acceleration(src, i, j);
                for c in 0..3 {
                    self.near[c][i] += a[c];
                }
            }
            if i_pulls {
                let a = pair_forces::pair_acceleration(src, j, i);
                for c in 0..3 {
                    self.near[c][j] += a[c];
                }
            }
        }
    }

    fn accelerations(&mut self) {
        self.pair_pass(None);
    }

    fn closing_kick(&mut self, dt: f64) {
        self.pair_pass(Some(dt));
    }

    fn kick(&mut self, dt: f64) {
        let single = self.layout.systems.len() == 1;
        let (far, near, live) = (&self.far, &self.near, &self.maps.live_mu);
        let v = [
            SharedSlice::new(&mut self.b.vx),
            SharedSlice::new(&mut self.b.vy),
            SharedSlice::new(&mut self.b.vz),
        ];
        self.chunks.par_iter().for_each(|ch| {
            for c in 0..3 {
                // SAFETY: chunks are disjoint slot ranges.
                let v = unsafe { v[c].range(ch.start, ch.len) };
                let (f, n) = (&far[c][ch.start..], &near[c][ch.start..]);
                if single {
                    // One system: every slot of a chunk is occupied.
                    for (l, v) in v.iter_mut().enumerate() {
                        *v += dt * (f[l] + n[l]);
                    }
                    continue;
                }
                let live = &live[ch.start..ch.start + ch.len];
                for (l, v) in v.iter_mut().enumerate() {
                    let dv = dt * (f[l] + n[l]);
                    *v += if live[l] > 0.0 { dv } else { 0.0 };
                }
            }
        });
    }

    fn sun_kick(&mut self, p: &StepParams, dt: f64) {
        self.refresh_specs(p);
        let (layout, specs) = (&self.layout, &self.specs);
        let pulling = |sys: &crate::model::System| {
            if layout.semi_active {
                sys.len
            } else {
                sys.massive
            }
        };
        let shift = |s: usize, mom: [f64; 3]| {
            let f = dt / specs[s].m0;
            [f * mom[0], f * mom[1], f * mom[2]]
        };
        if layout.systems.len() == 1 {
            let d = shift(0, self.b.momentum_range(0, pulling(&layout.systems[0])));
            let x = [
                SharedSlice::new(&mut self.b.x),
                SharedSlice::new(&mut self.b.y),
                SharedSlice::new(&mut self.b.z),
            ];
            self.chunks.par_iter().for_each(|ch| {
                for c in 0..3 {
                    // SAFETY: chunks are disjoint slot ranges; every slot of them is occupied.
                    let x = unsafe { x[c].range(ch.start, ch.len) };
                    x.iter_mut().for_each(|x| *x += d[c]);
                }
            });
            return;
        }
        // Many systems: each task takes whole systems, their momenta and their shifts.
        let block = layout.block;
        let per_task = (CHUNK / block).max(1);
        let crate::state::Bodies {
            x,
            y,
            z,
            vx,
            vy,
            vz,
            m,
            ..
        } = &mut self.b;
        let (vx, vy, vz, m) = (&*vx, &*vy, &*vz, &*m);
        let (live_len, pulls) = (&self.maps.live_len, &self.maps.pulling);
        x.par_chunks_mut(per_task * block)
            .zip(y.par_chunks_mut(per_task * block))
            .zip(z.par_chunks_mut(per_task * block))
            .enumerate()
            .for_each(|(t, ((x, y), z))| {
                let first = t * per_task;
                let n = x.len() / block;
                if block <= SMALL_MAX {
                    // Small systems: vectorised across systems.
                    let slots = first * block..(first + n) * block;
                    let lanes = small::SunKickLanes {
                        live_len: &live_len[first..first + n],
                        pulling: &pulls[first..first + n],
                        specs: &specs[first..first + n],
                    };
                    let (m, v) = (
                        &m[slots.clone()],
                        [&vx[slots.clone()], &vy[slots.clone()], &vz[slots]],
                    );
                    small::with_block!(block, small::sun_kick(0, n, dt, &lanes, m, v, [x, y, z]));
                    return;
                }
                for k in 0..x.len() / block {
                    let s = t * per_task + k;
                    let len = live_len[s] as usize;
                    if len == 0 {
                        continue;
                    }
                    let start = s * block;
                    let mut mom = [0.0; 3];
                    for i in start..start + pulls[s] as usize {
                        mom[0] += m[i] * vx[i];
                        mom[1] += m[i] * vy[i];
                        mom[2] += m[i] * vz[i];
                    }
                    let d = shift(s, mom);
                    let r = k * block..k * block + len;
                    x[r.clone()].iter_mut().for_each(|x| *x += d[0]);
                    y[r.clone()].iter_mut().for_each(|y| *y += d[1]);
                    z[r].iter_mut().for_each(|z| *z += d[2]);
                }
            });
    }

    fn save_candidate_states(&mut self) {
        if self.candidates.is_empty() {
            return;
        }
        // Every body of a candidate pair: the massive bodies of each system with candidate
        // pairs (they are few, and every pair has one), and the test particles of the list.
        // Systems and test particles are counted per segment of the list where their run of
        // pairs starts (the list is in system order), then written at the segments' offsets.
        let (layout, pairs, tp) = (&self.layout, &self.candidates, &self.maps.test_particle);
        let block = layout.block.max(1);
        let system_at = |k: usize| pairs[k].0 as usize / block;
        let systems_from = |seg: usize| {
            let lo = seg * CANDIDATE_SEGMENT;
            (lo..(lo + CANDIDATE_SEGMENT).min(pairs.len()))
                .filter(move |&k| k == 0 || system_at(k) != system_at(k - 1))
                .map(system_at)
        };
        let mut offsets = std::mem::take(&mut self.segment_saved);
        (0..pairs.len().div_ceil(CANDIDATE_SEGMENT))
            .into_par_iter()
            .map(|seg| {
                let massive: usize = systems_from(seg).map(|s| layout.systems[s].massive).sum();
                (massive + test_particle_runs(pairs, tp, seg).count()) as u32
            })
            .collect_into_vec(&mut offsets);
        let mut total = 0u32;
        for o in offsets.iter_mut() {
            let n = *o;
            *o = total;
            total += n;
        }
        self.pre_drift.resize(total as usize, [0.0; 6]);
        let b = &self.b;
        let state = |i: usize| [b.x[i], b.y[i], b.z[i], b.vx[i], b.vy[i], b.vz[i]];
        let states = SharedSlice::new(&mut self.pre_drift);
        let index = SharedSlice::new(&mut self.pre_index);
        offsets.par_iter().enumerate().for_each(|(seg, &first)| {
            let massive =
                systems_from(seg).flat_map(|s| s * block..s * block + layout.systems[s].massive);
            let particles = test_particle_runs(pairs, tp, seg).map(|(i, _)| i);
            for (next, i) in (first..).zip(massive.chain(particles)) {
                // SAFETY: every system and test particle has one run of pairs, so each slot
                // and offset is written by one task.
                unsafe {
                    states.range(next as usize, 1)[0] = state(i);
                    index.range(i, 1)[0] = next;
                }
            }
        });
        self.segment_saved = offsets;
    }

    fn drift(&mut self, p: &StepParams, dt: f64) {
        self.refresh_specs(p);
        let single = (self.layout.systems.len() == 1).then(|| self.specs[0].m0);
        let b = &mut self.b;
        let (live, inv_live) = (&self.maps.live_mu, &self.maps.live_inv_mu);
        let arrays = [
            SharedSlice::new(&mut b.x),
            SharedSlice::new(&mut b.y),
            SharedSlice::new(&mut b.z),
            SharedSlice::new(&mut b.vx),
            SharedSlice::new(&mut b.vy),
            SharedSlice::new(&mut b.vz),
        ];
        let failure = self
            .chunks
            .par_iter()
            .map(|ch| {
                // SAFETY: chunks are disjoint slot ranges; each array is a different vector.
                let state = std::array::from_fn(|a| unsafe { arrays[a].range(ch.start, ch.len) });
                let result = match single {
                    // One system: one central mass, every slot of a chunk occupied.
                    Some(mu) => {
                        let [x, y, z, vx, vy, vz] = state;
                        kepler::drift_batch(mu, dt, x, y, z, vx, vy, vz)
                    }
                    None => {
                        let r = ch.start..ch.start + ch.len;
                        kepler::drift_batch_per_body(&live[r.clone()], &inv_live[r], dt, state)
                    }
                };
                result.err().map(|(k, _)| ch.start + k)
            })
            .min()
            .flatten();
        self.drift_failure = failure.map(|k| {
            format!(
                "Kepler drift failed for body {} (m = {:e}, x = [{:e}, {:e}, {:e}]): the f and g \
                 and universal-variable solvers did not converge",
                self.b.id[k], self.b.m[k], self.b.x[k], self.b.y[k], self.b.z[k]
            )
        });
    }

    fn encounter_search(&mut self, dt: f64) {
        self.encounters.clear();
        self.tp_encounters.clear();
        let (b, rcrit) = (&self.b, &self.rcrit);
        let (pre_states, pre_index) = (&self.pre_drift, &self.pre_index);
        let pre = |k: usize| &pre_states[pre_index[k] as usize];
        let mut confirmed = std::mem::take(&mut self.confirmed);
        confirmed.clear();
        confirmed.resize(self.candidates.len(), false);
        // Lane groups of pairs, as many per task as make a few hundred pairs.
        const L: usize = SEARCH_LANES;
        confirmed
            .par_chunks_mut(64 * L)
            .zip(self.candidates.par_chunks(64 * L))
            .for_each(|(hits, pairs)| {
                for (hits, pairs) in hits.chunks_mut(L).zip(pairs.chunks(L)) {
                    // A short group repeats its last pair.
                    let pair = |l: usize| pairs[l.min(pairs.len() - 1)];
                    let (mut dr0, mut dv0) = ([[0.0; L]; 3], [[0.0; L]; 3]);
                    let (mut dr1, mut dv1) = ([[0.0; L]; 3], [[0.0; L]; 3]);
                    let mut rc = [0.0; L];
                    for l in 0..L {
                        let (i, j) = pair(l);
                        let (i, j) = (i as usize, j as usize);
                        let (s, t) = (pre(i), pre(j));
                        for c in 0..3 {
                            dr0[c][l] = t[c] - s[c];
                            dv0[c][l] = t[3 + c] - s[3 + c];
                        }
                        dr1[0][l] = b.x[j] - b.x[i];
                        dr1[1][l] = b.y[j] - b.y[i];
                        dr1[2][l] = b.z[j] - b.z[i];
                        dv1[0][l] = b.vx[j] - b.vx[i];
                        dv1[1][l] = b.vy[j] - b.vy[i];
                        dv1[2][l] = b.vz[j] - b.vz[i];
                        rc[l] = rcrit[i].max(rcrit[j]);
                    }
                    let d2 = min_separation_sq_lanes(dr0, dv0, dr1, dv1, dt);
                    for (l, hit) in hits.iter_mut().enumerate() {
                        *hit = d2[l] < rc[l] * rc[l];
                    }
                }
            });
        for (&(i, j), &hit) in self.candidates.iter().zip(&confirmed) {
            let (i, j) = (i as usize, j as usize);
            if hit {
                // Passive test particles get groups of their own in which only they move.
                // Semi-active ones pull on their partners, so they join the ordinary groups
                // (momentum and angular momentum stay conserved; a merger keeps their mass).
                if self.is_test_particle(j) && !self.layout.semi_active {
                    self.tp_encounters.push((j as u32, i as u32));
                } else {
                    self.encounters.push((i as u32, j as u32));
                }
            }
        }
        self.confirmed = confirmed;
        self.tp_encounters.sort_unstable();
        self.status = PassStatus {
            candidates: self.candidates.len() as u64,
            encounters: (self.encounters.len() + self.tp_encounters.len()) as u64,
        };
    }

    fn status(&mut self) -> Result<PassStatus> {
        let status = std::mem::take(&mut self.status);
        match self.drift_failure.take() {
            Some(msg) => Err(Error::run(msg)),
            None => Ok(status),
        }
    }

    fn group_encounters(&mut self, stats: &mut EncounterStats) -> Result<()> {
        self.group_count = 0;
        if self.encounters.is_empty() && self.tp_encounters.is_empty() {
            return Ok(());
        }
        self.group_count = self.build_groups(stats)?;
        Ok(())
    }

    fn integrate_groups(&mut self, p: &StepParams, dt: f64, opts: &BsOptions) {
        let ng = self.group_count;
        let m0s: Vec<f64> = (0..ng)
            .map(|g| {
                self.spec(self.system_of(self.group_work[g].slots[0] as usize), p)
                    .m0
            })
            .collect();
        self.group_work[..ng]
            .par_iter_mut()
            .zip(&m0s)
            .with_max_len(1)
            .for_each(|(w, &m0)| {
                w.result = Some(integrate_group(
                    m0,
                    dt,
                    &mut w.state,
                    &mut w.workspace,
                    opts,
                    &mut w.events,
                ));
            });
    }

    fn apply_groups(
        &mut self,
        p: &StepParams,
        stats: &mut EncounterStats,
    ) -> Result<Vec<Collision>> {
        let ng = std::mem::take(&mut self.group_count);
        for g in 0..ng {
            let w = &mut self.group_work[g];
            let bs = w.result.take().unwrap_or_else(|| Ok(BsStats::default()))?;
            stats.bs_substeps += bs.accepted as u64;
            stats.bs_rejected += bs.rejected as u64;
            let first = if w.test_particle {
                w.slots.len() - 1
            } else {
                0
            };
            for slot in first..w.slots.len() {
                let k = w.slots[slot] as usize;
                let st = &w.state;
                if w.test_particle && !st.alive[slot] {
                    // A test particle that hit a massive body is removed; the body is unchanged.
                    self.removed.flag(k);
                    continue;
                }
                [self.b.x[k], self.b.y[k], self.b.z[k]] = st.pos[slot];
                [self.b.vx[k], self.b.vy[k], self.b.vz[k]] = st.vel[slot];
                [self.b.sx[k], self.b.sy[k], self.b.sz[k]] = st.spin[slot];
                self.b.m[k] = st.m[slot];
                self.b.r[k] = st.r[slot];
                if self.rcrit[k] != st.rcrit[slot] {
                    self.rcrit[k] = st.rcrit[slot];
                    self.radii_adopted = false;
                }
                if !st.alive[slot] {
                    self.removed.flag(k);
                }
            }
        }
        // Energy of each merger with the bodies outside its group, then the report.
        let mut collisions = Vec::new();
        for g in 0..ng {
            let w = &self.group_work[g];
            let s = self.system_of(w.slots[0] as usize);
            let range = self.layout.range(s);
            let spec = self.spec(s, p);
            let sys = self.layout.systems[s];
            let pulling = if self.layout.semi_active {
                sys.len
            } else {
                sys.massive
            };
            let mom = self.b.momentum_range(range.start, range.start + pulling);
            let shift = [mom[0] / spec.m0, mom[1] / spec.m0, mom[2] / spec.m0];
            let tp_slot = w.slots.len() - 1;
            for e in &w.events {
                // A test-particle group integrates the particle's massive partners only as its
                // field: their mergers there are not real (their own group decides).
                if w.test_particle && !e.slots.contains(&tp_slot) {
                    continue;
                }
                stats.collisions += 1;
                let mut u = e.u;
                if !w.test_particle {
                    for k in range.clone() {
                        let outside = self.groups.group_of(k) != Some(g);
                        if outside && !self.removed.contains(k) && !self.is_test_particle(k) {
                            let xk = [self.b.x[k], self.b.y[k], self.b.z[k]];
                            u += third_body_potential_change(
                                &e.at_merge[0],
                                &e.at_merge[1],
                                &e.merged,
                                self.b.m[k],
                                xk,
                            );
                        }
                    }
                }
                let mut bodies = e.bodies;
                for body in bodies.iter_mut() {
                    for c in 0..3 {
                        body.vel[c] += shift[c];
                    }
                }
                // A semi-active small body carries energy: it leaves the system like an ejected
                // one (its state at contact), and the driver books what it took into U.
                let lost = (w.test_particle && self.layout.semi_active).then(|| {
                    let k = if e.slots[0] == tp_slot { 0 } else { 1 };
                    e.at_merge[k]
                });
                collisions.push(Collision {
                    system: s,
                    time_offset: e.t_before,
                    bodies,
                    survivor: e.merged.id,
                    u: if w.test_particle { 0.0 } else { u },
                    lost,
                });
            }
        }
        self.remove_flagged();
        Ok(collisions)
    }

    fn ejections(&mut self, p: &StepParams) -> Vec<Ejection> {
        self.refresh_specs(p);
        let mut out = Vec::new();
        // A parallel look first: in almost every step nothing leaves. One system takes a
        // vectorised loop without early exit (every slot of its chunks is occupied).
        let (b, maps, specs) = (&self.b, &self.maps, &self.specs);
        let single = self.layout.systems.len() == 1;
        let outside = self.chunks.par_iter().any(|c| {
            let range = c.start..c.start + c.len;
            if single {
                let sp = &specs[0];
                let (inner2, outer2) = (sp.inner_truncation.powi(2), sp.outer_truncation.powi(2));
                return range.fold(false, |out, i| {
                    let r2 = norm2(b.x[i], b.y[i], b.z[i]);
                    out | (r2 > outer2) | (r2 < inner2)
                });
            }
            range.into_iter().any(|i| {
                let sp = &specs[maps.system[i] as usize];
                let r2 = norm2(b.x[i], b.y[i], b.z[i]);
                maps.live_mu[i] > 0.0
                    && (r2 > sp.outer_truncation * sp.outer_truncation
                        || r2 < sp.inner_truncation * sp.inner_truncation)
            })
        });
        if !outside && self.specs_from == Some(*p) {
            return out;
        }
        for s in 0..self.layout.systems.len() {
            let sys = self.layout.systems[s];
            if !sys.active {
                continue;
            }
            let spec = self.spec(s, p);
            let (inner2, outer2) = (spec.inner_truncation.powi(2), spec.outer_truncation.powi(2));
            let range = self.layout.range(s);
            let b = &self.b;
            let pulling = if self.layout.semi_active {
                sys.len
            } else {
                sys.massive
            };
            let mom = b.momentum_range(range.start, range.start + pulling);
            let shift = [mom[0] / spec.m0, mom[1] / spec.m0, mom[2] / spec.m0];
            for i in range.clone() {
                let r2 = norm2(b.x[i], b.y[i], b.z[i]);
                let case = if r2 > outer2 {
                    -3
                } else if r2 < inner2 {
                    -2
                } else {
                    continue;
                };
                let democratic = b.get(i);
                let mut body = democratic;
                for c in 0..3 {
                    body.vel[c] += shift[c];
                }
                let massive = i - range.start < sys.massive;
                out.push(Ejection {
                    system: s,
                    body,
                    democratic,
                    massive,
                    case,
                });
                self.removed.flag(i);
            }
        }
        self.remove_flagged();
        out
    }

    fn energies(&mut self, p: &StepParams) -> Vec<EnergyParts> {
        (0..self.layout.systems.len())
            .map(|s| {
                let sys = self.layout.systems[s];
                let included = if self.layout.semi_active {
                    sys.len
                } else {
                    sys.massive
                };
                let start = self.layout.range(s).start;
                energy_split(self.spec(s, p).m0, &self.b, start, included, sys.massive)
            })
            .collect()
    }

    fn visit_bodies(&mut self, s: usize, f: &mut dyn FnMut(&Bodies, std::ops::Range<usize>)) {
        f(&self.b, self.layout.range(s));
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
        self.layout = if s.layout.systems.is_empty() {
            Layout::single(n, n)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::System;
    use crate::state::Body;

    /// Two systems in blocks of 6: (3 massive + 3 test particles) and (4 massive); body ids
    /// are 10 s + slot.
    fn engine() -> CpuHybrid {
        let mut b = Bodies::default();
        for s in 0..2 {
            for k in 0..6 {
                b.push(&Body {
                    id: 10 * s + k,
                    m: if s == 0 && k >= 3 { 0.0 } else { 1e-6 },
                    r: 1e-5,
                    pos: [1.0 + k as f64, s as f64, 0.0],
                    vel: [0.0, 1.0, 0.0],
                    spin: [0.0; 3],
                });
            }
        }
        let sys = |len, massive| System {
            len,
            massive,
            spec: None,
            active: true,
        };
        let mut e = CpuHybrid::default();
        e.restore(HybridSnapshot {
            bodies: b,
            layout: Layout {
                block: 6,
                systems: vec![sys(6, 3), sys(4, 4)],
                semi_active: false,
            },
            ..Default::default()
        });
        e
    }

    fn ids(e: &CpuHybrid, s: usize) -> Vec<u64> {
        e.layout.range(s).map(|k| e.b.id[k]).collect()
    }

    #[test]
    fn a_removed_body_takes_the_last_body_of_its_system_and_massive_bodies_stay_first() {
        let mut e = engine();
        // A test particle: the system's last body takes its slot.
        e.removed.flag(3);
        e.remove_flagged();
        assert_eq!(ids(&e, 0), [0, 1, 2, 5, 4]);
        assert_eq!(
            (e.layout.systems[0].len, e.layout.systems[0].massive),
            (5, 3)
        );
        // A massive body: the last massive body takes its slot, the last body that one's.
        e.removed.flag(0);
        e.remove_flagged();
        assert_eq!(ids(&e, 0), [2, 1, 4, 5]);
        assert_eq!(
            (e.layout.systems[0].len, e.layout.systems[0].massive),
            (4, 2)
        );
        // Several at once, the moved-in bodies flagged too, in both systems.
        e.removed.flag(0);
        e.removed.flag(3);
        e.removed.flag(6 + 1);
        e.removed.flag(6 + 3);
        e.remove_flagged();
        assert_eq!(ids(&e, 0), [1, 4]);
        assert_eq!(
            (e.layout.systems[0].len, e.layout.systems[0].massive),
            (2, 1)
        );
        assert_eq!(ids(&e, 1), [10, 12]);
        assert_eq!(
            (e.layout.systems[1].len, e.layout.systems[1].massive),
            (2, 2)
        );
        assert!(e.removed.flags.iter().all(|&f| !f) && e.removed.slots.is_empty());
        // Every body except the last of a system.
        e.removed.flag(0);
        e.removed.flag(1);
        e.remove_flagged();
        assert_eq!(ids(&e, 0), Vec::<u64>::new());
        assert_eq!(ids(&e, 1), [10, 12]);
    }
}
