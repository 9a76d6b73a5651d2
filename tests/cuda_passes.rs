//! Per-pass parity of the CUDA backend (skipped visibly without a CUDA device) against the CPU
//! reference: the tests of tests/device/passes.rs and tests/device/wisdom_holman.rs on this API. Run with
//! `cargo test --release --features cuda --test cuda_passes`.
#![cfg(feature = "cuda")]

mod common;

/// The device API under test.
const API: orrery::backend::DeviceApi = orrery::backend::DeviceApi::Cuda;

#[path = "device/passes.rs"]
mod passes;

#[path = "device/wisdom_holman.rs"]
mod wisdom_holman;
