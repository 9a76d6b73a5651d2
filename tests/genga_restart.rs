//! GENGA's restart from a step (issue 47): `Restart timestep = N` (console `-R N`) continues a
//! run from its `Out` file of step N with E0, U and the event counts read back from its logs,
//! appends to those logs, and removes the earlier run's checkpoints past N. Checked against the
//! uninterrupted run, whose collision before the restart step makes U and the counts matter.

mod common;
use common::genga_sims::{genga_sim, merging_pair_ics, three_systems};
use common::*;
use std::path::{Path, PathBuf};

/// Two planets that merge within a few steps and a third far out (GENGA's `beta` of the
/// multi-mode tests): 1000 steps, energy and coordinates every 100.
fn merging_sim(dir: &Path) -> PathBuf {
    genga_sim(dir, "beta", 0.8, 2.5, &merging_pair_ics());
    dir.join("param.dat")
}

/// The numbers of each line of `path`.
fn rows(path: &Path) -> Vec<Vec<f64>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let row = |l: &str| l.split_whitespace().map(|x| x.parse().unwrap()).collect();
    text.lines().map(row).collect()
}

/// Run `param` writing into `out` with the extra arguments `args`.
fn run_with(param: &Path, out: &Path, args: &[&str]) -> std::process::Output {
    let mut all = vec![
        "run",
        param.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    orrery(&all)
}

/// [`run_with`], which must succeed.
fn run(param: &Path, out: &Path, args: &[&str]) -> std::process::Output {
    let o = run_with(param, out, args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    o
}

/// A copy of the directory tree `from` in `to`.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        match e.file_type().unwrap().is_dir() {
            true => copy_tree(&e.path(), &to.join(e.file_name())),
            false => drop(std::fs::copy(e.path(), to.join(e.file_name())).unwrap()),
        }
    }
}

#[test]
fn a_restart_from_a_step_continues_the_run_and_its_books() {
    let d = scratch("genga-restart");
    let param = merging_sim(&d.join("sim"));
    let whole = d.join("whole");
    let o = run(&param, &whole, &[]);
    assert_eq!(
        summary_count(&String::from_utf8_lossy(&o.stdout), "collisions"),
        1
    );
    let restarted = d.join("restarted");
    copy_tree(&whole, &restarted);
    let before = std::fs::read(restarted.join("Outbeta_000000000500.dat")).unwrap();
    let o = run(&param, &restarted, &["-R", "500"]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    // The collision of step 3 is counted from the Collisions file.
    assert_eq!(summary_count(&stdout, "collisions"), 1, "{stdout}");
    // The restart step's own snapshot is the earlier run's, unchanged.
    assert_eq!(
        std::fs::read(restarted.join("Outbeta_000000000500.dat")).unwrap(),
        before
    );
    // The end state agrees with the uninterrupted run's; not to the bit, as the snapshot holds
    // heliocentric velocities.
    let a = rows(&whole.join("Outbeta_000000001000.dat"));
    let b = rows(&restarted.join("Outbeta_000000001000.dat"));
    assert_eq!(a.len(), 2, "the pair merged");
    assert_eq!(b.len(), a.len());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x[..4], y[..4], "t i m r");
        for c in 4..10 {
            let scale = x[4..7].iter().map(|v| v * v).sum::<f64>().sqrt();
            assert!(
                (x[c] - y[c]).abs() < 1e-12 * scale,
                "column {c}: {x:?} {y:?}"
            );
        }
    }
    // GENGA appends to the logs: the 11 lines of steps 0..1000, then 600..1000 again.
    let whole_energy = rows(&whole.join("Energybeta.dat"));
    let energy = rows(&restarted.join("Energybeta.dat"));
    assert_eq!(whole_energy.len(), 11);
    assert_eq!(energy.len(), 16);
    assert_eq!(energy[..11], whole_energy[..]);
    for (k, line) in energy[11..].iter().enumerate() {
        let same = &whole_energy[6 + k];
        assert_eq!(line[0], same[0], "time");
        // U (inner energy of the merger) read back to the bit; ERelativ against the same E0.
        assert_eq!(line[5], same[5], "U at {}", line[0]);
        assert!(line[5] != 0.0);
        assert!(
            (line[9] - same[9]).abs() < 1e-12,
            "ERelativ {line:?} {same:?}"
        );
        assert!(
            (line[8] - same[8]).abs() < 1e-12,
            "LRelativ {line:?} {same:?}"
        );
    }
    assert_eq!(
        std::fs::read(restarted.join("Collisionsbeta.dat")).unwrap(),
        std::fs::read(whole.join("Collisionsbeta.dat")).unwrap()
    );
}

