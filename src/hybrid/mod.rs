//! The GENGA hybrid engine: the step, its Yoshida composition, the run driver and the sharding
//! of ensembles and lists over independent processes.

pub mod run;
pub mod shard;
pub mod stepper;
pub mod yoshida;
