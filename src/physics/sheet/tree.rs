//! The octree of the sheet engine, built from sorted Morton keys as Bonsai does (Bedorf et al.
//! 2012, section 2.1 and appendix B).
//!
//! 1. Morton keys: positions mapped to 21-bit integers per axis on the cube `[-L/2, L/2)^3`
//!    (z is clamped to the cube; cells carry tight bounding boxes, so a clamped particle is still
//!    inside its cell's box) and interleaved into a 63-bit key.
//! 2. Parallel sort of (key, index) pairs; the particle arrays are then reordered into key order,
//!    so every cell is a contiguous index range.
//! 3. Build: a cell with more than [`LEAF_SIZE`] particles is split into its non-empty octants
//!    (the next three key bits) by binary search in the sorted keys. Cells are stored
//!    breadth-first: parents before children, the children of a cell contiguous.
//! 4. Moments: mass, centre of mass, traceless quadrupole `Q_ij = sum m (3 d_i d_j - d^2 delta_ij)`
//!    about the centre of mass, tight bounding box, the octree cell's side `l` and the
//!    centre-of-mass offset `delta` from its geometric centre (Bonsai eq. 1), and the largest
//!    particle radius (used by the collision search).

use super::Particles;
use rayon::prelude::*;

/// Largest number of particles in a leaf (Bonsai's N_leaf).
pub const LEAF_SIZE: usize = 16;
/// Largest number of particles in a gravity walk group (Bonsai's N_crit).
pub const GROUP_SIZE: usize = 64;
/// Bits per axis in a Morton key.
pub const KEY_BITS: u32 = 21;

/// Spread the low 21 bits of `v` to every third bit.
#[inline]
fn dilate3(v: u64) -> u64 {
    let mut x = v & 0x1f_ffff;
    x = (x | (x << 32)) & 0x001f_0000_0000_ffff;
    x = (x | (x << 16)) & 0x001f_0000_ff00_00ff;
    x = (x | (x << 8)) & 0x100f_00f0_0f00_f00f;
    x = (x | (x << 4)) & 0x10c3_0c30_c30c_30c3;
    x = (x | (x << 2)) & 0x1249_2492_4924_9249;
    x
}

/// The Morton key of a position on the cube `[-L/2, L/2)^3` (coordinates outside are clamped).
#[inline]
pub fn morton_key(x: f64, y: f64, z: f64, l: f64) -> u64 {
    let scale = (1u64 << KEY_BITS) as f64 / l;
    let max = ((1u64 << KEY_BITS) - 1) as f64;
    let q = |v: f64| ((v + 0.5 * l) * scale).clamp(0.0, max) as u64;
    (dilate3(q(x)) << 2) | (dilate3(q(y)) << 1) | dilate3(q(z))
}

/// One cell: its particle range and children.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Node {
    /// Particle range `start..end` in the (key-ordered) arrays.
    pub start: u32,
    pub end: u32,
    /// Index of the first child; children are contiguous. Zero children means a leaf.
    pub first_child: u32,
    pub n_children: u32,
    /// Depth (root 0).
    pub level: u32,
}

impl Node {
    /// True for a leaf.
    #[inline]
    pub fn is_leaf(&self) -> bool {
        self.n_children == 0
    }
    /// Number of particles.
    #[inline]
    pub fn count(&self) -> usize {
        (self.end - self.start) as usize
    }
}

/// Multipole moments and geometry of one cell.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Cell {
    /// Tight bounding box of the particle centres.
    pub lo: [f64; 3],
    pub hi: [f64; 3],
    /// Centre of mass and mass.
    pub com: [f64; 3],
    pub mass: f64,
    /// Traceless quadrupole about the centre of mass: xx, yy, zz, xy, xz, yz.
    pub quad: [f64; 6],
    /// Side of the octree cell (Bonsai's l).
    pub size: f64,
    /// Distance of the centre of mass from the octree cell's centre (Bonsai's delta).
    pub delta: f64,
    /// Largest particle radius.
    pub rmax: f64,
}

