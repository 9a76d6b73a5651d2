//! `orrery plot series`: one system's sampled values against time from a run's
//! `Samples<name>.npz` ([`crate::io::samples`]): a system's value (MEGNO, the closest pair, the
//! energy error on a log scale) as one line, a body's (an element) as one line per body.

use super::{
    frame_at, note, paint, Axis, Figure, Options, BLUE, GREEN, HEIGHT, LEFT, ORANGE, RED, WIDTH,
};
use crate::error::{Error, Location, Result};
use crate::io::samples::{read_npz, Array, Values};
use plotters::prelude::*;
use std::path::Path;

/// The lines' colours in order.
const COLOURS: [RGBColor; 4] = [BLUE, RED, GREEN, ORANGE];

/// The axis label of a sampled quantity.
fn label(what: &str) -> String {
    let base = what.trim_start_matches("jacobi_");
    let unit = match base {
        "a" | "min_distance" => " [AU]",
        "inc" | "node" | "peri" | "pomega" | "mean_anomaly" | "mean_longitude" => " [rad]",
        "period" => " [yr]",
        "lyapunov" => " [1/yr]",
        "min_distance_hill" => " [mutual Hill radii]",
        _ => "",
    };
    match what {
        "energy_error" => "relative energy error |dE/E|".into(),
        "megno" => "MEGNO ⟨Y⟩".into(),
        _ => format!("{what}{unit}"),
    }
}

fn floats(a: &Array) -> Vec<f64> {
    match &a.values {
        Values::F64(v) => v.clone(),
        Values::I64(v) => v
            .iter()
            .map(|&x| if x < 0 { f64::NAN } else { x as f64 })
            .collect(),
    }
}

/// The figure of `what` (MEGNO when the file has it, else `a`, by default) of system `system`
/// (its index in the ensemble) from the samples file `path`.
pub fn series_figure(
    path: &Path,
    system: usize,
    what: Option<&str>,
    opts: &Options,
) -> Result<Figure> {
    let arrays = read_npz(path)?;
    let find = |name: &str| arrays.iter().find(|a| a.name == name);
    let at = || Location::file(path);
    let names: Vec<&str> = arrays
        .iter()
        .map(|a| a.name.as_str())
        .filter(|n| !["system", "step", "time", "id"].contains(n))
        .collect();
    let what = what.unwrap_or(if find("megno").is_some() {
        "megno"
    } else {
        "a"
    });
    let values = find(what).ok_or_else(|| {
        Error::input(
            at().field("--what"),
            format!(
                "`{what}` is not in the file; expected one of {}",
                names.join(", ")
            ),
        )
    })?;
    let (Some(systems), Some(time)) = (find("system"), find("time")) else {
        return Err(Error::input(
            at(),
            "no `system` or `time` array; expected a samples file",
        ));
    };
    let systems = floats(systems);
    let row = systems
        .iter()
        .position(|&s| s == system as f64)
        .ok_or_else(|| {
            Error::input(
                at().field("--system"),
                format!(
                    "system {system} is not in the file (it holds {} systems)",
                    systems.len()
                ),
            )
        })?;
    let n = time.shape[1] as usize;
    let t = &floats(time)[row * n..(row + 1) * n];
    let v = floats(values);
    let slots = values.shape.get(2).map_or(1, |&b| b as usize);
    let ids = find("id").map(floats);
    let log = what == "energy_error";
    // One line per body slot (one for a system's value), the points it has.
    let mut lines: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for b in 0..slots {
        let pts: Vec<(f64, f64)> = (0..n)
            .map(|k| (t[k], v[(row * n + k) * slots + b]))
            .map(|(t, y)| (t, if log { y.abs() } else { y }))
            .filter(|(t, y)| t.is_finite() && y.is_finite() && (!log || *y > 0.0))
            .collect();
        if pts.is_empty() {
            continue;
        }
        let name = match (&ids, values.shape.len()) {
            (Some(ids), 3) => {
                let id = (0..n)
                    .map(|k| ids[(row * n + k) * slots + b])
                    .find(|x| x.is_finite());
                id.map_or(format!("slot {b}"), |id| format!("body {id}"))
            }
            _ => what.to_string(),
        };
        lines.push((name, pts));
    }
    if lines.is_empty() {
        return Err(Error::input(
            at().field("--what"),
            format!("system {system} has no finite `{what}` sample"),
        ));
    }
    let all = || lines.iter().flat_map(|l| l.1.iter());
    let x = Axis::linear(all().map(|p| p.0), opts.xlim, true, "time [yr]");
    let y = if log {
        Axis::log10(all().map(|p| p.1), opts.ylim, &label(what))
    } else {
        Axis::linear(all().map(|p| p.1), opts.ylim, false, &label(what))
    };
    let frame = frame_at(LEFT, x, y);
    let title = format!(
        "{}: system {system}",
        path.file_name()
            .map_or(String::new(), |f| f.to_string_lossy().into_owned())
    );
    let points: usize = lines.iter().map(|l| l.1.len()).sum();
    paint(WIDTH, HEIGHT, |area| {
        frame.draw(area, &title)?;
        let mut legend = Vec::new();
        for (k, (name, pts)) in lines.iter().enumerate() {
            let colour = COLOURS[k % COLOURS.len()];
            frame.polyline(area, pts, 2.0, colour)?;
            legend.push((name.clone(), colour));
        }
        if lines.len() > 1 {
            note(area, &frame, &legend)?;
        }
        frame.subtitle(area, &format!("{} samples of `{what}`", points))?;
        Ok((
            vec![frame.clone()],
            format!("{points} samples of `{what}` in {} lines", lines.len()),
        ))
    })
}
