//! Close-encounter groups on the device: the union-find grouping (GENGA Appendix A), the
//! Bulirsch-Stoer integration of the groups (section 3.2.6; `kernels/bulirsch_stoer.cl`, one
//! work-group per group) and the write-back of their end states.
//!
//! The host keeps the groups' membership in the CPU's order (`GroupBatch`); the members' start
//! states stay on the device from the gather to the write-back, so a substep whose groups all
//! finish on the device reads back only three words per group (status and substep counters).
//! A group the device hands back (more than `ORR_BS_MAX_BODIES` bodies, a collision, or a
//! failure) is integrated on the host by the CPU's `integrate_group` from the same start
//! state, and that substep's write-back, merger energies and removals run on a host copy of the
//! state by the CPU's own pass (`CpuHybrid::apply_groups`): mergers are rare, and their records
//! and removal order are then the CPU's by construction.
//!
//! [`GroupStage`] says where the groups of the substep stand, so that the fallback can move
//! `Field::Groups` either way: exporting them brings the start states (and, once integrated,
//! the results) to the host; importing them makes the host copy the valid one.

use super::{
    set_args, Buffer, DeviceHybrid, LINK_ROUNDS, LIST_ITEMS, STATUS_LINK_CHANGED, STATUS_TOUCHED,
};
use crate::backend::cpu::CpuHybrid;
use crate::backend::gpu::field::Elem;
use crate::backend::{FieldData, FieldTransfer, HybridBackend};
use crate::error::{Error, Result};
use crate::model::{Collision, EncounterStats, StepParams, SystemSpec};
use crate::physics::bulirsch_stoer::BsOptions;
use crate::physics::recursion::{LevelSystem, Recursion};
use crate::state::Body;

/// Work-items per group of the Bulirsch-Stoer kernel (at most `ORR_BS_MAX_BODIES`).
const BS_LOCAL: usize = 16;
/// Work-group memory of one group, `sizeof(orr_bs_group_t)` in `kernels/common/bulirsch_stoer.h`:
/// 84 doubles and one u32 per body for 16 bodies. The kernel checks it against its own size and
/// hands every group back if it is short.
const BS_SHARED_BYTES: usize = 16 * (84 * 8 + 4);
/// `ORR_BS_DONE` of `kernels/common/bulirsch_stoer.h`.
const BS_DONE: u32 = 0;

/// Where the groups of the current substep stand.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(super) enum GroupStage {
    /// The host copy is the valid one (no groups, or groups imported from the CPU reference,
    /// with their results if Bulirsch-Stoer ran there).
    #[default]
    OnHost,
    /// Formed on the device: the host holds the membership, the device the start states.
    Formed,
    /// Integrated on the device over `dt` with `opts`: end states and result words there.
    Integrated { dt: f64, opts: BsOptions },
}

/// The groups' arrays on the device, kept between substeps and grown when a substep needs more.
#[derive(Default)]
pub(super) struct GroupBuffers {
    /// Slots of the members, group after group.
    members: Option<Buffer<u32>>,
    /// 1 for the members written back (all of a massive group, a test particle's group's last).
    write: Option<Buffer<u32>>,
    /// Group g holds members start[g] .. start[g + 1].
    start: Option<Buffer<u32>>,
    /// The central mass of each group's system.
    m0: Option<Buffer<f64>>,
    /// The members' start states, twelve numbers each (`orr_group_gather`), and their ids.
    states: Option<Buffer<f64>>,
    ids: Option<Buffer<u64>>,
    /// End states, six numbers per member, and three result words per group.
    end: Option<Buffer<f64>>,
    result: Option<Buffer<u32>>,
}

/// `slot` holding at least `len` elements (grown to a power of two, so that growth is rare).
fn grown<'a, T: Elem>(
    gpu: &super::Gpu,
    slot: &'a mut Option<Buffer<T>>,
    name: &'static str,
    len: usize,
) -> Result<&'a mut Buffer<T>> {
    if slot.as_ref().is_none_or(|b| b.len() < len) {
        *slot = Some(Buffer::new(gpu, name, len.next_power_of_two().max(64))?);
    }
    Ok(slot.as_mut().expect("grown above"))
}

