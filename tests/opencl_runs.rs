//! Whole runs on the OpenCL backend (PoCL in CI) against the CPU backend: the tests of
//! tests/device/runs.rs on this API. Run with
//! `cargo test --release --features opencl --test opencl_runs`.
#![cfg(feature = "opencl")]

mod common;

/// The device API under test.
const API: orrery::backend::DeviceApi = orrery::backend::DeviceApi::OpenCl;

#[path = "device/runs.rs"]
mod runs;
