//! The sheet engine on the CUDA backend against the CPU reference, pass by pass and in
//! whole runs: the tests of tests/device/sheet.rs on this API. Run with
//! `cargo test --release --features cuda --test cuda_sheet`.
#![cfg(feature = "cuda")]

mod common;

/// The device API under test.
const API: orrery::backend::DeviceApi = orrery::backend::DeviceApi::Cuda;

#[path = "device/sheet.rs"]
mod sheet;