fn bound<T: Elem>(slot: &Option<Buffer<T>>) -> Result<&Buffer<T>> {
    slot.as_ref()
        .ok_or_else(|| Error::run("the encounter groups were not formed on the device"))
}

impl DeviceHybrid {
    /// Grouping (GENGA Appendix A): the labels by the union-find on the device, downloaded
    /// once, ordered on the host as the CPU orders them (`EncounterGroups::from_labels`); then
    /// the test particles' groups, and the members' pre-drift states gathered on the device.
    pub(super) fn try_group_encounters(&mut self, stats: &mut EncounterStats) -> Result<()> {
        let n = self.slots;
        let passive_tp =
            !self.layout.semi_active && self.layout.systems.iter().any(|s| s.len > s.massive);
        let recursion = self.params.is_some_and(|p| p.recursion.is_on());
        if passive_tp || recursion {
            // The test particles' groups need their pairs on the host (split as on the CPU), and
            // so do the recursive sub-steps (they start from the group's pairs).
            self.encounter_pairs()?;
        }
        let (tp, host_pairs) = match &self.encounters {
            Some(e) => (e.test_particles.clone(), Some(e.pairs.clone())),
            None => (Vec::new(), None),
        };
        if host_pairs.as_ref().is_some_and(|p| p.is_empty()) && tp.is_empty() {
            // As the CPU: no groups (its union-find keeps the previous labels).
            self.groups.clear_work();
            self.group_stage = GroupStage::OnHost;
            return Ok(());
        }
        // The device's flags are used only when no passive test particle can be in them (the
        // host split above took them otherwise), so the kernel's filter stays off.
        let tp_passive = 0u32;
        let block = self.layout.block.max(1) as u32;
        let d = self.dev()?;
        set_args(&d.link_pairs, &[(2, tp_passive), (3, block)])?;
        Self::launch(&d.link_init, n, "union-find init")?;
        // The pairs: the device's confirmed candidates, or the host's list uploaded.
        let uploaded;
        let (pairs_kernel, count) = match &host_pairs {
            None => (&d.link_pairs, d.pair.capacity()),
            Some(p) => {
                let flat: Vec<u32> = p.iter().flat_map(|&(a, b)| [a, b]).collect();
                let buf = Buffer::<u32>::from_host(&self.gpu, "group_pairs", &flat)?;
                uploaded = self
                    .gpu
                    .kernel("orr_link_pairs")
                    .arg(p.len() as u32)
                    .arg(0u32)
                    .arg(0u32)
                    .arg(block)
                    .arg(n as u32)
                    .arg(&buf)
                    .arg(&buf)
                    .arg(&d.maps.sys_massive)
                    .arg(&d.link)
                    .arg(&d.status)
                    .build()?;
                (&uploaded, p.len())
            }
        };
        if count > 0 {
            loop {
                for round in 0..LINK_ROUNDS {
                    if round + 1 == LINK_ROUNDS {
                        self.set_status(STATUS_LINK_CHANGED, 0)?;
                    }
                    Self::launch(pairs_kernel, count.min(LIST_ITEMS), "union-find pairs")?;
                    Self::launch(&d.link_jump, n, "union-find jump")?;
                }
                if d.status.to_vec()?[STATUS_LINK_CHANGED] == 0 {
                    break;
                }
            }
        }
        // The touched slots and their labels, compacted on the device, sorted here.
        self.set_status(STATUS_TOUCHED, 0)?;
        Self::launch(&d.link_compact, n, "union-find labels")?;
        let count = d.status.to_vec()?[STATUS_TOUCHED] as usize;
        let flat = d.touched.to_vec_prefix(2 * count.min(n))?;
        let mut labelled: Vec<(u32, u32)> = flat.chunks_exact(2).map(|p| (p[0], p[1])).collect();
        labelled.sort_unstable();
        self.groups.groups_mut().from_touched_labels(n, &labelled)?;
        if self.groups.groups().n_groups() == 0 && tp.is_empty() {
            self.groups.clear_work();
            self.group_stage = GroupStage::OnHost;
            return Ok(());
        }
        // The groups' slots in the CPU's order, then the members' bodies at their pre-drift
        // states gathered on the device and downloaded once.
        let placeholder = Body::without_spin(0, 0.0, 0.0, [0.0; 3], [0.0; 3]);
        let changeover = self.layout.changeover;
        let pairs = host_pairs.unwrap_or_default();
        self.groups
            .fill(&pairs, &tp, stats, changeover, |_| (placeholder, 0.0));
        self.gather_groups()
    }

