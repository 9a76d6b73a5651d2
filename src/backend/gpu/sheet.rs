//! The sheet engine's state resident on a device (OpenCL or CUDA), and its passes as the kernels
//! of `kernels/sheet.cl` (OCCLUDE report section 3; Bonsai's tree build and group walks).
//!
//! Every pass of the sheet step runs on the device, on buffers that stay there for the run:
//!
//! - drift, kick, boundary: one work-item per particle.
//! - tree: the root cube (a maximum over |z|), Morton keys, a stable least-significant-digit
//!   radix sort of (key, index) pairs (4-bit digits, 16 passes of count, scan, scatter: equal
//!   keys keep their index order, the CPU's tie-break), the particles permuted, then the octree
//!   level by level (count each node's non-empty octants by binary search in the sorted keys,
//!   scan, split: the CPU's breadth-first node order), and the leaves and walk groups compacted
//!   in key order. The host reads one word per level (the next level's size).
//! - moments: one launch per level, deepest first.
//! - gravity: one work-group per walk group; each work-item walks the tree for the group's box
//!   and sums its particles' interaction lists in the CPU's order.
//! - collision search: one work-group per leaf, one work-item per member: a counting walk, a
//!   scan, and a writing walk that sorts each particle's pairs; the list is the CPU's, in the
//!   CPU's order. The host reads its length.
//! - collision resolution: every pair's two predecessors (the last earlier pair of each of its
//!   particles, from a counting sort of the partners), then rounds of one launch each in which
//!   the pairs whose predecessors are done resolve. The result is the sequential loop's, bit for
//!   bit (see `orr_resolve_round`); the rounds are the longest chain of pairs sharing particles
//!   (35-85 on the ring at 4k-64k); the host reads one word per [`RESOLVE_ROUNDS`] rounds.
//!
//! Parity: every pass but the resolution uses only + - * /, sqrt and floor in the CPU's order,
//! so it gives the CPU's bits; the resolution's Bridges law calls the device's pow (the CPU
//! calls the C library's), which may differ in the last bit.

use super::{field::Field as Buffer, DeviceApi, Gpu, Kernel, KernelBuilder};
use crate::backend::sheet::{SheetBackend, SheetField, SheetFieldData};
use crate::error::{Error, Result};
use crate::physics::sheet::boundary::{GhostShift, Shear};
use crate::physics::sheet::collisions::{Pair, Restitution};
use crate::physics::sheet::gravity::GravityStats;
use crate::physics::sheet::tree::{Cell, Node, Tree};
use crate::physics::sheet::{Particles, SheetParams};

mod kernels;
mod transfer;

/// The kernel module of the sheet engine (`kernels/sheet.cl`, `cuda/sheet.cu`).
pub const MODULES: [&str; 1] = ["sheet"];

/// `SHEET_WG`: work-group size of the sort, the scans and the root cube.
const WG: usize = 256;
/// Work-group size of the per-particle and per-node kernels.
const LOCAL: usize = 64;
/// `SHEET_RADIX` buckets per sort pass, and the passes over a 64-bit key.
const RADIX: usize = 16;
const SORT_PASSES: u32 = 16;
/// `SHEET_GROUP_SIZE` and `SHEET_LEAF_SIZE`: the work-groups of the gravity walk and the
/// collision search.
const GROUP_WG: usize = 64;
const LEAF_WG: usize = 16;
/// `SHEET_CELL_WORDS`.
const CELL_WORDS: usize = 20;
/// Resolution rounds between two reads of the "pairs left" word.
pub const RESOLVE_ROUNDS: usize = 4;
/// Work-group memory of a `SheetU32Block` and a `SheetF64Block`, in doubles.
const U32_BLOCK: usize = WG / 2;
const F64_BLOCK: usize = WG;

/// Slots of the status buffer.
const ST_SCAN: u32 = 0;
const ST_LEAVES: u32 = 1;
const ST_GROUPS: u32 = 2;
const ST_PAIRS: u32 = 3;
/// Pairs left after a round: slot `ST_LEFT + round % 2`.
const ST_LEFT: u32 = 4;
const ST_RESOLVED: u32 = 6;
const STATUS_LEN: usize = 8;

