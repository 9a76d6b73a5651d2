//! `orrery plot`: PNG figures of a run's files without Python. A single-panel figure is
//! [`WIDTH`] x [`HEIGHT`] pixels; its plot area spans the pixel columns `LEFT ..= WIDTH - RIGHT -
//! 1` and rows `TOP ..= HEIGHT - BOTTOM - 1`, with the axis minimum on the left / bottom edge and
//! the maximum on the right / top edge (see [`Frame::pixel`]). The sheet figure puts two such
//! panels side by side.

use super::canvas::{self, Canvas, BLACK, BLUE, GREY, GRID, NAVY, RED};
use super::files::{self, SnapshotRow};
use crate::error::{Error, Location, Result};
use crate::physics::elements::elements_from_cartesian;
use std::path::Path;

/// Figure size in pixels (one panel).
pub const WIDTH: usize = 800;
pub const HEIGHT: usize = 600;
/// Margins around the plot area in pixels.
pub const LEFT: usize = 100;
pub const RIGHT: usize = 30;
pub const TOP: usize = 40;
pub const BOTTOM: usize = 70;

/// What to plot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Semi-major axis against eccentricity of a snapshot's bodies.
    Ae,
    /// Semi-major axis against inclination (degrees).
    Ai,
    /// |relative energy error| against time from `Energy<name>.dat` (log scale).
    Energy,
    /// x-y and x-z of a sheet snapshot.
    Sheet,
    /// The cumulative mass spectrum N(>= m) of one or more snapshots (log-log, Earth masses).
    Mass,
}

/// Options of a plot.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// Central mass in Msun (for orbital elements).
    pub central_mass: f64,
    /// Axis limits; chosen from the data when absent.
    pub xlim: Option<(f64, f64)>,
    pub ylim: Option<(f64, f64)>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            central_mass: 1.0,
            xlim: None,
            ylim: None,
        }
    }
}

/// One axis: its data range, ticks and scale.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    pub lo: f64,
    pub hi: f64,
    /// Logarithmic (lo and hi are then log10 of the data range).
    pub log: bool,
    pub ticks: Vec<f64>,
    pub label: String,
}

impl Axis {
    /// A linear axis over the data values (padded to whole ticks), or over `lim` exactly.
    fn linear(
        values: impl Iterator<Item = f64>,
        lim: Option<(f64, f64)>,
        floor0: bool,
        label: &str,
    ) -> Axis {
        let (lo, hi) = match lim {
            Some(l) => l,
            None => {
                let (mut lo, mut hi) = values
                    .filter(|v| v.is_finite())
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                        (a.min(v), b.max(v))
                    });
                if lo > hi {
                    (lo, hi) = (0.0, 1.0);
                }
                if floor0 {
                    lo = lo.min(0.0);
                }
                if hi - lo <= 1e-12 * hi.abs().max(lo.abs()) {
                    let pad = if hi == 0.0 { 1.0 } else { 0.1 * hi.abs() };
                    (lo, hi) = (lo - pad, hi + pad);
                }
                let step = nice_step((hi - lo) / 5.0);
                // A value within rounding of a tick is on it (1.6 / 0.2 is 8.000000000000002).
                (
                    (lo / step + 1e-9).floor() * step,
                    (hi / step - 1e-9).ceil() * step,
                )
            }
        };
        let step = nice_step((hi - lo) / 5.0);
        let first = (lo / step - 1e-9).ceil() as i64;
        let last = (hi / step + 1e-9).floor() as i64;
        let ticks = (first..=last).map(|k| k as f64 * step).collect();
        Axis {
            lo,
            hi,
            log: false,
            ticks,
            label: label.into(),
        }
    }

    /// A log10 axis over positive values, in whole decades.
    fn log10(values: impl Iterator<Item = f64>, lim: Option<(f64, f64)>, label: &str) -> Axis {
        let (lo, hi) = match lim {
            Some((a, b)) => (a.log10(), b.log10()),
            None => {
                let (lo, hi) = values
                    .filter(|v| v.is_finite() && *v > 0.0)
                    .map(f64::log10)
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                        (a.min(v), b.max(v))
                    });
                let (lo, hi) = if lo > hi {
                    (-16.0, 0.0)
                } else {
                    (lo.floor(), hi.ceil())
                };
                (lo, if hi <= lo { lo + 1.0 } else { hi })
            }
        };
        let every = ((hi - lo) / 8.0).ceil().max(1.0) as i64;
        let ticks = (lo.ceil() as i64..=hi.floor() as i64)
            .filter(|k| k.rem_euclid(every) == 0)
            .map(|k| k as f64)
            .collect();
        Axis {
            lo,
            hi,
            log: true,
            ticks,
            label: label.into(),
        }
    }

    /// Position of a data value along the axis in [0, 1] (outside for values off the axis).
    fn fraction(&self, v: f64) -> f64 {
        let v = if self.log { v.log10() } else { v };
        (v - self.lo) / (self.hi - self.lo)
    }

    fn tick_label(&self, t: f64) -> String {
        if self.log {
            return format!("1e{}", t.round() as i64);
        }
        let step = self.ticks.get(1).map_or(1.0, |b| b - self.ticks[0]).abs();
        let big = self.lo.abs().max(self.hi.abs());
        if !(1e-3..1e5).contains(&big) {
            format!("{t:.1e}")
        } else {
            let decimals = (-step.log10().floor()).max(0.0) as usize;
            let s = format!("{t:.decimals$}");
            if s.starts_with('-') && s[1..].chars().all(|c| c == '0' || c == '.') {
                s[1..].to_string()
            } else {
                s
            }
        }
    }
}

