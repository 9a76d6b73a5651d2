//! Per-pass parity of the OpenCL backend (PoCL in CI) against the CPU reference: the tests of
//! tests/device/passes.rs on this API. Run with
//! `cargo test --release --features opencl --test opencl_passes`.
#![cfg(feature = "opencl")]

mod common;

/// The device API under test.
const API: orrery::backend::DeviceApi = orrery::backend::DeviceApi::OpenCl;

#[path = "device/passes.rs"]
mod passes;
