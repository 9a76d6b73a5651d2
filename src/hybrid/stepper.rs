//! The GENGA hybrid step (paper section 2.2), written once as an ordered list of backend passes.
//!
//! One step of length tau, for each substep weight w of the Yoshida composition (order 2: w = 1):
//! opening kick w tau/2 (stored accelerations, candidates refreshed with the new critical radii),
//! Sun kick w tau/2, Kepler drift w tau, close-encounter search, Bulirsch-Stoer integration of the
//! encounter groups with mergers (or their recursive sub-steps, `physics::recursion`), Sun kick w tau/2, closing kick w tau/2 with fresh accelerations
//! and the prechecker. With potential forces on (GR, J2; `physics::forces`) each interaction
//! kick is followed by their kick of the same length; with radiation on, the whole step sits
//! between two radiation kicks of tau/2, and with tides (`physics::tides`) between two tide
//! kicks of tau/2 inside those. Critical radii are computed once per full step, so the whole step
//! integrates one Hamiltonian split; as in GENGA (section 2.3) the encounter machinery runs in
//! every substep. Ejections are applied after the step.
//!
//! A run that stops at encounters ([`Stepper::watch_encounters`]) has every candidate pair of
//! each search checked against its encounter distance over the drift
//! ([`crate::physics::encounter::PairEnds::encounter`]): the Hermite minimum of the search with
//! the pair's own limit, the crossing time by bisection on the same interpolant.

use crate::backend::HybridBackend;
use crate::error::{Error, Result};
use crate::hybrid::yoshida::substep_weights;
use crate::model::{EncounterEvent, StepCounts, StepEvents, StepParams};
use crate::physics::bulirsch_stoer::BsOptions;
use crate::physics::encounter::PairLimits;
use std::time::Instant;

/// Steps between two timed steps while steps are short (see [`Stepper::step`]).
const SAMPLE_EVERY: u64 = 64;
/// Timed steps averaging at least this long (seconds) make every step timed: their 14 clock
/// reads then cost under 0.1 % of a step.
const TIME_EVERY_STEP_FROM: f64 = 50e-6;

/// Drives a [`HybridBackend`] through hybrid steps.
pub struct Stepper {
    params: StepParams,
    weights: &'static [f64],
    bs: BsOptions,
    /// Steps until the next timed step (0: the next step is timed).
    untimed_left: u64,
    /// Every step timed (see [`Stepper::time_every_step`]).
    every_step_timed: bool,
    /// The number of the next step (time `step * tau`): the gas disk's surface density
    /// dissipates with it (see [`Stepper::at_step`]).
    step: u64,
    /// The time of step 0 of this stepper's count (code units; 0 but for a step redone from
    /// within a run with another length, [`Stepper::starting_at`]).
    origin: f64,
    /// The encounter distance of the run's `stop` settings (off by default).
    watch: PairLimits,
}

/// `f()`, its wall time added to `slot` when `on`.
#[inline(always)]
fn timed<T>(on: bool, slot: &mut f64, f: impl FnOnce() -> T) -> T {
    if !on {
        return f();
    }
    let start = Instant::now();
    let out = f();
    *slot += start.elapsed().as_secs_f64();
    out
}

impl Stepper {
    /// A stepper for `order` (2, 4 or 6). The backend must already hold the bodies; `fresh` is
    /// true for a new run (accelerations are computed), false after restoring a checkpoint that
    /// carries the kick state.
    pub fn new(
        params: StepParams,
        order: u8,
        backend: &mut dyn HybridBackend,
        fresh: bool,
    ) -> Result<Self> {
        let weights = substep_weights(order)
            .ok_or_else(|| Error::run(format!("integrator order {order} (expected 2, 4 or 6)")))?;
        if fresh {
            backend.critical_radii(&params);
            backend.accelerations();
        }
        Ok(Stepper {
            params,
            weights,
            bs: BsOptions::default(),
            untimed_left: 0,
            every_step_timed: false,
            step: 0,
            origin: 0.0,
            watch: PairLimits::default(),
        })
    }

