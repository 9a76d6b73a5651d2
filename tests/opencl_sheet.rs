//! The sheet engine on the OpenCL backend (PoCL in CI) against the CPU reference, pass by pass and in
//! whole runs: the tests of tests/device/sheet.rs on this API. Run with
//! `cargo test --release --features opencl --test opencl_sheet`.
#![cfg(feature = "opencl")]

mod common;

/// The device API under test.
const API: orrery::backend::DeviceApi = orrery::backend::DeviceApi::OpenCl;

#[path = "device/sheet.rs"]
mod sheet;
