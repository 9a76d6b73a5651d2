//! Hard-sphere collisions (OCCLUDE report sections 3.8-3.9 and eq. 13, 18, 19, 21).
//!
//! **Search.** Two particles collide when they overlap and approach (OCCLUDE eq. 18):
//! `|dx| <= r_i + r_j` and `dx . dv < 0`, with `dx`, `dv` including the ghost-box offset of the
//! partner (position and the shear velocity `-3/2 Omega i L`). Each leaf of the tree is a group
//! that walks the tree once per ghost box and opens a cell when the group's bounding box grown by
//! the group's largest radius and the cell's bounding box grown by the cell's largest radius
//! overlap (a box form of OCCLUDE eq. 19 with the true largest radius per cell). A pair (i, j,
//! ghost) is recorded by the lower index only (i < j), so every pair appears exactly once; the
//! box must be wider than four largest radii so that no two images of one particle can touch the
//! same partner.
//!
//! **Resolution.** The pairs are resolved one after another in the order of the search (leaf
//! order, then member, then walk order), which does not depend on the thread count. Each pair is
//! re-checked with the current velocities (an earlier collision may have separated it); the
//! normal relative velocity `v_n = dv . n` becomes `-eps(|v_n|) v_n` (OCCLUDE eq. 13), the
//! tangential part is unchanged, and the impulse is shared by the mass ratio so that momentum is
//! conserved and the pair's kinetic energy changes by `mu v_n^2 (eps^2 - 1) / 2 <= 0`.

use super::boundary::GhostShift;
use super::tree::Tree;
use super::Particles;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// The normal coefficient of restitution.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Restitution {
    /// Bridges et al. (1984): `eps = min(1, (v_n / v_c)^-0.234)` (OCCLUDE eq. 21); `v_c` in m/s
    /// (0.0077 cm/s = 7.7e-5 m/s).
    Bridges { v_c: f64 },
    /// A constant coefficient in [0, 1].
    Constant(f64),
}

impl Restitution {
    /// The coefficient for a normal impact speed `vn` (m/s, either sign).
    #[inline]
    pub fn eps(&self, vn: f64) -> f64 {
        match *self {
            Restitution::Bridges { v_c } => {
                let v = vn.abs();
                if v <= v_c {
                    1.0
                } else {
                    (v / v_c).powf(-0.234)
                }
            }
            Restitution::Constant(e) => e,
        }
    }
}

/// A candidate collision: particles `i < j` (current array indices), `j` seen in ghost box `ghost`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pair {
    pub i: u32,
    pub j: u32,
    pub ghost: u32,
}

/// True when `i` and the image of `j` in `g` overlap and approach (OCCLUDE eq. 18).
#[inline]
pub fn colliding(p: &Particles, i: usize, j: usize, g: &GhostShift) -> bool {
    let dx = p.x[j] + g.dx - p.x[i];
    let dy = p.y[j] + g.dy - p.y[i];
    let dz = p.z[j] - p.z[i];
    let rr = p.r[i] + p.r[j];
    if dx * dx + dy * dy + dz * dz > rr * rr {
        return false;
    }
    let dvx = p.vx[j] - p.vx[i];
    let dvy = p.vy[j] + g.dvy - p.vy[i];
    let dvz = p.vz[j] - p.vz[i];
    dx * dvx + dy * dvy + dz * dvz < 0.0
}

/// Squared gap between two boxes (0 when they overlap).
#[inline]
fn box_gap2(alo: [f64; 3], ahi: [f64; 3], blo: [f64; 3], bhi: [f64; 3]) -> f64 {
    let mut s = 0.0;
    for k in 0..3 {
        let d = (blo[k] - ahi[k]).max(alo[k] - bhi[k]).max(0.0);
        s += d * d;
    }
    s
}

