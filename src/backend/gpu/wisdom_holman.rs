//! The Wisdom-Holman map on a device: a pack's systems resident in device buffers, one
//! work-item per system, each step one launch of `orr_wh_step` (`kernels/wisdom_holman.cl`,
//! the arithmetic of [`WhPack::step`] operation for operation), or of `orr_wh_step_megno` with
//! the variations on (each system's tangent vector and MEGNO sums stepped beside it, as
//! [`crate::physics::wisdom_holman::Variations`] does), and one read of a status word.
//! The state (and the tangent vectors) live in two buffers, each step reading one and writing
//! the other, so that a system whose drift fails goes back to its state before the step as the
//! CPU's does.
//! The positions and velocities come back only when the run reads them ([`ResidentPack::fetch`]);
//! the stops at the step that finds them; J2's torque after every step, as the CPU books it.
//!
//! The buffers keep the pack's body-major layout, several components one after another (see the
//! kernel's header): the work-items of one body read consecutive doubles.

use super::field::Field as Buffer;
use super::{Gpu, Kernel};
use crate::error::Result;
use crate::physics::kepler::KeplerError;
use crate::physics::wisdom_holman::{
    LaneStop, MegnoSums, PackView, PotentialView, ResidentPack, VariationsView, WatchView, WhError,
    WhPack,
};

/// The kernel module (`kernels/wisdom_holman.cl`, `cuda/wisdom_holman.cu`).
pub const MODULE: &str = "wisdom_holman";

/// Work-items per work-group.
const LOCAL_SIZE: usize = 64;

/// The kernel's flags (`ORR_WH_*` of `kernels/common/wisdom_holman.h`).
const WATCH: u32 = 1;
const PAIRS: u32 = 2;
const SWEEP: u32 = 4;
const COLLIDE: u32 = 8;
const POTENTIAL: u32 = 16;
const TORQUE: u32 = 32;
const MEGNO_STOP: u32 = 64;

/// The stop kinds (`ORR_WH_*`).
const INNER: u32 = 1;
const OUTER: u32 = 2;
const ENCOUNTER: u32 = 3;
const COLLISION: u32 = 4;
const FAILED: u32 = 5;
const CHAOTIC: u32 = 6;

/// The status word: systems with a new event.
const STATUS_STOPS: usize = 0;

/// A pack resident on a device.
pub struct DevicePack {
    /// The step from `jac[0]` into `jac[1]`, and the step back.
    kernels: [Kernel; 2],
    /// Which of `jac` holds the state.
    current: usize,
    lanes: usize,
    bodies: usize,
    jac: [Buffer<f64>; 2],
    torque: Buffer<f64>,
    stop_u: Buffer<u32>,
    stop_f: Buffer<f64>,
    status: Buffer<u32>,
    /// Whether J2's torque is tallied (read after every step).
    torque_on: bool,
    /// With the variations on: the tangent vectors (alternating as `jac`), the MEGNO sums and
    /// their host copies.
    variations: Option<DeviceVariations>,
    /// Host copies of the state, the torque and the stops, allocated once.
    jac_host: Vec<f64>,
    torque_host: Vec<f64>,
    stop_u_host: Vec<u32>,
    stop_f_host: Vec<f64>,
    /// The device's buffers besides those above: held for the kernel's arguments.
    _held: Vec<Buffer<f64>>,
}

/// A pack's variations on a device.
struct DeviceVariations {
    tan: [Buffer<f64>; 2],
    sums: Buffer<f64>,
    tan_host: Vec<f64>,
    sums_host: Vec<f64>,
    /// The tangent step's scratch (five three-component arrays).
    work: Buffer<f64>,
}

impl DeviceVariations {
    /// The variations `view` of a pack of `lanes` systems of `bodies` bodies on `gpu`.
    fn upload(gpu: &Gpu, view: &VariationsView<'_>, lanes: usize, bodies: usize) -> Result<Self> {
        let (dx, dv) = (view.dx, view.dv);
        let tan_host = concat(&[&dx[0], &dx[1], &dx[2], &dv[0], &dv[1], &dv[2]]);
        let mut sums_host = vec![0.0; SUMS * lanes];
        for (s, sums) in view.sums.iter().enumerate() {
            for (c, v) in sums.values().into_iter().enumerate() {
                sums_host[c * lanes + s] = v;
            }
        }
        Ok(DeviceVariations {
            tan: [
                Buffer::from_host(gpu, "wh tangent vectors", &tan_host)?,
                Buffer::from_host(gpu, "wh tangent vectors after the step", &tan_host)?,
            ],
            sums: Buffer::from_host(gpu, "wh MEGNO sums", &sums_host)?,
            work: Buffer::new(gpu, "wh tangent work", 15 * lanes * bodies)?,
            tan_host,
            sums_host,
        })
    }
}

