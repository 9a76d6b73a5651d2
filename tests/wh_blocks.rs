//! Temporal blocking on the Wisdom-Holman map (`hybrid::wisdom_holman::BLOCK`): each pack runs
//! a few steps in a row ahead of the run's driver, pausing at a stop, and the driver reads the
//! systems only where it said it would. Every output must keep the bits of one step per call
//! (`ORRERY_WH_BLOCK=1`) for any block length, thread count and resume: stops inside blocks
//! (Hill encounters, MEGNO), J2's torque in the books, energy lines, snapshots, samples and
//! checkpoints at steps that are not multiples of the block.

mod common;

use common::runs::assert_same_outputs;
use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The map's settings every run here shares: GR and J2 (a torque in the books), MEGNO with its
/// stop, the Hill, collision and escape stops, samples every 13 steps.
const SETTINGS: &str = r#"
        time_step_days: 20.0,
        integrator: WisdomHolman(correctors: 3),
        forces: (gr: true, j2: 0.01, j2_radius: 0.05),
        chaos: (megno: true, seed: 9, stop_above: Some(4.0), stop_after_years: 10.0),
        stop: (hill_radii: Some(1.0), collision: true, escape: Some(30.0)),
        samples: (every: Steps(13), what: [elements, megno, energy, min_distance]),
        inner_truncation: 0.5,
        outer_truncation: 40.0,"#;

/// An ensemble of 70 systems (a pack of 64 and one of 6): the giants and a planet drawn
/// between 6 and 8 AU, many of which meet Jupiter or Saturn within the run, for `steps`
/// steps; checkpoints every 250 steps.
fn ensemble(dir: &Path, steps: u64) -> PathBuf {
    let text = format!(
        r#"Ensemble(
    systems: 70,
    seed: 500,
    hypothetical: [
        Drawn(name: "X", m: (1e-5, 1e-4), a: (6.0, 8.0), e: (0.0, 0.2), inc_deg: (0.0, 2.0)),
    ],
    scenario: Scenario(
        name: "ens",
        mode: Multi,
        steps: Some({steps}),{SETTINGS}
        bodies: [{GIANTS}
        ],
        output: (dir: "{out}", energy_interval: 0, coordinates_interval: 0,
                 checkpoint_interval: 250),
    ),
)
"#,
        out = dir.join("out").display()
    );
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join("ens.ron");
    std::fs::write(&path, text).unwrap();
    path
}

/// One system: Jupiter, a planet at 6.6 AU that meets Jupiter at step 7242 (inside a block of
/// 8 and between outputs), Saturn and Uranus, with energy lines every 37 steps and snapshots
/// every 101.
fn single(dir: &Path) -> PathBuf {
    let giants: Vec<&str> = GIANTS.trim_start_matches('\n').lines().collect();
    let planet = r#"        Kepler(name: "X", m: 5e-5, a: 6.6, e: 0.1, inc_deg: 1.0, node_deg: 10.0,
               peri_deg: 20.0, mean_anomaly_deg: 30.0),"#;
    let bodies = [&giants[..2], &[planet], &giants[2..]].concat().join("\n");
    let text = format!(
        r#"Scenario(
    name: "one",
    steps: Some(20000),{SETTINGS}
    bodies: [
{bodies}
    ],
    output: (dir: "{out}", energy_interval: 37, coordinates_interval: 101,
             checkpoint_interval: 1000000),
)
"#,
        out = dir.join("out").display()
    );
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join("one.ron");
    std::fs::write(&path, text).unwrap();
    path
}

/// Run `orrery` with `args` and the block length `block` (`None`: the default).
fn run_blocks(block: Option<&str>, args: &[&str]) -> Output {
    let mut cmd = Command::new(orrery_bin());
    cmd.args(args).env_remove("ORRERY_WH_BLOCK");
    if let Some(b) = block {
        cmd.env("ORRERY_WH_BLOCK", b);
    }
    let o = cmd.output().expect("run orrery");
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    o
}

/// The stop steps of a summary table (empty for a system that ran to the end).
fn stop_steps(dir: &Path) -> Vec<(String, u64)> {
    let text = std::fs::read_to_string(dir.join("out/summary.csv")).expect("summary.csv");
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            Some((f[6].to_string(), f[8].parse().ok()?))
        })
        .collect()
}

#[test]
fn an_ensemble_keeps_its_bits_for_any_block_thread_count_and_resume() {
    let d = scratch("wh-blocks-ensemble");
    let steps = 3000;
    let one_by_one = d.join("one-by-one");
    let p = ensemble(&one_by_one, steps);
    run_blocks(Some("1"), &["run", p.to_str().unwrap(), "--threads", "2"]);
    let stops = stop_steps(&one_by_one);
    println!("stops: {stops:?}");
    // Stops of both kinds inside blocks of the default length, at steps that are not its
    // multiples, in both packs.
    assert!(stops.iter().any(|(why, _)| why == "encounter"), "{stops:?}");
    assert!(stops.iter().any(|(why, _)| why == "chaotic"), "{stops:?}");
    assert!(
        stops.iter().filter(|(_, s)| !s.is_multiple_of(8)).count() >= 5,
        "{stops:?}"
    );
    for (name, block, threads) in [("default", None, "2"), ("five", Some("5"), "1")] {
        let sub = d.join(name);
        let p = ensemble(&sub, steps);
        run_blocks(block, &["run", p.to_str().unwrap(), "--threads", threads]);
        assert_same_outputs(&sub.join("out"), &one_by_one.join("out"), false, name);
    }
    // Stopped at a step inside a block and resumed: the end's files are the same.
    let resumed = d.join("resumed");
    let p = ensemble(&resumed, steps);
    let p = p.to_str().unwrap();
    run_blocks(None, &["run", p, "--steps", "1333"]);
    run_blocks(None, &["run", p, "--resume"]);
    assert_same_outputs(
        &resumed.join("out"),
        &one_by_one.join("out"),
        true,
        "resume",
    );
}

#[test]
fn one_system_keeps_its_outputs_and_its_stop_inside_a_block() {
    let d = scratch("wh-blocks-single");
    let runs: Vec<(PathBuf, String)> = [Some("1"), None, Some("3")]
        .into_iter()
        .map(|block| {
            let sub = d.join(block.unwrap_or("default"));
            let p = single(&sub);
            let o = run_blocks(block, &["run", p.to_str().unwrap()]);
            (
                sub.join("out"),
                String::from_utf8_lossy(&o.stdout).into_owned(),
            )
        })
        .collect();
    let stop = &runs[0].1;
    assert!(
        stop.contains("at step 7242,"),
        "the planet met no giant there: {stop}"
    );
    for (out, stdout) in &runs[1..] {
        assert_same_outputs(out, &runs[0].0, false, "blocks");
        let line = |s: &str| {
            s.lines()
                .find(|l| l.contains("came within"))
                .map(str::to_owned)
        };
        assert_eq!(line(stdout), line(stop), "the stop differs");
    }
    let energy = files_with_prefix(&runs[0].0, "Energy");
    let lines = std::fs::read_to_string(runs[0].0.join(&energy[0])).unwrap();
    assert!(lines.lines().count() > 20, "too few energy lines:\n{lines}");
}