#[test]
fn a_line_a_killed_run_left_unfinished_is_cut_off() {
    let d = scratch("genga-restart-unfinished");
    let param = merging_sim(&d.join("sim"));
    let out = d.join("out");
    run(&param, &out, &[]);
    for log in ["Energybeta.dat", "Collisionsbeta.dat"] {
        let mut text = std::fs::read_to_string(out.join(log)).unwrap();
        text.push_str("1.7e1 2 -3.1");
        std::fs::write(out.join(log), text).unwrap();
    }
    run(&param, &out, &["-R", "500"]);
    // Every line parses (none glued to the unfinished one): 11 lines, then 600..1000 again.
    assert_eq!(rows(&out.join("Energybeta.dat")).len(), 16);
    assert_eq!(rows(&out.join("Collisionsbeta.dat")).len(), 1);
}

#[test]
fn a_restart_removes_the_later_checkpoints_so_a_resume_continues_it() {
    let d = scratch("genga-restart-checkpoints");
    let param = merging_sim(&d.join("sim"));
    let whole = d.join("whole");
    run(&param, &whole, &[]);
    let restarted = d.join("restarted");
    copy_tree(&whole, &restarted);
    let o = run(&param, &restarted, &["-R", "500", "--steps", "800"]);
    let warned = stderr(&o) + &String::from_utf8_lossy(&o.stdout);
    assert!(warned.contains("removed"), "{warned}");
    assert_eq!(
        files_with_prefix(&restarted, "Checkpoint"),
        ["Checkpointbeta_000000000800.bin"]
    );
    // The resume continues the restarted history to the end step.
    run(&param, &restarted, &["-R", "-1"]);
    let a = rows(&whole.join("Outbeta_000000001000.dat"));
    let b = rows(&restarted.join("Outbeta_000000001000.dat"));
    for (x, y) in a.iter().zip(&b) {
        assert!((x[4] - y[4]).abs() < 1e-12, "{x:?} {y:?}");
    }
}

#[test]
fn a_restart_the_files_cannot_serve_is_refused_with_its_reason() {
    let d = scratch("genga-restart-refused");
    let param = merging_sim(&d.join("sim"));
    let out = d.join("out");
    run(&param, &out, &[]);
    let refused = |args: &[&str], expected: &[&str]| {
        let o = run_with(&param, &out, args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        for e in expected {
            assert!(err.contains(e), "{args:?} lacks `{e}`: {err}");
        }
        assert!(!err.contains("panicked"), "{err}");
    };
    refused(
        &["-R", "350"],
        &["-R on the command line", "Outbeta_000000000350.dat"],
    );
    refused(&["-R", "1000"], &["Restart timestep", "end step"]);
    refused(&["-R", "500", "--resume"], &["--resume", "one of the two"]);
    // Another time step puts step 500 at another time than the file's.
    refused(
        &["-R", "500", "-dt", "5"],
        &["Outbeta_000000000500.dat", "field `t`", "time step"],
    );
    std::fs::remove_file(out.join("Energybeta.dat")).unwrap();
    refused(&["-R", "500"], &["Energybeta.dat", "E0"]);
}

#[test]
fn every_simulation_of_a_list_restarts_from_its_own_files() {
    let d = scratch("genga-restart-multi");
    let whole = d.join("whole");
    let (list, sims) = three_systems(&whole);
    let o = orrery(&["run", "--multi", list.to_str().unwrap(), "--steps", "400"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let restarted = d.join("restarted");
    copy_tree(&whole, &restarted);
    let list_b = restarted.join(list.strip_prefix(&whole).unwrap());
    let args = ["run", "--multi", list_b.to_str().unwrap(), "--steps", "400"];
    let o = orrery(&[&args[..], &["-R", "200", "--shard", "1/2"]].concat());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--shard"), "{}", stderr(&o));
    let o = orrery(&[&args[..], &["-R", "200"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    for (dir, name) in &sims {
        let b_dir = restarted.join(dir.strip_prefix(&whole).unwrap());
        let end = format!("Out{name}_000000000400.dat");
        let (a, b) = (rows(&dir.join(&end)), rows(&b_dir.join(&end)));
        assert_eq!(a.len(), b.len(), "{name}");
        for (x, y) in a.iter().zip(&b) {
            for c in 4..7 {
                assert!((x[c] - y[c]).abs() < 1e-12, "{name}: {x:?} {y:?}");
            }
        }
        let energy = rows(&b_dir.join(format!("Energy{name}.dat")));
        let whole_energy = rows(&dir.join(format!("Energy{name}.dat")));
        assert_eq!(
            energy.len(),
            whole_energy.len() + 2,
            "{name}: 300 and 400 again"
        );
        let (last, same) = (energy.last().unwrap(), whole_energy.last().unwrap());
        assert!(
            (last[9] - same[9]).abs() < 1e-12,
            "{name}: {last:?} {same:?}"
        );
    }
}
