//! The CPU backend as independent parts: the systems of a run are cut into parts of whole
//! systems, each a [`CpuHybrid`] of its own, and a whole step runs part by part in parallel.
//!
//! This is how many small systems (multi-simulation mode, GENGA paper section 3.4) are stepped
//! fast: a part's arrays stay in its core's cache through all passes of the step, and the step
//! is one parallel region instead of a dozen short ones. A run of one system is one part, which
//! steps its own passes in parallel. Parts hold the same systems whatever the thread count, and
//! no pass of a system reads another system, so results are the same bits for any thread count
//! and any cut.

use super::CpuHybrid;
use crate::backend::{HybridBackend, PartStep, PassStatus};
use crate::error::Result;
use crate::model::{Collision, Ejection, EncounterStats, HybridSnapshot, Layout, StepParams};
use crate::model::{StepCounts, StepEvents};
use crate::physics::bulirsch_stoer::BsOptions;
use crate::physics::encounter::{PairEnds, PairLimits};
use crate::physics::energy::EnergyParts;
use crate::state::Bodies;
use rayon::prelude::*;
use std::time::Instant;

/// Slots per part: enough work per task to hide the scheduling, few enough that a part's
/// arrays (about 40 numbers per slot) stay in a core's L2 cache for the whole step.
const PART_SLOTS: usize = 512;

impl Default for CpuBackend {
    fn default() -> Self {
        CpuBackend::with_part_slots(PART_SLOTS)
    }
}

/// One part: whole systems in an engine of their own.
#[derive(Default)]
struct Part {
    engine: CpuHybrid,
    /// Index of the part's first system in the whole layout.
    first: usize,
    /// The engine's layout version last copied into the whole layout.
    seen: u64,
}

/// The CPU backend: parts of whole systems (see the module documentation).
pub struct CpuBackend {
    /// The layout of all systems (copied from the parts when theirs change).
    layout: Layout,
    parts: Vec<Part>,
    /// Slots per part (whole systems, at least one).
    part_slots: usize,
    /// Systems per part (the last part may have fewer).
    per_part: usize,
    /// What every part's step returned, reused from step to step.
    results: Vec<(Result<StepEvents>, StepCounts)>,
}

/// Copy of the slots `range` of `v`, or nothing when `v` does not cover them.
fn slice_of(v: &[f64], range: std::ops::Range<usize>) -> Vec<f64> {
    v.get(range).map(<[f64]>::to_vec).unwrap_or_default()
}

impl CpuBackend {
    /// A backend cutting many systems into parts of about `part_slots` slots (at least one
    /// system each); results do not depend on it.
    pub fn with_part_slots(part_slots: usize) -> Self {
        CpuBackend {
            layout: Layout::default(),
            parts: Vec::new(),
            part_slots,
            per_part: 1,
            results: Vec::new(),
        }
    }

    /// Number of parts.
    pub fn parts(&self) -> usize {
        self.parts.len()
    }

    /// The part holding system `s`, and the system's index in it.
    fn locate(&self, s: usize) -> (usize, usize) {
        (s / self.per_part, s % self.per_part)
    }

    /// First slot of part `k` in the whole layout.
    fn slot_offset(&self, k: usize) -> usize {
        self.parts[k].first * self.layout.block
    }

    /// Copy the systems of the parts whose layout changed into the whole layout.
    fn sync_layout(&mut self) {
        for p in &mut self.parts {
            let version = p.engine.layout_version();
            if version != p.seen {
                p.seen = version;
                let systems = &p.engine.layout().systems;
                self.layout.systems[p.first..p.first + systems.len()].copy_from_slice(systems);
            }
        }
    }

    /// Run `f` on every part (in parallel when there are several); results in part order, with
    /// the index of the part's first system.
    fn each<R: Send>(&mut self, f: impl Fn(&mut CpuHybrid) -> R + Sync) -> Vec<(usize, R)> {
        let out = match self.parts.as_mut_slice() {
            [one] => vec![(one.first, f(&mut one.engine))],
            many => many
                .par_iter_mut()
                .with_max_len(1)
                .map(|p| (p.first, f(&mut p.engine)))
                .collect(),
        };
        self.sync_layout();
        out
    }