/// The octree: cells breadth-first (root 0) and the leaves in key order (the walk groups).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tree {
    pub nodes: Vec<Node>,
    pub cells: Vec<Cell>,
    /// Leaf indices in key order (the groups of the collision search).
    pub leaves: Vec<u32>,
    /// The groups of the gravity walk in key order: the largest cells with at most
    /// [`GROUP_SIZE`] particles (or leaves).
    pub groups: Vec<u32>,
}

/// Side of the tree's root cube: the box side `l`, or more when particles stand farther than
/// `l / 2` from the mid-plane, so that every particle lies inside its octree cell (the opening
/// criterion assumes it). The maximum is exact whatever the thread count.
pub fn root_cube(p: &Particles, l: f64) -> f64 {
    let zmax = p.z.par_iter().map(|z| z.abs()).reduce(|| 0.0, f64::max);
    if 2.0 * zmax < l {
        l
    } else {
        2.0 * zmax * (1.0 + 1e-9)
    }
}

/// Sort the particles into Morton order (reordering `p` in place) and return the sorted keys.
/// Ties are broken by the current index, so the order is unique and thread-count independent.
pub fn sort_particles(p: &mut Particles, l: f64) -> Vec<u64> {
    let mut pairs: Vec<(u64, u32)> = (0..p.len())
        .into_par_iter()
        .with_min_len(4096)
        .map(|i| (morton_key(p.x[i], p.y[i], p.z[i], l), i as u32))
        .collect();
    pairs.par_sort_unstable();
    let perm: Vec<u32> = pairs.iter().map(|&(_, i)| i).collect();
    p.permute(&perm);
    pairs.into_iter().map(|(k, _)| k).collect()
}

/// Build the cell structure from sorted keys (Bonsai section 2.1): breadth-first splitting of
/// every cell with more than [`LEAF_SIZE`] particles into its non-empty octants.
pub fn build(keys: &[u64]) -> Tree {
    let mut nodes = vec![Node {
        start: 0,
        end: keys.len() as u32,
        ..Default::default()
    }];
    let mut i = 0;
    while i < nodes.len() {
        let nd = nodes[i];
        if nd.count() > LEAF_SIZE && nd.level < KEY_BITS {
            let shift = 3 * (KEY_BITS - 1 - nd.level);
            let first = nodes.len() as u32;
            let range = &keys[nd.start as usize..nd.end as usize];
            let mut lo = 0usize;
            for oct in 0..8u64 {
                let hi = lo + range[lo..].partition_point(|&k| (k >> shift) & 7 <= oct);
                if hi > lo {
                    nodes.push(Node {
                        start: nd.start + lo as u32,
                        end: nd.start + hi as u32,
                        first_child: 0,
                        n_children: 0,
                        level: nd.level + 1,
                    });
                }
                lo = hi;
            }
            nodes[i].first_child = first;
            nodes[i].n_children = nodes.len() as u32 - first;
        }
        i += 1;
    }
    let mut leaves: Vec<u32> = (0..nodes.len() as u32)
        .filter(|&k| nodes[k as usize].is_leaf())
        .collect();
    leaves.sort_by_key(|&k| nodes[k as usize].start);
    let mut groups = Vec::new();
    let mut stack = vec![0u32];
    while let Some(k) = stack.pop() {
        let nd = nodes[k as usize];
        if nd.is_leaf() || nd.count() <= GROUP_SIZE {
            groups.push(k);
        } else {
            stack.extend(nd.first_child..nd.first_child + nd.n_children);
        }
    }
    groups.sort_by_key(|&k| nodes[k as usize].start);
    Tree {
        cells: vec![Cell::default(); nodes.len()],
        nodes,
        leaves,
        groups,
    }
}

