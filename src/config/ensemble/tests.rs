use super::*;
use crate::physics::elements::elements_from_cartesian;
use std::path::Path;

fn ensemble(systems: usize, hypothetical: &str) -> Result<Ensemble> {
    let text = format!(
        "Ensemble(systems: {systems}, seed: 5, hypothetical: [{hypothetical}],\n\
         scenario: Scenario(name: \"t\", mode: Multi, time_step_days: 10.0, steps: Some(1), bodies: [],\n\
         output: (dir: \"o\", energy_interval: 0, coordinates_interval: 0)))"
    );
    let path = Path::new("grid.ron");
    let ens = parse(&text, path).expect("an ensemble")?;
    ens.check(path)?;
    Ok(ens)
}

/// System `s`'s hypothetical bodies' (m, a, e, inc_deg).
fn drawn(ens: &Ensemble, s: usize) -> Vec<[f64; 4]> {
    let bodies = system_bodies(ens, &[], s, Path::new("grid.ron")).unwrap();
    bodies
        .iter()
        .map(|b| {
            let el = elements_from_cartesian(1.0 + b.m, b.pos, b.vel);
            [b.m, el.a, el.e, el.inc.to_degrees()]
        })
        .collect()
}

#[test]
fn systems_cover_the_grid_first_axis_fastest() {
    let ens = ensemble(
        12,
        "Grid(name: \"S\", m: 2.858e-4, a: (7.0, 10.0, 3), e: Grid(0.0, 0.5, 2), inc_deg: 0.0,\n\
         peri_deg: Some(0.0), node_deg: Some(0.0), mean_anomaly_deg: Some(0.0))",
    )
    .unwrap();
    let axes = ens.grid_axes();
    assert_eq!(axes.len(), 2);
    assert_eq!((axes[0].label.as_str(), axes[0].unit), ("S.a", "AU"));
    assert_eq!(axes[0].points, [7.0, 8.5, 10.0]);
    assert_eq!(
        (axes[1].label.as_str(), axes[1].points.clone()),
        ("S.e", vec![0.0, 0.5])
    );
    for s in 0..12 {
        let p = s % 6;
        assert_eq!(ens.grid_point(s), [p % 3, p / 3]);
        let [m, a, e, inc] = drawn(&ens, s)[0];
        let (a0, e0) = (axes[0].points[p % 3], axes[1].points[p / 3]);
        assert_eq!(m, 2.858e-4);
        assert!((a - a0).abs() < 1e-12 && (e - e0).abs() < 1e-12 && inc.abs() < 1e-12);
    }
}

#[test]
fn grids_span_bodies_and_mix_with_draws() {
    let ens = ensemble(
        8,
        "Grid(name: \"B\", m: LogGrid(1e-6, 1e-4, 2), a: 5.0, e: Normal(0.05, 0.02), inc_deg: (0.0, 1.0)),\n\
         Drawn(name: \"C\", m: 1e-5, a: LogUniform(8.0, 12.0), e: (0.0, 0.1), inc_deg: 0.0,\n\
         node_deg: Some(Grid(0.0, 90.0, 2)))",
    )
    .unwrap();
    let labels: Vec<String> = ens.grid_axes().into_iter().map(|a| a.label).collect();
    assert_eq!(labels, ["B.m", "C.node_deg"]);
    for s in 0..8 {
        let bodies = drawn(&ens, s);
        let [mb, ab, eb, _] = bodies[0];
        assert_eq!(mb, [1e-6, 1e-4][s % 2]);
        assert!((ab - 5.0).abs() < 1e-12 && (0.0..1.0).contains(&eb));
        assert!((8.0..12.0).contains(&bodies[1][1]));
    }
    // The draws differ between the two passes over the grid (seed + s).
    assert_ne!(drawn(&ens, 0)[1], drawn(&ens, 4)[1]);
}

#[test]
fn bad_grids_are_located() {
    let e = ensemble(
        10,
        "Grid(name: \"S\", m: 1e-4, a: (7.0, 10.0, 3), e: 0.0, inc_deg: 0.0)",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("systems") && e.contains("multiple of the grid's 3 points"),
        "{e}"
    );
    let e = ensemble(
        3,
        "Grid(name: \"S\", m: 1e-4, a: (7.0, 10.0), e: 0.0, inc_deg: 0.0)",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("`S`") && e.contains("at least one grid axis"),
        "{e}"
    );
    let e = ensemble(
        3,
        "Drawn(name: \"S\", m: 1e-4, a: Triangle(7.0, 10.0), e: 0.0, inc_deg: 0.0)",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("line 1") && e.contains("LogUniform(lo, hi)"),
        "{e}"
    );
    let e = ensemble(
        3,
        "Drawn(name: \"S\", m: 1e-4, a: 5.0, e: (0.5, 1.0), inc_deg: 0.0)",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("`S`.e") && e.contains("< 1"), "{e}");
}
