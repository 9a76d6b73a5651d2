//! The hybrid engine's state resident on an OpenCL device, and the passes that run there.
//!
//! [`OpenclHybrid`] holds every per-body field in device buffers for the whole run and runs the
//! per-body passes of the regular step as kernels of `kernels/hybrid.cl`: critical radii, kick,
//! Sun kick and the Kepler drift ([`DEVICE_PASSES`]). The other passes (the pair accelerations
//! with the prechecker, the encounter machinery, ejections and energies) are not on the device
//! yet: [`crate::backend::create`] wraps this backend in the per-pass fallback with them on the
//! CPU reference, which moves only the fields they read and write. Their fields (candidate pairs,
//! pre-drift states, encounters, groups) are kept on the host side of this backend meanwhile.
//!
//! Parity: the device passes use only + - * /, sqrt, round, floor and the in-house sin/cos, in
//! the CPU's order, so they give the CPU's bits; the exception is the scalar Kepler fallback
//! (bodies the lane solver does not accept: e >= 0.9, unbound), which calls the device's sin,
//! cos, cbrt, acos and log (kernels/common/kepler.h) and agrees with the CPU to rounding.

use super::pair_pass::{self, PairInputs, PairPass};
use super::{cl_error, field::Field as Buffer, program, Gpu};
use crate::backend::cpu::GroupBatch;
use crate::backend::fields::{EncounterPairs, KickState, PreDriftStates};
use crate::backend::{
    Field, FieldData, FieldTransfer, HybridBackend, PartStep, Pass, PassSet, PassStatus,
};
use crate::error::{Error, Result};
use crate::model::{
    Collision, Ejection, EncounterStats, HybridSnapshot, Layout, StepCounts, StepEvents, StepParams,
};
use crate::physics::bulirsch_stoer::BsOptions;
use crate::physics::changeover::hill_factor_of;
use crate::physics::energy::EnergyParts;
use crate::state::Bodies;
use ocl::Kernel;

/// The passes this backend runs on the device.
pub const DEVICE_PASSES: [Pass; 6] = [
    Pass::CriticalRadii,
    Pass::RefreshAccelerations,
    Pass::Accelerations,
    Pass::Kick,
    Pass::SunKick,
    Pass::Drift,
];

/// Slots of `kernels/hybrid.cl`'s status buffer.
const STATUS_DRIFT_FAILED: usize = 0;
const STATUS_RADII_GREW: usize = 1;
const STATUS_CANDIDATES: usize = pair_pass::STATUS_CANDIDATES;
const STATUS_LEN: usize = 3;
const NO_FAILURE: u32 = u32::MAX;

/// The body arrays on the device.
struct BodyBuffers {
    pos: [Buffer<f64>; 3],
    vel: [Buffer<f64>; 3],
    m: Buffer<f64>,
    r: Buffer<f64>,
    spin: [Buffer<f64>; 3],
    id: Buffer<u64>,
}

/// The kick state and critical radii on the device.
struct KickBuffers {
    rcrit: Buffer<f64>,
    rcrit_kick: Buffer<f64>,
    inv_rcrit_kick: Buffer<f64>,
    far: [Buffer<f64>; 3],
    near: [Buffer<f64>; 3],
}

/// Per-slot and per-system maps of the layout (see `kernels/hybrid.cl`).
struct LayoutBuffers {
    live_mu: Buffer<f64>,
    inv_mu: Buffer<f64>,
    n1: Buffer<f64>,
    n2_tau: Buffer<f64>,
    hill: Buffer<f64>,
    sys_len: Buffer<u32>,
    sys_massive: Buffer<u32>,
    sys_pulling: Buffer<u32>,
    sys_m0: Buffer<f64>,
    shift: Buffer<f64>,
}

/// The kernels, with their buffer arguments bound once.
struct Kernels {
    kick: Kernel,
    sun_shift: Kernel,
    sun_move: Kernel,
    drift: Kernel,
    critical_radii: Kernel,
}

