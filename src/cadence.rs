//! The rhythm of a run, one for both engines' run loops (the hybrid driver's and the sheet's):
//! on which steps an output or a checkpoint is due ([`Schedule`], [`due`]), whether the caller
//! asked the run to stop (Ctrl-C, SIGTERM) or to write a checkpoint now (SIGUSR1), and its
//! progress, sent to the caller's [`Observer`] about once a second ([`Cadence::report`]).

use crate::observe::{Observer, Progress, RunEvent};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Whether `step` is a multiple of a positive `interval` (an interval of 0 or less: never).
pub fn due(interval: i64, step: u64) -> bool {
    interval > 0 && step.is_multiple_of(interval as u64)
}

/// Whether `step` is one of the `burst` consecutive steps that end each positive `interval`
/// (GENGA's `Number of outputs per interval`: with 100 and 5, steps 96-100, 196-200, ...; a
/// burst of 1 is [`due`]). Step 0 is never in a burst.
pub fn due_in_bursts(interval: i64, burst: u64, step: u64) -> bool {
    let Ok(k @ 1..) = u64::try_from(interval) else {
        return false;
    };
    let into = step % k;
    step > 0 && (into == 0 || into + burst.min(k) > k)
}

/// The steps of an output interval as a loop meets them, one step after another, without a
/// division per step except on the steps it hits (the same steps as [`due_in_bursts`]).
pub struct Schedule {
    interval: u64,
    burst: u64,
    next: u64,
}

impl Schedule {
    /// The steps after `step` that are multiples of `interval` (none when it is not positive).
    pub fn after(interval: i64, step: u64) -> Self {
        Self::bursts_after(interval, 1, step)
    }

    /// The steps after `step` in the bursts of `burst` consecutive steps that end each
    /// `interval` ([`due_in_bursts`]; a burst longer than the interval is every step).
    pub fn bursts_after(interval: i64, burst: u64, step: u64) -> Self {
        let interval = u64::try_from(interval).unwrap_or(0);
        let mut schedule = Schedule {
            interval,
            burst: burst.clamp(1, interval.max(1)),
            next: u64::MAX,
        };
        schedule.next = schedule.first_after(step);
        schedule
    }

    /// The first step after `step` on the schedule.
    fn first_after(&self, step: u64) -> u64 {
        let (k, n) = (self.interval, self.burst);
        if k == 0 || step == u64::MAX {
            return u64::MAX;
        }
        let s = step + 1;
        let into = s % k;
        if into == 0 || into + n > k {
            s
        } else {
            (s - into).saturating_add(k - n + 1)
        }
    }

    /// The next step on the schedule (`u64::MAX` for none).
    pub fn next(&self) -> u64 {
        self.next
    }

    /// True when `step` (the step after the last one asked about) is on the schedule.
    pub fn hit(&mut self, step: u64) -> bool {
        if step != self.next {
            return false;
        }
        self.next = match self.burst {
            1 => self.next.saturating_add(self.interval),
            _ => self.first_after(step),
        };
        true
    }
}

/// A run loop's signals and progress (module docs).
pub struct Cadence<'a> {
    interrupt: &'a AtomicBool,
    first_step: u64,
    last_step: u64,
    start: Instant,
    last_report: Instant,
}

impl<'a> Cadence<'a> {
    /// A loop from `first_step` towards `last_step` that stops when `interrupt` is set; its
    /// clock starts now.
    pub fn new(interrupt: &'a AtomicBool, first_step: u64, last_step: u64) -> Self {
        let start = Instant::now();
        Cadence {
            interrupt,
            first_step,
            last_step,
            start,
            last_report: start,
        }
    }

    /// The caller asked the run to stop (polled before every step).
    pub fn stop_requested(&self) -> bool {
        self.interrupt.load(Ordering::Relaxed)
    }

    /// A checkpoint was asked for since the last call (SIGUSR1): it is written after the
    /// step's outputs, as the scheduled ones are.
    pub fn checkpoint_requested(&self) -> bool {
        crate::signals::take_checkpoint_request()
    }

    /// Wall time since the loop started, in seconds.
    pub fn elapsed_s(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    /// Send the progress at `step` with `n` bodies or particles when a second has passed since
    /// the last report (one clock read per call).
    pub fn report(&mut self, step: u64, n: usize, observer: &mut Observer<'_>) {
        let now = Instant::now();
        if now.duration_since(self.last_report).as_secs_f64() < 1.0 {
            return;
        }
        self.last_report = now;
        observer(RunEvent::Progress(Progress {
            step,
            first_step: self.first_step,
            last_step: self.last_step,
            n,
            elapsed_s: now.duration_since(self.start).as_secs_f64(),
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The loop's output schedules hit exactly the steps `due` names, from any first step.
    #[test]
    fn schedules_hit_the_due_steps() {
        for interval in [-5, 0, 1, 3, 7, 730] {
            for first in [0u64, 1, 6, 7, 729, 730, 731] {
                let mut schedule = Schedule::after(interval, first);
                for step in first + 1..first + 2000 {
                    assert_eq!(
                        schedule.hit(step),
                        due(interval, step),
                        "interval {interval}, first step {first}, step {step}"
                    );
                }
            }
        }
    }

    /// The bursts of consecutive outputs hit GENGA's steps, from any first step.
    #[test]
    fn burst_schedules_hit_the_last_steps_of_each_interval() {
        let hits = |interval, burst, first, last| {
            let mut schedule = Schedule::bursts_after(interval, burst, first);
            (first + 1..=last)
                .filter(|&s| schedule.hit(s))
                .collect::<Vec<u64>>()
        };
        // GENGA's example (Files.rst): 100 and 5 write 96-100, 196-200, ...
        assert_eq!(
            hits(100, 5, 0, 200),
            [96, 97, 98, 99, 100, 196, 197, 198, 199, 200]
        );
        assert_eq!(hits(100, 5, 97, 197), [98, 99, 100, 196, 197]);
        assert_eq!(hits(4, 9, 0, 5), [1, 2, 3, 4, 5]);
        for (interval, burst) in [(1, 1), (3, 2), (7, 7), (10, 3), (730, 12)] {
            for first in [0u64, 1, 6, 7, 8, 729, 730] {
                let mut schedule = Schedule::bursts_after(interval, burst, first);
                for step in first + 1..first + 2000 {
                    assert_eq!(
                        schedule.hit(step),
                        due_in_bursts(interval, burst, step),
                        "interval {interval}, burst {burst}, first {first}, step {step}"
                    );
                }
            }
        }
        assert!(!due_in_bursts(0, 3, 5) && !due_in_bursts(-1, 3, 5));
    }
}
