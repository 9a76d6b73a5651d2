//! Files: reading initial conditions, writing outputs and checkpoints, and the contracts both
//! engines' runs share: the output directory ([`output_dir`]), the configuration fingerprints'
//! hash ([`fingerprint`]), sharded runs' records and `orrery merge` ([`shard`]), and the ensemble
//! table's format ([`summary_table`]), and what a GENGA restart from a step reads back
//! ([`genga_restart`]).

pub mod binary;
pub mod checkpoint;
pub mod fingerprint;
pub mod gas_profile;
pub mod generate;
pub mod genga_restart;
pub mod initial_conditions;
pub mod output;
pub mod output_dir;
pub mod samples;
pub mod shard;
pub mod sheet_checkpoint;
pub mod summary_table;
