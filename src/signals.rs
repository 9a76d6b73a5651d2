//! Requests from outside a running integration: stop (SIGINT, SIGTERM, SIGHUP: finish the step,
//! write a snapshot and a checkpoint, return) and checkpoint now (SIGUSR1: write a checkpoint and
//! carry on). The run drivers poll these flags once per step; the command line installs the
//! signal handlers that set them, so library code never touches process-wide signal state.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// Set to ask a running integration for a checkpoint at the end of the current step; the run
/// clears it when the checkpoint is written.
pub static CHECKPOINT_REQUESTED: AtomicBool = AtomicBool::new(false);

/// Whether a checkpoint was requested since the last call (and clear the request).
pub fn take_checkpoint_request() -> bool {
    CHECKPOINT_REQUESTED.swap(false, Ordering::Relaxed)
}

/// The stop request: set by the handlers, polled by the run drivers.
pub static STOP: AtomicBool = AtomicBool::new(false);

/// The signal that asked for the stop (0 when none did).
pub static STOP_SIGNAL: AtomicI32 = AtomicI32::new(0);

/// The exit code for a run stopped by signal `sig`: 128 + the signal's number (130 for SIGINT,
/// 143 for SIGTERM, 129 for SIGHUP), 130 when the number is unknown.
pub fn exit_code(sig: i32) -> u8 {
    if (1..=127).contains(&sig) {
        (128 + sig) as u8
    } else {
        130
    }
}

#[cfg(unix)]
extern "C" fn on_signal(sig: libc::c_int) {
    // Only atomic stores: async-signal-safe.
    if sig == libc::SIGUSR1 {
        CHECKPOINT_REQUESTED.store(true, Ordering::Relaxed);
    } else {
        STOP_SIGNAL.store(sig, Ordering::Relaxed);
        STOP.store(true, Ordering::Relaxed);
    }
}

/// Install the handlers of SIGINT, SIGTERM, SIGHUP (stop) and SIGUSR1 (checkpoint).
#[cfg(unix)]
pub fn install() -> std::io::Result<()> {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGUSR1] {
        // SAFETY: a zeroed sigaction with an empty mask and a handler that only stores atomics.
        let rc = unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(sig, &action, std::ptr::null_mut())
        };
        if rc != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    INSTALLED.store(true, Ordering::Relaxed);
    Ok(())
}

/// Whether [`install`] put the command line's handlers in place.
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// Put the handlers of [`install`] back where a library loaded since took them over, and do
/// nothing where they were never installed (library use, Python). PoCL's LLVM registers its
/// own handlers when an OpenCL platform is first listed, and its SIGUSR1 handler does not pass
/// the signal on, so without this a build with OpenCL ignored SIGUSR1's checkpoint. The OpenCL
/// backend calls it after listing devices and after building its programs.
#[cfg(unix)]
pub fn reclaim() {
    if INSTALLED.load(Ordering::Relaxed) {
        // The same sigaction calls that succeeded at start-up.
        let _ = install();
    }
}

/// [`reclaim`] where there are no POSIX signals: the Ctrl-C handler stays in place.
#[cfg(not(unix))]
pub fn reclaim() {}

/// SIGINT (Ctrl-C) handled as a stop request while this guard lives, the handler before it
/// restored when it drops: for hosts such as the Python interpreter, whose own handler would
/// only run once the integration returns.
#[cfg(unix)]
pub struct InterruptScope {
    saved: libc::sigaction,
}

#[cfg(unix)]
impl InterruptScope {
    /// Route SIGINT to [`STOP`] (clearing an earlier stop request) until the guard drops.
    pub fn new() -> std::io::Result<Self> {
        STOP.store(false, Ordering::Relaxed);
        STOP_SIGNAL.store(0, Ordering::Relaxed);
        // SAFETY: as in `install`; the previous action is saved to be put back.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            let mut saved: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGINT, &action, &mut saved) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(InterruptScope { saved })
        }
    }

    /// Whether SIGINT arrived while the guard lived.
    pub fn interrupted(&self) -> bool {
        STOP_SIGNAL.load(Ordering::Relaxed) == libc::SIGINT
    }
}

#[cfg(unix)]
impl Drop for InterruptScope {
    fn drop(&mut self) {
        // SAFETY: puts back the action saved by `new`.
        unsafe {
            libc::sigaction(libc::SIGINT, &self.saved, std::ptr::null_mut());
        }
    }
}

/// Install the Ctrl-C handler (stop) where there are no POSIX signals.
#[cfg(not(unix))]
pub fn install() -> std::io::Result<()> {
    ctrlc::set_handler(|| {
        STOP_SIGNAL.store(2, Ordering::Relaxed);
        STOP.store(true, Ordering::Relaxed);
    })
    .map_err(std::io::Error::other)
}