/// Everything on the device for one state size.
struct Resident {
    bodies: BodyBuffers,
    kick: KickBuffers,
    maps: LayoutBuffers,
    status: Buffer<u32>,
    kernels: Kernels,
    pair: PairPass,
}

/// The hybrid engine's state on an OpenCL device (see the module docs).
pub struct OpenclHybrid {
    gpu: Gpu,
    layout: Layout,
    /// Slots in the arrays (`block` times the number of systems).
    slots: usize,
    dev: Option<Resident>,
    /// Host copy of the masses (for the Hill factors, refreshed when the masses change).
    masses: Vec<f64>,
    /// The step parameters the maps were built for.
    params: Option<StepParams>,
    /// The kick's critical radii (`rcrit_kick`) equal the current ones (`rcrit`); otherwise
    /// the pair pass adopts them first, as the CPU does.
    radii_adopted: bool,
    /// The first device failure of a pass, reported by the next [`HybridBackend::status`].
    failure: Option<Error>,
    /// Fields of the passes not on the device yet, kept here.
    pre_drift: PreDriftStates,
    encounters: EncounterPairs,
    groups: Box<GroupBatch>,
}

impl OpenclHybrid {
    /// Open OpenCL device `device` (see `orrery devices`) and build the hybrid kernels.
    pub fn open(device: Option<usize>) -> Result<Self> {
        let gpu = Gpu::open(device, &["hybrid.cl", "pair.cl"])?;
        Ok(OpenclHybrid {
            gpu,
            layout: Layout::default(),
            slots: 0,
            dev: None,
            masses: Vec::new(),
            params: None,
            radii_adopted: false,
            failure: None,
            pre_drift: PreDriftStates::default(),
            encounters: EncounterPairs::default(),
            groups: Box::default(),
        })
    }

    /// The passes that must run on the CPU reference: all but [`DEVICE_PASSES`].
    pub fn host_passes() -> PassSet {
        let on_device = PassSet::of(&DEVICE_PASSES);
        PassSet::of(
            &Pass::ALL
                .into_iter()
                .filter(|p| !on_device.contains(*p))
                .collect::<Vec<_>>(),
        )
    }

    /// Wait until every pass enqueued so far has finished (for timings; the passes themselves
    /// never wait).
    pub fn finish(&self) -> Result<()> {
        self.gpu.finish()
    }

    /// The device description (for reports).
    pub fn device_name(&self) -> &str {
        &self.gpu.info.name
    }

    fn dev(&self) -> Result<&Resident> {
        self.dev
            .as_ref()
            .ok_or_else(|| Error::run("the OpenCL backend holds no state before `restore`"))
    }

    fn dev_mut(&mut self) -> Result<&mut Resident> {
        self.dev
            .as_mut()
            .ok_or_else(|| Error::run("the OpenCL backend holds no state before `restore`"))
    }

    /// Keep the first failure for the next status read (a pass cannot return one: the host
    /// waits for the device only there).
    fn latch(&mut self, r: Result<()>) {
        if let Err(e) = r {
            self.failure.get_or_insert(e);
        }
    }

