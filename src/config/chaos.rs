//! Chaos indicators of a run's systems (scenario field `chaos`): MEGNO and the maximal Lyapunov
//! exponent from first-order variational equations stepped beside each system on the
//! Wisdom-Holman map ([`crate::physics::wisdom_holman::Variations`]), and the stop condition on
//! MEGNO (REBOUND's issue #274: end a system once it is clearly chaotic).

use serde::{Deserialize, Serialize};

/// Scenario field `chaos`: `(megno: true, seed: 0)`, and optionally
/// `stop_above: Some(5.0), stop_after_years: 1e3`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ChaosSettings {
    /// Step first-order variational equations beside every system and keep MEGNO (Cincotta &
    /// Simó 2000) and the Lyapunov exponent, with REBOUND's definitions.
    #[serde(default)]
    pub megno: bool,
    /// The tangent vectors' seed: system `k` of an ensemble (its row of `summary.csv`, in
    /// whichever shard) draws its initial tangent vector with `seed + k`, so that a system's
    /// MEGNO does not depend on its shard, pack or neighbours.
    #[serde(default)]
    pub seed: u64,
    /// Stop a system whose MEGNO exceeds this value (e.g. 5; regular orbits tend to 2), with the
    /// reason `chaotic`, once `stop_after_years` have passed.
    #[serde(default)]
    pub stop_above: Option<f64>,
    /// The time (years) before which `stop_above` does not stop a system (MEGNO's early values
    /// swing before they settle).
    #[serde(default)]
    pub stop_after_years: f64,
}

impl ChaosSettings {
    /// The initial tangent vector's seed of system `k`.
    pub fn seed_of(&self, k: usize) -> u64 {
        self.seed.wrapping_add(k as u64)
    }

    /// The settings as a fingerprint fragment for checkpoints (empty when off, so that
    /// checkpoints of runs without them keep their fingerprint).
    pub fn fingerprint(&self) -> String {
        if !self.megno {
            return String::new();
        }
        let stop = self.stop_above.map_or(String::new(), |m| {
            format!(",stop_above:{m:e},after_yr:{:e}", self.stop_after_years)
        });
        format!(" chaos=megno,seed:{}{stop}", self.seed)
    }

    /// The first setting that is out of range or cannot run with the integrator (`wh`: the
    /// Wisdom-Holman map): the scenario field and what is expected.
    pub fn check(&self, wh: bool) -> Option<(&'static str, String)> {
        let field = match self.stop_above {
            Some(_) => "chaos.stop_above",
            None => "chaos.stop_after_years",
        };
        if !self.megno {
            let stops = self.stop_above.is_some() || self.stop_after_years != 0.0;
            return stops.then(|| {
                (
                    field,
                    "a stop on MEGNO without MEGNO; expected `megno: true` beside it".to_string(),
                )
            });
        }
        if self.stop_above.is_none() && self.stop_after_years != 0.0 {
            return Some((
                field,
                "a time for the stop on MEGNO without its threshold; expected `stop_above: \
                 Some(x)` beside it"
                    .to_string(),
            ));
        }
        if !wh {
            return Some((
                "chaos.megno",
                "the variational equations step beside the Wisdom-Holman map only; expected \
                 `integrator: WisdomHolman(correctors: N)`, or no `chaos`"
                    .to_string(),
            ));
        }
        if let Some(m) = self.stop_above.filter(|m| !(m.is_finite() && *m > 0.0)) {
            return Some((
                "chaos.stop_above",
                format!("expected a positive finite MEGNO, got {m}"),
            ));
        }
        let t = self.stop_after_years;
        if !(t.is_finite() && t >= 0.0) {
            return Some((
                "chaos.stop_after_years",
                format!("expected a finite time in years, 0 or more, got {t}"),
            ));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn megno_needs_the_wisdom_holman_map() {
        let on = ChaosSettings {
            megno: true,
            ..Default::default()
        };
        assert_eq!(on.check(true), None);
        assert_eq!(on.check(false).unwrap().0, "chaos.megno");
        let stop_only = ChaosSettings {
            stop_above: Some(5.0),
            ..Default::default()
        };
        assert_eq!(stop_only.check(false).unwrap().0, "chaos.stop_above");
        let time_only = ChaosSettings {
            stop_after_years: 10.0,
            ..on
        };
        assert_eq!(time_only.check(true).unwrap().0, "chaos.stop_after_years");
        let bad = ChaosSettings {
            stop_above: Some(-1.0),
            ..on
        };
        assert_eq!(bad.check(true).unwrap().0, "chaos.stop_above");
        assert_eq!(ChaosSettings::default().fingerprint(), "");
        assert_ne!(
            on.fingerprint(),
            ChaosSettings { seed: 1, ..on }.fingerprint()
        );
    }
}
