//! When a system stops before its end step: the stability literature's instability criteria
//! (scenario field `stop`; GENGA's `Stop at Encounter`, `Stop at Encounter Radius` and `Stop at
//! Collision`).

use serde::{Deserialize, Serialize};

/// Stop conditions of a run's systems (scenario field `stop`). A system that meets one stops;
/// the others step on.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct StopSettings {
    /// Stop when two bodies come closer than `hill_radii (R_H,i + R_H,j)`, each Hill radius
    /// `R_H = r (m / 3 M0)^(1/3)` at the body's heliocentric distance r (GENGA's `Stop at
    /// Encounter Radius` with `Stop at Encounter = 1`; the close-encounter criterion of
    /// instability, e.g. Tamayo et al. 2020; REBOUND's `exit_min_distance` in Hill radii). Both
    /// integrators find the smallest separation within a step from the cubic Hermite
    /// interpolation of the encounter search; the hybrid step raises `n1` to at least twice this
    /// factor so that every such pair is within its critical radius (GENGA sets the critical
    /// radius from `Stop at Encounter Radius` in the same way).
    #[serde(default)]
    pub hill_radii: Option<f64>,
    /// Stop when two bodies come closer than this distance (AU; REBOUND's
    /// `exit_min_distance`). The hybrid step makes it the smallest critical radius of a massive
    /// body, so that its encounter search sees every such pair.
    #[serde(default)]
    pub min_distance: Option<f64>,
    /// Stop at the first collision, two bodies' physical radii touching (GENGA's `Stop at
    /// Collision`): the hybrid step merges them and then stops the system (a run of one
    /// simulation also writes every body at the collision's time to GENGA's
    /// `OutCollision.dat`); the Wisdom-Holman map, which has no mergers, stops at the touch.
    #[serde(default)]
    pub collision: bool,
    /// With `collision`: stop only at a collision of two bodies that both have at least this
    /// mass (Msun; GENGA's `Stop Minimum Mass`, compared with the masses before the merger).
    /// `None`: every collision stops.
    #[serde(default)]
    pub collision_minimum_mass: Option<f64>,
    /// Stop when a body goes beyond this heliocentric distance (AU), with the reason
    /// `escape` (REBOUND's `exit_max_distance`): the smaller of it and each system's
    /// `outer_truncation` is the outer radius, and a body beyond it (any body, test particles
    /// too, as in REBOUND) ends its system in both integrators (the hybrid step removes it to the Ejections file, GENGA's case -3, and then
    /// stops the system; the Wisdom-Holman map stops at the kick that sees it).
    #[serde(default)]
    pub escape: Option<f64>,
    /// Stop at the first body that comes inside the inner truncation radius or touches the
    /// central body (GENGA's ejection cases -2 and -1), with the reason `ejection`: the hybrid
    /// step removes it to the Ejections file and then stops the system (the Wisdom-Holman map
    /// stops there whether or not this is set).
    #[serde(default)]
    pub ejection: bool,
}

impl StopSettings {
    /// The settings as a fingerprint fragment for checkpoints (empty when nothing is set, so
    /// that checkpoints of runs without stops keep their fingerprint).
    pub fn fingerprint(&self) -> String {
        if *self == StopSettings::default() {
            return String::new();
        }
        let x = |v: Option<f64>| v.map_or("none".to_string(), |v| format!("{v:e}"));
        // The escape radius enters only when set, so that checkpoints of earlier stops resume.
        let escape = self
            .escape
            .map_or(String::new(), |r| format!(",escape:{r:e}"));
        let ejection = if self.ejection { ",ejection" } else { "" };
        let heavy = self
            .collision_minimum_mass
            .map_or(String::new(), |m| format!(",collision-mass:{m:e}"));
        format!(
            " stop=hill:{},min:{},collision:{}{heavy}{escape}{ejection}",
            x(self.hill_radii),
            x(self.min_distance),
            self.collision
        )
    }

    /// Whether a collision of bodies of these masses (before the merger) is heavy enough for
    /// the collision stop and the backtrace: both at least `collision_minimum_mass` (GENGA's
    /// `Stop Minimum Mass`).
    pub fn heavy_enough(&self, masses: [f64; 2]) -> bool {
        let heavy = self.collision_minimum_mass.unwrap_or(0.0);
        masses.iter().all(|&m| m >= heavy)
    }

    /// The first setting that is out of range: the scenario field and what is expected.
    pub fn check(&self) -> Option<(&'static str, String)> {
        if let Some(r) = self.escape.filter(|r| !(r.is_finite() && *r > 0.0)) {
            return Some((
                "stop.escape",
                format!("expected a positive finite distance in AU, got {r}"),
            ));
        }
        if let Some(m) = self
            .collision_minimum_mass
            .filter(|m| !(m.is_finite() && *m >= 0.0))
        {
            return Some((
                "stop.collision_minimum_mass",
                format!("expected a non-negative finite mass in solar masses, got {m}"),
            ));
        }
        for (field, value) in [
            ("stop.hill_radii", self.hill_radii),
            ("stop.min_distance", self.min_distance),
        ] {
            if let Some(v) = value.filter(|v| !(v.is_finite() && *v > 0.0)) {
                return Some((field, format!("expected a positive finite number, got {v}")));
            }
        }
        None
    }
}