/// The particle arrays (in Morton order after a tree pass).
struct ParticleBuffers {
    pos: [Buffer<f64>; 3],
    vel: [Buffer<f64>; 3],
    m: Buffer<f64>,
    r: Buffer<f64>,
    id: Buffer<u32>,
}

impl ParticleBuffers {
    fn new(gpu: &Gpu, n: usize) -> Result<Self> {
        let f = |name| Buffer::new(gpu, name, n);
        Ok(ParticleBuffers {
            pos: [f("x")?, f("y")?, f("z")?],
            vel: [f("vx")?, f("vy")?, f("vz")?],
            m: f("m")?,
            r: f("r")?,
            id: Buffer::new(gpu, "id", n)?,
        })
    }

    /// Every array as kernel arguments: x y z vx vy vz m r id.
    fn args<'k>(&self, k: &'k mut KernelBuilder) -> &'k mut KernelBuilder {
        k.args(&self.pos)
            .args(&self.vel)
            .arg(&self.m)
            .arg(&self.r)
            .arg(&self.id)
    }
}

/// The octree: node arrays and cells for `cap` nodes, and the per-level scratch.
struct TreeBuffers {
    cap: usize,
    start: Buffer<u32>,
    end: Buffer<u32>,
    first: Buffer<u32>,
    nchild: Buffer<u32>,
    level: Buffer<u32>,
    parent: Buffer<u32>,
    cells: Buffer<f64>,
    child_count: Buffer<u32>,
    child_offset: Buffer<u32>,
}

impl TreeBuffers {
    fn new(gpu: &Gpu, cap: usize) -> Result<Self> {
        let u = |name| Buffer::<u32>::new(gpu, name, cap);
        Ok(TreeBuffers {
            cap,
            start: u("node start")?,
            end: u("node end")?,
            first: u("node first child")?,
            nchild: u("node children")?,
            level: u("node level")?,
            parent: u("node parent")?,
            cells: Buffer::new(gpu, "cells", cap * CELL_WORDS)?,
            child_count: u("child counts")?,
            child_offset: u("child offsets")?,
        })
    }

    /// The node arrays: start end first nchild level parent.
    fn nodes(&self) -> [&Buffer<u32>; 6] {
        [
            &self.start,
            &self.end,
            &self.first,
            &self.nchild,
            &self.level,
            &self.parent,
        ]
    }
}

/// Candidate pairs for `cap` pairs.
struct PairBuffers {
    cap: usize,
    i: Buffer<u32>,
    j: Buffer<u32>,
    ghost: Buffer<u32>,
    /// 0 unresolved, else the round the pair was done in.
    done: Buffer<u32>,
    /// The pairs in each particle's list of partner occurrences, and every pair's two
    /// predecessors.
    partner_list: Buffer<u32>,
    prev_i: Buffer<u32>,
    prev_j: Buffer<u32>,
}

impl PairBuffers {
    fn new(gpu: &Gpu, cap: usize) -> Result<Self> {
        let u = |name| Buffer::<u32>::new(gpu, name, cap);
        Ok(PairBuffers {
            cap,
            i: u("pair i")?,
            j: u("pair j")?,
            ghost: u("pair ghost")?,
            done: u("pair done")?,
            partner_list: u("partner lists")?,
            prev_i: u("pair predecessors")?,
            prev_j: u("pair predecessors")?,
        })
    }
}

