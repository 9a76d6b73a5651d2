//! Close-encounter groups: the equivalence classes of the encounter pairs (GENGA paper section
//! 3.2.5 and Appendix A).
//!
//! Pairs A-B and B-C put A, B and C into one group even though A and C are not in an encounter.
//! Appendix A labels every group by the smallest index of its members; here the classes are built
//! with a serial union-find (union by size, path halving) that tracks the minimum member at each
//! root, which gives the same labels as the appendix's iterated atomic-min propagation in
//! `O(P log P)` for `P` pairs (the sort for the deterministic output order dominates).
//!
//! The result is stored as CSR: group `g` has members `members[offsets[g]..offsets[g + 1]]`,
//! sorted ascending (so the first member is the group id). Groups are ordered by size, largest
//! first (for scheduling the expensive Bulirsch-Stoer integrations first), then by group id.
//! [`EncounterGroups`] keeps its buffers between steps and only touches the bodies named in the
//! pairs, so a warmed-up instance does not allocate and costs nothing per non-encountering body.

use crate::error::Error;

/// Marks a body that is in no group.
const NONE: u32 = u32::MAX;

/// Reusable union-find grouping of encounter pairs into CSR groups (GENGA Appendix A semantics).
#[derive(Debug, Clone, Default)]
pub struct EncounterGroups {
    /// Union-find parent; identity for every body not touched by the current build.
    parent: Vec<u32>,
    /// Class size at a root (1 for untouched bodies).
    size: Vec<u32>,
    /// Smallest member index at a root (the body itself for untouched bodies).
    min: Vec<u32>,
    /// Group index of each body of the last build, [`NONE`] for bodies in no group.
    group_of: Vec<u32>,
    /// Bodies named by the pairs of the last build (sorted ascending after the build).
    touched: Vec<u32>,
    /// Roots of the last build, in output order.
    roots: Vec<u32>,
    /// CSR offsets, `n_groups + 1` entries.
    offsets: Vec<u32>,
    /// CSR members.
    members: Vec<u32>,
}

impl EncounterGroups {
    /// An empty grouping; buffers grow on the first builds.
    pub fn new() -> Self {
        Self::default()
    }

    /// Group the bodies `0..n_bodies` linked by `pairs`. Self-pairs `(i, i)` are ignored (a body
    /// alone is not an encounter); duplicate pairs are harmless. Errors when a pair names a body
    /// outside `0..n_bodies`; the previous result is then cleared.
    pub fn build(&mut self, n_bodies: usize, pairs: &[(u32, u32)]) -> Result<(), Error> {
        self.reset_previous();
        if n_bodies > NONE as usize {
            return Err(Error::run(format!(
                "encounter grouping: {n_bodies} bodies exceed the u32 index range"
            )));
        }
        if let Some(&(a, b)) = pairs
            .iter()
            .find(|&&(a, b)| a as usize >= n_bodies || b as usize >= n_bodies)
        {
            return Err(Error::run(format!(
                "encounter grouping: pair ({a}, {b}) names a body outside 0..{n_bodies}"
            )));
        }
        while self.parent.len() < n_bodies {
            let k = self.parent.len() as u32;
            self.parent.push(k);
            self.size.push(1);
            self.min.push(k);
            self.group_of.push(NONE);
        }

        for &(a, b) in pairs {
            if a == b {
                continue;
            }
            for k in [a, b] {
                if self.group_of[k as usize] == NONE {
                    // Temporary mark "touched"; overwritten with the group index below.
                    self.group_of[k as usize] = 0;
                    self.touched.push(k);
                }
            }
            let ra = self.find(a);
            let rb = self.find(b);
            if ra != rb {
                let (big, small) = if self.size[ra as usize] >= self.size[rb as usize] {
                    (ra, rb)
                } else {
                    (rb, ra)
                };
                self.parent[small as usize] = big;
                self.size[big as usize] += self.size[small as usize];
                self.min[big as usize] = self.min[big as usize].min(self.min[small as usize]);
            }
        }

        self.finish();
        Ok(())
    }

    /// The same grouping from Appendix A's labels: `link[k]` is the smallest body of `k`'s group
    /// for every body with `touched[k] != 0` (named by a pair that is not a self-pair), as the
    /// device's union-find computes them (`kernels/groups.cl`). Gives the value [`Self::build`]
    /// gives for the same pairs (members, order, `group_of`). Errors on labels that are not
    /// such a labelling; the previous result is then cleared.
    pub fn from_labels(
        &mut self,
        n_bodies: usize,
        link: &[u32],
        touched: &[u32],
    ) -> Result<(), Error> {
        if link.len() < n_bodies || touched.len() < n_bodies {
            self.reset_previous();
            return Err(Error::run(format!(
                "encounter grouping: {} labels for {n_bodies} bodies",
                link.len().min(touched.len())
            )));
        }
        let labelled: Vec<(u32, u32)> = (0..n_bodies)
            .filter(|&k| touched[k] != 0)
            .map(|k| (k as u32, link[k]))
            .collect();
        self.from_touched_labels(n_bodies, &labelled)
    }

