//! Each system's time step: the scenario's `time_step_days` for every system, or
//! `time_step: InnerPeriodFraction(f)`, a fraction of each system's innermost orbital period at
//! the start (as SPOCK steps its stability integrations, Tamayo et al. 2020), so that an
//! ensemble of systems of very different sizes is stepped alike.

use crate::physics::elements::elements_from_cartesian;
use crate::state::Body;
use crate::units;
use serde::{Deserialize, Serialize};

/// How each system's time step is chosen (scenario field `time_step`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub enum TimeStep {
    /// Every system steps with the scenario's `time_step_days`.
    #[default]
    Days,
    /// Each system's step is this fraction of the orbital period of its innermost bound body
    /// (the smallest heliocentric semi-major axis) at the start: `dt = f 2π sqrt(a³ / (M0 + m))`.
    InnerPeriodFraction(f64),
}

impl TimeStep {
    /// Why the rule is out of range, if it is.
    pub fn check(self) -> Option<String> {
        match self {
            TimeStep::InnerPeriodFraction(f) if !(f.is_finite() && f > 0.0 && f <= 1.0) => Some(
                format!("a fraction of the innermost period in (0, 1] (SPOCK uses 0.05), got {f}"),
            ),
            _ => None,
        }
    }

    /// The time step (days) of a system of `bodies` (heliocentric) about a central mass `m0`:
    /// `days` for [`TimeStep::Days`]; `None` when the rule needs a bound orbit and there is none.
    pub fn days_for(self, days: f64, m0: f64, bodies: &[Body]) -> Option<f64> {
        let TimeStep::InnerPeriodFraction(f) = self else {
            return Some(days);
        };
        Some(units::code_to_days(f * innermost_period(m0, bodies)?))
    }

    /// Whether each system may have its own step.
    pub fn per_system(self) -> bool {
        self != TimeStep::Days
    }
}

/// The orbital period (code units) of the innermost bound body of `bodies` (heliocentric, the
/// smallest semi-major axis) about a central mass `m0`: `2π sqrt(a³ / (M0 + m))`; `None` without
/// a bound orbit.
pub fn innermost_period(m0: f64, bodies: &[Body]) -> Option<f64> {
    let (a, mu) = bodies
        .iter()
        .map(|b| (elements_from_cartesian(m0 + b.m, b.pos, b.vel).a, m0 + b.m))
        .filter(|(a, _)| a.is_finite() && *a > 0.0)
        .min_by(|x, y| x.0.total_cmp(&y.0))?;
    Some(2.0 * std::f64::consts::PI * (a * a * a / mu).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_innermost_bound_orbit_sets_the_step() {
        let body = |m: f64, r: f64| Body {
            id: 0,
            m,
            r: 0.0,
            pos: [r, 0.0, 0.0],
            vel: [0.0, ((1.0 + m) / r).sqrt(), 0.0],
            spin: [0.0; 3],
        };
        // Circular orbits at 1 and 0.25 AU (and one unbound body): a twentieth of the inner
        // period, 365.25 / 8 / 20 days to the Gaussian year's precision.
        let mut unbound = body(0.0, 0.1);
        unbound.vel[1] *= 2.0;
        let bodies = [body(1e-3, 1.0), body(0.0, 0.25), unbound];
        let rule = TimeStep::InnerPeriodFraction(0.05);
        let days = rule.days_for(5.0, 1.0, &bodies).unwrap();
        let year = 2.0 * std::f64::consts::PI / units::K_GAUSS;
        assert!((days - 0.05 * year / 8.0).abs() < 1e-12 * days, "{days}");
        assert_eq!(TimeStep::Days.days_for(5.0, 1.0, &bodies), Some(5.0));
        assert_eq!(rule.days_for(5.0, 1.0, &[unbound]), None);
        assert!(TimeStep::InnerPeriodFraction(0.0).check().is_some());
        assert!(rule.check().is_none());
    }
}