/// MEGNO sums per system ([`MegnoSums::values`]).
const SUMS: usize = 9;

/// A device error as the map's.
fn device(e: crate::error::Error) -> WhError {
    WhError::Device(e.to_string())
}

/// Three component arrays one after another.
fn concat(parts: &[&[f64]]) -> Vec<f64> {
    parts.iter().flat_map(|p| p.iter().copied()).collect()
}

/// The stop kind, bodies and distance of `stop` as the kernel keeps them.
fn encode(stop: Option<LaneStop>) -> ([u32; 3], f64) {
    match stop {
        None => ([0; 3], 0.0),
        Some(LaneStop::Inner(k, d)) => ([INNER, k as u32, 0], d),
        Some(LaneStop::Outer(k, d)) => ([OUTER, k as u32, 0], d),
        Some(LaneStop::Encounter(a, b, d)) => ([ENCOUNTER, a as u32, b as u32], d),
        Some(LaneStop::Collision(a, b, d)) => ([COLLISION, a as u32, b as u32], d),
        Some(LaneStop::Failed(k, why)) => ([FAILED, k as u32, kepler_code(why)], 0.0),
        Some(LaneStop::Chaotic(megno)) => ([CHAOTIC, 0, 0], megno),
    }
}

/// A Kepler failure's code in the kernels (`ORR_KEPLER_*` of `kernels/common/kepler.h`).
fn kepler_code(why: KeplerError) -> u32 {
    match why {
        KeplerError::InvalidInput => 1,
        KeplerError::NoConvergence => 2,
        KeplerError::NonFinite => 3,
    }
}

/// The event the kernel keeps as `kind`, `a`, `b` and `distance`.
fn decode([kind, a, b]: [u32; 3], d: f64) -> Option<LaneStop> {
    let (a, b) = (a as usize, b as usize);
    match kind {
        INNER => Some(LaneStop::Inner(a, d)),
        OUTER => Some(LaneStop::Outer(a, d)),
        ENCOUNTER => Some(LaneStop::Encounter(a, b, d)),
        COLLISION => Some(LaneStop::Collision(a, b, d)),
        FAILED => Some(LaneStop::Failed(a, kepler_error(b as u32))),
        CHAOTIC => Some(LaneStop::Chaotic(d)),
        _ => None,
    }
}

/// The Kepler failure of code `code` ([`kepler_code`]).
fn kepler_error(code: u32) -> KeplerError {
    match code {
        1 => KeplerError::InvalidInput,
        2 => KeplerError::NoConvergence,
        _ => KeplerError::NonFinite,
    }
}

/// The kernel's flags and pair limits for a pack's watch and potential.
fn settings(
    watch: Option<&WatchView<'_>>,
    potential: Option<&PotentialView<'_>>,
    variations: Option<&VariationsView<'_>>,
) -> (u32, [f64; 2]) {
    let mut flags = 0;
    let mut limits = [0.0; 2];
    if let Some(w) = watch {
        let l = w.limits;
        flags |= WATCH;
        flags |= if l.any() { PAIRS } else { 0 } | if w.sweeps { SWEEP } else { 0 };
        flags |= if l.collision { COLLIDE } else { 0 };
        limits = [l.hill_radii, l.min_distance];
    }
    if let Some(p) = potential {
        flags |= POTENTIAL | if p.forces.has_torque() { TORQUE } else { 0 };
    }
    if variations.is_some_and(|v| v.stop.is_some()) {
        flags |= MEGNO_STOP;
    }
    (flags, limits)
}

