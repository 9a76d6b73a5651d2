//! Device descriptions and the choice `--backend auto` makes among them. Plain data, compiled in
//! every build, so the selection rules are tested without any OpenCL runtime; the OpenCL
//! discovery (`backend::opencl::device`, feature `opencl`) fills these records.

use crate::error::{Error, Location};
use std::fmt;

/// The device APIs Orrery can run its kernels through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceApi {
    OpenCl,
    Cuda,
}

impl DeviceApi {
    /// The backend name (`--backend`).
    pub fn name(self) -> &'static str {
        match self {
            DeviceApi::OpenCl => "opencl",
            DeviceApi::Cuda => "cuda",
        }
    }

    /// The API's own name, for messages.
    pub fn title(self) -> &'static str {
        match self {
            DeviceApi::OpenCl => "OpenCL",
            DeviceApi::Cuda => "CUDA",
        }
    }
}

/// What a build without `api` says when asked for it (exit code 2).
pub fn not_compiled(api: DeviceApi) -> Error {
    Error::input(
        Location::default().field("backend"),
        match api {
            DeviceApi::OpenCl => format!("{NO_OPENCL}; or run with `--backend cpu`"),
            DeviceApi::Cuda => format!("{NO_CUDA}; or run with `--backend cpu`"),
        },
    )
}

/// What a build without the `opencl` feature says about OpenCL.
pub const NO_OPENCL: &str = "OpenCL is not compiled into this build of orrery: rebuild with \
     `cargo build --release --features opencl` (needs an OpenCL runtime, e.g. Debian's \
     ocl-icd-opencl-dev and pocl-opencl-icd)";

/// What a build without the `cuda` feature says about CUDA.
pub const NO_CUDA: &str = "CUDA is not compiled into this build of orrery: rebuild with \
     `cargo build --release --features cuda` (needs the NVIDIA driver's libcuda and nvcc or \
     clang 19 to build the kernels; see docs/guide/gpus.md)";

/// What kind of device an OpenCL device is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceKind {
    Gpu,
    Cpu,
    Accelerator,
    Other,
}

impl fmt::Display for DeviceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DeviceKind::Gpu => "GPU",
            DeviceKind::Cpu => "CPU",
            DeviceKind::Accelerator => "accelerator",
            DeviceKind::Other => "other",
        })
    }
}

/// One OpenCL device as `orrery devices` lists it. `index` is the number `--device N` takes:
/// devices counted across all platforms, in platform order and then device order.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceSummary {
    pub index: usize,
    pub platform: String,
    pub platform_version: String,
    pub name: String,
    pub vendor: String,
    /// The device's OpenCL version string.
    pub version: String,
    pub kind: DeviceKind,
    /// Double precision (`cl_khr_fp64`): required by every pass of the hybrid engine.
    pub fp64: bool,
    /// Global memory in bytes.
    pub global_mem: u64,
    /// Largest single buffer in bytes (`CL_DEVICE_MAX_MEM_ALLOC_SIZE`).
    pub max_alloc: u64,
    /// Local (work-group shared) memory in bytes.
    pub local_mem: u64,
    pub compute_units: u32,
    pub max_work_group: usize,
    /// A CUDA device's compute capability (major, minor); `None` for OpenCL.
    pub compute_capability: Option<(u32, u32)>,
}

/// The oldest CUDA compute capability the embedded PTX targets (sm_70).
pub const MIN_COMPUTE_CAPABILITY: (u32, u32) = (7, 0);

impl DeviceSummary {
    /// Whether Orrery's kernels can run on it: double precision, and for CUDA a compute
    /// capability of at least [`MIN_COMPUTE_CAPABILITY`].
    pub fn usable(&self) -> bool {
        self.fp64
            && self
                .compute_capability
                .is_none_or(|cc| cc >= MIN_COMPUTE_CAPABILITY)
    }

