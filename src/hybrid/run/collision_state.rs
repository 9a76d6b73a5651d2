//! Collisions seen again from before they happened: GENGA's `OutCollision.dat` (with
//! `stop.collision`, every body at the time of the collision that stops the run, for an external
//! collision code; GENGA's `Collisions.rst`, "Stop at Collision") and `CollisionsTShift<name>.dat`
//! (with `collisions.time_shift = f`, each colliding pair when it was `f (R_i + R_j)` apart;
//! "Backtrace Collisions").
//!
//! GENGA keeps a copy of the state at each step's start and redoes the step from it. Orrery does
//! the same with the backend's snapshots of the last two step starts ([`StepStarts`]): the
//! backtrace redoes the step (or the two steps, when the pair was already that close at the
//! step's start) with the pair's radii `f` times larger, so that its merger there, found and
//! refined by the Bulirsch-Stoer integration as any contact, is the backtraced record; the
//! collision state is one hybrid step from a step's start up to the collision's (or the
//! backtrace's) time, with the pair spared from merging. The state after the step is restored
//! afterwards, so the run goes on, or stops, as without them: its bodies bit for bit; the work
//! of forces that do work (radiation, tides, J2's torque) is booked into `U` and the lost
//! angular momentum before the redo, so these sums can differ in their last bits from a run
//! without the options. The copies per step are the price of the options (on a device backend,
//! a transfer to the host per step); `OutCollision.dat` is written by runs of one simulation
//! only, as in GENGA.

use super::*;
use crate::model::StepEvents;

/// The backend's states at the starts of the last two steps, kept while a collision stop or a
/// backtrace may need them.
#[derive(Default)]
pub(super) struct StepStarts {
    /// The start of the step before the current one.
    previous: Option<HybridSnapshot>,
    /// The start of the current step.
    current: Option<HybridSnapshot>,
}

/// Which kept start a redo began from.
#[derive(Debug, Clone, Copy, PartialEq)]
enum From {
    Current,
    Previous,
}

/// The ids of a collision's pair.
fn pair_ids(c: &Collision) -> [u64; 2] {
    [c.bodies[0].id, c.bodies[1].id]
}

impl Driver {
    /// Whether the run writes `OutCollision.dat`: the hybrid step with `stop.collision` and one
    /// simulation (GENGA does not support it in its multi-simulation mode) that writes files
    /// (not a Python run held in memory).
    fn writes_collision_state(&self) -> bool {
        let hybrid = matches!(self.method, StepMethod::Hybrid(_));
        let one = matches!(self.setup.sims.as_slice(), [sim] if sim.files);
        hybrid && self.setup.cfg.stop.collision && one
    }

    /// Keep the backend's state at the start of the next step, when a collision stop or a
    /// backtrace may need it.
    pub(super) fn keep_step_start(&mut self) {
        let shifts = self.setup.cfg.collisions.time_shift.is_some();
        if shifts || self.writes_collision_state() {
            self.starts.previous = self.starts.current.take();
            self.starts.current = Some(self.backend.snapshot());
        }
    }

    /// Forget the kept step starts (the backend's state was replaced).
    pub(super) fn forget_step_starts(&mut self) {
        self.starts = StepStarts::default();
    }

    /// After the step that ended at `step` (started at the current kept start): each merger of
    /// `events` heavy enough for the collision stop backtraced to the CollisionsTShift file, and
    /// every body at the first one's time, or its backtrace's, to `OutCollision.dat` when it
    /// stops the run (see the module docs).
    pub(super) fn see_collisions_again(&mut self, step: u64, events: &StepEvents) -> Result<()> {
        if self.starts.current.is_none() {
            return Ok(());
        }
        let stop = self.setup.cfg.stop;
        let mut heavy_ones: Vec<&Collision> = events.collisions.iter().collect();
        heavy_ones.retain(|c| stop.heavy_enough(c.bodies.map(|b| b.m)));
        // A system without files has no CollisionsTShift log (nor, then, OutCollision.dat).
        heavy_ones.retain(|c| self.setup.sims[c.system].files);
        if heavy_ones.is_empty() {
            return Ok(());
        }
        // The redo's work must not reach the books, nor the step's be lost with the restore.
        self.book_work();
        let after = self.backend.snapshot();
        let result = self.redo_collisions(step, &heavy_ones);
        self.backend.restore(after);
        self.backend.take_work();
        result
    }