/// The moments of the particles `start..end` (two passes: centre of mass, then quadrupole).
pub fn cell_moments(p: &Particles, start: usize, end: usize) -> Cell {
    let mut c = Cell {
        lo: [f64::INFINITY; 3],
        hi: [f64::NEG_INFINITY; 3],
        ..Default::default()
    };
    let mut s = [0.0; 3];
    for k in start..end {
        let q = [p.x[k], p.y[k], p.z[k]];
        for a in 0..3 {
            c.lo[a] = c.lo[a].min(q[a]);
            c.hi[a] = c.hi[a].max(q[a]);
            s[a] += p.m[k] * q[a];
        }
        c.mass += p.m[k];
        c.rmax = c.rmax.max(p.r[k]);
    }
    if c.mass > 0.0 {
        c.com = [s[0] / c.mass, s[1] / c.mass, s[2] / c.mass];
    } else {
        c.com = [
            0.5 * (c.lo[0] + c.hi[0]),
            0.5 * (c.lo[1] + c.hi[1]),
            0.5 * (c.lo[2] + c.hi[2]),
        ];
    }
    let mut q = [0.0; 6];
    for k in start..end {
        let d = [p.x[k] - c.com[0], p.y[k] - c.com[1], p.z[k] - c.com[2]];
        let d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        let m = p.m[k];
        q[0] += m * (3.0 * d[0] * d[0] - d2);
        q[1] += m * (3.0 * d[1] * d[1] - d2);
        q[2] += m * (3.0 * d[2] * d[2] - d2);
        q[3] += m * 3.0 * d[0] * d[1];
        q[4] += m * 3.0 * d[0] * d[2];
        q[5] += m * 3.0 * d[1] * d[2];
    }
    c.quad = q;
    c
}

/// Set the opening-criterion geometry of a cell at depth `level` of the cube of side `l`: the
/// octree cell's side `l / 2^level` (Bonsai's l; OCCLUDE's w) and the distance `delta` of the
/// centre of mass from the octree cell's geometric centre. The cell is found from its first
/// particle `q` (clamped as in [`morton_key`]).
pub fn set_geometry(c: &mut Cell, level: u32, q: [f64; 3], l: f64) {
    let w = l / (1u64 << level) as f64;
    let cells = (1u64 << level) as f64;
    let mut delta2 = 0.0;
    for a in 0..3 {
        let idx = ((q[a] + 0.5 * l) / w).floor().clamp(0.0, cells - 1.0);
        let centre = -0.5 * l + (idx + 0.5) * w;
        let off = c.com[a] - centre;
        delta2 += off * off;
    }
    c.size = w;
    c.delta = delta2.sqrt();
}

/// Compute the moments of every cell bottom-up (Bonsai section 2.2): leaves from their
/// particles, then level by level towards the root each cell from its children (masses and
/// centres of mass added, quadrupoles shifted to the new centre of mass by the parallel-axis
/// theorem). Cells of one level run in parallel, children in a fixed order, so the result does
/// not depend on the thread count.
pub fn moments(tree: &mut Tree, p: &Particles, l: f64) {
    let Tree { nodes, cells, .. } = tree;
    if nodes.is_empty() {
        return;
    }
    // Breadth-first order: every level is a contiguous run of cells, children after parents.
    let mut level_start = vec![0usize];
    for (k, nd) in nodes.iter().enumerate().skip(1) {
        if nd.level != nodes[k - 1].level {
            level_start.push(k);
        }
    }
    level_start.push(nodes.len());
    for w in level_start.windows(2).rev() {
        let (start, end) = (w[0], w[1]);
        let (head, deeper) = cells.split_at_mut(end);
        let deeper = &*deeper;
        head[start..]
            .par_iter_mut()
            .zip(nodes[start..end].par_iter())
            .with_min_len(16)
            .for_each(|(c, nd)| {
                let s = nd.start as usize;
                *c = if nd.is_leaf() {
                    cell_moments(p, s, nd.end as usize)
                } else {
                    let first = nd.first_child as usize - end;
                    combine(&deeper[first..first + nd.n_children as usize])
                };
                set_geometry(c, nd.level, [p.x[s], p.y[s], p.z[s]], l);
            });
    }
}