    /// Report each pair that comes closer than the encounter distance of `limits` (its Hill
    /// radii and minimum distance; collisions are the mergers') as a step event.
    pub fn watch_encounters(&mut self, limits: PairLimits) {
        self.watch = PairLimits {
            collision: false,
            ..limits
        };
    }

    /// Refine each contact time of a merger to `precision` (a fraction of the sum of the
    /// radii; see [`crate::config::collisions::CollisionSettings`]), or not (`None`).
    pub fn refine_contacts(&mut self, precision: Option<f64>) {
        self.bs.collision_precision = precision;
    }

    /// The next step starts at time `t` (code units), whatever this stepper's step length: for
    /// steps redone from within a run with another length (the gas disk's time).
    pub fn starting_at(&mut self, t: f64) {
        self.step = 0;
        self.origin = t;
    }

    /// Never merge the pair of ids `ids` (a collision stop's pair carried to its contact; see
    /// [`BsOptions::spare`]).
    pub fn spare(&mut self, ids: Option<[u64; 2]>) {
        self.bs.spare = ids;
    }

    /// The next step is step `step` (a resumed run starts past 0; each step counts on from
    /// here). The gas disk's surface density of a step is that at its middle,
    /// `Σ_10 exp(-(step + ½) tau / τ_diss)`, the same for both kicks of its pair.
    pub fn at_step(&mut self, step: u64) {
        self.step = step;
    }

    /// Time every step from now on. Timed steps run every pass on its own (none fused; see
    /// [`HybridBackend::fused_substep`]): for profiles, and for tests that compare fused
    /// substeps with the passes.
    pub fn time_every_step(&mut self) {
        self.every_step_timed = true;
    }

    /// The step parameters.
    pub fn params(&self) -> &StepParams {
        &self.params
    }

    /// Advance one full step; counters are added to `counts`, and pass times when the step is
    /// timed. Backends holding many independent systems run the whole step part by part (see
    /// [`HybridBackend::step_parts`]).
    ///
    /// Pass times are sampled: a clock read costs about as much as a whole pass of a small
    /// system, so while the timed steps average less than [`TIME_EVERY_STEP_FROM`] only every
    /// [`SAMPLE_EVERY`]th step is timed (`counts.timed_steps` counts the timed steps, and the
    /// time per step of a pass is its time over them); otherwise every step is. The choice
    /// follows the average, not the last step, so that a run of long (encounter) steps does not
    /// draw its neighbours into the sample. Timed steps run every pass on its own; untimed ones
    /// let the backend fuse a substep ([`HybridBackend::fused_substep`]).
    pub fn step(
        &mut self,
        backend: &mut dyn HybridBackend,
        counts: &mut StepCounts,
    ) -> Result<StepEvents> {
        let timing = self.untimed_left == 0;
        let gas = self.params.forces.gas;
        if gas.is_on() {
            let t = self.origin + (self.step as f64 + 0.5) * self.params.tau;
            self.params.forces.gas = gas.at_time(t);
        }
        self.step += 1;
        let this = &*self;
        let events = backend.step_parts(&|part, c| this.step_part(part, c, timing), counts);
        if timing {
            counts.timed_steps += 1;
            let average = counts.times.total() / counts.timed_steps as f64;
            self.untimed_left = if average >= TIME_EVERY_STEP_FROM || self.every_step_timed {
                0
            } else {
                SAMPLE_EVERY - 1
            };
        } else {
            self.untimed_left -= 1;
        }
        events
    }

    /// The pairs of the last search (a drift of length `h` from `offset` into the step) that
    /// came within the encounter distance, as events. A substep of order 4 or 6 may run
    /// backwards or past the step's end; an event's time is kept within the step.
    fn encounter_events(
        &self,
        backend: &mut dyn HybridBackend,
        (offset, h): (f64, f64),
        out: &mut Vec<EncounterEvent>,
    ) -> Result<()> {
        for pair in backend.candidate_ends(&self.watch)? {
            if let Some((t, distance)) = pair.encounter(&self.watch, h) {
                out.push(EncounterEvent {
                    system: pair.system,
                    ids: pair.ids,
                    time_offset: (offset + t * h).clamp(0.0, self.params.tau),
                    distance,
                });
            }
        }
        Ok(())
    }

