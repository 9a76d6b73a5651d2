//! Reading initial conditions, writing outputs and checkpoints.

pub mod checkpoint;
pub mod gas_profile;
pub mod generate;
pub mod initial_conditions;
pub mod output;
