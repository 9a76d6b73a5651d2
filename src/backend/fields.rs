//! The passes of the hybrid step and the fields of the state each reads and writes.
//!
//! A device backend keeps every [`Field`] resident; the fallback wrapper
//! ([`crate::backend::fallback`]) runs any [`Pass`] on the device or on the CPU reference and
//! moves only the fields that are stale on the side that runs it. The tables here are the whole
//! contract: a pass may read only its [`Pass::reads`] and change only its [`Pass::writes`]; a
//! field it changes in part (some slots, or some of its arrays) is also among its reads. The
//! fallback test drives the wrapper with the CPU backend in the device's seat over every subset
//! of passes and requires the plain CPU bits, which checks these tables without a device.

use crate::backend::sets::{Listed, Set};
use crate::error::{Error, Location, Result};
use crate::model::Layout;
use std::fmt;

/// One piece of the resident state of the hybrid engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// Heliocentric positions x, y, z.
    Positions,
    /// Barycentric velocities vx, vy, vz.
    Velocities,
    Masses,
    /// Physical radii.
    Radii,
    /// Spin angular momenta.
    Spins,
    /// Body ids (column `i` of the outputs).
    Ids,
    /// The systems, their lengths and parameters (see [`Layout`]).
    Layout,
    /// Critical radii of the current step (eq. 6).
    CriticalRadii,
    /// The kick state reused by the next opening kick: the critical radii the stored
    /// accelerations were computed with, the far (K = 1) and near parts of the accelerations,
    /// and whether a critical radius grew beyond the precheck margin.
    Kick,
    /// Prechecker candidate pairs of the last full pair pass.
    Candidates,
    /// Positions and velocities of candidate bodies before the drift.
    PreDrift,
    /// Close encounters confirmed by the last search.
    Encounters,
    /// Encounter groups: members, their Bulirsch-Stoer states and results.
    Groups,
}

impl Field {
    /// Every field, in table order.
    pub const ALL: [Field; 13] = [
        Field::Positions,
        Field::Velocities,
        Field::Masses,
        Field::Radii,
        Field::Spins,
        Field::Ids,
        Field::Layout,
        Field::CriticalRadii,
        Field::Kick,
        Field::Candidates,
        Field::PreDrift,
        Field::Encounters,
        Field::Groups,
    ];
}

impl Listed for Field {
    const LIST: &'static [Field] = &Field::ALL;
}

/// A set of fields.
pub type FieldSet = Set<Field>;

/// The per-body fields.
const BODY: [Field; 6] = [
    Field::Positions,
    Field::Velocities,
    Field::Masses,
    Field::Radii,
    Field::Spins,
    Field::Ids,
];

/// A pass of the hybrid step (GENGA paper section 2.2 and 3), in step order. Each runs on the
/// device or, when the user names it in `--cpu-passes`, on the CPU reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pass {
    /// Critical radii (eq. 6).
    CriticalRadii,
    /// KickA/KickB: the stored accelerations updated for the new critical radii.
    RefreshAccelerations,
    /// Full pair accelerations with the changeover and the prechecker (eqs 4-5, 8-9).
    Accelerations,
    /// `v += dt a`.
    Kick,
    /// `v += dt a` of the potential forces (GR, J2) at the current positions.
    PotentialKick,
    /// The radiation kick (pressure and Poynting-Robertson drag) and its work.
    RadiationKick,
    /// The tide kick (tides and rotational deformation): velocities, spins and the central
    /// bodies' spins (in the layout).
    TideKick,
    /// H_C: `x += dt P / M0`.
    SunKick,
    /// Pre-drift states of candidate bodies.
    SaveCandidates,
    /// Kepler drift by f and g functions.
    Drift,
    /// Cubic Hermite minimum distance of candidate pairs (eqs 10-12).
    EncounterSearch,
    /// Union-find grouping of the encounters (appendix A).
    Grouping,
    /// Bulirsch-Stoer integration of the groups (section 3.2.6).
    BulirschStoer,
    /// Groups written back, merger energies, removal of merged bodies (section 3.2.7).
    Mergers,
    /// Removal of bodies beyond the truncation radii.
    Ejections,
    /// Energy and angular momentum of every system.
    Energy,
    /// The Wisdom-Holman map's step of every running system (`integrator: WisdomHolman`): the
    /// map keeps its own state, taking the bodies from snapshots and giving them back by
    /// restores, so it moves no field itself.
    WisdomHolman,
}