    /// The whole state as one snapshot (a copy; parts hold their own arrays).
    fn combined_snapshot(&mut self) -> HybridSnapshot {
        let mut out = HybridSnapshot {
            layout: self.layout.clone(),
            ..Default::default()
        };
        for k in 0..self.parts.len() {
            let offset = self.slot_offset(k) as u32;
            let s = self.parts[k].engine.lend_snapshot();
            out.bodies.extend_from(&s.bodies, 0..s.bodies.len());
            out.rcrit.extend_from_slice(&s.rcrit);
            for c in 0..3 {
                out.far[c].extend_from_slice(&s.far[c]);
                out.near[c].extend_from_slice(&s.near[c]);
            }
            let shifted = s.candidates.iter().map(|&(i, j)| (i + offset, j + offset));
            out.candidates.extend(shifted);
            self.parts[k].engine.take_back(s);
        }
        out
    }
}

/// System indices of a part's events in the whole layout.
fn shift_systems(collisions: &mut [Collision], ejections: &mut [Ejection], first: usize) {
    collisions.iter_mut().for_each(|c| c.system += first);
    ejections.iter_mut().for_each(|e| e.system += first);
}

impl HybridBackend for CpuBackend {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn layout(&self) -> &Layout {
        &self.layout
    }

    fn step_parts(&mut self, step: &PartStep<'_>, counts: &mut StepCounts) -> Result<StepEvents> {
        if let [one] = self.parts.as_mut_slice() {
            let events = step(&mut one.engine, counts);
            self.sync_layout();
            return events;
        }
        let start = Instant::now();
        let mut results = std::mem::take(&mut self.results);
        self.parts
            .par_iter_mut()
            .with_max_len(1)
            .map(|p| {
                let mut c = StepCounts::default();
                (step(&mut p.engine, &mut c), c)
            })
            .collect_into_vec(&mut results);
        let wall = start.elapsed().as_secs_f64();
        self.sync_layout();
        // The parts' pass times add up the work of all threads: scale them to the wall time.
        let busy: f64 = results.iter().map(|(_, c)| c.times.total()).sum();
        let scale = if busy > 0.0 { wall / busy } else { 0.0 };
        let mut events = StepEvents::default();
        let mut failure = None;
        for (p, (result, mut c)) in self.parts.iter().zip(results.drain(..)) {
            c.times = c.times.scaled(scale);
            counts.add(&c);
            match result {
                Ok(mut e) => {
                    e.shift_systems(p.first);
                    events.collisions.append(&mut e.collisions);
                    events.ejections.append(&mut e.ejections);
                    events.encounters.append(&mut e.encounters);
                }
                Err(e) => {
                    failure.get_or_insert(e);
                }
            }
        }
        self.results = results;
        match failure {
            Some(e) => Err(e),
            None => Ok(events),
        }
    }

    fn stop_system(&mut self, s: usize) {
        let (k, local) = self.locate(s);
        self.parts[k].engine.stop_system(local);
        self.sync_layout();
    }

    fn critical_radii(&mut self, p: &StepParams) {
        self.each(|e| e.critical_radii(p));
    }

    fn refresh_accelerations(&mut self) {
        self.each(|e| e.refresh_accelerations());
    }

    fn accelerations(&mut self) {
        self.each(|e| e.accelerations());
    }

    fn kick(&mut self, dt: f64) {
        self.each(|e| e.kick(dt));
    }

    fn sun_kick(&mut self, p: &StepParams, dt: f64) {
        self.each(|e| e.sun_kick(p, dt));
    }

    fn save_candidate_states(&mut self) {
        self.each(|e| e.save_candidate_states());
    }

    fn drift(&mut self, p: &StepParams, dt: f64) {
        self.each(|e| e.drift(p, dt));
    }

    fn encounter_search(&mut self, dt: f64) {
        self.each(|e| e.encounter_search(dt));
    }

    fn status(&mut self) -> Result<PassStatus> {
        let mut total = PassStatus::default();
        for (_, status) in self.each(|e| e.status()) {
            let status = status?;
            total.candidates += status.candidates;
            total.encounters += status.encounters;
        }
        Ok(total)
    }