/// Every buffer on the device.
struct Buffers {
    p: ParticleBuffers,
    /// The permutation's target.
    tmp: ParticleBuffers,
    acc: [Buffer<f64>; 3],
    keys: [Buffer<u64>; 2],
    vals: [Buffer<u32>; 2],
    digit_counts: Buffer<u32>,
    cube: Buffer<f64>,
    tree: TreeBuffers,
    leaf_flag: Buffer<u32>,
    leaf_at: Buffer<u32>,
    leaf_offset: Buffer<u32>,
    leaves: Buffer<u32>,
    group_flag: Buffer<u32>,
    group_at: Buffer<u32>,
    group_offset: Buffer<u32>,
    groups: Buffer<u32>,
    pp: Buffer<u64>,
    pc: Buffer<u64>,
    ghosts_gravity: Buffer<f64>,
    ghosts_collision: Buffer<f64>,
    pair_count: Buffer<u32>,
    pair_offset: Buffer<u32>,
    pairs: PairBuffers,
    /// Per particle: partner occurrences, their offsets, and the fill counters.
    partner_count: Buffer<u32>,
    partner_offset: Buffer<u32>,
    partner_fill: Buffer<u32>,
    status: Buffer<u32>,
}

/// The kernels with their buffers bound (rebuilt when a growable buffer grows).
struct Kernels {
    drift: Kernel,
    kick: Kernel,
    boundary: Kernel,
    root_cube: Kernel,
    keys: Kernel,
    /// Sort passes reading keys[0] (even passes) and keys[1] (odd).
    count: [Kernel; 2],
    scatter: [Kernel; 2],
    scan_digits: Kernel,
    permute: Kernel,
    copy_back: Kernel,
    tree_root: Kernel,
    tree_count: Kernel,
    scan_children: Kernel,
    tree_split: Kernel,
    fill_leaf_flag: Kernel,
    fill_group_flag: Kernel,
    tree_mark: Kernel,
    scan_leaves: Kernel,
    compact_leaves: Kernel,
    scan_groups: Kernel,
    compact_groups: Kernel,
    moments: Kernel,
    gravity: Kernel,
    collision_count: Kernel,
    scan_pairs: Kernel,
    collision_write: Kernel,
    fill_done: Kernel,
    fill_status: Kernel,
    fill_partner_count: Kernel,
    fill_partner_fill: Kernel,
    partner_count: Kernel,
    scan_partners: Kernel,
    partner_fill: Kernel,
    partner_sort: Kernel,
    predecessors: Kernel,
    resolve_round: Kernel,
}

/// The sheet engine's state on an OpenCL or CUDA device (module docs).
pub struct DeviceSheet {
    gpu: Gpu,
    params: SheetParams,
    n: usize,
    nghosts: usize,
    b: Buffers,
    k: Kernels,
    /// Nodes of the current tree, and its levels as node ranges (root first).
    nodes: usize,
    levels: Vec<(u32, u32)>,
    n_leaves: usize,
    n_groups: usize,
    /// Walk groups of the last gravity pass (their counters are in `pp`, `pc`).
    gravity_groups: usize,
    /// Pairs of the last collision search and its ghost offsets.
    n_pairs: usize,
    collision_ghosts: Vec<GhostShift>,
}

/// A count from the device as a usize.
fn count(v: u32) -> usize {
    v as usize
}