impl Pass {
    /// Every pass, in step order.
    pub const ALL: [Pass; 17] = [
        Pass::CriticalRadii,
        Pass::RefreshAccelerations,
        Pass::Accelerations,
        Pass::Kick,
        Pass::PotentialKick,
        Pass::RadiationKick,
        Pass::TideKick,
        Pass::SunKick,
        Pass::SaveCandidates,
        Pass::Drift,
        Pass::EncounterSearch,
        Pass::Grouping,
        Pass::BulirschStoer,
        Pass::Mergers,
        Pass::Ejections,
        Pass::Energy,
        Pass::WisdomHolman,
    ];

    /// The name `--cpu-passes` takes.
    pub fn name(self) -> &'static str {
        match self {
            Pass::CriticalRadii => "critical_radii",
            Pass::RefreshAccelerations => "refresh_accelerations",
            Pass::Accelerations => "accelerations",
            Pass::Kick => "kick",
            Pass::PotentialKick => "potential_kick",
            Pass::RadiationKick => "radiation_kick",
            Pass::TideKick => "tide_kick",
            Pass::SunKick => "sun_kick",
            Pass::SaveCandidates => "save_candidates",
            Pass::Drift => "drift",
            Pass::EncounterSearch => "encounter_search",
            Pass::Grouping => "grouping",
            Pass::BulirschStoer => "bulirsch_stoer",
            Pass::Mergers => "mergers",
            Pass::Ejections => "ejections",
            Pass::Energy => "energy",
            Pass::WisdomHolman => "wisdom_holman",
        }
    }

    /// The fields the pass reads (including those it changes only in part).
    pub fn reads(self) -> FieldSet {
        use Field::*;
        match self {
            Pass::CriticalRadii => {
                FieldSet::of(&[Positions, Velocities, Masses, Layout, CriticalRadii, Kick])
            }
            Pass::RefreshAccelerations => {
                FieldSet::of(&[Positions, Masses, Layout, CriticalRadii, Kick, Candidates])
            }
            Pass::Accelerations => FieldSet::of(&[Positions, Masses, Layout, CriticalRadii, Kick]),
            Pass::Kick => FieldSet::of(&[Velocities, Layout, Kick]),
            // Masses for J2's torque on the orbits.
            Pass::PotentialKick => FieldSet::of(&[Positions, Velocities, Masses, Layout]),
            // Spins for the Yarkovsky effect.
            Pass::RadiationKick => {
                FieldSet::of(&[Positions, Velocities, Masses, Radii, Spins, Layout])
            }
            // Ids name a body's tidal properties; the layout holds the central bodies' spins.
            Pass::TideKick => {
                FieldSet::of(&[Positions, Velocities, Masses, Radii, Spins, Ids, Layout])
            }
            Pass::SunKick => FieldSet::of(&[Positions, Velocities, Masses, Layout]),
            Pass::SaveCandidates => {
                FieldSet::of(&[Positions, Velocities, Layout, Candidates, PreDrift])
            }
            // Masses and ids name a body whose drift failed.
            Pass::Drift => FieldSet::of(&[Positions, Velocities, Masses, Ids, Layout]),
            Pass::EncounterSearch => FieldSet::of(&[
                Positions,
                Velocities,
                Layout,
                CriticalRadii,
                Candidates,
                PreDrift,
            ]),
            Pass::Grouping => FieldSet::of(&BODY).union(FieldSet::of(&[
                Layout,
                CriticalRadii,
                PreDrift,
                Encounters,
            ])),
            Pass::BulirschStoer => FieldSet::of(&[Layout, Groups]),
            Pass::Mergers => FieldSet::of(&BODY).union(FieldSet::of(&[
                Layout,
                CriticalRadii,
                Candidates,
                Groups,
            ])),
            Pass::Ejections => {
                FieldSet::of(&BODY).union(FieldSet::of(&[Layout, CriticalRadii, Candidates]))
            }
            Pass::Energy => FieldSet::of(&[Positions, Velocities, Masses, Spins, Layout]),
            Pass::WisdomHolman => FieldSet::of(&[Layout]),
        }
    }

    /// The fields the pass may change.
    pub fn writes(self) -> FieldSet {
        use Field::*;
        match self {
            Pass::CriticalRadii => FieldSet::of(&[CriticalRadii, Kick]),
            Pass::RefreshAccelerations | Pass::Accelerations => FieldSet::of(&[Kick, Candidates]),
            Pass::Kick | Pass::PotentialKick | Pass::RadiationKick => FieldSet::of(&[Velocities]),
            Pass::TideKick => FieldSet::of(&[Velocities, Spins, Layout]),
            Pass::SunKick => FieldSet::of(&[Positions]),
            Pass::SaveCandidates => FieldSet::of(&[PreDrift]),
            Pass::Drift => FieldSet::of(&[Positions, Velocities]),
            Pass::EncounterSearch => FieldSet::of(&[Encounters]),
            Pass::Grouping | Pass::BulirschStoer => FieldSet::of(&[Groups]),
            // Removal moves bodies (and their critical radii) between slots and clears the
            // candidate list; the stored accelerations are recomputed by the closing kick.
            Pass::Mergers => FieldSet::of(&BODY).union(FieldSet::of(&[
                Layout,
                CriticalRadii,
                Candidates,
                Groups,
            ])),
            Pass::Ejections => {
                FieldSet::of(&BODY).union(FieldSet::of(&[Layout, CriticalRadii, Candidates]))
            }
            Pass::Energy | Pass::WisdomHolman => FieldSet::NONE,
        }
    }
}

