//! The shearing-sheet engine (the OCCLUDE design, Vincent 2014, section 3; REBOUND's shearing
//! sheet is the same physics): a patch of a dense planetary ring in the frame rotating with the
//! local Keplerian angular velocity Omega.
//!
//! **Units: SI** inside this engine (metres, kilograms, seconds; G = 6.67428e-11 m^3 kg^-1 s^-2
//! unless the scenario says otherwise). x points radially outwards, y along the orbit, z
//! vertically; the box is `[-L/2, L/2)` in x and y and open in z.
//!
//! One step (DESIGN.md, "The sheet step"), written once as an ordered sequence of passes on a
//! [`SheetBackend`] so a device backend can execute the same sequence on resident buffers:
//!
//! 1. SEI drift H0(dt/2) ([`sei`], Rein & Tremaine 2011; OCCLUDE eq. 15 with (y0 - y_g)),
//! 2. shear-periodic boundary ([`boundary`]),
//! 3. Morton keys, sort, octree build from the sorted keys, moments ([`tree`]),
//! 4. tree gravity with ghost boxes ([`gravity`], Bonsai group walk and opening criterion),
//! 5. kick dt and SEI drift H0(dt/2) (OCCLUDE eqs. 16-17),
//! 6. boundary, 7. tree build, 8. collision search ([`collisions`], OCCLUDE eq. 18-19 with each
//!    cell's largest radius), 9. collision resolution (hard spheres, OCCLUDE eq. 13, Bridges et
//!    al. restitution eq. 21), every pair once in a deterministic order.

#[cfg(test)]
mod device_math_tests;
pub mod run;

use std::path::Path;
use std::time::Instant;

// The sheet's parts by the rule both engines follow: its physics in `physics::sheet`, its
// backends in `backend::sheet`, its scenario in `config::sheet`, its checkpoint in
// `io::sheet_checkpoint`; the engine keeps the step and the run.
pub use crate::backend::create_sheet as create_backend;
pub use crate::backend::sheet::{
    fields, BackendSpec, CpuSheet, SheetBackend, SheetFallback, SheetField, SheetFieldData,
    SheetFieldSet, SheetPass, SheetPassSet,
};
pub use crate::config::sheet as scenario;
pub use crate::io::sheet_checkpoint as checkpoint;
pub use crate::physics::sheet::{
    boundary, collisions, gravity, sei, tree, GravityStats, Particles, Restitution, SheetParams,
};
pub use run::SheetSummary;

use crate::error::Result;

/// Wall time spent in each pass [s], summed over steps.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SheetPassTimes {
    /// SEI drifts and the kick.
    pub integrate: f64,
    /// Shear-periodic boundary.
    pub boundary: f64,
    /// Morton keys, sort, reorder and octree build (both builds).
    pub tree: f64,
    /// Monopole and quadrupole moments.
    pub moments: f64,
    /// Gravity walk and interaction-list evaluation.
    pub gravity: f64,
    /// Collision search.
    pub collision_search: f64,
    /// Collision resolution.
    pub collision_resolve: f64,
}

impl SheetPassTimes {
    /// Sum of all passes.
    pub fn total(&self) -> f64 {
        self.integrate
            + self.boundary
            + self.tree
            + self.moments
            + self.gravity
            + self.collision_search
            + self.collision_resolve
    }
}

/// Counts from one step.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StepCounts {
    /// Approaching overlapping pairs found by the search.
    pub candidates: u64,
    /// Pairs resolved (still approaching when their turn came).
    pub collisions: u64,
}

/// One sheet step from time `t` to `t + dt` as the ordered list of passes (module docs). Each
/// pass's wall time (waiting for the backend to finish it) goes to `times`.
pub fn step<B: SheetBackend + ?Sized>(
    b: &mut B,
    t: f64,
    dt: f64,
    times: &mut SheetPassTimes,
) -> Result<StepCounts> {
    let mut clock = Instant::now();
    let mut lap = |b: &mut B, slot: &mut f64| -> Result<()> {
        b.finish()?;
        let now = Instant::now();
        *slot += (now - clock).as_secs_f64();
        clock = now;
        Ok(())
    };
    let half = 0.5 * dt;
    b.drift(half)?;
    lap(b, &mut times.integrate)?;
    b.boundary(t + half)?;
    lap(b, &mut times.boundary)?;
    b.build_tree()?;
    lap(b, &mut times.tree)?;
    b.moments()?;
    lap(b, &mut times.moments)?;
    b.gravity(t + half)?;
    lap(b, &mut times.gravity)?;
    b.kick(dt)?;
    b.drift(half)?;
    lap(b, &mut times.integrate)?;
    b.boundary(t + dt)?;
    lap(b, &mut times.boundary)?;
    b.build_tree()?;
    lap(b, &mut times.tree)?;
    b.moments()?;
    lap(b, &mut times.moments)?;
    let candidates = b.collision_search(t + dt)? as u64;
    lap(b, &mut times.collision_search)?;
    let collisions = b.resolve_collisions(t + dt)? as u64;
    lap(b, &mut times.collision_resolve)?;
    Ok(StepCounts {
        candidates,
        collisions,
    })
}

/// True when `path` holds a sheet scenario: a RON file whose top-level value is `Sheet(...)`
/// (comments and whitespace before it are skipped). Unreadable files give false, so that the
/// regular loader reports the problem.
pub fn is_sheet_scenario(path: &Path) -> bool {
    match std::fs::read_to_string(path) {
        Ok(text) => scenario::starts_with_sheet(&text),
        Err(_) => false,
    }
}
