//! The sheet engine's kernels bound to their buffers.

use super::*;

impl Kernels {
    /// Build the kernels of `kernels/sheet.cl` with their buffer arguments; the scalar
    /// arguments (time steps, times) are set at each launch.
    pub(super) fn build(
        gpu: &Gpu,
        b: &Buffers,
        n: usize,
        nghosts: usize,
        params: &SheetParams,
    ) -> Result<Kernels> {
        let n32 = n as u32;
        let t = &b.tree;
        let p = &b.p;
        let scan = |input: &Buffer<u32>, output: &Buffer<u32>, len: u32, slot: u32| {
            gpu.kernel("orr_scan_u32")
                .arg(len)
                .arg(input)
                .arg(output)
                .arg(&b.status)
                .arg(slot)
                .local_f64(U32_BLOCK)
                .build()
        };
        let fill = |buf: &Buffer<u32>, len: u32| {
            gpu.kernel("orr_fill_u32")
                .arg(len)
                .arg(buf)
                .arg(0u32)
                .build()
        };
        let count = |keys: &Buffer<u64>| {
            gpu.kernel("orr_sort_count")
                .arg(n32)
                .arg(0u32)
                .arg(keys)
                .arg(&b.digit_counts)
                .local_f64(U32_BLOCK)
                .build()
        };
        let scatter = |from: usize| {
            let to = 1 - from;
            gpu.kernel("orr_sort_scatter")
                .arg(n32)
                .arg(0u32)
                .arg(&b.keys[from])
                .arg(&b.vals[from])
                .arg(&b.digit_counts)
                .arg(&b.keys[to])
                .arg(&b.vals[to])
                .local_f64(U32_BLOCK)
                .build()
        };
        let (kind, value) = match params.restitution {
            Restitution::Bridges { v_c } => (0u32, v_c),
            Restitution::Constant(e) => (1u32, e),
        };
        let walk = |list: &Buffer<u32>, k: &mut KernelBuilder| {
            k.arg(0u32)
                .arg(list)
                .arg(&t.start)
                .arg(&t.end)
                .arg(&t.first)
                .arg(&t.nchild)
                .arg(&t.cells);
        };
        let mut gravity = gpu.kernel("orr_sheet_gravity");
        walk(&b.groups, &mut gravity);
        let mut collision_count = gpu.kernel("orr_collision_count");
        walk(&b.leaves, &mut collision_count);
        let mut collision_write = gpu.kernel("orr_collision_write");
        walk(&b.leaves, &mut collision_write);
        let mut permute = gpu.kernel("orr_sheet_permute");
        permute.arg(n32).arg(&b.vals[0]);
        p.args(&mut permute);
        b.tmp.args(&mut permute);
        let mut copy_back = gpu.kernel("orr_sheet_copy_back");
        copy_back.arg(n32);
        b.tmp.args(&mut copy_back);
        p.args(&mut copy_back);
        Ok(Kernels {
            drift: gpu
                .kernel("orr_sheet_drift")
                .arg(n32)
                .args(&p.pos)
                .args(&p.vel)
                .arg(params.omega)
                .arg(0.0)
                .arg(1.0)
                .arg(0.0)
                .build()?,
            kick: gpu
                .kernel("orr_sheet_kick")
                .arg(n32)
                .args(&p.vel)
                .args(&b.acc)
                .arg(0.0)
                .build()?,
            boundary: gpu
                .kernel("orr_sheet_boundary")
                .arg(n32)
                .arg(&p.pos[0])
                .arg(&p.pos[1])
                .arg(&p.vel[1])
                .arg(params.omega)
                .arg(params.box_size)
                .arg(0.0)
                .build()?,
            root_cube: gpu
                .kernel("orr_sheet_root_cube")
                .arg(n32)
                .arg(&p.pos[2])
                .arg(params.box_size)
                .arg(&b.cube)
                .local_f64(F64_BLOCK)
                .build()?,
            keys: gpu
                .kernel("orr_sheet_keys")
                .arg(n32)
                .args(&p.pos)
                .arg(&b.cube)
                .arg(&b.keys[0])
                .arg(&b.vals[0])
                .build()?,
            count: [count(&b.keys[0])?, count(&b.keys[1])?],
            scatter: [scatter(0)?, scatter(1)?],
            scan_digits: scan(&b.digit_counts, &b.digit_counts, 0, ST_SCAN)?,
            permute: permute.build()?,
            copy_back: copy_back.build()?,
            tree_root: gpu
                .kernel("orr_tree_root")
                .arg(n32)
                .args(t.nodes())
                .build()?,
            tree_count: gpu
                .kernel("orr_tree_count")
                .arg(0u32)
                .arg(0u32)
                .arg(&t.start)
                .arg(&t.end)
                .arg(&t.level)
                .arg(&b.keys[0])
                .arg(&t.child_count)
                .build()?,
            scan_children: scan(&t.child_count, &t.child_offset, 0, ST_SCAN)?,
            tree_split: gpu
                .kernel("orr_tree_split")
                .arg(0u32)
                .arg(0u32)
                .args(t.nodes())
                .arg(&b.keys[0])
                .arg(&t.child_count)
                .arg(&t.child_offset)
                .build()?,
            fill_leaf_flag: fill(&b.leaf_flag, n32)?,
            fill_group_flag: fill(&b.group_flag, n32)?,
            tree_mark: gpu
                .kernel("orr_tree_mark")
                .arg(0u32)
                .arg(&t.start)
                .arg(&t.end)
                .arg(&t.nchild)
                .arg(&t.parent)
                .arg(&b.leaf_flag)
                .arg(&b.leaf_at)
                .arg(&b.group_flag)
                .arg(&b.group_at)
                .build()?,
            scan_leaves: scan(&b.leaf_flag, &b.leaf_offset, n32, ST_LEAVES)?,
            compact_leaves: gpu
                .kernel("orr_compact")
                .arg(n32)
                .arg(&b.leaf_flag)
                .arg(&b.leaf_offset)
                .arg(&b.leaf_at)
                .arg(&b.leaves)
                .build()?,
            scan_groups: scan(&b.group_flag, &b.group_offset, n32, ST_GROUPS)?,
            compact_groups: gpu
                .kernel("orr_compact")
                .arg(n32)
                .arg(&b.group_flag)
                .arg(&b.group_offset)
                .arg(&b.group_at)
                .arg(&b.groups)
                .build()?,
            moments: gpu
                .kernel("orr_tree_moments")
                .arg(0u32)
                .arg(0u32)
                .arg(&t.start)
                .arg(&t.end)
                .arg(&t.first)
                .arg(&t.nchild)
                .arg(&t.level)
                .args(&p.pos)
                .arg(&p.m)
                .arg(&p.r)
                .arg(&b.cube)
                .arg(&t.cells)
                .build()?,
            gravity: gravity
                .args(&p.pos)
                .arg(&p.m)
                .arg(&b.ghosts_gravity)
                .arg(nghosts as u32)
                .arg(1.0 / params.theta)
                .arg(params.softening * params.softening)
                .arg(params.g)
                .args(&b.acc)
                .arg(&b.pp)
                .arg(&b.pc)
                .build()?,
            collision_count: collision_count
                .args(&p.pos)
                .args(&p.vel)
                .arg(&p.r)
                .arg(&b.ghosts_collision)
                .arg(nghosts as u32)
                .arg(&b.pair_count)
                .build()?,
            scan_pairs: scan(&b.pair_count, &b.pair_offset, n32, ST_PAIRS)?,
            collision_write: collision_write
                .args(&p.pos)
                .args(&p.vel)
                .arg(&p.r)
                .arg(&b.ghosts_collision)
                .arg(nghosts as u32)
                .arg(&b.pair_offset)
                .arg(&b.pairs.i)
                .arg(&b.pairs.j)
                .arg(&b.pairs.ghost)
                .build()?,
            fill_done: fill(&b.pairs.done, 0)?,
            fill_status: fill(&b.status, STATUS_LEN as u32)?,
            fill_partner_count: fill(&b.partner_count, n32)?,
            fill_partner_fill: fill(&b.partner_fill, n32)?,
            partner_count: gpu
                .kernel("orr_partner_count")
                .arg(0u32)
                .arg(&b.pairs.j)
                .arg(&b.partner_count)
                .build()?,
            scan_partners: scan(&b.partner_count, &b.partner_offset, n32, ST_SCAN)?,
            partner_fill: gpu
                .kernel("orr_partner_fill")
                .arg(0u32)
                .arg(&b.pairs.j)
                .arg(&b.partner_offset)
                .arg(&b.partner_fill)
                .arg(&b.pairs.partner_list)
                .build()?,
            partner_sort: gpu
                .kernel("orr_partner_sort")
                .arg(n32)
                .arg(&b.partner_offset)
                .arg(&b.partner_count)
                .arg(&b.pairs.partner_list)
                .build()?,
            predecessors: gpu
                .kernel("orr_pair_predecessors")
                .arg(0u32)
                .arg(&b.pairs.i)
                .arg(&b.pairs.j)
                .arg(&b.partner_offset)
                .arg(&b.partner_count)
                .arg(&b.pairs.partner_list)
                .arg(&b.pairs.prev_i)
                .arg(&b.pairs.prev_j)
                .build()?,
            resolve_round: gpu
                .kernel("orr_resolve_round")
                .arg(0u32)
                .arg(0u32)
                .arg(&b.pairs.i)
                .arg(&b.pairs.j)
                .arg(&b.pairs.ghost)
                .arg(&b.pairs.prev_i)
                .arg(&b.pairs.prev_j)
                .arg(&b.ghosts_collision)
                .args(&p.pos)
                .args(&p.vel)
                .arg(&p.m)
                .arg(&b.pairs.done)
                .arg(&b.status)
                .arg(ST_LEFT)
                .arg(ST_RESOLVED)
                .arg(kind)
                .arg(value)
                .build()?,
        })
    }
}