/// The moments of a cell from those of its children.
fn combine(children: &[Cell]) -> Cell {
    let mut c = Cell {
        lo: [f64::INFINITY; 3],
        hi: [f64::NEG_INFINITY; 3],
        ..Default::default()
    };
    let mut s = [0.0; 3];
    for ch in children {
        for a in 0..3 {
            c.lo[a] = c.lo[a].min(ch.lo[a]);
            c.hi[a] = c.hi[a].max(ch.hi[a]);
            s[a] += ch.mass * ch.com[a];
        }
        c.mass += ch.mass;
        c.rmax = c.rmax.max(ch.rmax);
    }
    c.com = if c.mass > 0.0 {
        [s[0] / c.mass, s[1] / c.mass, s[2] / c.mass]
    } else {
        std::array::from_fn(|a| 0.5 * (c.lo[a] + c.hi[a]))
    };
    let mut q = [0.0; 6];
    for ch in children {
        let d = [
            ch.com[0] - c.com[0],
            ch.com[1] - c.com[1],
            ch.com[2] - c.com[2],
        ];
        let d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        let m = ch.mass;
        q[0] += ch.quad[0] + m * (3.0 * d[0] * d[0] - d2);
        q[1] += ch.quad[1] + m * (3.0 * d[1] * d[1] - d2);
        q[2] += ch.quad[2] + m * (3.0 * d[2] * d[2] - d2);
        q[3] += ch.quad[3] + m * 3.0 * d[0] * d[1];
        q[4] += ch.quad[4] + m * 3.0 * d[0] * d[2];
        q[5] += ch.quad[5] + m * 3.0 * d[1] * d[2];
    }
    c.quad = q;
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dilate_interleaves() {
        assert_eq!(dilate3(0b111), 0b1001001);
        assert_eq!(dilate3(0x1f_ffff).count_ones(), 21);
        let k = morton_key(49.99999, 49.99999, 49.99999, 100.0);
        assert_eq!(k, (1u64 << 63) - 1);
        assert_eq!(morton_key(-50.0, -50.0, -1e9, 100.0), 0);
    }

    #[test]
    fn bottom_up_moments_equal_direct_sums() {
        let mut rng = crate::rng::Rng::new(5);
        let mut p = Particles::default();
        for _ in 0..3000 {
            let r = rng.range(1.0, 4.0);
            p.push(
                [rng.range(-50.0, 50.0), rng.range(-50.0, 50.0), rng.normal()],
                [0.0; 3],
                r * r * r,
                r,
            );
        }
        let keys = sort_particles(&mut p, 100.0);
        let mut t = build(&keys);
        moments(&mut t, &p, 100.0);
        for (c, nd) in t.cells.iter().zip(&t.nodes) {
            let d = cell_moments(&p, nd.start as usize, nd.end as usize);
            assert!((c.mass - d.mass).abs() <= 1e-12 * d.mass);
            assert_eq!((c.lo, c.hi, c.rmax), (d.lo, d.hi, d.rmax));
            let scale = d.mass * 1e4;
            for a in 0..3 {
                assert!((c.com[a] - d.com[a]).abs() < 1e-9, "com");
            }
            for k in 0..6 {
                assert!((c.quad[k] - d.quad[k]).abs() <= 1e-9 * scale, "quad {k}");
            }
        }
    }

    #[test]
    fn build_partitions_all_particles() {
        let mut rng = crate::rng::Rng::new(3);
        let mut p = Particles::default();
        for _ in 0..1000 {
            p.push(
                [rng.range(-50.0, 50.0), rng.range(-50.0, 50.0), rng.normal()],
                [0.0; 3],
                1.0,
                1.0,
            );
        }
        let keys = sort_particles(&mut p, 100.0);
        assert!(keys.windows(2).all(|w| w[0] <= w[1]));
        let t = build(&keys);
        let mut covered = 0;
        for &l in &t.leaves {
            let nd = t.nodes[l as usize];
            assert!(nd.count() <= LEAF_SIZE);
            assert_eq!(nd.start as usize, covered);
            covered = nd.end as usize;
        }
        assert_eq!(covered, 1000);
        for nd in &t.nodes {
            if !nd.is_leaf() {
                let a = t.nodes[nd.first_child as usize];
                let b = t.nodes[(nd.first_child + nd.n_children - 1) as usize];
                assert_eq!((a.start, b.end), (nd.start, nd.end));
            }
        }
    }
}
