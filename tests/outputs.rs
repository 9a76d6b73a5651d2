//! A run's files are never mixed with another run's or corrupted (issue 12, section 1): fresh
//! runs refuse a directory holding files of the same run name unless `--overwrite`, a resume
//! refuses output files shorter than its checkpoint recorded, the logs of an interrupted and
//! resumed run are those of an uninterrupted one, bad checkpoints are named, and a multi-simulation
//! resume checks every simulation's settings and finds its checkpoint for a bare list name.

mod common;
use common::*;
use std::path::Path;

fn ok(args: &[&str]) -> String {
    let o = orrery(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stderr(&o)
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn fresh_run_into_a_used_directory_is_refused_unless_overwrite() {
    let d = scratch("overwrite");
    let sc = quiet_disk(&d, "o", 40, 100, ", checkpoint_interval: 40");
    let sc = sc.to_str().unwrap();
    ok(&["run", sc]);
    let out = d.join("out");
    assert!(out.join("Outo_000000000100.dat").exists());
    let energy_before = read(&out.join("Energyo.dat"));
    let o = orrery(&["run", sc, "--steps", "50"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("Energyo.dat"), "{}", stderr(&o));
    assert!(stderr(&o).contains("--overwrite"), "{}", stderr(&o));
    // Nothing was touched.
    assert_eq!(read(&out.join("Energyo.dat")), energy_before);
    ok(&["run", sc, "--steps", "50", "--overwrite"]);
    // The old run's later snapshots and checkpoints are gone; a resume continues the new run.
    assert!(!out.join("Outo_000000000100.dat").exists());
    assert_eq!(
        files_with_prefix(&out, "Checkpointo_"),
        [
            "Checkpointo_000000000040.bin",
            "Checkpointo_000000000050.bin"
        ]
    );
    ok(&["run", sc, "--steps", "100", "--resume"]);
    assert!(!read(&out.join("Energyo.dat")).contains(&0));
    // A run of another name in the same directory is not affected.
    let other = quiet_disk(&d, "p", 40, 20, "");
    ok(&["run", other.to_str().unwrap()]);
}

#[test]
fn output_file_shorter_than_the_checkpoint_recorded_is_named() {
    let d = scratch("short");
    let sc = quiet_disk(&d, "s", 40, 100, ", checkpoint_interval: 40");
    let sc = sc.to_str().unwrap();
    ok(&["run", sc]);
    let energy = d.join("out/Energys.dat");
    let text = read(&energy);
    std::fs::write(&energy, &text[..20]).unwrap();
    let o = orrery(&["run", sc, "--steps", "150", "--resume"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("Energys.dat"), "{}", stderr(&o));
    assert!(stderr(&o).contains("shorter"), "{}", stderr(&o));
    assert!(!read(&energy).contains(&0), "padded with NUL bytes");
}

#[test]
fn logs_after_a_stop_and_resume_are_those_of_an_uninterrupted_run() {
    let d = scratch("logs");
    let (a, b) = (d.join("a"), d.join("b"));
    for s in [&a, &b] {
        std::fs::create_dir_all(s).unwrap();
    }
    let extra = ", checkpoint_interval: 40";
    let sa = quiet_disk(&a, "l", 40, 150, extra);
    let sb = quiet_disk(&b, "l", 40, 150, extra);
    ok(&["run", sa.to_str().unwrap()]);
    // Stop at step 75, between two energy lines (every 10 steps): the stop writes a line at 75
    // for the user, which the resume must not keep.
    ok(&["run", sb.to_str().unwrap(), "--steps", "75"]);
    let stopped = String::from_utf8(read(&b.join("out/Energyl.dat"))).unwrap();
    assert!(stopped.lines().count() == 9, "{stopped}");
    ok(&["run", sb.to_str().unwrap(), "--resume"]);
    for f in ["Energyl.dat", "Collisionsl.dat", "Ejectionsl.dat"] {
        assert_eq!(
            read(&a.join("out").join(f)),
            read(&b.join("out").join(f)),
            "{f} differs from the uninterrupted run"
        );
    }
}

#[test]
fn resume_into_a_missing_directory_leaves_no_directory() {
    let d = scratch("missing");
    let sc = quiet_disk(&d, "m", 10, 10, "");
    let o = orrery(&["run", sc.to_str().unwrap(), "--resume"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        !d.join("out").exists(),
        "an empty output directory was left"
    );
}

#[test]
fn unreadable_checkpoints_are_named_and_inconsistent_ones_refused() {
    let d = scratch("badckpt");
    let sc = quiet_disk(&d, "c", 40, 100, ", checkpoint_interval: 40");
    let sc = sc.to_str().unwrap();
    ok(&["run", sc]);
    let out = d.join("out");
    let newest = out.join("Checkpointc_000000000100.bin");
    let good = read(&newest);
    std::fs::write(&newest, &good[..good.len() / 2]).unwrap();
    let err = ok(&["run", sc, "--steps", "120", "--resume"]);
    assert!(
        err.contains("warning")
            && err.contains("Checkpointc_000000000100.bin")
            && err.contains("truncated"),
        "{err}"
    );
    // A checkpoint that decodes but names candidate pairs beyond its bodies: exit 2, no panic.
    let mut c = orrery::io::checkpoint::decode(&good).unwrap();
    c.state.candidates.push((3, 1_000_000));
    for f in files_with_prefix(&out, "Checkpointc_") {
        std::fs::remove_file(out.join(f)).unwrap();
    }
    std::fs::write(&newest, orrery::io::checkpoint::encode(&c)).unwrap();
    let o = orrery(&["run", sc, "--steps", "120", "--resume"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("Checkpointc_000000000100.bin"),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("candidate"), "{}", stderr(&o));
}

#[cfg(not(feature = "opencl"))]
#[test]
fn opencl_on_a_build_without_it_leaves_no_directory() {
    let d = scratch("no-opencl");
    let sc = quiet_disk(&d, "n", 10, 10, "");
    let o = orrery(&["run", sc.to_str().unwrap(), "--backend", "opencl"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        !d.join("out").exists(),
        "an empty output directory was left"
    );
}

/// `n` GENGA simulations `s00`, `s01`, ... under `root`, each two quiet planets around a central
/// mass of 1 (`m0` for simulation `changed`), and a list `root/list.txt` naming them.
fn many_sims(root: &Path, n: usize, changed: Option<(usize, f64)>) -> std::path::PathBuf {
    let mut list = String::from("# many systems\n");
    for k in 0..n {
        let dir = root.join(format!("s{k:02}"));
        std::fs::create_dir_all(&dir).unwrap();
        let m0 = match changed {
            Some((c, m0)) if c == k => m0,
            _ => 1.0,
        };
        let param = format!(
            "Time step in days = 6\n\
             Output name = s{k:02}\n\
             Integration steps = 1000\n\
             Central Mass = {m0}\n\
             Input file = ics.dat\n\
             Input file Format: << i m r x y z vx vy vz >>\n\
             Energy output interval = 5\n\
             Coordinates output interval = 10\n"
        );
        std::fs::write(dir.join("param.dat"), param).unwrap();
        std::fs::write(
            dir.join("ics.dat"),
            "0 3e-6 2e-5 1 0 0 0 1 0\n1 1e-5 2e-5 0 -2 0 0.7071 0 0\n",
        )
        .unwrap();
        list.push_str(&format!("s{k:02}\n"));
    }
    let path = root.join("list.txt");
    std::fs::write(&path, list).unwrap();
    path
}

#[test]
fn multi_resume_checks_every_simulations_settings() {
    let d = scratch("multi-fingerprint");
    let list = many_sims(&d, 20, None);
    let list = list.to_str().unwrap();
    ok(&["run", "--multi", list, "--steps", "10"]);
    // Simulation 18's central mass changes: beyond the first 16, still refused.
    many_sims(&d, 20, Some((18, 1.01)));
    let o = orrery(&["run", "--multi", list, "--steps", "20", "--resume"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("different settings"), "{}", stderr(&o));
    assert!(files_with_prefix(&d.join("s18"), "Outs18_000000000020").is_empty());
    // Back to the settings of the run: the resume goes through.
    many_sims(&d, 20, None);
    ok(&["run", "--multi", list, "--steps", "20", "--resume"]);
    assert!(d.join("s18/Outs18_000000000020.dat").exists());
}

#[test]
fn multi_list_given_as_a_bare_file_name_resumes() {
    let d = scratch("multi-bare");
    many_sims(&d, 3, None);
    let run = |args: &[&str]| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_orrery"))
            .args(args)
            .current_dir(&d)
            .output()
            .expect("run orrery");
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    };
    run(&["run", "--multi", "list.txt", "--steps", "10"]);
    assert_eq!(
        files_with_prefix(&d, "Checkpointlist_"),
        ["Checkpointlist_000000000010.bin"]
    );
    run(&["run", "--multi", "list.txt", "--steps", "20", "--resume"]);
    assert!(d.join("s01/Outs01_000000000020.dat").exists());
    // The resumed run equals an uninterrupted one.
    let whole = scratch("multi-bare-whole");
    let list = many_sims(&whole, 3, None);
    ok(&["run", "--multi", list.to_str().unwrap(), "--steps", "20"]);
    for f in ["s01/Outs01_000000000020.dat", "s02/Energys02.dat"] {
        assert_eq!(read(&d.join(f)), read(&whole.join(f)), "{f}");
    }
}