    fn group_encounters(&mut self, stats: &mut EncounterStats) -> Result<()> {
        for (_, (result, part_stats)) in self.each(|e| {
            let mut part_stats = EncounterStats::default();
            (e.group_encounters(&mut part_stats), part_stats)
        }) {
            stats.add(&part_stats);
            result?;
        }
        Ok(())
    }

    fn integrate_groups(&mut self, p: &StepParams, dt: f64, opts: &BsOptions) {
        self.each(|e| e.integrate_groups(p, dt, opts));
    }

    fn apply_groups(
        &mut self,
        p: &StepParams,
        stats: &mut EncounterStats,
    ) -> Result<Vec<Collision>> {
        let results = self.each(|e| {
            let mut part_stats = EncounterStats::default();
            let merged = e.apply_groups(p, &mut part_stats);
            (merged, part_stats)
        });
        let mut collisions = Vec::new();
        for (first, (merged, part_stats)) in results {
            stats.add(&part_stats);
            let mut merged = merged?;
            shift_systems(&mut merged, &mut [], first);
            collisions.append(&mut merged);
        }
        Ok(collisions)
    }

    fn candidate_ends(&mut self, limits: &PairLimits) -> Result<Vec<PairEnds>> {
        let mut out = Vec::new();
        for (first, ends) in self.each(|e| e.candidate_ends(limits)) {
            out.extend(ends?.into_iter().map(|mut p| {
                p.system += first;
                p
            }));
        }
        Ok(out)
    }

    fn ejections(&mut self, p: &StepParams) -> Vec<Ejection> {
        let mut out = Vec::new();
        for (first, mut ejected) in self.each(|e| e.ejections(p)) {
            shift_systems(&mut [], &mut ejected, first);
            out.append(&mut ejected);
        }
        out
    }

    fn potential_kick(&mut self, p: &StepParams, dt: f64) {
        self.each(|e| e.potential_kick(p, dt));
    }

    fn radiation_kick(&mut self, p: &StepParams, dt: f64) {
        self.each(|e| e.radiation_kick(p, dt));
    }

    fn tide_kick(&mut self, p: &StepParams, dt: f64) {
        self.each(|e| e.tide_kick(p, dt));
    }

    fn take_work(&mut self) -> Vec<crate::physics::forces::Work> {
        // One part holds every system in order: its work is the whole run's (and taking it
        // allocates nothing when there is none, as in every step without such forces).
        if let [one] = self.parts.as_mut_slice() {
            return one.engine.take_work();
        }
        let parts = self.each(|e| e.take_work());
        if parts.iter().all(|(_, w)| w.is_empty()) {
            return Vec::new();
        }
        let mut out = vec![[0.0; crate::physics::forces::WORK_LEN]; self.layout.systems.len()];
        for (first, w) in parts {
            for (k, v) in w.into_iter().enumerate() {
                out[first + k] = v;
            }
        }
        out
    }

    fn energies(&mut self, p: &StepParams) -> Vec<EnergyParts> {
        self.each(|e| e.energies(p))
            .into_iter()
            .flat_map(|(_, e)| e)
            .collect()
    }

    fn bodies(&mut self, s: usize) -> Bodies {
        let (k, local) = self.locate(s);
        self.parts[k].engine.bodies(local)
    }

    fn visit_bodies(&mut self, s: usize, f: &mut dyn FnMut(&Bodies, std::ops::Range<usize>)) {
        let (k, local) = self.locate(s);
        self.parts[k].engine.visit_bodies(local, f)
    }

    fn update_systems(
        &mut self,
        systems: &[usize],
        f: &mut dyn FnMut(usize, &mut Bodies, std::ops::Range<usize>),
    ) {
        for (k, &s) in systems.iter().enumerate() {
            let (p, local) = self.locate(s);
            let engine = &mut self.parts[p].engine;
            engine.update_systems(&[local], &mut |_, bodies, range| f(k, bodies, range));
        }
    }

