//! The changeover-weighted pair pass of every system with the prechecker, the refresh of the
//! stored accelerations (KickA, KickB) and the kick.

use super::candidates::for_each_candidate_test_particle;
use super::pair_forces::{self, Accelerations, Hits, Kick, Sources, LANES, SMALL_MAX};
use super::slots::{self, SharedSlice};
use super::{CpuHybrid, CHUNK};
use crate::state::Bodies;
use rayon::prelude::*;

impl CpuHybrid {
    /// Full pair pass of system `s` (tiles in parallel when `parallel`), with the kick
    /// `v += kick_dt a` fused in when given.
    pub(super) fn system_accelerations(&mut self, s: usize, parallel: bool, kick_dt: Option<f64>) {
        let sys = self.layout.systems[s];
        let tiles = self.layout.block.div_ceil(LANES);
        let r = self.layout.range(s);
        let (src, out) = self.pass_io(r.clone(), r, s * tiles..(s + 1) * tiles, kick_dt);
        pair_forces::accelerations(src, sys.massive, out, parallel);
    }

    /// The pair pass's inputs and outputs: the sources of the slots `system` (one system's) with
    /// the kick radii, and the outputs of its slots `rows` and of the tile records `tiles`, with
    /// the kick's velocities when `kick_dt` is given.
    #[inline(always)]
    pub(super) fn pass_io(
        &mut self,
        system: std::ops::Range<usize>,
        rows: std::ops::Range<usize>,
        tiles: std::ops::Range<usize>,
        kick_dt: Option<f64>,
    ) -> (Sources<'_>, Accelerations<'_>) {
        let cap = self.hit_cap;
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
            x: &x[system.clone()],
            y: &y[system.clone()],
            z: &z[system.clone()],
            m: &m[system.clone()],
            rcrit: &self.rcrit_kick[system.clone()],
            inv_rcrit: &self.inv_rcrit_kick[system],
            changeover: self.layout.changeover,
        };
        let [fx, fy, fz] = &mut self.far;
        let [nx, ny, nz] = &mut self.near;
        let r = rows;
        let out = Accelerations {
            far: [&mut fx[r.clone()], &mut fy[r.clone()], &mut fz[r.clone()]],
            near: [&mut nx[r.clone()], &mut ny[r.clone()], &mut nz[r.clone()]],
            candidates: &mut self.candidate_count[r.clone()],
            hits: Hits {
                sources: &mut self.hit_sources[tiles.start * cap..tiles.end * cap],
                tiles: &mut self.hits[tiles],
                cap,
            },
            kick: kick_dt.map(|dt| Kick {
                dt,
                v: [&mut vx[r.clone()], &mut vy[r.clone()], &mut vz[r]],
            }),
        };
        (src, out)
    }

    /// The full pair pass (the closing kick's accelerations with the prechecker), with the kick
    /// `v += kick_dt a` when given: fused into the pass for one system of bodies that pull
    /// only through it, after it otherwise.
    pub(super) fn pair_pass(&mut self, kick_dt: Option<f64>) {
        self.adopt_critical_radii();
        self.fit_hit_rows();
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
                        let src = Sources::of(b, rk, ik, r, layout.changeover);
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
                        let src = Sources::of(b, rk, ik, layout.range(s), layout.changeover);
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
        self.pass_stored = true;
        if let (Some(dt), None) = (kick_dt, fused) {
            self.kick_velocities(dt);
        }
    }

    /// Grow the tiles' rows of recorded sources when the last pass had tiles that found more
    /// than a row holds ([`Hits::capacity_for`]): such a tile scans every source for its
    /// candidates, which in a dense disk of 10^4 bodies costs more than its far sum. The rows
    /// are rewritten by the pass that follows; the results do not depend on the capacity.
    fn fit_hit_rows(&mut self) {
        let needed = self.hits.iter().map(|h| h.needed as usize).max();
        let needed = needed.unwrap_or(0);
        if needed <= self.hit_cap {
            return;
        }
        let most_sources = self.layout.systems.iter().map(|s| s.massive).max();
        let cap = Hits::capacity_for(needed, most_sources.unwrap_or(0));
        if cap > self.hit_cap {
            self.hit_cap = cap;
            self.hit_sources.clear();
            self.hit_sources.resize(self.hits.len() * cap, 0);
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
            let src = self.kick_sources(r.clone());
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

    /// KickA for passive test particles, in parallel over the candidate list: the near term of
    /// every test particle with candidates, summed over its candidate partners in ascending order
    /// with the new critical radii (the terms the pair pass summed with the old ones).
    fn refresh_test_particles(&mut self) {
        let (b, maps) = (&self.b, &self.maps);
        let (old, old_inv, new) = (&self.rcrit_kick, &self.inv_rcrit_kick, &self.rcrit);
        let src = Sources::of(b, old, old_inv, 0..b.len(), self.layout.changeover);
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

    /// KickA or KickB: bring the stored accelerations to the new critical radii. When a radius
    /// outgrew the precheck margin, first the full pass's results: in one system with few
    /// massive bodies from the tiles whose candidates change (`changed_tiles.rs`), else from
    /// the full pass.
    pub(super) fn refresh_kick_accelerations(&mut self) {
        // A pair outside the precheck radius has K = 1 for any critical radius up to three times
        // the old one; beyond that the stored far terms may be wrong: the full pass's results,
        // from the tiles it would change where that is cheaper.
        if self.radii_grew && !self.refresh_changed_tiles() {
            self.pair_pass(None);
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
        // Field by field (not `kick_sources`): the loop below writes `near` while reading these.
        let src = Sources::of(
            &self.b,
            &self.rcrit_kick,
            &self.inv_rcrit_kick,
            0..self.b.len(),
            self.layout.changeover,
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

    /// The kick `v += dt (far + near)` of every live body.
    pub(super) fn kick_velocities(&mut self, dt: f64) {
        let single = self.layout.systems.len() == 1;
        let (far, near, live) = (&self.far, &self.near, &self.maps.live_mu);
        let v = [
            SharedSlice::new(&mut self.b.vx),
            SharedSlice::new(&mut self.b.vy),
            SharedSlice::new(&mut self.b.vz),
        ];
        slots::for_each(&self.chunks, |ch| {
            // At the run-time SIMD level.
            crate::simd::dispatch_sized(
                ch.len,
                #[inline(always)]
                || {
                    for c in 0..3 {
                        // SAFETY: chunks are disjoint slot ranges.
                        let v = unsafe { v[c].range(ch.start, ch.len) };
                        let (f, n) = (&far[c][ch.start..], &near[c][ch.start..]);
                        if single {
                            // One system: every slot of a chunk is occupied.
                            pair_forces::kick_slots(v, f, n, dt);
                            continue;
                        }
                        // Every slice cut to the chunk, so the loop has no bounds checks and
                        // vectorises.
                        let (f, n) = (&f[..ch.len], &n[..ch.len]);
                        let live = &live[ch.start..ch.start + ch.len];
                        for (l, v) in v.iter_mut().enumerate() {
                            let dv = dt * (f[l] + n[l]);
                            *v += if live[l] > 0.0 { dv } else { 0.0 };
                        }
                    }
                },
            )
        });
    }
}
