//! The pair accelerations with the changeover and the prechecker on the device, and the
//! candidate pair list they produce, resident (kernels of `kernels/pair.cl`).
//!
//! One work-item per receiver sums its sources in the CPU's order (bitwise the CPU reference);
//! the candidate pairs are compacted on the device in the CPU's order by a scan over per-slot
//! counts; the length is in the status buffer.
//!
//! The list's memory grows with N, not N^2 (GENGA bounds it the same way, with its `Maximum
//! encounter pairs`): it holds every pair the layout allows (every pair of massive bodies and
//! every test particle with every massive body of its system) when those are at most
//! [`LIST_MIN_PAIRS`], so that no pass ever waits for its length (every 2048-body disk and every
//! ensemble); otherwise [`LIST_MIN_PAIRS`] or [`LIST_PAIRS_PER_SLOT`] per slot, whichever is
//! more. A bounded list is checked after every full pass: the scan counts every candidate even
//! past the end, the host reads that count, and when it does not fit the list grows and the
//! pass's emission runs again (its accelerations do not depend on the list), so no candidate is
//! ever lost.

use super::{field::Field as Buffer, Gpu, Kernel, KernelBuilder};
use crate::backend::cpu::pair_forces::SMALL_MAX;
use crate::error::{Error, Result};
use crate::model::Layout;

/// Slots per block of the scan (`ORR_SCAN_BLOCK` in `kernels/pair.cl`).
const SCAN_BLOCK: usize = 256;
/// Sources per tile and work-items per work-group of the tiled pass (`ORR_PAIR_TILE`).
const PAIR_TILE: usize = 64;
/// Work-items of the passes that stride over the candidate list (its length is on the device).
const LIST_ITEMS: usize = 1 << 16;

pub use crate::backend::status::STATUS_CANDIDATES;

/// Pairs a bounded candidate list holds at least (16 MiB of pairs and 8 MiB of flags).
pub const LIST_MIN_PAIRS: usize = 1 << 21;
/// Pairs per slot a bounded candidate list holds at least.
pub const LIST_PAIRS_PER_SLOT: usize = 32;

