//! The kicks of the forces beyond point-mass gravity (`physics::forces`): the potential kick
//! (GR, J2) and the radiation kick with its work, and the potential forces' energy.

use super::{CpuHybrid, CHUNK};
use crate::model::StepParams;
use crate::physics::forces::{self, Forces};
use rayon::prelude::*;

/// `v += dv(slot, v)` applied to the slots `start .. start + len` of `v`, in pieces of
/// [`CHUNK`] slots in parallel (each slot on its own: the same bits for any thread count).
fn kick_slots(
    v: [&mut [f64]; 3],
    start: usize,
    len: usize,
    dv: &(impl Fn(usize, [f64; 3]) -> [f64; 3] + Sync),
) {
    let [vx, vy, vz] = v;
    let r = start..start + len;
    let piece = |first: usize, vx: &mut [f64], vy: &mut [f64], vz: &mut [f64]| {
        for k in 0..vx.len() {
            let d = dv(first + k, [vx[k], vy[k], vz[k]]);
            vx[k] += d[0];
            vy[k] += d[1];
            vz[k] += d[2];
        }
    };
    // One piece (a small system): inline, without the parallel runtime.
    if len <= CHUNK {
        return piece(start, &mut vx[r.clone()], &mut vy[r.clone()], &mut vz[r]);
    }
    vx[r.clone()]
        .par_chunks_mut(CHUNK)
        .zip(vy[r.clone()].par_chunks_mut(CHUNK))
        .zip(vz[r].par_chunks_mut(CHUNK))
        .enumerate()
        .for_each(|(c, ((vx, vy), vz))| piece(start + c * CHUNK, vx, vy, vz));
}

impl CpuHybrid {
    /// [`crate::backend::HybridBackend::potential_kick`].
    pub(super) fn kick_potential_forces(&mut self, p: &StepParams, dt: f64) {
        self.refresh_specs(p);
        let f = p.forces;
        let block = self.layout.block;
        for s in 0..self.layout.systems.len() {
            let sys = self.layout.systems[s];
            if !sys.active || sys.len == 0 {
                continue;
            }
            let mu = self.specs[s].m0;
            if f.has_torque() {
                let (b, start) = (&self.b, s * block);
                let one = |k: usize| {
                    (
                        b.m[start + k],
                        [b.x[start + k], b.y[start + k], b.z[start + k]],
                    )
                };
                let l = forces::potential_torque(&f, mu, dt, self.layout.pulling(s), one);
                self.work
                    .resize(self.layout.systems.len(), [0.0; forces::WORK_LEN]);
                for c in 0..3 {
                    self.work[s][forces::WORK_TORQUE + c] += l[c];
                }
            }
            let b = &mut self.b;
            let (x, y, z) = (&b.x, &b.y, &b.z);
            let dv = |i: usize, _: [f64; 3]| {
                let a = forces::potential_accel(&f, mu, [x[i], y[i], z[i]]);
                [dt * a[0], dt * a[1], dt * a[2]]
            };
            kick_slots([&mut b.vx, &mut b.vy, &mut b.vz], s * block, sys.len, &dv);
        }
    }

    /// [`crate::backend::HybridBackend::radiation_kick`].
    pub(super) fn kick_radiation(&mut self, p: &StepParams, dt: f64) {
        self.refresh_specs(p);
        let f = p.forces;
        let block = self.layout.block;
        self.work
            .resize(self.layout.systems.len(), [0.0; forces::WORK_LEN]);
        for s in 0..self.layout.systems.len() {
            let sys = self.layout.systems[s];
            if !sys.active || sys.len == 0 {
                continue;
            }
            let (m0, start) = (self.specs[s].m0, s * block);
            let pulling = self.layout.pulling(s);
            let b = &mut self.b;
            let one = |i: usize| {
                (
                    b.m[i],
                    b.r[i],
                    [b.x[i], b.y[i], b.z[i]],
                    [b.vx[i], b.vy[i], b.vz[i]],
                )
            };
            let kick = forces::radiation_system(&f, m0, dt, pulling, |k| one(start + k));
            for c in 0..4 {
                self.work[s][c] += kick.work[c];
            }
            let (m, r, x, y, z) = (&b.m, &b.r, &b.x, &b.y, &b.z);
            let dv = |i: usize, v: [f64; 3]| {
                let x = [x[i], y[i], z[i]];
                forces::radiation_dv(&f, dt, kick.w, m[i], r[i], x, v, kick.shift)
            };
            kick_slots([&mut b.vx, &mut b.vy, &mut b.vz], start, sys.len, &dv);
        }
    }

    /// The potential forces' energy `sum m Phi` of the `included` bodies from `start` of a
    /// system of central mass `m0`, summed in slot order (0 when no such force is on).
    pub(super) fn potential_force_energy(
        &self,
        f: &Forces,
        m0: f64,
        start: usize,
        included: usize,
    ) -> f64 {
        let b = &self.b;
        let mut e = 0.0;
        for i in start..start + included {
            e += b.m[i] * forces::potential_energy(f, m0, [b.x[i], b.y[i], b.z[i]]);
        }
        e
    }

    /// [`crate::backend::HybridBackend::take_work`].
    pub(super) fn take_radiation_work(&mut self) -> Vec<forces::Work> {
        std::mem::take(&mut self.work)
    }
}
