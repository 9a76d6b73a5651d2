//! Kernels of a device's program (OpenCL) or modules (CUDA), with their arguments.
//!
//! A kernel is built once with all its arguments ([`KernelBuilder`]): the buffers it reads and
//! writes, and placeholder values for the scalars that change per launch, which
//! [`Kernel::set_arg`] replaces by index. Argument indices are those of the OpenCL signature;
//! work-group memory passed as an OpenCL `__local` pointer argument ([`KernelBuilder::local_f64`],
//! `WORKGROUP_ARG` in `kernels/common/device.h`) keeps its index, and the CUDA adapter leaves it
//! out of the launch (CUDA kernels declare that memory `__shared__` themselves).

use super::field::{Elem, Field};
use super::Gpu;
use crate::backend::device_api::DeviceKernel;
pub use crate::backend::device_api::{ArgValue, ParamKind};
use crate::error::{Error, Result};
use std::sync::Mutex;

/// What can be passed to a kernel: a buffer, or a u32, u64 or f64 scalar.
pub trait KernelArg {
    fn value(self) -> ArgValue;
}

impl<T: Elem> KernelArg for &Field<T> {
    fn value(self) -> ArgValue {
        ArgValue::Mem(self.handle())
    }
}

impl KernelArg for u32 {
    fn value(self) -> ArgValue {
        ArgValue::U32(self)
    }
}

impl KernelArg for u64 {
    fn value(self) -> ArgValue {
        ArgValue::U64(self)
    }
}

impl KernelArg for f64 {
    fn value(self) -> ArgValue {
        ArgValue::F64(self)
    }
}

/// A kernel being given its arguments, in the order of its signature.
pub struct KernelBuilder {
    gpu: Gpu,
    name: String,
    args: Vec<ArgValue>,
}

impl KernelBuilder {
    pub(super) fn new(gpu: &Gpu, name: &str) -> Self {
        KernelBuilder {
            gpu: gpu.clone(),
            name: name.to_string(),
            args: Vec::new(),
        }
    }

    /// The next argument.
    pub fn arg(&mut self, a: impl KernelArg) -> &mut Self {
        self.args.push(a.value());
        self
    }

    /// The next arguments: every field of `fields` in order (the x, y, z components of a
    /// vector field, as the kernels take them).
    pub fn args<'f, T: Elem>(
        &mut self,
        fields: impl IntoIterator<Item = &'f Field<T>>,
    ) -> &mut Self {
        for f in fields {
            self.arg(f);
        }
        self
    }

    /// The next argument: work-group memory of `doubles` f64 (`WORKGROUP_ARG`).
    pub fn local_f64(&mut self, doubles: usize) -> &mut Self {
        self.args.push(ArgValue::LocalF64(doubles));
        self
    }

    /// The kernel with these arguments.
    pub fn build(&mut self) -> Result<Kernel> {
        let params = self.args.iter().filter_map(ArgValue::param_kind).collect();
        self.gpu.record_params(&self.name, params);
        let imp = self.gpu.api.kernel(&self.name, &self.args)?;
        Ok(Kernel {
            name: std::mem::take(&mut self.name),
            args: Mutex::new(std::mem::take(&mut self.args)),
            imp,
            _gpu: self.gpu.clone(),
        })
    }
}

/// A kernel with its arguments, ready to launch (in order, on the device's one queue).
pub struct Kernel {
    name: String,
    args: Mutex<Vec<ArgValue>>,
    imp: Box<dyn DeviceKernel>,
    /// Keeps the context alive as long as the kernel.
    _gpu: Gpu,
}

impl Kernel {
    /// Replace argument `index` (of the OpenCL signature) for the launches that follow.
    pub fn set_arg(&self, index: u32, a: impl KernelArg) -> Result<()> {
        let v = a.value();
        let mut args = self.args.lock().unwrap_or_else(|p| p.into_inner());
        let Some(slot) = args.get_mut(index as usize) else {
            return Err(Error::run(format!(
                "kernel {}: no argument {index} (it has {})",
                self.name,
                args.len()
            )));
        };
        self.imp.set(index, &v)?;
        *slot = v;
        Ok(())
    }

    /// Enqueue the kernel over `global` work-items (threads) in work-groups (blocks) of
    /// `local`; `None` lets OpenCL choose and gives CUDA blocks of 64 (the kernels return at
    /// once for indices beyond their counts, so the padding is harmless). No wait.
    pub fn launch(&self, global: usize, local: Option<usize>) -> Result<()> {
        if global == 0 {
            return Ok(());
        }
        let args = self.args.lock().unwrap_or_else(|p| p.into_inner());
        self.imp.launch(&self.name, &args, global, local)
    }
}
