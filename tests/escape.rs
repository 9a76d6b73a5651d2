//! The escape stop (`stop: (escape: Some(r))`, REBOUND's `exit_max_distance`): a body beyond r
//! ends its system in both integrators, at the step that sees it, with the reason `escape`;
//! without it the same body leaves only at the outer truncation radius (where the hybrid step
//! goes on without it and the map stops). The ejection stop (`stop: (ejection: true)`) ends the
//! hybrid step's system at a body removed inside the inner radius, as the map always does.

mod common;
use common::*;
use orrery::backend::{self, BackendChoice, PassSet};
use orrery::config::{self, Overrides};
use orrery::hybrid::run::HybridRun;
use orrery::model::StopReason;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// Jupiter and a planet thrown out on a hyperbolic orbit (perihelion 3 AU, e = 1.3), which passes
/// 30 AU after about 9 years and 50 AU after about 17.
fn scenario(dir: &Path, integrator: &str, stop: &str) -> PathBuf {
    let text = format!(
        r#"Scenario(
    name: "escape",
    time_step_days: 10.0,
    steps: Some(1200),
    {integrator}
    {stop}
    inner_truncation: 0.1,
    outer_truncation: 50.0,
    bodies: [
        Kepler(name: "Jupiter", m: 9.547919e-4, a: 5.2029, e: 0.0484, inc_deg: 0.0, node_deg: 0.0,
               peri_deg: 0.0, mean_anomaly_deg: 20.0),
        Kepler(name: "Rogue", m: 1e-6, a: -10.0, e: 1.3, inc_deg: 10.0, node_deg: 0.0,
               peri_deg: 90.0, mean_anomaly_deg: 0.0),
    ],
    output: (dir: "{out}", energy_interval: 0, coordinates_interval: 0, checkpoint_interval: 0),
)"#,
        out = dir.join("out").display()
    );
    let path = dir.join("escape.ron");
    std::fs::write(&path, text).unwrap();
    path
}

/// The run of `path` on the CPU to its end or its stop: the stop record of its system.
fn run(path: &Path) -> (Option<orrery::model::StopRecord>, u64) {
    let setup = config::load_setup(path, &Overrides::default(), false).expect("scenario loads");
    let b = backend::create(BackendChoice::Cpu, PassSet::NONE, None).unwrap();
    let mut r = HybridRun::start(setup, b, false).expect("starts");
    r.advance(u64::MAX, &AtomicBool::new(false), &mut |_| {})
        .expect("runs");
    (r.stop_record(0), r.step())
}

#[test]
fn a_body_beyond_the_escape_radius_stops_either_integrator_there() {
    let d = scratch("escape");
    for integrator in ["", "integrator: WisdomHolman(correctors: 0),"] {
        let path = scenario(&d, integrator, "stop: (escape: Some(30.0)),");
        let (record, step) = run(&path);
        let record = record.unwrap_or_else(|| panic!("{integrator}: no stop"));
        assert_eq!(record.reason, StopReason::Escape, "{integrator}");
        assert_eq!(record.bodies[0], Some(1), "{integrator}: the rogue's id");
        let r = record.distance.expect("a distance");
        // Seen at the first check beyond 30 AU: at most one step's travel (a few 0.1 AU) past it.
        assert!((30.0..30.5).contains(&r), "{integrator}: distance {r}");
        assert_eq!(step, record.step, "{integrator}: the run ends at the stop");
        assert!((300..400).contains(&step), "{integrator}: step {step}");
        // Without the stop the rogue leaves at the outer truncation radius, 50 AU, later: the
        // hybrid step removes it and goes on to its end, the map stops there as it always does.
        let (without, end) = run(&scenario(&d, integrator, ""));
        match without {
            None => assert!(integrator.is_empty() && end == 1200, "{integrator}: {end}"),
            Some(late) => {
                assert!(!integrator.is_empty(), "the hybrid step stopped: {late:?}");
                let r = late.distance.expect("a distance");
                assert!(late.step > step && (50.0..50.5).contains(&r), "{late:?}");
            }
        }
    }
}

#[test]
fn an_escape_radius_inside_the_inner_radius_is_refused() {
    let d = scratch("escape-refused");
    let path = scenario(&d, "", "stop: (escape: Some(0.05)),");
    let err = config::load_setup(&path, &Overrides::default(), false).unwrap_err();
    assert!(err.to_string().contains("stop.escape"), "{err}");
    let path = scenario(&d, "", "stop: (escape: Some(-3.0)),");
    let err = config::load_setup(&path, &Overrides::default(), false).unwrap_err();
    assert!(err.to_string().contains("stop.escape"), "{err}");
}

#[test]
fn the_ejection_stop_ends_the_hybrid_step_at_a_removal_inside_the_inner_radius() {
    let d = scratch("ejection-stop");
    // A comet of perihelion 0.05 AU passes inside the 0.1 AU inner radius near t = 0.6 yr.
    let comet = |stop: &str| {
        let path = scenario(&d, "", stop);
        let text = std::fs::read_to_string(&path).unwrap().replace(
            "a: -10.0, e: 1.3, inc_deg: 10.0, node_deg: 0.0,\n               peri_deg: 90.0, mean_anomaly_deg: 0.0",
            "a: 2.0, e: 0.975, inc_deg: 10.0, node_deg: 0.0,\n               peri_deg: 90.0, mean_anomaly_deg: 200.0",
        );
        std::fs::write(&path, text).unwrap();
        run(&path)
    };
    let (record, step) = comet("stop: (ejection: true),");
    let record = record.expect("the ejection stop");
    assert_eq!(record.reason, StopReason::Ejection);
    assert_eq!(record.bodies[0], Some(1), "the comet's id");
    assert_eq!(step, record.step);
    // The record is the perihelion passage inside the radius, within the last step.
    let r = record.distance.expect("a distance");
    assert!(r < 0.1, "distance {r}");
    let years = |n: u64| n as f64 * 10.0 / 365.25;
    assert!(
        record.years > years(step - 1) && record.years <= years(step),
        "{record:?}"
    );
    // Without it the hybrid step removes the comet and goes on to its end.
    let (without, end) = comet("");
    assert!(without.is_none() && end == 1200, "{without:?} at {end}");
}
