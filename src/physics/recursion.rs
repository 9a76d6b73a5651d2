//! Recursive symplectic sub-steps for close-encounter groups (GENGA's `Symplectic recursion
//! levels` and `Symplectic recursion sub steps`; Grimm et al. 2022, GENGA II; GENGA's
//! documentation, "Higher level changeover functions").
//!
//! The plain hybrid step gives a close-encounter group's whole interval `h` to Bulirsch-Stoer,
//! which integrates the pair forces weighted by `1 - K(r, rcrit_0)`. In a dense disk the
//! critical radii (eq. 6, dominated by `n2 tau v`) chain thousands of bodies into one group, and
//! Bulirsch-Stoer of such a group costs more than the rest of the step together. Here the split
//! is applied again inside the group. Level `L` (1, 2, ...) divides its parent's interval into
//! `sub_steps` steps of `h_L = h_{L-1} / sub_steps`, with critical radii
//! `rcrit_L = min(max(n1 R_H, n2 h_L v), rcrit_{L-1})` computed once from the state at the
//! level's start. Each sub-step is a leapfrog of the parent's remainder:
//! - kick `h_L / 2` with the pair weight `W_L = K(r, rcrit_L) prod_{l<L} (1 - K(r, rcrit_l))`
//!   over the parent level's encounter pairs (a pair that was not in an encounter there has
//!   `1 - K = 0` throughout, so it has nothing left for this level);
//! - Kepler drift `h_L` of the level's bodies around the central mass;
//! - encounter search among those pairs with `rcrit_L` (the minimum separation over the sub-step,
//!   as at the top level); the pairs found are grouped (union-find) and each group redoes the
//!   sub-step from its start at level `L + 1`, or, at the deepest level, with Bulirsch-Stoer of
//!   the remaining weight `prod_{l<=L} (1 - K(r, rcrit_l))`;
//! - kick `h_L / 2` again.
//!
//! The weights sum to one, `K_0 + (1 - K_0) K_1 + ... + prod_l (1 - K_l) = 1`, so every pair
//! force is integrated once; GENGA's `accS` uses the same products. Mergers happen only in the
//! deepest level's Bulirsch-Stoer (colliding bodies are closer than every level's critical radius).
//!
//! Differences from GENGA, on purpose: each level's radii are computed once at its start (GENGA
//! recomputes them every sub-step, which changes the Hamiltonian inside the level), and are
//! capped by the parent's radii, so a level's encounters are always a subset of its parent's.

use crate::physics::bulirsch_stoer::{
    integrate_group, BsError, BsOptions, BsStats, BsWorkspace, CollisionEvent, GroupState,
};
use crate::physics::changeover::{critical_radius, Changeover};
use crate::physics::encounter::min_separation_sq;
use crate::physics::kepler::kepler_drift;
use crate::physics::merge::third_body_potential_change;
use serde::{Deserialize, Serialize};

/// Most levels (GENGA's `def_SLevelsMax` is 3 by default; more are allowed here).
pub const MAX_LEVELS: usize = 8;
/// Most sub-steps per level.
pub const MAX_SUB_STEPS: u32 = 1000;

/// The recursion settings: scenario field `recursion: (levels: 2, sub_steps: 10)`, GENGA keys
/// `Symplectic recursion levels` and `Symplectic recursion sub steps`. One level is the plain
/// hybrid step (Bulirsch-Stoer of whole groups), GENGA's default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recursion {
    /// Levels, the top level included (1: off).
    #[serde(default = "one")]
    pub levels: u32,
    /// Sub-steps per level below the top.
    #[serde(default = "two")]
    pub sub_steps: u32,
}

fn one() -> u32 {
    1
}

fn two() -> u32 {
    2
}

impl Default for Recursion {
    fn default() -> Self {
        Recursion::OFF
    }
}

impl Recursion {
    /// The plain hybrid step.
    pub const OFF: Recursion = Recursion {
        levels: 1,
        sub_steps: 2,
    };

    /// True when groups are integrated by recursive sub-steps.
    pub fn is_on(&self) -> bool {
        self.levels > 1
    }

