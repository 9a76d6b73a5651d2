//! How a hypothetical body of an ensemble gets each of its elements in each system: one value
//! for all, a draw from a law (uniform, log-uniform, truncated normal), or a point on a grid
//! axis. The grid axes of all the hypothetical bodies span one grid; system `s` sits at its point
//! `s mod P` (P points), the first axis varying fastest, as REBOUND's MEGNO-map example lays out
//! its `(a, e)` pairs.

use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// The most points one grid axis may have.
pub const MAX_AXIS_POINTS: usize = 100_000_000;

/// How one element is chosen, written without a variant name: `3e-4` (a value), `(lo, hi)`
/// (uniform), `(lo, hi, n)` (a grid axis), or one of `Law`'s forms such as `LogUniform(lo, hi)`.
#[derive(Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(
    untagged,
    expecting = "a value x, a range (lo, hi), a grid axis (lo, hi, n), Uniform(lo, hi), \
                 LogUniform(lo, hi), Normal(mean, sigma), Grid(lo, hi, n) or LogGrid(lo, hi, n)"
)]
pub enum Element {
    /// A named law or grid axis: `LogUniform(1e-6, 1e-4)`.
    Law(Law),
    /// Uniform in `[lo, hi)`: `(6.0, 8.5)`.
    Range((f64, f64)),
    /// `n` evenly spaced points from `lo` to `hi`, both included: `(7.0, 10.0, 200)`.
    Axis((f64, f64, usize)),
    /// The same value in every system: `2.858e-4`.
    Value(f64),
}

/// A named law or grid axis of an element.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Law {
    /// Uniform in `[lo, hi)`.
    Uniform(f64, f64),
    /// Uniform in `ln x` between `lo > 0` and `hi`.
    LogUniform(f64, f64),
    /// Normal of the given mean and standard deviation, truncated to the element's domain
    /// (drawn again until it falls inside, at most [`MAX_REDRAWS`] times).
    Normal(f64, f64),
    /// `n` evenly spaced points from `lo` to `hi`, both included (numpy's `linspace`).
    Grid(f64, f64, usize),
    /// `n` points from `lo > 0` to `hi` evenly spaced in `ln x`, both included.
    LogGrid(f64, f64, usize),
}

/// The most draws a truncated normal takes before it gives up.
pub const MAX_REDRAWS: usize = 10_000;

impl std::fmt::Debug for Element {
    /// A range prints as the bare tuple it was before elements had other forms, so ensemble
    /// fingerprints of earlier versions stay the same.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Element::Range(r) => write!(f, "{r:?}"),
            Element::Law(l) => write!(f, "{l:?}"),
            Element::Axis((lo, hi, n)) => write!(f, "Grid({lo:?}, {hi:?}, {n})"),
            Element::Value(x) => write!(f, "{x:?}"),
        }
    }
}

/// The values an element may take: `[lo, hi]` with either end open.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Domain {
    pub lo: f64,
    pub hi: f64,
    pub lo_open: bool,
    pub hi_open: bool,
}

impl Domain {
    /// Every finite value.
    pub const ANY: Domain = Domain::new(f64::NEG_INFINITY, f64::INFINITY, true, true);
    /// `x >= 0`.
    pub const NON_NEGATIVE: Domain = Domain::new(0.0, f64::INFINITY, false, true);
    /// `x > 0`.
    pub const POSITIVE: Domain = Domain::new(0.0, f64::INFINITY, true, true);
    /// `0 <= x < 1`.
    pub const ECCENTRICITY: Domain = Domain::new(0.0, 1.0, false, true);
    /// `0 <= x <= 180` (degrees).
    pub const INCLINATION: Domain = Domain::new(0.0, 180.0, false, false);

    const fn new(lo: f64, hi: f64, lo_open: bool, hi_open: bool) -> Self {
        Domain {
            lo,
            hi,
            lo_open,
            hi_open,
        }
    }

    /// Whether `x` is finite and inside.
    pub fn contains(&self, x: f64) -> bool {
        let above = if self.lo_open {
            x > self.lo
        } else {
            x >= self.lo
        };
        let below = if self.hi_open {
            x < self.hi
        } else {
            x <= self.hi
        };
        x.is_finite() && above && below
    }

    fn describe(&self) -> String {
        let lo = if self.lo_open { ">" } else { ">=" };
        let hi = if self.hi_open { "<" } else { "<=" };
        match (self.lo.is_finite(), self.hi.is_finite()) {
            (false, false) => "finite".into(),
            (true, false) => format!("{lo} {}", self.lo),
            (false, true) => format!("{hi} {}", self.hi),
            (true, true) => format!("{lo} {} and {hi} {}", self.lo, self.hi),
        }
    }
}

