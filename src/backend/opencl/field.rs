//! Typed buffers resident on the device: one per field of the state (`Field<f64>` for
//! positions, velocities, masses..., `Field<u32>` for ids, counts and flags).

use super::context::Gpu;
use super::{cl_error, config_error, is_out_of_memory};
use crate::backend::select::bytes;
use crate::error::{Error, Result};
use ocl::{Buffer, OclPrm};

/// A device buffer of `len` elements of `T`, named for messages. A field of length 0 holds a
/// one-element buffer, so that it can still be passed to a kernel.
pub struct Field<T: OclPrm> {
    name: &'static str,
    len: usize,
    buffer: Buffer<T>,
}

impl<T: OclPrm> Field<T> {
    /// A zeroed field of `len` elements on `gpu`. Too large for the device: a configuration
    /// error (exit code 2) that says "out of device memory".
    pub fn new(gpu: &Gpu, name: &'static str, len: usize) -> Result<Self> {
        let size = len.max(1);
        let need = (size as u64).saturating_mul(std::mem::size_of::<T>() as u64);
        let oom = |detail: &str| {
            config_error(format!(
                "out of device memory: field `{name}` needs {} ({len} elements) on device {} \
                 ({}: global memory {}, largest buffer {}){detail}; use fewer bodies, a device \
                 with more memory (see `orrery devices`, --device N) or `--backend cpu`",
                bytes(need),
                gpu.info.index,
                gpu.info.name,
                bytes(gpu.info.global_mem),
                bytes(gpu.info.max_alloc)
            ))
        };
        if need > gpu.info.max_alloc || need > gpu.info.global_mem {
            return Err(oom(""));
        }
        let buffer = Buffer::<T>::builder()
            .queue(gpu.queue.clone())
            .len(size)
            .fill_val(T::default())
            .build()
            .map_err(|e| {
                if is_out_of_memory(&e) {
                    oom(&format!(" [{}]", e.to_string().trim()))
                } else {
                    cl_error(&format!("creating field `{name}`"), e)
                }
            })?;
        Ok(Field { name, len, buffer })
    }

    /// A field holding a copy of `host`.
    pub fn from_host(gpu: &Gpu, name: &'static str, host: &[T]) -> Result<Self> {
        let mut f = Field::new(gpu, name, host.len())?;
        f.upload(host)?;
        Ok(f)
    }

    pub fn name(&self) -> &'static str {
        self.name
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device buffer, for kernel arguments.
    pub fn buffer(&self) -> &Buffer<T> {
        &self.buffer
    }

    fn check_len(&self, what: &str, host: usize) -> Result<()> {
        if host == self.len {
            Ok(())
        } else {
            Err(Error::run(format!(
                "{what} field `{}`: host slice has {host} elements, the field {}",
                self.name, self.len
            )))
        }
    }

    /// Copy `host` (exactly [`Field::len`] elements) to the device; returns when done.
    pub fn upload(&mut self, host: &[T]) -> Result<()> {
        self.check_len("upload to", host.len())?;
        if host.is_empty() {
            return Ok(());
        }
        self.buffer
            .write(host)
            .enq()
            .map_err(|e| cl_error(&format!("uploading field `{}`", self.name), e))
    }

    /// Copy `host` to the elements from `offset` on; returns when done.
    pub fn upload_at(&mut self, offset: usize, host: &[T]) -> Result<()> {
        if offset + host.len() > self.len {
            return Err(Error::run(format!(
                "upload to field `{}`: elements {offset}..{} beyond its {}",
                self.name,
                offset + host.len(),
                self.len
            )));
        }
        if host.is_empty() {
            return Ok(());
        }
        self.buffer
            .write(host)
            .offset(offset)
            .enq()
            .map_err(|e| cl_error(&format!("uploading field `{}`", self.name), e))
    }

    /// Copy the field into `host` (exactly [`Field::len`] elements); returns when done.
    pub fn download(&self, host: &mut [T]) -> Result<()> {
        self.check_len("download of", host.len())?;
        if host.is_empty() {
            return Ok(());
        }
        self.buffer
            .read(host)
            .enq()
            .map_err(|e| cl_error(&format!("downloading field `{}`", self.name), e))
    }

    /// The first `n` elements as a new host vector.
    pub fn to_vec_prefix(&self, n: usize) -> Result<Vec<T>> {
        self.to_vec_range(0..n)
    }

    /// The elements `range` (clipped to the field) as a new host vector.
    pub fn to_vec_range(&self, range: std::ops::Range<usize>) -> Result<Vec<T>> {
        let end = range.end.min(self.len);
        let start = range.start.min(end);
        let mut v = vec![T::default(); end - start];
        if !v.is_empty() {
            self.buffer
                .read(&mut v)
                .offset(start)
                .len(end - start)
                .enq()
                .map_err(|e| cl_error(&format!("downloading field `{}`", self.name), e))?;
        }
        Ok(v)
    }

    /// The field as a new host vector.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let mut v = vec![T::default(); self.len];
        self.download(&mut v)?;
        Ok(v)
    }
}