    /// [`Self::from_labels`] from the touched bodies only: `(body, label)` pairs in ascending
    /// body order (what the device compacts, `orr_link_compact`, so that a run with 10^6 test
    /// particles moves only the bodies in encounters).
    pub fn from_touched_labels(
        &mut self,
        n_bodies: usize,
        labelled: &[(u32, u32)],
    ) -> Result<(), Error> {
        self.reset_previous();
        if n_bodies > NONE as usize {
            return Err(Error::run(format!(
                "encounter grouping: {n_bodies} bodies are more than the grouping holds"
            )));
        }
        let label_of = |k: u32| {
            labelled
                .binary_search_by_key(&k, |&(b, _)| b)
                .ok()
                .map(|i| labelled[i].1)
        };
        for (i, &(k, r)) in labelled.iter().enumerate() {
            let sorted = i == 0 || labelled[i - 1].0 < k;
            if !sorted || k as usize >= n_bodies || r > k || label_of(r) != Some(r) {
                return Err(Error::run(format!(
                    "encounter grouping: body {k} has the label {r}, which is not the smallest \
                     body of a group"
                )));
            }
        }
        while self.parent.len() < n_bodies {
            let k = self.parent.len() as u32;
            self.parent.push(k);
            self.size.push(1);
            self.min.push(k);
            self.group_of.push(NONE);
        }
        for &(k, r) in labelled {
            self.group_of[k as usize] = 0;
            self.touched.push(k);
            if r != k {
                self.parent[k as usize] = r;
                self.size[r as usize] += 1;
            }
        }
        self.finish();
        Ok(())
    }

    /// Order the roots of the classes built and fill the CSR output.
    fn finish(&mut self) {
        // Roots in output order: size descending, then smallest member ascending.
        for i in 0..self.touched.len() {
            let k = self.touched[i];
            if self.parent[k as usize] == k {
                self.roots.push(k);
            }
        }
        let (size, min) = (&self.size, &self.min);
        self.roots.sort_unstable_by(|&a, &b| {
            size[b as usize]
                .cmp(&size[a as usize])
                .then(min[a as usize].cmp(&min[b as usize]))
        });

        // Offsets, and the group index stored at each root (reusing `group_of`).
        self.offsets.push(0);
        let mut acc = 0u32;
        for (g, &r) in self.roots.iter().enumerate() {
            acc += self.size[r as usize];
            self.offsets.push(acc);
            self.group_of[r as usize] = g as u32;
        }
        self.members.resize(acc as usize, 0);

        // Scatter members in ascending body order so every group comes out sorted.
        self.touched.sort_unstable();
        for i in 0..self.touched.len() {
            let k = self.touched[i];
            let root = self.find(k);
            let g = self.group_of[root as usize];
            // `offsets[g]` serves as the fill cursor; restored afterwards.
            let slot = self.offsets[g as usize];
            self.members[slot as usize] = k;
            self.offsets[g as usize] += 1;
        }
        for g in (0..self.roots.len()).rev() {
            self.offsets[g + 1] = self.offsets[g];
        }
        self.offsets[0] = 0;
        for g in 0..self.roots.len() {
            for s in self.offsets[g]..self.offsets[g + 1] {
                let k = self.members[s as usize];
                self.group_of[k as usize] = g as u32;
            }
        }
    }

    /// Number of groups of the last build.
    pub fn n_groups(&self) -> usize {
        self.roots.len()
    }

    /// Members of group `g`, ascending. Empty for `g >= n_groups()`.
    pub fn members(&self, g: usize) -> &[u32] {
        if g >= self.n_groups() {
            return &[];
        }
        &self.members[self.offsets[g] as usize..self.offsets[g + 1] as usize]
    }

    /// The group id of group `g` (Appendix A's label): its smallest member index.
    pub fn group_id(&self, g: usize) -> Option<u32> {
        self.members(g).first().copied()
    }

    /// The group (position in the output order) holding `body`, `None` if it is in no group.
    pub fn group_of(&self, body: usize) -> Option<usize> {
        match self.group_of.get(body) {
            Some(&g) if g != NONE => Some(g as usize),
            _ => None,
        }
    }

    /// CSR offsets (`n_groups() + 1` entries, starting at 0).
    pub fn offsets(&self) -> &[u32] {
        if self.offsets.is_empty() {
            &[0]
        } else {
            &self.offsets
        }
    }

    /// CSR members of all groups, back to back.
    pub fn all_members(&self) -> &[u32] {
        &self.members
    }

