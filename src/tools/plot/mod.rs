//! `orrery plot`: PNG figures of a run's files without Python, drawn with the `plotters` crate
//! (text in DejaVu Sans, embedded) and encoded with the `png` crate. A single-panel figure is
//! [`WIDTH`] x [`HEIGHT`] pixels; its plot area spans the pixel columns `LEFT ..= WIDTH - RIGHT -
//! 1` and rows `TOP ..= HEIGHT - BOTTOM - 1`, with the axis minimum on the left / bottom edge and
//! the maximum on the right / top edge (see [`Frame::pixel`]). The sheet figure puts two such
//! panels side by side. Markers shrink as the number of bodies grows ([`marker`]), so that a
//! figure of ten planets and one of 10^5 test particles both read.

pub mod map;
pub mod series;

use super::files::{self, SnapshotRow};
use crate::error::{Error, Location, Result};
use crate::physics::elements::elements_from_cartesian;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

/// The figures' colours (matplotlib's first four, and greys).
pub const BLUE: RGBColor = RGBColor(31, 119, 180);
pub const RED: RGBColor = RGBColor(214, 39, 40);
pub const GREEN: RGBColor = RGBColor(44, 160, 44);
pub const ORANGE: RGBColor = RGBColor(255, 127, 14);
const GREY: RGBColor = RGBColor(150, 150, 150);
const GRID: RGBColor = RGBColor(228, 228, 228);
const INK: RGBColor = RGBColor(20, 20, 20);

/// The font every figure's text is set in (DejaVu Sans, `assets/fonts/`, its licence beside it).
const FONT: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");
/// Text sizes in pixels: title, axis labels, tick labels, notes.
const TITLE_PX: f64 = 19.0;
const LABEL_PX: f64 = 18.0;
const TICK_PX: f64 = 15.0;
const NOTE_PX: f64 = 14.0;

/// Register the embedded font with plotters (once).
fn font() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // The embedded file is a valid TrueType font: registering it cannot fail.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

fn text_style(px: f64, colour: RGBColor) -> TextStyle<'static> {
    ("sans-serif", px).into_font().color(&colour)
}

/// Figure size in pixels (one panel).
pub const WIDTH: usize = 800;
pub const HEIGHT: usize = 600;
/// Margins around the plot area in pixels.
pub const LEFT: usize = 100;
pub const RIGHT: usize = 30;
pub const TOP: usize = 62;
pub const BOTTOM: usize = 70;
/// Extra space between the two panels of the sheet figure.
pub const GAP: usize = 40;

/// What to plot (the `orrery plot` command's first argument; its doc comments are the help).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// Semi-major axis against eccentricity (markers sized by mass).
    Ae,
    /// Semi-major axis against inclination.
    Ai,
    /// |relative energy error| against time, log scale, from `Energy<name>.dat`.
    Energy,
    /// x-y and x-z of a sheet snapshot.
    Sheet,
    /// Cumulative mass spectrum N(>= m) of one or more snapshots (log-log; e.g. two runs at the
    /// same time, each a line).
    Mass,
    /// An ensemble's stability map: each point of its grid's first two axes coloured by MEGNO
    /// (FILE is the `Ensemble(...)` file; the values come from its `summary.csv`).
    Map,
    /// One system's sampled values against time (FILE is a run's `Samples<name>.npz`; one line
    /// per body for an element).
    Series,
}

