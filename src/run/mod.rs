//! What both engines' runs share: the output directory's contract ([`output_dir`]), the one
//! entry for a run from a file ([`request`]), which the command line and the Python module call,
//! the hash behind every configuration fingerprint ([`fingerprint`]), sharded runs and
//! `orrery merge` ([`shard`]), and the ensemble table's format ([`summary_table`]).

pub mod fingerprint;
pub mod output_dir;
pub mod request;
pub mod shard;
pub mod summary_table;
