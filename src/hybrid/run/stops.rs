//! How systems stop before the run's end: at an event on the Wisdom-Holman map (a body leaving
//! the truncation radii or touching the central body, an encounter or a collision of the
//! `stop` settings), at a merger of the hybrid step (`stop.collision`), or below their minimum
//! number of bodies. Each stopped system keeps a [`StopRecord`] (when, why, which bodies, how
//! close) in its books, so that the ensemble table, the Python module and a resumed run all
//! report it.

use super::*;
use crate::hybrid::wisdom_holman::SystemStop;
use crate::io::checkpoint::EVENT_ENCOUNTER;
use crate::model::{StepEvents, StopReason, StopRecord};
use crate::physics::wisdom_holman::LaneStop;

/// The systems one step stopped: how many, and what ended the first of them (a description,
/// and the name [`HybridRun::stop_kind`] reports).
#[derive(Debug, Default)]
pub(super) struct Stops {
    /// Systems stopped.
    pub count: usize,
    /// The first one's description and kind.
    pub first: Option<(String, &'static str)>,
}

impl Stops {
    fn note(&mut self, why: impl FnOnce() -> String, kind: &'static str) {
        self.count += 1;
        if self.first.is_none() {
            self.first = Some((why(), kind));
        }
    }
}

/// The distance between two positions.
fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    norm([a[0] - b[0], a[1] - b[1], a[2] - b[2]])
}

/// The state a stopped system keeps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Kept {
    /// That of the record's step, the step just taken.
    Now,
    /// That of the step before the one just taken (a failed drift's system went back to it),
    /// whose energy line the schedule may have written already.
    StepBefore,
    /// None: the map could not give it back (its bodies are NaN).
    Lost,
}

impl Driver {
    /// Stop system `s` as `record` says: its energy line and snapshot at the record's step
    /// (see [`Kept`]), then it leaves the backend's steps (the others step on). `energies`:
    /// every system's energy at this step, computed by the first stop of a step and kept for
    /// the others (a step that stops many systems of a large ensemble computes them once).
    pub(super) fn stop_system_at(
        &mut self,
        s: usize,
        (record, kept): (StopRecord, Kept),
        energies: &mut Option<Vec<EnergyParts>>,
    ) -> Result<()> {
        let e = energies.get_or_insert_with(|| self.energies(true))[s];
        let interval = self.setup.cfg.output.energy_interval;
        let written = kept == Kept::StepBefore && crate::cadence::due(interval, record.step);
        if kept != Kept::Lost && !written {
            self.write_energy(s, record.step, &e)?;
        }
        if kept != Kept::Lost {
            self.write_snapshot(s, record.step)?;
        }
        self.backend.stop_system(s);
        self.sims[s].stopped = true;
        self.sims[s].book.stop = Some(record);
        Ok(())
    }

