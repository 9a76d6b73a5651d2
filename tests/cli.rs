//! The command-line contract: determinism across thread counts, bitwise restarts, and bad input
//! (exit code 2, a message naming file, line and field, and no output that looks like a run).

mod common;
use common::*;
use std::path::Path;

fn final_snapshot(dir: &Path, name: &str, step: u64) -> Vec<u8> {
    std::fs::read(dir.join(format!("Out{name}_{step:012}.dat"))).expect("final snapshot exists")
}

#[test]
fn one_and_two_threads_give_bitwise_identical_results() {
    let d = scratch("threads");
    let mut outs = Vec::new();
    for threads in ["1", "2"] {
        let sub = d.join(threads);
        std::fs::create_dir_all(&sub).unwrap();
        let sc = quiet_disk(&sub, "q", 300, 120, "");
        let o = orrery(&["run", sc.to_str().unwrap(), "--threads", threads]);
        assert!(o.status.success(), "{}", stderr(&o));
        outs.push((
            final_snapshot(&sub.join("out"), "q", 120),
            std::fs::read(sub.join("out/Energyq.dat")).unwrap(),
        ));
    }
    assert_eq!(
        outs[0].0, outs[1].0,
        "final snapshots differ between 1 and 2 threads"
    );
    assert_eq!(
        outs[0].1, outs[1].1,
        "energy files differ between 1 and 2 threads"
    );
}

