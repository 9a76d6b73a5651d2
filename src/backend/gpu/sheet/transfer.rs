//! The sheet's tree and candidate pairs moved between the device and the host (the fields the
//! per-pass fallback carries across; the particle arrays move in `sheet.rs`).

use super::*;

impl DeviceSheet {
    /// The tree as the CPU holds it (and the root cube's side).
    pub(super) fn export_tree(&self) -> Result<(Tree, f64)> {
        let n = self.nodes;
        let [start, end, first, nchild, level, _] = self.b.tree.nodes().map(|f| f.to_vec_prefix(n));
        let (start, end, first, nchild, level) = (start?, end?, first?, nchild?, level?);
        let nodes = (0..n)
            .map(|k| Node {
                start: start[k],
                end: end[k],
                first_child: first[k],
                n_children: nchild[k],
                level: level[k],
            })
            .collect();
        let words = self.b.tree.cells.to_vec_prefix(n * CELL_WORDS)?;
        let cells = words.chunks_exact(CELL_WORDS).map(cell_of).collect();
        let tree = Tree {
            nodes,
            cells,
            leaves: self.b.leaves.to_vec_prefix(self.n_leaves)?,
            groups: self.b.groups.to_vec_prefix(self.n_groups)?,
        };
        Ok((tree, self.b.cube.to_vec()?[0]))
    }

    /// Replace the tree by `tree` (built on the host for the current particle order).
    pub(super) fn import_tree(&mut self, tree: &Tree, cube: f64) -> Result<()> {
        let n = tree.nodes.len();
        self.reserve_nodes(n, 0)?;
        let mut parent = vec![u32::MAX; n];
        for (k, nd) in tree.nodes.iter().enumerate() {
            for c in nd.first_child..nd.first_child + nd.n_children {
                parent[c as usize] = k as u32;
            }
        }
        let cols: [Vec<u32>; 5] = [
            tree.nodes.iter().map(|d| d.start).collect(),
            tree.nodes.iter().map(|d| d.end).collect(),
            tree.nodes.iter().map(|d| d.first_child).collect(),
            tree.nodes.iter().map(|d| d.n_children).collect(),
            tree.nodes.iter().map(|d| d.level).collect(),
        ];
        let t = &mut self.b.tree;
        let dst = [
            &mut t.start,
            &mut t.end,
            &mut t.first,
            &mut t.nchild,
            &mut t.level,
        ];
        for (d, c) in dst.into_iter().zip(&cols) {
            d.upload_at(0, c)?;
        }
        t.parent.upload_at(0, &parent)?;
        let words: Vec<f64> = tree.cells.iter().flat_map(words_of).collect();
        t.cells.upload_at(0, &words)?;
        self.b.leaves.upload_at(0, &tree.leaves)?;
        self.b.groups.upload_at(0, &tree.groups)?;
        self.b.cube.upload(&[cube])?;
        self.nodes = n;
        self.n_leaves = tree.leaves.len();
        self.n_groups = tree.groups.len();
        self.levels.clear();
        let mut begin = 0;
        for k in 1..=n {
            if k == n || tree.nodes[k].level != tree.nodes[k - 1].level {
                self.levels.push((begin as u32, k as u32));
                begin = k;
            }
        }
        Ok(())
    }

    pub(super) fn export_pairs(&self) -> Result<Vec<Pair>> {
        let p = &self.b.pairs;
        let (i, j, g) = (
            p.i.to_vec_prefix(self.n_pairs)?,
            p.j.to_vec_prefix(self.n_pairs)?,
            p.ghost.to_vec_prefix(self.n_pairs)?,
        );
        Ok((0..self.n_pairs)
            .map(|k| Pair {
                i: i[k],
                j: j[k],
                ghost: g[k],
            })
            .collect())
    }

    pub(super) fn import_pairs(&mut self, pairs: &[Pair], ghosts: Vec<GhostShift>) -> Result<()> {
        self.reserve_pairs(pairs.len())?;
        let p = &mut self.b.pairs;
        p.i.upload_at(0, &pairs.iter().map(|q| q.i).collect::<Vec<_>>())?;
        p.j.upload_at(0, &pairs.iter().map(|q| q.j).collect::<Vec<_>>())?;
        p.ghost
            .upload_at(0, &pairs.iter().map(|q| q.ghost).collect::<Vec<_>>())?;
        let flat: Vec<f64> = ghosts.iter().flat_map(|s| [s.dx, s.dy, s.dvy]).collect();
        self.b.ghosts_collision.upload(&flat)?;
        self.n_pairs = pairs.len();
        self.collision_ghosts = ghosts;
        Ok(())
    }
}

/// A cell from its `CELL_WORDS` doubles (`kernels/common/sheet.h`, `CELL_*`).
fn cell_of(w: &[f64]) -> Cell {
    Cell {
        lo: [w[0], w[1], w[2]],
        hi: [w[3], w[4], w[5]],
        com: [w[6], w[7], w[8]],
        mass: w[9],
        quad: [w[10], w[11], w[12], w[13], w[14], w[15]],
        size: w[16],
        delta: w[17],
        rmax: w[18],
    }
}

/// The `CELL_WORDS` doubles of a cell.
fn words_of(c: &Cell) -> [f64; CELL_WORDS] {
    let mut w = [0.0; CELL_WORDS];
    w[0..3].copy_from_slice(&c.lo);
    w[3..6].copy_from_slice(&c.hi);
    w[6..9].copy_from_slice(&c.com);
    w[9] = c.mass;
    w[10..16].copy_from_slice(&c.quad);
    w[16] = c.size;
    w[17] = c.delta;
    w[18] = c.rmax;
    w
}
