//! The CPU backend: every hybrid pass on host arrays, parallel with rayon, deterministic for any
//! thread count (no order-dependent parallel float reductions).

pub mod pair_forces;

use crate::backend::{
    Collision, Ejection, EncounterStats, EnergyParts, HybridBackend, HybridSnapshot, StepParams,
};
use crate::error::{Error, Result};
use crate::hybrid::groups::EncounterGroups;
use crate::physics::bulirsch_stoer::{
    integrate_group, BsError, BsOptions, BsStats, BsWorkspace, CollisionEvent, GroupState,
};
use crate::physics::merge::third_body_potential_change;
use crate::physics::{changeover::critical_radius, encounter::min_separation_sq, kepler};
use crate::state::Bodies;
use pair_forces::{Accelerations, Sources, TileHits, LANES, PRECHECK_FACTOR};
use rayon::prelude::*;

/// Bodies per rayon task in the O(N) passes (large enough to amortise scheduling).
const CHUNK: usize = 1024;

/// Host-resident state of the hybrid engine.
#[derive(Default)]
pub struct CpuHybrid {
    b: Bodies,
    /// Critical radii of the current step.
    rcrit: Vec<f64>,
    /// Critical radii the stored accelerations were computed with, and their inverses.
    rcrit_kick: Vec<f64>,
    inv_rcrit_kick: Vec<f64>,
    far: [Vec<f64>; 3],
    near: [Vec<f64>; 3],
    candidate_count: Vec<u32>,
    /// Per tile: the sources inside some receiver's precheck radius.
    hits: Vec<TileHits>,
    /// Candidate pairs (i < j) from the last full acceleration pass, sorted.
    candidates: Vec<(u32, u32)>,
    /// Positions and velocities of candidate bodies before the drift.
    pre_drift: Vec<[f64; 6]>,
    /// Confirmed close-encounter pairs of the last search.
    encounters: Vec<(u32, u32)>,
    groups: EncounterGroups,
    /// One slot per encounter group, reused from step to step.
    group_work: Vec<GroupWork>,
    /// Bodies to remove after mergers.
    removed: Vec<bool>,
}

/// Scratch of one encounter group's Bulirsch-Stoer integration.
#[derive(Default)]
struct GroupWork {
    state: GroupState,
    workspace: BsWorkspace,
    events: Vec<CollisionEvent>,
    result: Option<std::result::Result<BsStats, BsError>>,
}

impl CpuHybrid {
    fn resize(&mut self) {
        let n = self.b.len();
        self.rcrit.resize(n, 0.0);
        self.rcrit_kick.resize(n, 0.0);
        self.inv_rcrit_kick.resize(n, 0.0);
        for c in 0..3 {
            self.far[c].resize(n, 0.0);
            self.near[c].resize(n, 0.0);
        }
        self.candidate_count.resize(n, 0);
        self.hits.resize(n.div_ceil(LANES), TileHits::default());
        self.pre_drift.resize(n, [0.0; 6]);
    }

    fn sources<'a>(b: &'a Bodies, rcrit: &'a [f64], inv_rcrit: &'a [f64]) -> Sources<'a> {
        Sources {
            x: &b.x,
            y: &b.y,
            z: &b.z,
            m: &b.m,
            rcrit,
            inv_rcrit,
        }
    }

    /// Adopt the current critical radii for the stored accelerations.
    fn adopt_critical_radii(&mut self) {
        self.rcrit_kick.copy_from_slice(&self.rcrit);
        for (inv, rc) in self.inv_rcrit_kick.iter_mut().zip(&self.rcrit) {
            *inv = 1.0 / rc;
        }
    }

    /// The candidate pairs (i < j, sorted) from the sources each tile recorded.
    fn collect_candidates(&mut self) {
        self.candidates.clear();
        let src = Self::sources(&self.b, &self.rcrit_kick, &self.inv_rcrit_kick);
        let n = self.b.len();
        for (t, hits) in self.hits.iter().enumerate() {
            let receivers = t * LANES..((t + 1) * LANES).min(n);
            let all = 0..n as u32;
            let recorded = &hits.j[..hits.len];
            for i in receivers {
                if self.candidate_count[i] == 0 {
                    continue;
                }
                let mut push = |j: u32| {
                    if j as usize > i && pair_forces::is_candidate(src, i, j as usize) {
                        self.candidates.push((i as u32, j));
                    }
                };
                if hits.overflow {
                    all.clone().for_each(&mut push);
                } else {
                    recorded.iter().for_each(|&j| push(j));
                }
            }
        }
        self.candidates.sort_unstable();
    }
}

