//! The kicks of the forces beyond point-mass gravity (`physics::forces`): the potential kick
//! (GR, J2, with J2's torque booked) and the radiation kick with its work, and the potential
//! forces' energy. The per-body parts run over the work pieces at the run-time SIMD level (the
//! loops vectorise; each slot on its own, so the bits do not depend on the level or the thread
//! count); empty and stopped slots are skipped through [`super::slots::SlotMaps::live_mu`], as
//! the kick does.

use super::slots::{self, SharedSlice};
use super::CpuHybrid;
use crate::model::StepParams;
use crate::physics::forces::{self, Forces, RadiationSystem};
use crate::state::Bodies;

impl CpuHybrid {
    /// [`crate::backend::HybridBackend::potential_kick`].
    pub(super) fn kick_potential_forces(&mut self, p: &StepParams, dt: f64) {
        self.refresh_specs(p);
        let f = p.forces;
        let torque = f.has_torque();
        if torque {
            for d in &mut self.kick_dv {
                d.resize(self.b.len(), 0.0);
            }
        }
        let single = self.layout.systems.len() == 1;
        let mu0 = self.specs.first().map_or(0.0, |s| s.m0);
        let live = &self.maps.live_mu;
        let [dx, dy, dz] = &mut self.kick_dv;
        let kept = [
            SharedSlice::new(dx),
            SharedSlice::new(dy),
            SharedSlice::new(dz),
        ];
        let Bodies {
            x,
            y,
            z,
            vx,
            vy,
            vz,
            ..
        } = &mut self.b;
        let (x, y, z) = (&*x, &*y, &*z);
        let v = [
            SharedSlice::new(vx),
            SharedSlice::new(vy),
            SharedSlice::new(vz),
        ];
        slots::for_each(&self.chunks, |ch| {
            crate::simd::dispatch_sized(
                ch.len,
                #[inline(always)]
                || {
                    // SAFETY: chunks are disjoint slot ranges.
                    let [vx, vy, vz] = [0, 1, 2].map(|c| unsafe { v[c].range(ch.start, ch.len) });
                    let r = ch.start..ch.start + ch.len;
                    let (x, y, z) = (&x[r.clone()], &y[r.clone()], &z[r.clone()]);
                    if torque {
                        // J2: keep the changes for its torque (one loop of the others').
                        // SAFETY: chunks are disjoint slot ranges; the arrays span the slots.
                        let [kx, ky, kz] =
                            [0, 1, 2].map(|c| unsafe { kept[c].range(ch.start, ch.len) });
                        let live = &live[if single { 0..0 } else { r }];
                        for l in 0..vx.len().min(x.len()).min(kx.len()) {
                            let mu = if single { mu0 } else { live[l] };
                            let a = forces::potential_accel(&f, mu, [x[l], y[l], z[l]]);
                            let on = single || mu > 0.0;
                            let d = [dt * a[0], dt * a[1], dt * a[2]];
                            (kx[l], ky[l], kz[l]) = (d[0], d[1], d[2]);
                            vx[l] += if on { d[0] } else { 0.0 };
                            vy[l] += if on { d[1] } else { 0.0 };
                            vz[l] += if on { d[2] } else { 0.0 };
                        }
                        return;
                    }
                    if single {
                        // One system: every slot of a chunk is occupied.
                        for l in 0..vx.len().min(x.len()).min(y.len()).min(z.len()) {
                            let a = forces::potential_accel(&f, mu0, [x[l], y[l], z[l]]);
                            vx[l] += dt * a[0];
                            vy[l] += dt * a[1];
                            vz[l] += dt * a[2];
                        }
                        return;
                    }
                    let live = &live[r];
                    for l in 0..vx.len().min(x.len()).min(live.len()) {
                        let mu = live[l];
                        let a = forces::potential_accel(&f, mu, [x[l], y[l], z[l]]);
                        let on = mu > 0.0;
                        vx[l] += if on { dt * a[0] } else { 0.0 };
                        vy[l] += if on { dt * a[1] } else { 0.0 };
                        vz[l] += if on { dt * a[2] } else { 0.0 };
                    }
                },
            )
        });
        if torque {
            self.book_potential_torque();
        }
    }

    /// J2's torque of the potential kick just made (from its kept velocity changes), added to
    /// every active system's work tally.
    fn book_potential_torque(&mut self) {
        let block = self.layout.block;
        self.work
            .resize(self.layout.systems.len(), [0.0; forces::WORK_LEN]);
        let [dx, dy, dz] = &self.kick_dv;
        for s in 0..self.layout.systems.len() {
            let sys = self.layout.systems[s];
            if !sys.active || sys.len == 0 {
                continue;
            }
            let (b, start) = (&self.b, s * block);
            let one = |k: usize| {
                let i = start + k;
                (b.m[i], [b.x[i], b.y[i], b.z[i]], [dx[i], dy[i], dz[i]])
            };
            let l = forces::torque_of_kick(self.layout.pulling(s), one);
            for c in 0..3 {
                self.work[s][forces::WORK_TORQUE + c] += l[c];
            }
        }
    }

