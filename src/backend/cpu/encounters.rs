//! Close encounters: the search over the candidate pairs, grouping, Bulirsch-Stoer of the groups
//! and the mergers they report.

use super::CpuHybrid;
use crate::backend::group_batch::{GroupBatch, GroupWork};
use crate::backend::PassStatus;
use crate::error::Result;
use crate::model::{Collision, EncounterStats, StepParams};
use crate::physics::bulirsch_stoer::GroupState;
use crate::physics::bulirsch_stoer::{integrate_group, BsOptions, BsStats};
use crate::physics::changeover::hill_factor_of;
use crate::physics::changeover::Changeover;
use crate::physics::encounter::{min_separation_sq_lanes, PairEnds, PairLimits, SEARCH_LANES};
use crate::physics::groups::EncounterGroups;
use crate::physics::merge::third_body_potential_change;
use crate::physics::recursion::{integrate_group_levels, LevelStats, LevelSystem, Recursion};
use crate::state::Body;
use rayon::prelude::*;

impl CpuHybrid {
    /// Confirm the candidate pairs by the Hermite minimum distance over the drift.
    pub(super) fn search_encounters(&mut self, dt: f64) {
        self.encounters.clear();
        self.tp_encounters.clear();
        let (b, rcrit) = (&self.b, &self.rcrit);
        let (pre_states, pre_index) = (&self.pre_drift, &self.pre_index);
        let pre = |k: usize| &pre_states[pre_index[k] as usize];
        let mut confirmed = std::mem::take(&mut self.confirmed);
        confirmed.clear();
        confirmed.resize(self.candidates.len(), false);
        let mut minima = std::mem::take(&mut self.candidate_d2);
        minima.clear();
        minima.resize(self.candidates.len(), 0.0);
        if self.candidates.is_empty() {
            self.confirmed = confirmed;
            self.candidate_d2 = minima;
            self.status = PassStatus::default();
            return;
        }
        // Lane groups of pairs, as many per task as make a few hundred pairs.
        const L: usize = SEARCH_LANES;
        confirmed
            .par_chunks_mut(64 * L)
            .zip(minima.par_chunks_mut(64 * L))
            .zip(self.candidates.par_chunks(64 * L))
            .for_each(|((hits, minima), pairs)| {
                // At the run-time SIMD level.
                crate::simd::dispatch(
                    #[inline(always)]
                    || {
                        let groups = hits.chunks_mut(L).zip(minima.chunks_mut(L));
                        for ((hits, minima), pairs) in groups.zip(pairs.chunks(L)) {
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
                            minima.copy_from_slice(&d2[..minima.len()]);
                        }
                    },
                )
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
        self.candidate_d2 = minima;
        self.tp_encounters.sort_unstable();
        self.status = PassStatus {
            candidates: self.candidates.len() as u64,
            encounters: (self.encounters.len() + self.tp_encounters.len()) as u64,
        };
    }

    /// The candidate pairs of the last search whose smallest separation there lies within
    /// their encounter distance of `limits`, with both bodies before the drift (the saved
    /// states) and after it (see [`crate::backend::HybridBackend::candidate_ends`]).
    pub(super) fn candidate_pair_ends(&self, limits: &PairLimits) -> Vec<PairEnds> {
        let b = &self.b;
        let after = |k: usize| [b.x[k], b.y[k], b.z[k], b.vx[k], b.vy[k], b.vz[k]];
        // A test particle has no Hill sphere of its own; a massive body's factor comes from
        // the critical radii's cache while its mass is the cached one.
        let hill = |k: usize, m0: f64| match self.is_test_particle(k) {
            true => 0.0,
            false if self.hill_mass.get(k) == Some(&b.m[k]) => self.hill_factor[k],
            false => hill_factor_of(b.m[k], m0),
        };
        let ends = |(i, j): (u32, u32)| {
            let (i, j) = (i as usize, j as usize);
            let system = self.system_of(i);
            let m0 = self.specs[system].m0;
            PairEnds {
                system,
                ids: [b.id[i], b.id[j]],
                hill_factors: [hill(i, m0), hill(j, m0)],
                start: [
                    self.pre_drift[self.pre_index[i] as usize],
                    self.pre_drift[self.pre_index[j] as usize],
                ],
                end: [after(i), after(j)],
            }
        };
        // The search's minima are bitwise those `PairEnds::encounter` finds.
        debug_assert_eq!(self.candidates.len(), self.candidate_d2.len());
        let pairs = self.candidates.iter().zip(&self.candidate_d2);
        let close = pairs.filter_map(|(&pair, &d2)| {
            let ends = ends(pair);
            let limit = ends.limit(limits);
            (d2 < limit * limit).then_some(ends)
        });
        close.collect()
    }

    /// Fill the group slots: massive groups from union-find, then one group per test particle
    /// with all its massive partners; each group's state loaded from the pre-drift states.
    fn build_groups(&mut self, stats: &mut EncounterStats) -> Result<usize> {
        let n = self.b.len();
        self.groups.build(n, &self.encounters)?;
        let (b, rcrit) = (&self.b, &self.rcrit);
        let (pre_states, pre_index) = (&self.pre_drift, &self.pre_index);
        Ok(fill_group_work(
            &self.groups,
            &self.encounters,
            &self.tp_encounters,
            &mut self.group_work,
            stats,
            self.layout.changeover,
            |k| {
                let mut body = b.get(k);
                let s = &pre_states[pre_index[k] as usize];
                body.pos = [s[0], s[1], s[2]];
                body.vel = [s[3], s[4], s[5]];
                (body, rcrit[k])
            },
        ))
    }

    /// Group the confirmed encounters (union-find, then the test particles' groups).
    pub(super) fn form_groups(&mut self, stats: &mut EncounterStats) -> Result<()> {
        self.group_count = 0;
        if self.encounters.is_empty() && self.tp_encounters.is_empty() {
            return Ok(());
        }
        self.group_count = self.build_groups(stats)?;
        Ok(())
    }

    /// Bulirsch-Stoer of every group over `dt`, groups in parallel.
    pub(super) fn integrate_groups_bs(&mut self, p: &StepParams, dt: f64, opts: &BsOptions) {
        let ng = self.group_count;
        let systems: Vec<LevelSystem> = (0..ng)
            .map(|g| {
                let spec = self.spec(self.system_of(self.group_work[g].slots[0] as usize), p);
                LevelSystem::from(&spec)
            })
            .collect();
        let rec = p.recursion;
        self.group_work[..ng]
            .par_iter_mut()
            .zip(&systems)
            .with_max_len(1)
            .for_each(|(w, &sys)| w.integrate(sys, dt, opts, rec));
    }

    /// Write the groups' results back, book the mergers with their energies, and remove the
    /// merged bodies.
    pub(super) fn apply_group_results(
        &mut self,
        p: &StepParams,
        stats: &mut EncounterStats,
    ) -> Result<Vec<Collision>> {
        let ng = std::mem::take(&mut self.group_count);
        for g in 0..ng {
            let w = &mut self.group_work[g];
            let bs = w.result.take().unwrap_or_else(|| Ok(BsStats::default()))?;
            stats.levels.add(&w.level_stats);
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
            let mut rate = [0.0; 3];
            if !w.events.is_empty() {
                for k in range.start..range.start + pulling {
                    let x = [self.b.x[k], self.b.y[k], self.b.z[k]];
                    let r2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
                    if self.removed.contains(k) || r2 == 0.0 {
                        continue;
                    }
                    let f = self.b.m[k] / (r2 * r2.sqrt());
                    for c in 0..3 {
                        rate[c] -= f * x[c];
                    }
                }
            }
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
                    sun_velocity: shift,
                    sun_velocity_rate: rate,
                    survivor: e.merged.id,
                    u: if w.test_particle { 0.0 } else { u },
                    lost,
                });
            }
        }
        self.remove_flagged();
        Ok(collisions)
    }
}

