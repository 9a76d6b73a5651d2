//! What the device test files share: the device under test and the rule for a missing one.

use orrery::backend::{self, BackendChoice, DeviceApi};
use std::io::Write;

/// `ORRERY_TEST_DEVICE=N` picks the device under test (default: as `--device` unset).
pub fn device_index() -> Option<usize> {
    std::env::var("ORRERY_TEST_DEVICE").ok().map(|v| {
        v.parse::<usize>()
            .unwrap_or_else(|_| panic!("ORRERY_TEST_DEVICE={v}: expected a device index"))
    })
}

/// The `--backend` value of `api`.
pub fn choice(api: DeviceApi) -> BackendChoice {
    match api {
        DeviceApi::OpenCl => BackendChoice::Opencl,
        DeviceApi::Cuda => BackendChoice::Cuda,
    }
}

/// Whether a missing device of `api` fails the test instead of skipping it: OpenCL with
/// `CI=true` (CI installs PoCL), CUDA with `ORRERY_REQUIRE_CUDA=1` (for machines with a GPU).
fn required(api: DeviceApi) -> bool {
    match api {
        DeviceApi::OpenCl => std::env::var("CI").as_deref() == Ok("true"),
        DeviceApi::Cuda => std::env::var("ORRERY_REQUIRE_CUDA").as_deref() == Ok("1"),
    }
}

/// Some(()) when `api` has a device to test on; otherwise `None` after reporting why `test`
/// cannot run: a failure where the device is required, else a visible `SKIPPED` line written
/// past the harness's capture.
pub fn available(api: DeviceApi, test: &str) -> Option<()> {
    let listed = match backend::list_devices(api) {
        Ok(list) if !list.is_empty() => Ok(()),
        Ok(_) => Err("no devices".to_string()),
        Err(e) => Err(e.to_string()),
    };
    or_skip(api, test, listed)
}

/// `value`, or `None` after reporting why `test` cannot run (as [`available`]).
pub fn or_skip<T, E: std::fmt::Display>(
    api: DeviceApi,
    test: &str,
    value: Result<T, E>,
) -> Option<T> {
    match value {
        Ok(v) => Some(v),
        Err(e) => {
            let title = api.title();
            if required(api) {
                panic!("{test}: a {title} device is required here, but there is none usable: {e}");
            }
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED {test} on {title}: no usable {title} device: {e}"
            );
            None
        }
    }
}
