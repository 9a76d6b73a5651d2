//! Per-pass parity of the OpenCL backend (PoCL in CI) against the CPU reference: the tests of
//! tests/device/passes.rs and tests/device/wisdom_holman.rs on this API. Run with
//! `cargo test --release --features opencl --test opencl_passes`.
#![cfg(feature = "opencl")]

mod common;

/// The device API under test.
const API: orrery::backend::DeviceApi = orrery::backend::DeviceApi::OpenCl;

#[path = "device/passes.rs"]
mod passes;

#[path = "device/wisdom_holman.rs"]
mod wisdom_holman;