    /// One line per property, indented, for `orrery devices`.
    pub fn describe(&self) -> String {
        let precision = match (self.fp64, self.compute_capability) {
            (_, Some(cc)) if cc < MIN_COMPUTE_CAPABILITY => {
                "yes, but refused: compute capability below 7.0 (the PTX targets sm_70, sm_80 \
                 and sm_90)"
            }
            (true, Some(_)) => "yes",
            (true, None) => "yes (cl_khr_fp64)",
            (false, _) => "NO (refused: no double precision)",
        };
        format!(
            "[{}] {}\n    platform: {} ({}), vendor: {}, {}\n    type {}, fp64 {}, global memory {}, largest buffer {}, local memory {}, {} compute units, max work-group {}",
            self.index,
            self.name,
            self.platform,
            self.platform_version,
            self.vendor,
            self.version,
            self.kind,
            precision,
            bytes(self.global_mem),
            bytes(self.max_alloc),
            bytes(self.local_mem),
            self.compute_units,
            self.max_work_group
        )
    }
}

/// Bytes in the largest binary unit that keeps the number at least 1.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// The device `--backend auto` runs on: the first usable GPU ([`DeviceSummary::usable`]), or
/// `None` for the CPU backend. An OpenCL CPU device (PoCL, Intel's CPU runtime) is never chosen: the CPU backend
/// is faster on the same cores. An accelerator is not chosen either (pick it with `--device N`).
pub fn auto_choice(devices: &[DeviceSummary]) -> Option<usize> {
    devices
        .iter()
        .find(|d| d.kind == DeviceKind::Gpu && d.usable())
        .map(|d| d.index)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn device(index: usize, kind: DeviceKind, fp64: bool) -> DeviceSummary {
        DeviceSummary {
            index,
            platform: "P".into(),
            platform_version: "OpenCL 3.0".into(),
            name: format!("dev{index}"),
            vendor: "V".into(),
            version: "OpenCL 3.0".into(),
            kind,
            fp64,
            global_mem: 8 << 30,
            max_alloc: 2 << 30,
            local_mem: 64 << 10,
            compute_units: 8,
            max_work_group: 256,
            compute_capability: None,
        }
    }

    #[test]
    fn auto_never_picks_an_opencl_cpu_device() {
        // PoCL alone, as in CI: the CPU backend.
        assert_eq!(auto_choice(&[device(0, DeviceKind::Cpu, true)]), None);
        assert_eq!(auto_choice(&[]), None);
        assert_eq!(
            auto_choice(&[
                device(0, DeviceKind::Cpu, true),
                device(1, DeviceKind::Accelerator, true)
            ]),
            None
        );
    }

    #[test]
    fn auto_picks_the_first_gpu_with_double_precision() {
        let list = [
            device(0, DeviceKind::Cpu, true),
            device(1, DeviceKind::Gpu, false),
            device(2, DeviceKind::Gpu, true),
            device(3, DeviceKind::Gpu, true),
        ];
        assert_eq!(auto_choice(&list), Some(2));
        // A GPU without fp64 is never chosen.
        assert_eq!(auto_choice(&list[..2]), None);
    }

    #[test]
    fn auto_skips_cuda_devices_older_than_the_ptx_targets() {
        let cuda = |index, cc| DeviceSummary {
            compute_capability: Some(cc),
            version: format!("compute capability {}.{}", cc.0, cc.1),
            ..device(index, DeviceKind::Gpu, true)
        };
        let list = [cuda(0, (6, 1)), cuda(1, (8, 0))];
        assert!(!list[0].usable() && list[1].usable());
        assert_eq!(auto_choice(&list), Some(1));
        assert_eq!(auto_choice(&list[..1]), None);
        assert!(list[0]
            .describe()
            .contains("refused: compute capability below 7.0"));
        assert!(cuda(2, (9, 0)).describe().contains("fp64 yes,"));
    }

    #[test]
    fn description_names_fp64_memory_and_compute_units() {
        let d = device(1, DeviceKind::Gpu, false).describe();
        assert!(d.starts_with("[1] dev1"), "{d}");
        assert!(d.contains("type GPU"), "{d}");
        assert!(d.contains("fp64 NO (refused: no double precision)"), "{d}");
        assert!(d.contains("global memory 8.0 GiB"), "{d}");
        assert!(d.contains("8 compute units"), "{d}");
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(64 << 10), "64.0 KiB");
    }
}