impl HybridBackend for CpuHybrid {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn len(&self) -> usize {
        self.b.len()
    }

    fn critical_radii(&mut self, p: &StepParams) {
        let b = &self.b;
        self.rcrit
            .par_chunks_mut(CHUNK)
            .enumerate()
            .for_each(|(c, out)| {
                for (k, rc) in out.iter_mut().enumerate() {
                    let i = c * CHUNK + k;
                    let r = (b.x[i] * b.x[i] + b.y[i] * b.y[i] + b.z[i] * b.z[i]).sqrt();
                    let v = (b.vx[i] * b.vx[i] + b.vy[i] * b.vy[i] + b.vz[i] * b.vz[i]).sqrt();
                    *rc = critical_radius(p.n1, p.n2, p.tau, b.m[i], p.m0, r, v);
                }
            });
    }

    fn refresh_accelerations(&mut self) {
        if self.candidates.is_empty() {
            // KickB: every stored pair term has K = 1 and stays valid; adopt the new radii.
            self.adopt_critical_radii();
            return;
        }
        let grew = self
            .rcrit
            .iter()
            .zip(&self.rcrit_kick)
            .any(|(new, old)| *new > PRECHECK_FACTOR * *old);
        if grew {
            self.accelerations();
            return;
        }
        // KickA: recompute only the candidate pairs with the new critical radii.
        self.adopt_critical_radii();
        for &(i, j) in &self.candidates {
            for k in [i, j] {
                for c in 0..3 {
                    self.near[c][k as usize] = 0.0;
                }
            }
        }
        let src = Self::sources(&self.b, &self.rcrit_kick, &self.inv_rcrit_kick);
        for &(i, j) in &self.candidates {
            let (i, j) = (i as usize, j as usize);
            let a_ij = pair_forces::pair_acceleration(src, i, j);
            let a_ji = pair_forces::pair_acceleration(src, j, i);
            for c in 0..3 {
                self.near[c][i] += a_ij[c];
                self.near[c][j] += a_ji[c];
            }
        }
    }

    fn accelerations(&mut self) -> usize {
        self.adopt_critical_radii();
        let src = Self::sources(&self.b, &self.rcrit_kick, &self.inv_rcrit_kick);
        let [fx, fy, fz] = &mut self.far;
        let [nx, ny, nz] = &mut self.near;
        pair_forces::accelerations(
            src,
            Accelerations {
                far: [fx, fy, fz],
                near: [nx, ny, nz],
                candidates: &mut self.candidate_count,
                hits: &mut self.hits,
            },
        );
        self.collect_candidates();
        self.candidates.len()
    }

    fn kick(&mut self, dt: f64) {
        let (far, near) = (&self.far, &self.near);
        for (c, v) in [&mut self.b.vx, &mut self.b.vy, &mut self.b.vz]
            .into_iter()
            .enumerate()
        {
            v.par_chunks_mut(CHUNK).enumerate().for_each(|(k, v)| {
                let o = k * CHUNK;
                for (l, v) in v.iter_mut().enumerate() {
                    *v += dt * (far[c][o + l] + near[c][o + l]);
                }
            });
        }
    }

    fn sun_kick(&mut self, p: &StepParams, dt: f64) {
        let mom = self.b.momentum();
        let shift = [dt * mom[0] / p.m0, dt * mom[1] / p.m0, dt * mom[2] / p.m0];
        for (c, x) in [&mut self.b.x, &mut self.b.y, &mut self.b.z]
            .into_iter()
            .enumerate()
        {
            x.par_chunks_mut(CHUNK)
                .for_each(|x| x.iter_mut().for_each(|x| *x += shift[c]));
        }
    }

    fn save_candidate_states(&mut self) {
        let b = &self.b;
        for &(i, j) in &self.candidates {
            for k in [i as usize, j as usize] {
                self.pre_drift[k] = [b.x[k], b.y[k], b.z[k], b.vx[k], b.vy[k], b.vz[k]];
            }
        }
    }

