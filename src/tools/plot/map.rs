//! `orrery plot map`: an ensemble's stability map, each grid point's MEGNO as a coloured cell over
//! the grid's first two axes (REBOUND's MEGNO-map example: `RdYlGn_r` from 1.9 to 4 by default),
//! with a colour bar. Cells are centred on their points and meet halfway between neighbours (in
//! `ln x` on a log axis); a point with several systems (more axes, or several passes over the
//! grid) shows their median; a point without a value is grey.

use super::{
    draw_err, paint, text_style, Area, Axis, Figure, Frame, Options, BOTTOM, GREY, HEIGHT, INK,
    LABEL_PX, LEFT, RIGHT, TICK_PX, TOP, WIDTH,
};
use crate::config::ensemble::GridAxis;
use crate::error::{Error, Location, Result};
use crate::io::summary_table;
use crate::physics::wisdom_holman::megno_class;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

/// The colour bar's width and the space it takes right of the plot area, in pixels.
const BAR_WIDTH: usize = 22;
const BAR_SPACE: usize = 120;

/// MEGNO's colour range by default: REBOUND's example (`vmin=1.9, vmax=4`).
pub const MEGNO_RANGE: (f64, f64) = (1.9, 4.0);

/// ColorBrewer's `RdYlGn` (11 classes), red to green; the map runs it backwards, green (regular)
/// to red (chaotic), as matplotlib's `RdYlGn_r`.
const RD_YL_GN: [(u8, u8, u8); 11] = [
    (165, 0, 38),
    (215, 48, 39),
    (244, 109, 67),
    (253, 174, 97),
    (254, 224, 139),
    (255, 255, 191),
    (217, 239, 139),
    (166, 217, 106),
    (102, 189, 99),
    (26, 152, 80),
    (0, 104, 55),
];

