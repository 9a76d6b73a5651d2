//! Self-gravity by the octree with ghost boxes (OCCLUDE report section 3.7; the group walk and
//! opening criterion of Bonsai, Bedorf et al. 2012, sections 2.2 and 3.3).
//!
//! The groups are the largest cells with at most [`GROUP_SIZE`](super::tree::GROUP_SIZE) particles (neighbours in Morton
//! order; Bonsai's N_crit). For each ghost box the group walks the tree once: a cell is accepted as a multipole
//! when
//!
//! ```text
//! d > l / theta + delta                         (Bonsai eq. 1)
//! ```
//!
//! with `d` the smallest distance between the group's bounding box (shifted by the ghost offset)
//! and the cell's centre of mass, `l` the cell's size and `delta` the offset of its centre of mass
//! from its geometric centre; a cell any group member needs opened is opened for the whole group.
//! Accepted cells go to the cell interaction list (monopole + quadrupole), the particles of
//! opened leaves to the particle interaction list; both lists are then evaluated for every group
//! member. Plummer softening: `a = G m d / (d^2 + eps^2)^(3/2)`, and the multipole terms with
//! `r^2 -> r^2 + eps^2`:
//!
//! ```text
//! a = G [ M d / r^3 - Q d / r^5 + 5/2 (d.Q.d) d / r^7 ],   d = com - x_sink
//! ```
//!
//! Each particle's acceleration is summed by one task in a fixed order, so the result does not
//! depend on the number of threads.

use super::boundary::GhostShift;
use super::tree::{Tree, LEAF_SIZE};
use super::Particles;
use rayon::prelude::*;

/// Parameters of the gravity pass.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GravityParams {
    /// Gravitational constant.
    pub g: f64,
    /// Opening angle theta.
    pub theta: f64,
    /// Plummer softening length.
    pub softening: f64,
}

/// Interaction lists of one group (structure of arrays; reused between groups).
#[derive(Debug, Default)]
pub struct Lists {
    px: Vec<f64>,
    py: Vec<f64>,
    pz: Vec<f64>,
    pm: Vec<f64>,
    cx: Vec<f64>,
    cy: Vec<f64>,
    cz: Vec<f64>,
    cm: Vec<f64>,
    q: [Vec<f64>; 6],
    stack: Vec<u32>,
}

impl Lists {
    fn clear(&mut self) {
        for v in [
            &mut self.px,
            &mut self.py,
            &mut self.pz,
            &mut self.pm,
            &mut self.cx,
            &mut self.cy,
            &mut self.cz,
            &mut self.cm,
        ] {
            v.clear();
        }
        for v in &mut self.q {
            v.clear();
        }
    }
    /// Number of particle-particle and particle-cell entries.
    pub fn sizes(&self) -> (usize, usize) {
        (self.px.len(), self.cx.len())
    }
}

/// Walk the tree for the group `lo..hi` (bounding box) over all ghost boxes, filling `lists`.
pub fn walk(
    tree: &Tree,
    p: &Particles,
    lo: [f64; 3],
    hi: [f64; 3],
    ghosts: &[GhostShift],
    inv_theta: f64,
    lists: &mut Lists,
) {
    lists.clear();
    for g in ghosts {
        // Sources are shifted by +g; equivalently the group is shifted by -g.
        let glo = [lo[0] - g.dx, lo[1] - g.dy, lo[2]];
        let ghi = [hi[0] - g.dx, hi[1] - g.dy, hi[2]];
        lists.stack.clear();
        lists.stack.push(0);
        while let Some(k) = lists.stack.pop() {
            let c = &tree.cells[k as usize];
            let nd = &tree.nodes[k as usize];
            let mut d2 = 0.0;
            for a in 0..3 {
                let d = (glo[a] - c.com[a]).max(c.com[a] - ghi[a]).max(0.0);
                d2 += d * d;
            }
            let crit = c.size * inv_theta + c.delta;
            if d2 > crit * crit {
                lists.cx.push(c.com[0] + g.dx);
                lists.cy.push(c.com[1] + g.dy);
                lists.cz.push(c.com[2]);
                lists.cm.push(c.mass);
                for (v, q) in lists.q.iter_mut().zip(c.quad) {
                    v.push(q);
                }
            } else if nd.is_leaf() {
                for j in nd.start as usize..nd.end as usize {
                    lists.px.push(p.x[j] + g.dx);
                    lists.py.push(p.y[j] + g.dy);
                    lists.pz.push(p.z[j]);
                    lists.pm.push(p.m[j]);
                }
            } else {
                // Reverse so children are visited in key order (any fixed order would do).
                for ch in (nd.first_child..nd.first_child + nd.n_children).rev() {
                    lists.stack.push(ch);
                }
            }
        }
    }
}

