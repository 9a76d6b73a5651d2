//! Sampled time series of every system (scenario field `samples`): at a fixed cadence, each
//! system's orbital elements, MEGNO, closest pair and energy error, kept for the whole run and
//! written as one NumPy `.npz` file shaped `[system, sample, body]`
//! ([`crate::io::samples`]), as SPOCK samples its integrations (Tamayo et al. 2020).

use crate::state::Body;
use serde::{Deserialize, Serialize};

/// Scenario field `samples`: `(every: Years(10.0), what: [elements, megno])`; off when `what`
/// is empty (the default).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct SampleSettings {
    /// How often each system is sampled (the first sample is the start).
    #[serde(default)]
    pub every: Every,
    /// What each sample holds.
    #[serde(default)]
    pub what: Vec<Sampled>,
}

/// How often a system is sampled: every so many years, orbits of its innermost body (its
/// period at the start), or steps; in steps of the system's own time step, rounded to the
/// nearest (at least one), the sample's time recorded as it is.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Every {
    /// Every `x` years.
    Years(f64),
    /// Every `x` periods of the system's innermost orbit at the start (SPOCK: 10^4 orbits in 80
    /// samples, `Orbits(125.0)`).
    Orbits(f64),
    /// Every `n` steps.
    Steps(u64),
}

impl Default for Every {
    fn default() -> Self {
        Every::Steps(0)
    }
}

/// What a sample holds. Arrays of the `.npz` file in brackets, shaped `[system, sample, body]`
/// for the bodies' and `[system, sample]` for the system's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sampled {
    /// Heliocentric elements (`a`, `e`, `inc`, `node`, `peri`, `pomega` (longitude of
    /// pericentre), `mean_anomaly`, `mean_longitude`, `period`; angles in radians, the period in
    /// years), and each body's `id`.
    Elements,
    /// Jacobi elements (`jacobi_a`, ... as `elements`, each body about the centre of mass of the
    /// bodies inside it; REBOUND's and WHFast's coordinates), and `id`.
    JacobiElements,
    /// The system's MEGNO and Lyapunov exponent per year (`megno`, `lyapunov`; needs `chaos:
    /// (megno: true)`).
    Megno,
    /// The smallest distance between two bodies other than the central one at the sample
    /// (`min_distance`, AU), and that distance in their mutual Hill radii (`min_distance_hill`).
    MinDistance,
    /// The relative energy error since the start (`energy_error`).
    Energy,
}

impl SampleSettings {
    /// Whether the run samples at all.
    pub fn on(&self) -> bool {
        !self.what.is_empty()
    }

    /// The settings as a fingerprint fragment for checkpoints (empty when off): a resume keeps
    /// the series it started.
    pub fn fingerprint(&self) -> String {
        if !self.on() {
            return String::new();
        }
        format!(" samples={:?}:{:?}", self.every, self.what).replace(' ', "")
    }

    /// Whether `what` asks for `k`.
    pub fn has(&self, k: Sampled) -> bool {
        self.what.contains(&k)
    }

    /// Why the settings are out of range, if they are: the field and the expectation.
    pub fn check(&self, megno: bool) -> Option<(&'static str, String)> {
        if !self.on() {
            return None;
        }
        let bad = match self.every {
            Every::Years(x) | Every::Orbits(x) => !(x.is_finite() && x > 0.0),
            Every::Steps(n) => n == 0,
        };
        if bad {
            return Some((
                "samples.every",
                format!(
                    "expected Years(x) or Orbits(x) with x > 0, or Steps(n) with n >= 1, got {:?}",
                    self.every
                ),
            ));
        }
        let mut seen = std::collections::HashSet::new();
        if let Some(k) = self.what.iter().find(|k| !seen.insert(**k)) {
            return Some(("samples.what", format!("{k:?} twice; expected each once")));
        }
        if self.has(Sampled::Megno) && !megno {
            return Some((
                "samples.what",
                "`megno` without MEGNO; expected `chaos: (megno: true)` beside it".into(),
            ));
        }
        None
    }

    /// The steps between two samples of a system stepping `dt_days` whose bodies (heliocentric,
    /// about `m0`) are `bodies` at the start; `None` for `Orbits` without a bound orbit.
    pub fn interval_steps(&self, dt_days: f64, m0: f64, bodies: &[Body]) -> Option<u64> {
        let days = match self.every {
            Every::Steps(n) => return Some(n.max(1)),
            Every::Years(x) => x * crate::units::DAYS_PER_YEAR,
            Every::Orbits(x) => {
                let period = super::time_step::innermost_period(m0, bodies)?;
                x * crate::units::code_to_days(period)
            }
        };
        Some(((days / dt_days).round() as u64).max(1))
    }
}
