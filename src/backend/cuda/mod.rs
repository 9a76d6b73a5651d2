//! The CUDA adapter of the device backends (cargo feature `cuda`, crate `cust`): device
//! discovery and choice (this file), the PTX modules that `build.rs` compiled from `cuda/*.cu`
//! and embedded ([`ptx`]), and the context, buffers and launches of
//! [`crate::backend::device_api`] ([`context`], [`memory`]). No driver, no device, a device older
//! than the oldest PTX target or a module the driver refuses: a configuration error (exit code
//! 2) that says what to do; nothing here panics.

pub mod context;
pub mod memory;
pub mod ptx;

use crate::backend::device_api::config_error;
use crate::backend::select::{DeviceKind, DeviceSummary, MIN_COMPUTE_CAPABILITY};
use crate::error::{Error, Result};
use cust::context::{Context, CurrentContext};
use cust::device::{Device, DeviceAttribute};
use cust::sys::CUresult;

/// A CUDA context, destroyed when the last module, buffer or kernel using it is gone.
pub struct OwnedContext {
    context: Context,
}

impl OwnedContext {
    /// Make the context current on the calling thread (the driver keeps one per thread; a
    /// backend may be used from another thread than the one that opened it).
    pub(crate) fn make_current(&self) -> Result<()> {
        CurrentContext::set_current(&self.context)
            .map_err(|e| cuda_error("making the context current", e))
    }
}

/// What to do when CUDA has no usable device.
pub(crate) const INSTALL_HINT: &str = "a CUDA build needs the NVIDIA driver (libcuda.so.1 and \
     its kernel module) and an NVIDIA GPU of compute capability 7.0 or newer; check with \
     `nvidia-smi`, pick an OpenCL device with `--backend opencl`, or run with `--backend cpu`";

/// A CUDA call that failed while doing `what`.
pub(crate) fn cuda_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::run(format!("CUDA: {what}: {}", e.to_string().trim()))
}

/// The driver's name and description of `r`.
pub(crate) fn describe(r: CUresult) -> String {
    let mut name = std::ptr::null();
    let mut text = std::ptr::null();
    // SAFETY: both calls only write a pointer to a static string (or leave it null).
    unsafe {
        cust::sys::cuGetErrorName(r, &mut name);
        cust::sys::cuGetErrorString(r, &mut text);
    }
    let s = |p: *const std::os::raw::c_char| match p.is_null() {
        // SAFETY: the driver returns NUL-terminated static strings.
        false => unsafe { std::ffi::CStr::from_ptr(p) }
            .to_string_lossy()
            .into_owned(),
        true => format!("error {}", r as i32),
    };
    format!("{} ({})", s(text), s(name))
}

/// `Ok` for `CUDA_SUCCESS`, otherwise the driver's description of the failure of `what`.
pub(crate) fn check(r: CUresult, what: &str) -> Result<()> {
    match r {
        CUresult::CUDA_SUCCESS => Ok(()),
        _ => Err(cuda_error(what, describe(r))),
    }
}

/// Initialise the driver API (once per process; later calls are cheap).
fn init() -> Result<()> {
    cust::init(cust::CudaFlags::empty()).map_err(|e| {
        config_error(format!(
            "no usable CUDA driver or device ({e}): {INSTALL_HINT}"
        ))
    })
}

/// Every CUDA device with the index `--device N` takes.
pub fn list() -> Result<Vec<DeviceSummary>> {
    init()?;
    let devices = Device::devices().map_err(|e| cuda_error("listing the devices", e))?;
    let version = cust::CudaApiVersion::get()
        .map(|v| format!("driver API {}.{}", v.major(), v.minor()))
        .unwrap_or_else(|_| "driver API ?".to_string());
    let mut out = Vec::new();
    for (index, d) in devices.enumerate() {
        let d = d.map_err(|e| cuda_error("listing the devices", e))?;
        out.push(summary(d, index, &version)?);
    }
    Ok(out)
}

fn summary(d: Device, index: usize, version: &str) -> Result<DeviceSummary> {
    let attr = |a: DeviceAttribute| {
        d.get_attribute(a)
            .map(|v| v.max(0) as u64)
            .map_err(|e| cuda_error("reading a device's description", e))
    };
    let cc = (
        attr(DeviceAttribute::ComputeCapabilityMajor)? as u32,
        attr(DeviceAttribute::ComputeCapabilityMinor)? as u32,
    );
    let memory = d
        .total_memory()
        .map_err(|e| cuda_error("reading a device's memory size", e))? as u64;
    Ok(DeviceSummary {
        index,
        platform: "CUDA".to_string(),
        platform_version: version.to_string(),
        name: d
            .name()
            .map_err(|e| cuda_error("reading a device's name", e))?,
        vendor: "NVIDIA".to_string(),
        version: format!("compute capability {}.{}", cc.0, cc.1),
        kind: DeviceKind::Gpu,
        fp64: true,
        global_mem: memory,
        max_alloc: memory,
        local_mem: attr(DeviceAttribute::MaxSharedMemoryPerBlock)?,
        compute_units: attr(DeviceAttribute::MultiprocessorCount)? as u32,
        max_work_group: attr(DeviceAttribute::MaxThreadsPerBlock)? as usize,
        compute_capability: Some(cc),
    })
}

/// Device `index` (`--device N`), or the first usable one; refused when it is older than
/// [`MIN_COMPUTE_CAPABILITY`].
pub fn pick(index: Option<usize>) -> Result<(Device, DeviceSummary)> {
    let list = list()?;
    if list.is_empty() {
        return Err(config_error(format!(
            "no CUDA device found: {INSTALL_HINT}"
        )));
    }
    let i = match index {
        Some(i) if i >= list.len() => {
            return Err(config_error(format!(
                "--device {i} is out of range: there {} {} CUDA device{} (0..{}); pick one with \
                 --device N, see `orrery devices`, or run with `--backend cpu`",
                if list.len() == 1 { "is" } else { "are" },
                list.len(),
                if list.len() == 1 { "" } else { "s" },
                list.len() - 1
            )))
        }
        Some(i) => i,
        None => list.iter().position(|d| d.usable()).unwrap_or(0),
    };
    let info = list[i].clone();
    if !info.usable() {
        let (major, minor) = MIN_COMPUTE_CAPABILITY;
        return Err(config_error(format!(
            "CUDA device {i} ({}, {}) refused: Orrery's kernels need compute capability \
             {major}.{minor} or newer; pick another with --device N or run with `--backend cpu`",
            info.name, info.version
        )));
    }
    let device = Device::get_device(i as u32).map_err(|e| cuda_error("opening the device", e))?;
    Ok((device, info))
}
