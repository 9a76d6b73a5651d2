//! Whole runs on the CUDA backend (skipped visibly without a CUDA device) against the CPU
//! backend: the tests of tests/device/runs.rs on this API. Run with
//! `cargo test --release --features cuda --test cuda_runs`.
#![cfg(feature = "cuda")]

mod common;

/// The device API under test.
const API: orrery::backend::DeviceApi = orrery::backend::DeviceApi::Cuda;

#[path = "device/runs.rs"]
mod runs;