    /// The first setting out of range, as (field, expectation).
    pub fn check(&self) -> Option<(&'static str, String)> {
        if self.levels < 1 || self.levels as usize > MAX_LEVELS {
            return Some((
                "levels",
                format!("expected 1 to {MAX_LEVELS} levels, got {}", self.levels),
            ));
        }
        if self.is_on() && !(2..=MAX_SUB_STEPS).contains(&self.sub_steps) {
            return Some((
                "sub_steps",
                format!(
                    "expected 2 to {MAX_SUB_STEPS} sub-steps per level, got {}",
                    self.sub_steps
                ),
            ));
        }
        None
    }

    /// The resume fingerprint's part: empty when off, so older checkpoints still resume.
    pub fn fingerprint(&self) -> String {
        if self.is_on() {
            format!(" recursion={}x{}", self.levels, self.sub_steps)
        } else {
            String::new()
        }
    }
}

/// A group's system: central mass and critical-radius factors (eq. 6).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LevelSystem {
    pub m0: f64,
    pub n1: f64,
    pub n2: f64,
}

/// Groups formed below the top level: per level, how many and the largest (level 0 is the top
/// level's grouping, counted by [`crate::model::EncounterStats`] itself).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LevelStats {
    pub groups: [u64; MAX_LEVELS],
    pub largest: [u64; MAX_LEVELS],
}

impl LevelStats {
    /// Count one group of `size` bodies formed at `level`.
    pub fn add_group(&mut self, level: usize, size: usize) {
        self.groups[level] += 1;
        self.largest[level] = self.largest[level].max(size as u64);
    }

    /// Add another set of counters.
    pub fn add(&mut self, o: &LevelStats) {
        for l in 0..MAX_LEVELS {
            self.groups[l] += o.groups[l];
            self.largest[l] = self.largest[l].max(o.largest[l]);
        }
    }

    /// Number of levels that formed groups below the top (the deepest level used).
    pub fn deepest(&self) -> usize {
        (0..MAX_LEVELS)
            .rev()
            .find(|&l| self.groups[l] > 0)
            .unwrap_or(0)
    }
}

/// Scratch of one level: pre-sub-step states, the encounter pairs found and their groups.
#[derive(Debug, Clone, Default)]
struct LevelScratch {
    pre_pos: Vec<[f64; 3]>,
    pre_vel: Vec<[f64; 3]>,
    close: Vec<(u32, u32)>,
    parent: Vec<u32>,
    /// Members of the groups, grouped and ascending (`(root, member)`).
    touched: Vec<(u32, u32)>,
    members: Vec<u32>,
    member_start: Vec<u32>,
    pair_start: Vec<u32>,
}

/// Scratch memory of [`integrate_group_levels`]; one per thread, grown to the largest group.
#[derive(Debug, Clone, Default)]
pub struct LevelWorkspace {
    levels: Vec<LevelScratch>,
    /// Critical radii per level, level-major: `radii[l * n + k]`.
    radii: Vec<f64>,
    sub: GroupState,
    sub_events: Vec<CollisionEvent>,
    bs: BsWorkspace,
}

/// What one call integrates: the group, its system, the settings and the outputs.
struct Run<'a> {
    g: &'a mut GroupState,
    sys: LevelSystem,
    rec: Recursion,
    opts: &'a BsOptions,
    events: &'a mut Vec<CollisionEvent>,
    stats: BsStats,
    levels: &'a mut LevelStats,
}

/// Integrate the close-encounter group `g` (pre-drift states, critical radii of the top level in
/// `g.rcrit`) over `h` by recursive sub-steps (module docs), starting from its top-level
/// encounter pairs `pairs` (group-local indices, lower first). Mergers are appended to `events`
/// (times from the start of `h`), the levels' groups counted in `levels`; the Bulirsch-Stoer
/// counters of the deepest level are returned.
#[allow(clippy::too_many_arguments)]
pub fn integrate_group_levels(
    sys: LevelSystem,
    h: f64,
    rec: Recursion,
    g: &mut GroupState,
    pairs: &[(u32, u32)],
    ws: &mut LevelWorkspace,
    opts: &BsOptions,
    events: &mut Vec<CollisionEvent>,
    levels: &mut LevelStats,
) -> Result<BsStats, BsError> {
    let n = g.len();
    let depth = rec.levels as usize;
    if ws.levels.len() < depth {
        ws.levels.resize_with(depth, LevelScratch::default);
    }
    for l in &mut ws.levels[..depth] {
        l.pre_pos.resize(n, [0.0; 3]);
        l.pre_vel.resize(n, [0.0; 3]);
        l.parent.resize(n, 0);
    }
    ws.radii.clear();
    ws.radii.extend_from_slice(&g.rcrit);
    ws.radii.resize(depth * n, 0.0);
    let mut run = Run {
        g,
        sys,
        rec,
        opts,
        events,
        stats: BsStats::default(),
        levels,
    };
    run.level(ws, 1, 0.0, h, pairs)?;
    Ok(run.stats)
}