    /// Allocate every field for `n` slots and `systems` systems and bind the kernels.
    fn allocate(&self, n: usize, systems: usize) -> Result<Resident> {
        let g = &self.gpu;
        let f = |name: &'static str| Buffer::<f64>::new(g, name, n);
        let three = |names: [&'static str; 3]| -> Result<[Buffer<f64>; 3]> {
            Ok([f(names[0])?, f(names[1])?, f(names[2])?])
        };
        let bodies = BodyBuffers {
            pos: three(["x", "y", "z"])?,
            vel: three(["vx", "vy", "vz"])?,
            m: f("m")?,
            r: f("r")?,
            spin: three(["sx", "sy", "sz"])?,
            id: Buffer::new(g, "id", n)?,
        };
        let kick = KickBuffers {
            rcrit: f("rcrit")?,
            rcrit_kick: f("rcrit_kick")?,
            inv_rcrit_kick: f("inv_rcrit_kick")?,
            far: three(["far_x", "far_y", "far_z"])?,
            near: three(["near_x", "near_y", "near_z"])?,
        };
        let maps = LayoutBuffers {
            live_mu: f("live_mu")?,
            inv_mu: f("inv_mu")?,
            n1: f("n1")?,
            n2_tau: f("n2_tau")?,
            hill: f("hill")?,
            sys_len: Buffer::new(g, "sys_len", systems)?,
            sys_massive: Buffer::new(g, "sys_massive", systems)?,
            sys_pulling: Buffer::new(g, "sys_pulling", systems)?,
            sys_m0: Buffer::new(g, "sys_m0", systems)?,
            shift: Buffer::new(g, "shift", 3 * systems)?,
        };
        let status = Buffer::<u32>::new(g, "status", STATUS_LEN)?;
        let kernels = Kernels::bind(g, &bodies, &kick, &maps, &status)?;
        let pair = PairPass::new(
            g,
            &self.layout,
            n,
            &PairInputs {
                pos: [&bodies.pos[0], &bodies.pos[1], &bodies.pos[2]],
                m: &bodies.m,
                rcrit: &kick.rcrit,
                rcrit_kick: &kick.rcrit_kick,
                inv_rcrit_kick: &kick.inv_rcrit_kick,
                far: [&kick.far[0], &kick.far[1], &kick.far[2]],
                near: [&kick.near[0], &kick.near[1], &kick.near[2]],
                sys_len: &maps.sys_len,
                sys_massive: &maps.sys_massive,
                status: &status,
            },
        )?;
        Ok(Resident {
            bodies,
            kick,
            maps,
            status,
            kernels,
            pair,
        })
    }

    /// Upload the per-slot and per-system maps of the layout for the step parameters `p`.
    fn upload_maps(&mut self) -> Result<()> {
        let Some(p) = self.params else {
            return Ok(());
        };
        let (n, block) = (self.slots, self.layout.block);
        let systems = self.layout.systems.len();
        let (mut live_mu, mut inv_mu) = (vec![0.0; n], vec![0.0; n]);
        let (mut n1, mut n2_tau, mut hill) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        let mut sys_len = vec![0u32; systems];
        let mut sys_massive = vec![0u32; systems];
        let mut sys_pulling = vec![0u32; systems];
        let mut sys_m0 = vec![1.0; systems];
        for (s, sys) in self.layout.systems.iter().enumerate() {
            let spec = sys.spec.unwrap_or_else(|| (&p).into());
            sys_m0[s] = spec.m0;
            sys_massive[s] = sys.massive as u32;
            sys_pulling[s] = match self.layout.semi_active {
                true => sys.len,
                false => sys.massive,
            } as u32;
            if !sys.active {
                continue;
            }
            sys_len[s] = sys.len as u32;
            for k in 0..sys.len {
                let i = s * block + k;
                live_mu[i] = spec.m0;
                inv_mu[i] = 1.0 / spec.m0;
                n1[i] = spec.n1;
                n2_tau[i] = spec.n2 * p.tau;
                if k < sys.massive {
                    hill[i] = hill_factor_of(self.masses[i], spec.m0);
                }
            }
        }
        let m = &mut self.dev_mut()?.maps;
        m.live_mu.upload(&live_mu)?;
        m.inv_mu.upload(&inv_mu)?;
        m.n1.upload(&n1)?;
        m.n2_tau.upload(&n2_tau)?;
        m.hill.upload(&hill)?;
        m.sys_len.upload(&sys_len)?;
        m.sys_massive.upload(&sys_massive)?;
        m.sys_pulling.upload(&sys_pulling)?;
        m.sys_m0.upload(&sys_m0)
    }

    fn refresh_maps(&mut self) {
        let r = self.upload_maps();
        self.latch(r);
    }

    /// Remember the step parameters; the maps depend on them.
    fn saw(&mut self, p: &StepParams) {
        if self.params != Some(*p) {
            self.params = Some(*p);
            self.refresh_maps();
        }
    }