/// 1, 2 or 5 times a power of ten, at least `raw`.
fn nice_step(raw: f64) -> f64 {
    if !(raw.is_finite() && raw > 0.0) {
        return 1.0;
    }
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|s| *s >= raw * (1.0 - 1e-9))
        .unwrap_or(10.0 * p)
}

/// A panel: where its plot area is in the image, and its axes.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub left: usize,
    pub top: usize,
    pub width: usize,
    pub height: usize,
    pub x: Axis,
    pub y: Axis,
}

impl Frame {
    /// The pixel (column, row) of a data point: `left + fx (width - 1)`,
    /// `top + (1 - fy) (height - 1)` with fx, fy the point's fractions along the axes.
    pub fn pixel(&self, x: f64, y: f64) -> (f64, f64) {
        (
            self.left as f64 + self.x.fraction(x) * (self.width - 1) as f64,
            self.top as f64 + (1.0 - self.y.fraction(y)) * (self.height - 1) as f64,
        )
    }

    fn inside(&self, (px, py): (f64, f64)) -> bool {
        px >= self.left as f64 - 0.5
            && px <= (self.left + self.width - 1) as f64 + 0.5
            && py >= self.top as f64 - 0.5
            && py <= (self.top + self.height - 1) as f64 + 0.5
    }

    /// Grid, box, ticks, tick labels, axis labels and title.
    fn draw(&self, c: &mut Canvas, title: &str) {
        let (l, t) = (self.left as i64, self.top as i64);
        let (r, b) = (l + self.width as i64 - 1, t + self.height as i64 - 1);
        for &v in &self.x.ticks {
            let f = (v - self.x.lo) / (self.x.hi - self.x.lo);
            let px = (l as f64 + f * (self.width - 1) as f64).round() as i64;
            c.line(px, t, px, b, GRID);
            c.line(px, b, px, b + 6, BLACK);
            let s = self.x.tick_label(v);
            c.text(px - canvas::text_width(&s, 2) / 2, b + 12, &s, 2, BLACK);
        }
        for &v in &self.y.ticks {
            let f = (v - self.y.lo) / (self.y.hi - self.y.lo);
            let py = (t as f64 + (1.0 - f) * (self.height - 1) as f64).round() as i64;
            c.line(l, py, r, py, GRID);
            c.line(l - 6, py, l, py, BLACK);
            let s = self.y.tick_label(v);
            c.text(l - 10 - canvas::text_width(&s, 2), py - 7, &s, 2, BLACK);
        }
        for (x0, y0, x1, y1) in [(l, t, r, t), (l, b, r, b), (l, t, l, b), (r, t, r, b)] {
            c.line(x0, y0, x1, y1, BLACK);
        }
        let xl = &self.x.label;
        c.text(
            l + (self.width as i64 - canvas::text_width(xl, 2)) / 2,
            b + 40,
            xl,
            2,
            BLACK,
        );
        let yl = &self.y.label;
        c.text_up(
            l - 92,
            t + (self.height as i64 + canvas::text_width(yl, 2)) / 2,
            yl,
            2,
            BLACK,
        );
        c.text(l, t - 26, title, 2, BLACK);
    }
}

