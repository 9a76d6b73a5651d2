//! Chaos indicators in runs (`chaos: (megno: true, seed: N)` on the Wisdom-Holman map): each
//! system's MEGNO and Lyapunov exponent in `summary.csv` are those of the system alone, for
//! any thread count, shard split and resume; regular systems read 2 and chaotic ones grow; the
//! stop on MEGNO ends chaotic systems only; GR and J2 run with it; settings that cannot run
//! are refused by name.

mod common;

use common::*;
use std::path::{Path, PathBuf};

/// An ensemble file `dir/chaos.ron` of `systems` Sun-Jupiter-Saturn systems (seed `seed`), the
/// Saturn drawn between 6.5 and 9.6 AU (regular far from Jupiter, chaotic near it), 60-day
/// steps for 3000 years, with the `chaos` settings `chaos`.
fn ensemble(dir: &Path, (systems, seed): (usize, u64), chaos: &str) -> PathBuf {
    let text = format!(
        r#"Ensemble(
    systems: {systems},
    seed: {seed},
    hypothetical: [
        Drawn(name: "J", m: (9.5e-4, 9.6e-4), a: (5.20, 5.21), e: (0.04, 0.05), inc_deg: (0.0, 1.0)),
        Drawn(name: "S", m: (2.8e-4, 2.9e-4), a: (6.5, 9.6), e: (0.0, 0.12), inc_deg: (0.0, 1.0)),
    ],
    scenario: Scenario(
        name: "chaos",
        mode: Multi,
        time_step_days: 60.0,
        end_time_years: Some(3000.0),
        integrator: WisdomHolman(correctors: 0),
        chaos: {chaos},
        inner_truncation: 0.1,
        outer_truncation: 100.0,
        bodies: [],
        output: (dir: "{out}", energy_interval: 0, coordinates_interval: 0,
                 checkpoint_interval: 100000),
    ),
)
"#,
        out = dir.join("out").display()
    );
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join("chaos.ron");
    std::fs::write(&path, text).unwrap();
    path
}