    /// Stop the systems that met an event on the map at `step` (see [`SystemStop`]): a body
    /// beyond a truncation radius, or into the central body, goes to the Ejections file with
    /// GENGA's case (-3, -2, -1), two touching bodies to the Collisions file, an encounter is
    /// the system's first event; the system's energy line and snapshot are written and it
    /// leaves the packs.
    pub(super) fn stop_on_map(&mut self, step: u64, stops: &[SystemStop]) -> Result<Stops> {
        let mut ended = Stops::default();
        if stops.is_empty() {
            return Ok(ended);
        }
        let systems: Vec<usize> = stops.iter().map(|s| s.system).collect();
        let lost = self.sync_systems(&systems)?;
        let mut energies = None;
        // The files' lines carry the state at the step's end (a step earlier for a system
        // whose drift failed: the last state the map reached); the record, the time and
        // distance the map's watch saw: at the step's kick (half a step earlier), or within the
        // drift after it.
        for stop in stops {
            let s = stop.system;
            let at = if stop.behind { step - 1 } else { step };
            let years = self.time_years(s, at);
            let seen = units::code_to_years((step as f64 - 0.5 + stop.after) * self.tau(s));
            if self.sims[s].stopped {
                continue;
            }
            let bodies = self.bodies_now(s);
            // The map numbers the central body 0 and the backend's body k as k + 1.
            let body = |k: usize| bodies[k - 1];
            // A position that is not finite leaves the distance empty.
            let record = |reason, ids: [Option<u64>; 2], d: f64| StopRecord {
                step: at,
                years: seen,
                reason,
                bodies: ids,
                distance: d.is_finite().then_some(d),
            };
            let (why, record) = match stop.event {
                LaneStop::Inner(k, d) | LaneStop::Outer(k, d) => {
                    let (case, reason) = match stop.event {
                        LaneStop::Inner(..) => (-2, StopReason::Ejection),
                        _ => (-3, StopReason::Escape),
                    };
                    let b = body(k);
                    self.record_ejection_lines(s, &[(years, b, case)])?;
                    let why = format!("body {} left the truncation radii (case {case})", b.id);
                    (why, record(reason, [Some(b.id), None], d))
                }
                LaneStop::Collision(0, k, d) => {
                    let b = body(k);
                    self.record_ejection_lines(s, &[(years, b, -1)])?;
                    let why = format!("body {} touched the central body (distance {d:e} AU)", b.id);
                    (why, record(StopReason::Ejection, [Some(b.id), None], d))
                }
                LaneStop::Collision(i, j, d) => {
                    let (a, b) = (body(i), body(j));
                    self.record_collision_line(s, years, [a, b])?;
                    let why = format!("bodies {} and {} touched (distance {d:e} AU)", a.id, b.id);
                    (
                        why,
                        record(StopReason::Collision, [Some(a.id), Some(b.id)], d),
                    )
                }
                LaneStop::Encounter(i, j, d) => {
                    let (a, b) = (body(i).id, body(j).id);
                    // The first event's time is the step's end, as the map's other events'.
                    self.sims[s].book.note_event(years, EVENT_ENCOUNTER);
                    let why = format!(
                        "bodies {a} and {b} came within {d:e} AU of each other (the stop's \
                         encounter distance)"
                    );
                    (why, record(StopReason::Encounter, [Some(a), Some(b)], d))
                }
                LaneStop::Chaotic(megno) => {
                    let above = self.setup.cfg.chaos.stop_above.unwrap_or(f64::NAN);
                    let why = format!("MEGNO reached {megno:.4} (the stop's limit: {above})");
                    (why, record(StopReason::Chaotic, [None, None], f64::NAN))
                }
                LaneStop::Failed(k, e) => {
                    let b = body(k);
                    let why = format!(
                        "the Kepler drift of Jacobi body {k} (body {}, the first whose drift \
                         failed) failed: {e} (typically after a close approach the \
                         Wisdom-Holman map cannot resolve; the system stopped at the step before)",
                        b.id
                    );
                    (
                        why,
                        record(StopReason::Failure, [Some(b.id), None], f64::NAN),
                    )
                }
            };
            let kept = match (lost.contains(&s), stop.behind) {
                (true, _) => Kept::Lost,
                (false, true) => Kept::StepBefore,
                (false, false) => Kept::Now,
            };
            self.stop_system_at(s, (record, kept), &mut energies)?;
            let years = record.years;
            let at = record.step;
            let state = match kept {
                Kept::Lost => "; its state could not be given back: no snapshot or energy line",
                _ => "",
            };
            ended.note(
                || format!("{why} at step {at}, t = {years} yr{state}"),
                record.reason.name(),
            );
        }
        self.method.repack(self.backend.as_mut())?;
        Ok(ended)
    }

    /// After the mergers and ejections of the hybrid step that ended at `step` are recorded:
    /// stop the systems with a merger when `stop.collision` asks, those with a body removed
    /// beyond the outer radius when `stop.escape` asks, and those left with fewer massive
    /// bodies than their minimum (test particles come and go in their millions).
    pub(super) fn stop_after_events(
        &mut self,
        step: u64,
        events: &StepEvents,
        ended: &mut Stops,
    ) -> Result<()> {
        // Systems stop at encounters of the stop's distance, and bodies leave only through
        // mergers and ejections: only then can a system stop here.
        if events.is_empty() {
            return Ok(());
        }
        let setup = Arc::clone(&self.setup);
        let mut energies = None;
        let energies = &mut energies;
        if !events.encounters.is_empty() {
            for e in &events.encounters {
                let t = (step - 1) as f64 * self.tau(e.system) + e.time_offset;
                let book = &mut self.sims[e.system].book;
                book.note_event(units::code_to_years(t), EVENT_ENCOUNTER);
            }
            let close = events.encounters.iter().map(|e| e.system);
            let stop = setup.cfg.stop;
            let setting = match (stop.hill_radii, stop.min_distance) {
                (Some(_), Some(_)) => "stop.hill_radii, stop.min_distance",
                (Some(_), None) => "stop.hill_radii",
                _ => "stop.min_distance",
            };
            let why = ("an encounter within the stop's distance", setting);
            self.stop_each(
                close,
                (step, events, StopReason::Encounter, why),
                (ended, energies),
            )?;
        }
        if setup.cfg.stop.collision {
            // GENGA's Stop Minimum Mass: both bodies at least that heavy before the merger.
            let stop = setup.cfg.stop;
            let stopping = events.collisions.iter();
            let stopping = stopping.filter(|c| stop.heavy_enough(c.bodies.map(|b| b.m)));
            let hit = stopping.map(|c| c.system);
            let why = ("a collision", "stop.collision");
            self.stop_each(
                hit,
                (step, events, StopReason::Collision, why),
                (ended, energies),
            )?;
        }
        if setup.cfg.stop.ejection {
            let inner = events.ejections.iter().filter(|e| e.case != -3);
            let why = (
                "a body inside the inner radius or in the central body",
                "stop.ejection",
            );
            let systems = inner.map(|e| e.system);
            self.stop_each(
                systems,
                (step, events, StopReason::Ejection, why),
                (ended, energies),
            )?;
        }
        if setup.cfg.stop.escape.is_some() {
            let out = events.ejections.iter().filter(|e| e.case == -3);
            let why = ("a body beyond the escape radius", "stop.escape");
            let systems = out.map(|e| e.system);
            self.stop_each(
                systems,
                (step, events, StopReason::Escape, why),
                (ended, energies),
            )?;
        }
        for (s, sim) in setup.sims.iter().enumerate() {
            if self.sims[s].stopped {
                continue;
            }
            let sys = self.backend.layout().systems[s];
            let min = sim.min_bodies;
            if sys.active && min > 0 && sys.massive < min {
                let record = self.step_event_record(s, step, events, StopReason::MinimumBodies);
                self.stop_system_at(s, (record, Kept::Now), energies)?;
                let why = || {
                    let left = sys.massive;
                    format!("{left} bodies left at step {step}, fewer than the minimum {min}")
                };
                ended.note(why, "minimum bodies");
                continue;
            }
            let (min, left) = (sim.min_test_particles, sys.len - sys.massive);
            if sys.active && min > 0 && left < min {
                let record = self.step_event_record(s, step, events, StopReason::MinimumBodies);
                self.stop_system_at(s, (record, Kept::Now), energies)?;
                let why = || {
                    format!(
                        "{left} test particles left at step {step}, fewer than the minimum {min} \
                         (minimum_test_particles)"
                    )
                };
                ended.note(why, "minimum bodies");
            }
        }
        Ok(())
    }