/// The `k`-th of `n` points from `lo` to `hi`, evenly spaced in `x` (`log` false) or `ln x`,
/// both ends exact; the linear points are numpy's `linspace` to the bit (`lo + k * step`).
pub fn axis_point(lo: f64, hi: f64, n: usize, k: usize, log: bool) -> f64 {
    if n < 2 || k == 0 {
        return lo;
    }
    if k + 1 == n {
        return hi;
    }
    let div = (n - 1) as f64;
    if log {
        let (l0, l1) = (lo.ln(), hi.ln());
        (l0 + k as f64 * ((l1 - l0) / div)).exp()
    } else {
        lo + k as f64 * ((hi - lo) / div)
    }
}

impl Element {
    /// The grid axis this element is, as `(lo, hi, n, log)`.
    pub fn axis(&self) -> Option<(f64, f64, usize, bool)> {
        match *self {
            Element::Axis((lo, hi, n)) | Element::Law(Law::Grid(lo, hi, n)) => {
                Some((lo, hi, n, false))
            }
            Element::Law(Law::LogGrid(lo, hi, n)) => Some((lo, hi, n, true)),
            _ => None,
        }
    }

    /// Whether every value this element can take lies in `domain`; a message with the
    /// expectation when not.
    pub fn check(&self, domain: Domain) -> Result<(), String> {
        let inside = |x: f64| domain.contains(x);
        let ordered = |lo: f64, hi: f64| lo.is_finite() && hi.is_finite() && lo <= hi;
        let within = format!("values {}", domain.describe());
        let bad = |what: String| Err(format!("expected {what}, got {self:?}"));
        match *self {
            Element::Value(x) if !inside(x) => bad(format!("a value {}", domain.describe())),
            Element::Range((lo, hi)) | Element::Law(Law::Uniform(lo, hi)) => {
                if !ordered(lo, hi) {
                    return bad("a finite range (lo, hi) with lo <= hi".into());
                }
                if !(inside(lo) && inside(hi)) {
                    return bad(within);
                }
                Ok(())
            }
            Element::Law(Law::LogUniform(lo, hi)) => {
                if !(ordered(lo, hi) && lo > 0.0) {
                    return bad("a range (lo, hi) with 0 < lo <= hi".into());
                }
                if !(inside(lo) && inside(hi)) {
                    return bad(within);
                }
                Ok(())
            }
            Element::Law(Law::Normal(mean, sigma)) => {
                if !(sigma.is_finite() && sigma >= 0.0 && inside(mean)) {
                    return bad(format!("a mean {} and sigma >= 0", domain.describe()));
                }
                Ok(())
            }
            _ => match self.axis() {
                Some((lo, hi, n, log)) => {
                    if !(ordered(lo, hi) && (1..=MAX_AXIS_POINTS).contains(&n)) {
                        return bad(format!("lo <= hi and 1 <= n <= {MAX_AXIS_POINTS}"));
                    }
                    if n > 1 && lo == hi {
                        return bad(format!("lo < hi for {n} points (one point: n = 1)"));
                    }
                    if log && lo <= 0.0 {
                        return bad("0 < lo for a log grid".into());
                    }
                    if !(inside(lo) && inside(hi)) {
                        return bad(within);
                    }
                    Ok(())
                }
                None => Ok(()),
            },
        }
    }

    /// This element's value in one system: `point` is the system's index along this element's
    /// grid axis (unused for the others). Draws take uniform deviates from `rng` (none for a value
    /// or an axis, one for a range, a uniform or a log-uniform law, two per try for a normal).
    /// `None` when a truncated normal found no value in `domain`.
    pub fn pick(&self, rng: &mut Rng, point: usize, domain: Domain) -> Option<f64> {
        if let Some((lo, hi, n, log)) = self.axis() {
            return Some(axis_point(lo, hi, n, point, log));
        }
        match *self {
            Element::Value(x) => Some(x),
            Element::Range((lo, hi)) | Element::Law(Law::Uniform(lo, hi)) => {
                Some(rng.range(lo, hi))
            }
            Element::Law(Law::LogUniform(lo, hi)) => Some(rng.range(lo.ln(), hi.ln()).exp()),
            Element::Law(Law::Normal(mean, sigma)) => (0..MAX_REDRAWS)
                .map(|_| mean + sigma * rng.normal())
                .find(|&x| domain.contains(x)),
            Element::Axis(_) | Element::Law(Law::Grid(..) | Law::LogGrid(..)) => None,
        }
    }
}

#[cfg(test)]
#[path = "draw_tests.rs"]
mod tests;
