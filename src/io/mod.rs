//! Reading initial conditions, writing outputs and checkpoints.

pub mod checkpoint;
pub mod generate;
pub mod initial_conditions;
pub mod output;