/// The device buffers the pair pass reads and writes, owned by the caller.
pub struct PairInputs<'a> {
    pub pos: [&'a Buffer<f64>; 3],
    pub m: &'a Buffer<f64>,
    pub rcrit: &'a Buffer<f64>,
    pub rcrit_kick: &'a Buffer<f64>,
    pub inv_rcrit_kick: &'a Buffer<f64>,
    pub far: [&'a Buffer<f64>; 3],
    pub near: [&'a Buffer<f64>; 3],
    pub sys_len: &'a Buffer<u32>,
    pub sys_massive: &'a Buffer<u32>,
    pub sys_active: &'a Buffer<u32>,
    pub status: &'a Buffer<u32>,
}

/// The pair pass's own buffers and its kernels, bound to the caller's buffers.
pub struct PairPass {
    slots: usize,
    blocks: usize,
    capacity: usize,
    pairs: Buffer<u32>,
    _owned: Buffer<u32>,
    _offset: Buffer<u32>,
    _block_total: Buffer<u32>,
    adopt: Kernel,
    forces: Kernel,
    /// The same pass with the sources staged through work-group memory, for a state of one
    /// system (main and test-particle modes); `None` for many systems.
    forces_tiled: Option<Kernel>,
    scan_blocks: Kernel,
    scan_totals: Kernel,
    emit: Kernel,
    incidence: Incidence,
    refresh: Kernel,
}

/// KickA's incidence rows (`kernels/pair.cl`): per massive slot, the indices of the candidate
/// pairs of massive bodies it belongs to, so that each reads its own pairs rather than every
/// massive pair of the list.
struct Incidence {
    degree: Buffer<u32>,
    _cursor: Buffer<u32>,
    offset: Buffer<u32>,
    block_total: Buffer<u32>,
    rows: Buffer<u32>,
    clear: Kernel,
    count: Kernel,
    scan_blocks: Kernel,
    scan_totals: Kernel,
    fill: Kernel,
}

impl Incidence {
    /// The rows' buffers for `slots` slots and a list of `capacity` pairs, and their kernels.
    fn new(
        g: &Gpu,
        slots: usize,
        capacity: usize,
        io: &PairInputs<'_>,
        pairs: &Buffer<u32>,
        block: u32,
    ) -> Result<Incidence> {
        let status = io.status;
        let blocks = slots.div_ceil(SCAN_BLOCK).max(1);
        let degree = Buffer::<u32>::new(g, "pairs per slot", slots)?;
        let cursor = Buffer::<u32>::new(g, "incidence cursors", slots)?;
        let offset = Buffer::<u32>::new(g, "incidence offsets", slots)?;
        let block_total = Buffer::<u32>::new(g, "incidence block totals", blocks)?;
        let rows = Buffer::<u32>::new(g, "incidence rows", 2 * capacity)?;
        let clear = g
            .kernel("orr_incidence_clear")
            .arg(slots as u32)
            .arg(&degree)
            .arg(&cursor)
            .arg(status)
            .build()?;
        let count = g
            .kernel("orr_incidence_count")
            .arg(capacity as u32)
            .arg(block)
            .arg(io.sys_massive)
            .arg(pairs)
            .arg(&degree)
            .arg(status)
            .build()?;
        let (scan_blocks, scan_totals) =
            scan_kernels(g, slots, [&degree, &offset, &block_total], status, false)?;
        let fill = g
            .kernel("orr_incidence_fill")
            .arg(capacity as u32)
            .arg(block)
            .arg(io.sys_massive)
            .arg(pairs)
            .arg(&cursor)
            .arg(&offset)
            .arg(&block_total)
            .arg(&rows)
            .arg(status)
            .build()?;
        Ok(Incidence {
            degree,
            _cursor: cursor,
            offset,
            block_total,
            rows,
            clear,
            count,
            scan_blocks,
            scan_totals,
            fill,
        })
    }

    /// Bind the kernels to a new list of `capacity` pairs (after the list grew).
    fn rebind(&mut self, g: &Gpu, capacity: usize, pairs: &Buffer<u32>) -> Result<()> {
        self.rows = Buffer::<u32>::new(g, "incidence rows", 2 * capacity)?;
        self.count.set_arg(0, capacity as u32)?;
        self.count.set_arg(3, pairs)?;
        self.fill.set_arg(0, capacity as u32)?;
        self.fill.set_arg(3, pairs)?;
        self.fill.set_arg(7, &self.rows)?;
        Ok(())
    }

    /// Build the rows of the current list (nothing when KickA has nothing to do).
    fn build(&self, slots: usize, capacity: usize) -> Result<()> {
        let items = capacity.min(LIST_ITEMS);
        launch(&self.clear, slots, "KickA rows")?;
        launch(&self.count, items, "KickA rows")?;
        launch(&self.scan_blocks, slots.div_ceil(SCAN_BLOCK), "KickA rows")?;
        launch(&self.scan_totals, 1, "KickA rows")?;
        launch(&self.fill, items, "KickA rows")
    }
}

/// The environment variable that sets a bounded list's first length in pairs (default
/// [`LIST_MIN_PAIRS`] or [`LIST_PAIRS_PER_SLOT`] per slot): for a device with little memory,
/// and for the tests that make the list grow.
pub const LIST_PAIRS_ENV: &str = "ORRERY_DEVICE_LIST_PAIRS";

/// The candidate list's first capacity for `slots` slots of `layout` (module docs).
pub fn initial_capacity(layout: &Layout, slots: usize) -> usize {
    let first = std::env::var(LIST_PAIRS_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(LIST_MIN_PAIRS.max(LIST_PAIRS_PER_SLOT * slots));
    all_pairs(layout).min(first.max(1))
}

/// The capacity a list that had to hold `needed` pairs grows to: a quarter to spare, never
/// more than every pair of `layout`.
pub fn grown_capacity(layout: &Layout, needed: usize) -> usize {
    (needed + needed / 4).min(all_pairs(layout)).max(needed)
}

/// The most candidate pairs `layout` allows.
pub fn all_pairs(layout: &Layout) -> usize {
    layout
        .systems
        .iter()
        .map(|s| s.massive * s.massive.saturating_sub(1) / 2 + (s.len - s.massive) * s.massive)
        .sum::<usize>()
        .max(1)
}

/// The arguments both pair-force kernels (`orr_pair_forces`, `orr_pair_forces_tiled`) take
/// after their counts and system maps: positions, masses, the kick's critical radii and their
/// inverses, the far and near sums, the owned-pair counts, the status words and `only_if_grew`.
fn pair_sum_args<'k>(
    k: &'k mut KernelBuilder,
    io: &PairInputs<'_>,
    owned: &Buffer<u32>,
) -> &'k mut KernelBuilder {
    k.args(io.pos)
        .arg(io.m)
        .arg(io.rcrit_kick)
        .arg(io.inv_rcrit_kick)
        .args(io.far)
        .args(io.near)
        .arg(owned)
        .arg(io.status)
        .arg(0u32)
}

/// The two kernels of an exclusive scan of per-slot `counts` over `slots` slots into `offset`
/// (within blocks of [`SCAN_BLOCK`]) and `block_total` (the blocks' offsets); with
/// `write_total` the total goes to the status buffer's candidate count.
fn scan_kernels(
    g: &Gpu,
    slots: usize,
    [counts, offset, block_total]: [&Buffer<u32>; 3],
    status: &Buffer<u32>,
    write_total: bool,
) -> Result<(Kernel, Kernel)> {
    let blocks = slots.div_ceil(SCAN_BLOCK).max(1);
    let scan_blocks = g
        .kernel("orr_scan_blocks")
        .arg(slots as u32)
        .arg(counts)
        .arg(offset)
        .arg(block_total)
        .arg(status)
        .arg(0u32)
        .build()?;
    let scan_totals = g
        .kernel("orr_scan_totals")
        .arg(blocks as u32)
        .arg(block_total)
        .arg(status)
        .arg(0u32)
        .arg(write_total as u32)
        .build()?;
    Ok((scan_blocks, scan_totals))
}

fn launch(kernel: &Kernel, n: usize, what: &str) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    // Every buffer argument was bound with the length the kernel indexes up to, and the
    // kernels check their index against the counts passed.
    kernel
        .launch(n, None)
        .map_err(|e| Error::run(format!("{what}: {e}")))
}