    /// Run `kernel` over `n` work-items.
    fn launch(kernel: &Kernel, n: usize, what: &str) -> Result<()> {
        if n == 0 {
            return Ok(());
        }
        // SAFETY: every buffer argument was bound with the length the kernel indexes up to
        // (`n` slots or systems), and the kernels check their index against it.
        unsafe { kernel.cmd().global_work_size(n).enq() }.map_err(|e| cl_error(what, e))
    }

    fn status_words(&self) -> Result<Vec<u32>> {
        self.dev()?.status.to_vec()
    }

    fn reset_status(&mut self, slot: usize, value: u32) -> Result<()> {
        self.dev_mut()?.status.upload_at(slot, &[value])
    }

    fn download3(b: &[Buffer<f64>; 3]) -> Result<[Vec<f64>; 3]> {
        Ok([b[0].to_vec()?, b[1].to_vec()?, b[2].to_vec()?])
    }

    fn upload3(b: &mut [Buffer<f64>; 3], v: &[Vec<f64>; 3]) -> Result<()> {
        for c in 0..3 {
            b[c].upload(&v[c])?;
        }
        Ok(())
    }

    fn try_export(&mut self, f: Field) -> Result<FieldData> {
        let d = self.dev()?;
        Ok(match f {
            Field::Positions => FieldData::Positions(Self::download3(&d.bodies.pos)?),
            Field::Velocities => FieldData::Velocities(Self::download3(&d.bodies.vel)?),
            Field::Masses => FieldData::Masses(d.bodies.m.to_vec()?),
            Field::Radii => FieldData::Radii(d.bodies.r.to_vec()?),
            Field::Spins => FieldData::Spins(Self::download3(&d.bodies.spin)?),
            Field::Ids => FieldData::Ids(d.bodies.id.to_vec()?),
            Field::Layout => FieldData::Layout(self.layout.clone()),
            Field::CriticalRadii => FieldData::CriticalRadii(d.kick.rcrit.to_vec()?),
            Field::Kick => {
                let grew = self.status_words()?[STATUS_RADII_GREW] != 0;
                let d = self.dev()?;
                FieldData::Kick(KickState {
                    rcrit: d.kick.rcrit_kick.to_vec()?,
                    far: Self::download3(&d.kick.far)?,
                    near: Self::download3(&d.kick.near)?,
                    radii_grew: grew,
                })
            }
            Field::Candidates => FieldData::Candidates(self.candidates()?),
            Field::PreDrift => FieldData::PreDrift(self.pre_drift.clone()),
            Field::Encounters => FieldData::Encounters(self.encounters.clone()),
            Field::Groups => FieldData::Groups(self.groups.clone()),
        })
    }

    fn try_import(&mut self, data: FieldData) -> Result<()> {
        match data {
            FieldData::Positions(v) => Self::upload3(&mut self.dev_mut()?.bodies.pos, &v),
            FieldData::Velocities(v) => Self::upload3(&mut self.dev_mut()?.bodies.vel, &v),
            FieldData::Masses(m) => {
                self.dev_mut()?.bodies.m.upload(&m)?;
                self.masses = m;
                self.upload_maps()
            }
            FieldData::Radii(r) => self.dev_mut()?.bodies.r.upload(&r),
            FieldData::Spins(v) => Self::upload3(&mut self.dev_mut()?.bodies.spin, &v),
            FieldData::Ids(id) => self.dev_mut()?.bodies.id.upload(&id),
            FieldData::Layout(layout) => {
                self.layout = layout;
                self.upload_maps()
            }
            FieldData::CriticalRadii(r) => {
                self.radii_adopted = false;
                self.dev_mut()?.kick.rcrit.upload(&r)
            }
            FieldData::Kick(k) => {
                let inv: Vec<f64> = k.rcrit.iter().map(|r| 1.0 / r).collect();
                self.radii_adopted = false;
                self.reset_status(STATUS_RADII_GREW, k.radii_grew as u32)?;
                let d = &mut self.dev_mut()?.kick;
                d.rcrit_kick.upload(&k.rcrit)?;
                d.inv_rcrit_kick.upload(&inv)?;
                Self::upload3(&mut d.far, &k.far)?;
                Self::upload3(&mut d.near, &k.near)
            }
            FieldData::Candidates(c) => self.set_candidates(&c),
            FieldData::PreDrift(p) => {
                self.pre_drift = p;
                Ok(())
            }
            FieldData::Encounters(e) => {
                self.encounters = e;
                Ok(())
            }
            FieldData::Groups(g) => {
                self.groups = g;
                Ok(())
            }
        }
    }

