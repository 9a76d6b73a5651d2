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

/// With the CUDA build's PTX embedded (feature `cuda`): every kernel built on `gpu` takes, as the
/// CUDA launch would pass its arguments (work-group memory left out), exactly the parameters its
/// PTX entry declares, in order and type, for every target; so the host's argument lists, run
/// here on OpenCL, are checked against the CUDA kernels without a GPU. `expected` must be among
/// the kernels built.
#[cfg(feature = "cuda")]
pub fn params_match_the_ptx(gpu: &orrery::backend::gpu::Gpu, expected: &[&str]) {
    use orrery::backend::cuda::ptx::{MODULES, TARGETS};
    use orrery::backend::gpu::ParamKind;
    let built = gpu.kernel_params();
    for name in expected {
        assert!(
            built.contains_key(*name),
            "kernel {name} was not built by this test"
        );
    }
    for (_, target) in TARGETS {
        for (name, host) in &built {
            let open = format!(".entry {name}(");
            let entry = MODULES
                .iter()
                .filter(|(_, t, _)| *t == target)
                .find_map(|(_, _, text)| text.split_once(open.as_str()).map(|(_, rest)| rest))
                .unwrap_or_else(|| panic!("no PTX entry {name} for {target}"));
            let list = &entry[..entry.find(')').expect("PTX parameter list ends")];
            let ptx: Vec<ParamKind> = list
                .lines()
                .filter_map(|l| l.trim().strip_prefix(".param "))
                .map(|l| match l.split_whitespace().next() {
                    Some(".u32") | Some(".s32") => ParamKind::U32,
                    Some(".u64") | Some(".s64") => ParamKind::U64,
                    Some(".f64") => ParamKind::F64,
                    other => panic!("{name}: PTX parameter type {other:?}"),
                })
                .collect();
            assert_eq!(
                host, &ptx,
                "{target} {name}: host arguments against the PTX entry"
            );
        }
    }
    let _ = writeln!(
        std::io::stderr(),
        "{} kernels' host arguments match their PTX entries for {} targets",
        built.len(),
        TARGETS.len()
    );
}

#[cfg(not(feature = "cuda"))]
pub fn params_match_the_ptx(_gpu: &orrery::backend::gpu::Gpu, _expected: &[&str]) {}
