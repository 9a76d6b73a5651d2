//! Work pieces over the body slots, and disjoint mutable access to them from rayon tasks.

use crate::backend::Layout;

/// A contiguous run of occupied slots of one system.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Chunk {
    pub system: usize,
    pub start: usize,
    pub len: usize,
    /// First slot of the system's test particles.
    pub test_particles: usize,
}

/// The work pieces of the per-body passes: every active system's occupied slots, cut into runs
/// of at most `max_len` (a large system is spread over threads; small systems are one piece each).
pub fn chunks(layout: &Layout, max_len: usize) -> Vec<Chunk> {
    let mut out = Vec::new();
    for (s, sys) in layout.systems.iter().enumerate() {
        if !sys.active {
            continue;
        }
        let r = layout.range(s);
        let mut start = r.start;
        while start < r.end {
            let len = max_len.min(r.end - start);
            let test_particles = r.start + sys.massive;
            out.push(Chunk {
                system: s,
                start,
                len,
                test_particles,
            });
            start += len;
        }
    }
    out
}

/// A mutable slice shared by tasks that each touch a disjoint range of it.
pub struct SharedSlice<'a> {
    ptr: *mut f64,
    len: usize,
    _life: std::marker::PhantomData<&'a mut [f64]>,
}

// SAFETY: access goes through `range`, whose callers guarantee disjoint ranges per task.
unsafe impl Send for SharedSlice<'_> {}
unsafe impl Sync for SharedSlice<'_> {}

impl<'a> SharedSlice<'a> {
    /// Share `v` for the duration of a parallel pass.
    pub fn new(v: &'a mut [f64]) -> Self {
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
    pub unsafe fn range(&self, start: usize, len: usize) -> &'a mut [f64] {
        assert!(start + len <= self.len, "slot range out of bounds");
        std::slice::from_raw_parts_mut(self.ptr.add(start), len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::System;

    #[test]
    fn chunks_cover_the_occupied_slots_of_active_systems_once() {
        let sys = |len, active| System {
            len,
            massive: len,
            spec: None,
            active,
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
        };
        let c = chunks(&layout, 4);
        let mut covered = vec![0; 50];
        for ch in &c {
            assert!(ch.len <= 4 && ch.len > 0);
            for k in ch.start..ch.start + ch.len {
                covered[k] += 1;
                assert_eq!(k / 10, ch.system);
            }
        }
        let expect: Vec<i32> = (0..50)
            .map(|k| match k / 10 {
                0 => 1,
                1 => (k % 10 < 3) as i32,
                4 => (k % 10 < 9) as i32,
                _ => 0,
            })
            .collect();
        assert_eq!(covered, expect);
    }
}
