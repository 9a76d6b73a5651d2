//! Typed buffers resident on the device: one per field of the state (`Field<f64>` for
//! positions, velocities, masses..., `Field<u32>` for ids, counts and flags), each an
//! allocation of the device API ([`crate::backend::device_api::DeviceMemory`]) holding its
//! elements' bytes.

use super::{config_error, Gpu};
pub use crate::backend::device_api::Elem;
use crate::backend::device_api::{as_bytes, as_bytes_mut, DeviceMemory, MemHandle};
use crate::backend::select::bytes;
use crate::error::{Error, Result};

/// A device buffer of `len` elements of `T`, named for messages. A field of length 0 holds a
/// one-element buffer, so that it can still be passed to a kernel.
pub struct Field<T: Elem> {
    name: &'static str,
    len: usize,
    memory: Box<dyn DeviceMemory>,
    _type: std::marker::PhantomData<T>,
}

impl<T: Elem> Field<T> {
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
        let memory = gpu.api.alloc(need as usize, name, &oom)?;
        Ok(Field {
            name,
            len,
            memory,
            _type: std::marker::PhantomData,
        })
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
    pub(crate) fn handle(&self) -> MemHandle {
        self.memory.handle()
    }

    /// Copy `host` to the elements from `offset` on (checked by the caller).
    fn write(&mut self, offset: usize, host: &[T]) -> Result<()> {
        let what = format!("uploading field `{}`", self.name);
        let at = offset * std::mem::size_of::<T>();
        self.memory.write(at, as_bytes(host), &what)
    }

    /// Copy the elements from `offset` on into `host` (checked by the caller).
    fn read(&self, offset: usize, host: &mut [T]) -> Result<()> {
        let what = format!("downloading field `{}`", self.name);
        let at = offset * std::mem::size_of::<T>();
        self.memory.read(at, as_bytes_mut(host), &what)
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
        self.write(0, host)
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
        self.write(offset, host)
    }

    /// Copy the field into `host` (exactly [`Field::len`] elements); returns when done.
    pub fn download(&self, host: &mut [T]) -> Result<()> {
        self.check_len("download of", host.len())?;
        if host.is_empty() {
            return Ok(());
        }
        self.read(0, host)
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
            self.read(start, &mut v)?;
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