/// The colour of `t` in [0, 1] (clamped) on `RdYlGn_r`: linear between the 11 classes.
pub fn colour(t: f64) -> RGBColor {
    let t = 1.0 - t.clamp(0.0, 1.0);
    let x = t * (RD_YL_GN.len() - 1) as f64;
    let k = (x.floor() as usize).min(RD_YL_GN.len() - 2);
    let f = x - k as f64;
    let mix = |a: u8, b: u8| (a as f64 + f * (b as f64 - a as f64)).round() as u8;
    let (a, b) = (RD_YL_GN[k], RD_YL_GN[k + 1]);
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// One grid point's systems' values, and the median of the finite ones.
fn median(values: &mut [f64]) -> f64 {
    let mut finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if finite.is_empty() {
        return f64::NAN;
    }
    finite.sort_by(f64::total_cmp);
    let n = finite.len();
    if n % 2 == 1 {
        finite[n / 2]
    } else {
        0.5 * (finite[n / 2 - 1] + finite[n / 2])
    }
}

/// The map's cells: for each point of the first two axes (the first fastest), the median value of
/// the systems there. `values[s]` is system `s`'s value, NaN for none; `point(s)` its indices
/// along every axis.
pub fn cells(axes: &[GridAxis], values: &[f64], point: impl Fn(usize) -> Vec<usize>) -> Vec<f64> {
    let (nx, ny) = (axes[0].points.len(), axes[1].points.len());
    let mut at: Vec<Vec<f64>> = vec![Vec::new(); nx * ny];
    for (s, &v) in values.iter().enumerate() {
        let p = point(s);
        at[p[0] + nx * p[1]].push(v);
    }
    at.iter_mut().map(|v| median(v)).collect()
}

/// The cell edges of an axis's points in the axis's own units (log10 on a log axis): halfway
/// between neighbours, half a spacing beyond the ends (one point: ±5 %, or ±0.5 at zero).
fn edges(axis: &GridAxis) -> Vec<f64> {
    let p: Vec<f64> = axis
        .points
        .iter()
        .map(|&x| if axis.log { x.log10() } else { x })
        .collect();
    if p.len() == 1 {
        let h = if p[0] == 0.0 { 0.5 } else { 0.05 * p[0].abs() };
        return vec![p[0] - h, p[0] + h];
    }
    let n = p.len();
    let mut e = Vec::with_capacity(n + 1);
    e.push(p[0] - 0.5 * (p[1] - p[0]));
    e.extend(p.windows(2).map(|w| 0.5 * (w[0] + w[1])));
    e.push(p[n - 1] + 0.5 * (p[n - 1] - p[n - 2]));
    e
}

fn axis_label(axis: &GridAxis) -> String {
    match axis.unit {
        "" => axis.label.clone(),
        unit => format!("{} [{unit}]", axis.label),
    }
}

/// An axis over a grid axis's cells.
fn plot_axis(axis: &GridAxis, lim: Option<(f64, f64)>) -> Axis {
    let e = edges(axis);
    let span = (e[0], e[e.len() - 1]);
    if axis.log {
        let lim = lim.unwrap_or((10f64.powf(span.0), 10f64.powf(span.1)));
        Axis::log10(std::iter::empty(), Some(lim), &axis_label(axis))
    } else {
        Axis::linear(
            std::iter::empty(),
            Some(lim.unwrap_or(span)),
            false,
            &axis_label(axis),
        )
    }
}

/// The figure: `cells` (from [`cells`]) over `axes[0]` and `axes[1]`, coloured over `range`.
pub fn map_figure(
    axes: &[GridAxis],
    cells: &[f64],
    range: (f64, f64),
    opts: &Options,
    title: &str,
    subtitle: &str,
) -> Result<Figure> {
    let frame = Frame {
        left: LEFT,
        top: TOP,
        width: WIDTH - LEFT - RIGHT,
        height: HEIGHT - TOP - BOTTOM,
        x: plot_axis(&axes[0], opts.xlim),
        y: plot_axis(&axes[1], opts.ylim),
    };
    let (ex, ey) = (edges(&axes[0]), edges(&axes[1]));
    let nx = axes[0].points.len();
    let painted = cells.iter().filter(|v| v.is_finite()).count();
    let note = format!(
        "{painted} of {} grid points coloured ({} to {})",
        cells.len(),
        range.0,
        range.1
    );
    paint(WIDTH + BAR_SPACE, HEIGHT, |area| {
        let clip = |c: i32, lo: usize, len: usize| c.clamp(lo as i32, (lo + len - 1) as i32);
        for (k, &v) in cells.iter().enumerate() {
            let (i, j) = (k % nx, k / nx);
            let (x0, y0) = (frame.column(ex[i]), frame.row(ey[j]));
            let (x1, y1) = (frame.column(ex[i + 1]), frame.row(ey[j + 1]));
            let (x0, x1) = (
                clip(x0, frame.left, frame.width),
                clip(x1, frame.left, frame.width),
            );
            let (y0, y1) = (
                clip(y0, frame.top, frame.height),
                clip(y1, frame.top, frame.height),
            );
            let c = if v.is_finite() {
                colour((v - range.0) / (range.1 - range.0))
            } else {
                GREY
            };
            area.draw(&Rectangle::new([(x0, y1), (x1, y0)], c.filled()))
                .map_err(draw_err)?;
        }
        frame.draw(area, title)?;
        frame.subtitle(area, subtitle)?;
        colour_bar(area, &frame, range, "MEGNO ⟨Y⟩")?;
        Ok((vec![frame.clone()], note.clone()))
    })
}

/// A vertical colour bar right of `frame` from `range.0` (bottom) to `range.1` (top).
fn colour_bar(area: &Area<'_>, frame: &Frame, range: (f64, f64), label: &str) -> Result<()> {
    let left = (frame.left + frame.width + 24) as i32;
    let right = left + BAR_WIDTH as i32;
    let (top, bottom) = (frame.top as i32, (frame.top + frame.height - 1) as i32);
    for row in top..=bottom {
        let t = (bottom - row) as f64 / (bottom - top) as f64;
        area.draw(&PathElement::new(
            vec![(left, row), (right, row)],
            colour(t),
        ))
        .map_err(draw_err)?;
    }
    let outline = vec![
        (left, top),
        (right, top),
        (right, bottom),
        (left, bottom),
        (left, top),
    ];
    area.draw(&PathElement::new(outline, INK))
        .map_err(draw_err)?;
    let scale = Axis::linear(std::iter::empty(), Some(range), false, label);
    let ticks = text_style(TICK_PX, INK).pos(Pos::new(HPos::Left, VPos::Center));
    for &v in &scale.ticks {
        let f = (v - range.0) / (range.1 - range.0);
        let row = (bottom as f64 - f * (bottom - top) as f64).round() as i32;
        area.draw(&PathElement::new(vec![(right, row), (right + 5, row)], INK))
            .map_err(draw_err)?;
        area.draw_text(&scale.tick_label(v), &ticks, (right + 8, row))
            .map_err(draw_err)?;
    }
    let s = text_style(LABEL_PX, INK)
        .transform(FontTransform::Rotate90)
        .pos(Pos::new(HPos::Center, VPos::Top));
    area.draw_text(label, &s, (right + 72, (top + bottom) / 2))
        .map_err(draw_err)
}

/// Each system's value of `column` in an ensemble table (`systems` rows expected; NaN for an
/// empty cell or a missing row).
pub fn table_column(path: &Path, column: &str, systems: usize) -> Result<Vec<f64>> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::input(
            Location::file(path),
            format!(
                "cannot read the ensemble's table ({e}); run the ensemble first, or name the \
                     table with --summary"
            ),
        )
    })?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    let find = |name: &str| {
        header.iter().position(|h| *h == name).ok_or_else(|| {
            Error::input(
                Location::file(path).line(1),
                format!(
                    "no `{name}` column; expected a table of this version ({})",
                    summary_table::fixed_columns()
                ),
            )
        })
    };
    let (sys, col) = (find("system")?, find(column)?);
    let mut values = vec![f64::NAN; systems];
    for (k, line) in lines.enumerate() {
        let cells: Vec<&str> = line.split(',').collect();
        let at = || Location::file(path).line(k + 2);
        let s: usize = cells
            .get(sys)
            .and_then(|c| c.parse().ok())
            .ok_or_else(|| Error::input(at().field("system"), "expected a system index"))?;
        if s >= systems {
            return Err(Error::input(
                at().field("system"),
                format!(
                    "system {s} of an ensemble of {systems}: expected the table of this ensemble"
                ),
            ));
        }
        let cell = cells.get(col).copied().unwrap_or_default();
        if !cell.is_empty() {
            values[s] = cell.parse().map_err(|_| {
                Error::input(
                    at().field(column),
                    format!("expected a number, got `{cell}`"),
                )
            })?;
        }
    }
    Ok(values)
}

