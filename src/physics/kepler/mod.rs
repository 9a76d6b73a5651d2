//! Kepler drift of one body around a fixed central mass with Gauss's f and g functions
//! (GENGA paper section 3.2.1, the FG kernel).
//!
//! The new state is `r = f r0 + g v0`, `v = fdot r0 + gdot v0`. Bound orbits with e < 0.99 solve
//! Kepler's equation in differential form for the change of eccentric anomaly (Danby 1988,
//! *Fundamentals of Celestial Mechanics*, section 6.9; Danby's quartically convergent iteration
//! and his 0.85 e starting value). Unbound, near-parabolic and radial orbits, and any elliptic case
//! that does not converge, fall back on universal variables with Stumpff functions (Danby 1988
//! section 6.9, as in Swift's `drift_kepu` and Mercury's `drift_kepu`), solved with a bracketed,
//! safeguarded version of the same iteration. Everything is plain IEEE double precision (`sin`,
//! `cos`, `sqrt`, division), allocation-free, and the core [`drift_scalar`] works on plain values
//! so callers can run it over structure-of-arrays data.
//!
//! In democratic heliocentric coordinates `mu` is the central mass M0 alone (G = 1); for a
//! two-body orbit in heliocentric coordinates it is M0 + m.
//!
//! `scalar.rs` holds the one-body drift (f and g, universal variables), `batch.rs` the drift of
//! many bodies in lane groups, `sincos.rs` the vectorisable sine and cosine of the lane path.

mod batch;
mod scalar;
mod sincos;
mod tangent;
mod tangent_lanes;
#[cfg(test)]
mod tests;

pub use batch::{drift_batch, drift_batch_per_body, drift_batch_per_body_into};
pub use scalar::{drift_scalar, kepler_drift};
pub use tangent::drift_tangent;
pub use tangent_lanes::{drift_tangent_batch, drift_with_tangent, Tangent, TangentOut};

// The lane kernels, for the tests of the device math against them.
#[cfg(test)]
pub(crate) use batch::drift_group;
/// The in-house sine and cosine (the forces' thermal functions use them too).
pub(crate) use sincos::sin_cos;
#[cfg(test)]
pub(crate) use sincos::sin_cos_lanes;

use std::fmt;

/// Why a Kepler drift failed. The input state is never modified on failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeplerError {
    /// `mu <= 0`, the body sits on the central mass (r = 0), or an input is not finite.
    InvalidInput,
    /// Neither the elliptic solver nor the universal-variable fallback converged.
    NoConvergence,
    /// The solvers converged but the new state is not finite (e.g. radial infall that hits r = 0).
    NonFinite,
}

impl fmt::Display for KeplerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            KeplerError::InvalidInput => "invalid input (mu <= 0, r = 0 or a non-finite value)",
            KeplerError::NoConvergence => "Kepler's equation did not converge",
            KeplerError::NonFinite => "the drifted state is not finite",
        };
        f.write_str(s)
    }
}

impl std::error::Error for KeplerError {}
