//! Everyday tools on a run's output files: orbital elements of a snapshot (`orrery elements`)
//! and PNG figures (`orrery plot`), with no Python needed.

pub mod elements;
pub mod files;
pub mod plot;
