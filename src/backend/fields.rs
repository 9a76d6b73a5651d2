//! The passes of the hybrid step and the fields of the state each reads and writes.
//!
//! A device backend keeps every [`Field`] resident; the fallback wrapper
//! ([`crate::backend::fallback`]) runs any [`Pass`] on the device or on the CPU reference and
//! moves only the fields that are stale on the side that runs it. The tables here are the whole
//! contract: a pass may read only its [`Pass::reads`] and change only its [`Pass::writes`]; a
//! field it changes in part (some slots, or some of its arrays) is also among its reads. The
//! fallback test drives the wrapper with the CPU backend in the device's seat over every subset
//! of passes and requires the plain CPU bits, which checks these tables without a device.

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

    fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

/// A set of fields.
#[derive(Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct FieldSet(u32);

impl FieldSet {
    /// No field.
    pub const EMPTY: FieldSet = FieldSet(0);

    /// The set of `fields`.
    pub const fn of(fields: &[Field]) -> FieldSet {
        let mut bits = 0;
        let mut k = 0;
        while k < fields.len() {
            bits |= 1 << (fields[k] as u32);
            k += 1;
        }
        FieldSet(bits)
    }

    /// Every field.
    pub fn all() -> FieldSet {
        FieldSet::of(&Field::ALL)
    }

    pub fn contains(self, f: Field) -> bool {
        self.0 & f.bit() != 0
    }

    pub fn insert(&mut self, f: Field) {
        self.0 |= f.bit();
    }

    pub fn remove(&mut self, f: Field) {
        self.0 &= !f.bit();
    }

    pub fn union(self, o: FieldSet) -> FieldSet {
        FieldSet(self.0 | o.0)
    }

    /// The fields in table order.
    pub fn iter(self) -> impl Iterator<Item = Field> {
        Field::ALL.into_iter().filter(move |f| self.contains(*f))
    }
}

impl fmt::Debug for FieldSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

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
}

impl Pass {
    /// Every pass, in step order.
    pub const ALL: [Pass; 13] = [
        Pass::CriticalRadii,
        Pass::RefreshAccelerations,
        Pass::Accelerations,
        Pass::Kick,
        Pass::SunKick,
        Pass::SaveCandidates,
        Pass::Drift,
        Pass::EncounterSearch,
        Pass::Grouping,
        Pass::BulirschStoer,
        Pass::Mergers,
        Pass::Ejections,
        Pass::Energy,
    ];

    /// The name `--cpu-passes` takes.
    pub fn name(self) -> &'static str {
        match self {
            Pass::CriticalRadii => "critical_radii",
            Pass::RefreshAccelerations => "refresh_accelerations",
            Pass::Accelerations => "accelerations",
            Pass::Kick => "kick",
            Pass::SunKick => "sun_kick",
            Pass::SaveCandidates => "save_candidates",
            Pass::Drift => "drift",
            Pass::EncounterSearch => "encounter_search",
            Pass::Grouping => "grouping",
            Pass::BulirschStoer => "bulirsch_stoer",
            Pass::Mergers => "mergers",
            Pass::Ejections => "ejections",
            Pass::Energy => "energy",
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
        }
    }

    /// The fields the pass may change.
    pub fn writes(self) -> FieldSet {
        use Field::*;
        match self {
            Pass::CriticalRadii => FieldSet::of(&[CriticalRadii, Kick]),
            Pass::RefreshAccelerations | Pass::Accelerations => FieldSet::of(&[Kick, Candidates]),
            Pass::Kick => FieldSet::of(&[Velocities]),
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
            Pass::Energy => FieldSet::EMPTY,
        }
    }

    fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

impl fmt::Display for Pass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Pass {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        Pass::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| format!("unknown pass `{s}` (expected {})", Pass::names()))
    }
}

impl Pass {
    /// The pass names, comma-separated, for help texts and messages.
    pub fn names() -> String {
        Pass::ALL.map(Pass::name).join(", ")
    }
}

/// The passes a run executes on the CPU reference instead of the device.
#[derive(Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct PassSet(u32);

impl PassSet {
    /// No pass.
    pub const NONE: PassSet = PassSet(0);

    /// Every pass.
    pub fn all() -> PassSet {
        PassSet::of(&Pass::ALL)
    }

    /// The set of `passes`.
    pub fn of(passes: &[Pass]) -> PassSet {
        PassSet(passes.iter().fold(0, |bits, p| bits | p.bit()))
    }

    /// The subset of [`Pass::ALL`] whose indices are the set bits of `mask`.
    pub fn from_mask(mask: u32) -> PassSet {
        PassSet(mask & ((1 << Pass::ALL.len()) - 1))
    }

    pub fn contains(self, p: Pass) -> bool {
        self.0 & p.bit() != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The passes in either set.
    pub fn union(self, o: PassSet) -> PassSet {
        PassSet(self.0 | o.0)
    }

    /// The passes not in this set.
    pub fn complement(self) -> PassSet {
        PassSet::from_mask(!self.0)
    }

    /// The passes in step order.
    pub fn iter(self) -> impl Iterator<Item = Pass> {
        Pass::ALL.into_iter().filter(move |p| self.contains(*p))
    }

    /// Parse `--cpu-passes` / the scenario field `cpu_passes`: comma-separated pass names,
    /// `all` or `none`.
    pub fn parse(list: &str, at: &Location) -> Result<PassSet> {
        let list = list.trim();
        match list {
            "" | "none" => return Ok(PassSet::NONE),
            "all" => return Ok(PassSet::all()),
            _ => {}
        }
        let mut set = PassSet::NONE;
        for name in list.split(',') {
            let name = name.trim();
            let pass = name.parse::<Pass>().map_err(|msg| {
                Error::input(
                    at.clone(),
                    format!("{msg}; or `all` or `none` (a comma-separated list)"),
                )
            })?;
            set.0 |= pass.bit();
        }
        Ok(set)
    }
}

impl fmt::Debug for PassSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl fmt::Display for PassSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("none");
        }
        let names: Vec<&str> = self.iter().map(Pass::name).collect();
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
    Groups(Box<crate::backend::cpu::GroupBatch>),
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