/// `K(r, rcrit_level) prod_{l<level} (1 - K(r, rcrit_l))` for the pair `(i, j)` of a group of
/// `n` bodies with per-level radii `radii` (level-major).
#[inline]
fn level_weight(
    changeover: Changeover,
    radii: &[f64],
    n: usize,
    level: usize,
    r: f64,
    i: usize,
    j: usize,
) -> f64 {
    let rc = |l: usize| radii[l * n + i].max(radii[l * n + j]);
    let mut w = changeover.k(r, rc(level));
    for l in 0..level {
        if w == 0.0 {
            break;
        }
        w *= 1.0 - changeover.k(r, rc(l));
    }
    w
}

impl Run<'_> {
    /// The sub-steps of `level` over `[t0, t0 + h]` for the bodies of `pairs` (the parent
    /// level's encounter pairs of one of its groups).
    fn level(
        &mut self,
        ws: &mut LevelWorkspace,
        level: usize,
        t0: f64,
        h: f64,
        pairs: &[(u32, u32)],
    ) -> Result<(), BsError> {
        let steps = self.rec.sub_steps;
        let hl = h / steps as f64;
        let mut scratch = std::mem::take(&mut ws.levels[level]);
        // The level's bodies: both ends of every pair (ascending, once each).
        scratch.members.clear();
        scratch
            .members
            .extend(pairs.iter().flat_map(|&(i, j)| [i, j]));
        scratch.members.sort_unstable();
        scratch.members.dedup();
        let bodies = std::mem::take(&mut scratch.members);
        self.level_radii(ws, level, hl, &bodies);
        let mut result = Ok(());
        for s in 0..steps {
            let t = t0 + s as f64 * hl;
            self.kick(&ws.radii, level, pairs, 0.5 * hl);
            for &k in &bodies {
                let k = k as usize;
                scratch.pre_pos[k] = self.g.pos[k];
                scratch.pre_vel[k] = self.g.vel[k];
            }
            if let Err(e) = self.drift(&bodies, hl, t) {
                result = Err(e);
                break;
            }
            self.search(&ws.radii, level, pairs, hl, &mut scratch);
            if !scratch.close.is_empty() {
                group_pairs(&mut scratch);
                if let Err(e) = self.deeper(ws, level, t, hl, &mut scratch) {
                    result = Err(e);
                    break;
                }
            }
            self.kick(&ws.radii, level, pairs, 0.5 * hl);
        }
        scratch.members = bodies;
        ws.levels[level] = scratch;
        result
    }

    /// The critical radii of `level` (step `hl`) for `bodies`, capped by the parent level's.
    fn level_radii(&self, ws: &mut LevelWorkspace, level: usize, hl: f64, bodies: &[u32]) {
        let (g, n, sys) = (&*self.g, self.g.len(), self.sys);
        for &k in bodies {
            let k = k as usize;
            let (x, v) = (g.pos[k], g.vel[k]);
            let r = (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt();
            let speed = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
            let rc = critical_radius(sys.n1, sys.n2, hl, g.m[k], sys.m0, r, speed);
            ws.radii[level * n + k] = rc.min(ws.radii[(level - 1) * n + k]);
        }
    }

    /// The level's kick `dt` over `pairs` with the weight [`level_weight`], in pair order.
    fn kick(&mut self, radii: &[f64], level: usize, pairs: &[(u32, u32)], dt: f64) {
        let g = &mut *self.g;
        let n = g.len();
        for &(i, j) in pairs {
            let (i, j) = (i as usize, j as usize);
            if !g.alive[i] || !g.alive[j] {
                continue;
            }
            let d = [
                g.pos[j][0] - g.pos[i][0],
                g.pos[j][1] - g.pos[i][1],
                g.pos[j][2] - g.pos[i][2],
            ];
            let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            let r = r2.sqrt();
            let w = level_weight(g.changeover, radii, n, level, r, i, j);
            if w == 0.0 {
                continue;
            }
            let f = dt * w / (r2 * r);
            let (fi, fj) = (g.m[j] * f, g.m[i] * f);
            for c in 0..3 {
                g.vel[i][c] += fi * d[c];
                g.vel[j][c] -= fj * d[c];
            }
        }
    }

    /// Kepler drift of the alive `bodies` over `hl` (the sub-step starting at offset `t`).
    fn drift(&mut self, bodies: &[u32], hl: f64, t: f64) -> Result<(), BsError> {
        let (g, m0) = (&mut *self.g, self.sys.m0);
        for &k in bodies {
            let k = k as usize;
            if !g.alive[k] {
                continue;
            }
            if kepler_drift(m0, hl, &mut g.pos[k], &mut g.vel[k]).is_err() {
                return Err(BsError::NonFinite {
                    ids: vec![g.id[k]],
                    t,
                });
            }
        }
        Ok(())
    }

    /// The pairs of `pairs` whose minimum separation over the sub-step (from the saved states
    /// to the drifted ones) falls below the level's critical radius, into `scratch.close`.
    fn search(
        &self,
        radii: &[f64],
        level: usize,
        pairs: &[(u32, u32)],
        hl: f64,
        scratch: &mut LevelScratch,
    ) {
        let (g, n) = (&*self.g, self.g.len());
        scratch.close.clear();
        for &(i, j) in pairs {
            let (a, b) = (i as usize, j as usize);
            if !g.alive[a] || !g.alive[b] {
                continue;
            }
            let diff = |p: &[[f64; 3]], q: &[[f64; 3]]| {
                [q[b][0] - p[a][0], q[b][1] - p[a][1], q[b][2] - p[a][2]]
            };
            let dr0 = diff(&scratch.pre_pos, &scratch.pre_pos);
            let dv0 = diff(&scratch.pre_vel, &scratch.pre_vel);
            let dr1 = diff(&g.pos, &g.pos);
            let dv1 = diff(&g.vel, &g.vel);
            let rc = radii[level * n + a].max(radii[level * n + b]);
            if min_separation_sq(dr0, dv0, dr1, dv1, hl).0 < rc * rc {
                scratch.close.push((i, j));
            }
        }
    }

    /// Every group of the level's close pairs redoes the sub-step `[t, t + hl]` from its start
    /// one level deeper, or with Bulirsch-Stoer at the deepest level.
    fn deeper(
        &mut self,
        ws: &mut LevelWorkspace,
        level: usize,
        t: f64,
        hl: f64,
        scratch: &mut LevelScratch,
    ) -> Result<(), BsError> {
        let groups = scratch.member_start.len() - 1;
        for c in 0..groups {
            let members = &scratch.touched
                [scratch.member_start[c] as usize..scratch.member_start[c + 1] as usize];
            self.levels.add_group(level, members.len());
            for &(_, k) in members {
                let k = k as usize;
                self.g.pos[k] = scratch.pre_pos[k];
                self.g.vel[k] = scratch.pre_vel[k];
            }
            let pairs =
                &scratch.close[scratch.pair_start[c] as usize..scratch.pair_start[c + 1] as usize];
            if level + 1 < self.rec.levels as usize {
                self.level(ws, level + 1, t, hl, pairs)?;
            } else {
                self.bulirsch_stoer(ws, level, t, hl, members)?;
            }
        }
        Ok(())
    }

    /// Bulirsch-Stoer of one deepest-level group (`members` as `(root, body)`) over
    /// `[t, t + hl]`, with the weight left by all levels; mergers are booked with the group's
    /// other bodies as third bodies.
    fn bulirsch_stoer(
        &mut self,
        ws: &mut LevelWorkspace,
        level: usize,
        t: f64,
        hl: f64,
        members: &[(u32, u32)],
    ) -> Result<(), BsError> {
        let (n, g) = (self.g.len(), &mut *self.g);
        let sub = &mut ws.sub;
        sub.clear();
        sub.changeover = g.changeover;
        sub.outer_levels = level;
        for &(_, k) in members {
            let k = k as usize;
            sub.push(&g.body(k), ws.radii[level * n + k]);
            sub.outer_rcrit
                .extend((0..level).map(|l| ws.radii[l * n + k]));
            let last = sub.len() - 1;
            sub.alive[last] = g.alive[k];
        }
        ws.sub_events.clear();
        let stats = integrate_group(
            self.sys.m0,
            hl,
            sub,
            &mut ws.bs,
            self.opts,
            &mut ws.sub_events,
        );
        // The states reached, also on failure (the last accepted sub-step).
        for (q, &(_, k)) in members.iter().enumerate() {
            let k = k as usize;
            g.pos[k] = sub.pos[q];
            g.vel[k] = sub.vel[q];
            g.spin[k] = sub.spin[q];
            g.m[k] = sub.m[q];
            g.r[k] = sub.r[q];
            g.alive[k] = sub.alive[q];
        }
        let stats = stats?;
        self.stats.accepted += stats.accepted;
        self.stats.rejected += stats.rejected;
        self.stats.force_evaluations += stats.force_evaluations;
        self.stats.collisions += stats.collisions;
        for e in &ws.sub_events {
            let mut e = *e;
            let slot = |q: usize| members[q].1 as usize;
            let (a, b, s) = (slot(e.slots[0]), slot(e.slots[1]), slot(e.survivor_slot));
            // The merged body's radii at every level: the larger of the two, as at the top.
            for l in 0..=level {
                let rc = ws.radii[l * n + a].max(ws.radii[l * n + b]);
                ws.radii[l * n + s] = rc;
            }
            g.rcrit[s] = ws.radii[s];
            for k in 0..n {
                let outside = members.binary_search_by_key(&(k as u32), |m| m.1).is_err();
                if outside && g.alive[k] {
                    let (x, m) = (g.pos[k], g.m[k]);
                    e.u += third_body_potential_change(
                        &e.at_merge[0],
                        &e.at_merge[1],
                        &e.merged,
                        m,
                        x,
                    );
                }
            }
            e.slots = [a, b];
            e.survivor_slot = s;
            e.t_before += t;
            e.t_merge += t;
            self.events.push(e);
        }
        Ok(())
    }
}

