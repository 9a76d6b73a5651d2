//! Orrery: a hybrid symplectic N-body integrator for planetary systems (the GENGA design).
//!
//! Backends: the CPU backend (rayon) is always built and is the reference. The device backends,
//! OpenCL (cargo feature `opencl`) and CUDA (feature `cuda`), share one host side
//! ([`backend::gpu`]) and one kernel source (`kernels/`): they keep the state on the device and
//! run every pass there, with a per-pass CPU fallback (`--cpu-passes`); mergers into a group's
//! collision reuse the CPU's code on a host copy of the state. A second engine, the shearing
//! sheet ([`sheet`]), runs on the same three backends. The user guide is docs/guide/ in the repository.

// Index loops over parallel structure-of-arrays slices are the clearest form of the numeric kernels.
#![allow(clippy::needless_range_loop)]

pub mod backend;
pub mod cadence;
pub mod config;
pub mod error;
pub mod hybrid;
pub mod io;
pub mod model;
pub mod observe;
pub mod physics;
pub mod rng;
pub mod run;
pub mod sheet;
pub mod signals;
pub mod simd;
pub mod state;
pub mod tools;
pub mod units;

pub use error::{Error, Location, Result};
pub use state::{Bodies, Body};