fn frame_at(left: usize, x: Axis, y: Axis) -> Frame {
    Frame {
        left,
        top: TOP,
        width: WIDTH - LEFT - RIGHT,
        height: HEIGHT - TOP - BOTTOM,
        x,
        y,
    }
}

/// A finished figure: the image, its panels, and a one-line account of what was drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    pub canvas: Canvas,
    pub frames: Vec<Frame>,
    pub note: String,
}

impl Figure {
    /// The figure as a PNG file.
    pub fn png(&self) -> Vec<u8> {
        super::png::encode_indexed(
            self.canvas.width,
            self.canvas.height,
            &self.canvas.pixels,
            &canvas::PALETTE,
        )
    }
}

/// Marker radius in pixels: massless bodies 1, others 1.5 + 5 (m / m_max)^(1/3).
fn marker(m: f64, m_max: f64) -> f64 {
    if m > 0.0 && m_max > 0.0 {
        1.5 + 5.0 * (m / m_max).cbrt()
    } else {
        1.0
    }
}

/// An a-e (or a-i with `inclination`) scatter of a snapshot's bound orbits, sized by mass.
pub fn elements_figure(
    rows: &[SnapshotRow],
    inclination: bool,
    opts: &Options,
    title: &str,
) -> Figure {
    let mut pts: Vec<(f64, f64, f64)> = Vec::with_capacity(rows.len());
    let mut unbound = 0;
    for r in rows {
        let el = elements_from_cartesian(opts.central_mass + r.m, r.pos, r.vel);
        if !(el.a.is_finite() && el.a > 0.0 && el.e < 1.0) {
            unbound += 1;
            continue;
        }
        let y = if inclination {
            el.inc.to_degrees()
        } else {
            el.e
        };
        pts.push((el.a, y, r.m));
    }
    let x = Axis::linear(pts.iter().map(|p| p.0), opts.xlim, false, "a [AU]");
    let ylabel = if inclination { "i [deg]" } else { "e" };
    let y = Axis::linear(pts.iter().map(|p| p.1), opts.ylim, true, ylabel);
    let frame = frame_at(LEFT, x, y);
    let mut c = Canvas::new(WIDTH, HEIGHT);
    frame.draw(&mut c, title);
    let m_max = pts.iter().map(|p| p.2).fold(0.0, f64::max);
    pts.sort_by(|a, b| a.2.total_cmp(&b.2));
    let mut outside = 0;
    for &(a, y, m) in &pts {
        let p = frame.pixel(a, y);
        if frame.inside(p) {
            c.disc(
                p.0,
                p.1,
                marker(m, m_max),
                if m > 0.0 { BLUE } else { GREY },
            );
        } else {
            outside += 1;
        }
    }
    Figure {
        canvas: c,
        note: format!(
            "{} bodies plotted, {unbound} unbound skipped, {outside} outside the axes",
            pts.len() - outside
        ),
        frames: vec![frame],
    }
}

/// |ERelativ| against time (years), log scale, from the lines of an energy file.
pub fn energy_figure(lines: &[(f64, f64)], opts: &Options, title: &str) -> Figure {
    let pts: Vec<(f64, f64)> = lines
        .iter()
        .map(|&(t, e)| (t, e.abs()))
        .filter(|p| p.1 > 0.0 && p.1.is_finite() && p.0.is_finite())
        .collect();
    let x = Axis::linear(pts.iter().map(|p| p.0), opts.xlim, true, "t [yr]");
    let y = Axis::log10(pts.iter().map(|p| p.1), opts.ylim, "|dE/E|");
    let frame = frame_at(LEFT, x, y);
    let mut c = Canvas::new(WIDTH, HEIGHT);
    frame.draw(&mut c, title);
    let mut last: Option<(f64, f64)> = None;
    for &(t, e) in &pts {
        let p = frame.pixel(t, e);
        if frame.inside(p) {
            if let Some(q) = last {
                c.line(
                    q.0.round() as i64,
                    q.1.round() as i64,
                    p.0.round() as i64,
                    p.1.round() as i64,
                    BLUE,
                );
            }
            c.disc(p.0, p.1, 1.5, BLUE);
            last = Some(p);
        } else {
            last = None;
        }
    }
    Figure {
        canvas: c,
        note: format!(
            "{} energy lines plotted ({} with dE/E = 0 left out of the log scale)",
            pts.len(),
            lines.len() - pts.len()
        ),
        frames: vec![frame],
    }
}

