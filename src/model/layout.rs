//! How the bodies of a run are arranged: the systems, their parameters and the step parameters.

use crate::physics::changeover::Changeover;
use crate::physics::forces::Forces;
use crate::physics::recursion::Recursion;

/// Parameters of the hybrid step that every pass may need (code units).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepParams {
    /// Central mass M0 (G = 1, so also mu of the Kepler drift).
    pub m0: f64,
    /// Full time step tau.
    pub tau: f64,
    /// Hill-radius factor of the critical radius.
    pub n1: f64,
    /// Velocity factor of the critical radius.
    pub n2: f64,
    /// Bodies closer to the centre than this are ejected (case -2).
    pub inner_truncation: f64,
    /// Bodies farther from the centre than this are ejected (case -3).
    pub outer_truncation: f64,
    /// The forces beyond point-mass gravity (GR, J2, radiation), the same for every system.
    pub forces: Forces,
    /// Recursive symplectic sub-steps of the close-encounter groups (off: Bulirsch-Stoer of
    /// whole groups).
    pub recursion: Recursion,
    /// The smallest critical radius of a massive body (AU; 0: none): a run that stops at a
    /// minimum distance has it there, so that the encounter search sees every pair that
    /// comes that close.
    pub rcrit_floor: f64,
}

/// Physical parameters of one system of a multi-simulation run (otherwise [`StepParams`] holds
/// them for the single system).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SystemSpec {
    pub m0: f64,
    pub n1: f64,
    pub n2: f64,
    pub inner_truncation: f64,
    pub outer_truncation: f64,
}

impl From<&SystemSpec> for crate::physics::recursion::LevelSystem {
    fn from(s: &SystemSpec) -> Self {
        crate::physics::recursion::LevelSystem {
            m0: s.m0,
            n1: s.n1,
            n2: s.n2,
        }
    }
}

impl From<&StepParams> for SystemSpec {
    fn from(p: &StepParams) -> Self {
        SystemSpec {
            m0: p.m0,
            n1: p.n1,
            n2: p.n2,
            inner_truncation: p.inner_truncation,
            outer_truncation: p.outer_truncation,
        }
    }
}

/// One independent system in the body slots. Systems are stored back to back in blocks of
/// [`Layout::block`] slots; system s uses the slots `s * block .. s * block + len`, the first
/// `massive` of them massive bodies and the rest test particles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct System {
    pub len: usize,
    pub massive: usize,
    /// Own parameters (multi-simulation mode); `None` uses the [`StepParams`].
    pub spec: Option<SystemSpec>,
    /// False once the system was stopped (too few bodies left).
    pub active: bool,
    /// The central body's spin angular momentum (Msun AU² per code time unit), evolved by the
    /// tides and rotational deformation ([`crate::physics::tides`]); 0 without them.
    pub central_spin: [f64; 3],
}

/// How bodies are arranged in the backend's arrays.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Layout {
    /// Slots per system.
    pub block: usize,
    pub systems: Vec<System>,
    /// GENGA's semi-active test particles (`Use Test Particles = 2`): they pull on the massive
    /// bodies but not on each other. Otherwise test particles pull on nobody.
    pub semi_active: bool,
    /// The changeover function of every pair of every system.
    pub changeover: Changeover,
}

impl Layout {
    /// One system of `n` bodies, the first `massive` of them massive, parameters from the step.
    pub fn single(n: usize, massive: usize) -> Self {
        Layout {
            block: n,
            systems: vec![System {
                len: n,
                massive,
                spec: None,
                active: true,
                central_spin: [0.0; 3],
            }],
            semi_active: false,
            changeover: Changeover::Genga,
        }
    }

    /// The bodies of system `s` that pull on the others and make up its momentum: the massive
    /// ones, or all with semi-active test particles.
    pub fn pulling(&self, s: usize) -> usize {
        let sys = &self.systems[s];
        if self.semi_active {
            sys.len
        } else {
            sys.massive
        }
    }

    /// Slot range of system `s`.
    pub fn range(&self, s: usize) -> std::ops::Range<usize> {
        let start = s * self.block;
        start..start + self.systems[s].len
    }
}
