//! Ejections and the removal of bodies with the compaction of their systems.

use super::pair_forces::{load_lanes, SMALL_MAX};
use super::{norm2, CpuHybrid};
use crate::model::{Ejection, StepParams, SystemSpec};
use crate::physics::kepler::kepler_drift;
use crate::physics::truncation::{may_have_grazed, passage_within, Grazing};
use crate::simd::lanes::{GroupIo, Lanes};
use crate::simd::NarrowKernel;
use crate::state::Body;

/// The ejection of a body with the democratic state `democratic` at the end of a step of `tau`
/// in a system of `spec`, if it leaves: `(case, before_end, democratic state at the event)`.
/// Case -3 beyond the outer radius and -2 inside the inner one at the step's end (GENGA's
/// tests), otherwise -2 for a perihelion passage inside the inner radius within the step
/// ([`passage_within`] on the drift's orbit around M0), at the passage (the state drifted back
/// to it). Every backend decides with this function.
pub fn ejection_of(spec: &SystemSpec, tau: f64, democratic: &Body) -> Option<(i32, f64, Body)> {
    let x = democratic.pos;
    let r2 = norm2(x[0], x[1], x[2]);
    if r2 > spec.outer_truncation * spec.outer_truncation {
        return Some((-3, 0.0, *democratic));
    }
    if r2 < spec.inner_truncation * spec.inner_truncation {
        return Some((-2, 0.0, *democratic));
    }
    let t = passage_within(
        spec.m0,
        spec.inner_truncation,
        tau,
        democratic.pos,
        democratic.vel,
    )?;
    let mut at = *democratic;
    // The drift's orbit back to the passage; if that fails the step's end state stands.
    if kepler_drift(spec.m0, -t, &mut at.pos, &mut at.vel).is_err() {
        at = *democratic;
    }
    Some((-2, t, at))
}

/// The ejection pass's first look at one body: outside a truncation radius now, or maybe past a
/// perihelion inside the inner one within the step ([`may_have_grazed`]; then [`ejection_of`]
/// decides).
#[inline(always)]
pub fn may_leave<V: Lanes>(spec: &SystemSpec, g: &Grazing, pos: [V; 3], vel: [V; 3]) -> V::Mask {
    let [x, y, z] = pos;
    let r2 = x * x + y * y + z * z;
    let (inner, outer) = (spec.inner_truncation, spec.outer_truncation);
    r2.gt(V::splat(outer * outer)) | r2.lt(V::splat(inner * inner)) | may_have_grazed(g, pos, vel)
}

/// Whether any slot of `state` (x, y, z, vx, vy, vz of one chunk) may leave ([`may_leave`]),
/// all of them in systems of `spec` and `g`; with `live`, only the slots where it is positive
/// count (the others are empty). No early exit, and every slice cut to one length, so LLVM
/// vectorises the loop.
#[inline(always)]
fn any_may_leave(spec: &SystemSpec, g: &Grazing, state: [&[f64]; 6], live: Option<&[f64]>) -> bool {
    let n = state[0].len();
    let [x, y, z, vx, vy, vz] = state.map(|a| &a[..n]);
    let live = live.map(|live| &live[..n]);
    let mut leaving = 0u64;
    for l in 0..n {
        let (p, v) = ([x[l], y[l], z[l]], [vx[l], vy[l], vz[l]]);
        let occupied = live.is_none_or(|live| live[l] > 0.0);
        leaving += (occupied & may_leave(spec, g, p, v)) as u64;
    }
    leaving > 0
}

/// [`any_may_leave`] of one system of at most [`SMALL_MAX`] slots, in narrow lane groups
/// ([`crate::simd::dispatch_narrow`]; the empty lanes are masked off).
fn any_may_leave_small(spec: &SystemSpec, g: &Grazing, state: [&[f64]; 6]) -> bool {
    struct Look<'a> {
        spec: &'a SystemSpec,
        g: &'a Grazing,
        state: [&'a [f64]; 6],
    }
    impl NarrowKernel for Look<'_> {
        type Output = bool;
        #[inline(always)]
        fn run<const W: usize, V: GroupIo<W>>(self) -> bool {
            any_may_leave_lanes::<W, V>(self.spec, self.g, self.state)
        }
    }
    crate::simd::dispatch_narrow(state[0].len(), Look { spec, g, state })
}