/// Tree collision search over all ghost boxes (module docs). The tree must be built for the
/// current order and positions, with moments (bounding boxes, largest radii) up to date.
pub fn search(p: &Particles, tree: &Tree, ghosts: &[GhostShift]) -> Vec<Pair> {
    let per_leaf: Vec<Vec<Pair>> = tree
        .leaves
        .par_iter()
        .map_init(Vec::new, |stack: &mut Vec<u32>, &l| {
            let mut found = Vec::new();
            let nd = tree.nodes[l as usize];
            let c = tree.cells[l as usize];
            for (gi, g) in ghosts.iter().enumerate() {
                let glo = [c.lo[0] - g.dx, c.lo[1] - g.dy, c.lo[2]];
                let ghi = [c.hi[0] - g.dx, c.hi[1] - g.dy, c.hi[2]];
                stack.clear();
                stack.push(0);
                while let Some(k) = stack.pop() {
                    let o = &tree.nodes[k as usize];
                    // Only partners with a higher index record the pair.
                    if o.end <= nd.start + 1 {
                        continue;
                    }
                    let oc = &tree.cells[k as usize];
                    let reach = c.rmax + oc.rmax;
                    if box_gap2(glo, ghi, oc.lo, oc.hi) > reach * reach {
                        continue;
                    }
                    if o.is_leaf() {
                        for i in nd.start as usize..nd.end as usize {
                            for j in (o.start as usize).max(i + 1)..o.end as usize {
                                if colliding(p, i, j, g) {
                                    found.push(Pair {
                                        i: i as u32,
                                        j: j as u32,
                                        ghost: gi as u32,
                                    });
                                }
                            }
                        }
                    } else {
                        for ch in (o.first_child..o.first_child + o.n_children).rev() {
                            stack.push(ch);
                        }
                    }
                }
            }
            // Member order, then partner order: independent of the walk order.
            found.sort_unstable();
            found
        })
        .collect();
    per_leaf.into_iter().flatten().collect()
}

/// All colliding pairs by brute force over all pairs and ghost boxes (the reference for tests),
/// sorted.
pub fn brute_force(p: &Particles, ghosts: &[GhostShift]) -> Vec<Pair> {
    let n = p.len();
    let mut out: Vec<Pair> = (0..n)
        .into_par_iter()
        .flat_map_iter(|i| {
            let mut v = Vec::new();
            for j in i + 1..n {
                for (gi, g) in ghosts.iter().enumerate() {
                    if colliding(p, i, j, g) {
                        v.push(Pair {
                            i: i as u32,
                            j: j as u32,
                            ghost: gi as u32,
                        });
                    }
                }
            }
            v
        })
        .collect();
    out.sort_unstable();
    out
}

/// Resolve one pair if it still approaches; returns whether it did (module docs).
#[inline]
pub fn resolve_pair(p: &mut Particles, pair: Pair, g: &GhostShift, rest: &Restitution) -> bool {
    let (i, j) = (pair.i as usize, pair.j as usize);
    let dx = p.x[j] + g.dx - p.x[i];
    let dy = p.y[j] + g.dy - p.y[i];
    let dz = p.z[j] - p.z[i];
    let d = (dx * dx + dy * dy + dz * dz).sqrt();
    if d <= 0.0 {
        return false;
    }
    let n = [dx / d, dy / d, dz / d];
    let dv = [
        p.vx[j] - p.vx[i],
        p.vy[j] + g.dvy - p.vy[i],
        p.vz[j] - p.vz[i],
    ];
    let vn = dv[0] * n[0] + dv[1] * n[1] + dv[2] * n[2];
    if vn >= 0.0 {
        return false;
    }
    let eps = rest.eps(vn).clamp(0.0, 1.0);
    // Change of the normal relative velocity, shared by the mass ratio.
    let dvn = -(1.0 + eps) * vn;
    let (mi, mj) = (p.m[i], p.m[j]);
    let mt = mi + mj;
    let (fi, fj) = (dvn * mj / mt, dvn * mi / mt);
    p.vx[i] -= fi * n[0];
    p.vy[i] -= fi * n[1];
    p.vz[i] -= fi * n[2];
    p.vx[j] += fj * n[0];
    p.vy[j] += fj * n[1];
    p.vz[j] += fj * n[2];
    true
}

/// Resolve all pairs in order; returns the number resolved.
pub fn resolve(
    p: &mut Particles,
    pairs: &[Pair],
    ghosts: &[GhostShift],
    rest: &Restitution,
) -> usize {
    let mut n = 0;
    for &pair in pairs {
        if resolve_pair(p, pair, &ghosts[pair.ghost as usize], rest) {
            n += 1;
        }
    }
    n
}