    /// Stop each system of `systems` (repeats allowed) not stopped yet for `reason`, an event
    /// of `step` (`why`: what happened and the setting that stops on it, for the run's report).
    fn stop_each(
        &mut self,
        systems: impl Iterator<Item = usize>,
        (step, events, reason, why): (u64, &StepEvents, StopReason, (&str, &str)),
        (ended, energies): (&mut Stops, &mut Option<Vec<EnergyParts>>),
    ) -> Result<()> {
        let mut list: Vec<usize> = systems.collect();
        list.sort_unstable();
        list.dedup();
        for s in list {
            if self.sims[s].stopped {
                continue;
            }
            let record = self.step_event_record(s, step, events, reason);
            self.stop_system_at(s, (record, Kept::Now), energies)?;
            let (what, setting) = why;
            let pair = match (record.bodies, record.distance) {
                ([Some(a), Some(b)], Some(d)) => format!(" (bodies {a} and {b}, {d:e} AU apart)"),
                _ => String::new(),
            };
            let years = record.years;
            ended.note(
                || format!("{what}{pair} at step {step}, t = {years} yr ({setting})"),
                reason.name(),
            );
        }
        Ok(())
    }

    /// The record of system `s` stopping for `reason` at the end of `step`, with the earliest
    /// of its mergers in that step (and, for a minimum-bodies stop, of its ejections too; for an
    /// encounter stop, its earliest encounter only): its time, its bodies, and their distance (a
    /// merger's bodies just before contact, an ejected body's from the central body, an
    /// encounter's pair when it crossed its distance).
    fn step_event_record(
        &self,
        s: usize,
        step: u64,
        events: &StepEvents,
        reason: StopReason,
    ) -> StopRecord {
        let tau = self.tau(s);
        let start = (step - 1) as f64 * tau;
        // An escape is its ejection beyond the outer radius, an ejection one inside the inner
        // radius or into the central body, a collision its merger, an encounter its pair.
        use StopReason as R;
        let merges = matches!(reason, R::Collision | R::MinimumBodies);
        // A collision stop is the first merger of bodies at least as heavy as its minimum.
        let stop = self.setup.cfg.stop;
        let stops =
            |c: &&Collision| reason != R::Collision || stop.heavy_enough(c.bodies.map(|b| b.m));
        let merger = events.collisions.iter();
        let merger = merger.filter(|c| c.system == s && merges).filter(stops);
        let merger = merger.map(|c| {
            let [a, b] = c.bodies;
            let d = distance(a.pos, b.pos);
            (start + c.time_offset, [Some(a.id), Some(b.id)], d)
        });
        let ejections = events.ejections.iter();
        let mine = |e: &&Ejection| {
            e.system == s
                && match reason {
                    R::Escape => e.case == -3,
                    R::Ejection => e.case != -3,
                    R::MinimumBodies => true,
                    R::Collision | R::Encounter | R::Failure | R::Chaotic => false,
                }
        };
        let ejection = ejections.filter(mine).map(|e| {
            let t = step as f64 * tau - e.before_end;
            (t, [Some(e.body.id), None], norm(e.body.pos))
        });
        let close = events.encounters.iter();
        let close = close.filter(|e| e.system == s && reason == R::Encounter);
        let close = close.map(|e| (start + e.time_offset, e.ids.map(Some), e.distance));
        let first = merger.chain(ejection).chain(close);
        let first = first.min_by(|a, b| a.0.total_cmp(&b.0));
        let end = self.time_years(s, step);
        StopRecord {
            step,
            years: first.map_or(end, |f| units::code_to_years(f.0)),
            reason,
            bodies: first.map_or([None, None], |f| f.1),
            distance: first.map(|f| f.2),
        }
    }
}
