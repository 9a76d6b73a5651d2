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
use crate::physics::gas::{GAS_FILE, GAS_OFF, GAS_ON, GAS_PULL};
use crate::state::Bodies;

/// From this many pulling bodies over all systems, their radiation accelerations are computed
/// in parallel (below, the work pieces' thread-pool overhead costs more than it saves).
const PARALLEL_PULLING: usize = 256;

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

    /// [`crate::backend::HybridBackend::radiation_kick`]: every system's heliocentric shift,
    /// then the pulling bodies' accelerations (kept in `radiation_accel`; in parallel for many),
    /// then every system's recoil and work from them (sums in slot order), then every body's
    /// kick (a body that does not pull takes its acceleration there).
    pub(super) fn kick_radiation(&mut self, p: &StepParams, dt: f64) {
        self.refresh_specs(p);
        let f = p.forces;
        let (block, systems) = (self.layout.block, self.layout.systems.len());
        self.work.resize(systems, [0.0; forces::WORK_LEN]);
        self.radiation.resize(systems, RadiationSystem::default());
        self.momentum.resize(systems, ([0.0; 3], 0.0));
        self.pulling.resize(systems, 0);
        for s in 0..systems {
            let sys = self.layout.systems[s];
            let pulling = if sys.active {
                self.layout.pulling(s)
            } else {
                0
            };
            self.pulling[s] = pulling as u32;
            let (b, start) = (&self.b, s * block);
            let momentum = forces::system_momentum(pulling, |k| irradiated(b, start + k));
            self.radiation[s].shift =
                crate::state::heliocentric_shift(momentum.0, self.specs[s].m0);
            self.momentum[s] = momentum;
        }
        self.pulling_accelerations(&f, dt);
        for s in 0..systems {
            let sys = self.layout.systems[s];
            if !sys.active || sys.len == 0 {
                continue;
            }
            let (b, start, acc) = (&self.b, s * block, &self.radiation_accel);
            let kick = forces::radiation_system_with(
                self.specs[s].m0,
                dt,
                self.pulling[s] as usize,
                |k| irradiated(b, start + k),
                self.momentum[s],
                |k| acc[start + k],
            );
            for c in 0..4 {
                self.work[s][c] += kick.work[c];
            }
            self.radiation[s] = kick;
        }
        self.radiation_velocities(&f, dt);
    }

    /// The pulling bodies' radiation accelerations into `radiation_accel`: sequentially for a
    /// few, over the work pieces in parallel for many (each slot on its own: the same bits).
    fn pulling_accelerations(&mut self, f: &Forces, dt: f64) {
        self.radiation_accel.resize(self.b.len(), [0.0; 3]);
        let block = self.layout.block;
        let total: usize = self.pulling.iter().map(|&p| p as usize).sum();
        let (b, specs, rad, pulling) = (&self.b, &self.specs, &self.radiation, &self.pulling);
        let out = SharedSlice::new(&mut self.radiation_accel);
        if self.layout.systems.len() == 1 {
            // One system: its pulling bodies are the slots 0..n, each column cut to the run so
            // that the loop vectorises (without the Yarkovsky effect).
            let (n, m0, shift) = (pulling[0] as usize, specs[0].m0, rad[0].shift);
            let fill = |start: usize, end: usize| {
                let c = start.min(n)..end.min(n);
                // SAFETY: callers pass disjoint slot ranges.
                let out = unsafe { out.range(c.start, c.len()) };
                let cols = Columns {
                    m: &b.m[c.clone()],
                    r: &b.r[c.clone()],
                    x: [&b.x[c.clone()], &b.y[c.clone()], &b.z[c.clone()]],
                    v: [&b.vx[c.clone()], &b.vy[c.clone()], &b.vz[c.clone()]],
                    spin: [&b.sx[c.clone()], &b.sy[c.clone()], &b.sz[c]],
                };
                let args = (f, dt, m0, shift);
                crate::simd::dispatch_sized(
                    out.len(),
                    #[inline(always)]
                    || match (f.yarkovsky != 0.0, f.gas.mode()) {
                        (false, GAS_OFF) => accelerations::<false, GAS_OFF>(args, &cols, out),
                        (false, GAS_ON) => accelerations::<false, GAS_ON>(args, &cols, out),
                        (false, GAS_PULL) => accelerations::<false, GAS_PULL>(args, &cols, out),
                        (false, _) => accelerations::<false, GAS_FILE>(args, &cols, out),
                        (true, GAS_OFF) => accelerations::<true, GAS_OFF>(args, &cols, out),
                        (true, GAS_ON) => accelerations::<true, GAS_ON>(args, &cols, out),
                        (true, GAS_PULL) => accelerations::<true, GAS_PULL>(args, &cols, out),
                        (true, _) => accelerations::<true, GAS_FILE>(args, &cols, out),
                    },
                )
            };
            match n < PARALLEL_PULLING {
                true => fill(0, n),
                false => slots::for_each(&self.chunks, |ch| fill(ch.start, ch.start + ch.len)),
            }
            return;
        }
        let fill = |start: usize, len: usize| {
            // SAFETY: callers pass disjoint slot ranges.
            let out = unsafe { out.range(start, len) };
            for (l, a) in out.iter_mut().enumerate() {
                let i = start + l;
                let s = i / block.max(1);
                if i - s * block < pulling[s] as usize {
                    let (m0, shift) = (specs[s].m0, rad[s].shift);
                    *a = accel_of(f, dt, m0, shift, irradiated(b, i));
                }
            }
        };
        if total < PARALLEL_PULLING {
            for (s, &n) in pulling.iter().enumerate() {
                fill(s * block, n as usize);
            }
        } else {
            slots::for_each(&self.chunks, |ch| fill(ch.start, ch.len));
        }
    }

    /// Every occupied slot's radiation kick `v += dt (a - w)`, with the stored acceleration of
    /// a pulling body and a fresh one of any other (one system's loop of test particles
    /// vectorises without the Yarkovsky effect and the gas).
    fn radiation_velocities(&mut self, f: &Forces, dt: f64) {
        let (block, single) = (self.layout.block, self.layout.systems.len() == 1);
        let (acc, live, rad) = (&self.radiation_accel, &self.maps.live_mu, &self.radiation);
        let (specs, pulling) = (&self.specs, &self.pulling);
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
        let (m, r, x, y, z, sx, sy, sz) = (&*m, &*r, &*x, &*y, &*z, &*sx, &*sy, &*sz);
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
                    let end = ch.start + ch.len;
                    // Slot i's kick by its acceleration (`a` when it pulls) in system s.
                    let mut kick = |i: usize, s: usize, a: Option<[f64; 3]>| {
                        let l = i - ch.start;
                        let a = a.unwrap_or_else(|| {
                            let one = forces::Irradiated {
                                m: m[i],
                                s: r[i],
                                x: [x[i], y[i], z[i]],
                                v: [vx[l], vy[l], vz[l]],
                                spin: [sx[i], sy[i], sz[i]],
                            };
                            accel_of(f, dt, specs[s].m0, rad[s].shift, one)
                        });
                        let d = forces::kick_of(dt, a, rad[s].w);
                        vx[l] += d[0];
                        vy[l] += d[1];
                        vz[l] += d[2];
                    };
                    if single {
                        // One system: every slot of a chunk is occupied.
                        let n = pulling[0] as usize;
                        (ch.start..end.min(n)).for_each(|i| kick(i, 0, Some(acc[i])));
                        let (k, m0) = (&rad[0], specs[0].m0);
                        // The slots that do not pull, every column cut to them.
                        let c = ch.start.max(n).min(end)..end;
                        let l = c.start - ch.start..ch.len;
                        let cols = Columns {
                            m: &m[c.clone()],
                            r: &r[c.clone()],
                            x: [&x[c.clone()], &y[c.clone()], &z[c.clone()]],
                            v: [&[], &[], &[]],
                            spin: [&sx[c.clone()], &sy[c.clone()], &sz[c]],
                        };
                        let v = [&mut vx[l.clone()], &mut vy[l.clone()], &mut vz[l]];
                        let args = (f, m0, dt, k);
                        match (f.yarkovsky != 0.0, f.gas.mode()) {
                            (false, GAS_OFF) => fresh_kicks::<false, GAS_OFF>(args, cols, v),
                            (false, GAS_ON) => fresh_kicks::<false, GAS_ON>(args, cols, v),
                            (false, GAS_PULL) => fresh_kicks::<false, GAS_PULL>(args, cols, v),
                            (false, _) => fresh_kicks::<false, GAS_FILE>(args, cols, v),
                            (true, GAS_OFF) => fresh_kicks::<true, GAS_OFF>(args, cols, v),
                            (true, GAS_ON) => fresh_kicks::<true, GAS_ON>(args, cols, v),
                            (true, GAS_PULL) => fresh_kicks::<true, GAS_PULL>(args, cols, v),
                            (true, _) => fresh_kicks::<true, GAS_FILE>(args, cols, v),
                        }
                        return;
                    }
                    for i in (ch.start..end).filter(|&i| live[i] > 0.0) {
                        let s = i / block;
                        kick(i, s, (i - s * block < pulling[s] as usize).then(|| acc[i]));
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

/// The columns of a run of slots that the radiation forces read (the velocities where they are
/// not written in the same loop).
struct Columns<'a> {
    m: &'a [f64],
    r: &'a [f64],
    x: [&'a [f64]; 3],
    v: [&'a [f64]; 3],
    spin: [&'a [f64]; 3],
}

/// The radiation accelerations of a run of slots (`cols`) in a system around `m0` whose
/// democratic velocities `shift` makes heliocentric, into `out`, with the Yarkovsky effect and
/// the gas chosen at compile time and every column cut to one length (the loop vectorises
/// without the Yarkovsky effect).
#[inline(always)]
fn accelerations<const YARKOVSKY: bool, const GAS: u8>(
    (f, dt, m0, shift): (&Forces, f64, f64, [f64; 3]),
    cols: &Columns,
    out: &mut [[f64; 3]],
) {
    let Columns {
        m,
        r,
        x: [x, y, z],
        v: [vx, vy, vz],
        spin: [sx, sy, sz],
    } = *cols;
    let n = [m, r, x, y, z, vx, vy, vz, sx, sy, sz]
        .iter()
        .map(|c| c.len())
        .fold(out.len(), usize::min);
    let (m, r, x, y, z) = (&m[..n], &r[..n], &x[..n], &y[..n], &z[..n]);
    let (vx, vy, vz) = (&vx[..n], &vy[..n], &vz[..n]);
    let (sx, sy, sz) = (&sx[..n], &sy[..n], &sz[..n]);
    for (l, a) in out[..n].iter_mut().enumerate() {
        let h = crate::state::helio([vx[l], vy[l], vz[l]], shift);
        let (pos, spin) = ([x[l], y[l], z[l]], [sx[l], sy[l], sz[l]]);
        *a = forces::radiation_accel_of::<YARKOVSKY, GAS>(f, m0, dt, m[l], r[l], pos, h, spin);
    }
}

/// The radiation kicks `v += dt (a - w)` of a run of slots (`cols`, `v` cut to it) in the
/// system `k` around `m0`, with the Yarkovsky effect and the gas chosen at compile time and
/// every column cut to one length, so that the loop vectorises (without the Yarkovsky effect
/// and the gas).
#[inline(always)]
fn fresh_kicks<const YARKOVSKY: bool, const GAS: u8>(
    (f, m0, dt, k): (&Forces, f64, f64, &RadiationSystem),
    cols: Columns,
    [vx, vy, vz]: [&mut [f64]; 3],
) {
    let Columns {
        m,
        r,
        x: [x, y, z],
        spin: [sx, sy, sz],
        ..
    } = cols;
    let n = [m, r, x, y, z, sx, sy, sz]
        .iter()
        .map(|c| c.len())
        .fold(vx.len().min(vy.len()).min(vz.len()), usize::min);
    let (vx, vy, vz) = (&mut vx[..n], &mut vy[..n], &mut vz[..n]);
    let (m, r, x, y, z) = (&m[..n], &r[..n], &x[..n], &y[..n], &z[..n]);
    let (sx, sy, sz) = (&sx[..n], &sy[..n], &sz[..n]);
    for l in 0..n {
        let b = forces::Irradiated {
            m: m[l],
            s: r[l],
            x: [x[l], y[l], z[l]],
            v: [vx[l], vy[l], vz[l]],
            spin: [sx[l], sy[l], sz[l]],
        };
        let d = forces::radiation_dv_of::<YARKOVSKY, GAS>(f, m0, dt, k, b);
        vx[l] += d[0];
        vy[l] += d[1];
        vz[l] += d[2];
    }
}

/// The radiation acceleration (radiation, gas disk, Yarkovsky) of `one` in a system around
/// `m0` whose democratic velocities `shift` makes heliocentric.
#[inline(always)]
fn accel_of(f: &Forces, dt: f64, m0: f64, shift: [f64; 3], one: forces::Irradiated) -> [f64; 3] {
    let h = crate::state::helio(one.v, shift);
    forces::radiation_accel(f, m0, dt, one.m, one.s, one.x, h, one.spin)
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