    fn drift(&mut self, p: &StepParams, dt: f64) -> Result<()> {
        let b = &mut self.b;
        let failure =
            b.x.par_chunks_mut(CHUNK)
                .zip(b.y.par_chunks_mut(CHUNK))
                .zip(b.z.par_chunks_mut(CHUNK))
                .zip(b.vx.par_chunks_mut(CHUNK))
                .zip(b.vy.par_chunks_mut(CHUNK))
                .zip(b.vz.par_chunks_mut(CHUNK))
                .enumerate()
                .map(|(c, (((((x, y), z), vx), vy), vz))| {
                    for k in 0..x.len() {
                        let mut pos = [x[k], y[k], z[k]];
                        let mut vel = [vx[k], vy[k], vz[k]];
                        if kepler::kepler_drift(p.m0, dt, &mut pos, &mut vel).is_err() {
                            return Some(c * CHUNK + k);
                        }
                        [x[k], y[k], z[k]] = pos;
                        [vx[k], vy[k], vz[k]] = vel;
                    }
                    None
                })
                .min()
                .flatten();
        match failure {
            None => Ok(()),
            Some(k) => Err(Error::run(format!(
                "Kepler drift failed for body {} (m = {:e}, x = [{:e}, {:e}, {:e}]): the f and g \
                 and universal-variable solvers did not converge",
                self.b.id[k], self.b.m[k], self.b.x[k], self.b.y[k], self.b.z[k]
            ))),
        }
    }

    fn encounter_search(&mut self, dt: f64) -> usize {
        self.encounters.clear();
        let b = &self.b;
        for &(i, j) in &self.candidates {
            let (i, j) = (i as usize, j as usize);
            let (s, t) = (&self.pre_drift[i], &self.pre_drift[j]);
            let dr0 = [t[0] - s[0], t[1] - s[1], t[2] - s[2]];
            let dv0 = [t[3] - s[3], t[4] - s[4], t[5] - s[5]];
            let dr1 = [b.x[j] - b.x[i], b.y[j] - b.y[i], b.z[j] - b.z[i]];
            let dv1 = [b.vx[j] - b.vx[i], b.vy[j] - b.vy[i], b.vz[j] - b.vz[i]];
            let (d2, _) = min_separation_sq(dr0, dv0, dr1, dv1, dt);
            let rc = self.rcrit[i].max(self.rcrit[j]);
            if d2 < rc * rc {
                self.encounters.push((i as u32, j as u32));
            }
        }
        self.encounters.len()
    }