/// Evaluate the interaction lists for up to [`LEAF_SIZE`] sinks (padded); returns G-less
/// accelerations. Runs at the run-time SIMD level (AVX-512 or AVX2 when the processor has
/// them): the same IEEE operations in the same order on wider vectors (no fused multiply-add),
/// so the result is bitwise the same.
fn evaluate(
    lists: &Lists,
    sx: &[f64; LEAF_SIZE],
    sy: &[f64; LEAF_SIZE],
    sz: &[f64; LEAF_SIZE],
    eps2: f64,
) -> [[f64; LEAF_SIZE]; 3] {
    // At the run-time SIMD level (`crate::simd`): AVX-512 or AVX2 where the CPU has them.
    crate::simd::dispatch(
        #[inline(always)]
        || evaluate_body(lists, sx, sy, sz, eps2),
    )
}

/// The body of [`evaluate`]: the sinks are the inner loop so it vectorises without reordering
/// any sum.
#[inline(always)]
fn evaluate_body(
    lists: &Lists,
    sx: &[f64; LEAF_SIZE],
    sy: &[f64; LEAF_SIZE],
    sz: &[f64; LEAF_SIZE],
    eps2: f64,
) -> [[f64; LEAF_SIZE]; 3] {
    let mut ax = [0.0; LEAF_SIZE];
    let mut ay = [0.0; LEAF_SIZE];
    let mut az = [0.0; LEAF_SIZE];
    for j in 0..lists.px.len() {
        let (xj, yj, zj, mj) = (lists.px[j], lists.py[j], lists.pz[j], lists.pm[j]);
        for k in 0..LEAF_SIZE {
            let dx = xj - sx[k];
            let dy = yj - sy[k];
            let dz = zj - sz[k];
            let r2 = dx * dx + dy * dy + dz * dz + eps2;
            let f = if r2 > 0.0 { mj / (r2 * r2.sqrt()) } else { 0.0 };
            ax[k] += dx * f;
            ay[k] += dy * f;
            az[k] += dz * f;
        }
    }
    let q = &lists.q;
    for j in 0..lists.cx.len() {
        let (xj, yj, zj, mj) = (lists.cx[j], lists.cy[j], lists.cz[j], lists.cm[j]);
        let (qxx, qyy, qzz, qxy, qxz, qyz) = (q[0][j], q[1][j], q[2][j], q[3][j], q[4][j], q[5][j]);
        for k in 0..LEAF_SIZE {
            let dx = xj - sx[k];
            let dy = yj - sy[k];
            let dz = zj - sz[k];
            let r2 = dx * dx + dy * dy + dz * dz + eps2;
            let rinv = 1.0 / r2.sqrt();
            let rinv2 = rinv * rinv;
            let rinv3 = rinv * rinv2;
            let rinv5 = rinv3 * rinv2;
            let qdx = qxx * dx + qxy * dy + qxz * dz;
            let qdy = qxy * dx + qyy * dy + qyz * dz;
            let qdz = qxz * dx + qyz * dy + qzz * dz;
            let dqd = dx * qdx + dy * qdy + dz * qdz;
            let mono = mj * rinv3 + 2.5 * dqd * rinv5 * rinv2;
            ax[k] += dx * mono - qdx * rinv5;
            ay[k] += dy * mono - qdy * rinv5;
            az[k] += dz * mono - qdz * rinv5;
        }
    }
    [ax, ay, az]
}