    fn try_snapshot(&mut self) -> Result<HybridSnapshot> {
        let d = self.dev()?;
        let [x, y, z] = Self::download3(&d.bodies.pos)?;
        let [vx, vy, vz] = Self::download3(&d.bodies.vel)?;
        let [sx, sy, sz] = Self::download3(&d.bodies.spin)?;
        let bodies = Bodies {
            id: d.bodies.id.to_vec()?,
            m: d.bodies.m.to_vec()?,
            r: d.bodies.r.to_vec()?,
            x,
            y,
            z,
            vx,
            vy,
            vz,
            sx,
            sy,
            sz,
        };
        Ok(HybridSnapshot {
            bodies,
            layout: self.layout.clone(),
            rcrit: d.kick.rcrit_kick.to_vec()?,
            far: Self::download3(&d.kick.far)?,
            near: Self::download3(&d.kick.near)?,
            candidates: self.candidates()?,
        })
    }

    fn try_restore(&mut self, s: HybridSnapshot) -> Result<()> {
        let n = s.bodies.len();
        self.layout = match s.layout.systems.is_empty() {
            true => Layout::single(n, n),
            false => s.layout,
        };
        self.slots = n;
        self.dev = None;
        let mut dev = self.allocate(n, self.layout.systems.len())?;
        let b = &s.bodies;
        Self::upload3(
            &mut dev.bodies.pos,
            &[b.x.clone(), b.y.clone(), b.z.clone()],
        )?;
        Self::upload3(
            &mut dev.bodies.vel,
            &[b.vx.clone(), b.vy.clone(), b.vz.clone()],
        )?;
        Self::upload3(
            &mut dev.bodies.spin,
            &[b.sx.clone(), b.sy.clone(), b.sz.clone()],
        )?;
        dev.bodies.m.upload(&b.m)?;
        dev.bodies.r.upload(&b.r)?;
        dev.bodies.id.upload(&b.id)?;
        let complete = s.rcrit.len() == n && s.far.iter().chain(&s.near).all(|v| v.len() == n);
        if complete {
            let inv: Vec<f64> = s.rcrit.iter().map(|r| 1.0 / r).collect();
            dev.kick.rcrit.upload(&s.rcrit)?;
            dev.kick.rcrit_kick.upload(&s.rcrit)?;
            dev.kick.inv_rcrit_kick.upload(&inv)?;
            Self::upload3(&mut dev.kick.far, &s.far)?;
            Self::upload3(&mut dev.kick.near, &s.near)?;
        }
        dev.status.upload(&[NO_FAILURE, 0, 0])?;
        self.dev = Some(dev);
        self.radii_adopted = complete;
        match complete {
            true => self.set_candidates(&s.candidates)?,
            false => self.set_candidates(&[])?,
        }
        self.masses = s.bodies.m;
        self.pre_drift = PreDriftStates {
            states: Vec::new(),
            index: vec![u32::MAX; n],
        };
        self.encounters = EncounterPairs::default();
        *self.groups = Default::default();
        self.upload_maps()
    }

    /// The bodies of system `s` from the device.
    fn try_bodies(&mut self, s: usize) -> Result<Bodies> {
        let snap = self.try_snapshot()?;
        let mut out = Bodies::default();
        for k in self.layout.range(s) {
            out.push(&snap.bodies.get(k));
        }
        Ok(out)
    }
}