/// The groups' work in the order every backend uses: the massive groups of `groups` in their
/// order (members ascending), then one group per test particle of `tp` (pairs `(particle,
/// partner)` sorted) with its massive partners first and the particle last. Each group's state
/// is loaded with `load(slot)` (the body at its pre-drift state and its critical radius), takes
/// the run's `changeover` function, and is counted in `stats`; each massive group keeps its
/// pairs of `pairs` (the massive encounters grouped) in group-local indices for the recursive
/// sub-steps. Returns the number of groups; `work` keeps spare entries beyond it.
pub(crate) fn fill_group_work(
    groups: &EncounterGroups,
    pairs: &[(u32, u32)],
    tp: &[(u32, u32)],
    work: &mut Vec<GroupWork>,
    stats: &mut EncounterStats,
    changeover: Changeover,
    load: impl Fn(usize) -> (Body, f64),
) -> usize {
    let ng = groups.n_groups();
    let mut tp_groups = 0;
    let mut k = 0;
    while k < tp.len() {
        let particle = tp[k].0;
        while k < tp.len() && tp[k].0 == particle {
            k += 1;
        }
        tp_groups += 1;
    }
    let total = ng + tp_groups;
    if work.len() < total {
        work.resize_with(total, GroupWork::default);
    }
    for w in work.iter_mut() {
        w.pairs.clear();
    }
    for (g, w) in work.iter_mut().enumerate().take(ng) {
        w.slots.clear();
        w.slots.extend_from_slice(groups.members(g));
        w.test_particle = false;
    }
    let mut g = ng;
    let mut k = 0;
    while k < tp.len() {
        let particle = tp[k].0;
        let w = &mut work[g];
        w.slots.clear();
        while k < tp.len() && tp[k].0 == particle {
            w.slots.push(tp[k].1);
            k += 1;
        }
        w.slots.push(particle);
        w.test_particle = true;
        g += 1;
    }
    for &(i, j) in pairs {
        if let Some(g) = groups.group_of(i as usize) {
            let members = groups.members(g);
            let local = |k: u32| members.binary_search(&k).map_or(u32::MAX, |q| q as u32);
            let (a, b) = (local(i), local(j));
            work[g].pairs.push((a.min(b), a.max(b)));
        }
    }
    for w in &mut work[..total] {
        w.state.clear();
        w.state.changeover = changeover;
        w.events.clear();
        w.result = None;
        w.level_stats = LevelStats::default();
        for &k in &w.slots {
            let (body, rcrit) = load(k as usize);
            w.state.push(&body, rcrit);
        }
        stats.add_group(w.state.len());
    }
    total
}

