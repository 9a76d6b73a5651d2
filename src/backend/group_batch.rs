//! The encounter groups of one substep with their Bulirsch-Stoer scratch: the host copy of
//! [`crate::backend::Field::Groups`], which the CPU backend fills and integrates
//! (`cpu/encounters.rs`) and the device backends keep for the groups they hand to the CPU.

use crate::physics::bulirsch_stoer::{BsError, BsStats, BsWorkspace, CollisionEvent, GroupState};
use crate::physics::groups::EncounterGroups;
use crate::physics::recursion::{LevelStats, LevelWorkspace};

/// Scratch of one encounter group's Bulirsch-Stoer integration.
#[derive(Default, Clone, Debug)]
pub(crate) struct GroupWork {
    pub(crate) state: GroupState,
    pub(crate) workspace: BsWorkspace,
    pub(crate) events: Vec<CollisionEvent>,
    pub(crate) result: Option<std::result::Result<BsStats, BsError>>,
    /// Slots of the members, in group order.
    pub(crate) slots: Vec<u32>,
    /// Only the last member (a test particle) is written back.
    pub(crate) test_particle: bool,
    /// The group's encounter pairs in group order (lower first), kept for the recursive
    /// sub-steps ([`crate::physics::recursion`]); empty when they are off.
    pub(crate) pairs: Vec<(u32, u32)>,
    /// Scratch of the recursive sub-steps.
    pub(crate) levels: LevelWorkspace,
    /// Groups the recursive sub-steps formed below the top level.
    pub(crate) level_stats: LevelStats,
}

/// The encounter groups of one substep with their Bulirsch-Stoer states and results: the host
/// copy of [`crate::backend::Field::Groups`].
#[derive(Default, Clone, Debug)]
pub struct GroupBatch {
    pub(crate) groups: EncounterGroups,
    pub(crate) work: Vec<GroupWork>,
}
