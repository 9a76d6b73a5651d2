//! The OpenCL context of one device: context, in-order queue and the program built from the
//! embedded kernel sources.

use super::device::{pick, OclDevice};
use super::program;
use super::{cl_error, config_error};
use crate::backend::select::DeviceSummary;
use crate::error::Result;
use ocl::{Context, Device, Platform, Program, Queue};

/// Everything the device passes need of one OpenCL device.
pub struct Gpu {
    pub platform: Platform,
    pub device: Device,
    pub info: DeviceSummary,
    pub context: Context,
    /// In-order queue: passes run in the order they are enqueued.
    pub queue: Queue,
    pub program: Program,
}

impl Gpu {
    /// Open device `index` (see [`pick`]) and build the embedded entry files `entries` (paths
    /// under `kernels/`, e.g. `canary.cl`) into one program.
    pub fn open(index: Option<usize>, entries: &[&str]) -> Result<Gpu> {
        let source = program::expand(entries)?;
        Gpu::with_source(pick(index)?, &source, "")
    }

    /// A context on `dev` with a program built from `source` (already expanded, see
    /// [`program::expand_text`]) and extra build options `extra_options`.
    pub fn with_source(dev: OclDevice, source: &str, extra_options: &str) -> Result<Gpu> {
        let OclDevice {
            platform,
            device,
            info,
        } = dev;
        let context = Context::builder()
            .platform(platform)
            .devices(device)
            .build()
            .map_err(|e| {
                config_error(format!(
                    "cannot open OpenCL device {} ({}): {}",
                    info.index,
                    info.name,
                    e.to_string().trim()
                ))
            })?;
        let queue = Queue::new(&context, device, None)
            .map_err(|e| cl_error("creating the command queue", e))?;
        let program = program::build(&context, &device, source, extra_options)?;
        Ok(Gpu {
            platform,
            device,
            info,
            context,
            queue,
            program,
        })
    }

    /// A kernel of the program by name, with `args` arguments to be set by the caller.
    pub fn kernel(&self, name: &str) -> ocl::builders::KernelBuilder<'_> {
        let mut b = ocl::Kernel::builder();
        b.program(&self.program)
            .name(name)
            .queue(self.queue.clone());
        b
    }

    /// Wait until every enqueued command has finished.
    pub fn finish(&self) -> Result<()> {
        self.queue
            .finish()
            .map_err(|e| cl_error("waiting for the device", e))
    }
}
