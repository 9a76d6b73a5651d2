//! What the OpenCL test files share: the device under test and the rule for a missing one.

use std::io::Write;

/// `ORRERY_TEST_DEVICE=N` picks the device under test (default: as `--device` unset).
pub fn device_index() -> Option<usize> {
    std::env::var("ORRERY_TEST_DEVICE").ok().map(|v| {
        v.parse::<usize>()
            .unwrap_or_else(|_| panic!("ORRERY_TEST_DEVICE={v}: expected a device index"))
    })
}

/// `value`, or `None` after reporting why `test` cannot run: a failure with `CI=true` (CI
/// installs PoCL), otherwise a visible `SKIPPED` line written past the harness's capture.
pub fn or_skip<T, E: std::fmt::Display>(test: &str, value: Result<T, E>) -> Option<T> {
    match value {
        Ok(v) => Some(v),
        Err(e) => {
            if std::env::var("CI").as_deref() == Ok("true") {
                panic!("{test}: CI installs PoCL, but there is no usable OpenCL device: {e}");
            }
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED {test}: no usable OpenCL device: {e}"
            );
            None
        }
    }
}
