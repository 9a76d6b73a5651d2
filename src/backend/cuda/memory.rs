//! Device memory of the CUDA adapter: allocations shared by the buffers and the kernel
//! arguments that name them (as OpenCL's reference counts do), and the synchronous copies.
//!
//! Every copy and launch goes to the legacy default stream, in order: a copy to the device
//! starts after the kernels enqueued before it, a copy to the host returns when they and the
//! copy are done, as on the OpenCL backend's in-order queue.

use super::check;
use super::context::OwnedContext;
use crate::backend::gpu::field::Elem;
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

/// A typed device buffer of `len` elements.
pub struct CudaBuffer<T: Elem> {
    allocation: Arc<Allocation>,
    len: usize,
    _type: std::marker::PhantomData<T>,
}

impl<T: Elem> CudaBuffer<T> {
    /// A zeroed buffer of `len` elements in `context`; `oom` words the error when the device is
    /// out of memory.
    pub(crate) fn zeroed(
        context: &Arc<OwnedContext>,
        len: usize,
        name: &str,
        oom: &dyn Fn(&str) -> Error,
    ) -> Result<Self> {
        context.make_current()?;
        let bytes = len * std::mem::size_of::<T>();
        let mut ptr: CUdeviceptr = 0;
        // SAFETY: the driver writes the new address into `ptr`.
        let r = unsafe { sys::cuMemAlloc_v2(&mut ptr, bytes) };
        if r == CUresult::CUDA_ERROR_OUT_OF_MEMORY {
            return Err(oom(&format!(" [{}]", super::describe(r))));
        }
        check(r, &format!("allocating field `{name}`"))?;
        let allocation = Arc::new(Allocation {
            ptr,
            context: context.clone(),
        });
        // SAFETY: `ptr` holds `bytes` bytes.
        check(
            unsafe { sys::cuMemsetD8_v2(ptr, 0, bytes) },
            &format!("zeroing field `{name}`"),
        )?;
        Ok(CudaBuffer {
            allocation,
            len,
            _type: std::marker::PhantomData,
        })
    }

    /// The allocation, for kernel arguments.
    pub(crate) fn allocation(&self) -> Arc<Allocation> {
        self.allocation.clone()
    }

    fn range_check(&self, offset: usize, n: usize, what: &str) -> Result<usize> {
        match offset.checked_add(n) {
            Some(end) if end <= self.len => Ok(offset * std::mem::size_of::<T>()),
            _ => Err(Error::run(format!(
                "{what}: elements {offset}..{} beyond the buffer's {}",
                offset + n,
                self.len
            ))),
        }
    }

    /// Copy `host` to the elements from `offset` on; returns when the host slice may be reused.
    pub(crate) fn write(&mut self, offset: usize, host: &[T], what: &str) -> Result<()> {
        let at = self.range_check(offset, host.len(), what)?;
        self.allocation.context.make_current()?;
        // SAFETY: the range was checked against the allocation; `host` is a live slice.
        check(
            unsafe {
                sys::cuMemcpyHtoD_v2(
                    self.allocation.ptr + at as u64,
                    host.as_ptr().cast(),
                    std::mem::size_of_val(host),
                )
            },
            what,
        )
    }

    /// Copy the elements from `offset` on into `host`; returns when done.
    pub(crate) fn read(&self, offset: usize, host: &mut [T], what: &str) -> Result<()> {
        let at = self.range_check(offset, host.len(), what)?;
        self.allocation.context.make_current()?;
        // SAFETY: the range was checked against the allocation; `host` is a live slice of
        // plain numbers (u32, u64, f64), so any bytes are valid values.
        check(
            unsafe {
                sys::cuMemcpyDtoH_v2(
                    host.as_mut_ptr().cast(),
                    self.allocation.ptr + at as u64,
                    std::mem::size_of_val(host),
                )
            },
            what,
        )
    }
}