impl DeviceSheet {
    /// Open device `device` of `api` (see `orrery devices`) with the sheet kernels and upload
    /// `particles`.
    pub fn open(
        api: DeviceApi,
        device: Option<usize>,
        params: SheetParams,
        particles: &Particles,
    ) -> Result<Self> {
        let gpu = Gpu::open(api, device, &MODULES)?;
        let n = particles.len();
        let nghosts = ((2 * params.ghosts[0] + 1) * (2 * params.ghosts[1] + 1)) as usize;
        let u = |name| Buffer::<u32>::new(&gpu, name, n);
        let b = Buffers {
            p: ParticleBuffers::new(&gpu, n)?,
            tmp: ParticleBuffers::new(&gpu, n)?,
            acc: [
                Buffer::new(&gpu, "ax", n)?,
                Buffer::new(&gpu, "ay", n)?,
                Buffer::new(&gpu, "az", n)?,
            ],
            keys: [Buffer::new(&gpu, "keys", n)?, Buffer::new(&gpu, "keys", n)?],
            vals: [u("sort values")?, u("sort values")?],
            digit_counts: Buffer::new(&gpu, "digit counts", RADIX * n.div_ceil(WG).max(1))?,
            cube: Buffer::new(&gpu, "root cube", 1)?,
            tree: TreeBuffers::new(&gpu, n / 4 + 64)?,
            leaf_flag: u("leaf flags")?,
            leaf_at: u("leaf nodes")?,
            leaf_offset: u("leaf offsets")?,
            leaves: u("leaves")?,
            group_flag: u("group flags")?,
            group_at: u("group nodes")?,
            group_offset: u("group offsets")?,
            groups: u("groups")?,
            pp: Buffer::new(&gpu, "particle-particle counts", n)?,
            pc: Buffer::new(&gpu, "particle-cell counts", n)?,
            ghosts_gravity: Buffer::new(&gpu, "ghost offsets", 3 * nghosts)?,
            ghosts_collision: Buffer::new(&gpu, "ghost offsets", 3 * nghosts)?,
            pair_count: u("pair counts")?,
            pair_offset: u("pair offsets")?,
            pairs: PairBuffers::new(&gpu, n / 8 + 64)?,
            partner_count: u("partner counts")?,
            partner_offset: u("partner offsets")?,
            partner_fill: u("partner fill")?,
            status: Buffer::new(&gpu, "status", STATUS_LEN)?,
        };
        let k = Kernels::build(&gpu, &b, n, nghosts, &params)?;
        let mut dev = DeviceSheet {
            gpu,
            params,
            n,
            nghosts,
            b,
            k,
            nodes: 0,
            levels: Vec::new(),
            n_leaves: 0,
            n_groups: 0,
            gravity_groups: 0,
            n_pairs: 0,
            collision_ghosts: Vec::new(),
        };
        dev.upload_particles(particles)?;
        Ok(dev)
    }

    /// The device (for the tests' checks of kernel arguments).
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    fn upload_particles(&mut self, p: &Particles) -> Result<()> {
        self.check_len(p.len(), "particles")?;
        let d = &mut self.b.p;
        for (f, h) in d.pos.iter_mut().zip([&p.x, &p.y, &p.z]) {
            f.upload(h)?;
        }
        for (f, h) in d.vel.iter_mut().zip([&p.vx, &p.vy, &p.vz]) {
            f.upload(h)?;
        }
        d.m.upload(&p.m)?;
        d.r.upload(&p.r)?;
        d.id.upload(&p.id)
    }

    fn check_len(&self, len: usize, what: &str) -> Result<()> {
        if len == self.n {
            Ok(())
        } else {
            Err(Error::run(format!(
                "sheet field {what}: {len} elements imported into a device state of {} particles",
                self.n
            )))
        }
    }

    fn shear(&self) -> Shear {
        Shear {
            l: self.params.box_size,
            omega: self.params.omega,
        }
    }

    /// The ghost offsets at time `t`, flattened as the kernels read them (dx dy dvy).
    fn ghosts_at(&self, t: f64) -> (Vec<GhostShift>, Vec<f64>) {
        let g = self.shear().ghosts(self.params.ghosts, t);
        let flat = g.iter().flat_map(|s| [s.dx, s.dy, s.dvy]).collect();
        (g, flat)
    }

    fn status_word(&self, slot: u32) -> Result<u32> {
        let v = self
            .b
            .status
            .to_vec_range(slot as usize..slot as usize + 1)?;
        Ok(v[0])
    }

    fn rebuild_kernels(&mut self) -> Result<()> {
        self.k = Kernels::build(&self.gpu, &self.b, self.n, self.nghosts, &self.params)?;
        Ok(())
    }