impl DevicePack {
    /// The pack `pack` on `gpu` (opened with [`MODULE`]), in its current state.
    pub fn upload(gpu: &Gpu, pack: &WhPack) -> Result<Self> {
        let view = pack.view();
        let (l, n) = (view.lanes, view.bodies);
        let nl = n * l;
        let (flags, [hill_radii, min_distance]) = settings(
            view.watch.as_ref(),
            view.potential.as_ref(),
            view.variations.as_ref(),
        );
        let f64s = |name, host: &[f64]| Buffer::from_host(gpu, name, host);
        let masses = f64s("wh masses", &concat(&view.masses))?;
        let jac_host = state_of(&view);
        let jac = [
            f64s("wh state", &jac_host)?,
            f64s("wh state after the step", &jac_host)?,
        ];
        let work = Buffer::new(gpu, "wh work", 3 * nl)?;
        let acc = Buffer::new(gpu, "wh accelerations", 3 * nl)?;
        let sweeps = flags & SWEEP != 0;
        let ends = Buffer::new(gpu, "wh sweep ends", if sweeps { 12 * nl } else { 0 })?;
        let zeros = vec![0.0; nl];
        let (sys, body) = match &view.watch {
            Some(w) => (
                concat(&[w.inner2, w.outer2]),
                concat(&[w.hill_factor, w.radius, &zeros]),
            ),
            None => (vec![0.0; 2 * l], vec![0.0; 3 * nl]),
        };
        let sys = f64s("wh truncation radii", &sys)?;
        let body = f64s("wh body limits", &body)?;
        let (forces, ratio, torque_host) = match &view.potential {
            Some(p) => (
                p.forces.device_constants().to_vec(),
                p.ratio.to_vec(),
                concat(&[&p.torque[0], &p.torque[1], &p.torque[2]]),
            ),
            None => (vec![0.0; 1], vec![0.0; 1], vec![0.0; 3 * l]),
        };
        let forces = f64s("wh forces", &forces)?;
        let ratio = f64s("wh mass ratios", &ratio)?;
        let torque = f64s("wh torque", &torque_host)?;
        let torque_kept = Buffer::new(gpu, "wh torque before the kick", torque_host.len())?;
        let mut stop_u_host = vec![0u32; 4 * l];
        let mut stop_f_host = vec![0.0; 2 * l];
        for s in 0..l {
            let (words, d) = encode(view.stops[s]);
            for (c, w) in words.into_iter().enumerate() {
                stop_u_host[c * l + s] = w;
            }
            stop_f_host[s] = d;
            stop_f_host[l + s] = view.stop_after[s];
        }
        let stop_u = Buffer::from_host(gpu, "wh stops", &stop_u_host)?;
        let stop_f = f64s("wh stop distances", &stop_f_host)?;
        let status = Buffer::from_host(gpu, "wh status", &[0])?;
        let variations = match &view.variations {
            Some(v) => Some(DeviceVariations::upload(gpu, v, l, n)?),
            None => None,
        };
        let (megno_above, megno_after) = view
            .variations
            .and_then(|v| v.stop)
            .unwrap_or((f64::INFINITY, 0.0));
        let step = |from: usize| {
            let to = 1 - from;
            let name = match &variations {
                Some(_) => "orr_wh_step_megno",
                None => "orr_wh_step",
            };
            let mut kernel = gpu.kernel(name);
            kernel
                .arg(l as u32)
                .arg(n as u32)
                .arg(view.dt)
                .arg(flags)
                .arg(hill_radii)
                .arg(min_distance)
                .arg(&masses)
                .arg(&jac[from])
                .arg(&jac[to])
                .arg(&work)
                .arg(&acc)
                .arg(&ends)
                .arg(&sys)
                .arg(&body)
                .arg(&forces)
                .arg(&ratio)
                .arg(&torque)
                .arg(&torque_kept)
                .arg(&stop_u)
                .arg(&stop_f)
                .arg(&status);
            match &variations {
                Some(v) => kernel
                    .arg(&v.tan[from])
                    .arg(&v.tan[to])
                    .arg(&v.work)
                    .arg(&v.sums)
                    .arg(megno_above)
                    .arg(megno_after)
                    .build(),
                None => kernel.build(),
            }
        };
        let kernels = [step(0)?, step(1)?];
        Ok(DevicePack {
            kernels,
            current: 0,
            lanes: l,
            bodies: n,
            jac,
            torque,
            stop_u,
            stop_f,
            status,
            torque_on: flags & TORQUE != 0,
            variations,
            jac_host,
            torque_host,
            stop_u_host,
            stop_f_host,
            _held: vec![
                masses,
                work,
                acc,
                ends,
                sys,
                body,
                forces,
                ratio,
                torque_kept,
            ],
        })
    }

