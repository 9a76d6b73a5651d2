//! The CUDA adapter of [`crate::backend::device_api`]: the context of one device, the PTX
//! modules loaded into it, its buffers and kernel launches (on the legacy default stream, in
//! order).

use super::memory::{Allocation, CudaMemory};
use super::{check, config_error, pick, ptx, OwnedContext};
use crate::backend::device_api::{
    ArgValue, DeviceContext, DeviceKernel, DeviceMemory, MemHandle, OpenDevice,
};
use crate::backend::select::DeviceApi;
use crate::error::{Error, Result};
use cust::context::Context;
use cust::module::Module;
use cust::sys::{self, CUfunction};
use std::ffi::c_void;
use std::sync::Arc;

/// Everything the device passes need of one CUDA device.
pub struct CudaContext {
    /// The modules by name (dropped before the context).
    modules: Vec<(String, Module)>,
    context: Arc<OwnedContext>,
}

/// Open device `index` (see [`pick`]) and load the PTX of `modules` (`cuda/<m>.cu`) for the
/// newest target the device runs.
pub fn open(index: Option<usize>, modules: &[&str]) -> Result<OpenDevice> {
    let (device, info) = pick(index)?;
    let cc = info.compute_capability.unwrap_or_default();
    let target = ptx::target_for(cc).ok_or_else(|| {
        config_error(format!(
            "CUDA device {} ({}) has compute capability {}.{}, older than every PTX target",
            info.index, info.name, cc.0, cc.1
        ))
    })?;
    let context = Context::new(device).map_err(|e| {
        config_error(format!(
            "cannot open CUDA device {} ({}): {e}",
            info.index, info.name
        ))
    })?;
    let context = Arc::new(OwnedContext { context });
    let mut loaded = Vec::new();
    for &m in modules {
        let text = ptx::module(m, target)
            .ok_or_else(|| Error::run(format!("no embedded PTX for module `{m}` and {target}")))?;
        let module = Module::from_ptx(text, &[]).map_err(|e| {
            config_error(format!(
                "CUDA device {} ({}) refused the {target} PTX of `{m}`: {e}; the driver may be \
                 older than the PTX (update it), or run with `--backend opencl` or `cpu`",
                info.index, info.name
            ))
        })?;
        loaded.push((m.to_string(), module));
    }
    Ok(OpenDevice {
        info,
        context: Arc::new(CudaContext {
            modules: loaded,
            context,
        }),
    })
}

impl DeviceContext for CudaContext {
    fn api(&self) -> DeviceApi {
        DeviceApi::Cuda
    }

    fn alloc(
        &self,
        bytes: usize,
        name: &str,
        oom: &dyn Fn(&str) -> Error,
    ) -> Result<Box<dyn DeviceMemory>> {
        Ok(Box::new(CudaMemory::zeroed(
            &self.context,
            bytes,
            name,
            oom,
        )?))
    }

    /// Kernel `name` from the first module that has it (its arguments go with each launch).
    fn kernel(&self, name: &str, _args: &[ArgValue]) -> Result<Box<dyn DeviceKernel>> {
        self.context.make_current()?;
        let function = self
            .modules
            .iter()
            .find_map(|(_, m)| m.get_function(name).ok().map(|f| f.to_raw()))
            .ok_or_else(|| Error::run(format!("CUDA: no kernel {name} in the loaded modules")))?;
        Ok(Box::new(CudaKernel {
            function,
            context: self.context.clone(),
        }))
    }

    fn finish(&self) -> Result<()> {
        self.context.make_current()?;
        // SAFETY: plain driver call on the current context.
        check(unsafe { sys::cuCtxSynchronize() }, "waiting for the device")
    }
}

/// Most parameters of any kernel (the pair-force kernels take 22).
const MAX_PARAMS: usize = 32;

/// A kernel function of a loaded module.
pub struct CudaKernel {
    function: CUfunction,
    /// Keeps the context (and with the [`CudaContext`] the module) alive.
    context: Arc<OwnedContext>,
}

// SAFETY: a CUfunction is a driver handle, valid from any thread while its module is loaded;
// the driver API is thread-safe.
unsafe impl Send for CudaKernel {}
// SAFETY: as above; launching does not mutate the handle.
unsafe impl Sync for CudaKernel {}

impl DeviceKernel for CudaKernel {
    /// Nothing to bind ahead: a launch passes every argument.
    fn set(&self, _index: u32, _a: &ArgValue) -> Result<()> {
        Ok(())
    }

    /// Launch over `global` threads in blocks of `local` (64 when `None`; the grid rounded up),
    /// with `args` (work-group memory arguments left out: CUDA kernels declare it `__shared__`).
    fn launch(
        &self,
        name: &str,
        args: &[ArgValue],
        global: usize,
        local: Option<usize>,
    ) -> Result<()> {
        let block = local.unwrap_or(64);
        let mut params = [std::ptr::null_mut::<c_void>(); MAX_PARAMS];
        let mut n = 0;
        for a in args {
            let p: *const c_void = match a {
                ArgValue::Mem(MemHandle(m)) => match m.downcast_ref::<Allocation>() {
                    Some(m) => (m.address() as *const u64).cast(),
                    None => {
                        return Err(Error::run(format!(
                            "kernel {name}: another API's buffer passed to a CUDA kernel"
                        )))
                    }
                },
                ArgValue::U32(v) => (v as *const u32).cast(),
                ArgValue::U64(v) => (v as *const u64).cast(),
                ArgValue::F64(v) => (v as *const f64).cast(),
                ArgValue::LocalF64(_) => continue,
            };
            if n == MAX_PARAMS {
                return Err(Error::run(format!(
                    "kernel {name}: more than {MAX_PARAMS} parameters"
                )));
            }
            params[n] = p.cast_mut();
            n += 1;
        }
        let grid = global.div_ceil(block);
        let (Ok(grid), Ok(block)) = (u32::try_from(grid), u32::try_from(block)) else {
            return Err(Error::run(format!(
                "kernel {name}: {global} threads exceed CUDA's grid"
            )));
        };
        self.context.make_current()?;
        // SAFETY: `params` points to one value per kernel parameter, in the order and of the
        // types of the kernel's signature (built by the same host code as the OpenCL launch,
        // whose runtime checks the argument sizes); the values live until the call returns,
        // which copies them. The buffers they name are kept alive by `args`.
        check(
            unsafe {
                sys::cuLaunchKernel(
                    self.function,
                    grid,
                    1,
                    1,
                    block,
                    1,
                    1,
                    0,
                    std::ptr::null_mut(),
                    params.as_mut_ptr(),
                    std::ptr::null_mut(),
                )
            },
            name,
        )
    }
}
