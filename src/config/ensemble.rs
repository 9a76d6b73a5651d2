//! Stability ensembles: one RON file describing M systems made of fixed known planets plus
//! hypothetical bodies drawn from given element ranges with per-system seeds. The ensemble runs
//! in multi-simulation mode and ends with a summary table (`summary.csv`).

use crate::config::scenario::Scenario;
use crate::error::{Error, Location, Result};
use crate::physics::elements::cartesian_from_elements;
use crate::rng::Rng;
use crate::state::Body;
use crate::units;
use serde::{Deserialize, Serialize};

/// An ensemble file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ensemble {
    /// Number of systems.
    pub systems: usize,
    /// Base seed: system s draws its bodies with seed `seed + s` (reported in the table).
    pub seed: u64,
    /// Hypothetical bodies added to every system, drawn anew per system.
    pub hypothetical: Vec<Drawn>,
    /// Everything else, as in a scenario; its `bodies` are the fixed known planets of every
    /// system and its `output.dir` receives `summary.csv` and the checkpoints.
    /// A `minimum_bodies` of 0 stops a system at its first collision or ejection.
    pub scenario: Scenario,
}

/// A body whose elements are drawn uniformly from ranges (angles in degrees; a missing angle range
/// means the full circle).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Drawn {
    /// The body's name (columns of `summary.csv`).
    pub name: String,
    /// Mass range (Msun).
    pub m: (f64, f64),
    /// Radius (AU); from the scenario's `default_rho` when absent.
    #[serde(default)]
    pub radius: Option<f64>,
    /// Semi-major axis range (AU).
    pub a: (f64, f64),
    /// Eccentricity range.
    pub e: (f64, f64),
    /// Inclination range (degrees).
    pub inc_deg: (f64, f64),
    /// Longitude of the ascending node range (degrees); the full circle when absent.
    #[serde(default)]
    pub node_deg: Option<(f64, f64)>,
    /// Argument of pericentre range (degrees); the full circle when absent.
    #[serde(default)]
    pub peri_deg: Option<(f64, f64)>,
    /// Mean anomaly range (degrees); the full circle when absent.
    #[serde(default)]
    pub mean_anomaly_deg: Option<(f64, f64)>,
}

impl Drawn {
    fn check(&self, at: &dyn Fn() -> Location) -> Result<()> {
        let ranges = [
            ("m", self.m),
            ("a", self.a),
            ("e", self.e),
            ("inc_deg", self.inc_deg),
        ];
        for (field, (lo, hi)) in ranges {
            if !(lo.is_finite() && hi.is_finite() && lo <= hi) {
                return Err(Error::input(
                    at().field(format!("hypothetical `{}`.{field}", self.name)),
                    format!("expected a finite range (lo, hi) with lo <= hi, got ({lo}, {hi})"),
                ));
            }
        }
        if self.m.0 < 0.0 || self.a.0 <= 0.0 || self.e.0 < 0.0 || self.e.1 >= 1.0 {
            return Err(Error::input(
                at().field(format!("hypothetical `{}`", self.name)),
                "expected m >= 0, a > 0 and 0 <= e < 1",
            ));
        }
        Ok(())
    }

    /// Draw one body around `m0`.
    fn draw(&self, rng: &mut Rng, m0: f64, rho: f64) -> std::result::Result<Body, String> {
        let deg = std::f64::consts::PI / 180.0;
        let full = (0.0, 360.0);
        let pick = |rng: &mut Rng, (lo, hi): (f64, f64)| rng.range(lo, hi);
        let m = pick(rng, self.m);
        let a = pick(rng, self.a);
        let e = pick(rng, self.e);
        let inc = pick(rng, self.inc_deg) * deg;
        let node = pick(rng, self.node_deg.unwrap_or(full)) * deg;
        let peri = pick(rng, self.peri_deg.unwrap_or(full)) * deg;
        let mean = pick(rng, self.mean_anomaly_deg.unwrap_or(full)) * deg;
        let (pos, vel) = cartesian_from_elements(m0 + m, a, e, inc, node, peri, mean)
            .map_err(|err| format!("`{}`: invalid drawn elements ({err:?})", self.name))?;
        let r = self
            .radius
            .unwrap_or_else(|| units::radius_from_density(m, rho));
        Ok(Body {
            id: 0,
            m,
            r,
            pos,
            vel,
            spin: [0.0; 3],
        })
    }
}

/// Parse an ensemble file's text (`None` when it is not an ensemble).
pub fn parse(text: &str, path: &std::path::Path) -> Option<Result<Ensemble>> {
    if !text
        .lines()
        .any(|l| l.trim_start().starts_with("Ensemble("))
    {
        return None;
    }
    Some(ron::from_str(text).map_err(|e| {
        Error::input(
            Location::file(path).line(e.span.start.line),
            format!("column {}: {}", e.span.start.col, e.code),
        )
    }))
}

/// The bodies of system `s`: the fixed ones, then the drawn ones, ids counting from 0.
pub fn system_bodies(
    ens: &Ensemble,
    fixed: &[Body],
    s: usize,
    path: &std::path::Path,
) -> Result<Vec<Body>> {
    let at = || Location::file(path);
    let mut rng = Rng::new(ens.seed.wrapping_add(s as u64));
    let sc = &ens.scenario;
    let mut out = fixed.to_vec();
    for d in &ens.hypothetical {
        d.check(&at)?;
        let b = d
            .draw(&mut rng, sc.central_mass, sc.default_rho)
            .map_err(|m| {
                let seed = ens.seed.wrapping_add(s as u64);
                Error::input(
                    at().field("hypothetical"),
                    format!("system {s} (seed {seed}): {m}"),
                )
            })?;
        out.push(b);
    }
    for (k, b) in out.iter_mut().enumerate() {
        b.id = k as u64;
    }
    Ok(out)
}
