//! Where the module's work runs: on the calling thread when it can, in a worker pool otherwise.
//!
//! Handing a call to a rayon pool costs about 7 µs (the job crosses to a sleeping worker and
//! the answer comes back), several times a small system's step. So the first thread that calls
//! in (usually the interpreter's main thread) becomes worker 0 of a pool of its own
//! (`use_current_thread`), and its later calls run there directly, the pool's other threads
//! joining in when a pass splits its work. A thread can belong to one pool only: that pool has
//! the thread count of the first object that called from the thread, and the objects asking for
//! another count, or calling from other threads, hand their calls to a shared pool of their
//! count. Results are the same bits either way (the passes' sums are in a fixed order for any
//! thread count), and each object's work runs on its own number of threads.

use super::{input_err, RunError};
use pyo3::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// A thread's own pool (the thread is its worker 0) and its thread count; no pool when the
/// thread could not join one (it is a worker of another pool already).
type OwnPool = (Option<usize>, Option<Arc<ThreadPool>>);

thread_local! {
    /// This thread's own pool, once it has called in.
    static OWN: RefCell<Option<OwnPool>> = const { RefCell::new(None) };
}

/// The shared pools by thread count (`None`: all cores), for calls from other threads.
static SHARED: OnceLock<Mutex<HashMap<Option<usize>, Arc<ThreadPool>>>> = OnceLock::new();

/// The thread count an object runs on (all cores when `None`).
#[derive(Debug, Clone, Copy)]
pub struct Pools {
    threads: Option<usize>,
}

impl Pools {
    /// Work on `threads` threads (all cores when `None`); 0 is an input error naming `threads`.
    pub fn new(threads: Option<usize>) -> PyResult<Self> {
        if threads == Some(0) {
            return Err(input_err("threads", "expected at least 1 thread"));
        }
        Ok(Pools { threads })
    }

    /// `f()` on this object's threads: on the calling thread when it is worker 0 of a pool of
    /// this count, otherwise in the shared pool of this count.
    pub fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> PyResult<R> {
        match self.own_pool() {
            Some(pool) => Ok(pool.install(f)),
            None => Ok(self.shared_pool()?.install(f)),
        }
    }

    /// The calling thread's own pool if it has this thread count (made on its first call).
    fn own_pool(&self) -> Option<Arc<ThreadPool>> {
        OWN.with(|own| {
            let mut own = own.borrow_mut();
            if own.is_none() {
                // A thread that is a worker of another pool already cannot join one.
                let pool = rayon::current_thread_index()
                    .is_none()
                    .then(|| self.builder().use_current_thread().build().ok())
                    .flatten()
                    .map(Arc::new);
                *own = Some((self.threads, pool));
            }
            match own.as_ref() {
                Some((threads, pool)) if *threads == self.threads => pool.clone(),
                _ => None,
            }
        })
    }

    /// The shared pool of this thread count (made on first use).
    fn shared_pool(&self) -> PyResult<Arc<ThreadPool>> {
        let shared = SHARED.get_or_init(|| Mutex::new(HashMap::new()));
        let mut shared = shared.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(pool) = shared.get(&self.threads) {
            return Ok(Arc::clone(pool));
        }
        let pool = self
            .builder()
            .build()
            .map_err(|e| RunError::new_err(format!("cannot start the worker threads: {e}")))?;
        let pool = Arc::new(pool);
        shared.insert(self.threads, Arc::clone(&pool));
        Ok(pool)
    }

    fn builder(&self) -> ThreadPoolBuilder {
        let b = ThreadPoolBuilder::new();
        match self.threads {
            Some(n) => b.num_threads(n),
            None => b,
        }
    }
}
