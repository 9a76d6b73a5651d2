//! Device memory of the CUDA adapter: allocations shared by the buffers and the kernel
//! arguments that name them (as OpenCL's reference counts do), and the synchronous copies.
//!
//! Every copy and launch goes to the legacy default stream, in order: a copy to the device
//! starts after the kernels enqueued before it, a copy to the host returns when they and the
//! copy are done, as on the OpenCL backend's in-order queue.

use super::check;
use super::OwnedContext;
use crate::backend::device_api::{DeviceMemory, MemHandle};
use crate::error::{Error, Result};
use cust::sys::{self, CUdeviceptr, CUresult};
use std::sync::Arc;

/// One device allocation; freed when the last buffer or kernel argument naming it is dropped.
pub struct Allocation {
    ptr: CUdeviceptr,
    context: Arc<OwnedContext>,
}

impl Allocation {
    /// The device address, at a stable host location (a kernel parameter points to it).
    pub(crate) fn address(&self) -> &CUdeviceptr {
        &self.ptr
    }
}

impl Drop for Allocation {
    fn drop(&mut self) {
        // A kernel enqueued before the drop may still read the allocation: wait for it first.
        // Errors are ignored, as nothing can be done about them here.
        if self.context.make_current().is_ok() {
            // SAFETY: `ptr` came from cuMemAlloc in this context and is freed once.
            unsafe {
                let _ = sys::cuCtxSynchronize();
                let _ = sys::cuMemFree_v2(self.ptr);
            }
        }
    }
}

/// A device buffer of `len` bytes.
pub struct CudaMemory {
    allocation: Arc<Allocation>,
    len: usize,
}

impl CudaMemory {
    /// A zeroed buffer of `len` bytes in `context`; `oom` words the error when the device is
    /// out of memory.
    pub(crate) fn zeroed(
        context: &Arc<OwnedContext>,
        len: usize,
        name: &str,
        oom: &dyn Fn(&str) -> Error,
    ) -> Result<Self> {
        context.make_current()?;
        let mut ptr: CUdeviceptr = 0;
        // SAFETY: the driver writes the new address into `ptr`.
        let r = unsafe { sys::cuMemAlloc_v2(&mut ptr, len) };
        if r == CUresult::CUDA_ERROR_OUT_OF_MEMORY {
            return Err(oom(&format!(" [{}]", super::describe(r))));
        }
        check(r, &format!("allocating field `{name}`"))?;
        let allocation = Arc::new(Allocation {
            ptr,
            context: context.clone(),
        });
        // SAFETY: `ptr` holds `len` bytes.
        check(
            unsafe { sys::cuMemsetD8_v2(ptr, 0, len) },
            &format!("zeroing field `{name}`"),
        )?;
        Ok(CudaMemory { allocation, len })
    }

    fn range_check(&self, offset: usize, n: usize, what: &str) -> Result<()> {
        match offset.checked_add(n) {
            Some(end) if end <= self.len => Ok(()),
            _ => Err(Error::run(format!(
                "{what}: bytes {offset}..{} beyond the buffer's {}",
                offset + n,
                self.len
            ))),
        }
    }
}

impl DeviceMemory for CudaMemory {
    /// Copy `host` to the bytes from `offset` on; returns when the host slice may be reused.
    fn write(&mut self, offset: usize, host: &[u8], what: &str) -> Result<()> {
        self.range_check(offset, host.len(), what)?;
        self.allocation.context.make_current()?;
        // SAFETY: the range was checked against the allocation; `host` is a live slice.
        check(
            unsafe {
                sys::cuMemcpyHtoD_v2(
                    self.allocation.ptr + offset as u64,
                    host.as_ptr().cast(),
                    host.len(),
                )
            },
            what,
        )
    }

    /// Copy the bytes from `offset` on into `host`; returns when done.
    fn read(&self, offset: usize, host: &mut [u8], what: &str) -> Result<()> {
        self.range_check(offset, host.len(), what)?;
        self.allocation.context.make_current()?;
        // SAFETY: the range was checked against the allocation; `host` is a live byte slice.
        check(
            unsafe {
                sys::cuMemcpyDtoH_v2(
                    host.as_mut_ptr().cast(),
                    self.allocation.ptr + offset as u64,
                    host.len(),
                )
            },
            what,
        )
    }

    fn handle(&self) -> MemHandle {
        MemHandle(self.allocation.clone())
    }
}