/// Work counters of one gravity pass.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct GravityStats {
    /// Particle-particle interactions (sinks times list entries).
    pub pp: u64,
    /// Particle-cell interactions.
    pub pc: u64,
}

/// Tree gravity for all particles (module docs); `acc` gets the accelerations. The particles must
/// be in the order the tree was built for, with the moments up to date.
pub fn tree_gravity(
    p: &Particles,
    tree: &Tree,
    ghosts: &[GhostShift],
    gp: &GravityParams,
    acc: &mut [[f64; 3]],
) -> GravityStats {
    // Split the output into the groups' contiguous ranges.
    let mut parts: Vec<(u32, &mut [[f64; 3]])> = Vec::with_capacity(tree.groups.len());
    let mut rest = acc;
    for &l in &tree.groups {
        let (a, b) = rest.split_at_mut(tree.nodes[l as usize].count());
        parts.push((l, a));
        rest = b;
    }
    let inv_theta = 1.0 / gp.theta;
    let eps2 = gp.softening * gp.softening;
    let counts: Vec<(u64, u64)> = parts
        .into_par_iter()
        .map_init(Lists::default, |lists, (l, out)| {
            let nd = tree.nodes[l as usize];
            let c = tree.cells[l as usize];
            walk(tree, p, c.lo, c.hi, ghosts, inv_theta, lists);
            let (np, nc) = lists.sizes();
            let start = nd.start as usize;
            for (chunk_no, chunk) in out.chunks_mut(LEAF_SIZE).enumerate() {
                let base = start + chunk_no * LEAF_SIZE;
                let mut sx = [p.x[base]; LEAF_SIZE];
                let mut sy = [p.y[base]; LEAF_SIZE];
                let mut sz = [p.z[base]; LEAF_SIZE];
                let m = chunk.len();
                sx[..m].copy_from_slice(&p.x[base..base + m]);
                sy[..m].copy_from_slice(&p.y[base..base + m]);
                sz[..m].copy_from_slice(&p.z[base..base + m]);
                let a = evaluate(lists, &sx, &sy, &sz, eps2);
                for (k, o) in chunk.iter_mut().enumerate() {
                    *o = [gp.g * a[0][k], gp.g * a[1][k], gp.g * a[2][k]];
                }
            }
            let n = nd.count() as u64;
            (n * np as u64, n * nc as u64)
        })
        .collect();
    let mut s = GravityStats::default();
    for (a, b) in counts {
        s.pp += a;
        s.pc += b;
    }
    s
}

/// Direct summation over all particles in all ghost boxes with the same softening (the
/// reference for tests; O(N^2) per ghost box).
pub fn direct_gravity(p: &Particles, ghosts: &[GhostShift], gp: &GravityParams) -> Vec<[f64; 3]> {
    let eps2 = gp.softening * gp.softening;
    (0..p.len())
        .into_par_iter()
        .map(|i| {
            let mut a = [0.0; 3];
            for g in ghosts {
                for j in 0..p.len() {
                    let dx = p.x[j] + g.dx - p.x[i];
                    let dy = p.y[j] + g.dy - p.y[i];
                    let dz = p.z[j] - p.z[i];
                    let r2 = dx * dx + dy * dy + dz * dz + eps2;
                    if r2 > 0.0 {
                        let f = p.m[j] / (r2 * r2.sqrt());
                        a[0] += dx * f;
                        a[1] += dy * f;
                        a[2] += dz * f;
                    }
                }
            }
            [gp.g * a[0], gp.g * a[1], gp.g * a[2]]
        })
        .collect()
}
