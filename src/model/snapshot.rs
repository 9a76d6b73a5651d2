//! The restart state of the hybrid engine.

use crate::model::Layout;
use crate::state::Bodies;

/// The state a backend must hand over for a bitwise-exact restart: the bodies (democratic
/// coordinates) in their slots, the layout, and the kick state reused by the next opening kick.
/// An empty layout means one system of all bodies, all massive.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HybridSnapshot {
    pub bodies: Bodies,
    pub layout: Layout,
    pub rcrit: Vec<f64>,
    pub far: [Vec<f64>; 3],
    pub near: [Vec<f64>; 3],
    pub candidates: Vec<(u32, u32)>,
}
