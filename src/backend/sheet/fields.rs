//! The passes of the sheet step and the fields they read and write: what the per-pass fallback
//! ([`super::fallback`]) needs to run any pass on the CPU reference and move only stale fields.
//!
//! | pass | reads | writes |
//! |---|---|---|
//! | drift, boundary | positions, velocities | positions, velocities |
//! | kick | velocities, accelerations | velocities |
//! | tree | positions, velocities, properties | positions, velocities, properties, tree |
//! | moments | positions, properties, tree | tree |
//! | gravity | positions, properties, tree | accelerations |
//! | collision_search | positions, velocities, properties, tree | pairs |
//! | collision_resolution | positions, velocities, properties, pairs | velocities |
//!
//! The tree pass reorders every particle array (Morton order); the accelerations it leaves in
//! the old order are never read (the kick follows a gravity pass, which rewrites them).

use crate::backend::fields::{parse_pass, pass_names, Passes, StepPass};
use crate::backend::sets::{Listed, Set};
#[cfg(test)]
use crate::error::Location;
use crate::physics::sheet::boundary::GhostShift;
use crate::physics::sheet::collisions::Pair;
use crate::physics::sheet::tree::Tree;

/// A pass of the sheet step (DESIGN.md, "The sheet step"), in step order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SheetPass {
    /// SEI drift under H0 (OCCLUDE eq. 15).
    Drift,
    /// `v += dt a` (OCCLUDE eq. 16).
    Kick,
    /// Shear-periodic wrap into the box.
    Boundary,
    /// Morton keys, sort, reorder, octree build.
    Tree,
    /// Monopole, quadrupole, boxes and largest radii of the cells.
    Moments,
    /// Tree gravity with ghost boxes.
    Gravity,
    /// Tree collision search with ghost boxes.
    CollisionSearch,
    /// Hard-sphere resolution of the candidate pairs in search order.
    CollisionResolution,
}

impl SheetPass {
    /// Every pass.
    pub const ALL: [SheetPass; 8] = [
        SheetPass::Drift,
        SheetPass::Kick,
        SheetPass::Boundary,
        SheetPass::Tree,
        SheetPass::Moments,
        SheetPass::Gravity,
        SheetPass::CollisionSearch,
        SheetPass::CollisionResolution,
    ];

    /// The name `--cpu-passes` takes.
    pub fn name(self) -> &'static str {
        match self {
            SheetPass::Drift => "drift",
            SheetPass::Kick => "kick",
            SheetPass::Boundary => "boundary",
            SheetPass::Tree => "tree",
            SheetPass::Moments => "moments",
            SheetPass::Gravity => "gravity",
            SheetPass::CollisionSearch => "collision_search",
            SheetPass::CollisionResolution => "collision_resolution",
        }
    }

    /// All pass names, comma-separated (for help texts and messages).
    pub fn names() -> String {
        pass_names::<SheetPass>()
    }

    /// The fields the pass reads (module docs).
    pub fn reads(self) -> SheetFieldSet {
        use SheetField::*;
        SheetFieldSet::of(match self {
            SheetPass::Drift | SheetPass::Boundary => &[Positions, Velocities],
            SheetPass::Kick => &[Velocities, Accelerations],
            SheetPass::Tree => &[Positions, Velocities, Properties],
            SheetPass::Moments | SheetPass::Gravity => &[Positions, Properties, Tree],
            SheetPass::CollisionSearch => &[Positions, Velocities, Properties, Tree],
            SheetPass::CollisionResolution => &[Positions, Velocities, Properties, Pairs],
        })
    }

    /// The fields the pass writes (module docs).
    pub fn writes(self) -> SheetFieldSet {
        use SheetField::*;
        SheetFieldSet::of(match self {
            SheetPass::Drift | SheetPass::Boundary => &[Positions, Velocities],
            SheetPass::Kick | SheetPass::CollisionResolution => &[Velocities],
            SheetPass::Tree => &[Positions, Velocities, Properties, Tree],
            SheetPass::Moments => &[Tree],
            SheetPass::Gravity => &[Accelerations],
            SheetPass::CollisionSearch => &[Pairs],
        })
    }
}

impl Listed for SheetPass {
    const LIST: &'static [SheetPass] = &SheetPass::ALL;
}

impl StepPass for SheetPass {
    const KIND: &'static str = "sheet pass";
    fn name(self) -> &'static str {
        SheetPass::name(self)
    }
}

impl std::str::FromStr for SheetPass {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        parse_pass(s)
    }
}

/// A set of sheet passes (`--cpu-passes` for a sheet scenario).
pub type SheetPassSet = Passes<SheetPass>;

/// A field of the sheet state, as the fallback moves it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SheetField {
    /// x, y, z.
    Positions,
    /// vx, vy, vz.
    Velocities,
    /// Masses, radii and ids.
    Properties,
    /// The octree: cells, moments, leaves, walk groups and the root cube's side.
    Tree,
    /// Accelerations of the last gravity pass.
    Accelerations,
    /// Candidate pairs of the last collision search, with its ghost offsets.
    Pairs,
}

impl SheetField {
    /// Every field.
    pub const ALL: [SheetField; 6] = [
        SheetField::Positions,
        SheetField::Velocities,
        SheetField::Properties,
        SheetField::Tree,
        SheetField::Accelerations,
        SheetField::Pairs,
    ];
}

impl Listed for SheetField {
    const LIST: &'static [SheetField] = &SheetField::ALL;
}

/// A set of sheet fields.
pub type SheetFieldSet = Set<SheetField>;

/// The contents of one field, as it crosses between a device and the host.
#[derive(Debug, Clone, PartialEq)]
pub enum SheetFieldData {
    Positions([Vec<f64>; 3]),
    Velocities([Vec<f64>; 3]),
    Properties {
        m: Vec<f64>,
        r: Vec<f64>,
        id: Vec<u32>,
    },
    /// The tree and the side of its root cube.
    Tree {
        tree: Tree,
        cube: f64,
    },
    Accelerations(Vec<[f64; 3]>),
    /// The candidate pairs in resolution order and the ghost offsets their `ghost` indexes.
    Pairs {
        pairs: Vec<Pair>,
        ghosts: Vec<GhostShift>,
    },
}

impl SheetFieldData {
    /// Which field this is.
    pub fn field(&self) -> SheetField {
        match self {
            SheetFieldData::Positions(_) => SheetField::Positions,
            SheetFieldData::Velocities(_) => SheetField::Velocities,
            SheetFieldData::Properties { .. } => SheetField::Properties,
            SheetFieldData::Tree { .. } => SheetField::Tree,
            SheetFieldData::Accelerations(_) => SheetField::Accelerations,
            SheetFieldData::Pairs { .. } => SheetField::Pairs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pass_names_round_trip_and_every_write_is_a_field() {
        let at = Location::default().field("--cpu-passes");
        for p in SheetPass::ALL {
            assert_eq!(p.name().parse::<SheetPass>(), Ok(p));
            assert!(p.writes().iter().next().is_some());
        }
        let s = SheetPassSet::parse("gravity, tree", &at).unwrap();
        assert_eq!(s.to_string(), "tree,gravity");
        assert_eq!(
            SheetPassSet::parse("all", &at).unwrap(),
            SheetPassSet::all()
        );
        assert!(SheetPassSet::parse("kepler", &at).is_err());
    }
}