    /// Room for `need` nodes, keeping the first `keep` nodes' arrays (not their cells) and the
    /// current level's child counts and offsets (a build grows between its scan and its split).
    fn reserve_nodes(&mut self, need: usize, keep: usize) -> Result<()> {
        if need <= self.b.tree.cap {
            return Ok(());
        }
        let mut grown = TreeBuffers::new(&self.gpu, need.max(2 * self.b.tree.cap))?;
        let t = &self.b.tree;
        let old = [
            (&t.start, keep),
            (&t.end, keep),
            (&t.first, keep),
            (&t.nchild, keep),
            (&t.level, keep),
            (&t.parent, keep),
            (&t.child_count, t.cap),
            (&t.child_offset, t.cap),
        ];
        let new = [
            &mut grown.start,
            &mut grown.end,
            &mut grown.first,
            &mut grown.nchild,
            &mut grown.level,
            &mut grown.parent,
            &mut grown.child_count,
            &mut grown.child_offset,
        ];
        for ((o, len), n) in old.into_iter().zip(new) {
            n.upload_at(0, &o.to_vec_prefix(len)?)?;
        }
        self.b.tree = grown;
        self.rebuild_kernels()
    }

    /// Room for `need` candidate pairs.
    fn reserve_pairs(&mut self, need: usize) -> Result<()> {
        if need <= self.b.pairs.cap {
            return Ok(());
        }
        self.b.pairs = PairBuffers::new(&self.gpu, need.max(2 * self.b.pairs.cap))?;
        self.rebuild_kernels()
    }

    /// Morton keys and the stable radix sort; the particles end in key order.
    fn sort(&mut self) -> Result<()> {
        let n = self.n;
        let blocks = n.div_ceil(WG);
        let k = &self.k;
        k.root_cube.launch(WG, Some(WG))?;
        k.keys.launch(n, Some(LOCAL))?;
        k.scan_digits.set_arg(0, (RADIX * blocks) as u32)?;
        for pass in 0..SORT_PASSES {
            let side = (pass % 2) as usize;
            let shift = 4 * pass;
            k.count[side].set_arg(1, shift)?;
            k.count[side].launch(blocks * WG, Some(WG))?;
            k.scan_digits.launch(WG, Some(WG))?;
            k.scatter[side].set_arg(1, shift)?;
            k.scatter[side].launch(blocks * WG, Some(WG))?;
        }
        k.permute.launch(n, Some(LOCAL))?;
        k.copy_back.launch(n, Some(LOCAL))
    }

    /// The octree from the sorted keys, level by level, then its leaves and walk groups.
    fn build_nodes(&mut self) -> Result<()> {
        self.k.tree_root.launch(1, Some(1))?;
        self.levels.clear();
        let (mut begin, mut end) = (0usize, 1usize);
        loop {
            self.levels.push((begin as u32, end as u32));
            let m = end - begin;
            let k = &self.k;
            k.tree_count.set_arg(0, begin as u32)?;
            k.tree_count.set_arg(1, end as u32)?;
            k.tree_count.launch(m, Some(LOCAL))?;
            k.scan_children.set_arg(0, m as u32)?;
            k.scan_children.launch(WG, Some(WG))?;
            let children = count(self.status_word(ST_SCAN)?);
            if children == 0 {
                break;
            }
            self.reserve_nodes(end + children, end)?;
            let k = &self.k;
            k.tree_split.set_arg(0, begin as u32)?;
            k.tree_split.set_arg(1, end as u32)?;
            k.tree_split.launch(m, Some(LOCAL))?;
            begin = end;
            end += children;
        }
        self.nodes = end;
        let (k, n) = (&self.k, self.n);
        k.fill_leaf_flag.launch(n, Some(LOCAL))?;
        k.fill_group_flag.launch(n, Some(LOCAL))?;
        k.tree_mark.set_arg(0, end as u32)?;
        k.tree_mark.launch(end, Some(LOCAL))?;
        k.scan_leaves.launch(WG, Some(WG))?;
        k.compact_leaves.launch(n, Some(LOCAL))?;
        k.scan_groups.launch(WG, Some(WG))?;
        k.compact_groups.launch(n, Some(LOCAL))?;
        let status = self.b.status.to_vec_prefix(STATUS_LEN)?;
        self.n_leaves = count(status[ST_LEAVES as usize]);
        self.n_groups = count(status[ST_GROUPS as usize]);
        Ok(())
    }
}