    fn snapshot(&mut self) -> HybridSnapshot {
        match self.parts.as_mut_slice() {
            [one] => one.engine.snapshot(),
            _ => self.combined_snapshot(),
        }
    }

    fn visit_snapshot(&mut self, f: &mut dyn FnMut(&[HybridSnapshot])) {
        // Every part lends its arrays: no copy of the state.
        let pieces: Vec<HybridSnapshot> = self
            .parts
            .iter_mut()
            .map(|p| p.engine.lend_snapshot())
            .collect();
        f(&pieces);
        for (p, snap) in self.parts.iter_mut().zip(pieces) {
            p.engine.take_back(snap);
        }
    }

    fn restore(&mut self, snap: HybridSnapshot) {
        self.parts.clear();
        if snap.layout.systems.len() <= 1 {
            let mut engine = CpuHybrid::default();
            engine.restore(snap);
            self.layout = engine.layout().clone();
            self.per_part = 1;
            self.parts.push(Part {
                seen: engine.layout_version(),
                engine,
                first: 0,
            });
            return;
        }
        let layout = snap.layout.clone();
        let block = layout.block.max(1);
        self.per_part = (self.part_slots / block).max(1);
        let n_parts = layout.systems.len().div_ceil(self.per_part);
        // The candidate pairs of each part, in the list's order, in the part's slots.
        let part_slots = self.per_part * block;
        let mut candidates = vec![Vec::new(); n_parts];
        for &(i, j) in &snap.candidates {
            let k = i as usize / part_slots;
            let offset = (k * part_slots) as u32;
            candidates[k].push((i - offset, j - offset));
        }
        for (k, (systems, pairs)) in layout
            .systems
            .chunks(self.per_part)
            .zip(candidates)
            .enumerate()
        {
            let first = k * self.per_part;
            let slots = first * block..(first + systems.len()) * block;
            let mut bodies = Bodies::with_capacity(slots.len());
            bodies.extend_from(&snap.bodies, slots.clone());
            let part = HybridSnapshot {
                bodies,
                layout: Layout {
                    block: layout.block,
                    systems: systems.to_vec(),
                    semi_active: layout.semi_active,
                    changeover: layout.changeover,
                },
                rcrit: slice_of(&snap.rcrit, slots.clone()),
                far: std::array::from_fn(|c| slice_of(&snap.far[c], slots.clone())),
                near: std::array::from_fn(|c| slice_of(&snap.near[c], slots.clone())),
                candidates: pairs,
            };
            let mut engine = CpuHybrid::default();
            engine.restore(part);
            self.parts.push(Part {
                seen: engine.layout_version(),
                engine,
                first,
            });
        }
        self.layout = layout;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hybrid::stepper::Stepper;
    use crate::model::{System, SystemSpec};
    use crate::state::Body;

    /// A body on a near-circular orbit of radius `a` at phase `phi` around `m0`.
    fn circular(id: u64, m0: f64, m: f64, a: f64, phi: f64) -> Body {
        let v = (m0 / a).sqrt();
        let (s, c) = phi.sin_cos();
        Body::without_spin(id, m, 1e-5, [a * c, a * s, 0.01 * s], [-v * s, v * c, 0.0])
    }

    /// Eight systems of 2 to 12 bodies with their own central masses: quiet ones, one whose two
    /// planets merge in the first steps, one with a body beyond the outer truncation radius,
    /// one with a close flyby that the encounter machinery integrates, and a planet with a moon
    /// that stays in a close encounter.
    fn systems() -> Vec<(f64, Vec<Body>)> {
        let quiet = |m0: f64, n: usize| {
            let list = (0..n).map(|k| {
                let a = 0.8 + 0.7 * k as f64;
                circular(k as u64, m0, 1e-6 * (k + 1) as f64, a, 1.7 * k as f64)
            });
            (m0, list.collect::<Vec<_>>())
        };
        let vc = 0.8f64.sqrt();
        let merging = vec![
            Body::without_spin(0, 1e-5, 0.01, [1.0, 0.0, 0.0], [0.0, vc, 0.0]),
            Body::without_spin(1, 2e-5, 0.01, [1.15, 0.0, 0.0], [-0.5, vc, 0.0]),
            circular(2, 0.8, 1e-6, 3.0, 4.0),
        ];
        let leaving = vec![
            circular(0, 1.2, 3e-6, 1.0, 0.5),
            Body::without_spin(1, 1e-7, 1e-5, [100.5, 0.0, 0.0], [0.0, 0.2, 0.0]),
            circular(2, 1.2, 1e-6, 2.0, 2.0),
        ];
        let flyby = vec![
            circular(0, 1.0, 1e-5, 1.0, 0.0),
            circular(1, 1.0, 1e-5, 1.004, 0.02),
            circular(2, 1.0, 1e-6, 2.5, 1.0),
            circular(3, 1.0, 1e-6, 3.5, 3.0),
        ];
        vec![
            quiet(1.0, 2),
            (0.8, merging),
            quiet(1.1, 5),
            (1.2, leaving),
            (1.0, flyby),
            quiet(0.9, 3),
            quiet(1.05, 12),
            // A planet with a moon: a close encounter in every step.
            (1.0, {
                let planet = circular(0, 1.0, 1e-3, 1.0, 0.0);
                let v = (1e-3f64 / 0.02).sqrt();
                let moon = Body::without_spin(
                    1,
                    1e-9,
                    1e-6,
                    [planet.pos[0] + 0.02, planet.pos[1], planet.pos[2]],
                    [planet.vel[0], planet.vel[1] + v, planet.vel[2]],
                );
                vec![planet, moon, circular(2, 1.0, 1e-6, 2.0, 1.0)]
            }),
        ]
    }

    fn spec(m0: f64) -> SystemSpec {
        SystemSpec {
            m0,
            n1: 3.0,
            n2: 0.4,
            inner_truncation: 0.1,
            outer_truncation: 100.0,
        }
    }

    /// The systems in blocks of `block` slots (holes past each system's bodies).
    fn snapshot_of(list: &[(f64, Vec<Body>)], block: usize) -> HybridSnapshot {
        let mut bodies = Bodies::default();
        let mut systems = Vec::new();
        for (m0, sys) in list {
            for b in sys {
                bodies.push(b);
            }
            for _ in sys.len()..block {
                bodies.push(&Body::without_spin(u64::MAX, 0.0, 0.0, [0.0; 3], [0.0; 3]));
            }
            systems.push(System {
                len: sys.len(),
                massive: sys.len(),
                spec: Some(spec(*m0)),
                active: true,
                central_spin: [0.0; 3],
            });
        }
        HybridSnapshot {
            bodies,
            layout: Layout {
                block,
                systems,
                semi_active: false,
                changeover: crate::physics::changeover::Changeover::Genga,
            },
            ..Default::default()
        }
    }

    fn params() -> StepParams {
        let s = spec(1.0);
        StepParams {
            m0: s.m0,
            tau: crate::units::days_to_code(6.0),
            n1: s.n1,
            n2: s.n2,
            inner_truncation: s.inner_truncation,
            outer_truncation: s.outer_truncation,
            forces: crate::physics::forces::Forces::NONE,
            recursion: crate::physics::recursion::Recursion::OFF,
            rcrit_floor: 0.0,
        }
    }

    /// Events of a run, in order: (system, step, kind, body id), and the encounter groups.
    type Events = (Vec<(usize, u64, &'static str, u64)>, u64);

    /// Step `be` from step `from` to `to`; the system `stop` (if any) is stopped after step
    /// `stop_at`, as the driver stops a system below its minimum number of bodies.
    fn run(
        be: &mut dyn HybridBackend,
        fresh: bool,
        from: u64,
        to: u64,
        stop: Option<(usize, u64)>,
    ) -> Events {
        let mut stepper = Stepper::new(params(), 2, be, fresh).unwrap();
        let mut counts = StepCounts::default();
        let mut events = Vec::new();
        for step in from..to {
            let ev = stepper.step(be, &mut counts).unwrap();
            for c in &ev.collisions {
                events.push((c.system, step, "collision", c.survivor));
            }
            for e in &ev.ejections {
                events.push((e.system, step, "ejection", e.body.id));
            }
            if let Some((s, at)) = stop {
                if step == at {
                    be.stop_system(s);
                }
            }
        }
        (events, counts.groups.groups)
    }

    fn state(be: &mut dyn HybridBackend, s: usize) -> (System, Bodies) {
        (be.layout().systems[s], be.bodies(s))
    }

    #[test]
    fn parts_step_every_system_as_one_engine_and_as_the_system_alone() {
        let list = systems();
        let block = list.iter().map(|(_, b)| b.len()).max().unwrap();
        let (steps, stop) = (300, Some((5, 120)));
        // The reference: all systems in one engine.
        let mut whole = CpuHybrid::default();
        whole.restore(snapshot_of(&list, block));
        let events = run(&mut whole, true, 0, steps, stop);
        println!("events and encounter groups: {events:?}");
        assert!(
            events.1 > 10,
            "the flyby and the merger go through Bulirsch-Stoer"
        );
        let events = events.0;
        let has = |s: usize, kind: &str| events.iter().any(|e| e.0 == s && e.2 == kind);
        assert!(has(1, "collision") && has(3, "ejection"), "{events:?}");
        for part_slots in [block, 2 * block, 3 * block, 100 * block] {
            let mut parts = CpuBackend::with_part_slots(part_slots);
            parts.restore(snapshot_of(&list, block));
            let expected_parts = list.len().div_ceil((part_slots / block).max(1));
            assert_eq!(parts.parts(), expected_parts);
            assert_eq!(
                run(&mut parts, true, 0, steps, stop).0,
                events,
                "{part_slots}"
            );
            for s in 0..list.len() {
                assert_eq!(
                    state(&mut parts, s),
                    state(&mut whole, s),
                    "system {s}, {part_slots} slots per part"
                );
            }
        }
        assert!(!whole.layout().systems[5].active);
        // Each system alone (the stopped one only up to its stop).
        for (s, sys) in list.iter().enumerate() {
            let mut alone = CpuBackend::default();
            alone.restore(snapshot_of(std::slice::from_ref(sys), sys.1.len()));
            let to = if s == 5 { 121 } else { steps };
            run(&mut alone, true, 0, to, None);
            assert_eq!(alone.bodies(0), whole.bodies(s), "system {s} alone");
        }
    }

    #[test]
    fn a_combined_snapshot_resumes_bitwise_with_any_cut() {
        let list = systems();
        let block = list.iter().map(|(_, b)| b.len()).max().unwrap();
        let mut straight = CpuBackend::with_part_slots(2 * block);
        straight.restore(snapshot_of(&list, block));
        run(&mut straight, true, 0, 200, Some((2, 50)));
        let mut first = CpuBackend::with_part_slots(2 * block);
        first.restore(snapshot_of(&list, block));
        let first_parts = first.parts();
        run(&mut first, true, 0, 90, Some((2, 50)));
        let snap = first.snapshot();
        assert_eq!(snap.bodies.len(), block * list.len());
        assert!(!snap.layout.systems[2].active);
        // A checkpoint written from the parts' own arrays holds exactly the whole snapshot.
        let encode = |pieces: &[HybridSnapshot]| {
            let mut bytes = Vec::new();
            crate::io::checkpoint::encode_parts(90, "f", &[], [&[], &[]], pieces, &mut bytes)
                .unwrap();
            bytes
        };
        let mut from_parts = Vec::new();
        first.visit_snapshot(&mut |pieces| {
            assert_eq!(pieces.len(), first_parts);
            from_parts = encode(pieces);
        });
        assert!(from_parts == encode(std::slice::from_ref(&snap)));
        assert!(
            !snap.candidates.is_empty(),
            "the snapshot must carry candidate pairs"
        );
        for part_slots in [block, 3 * block, 100 * block] {
            let mut resumed = CpuBackend::with_part_slots(part_slots);
            resumed.restore(snap.clone());
            assert_eq!(resumed.snapshot(), snap, "{part_slots}");
            run(&mut resumed, false, 90, 200, None);
            assert_eq!(resumed.snapshot(), straight.snapshot(), "{part_slots}");
        }
    }
}
