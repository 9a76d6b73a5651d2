//! Signals from batch schedulers (issue 12, section 2): SIGTERM, SIGINT and SIGHUP finish the
//! step, write a snapshot and a checkpoint and exit with 128 + the signal's number; SIGUSR1
//! writes a checkpoint and carries on; `--resume auto` resumes when there is a checkpoint and
//! starts fresh otherwise; a resume after a signal reproduces an uninterrupted run byte for byte.
#![cfg(unix)]

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn scenario(dir: &Path, steps: u64) -> PathBuf {
    let text = format!(
        r#"Scenario(
    name: "g",
    time_step_days: 6.0,
    steps: Some({steps}),
    n1: 3.0,
    n2: 0.0,
    bodies: [
        Disk((n: 60, total_mass_earth: 0.05, a_min: 0.8, a_max: 3.0, e_rayleigh: 0.02,
              i_rayleigh: 0.01, rho: 2.0, seed: 11)),
        Kepler(name: "Jupiter", m: 9.547919e-4, radius: None, a: 5.2, e: 0.048, inc_deg: 1.3,
               node_deg: 100.5, peri_deg: 274.3, mean_anomaly_deg: 19.7),
    ],
    output: (dir: "{out}", energy_interval: 100, coordinates_interval: 100000000,
             checkpoint_interval: 100000000),
)
"#,
        out = dir.join("out").display()
    );
    let path = dir.join("g.ron");
    std::fs::write(&path, text).unwrap();
    path
}

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_orrery"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn orrery")
}

fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn send(child: &Child, sig: libc::c_int) {
    // SAFETY: kill with the id of a child of this process.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, sig) }, 0);
}

fn checkpoints(out: &Path) -> Vec<u64> {
    files_with_prefix(out, "Checkpointg_")
        .iter()
        .map(|f| f["Checkpointg_".len()..f.len() - 4].parse().unwrap())
        .collect()
}

/// Run to a signal, resume to a step beyond it, and compare with an uninterrupted run.
fn stop_and_resume(name: &str, sig: libc::c_int, code: i32) {
    let d = scratch(name);
    let (a, b) = (d.join("a"), d.join("b"));
    for s in [&a, &b] {
        std::fs::create_dir_all(s).unwrap();
    }
    let sb = scenario(&b, 100_000_000);
    let out = b.join("out");
    let mut child = spawn(&["run", sb.to_str().unwrap(), "--threads", "1"]);
    // The energy line of step 0 is written after the handlers are installed.
    wait_for("the first energy lines", || {
        std::fs::read_to_string(out.join("Energyg.dat")).is_ok_and(|t| t.lines().count() > 3)
    });
    if sig == libc::SIGHUP {
        // SIGUSR1 first: a checkpoint, and the run carries on.
        send(&child, libc::SIGUSR1);
        wait_for("the checkpoint of SIGUSR1", || {
            !checkpoints(&out).is_empty()
        });
        std::thread::sleep(Duration::from_millis(100));
        assert!(
            child.try_wait().unwrap().is_none(),
            "SIGUSR1 stopped the run"
        );
    }
    send(&child, sig);
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(code), "{}", stderr(&o));
    let stop = *checkpoints(&out)
        .iter()
        .max()
        .expect("a checkpoint at the stop");
    assert!(
        out.join(format!("Outg_{stop:012}.dat")).exists(),
        "no snapshot at the stop"
    );
    let end = (stop + 250).to_string();
    let o = orrery(&[
        "run",
        sb.to_str().unwrap(),
        "--steps",
        &end,
        "--resume",
        "auto",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let sa = scenario(&a, stop + 250);
    let o = orrery(&["run", sa.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let last = format!("Outg_{:012}.dat", stop + 250);
    for f in ["Energyg.dat", last.as_str()] {
        assert!(
            std::fs::read(a.join("out").join(f)).unwrap() == std::fs::read(out.join(f)).unwrap(),
            "{f} differs from the uninterrupted run"
        );
    }
}

#[test]
fn sigterm_stops_with_a_checkpoint_and_143() {
    stop_and_resume("sigterm", libc::SIGTERM, 143);
}

#[test]
fn sigint_stops_with_a_checkpoint_and_130() {
    stop_and_resume("sigint", libc::SIGINT, 130);
}

#[test]
fn sigusr1_checkpoints_and_sighup_stops_with_129() {
    stop_and_resume("sighup", libc::SIGHUP, 129);
}

#[test]
fn resume_auto_starts_fresh_without_a_checkpoint() {
    let d = scratch("resume-auto");
    let sc = scenario(&d, 300);
    let o = orrery(&[
        "run",
        "--resume",
        "auto",
        sc.to_str().unwrap(),
        "--steps",
        "200",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = orrery(&["run", sc.to_str().unwrap(), "--resume=auto"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).is_empty() || !stderr(&o).contains("error"));
    let energy = std::fs::read_to_string(d.join("out/Energyg.dat")).unwrap();
    assert_eq!(energy.lines().count(), 4, "{energy}");
}