impl SheetBackend for DeviceSheet {
    fn name(&self) -> &'static str {
        self.gpu.device_api().name()
    }
    fn len(&self) -> usize {
        self.n
    }
    fn drift(&mut self, dt: f64) -> Result<()> {
        let phi = self.params.omega * dt;
        let k = &self.k.drift;
        k.set_arg(8, dt)?;
        k.set_arg(9, phi.cos())?;
        k.set_arg(10, phi.sin())?;
        k.launch(self.n, Some(LOCAL))
    }
    fn kick(&mut self, dt: f64) -> Result<()> {
        self.k.kick.set_arg(7, dt)?;
        self.k.kick.launch(self.n, Some(LOCAL))
    }
    fn boundary(&mut self, t: f64) -> Result<()> {
        self.k.boundary.set_arg(6, t)?;
        self.k.boundary.launch(self.n, Some(LOCAL))
    }
    fn build_tree(&mut self) -> Result<()> {
        if self.n == 0 {
            return Ok(());
        }
        self.sort()?;
        self.build_nodes()
    }
    fn moments(&mut self) -> Result<()> {
        for &(begin, end) in self.levels.iter().rev() {
            let k = &self.k.moments;
            k.set_arg(0, begin)?;
            k.set_arg(1, end)?;
            k.launch((end - begin) as usize, Some(LOCAL))?;
        }
        Ok(())
    }
    fn gravity(&mut self, t: f64) -> Result<()> {
        let (_, flat) = self.ghosts_at(t);
        self.b.ghosts_gravity.upload(&flat)?;
        let k = &self.k.gravity;
        k.set_arg(0, self.n_groups as u32)?;
        k.launch(self.n_groups * GROUP_WG, Some(GROUP_WG))?;
        self.gravity_groups = self.n_groups;
        Ok(())
    }
    fn collision_search(&mut self, t: f64) -> Result<usize> {
        let (ghosts, flat) = self.ghosts_at(t);
        self.b.ghosts_collision.upload(&flat)?;
        self.collision_ghosts = ghosts;
        let leaves = self.n_leaves as u32;
        self.k.collision_count.set_arg(0, leaves)?;
        self.k
            .collision_count
            .launch(self.n_leaves * LEAF_WG, Some(LEAF_WG))?;
        self.k.scan_pairs.launch(WG, Some(WG))?;
        self.n_pairs = count(self.status_word(ST_PAIRS)?);
        self.reserve_pairs(self.n_pairs)?;
        self.k.collision_write.set_arg(0, leaves)?;
        self.k
            .collision_write
            .launch(self.n_leaves * LEAF_WG, Some(LEAF_WG))?;
        Ok(self.n_pairs)
    }
    fn resolve_collisions(&mut self, _t: f64) -> Result<usize> {
        let (n, particles) = (self.n_pairs, self.n);
        if n == 0 {
            return Ok(0);
        }
        let k = &self.k;
        for kernel in [
            &k.fill_done,
            &k.partner_count,
            &k.partner_fill,
            &k.predecessors,
            &k.resolve_round,
        ] {
            kernel.set_arg(0, n as u32)?;
        }
        k.fill_done.launch(n, Some(LOCAL))?;
        k.fill_status.launch(STATUS_LEN, Some(LOCAL))?;
        k.fill_partner_count.launch(particles, Some(LOCAL))?;
        k.fill_partner_fill.launch(particles, Some(LOCAL))?;
        k.partner_count.launch(n, Some(LOCAL))?;
        k.scan_partners.launch(WG, Some(WG))?;
        k.partner_fill.launch(n, Some(LOCAL))?;
        k.partner_sort.launch(particles, Some(LOCAL))?;
        k.predecessors.launch(n, Some(LOCAL))?;
        // Each round resolves at least the lowest unresolved pair: n rounds always end it.
        let mut round = 0u32;
        loop {
            for _ in 0..RESOLVE_ROUNDS {
                round += 1;
                k.resolve_round.set_arg(1, round)?;
                k.resolve_round.launch(n, Some(LOCAL))?;
            }
            let status = self.b.status.to_vec_prefix(STATUS_LEN)?;
            let left = status[(ST_LEFT + round % 2) as usize];
            if left == 0 {
                return Ok(count(status[ST_RESOLVED as usize]));
            }
            if round as usize > n + RESOLVE_ROUNDS {
                return Err(Error::run(format!(
                    "collision resolution on the device did not finish: {left} of {n} pairs \
                     left after {round} rounds"
                )));
            }
        }
    }
    fn finish(&mut self) -> Result<()> {
        self.gpu.finish()
    }
    fn gravity_stats(&mut self) -> Result<GravityStats> {
        let pp = self.b.pp.to_vec_prefix(self.gravity_groups)?;
        let pc = self.b.pc.to_vec_prefix(self.gravity_groups)?;
        Ok(GravityStats {
            pp: pp.iter().sum(),
            pc: pc.iter().sum(),
        })
    }
    fn download(&mut self) -> Result<Particles> {
        let d = &self.b.p;
        Ok(Particles {
            x: d.pos[0].to_vec()?,
            y: d.pos[1].to_vec()?,
            z: d.pos[2].to_vec()?,
            vx: d.vel[0].to_vec()?,
            vy: d.vel[1].to_vec()?,
            vz: d.vel[2].to_vec()?,
            m: d.m.to_vec()?,
            r: d.r.to_vec()?,
            id: d.id.to_vec()?,
        })
    }
    fn export_field(&mut self, f: SheetField) -> Result<SheetFieldData> {
        let d = &self.b.p;
        let three = |a: &[Buffer<f64>; 3]| -> Result<[Vec<f64>; 3]> {
            Ok([a[0].to_vec()?, a[1].to_vec()?, a[2].to_vec()?])
        };
        Ok(match f {
            SheetField::Positions => SheetFieldData::Positions(three(&d.pos)?),
            SheetField::Velocities => SheetFieldData::Velocities(three(&d.vel)?),
            SheetField::Properties => SheetFieldData::Properties {
                m: d.m.to_vec()?,
                r: d.r.to_vec()?,
                id: d.id.to_vec()?,
            },
            SheetField::Tree => {
                let (tree, cube) = self.export_tree()?;
                SheetFieldData::Tree { tree, cube }
            }
            SheetField::Accelerations => {
                let [ax, ay, az] = three(&self.b.acc)?;
                SheetFieldData::Accelerations((0..self.n).map(|k| [ax[k], ay[k], az[k]]).collect())
            }
            SheetField::Pairs => SheetFieldData::Pairs {
                pairs: self.export_pairs()?,
                ghosts: self.collision_ghosts.clone(),
            },
        })
    }
    fn import_field(&mut self, data: SheetFieldData) -> Result<()> {
        match data {
            SheetFieldData::Positions(v) => {
                self.check_len(v[0].len(), "positions")?;
                for (f, h) in self.b.p.pos.iter_mut().zip(&v) {
                    f.upload(h)?;
                }
            }
            SheetFieldData::Velocities(v) => {
                self.check_len(v[0].len(), "velocities")?;
                for (f, h) in self.b.p.vel.iter_mut().zip(&v) {
                    f.upload(h)?;
                }
            }
            SheetFieldData::Properties { m, r, id } => {
                self.check_len(m.len(), "properties")?;
                self.b.p.m.upload(&m)?;
                self.b.p.r.upload(&r)?;
                self.b.p.id.upload(&id)?;
            }
            SheetFieldData::Tree { tree, cube } => self.import_tree(&tree, cube)?,
            SheetFieldData::Accelerations(a) => {
                self.check_len(a.len(), "accelerations")?;
                for (c, f) in self.b.acc.iter_mut().enumerate() {
                    f.upload(&a.iter().map(|v| v[c]).collect::<Vec<_>>())?;
                }
            }
            SheetFieldData::Pairs { pairs, ghosts } => self.import_pairs(&pairs, ghosts)?,
        }
        Ok(())
    }
}