impl Kernels {
    /// Build the kernels of `kernels/hybrid.cl` with their buffer arguments; the scalar
    /// arguments (counts, time steps) are set at each launch.
    fn bind(
        g: &Gpu,
        b: &BodyBuffers,
        k: &KickBuffers,
        m: &LayoutBuffers,
        status: &Buffer<u32>,
    ) -> Result<Kernels> {
        let built = |r: ocl::Result<Kernel>, name: &str| {
            r.map_err(|e| cl_error(&format!("creating kernel {name}"), e))
        };
        let kick = built(
            g.kernel("orr_kick")
                .arg(0u32)
                .arg(0u32)
                .arg(0.0f64)
                .arg(m.live_mu.buffer())
                .arg(k.far[0].buffer())
                .arg(k.far[1].buffer())
                .arg(k.far[2].buffer())
                .arg(k.near[0].buffer())
                .arg(k.near[1].buffer())
                .arg(k.near[2].buffer())
                .arg(b.vel[0].buffer())
                .arg(b.vel[1].buffer())
                .arg(b.vel[2].buffer())
                .build(),
            "orr_kick",
        )?;
        let sun_shift = built(
            g.kernel("orr_sun_shift")
                .arg(0u32)
                .arg(0u32)
                .arg(0.0f64)
                .arg(m.sys_len.buffer())
                .arg(m.sys_pulling.buffer())
                .arg(m.sys_m0.buffer())
                .arg(b.m.buffer())
                .arg(b.vel[0].buffer())
                .arg(b.vel[1].buffer())
                .arg(b.vel[2].buffer())
                .arg(m.shift.buffer())
                .build(),
            "orr_sun_shift",
        )?;
        let sun_move = built(
            g.kernel("orr_sun_move")
                .arg(0u32)
                .arg(0u32)
                .arg(m.sys_len.buffer())
                .arg(m.shift.buffer())
                .arg(b.pos[0].buffer())
                .arg(b.pos[1].buffer())
                .arg(b.pos[2].buffer())
                .build(),
            "orr_sun_move",
        )?;
        let drift = built(
            g.kernel("orr_drift")
                .arg(0u32)
                .arg(0.0f64)
                .arg(m.live_mu.buffer())
                .arg(m.inv_mu.buffer())
                .arg(b.pos[0].buffer())
                .arg(b.pos[1].buffer())
                .arg(b.pos[2].buffer())
                .arg(b.vel[0].buffer())
                .arg(b.vel[1].buffer())
                .arg(b.vel[2].buffer())
                .arg(status.buffer())
                .build(),
            "orr_drift",
        )?;
        let critical_radii = built(
            g.kernel("orr_critical_radii")
                .arg(0u32)
                .arg(0u32)
                .arg(m.sys_len.buffer())
                .arg(m.sys_massive.buffer())
                .arg(m.n1.buffer())
                .arg(m.n2_tau.buffer())
                .arg(m.hill.buffer())
                .arg(b.pos[0].buffer())
                .arg(b.pos[1].buffer())
                .arg(b.pos[2].buffer())
                .arg(b.vel[0].buffer())
                .arg(b.vel[1].buffer())
                .arg(b.vel[2].buffer())
                .arg(k.rcrit.buffer())
                .arg(k.rcrit_kick.buffer())
                .arg(k.inv_rcrit_kick.buffer())
                .arg(status.buffer())
                .build(),
            "orr_critical_radii",
        )?;
        Ok(Kernels {
            kick,
            sun_shift,
            sun_move,
            drift,
            critical_radii,
        })
    }
}

/// Set the scalar arguments `(index, value)` of `kernel`.
fn set_args<T: ocl::OclPrm>(kernel: &Kernel, args: &[(u32, T)]) -> Result<()> {
    for &(i, v) in args {
        kernel
            .set_arg(i, v)
            .map_err(|e| cl_error("setting a kernel argument", e))?;
    }
    Ok(())
}

impl OpenclHybrid {
    fn try_critical_radii(&mut self, p: &StepParams) -> Result<()> {
        self.saw(p);
        let (n, block) = (self.slots, self.layout.block);
        self.reset_status(STATUS_RADII_GREW, 0)?;
        let k = &self.dev()?.kernels.critical_radii;
        set_args(k, &[(0, n as u32), (1, block as u32)])?;
        Self::launch(k, n, "critical radii")?;
        self.radii_adopted = true;
        Ok(())
    }