impl GroupBatch {
    /// The union-find grouping of the massive encounters (fill it, then call
    /// [`GroupBatch::fill`]).
    pub fn groups_mut(&mut self) -> &mut EncounterGroups {
        &mut self.groups
    }

    /// The union-find grouping of the massive encounters.
    pub fn groups(&self) -> &EncounterGroups {
        &self.groups
    }

    /// Build the groups' work from [`GroupBatch::groups`] and the test particles' encounters
    /// `tp` exactly as the CPU backend does (see [`fill_group_work`]).
    pub fn fill(
        &mut self,
        pairs: &[(u32, u32)],
        tp: &[(u32, u32)],
        stats: &mut EncounterStats,
        changeover: Changeover,
        load: impl Fn(usize) -> (Body, f64),
    ) {
        let total = fill_group_work(
            &self.groups,
            pairs,
            tp,
            &mut self.work,
            stats,
            changeover,
            load,
        );
        self.work.truncate(total);
    }

    /// Load every group's state again with `load(slot)`, called for the slots of the groups in
    /// order (the stats of [`GroupBatch::fill`] stand: the sizes do not change).
    pub fn reload(&mut self, mut load: impl FnMut(usize) -> (Body, f64)) {
        for w in &mut self.work {
            w.state.clear();
            w.events.clear();
            w.result = None;
            for &k in &w.slots {
                let (body, rcrit) = load(k as usize);
                w.state.push(&body, rcrit);
            }
        }
    }

