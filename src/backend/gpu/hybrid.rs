//! The hybrid engine's state resident on a device (OpenCL or CUDA), and the passes that run
//! there.
//!
//! [`DeviceHybrid`] holds every per-body field in device buffers for the whole run and runs
//! every pass of the step as kernels of `kernels/hybrid.cl`,
//! `kernels/pair.cl`, `kernels/groups.cl` and `kernels/bulirsch_stoer.cl`: critical radii, the
//! opening kick's refresh (KickA/KickB), the pair accelerations with the prechecker, kick, Sun
//! kick, save-candidates, the Kepler drift, the encounter search, the grouping, Bulirsch-Stoer
//! of the groups, their write-back, the ejections with the removal's slot moves, and the
//! energies. One rare event runs the CPU reference's own code on a host copy of the state, whose
//! changed fields then go back to the device: a substep in which a group collides (or is larger
//! than the device's group limit, or fails; see [`groups`]).
//! [`crate::backend::create`] wraps this backend in the per-pass fallback, so that any pass can
//! still be moved to the CPU with `--cpu-passes`.
//!
//! - Candidates: the pair pass writes the list on the device in the CPU's order
//!   ([`super::pair_pass`]); its length is a status word, so no pass waits for it. An imported
//!   list is uploaded.
//! - Pre-drift states: the device saves every slot's state (`PreDriftStates::index` is then the
//!   identity), in the drift kernel itself when the drift follows on the device; an imported
//!   copy is spread to the slots through its index.
//! - Encounters: one work-item per candidate pair writes a confirmed flag and counts it in the
//!   status buffer; the status read of the substep carries the count, and only when it is not
//!   zero are the flags downloaded and split on the host exactly as the CPU splits them.
//! - Grouping (GENGA Appendix A): `orr_link_pairs` lowers LINK of both ends of every confirmed
//!   pair to their minimum with an atomic min and `orr_link_jump` jumps LINK[k] to
//!   LINK[LINK[k]], in batches of rounds until a round leaves the "changed" status word clear
//!   (one status read per batch). `orr_link_compact` lists the touched slots with their labels
//!   (so only the bodies in encounters come down, not 2 words per slot); the host sorts them and
//!   orders the groups as the CPU does (`EncounterGroups::from_touched_labels`: largest first,
//!   then by smallest member) and adds the passive test particles' groups from the host split of the
//!   flags; `orr_group_gather` then packs the members' pre-drift states on the device.
//!   Imported encounters (search on the CPU) are uploaded for the same union-find.
//! - Bulirsch-Stoer and write-back: see [`groups`] (one work-group per group, groups of up to
//!   16 bodies; three result words per group come back, then a scatter kernel).
//! - Ejections: a kernel counts and lists the slots beyond the truncation radii; only when there
//!   are some (one small read per step) are those bodies and their systems' pulling bodies read
//!   back for the records, and the removal's slot moves (the CPU's `removal_moves`, computed on
//!   the host from the flags alone) applied by a kernel.
//! - Energies: one work-item per massive body for the pair sums, one per system for the rest,
//!   one download of every system's sums.
//!
//! Parity: the device passes use only + - * /, sqrt, round, floor and the in-house sin/cos, in
//! the CPU's order, so they give the CPU's bits; the exception is the scalar Kepler fallback
//! (bodies the lane solver does not accept: e >= 0.9, unbound), which calls the device's sin,
//! cos, cbrt, acos and log (kernels/common/kepler.h) and agrees with the CPU to rounding.

use super::kernel::KernelArg;
use super::pair_pass::{self, PairInputs, PairPass};
use super::{field::Field as Buffer, DeviceApi, Gpu, Kernel, KernelBuilder};
use crate::backend::cpu::{ejection_of, removal_moves, CpuHybrid};
use crate::backend::fields::{EncounterPairs, KickState, PreDriftStates};
use crate::backend::group_batch::GroupBatch;
use crate::backend::{Field, FieldData, FieldTransfer, HybridBackend, PartStep, Pass, PassStatus};
use crate::error::{Error, Result};
use crate::model::{
    Collision, Ejection, EncounterStats, HybridSnapshot, Layout, StepCounts, StepEvents,
    StepParams, SystemSpec,
};
use crate::physics::bulirsch_stoer::BsOptions;
use crate::physics::changeover::hill_factor_of;
use crate::physics::encounter::{PairEnds, PairLimits};
use crate::physics::energy::EnergyParts;
use crate::physics::forces::{Forces, Work, WORK_LEN};
use crate::physics::truncation::Grazing;
use crate::physics::wisdom_holman::{ResidentPack, WhPack};
use crate::state::{Bodies, Body};