    /// The candidate list from the device.
    fn candidates(&self) -> Result<Vec<(u32, u32)>> {
        let count = self.status_words()?[STATUS_CANDIDATES] as usize;
        self.dev()?.pair.download(count)
    }

    /// Replace the candidate list on the device.
    fn set_candidates(&mut self, pairs: &[(u32, u32)]) -> Result<()> {
        let dev = self.dev_mut()?;
        dev.pair.upload(pairs)?;
        dev.status
            .upload_at(STATUS_CANDIDATES, &[pairs.len() as u32])
    }

    fn try_accelerations(&mut self) -> Result<()> {
        if !self.radii_adopted {
            self.dev()?.pair.adopt()?;
            self.radii_adopted = true;
        }
        let semi = self.layout.semi_active;
        self.dev()?.pair.run(semi, false)
    }

    /// The opening kick's refresh (see `HybridBackend::refresh_accelerations`): adopt the new
    /// radii, then the full pass if a radius grew, KickA otherwise (both decided on the device).
    fn try_refresh(&mut self) -> Result<()> {
        if !self.radii_adopted {
            self.dev()?.pair.adopt()?;
            self.radii_adopted = true;
        }
        let semi = self.layout.semi_active;
        let pair = &self.dev()?.pair;
        pair.run(semi, true)?;
        pair.refresh(semi)
    }

    fn try_stop_system(&mut self, s: usize) -> Result<()> {
        self.layout.systems[s].active = false;
        let block = self.layout.block.max(1);
        let mut pairs = self.candidates()?;
        pairs.retain(|&(i, _)| (i as usize) / block != s);
        self.set_candidates(&pairs)?;
        self.upload_maps()
    }

    fn try_kick(&mut self, dt: f64) -> Result<()> {
        let many = self.layout.systems.len() > 1;
        let n = match many {
            true => self.slots,
            false => self.layout.systems.first().map_or(0, |s| s.len),
        };
        let k = &self.dev()?.kernels.kick;
        set_args(k, &[(0, n as u32), (1, many as u32)])?;
        set_args(k, &[(2, dt)])?;
        Self::launch(k, n, "kick")
    }

    fn try_sun_kick(&mut self, p: &StepParams, dt: f64) -> Result<()> {
        self.saw(p);
        let (systems, block, slots) = (self.layout.systems.len(), self.layout.block, self.slots);
        let k = &self.dev()?.kernels;
        set_args(&k.sun_shift, &[(0, systems as u32), (1, block as u32)])?;
        set_args(&k.sun_shift, &[(2, dt)])?;
        Self::launch(&k.sun_shift, systems, "Sun kick")?;
        set_args(&k.sun_move, &[(0, slots as u32), (1, block as u32)])?;
        Self::launch(&k.sun_move, slots, "Sun kick")
    }

    fn try_drift(&mut self, p: &StepParams, dt: f64) -> Result<()> {
        self.saw(p);
        let k = &self.dev()?.kernels.drift;
        set_args(k, &[(0, self.slots as u32)])?;
        set_args(k, &[(1, dt)])?;
        Self::launch(k, self.slots, "drift")
    }

    fn try_status(&mut self) -> Result<PassStatus> {
        if let Some(e) = self.failure.take() {
            return Err(e);
        }
        let failed = self.status_words()?[STATUS_DRIFT_FAILED];
        if failed == NO_FAILURE {
            return Ok(PassStatus::default());
        }
        self.reset_status(STATUS_DRIFT_FAILED, NO_FAILURE)?;
        let k = failed as usize;
        let snap = self.try_snapshot()?;
        let b = snap.bodies.get(k);
        Err(Error::run(format!(
            "Kepler drift failed for body {} (m = {:e}, x = [{:e}, {:e}, {:e}]): the f and g and \
             universal-variable solvers did not converge",
            b.id, b.m, b.pos[0], b.pos[1], b.pos[2]
        )))
    }
}