    /// No groups this substep (the union-find keeps its last labels, as the CPU's does).
    pub fn clear_work(&mut self) {
        self.work.clear();
    }

    /// Number of groups (massive ones and test particles' ones).
    pub fn len(&self) -> usize {
        self.work.len()
    }

    /// True when there is no group.
    pub fn is_empty(&self) -> bool {
        self.work.is_empty()
    }

    /// Slots of group `g`'s members, in group order.
    pub fn slots(&self, g: usize) -> &[u32] {
        &self.work[g].slots
    }

    /// True for a test particle's group (only its last member is written back).
    pub fn is_test_particle(&self, g: usize) -> bool {
        self.work[g].test_particle
    }

    /// The Bulirsch-Stoer state group `g` starts from (or, once integrated, ends at).
    pub fn state(&self, g: usize) -> &GroupState {
        &self.work[g].state
    }

    /// True when every group holds its Bulirsch-Stoer result.
    pub fn integrated(&self) -> bool {
        self.work.iter().all(|w| w.result.is_some())
    }

    /// Group `g`'s result from a device that integrated it without a collision: the members'
    /// end states `end` (six numbers each: position, velocity) and the substep counters.
    pub fn set_result(&mut self, g: usize, end: &[f64], accepted: usize, rejected: usize) {
        let w = &mut self.work[g];
        for (k, st) in end.chunks_exact(6).take(w.state.len()).enumerate() {
            w.state.pos[k] = [st[0], st[1], st[2]];
            w.state.vel[k] = [st[3], st[4], st[5]];
        }
        w.result = Some(Ok(BsStats {
            accepted,
            rejected,
            ..BsStats::default()
        }));
    }

    /// Integrate group `g` here, as the CPU backend's pass does (for the groups a device hands
    /// back: too large, a collision or a failure, or every group with recursive sub-steps on).
    pub fn integrate_on_host(
        &mut self,
        g: usize,
        sys: LevelSystem,
        dt: f64,
        opts: &BsOptions,
        rec: Recursion,
    ) {
        self.work[g].integrate(sys, dt, opts, rec);
    }

    /// True when some group merged bodies (its write-back needs the CPU's removal).
    pub fn any_collision(&self) -> bool {
        self.work.iter().any(|w| !w.events.is_empty())
    }

    /// The members' end states of every group, six numbers each (position, velocity), in the
    /// groups' order (as a device's result buffer holds them).
    pub fn end_states(&self) -> Vec<f64> {
        let mut out = Vec::new();
        for w in &self.work {
            for k in 0..w.state.len() {
                out.extend_from_slice(&w.state.pos[k]);
                out.extend_from_slice(&w.state.vel[k]);
            }
        }
        out
    }

    /// The groups' results: the Bulirsch-Stoer counters summed and the recursion's groups, or
    /// the first failure.
    pub fn results(&self, stats: &mut EncounterStats) -> Result<()> {
        for w in &self.work {
            if let Some(r) = &w.result {
                let bs = r.clone()?;
                stats.bs_substeps += bs.accepted as u64;
                stats.bs_rejected += bs.rejected as u64;
            }
            stats.levels.add(&w.level_stats);
        }
        Ok(())
    }
}

impl GroupWork {
    /// This group over `dt` in the system `sys`: by recursive sub-steps when `rec` is on (a
    /// massive group), else Bulirsch-Stoer of the whole group; the result and the collision
    /// events are kept for the write-back.
    fn integrate(&mut self, sys: LevelSystem, dt: f64, opts: &BsOptions, rec: Recursion) {
        self.level_stats = LevelStats::default();
        self.result = Some(
            if rec.is_on() && !self.test_particle && !self.pairs.is_empty() {
                integrate_group_levels(
                    sys,
                    dt,
                    rec,
                    &mut self.state,
                    &self.pairs,
                    &mut self.levels,
                    opts,
                    &mut self.events,
                    &mut self.level_stats,
                )
            } else {
                integrate_group(
                    sys.m0,
                    dt,
                    &mut self.state,
                    &mut self.workspace,
                    opts,
                    &mut self.events,
                )
            },
        );
    }
}