/// Group the close pairs of `scratch` (union-find with the smaller body as root): members in
/// `touched` as `(root, body)`, groups ordered by their smallest body and bodies ascending
/// (`member_start` bounds each group), and the pairs in `close` sorted to match (`pair_start`).
fn group_pairs(scratch: &mut LevelScratch) {
    let parent = &mut scratch.parent;
    for &(i, j) in &scratch.close {
        parent[i as usize] = i;
        parent[j as usize] = j;
    }
    fn find(parent: &mut [u32], mut k: u32) -> u32 {
        while parent[k as usize] != k {
            let up = parent[parent[k as usize] as usize];
            parent[k as usize] = up;
            k = up;
        }
        k
    }
    for &(i, j) in &scratch.close {
        let (a, b) = (find(parent, i), find(parent, j));
        let (lo, hi) = (a.min(b), a.max(b));
        parent[hi as usize] = lo;
    }
    scratch.touched.clear();
    for &(i, j) in &scratch.close {
        for k in [i, j] {
            let root = find(parent, k);
            scratch.touched.push((root, k));
        }
    }
    scratch.touched.sort_unstable();
    scratch.touched.dedup();
    scratch
        .close
        .sort_unstable_by_key(|&(i, j)| (find(parent, i), i, j));
    scratch.member_start.clear();
    scratch.pair_start.clear();
    let (mut p, mut root) = (0, None);
    for (q, &(r, _)) in scratch.touched.iter().enumerate() {
        if root != Some(r) {
            root = Some(r);
            scratch.member_start.push(q as u32);
            scratch.pair_start.push(p as u32);
            while p < scratch.close.len() && find(parent, scratch.close[p].0) == r {
                p += 1;
            }
        }
    }
    scratch.member_start.push(scratch.touched.len() as u32);
    scratch.pair_start.push(scratch.close.len() as u32);
}

#[cfg(test)]
#[path = "recursion_tests.rs"]
mod tests;