    fn redo_collisions(&mut self, step: u64, heavy_ones: &[&Collision]) -> Result<()> {
        // The stopping collision's state: from a kept start to its time, or to its backtrace's.
        let mut stop_at: Option<(f64, [u64; 2], From)> = None;
        let stops = self.writes_collision_state();
        for c in heavy_ones {
            let tau = self.tau(c.system);
            let (mut at, mut from) = (c.time_offset.clamp(0.0, tau), From::Current);
            if let Some(f) = self.setup.cfg.collisions.time_shift {
                let (t, bodies, start) = self.backtrace(step, c, f)?;
                self.record_shifted_line(c.system, step, t, bodies)?;
                (at, from) = (t, start);
            }
            let first = stop_at.is_none_or(|(t, _, _)| at < t);
            if stops && c.system == 0 && first {
                stop_at = Some((at, pair_ids(c), from));
            }
        }
        if let Some((at, pair, from)) = stop_at {
            let tau = self.tau(0);
            let (start, start_step, until) = match (from, &self.starts.previous) {
                (From::Previous, Some(previous)) => (previous, step - 2, at + tau),
                _ => (self.starts.current.as_ref().expect("kept"), step - 1, at),
            };
            let start = start.clone();
            self.redo(start, start_step, (until, 1), Some(pair))?;
            let binary = self.setup.cfg.output.binary_snapshots;
            let path = output::collision_state_path(&self.setup.sims[0].dir, binary);
            let t = units::code_to_years((step - 1) as f64 * tau + at);
            self.write_bodies(0, &path, (t, binary))?;
        }
        Ok(())
    }

    /// Restore `from` (the state at the start of step `start_step`) and take `steps` hybrid
    /// steps of length `length` from it, the pair `spare` never merging: their events.
    fn redo(
        &mut self,
        from: HybridSnapshot,
        start_step: u64,
        (length, steps): (f64, usize),
        spare: Option<[u64; 2]>,
    ) -> Result<Vec<StepEvents>> {
        self.backend.restore(from);
        if length <= 0.0 {
            return Ok(Vec::new());
        }
        let params = StepParams {
            tau: length,
            ..self.params
        };
        let origin = start_step as f64 * self.params.tau;
        let backend = self.backend.as_mut();
        let mut stepper = Stepper::new(params, self.setup.cfg.order, backend, false)?;
        stepper.starting_at(origin);
        stepper.refine_contacts(self.setup.cfg.collisions.precision);
        stepper.spare(spare);
        let mut counts = StepCounts::default();
        (0..steps)
            .map(|_| stepper.step(backend, &mut counts))
            .collect()
    }

