//! What a run tells its caller while it runs, the same for both engines: one [`RunEvent`] type
//! that the hybrid and sheet run drivers send to one [`Observer`], which `orrery run` turns
//! into its lines and progress bar and the Python module may ignore. The library prints
//! nothing itself.

/// Which engine a run is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    Hybrid,
    Sheet,
}

/// How far a running integration is, sent about once a second.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// The step reached.
    pub step: u64,
    /// The step this invocation started from (0, or a checkpoint's).
    pub first_step: u64,
    /// The run's end step.
    pub last_step: u64,
    /// Bodies or particles now.
    pub n: usize,
    /// Wall time of this invocation's steps so far, in seconds.
    pub elapsed_s: f64,
}

impl Progress {
    /// Wall time per step so far, in seconds.
    pub fn per_step(&self) -> f64 {
        self.elapsed_s / (self.step - self.first_step).max(1) as f64
    }

    /// Wall time left at the pace so far, in seconds.
    pub fn eta_s(&self) -> f64 {
        self.per_step() * self.last_step.saturating_sub(self.step) as f64
    }
}

/// What a run tells its caller while it runs.
#[derive(Debug, Clone, PartialEq)]
pub enum RunEvent {
    /// The run starts: its engine, number of bodies or particles, and a line describing it.
    Started {
        engine: Engine,
        n: usize,
        line: String,
    },
    /// A warning about the input (the run goes on).
    Warning(String),
    /// How far the run is, about once a second.
    Progress(Progress),
}

/// The caller's end of a run's events.
pub type Observer<'o> = dyn FnMut(RunEvent) + Send + 'o;
