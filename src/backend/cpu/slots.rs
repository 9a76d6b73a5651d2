//! Work pieces over the body slots, and disjoint mutable access to them from rayon tasks.

use crate::model::Layout;
use rayon::prelude::*;

/// A contiguous run of slots worked on by one task.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Chunk {
    pub start: usize,
    pub len: usize,
}

/// The work pieces of the per-body passes: runs of at most `max_len` slots over the occupied
/// slots of one system, or over all blocks of many systems (empty and stopped slots are skipped
/// by the passes through [`SlotMaps::live_mu`]).
pub fn chunks(layout: &Layout, max_len: usize) -> Vec<Chunk> {
    let end = match layout.systems.as_slice() {
        [one] if one.active => one.len,
        [_] => 0,
        many => layout.block * many.len(),
    };
    (0..end)
        .step_by(max_len.max(1))
        .map(|start| Chunk {
            start,
            len: max_len.min(end - start),
        })
        .collect()
}

/// `f` of every item of `items`, combined with `reduce` (associative and commutative, as `||`
/// or `min`) starting from `identity`: in parallel when there are several items, inline when
/// there is one, so that the passes of a small system (one chunk) pay nothing to the parallel
/// runtime.
pub fn map_reduce<T: Sync, R: Copy + Send + Sync>(
    items: &[T],
    identity: R,
    f: impl Fn(&T) -> R + Sync + Send,
    reduce: impl Fn(R, R) -> R + Sync + Send,
) -> R {
    match items {
        [] => identity,
        [one] => reduce(identity, f(one)),
        many => many.par_iter().map(f).reduce(|| identity, reduce),
    }
}

/// `f` on every item of `items`: in parallel when there are several, inline when there is one.
pub fn for_each(items: &[Chunk], f: impl Fn(&Chunk) + Sync + Send) {
    map_reduce(items, (), f, |(), ()| ())
}

/// Per-slot lookups of the per-body passes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SlotMaps {
    /// Central mass of the slot's system for an occupied slot of an active system, else 0
    /// (empty for a single system, whose passes need no per-slot lookups).
    pub live_mu: Vec<f64>,
    /// `1 / live_mu` where `live_mu` is not 0, else 0 (empty for a single system).
    pub live_inv_mu: Vec<f64>,
    /// The system of each slot (empty for a single system).
    pub system: Vec<u32>,
    /// The critical-radius factors n1 and n2 of each slot's system (empty for a single system).
    pub n1: Vec<f64>,
    pub n2: Vec<f64>,
    /// Per system: its occupied slots (0 when stopped) and the bodies that pull on the others
    /// (the massive ones, or all when semi-active); empty for a single system.
    pub live_len: Vec<u32>,
    pub pulling: Vec<u32>,
    /// True for test-particle slots.
    pub test_particle: Vec<bool>,
}

impl SlotMaps {
    /// Rebuild for `layout` with the central masses and critical-radius factors
    /// `(m0, n1, n2)` of its systems.
    pub fn rebuild(&mut self, layout: &Layout, spec: impl Fn(usize) -> (f64, f64, f64)) {
        let n = layout.block * layout.systems.len();
        self.test_particle.clear();
        self.test_particle.resize(n, false);
        for v in [
            &mut self.live_mu,
            &mut self.live_inv_mu,
            &mut self.n1,
            &mut self.n2,
        ] {
            v.clear();
        }
        self.system.clear();
        self.live_len.clear();
        self.pulling.clear();
        if let [one] = layout.systems.as_slice() {
            for v in [
                &mut self.live_mu,
                &mut self.live_inv_mu,
                &mut self.n1,
                &mut self.n2,
            ] {
                v.shrink_to_fit();
            }
            self.system.shrink_to_fit();
            for k in one.massive..one.len {
                self.test_particle[k] = true;
            }
            return;
        }
        self.live_mu.resize(n, 0.0);
        self.live_inv_mu.resize(n, 0.0);
        self.system.resize(n, 0);
        self.n1.resize(n, 0.0);
        self.n2.resize(n, 0.0);
        for (s, sys) in layout.systems.iter().enumerate() {
            let start = s * layout.block;
            let (m0, n1, n2) = spec(s);
            self.live_len
                .push(if sys.active { sys.len as u32 } else { 0 });
            self.pulling.push(layout.pulling(s) as u32);
            for k in start..start + layout.block {
                self.system[k] = s as u32;
                self.n1[k] = n1;
                self.n2[k] = n2;
            }
            for k in 0..sys.len {
                self.test_particle[start + k] = k >= sys.massive;
                if sys.active {
                    self.live_mu[start + k] = m0;
                    self.live_inv_mu[start + k] = 1.0 / m0;
                }
            }
        }
    }
}

/// A mutable slice shared by tasks that each touch a disjoint range of it.
pub struct SharedSlice<'a, T = f64> {
    ptr: *mut T,
    len: usize,
    _life: std::marker::PhantomData<&'a mut [T]>,
}

// SAFETY: access goes through `range`, whose callers guarantee disjoint ranges per task.
unsafe impl<T: Send> Send for SharedSlice<'_, T> {}
unsafe impl<T: Send> Sync for SharedSlice<'_, T> {}

impl<'a, T> SharedSlice<'a, T> {
    /// Share `v` for the duration of a parallel pass.
    pub fn new(v: &'a mut [T]) -> Self {
        SharedSlice {
            ptr: v.as_mut_ptr(),
            len: v.len(),
            _life: std::marker::PhantomData,
        }
    }

    /// The elements `start .. start + len`.
    ///
    /// # Safety
    /// No two live results may overlap: each parallel task must use a range no other task uses.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn range(&self, start: usize, len: usize) -> &'a mut [T] {
        assert!(start + len <= self.len, "slot range out of bounds");
        std::slice::from_raw_parts_mut(self.ptr.add(start), len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::System;

    #[test]
    fn chunks_cover_the_slots_once_and_maps_mark_live_slots() {
        let sys = |len, active| System {
            len,
            massive: len.min(2),
            spec: None,
            active,
            central_spin: [0.0; 3],
        };
        let layout = Layout {
            block: 10,
            systems: vec![
                sys(10, true),
                sys(3, true),
                sys(7, false),
                sys(0, true),
                sys(9, true),
            ],
            semi_active: false,
            changeover: crate::physics::changeover::Changeover::Genga,
        };
        let c = chunks(&layout, 4);
        let mut covered = vec![0; 50];
        for ch in &c {
            assert!(ch.len <= 4 && ch.len > 0);
            (ch.start..ch.start + ch.len).for_each(|k| covered[k] += 1);
        }
        assert_eq!(covered, vec![1; 50]);
        let mut maps = SlotMaps::default();
        maps.rebuild(&layout, |s| (1.0 + s as f64, 3.0, 0.4));
        let live: Vec<bool> = maps.live_mu.iter().map(|&m| m > 0.0).collect();
        let expect: Vec<bool> = (0..50)
            .map(|k| match k / 10 {
                0 => true,
                1 => k % 10 < 3,
                4 => k % 10 < 9,
                _ => false,
            })
            .collect();
        assert_eq!(live, expect);
        assert_eq!(maps.live_mu[41], 5.0);
        assert!(!maps.test_particle[1] && maps.test_particle[2] && maps.test_particle[12]);
        assert_eq!(maps.system[37], 3);
        let one = Layout::single(7, 7);
        assert_eq!(
            chunks(&one, 4),
            vec![Chunk { start: 0, len: 4 }, Chunk { start: 4, len: 3 }]
        );
    }
}
