//! Orrery: a hybrid symplectic N-body integrator for planetary systems (the GENGA design).
//!
//! Backends: the CPU backend (rayon) is always built and is the reference. The OpenCL backend
//! (cargo feature `opencl`) keeps the state on the device and runs every pass there, with a
//! per-pass CPU fallback (`--cpu-passes`); mergers and ejections reuse the CPU's code on a host
//! copy of the state. There is no CUDA backend yet (`--backend cuda` is refused). A second engine,
//! the shearing sheet ([`sheet`]), runs on the CPU. See the README.

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
pub mod simd;
pub mod state;
pub mod tools;
pub mod units;

pub use error::{Error, Location, Result};
pub use state::{Bodies, Body};
