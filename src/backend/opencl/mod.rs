//! The OpenCL adapter of the device backends (cargo feature `opencl`, crate `ocl`): device
//! discovery and choice ([`device`]), programs built from the kernel sources embedded in the
//! binary ([`program`]), and the context, buffers and launches of
//! [`crate::backend::device_api`] ([`context`]). Every OpenCL failure becomes a [`crate::Error`]: configuration problems (no
//! runtime, no device, no fp64, a kernel that does not build, a state too large for the device)
//! exit with code 2 and say what to do; nothing here panics.

pub mod context;
pub mod device;
pub mod program;

pub use context::with_source;
pub use device::{list, pick, OclDevice};

pub(crate) use crate::backend::device_api::config_error;
use crate::error::Error;

/// What to do when OpenCL has no usable platform or device.
pub(crate) const INSTALL_HINT: &str = "install an OpenCL runtime such as pocl-opencl-icd \
     (Debian/Ubuntu: `apt-get install ocl-icd-opencl-dev pocl-opencl-icd clinfo`) or your GPU \
     vendor's OpenCL driver, check it with `clinfo`, or run with `--backend cpu`";

/// What to do when a device was refused or does not exist.
pub(crate) const PICK_HINT: &str =
    "pick a device with --device N, see `orrery devices`, or run with `--backend cpu`";

/// An OpenCL call that failed while doing `what`.
pub(crate) fn cl_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::run(format!("OpenCL: {what}: {}", e.to_string().trim()))
}

/// True for the status codes an OpenCL runtime returns when memory runs out.
pub(crate) fn is_out_of_memory(e: &ocl::Error) -> bool {
    use ocl::core::Status;
    matches!(
        e.api_status(),
        Some(
            Status::CL_MEM_OBJECT_ALLOCATION_FAILURE
                | Status::CL_OUT_OF_RESOURCES
                | Status::CL_OUT_OF_HOST_MEMORY
                | Status::CL_INVALID_BUFFER_SIZE
        )
    )
}