/// Why a pass that is not on the device was called here: the fallback runs it on the CPU
/// ([`OpenclHybrid::host_passes`]), so this is a broken invariant, not a user error.
fn host_pass(pass: Pass) -> ! {
    unreachable!("pass `{pass}` is not on the OpenCL device yet: the fallback runs it on the CPU")
}

impl HybridBackend for OpenclHybrid {
    fn name(&self) -> &'static str {
        "opencl"
    }

    fn layout(&self) -> &Layout {
        &self.layout
    }

    fn stop_system(&mut self, s: usize) {
        let r = self.try_stop_system(s);
        self.latch(r);
    }

    fn step_parts(&mut self, step: &PartStep<'_>, counts: &mut StepCounts) -> Result<StepEvents> {
        step(self, counts)
    }

    fn critical_radii(&mut self, p: &StepParams) {
        let r = self.try_critical_radii(p);
        self.latch(r);
    }

    fn refresh_accelerations(&mut self) {
        let r = self.try_refresh();
        self.latch(r);
    }

    fn accelerations(&mut self) {
        let r = self.try_accelerations();
        self.latch(r);
    }

    fn kick(&mut self, dt: f64) {
        let r = self.try_kick(dt);
        self.latch(r);
    }

    fn sun_kick(&mut self, p: &StepParams, dt: f64) {
        let r = self.try_sun_kick(p, dt);
        self.latch(r);
    }

    fn save_candidate_states(&mut self) {
        host_pass(Pass::SaveCandidates)
    }

    fn drift(&mut self, p: &StepParams, dt: f64) {
        let r = self.try_drift(p, dt);
        self.latch(r);
    }

    fn encounter_search(&mut self, _dt: f64) {
        host_pass(Pass::EncounterSearch)
    }

    fn status(&mut self) -> Result<PassStatus> {
        self.try_status()
    }

    fn group_encounters(&mut self, _stats: &mut EncounterStats) -> Result<()> {
        host_pass(Pass::Grouping)
    }

    fn integrate_groups(&mut self, _p: &StepParams, _dt: f64, _opts: &BsOptions) {
        host_pass(Pass::BulirschStoer)
    }

    fn apply_groups(
        &mut self,
        _p: &StepParams,
        _stats: &mut EncounterStats,
    ) -> Result<Vec<Collision>> {
        host_pass(Pass::Mergers)
    }

    fn ejections(&mut self, _p: &StepParams) -> Vec<Ejection> {
        host_pass(Pass::Ejections)
    }

    fn energies(&mut self, _p: &StepParams) -> Vec<EnergyParts> {
        host_pass(Pass::Energy)
    }

    fn bodies(&mut self, s: usize) -> Bodies {
        let r = self.try_bodies(s);
        self.latched(r)
    }

    fn snapshot(&mut self) -> HybridSnapshot {
        let r = self.try_snapshot();
        self.latched(r)
    }

    fn restore(&mut self, s: HybridSnapshot) {
        let r = self.try_restore(s);
        self.latch(r);
    }
}

impl OpenclHybrid {
    /// The value of `r`, or after a failure (latched for the next status read) an empty one.
    fn latched<T: Default>(&mut self, r: Result<T>) -> T {
        r.unwrap_or_else(|e| {
            self.failure.get_or_insert(e);
            T::default()
        })
    }
}

impl crate::backend::fallback::DeviceBackend for OpenclHybrid {
    fn device_passes(&self) -> PassSet {
        PassSet::of(&DEVICE_PASSES)
    }
}

impl FieldTransfer for OpenclHybrid {
    fn export_field(&mut self, f: Field) -> Result<FieldData> {
        self.try_export(f)
    }

    fn import_field(&mut self, data: FieldData) -> Result<()> {
        self.try_import(data)
    }
}

/// The whole program source of the hybrid kernels (for tests and tools).
pub fn source() -> Result<String> {
    program::expand(&["hybrid.cl"])
}