impl fmt::Display for Pass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Listed for Pass {
    const LIST: &'static [Pass] = &Pass::ALL;
}

impl StepPass for Pass {
    const KIND: &'static str = "pass";
    fn name(self) -> &'static str {
        Pass::name(self)
    }
}

impl std::str::FromStr for Pass {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        parse_pass(s)
    }
}

impl Pass {
    /// The pass names, comma-separated, for help texts and messages.
    pub fn names() -> String {
        pass_names::<Pass>()
    }
}

/// A pass of an engine's step that `--cpu-passes` can name (the hybrid engine's [`Pass`], the
/// sheet engine's `SheetPass`); [`Listed::LIST`] is in step order.
pub trait StepPass: Listed {
    /// What the passes are called in messages ("pass", "sheet pass").
    const KIND: &'static str;
    /// The name `--cpu-passes` takes.
    fn name(self) -> &'static str;
}

/// The pass called `s`, or a message naming them all.
pub fn parse_pass<P: StepPass>(s: &str) -> std::result::Result<P, String> {
    P::LIST
        .iter()
        .copied()
        .find(|p| p.name() == s)
        .ok_or_else(|| format!("unknown {} `{s}` (expected {})", P::KIND, pass_names::<P>()))
}

/// The names of the passes of `P` in step order, comma-separated.
pub fn pass_names<P: StepPass>() -> String {
    let names: Vec<&str> = P::LIST.iter().map(|p| p.name()).collect();
    names.join(", ")
}

/// A set of passes of one engine: those a run executes on the CPU reference instead of the
/// device (`--cpu-passes`).
pub type Passes<P> = Set<P>;

/// The hybrid engine's passes on the CPU.
pub type PassSet = Passes<Pass>;

