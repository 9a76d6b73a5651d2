//! The extra forces' settings from the command line's point of view (issue 26): GENGA's keys
//! read with their lines, bad values refused with file, line and field (exit 2) before any
//! output, a scenario's fields likewise, and a checkpoint not resumed with other forces.

mod common;
use common::*;
use std::path::Path;

/// A param.dat of two bodies with `extra` lines appended (from line 6 on).
fn param(dir: &Path, extra: &str) -> String {
    let ic = dir.join("ic.dat");
    std::fs::write(
        &ic,
        "1.0 0.0 0.0 1e-9 0.0 1.0 0.0\n0.0 2.0 0.0 1e-9 -0.7 0.0 0.0\n",
    )
    .unwrap();
    let text = format!(
        "Time step in days = 6\nOutput name = t\nIntegration steps = 3\nInput file = ic.dat\n\
         Input file Format: << x y z m vx vy vz >>\n{extra}"
    );
    let p = dir.join("param.dat");
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn genga_force_keys_with_bad_values_are_refused_with_their_line() {
    let d = scratch("forces-param");
    let out = d.join("out");
    let out = out.to_str().unwrap();
    let cases: [(&str, &[&str]); 13] = [
        (
            "Use GR = 2\n",
            &["line 6", "Use GR", "expected 0 (off) or 1"],
        ),
        (
            "J2 = 1e-3\nJ2 radius = -0.01\n",
            &["line 7", "J2 radius", "expected a J2 radius >= 0"],
        ),
        ("J2 = 1e-3\n", &["J2 radius", "expected a J2 radius > 0"]),
        (
            "Use Poynting-Robertson = 1\nRadiation Pressure Coefficient Qpr = -1\n",
            &["line 7", "Radiation Pressure Coefficient Qpr", ">= 0"],
        ),
        (
            "Solar Constant = -5\nUse Poynting-Robertson = 1\n",
            &["line 6", "Solar Constant", "solar constant"],
        ),
        (
            "Use GR = 1\nCentral Mass = 0\n",
            &["line 7", "Central Mass", "expected a central mass > 0"],
        ),
        (
            "Use Yarkovsky = 2\n",
            &["line 6", "Use Yarkovsky", "expected 0 (off) or 1"],
        ),
        (
            "Use Yarkovsky = 1\nAsteroid albedo A = 1.5\n",
            &[
                "line 7",
                "Asteroid albedo A",
                "expected a Bond albedo in [0, 1)",
            ],
        ),
        (
            "Use Tides = 1\nStar tau = -1\n",
            &["line 7", "Star tau", "time lag >= 0"],
        ),
        (
            "Use gas disk = 1\nGas disk grid dr = 0.0002\n",
            &["line 7", "Gas disk grid dr", "can hold"],
        ),
        (
            "Use gas disk = 1\nGas disk grid outer edge = 0.05\n",
            &[
                "line 7",
                "Gas disk grid outer edge",
                "beyond the inner edge",
            ],
        ),
        (
            "Use gas disk = 1\nUse gas disk potential = 0\nGas Sigma_10 = -3\n",
            &["line 8", "Gas Sigma_10", "surface density"],
        ),
        (
            "Use gas disk = 1\nUse gas disk potential = 0\nGas file name = gas.dat\n",
            &["line 8", "Gas file name", "cannot read the gas disk file"],
        ),
    ];
    for (extra, expected) in cases {
        let p = param(&d, extra);
        refused(&d, &["run", &p, "--out", out, "--overwrite"], expected);
    }
    // A tabulated disk: a bad row is named by its file, line and column; a good table runs.
    let table = "0 1 2000 0.05\n0 2 -1000 0.05\n0 4 500 0.05\n";
    std::fs::write(d.join("disk.txt"), table).unwrap();
    let p = param(&d, "Use gas disk = 1\nGas file name = disk.txt\n");
    refused(
        &d,
        &["run", &p, "--out", out, "--overwrite"],
        &["disk.txt", "line 2", "Sigma", "surface density >= 0"],
    );
    std::fs::write(d.join("disk.txt"), table.replace("-1000", "1000")).unwrap();
    let tabulated = d.join("tabulated");
    let o = orrery(&["run", &p, "--out", tabulated.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    // A changed table does not resume the run (the settings name only the file).
    std::fs::write(d.join("disk.txt"), table.replace("-1000", "900")).unwrap();
    let args = ["run", &p, "--out", tabulated.to_str().unwrap(), "--resume"];
    refused(&d, &args, &["gas-table-fnv1a"]);
    // Radiation on a body without radius: a radius of 0 is one not given (GENGA's rule: the
    // radius then comes from the density), so only a massless body has none.
    let ic = d.join("ic0.dat");
    std::fs::write(&ic, "1.0 0.0 0.0 0 0.0 0.0 1.0 0.0\n").unwrap();
    let text =
        "Time step in days = 6\nOutput name = t\nIntegration steps = 3\nInput file = ic0.dat\n\
                Input file Format: << x y z m r vx vy vz >>\nUse Poynting-Robertson = 1\n";
    let p = d.join("param0.dat");
    std::fs::write(&p, text).unwrap();
    refused(
        &d,
        &["run", p.to_str().unwrap(), "--out", out, "--overwrite"],
        &["body 0", "radius > 0"],
    );
    // A body's tidal columns out of their physical range, with the tides on: the file, line
    // and column.
    for (row, col, want) in [
        ("2.0 0.5 1e-3 0.25", "k2", "Love number in [0, 1.5]"),
        ("0.5 0.5 -1 0.25", "tau", "time lag >= 0"),
        ("0.5 0.5 1e-3 0.9", "Ic", "(0, 2/3]"),
    ] {
        let ic = d.join("ic_tides.dat");
        std::fs::write(
            &ic,
            format!("0.05 0.0 0.0 1e-3 4.7e-4 0.0 4.47 0.0 0 0 0 {row}\n"),
        )
        .unwrap();
        let text = "Time step in days = 0.05\nOutput name = t\nIntegration steps = 3\n\
                    Input file = ic_tides.dat\n\
                    Input file Format: << x y z m r vx vy vz Sx Sy Sz k2 k2f tau Ic >>\n\
                    Use Tides = 1\n";
        let p = d.join("param_tides.dat");
        std::fs::write(&p, text).unwrap();
        refused(
            &d,
            &["run", p.to_str().unwrap(), "--out", out, "--overwrite"],
            &["ic_tides.dat", "line 1", col, want],
        );
    }
    // The keys at good values run.
    let p = param(
        &d,
        "Use GR = 1\nJ2 = 1e-4\nJ2 radius = 0.005\nStar spin_x = 0.1\nStar spin_z = 1\n\
         Use Poynting-Robertson = 1\nRadiation Pressure Coefficient Qpr = 1.2\nSolar Constant = 1361\n\
         Solar Wind factor = 0.35\nUse Yarkovsky = 1\nAsteroid density rho = 2500\n\
         Use gas disk = 1\nGas Sigma_10 = 1700\nGas disk grid dr = 0.5\n\
         Use Tides = 1\nUse Rotational Deformation = 1\nStar Love Number = 0.03\nStar tau = 1e-4\n",
    );
    let o = orrery(&["run", &p, "--out", out, "--overwrite"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

fn scenario(dir: &Path, forces: &str, radius: &str, steps: u64) -> String {
    let text = format!(
        "Scenario(name: \"f\", time_step_days: 6.0, steps: Some({steps}), forces: ({forces}),\n\
         bodies: [Cartesian(name: \"a\", m: 1e-9, radius: {radius}, pos: (1.0, 0.0, 0.0), \
         vel: (0.0, 1.0, 0.0))],\n\
         output: (dir: \"{}\", energy_interval: 1, coordinates_interval: 0, checkpoint_interval: 10))",
        dir.join("out").display()
    );
    let p = dir.join("f.ron");
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn scenario_force_fields_with_bad_values_are_refused_with_their_field() {
    let d = scratch("forces-scenario");
    let p = scenario(&d, "j2: 1e-3, j2_radius: -0.1", "None", 3);
    refused(&d, &["run", &p], &["f.ron", "forces.j2_radius", ">= 0"]);
    let p = scenario(&d, "poynting_robertson: true, qpr: -2.0", "None", 3);
    refused(&d, &["run", &p], &["forces.qpr", ">= 0"]);
    let p = scenario(&d, "poynting_robertson: true", "Some(0.0)", 3);
    refused(&d, &["run", &p], &["body 0", "radius > 0"]);
    let p = scenario(&d, "gr: true, relativity: 1", "None", 3);
    refused(&d, &["run", &p], &["relativity"]);
    let p = scenario(
        &d,
        "gas: (on: true, inner_edge: 5.0, outer_edge: 2.0)",
        "None",
        3,
    );
    refused(
        &d,
        &["run", &p],
        &["f.ron", "forces.gas.outer_edge", "beyond"],
    );
    let p = scenario(&d, "gas: (on: true, grid_dr: -0.1)", "None", 3);
    refused(&d, &["run", &p], &["f.ron", "forces.gas.grid_dr", "> 0"]);
    let p = scenario(
        &d,
        "gas: (on: true, file: Some(\"missing.txt\"))",
        "None",
        3,
    );
    refused(
        &d,
        &["run", &p],
        &["f.ron", "forces.gas.file", "cannot read the gas disk file"],
    );
    let p = scenario(&d, "gas: (on: true, drag: Sometimes)", "None", 3);
    refused(&d, &["run", &p], &["f.ron", "Sometimes"]);
    let p = scenario(&d, "tides: (tides: true, star: (k2: 2.0))", "None", 3);
    refused(
        &d,
        &["run", &p],
        &["f.ron", "forces.tides.star.k2", "[0, 1.5]"],
    );
    let p = scenario(
        &d,
        "tides: (rotational_deformation: true, star: (ic: 0.0))",
        "None",
        3,
    );
    refused(
        &d,
        &["run", &p],
        &["f.ron", "forces.tides.star.ic", "(0, 2/3]"],
    );
}

#[test]
fn a_checkpoint_is_not_resumed_with_other_forces() {
    let d = scratch("forces-resume");
    let p = scenario(&d, "gr: true, j2: 1e-3, j2_radius: 0.01", "None", 20);
    let o = orrery(&["run", &p]);
    assert!(o.status.success(), "{}", stderr(&o));
    let p = scenario(&d, "j2: 1e-3, j2_radius: 0.01", "None", 40);
    let o = orrery(&["run", &p, "--resume"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("the checkpoint has `gr=potential`"), "{err}");
    let p = scenario(&d, "gr: true, j2: 2e-3, j2_radius: 0.01", "None", 40);
    let err = stderr(&orrery(&["run", &p, "--resume"]));
    assert!(err.contains("j2=1e-3") && err.contains("j2=2e-3"), "{err}");
    // The same forces resume.
    let p = scenario(&d, "gr: true, j2: 1e-3, j2_radius: 0.01", "None", 40);
    let o = orrery(&["run", &p, "--resume"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn a_run_with_every_force_resumes_bitwise() {
    // Stopped at step 13 and resumed, a run with GR, J2, radiation and its booked work writes the
    // bytes of the uninterrupted run (the work is booked before every checkpoint).
    use common::runs::*;
    use orrery::backend::{self, BackendChoice, PassSet};
    let cpu = || backend::create(BackendChoice::Cpu, PassSet::NONE, None).expect("cpu backend");
    for (name, text, fill) in force_runs() {
        let d = scratch(&format!("forces-resume-{name}"));
        let scenario = write_scenario(&d, name, &text, &fill);
        let whole = run_on(&scenario, &d.join("whole"), cpu());
        assert!(whole.times.forces > 0.0, "{name}: the forces must run");
        run_until(&scenario, &d.join("parts"), cpu(), Some(13), false);
        run_until(&scenario, &d.join("parts"), cpu(), None, true);
        assert_same_outputs(&d.join("parts"), &d.join("whole"), true, name);
    }
}
