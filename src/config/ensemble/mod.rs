//! Stability ensembles: one RON file describing M systems made of fixed known planets plus
//! hypothetical bodies whose elements are drawn from laws with per-system seeds or laid out on a
//! grid ([`draw`]). The ensemble runs in multi-simulation mode and ends with a summary table
//! (`summary.csv`).

mod draw;
mod load;

pub(super) use load::load;

pub use draw::{axis_point, Domain, Element, Law, MAX_AXIS_POINTS, MAX_REDRAWS};

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
    /// Number of systems; a multiple of the grid's points when a body has grid axes.
    pub systems: usize,
    /// Base seed: system s draws its bodies with seed `seed + s` (reported in the table).
    pub seed: u64,
    /// Hypothetical bodies added to every system, each element a value, a draw or a grid axis.
    pub hypothetical: Vec<Hypothetical>,
    /// Everything else, as in a scenario; its `bodies` are the fixed known planets of every
    /// system and its `output.dir` receives `summary.csv` and the checkpoints.
    /// A `minimum_bodies` of 0 stops a system at its first collision or ejection.
    pub scenario: Scenario,
}

/// A hypothetical body: `Drawn(...)`, or `Grid(...)` for one with at least one grid axis (the
/// same fields; the name says what the body is for).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub enum Hypothetical {
    /// A body drawn anew in each system: `Drawn(name: "X", m: (3e-6, 3e-5), a: (6.0, 8.5), ...)`.
    Drawn(Drawn),
    /// A body with grid axes: `Grid(name: "S", m: 2.858e-4, a: (7.0, 10.0, 200), e: (0.0, 0.5,
    /// 200), inc_deg: 0.0)`.
    Grid(Drawn),
}

impl std::fmt::Debug for Hypothetical {
    /// A drawn body prints as it did before grids, so ensemble fingerprints stay the same.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Hypothetical::Drawn(d) => write!(f, "{d:?}"),
            Hypothetical::Grid(d) => write!(f, "Grid({d:?})"),
        }
    }
}

impl Hypothetical {
    /// The body's description.
    pub fn body(&self) -> &Drawn {
        match self {
            Hypothetical::Drawn(d) | Hypothetical::Grid(d) => d,
        }
    }
}

/// A hypothetical body's elements, each a value, a draw or a grid axis ([`Element`]; angles in
/// degrees; a missing angle means uniform over the full circle).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Drawn {
    /// The body's name (columns of `summary.csv`, labels of grid axes).
    pub name: String,
    /// Mass (Msun).
    pub m: Element,
    /// Radius (AU); from the scenario's `default_rho` when absent.
    #[serde(default)]
    pub radius: Option<f64>,
    /// Semi-major axis (AU).
    pub a: Element,
    /// Eccentricity.
    pub e: Element,
    /// Inclination (degrees).
    pub inc_deg: Element,
    /// Longitude of the ascending node (degrees).
    #[serde(default)]
    pub node_deg: Option<Element>,
    /// Argument of pericentre (degrees).
    #[serde(default)]
    pub peri_deg: Option<Element>,
    /// Mean anomaly (degrees).
    #[serde(default)]
    pub mean_anomaly_deg: Option<Element>,
}

/// The full circle, for a missing angle.
const FULL_CIRCLE: Element = Element::Range((0.0, 360.0));

/// One axis of an ensemble's grid.
#[derive(Debug, Clone, PartialEq)]
pub struct GridAxis {
    /// `body.element`, as `Saturn.a`.
    pub label: String,
    /// The element's unit (`AU`, `Msun`, `deg`, or empty).
    pub unit: &'static str,
    /// The axis's points in order.
    pub points: Vec<f64>,
    /// Whether the points are evenly spaced in `ln x`.
    pub log: bool,
}

impl Drawn {
    /// The elements in the order they are drawn, with their names, units and domains.
    fn elements(&self) -> [(&'static str, &'static str, Element, Domain); 7] {
        let angle = |e: Option<Element>| e.unwrap_or(FULL_CIRCLE);
        [
            ("m", "Msun", self.m, Domain::NON_NEGATIVE),
            ("a", "AU", self.a, Domain::POSITIVE),
            ("e", "", self.e, Domain::ECCENTRICITY),
            ("inc_deg", "deg", self.inc_deg, Domain::INCLINATION),
            ("node_deg", "deg", angle(self.node_deg), Domain::ANY),
            ("peri_deg", "deg", angle(self.peri_deg), Domain::ANY),
            (
                "mean_anomaly_deg",
                "deg",
                angle(self.mean_anomaly_deg),
                Domain::ANY,
            ),
        ]
    }