impl PairPass {
    /// Allocate the pass's buffers for `slots` slots of `layout` and bind its kernels to `io`.
    pub fn new(g: &Gpu, layout: &Layout, slots: usize, io: &PairInputs<'_>) -> Result<PairPass> {
        let blocks = slots.div_ceil(SCAN_BLOCK).max(1);
        let capacity = initial_capacity(layout, slots);
        let pairs = Buffer::<u32>::new(g, "candidate pairs", 2 * capacity)?;
        let owned = Buffer::<u32>::new(g, "owned pairs", slots)?;
        let offset = Buffer::<u32>::new(g, "pair offsets", slots)?;
        let block_total = Buffer::<u32>::new(g, "pair block totals", blocks)?;
        let block = layout.block.max(1) as u32;
        // The CPU's pass for many systems of at most 16 slots (vectorised across systems)
        // writes every slot of an active system, zeros in its empty ones; the others leave
        // empty slots alone.
        let zero_empty = (layout.systems.len() > 1 && layout.block <= SMALL_MAX) as u32;
        // The run's changeover function, fixed for the layout.
        let changeover = layout.changeover.code();
        let adopt = g
            .kernel("orr_adopt_radii")
            .arg(slots as u32)
            .arg(io.rcrit)
            .arg(io.rcrit_kick)
            .arg(io.inv_rcrit_kick)
            .build()?;
        let forces = pair_sum_args(
            g.kernel("orr_pair_forces")
                .arg(slots as u32)
                .arg(block)
                .arg(0u32)
                .arg(changeover)
                .arg(zero_empty)
                .arg(io.sys_len)
                .arg(io.sys_massive)
                .arg(io.sys_active),
            io,
            &owned,
        )
        .build()?;
        let forces_tiled = match layout.systems.len() {
            1 => Some(
                pair_sum_args(
                    g.kernel("orr_pair_forces_tiled")
                        .arg(slots as u32)
                        .arg(0u32)
                        .arg(changeover)
                        .arg(io.sys_len)
                        .arg(io.sys_massive),
                    io,
                    &owned,
                )
                // orr_pair_tile_t: six arrays of PAIR_TILE doubles.
                .local_f64(6 * PAIR_TILE)
                .build()?,
            ),
            _ => None,
        };
        let (scan_blocks, scan_totals) =
            scan_kernels(g, slots, [&owned, &offset, &block_total], io.status, true)?;
        let emit = g
            .kernel("orr_emit_candidates")
            .arg(slots as u32)
            .arg(block)
            .arg(capacity as u32)
            .arg(io.sys_len)
            .arg(io.sys_massive)
            .args(io.pos)
            .arg(io.rcrit_kick)
            .arg(&owned)
            .arg(&offset)
            .arg(&block_total)
            .arg(&pairs)
            .arg(io.status)
            .arg(0u32)
            .build()?;
        let incidence = Incidence::new(g, slots, capacity, io, &pairs, block)?;
        let refresh = g
            .kernel("orr_refresh_near")
            .arg(slots as u32)
            .arg(block)
            .arg(0u32)
            .arg(changeover)
            .arg(io.sys_len)
            .arg(io.sys_massive)
            .args(io.pos)
            .arg(io.m)
            .arg(io.inv_rcrit_kick)
            .args(io.near)
            .arg(&pairs)
            .arg(&incidence.degree)
            .arg(&incidence.offset)
            .arg(&incidence.block_total)
            .arg(&incidence.rows)
            .arg(io.status)
            .build()?;
        Ok(PairPass {
            slots,
            blocks,
            capacity,
            pairs,
            _owned: owned,
            _offset: offset,
            _block_total: block_total,
            adopt,
            forces,
            forces_tiled,
            scan_blocks,
            scan_totals,
            emit,
            incidence,
            refresh,
        })
    }

