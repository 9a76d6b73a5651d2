//! The Sun kick, the saving of the candidates' pre-drift states and the Kepler drift.

use super::candidates::{test_particle_runs, CANDIDATE_SEGMENT};
use super::pair_forces::SMALL_MAX;
use super::slots::{self, SharedSlice};
use super::small;
use super::{CpuHybrid, CHUNK};
use crate::model::StepParams;
use crate::physics::kepler;
use rayon::prelude::*;

/// The Sun kick's displacement (H_C) over `dt` of a system of central mass `m0` and momentum
/// `mom`: `(dt / M0) sum m v`.
#[inline(always)]
pub(super) fn sun_shift(dt: f64, m0: f64, mom: [f64; 3]) -> [f64; 3] {
    let f = dt / m0;
    [f * mom[0], f * mom[1], f * mom[2]]
}

impl CpuHybrid {
    /// The Sun kick (H_C): every live body moves by `dt / M0` times its system's momentum.
    pub(super) fn sun_kick_positions(&mut self, p: &StepParams, dt: f64) {
        self.refresh_specs(p);
        let (layout, specs) = (&self.layout, &self.specs);
        let shift = |s: usize, mom: [f64; 3]| sun_shift(dt, specs[s].m0, mom);
        if layout.systems.len() == 1 {
            let d = shift(0, self.b.momentum_range(0, layout.pulling(0)));
            let x = [
                SharedSlice::new(&mut self.b.x),
                SharedSlice::new(&mut self.b.y),
                SharedSlice::new(&mut self.b.z),
            ];
            slots::for_each(&self.chunks, |ch| {
                crate::simd::dispatch_sized(
                    ch.len,
                    #[inline(always)]
                    || {
                        for c in 0..3 {
                            // SAFETY: chunks are disjoint slot ranges; every slot of them is
                            // occupied.
                            let x = unsafe { x[c].range(ch.start, ch.len) };
                            x.iter_mut().for_each(|x| *x += d[c]);
                        }
                    },
                )
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
                // At the run-time SIMD level.
                crate::simd::dispatch(
                    #[inline(always)]
                    || {
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
                            small::with_block!(
                                block,
                                small::sun_kick(0, n, dt, &lanes, m, v, [x, y, z])
                            );
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
                    },
                )
            });
    }

    /// Save the pre-drift states of the bodies of candidate pairs for the encounter search.
    pub(super) fn save_pre_drift_states(&mut self) {
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

    /// The Kepler drift of every live body; a failure is reported by the next status.
    pub(super) fn kepler_drift(&mut self, p: &StepParams, dt: f64) {
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
        let first_failure = |a: Option<usize>, b: Option<usize>| match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let failure = slots::map_reduce(
            &self.chunks,
            None,
            |ch| {
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
            },
            first_failure,
        );
        self.drift_failure = failure.map(|k| self.drift_failure_message(k));
    }

    /// What a failed drift of slot `k` reports.
    pub(super) fn drift_failure_message(&self, k: usize) -> String {
        format!(
            "Kepler drift failed for body {} (m = {:e}, x = [{:e}, {:e}, {:e}]): the f and g and \
             universal-variable solvers did not converge",
            self.b.id[k], self.b.m[k], self.b.x[k], self.b.y[k], self.b.z[k]
        )
    }
}
