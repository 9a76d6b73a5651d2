//! Where the module's work runs: on the calling thread when it can, in a worker pool otherwise.
//!
//! Handing a call to a rayon pool costs about 7 µs (the job crosses to a sleeping worker and
//! the answer comes back), several times a small system's step. So the first thread that calls
//! in (usually the interpreter's main thread) becomes worker 0 of a pool of its own
//! (`use_current_thread`), and its later calls run there directly, the pool's other threads
//! joining in when a pass splits its work. Only that one thread gets a pool of its own (rayon
//! keeps such a pool for the life of the process), and a thread can belong to one pool only: it
//! has the thread count of the first object that called in, and the objects asking for another
//! count, and every call from another thread, go to a shared pool of their count. Results are
//! the same bits either way (the passes' sums are in a fixed order for any thread count), and
//! each object's work runs on its own number of threads. A forked child process (whose pools'
//! worker threads did not come along) starts pools of its own.

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
    /// This thread's own pool (in the process that made it), once it has called in.
    static OWN: RefCell<Option<(u32, OwnPool)>> = const { RefCell::new(None) };
}

/// The one thread with a pool of its own, and the process it is in.
static OWNER: Mutex<Option<(u32, std::thread::ThreadId)>> = Mutex::new(None);

/// The shared pools by thread count (`None`: all cores), and the process they belong to.
type SharedPools = (u32, HashMap<Option<usize>, Arc<ThreadPool>>);

/// The shared pools, for the calls that do not run on their thread's own pool.
static SHARED: OnceLock<Mutex<SharedPools>> = OnceLock::new();

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

    /// The calling thread's own pool if it has one of this thread count (made on the first
    /// call of the first thread that calls in).
    fn own_pool(&self) -> Option<Arc<ThreadPool>> {
        let pid = std::process::id();
        OWN.with(|own| {
            let mut own = own.borrow_mut();
            if own.as_ref().is_none_or(|(made_in, _)| *made_in != pid) {
                // A forked child's copy of its parent's pool has no workers: left alone.
                std::mem::forget(own.take());
                *own = Some((pid, (self.threads, self.claim_own_pool(pid))));
            }
            match own.as_ref() {
                Some((_, (threads, pool))) if *threads == self.threads => pool.clone(),
                _ => None,
            }
        })
    }

    /// A pool with the calling thread as its worker 0, if no other thread of this process has
    /// one and this thread is no pool's worker yet.
    fn claim_own_pool(&self, pid: u32) -> Option<Arc<ThreadPool>> {
        let mut owner = OWNER.lock().unwrap_or_else(|e| e.into_inner());
        if owner.is_some_and(|(made_in, _)| made_in == pid)
            || rayon::current_thread_index().is_some()
        {
            return None;
        }
        let pool = self.builder().use_current_thread().build().ok()?;
        *owner = Some((pid, std::thread::current().id()));
        Some(Arc::new(pool))
    }

    /// The shared pool of this thread count (made on first use in this process).
    fn shared_pool(&self) -> PyResult<Arc<ThreadPool>> {
        let pid = std::process::id();
        let shared = SHARED.get_or_init(|| Mutex::new((pid, HashMap::new())));
        let mut shared = shared.lock().unwrap_or_else(|e| e.into_inner());
        if shared.0 != pid {
            // A forked child: the parent's workers are not here. Its pools are left alone (their
            // threads cannot be joined), and this process makes its own.
            std::mem::forget(std::mem::take(&mut shared.1));
            shared.0 = pid;
        }
        let shared = &mut shared.1;
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