    /// Adopt the current critical radii for the stored accelerations.
    pub fn adopt(&self) -> Result<()> {
        launch(&self.adopt, self.slots, "adopting the critical radii")
    }

    /// The full pair pass and the candidate list for the state of `layout` (semi-active small
    /// bodies pull on the massive ones); with `only_if_grew`, the kernels do nothing unless the
    /// status buffer says a critical radius grew beyond the precheck margin (the opening kick's
    /// case, decided on the device without a read). One system with at least a tile of massive
    /// sources runs the tiled kernel; fewer sources (test particles around a few planets) gain
    /// nothing from staging them and run the plain one.
    pub fn run(&self, layout: &Layout, only_if_grew: bool) -> Result<()> {
        let semi_active = layout.semi_active;
        let tiled = match (&self.forces_tiled, layout.systems.as_slice()) {
            (Some(k), [one]) if one.massive >= PAIR_TILE => Some(k),
            _ => None,
        };
        let set = |k: &Kernel, i: u32, v: u32| k.set_arg(i, v);
        let only = only_if_grew as u32;
        set(&self.scan_blocks, 5, only)?;
        set(&self.scan_totals, 3, only)?;
        set(&self.emit, 14, only)?;
        match tiled {
            Some(tiled) => {
                set(tiled, 1, semi_active as u32)?;
                set(tiled, 19, only)?;
                // The padding work-items of the last work-group load and sum nothing and write
                // nothing (the kernel checks them against `slots`).
                tiled
                    .launch(self.slots, Some(PAIR_TILE))
                    .map_err(|e| Error::run(format!("pair accelerations: {e}")))?;
            }
            None => {
                set(&self.forces, 2, semi_active as u32)?;
                set(&self.forces, 22, only)?;
                launch(&self.forces, self.slots, "pair accelerations")?;
            }
        }
        launch(&self.scan_blocks, self.blocks, "candidate offsets")?;
        launch(&self.scan_totals, 1, "candidate offsets")?;
        launch(&self.emit, self.slots, "candidate pairs")
    }