    /// Group `g`'s system: central mass and critical-radius factors.
    fn group_system(&self, g: usize) -> Result<LevelSystem> {
        let p = self
            .params
            .ok_or_else(|| Error::run("encounter groups before the step parameters"))?;
        let slot = self.groups.slots(g)[0] as usize;
        let sys = &self.layout.systems[slot / self.layout.block.max(1)];
        Ok(LevelSystem::from(
            &sys.spec.unwrap_or_else(|| SystemSpec::from(&p)),
        ))
    }

    /// The step's recursion settings.
    fn recursion(&self) -> Recursion {
        self.params.map_or(Recursion::OFF, |p| p.recursion)
    }

    /// Upload the groups' membership (members, write flags, group starts); returns the number
    /// of members.
    fn upload_membership(&mut self) -> Result<usize> {
        let ng = self.groups.len();
        let (mut members, mut write, mut start) = (Vec::new(), Vec::new(), vec![0u32]);
        for g in 0..ng {
            let slots = self.groups.slots(g);
            let tp = self.groups.is_test_particle(g);
            for (q, &k) in slots.iter().enumerate() {
                members.push(k);
                write.push((!tp || q + 1 == slots.len()) as u32);
            }
            start.push(members.len() as u32);
        }
        let (gpu, b) = (&self.gpu, &mut self.group_buffers);
        grown(gpu, &mut b.members, "group_members", members.len())?.upload_at(0, &members)?;
        grown(gpu, &mut b.write, "group_write", write.len())?.upload_at(0, &write)?;
        grown(gpu, &mut b.start, "group_start", start.len())?.upload_at(0, &start)?;
        grown(gpu, &mut b.states, "group_states", 12 * members.len())?;
        grown(gpu, &mut b.ids, "group_ids", members.len())?;
        grown(gpu, &mut b.end, "group_end", 6 * members.len())?;
        grown(gpu, &mut b.result, "group_result", 3 * ng)?;
        Ok(members.len())
    }

    /// The members' start states (pre-drift position and velocity, mass, radius, spin,
    /// critical radius) and ids gathered on the device, in the groups' order.
    fn gather_groups(&mut self) -> Result<()> {
        let count = self.upload_membership()?;
        let d = self.dev()?;
        let b = &self.group_buffers;
        let gather = self
            .gpu
            .kernel("orr_group_gather")
            .arg(count as u32)
            .arg(bound(&b.members)?)
            .arg(&d.pre)
            .arg(&d.bodies.m)
            .arg(&d.bodies.r)
            .args(&d.bodies.spin)
            .arg(&d.kick.rcrit)
            .arg(&d.bodies.id)
            .arg(bound(&b.states)?)
            .arg(bound(&b.ids)?)
            .build()?;
        Self::launch(&gather, count, "group gather")?;
        self.group_stage = GroupStage::Formed;
        Ok(())
    }

