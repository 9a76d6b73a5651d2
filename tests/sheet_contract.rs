//! The sheet engine keeps the hybrid engine's contract (issue 12, section 4): a located exit 2 for
//! an unwritable output directory, atomic snapshots and info file, whole-run counts and rates
//! and every part's summary after a resume, a resume with a changed scenario refused, signals
//! and `--resume auto`.

mod common;
use common::*;
use std::path::{Path, PathBuf};

fn small(dir: &Path, file: &str, theta: &str) -> PathBuf {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/inputs/ring.ron"))
        .unwrap()
        .replace("box_size: 100.0,", "box_size: 40.0,")
        .replace("steps: 2000,", "steps: 12,")
        .replace("snapshot_every: 500", "snapshot_every: 0")
        .replace("theta: 0.5,", &format!("theta: {theta},"));
    let path = dir.join(file);
    std::fs::write(&path, text).unwrap();
    path
}

fn run(args: &[&str]) -> std::process::Output {
    let o = orrery(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    o
}

fn collisions_line(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .find(|l| l.starts_with("collisions "))
        .expect("a collisions line")
        .to_string()
}

#[test]
fn unwritable_sheet_output_directory_is_a_located_input_error() {
    let d = scratch("sheet-unwritable");
    let sc = small(&d, "s.ron", "0.5");
    std::fs::write(d.join("blocker"), b"a file").unwrap();
    let out = d.join("blocker/out");
    let o = orrery(&["run", sc.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("blocker"), "{}", stderr(&o));
    assert!(stderr(&o).contains("output directory"), "{}", stderr(&o));
}

#[test]
fn resumed_sheet_summary_counts_the_whole_run_and_info_keeps_every_part() {
    let d = scratch("sheet-summary");
    let sc = small(&d, "s.ron", "0.5");
    let sc = sc.to_str().unwrap();
    let (a, b) = (d.join("a"), d.join("b"));
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let whole = run(&["run", sc, "--out", a]);
    let first = run(&["run", sc, "--out", b, "--steps", "5"]);
    let rest = run(&["run", sc, "--out", b, "--resume"]);
    assert_eq!(collisions_line(&rest), collisions_line(&whole));
    let info = std::fs::read_to_string(Path::new(b).join("inforing.dat")).unwrap();
    assert!(info.contains(&collisions_line(&first)), "{info}");
    assert!(info.contains("resumed at step 5"), "{info}");
    assert!(info.contains(&collisions_line(&rest)), "{info}");
    // No temporary files are left by the atomic writes.
    assert!(files_with_prefix(Path::new(b), "")
        .iter()
        .all(|f| !f.ends_with(".tmp")));
}

#[test]
fn sheet_resume_with_a_changed_scenario_is_refused() {
    let d = scratch("sheet-changed");
    let sc = small(&d, "s.ron", "0.5");
    let changed = small(&d, "t.ron", "0.7");
    let out = d.join("out");
    let out = out.to_str().unwrap();
    run(&["run", sc.to_str().unwrap(), "--out", out, "--steps", "5"]);
    let o = orrery(&["run", changed.to_str().unwrap(), "--out", out, "--resume"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("theta"), "{}", stderr(&o));
    // The end step may change.
    run(&[
        "run",
        sc.to_str().unwrap(),
        "--out",
        out,
        "--steps",
        "8",
        "--resume",
    ]);
}

#[test]
fn a_scenario_record_in_another_layout_with_the_same_values_resumes() {
    // The record is compared by value: one written by another version of `ron` (here: all on
    // one line, floats spelled with exponents) still resumes; a changed value is still refused.
    let d = scratch("sheet-record-layout");
    let sc = small(&d, "s.ron", "0.5");
    let out = d.join("out");
    let out_s = out.to_str().unwrap();
    run(&["run", sc.to_str().unwrap(), "--out", out_s, "--steps", "4"]);
    let record = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("Scenario")
        })
        .expect("a scenario record");
    let text = std::fs::read_to_string(&record).unwrap();
    let one_line = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace("theta: 0.5", "theta: 5e-1");
    assert_ne!(one_line, text);
    std::fs::write(&record, &one_line).unwrap();
    let s = sc.to_str().unwrap();
    run(&["run", s, "--out", out_s, "--steps", "8", "--resume"]);
    std::fs::write(&record, one_line.replace("theta: 5e-1", "theta: 6e-1")).unwrap();
    let o = orrery(&["run", s, "--out", out_s, "--steps", "12", "--resume"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("theta"), "{}", stderr(&o));
}

#[test]
fn a_fresh_sheet_run_keeps_another_run_s_files_unless_told_to_overwrite() {
    // As the hybrid engine does (one contract for the output directory): exit 2 naming the
    // files, nothing written; with --overwrite the earlier run's files are removed first, so no
    // stale snapshot of it is left among the new run's.
    let d = scratch("sheet-fresh-twice");
    let sc = small(&d, "s.ron", "0.5");
    let other = small(&d, "t.ron", "0.7").to_str().unwrap().to_string();
    std::fs::write(
        &other,
        std::fs::read_to_string(&other)
            .unwrap()
            .replace("snapshot_every: 0", "snapshot_every: 4"),
    )
    .unwrap();
    let out = d.join("out");
    let out_s = out.to_str().unwrap();
    run(&["run", &other, "--out", out_s]);
    let before = files_with_prefix(&out, "Sheet");
    assert!(before.len() >= 3, "{before:?}");
    let o = orrery(&["run", sc.to_str().unwrap(), "--out", out_s]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("holds files of a run of the same name")
            && stderr(&o).contains("--overwrite"),
        "{}",
        stderr(&o)
    );
    assert_eq!(files_with_prefix(&out, "Sheet"), before);
    run(&["run", sc.to_str().unwrap(), "--out", out_s, "--overwrite"]);
    let after = files_with_prefix(&out, "Sheet");
    assert!(after.len() < before.len(), "{before:?} -> {after:?}");
}

#[test]
fn sheet_resume_auto_starts_fresh_then_resumes() {
    let d = scratch("sheet-auto");
    let sc = small(&d, "s.ron", "0.5");
    let out = d.join("out");
    let out_s = out.to_str().unwrap();
    run(&[
        "run",
        sc.to_str().unwrap(),
        "--out",
        out_s,
        "--steps",
        "5",
        "--resume",
        "auto",
    ]);
    let o = run(&[
        "run",
        sc.to_str().unwrap(),
        "--out",
        out_s,
        "--resume",
        "auto",
    ]);
    assert!(stderr(&o).contains("steps 5 .. 12"), "{}", stderr(&o));
}

#[cfg(unix)]
#[test]
fn sigterm_stops_a_sheet_run_with_143_and_a_resume_matches() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let d = scratch("sheet-sigterm");
    let sc = small(&d, "s.ron", "0.5");
    let sc = sc.to_str().unwrap();
    let (a, b) = (d.join("a"), d.join("b"));
    let child = Command::new(env!("CARGO_BIN_EXE_orrery"))
        .args([
            "run",
            sc,
            "--out",
            b.to_str().unwrap(),
            "--steps",
            "100000000",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while std::fs::read_to_string(b.join("Seriesring.dat")).map_or(0, |t| t.lines().count()) < 3 {
        assert!(start.elapsed() < Duration::from_secs(60), "no series lines");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: kill with the id of a child of this process.
    assert_eq!(
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) },
        0
    );
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(143), "{}", stderr(&o));
    let stop: u64 = files_with_prefix(&b, "Sheetring_")
        .iter()
        .map(|f| f["Sheetring_".len()..f.len() - 4].parse::<u64>().unwrap())
        .max()
        .unwrap();
    let end = (stop + 7).to_string();
    run(&[
        "run",
        sc,
        "--out",
        b.to_str().unwrap(),
        "--steps",
        &end,
        "--resume",
    ]);
    run(&["run", sc, "--out", a.to_str().unwrap(), "--steps", &end]);
    let last = format!("Sheetring_{:012}.dat", stop + 7);
    for f in ["Seriesring.dat", last.as_str()] {
        assert!(
            std::fs::read(a.join(f)).unwrap() == std::fs::read(b.join(f)).unwrap(),
            "{f} differs from the uninterrupted run"
        );
    }
}

#[test]
fn the_sheet_library_reports_through_its_caller() {
    use orrery::observe::{Engine, RunEvent};
    use orrery::sheet::run::run_file_resume;
    let d = scratch("sheet-notes");
    let sc = small(&d, "s.ron", "0.5");
    let ov = orrery::config::Overrides {
        out: Some(d.join("out")),
        ..Default::default()
    };
    let stop = std::sync::atomic::AtomicBool::new(false);
    let mut notes = Vec::new();
    let summary = run_file_resume(&sc, &ov, &stop, Some(false), &mut |n| notes.push(n)).unwrap();
    assert!(
        matches!(&notes[0], RunEvent::Started { engine: Engine::Sheet, n, line }
            if *n == summary.n && line.contains("theta")),
        "{notes:?}"
    );
}

#[test]
fn sheet_backend_options_are_checked_before_any_output() {
    let d = scratch("sheet-backend-options");
    let sc = small(&d, "s.ron", "0.5");
    let sc = sc.to_str().unwrap();
    let out = d.join("out");
    let out = out.to_str().unwrap();
    // A pass name the sheet engine does not have: exit 2 with the sheet's pass names.
    let o = orrery(&["run", sc, "--out", out, "--cpu-passes", "gravity,kepler"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--cpu-passes"), "{}", stderr(&o));
    assert!(stderr(&o).contains("collision_search"), "{}", stderr(&o));
    // Hybrid options are refused by name.
    let o = orrery(&["run", sc, "--out", out, "--order", "4"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--order"), "{}", stderr(&o));
    // A CUDA run without the feature or without a device: exit 2, nothing written.
    if !cfg!(feature = "cuda")
        || orrery::backend::list_devices(orrery::backend::DeviceApi::Cuda)
            .map_or(true, |l| l.is_empty())
    {
        let o = orrery(&["run", sc, "--out", out, "--backend", "cuda"]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).to_lowercase().contains("cuda"), "{}", stderr(&o));
        assert!(!Path::new(out).exists(), "no output without a backend");
    }
    // --device with the CPU backend is refused.
    let o = orrery(&["run", sc, "--out", out, "--backend", "cpu", "--device", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // The CPU backend with sheet passes named on the CPU runs (every pass is there anyway).
    let o = run(&["run", sc, "--out", out, "--cpu-passes", "tree,gravity"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains(" on cpu "));
}