    /// [`crate::backend::HybridBackend::radiation_kick`]: every system's shift, recoil and work
    /// first (from the velocities before the kick), then every body's kick.
    pub(super) fn kick_radiation(&mut self, p: &StepParams, dt: f64) {
        self.refresh_specs(p);
        let f = p.forces;
        let (block, systems) = (self.layout.block, self.layout.systems.len());
        self.work.resize(systems, [0.0; forces::WORK_LEN]);
        self.radiation.resize(systems, RadiationSystem::default());
        for s in 0..systems {
            let sys = self.layout.systems[s];
            if !sys.active || sys.len == 0 {
                continue;
            }
            let (b, start) = (&self.b, s * block);
            let one = |k: usize| irradiated(b, start + k);
            let kick =
                forces::radiation_system(&f, self.specs[s].m0, dt, self.layout.pulling(s), one);
            for c in 0..4 {
                self.work[s][c] += kick.work[c];
            }
            self.radiation[s] = kick;
        }
        let single = systems == 1;
        let (live, system, rad) = (&self.maps.live_mu, &self.maps.system, &self.radiation);
        let m0 = self.specs.first().map_or(0.0, |s| s.m0);
        let specs = &self.specs;
        let Bodies {
            m,
            r,
            x,
            y,
            z,
            vx,
            vy,
            vz,
            sx,
            sy,
            sz,
            ..
        } = &mut self.b;
        let (m, r, x, y, z) = (&*m, &*r, &*x, &*y, &*z);
        let (sx, sy, sz) = (&*sx, &*sy, &*sz);
        let v = [
            SharedSlice::new(vx),
            SharedSlice::new(vy),
            SharedSlice::new(vz),
        ];
        slots::for_each(&self.chunks, |ch| {
            crate::simd::dispatch_sized(
                ch.len,
                #[inline(always)]
                || {
                    // SAFETY: chunks are disjoint slot ranges.
                    let [vx, vy, vz] = [0, 1, 2].map(|c| unsafe { v[c].range(ch.start, ch.len) });
                    let s = ch.start..ch.start + ch.len;
                    let (m, r) = (&m[s.clone()], &r[s.clone()]);
                    let (x, y, z) = (&x[s.clone()], &y[s.clone()], &z[s.clone()]);
                    let (sx, sy, sz) = (&sx[s.clone()], &sy[s.clone()], &sz[s.clone()]);
                    let n = vx
                        .len()
                        .min(m.len())
                        .min(r.len())
                        .min(x.len())
                        .min(sx.len());
                    if single {
                        // One system: every slot of a chunk is occupied. Without the Yarkovsky
                        // effect the loop vectorises.
                        let k = &rad[0];
                        if f.yarkovsky == 0.0 {
                            for l in 0..n {
                                let b = forces::Irradiated {
                                    m: m[l],
                                    s: r[l],
                                    x: [x[l], y[l], z[l]],
                                    v: [vx[l], vy[l], vz[l]],
                                    spin: [sx[l], sy[l], sz[l]],
                                };
                                let d = forces::radiation_dv_of::<false>(&f, m0, dt, k, b);
                                vx[l] += d[0];
                                vy[l] += d[1];
                                vz[l] += d[2];
                            }
                        } else {
                            for l in 0..n {
                                let b = forces::Irradiated {
                                    m: m[l],
                                    s: r[l],
                                    x: [x[l], y[l], z[l]],
                                    v: [vx[l], vy[l], vz[l]],
                                    spin: [sx[l], sy[l], sz[l]],
                                };
                                let d = forces::radiation_dv_of::<true>(&f, m0, dt, k, b);
                                vx[l] += d[0];
                                vy[l] += d[1];
                                vz[l] += d[2];
                            }
                        }
                        return;
                    }
                    let (live, system) = (&live[s.clone()], &system[s]);
                    for l in 0..n {
                        let sys = system[l] as usize;
                        let (k, on) = (&rad[sys], live[l] > 0.0);
                        let b = forces::Irradiated {
                            m: m[l],
                            s: r[l],
                            x: [x[l], y[l], z[l]],
                            v: [vx[l], vy[l], vz[l]],
                            spin: [sx[l], sy[l], sz[l]],
                        };
                        let d = forces::radiation_dv(&f, specs[sys].m0, dt, k, b);
                        vx[l] += if on { d[0] } else { 0.0 };
                        vy[l] += if on { d[1] } else { 0.0 };
                        vz[l] += if on { d[2] } else { 0.0 };
                    }
                },
            )
        });
    }

    /// The potential forces' energy `sum m Phi` of the `included` bodies from `start` of a
    /// system of central mass `m0`, summed in slot order.
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
    pub(super) fn take_force_work(&mut self) -> Vec<forces::Work> {
        std::mem::take(&mut self.work)
    }
}

/// Slot `i` as the radiation forces see it.
fn irradiated(b: &Bodies, i: usize) -> forces::Irradiated {
    forces::Irradiated {
        m: b.m[i],
        s: b.r[i],
        x: [b.x[i], b.y[i], b.z[i]],
        v: [b.vx[i], b.vy[i], b.vz[i]],
        spin: [b.sx[i], b.sy[i], b.sz[i]],
    }
}
