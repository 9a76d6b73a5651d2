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
//! afterwards, so the run goes on, or stops, as without them. The copies per step are the price
//! of the options (on a device backend, a transfer to the host per step); `OutCollision.dat` is
//! written by runs of one simulation only, as in GENGA.

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

/// The ids of a collision's pair.
fn pair_ids(c: &Collision) -> [u64; 2] {
    [c.bodies[0].id, c.bodies[1].id]
}

impl Driver {
    /// Whether the run writes `OutCollision.dat`: the hybrid step with `stop.collision` and one
    /// simulation (GENGA does not support it in its multi-simulation mode).
    fn writes_collision_state(&self) -> bool {
        let hybrid = matches!(self.method, StepMethod::Hybrid(_));
        hybrid && self.setup.cfg.stop.collision && self.setup.sims.len() == 1
    }

    /// Keep the backend's state at the start of the next step in `starts`, when a collision
    /// stop or a backtrace may need it.
    pub(super) fn keep_step_start(&mut self, starts: &mut StepStarts) {
        let shifts = self.setup.cfg.collisions.time_shift.is_some();
        if shifts || self.writes_collision_state() {
            starts.previous = starts.current.take();
            starts.current = Some(self.backend.snapshot());
        }
    }

    /// After the step that ended at `step` (started at `starts.current`): each merger of
    /// `events` heavy enough for the collision stop backtraced to the CollisionsTShift file, and
    /// every body at the first one's time, or its backtrace's, to `OutCollision.dat` when it
    /// stops the run (see the module docs).
    pub(super) fn see_collisions_again(
        &mut self,
        step: u64,
        starts: &StepStarts,
        events: &StepEvents,
    ) -> Result<()> {
        let Some(current) = &starts.current else {
            return Ok(());
        };
        let heavy = self.setup.cfg.stop.collision_minimum_mass.unwrap_or(0.0);
        let mut heavy_ones: Vec<&Collision> = events.collisions.iter().collect();
        heavy_ones.retain(|c| c.bodies.iter().all(|b| b.m >= heavy));
        if heavy_ones.is_empty() {
            return Ok(());
        }
        let after = self.backend.snapshot();
        let result = self.redo_collisions(step, starts, current, &heavy_ones);
        self.backend.restore(after);
        result
    }

    fn redo_collisions(
        &mut self,
        step: u64,
        starts: &StepStarts,
        current: &HybridSnapshot,
        heavy_ones: &[&Collision],
    ) -> Result<()> {
        let tau = self.tau(0);
        // The stopping collision's state: from the current step's start to its time, or to its
        // backtrace's (which may lie in the step before: a negative offset).
        let mut stop_at: Option<(f64, [u64; 2])> = None;
        let stops = self.writes_collision_state();
        for c in heavy_ones {
            let mut at = c.time_offset.clamp(0.0, tau);
            if let Some(f) = self.setup.cfg.collisions.time_shift {
                let (t, bodies) = self.backtrace(step, starts, current, c, f)?;
                self.record_shifted_line(c.system, step, t, bodies)?;
                at = t;
            }
            let first = stop_at.is_none_or(|(t, _)| at < t);
            if stops && c.system == 0 && first {
                stop_at = Some((at, pair_ids(c)));
            }
        }
        if let Some((at, pair)) = stop_at {
            let (from, start_step, until) = match at < 0.0 {
                true => (
                    starts.previous.as_ref().unwrap_or(current),
                    step - 2,
                    at + tau,
                ),
                false => (current, step - 1, at),
            };
            let from = from.clone();
            self.redo(from, start_step, (until, 1), Some(pair))?;
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
        let backend = self.backend.as_mut();
        let mut stepper = Stepper::new(params, self.setup.cfg.order, backend, false)?;
        stepper.at_step(start_step);
        stepper.refine_contacts(self.setup.cfg.collisions.precision);
        stepper.spare(spare);
        let mut counts = StepCounts::default();
        (0..steps)
            .map(|_| stepper.step(backend, &mut counts))
            .collect()
    }

    /// Collision `c` of the step that ended at `step` backtraced to `f (R_i + R_j)`: the time
    /// offset from the step's start (negative in the step before) and both bodies then
    /// (heliocentric, their own radii). Redone from the step's start with both radii `f` times
    /// larger, or from the step before's when the pair was already that close.
    fn backtrace(
        &mut self,
        step: u64,
        starts: &StepStarts,
        current: &HybridSnapshot,
        c: &Collision,
        f: f64,
    ) -> Result<(f64, [Body; 2])> {
        let ids = pair_ids(c);
        let reach = f * (c.bodies[0].r + c.bodies[1].r);
        let apart =
            |snap: &HybridSnapshot| separation(snap, c.system, ids).is_some_and(|d| d > reach);
        let tau = self.tau(c.system);
        let (from, steps) = match (apart(current), &starts.previous) {
            (true, _) => (current, 1),
            (false, Some(previous)) if apart(previous) => (previous, 2),
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
        let Some((t, mut bodies)) = found.filter(|(t, _)| *t <= c.time_offset) else {
            return Err(self.lost_backtrace(step, c, f, "the redone steps"));
        };
        for b in bodies.iter_mut() {
            b.r = c.bodies.iter().find(|o| o.id == b.id).map_or(b.r, |o| o.r);
        }
        Ok((t, bodies))
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
