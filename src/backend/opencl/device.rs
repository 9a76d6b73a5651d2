//! Discovery of every OpenCL platform and device, and the choice of one (`--device N`).
//!
//! Devices are numbered across all platforms, in platform order and then device order, as
//! `orrery devices` lists them. A device without double precision (`cl_khr_fp64`) is listed but
//! refused: every pass of the hybrid engine is f64.

use super::{cl_error, config_error, INSTALL_HINT, PICK_HINT};
use crate::backend::select::{auto_choice, DeviceKind, DeviceSummary};
use crate::error::Result;
use ocl::core::{DeviceInfo, DeviceInfoResult, DeviceType, PlatformInfo, Status};
use ocl::{Device, Platform};

/// One OpenCL device with its platform and description.
#[derive(Debug, Clone)]
pub struct OclDevice {
    pub platform: Platform,
    pub device: Device,
    pub info: DeviceSummary,
}

/// Every platform's devices, or an error when there is no OpenCL platform at all (no ICD loader
/// entry, i.e. no runtime installed).
pub fn discover() -> Result<Vec<OclDevice>> {
    let found = discover_devices();
    // Loading the runtime may have taken over the command line's signal handlers.
    crate::signals::reclaim();
    found
}

/// [`discover`]'s listing.
fn discover_devices() -> Result<Vec<OclDevice>> {
    // ICD loaders and runtimes (ocl-icd with PoCL seen here) are not safe to initialise from
    // several threads at once: they then report no devices or crash. One discovery at a time.
    static DISCOVERY: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = DISCOVERY.lock().unwrap_or_else(|p| p.into_inner());
    // Ask for the count first: `ocl::core::get_platform_ids` retries for 10 seconds when the
    // ICD loader finds no platform, which is the common answer of a machine without OpenCL.
    let mut count: ocl::core::ffi::cl_uint = 0;
    // SAFETY: the OpenCL API allows a null list with a count pointer, which points to a local.
    let status = unsafe { ocl::core::ffi::clGetPlatformIDs(0, std::ptr::null_mut(), &mut count) };
    if status == Status::CL_PLATFORM_NOT_FOUND_KHR as i32 || (status == 0 && count == 0) {
        return Err(config_error(format!(
            "no OpenCL platform found: {INSTALL_HINT}"
        )));
    }
    let platforms = match ocl::core::get_platform_ids() {
        Ok(p) => p,
        Err(e) if e.api_status() == Some(Status::CL_PLATFORM_NOT_FOUND_KHR) => Vec::new(),
        Err(e) => {
            return Err(config_error(format!(
                "cannot list the OpenCL platforms ({}); {INSTALL_HINT}",
                e.to_string().trim()
            )))
        }
    };
    if platforms.is_empty() {
        return Err(config_error(format!(
            "no OpenCL platform found: {INSTALL_HINT}"
        )));
    }
    let mut out = Vec::new();
    for core in platforms {
        let platform = Platform::new(core);
        let ids = match ocl::core::get_device_ids(core, Some(DeviceType::ALL), None) {
            Ok(ids) => ids,
            // A platform without devices answers CL_DEVICE_NOT_FOUND.
            Err(e) if e.api_status() == Some(Status::CL_DEVICE_NOT_FOUND) => Vec::new(),
            Err(e) => return Err(cl_error("listing the devices of a platform", e)),
        };
        for id in ids {
            let device = Device::from(id);
            let info = describe(&platform, &device, out.len())?;
            out.push(OclDevice {
                platform,
                device,
                info,
            });
        }
    }
    Ok(out)
}

/// The descriptions of every device (see [`discover`]).
pub fn list() -> Result<Vec<DeviceSummary>> {
    Ok(discover()?.into_iter().map(|d| d.info).collect())
}

/// The device `--device index` names, or without an index the first GPU with double precision
/// and else the first device with double precision (PoCL in CI). Errors: no OpenCL platform, no
/// device, index out of range, device without fp64.
pub fn pick(index: Option<usize>) -> Result<OclDevice> {
    let mut all = discover()?;
    let infos: Vec<DeviceSummary> = all.iter().map(|d| d.info.clone()).collect();
    let i = choose(&infos, index)?;
    Ok(all.swap_remove(i))
}

