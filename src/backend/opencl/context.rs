//! The OpenCL adapter of [`crate::backend::device_api`]: the context, in-order queue and program
//! of one device, its buffers and kernel launches.

use super::device::{pick, OclDevice};
use super::{cl_error, is_out_of_memory, program};
use crate::backend::device_api::{
    config_error, ArgValue, DeviceContext, DeviceKernel, DeviceMemory, MemHandle, OpenDevice,
};
use crate::backend::select::DeviceApi;
use crate::error::{Error, Result};
use ocl::core::ArgVal;
use ocl::{Buffer, Context, Program, Queue};
use std::sync::Arc;

/// Everything the device passes need of one OpenCL device.
pub struct ClContext {
    pub context: Context,
    /// In-order queue: passes run in the order they are enqueued.
    pub queue: Queue,
    pub program: Program,
}

/// Open device `index` (see [`pick`]) with the embedded kernel files `modules` (`kernels/<m>.cl`)
/// built into one program.
pub fn open(index: Option<usize>, modules: &[&str]) -> Result<OpenDevice> {
    let files: Vec<String> = modules.iter().map(|m| format!("{m}.cl")).collect();
    let entries: Vec<&str> = files.iter().map(String::as_str).collect();
    let source = program::expand(&entries)?;
    with_source(pick(index)?, &source, "")
}

/// A context on `dev` with a program built from `source` (already expanded, see
/// [`program::expand_text`]) and extra build options `extra_options`.
pub fn with_source(dev: OclDevice, source: &str, extra_options: &str) -> Result<OpenDevice> {
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
    let program = program::build(&context, &device, source, extra_options);
    // The runtime's compiler may have taken over the command line's signal handlers.
    crate::signals::reclaim();
    let program = program?;
    Ok(OpenDevice {
        info,
        context: Arc::new(ClContext {
            context,
            queue,
            program,
        }),
    })
}

impl DeviceContext for ClContext {
    fn api(&self) -> DeviceApi {
        DeviceApi::OpenCl
    }

    fn alloc(
        &self,
        bytes: usize,
        name: &str,
        oom: &dyn Fn(&str) -> Error,
    ) -> Result<Box<dyn DeviceMemory>> {
        let buffer = Buffer::<u8>::builder()
            .queue(self.queue.clone())
            .len(bytes)
            .fill_val(0u8)
            .build()
            .map_err(|e| {
                if is_out_of_memory(&e) {
                    oom(&format!(" [{}]", e.to_string().trim()))
                } else {
                    cl_error(&format!("creating field `{name}`"), e)
                }
            })?;
        Ok(Box::new(ClMemory(buffer)))
    }

    fn kernel(&self, name: &str, args: &[ArgValue]) -> Result<Box<dyn DeviceKernel>> {
        let kernel = ocl::core::create_kernel(self.program.as_core(), name)
            .map_err(|e| cl_error(&format!("creating kernel {name}"), e))?;
        let k = ClKernel {
            kernel,
            queue: self.queue.clone(),
        };
        for (i, a) in args.iter().enumerate() {
            k.set(i as u32, a)
                .map_err(|e| Error::run(format!("kernel {name}: {e}")))?;
        }
        Ok(Box::new(k))
    }

    fn finish(&self) -> Result<()> {
        self.queue
            .finish()
            .map_err(|e| cl_error("waiting for the device", e))
    }
}

/// An OpenCL buffer of bytes.
struct ClMemory(Buffer<u8>);

impl DeviceMemory for ClMemory {
    fn write(&mut self, offset: usize, host: &[u8], what: &str) -> Result<()> {
        self.0
            .write(host)
            .offset(offset)
            .enq()
            .map_err(|e| cl_error(what, e))
    }

    fn read(&self, offset: usize, host: &mut [u8], what: &str) -> Result<()> {
        let n = host.len();
        self.0
            .read(host)
            .offset(offset)
            .len(n)
            .enq()
            .map_err(|e| cl_error(what, e))
    }

    fn handle(&self) -> MemHandle {
        MemHandle(Arc::new(self.0.as_core().clone()))
    }
}

/// An OpenCL kernel with the queue it is enqueued on.
pub struct ClKernel {
    kernel: ocl::core::Kernel,
    queue: Queue,
}

impl DeviceKernel for ClKernel {
    fn set(&self, index: u32, a: &ArgValue) -> Result<()> {
        let v = match a {
            ArgValue::Mem(MemHandle(m)) => match m.downcast_ref::<ocl::core::Mem>() {
                Some(m) => ArgVal::mem(m),
                None => {
                    return Err(Error::run(
                        "another API's buffer passed to an OpenCL kernel",
                    ))
                }
            },
            ArgValue::U32(v) => ArgVal::scalar(v),
            ArgValue::U64(v) => ArgVal::scalar(v),
            ArgValue::F64(v) => ArgVal::scalar(v),
            ArgValue::LocalF64(n) => ArgVal::local::<f64>(n),
        };
        ocl::core::set_kernel_arg(&self.kernel, index, v)
            .map_err(|e| cl_error(&format!("setting argument {index}"), e))
    }

    /// Enqueue over `global` work-items (rounded up to `local` when given); the arguments were
    /// bound by [`DeviceKernel::set`].
    fn launch(
        &self,
        name: &str,
        _args: &[ArgValue],
        global: usize,
        local: Option<usize>,
    ) -> Result<()> {
        // A fixed work-group size and the global size padded to it: PoCL specialises a kernel
        // for its work-group size, so sizes that follow the changing candidate count would
        // compile it again at most launches.
        let global = match local {
            Some(l) => global.div_ceil(l) * l,
            None => global,
        };
        // SAFETY: every buffer argument was bound with the length the kernel indexes up to, and
        // the kernels check their index against the counts passed (the padding work-items
        // return at once).
        unsafe {
            ocl::core::enqueue_kernel(
                self.queue.as_core(),
                &self.kernel,
                1,
                None,
                &[global, 1, 1],
                local.map(|l| [l, 1, 1]),
                None::<ocl::core::Event>,
                None::<&mut ocl::core::Event>,
            )
        }
        .map_err(|e| cl_error(name, e))
    }
}
