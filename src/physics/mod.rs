//! Backend-free mathematics of the hybrid engine.

pub mod bulirsch_stoer;
pub mod changeover;
pub mod elements;
pub mod encounter;
pub mod energy;
pub mod forces;
pub mod gas;
pub mod groups;
pub mod kepler;
pub mod merge;
pub mod recursion;
pub mod sheet;
pub mod tides;
pub mod truncation;
pub mod wisdom_holman;