    /// Read the stops of every system into `pack`'s, and which systems a failed drift put a
    /// step behind (their failure word set).
    fn fetch_stops(&mut self, pack: &mut WhPack) -> Result<()> {
        self.stop_u.download(&mut self.stop_u_host)?;
        self.stop_f.download(&mut self.stop_f_host)?;
        let l = self.lanes;
        let parts = pack.parts();
        for s in 0..l {
            let words = [0, 1, 2].map(|c| self.stop_u_host[c * l + s]);
            parts.stops[s] = decode(words, self.stop_f_host[s]);
            parts.stop_after[s] = self.stop_f_host[l + s];
            parts.behind[s] = self.stop_u_host[3 * l + s] != 0;
        }
        Ok(())
    }
}

/// The Jacobi positions and velocities of a view, as the kernel keeps them.
fn state_of(view: &PackView<'_>) -> Vec<f64> {
    let (x, v) = (view.x, view.v);
    concat(&[&x[0], &x[1], &x[2], &v[0], &v[1], &v[2]])
}

impl ResidentPack for DevicePack {
    fn step(&mut self, pack: &mut WhPack) -> std::result::Result<(), WhError> {
        self.kernels[self.current]
            .launch(self.lanes, Some(LOCAL_SIZE))
            .map_err(device)?;
        self.current ^= 1;
        let mut status = [0u32; 1];
        self.status.download(&mut status).map_err(device)?;
        *pack.parts().steps += 1;
        if status[STATUS_STOPS] != 0 {
            self.fetch_stops(pack).map_err(device)?;
            self.status.upload(&[0]).map_err(device)?;
        }
        Ok(())
    }

    fn fetch(&mut self, pack: &mut WhPack) -> std::result::Result<(), WhError> {
        let jac = &self.jac[self.current];
        jac.download(&mut self.jac_host).map_err(device)?;
        let nl = self.lanes * self.bodies;
        let parts = pack.parts();
        for c in 0..3 {
            parts.x[c].copy_from_slice(&self.jac_host[c * nl..(c + 1) * nl]);
            parts.v[c].copy_from_slice(&self.jac_host[(3 + c) * nl..(4 + c) * nl]);
        }
        let (Some(dev), Some(var)) = (&mut self.variations, parts.variations) else {
            return Ok(());
        };
        dev.tan[self.current]
            .download(&mut dev.tan_host)
            .map_err(device)?;
        dev.sums.download(&mut dev.sums_host).map_err(device)?;
        for c in 0..3 {
            var.dx[c].copy_from_slice(&dev.tan_host[c * nl..(c + 1) * nl]);
            var.dv[c].copy_from_slice(&dev.tan_host[(3 + c) * nl..(4 + c) * nl]);
        }
        let l = self.lanes;
        for (s, sums) in var.sums.iter_mut().enumerate() {
            let values = std::array::from_fn(|c| dev.sums_host[c * l + s]);
            *sums = MegnoSums::from_values(values)
                .ok_or_else(|| WhError::Device(format!("system {s}'s MEGNO count is broken")))?;
        }
        Ok(())
    }

    fn drain_torque(
        &mut self,
        book: &mut dyn FnMut(usize, [f64; 3]),
    ) -> std::result::Result<(), WhError> {
        if !self.torque_on {
            return Ok(());
        }
        self.torque
            .download(&mut self.torque_host)
            .map_err(device)?;
        let l = self.lanes;
        for s in 0..l {
            book(s, [0, 1, 2].map(|c| self.torque_host[c * l + s]));
        }
        self.torque_host.fill(0.0);
        self.torque.upload(&self.torque_host).map_err(device)
    }
}

/// The pack `pack` resident on `gpu`, its torque tallies handed to the device (zeroed in the
/// pack, which no longer steps itself).
pub fn resident(gpu: &Gpu, pack: &mut WhPack) -> Result<Box<dyn ResidentPack>> {
    let device = DevicePack::upload(gpu, pack)?;
    if let Some(t) = pack.parts().torque {
        t.iter_mut().for_each(|c| c.fill(0.0));
    }
    Ok(Box::new(device))
}
