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

/// The scenario `g` in `dir` with the settings and bodies `body` and energy lines every 100
/// steps.
fn write_g(dir: &Path, body: &str) -> PathBuf {
    let text = format!(
        r#"Scenario(
    name: "g",{body}
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

/// A small disk with Jupiter on the hybrid step.
fn scenario(dir: &Path, steps: u64) -> PathBuf {
    let body = format!(
        r#"
    time_step_days: 6.0,
    steps: Some({steps}),
    n1: 3.0,
    n2: 0.0,
    bodies: [
        Disk((n: 60, total_mass_earth: 0.05, a_min: 0.8, a_max: 3.0, e_rayleigh: 0.02,
              i_rayleigh: 0.01, rho: 2.0, seed: 11)),
        Kepler(name: "Jupiter", m: 9.547919e-4, radius: None, a: 5.2, e: 0.048, inc_deg: 1.3,
               node_deg: 100.5, peri_deg: 274.3, mean_anomaly_deg: 19.7),
    ],"#
    );
    write_g(dir, &body)
}

/// Jupiter and Saturn on the Wisdom-Holman map with J2, whose packs step in blocks of 8 ahead
/// of the driver (`hybrid::wisdom_holman::BLOCK`).
fn map_scenario(dir: &Path, steps: u64) -> PathBuf {
    let body = format!(
        r#"
    time_step_days: 20.0,
    steps: Some({steps}),
    integrator: WisdomHolman(correctors: 5),
    forces: (j2: 0.01, j2_radius: 0.05),
    bodies: [
        Kepler(name: "Jupiter", m: 9.547919e-4, a: 5.2029, e: 0.0484, inc_deg: 1.30,
               node_deg: 100.5, peri_deg: 274.3, mean_anomaly_deg: 19.7),
        Kepler(name: "Saturn", m: 2.858860e-4, a: 9.5367, e: 0.0539, inc_deg: 2.49,
               node_deg: 113.7, peri_deg: 338.9, mean_anomaly_deg: 317.4),
    ],"#
    );
    write_g(dir, &body)
}

fn spawn(args: &[&str]) -> Child {
    Command::new(orrery_bin())
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

/// Run the scenario `make` writes to a signal, resume to a step beyond it, and compare with an
/// uninterrupted run; the step it stopped at.
fn stop_and_resume_with(
    make: fn(&Path, u64) -> PathBuf,
    name: &str,
    sig: libc::c_int,
    code: i32,
) -> u64 {
    let d = scratch(name);
    let (a, b) = (d.join("a"), d.join("b"));
    for s in [&a, &b] {
        std::fs::create_dir_all(s).unwrap();
    }
    let sb = make(&b, 100_000_000);
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
    let sa = make(&a, stop + 250);
    let o = orrery(&["run", sa.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let last = format!("Outg_{:012}.dat", stop + 250);
    for f in ["Energyg.dat", last.as_str()] {
        assert!(
            std::fs::read(a.join("out").join(f)).unwrap() == std::fs::read(out.join(f)).unwrap(),
            "{f} differs from the uninterrupted run"
        );
    }
    stop
}

/// [`stop_and_resume_with`] the hybrid step's disk.
fn stop_and_resume(name: &str, sig: libc::c_int, code: i32) {
    stop_and_resume_with(scenario, name, sig, code);
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

/// A build with OpenCL lists the devices at start-up (`--backend auto`), which loads PoCL, whose
/// LLVM takes SIGUSR1 over: the run must take it back, so that SIGUSR1 still checkpoints.
#[cfg(feature = "opencl")]
#[test]
fn sigusr1_checkpoints_in_a_build_with_opencl() {
    stop_and_resume("sighup-opencl", libc::SIGHUP, 129);
}

/// On the map a signal takes effect at the end of the block under way (an energy line's step
/// or a multiple of 8), and the resume is still the uninterrupted run's bits, J2's books too.
#[test]
fn a_signal_stops_the_map_at_the_end_of_a_block() {
    for (name, sig, code) in [
        ("map-sigterm", libc::SIGTERM, 143),
        ("map-sighup", libc::SIGHUP, 129),
    ] {
        let stop = stop_and_resume_with(map_scenario, name, sig, code);
        assert!(
            stop.is_multiple_of(8) || stop.is_multiple_of(100),
            "{name}: stopped at step {stop}"
        );
    }
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