#[test]
fn resumed_run_is_bitwise_identical_to_an_uninterrupted_one() {
    let d = scratch("resume");
    let extra = ", checkpoint_interval: 40";
    let a = d.join("a");
    let b = d.join("b");
    for s in [&a, &b] {
        std::fs::create_dir_all(s).unwrap();
    }
    let sa = quiet_disk(&a, "r", 200, 150, extra);
    let sb = quiet_disk(&b, "r", 200, 150, extra);
    let o = orrery(&["run", sa.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Stop at step 70 (its own final checkpoint), resume to 100, then to 150.
    for (steps, resume) in [("70", false), ("100", true), ("150", true)] {
        let mut args = vec!["run", sb.to_str().unwrap(), "--steps", steps];
        if resume {
            args.push("--resume");
        }
        let o = orrery(&args);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let (oa, ob) = (a.join("out"), b.join("out"));
    assert_eq!(final_snapshot(&oa, "r", 150), final_snapshot(&ob, "r", 150));
    // Energy lines written after the last checkpoint before the stop are not duplicated.
    assert_eq!(
        std::fs::read_to_string(oa.join("Energyr.dat")).unwrap(),
        std::fs::read_to_string(ob.join("Energyr.dat")).unwrap()
    );
}

/// The EVENTS scenario (close encounters, ejections at the first step, three mergers in 30
/// steps): byte-identical outputs on one and two threads, and a run stopped at step 13 and
/// resumed writes the files of the uninterrupted one.
#[test]
fn runs_with_encounters_and_mergers_are_identical_across_threads_and_resume() {
    use common::runs::{assert_same_outputs, write_scenario, EVENTS};
    let d = scratch("events-threads");
    let run = |tag: &str, parts: &[&[&str]]| {
        let out = d.join(tag);
        let sc = write_scenario(
            &d,
            &format!("events-{tag}"),
            EVENTS,
            &[("ORDER", "2"), ("OUT", out.to_str().unwrap())],
        );
        let mut stdout = String::new();
        for extra in parts {
            let mut args = vec!["run", sc.to_str().unwrap()];
            args.extend_from_slice(extra);
            let o = orrery(&args);
            assert!(o.status.success(), "{tag} {extra:?}: {}", stderr(&o));
            stdout.push_str(&String::from_utf8_lossy(&o.stdout));
        }
        (out, stdout)
    };
    let (one, summary) = run("t1", &[&["--threads", "1"]]);
    // The run has the events this test is about.
    assert!(
        summary_count(&summary, "confirmed encounters ") > 0,
        "{summary}"
    );
    assert!(
        summary_count(&summary, "encounter groups ") > 0,
        "{summary}"
    );
    assert!(summary_count(&summary, "collisions ") >= 3, "{summary}");
    assert!(summary_count(&summary, "ejections ") > 0, "{summary}");
    let (two, _) = run("t2", &[&["--threads", "2"]]);
    assert_same_outputs(&two, &one, false, "two threads vs one");
    let (split, _) = run(
        "split",
        &[
            &["--threads", "2", "--steps", "13"],
            &["--threads", "1", "--resume"],
        ],
    );
    assert_same_outputs(
        &split,
        &one,
        true,
        "stopped at 13 and resumed vs uninterrupted",
    );
    for log in [
        "Energyevents.dat",
        "Collisionsevents.dat",
        "Ejectionsevents.dat",
    ] {
        assert!(split.join(log).exists() && one.join(log).exists(), "{log}");
    }
}

#[test]
fn resume_without_checkpoint_is_an_input_error() {
    let d = scratch("nockpt");
    let sc = quiet_disk(&d, "n", 10, 10, "");
    let o = orrery(&["run", sc.to_str().unwrap(), "--resume"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("checkpoint"), "{}", stderr(&o));
}

#[test]
fn generated_disk_file_loads_back() {
    let d = scratch("generate");
    let o = orrery(&["generate", "disk", "--n", "50", "--seed", "3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    assert_eq!(text.lines().count(), 50);
    std::fs::write(d.join("disk.dat"), &text).unwrap();
    let sc = format!(
        r#"Scenario(name: "g", time_step_days: 6.0, steps: Some(3), n2: 0.0,
            bodies: [File(path: "disk.dat", format: "<< i m r x y z vx vy vz >>")],
            output: (dir: "{}"))"#,
        d.join("out").display()
    );
    std::fs::write(d.join("g.ron"), sc).unwrap();
    let o = orrery(&["run", d.join("g.ron").to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("N 50 -> 50"));
}

fn ron_with(dir: &Path, body: &str, top: &str) -> String {
    let text = format!(
        r#"Scenario(name: "bad", time_step_days: 6.0, steps: Some(5), {top}
            bodies: [{body}], output: (dir: "{}"))"#,
        dir.join("out").display()
    );
    let p = dir.join("bad.ron");
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

const ONE_BODY: &str =
    r#"Cartesian(name: "a", m: 1e-9, pos: (1.0, 0.0, 0.0), vel: (0.0, 1.0, 0.0))"#;

#[test]
fn malformed_and_unknown_ron_fields_are_named() {
    let d = scratch("bad-ron");
    let p = d.join("broken.ron");
    std::fs::write(
        &p,
        "Scenario(\n  name: \"x\",\n  time_step_days: 6.0 oops\n)",
    )
    .unwrap();
    refused(&d, &["run", p.to_str().unwrap()], &["broken.ron", "line 3"]);
    let p = ron_with(&d, ONE_BODY, "n3: 1.0,");
    refused(&d, &["run", &p], &["bad.ron", "n3"]);
}

#[test]
fn bad_step_and_settings_are_named() {
    let d = scratch("bad-step");
    for dt in ["0.0", "-6.0"] {
        let text = format!(
            r#"Scenario(name: "bad", time_step_days: {dt}, steps: Some(5),
                bodies: [{ONE_BODY}], output: (dir: "{}"))"#,
            d.join("out").display()
        );
        std::fs::write(d.join("dt.ron"), text).unwrap();
        refused(
            &d,
            &["run", d.join("dt.ron").to_str().unwrap()],
            &["time_step_days", "positive"],
        );
    }
    let p = ron_with(&d, ONE_BODY, "");
    refused(&d, &["run", &p, "--order", "3"], &["order", "2, 4 or 6"]);
}

#[test]
fn bad_bodies_are_named() {
    let d = scratch("bad-bodies");
    let cases = [
        (
            r#"Cartesian(name: "a", m: -1e-9, pos: (1.0, 0.0, 0.0), vel: (0.0, 1.0, 0.0))"#,
            "mass",
        ),
        (
            r#"Cartesian(name: "a", m: 1e-9, pos: (1.0, 0.0, 0.001), vel: (0.0, 1.0, 0.0)),
            Cartesian(name: "b", m: 1e-9, pos: (0.001, 0.0, 0.0), vel: (0.0, 1.0, 0.0))"#,
            "inside the central body",
        ),
        (
            r#"Cartesian(name: "a", m: 1e-9, pos: (1.0, 0.0, 0.0), vel: (0.0, inf, 0.0))"#,
            "finite",
        ),
        (
            r#"Cartesian(name: "a", m: NaN, pos: (1.0, 0.0, 0.0), vel: (0.0, 1.0, 0.0))"#,
            "mass",
        ),
        (
            r#"Cartesian(name: "a", m: 1e-9, pos: (1.0, 0.5, 0.0), vel: (0.0, 1.0, 0.0)),
            Cartesian(name: "b", m: 1e-9, pos: (1.0, 0.5, 0.0), vel: (0.1, 1.0, 0.0))"#,
            "distinct positions",
        ),
    ];
    for (body, what) in cases {
        let p = ron_with(&d, body, "");
        refused(&d, &["run", &p], &["bad.ron", "body", what]);
    }
}

#[test]
fn bad_initial_condition_files_are_named() {
    let d = scratch("bad-ic");
    let cases = [
        ("1.0 0.0 0.0 1e-9 0.0 1.0\n", "line 1"),
        (
            "1.0 0.0 0.0 1e-9 0.0 1.0 0.0\n1.0 0.0 0.0 x 0.0 1.0 0.0\n",
            "line 2",
        ),
        ("1.0 0.0 0.0 -1e-9 0.0 1.0 0.0\n", "line 1"),
        ("1.0 nan 0.0 1e-9 0.0 1.0 0.0\n", "line 1"),
        ("0.001 0.0 0.0 1e-9 0.0 1.0 0.0\n", "line 1"),
    ];
    for (k, (text, line)) in cases.iter().enumerate() {
        let f = d.join(format!("ic{k}.dat"));
        std::fs::write(&f, text).unwrap();
        let body = format!(
            r#"File(path: "{}", format: "<< x y z m vx vy vz >>")"#,
            f.display()
        );
        let p = ron_with(&d, &body, "");
        refused(&d, &["run", &p], &[&format!("ic{k}.dat"), line]);
    }
    let body = r#"File(path: "missing.dat", format: "<< x y z m vx vy vz >>")"#;
    let p = ron_with(&d, body, "");
    refused(&d, &["run", &p], &["missing.dat"]);
    refused(
        &d,
        &["run", d.join("nothing.ron").to_str().unwrap()],
        &["nothing.ron"],
    );
}

fn param_file(dir: &Path, extra: &str) -> String {
    disk_param(
        dir,
        &format!("Time step in days = 6\nOutput name = t\nIntegration steps = 5\n{extra}"),
    )
}

#[test]
fn bad_param_files_are_named() {
    let d = scratch("bad-param");
    let out = d.join("out");
    let out = out.to_str().unwrap();
    let p = param_file(&d, "Centrl Mass = 1.0\n");
    refused(
        &d,
        &["run", &p, "--out", out],
        &["param.dat", "line 6", "Central Mass"],
    );
    let p = param_file(&d, "Use gas disk = 1\nGas disk grid dr = 0\n");
    refused(
        &d,
        &["run", &p, "--out", out],
        &["param.dat", "line 7", "Gas disk grid dr"],
    );
    let p = param_file(&d, "n1 = three\n");
    refused(
        &d,
        &["run", &p, "--out", out],
        &["param.dat", "line 6", "n1"],
    );
    let p = param_file(&d, "this line has no separator\n");
    refused(&d, &["run", &p, "--out", out], &["param.dat", "line 6"]);
}

#[test]
fn unwritable_output_directory_is_an_input_error() {
    let d = scratch("bad-out");
    let blocker = d.join("file");
    std::fs::write(&blocker, "not a directory").unwrap();
    let p = ron_with(&d, ONE_BODY, "");
    let o = orrery(&["run", &p, "--out", blocker.join("sub").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("output directory"), "{}", stderr(&o));
}

#[test]
fn binary_snapshots_hold_the_same_numbers_as_text_snapshots() {
    let d = scratch("binary");
    let (a, b) = (d.join("a"), d.join("b"));
    for s in [&a, &b] {
        std::fs::create_dir_all(s).unwrap();
    }
    let text = quiet_disk(&a, "t", 40, 30, "");
    let binary = quiet_disk(&b, "t", 40, 30, ", binary_snapshots: true");
    for sc in [&text, &binary] {
        let o = orrery(&["run", sc.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let rows: Vec<Vec<f64>> = std::fs::read_to_string(a.join("out/Outt_000000000030.dat"))
        .unwrap()
        .lines()
        .map(|l| l.split_whitespace().map(|v| v.parse().unwrap()).collect())
        .collect();
    let raw = std::fs::read(b.join("out/Outt_000000000030.bin")).unwrap();
    let values: Vec<f64> = raw
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(values.len(), rows.len() * 13);
    for (k, row) in rows.iter().enumerate() {
        assert_eq!(&values[k * 13..(k + 1) * 13], &row[..], "body line {k}");
    }
}

#[test]
fn devices_lists_the_device_apis_or_says_how_to_build_them() {
    let o = orrery(&["devices"]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let err = stderr(&o);
    let opencl = cfg!(feature = "opencl");
    let cuda = cfg!(feature = "cuda");
    if opencl || cuda {
        // A machine where no compiled-in API has a runtime answers exit 2 with what to install.
        assert!(
            (o.status.success() && out.contains("--backend auto uses"))
                || err.contains("install an OpenCL runtime")
                || err.contains("NVIDIA driver"),
            "{out}{err}"
        );
    } else {
        assert!(o.status.success(), "{err}");
        assert!(!out.contains("--backend auto uses"), "{out}");
    }
    // Every API that is not compiled in says how to build it.
    for (compiled, how) in [
        (opencl, "cargo build --release --features opencl"),
        (cuda, "cargo build --release --features cuda"),
    ] {
        if !compiled && o.status.success() {
            assert!(out.contains(how), "{out}");
        }
    }
    // A CUDA build on a machine without a CUDA device still lists OpenCL and says why CUDA is
    // empty.
    if cuda && o.status.success() {
        assert!(out.contains("CUDA"), "{out}");
    }
}

#[test]
fn device_with_the_cpu_backend_is_an_input_error() {
    let d = scratch("device-cpu");
    let sc = quiet_disk(&d, "q", 10, 1, "");
    let o = orrery(&[
        "run",
        sc.to_str().unwrap(),
        "--backend",
        "cpu",
        "--device",
        "0",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--device 0 picks an OpenCL or CUDA device"));
}

/// `orrery run --help` points to the one place the output files' columns are documented, and
/// that place names every file a run writes.
#[test]
fn run_help_points_to_the_output_columns() {
    let o = orrery(&["run", "--help"]);
    assert!(o.status.success());
    let help = String::from_utf8_lossy(&o.stdout);
    assert!(help.contains("docs/guide/outputs.md"), "{help}");
    let section = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/guide/outputs.md"),
    )
    .unwrap();
    for file in [
        "`Out<name>_",
        "`Energy<name>.dat`",
        "`Collisions<name>.dat`",
        "`Ejections<name>.dat`",
        "`info<name>.dat`",
        "`Checkpoint<name>_",
        "`summary.csv`",
        "`Sheet<name>_",
        "`Series<name>.dat`",
    ] {
        assert!(
            section.contains(file),
            "{file} not in docs/guide/outputs.md"
        );
    }
}

/// `--backend cuda` where CUDA cannot run (a build without the feature, or no driver or device)
/// exits 2 with what to do, before writing anything.
#[test]
fn cuda_without_the_feature_or_a_device_exits_2_and_says_why() {
    let d = scratch("cuda-missing");
    let sc = quiet_disk(&d, "q", 10, 1, "");
    let o = orrery(&["run", sc.to_str().unwrap(), "--backend", "cuda"]);
    let err = stderr(&o);
    if cfg!(feature = "cuda") && o.status.success() {
        eprintln!("cuda_without_the_feature_or_a_device: this machine has a CUDA device");
        return;
    }
    assert_eq!(o.status.code(), Some(2), "{err}");
    if cfg!(feature = "cuda") {
        assert!(
            err.contains("CUDA") && err.contains("--backend cpu"),
            "{err}"
        );
    } else {
        assert!(
            err.contains("cargo build --release --features cuda"),
            "{err}"
        );
    }
    assert!(files_with_prefix(&d.join("out"), "Out").is_empty());
}

/// The scenario's `changeover` is honoured (the EVENTS run with the smooth function differs from
/// GENGA's), survives a stop and resume bitwise (the checkpoint keeps it), and a checkpoint of
/// one function is not resumed with another.
#[test]
fn the_changeover_choice_is_honoured_and_kept_across_resume() {
    use common::runs::{assert_same_outputs, write_scenario, EVENTS};
    let d = scratch("changeover-choice");
    let run = |tag: &str, changeover: &str, out: &Path, parts: &[&[&str]]| {
        let text = EVENTS.replace("n1: 3.0,", &format!("changeover: {changeover}, n1: 3.0,"));
        let sc = write_scenario(
            &d,
            &format!("co-{tag}"),
            &text,
            &[("ORDER", "2"), ("OUT", out.to_str().unwrap())],
        );
        let mut last = None;
        for extra in parts {
            let mut args = vec!["run", sc.to_str().unwrap()];
            args.extend_from_slice(extra);
            last = Some(orrery(&args));
        }
        last.unwrap()
    };
    let (genga, smooth, split) = (d.join("genga"), d.join("smooth"), d.join("split"));
    let o = run("genga", "Genga", &genga, &[&[]]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run("smooth", "Infinity", &smooth, &[&[]]);
    assert!(o.status.success(), "{}", stderr(&o));
    let energy = |dir: &Path| std::fs::read_to_string(dir.join("Energyevents.dat")).unwrap();
    assert_ne!(
        energy(&genga),
        energy(&smooth),
        "the changeover made no difference"
    );
    let o = run(
        "split",
        "Infinity",
        &split,
        &[&["--steps", "13"], &["--resume"]],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_same_outputs(
        &split,
        &smooth,
        true,
        "smooth changeover, stopped and resumed",
    );
    // A checkpoint written with the smooth function, resumed with GENGA's: refused.
    let o = run("split", "Genga", &split, &[&["--steps", "20", "--resume"]]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("changeover"), "{err}");
}

#[test]
fn a_reader_that_closes_the_pipe_early_is_not_an_error() {
    // `orrery run ... | head`, `orrery generate disk | head`: the reader is gone before the
    // output (a disk of 20000 bodies is 2 MB, far beyond a pipe's buffer): exit 0, no panic, and
    // the run's files complete.
    use std::process::{Command, Stdio};
    let d = scratch("closed-pipe");
    let scenario = quiet_disk(&d, "pipe", 20, 50, "");
    for args in [
        vec!["run", scenario.to_str().unwrap()],
        vec!["generate", "disk", "--n", "20000"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_orrery"))
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start orrery");
        drop(child.stdout.take());
        let o = child.wait_with_output().expect("wait for orrery");
        let err = stderr(&o);
        assert!(o.status.success(), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    assert_eq!(files_with_prefix(&d.join("out"), "Outpipe").len(), 2);
}

/// A param.dat of the 2048 disk in `dir` with `keys`; returns its path.
fn disk_param(dir: &Path, keys: &str) -> String {
    std::fs::create_dir_all(dir).unwrap();
    let ic = Path::new(env!("CARGO_MANIFEST_DIR")).join("inputs/genga/initialplanet_2048.dat");
    let text = format!(
        "Input file = {}\nInput file Format: << x y z m vx vy vz >>\n{keys}",
        ic.display()
    );
    let p = dir.join("param.dat");
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

/// The `Out` and `Energy` files of a run's folder, by name.
fn snapshots_and_energy(dir: &Path) -> Vec<(String, Vec<u8>)> {
    common::runs::outputs(dir)
        .into_iter()
        .filter(|(n, _)| n.starts_with("Out") || n.starts_with("Energy"))
        .collect()
}

#[test]
fn genga_console_arguments_set_their_param_dat_keys() {
    // GENGA's `-dt -I -ei -ci -n1 -n2 -out` override the file's lines: the run writes the bytes
    // of the run whose param.dat says the same.
    let d = scratch("genga-console");
    let console = disk_param(
        &d.join("console"),
        "Time step in days = 6\nOutput name = file\nIntegration steps = 100\nn1 = 3\n",
    );
    let edited = disk_param(
        &d.join("edited"),
        "Time step in days = 2.5\nOutput name = c\nIntegration steps = 4\n\
         Energy output interval = 2\nCoordinates output interval = 2\nn1 = 2.5\nn2 = 0.3\n",
    );
    let (out_c, out_e) = (d.join("console/out"), d.join("edited/out"));
    let o = orrery(&[
        "run",
        &console,
        "-dt",
        "2.5",
        "-I",
        "4",
        "-ei",
        "2",
        "-ci",
        "2",
        "-n1",
        "2.5",
        "-n2",
        "0.3",
        "-out",
        "c",
        "--out",
        out_c.to_str().unwrap(),
        "--threads",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = orrery(&[
        "run",
        &edited,
        "--out",
        out_e.to_str().unwrap(),
        "--threads",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (got, want) = (snapshots_and_energy(&out_c), snapshots_and_energy(&out_e));
    let names: Vec<&str> = got.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "Energyc.dat",
            "Outc_000000000000.dat",
            "Outc_000000000002.dat",
            "Outc_000000000004.dat"
        ]
    );
    assert!(
        got == want,
        "the console run's files differ from the edited param.dat's"
    );
    // The last snapshot is at 4 steps of 2.5 days.
    let last = String::from_utf8(got[3].1.clone()).unwrap();
    let t: f64 = last.split_whitespace().next().unwrap().parse().unwrap();
    assert!((t - 10.0 / 365.25).abs() < 1e-12, "t = {t} yr");
}

#[test]
fn bad_genga_console_arguments_are_named() {
    let d = scratch("genga-console-bad");
    let out = d.join("out");
    let out = out.to_str().unwrap();
    let p = disk_param(&d, "Integration steps = 3\n");
    refused(
        &d,
        &["run", &p, "--out", out, "-dt", "0"],
        &["-dt on the command line", "Time step in days", "> 0 days"],
    );
    refused(
        &d,
        &["run", &p, "--out", out, "-I", "ten"],
        &["-I on the command line", "Integration steps"],
    );
    refused(
        &d,
        &["run", &p, "--out", out, "-ei"],
        &["`-ei`", "expects a value"],
    );
    refused(
        &d,
        &["run", &p, "--out", out, "-t", "1"],
        &["`-t` sets the start time"],
    );
    refused(
        &d,
        &["run", &p, "--out", out, "-R", "7"],
        &[
            "-R on the command line",
            "_000000000007.dat",
            "restart step",
        ],
    );
    refused(
        &d,
        &["run", &p, "--out", out, "-NminTP", "-2"],
        &[
            "-NminTP on the command line",
            "Minimum number of test particles",
        ],
    );
    let sc = inputs().join("disk2048.ron");
    refused(
        &d,
        &["run", sc.to_str().unwrap(), "--out", out, "-dt", "3"],
        &["`-dt 3`", "GENGA's console arguments", "RON scenario"],
    );
}

#[test]
fn consecutive_outputs_per_interval_are_written_as_genga_writes_them_and_resume_bitwise() {
    // Three snapshots end each 50-step interval (GENGA's `Number of outputs per interval`),
    // also when the run stops inside a burst and resumes.
    let d = scratch("outputs-per-interval");
    let extra = ", outputs_per_interval: 3, checkpoint_interval: 40";
    let (a, b) = (d.join("a"), d.join("b"));
    for s in [&a, &b] {
        std::fs::create_dir_all(s).unwrap();
    }
    let sa = quiet_disk(&a, "r", 50, 150, extra);
    let sb = quiet_disk(&b, "r", 50, 150, extra);
    let o = orrery(&["run", sa.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    for (steps, resume) in [("49", false), ("99", true), ("150", true)] {
        let mut args = vec!["run", sb.to_str().unwrap(), "--steps", steps];
        if resume {
            args.push("--resume");
        }
        let o = orrery(&args);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let snapshots = |dir: &Path| -> Vec<(String, Vec<u8>)> {
        snapshots_and_energy(&dir.join("out"))
            .into_iter()
            .filter(|(n, _)| n.starts_with("Out"))
            .collect()
    };
    let (got, want) = (snapshots(&b), snapshots(&a));
    let steps: Vec<u64> = want
        .iter()
        .map(|(n, _)| n["Outr_".len()..][..12].parse().unwrap())
        .collect();
    assert_eq!(steps, [0, 48, 49, 50, 98, 99, 100, 148, 149, 150]);
    assert!(got == want, "the resumed run's snapshots differ");
}