/// x-y (left, equal aspect, particles drawn at their true size with an outline) and x-z (right,
/// particles as dots, z stretched) of a sheet snapshot.
pub fn sheet_figure(snap: &files::SheetSnapshot, opts: &Options, title: &str) -> Figure {
    let half = snap.box_size.map(|l| (-0.5 * l, 0.5 * l));
    let rows = &snap.rows;
    let xlim = opts.xlim.or(half);
    let x = Axis::linear(rows.iter().map(|r| r[0]), xlim, false, "x [m]");
    let y = Axis::linear(
        rows.iter().map(|r| r[1]),
        opts.ylim.or(half),
        false,
        "y [m]",
    );
    let z = Axis::linear(rows.iter().map(|r| r[2]), None, false, "z [m]");
    let side = HEIGHT - TOP - BOTTOM;
    let left = Frame {
        width: side,
        ..frame_at(LEFT, x.clone(), y)
    };
    let right = frame_at(LEFT + side + LEFT, x, z);
    let mut c = Canvas::new(right.left + right.width + RIGHT, HEIGHT);
    left.draw(&mut c, title);
    right.draw(&mut c, "");
    let sx = (left.width - 1) as f64 / (left.x.hi - left.x.lo);
    let sy = (left.height - 1) as f64 / (left.y.hi - left.y.lo);
    let scale = sx.min(sy);
    for r in rows {
        let p = left.pixel(r[0], r[1]);
        if left.inside(p) {
            c.disc(p.0, p.1, (r[6] * scale).max(0.5), BLUE);
        }
    }
    for r in rows {
        let p = left.pixel(r[0], r[1]);
        if left.inside(p) && r[6] * scale >= 2.0 {
            c.circle(p.0, p.1, r[6] * scale, canvas::NAVY);
        }
        let q = right.pixel(r[0], r[2]);
        if right.inside(q) {
            c.disc(q.0, q.1, 1.0, BLUE);
        }
    }
    Figure {
        canvas: c,
        note: format!("{} particles", rows.len()),
        frames: vec![left, right],
    }
}

/// Colours of the snapshots of a mass spectrum, in order.
const SERIES: [u8; 4] = [BLUE, RED, BLACK, NAVY];

