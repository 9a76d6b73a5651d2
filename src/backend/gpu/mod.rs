//! The device backends' shared host side: one device ([`Gpu`]), its resident buffers
//! ([`Field`]), its kernels with their arguments ([`Kernel`]), and everything above them: the
//! hybrid engine's state on the device and the order of its passes ([`hybrid`], [`pair_pass`]).
//!
//! Only [`Gpu`], [`Field`] and [`Kernel`] know which device API runs underneath; each dispatches
//! to a thin adapter, `backend::opencl` (crate `ocl`, feature `opencl`) or `backend::cuda` (crate
//! `cust`, feature `cuda`): context, program or module, buffers, launches. The pass order, the
//! field tables, the fallback and the status reads above them are one code for both APIs, the
//! code the OpenCL parity tests run on PoCL.

pub mod field;
pub mod hybrid;
pub mod kernel;
pub mod pair_pass;
pub mod sheet;

pub use field::Field;
pub use hybrid::DeviceHybrid;
pub use kernel::{Kernel, KernelBuilder, ParamKind};
pub use sheet::DeviceSheet;

pub use crate::backend::select::DeviceApi;
use crate::backend::select::{not_compiled, DeviceSummary};
use crate::error::{Error, Location, Result};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// The context of one device, by API.
pub(crate) enum Api {
    #[cfg(feature = "opencl")]
    OpenCl(crate::backend::opencl::context::ClContext),
    #[cfg(feature = "cuda")]
    Cuda(crate::backend::cuda::context::CudaContext),
}

/// One open device: its description and its context, with the kernels of the modules it was
/// opened with (cheap to clone: the context is shared).
#[derive(Clone)]
pub struct Gpu {
    pub info: DeviceSummary,
    pub(crate) api: Arc<Api>,
    /// The parameters of every kernel built on this device, by name (see
    /// [`Gpu::kernel_params`]).
    params: Arc<Mutex<BTreeMap<String, Vec<ParamKind>>>>,
}

impl Gpu {
    /// A device with its context (for the adapters).
    pub(crate) fn new(info: DeviceSummary, api: Api) -> Gpu {
        Gpu {
            info,
            api: Arc::new(api),
            params: Arc::default(),
        }
    }

    /// The parameters of every kernel built on this device so far, as a CUDA launch passes
    /// them (work-group memory left out), by kernel name: what the tests compare with the PTX
    /// entries, so that the argument lists the host code builds (run on OpenCL) are checked
    /// against the CUDA kernels without a GPU.
    pub fn kernel_params(&self) -> BTreeMap<String, Vec<ParamKind>> {
        self.params
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Remember the parameters of kernel `name`.
    pub(crate) fn record_params(&self, name: &str, params: Vec<ParamKind>) {
        self.params
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(name.to_string(), params);
    }

    /// Open device `index` of `api` (`--device N`; `None`: the API's default choice) with the
    /// kernels of `modules` (names under `kernels/` without `.cl`, e.g. `hybrid`; the CUDA build
    /// has one PTX module of the same name from `cuda/<name>.cu`).
    pub fn open(api: DeviceApi, index: Option<usize>, modules: &[&str]) -> Result<Gpu> {
        match api {
            #[cfg(feature = "opencl")]
            DeviceApi::OpenCl => crate::backend::opencl::context::open(index, modules),
            #[cfg(feature = "cuda")]
            DeviceApi::Cuda => crate::backend::cuda::context::open(index, modules),
            #[allow(unreachable_patterns)]
            other => Err(not_compiled(other)),
        }
    }

    /// Which API this device runs through.
    pub fn device_api(&self) -> DeviceApi {
        match &*self.api {
            #[cfg(feature = "opencl")]
            Api::OpenCl(_) => DeviceApi::OpenCl,
            #[cfg(feature = "cuda")]
            Api::Cuda(_) => DeviceApi::Cuda,
        }
    }

    /// A kernel by name, with its arguments to be added in order ([`KernelBuilder::arg`]).
    pub fn kernel(&self, name: &str) -> KernelBuilder {
        KernelBuilder::new(self, name)
    }

    /// Wait until every command enqueued so far has finished.
    pub fn finish(&self) -> Result<()> {
        match &*self.api {
            #[cfg(feature = "opencl")]
            Api::OpenCl(c) => c.finish(),
            #[cfg(feature = "cuda")]
            Api::Cuda(c) => c.finish(),
        }
    }
}

/// A configuration problem with the device (exit code 2).
pub(crate) fn config_error(message: impl Into<String>) -> Error {
    Error::input(Location::default().field("device"), message)
}
