//! Types shared by the engine, the backends and the I/O: the layout of the systems, the step
//! parameters, events, counters and the restart state. This module depends on nothing but the
//! body state, so that `backend`, `hybrid`, `physics`, `io` and `config` all depend on it and
//! not on each other.

mod counts;
mod events;
mod layout;
mod snapshot;

pub use counts::{PassTimes, StepCounts};
pub use events::{
    Collision, Ejection, EncounterEvent, EncounterStats, StepEvents, StopReason, StopRecord,
    GROUP_CLASSES,
};
pub use layout::{Layout, StepParams, System, SystemSpec};
pub use snapshot::HybridSnapshot;