impl Kind {
    /// The kind's name on the command line, which the default output file ends with.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Ae => "ae",
            Kind::Ai => "ai",
            Kind::Energy => "energy",
            Kind::Sheet => "sheet",
            Kind::Mass => "mass",
            Kind::Map => "map",
            Kind::Series => "series",
        }
    }
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
    /// A linear axis over the data values (a 2 % margin, rounded out to a fifth of a tick
    /// step), or over `lim` exactly.
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
                // A margin of 2 % of the span on each side (none below a zero floor), so no
                // marker sits on the frame, and the ends rounded out to a fifth of a tick step.
                let fine = nice_step((hi - lo) / 5.0) / 5.0;
                let pad = 0.02 * (hi - lo);
                let floored = floor0 && lo == 0.0;
                let (lo, hi) = (if floored { lo } else { lo - pad }, hi + pad);
                // A value within rounding of a step is on it (1.6 / 0.2 is 8.000000000000002).
                (
                    (lo / fine + 1e-9).floor() * fine,
                    (hi / fine - 1e-9).ceil() * fine,
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
            return power_of_ten(t.round() as i64);
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

/// `10` with the exponent `k` in superscript digits.
fn power_of_ten(k: i64) -> String {
    const DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let mut s = String::from("10");
    if k < 0 {
        s.push('⁻');
    }
    for d in k.unsigned_abs().to_string().bytes() {
        s.push(DIGITS[(d - b'0') as usize]);
    }
    s
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

type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;

/// A plotting failure inside the drawing (an out-of-memory bitmap, a font that cannot be read).
fn draw_err<E: std::fmt::Display>(e: E) -> Error {
    Error::run(format!("cannot draw the figure: {e}"))
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

    /// The pixel column of `v` in the x axis's own units (log10 on a log axis): a tick.
    fn column(&self, v: f64) -> i32 {
        let f = (v - self.x.lo) / (self.x.hi - self.x.lo);
        (self.left as f64 + f * (self.width - 1) as f64).round() as i32
    }

    /// The pixel row of `v` in the y axis's own units.
    fn row(&self, v: f64) -> i32 {
        let f = (v - self.y.lo) / (self.y.hi - self.y.lo);
        (self.top as f64 + (1.0 - f) * (self.height - 1) as f64).round() as i32
    }

    fn at(&self, x: f64, y: f64) -> (i32, i32) {
        let (px, py) = self.pixel(x, y);
        (px.round() as i32, py.round() as i32)
    }

    fn inside(&self, (px, py): (f64, f64)) -> bool {
        px >= self.left as f64 - 0.5
            && px <= (self.left + self.width - 1) as f64 + 0.5
            && py >= self.top as f64 - 0.5
            && py <= (self.top + self.height - 1) as f64 + 0.5
    }

    /// Grid, box, ticks, tick labels, axis labels and title.
    fn draw(&self, area: &Area<'_>, title: &str) -> Result<()> {
        let (l, t) = (self.left as i32, self.top as i32);
        let (r, b) = (l + self.width as i32 - 1, t + self.height as i32 - 1);
        let line = |p: Vec<(i32, i32)>, c: RGBColor| area.draw(&PathElement::new(p, c));
        let ticks = text_style(TICK_PX, INK);
        for &v in &self.x.ticks {
            let px = self.column(v);
            line(vec![(px, t), (px, b)], GRID).map_err(draw_err)?;
            line(vec![(px, b), (px, b + 6)], INK).map_err(draw_err)?;
            let s = ticks.pos(Pos::new(HPos::Center, VPos::Top));
            area.draw_text(&self.x.tick_label(v), &s, (px, b + 10))
                .map_err(draw_err)?;
        }
        for &v in &self.y.ticks {
            let py = self.row(v);
            line(vec![(l, py), (r, py)], GRID).map_err(draw_err)?;
            line(vec![(l - 6, py), (l, py)], INK).map_err(draw_err)?;
            let s = ticks.pos(Pos::new(HPos::Right, VPos::Center));
            area.draw_text(&self.y.tick_label(v), &s, (l - 12, py))
                .map_err(draw_err)?;
        }
        // Minor ticks at 2..9 times each power of ten of a log axis spanning a few decades.
        let minor = |axis: &Axis| -> Vec<f64> {
            if !axis.log || axis.hi - axis.lo > 4.0 {
                return Vec::new();
            }
            (axis.lo.floor() as i64..axis.hi.ceil() as i64)
                .flat_map(|k| (2..10).map(move |m| k as f64 + (m as f64).log10()))
                .filter(|v| (axis.lo..=axis.hi).contains(v))
                .collect()
        };
        for v in minor(&self.x) {
            let px = self.column(v);
            line(vec![(px, b), (px, b + 3)], INK).map_err(draw_err)?;
        }
        for v in minor(&self.y) {
            let py = self.row(v);
            line(vec![(l - 3, py), (l, py)], INK).map_err(draw_err)?;
        }
        line(vec![(l, t), (r, t), (r, b), (l, b), (l, t)], INK).map_err(draw_err)?;
        let label = text_style(LABEL_PX, INK);
        let s = label.pos(Pos::new(HPos::Center, VPos::Top));
        area.draw_text(&self.x.label, &s, ((l + r) / 2, b + 34))
            .map_err(draw_err)?;
        let s = label
            .transform(FontTransform::Rotate270)
            .pos(Pos::new(HPos::Center, VPos::Top));
        area.draw_text(&self.y.label, &s, (l - LEFT as i32 + 8, (t + b) / 2))
            .map_err(draw_err)?;
        let s = text_style(TITLE_PX, INK).pos(Pos::new(HPos::Left, VPos::Bottom));
        area.draw_text(title, &s, (l, t - 30)).map_err(draw_err)?;
        Ok(())
    }

    /// A line under the title, above the panel: what the figure shows.
    fn subtitle(&self, area: &Area<'_>, text: &str) -> Result<()> {
        let s = text_style(NOTE_PX, RGBColor(70, 70, 70)).pos(Pos::new(HPos::Left, VPos::Bottom));
        area.draw_text(text, &s, (self.left as i32, self.top as i32 - 9))
            .map_err(draw_err)
    }

    /// A line two pixels wide through the data points `pts` with a disc of radius `r` at each,
    /// broken where a point is off the axes.
    fn polyline(&self, area: &Area<'_>, pts: &[(f64, f64)], r: f64, c: RGBColor) -> Result<()> {
        let mut last: Option<(i32, i32)> = None;
        for &(x, y) in pts {
            let p = self.pixel(x, y);
            if !self.inside(p) {
                last = None;
                continue;
            }
            let q = (p.0.round() as i32, p.1.round() as i32);
            if let Some(prev) = last {
                area.draw(&PathElement::new(vec![prev, q], c.stroke_width(2)))
                    .map_err(draw_err)?;
            }
            dot(area, p, r, c)?;
            last = Some(q);
        }
        Ok(())
    }

    /// A filled disc of radius `r` pixels at a data point (nothing when it is off the axes).
    fn disc(&self, area: &Area<'_>, x: f64, y: f64, r: f64, c: RGBColor) -> Result<bool> {
        let p = self.pixel(x, y);
        if !self.inside(p) {
            return Ok(false);
        }
        dot(area, p, r, c)?;
        Ok(true)
    }
}

/// A filled disc of radius `r` pixels centred on pixel `p` (at least the pixel itself).
fn dot(area: &Area<'_>, p: (f64, f64), r: f64, c: RGBColor) -> Result<()> {
    let centre = (p.0.round() as i32, p.1.round() as i32);
    if r < 1.5 {
        return area.draw_pixel(centre, &c).map_err(draw_err);
    }
    area.draw(&Circle::new(centre, r.round() as u32, c.filled()))
        .map_err(draw_err)
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

/// A finished figure: the image (RGB, row by row), its panels, and a one-line account of what
/// was drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    pub width: usize,
    pub height: usize,
    pub rgb: Vec<u8>,
    pub frames: Vec<Frame>,
    pub note: String,
}

impl Figure {
    /// The figure as a PNG file (crate `png`).
    pub fn png(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        let mut enc = png::Encoder::new(&mut out, self.width as u32, self.height as u32);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Best);
        let mut w = enc.write_header().map_err(draw_err)?;
        w.write_image_data(&self.rgb).map_err(draw_err)?;
        w.finish().map_err(draw_err)?;
        Ok(out)
    }
}

/// Draw a figure of `width` x `height` pixels on a white page with `paint`.
fn paint(
    width: usize,
    height: usize,
    paint: impl FnOnce(&Area<'_>) -> Result<(Vec<Frame>, String)>,
) -> Result<Figure> {
    font();
    let mut rgb = vec![255u8; 3 * width * height];
    let (frames, note) = {
        let area =
            BitMapBackend::with_buffer(&mut rgb, (width as u32, height as u32)).into_drawing_area();
        let out = paint(&area)?;
        area.present().map_err(draw_err)?;
        out
    };
    Ok(Figure {
        width,
        height,
        rgb,
        frames,
        note,
    })
}

/// Marker radius in pixels for a body of mass `m` among `n` bodies of largest mass `m_max`:
/// `base (m / m_max)^(1/3)` (area as the mass to the 2/3, as a body's cross-section), with `base`
/// shrinking as `n^(-1/4)` from 7 pixels for a few bodies to 1 pixel for 10^5; massless bodies
/// get the smallest marker.
pub fn marker(m: f64, m_max: f64, n: usize) -> f64 {
    let base = (14.0 / (n.max(1) as f64).powf(0.25)).clamp(1.0, 7.0);
    // The smallest marker stays visible beside the largest: 2 pixels while there is room.
    let smallest = base.min(2.0);
    if m > 0.0 && m_max > 0.0 {
        (base * (m / m_max).cbrt()).max(smallest)
    } else {
        smallest
    }
}

/// An a-e (or a-i with `inclination`) scatter of a snapshot's bound orbits, sized by mass.
pub fn elements_figure(
    rows: &[SnapshotRow],
    inclination: bool,
    opts: &Options,
    title: &str,
) -> Result<Figure> {
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
    let x = Axis::linear(
        pts.iter().map(|p| p.0),
        opts.xlim,
        false,
        "semi-major axis a [AU]",
    );
    let ylabel = if inclination {
        "inclination i [deg]"
    } else {
        "eccentricity e"
    };
    let y = Axis::linear(pts.iter().map(|p| p.1), opts.ylim, true, ylabel);
    let frame = frame_at(LEFT, x, y);
    let m_max = pts.iter().map(|p| p.2).fold(0.0, f64::max);
    pts.sort_by(|a, b| a.2.total_cmp(&b.2));
    let t = rows.first().map_or(0.0, |r| r.t);
    paint(WIDTH, HEIGHT, |area| {
        frame.draw(area, &format!("{title}   t = {}", years(t)))?;
        let mut outside = 0;
        for &(a, y, m) in &pts {
            let colour = if m > 0.0 { BLUE } else { GREY };
            if !frame.disc(area, a, y, marker(m, m_max, pts.len()), colour)? {
                outside += 1;
            }
        }
        let drawn = pts.len() - outside;
        let legend = match m_max > 0.0 {
            true => format!(
                "{drawn} bodies; marker area ~ mass^(2/3), largest {} Earth masses",
                significant(m_max / crate::units::EARTH_MASS)
            ),
            false => format!("{drawn} massless bodies"),
        };
        frame.subtitle(area, &legend)?;
        Ok((
            vec![frame.clone()],
            format!(
                "{drawn} bodies plotted, {unbound} unbound skipped, {outside} outside the axes"
            ),
        ))
    })
}

/// `x` to three significant digits, positional where that reads well.
fn significant(x: f64) -> String {
    if x != 0.0 && !(1e-2..1e5).contains(&x.abs()) {
        return format!("{x:.2e}");
    }
    let decimals = (2 - x.abs().log10().floor() as i32).clamp(0, 6) as usize;
    format!("{x:.decimals$}")
}

/// A time in years with a sensible number of digits.
fn years(t: f64) -> String {
    if t == 0.0 || (1e-2..1e7).contains(&t.abs()) {
        format!("{} yr", (t * 1000.0).round() / 1000.0)
    } else {
        format!("{t:.3e} yr")
    }
}

/// Lines of text at the top right inside a panel, each in its colour, on a white box.
fn note(area: &Area<'_>, frame: &Frame, lines: &[(String, RGBColor)]) -> Result<()> {
    let right = (frame.left + frame.width) as i32 - 10;
    let style = text_style(NOTE_PX, INK);
    let widest = lines
        .iter()
        .map(|(s, _)| area.estimate_text_size(s, &style).map_or(0, |(w, _)| w))
        .max()
        .unwrap_or(0) as i32;
    let (top, step) = (frame.top as i32 + 8, NOTE_PX as i32 + 6);
    let bottom = top + step * lines.len() as i32;
    area.draw(&Rectangle::new(
        [(right - widest - 8, top - 4), (right + 4, bottom)],
        WHITE.mix(0.85).filled(),
    ))
    .map_err(draw_err)?;
    for (k, (text, colour)) in lines.iter().enumerate() {
        let s = text_style(NOTE_PX, *colour).pos(Pos::new(HPos::Right, VPos::Top));
        area.draw_text(text, &s, (right, top + step * k as i32))
            .map_err(draw_err)?;
    }
    Ok(())
}

/// |ERelativ| against time (years), log scale, from the lines of an energy file.
pub fn energy_figure(lines: &[(f64, f64)], opts: &Options, title: &str) -> Result<Figure> {
    let pts: Vec<(f64, f64)> = lines
        .iter()
        .map(|&(t, e)| (t, e.abs()))
        .filter(|p| p.1 > 0.0 && p.1.is_finite() && p.0.is_finite())
        .collect();
    let x = Axis::linear(pts.iter().map(|p| p.0), opts.xlim, true, "time [yr]");
    let y = Axis::log10(
        pts.iter().map(|p| p.1),
        opts.ylim,
        "relative energy error |dE/E|",
    );
    let frame = frame_at(LEFT, x, y);
    paint(WIDTH, HEIGHT, |area| {
        frame.draw(area, title)?;
        frame.polyline(area, &pts, marker(1.0, 1.0, pts.len()).min(3.0), BLUE)?;
        let worst = pts.iter().map(|p| p.1).fold(0.0, f64::max);
        let text = format!("{} energy lines; largest |dE/E| {worst:.2e}", pts.len());
        frame.subtitle(area, &text)?;
        Ok((
            vec![frame.clone()],
            format!(
                "{} energy lines plotted ({} with dE/E = 0 left out of the log scale)",
                pts.len(),
                lines.len() - pts.len()
            ),
        ))
    })
}

/// x-y (left, equal aspect, particles drawn at their true size with an outline) and x-z (right,
/// particles as dots, z stretched) of a sheet snapshot.
pub fn sheet_figure(snap: &files::SheetSnapshot, opts: &Options, title: &str) -> Result<Figure> {
    let half = snap.box_size.map(|l| (-0.5 * l, 0.5 * l));
    let rows = &snap.rows;
    let xlim = opts.xlim.or(half);
    let x = Axis::linear(rows.iter().map(|r| r[0]), xlim, false, "radial x [m]");
    let y = Axis::linear(
        rows.iter().map(|r| r[1]),
        opts.ylim.or(half),
        false,
        "azimuthal y [m]",
    );
    let z = Axis::linear(rows.iter().map(|r| r[2]), None, false, "vertical z [m]");
    let side = HEIGHT - TOP - BOTTOM;
    let left = Frame {
        width: side,
        ..frame_at(LEFT, x.clone(), y)
    };
    let right = frame_at(LEFT + side + GAP + LEFT, x, z);
    let width = right.left + right.width + RIGHT;
    paint(width, HEIGHT, |area| {
        left.draw(area, title)?;
        right.draw(area, "")?;
        let when = snap
            .orbits
            .map_or_else(String::new, |o| format!(", after {o:.3} orbits"));
        let text = format!(
            "{} particles, at their true size (x-y) and as dots (x-z){when}",
            rows.len()
        );
        left.subtitle(area, &text)?;
        let sx = (left.width - 1) as f64 / (left.x.hi - left.x.lo);
        let sy = (left.height - 1) as f64 / (left.y.hi - left.y.lo);
        let scale = sx.min(sy);
        for r in rows {
            left.disc(area, r[0], r[1], (r[6] * scale).max(0.5), BLUE)?;
        }
        let dot_r = marker(1.0, 1.0, rows.len()).min(2.0);
        for r in rows {
            let p = left.pixel(r[0], r[1]);
            if left.inside(p) && r[6] * scale >= 3.0 {
                let centre = (p.0.round() as i32, p.1.round() as i32);
                let radius = (r[6] * scale).round() as u32;
                area.draw(&Circle::new(centre, radius, RGBColor(20, 60, 110)))
                    .map_err(draw_err)?;
            }
            right.disc(area, r[0], r[2], dot_r, BLUE)?;
        }
        Ok((
            vec![left.clone(), right.clone()],
            format!("{} particles", rows.len()),
        ))
    })
}

/// Colours of the snapshots of a mass spectrum, in order.
const SERIES: [RGBColor; 4] = [BLUE, RED, GREEN, ORANGE];

/// The cumulative mass spectra `N(>= m)` of the snapshots `snaps` (name and rows), as step
/// lines on log-log axes (masses in Earth masses), with a legend of each snapshot's run, step,
/// bodies and largest mass (in Earth masses). Massless bodies are left out.
pub fn mass_figure(
    snaps: &[(String, Vec<SnapshotRow>)],
    opts: &Options,
    title: &str,
) -> Result<Figure> {
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
    let x = Axis::log10(all(), opts.xlim, "mass m [Earth masses]");
    let most = spectra.iter().map(Vec::len).max().unwrap_or(1).max(1) as f64;
    let y = Axis::log10(
        [1.0, most].into_iter(),
        opts.ylim,
        "bodies of mass m or more",
    );
    let frame = frame_at(LEFT, x, y);
    paint(WIDTH, HEIGHT, |area| {
        frame.draw(area, title)?;
        let mut legend = Vec::new();
        let mut notes = Vec::new();
        for (k, (masses, (name, _))) in spectra.iter().zip(snaps).enumerate() {
            let colour = SERIES[k % SERIES.len()];
            // N(>= m) = rank: a step down at every mass, from the largest.
            let mut path: Vec<(i32, i32)> = Vec::with_capacity(2 * masses.len());
            for (rank, &m) in masses.iter().enumerate() {
                let (px, py) = frame.at(m, (rank + 1) as f64);
                if let Some(&(_, qy)) = path.last() {
                    path.push((px, qy));
                }
                path.push((px, py));
            }
            area.draw(&PathElement::new(path, colour.stroke_width(2)))
                .map_err(draw_err)?;
            for (rank, &m) in masses.iter().enumerate() {
                dot(area, frame.pixel(m, (rank + 1) as f64), 2.0, colour)?;
            }
            let largest = masses.first().copied().unwrap_or(0.0);
            let lines = [
                snapshot_label(name),
                format!(
                    "{} bodies, largest {} Earth masses",
                    masses.len(),
                    significant(largest)
                ),
            ];
            legend.push((lines.join(": "), colour));
            notes.push(lines.join(": "));
        }
        note(area, &frame, &legend)?;
        Ok((vec![frame.clone()], notes.join("; ")))
    })
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
    mass_figure(&snaps, opts, &title)
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
            elements_figure(&rows, kind == Kind::Ai, opts, &name)
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
            energy_figure(&lines, opts, &name)
        }
        Kind::Mass => mass_spectra(&[input], opts),
        Kind::Map => map::stability_map(input, None, None, opts),
        Kind::Series => series::series_figure(input, 0, None, opts),
        Kind::Sheet => {
            let snap = files::read_sheet_snapshot(input)?;
            if snap.rows.is_empty() {
                return Err(Error::input(at(), "no particles in the sheet snapshot"));
            }
            sheet_figure(&snap, opts, &name)
        }
    }
}