/// The stability map of the ensemble file `path`: its grid's first two axes, coloured by each
/// system's MEGNO from its `summary.csv` (`summary`, or the one in the ensemble's output
/// directory), over `range` ([`MEGNO_RANGE`] by default).
pub fn stability_map(
    path: &Path,
    summary: Option<&Path>,
    range: Option<(f64, f64)>,
    opts: &Options,
) -> Result<Figure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::input(Location::file(path), format!("cannot read: {e}")))?;
    let ens = crate::config::ensemble::parse(&text, path).ok_or_else(|| {
        Error::input(
            Location::file(path),
            "expected an `Ensemble(...)` file with a grid (the map's axes come from it)",
        )
    })??;
    ens.check(path)?;
    let axes = ens.grid_axes();
    if axes.len() < 2 {
        return Err(Error::input(
            Location::file(path).field("hypothetical"),
            format!(
                "a map needs two grid axes, such as a: (7.0, 10.0, 50), e: (0.0, 0.5, 50); \
                 this ensemble has {}",
                axes.len()
            ),
        ));
    }
    let table = summary.map_or_else(
        || ens.scenario.output.dir.join("summary.csv"),
        Path::to_path_buf,
    );
    let values = table_column(&table, "megno", ens.systems)?;
    if values.iter().all(|v| v.is_nan()) {
        return Err(Error::input(
            Location::file(&table).field("megno"),
            "no system has a MEGNO value; expected a run with `chaos: (megno: true)`",
        ));
    }
    let mut classes = [0usize; 3];
    for &v in values.iter().filter(|v| !v.is_nan()) {
        classes[megno_class(v)] += 1;
    }
    let cells = cells(&axes, &values, |s| ens.grid_point(s));
    let title = format!("{}: MEGNO", ens.scenario.name);
    let subtitle = format!(
        "{} systems: {} regular (< 2.5), {} undecided, {} chaotic (> 4); grey: no value",
        ens.systems, classes[0], classes[1], classes[2]
    );
    map_figure(
        &axes,
        &cells,
        range.unwrap_or(MEGNO_RANGE),
        opts,
        &title,
        &subtitle,
    )
}
