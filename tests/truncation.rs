//! The inner truncation radius within the step: comets that pass perihelion inside the radius
//! between two step ends are removed with the time and state of that passage, in every mode
//! (GENGA checks only at step ends, where these comets are never inside).

mod common;
use common::runs::{write_scenario, SUNGRAZERS};
use common::*;
use std::f64::consts::TAU;
use std::path::Path;

/// Code units per year (Gaussian constant k per day).
const YEAR: f64 = 365.25 * 0.01720209895;

/// The comets of SUNGRAZERS: id, mean anomaly (degrees) and perihelion distance.
const COMETS: [(u64, f64, f64); 3] = [(1, 345.0, 0.02), (2, 300.0, 0.04), (3, 330.0, 0.08)];

/// Years to the first perihelion of a comet of a = 2 AU around M0 = 1 with mean anomaly `m_deg`.
fn perihelion_years(m_deg: f64) -> f64 {
    let n = (1.0f64 / 8.0).sqrt();
    (TAU - m_deg.to_radians()) / n / YEAR
}

fn rows(path: &Path) -> Vec<Vec<f64>> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| l.split_whitespace().map(|t| t.parse().unwrap()).collect())
        .collect()
}

#[test]
fn comets_are_removed_at_their_perihelion_passage_inside_the_inner_radius() {
    for mode in ["Main", "TestParticles"] {
        let d = scratch(&format!("grazers-{mode}"));
        let out = d.join("out");
        let sc = write_scenario(
            &d,
            "grazers",
            SUNGRAZERS,
            &[("MODE", mode), ("OUT", out.to_str().unwrap())],
        );
        let o = orrery(&["run", sc.to_str().unwrap()]);
        assert!(o.status.success(), "{mode}: {}", stderr(&o));
        let ejected = rows(&out.join("Ejectionsgrazers.dat"));
        // The two comets with q < 0.05 AU leave at their passage; the one with q = 0.08 stays.
        assert_eq!(ejected.len(), 2, "{mode}: {ejected:?}");
        for (row, &(id, m_deg, q)) in ejected.iter().zip(&COMETS) {
            assert_eq!(row[1] as u64, id, "{mode}");
            assert_eq!(*row.last().unwrap(), -2.0, "{mode}: case");
            // The passage time within a small fraction of the 6-day step (Jupiter's pull moves
            // it by minutes), and the state at the passage, at perihelion.
            let want = perihelion_years(m_deg);
            let days = (row[0] - want).abs() * 365.25;
            assert!(
                days < 0.05,
                "{mode}: comet {id} at {} yr, expected {want}",
                row[0]
            );
            let r = (row[4] * row[4] + row[5] * row[5] + row[6] * row[6]).sqrt();
            assert!(
                (r - q).abs() < 1e-3 * q,
                "{mode}: comet {id} at r = {r}, q = {q}"
            );
        }
        let last = rows(&out.join("Outgrazers_000000000060.dat"));
        assert!(
            last.iter().any(|r| r[1] as u64 == 3),
            "{mode}: comet 3 is gone"
        );
    }
}

#[test]
fn an_ensemble_stops_each_system_at_its_comets_passage() {
    // Multi mode: every system of the ensemble holds the comets and stops at its first loss,
    // the first comet's perihelion passage.
    let d = scratch("grazers-multi");
    let out = d.join("out");
    let scenario = SUNGRAZERS
        .replace("MODE", "Multi")
        .replace("OUT", out.to_str().unwrap());
    let text = format!(
        "Ensemble(systems: 3, seed: 1, hypothetical: [Drawn(name: \"X\", m: (1e-9, 2e-9), \
         a: (30.0, 31.0), e: (0.0, 0.01), inc_deg: (0.0, 1.0))], scenario: {scenario})"
    );
    let path = d.join("ens.ron");
    std::fs::write(&path, text).unwrap();
    let o = orrery(&["run", path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("no `{name}` column in {header:?}"))
    };
    let (time, kind) = (col("first_event_time_yr"), col("first_event"));
    let want = perihelion_years(COMETS[0].1);
    let mut systems = 0;
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        let t: f64 = f[time].parse().unwrap();
        assert!(f[kind].contains("eject"), "{line}");
        assert!((t - want).abs() * 365.25 < 0.05, "{line}: expected {want}");
        systems += 1;
    }
    assert_eq!(systems, 3);
}

#[test]
fn a_test_particle_run_stops_when_fewer_test_particles_remain_than_its_minimum() {
    // Three comets as test particles, two of them removed at their perihelion passages (steps
    // 8 and 29 of 60): with minimum_test_particles 2 the run ends at the second removal's step.
    let d = scratch("grazers-min-tp");
    let out = d.join("out");
    let text = SUNGRAZERS.replace(
        "particle_minimum_mass: 1e-11,",
        "particle_minimum_mass: 1e-11,\n    minimum_test_particles: 2,",
    );
    let sc = write_scenario(
        &d,
        "grazers",
        &text,
        &[("MODE", "TestParticles"), ("OUT", out.to_str().unwrap())],
    );
    let o = orrery(&["run", sc.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
    assert!(
        report.contains("1 test particles left") && report.contains("fewer than the minimum 2"),
        "{report}"
    );
    let ejected = rows(&out.join("Ejectionsgrazers.dat"));
    assert_eq!(ejected.len(), 2, "{ejected:?}");
    // The energy file (every step) ends at the step of the second removal.
    let energy = rows(&out.join("Energygrazers.dat"));
    let (last, removal) = (energy.last().unwrap()[0], ejected[1][0]);
    let step_yr = 6.0 / 365.25;
    assert!(
        last >= removal && last - removal < step_yr + 1e-12,
        "last energy line at {last} yr, second removal at {removal} yr"
    );
    assert!(last < 59.0 * step_yr, "the run went on to {last} yr");
}
