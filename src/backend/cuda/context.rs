//! The CUDA adapter under [`crate::backend::gpu`]: the context of one device, the PTX modules
//! loaded into it, its buffers and kernel launches (on the legacy default stream, in order).

use super::memory::CudaBuffer;
use super::{check, config_error, cuda_error, pick, ptx};
use crate::backend::gpu::field::Elem;
use crate::backend::gpu::kernel::{ArgValue, MemHandle};
use crate::backend::gpu::{Api, Gpu};
use crate::error::{Error, Result};
use cust::context::{Context, CurrentContext};
use cust::module::Module;
use cust::sys::{self, CUfunction};
use std::ffi::c_void;
use std::sync::Arc;

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

/// Everything the device passes need of one CUDA device.
pub struct CudaContext {
    /// The modules by name (dropped before the context).
    modules: Vec<(String, Module)>,
    context: Arc<OwnedContext>,
}

/// Open device `index` (see [`pick`]) and load the PTX of `modules` (`cuda/<m>.cu`) for the
/// newest target the device runs.
pub fn open(index: Option<usize>, modules: &[&str]) -> Result<Gpu> {
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
    Ok(Gpu::new(
        info,
        Api::Cuda(CudaContext {
            modules: loaded,
            context,
        }),
    ))
}

impl CudaContext {
    /// A zeroed buffer of `len` elements; `oom` words the error when the device is out of
    /// memory.
    pub(crate) fn alloc<T: Elem>(
        &self,
        len: usize,
        name: &str,
        oom: &dyn Fn(&str) -> Error,
    ) -> Result<CudaBuffer<T>> {
        CudaBuffer::zeroed(&self.context, len, name, oom)
    }

    /// Kernel `name` from the first module that has it.
    pub(crate) fn kernel(&self, name: &str) -> Result<CudaKernel> {
        self.context.make_current()?;
        let function = self
            .modules
            .iter()
            .find_map(|(_, m)| m.get_function(name).ok().map(|f| f.to_raw()))
            .ok_or_else(|| Error::run(format!("CUDA: no kernel {name} in the loaded modules")))?;
        Ok(CudaKernel {
            function,
            context: self.context.clone(),
        })
    }

    pub(crate) fn finish(&self) -> Result<()> {
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

impl CudaKernel {
    /// Launch over `global` threads in blocks of `block` (the grid rounded up), with `args`
    /// (work-group memory arguments left out: CUDA kernels declare it `__shared__`).
    pub(crate) fn launch(
        &self,
        name: &str,
        args: &[ArgValue],
        global: usize,
        block: usize,
    ) -> Result<()> {
        let mut params = [std::ptr::null_mut::<c_void>(); MAX_PARAMS];
        let mut n = 0;
        for a in args {
            let p: *const c_void = match a {
                ArgValue::Mem(MemHandle::Cuda(m)) => (m.address() as *const u64).cast(),
                #[cfg(feature = "opencl")]
                ArgValue::Mem(MemHandle::OpenCl(_)) => {
                    return Err(Error::run(format!(
                        "kernel {name}: an OpenCL buffer passed to a CUDA kernel"
                    )))
                }
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