    /// KickA/KickB: the near terms of the listed candidate pairs with the adopted critical
    /// radii; nothing when a radius grew (see [`PairPass::run`]) or the list is empty.
    pub fn refresh(&self, semi_active: bool) -> Result<()> {
        self.incidence.build(self.slots, self.capacity)?;
        self.refresh.set_arg(2, semi_active as u32)?;
        launch(&self.refresh, self.slots, "KickA")
    }

    /// The candidate list, `count` pairs long (from the status buffer).
    pub fn download(&self, count: usize) -> Result<Vec<(u32, u32)>> {
        let flat = self.pairs.to_vec_prefix(2 * count.min(self.capacity))?;
        Ok(flat.chunks_exact(2).map(|p| (p[0], p[1])).collect())
    }

    /// Emit the list again from the last full pass's counts (after [`PairPass::grow`]; the
    /// positions and radii are still those of the pass). `only_if_grew` as in that pass.
    pub fn emit_again(&self, only_if_grew: bool) -> Result<()> {
        let only = only_if_grew as u32;
        self.scan_blocks.set_arg(5, only)?;
        self.scan_totals.set_arg(3, only)?;
        self.emit.set_arg(14, only)?;
        launch(&self.scan_blocks, self.blocks, "candidate offsets")?;
        launch(&self.scan_totals, 1, "candidate offsets")?;
        launch(&self.emit, self.slots, "candidate pairs")
    }

    /// A new, empty list of `capacity` pairs, bound to the pass's kernels (the caller rebinds
    /// its own kernels that read the list, see [`PairPass::pairs`]).
    pub fn grow(&mut self, g: &Gpu, capacity: usize) -> Result<()> {
        self.pairs = Buffer::<u32>::new(g, "candidate pairs", 2 * capacity)?;
        self.capacity = capacity;
        self.emit.set_arg(2, capacity as u32)?;
        self.emit.set_arg(12, &self.pairs)?;
        self.refresh.set_arg(14, &self.pairs)?;
        self.incidence.rebind(g, capacity, &self.pairs)?;
        self.refresh.set_arg(18, &self.incidence.rows)?;
        Ok(())
    }

    /// True when the list holds fewer pairs than the layout allows (its count must be checked
    /// after a full pass).
    pub fn bounded(&self, layout: &Layout) -> bool {
        self.capacity < all_pairs(layout)
    }

    /// Replace the candidate list (the caller sets the count in the status buffer and grows the
    /// list first when `pairs` do not fit).
    pub fn upload(&mut self, pairs: &[(u32, u32)]) -> Result<()> {
        let flat: Vec<u32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
        if pairs.len() > self.capacity {
            return Err(crate::error::Error::run(format!(
                "{} candidate pairs do not fit the device list of {}",
                pairs.len(),
                self.capacity
            )));
        }
        self.pairs.upload_at(0, &flat)
    }

    /// The most pairs the list holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The pair buffer (two slots per pair), for the passes that read the list.
    pub fn pairs(&self) -> &Buffer<u32> {
        &self.pairs
    }
}
