//! The integrator of a hybrid-engine run: GENGA's hybrid step (the default), or the
//! Wisdom-Holman map in Jacobi coordinates for systems meant to have no close encounters
//! (stability ensembles; [`crate::physics::wisdom_holman`]).

use crate::config::{Config, Mode};
use crate::physics::wisdom_holman::correctors;
use serde::{Deserialize, Serialize};

/// Which integrator steps the bodies (scenario field `integrator`, GENGA-style keys
/// `Integrator` and `WH correctors` in `param.dat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Integrator {
    /// GENGA's hybrid symplectic step with close-encounter handling (paper section 2.2).
    #[default]
    Hybrid,
    /// The Wisdom-Holman map in Jacobi coordinates (Wisdom & Holman 1991; WHFast, Rein &
    /// Tamayo 2015) with symplectic correctors of order `correctors` (0 for none; 3, 5, 7, 11
    /// or 17, Wisdom, Holman & Touma 1996). No close encounters, mergers or removals: a body
    /// that leaves the truncation radii stops its system, as do the encounters and collisions
    /// of the run's `stop` settings.
    WisdomHolman {
        /// Order of the symplectic corrector: 0, 3, 5, 7, 11 or 17.
        #[serde(default)]
        correctors: u8,
    },
}

impl Integrator {
    /// The corrector order of the Wisdom-Holman map (`None` for the hybrid step).
    pub fn wisdom_holman(self) -> Option<u8> {
        match self {
            Integrator::Hybrid => None,
            Integrator::WisdomHolman { correctors } => Some(correctors),
        }
    }

    /// The integrator as the run's fingerprint names it (empty for the hybrid step, so that
    /// checkpoints from before the choice keep theirs).
    pub fn fingerprint(self) -> String {
        match self {
            Integrator::Hybrid => String::new(),
            Integrator::WisdomHolman { correctors } => format!(" integrator=wh{correctors}"),
        }
    }
}

/// Why `cfg`'s integrator cannot run its other settings: the field (scenario field or GENGA
/// key, by the file `cfg` came from) and what is expected. `None` when it can.
pub fn check(cfg: &Config) -> Option<(&'static str, String)> {
    if let Some(refused) = cfg.chaos.check(cfg.integrator.wisdom_holman().is_some()) {
        return Some(refused);
    }
    if let Some(refused) = cfg.samples.check(cfg.chaos.megno) {
        return Some(refused);
    }
    let n = cfg.integrator.wisdom_holman()?;
    let genga = cfg.names_genga_keys();
    let key = |scenario: &'static str, param: &'static str| if genga { param } else { scenario };
    let wh = "the Wisdom-Holman integrator";
    if correctors::coefficients(n).is_none() {
        return Some((
            key("integrator", "WH correctors"),
            format!("symplectic corrector order {n} (expected one of 0, 3, 5, 7, 11, 17)"),
        ));
    }
    if cfg.order != 2 {
        return Some((
            key("order", "Order of integrator"),
            format!(
                "{wh} is the second-order map (its accuracy comes from `correctors`), got order \
                 {}; expected 2",
                cfg.order
            ),
        ));
    }
    if cfg.collisions.time_shift.is_some() {
        return Some((
            key("collisions.time_shift", "Collision Time Shift"),
            format!("{wh} has no mergers to backtrace; expected the hybrid integrator"),
        ));
    }
    if cfg.mode == Mode::TestParticles || cfg.semi_active {
        return Some((
            key("mode", "Use Test Particles"),
            format!("{wh} steps massive bodies only; expected mode Main or Multi"),
        ));
    }
    let f = &cfg.forces;
    let velocity_dependent = [
        (
            f.poynting_robertson,
            "forces.poynting_robertson",
            "Use Poynting-Robertson",
        ),
        (f.yarkovsky, "forces.yarkovsky", "Use Yarkovsky"),
        (f.gas.on, "forces.gas", "Use gas disk"),
        (f.tides.is_on(), "forces.tides", "Use Tides"),
    ];
    if let Some((_, scenario, param)) = velocity_dependent.into_iter().find(|v| v.0) {
        return Some((
            key(scenario, param),
            format!(
                "{wh} takes the forces of the positions only (GR's potential and J2) in its \
                 kick; expected this force off, or `integrator: Hybrid`"
            ),
        ));
    }
    if cfg.recursion != Default::default() {
        return Some((
            key("recursion", "Symplectic recursion levels"),
            format!("{wh} has no close-encounter groups to recurse into; expected one level"),
        ));
    }
    None
}