    fn encounter_groups(
        &mut self,
        p: &StepParams,
        dt: f64,
        opts: &BsOptions,
        stats: &mut EncounterStats,
    ) -> Result<Vec<Collision>> {
        if self.encounters.is_empty() {
            return Ok(Vec::new());
        }
        let n = self.b.len();
        self.groups.build(n, &self.encounters)?;
        let ng = self.groups.n_groups();
        if self.group_work.len() < ng {
            self.group_work.resize_with(ng, GroupWork::default);
        }
        for g in 0..ng {
            let w = &mut self.group_work[g];
            w.state.clear();
            w.events.clear();
            for &k in self.groups.members(g) {
                let k = k as usize;
                let mut body = self.b.get(k);
                let s = &self.pre_drift[k];
                body.pos = [s[0], s[1], s[2]];
                body.vel = [s[3], s[4], s[5]];
                w.state.push(&body, self.rcrit[k]);
            }
            stats.add_group(w.state.len());
        }
        let m0 = p.m0;
        self.group_work[..ng]
            .par_iter_mut()
            .with_max_len(1)
            .for_each(|w| {
                w.result = Some(integrate_group(
                    m0,
                    dt,
                    &mut w.state,
                    &mut w.workspace,
                    opts,
                    &mut w.events,
                ));
            });
        self.removed.clear();
        self.removed.resize(n, false);
        let mut collisions = Vec::new();
        for g in 0..ng {
            let w = &mut self.group_work[g];
            let bs = w.result.take().unwrap_or_else(|| Ok(BsStats::default()))?;
            stats.bs_substeps += bs.accepted as u64;
            stats.bs_rejected += bs.rejected as u64;
            stats.collisions += bs.collisions as u64;
            for (slot, &k) in self.groups.members(g).iter().enumerate() {
                let k = k as usize;
                let st = &w.state;
                [self.b.x[k], self.b.y[k], self.b.z[k]] = st.pos[slot];
                [self.b.vx[k], self.b.vy[k], self.b.vz[k]] = st.vel[slot];
                [self.b.sx[k], self.b.sy[k], self.b.sz[k]] = st.spin[slot];
                self.b.m[k] = st.m[slot];
                self.b.r[k] = st.r[slot];
                self.rcrit[k] = st.rcrit[slot];
                self.removed[k] = !st.alive[slot];
            }
        }
        // Energy of each merger with the bodies outside its group, then the report.
        let shift = self.b.heliocentric_velocity_shift(p.m0);
        for g in 0..ng {
            for e in &self.group_work[g].events {
                let mut u = e.u;
                for k in 0..n {
                    if self.groups.group_of(k) != Some(g) && self.b.m[k] > 0.0 {
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
                let mut bodies = e.bodies;
                for body in bodies.iter_mut() {
                    for c in 0..3 {
                        body.vel[c] += shift[c];
                    }
                }
                collisions.push(Collision {
                    time_offset: e.t_before,
                    bodies,
                    survivor: e.merged.id,
                    u,
                });
            }
        }
        if self.removed.iter().any(|&r| r) {
            self.b.compact(&self.removed);
            let mut it = self.removed.iter();
            self.rcrit.retain(|_| !*it.next().unwrap_or(&false));
            self.resize();
            self.candidates.clear();
        }
        Ok(collisions)
    }

    fn ejections(&mut self, p: &StepParams) -> Vec<Ejection> {
        let (inner2, outer2) = (p.inner_truncation.powi(2), p.outer_truncation.powi(2));
        let b = &self.b;
        let case = |i: usize| {
            let r2 = b.x[i] * b.x[i] + b.y[i] * b.y[i] + b.z[i] * b.z[i];
            if r2 > outer2 {
                Some(-3)
            } else if r2 < inner2 {
                Some(-2)
            } else {
                None
            }
        };
        let removed: Vec<usize> = (0..b.len()).filter(|&i| case(i).is_some()).collect();
        if removed.is_empty() {
            return Vec::new();
        }
        let shift = b.heliocentric_velocity_shift(p.m0);
        let out = removed
            .iter()
            .map(|&i| {
                let democratic = b.get(i);
                let mut body = democratic;
                for c in 0..3 {
                    body.vel[c] += shift[c];
                }
                Ejection {
                    body,
                    democratic,
                    case: case(i).unwrap_or(-3),
                }
            })
            .collect();
        let mut flags = vec![false; b.len()];
        for &i in &removed {
            flags[i] = true;
        }
        self.b.compact(&flags);
        let mut keep = flags.iter().map(|f| !f);
        self.rcrit.retain(|_| keep.next().unwrap_or(true));
        self.resize();
        // The removed bodies no longer pull: recompute the stored accelerations.
        self.accelerations();
        out
    }

    fn energy(&mut self, p: &StepParams) -> EnergyParts {
        crate::physics::energy::energy(p.m0, &self.b)
    }

    fn bodies(&mut self) -> Bodies {
        self.b.clone()
    }

    fn snapshot(&mut self) -> HybridSnapshot {
        HybridSnapshot {
            bodies: self.b.clone(),
            rcrit: self.rcrit_kick.clone(),
            far: self.far.clone(),
            near: self.near.clone(),
            candidates: self.candidates.clone(),
        }
    }

    fn restore(&mut self, s: HybridSnapshot) {
        self.b = s.bodies;
        self.resize();
        let n = self.b.len();
        let complete = s.rcrit.len() == n && s.far.iter().chain(&s.near).all(|v| v.len() == n);
        if complete {
            self.rcrit_kick = s.rcrit;
            self.rcrit.copy_from_slice(&self.rcrit_kick);
            self.far = s.far;
            self.near = s.near;
            self.candidates = s.candidates;
        } else {
            self.candidates.clear();
        }
    }
}