    /// Size of the largest group (0 when there are none).
    pub fn largest(&self) -> usize {
        self.members(0).len()
    }

    /// Root of `k` with path halving (iterative: long chains are fine).
    #[inline]
    fn find(&mut self, mut k: u32) -> u32 {
        while self.parent[k as usize] != k {
            let gp = self.parent[self.parent[k as usize] as usize];
            self.parent[k as usize] = gp;
            k = gp;
        }
        k
    }

    /// Restore the identity state for the bodies touched by the previous build.
    fn reset_previous(&mut self) {
        for &k in &self.touched {
            let k = k as usize;
            self.parent[k] = k as u32;
            self.size[k] = 1;
            self.min[k] = k as u32;
            self.group_of[k] = NONE;
        }
        self.touched.clear();
        self.roots.clear();
        self.offsets.clear();
        self.members.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::rng::Rng;

    /// Appendix A literally: LINK[p] := min(LINK[p1], LINK[p2]) for both ends of every pair, then
    /// LINK[i] := LINK[LINK[i]], repeated until nothing changes. Returns the groups (sorted
    /// members) in the required order.
    fn reference(n: usize, pairs: &[(u32, u32)]) -> Vec<Vec<u32>> {
        let mut link: Vec<u32> = (0..n as u32).collect();
        loop {
            let mut changed = false;
            for &(a, b) in pairs {
                let m = link[a as usize].min(link[b as usize]);
                for k in [a, b] {
                    if link[k as usize] != m {
                        link[k as usize] = m;
                        changed = true;
                    }
                }
            }
            for i in 0..n {
                let l = link[link[i] as usize];
                if l != link[i] {
                    link[i] = l;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let mut in_pair = vec![false; n];
        for &(a, b) in pairs {
            if a != b {
                in_pair[a as usize] = true;
                in_pair[b as usize] = true;
            }
        }
        let mut groups: Vec<Vec<u32>> = Vec::new();
        let mut index_of = vec![usize::MAX; n];
        for i in 0..n {
            if !in_pair[i] {
                continue;
            }
            let root = link[i] as usize;
            if index_of[root] == usize::MAX {
                index_of[root] = groups.len();
                groups.push(Vec::new());
            }
            groups[index_of[root]].push(i as u32);
        }
        for (g, members) in groups.iter().enumerate() {
            assert_eq!(
                link[members[0] as usize], members[0],
                "label is the minimum (group {g})"
            );
        }
        groups.sort_by(|a, b| b.len().cmp(&a.len()).then(a[0].cmp(&b[0])));
        groups
    }

    fn check(eg: &EncounterGroups, n: usize, pairs: &[(u32, u32)]) {
        let want = reference(n, pairs);
        assert_eq!(eg.n_groups(), want.len());
        assert_eq!(eg.offsets().len(), want.len() + 1);
        for (g, members) in want.iter().enumerate() {
            assert_eq!(eg.members(g), &members[..], "group {g}");
            assert_eq!(eg.group_id(g), Some(members[0]));
            for &k in members {
                assert_eq!(eg.group_of(k as usize), Some(g));
            }
        }
        let grouped: usize = want.iter().map(|g| g.len()).sum();
        assert_eq!(eg.all_members().len(), grouped);
        assert_eq!(
            (0..n).filter(|&k| eg.group_of(k).is_some()).count(),
            grouped
        );
    }

    #[test]
    fn chain_and_paper_example() {
        let mut eg = EncounterGroups::new();
        // A-B, B-C form one group; D-E another; F alone with itself is ignored.
        eg.build(10, &[(7, 3), (3, 5), (9, 8), (6, 6)]).unwrap();
        assert_eq!(eg.n_groups(), 2);
        assert_eq!(eg.members(0), &[3, 5, 7]);
        assert_eq!(eg.members(1), &[8, 9]);
        assert_eq!(eg.group_id(0), Some(3));
        assert_eq!(eg.group_of(6), None);
        assert_eq!(eg.largest(), 3);
        // Equal sizes are ordered by group id.
        eg.build(10, &[(9, 8), (1, 2)]).unwrap();
        assert_eq!(eg.members(0), &[1, 2]);
        assert_eq!(eg.members(1), &[8, 9]);
        assert_eq!(
            eg.group_of(3),
            None,
            "state of the previous build is cleared"
        );
        eg.build(10, &[]).unwrap();
        assert_eq!(
            (eg.n_groups(), eg.offsets(), eg.members(0)),
            (0, &[0u32][..], &[][..])
        );
    }

    #[test]
    fn out_of_range_pair_is_an_error() {
        let mut eg = EncounterGroups::new();
        let e = eg.build(4, &[(0, 1), (2, 4)]).unwrap_err();
        assert!(e.to_string().contains("(2, 4)"), "{e}");
        assert_eq!(eg.n_groups(), 0);
        eg.build(5, &[(2, 4)]).unwrap();
        assert_eq!(eg.members(0), &[2, 4]);
    }

    #[test]
    fn matches_label_propagation_on_random_pair_lists() {
        let mut rng = Rng::new(42);
        let mut eg = EncounterGroups::new();
        for case in 0..300 {
            let n = 2 + rng.below(400) as usize;
            let n_pairs = rng.below(3 * n as u64) as usize;
            let mut pairs: Vec<(u32, u32)> = (0..n_pairs)
                .map(|_| (rng.below(n as u64) as u32, rng.below(n as u64) as u32))
                .collect();
            match case % 3 {
                // A long chain in shuffled order, in reverse index order.
                0 => {
                    let len = (n as u32).min(200);
                    for k in (1..len).rev() {
                        pairs.push((k, k - 1));
                    }
                    let l = pairs.len();
                    for i in (1..l).rev() {
                        pairs.swap(i, rng.below(i as u64 + 1) as usize);
                    }
                }
                // A giant group: a random spanning set over a third of the bodies.
                1 => {
                    let base = rng.below(n as u64) as u32;
                    for _ in 0..n / 3 {
                        pairs.push((base, rng.below(n as u64) as u32));
                    }
                }
                _ => {}
            }
            eg.build(n, &pairs).unwrap();
            check(&eg, n, &pairs);
        }
    }

    /// The labels of Appendix A (`reference`'s fixpoint) give the same grouping as the pairs.
    #[test]
    fn from_labels_equals_build() {
        let mut rng = Rng::new(11);
        let (mut a, mut b) = (EncounterGroups::new(), EncounterGroups::new());
        for _ in 0..200 {
            let n = 2 + rng.below(300) as usize;
            let pairs: Vec<(u32, u32)> = (0..(rng.below(2 * n as u64) as u32))
                .map(|_| (rng.below(n as u64) as u32, rng.below(n as u64) as u32))
                .collect();
            a.build(n, &pairs).unwrap();
            let mut link = vec![0u32; n];
            let mut touched = vec![0u32; n];
            for g in reference(n, &pairs) {
                for &k in &g {
                    link[k as usize] = g[0];
                    touched[k as usize] = 1;
                }
            }
            b.from_labels(n, &link, &touched).unwrap();
            assert_eq!(a.offsets(), b.offsets());
            assert_eq!(a.all_members(), b.all_members());
            for k in 0..n {
                assert_eq!(a.group_of(k), b.group_of(k));
            }
        }
        let e = b.from_labels(3, &[0, 2, 2], &[1, 1, 1]).unwrap_err();
        assert!(e.to_string().contains("body 1"), "{e}");
        assert_eq!(b.n_groups(), 0);
        // The compacted form refuses unsorted lists, bodies beyond n and labels of untouched
        // bodies, and gives the dense form's groups otherwise.
        assert!(b.from_touched_labels(3, &[(1, 0), (0, 0)]).is_err());
        assert!(b.from_touched_labels(3, &[(0, 0), (3, 0)]).is_err());
        assert!(b.from_touched_labels(4, &[(2, 1), (3, 1)]).is_err());
        b.from_touched_labels(5, &[(1, 1), (3, 1), (4, 4)]).unwrap();
        let mut dense = EncounterGroups::new();
        dense
            .from_labels(5, &[0, 1, 2, 1, 4], &[0, 1, 0, 1, 1])
            .unwrap();
        assert_eq!(b.n_groups(), 2);
        assert_eq!(
            (b.offsets(), b.all_members()),
            (dense.offsets(), dense.all_members())
        );
    }

    #[test]
    fn long_chain_and_giant_group_at_scale() {
        let mut eg = EncounterGroups::new();
        let n = 200_000;
        // One chain through every body, linked from the far end (worst case for naive linking).
        let chain: Vec<(u32, u32)> = (1..n as u32).rev().map(|k| (k, k - 1)).collect();
        eg.build(n, &chain).unwrap();
        assert_eq!(eg.n_groups(), 1);
        assert_eq!(eg.members(0).len(), n);
        assert!(eg.members(0).windows(2).all(|w| w[0] < w[1]));
        // Thousands of pairs: one giant group of 500 plus many small ones, checked in full.
        let mut rng = Rng::new(7);
        let n = 5000;
        let mut pairs = Vec::new();
        for k in 1..500u32 {
            pairs.push((rng.below(u64::from(k)) as u32, k));
        }
        for _ in 0..3000 {
            let a = 500 + rng.below(4500) as u32;
            pairs.push((a, (a + 1 + rng.below(3) as u32).min(n as u32 - 1)));
        }
        eg.build(n as usize, &pairs).unwrap();
        check(&eg, n as usize, &pairs);
        assert!(eg.largest() >= 500);
    }
}
