//! When a collision is resolved and reported (scenario field `collisions`; GENGA's `Collision
//! Precision` and `Collision Time Shift`, GENGA's `Collisions.rst`, sections "Collision
//! precision" and "Backtrace Collisions").

use serde::{Deserialize, Serialize};

/// How the Bulirsch-Stoer integration of an encounter group places a collision in time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct CollisionSettings {
    /// Refine the contact time until the separation `r` of the two bodies at the merger lies
    /// within `|p|` of the sum of their radii `R` (GENGA's `Collision Precision`): for `p > 0`
    /// the bodies overlap slightly, `R (1 - p) <= r <= R`; for `p < 0` they do not,
    /// `R <= r <= R (1 + |p|)`; `p < 1` (a `param.dat`'s 1 or more is `None`). The substep in which contact is found
    /// is redone from its start, shortened to the crossing of the band's middle on the cubic
    /// Hermite interpolant of the squared separation (GENGA paper eq. 10), until its end lies in
    /// the band; the merger and the Collisions file's line are at that end. `None` (the
    /// scenario default) merges at the end of the substep in which contact is found and reports
    /// the states at its start; a GENGA `param.dat` takes GENGA's default 1e-4.
    #[serde(default)]
    pub precision: Option<f64>,
    /// Backtrace every collision to the time its two bodies were `f` times the sum of their
    /// radii apart, `f > 1` (GENGA's `Collision Time Shift`), and write them then to
    /// `CollisionsTShift<name>.dat`, in the Collisions file's columns. As in GENGA, only
    /// collisions of bodies at least `stop.collision_minimum_mass` heavy, and the step (or the
    /// two steps) before the collision is redone from its start with the pair's radii `f` times
    /// larger (with `precision`); the run itself goes on from the real collision. With
    /// `stop.collision`, `OutCollision.dat` holds the bodies at the backtraced time. Hybrid step
    /// only. `None` (GENGA's `1`): no backtrace.
    #[serde(default)]
    pub time_shift: Option<f64>,
}

impl CollisionSettings {
    /// The settings as a fingerprint fragment for checkpoints (empty by default, so that
    /// checkpoints of runs without them keep their fingerprint). The time shift leaves the run
    /// as it is and does not enter.
    pub fn fingerprint(&self) -> String {
        match self.precision {
            Some(p) => format!(" collision-precision={p:e}"),
            None => String::new(),
        }
    }

    /// The first setting out of range: the scenario field and what is expected.
    pub fn check(&self) -> Option<(&'static str, String)> {
        if let Some(f) = self.time_shift.filter(|f| !(f.is_finite() && *f > 1.0)) {
            return Some((
                "collisions.time_shift",
                format!("expected a factor of the sum of the radii above 1, got {f}"),
            ));
        }
        let p = self.precision?;
        (!(p.is_finite() && p < 1.0 && p.abs() >= 1e-15)).then(|| {
            (
                "collisions.precision",
                format!(
                    "expected a finite precision below 1 with |p| >= 1e-15 (a fraction of the \
                     sum of the radii; GENGA advises not below 1e-10; None for no \
                     refinement), got {p}"
                ),
            )
        })
    }
}