    /// The host copy of the groups made complete: start states, and after a device
    /// integration the results (the groups the device handed back integrated here).
    pub(super) fn groups_to_host(&mut self) -> Result<()> {
        let stage = self.group_stage;
        if stage == GroupStage::OnHost {
            return Ok(());
        }
        let count = self.group_members();
        let b = &self.group_buffers;
        let states = bound(&b.states)?.to_vec_prefix(12 * count)?;
        let ids = bound(&b.ids)?.to_vec_prefix(count)?;
        let mut q = 0;
        self.groups.reload(|_| {
            let s = &states[12 * q..12 * q + 12];
            let body = Body {
                id: ids[q],
                m: s[6],
                r: s[7],
                pos: [s[0], s[1], s[2]],
                vel: [s[3], s[4], s[5]],
                spin: [s[8], s[9], s[10]],
            };
            q += 1;
            (body, s[11])
        });
        if let GroupStage::Integrated { dt, opts } = stage {
            let ng = self.groups.len();
            let words = bound(&b.result)?.to_vec_prefix(3 * ng)?;
            let end = bound(&b.end)?.to_vec_prefix(6 * count)?;
            let mut first = 0;
            for g in 0..ng {
                let len = self.groups.slots(g).len();
                let w = &words[3 * g..3 * g + 3];
                self.groups_done[(w[0] != BS_DONE) as usize] += 1;
                if w[0] == BS_DONE {
                    let states = &end[6 * first..6 * (first + len)];
                    self.groups
                        .set_result(g, states, w[1] as usize, w[2] as usize);
                } else {
                    let sys = self.group_system(g)?;
                    let rec = self.recursion();
                    self.groups.integrate_on_host(g, sys, dt, &opts, rec);
                }
                first += len;
            }
        }
        self.group_stage = GroupStage::OnHost;
        Ok(())
    }

    /// Upload the host copy's start states (groups formed on the CPU reference).
    fn upload_group_states(&mut self) -> Result<()> {
        self.upload_membership()?;
        let (mut states, mut ids) = (Vec::new(), Vec::new());
        for g in 0..self.groups.len() {
            let st = self.groups.state(g);
            ids.extend_from_slice(&st.id);
            for k in 0..st.len() {
                let (p, v, s) = (st.pos[k], st.vel[k], st.spin[k]);
                states.extend_from_slice(&[
                    p[0],
                    p[1],
                    p[2],
                    v[0],
                    v[1],
                    v[2],
                    st.m[k],
                    st.r[k],
                    s[0],
                    s[1],
                    s[2],
                    st.rcrit[k],
                ]);
            }
        }
        let b = &mut self.group_buffers;
        grown(&self.gpu, &mut b.states, "group_states", states.len())?.upload_at(0, &states)?;
        grown(&self.gpu, &mut b.ids, "group_ids", ids.len())?.upload_at(0, &ids)?;
        self.group_stage = GroupStage::Formed;
        Ok(())
    }