    /// Collision `c` of the step that ended at `step` backtraced to `f (R_i + R_j)`: the time
    /// offset from the step's start (negative in the step before), both bodies then
    /// (heliocentric, their own radii) and the kept start it was redone from: the step's, with
    /// both radii `f` times larger, or the step before's when the pair was already that close.
    fn backtrace(&mut self, step: u64, c: &Collision, f: f64) -> Result<(f64, [Body; 2], From)> {
        let ids = pair_ids(c);
        let reach = f * (c.bodies[0].r + c.bodies[1].r);
        let apart =
            |snap: &HybridSnapshot| separation(snap, c.system, ids).is_some_and(|d| d > reach);
        let tau = self.tau(c.system);
        let starts = &self.starts;
        let (from, start, steps) = match (&starts.current, &starts.previous) {
            (Some(current), _) if apart(current) => (current, From::Current, 1),
            (_, Some(previous)) if apart(previous) => (previous, From::Previous, 2),
            _ => return Err(self.lost_backtrace(step, c, f, "two steps before it")),
        };
        let mut enlarged = from.clone();
        scale_radii(&mut enlarged, c.system, ids, f);
        let events = self.redo(enlarged, step - steps as u64, (tau, steps), None)?;
        let mine = |e: &&Collision| e.system == c.system && same_pair(pair_ids(e), ids);
        let found = events.iter().enumerate().find_map(|(k, ev)| {
            let hit = ev.collisions.iter().find(mine)?;
            Some((
                (k as f64 - (steps as f64 - 1.0)) * tau + hit.time_offset,
                hit.bodies,
            ))
        });
        // At the enlarged contact, in its precision's band: not merged already overlapping (a
        // pair that came within `f (R_i + R_j)` before it was an encounter pair).
        let p = self.setup.cfg.collisions.precision.unwrap_or(0.0).abs();
        let in_reach = |b: &[Body; 2]| norm(sub(b[0].pos, b[1].pos)) >= reach * (1.0 - p);
        let found = found.filter(|(t, b)| *t <= c.time_offset && in_reach(b));
        let Some((t, mut bodies)) = found else {
            return Err(self.lost_backtrace(step, c, f, "the redone steps"));
        };
        for b in bodies.iter_mut() {
            b.r = c.bodies.iter().find(|o| o.id == b.id).map_or(b.r, |o| o.r);
        }
        Ok((t, bodies, start))
    }

    /// The error of a backtrace that found no crossing (GENGA: "Collision time could not be
    /// reconstructed. Maybe CollTshift is too large").
    fn lost_backtrace(&self, step: u64, c: &Collision, f: f64, within: &str) -> Error {
        let [a, b] = pair_ids(c);
        let field = match self.setup.cfg.names_genga_keys() {
            true => "Collision Time Shift",
            false => "collisions.time_shift",
        };
        Error::input(
            Location::file(&self.setup.cfg.source).field(field),
            format!(
                "the collision of bodies {a} and {b} in step {step} could not be backtraced to \
                 {f} times their radii within {within} (closer than that already, or not an \
                 encounter pair at that distance); expected a smaller factor"
            ),
        )
    }

    /// Log a backtraced collision of system `s` (time offset `t` from the start of the step that
    /// ended at `step`).
    fn record_shifted_line(
        &mut self,
        s: usize,
        step: u64,
        t: f64,
        bodies: [Body; 2],
    ) -> Result<()> {
        let years = units::code_to_years((step - 1) as f64 * self.tau(s) + t);
        match self.sims[s].logs.as_mut().and_then(|l| l.shifted.as_mut()) {
            Some(log) => log.line(&output::collision_line(years, &bodies[0], &bodies[1])),
            None => Ok(()),
        }
    }
}

/// Whether two id pairs are the same pair (either order).
fn same_pair(a: [u64; 2], b: [u64; 2]) -> bool {
    a == b || a == [b[1], b[0]]
}

/// The slots of the bodies `ids` of system `s` in `snap`.
fn slots(snap: &HybridSnapshot, s: usize, ids: [u64; 2]) -> Option<[usize; 2]> {
    let range = snap.layout.range(s);
    let find = |id| range.clone().find(|&k| snap.bodies.id[k] == id);
    Some([find(ids[0])?, find(ids[1])?])
}

/// `a - b`.
fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// The distance between the bodies `ids` of system `s` in `snap`.
fn separation(snap: &HybridSnapshot, s: usize, ids: [u64; 2]) -> Option<f64> {
    let [i, j] = slots(snap, s, ids)?;
    let b = &snap.bodies;
    let d = [b.x[i] - b.x[j], b.y[i] - b.y[j], b.z[i] - b.z[j]];
    Some(norm(d))
}

/// Both bodies' radii of `ids` in system `s` of `snap` times `f`.
fn scale_radii(snap: &mut HybridSnapshot, s: usize, ids: [u64; 2], f: f64) {
    if let Some(slots) = slots(snap, s, ids) {
        for k in slots {
            snap.bodies.r[k] *= f;
        }
    }
}