/// The rules of [`pick`] on a list of device descriptions: the index of the device to use.
pub fn choose(infos: &[DeviceSummary], index: Option<usize>) -> Result<usize> {
    let all = infos;
    if all.is_empty() {
        return Err(config_error(format!(
            "the OpenCL platforms have no devices: {INSTALL_HINT}"
        )));
    }
    let i = match index {
        Some(i) if i >= all.len() => {
            return Err(config_error(format!(
                "--device {i} is out of range: there {} {} OpenCL device{} (0..{}); {PICK_HINT}",
                if all.len() == 1 { "is" } else { "are" },
                all.len(),
                if all.len() == 1 { "" } else { "s" },
                all.len() - 1
            )))
        }
        Some(i) => i,
        None => match auto_choice(infos).or_else(|| infos.iter().position(|d| d.fp64)) {
            Some(i) => i,
            None => {
                return Err(config_error(format!(
                    "refused: no double precision (cl_khr_fp64) on any OpenCL device ({}); \
                     Orrery's device passes need f64: use a device with fp64 or `--backend cpu`",
                    names(infos)
                )))
            }
        },
    };
    if !infos[i].fp64 {
        return Err(config_error(format!(
            "device {i} ({}) refused: no double precision (cl_khr_fp64); {PICK_HINT}",
            infos[i].name
        )));
    }
    Ok(i)
}

fn names(infos: &[DeviceSummary]) -> String {
    infos
        .iter()
        .map(|d| format!("[{}] {}", d.index, d.name))
        .collect::<Vec<_>>()
        .join(", ")
}

fn describe(platform: &Platform, device: &Device, index: usize) -> Result<DeviceSummary> {
    let pinfo = |k: PlatformInfo| -> Result<String> {
        platform
            .info(k)
            .map(|r| r.to_string().trim().to_string())
            .map_err(|e| cl_error("reading a platform's description", e))
    };
    let dinfo = |k: DeviceInfo| -> Result<DeviceInfoResult> {
        device
            .info(k)
            .map_err(|e| cl_error("reading a device's description", e))
    };
    let text = |k: DeviceInfo| -> Result<String> { Ok(dinfo(k)?.to_string().trim().to_string()) };
    let kind = match dinfo(DeviceInfo::Type)? {
        DeviceInfoResult::Type(t) if t.contains(DeviceType::GPU) => DeviceKind::Gpu,
        DeviceInfoResult::Type(t) if t.contains(DeviceType::CPU) => DeviceKind::Cpu,
        DeviceInfoResult::Type(t) if t.contains(DeviceType::ACCELERATOR) => DeviceKind::Accelerator,
        _ => DeviceKind::Other,
    };
    let extensions = text(DeviceInfo::Extensions)?;
    let fp64 = extensions.split_whitespace().any(|e| e == "cl_khr_fp64");
    let u64_of = |k: DeviceInfo| -> Result<u64> {
        Ok(match dinfo(k)? {
            DeviceInfoResult::GlobalMemSize(v)
            | DeviceInfoResult::LocalMemSize(v)
            | DeviceInfoResult::MaxMemAllocSize(v) => v,
            DeviceInfoResult::MaxComputeUnits(v) => v as u64,
            DeviceInfoResult::MaxWorkGroupSize(v) => v as u64,
            _ => 0,
        })
    };
    Ok(DeviceSummary {
        index,
        platform: pinfo(PlatformInfo::Name)?,
        platform_version: pinfo(PlatformInfo::Version)?,
        name: text(DeviceInfo::Name)?,
        vendor: text(DeviceInfo::Vendor)?,
        version: text(DeviceInfo::Version)?,
        kind,
        fp64,
        global_mem: u64_of(DeviceInfo::GlobalMemSize)?,
        max_alloc: u64_of(DeviceInfo::MaxMemAllocSize)?,
        local_mem: u64_of(DeviceInfo::LocalMemSize)?,
        compute_units: u64_of(DeviceInfo::MaxComputeUnits)? as u32,
        max_work_group: u64_of(DeviceInfo::MaxWorkGroupSize)? as usize,
        compute_capability: None,
    })
}