mod groups;
mod kernels;
mod passes;
mod transfer;

use kernels::set_args;

use groups::{GroupBuffers, GroupStage};

/// The kernel modules of the hybrid engine and its Wisdom-Holman map (`kernels/<m>.cl`,
/// `cuda/<m>.cu`).
pub const MODULES: [&str; 5] = [
    "hybrid",
    "pair",
    "groups",
    "bulirsch_stoer",
    super::wisdom_holman::MODULE,
];

use crate::backend::status::{
    STATUS_CANDIDATES, STATUS_DRIFT_FAILED, STATUS_EJECTIONS, STATUS_ENCOUNTERS, STATUS_LEN,
    STATUS_LINK_CHANGED, STATUS_RADII_GREW, STATUS_TOUCHED,
};
/// Union-find rounds between two reads of the "changed" word (the last round of each batch
/// runs with the word cleared, so a clear word after it means the labels are final).
const LINK_ROUNDS: usize = 4;
const NO_FAILURE: u32 = u32::MAX;
/// Work-group size of every launch.
const LOCAL_SIZE: usize = 64;
/// Work-items per work-group and bodies per tile of the passes that give each system a
/// work-group (`ORR_SUM_GROUP`, `ORR_SUM_TILE` in `kernels/hybrid.cl`).
const SUM_GROUP: usize = 64;
const SUM_TILE: usize = 256;
/// Work-items of the kernels that stride over the candidate list (search, union-find): the
/// list's length is on the device, so they cannot be launched over it; a launch over its
/// capacity (every pair of a 2048-body disk) would be mostly idle work-items. 2^16 fill a GPU.
const LIST_ITEMS: usize = 1 << 16;

/// The body arrays on the device.
struct BodyBuffers {
    pos: [Buffer<f64>; 3],
    vel: [Buffer<f64>; 3],
    m: Buffer<f64>,
    r: Buffer<f64>,
    spin: [Buffer<f64>; 3],
    id: Buffer<u64>,
}

impl BodyBuffers {
    /// Every body array as kernel arguments, in the order `orr_bodies_gather` and
    /// `orr_apply_moves` take them: x, y, z, vx, vy, vz, m, r, sx, sy, sz, id.
    fn args<'k>(&self, k: &'k mut KernelBuilder) -> &'k mut KernelBuilder {
        k.args(&self.pos)
            .args(&self.vel)
            .arg(&self.m)
            .arg(&self.r)
            .args(&self.spin)
            .arg(&self.id)
    }
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
    /// 1 for an active system, 0 for a stopped one.
    sys_active: Buffer<u32>,
    sys_pulling: Buffer<u32>,
    sys_m0: Buffer<f64>,
    /// Squared inner and outer truncation radii of every system.
    sys_inner2: Buffer<f64>,
    sys_outer2: Buffer<f64>,
    /// The ejection check's short-period bound per system (`Grazing::short_alpha`).
    sys_short_alpha: Buffer<f64>,
    shift: Buffer<f64>,
    /// The extra forces' constants (`kernels/common/forces.h`: `ORR_FORCES_LEN`).
    forces: Buffer<f64>,
    /// The radiation kick's shift and recoil per system (`ORR_RADIATION_SYSTEM_LEN` each).
    radiation: Buffer<f64>,
    /// The central bodies' spins, three per system (the tide kick's; the layout's copy is
    /// refreshed from here, see `DeviceHybrid::spins_on_device`).
    central_spin: Buffer<f64>,
    /// The bodies' tidal properties sorted by id: the ids and four values each
    /// (`kernels/common/tides.h`; room for one entry per slot).
    tidal_ids: Buffer<u64>,
    tidal_props: Buffer<f64>,
    /// The non-conservative forces' work per system since the last `take_work` (`Work`).
    work: Buffer<f64>,
}