/// [`any_may_leave_small`] on lane groups `V` of `W` lanes.
#[inline(always)]
fn any_may_leave_lanes<const W: usize, V: GroupIo<W>>(
    spec: &SystemSpec,
    g: &Grazing,
    state: [&[f64]; 6],
) -> bool {
    let n = state[0].len();
    let index = V::from_array(std::array::from_fn(|l| l as f64));
    let mut leaving = V::none();
    for first in (0..n).step_by(W) {
        let rows = first..(first + W).min(n);
        let mut lanes = [V::splat(0.0); 6];
        for (lanes, a) in lanes.iter_mut().zip(state) {
            *lanes = V::from_array(load_lanes::<W>(&a[rows.clone()]));
        }
        let [x, y, z, vx, vy, vz] = lanes;
        let occupied = index.lt(V::splat(rows.len() as f64));
        leaving = leaving | (occupied & may_leave(spec, g, [x, y, z], [vx, vy, vz]));
    }
    V::any(leaving)
}

impl CpuHybrid {
    /// Remove the bodies outside the truncation radii, or that passed perihelion inside the
    /// inner one within the step, and report them ([`ejection_of`]).
    pub(super) fn eject_bodies(&mut self, p: &StepParams) -> Vec<Ejection> {
        self.refresh_specs(p);
        let mut out = Vec::new();
        // A parallel look first: in almost every step nothing leaves. One system, or systems
        // that share their parameters, take vector code without early exit (a slot of many
        // systems counts where it is live).
        let (b, maps, specs, grazing) = (&self.b, &self.maps, &self.specs, &self.grazing);
        let (single, shared) = (self.layout.systems.len() == 1, self.shared_spec);
        let pos = |i: usize| [b.x[i], b.y[i], b.z[i]];
        let vel = |i: usize| [b.vx[i], b.vy[i], b.vz[i]];
        let outside_of = |c: &super::slots::Chunk| {
            let r = c.start..c.start + c.len;
            let state = [&b.x, &b.y, &b.z, &b.vx, &b.vy, &b.vz].map(|a| &a[r.clone()]);
            if single && c.len <= SMALL_MAX {
                return any_may_leave_small(&specs[0], &grazing[0], state);
            }
            if single || shared {
                let live = (!single).then(|| &maps.live_mu[r]);
                return crate::simd::dispatch_sized(
                    c.len,
                    #[inline(always)]
                    || any_may_leave(&specs[0], &grazing[0], state, live),
                );
            }
            r.into_iter().any(|i| {
                let s = maps.system[i] as usize;
                maps.live_mu[i] > 0.0 && may_leave(&specs[s], &grazing[s], pos(i), vel(i))
            })
        };
        let outside = super::slots::map_reduce(&self.chunks, false, outside_of, |a, b| a || b);
        if !outside && self.specs_current(p) {
            return out;
        }
        for s in 0..self.layout.systems.len() {
            let sys = self.layout.systems[s];
            if !sys.active {
                continue;
            }
            let (spec, g) = (self.specs[s], self.grazing[s]);
            let range = self.layout.range(s);
            let b = &self.b;
            let pulling = if self.layout.semi_active {
                sys.len
            } else {
                sys.massive
            };
            // The heliocentric velocity shift, once a body of the system leaves.
            let mut shift = None;
            for i in range.clone() {
                if !may_leave(&spec, &g, pos(i), vel(i)) {
                    continue;
                }
                let democratic = b.get(i);
                let Some((case, before_end, mut body)) = ejection_of(&spec, p.tau, &democratic)
                else {
                    continue;
                };
                let shift = *shift.get_or_insert_with(|| {
                    let mom = b.momentum_range(range.start, range.start + pulling);
                    [mom[0] / spec.m0, mom[1] / spec.m0, mom[2] / spec.m0]
                });
                for c in 0..3 {
                    body.vel[c] += shift[c];
                }
                let massive = i - range.start < sys.massive;
                out.push(Ejection {
                    system: s,
                    body,
                    before_end,
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
        self.pass_stored = false;
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
