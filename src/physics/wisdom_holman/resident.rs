//! A pack's systems resident on a device and stepped there (the OpenCL and CUDA backends'
//! `backend::gpu::wisdom_holman`): the device takes a [`PackView`] of the pack once, steps it
//! with the same arithmetic as [`WhPack::step`], and writes its state back into the pack only
//! when something reads it ([`ResidentPack::fetch`]). The pack keeps everything else: masses,
//! limits, the steps taken and the stops, which the device hands over at the step that finds them.

use super::potential::CentralPotential;
use super::variational::{Variations, VariationsParts, VariationsView};
use super::watch::{LaneStop, PairLimits, Xyz};
use super::{WhError, WhPack};
use crate::physics::forces::Forces;

/// A pack stepped on a device.
pub trait ResidentPack: Send {
    /// One step of every system of `pack` (which this device took its state from): the steps
    /// count of `pack` advances, and systems that met their first event get it in
    /// [`WhPack::stops`] and [`WhPack::stop_after`] (and those a failed drift put back a step,
    /// [`WhPack::behind`]). Their positions and velocities stay on the device until
    /// [`ResidentPack::fetch`].
    fn step(&mut self, pack: &mut WhPack) -> Result<(), WhError>;

    /// Write the device's positions and velocities of every system into `pack` (with the
    /// variations on, the tangent vectors and MEGNO sums too).
    fn fetch(&mut self, pack: &mut WhPack) -> Result<(), WhError>;

    /// Hand `book` (lane, tally) J2's torque of the steps since the last call, as
    /// [`WhPack::drain_torque`] does, and start fresh tallies.
    fn drain_torque(&mut self, book: &mut dyn FnMut(usize, [f64; 3])) -> Result<(), WhError>;
}

/// The watch as a device takes it.
#[derive(Debug, Clone, Copy)]
pub struct WatchView<'a> {
    /// Per system, the squared truncation radii.
    pub inner2: &'a [f64],
    pub outer2: &'a [f64],
    /// Per body (body-major), `(m / 3 M0)^(1/3)` and the physical radius.
    pub hill_factor: &'a [f64],
    pub radius: &'a [f64],
    pub limits: PairLimits,
    /// Whether the drifts are swept ([`super::Watch::sweeps`]).
    pub sweeps: bool,
}

/// The central body's potential forces as a device takes them.
#[derive(Debug, Clone, Copy)]
pub struct PotentialView<'a> {
    pub forces: &'a Forces,
    /// Body-major, `m_k / m_0`.
    pub ratio: &'a [f64],
    /// Per system, the torque tally not yet drained.
    pub torque: &'a Xyz,
}

/// What a device needs of a pack: its shape, its arrays (body-major, [`WhPack`]'s layout) and
/// its settings.
#[derive(Debug, Clone, Copy)]
pub struct PackView<'a> {
    pub lanes: usize,
    pub bodies: usize,
    pub dt: f64,
    /// `m`, `eta`, `1 / eta`, `m / eta`.
    pub masses: [&'a [f64]; 4],
    /// Jacobi positions and velocities, half a drift ahead.
    pub x: &'a Xyz,
    pub v: &'a Xyz,
    pub watch: Option<WatchView<'a>>,
    pub potential: Option<PotentialView<'a>>,
    pub stops: &'a [Option<LaneStop>],
    pub stop_after: &'a [f64],
    pub variations: Option<VariationsView<'a>>,
}

/// What a device writes back into a pack.
#[derive(Debug)]
pub struct PackParts<'a> {
    pub x: &'a mut Xyz,
    pub v: &'a mut Xyz,
    pub steps: &'a mut u64,
    pub stops: &'a mut [Option<LaneStop>],
    pub stop_after: &'a mut [f64],
    /// Per system, whether a failed drift put it back a step ([`WhPack::behind`]).
    pub behind: &'a mut [bool],
    /// J2's torque tallies, when on: zeroed by the device that takes them over.
    pub torque: Option<&'a mut Xyz>,
    pub variations: Option<VariationsParts<'a>>,
}

impl WhPack {
    /// The pack as a device takes it ([`ResidentPack`]).
    pub fn view(&self) -> PackView<'_> {
        let ms = &self.ms;
        PackView {
            lanes: ms.lanes,
            bodies: self.bodies(),
            dt: self.dt,
            masses: [&ms.m, &ms.eta, &ms.inv_eta, &ms.m_over_eta],
            x: &self.x,
            v: &self.v,
            watch: self.watch.as_ref().map(|w| w.view()),
            potential: self.potential.as_ref().map(CentralPotential::view),
            stops: &self.stops,
            stop_after: &self.stop_after,
            variations: self.variations.as_ref().map(Variations::view),
        }
    }

    /// The parts of the pack a device writes back ([`ResidentPack`]).
    pub fn parts(&mut self) -> PackParts<'_> {
        PackParts {
            x: &mut self.x,
            v: &mut self.v,
            steps: &mut self.steps,
            stops: &mut self.stops,
            stop_after: &mut self.stop_after,
            behind: &mut self.behind,
            torque: self.potential.as_mut().map(CentralPotential::torque_mut),
            variations: self.variations.as_mut().map(Variations::parts),
        }
    }
}