/// Scratch of the energy pass: per-slot pair sums and five sums per system.
struct EnergyBuffers {
    pair: Buffer<f64>,
    out: Buffer<f64>,
}

/// The per-step buffers the kernels of `kernels/hybrid.cl` share: pre-drift states, the status
/// words and the ejection check's list.
#[derive(Clone, Copy)]
struct StepScratch<'a> {
    pre: &'a Buffer<f64>,
    status: &'a Buffer<u32>,
    found: &'a Buffer<u32>,
}

/// The kernels, with their buffer arguments bound once.
struct Kernels {
    kick: Kernel,
    sun_shift: Kernel,
    /// The same with one work-group per system (systems of many slots).
    sun_shift_group: Kernel,
    sun_move: Kernel,
    drift: Kernel,
    critical_radii: Kernel,
    set_status: Kernel,
    energy_pairs: Kernel,
    energy_sums: Kernel,
    /// The same with one work-group per system (systems of many slots).
    energy_sums_group: Kernel,
    save_states: Kernel,
    ejection_check: Kernel,
    potential_kick: Kernel,
    potential_torque: Kernel,
    radiation_system: Kernel,
    radiation_kick: Kernel,
    tide_kick: Kernel,
}

/// Everything on the device for one state size.
struct Resident {
    bodies: BodyBuffers,
    kick: KickBuffers,
    maps: LayoutBuffers,
    energy: EnergyBuffers,
    /// Pre-drift states of every slot, six per slot.
    pre: Buffer<f64>,
    /// The slots the ejection check found (their count is a status word).
    found: Buffer<u32>,
    status: Buffer<u32>,
    kernels: Kernels,
    /// The pair pass with the candidate list, the search's confirmed flag per listed pair, and
    /// the search kernel bound to them.
    pair: PairPass,
    hit: Buffer<u32>,
    search: Kernel,
    /// Appendix A's labels of the slots (`kernels/groups.cl`): LINK, then the touched flags.
    link: Buffer<u32>,
    /// The touched slots with their labels, compacted (`orr_link_compact`).
    touched: Buffer<u32>,
    link_compact: Kernel,
    link_init: Kernel,
    /// The union-find round over the candidate list with the confirmed flags.
    link_pairs: Kernel,
    link_jump: Kernel,
}

/// The hybrid engine's state on an OpenCL or CUDA device (see the module docs).
pub struct DeviceHybrid {
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
    /// An encounter search ran since the last status read.
    searched: bool,
    /// Save-candidates was called and not run yet: the next drift kernel saves the states
    /// (GENGA's FG kernel does the same), anything else runs it first (`settle`).
    save_pending: bool,
    /// The confirmed encounters, or `None` while they are the flags of the last search on the
    /// device (split on the host when first asked for).
    encounters: Option<EncounterPairs>,
    /// The groups' membership in the CPU's order, and their states where [`GroupStage`] says
    /// the host copy is the valid one.
    groups: Box<GroupBatch>,
    group_stage: GroupStage,
    group_buffers: GroupBuffers,
    /// Groups integrated so far: finished on the device, handed back to the host.
    groups_done: [u64; 2],
    /// The device's work buffer holds radiation work not yet taken (it is zeroed before the
    /// first kick after a take).
    work_pending: bool,
    /// A tide kick changed the central spins on the device since the layout's copy was taken
    /// (it is refreshed before the layout is read or uploaded: `sync_central_spins`).
    spins_on_device: bool,
    /// Entries of the device's tidal table.
    tidal_len: u32,
}

impl DeviceHybrid {
    /// Open device `device` of `api` (see `orrery devices`) with the hybrid kernels.
    pub fn open(api: DeviceApi, device: Option<usize>) -> Result<Self> {
        let gpu = Gpu::open(api, device, &MODULES)?;
        Ok(DeviceHybrid {
            gpu,
            layout: Layout::default(),
            slots: 0,
            dev: None,
            masses: Vec::new(),
            params: None,
            radii_adopted: false,
            failure: None,
            searched: false,
            save_pending: false,
            encounters: Some(EncounterPairs::default()),
            groups: Box::default(),
            group_stage: GroupStage::OnHost,
            group_buffers: GroupBuffers::default(),
            groups_done: [0; 2],
            work_pending: false,
            spins_on_device: false,
            tidal_len: 0,
        })
    }