impl<P: StepPass> Set<P> {
    /// Parse `--cpu-passes` / the scenario field `cpu_passes`: comma-separated pass names,
    /// `all` or `none`.
    pub fn parse(list: &str, at: &Location) -> Result<Self> {
        let list = list.trim();
        match list {
            "" | "none" => return Ok(Self::NONE),
            "all" => return Ok(Self::all()),
            _ => {}
        }
        let mut set = Self::NONE;
        for name in list.split(',') {
            let pass = parse_pass::<P>(name.trim()).map_err(|msg| {
                Error::input(
                    at.clone(),
                    format!("{msg}; or `all` or `none` (a comma-separated list)"),
                )
            })?;
            set.insert(pass);
        }
        Ok(set)
    }
}

impl<P: StepPass> fmt::Display for Set<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("none");
        }
        let names: Vec<&str> = self.iter().map(|p| p.name()).collect();
        f.write_str(&names.join(","))
    }
}

/// The kick state (see [`Field::Kick`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KickState {
    /// Critical radii the stored accelerations were computed with.
    pub rcrit: Vec<f64>,
    pub far: [Vec<f64>; 3],
    pub near: [Vec<f64>; 3],
    /// Some critical radius grew beyond the precheck margin of the stored accelerations.
    pub radii_grew: bool,
}

/// Pre-drift states of the candidate bodies (see [`Field::PreDrift`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PreDriftStates {
    /// Position and velocity of every saved body.
    pub states: Vec<[f64; 6]>,
    /// Index into `states` of every slot (meaningful for saved bodies only).
    pub index: Vec<u32>,
}

/// Confirmed close encounters (see [`Field::Encounters`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EncounterPairs {
    /// Pairs that join ordinary groups (lower slot first).
    pub pairs: Vec<(u32, u32)>,
    /// Passive test particles with a massive partner (test particle first), sorted.
    pub test_particles: Vec<(u32, u32)>,
}

/// The host copy of one field.
#[derive(Debug, Clone)]
pub enum FieldData {
    Positions([Vec<f64>; 3]),
    Velocities([Vec<f64>; 3]),
    Masses(Vec<f64>),
    Radii(Vec<f64>),
    Spins([Vec<f64>; 3]),
    Ids(Vec<u64>),
    Layout(Layout),
    CriticalRadii(Vec<f64>),
    Kick(KickState),
    Candidates(Vec<(u32, u32)>),
    PreDrift(PreDriftStates),
    Encounters(EncounterPairs),
    Groups(Box<crate::backend::group_batch::GroupBatch>),
}

impl FieldData {
    /// The field this is a copy of.
    pub fn field(&self) -> Field {
        match self {
            FieldData::Positions(_) => Field::Positions,
            FieldData::Velocities(_) => Field::Velocities,
            FieldData::Masses(_) => Field::Masses,
            FieldData::Radii(_) => Field::Radii,
            FieldData::Spins(_) => Field::Spins,
            FieldData::Ids(_) => Field::Ids,
            FieldData::Layout(_) => Field::Layout,
            FieldData::CriticalRadii(_) => Field::CriticalRadii,
            FieldData::Kick(_) => Field::Kick,
            FieldData::Candidates(_) => Field::Candidates,
            FieldData::PreDrift(_) => Field::PreDrift,
            FieldData::Encounters(_) => Field::Encounters,
            FieldData::Groups(_) => Field::Groups,
        }
    }
}

/// Moving single fields between a backend's resident state and the host.
pub trait FieldTransfer {
    /// A host copy of field `f`.
    fn export_field(&mut self, f: Field) -> Result<FieldData>;
    /// Replace a field by a host copy (same slots and layout block as the resident state).
    fn import_field(&mut self, data: FieldData) -> Result<()>;
}

impl serde::Serialize for PassSet {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> serde::Deserialize<'de> for PassSet {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let list = String::deserialize(d)?;
        PassSet::parse(&list, &Location::default().field("cpu_passes"))
            .map_err(serde::de::Error::custom)
    }
}
