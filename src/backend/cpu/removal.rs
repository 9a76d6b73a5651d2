//! Ejections and the removal of bodies with the compaction of their systems.

use super::{norm2, CpuHybrid};
use crate::model::{Ejection, StepParams};

impl CpuHybrid {
    /// Remove the bodies outside the truncation radii and report them.
    pub(super) fn eject_bodies(&mut self, p: &StepParams) -> Vec<Ejection> {
        self.refresh_specs(p);
        let mut out = Vec::new();
        // A parallel look first: in almost every step nothing leaves. One system takes a
        // vectorised loop without early exit (every slot of its chunks is occupied).
        let (b, maps, specs) = (&self.b, &self.maps, &self.specs);
        let single = self.layout.systems.len() == 1;
        let outside_of = |c: &super::slots::Chunk| {
            let range = c.start..c.start + c.len;
            if single {
                let sp = &specs[0];
                let (inner2, outer2) = (sp.inner_truncation.powi(2), sp.outer_truncation.powi(2));
                return range.fold(false, |out, i| {
                    let r2 = norm2(b.x[i], b.y[i], b.z[i]);
                    out | (r2 > outer2) | (r2 < inner2)
                });
            }
            range.into_iter().any(|i| {
                let sp = &specs[maps.system[i] as usize];
                let r2 = norm2(b.x[i], b.y[i], b.z[i]);
                maps.live_mu[i] > 0.0
                    && (r2 > sp.outer_truncation * sp.outer_truncation
                        || r2 < sp.inner_truncation * sp.inner_truncation)
            })
        };
        let outside = super::slots::map_reduce(&self.chunks, false, outside_of, |a, b| a || b);
        if !outside && self.specs_from == Some(*p) {
            return out;
        }
        for s in 0..self.layout.systems.len() {
            let sys = self.layout.systems[s];
            if !sys.active {
                continue;
            }
            let spec = self.spec(s, p);
            let (inner2, outer2) = (spec.inner_truncation.powi(2), spec.outer_truncation.powi(2));
            let range = self.layout.range(s);
            let b = &self.b;
            let pulling = if self.layout.semi_active {
                sys.len
            } else {
                sys.massive
            };
            let mom = b.momentum_range(range.start, range.start + pulling);
            let shift = [mom[0] / spec.m0, mom[1] / spec.m0, mom[2] / spec.m0];
            for i in range.clone() {
                let r2 = norm2(b.x[i], b.y[i], b.z[i]);
                let case = if r2 > outer2 {
                    -3
                } else if r2 < inner2 {
                    -2
                } else {
                    continue;
                };
                let democratic = b.get(i);
                let mut body = democratic;
                for c in 0..3 {
                    body.vel[c] += shift[c];
                }
                let massive = i - range.start < sys.massive;
                out.push(Ejection {
                    system: s,
                    body,
                    democratic,
                    massive,
                    case,
                });
                self.removed.flag(i);
            }
        }
        self.remove_flagged();
        out
    }

    /// Remove the flagged bodies. As in GENGA, a removed body's slot takes the last body of its
    /// system; massive bodies stay before test particles, so a removed massive body's slot takes
    /// the system's last massive body, whose slot takes the system's last body. The work is
    /// proportional to the removed bodies, not to the slots. (The stored accelerations are
    /// recomputed by the caller.)
    pub(super) fn remove_flagged(&mut self) {
        if self.removed.slots.is_empty() {
            return;
        }
        self.layout_version += 1;
        let mut slots = std::mem::take(&mut self.removed.slots);
        slots.sort_unstable();
        let block = self.layout.block.max(1);
        let mut last = None;
        for &k in &slots {
            let s = k as usize / block;
            if last != Some(s) {
                last = Some(s);
                self.remove_from_system(s);
            }
        }
        slots.clear();
        self.removed.slots = slots;
        self.candidates.clear();
        self.rebuild_maps();
    }

    /// [`CpuHybrid::remove_flagged`] for system `s`; clears its flags.
    fn remove_from_system(&mut self, s: usize) {
        let start = s * self.layout.block;
        let sys = self.layout.systems[s];
        let mut moves = Vec::new();
        let flags = &mut self.removed.flags[start..start + sys.len];
        let (len, massive) = removal_moves(sys.len, sys.massive, flags, &mut moves);
        for (from, to) in moves {
            self.move_slot(start + from as usize, start + to as usize);
        }
        let sys = &mut self.layout.systems[s];
        sys.len = len;
        sys.massive = massive;
    }

    /// Copy the body in slot `from` and its critical radius into slot `to`.
    fn move_slot(&mut self, from: usize, to: usize) {
        if from == to {
            return;
        }
        let body = self.b.get(from);
        self.b.set(to, &body);
        self.rcrit[to] = self.rcrit[from];
        self.radii_adopted = false;
    }
}

/// The slot moves that remove the bodies flagged in `removed` from a system of `len` bodies,
/// the first `massive` of them massive, as in GENGA: a removed body's slot takes the last body
/// of its kind, and a removed massive body's place the system's last body, so massive bodies
/// stay before test particles. Moves `(from, to)` (slots within the system, in order; a move
/// to itself is left out) are appended to `moves`; the flags move with the bodies and end
/// cleared. Returns the new length and number of massive bodies. Work proportional to the
/// removed bodies. Every backend removes bodies with these moves (the OpenCL backend applies
/// them on the device).
pub fn removal_moves(
    len: usize,
    massive: usize,
    removed: &mut [bool],
    moves: &mut Vec<(u32, u32)>,
) -> (usize, usize) {
    let (mut len, mut massive) = (len, massive);
    let end = len;
    let mut step = |from: usize, to: usize, removed: &mut [bool]| {
        if from != to {
            moves.push((from as u32, to as u32));
            removed[to] = removed[from];
        }
    };
    let mut k = 0;
    while k < len {
        if !removed[k] {
            k += 1;
            continue;
        }
        // Slot k is looked at again: the body moved into it may be flagged too.
        if k < massive {
            massive -= 1;
            step(massive, k, removed);
            len -= 1;
            step(len, massive, removed);
        } else {
            len -= 1;
            step(len, k, removed);
        }
    }
    removed[len..end].fill(false);
    (len, massive)
}