/// Run `orrery` with `args`, which must succeed.
fn ok(args: &[&str]) {
    let o = orrery(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
}

/// The rows of `dir/out/summary.csv` as cells, without the system and seed columns.
fn rows(dir: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(dir.join("out/summary.csv")).expect("summary.csv");
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(head[12..14], ["megno", "lyapunov_per_yr"], "{head:?}");
    lines
        .map(|l| l.split(',').skip(2).map(str::to_string).collect())
        .collect()
}

/// MEGNO of a row of [`rows`].
fn megno(row: &[String]) -> f64 {
    row[10]
        .parse()
        .unwrap_or_else(|_| panic!("no MEGNO in {row:?}"))
}

#[test]
fn megno_is_each_system_alone_for_threads_shards_and_resume() {
    let d = scratch("chaos-bits");
    let (systems, seed, chaos) = (12, 40, "(megno: true, seed: 9)");
    let straight = d.join("straight");
    let p = ensemble(&straight, (systems, seed), chaos);
    ok(&["run", p.to_str().unwrap(), "--threads", "1"]);
    let want = rows(&straight);
    let two = d.join("two");
    let p = ensemble(&two, (systems, seed), chaos);
    ok(&["run", p.to_str().unwrap(), "--threads", "2"]);
    assert_eq!(rows(&two), want, "two threads differ");
    let resumed = d.join("resumed");
    let p = ensemble(&resumed, (systems, seed), chaos);
    ok(&["run", p.to_str().unwrap(), "--steps", "7000"]);
    ok(&["run", p.to_str().unwrap(), "--resume"]);
    assert_eq!(rows(&resumed), want, "the resumed run differs");
    let sharded = d.join("sharded");
    let p = ensemble(&sharded, (systems, seed), chaos);
    for shard in ["0/2", "1/2"] {
        ok(&["run", p.to_str().unwrap(), "--shard", shard]);
    }
    ok(&["merge", sharded.join("out").to_str().unwrap()]);
    assert_eq!(rows(&sharded), want, "the shards differ");
    // System 5 alone: the ensemble seed and the tangent seed both move on by its index.
    let alone = d.join("alone");
    let p = ensemble(&alone, (1, seed + 5), "(megno: true, seed: 14)");
    ok(&["run", p.to_str().unwrap()]);
    assert_eq!(rows(&alone)[0], want[5], "system 5 alone differs");
    // Another tangent seed: the same orbits (the same elements at the end), another MEGNO.
    let reseeded = d.join("reseeded");
    let p = ensemble(&reseeded, (systems, seed), "(megno: true, seed: 10)");
    ok(&["run", p.to_str().unwrap()]);
    let other = rows(&reseeded);
    assert_eq!(other[3][12..], want[3][12..]);
    assert_ne!(other[3][10], want[3][10]);
}

#[test]
fn regular_systems_read_two_and_the_stop_ends_only_chaotic_ones() {
    let d = scratch("chaos-stop");
    let systems = 16;
    let plain = d.join("plain");
    let p = ensemble(&plain, (systems, 7), "(megno: true, seed: 3)");
    let o = orrery(&["run", p.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let free = rows(&plain);
    // MEGNO over 3000 years (about 250 Jupiter orbits): near 2 for regular orbits, far above
    // for chaotic ones; both kinds are drawn.
    let values: Vec<f64> = free.iter().map(|r| megno(r)).collect();
    println!("MEGNO {values:?}");
    let regular = values.iter().filter(|&&m| (m - 2.0).abs() < 0.1).count();
    let chaotic = values.iter().filter(|&&m| m > 5.0).count();
    assert!(regular >= 4 && chaotic >= 1, "MEGNO {values:?}");
    assert!(values.iter().all(|&m| m > 1.5), "MEGNO {values:?}");
    // The run's summary counts the classes of the table.
    let count = |f: &dyn Fn(f64) -> bool| values.iter().filter(|&&m| f(m)).count();
    let (low, high) = (count(&|m| m < 2.5), count(&|m| m > 4.0));
    let line = format!(
        "MEGNO: {low} systems regular (< 2.5), {} undecided, {high} chaotic (> 4)",
        systems - low - high
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains(&line), "{line} not in\n{stdout}");
    // A positive Lyapunov exponent where MEGNO grows.
    for (r, m) in free.iter().zip(&values) {
        let lyapunov: f64 = r[11].parse().unwrap();
        assert!(*m < 5.0 || lyapunov > 1e-4, "{r:?}");
    }
    // The stop at MEGNO 5 after 500 years ends every system that ends above 5 (and any that
    // passed 5 on the way), at the step's kick where MEGNO passed 5, and leaves the others as
    // they were, bit for bit; a resume after the stops is the same run.
    let chaos = "(megno: true, seed: 3, stop_above: Some(5.0), stop_after_years: 500.0)";
    let stopping = d.join("stopping");
    let p = ensemble(&stopping, (systems, 7), chaos);
    ok(&["run", p.to_str().unwrap()]);
    let stopped = rows(&stopping);
    for (s, (a, b)) in free.iter().zip(&stopped).enumerate() {
        if b[4].is_empty() {
            assert!(
                values[s] <= 5.0,
                "system {s} ends at MEGNO {} unstopped",
                values[s]
            );
            assert_eq!(a, b, "system {s} survives unchanged");
            continue;
        }
        assert_eq!(b[4], "chaotic", "system {s}: {b:?}");
        let (years, at): (f64, f64) = (b[5].parse().unwrap(), megno(b));
        assert!((500.0..3000.0).contains(&years) && at > 5.0, "{b:?}");
        // At the kick of the step whose state it keeps, half a step before its end.
        let step: f64 = b[6].parse().unwrap();
        assert!((years * 365.25 / 60.0 - (step - 0.5)).abs() < 1e-6, "{b:?}");
    }
    let resumed = d.join("resumed");
    let p = ensemble(&resumed, (systems, 7), chaos);
    ok(&["run", p.to_str().unwrap(), "--steps", "16000"]);
    ok(&["run", p.to_str().unwrap(), "--resume"]);
    assert_eq!(rows(&resumed), stopped, "the resumed run differs");
}

#[test]
fn megno_runs_with_gr_and_j2_and_keeps_regular_systems_regular() {
    let d = scratch("chaos-forces");
    let (systems, chaos) = (8, "(megno: true, seed: 3)");
    let plain = d.join("plain");
    let p = ensemble(&plain, (systems, 7), chaos);
    ok(&["run", p.to_str().unwrap()]);
    let without = rows(&plain);
    let with_forces = |dir: &Path, threads: &str| {
        let p = ensemble(dir, (systems, 7), chaos);
        let text = std::fs::read_to_string(&p).unwrap();
        let forces = "mode: Multi, forces: (gr: true, j2: 0.01, j2_radius: 0.05),";
        std::fs::write(&p, text.replace("mode: Multi,", forces)).unwrap();
        ok(&["run", p.to_str().unwrap(), "--threads", threads]);
        rows(dir)
    };
    let with = with_forces(&d.join("forces"), "1");
    assert_eq!(with_forces(&d.join("two"), "2"), with, "two threads differ");
    // GR and this J2 precess the orbits a little: a regular system stays regular, and the
    // forces change every system's MEGNO (their tangent terms are in).
    for (a, b) in without.iter().zip(&with) {
        let (m0, m1) = (megno(a), megno(b));
        assert!(m1.is_finite() && m1 > 1.5, "{b:?}");
        assert!(
            m0 > 2.1 || m1 < 2.5,
            "regular {m0} without the forces, {m1} with them"
        );
        assert_ne!(a[10], b[10], "the same MEGNO with the forces");
    }
}

#[test]
fn chaos_settings_that_cannot_run_are_refused_by_name() {
    let d = scratch("chaos-refused");
    let dir = d.join("hybrid");
    let p = ensemble(&dir, (2, 1), "(megno: true)");
    let text = std::fs::read_to_string(&p).unwrap();
    let hybrid = text.replace("integrator: WisdomHolman(correctors: 0),", "");
    std::fs::write(&p, hybrid).unwrap();
    let msg = refused(
        &dir,
        &["run", p.to_str().unwrap()],
        &["chaos.megno", "chaos.ron"],
    );
    assert!(msg.contains("Wisdom-Holman"), "{msg}");
    let dir = d.join("stop-alone");
    let p = ensemble(&dir, (2, 1), "(stop_above: Some(5.0))");
    refused(&dir, &["run", p.to_str().unwrap()], &["chaos.stop_above"]);
}
