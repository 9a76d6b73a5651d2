//! Orrery: a hybrid symplectic N-body integrator for planetary systems (the GENGA design) with
//! CPU, OpenCL and CUDA backends. See `DESIGN.md` in the shared folder and the README.

// Index loops over parallel structure-of-arrays slices are the clearest form of the numeric kernels.
#![allow(clippy::needless_range_loop)]

pub mod backend;
pub mod config;
pub mod error;
pub mod hybrid;
pub mod io;
pub mod model;
pub mod physics;
pub mod rng;
pub mod sheet;
pub mod signals;
pub mod state;
pub mod tools;
pub mod units;

pub use error::{Error, Location, Result};
pub use state::{Bodies, Body};
