//! The device backends' shared host side: one device ([`Gpu`]), its resident buffers
//! ([`Field`]), its kernels with their arguments ([`Kernel`]), and everything above them: the
//! hybrid engine's state on the device and the order of its passes ([`hybrid`], [`pair_pass`]),
//! the Wisdom-Holman map's packs ([`wisdom_holman`]).
//!
//! [`Gpu`], [`Field`] and [`Kernel`] run on the device API's traits
//! ([`crate::backend::device_api`]), which a thin adapter implements, `backend::opencl` (crate
//! `ocl`, feature `opencl`) or `backend::cuda` (crate `cust`, feature `cuda`): context, program
//! or module, buffers, launches. Nothing here names an adapter. The pass order, the
//! field tables, the fallback and the status reads above them are one code for both APIs, the
//! code the OpenCL parity tests run on PoCL.

pub mod field;
pub mod hybrid;
pub mod kernel;
pub mod pair_pass;
pub mod sheet;
pub mod wisdom_holman;

pub use field::Field;
pub use hybrid::DeviceHybrid;
pub use kernel::{Kernel, KernelBuilder, ParamKind};
pub use sheet::DeviceSheet;

pub use crate::backend::device_api::config_error;
use crate::backend::device_api::{DeviceContext, OpenDevice};
pub use crate::backend::select::DeviceApi;
use crate::backend::select::DeviceSummary;
use crate::error::Result;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// One open device: its description and its context, with the kernels of the modules it was
/// opened with (cheap to clone: the context is shared).
#[derive(Clone)]
pub struct Gpu {
    pub info: DeviceSummary,
    pub(crate) api: Arc<dyn DeviceContext>,
    /// The parameters of every kernel built on this device, by name (see
    /// [`Gpu::kernel_params`]).
    params: Arc<Mutex<BTreeMap<String, Vec<ParamKind>>>>,
}

impl Gpu {
    /// The host side of a device an adapter opened ([`crate::backend::open_device`], or an
    /// adapter's own constructor in the tests).
    pub fn from_device(device: OpenDevice) -> Gpu {
        Gpu {
            info: device.info,
            api: device.context,
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
        crate::backend::open_device(api, index, modules).map(Gpu::from_device)
    }

    /// Which API this device runs through.
    pub fn device_api(&self) -> DeviceApi {
        self.api.api()
    }

    /// A kernel by name, with its arguments to be added in order ([`KernelBuilder::arg`]).
    pub fn kernel(&self, name: &str) -> KernelBuilder {
        KernelBuilder::new(self, name)
    }

    /// Wait until every command enqueued so far has finished.
    pub fn finish(&self) -> Result<()> {
        self.api.finish()
    }
}
