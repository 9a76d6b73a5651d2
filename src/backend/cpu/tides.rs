//! The tide kick ([`crate::physics::tides`]): every active system's pulling bodies, one system
//! after another in slot order (the central body's spin is a sum over its bodies; the pass
//! is linear in the bodies and small beside the pair forces).

use super::CpuHybrid;
use crate::model::StepParams;
use crate::physics::forces;
use crate::physics::tides::{self, Tidal, TidalSystem, TidalTable};
use crate::state::Bodies;

/// The slots `start..` of the bodies as a system for the tide kick.
struct Slots<'a> {
    b: &'a mut Bodies,
    start: usize,
    table: TidalTable,
}

impl TidalSystem for Slots<'_> {
    fn get(&self, k: usize) -> Tidal {
        let (b, i) = (&*self.b, self.start + k);
        Tidal {
            m: b.m[i],
            radius: b.r[i],
            body: self.table.get(b.id[i]),
            x: [b.x[i], b.y[i], b.z[i]],
            v: [b.vx[i], b.vy[i], b.vz[i]],
            spin: [b.sx[i], b.sy[i], b.sz[i]],
        }
    }

    fn add(&mut self, k: usize, dv: [f64; 3], ds: [f64; 3]) {
        let (b, i) = (&mut *self.b, self.start + k);
        b.vx[i] += dv[0];
        b.vy[i] += dv[1];
        b.vz[i] += dv[2];
        b.sx[i] += ds[0];
        b.sy[i] += ds[1];
        b.sz[i] += ds[2];
    }
}

impl CpuHybrid {
    /// [`crate::backend::HybridBackend::tide_kick`].
    pub(super) fn kick_tides(&mut self, p: &StepParams, dt: f64) {
        self.refresh_specs(p);
        let t = p.forces.tides;
        let (block, systems) = (self.layout.block, self.layout.systems.len());
        self.work.resize(systems, [0.0; forces::WORK_LEN]);
        for s in 0..systems {
            let sys = self.layout.systems[s];
            if !sys.active || sys.len == 0 {
                continue;
            }
            let (n, m0) = (self.layout.pulling(s), self.specs[s].m0);
            let mut slots = Slots {
                b: &mut self.b,
                start: s * block,
                table: t.bodies,
            };
            let mut star = sys.central_spin;
            let work = tides::tide_kick_system(&t, m0, dt, n, &mut star, &mut slots);
            self.layout.systems[s].central_spin = star;
            self.work[s][forces::WORK_TIDES] += work;
        }
        // The central spins changed: the whole layout of a backend in parts copies them.
        self.layout_version += 1;
    }
}