/// The cumulative mass spectra `N(>= m)` of the snapshots `snaps` (name and rows), as step
/// lines on log-log axes (masses in Earth masses), with a legend of each snapshot's run, step,
/// bodies and largest mass (in Earth masses). Massless bodies are left out.
pub fn mass_figure(snaps: &[(String, Vec<SnapshotRow>)], opts: &Options, title: &str) -> Figure {
    let earth = crate::units::EARTH_MASS;
    let spectra: Vec<Vec<f64>> = snaps
        .iter()
        .map(|(_, rows)| {
            let mut m: Vec<f64> = rows
                .iter()
                .map(|r| r.m / earth)
                .filter(|m| *m > 0.0 && m.is_finite())
                .collect();
            m.sort_by(|a, b| b.total_cmp(a));
            m
        })
        .collect();
    let all = || spectra.iter().flatten().copied();
    let x = Axis::log10(all(), opts.xlim, "m [Earth masses]");
    let most = spectra.iter().map(Vec::len).max().unwrap_or(1).max(1) as f64;
    let y = Axis::log10(
        [1.0, most].into_iter(),
        opts.ylim,
        "bodies of mass m or more",
    );
    let frame = frame_at(LEFT, x, y);
    let mut c = Canvas::new(WIDTH, HEIGHT);
    frame.draw(&mut c, title);
    let mut notes = Vec::new();
    for (k, (masses, (name, _))) in spectra.iter().zip(snaps).enumerate() {
        let colour = SERIES[k % SERIES.len()];
        // N(>= m) = rank: a step down at every mass, from the largest.
        let mut last: Option<(f64, f64)> = None;
        for (rank, &m) in masses.iter().enumerate() {
            let p = frame.pixel(m, (rank + 1) as f64);
            if let Some(q) = last {
                let (qx, qy) = (q.0.round() as i64, q.1.round() as i64);
                let (px, py) = (p.0.round() as i64, p.1.round() as i64);
                c.line(qx, qy, px, qy, colour);
                c.line(px, qy, px, py, colour);
            }
            c.disc(p.0, p.1, 1.5, colour);
            last = Some(p);
        }
        let largest = masses.first().copied().unwrap_or(0.0);
        let lines = [
            snapshot_label(name),
            format!("{} bodies, largest {largest:.3e}", masses.len()),
        ];
        for (q, text) in lines.iter().enumerate() {
            let row = (TOP + 12 + 44 * k + 20 * q) as i64;
            let col = (WIDTH - RIGHT - 12) as i64 - canvas::text_width(text, 2);
            c.text(col, row, text, 2, colour);
        }
        notes.push(lines.join(": "));
    }
    Figure {
        canvas: c,
        note: notes.join("; "),
        frames: vec![frame],
    }
}

/// A snapshot's name for a legend: `Out<run>_<step>` as `<run> step <step>`, anything else
/// as it is.
fn snapshot_label(stem: &str) -> String {
    let parts = stem
        .strip_prefix("Out")
        .and_then(|rest| rest.rsplit_once('_'));
    match parts {
        Some((run, step)) if !step.is_empty() && step.bytes().all(|b| b.is_ascii_digit()) => {
            let step = step.trim_start_matches('0');
            format!("{run} step {}", if step.is_empty() { "0" } else { step })
        }
        _ => stem.to_string(),
    }
}

/// Read the snapshots `inputs` and draw their mass spectra ([`mass_figure`]).
pub fn mass_spectra(inputs: &[&Path], opts: &Options) -> Result<Figure> {
    let mut snaps = Vec::new();
    for input in inputs {
        let rows = files::read_snapshot(input)?;
        if !rows.iter().any(|r| r.m > 0.0) {
            return Err(Error::input(
                Location::file(input),
                "no body with a positive mass in the snapshot; expected a snapshot of massive bodies",
            ));
        }
        let name = input.file_stem().map_or_else(
            || input.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        snaps.push((name, rows));
    }
    let title = if snaps.len() == 1 {
        snaps[0].0.clone()
    } else {
        "mass spectra".to_string()
    };
    Ok(mass_figure(&snaps, opts, &title))
}

/// Read `input` and draw the figure of `kind`.
pub fn figure(kind: Kind, input: &Path, opts: &Options) -> Result<Figure> {
    let name = input.file_name().map_or_else(
        || input.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let at = || Location::file(input);
    match kind {
        Kind::Ae | Kind::Ai => {
            let rows = files::read_snapshot(input)?;
            if rows.is_empty() {
                return Err(Error::input(
                    at(),
                    "no bodies in the snapshot; expected at least one",
                ));
            }
            Ok(elements_figure(&rows, kind == Kind::Ai, opts, &name))
        }
        Kind::Energy => {
            let lines = files::read_energy(input)?;
            if !lines.iter().any(|l| l.1 != 0.0 && l.1.is_finite()) {
                return Err(Error::input(
                    at(),
                    "no line with a nonzero finite ERelativ (column 10); expected an energy file \
                     of a run with at least one energy output after the start",
                ));
            }
            Ok(energy_figure(&lines, opts, &name))
        }
        Kind::Mass => mass_spectra(&[input], opts),
        Kind::Sheet => {
            let snap = files::read_sheet_snapshot(input)?;
            if snap.rows.is_empty() {
                return Err(Error::input(at(), "no particles in the sheet snapshot"));
            }
            Ok(sheet_figure(&snap, opts, &name))
        }
    }
}
