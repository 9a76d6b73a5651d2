//! The device API the device backends' host side (`backend/gpu/`) runs on, as traits each
//! adapter implements: `backend/opencl/` (crate `ocl`) and `backend/cuda/` (crate `cust`). The
//! host side names no adapter type, and the adapters name nothing of the host side: both depend
//! on this module only, and `backend::open_device` picks the adapter.
//!
//! Memory is untyped bytes here: [`Elem`] values (u32, u64, f64) are plain numbers, so a typed
//! field is its elements' bytes ([`as_bytes`]).

use crate::backend::select::{DeviceApi, DeviceSummary};
use crate::error::{Error, Location, Result};
use std::any::Any;
use std::sync::Arc;

/// The element types of device buffers and kernel arguments: plain numbers whose every bit
/// pattern is a value (u32, u64, f64).
pub trait Elem: Copy + Default + Send + Sync + 'static {}
impl Elem for u32 {}
impl Elem for u64 {}
impl Elem for f64 {}

/// The bytes of `v`.
pub fn as_bytes<T: Elem>(v: &[T]) -> &[u8] {
    // SAFETY: `T` is u32, u64 or f64 (the only `Elem`s): no padding, any alignment of u8.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast(), std::mem::size_of_val(v)) }
}

/// The bytes of `v`, writable.
pub fn as_bytes_mut<T: Elem>(v: &mut [T]) -> &mut [u8] {
    // SAFETY: as in `as_bytes`; every bit pattern written is a valid `T`.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast(), std::mem::size_of_val(v)) }
}

/// A device buffer as a kernel argument: the adapter's own handle, shared (an argument keeps
/// the allocation alive, as OpenCL's reference counts do); only that adapter reads it.
#[derive(Clone)]
pub struct MemHandle(pub Arc<dyn Any + Send + Sync>);

/// One kernel argument.
#[derive(Clone)]
pub enum ArgValue {
    Mem(MemHandle),
    U32(u32),
    U64(u64),
    F64(f64),
    /// Work-group memory of this many doubles (OpenCL only).
    LocalF64(usize),
}

/// A kernel parameter's type as CUDA receives it (PTX `.param` types).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// `.u32`
    U32,
    /// `.u64` (a u64 scalar or a buffer's device address)
    U64,
    /// `.f64`
    F64,
}

impl ArgValue {
    /// The parameter this argument is in a CUDA launch (none for work-group memory).
    pub fn param_kind(&self) -> Option<ParamKind> {
        match self {
            ArgValue::Mem(_) | ArgValue::U64(_) => Some(ParamKind::U64),
            ArgValue::U32(_) => Some(ParamKind::U32),
            ArgValue::F64(_) => Some(ParamKind::F64),
            ArgValue::LocalF64(_) => None,
        }
    }
}

/// One device allocation.
pub trait DeviceMemory: Send + Sync {
    /// Copy `host` to the bytes from `offset` on; returns when `host` may be reused.
    fn write(&mut self, offset: usize, host: &[u8], what: &str) -> Result<()>;
    /// Copy the bytes from `offset` on into `host`; returns when done (after every command
    /// enqueued before it).
    fn read(&self, offset: usize, host: &mut [u8], what: &str) -> Result<()>;
    /// The allocation as a kernel argument.
    fn handle(&self) -> MemHandle;
}

/// A kernel of the device's program or modules.
pub trait DeviceKernel: Send {
    /// Argument `index` (of the OpenCL signature) is now `a` (the launch passes every argument
    /// again too; an adapter that binds arguments ahead sets it here).
    fn set(&self, index: u32, a: &ArgValue) -> Result<()>;
    /// Enqueue over `global` work-items in work-groups of `local` (`None`: the API's choice)
    /// with `args` (work-group memory is left out where the kernels declare it themselves).
    fn launch(
        &self,
        name: &str,
        args: &[ArgValue],
        global: usize,
        local: Option<usize>,
    ) -> Result<()>;
}

/// One open device: its context, queue or stream, and program or modules.
pub trait DeviceContext: Send + Sync {
    /// Which API runs it.
    fn api(&self) -> DeviceApi;
    /// A zeroed allocation of `bytes` bytes for field `name`; `oom` words the error when the
    /// device is out of memory.
    fn alloc(
        &self,
        bytes: usize,
        name: &str,
        oom: &dyn Fn(&str) -> Error,
    ) -> Result<Box<dyn DeviceMemory>>;
    /// Kernel `name` with its arguments `args` bound.
    fn kernel(&self, name: &str, args: &[ArgValue]) -> Result<Box<dyn DeviceKernel>>;
    /// Wait until every command enqueued so far has finished.
    fn finish(&self) -> Result<()>;
}

/// An open device as the host side receives it from `backend::open_device`.
pub struct OpenDevice {
    pub info: DeviceSummary,
    pub context: Arc<dyn DeviceContext>,
}

/// A configuration problem with the device (exit code 2).
pub fn config_error(message: impl Into<String>) -> Error {
    Error::input(Location::default().field("device"), message)
}
