//! Orrery: a hybrid symplectic N-body integrator for planetary systems (the GENGA design) with
//! CPU, OpenCL and CUDA backends. See `DESIGN.md` in the shared folder and the README.

pub mod error;
pub mod physics;
pub mod state;
pub mod units;

pub use error::{Error, Location, Result};
pub use state::{Bodies, Body};