    fn check(&self, at: &dyn Fn() -> Location) -> Result<()> {
        for (field, _, element, domain) in self.elements() {
            element.check(domain).map_err(|m| {
                Error::input(
                    at().field(format!("hypothetical `{}`.{field}", self.name)),
                    m,
                )
            })?;
        }
        Ok(())
    }

    /// Draw one body around `m0`, taking the next grid coordinate from `point` for each axis.
    fn draw(
        &self,
        rng: &mut Rng,
        point: &mut impl Iterator<Item = usize>,
        m0: f64,
        rho: f64,
    ) -> std::result::Result<Body, String> {
        let mut v = [0.0; 7];
        for (slot, (field, _, element, domain)) in v.iter_mut().zip(self.elements()) {
            let k = if element.axis().is_some() {
                point.next().unwrap_or(0)
            } else {
                0
            };
            *slot = element.pick(rng, k, domain).ok_or_else(|| {
                format!(
                    "`{}`.{field}: no draw of {element:?} in {MAX_REDRAWS} fell in its domain",
                    self.name
                )
            })?;
        }
        let [m, a, e, inc, node, peri, mean] = v;
        let deg = std::f64::consts::PI / 180.0;
        let (pos, vel) =
            cartesian_from_elements(m0 + m, a, e, inc * deg, node * deg, peri * deg, mean * deg)
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

impl Ensemble {
    /// Check every hypothetical body's elements, the grid's size and that `systems` is a
    /// multiple of it.
    pub fn check(&self, path: &std::path::Path) -> Result<()> {
        let at = || Location::file(path);
        for h in &self.hypothetical {
            h.body().check(&at)?;
            if matches!(h, Hypothetical::Grid(_))
                && !h.body().elements().iter().any(|e| e.2.axis().is_some())
            {
                return Err(Error::input(
                    at().field(format!("hypothetical `{}`", h.body().name)),
                    "a `Grid(...)` body needs at least one grid axis, such as a: (lo, hi, n); \
                     expected one, or `Drawn(...)`",
                ));
            }
        }
        let points = self.grid_axes().iter().try_fold(1usize, |p, axis| {
            p.checked_mul(axis.points.len())
                .filter(|&p| p <= MAX_AXIS_POINTS)
        });
        match points {
            None => Err(Error::input(
                at().field("hypothetical"),
                format!("expected a grid of at most {MAX_AXIS_POINTS} points"),
            )),
            Some(p) if !self.systems.is_multiple_of(p) => Err(Error::input(
                at().field("systems"),
                format!(
                    "expected a multiple of the grid's {p} points (each point then holds \
                     systems / {p} draws of the other elements), got {}",
                    self.systems
                ),
            )),
            Some(_) => Ok(()),
        }
    }

    /// The grid's axes, in the order they vary (the first fastest): the hypothetical bodies in
    /// order, each one's elements in the order m, a, e, inc, node, peri, mean anomaly. Empty
    /// without grid axes.
    pub fn grid_axes(&self) -> Vec<GridAxis> {
        let mut axes = Vec::new();
        for h in &self.hypothetical {
            let body = h.body();
            for (field, unit, element, _) in body.elements() {
                if let Some((lo, hi, n, log)) = element.axis() {
                    axes.push(GridAxis {
                        label: format!("{}.{field}", body.name),
                        unit,
                        points: (0..n).map(|k| axis_point(lo, hi, n, k, log)).collect(),
                        log,
                    });
                }
            }
        }
        axes
    }

    /// System `s`'s index along each grid axis ([`Ensemble::grid_axes`]' order).
    pub fn grid_point(&self, s: usize) -> Vec<usize> {
        let sizes: Vec<usize> = self
            .hypothetical
            .iter()
            .flat_map(|h| h.body().elements())
            .filter_map(|(_, _, element, _)| element.axis().map(|axis| axis.2))
            .collect();
        let total: usize = sizes.iter().product();
        let mut rest = s % total.max(1);
        sizes
            .iter()
            .map(|&n| {
                let k = rest % n;
                rest /= n;
                k
            })
            .collect()
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
    let options = ron::Options::default()
        .with_default_extension(ron::extensions::Extensions::UNWRAP_VARIANT_NEWTYPES);
    Some(options.from_str(text).map_err(|e| {
        Error::input(
            Location::file(path).line(e.span.start.line),
            format!("column {}: {}", e.span.start.col, e.code),
        )
    }))
}

/// The bodies of system `s`: the fixed ones, then the drawn ones, ids counting from 0 (the
/// ensemble [checked](Ensemble::check) first).
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
    let mut point = ens.grid_point(s).into_iter();
    for h in &ens.hypothetical {
        let b = h
            .body()
            .draw(&mut rng, &mut point, sc.central_mass, sc.default_rho)
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

#[cfg(test)]
mod tests;
