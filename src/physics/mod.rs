//! Backend-free mathematics of the hybrid engine.

pub mod changeover;
