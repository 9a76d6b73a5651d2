//! Settings that used to be silently ignored or misread (issue 12, section 3): each is either
//! honoured or refused with exit code 2 and a message that says what to do instead.

mod common;
use common::*;
use std::path::Path;

fn scenario(dir: &Path, file: &str, top: &str, bodies: &str) -> String {
    let text = format!(
        "// a scenario\nScenario(name: \"s\", time_step_days: 6.0, steps: Some(3), {top}\n\
         bodies: [{bodies}], output: (dir: \"{}\"))",
        dir.join("out").display()
    );
    let p = dir.join(file);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

const TWO_BODIES: &str = r#"Cartesian(name: "a", m: 1e-9, pos: (1.0, 0.0, 0.0), vel: (0.0, 1.0, 0.0)),
    Cartesian(name: "b", m: 1e-9, pos: (0.0, 2.0, 0.0), vel: (-0.7, 0.0, 0.0))"#;

#[test]
fn minimum_number_of_test_particles_is_a_count() {
    let d = scratch("min-tp");
    let ic = inputs().join("genga/initialplanet_2048.dat");
    let param = |extra: &str| {
        let text = format!(
            "Time step in days = 6\nOutput name = t\nIntegration steps = 3\nInput file = {}\n\
             Input file Format: << x y z m vx vy vz >>\nUse Test Particles = 1\n{extra}",
            ic.display()
        );
        let p = d.join("param.dat");
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let out = d.join("out");
    let p = param("Minimum number of test particles = -1\n");
    refused(
        &d,
        &["run", &p, "--out", out.to_str().unwrap()],
        &["param.dat", "line 7", "Minimum number of test particles"],
    );
    let p = param("Minimum number of test particles = 0\n");
    let o = orrery(&["run", &p, "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn collision_precision_and_stop_minimum_mass_are_checked_where_given() {
    let d = scratch("collision-keys");
    let ic = inputs().join("genga/initialplanet_2048.dat");
    let out = d.join("out");
    for (line, at) in [
        ("Collision Precision = 0", "Collision Precision"),
        ("Stop Minimum Mass = -1e-6", "Stop Minimum Mass"),
    ] {
        let text = format!(
            "Time step in days = 6\nOutput name = t\nIntegration steps = 3\nInput file = {}\n\
             Input file Format: << x y z m vx vy vz >>\nStop at Collision = 1\n{line}\n",
            ic.display()
        );
        let p = d.join("param.dat");
        std::fs::write(&p, text).unwrap();
        let p = p.to_str().unwrap();
        refused(
            &d,
            &["run", p, "--out", out.to_str().unwrap()],
            &["param.dat", "line 7", at],
        );
    }
}

#[test]
fn the_wisdom_holman_map_refuses_a_collision_time_shift() {
    let d = scratch("wh-time-shift");
    let top = "integrator: WisdomHolman(correctors: 0), collisions: (time_shift: Some(2.0)),";
    let p = scenario(&d, "w.ron", top, TWO_BODIES);
    refused(
        &d,
        &["run", &p],
        &["w.ron", "collisions.time_shift", "no mergers"],
    );
}

#[test]
fn multi_mode_in_a_plain_scenario_says_how_to_run_many_systems() {
    let d = scratch("multi-plain");
    let p = scenario(&d, "m.ron", "mode: Multi,", TWO_BODIES);
    refused(
        &d,
        &["run", &p],
        &["m.ron", "mode", "Ensemble(", "--multi LIST"],
    );
}

#[test]
fn mode_multi_on_a_ron_file_says_it_is_a_scenario() {
    let d = scratch("multi-ron");
    let p = scenario(&d, "m.ron", "", TWO_BODIES);
    let err = refused(
        &d,
        &["run", &p, "--mode", "multi"],
        &["m.ron", "RON scenario", "one simulation directory per line"],
    );
    assert!(!err.contains("// a scenario"), "{err}");
    // Also when the RON file has another extension, and with --multi.
    let other = d.join("list.txt");
    std::fs::copy(&p, &other).unwrap();
    refused(
        &d,
        &["run", "--multi", other.to_str().unwrap()],
        &["list.txt", "RON scenario"],
    );
}

#[test]
fn semi_active_outside_test_particle_mode_is_refused() {
    let d = scratch("semi");
    let p = scenario(&d, "s.ron", "", TWO_BODIES);
    refused(
        &d,
        &["run", &p, "--semi-active"],
        &["semi_active", "--mode test-particles"],
    );
    let p = scenario(&d, "s2.ron", "semi_active: true,", TWO_BODIES);
    refused(&d, &["run", &p], &["s2.ron", "semi_active"]);
    let p = scenario(
        &d,
        "s3.ron",
        "mode: TestParticles, particle_minimum_mass: 0.0,",
        TWO_BODIES,
    );
    let o = orrery(&["run", &p, "--semi-active"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn sheet_engine_in_a_scenario_says_how_to_write_a_sheet_file() {
    let d = scratch("sheet-engine");
    let p = scenario(&d, "e.ron", "engine: Sheet,", TWO_BODIES);
    let err = refused(&d, &["run", &p], &["e.ron", "engine", "Sheet(", "ring.ron"]);
    assert!(!err.contains("not available"), "{err}");
}

#[test]
fn backend_names_are_accepted_in_lower_case() {
    let d = scratch("backend-case");
    for (k, b) in ["auto", "Auto", "cpu", "Cpu"].iter().enumerate() {
        let p = scenario(
            &d,
            &format!("b{k}.ron"),
            &format!("backend: {b},"),
            TWO_BODIES,
        );
        // The scenarios share a run name and output directory: each run replaces the last.
        let o = orrery(&["run", &p, "--overwrite"]);
        assert!(o.status.success(), "backend {b}: {}", stderr(&o));
    }
}

#[test]
fn hyperbolic_eccentricity_gets_a_human_message() {
    let d = scratch("ecc");
    let body = r#"Kepler(name: "J", m: 1e-3, radius: None, a: 5.2, e: 1.5, inc_deg: 0.0,
        node_deg: 0.0, peri_deg: 0.0, mean_anomaly_deg: 0.0)"#;
    let p = scenario(&d, "e.ron", "", body);
    let err = refused(
        &d,
        &["run", &p],
        &["e.ron", "bodies[0]", "e = 1.5", "a (1 - e) > 0"],
    );
    assert!(!err.contains("BadSemiMajorAxis"), "{err}");
}

#[test]
fn two_bodies_at_one_position_name_the_initial_condition_file_and_line() {
    let d = scratch("dup");
    let ic = d.join("ic.dat");
    std::fs::write(
        &ic,
        "# x y z m vx vy vz\n1.0 0.0 0.0 1e-9 0.0 1.0 0.0\n2.0 0.0 0.0 1e-9 0.0 0.7 0.0\n\
         1.0 0.0 0.0 1e-9 0.0 1.1 0.0\n",
    )
    .unwrap();
    let text = format!(
        "Time step in days = 6\nOutput name = t\nIntegration steps = 3\nInput file = {}\n\
         Input file Format: << x y z m vx vy vz >>\n",
        ic.display()
    );
    let p = d.join("param.dat");
    std::fs::write(&p, text).unwrap();
    let out = d.join("out");
    let err = refused(
        &d,
        &["run", p.to_str().unwrap(), "--out", out.to_str().unwrap()],
        &["ic.dat", "line 4", "line 2", "distinct positions"],
    );
    assert!(!err.contains("param.dat"), "{err}");
}

#[test]
fn every_field_documented_in_example_ron_is_read() {
    use orrery::config::{self, Overrides};
    let (cfg, bodies) = config::load(&inputs().join("example.ron"), &Overrides::default())
        .expect("example.ron loads");
    assert_eq!(bodies.len(), 202);
    assert_eq!((cfg.device, cfg.semi_active), (None, false));
    assert!(!cfg.output.binary_snapshots);
    let text = std::fs::read_to_string(inputs().join("example.ron"))
        .unwrap()
        .replace("device: None", "device: Some(3)")
        .replace("cpu_passes: None", "cpu_passes: Some(\"all\")")
        .replace("backend: Auto", "backend: cpu")
        .replace("genga/", inputs().join("genga/").to_str().unwrap());
    let d = scratch("example-fields");
    let p = d.join("example.ron");
    std::fs::write(&p, text).unwrap();
    let (cfg, _) = config::load(&p, &Overrides::default()).expect("edited example loads");
    assert_eq!(cfg.device, Some(3));
    assert_eq!(cfg.backend, orrery::backend::BackendChoice::Cpu);
    assert_eq!(cfg.cpu_passes, orrery::backend::PassSet::all());
}