    /// The passes of one full step on `backend` (or one part of it), timed when `timing`. The
    /// host waits for one small status read per substep (the encounter count decides whether
    /// the group passes run), and for the ejection list at the end of the step.
    fn step_part(
        &self,
        backend: &mut dyn HybridBackend,
        counts: &mut StepCounts,
        timing: bool,
    ) -> Result<StepEvents> {
        let p = self.params;
        let t = &mut counts.times;
        let mut events = StepEvents::default();
        let (potential, radiation) = (p.forces.has_potential(), p.forces.has_radiation());
        let tides = p.forces.has_tides();
        // Velocity-dependent forces: kick pairs of their own around the step (radiation
        // outermost, the tides inside it).
        if radiation {
            timed(timing, &mut t.forces, || {
                backend.radiation_kick(&p, 0.5 * p.tau)
            });
        }
        if tides {
            timed(timing, &mut t.forces, || backend.tide_kick(&p, 0.5 * p.tau));
        }
        timed(timing, &mut t.kick, || {
            backend.critical_radii(&p);
            backend.refresh_accelerations();
        });
        let mut offset = 0.0;
        for &w in self.weights {
            let h = w * p.tau;
            // Untimed steps let the backend fuse a substep without candidates; timed steps run
            // the passes one by one (the same bits) to measure each.
            if let Some(done) = (!timing).then(|| backend.fused_substep(&p, h)).flatten() {
                done?;
                counts.fused_substeps += 1;
                offset += h;
                continue;
            }
            timed(timing, &mut t.kick, || backend.kick(0.5 * h));
            if potential {
                timed(timing, &mut t.forces, || {
                    backend.potential_kick(&p, 0.5 * h)
                });
            }
            timed(timing, &mut t.drift, || {
                backend.sun_kick(&p, 0.5 * h);
                backend.save_candidate_states();
                backend.drift(&p, h);
            });
            let status = timed(timing, &mut t.encounter, || {
                backend.encounter_search(h);
                backend.status()
            })?;
            counts.candidates += status.candidates;
            counts.encounters += status.encounters;
            if self.watch.encounters() && status.candidates > 0 {
                self.encounter_events(backend, (offset, h), &mut events.encounters)?;
            }
            if status.encounters > 0 {
                let merged = timed(timing, &mut t.bulirsch_stoer, || {
                    backend.group_encounters(&mut counts.groups)?;
                    backend.integrate_groups(&p, h, &self.bs);
                    backend.apply_groups(&p, &mut counts.groups)
                })?;
                events.collisions.extend(merged.into_iter().map(|mut c| {
                    // The drift's positions already hold the whole first half Sun kick; at time
                    // tau into the drift a heliocentric position has only tau of it.
                    // The velocities were made heliocentric with P/M0 at the drift's end: take
                    // P back to tau.
                    let pending = 0.5 * h - c.time_offset;
                    let after = h - c.time_offset;
                    for b in c.bodies.iter_mut() {
                        for k in 0..3 {
                            b.pos[k] -= c.sun_velocity[k] * pending;
                            b.vel[k] -= c.sun_velocity_rate[k] * after;
                        }
                    }
                    c.time_offset += offset;
                    c
                }));
            }
            timed(timing, &mut t.drift, || backend.sun_kick(&p, 0.5 * h));
            timed(timing, &mut t.kick, || backend.closing_kick(0.5 * h));
            if potential {
                timed(timing, &mut t.forces, || {
                    backend.potential_kick(&p, 0.5 * h)
                });
            }
            offset += h;
        }
        if tides {
            timed(timing, &mut t.forces, || backend.tide_kick(&p, 0.5 * p.tau));
        }
        if radiation {
            timed(timing, &mut t.forces, || {
                backend.radiation_kick(&p, 0.5 * p.tau)
            });
        }
        events.ejections = timed(timing, &mut t.ejection, || {
            let ejected = backend.ejections(&p);
            if !ejected.is_empty() {
                // The removed bodies no longer pull: recompute the stored accelerations.
                backend.accelerations();
            }
            ejected
        });
        Ok(events)
    }
}