    /// Wait until every pass enqueued so far has finished (for timings; the passes themselves
    /// never wait).
    pub fn finish(&self) -> Result<()> {
        self.gpu.finish()
    }

    /// Encounter groups integrated so far by this backend's Bulirsch-Stoer pass: (finished on
    /// the device, handed back to the host because of size, a collision or a failure).
    pub fn bulirsch_stoer_groups(&self) -> (u64, u64) {
        (self.groups_done[0], self.groups_done[1])
    }

    /// The device this backend runs on.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// The device description (for reports).
    pub fn device_name(&self) -> &str {
        &self.gpu.info.name
    }

    fn dev(&self) -> Result<&Resident> {
        self.dev
            .as_ref()
            .ok_or_else(|| Error::run("the device backend holds no state before `restore`"))
    }

    fn dev_mut(&mut self) -> Result<&mut Resident> {
        self.dev
            .as_mut()
            .ok_or_else(|| Error::run("the device backend holds no state before `restore`"))
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
            sys_active: Buffer::new(g, "sys_active", systems)?,
            sys_pulling: Buffer::new(g, "sys_pulling", systems)?,
            sys_m0: Buffer::new(g, "sys_m0", systems)?,
            sys_inner2: Buffer::new(g, "sys_inner2", systems)?,
            sys_outer2: Buffer::new(g, "sys_outer2", systems)?,
            sys_short_alpha: Buffer::new(g, "sys_short_alpha", systems)?,
            shift: Buffer::new(g, "shift", 3 * systems)?,
            forces: Buffer::new(g, "forces", self.forces_len())?,
            radiation: Buffer::new(g, "radiation", 6 * systems)?,
            central_spin: Buffer::new(g, "central_spin", 3 * systems)?,
            tidal_ids: Buffer::new(g, "tidal_ids", n.max(1))?,
            tidal_props: Buffer::new(g, "tidal_props", 4 * n.max(1))?,
            work: Buffer::new(g, "work", WORK_LEN * systems)?,
        };
        let energy = EnergyBuffers {
            pair: f("energy_pair")?,
            out: Buffer::new(g, "energy_out", 5 * systems)?,
        };
        let pre = Buffer::<f64>::new(g, "pre_drift", 6 * n)?;
        let status = Buffer::<u32>::new(g, "status", STATUS_LEN)?;
        let found = Buffer::<u32>::new(g, "ejected", n)?;
        let scratch = StepScratch {
            pre: &pre,
            status: &status,
            found: &found,
        };
        let kernels = Kernels::bind(g, &bodies, &kick, &maps, &energy, &scratch)?;
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
                sys_active: &maps.sys_active,
                status: &status,
            },
        )?;
        let hit = Buffer::<u32>::new(g, "candidate_hit", pair.capacity())?;
        let search = g
            .kernel("orr_encounter_search")
            .arg(pair.capacity() as u32)
            .arg(0.0f64)
            .arg(pair.pairs())
            .arg(&pre)
            .args(&bodies.pos)
            .args(&bodies.vel)
            .arg(&kick.rcrit)
            .arg(&hit)
            .arg(&status)
            .build()?;
        let link = Buffer::<u32>::new(g, "link", 2 * n)?;
        let link_init = g.kernel("orr_link_init").arg(n as u32).arg(&link).build()?;
        let tp_passive = 0u32;
        let link_pairs = g
            .kernel("orr_link_pairs")
            .arg(pair.capacity() as u32)
            .arg(1u32)
            .arg(tp_passive)
            .arg(self.layout.block.max(1) as u32)
            .arg(n as u32)
            .arg(pair.pairs())
            .arg(&hit)
            .arg(&maps.sys_massive)
            .arg(&link)
            .arg(&status)
            .build()?;
        let link_jump = g
            .kernel("orr_link_jump")
            .arg(n as u32)
            .arg(&link)
            .arg(&status)
            .build()?;
        let touched = Buffer::<u32>::new(g, "touched", 2 * n)?;
        let link_compact = g
            .kernel("orr_link_compact")
            .arg(n as u32)
            .arg(&link)
            .arg(&touched)
            .arg(&status)
            .build()?;
        Ok(Resident {
            link,
            touched,
            link_compact,
            link_init,
            link_pairs,
            link_jump,
            bodies,
            kick,
            maps,
            energy,
            pre,
            found,
            status,
            kernels,
            pair,
            hit,
            search,
        })
    }

    /// The forces buffer's length for the step parameters seen: the constants and the gas
    /// disk's gravity table.
    fn forces_len(&self) -> usize {
        self.params
            .map_or(Forces::DEVICE_LEN, |p| p.forces.device_buffer_len())
    }

    /// Upload the per-slot and per-system maps of the layout for the step parameters `p`.
    fn upload_maps(&mut self) -> Result<()> {
        self.sync_central_spins()?;
        let Some(p) = self.params else {
            return Ok(());
        };
        if self.dev()?.maps.forces.len() != self.forces_len() {
            // The gas disk's gravity table arrived with the run's step parameters: allocate
            // anew for its length (once a run; it does not change) and come back here.
            let s = self.try_snapshot()?;
            return self.try_restore(s);
        }
        let (n, block) = (self.slots, self.layout.block);
        let systems = self.layout.systems.len();
        let (mut live_mu, mut inv_mu) = (vec![0.0; n], vec![0.0; n]);
        let (mut n1, mut n2_tau, mut hill) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        let mut sys_len = vec![0u32; systems];
        let mut sys_massive = vec![0u32; systems];
        let mut sys_active = vec![0u32; systems];
        let mut sys_pulling = vec![0u32; systems];
        let mut sys_m0 = vec![1.0; systems];
        let (mut sys_inner2, mut sys_outer2) = (vec![0.0; systems], vec![0.0; systems]);
        let mut sys_short_alpha = vec![0.0; systems];
        for (s, sys) in self.layout.systems.iter().enumerate() {
            let spec: SystemSpec = sys.spec.unwrap_or_else(|| (&p).into());
            sys_m0[s] = spec.m0;
            // As the CPU's ejection pass squares them.
            sys_inner2[s] = spec.inner_truncation.powi(2);
            sys_short_alpha[s] = Grazing::new(spec.m0, spec.inner_truncation, p.tau).short_alpha;
            sys_outer2[s] = spec.outer_truncation.powi(2);
            sys_massive[s] = sys.massive as u32;
            sys_active[s] = sys.active as u32;
            sys_pulling[s] = self.layout.pulling(s) as u32;
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
        m.sys_active.upload(&sys_active)?;
        m.sys_pulling.upload(&sys_pulling)?;
        m.sys_inner2.upload(&sys_inner2)?;
        m.sys_short_alpha.upload(&sys_short_alpha)?;
        m.sys_outer2.upload(&sys_outer2)?;
        m.forces.upload(&p.forces.device_buffer())?;
        m.sys_m0.upload(&sys_m0)?;
        self.upload_tides(&p)
    }

    /// The central spins of the layout and the bodies' tidal table (with tides on).
    fn upload_tides(&mut self, p: &StepParams) -> Result<()> {
        if !p.forces.has_tides() {
            return Ok(());
        }
        let spins: Vec<f64> = self
            .layout
            .systems
            .iter()
            .flat_map(|s| s.central_spin)
            .collect();
        let table = p.forces.tides.bodies.entries();
        if table.len() > self.slots.max(1) {
            return Err(Error::run(format!(
                "the tidal table has {} bodies, more than the {} slots of the device's table",
                table.len(),
                self.slots.max(1)
            )));
        }
        let ids: Vec<u64> = table.iter().map(|e| e.0).collect();
        let props: Vec<f64> = table
            .iter()
            .flat_map(|(_, t)| [t.k2, t.k2f, t.tau, t.ic])
            .collect();
        let m = &mut self.dev_mut()?.maps;
        m.central_spin.upload(&spins)?;
        if !table.is_empty() {
            m.tidal_ids.upload_at(0, &ids)?;
            m.tidal_props.upload_at(0, &props)?;
        }
        self.tidal_len = table.len() as u32;
        Ok(())
    }

    /// Bring the central spins a tide kick changed on the device into the layout.
    fn sync_central_spins(&mut self) -> Result<()> {
        if !std::mem::take(&mut self.spins_on_device) {
            return Ok(());
        }
        let spins = self.dev()?.maps.central_spin.to_vec()?;
        for (sys, s) in self.layout.systems.iter_mut().zip(spins.chunks_exact(3)) {
            sys.central_spin = [s[0], s[1], s[2]];
        }
        Ok(())
    }

    fn try_tide_kick(&mut self, p: &StepParams, dt: f64) -> Result<()> {
        self.saw(p);
        let (systems, block) = (self.layout.systems.len(), self.layout.block);
        self.start_work()?;
        let k = &self.dev()?.kernels.tide_kick;
        set_args(
            k,
            &[(0, systems as u32), (1, block as u32), (3, self.tidal_len)],
        )?;
        set_args(k, &[(2, dt)])?;
        Self::launch(k, systems, "tide kick")?;
        self.spins_on_device = true;
        Ok(())
    }

    fn refresh_maps(&mut self) {
        let r = self.upload_maps();
        self.latch(r);
    }

    /// Remember the step parameters; the maps depend on them. When only the forces changed (the
    /// gas disk's surface density dissipates step by step), only their constants go up.
    fn saw(&mut self, p: &StepParams) {
        match self.params {
            Some(old) if old == *p => {}
            Some(old)
                if StepParams {
                    forces: p.forces,
                    ..old
                } == *p =>
            {
                self.params = Some(*p);
                let r = self
                    .dev_mut()
                    .and_then(|d| d.maps.forces.upload_at(0, &p.forces.device_constants()));
                self.latch(r);
            }
            _ => {
                self.params = Some(*p);
                self.refresh_maps();
            }
        }
    }

    /// Run `kernel` over `n` work-items in work-groups of [`LOCAL_SIZE`]: every buffer
    /// argument was bound with the length the kernel indexes up to (`n` slots or systems), and
    /// the kernels check their index against it (the padding work-items return at once).
    fn launch(kernel: &Kernel, n: usize, what: &str) -> Result<()> {
        kernel
            .launch(n, Some(LOCAL_SIZE))
            .map_err(|e| Error::run(format!("{what}: {e}")))
    }

    /// Run a per-system pass over `systems` systems of `block` slots (its arguments 0 and 1,
    /// and 2 when `dt` is given): `[one, grouped]`, the kernel with one work-item per system, or
    /// for systems of at least [`SUM_GROUP`] slots its twin with a work-group of [`SUM_GROUP`]
    /// per system.
    fn launch_systems(
        [one, grouped]: [&Kernel; 2],
        (systems, block): (usize, usize),
        dt: Option<f64>,
        what: &str,
    ) -> Result<()> {
        let many_slots = block >= SUM_GROUP;
        let kernel = if many_slots { grouped } else { one };
        set_args(kernel, &[(0, systems as u32), (1, block as u32)])?;
        if let Some(dt) = dt {
            set_args(kernel, &[(2, dt)])?;
        }
        match many_slots {
            true => kernel.launch(systems * SUM_GROUP, Some(SUM_GROUP)),
            false => kernel.launch(systems, Some(LOCAL_SIZE)),
        }
        .map_err(|e| Error::run(format!("{what}: {e}")))
    }

    fn status_words(&self) -> Result<Vec<u32>> {
        self.dev()?.status.to_vec()
    }

    fn reset_status(&mut self, slot: usize, value: u32) -> Result<()> {
        let mut words = self.status_words()?;
        words[slot] = value;
        self.dev_mut()?.status.upload(&words)
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
}

impl HybridBackend for DeviceHybrid {
    fn name(&self) -> &'static str {
        self.gpu.device_api().name()
    }

    fn layout(&self) -> &Layout {
        &self.layout
    }

    fn stop_system(&mut self, s: usize) {
        self.settle();
        let r = self.try_stop_system(s);
        self.latch(r);
    }

    fn step_parts(&mut self, step: &PartStep<'_>, counts: &mut StepCounts) -> Result<StepEvents> {
        step(self, counts)
    }

    fn critical_radii(&mut self, p: &StepParams) {
        self.settle();
        let r = self.try_critical_radii(p);
        self.latch(r);
    }

    fn refresh_accelerations(&mut self) {
        self.settle();
        let r = self.try_refresh();
        self.latch(r);
    }

    fn accelerations(&mut self) {
        self.settle();
        let r = self.try_accelerations();
        self.latch(r);
    }

    fn kick(&mut self, dt: f64) {
        self.settle();
        let r = self.try_kick(dt);
        self.latch(r);
    }

    fn potential_kick(&mut self, p: &StepParams, dt: f64) {
        self.settle();
        let r = self.try_potential_kick(p, dt);
        self.latch(r);
    }

    fn radiation_kick(&mut self, p: &StepParams, dt: f64) {
        self.settle();
        let r = self.try_radiation_kick(p, dt);
        self.latch(r);
    }

    fn tide_kick(&mut self, p: &StepParams, dt: f64) {
        self.settle();
        let r = self.try_tide_kick(p, dt);
        self.latch(r);
    }

    fn take_work(&mut self) -> Vec<Work> {
        let r = self.try_take_work();
        self.latched(r)
    }

    fn sun_kick(&mut self, p: &StepParams, dt: f64) {
        self.settle();
        let r = self.try_sun_kick(p, dt);
        self.latch(r);
    }

    fn save_candidate_states(&mut self) {
        let r = self.try_save_candidates();
        self.latch(r);
    }

    fn drift(&mut self, p: &StepParams, dt: f64) {
        let r = self.try_drift(p, dt);
        self.latch(r);
    }

    fn encounter_search(&mut self, dt: f64) {
        self.settle();
        let r = self.try_encounter_search(dt);
        self.latch(r);
    }

    fn status(&mut self) -> Result<PassStatus> {
        self.try_status()
    }

    fn candidate_ends(&mut self, _limits: &PairLimits) -> Result<Vec<PairEnds>> {
        // Every listed pair: the device keeps no minima of its search.
        self.settle();
        self.try_candidate_ends()
    }

    fn group_encounters(&mut self, stats: &mut EncounterStats) -> Result<()> {
        self.settle();
        self.try_group_encounters(stats)
    }

    fn integrate_groups(&mut self, p: &StepParams, dt: f64, opts: &BsOptions) {
        self.settle();
        let r = self.try_integrate_groups(p, dt, opts);
        self.latch(r);
    }

    fn apply_groups(
        &mut self,
        p: &StepParams,
        stats: &mut EncounterStats,
    ) -> Result<Vec<Collision>> {
        self.settle();
        if let Some(e) = self.failure.take() {
            return Err(e);
        }
        self.try_apply_groups(p, stats)
    }

    fn ejections(&mut self, p: &StepParams) -> Vec<Ejection> {
        self.settle();
        let r = self.try_ejections(p);
        self.latched(r)
    }

    fn energies(&mut self, p: &StepParams) -> Vec<EnergyParts> {
        self.settle();
        let r = self.try_energies(p);
        self.latched(r)
    }

    fn bodies(&mut self, s: usize) -> Bodies {
        self.settle();
        let r = self.try_bodies(s);
        self.latched(r)
    }

    fn snapshot(&mut self) -> HybridSnapshot {
        self.settle();
        let r = self.try_snapshot();
        self.latched(r)
    }

    fn restore(&mut self, s: HybridSnapshot) {
        let r = self.try_restore(s);
        self.latch(r);
    }

    fn map_on_device(&self) -> bool {
        true
    }

    fn resident_pack(&mut self, pack: &mut WhPack) -> Result<Box<dyn ResidentPack>> {
        super::wisdom_holman::resident(&self.gpu, pack)
    }
}

impl DeviceHybrid {
    /// The value of `r`, or after a failure (latched for the next status read) an empty one.
    fn latched<T: Default>(&mut self, r: Result<T>) -> T {
        r.unwrap_or_else(|e| {
            self.failure.get_or_insert(e);
            T::default()
        })
    }
}

impl crate::backend::fallback::DeviceBackend for DeviceHybrid {
    fn adopt_params(&mut self, p: &StepParams) {
        self.saw(p);
    }
}

impl FieldTransfer for DeviceHybrid {
    fn export_field(&mut self, f: Field) -> Result<FieldData> {
        self.settle();
        self.try_export(f)
    }

    fn import_field(&mut self, data: FieldData) -> Result<()> {
        self.settle();
        self.try_import(data)
    }
}