    /// Bulirsch-Stoer of every group over `dt` (kernel `orr_bs_groups`, one work-group each);
    /// nothing is read back here.
    pub(super) fn try_integrate_groups(
        &mut self,
        p: &StepParams,
        dt: f64,
        opts: &BsOptions,
    ) -> Result<()> {
        self.saw(p);
        let ng = self.groups.len();
        if ng == 0 {
            return Ok(());
        }
        if p.recursion.is_on() {
            // The recursive sub-steps run on the host: only the groups' bodies come down (and,
            // without a merger, go back up in the write-back).
            self.groups_to_host()?;
            for g in 0..ng {
                let sys = self.group_system(g)?;
                self.groups.integrate_on_host(g, sys, dt, opts, p.recursion);
            }
            return Ok(());
        }
        if self.group_stage == GroupStage::OnHost {
            self.upload_group_states()?;
        }
        let m0 = (0..ng)
            .map(|g| self.group_system(g).map(|s| s.m0))
            .collect::<Result<Vec<f64>>>()?;
        grown(&self.gpu, &mut self.group_buffers.m0, "group_m0", ng)?.upload_at(0, &m0)?;
        let b = &self.group_buffers;
        let kernel = self
            .gpu
            .kernel("orr_bs_groups")
            .arg(ng as u32)
            .arg(self.layout.changeover.code())
            .arg(dt)
            .arg(opts.rel_tol)
            .arg(opts.min_step)
            .arg(opts.max_substeps.min(u32::MAX as usize) as u32)
            .arg(bound(&b.start)?)
            .arg(bound(&b.m0)?)
            .arg(bound(&b.states)?)
            .arg(bound(&b.end)?)
            .arg(bound(&b.result)?)
            .arg(BS_SHARED_BYTES as u32)
            .local_f64(BS_SHARED_BYTES / 8)
            .build()?;
        // One work-group per group; the kernel reads the group's members from `start` (ng + 1
        // entries) and writes only its members' end states and its three result words, all
        // within the buffers sized by `upload_membership`.
        kernel
            .launch(ng * BS_LOCAL, Some(BS_LOCAL))
            .map_err(|e| Error::run(format!("Bulirsch-Stoer of the groups: {e}")))?;
        self.group_stage = GroupStage::Integrated { dt, opts: *opts };
        Ok(())
    }

    /// Write the groups' end states back. When the device finished every group (no
    /// collision), one read of the result words and a scatter kernel; otherwise the CPU's pass
    /// on a host copy (module docs).
    pub(super) fn try_apply_groups(
        &mut self,
        p: &StepParams,
        stats: &mut EncounterStats,
    ) -> Result<Vec<Collision>> {
        self.saw(p);
        let ng = self.groups.len();
        if ng == 0 {
            return Ok(Vec::new());
        }
        if let GroupStage::Integrated { .. } = self.group_stage {
            let words = bound(&self.group_buffers.result)?.to_vec_prefix(3 * ng)?;
            if words.chunks_exact(3).all(|w| w[0] == BS_DONE) {
                for w in words.chunks_exact(3) {
                    stats.bs_substeps += w[1] as u64;
                    stats.bs_rejected += w[2] as u64;
                }
                self.scatter_groups()?;
                self.groups_done[0] += ng as u64;
                self.groups.clear_work();
                self.group_stage = GroupStage::OnHost;
                return Ok(Vec::new());
            }
        }
        self.groups_to_host()?;
        if self.groups.integrated() && !self.groups.any_collision() {
            // Groups integrated on the host (too large for the device, or recursive sub-steps)
            // without a merger: their end states go up and the scatter kernel writes them back,
            // so only the groups' bodies moved.
            self.groups.results(stats)?;
            self.upload_membership()?;
            let end = self.groups.end_states();
            let b = &mut self.group_buffers;
            grown(&self.gpu, &mut b.end, "group_end", end.len())?.upload_at(0, &end)?;
            self.scatter_groups()?;
            self.groups.clear_work();
            return Ok(Vec::new());
        }
        let groups = self.groups.clone();
        self.groups.clear_work();
        self.on_host_copy(p, |host: &mut CpuHybrid| {
            host.import_field(FieldData::Groups(groups))?;
            host.apply_groups(p, stats)
        })
    }

    /// Members of all groups of the substep.
    fn group_members(&self) -> usize {
        (0..self.groups.len())
            .map(|g| self.groups.slots(g).len())
            .sum()
    }

    /// The end states of the members written back (kernel `orr_group_scatter`).
    fn scatter_groups(&self) -> Result<()> {
        let count = self.group_members();
        let d = self.dev()?;
        let b = &self.group_buffers;
        let scatter = self
            .gpu
            .kernel("orr_group_scatter")
            .arg(count as u32)
            .arg(bound(&b.members)?)
            .arg(bound(&b.write)?)
            .arg(bound(&b.end)?)
            .args(&d.bodies.pos)
            .args(&d.bodies.vel)
            .build()?;
        Self::launch(&scatter, count, "group write-back")
    }
}
