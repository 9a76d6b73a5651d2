//! The Wisdom-Holman integrator in runs (`integrator: WisdomHolman(correctors: N)`): the run is
//! the library's map, outputs and resumes leave its bits alone, an ensemble's systems are each
//! system alone for any thread count, bodies that leave the truncation radii stop their
//! systems, and settings the map cannot honour are refused with the field named.

mod common;

use common::*;
use orrery::backend::{self, BackendChoice, PassSet};
use orrery::config::{self, Overrides};
use orrery::hybrid::run::HybridRun;
use orrery::physics::wisdom_holman::WisdomHolman;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// A scenario of the Sun and `bodies` on the Wisdom-Holman map with `correctors`, `steps` steps
/// of 20 days and the given output intervals (energy, coordinates); `extra` adds fields.
fn scenario(
    dir: &Path,
    name: &str,
    correctors: u8,
    steps: u64,
    intervals: (i64, i64),
    extra: &str,
) -> PathBuf {
    let text = format!(
        r#"Scenario(
    name: "{name}",
    time_step_days: 20.0,
    steps: Some({steps}),
    integrator: WisdomHolman(correctors: {correctors}),
    inner_truncation: 0.5,
    outer_truncation: 100.0,
    {extra}
    bodies: [{GIANTS}
    ],
    output: (dir: "{out}", energy_interval: {e}, coordinates_interval: {c},
             checkpoint_interval: 1000000),
)
"#,
        out = dir.join("out").display(),
        e = intervals.0,
        c = intervals.1,
    );
    let path = dir.join(format!("{name}.ron"));
    std::fs::write(&path, text).expect("write scenario");
    path
}

#[test]
fn a_wisdom_holman_run_is_the_map_of_the_library() {
    let d = scratch("wh-library");
    let steps = 3000;
    let path = scenario(&d, "lib", 5, steps, (0, 0), "");
    let mut setup = config::load_setup(&path, &Overrides::default(), false).expect("load");
    setup.in_memory = true;
    setup.sims[0].files = false;
    let initial = setup.sims[0].bodies.clone();
    let m0 = setup.sims[0].spec.m0;
    let dt = setup.cfg.dt();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let run_bodies = pool.install(|| {
        let be = backend::create(BackendChoice::Cpu, PassSet::NONE, None).unwrap();
        let mut run = HybridRun::start(setup, be, false).expect("start");
        run.advance(steps, &AtomicBool::new(false), &mut |_| {})
            .expect("advance");
        assert_eq!(run.step(), steps);
        run.bodies(0).expect("bodies")
    });
    // The library's map from the heliocentric initial state, the Sun at rest at the origin (a
    // frame moving uniformly against the run's: the same motion up to rounding).
    let mut m = vec![m0];
    let mut pos = vec![[0.0; 3]];
    let mut vel = vec![[0.0; 3]];
    for b in &initial {
        m.push(b.m);
        pos.push(b.pos);
        vel.push(b.vel);
    }
    let mut wh = WisdomHolman::new(&m, &pos, &vel, dt, 5).unwrap();
    for _ in 0..steps {
        wh.step().unwrap();
    }
    let (x, v) = wh.state().unwrap();
    for (k, b) in run_bodies.iter().enumerate() {
        for c in 0..3 {
            let dx = (b.pos[c] - (x[k + 1][c] - x[0][c])).abs();
            let dv = (b.vel[c] - (v[k + 1][c] - v[0][c])).abs();
            assert!(dx < 1e-11, "body {k} position {c} differs by {dx:e} AU");
            assert!(dv < 1e-12, "body {k} velocity {c} differs by {dv:e}");
        }
    }
}

#[test]
fn outputs_and_a_resume_leave_the_bits_of_the_map_alone() {
    let d = scratch("wh-resume");
    let run = |tag: &str, intervals: (i64, i64), split: bool| -> (Vec<u8>, PathBuf) {
        let sub = d.join(tag);
        std::fs::create_dir_all(&sub).unwrap();
        let path = scenario(&sub, "res", 17, 900, intervals, "");
        let p = path.to_str().unwrap();
        let parts: Vec<Vec<&str>> = match split {
            true => vec![vec!["run", p, "--steps", "400"], vec!["run", p, "--resume"]],
            false => vec![vec!["run", p]],
        };
        for args in parts {
            let o = orrery(&args);
            assert!(o.status.success(), "{tag}: {}", stderr(&o));
            let out = String::from_utf8_lossy(&o.stdout);
            assert!(out.contains("Wisdom-Holman map"), "{out}");
        }
        let last = sub.join("out/Outres_000000000900.dat");
        (
            std::fs::read(&last).expect("final snapshot"),
            sub.join("out"),
        )
    };
    let (quiet, _) = run("quiet", (0, -1), false);
    let (busy, busy_dir) = run("busy", (7, 50), false);
    let (resumed, resumed_dir) = run("resumed", (7, 50), true);
    assert!(
        quiet == busy,
        "energy lines and snapshots every few steps changed the map"
    );
    assert!(
        busy == resumed,
        "the resumed run differs from the straight one"
    );
    let energy = |dir: &Path| std::fs::read(dir.join("Energyres.dat")).unwrap();
    assert!(
        energy(&busy_dir) == energy(&resumed_dir),
        "the energy files differ"
    );
    // The corrected map keeps the energy of three giants over 50 years to a few 1e-11.
    let worst = relative_energy_errors(&busy_dir.join("Energyres.dat"))
        .into_iter()
        .fold(0.0, f64::max);
    assert!(worst < 1e-9, "relative energy error {worst:e}");
}

/// An ensemble of `systems` systems (seed `seed`): the giants plus one planet drawn between 6
/// and 8 AU, on the Wisdom-Holman map.
fn ensemble(dir: &Path, systems: usize, seed: u64, steps: u64) -> PathBuf {
    let drawn = "m: (1e-5, 1e-4), a: (6.0, 8.0), e: (0.0, 0.2)";
    let settings = format!(
        "time_step_days: 20.0, steps: Some({steps}), integrator: WisdomHolman(correctors: 3),"
    );
    ensemble_file(dir, (systems, seed), drawn, &settings)
}

/// An ensemble file `dir/ens.ron` of `systems` systems (seed `seed`): the giants plus one
/// planet drawn with `drawn` (its mass, a and e ranges), with the scenario `settings` (time
/// step, steps, integrator).
fn ensemble_file(
    dir: &Path,
    (systems, seed): (usize, u64),
    drawn: &str,
    settings: &str,
) -> PathBuf {
    let text = format!(
        r#"Ensemble(
    systems: {systems},
    seed: {seed},
    hypothetical: [
        Drawn(name: "X", {drawn}, inc_deg: (0.0, 2.0)),
    ],
    scenario: Scenario(
        name: "ens",
        mode: Multi,
        {settings}
        inner_truncation: 0.5,
        outer_truncation: 40.0,
        bodies: [{GIANTS}
        ],
        output: (dir: "{out}", energy_interval: 0, coordinates_interval: 0,
                 checkpoint_interval: 1000000),
    ),
)
"#,
        out = dir.join("out").display()
    );
    let path = dir.join("ens.ron");
    std::fs::write(&path, text).unwrap();
    path
}

/// The rows of a summary table without their first two columns (system and seed).
fn rows(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("out/summary.csv")).expect("summary.csv");
    text.lines()
        .skip(1)
        .map(|l| l.splitn(3, ',').nth(2).unwrap().to_string())
        .collect()
}

#[test]
fn ensemble_systems_are_each_system_alone_for_any_thread_count_and_resume() {
    let d = scratch("wh-ensemble");
    // 70 systems fill one pack of 64 and one of 6.
    let (systems, steps) = (70, 20_000);
    // One thread, two threads, and two threads stopped at step 7000 and resumed.
    let tables: Vec<Vec<String>> = [("1", None), ("2", None), ("2", Some("7000"))]
        .into_iter()
        .map(|(threads, stop)| {
            let sub = d.join(format!("{threads}-{}", stop.unwrap_or("straight")));
            std::fs::create_dir_all(&sub).unwrap();
            let path = ensemble(&sub, systems, 500, steps);
            let p = path.to_str().unwrap();
            let first = [
                "run",
                p,
                "--threads",
                threads,
                "--steps",
                stop.unwrap_or("20000"),
            ];
            let o = orrery(&first);
            assert!(o.status.success(), "{}", stderr(&o));
            if stop.is_some() {
                let o = orrery(&["run", p, "--threads", threads, "--resume"]);
                assert!(o.status.success(), "{}", stderr(&o));
            }
            rows(&sub)
        })
        .collect();
    assert_eq!(tables[0], tables[1], "one and two threads differ");
    assert_eq!(tables[0], tables[2], "the resumed ensemble differs");
    let stopped: Vec<usize> = (0..systems)
        .filter(|&s| tables[0][s].starts_with("false"))
        .collect();
    println!("{} of {systems} systems stopped", stopped.len());
    assert!(
        !stopped.is_empty() && stopped.len() < systems,
        "expected some systems to stop, not all"
    );
    assert!(stopped.iter().all(|&s| tables[0][s].contains(",ejection,")));
    // Each stop names its reason, time, step, body and distance from the star, which lies
    // beyond the truncation radius it crossed (0.5 AU inside, 40 AU outside).
    for &s in &stopped {
        let f: Vec<&str> = tables[0][s].split(',').collect();
        // survived, first event time and kind, n_final, stop, its time, step, bodies, distance
        let step: u64 = f[6].parse().unwrap();
        assert!(step > 0 && step <= steps, "system {s}: {f:?}");
        // The Ejections line at the step's end, the watch's time at its kick.
        let years = |t: &str| t.parse::<f64>().unwrap() * 365.25 / 20.0;
        assert!(
            (years(f[1]) - step as f64).abs() < 1e-9,
            "system {s}: {f:?}"
        );
        assert!(
            (years(f[5]) - (step as f64 - 0.5)).abs() < 1e-9,
            "system {s}: {f:?}"
        );
        assert!(f[7].parse::<u64>().is_ok() && f[8].is_empty(), "{f:?}");
        let d: f64 = f[9].parse().unwrap();
        let crossed = match f[4] {
            "ejection" => d < 0.5,
            "escape" => d > 40.0,
            _ => false,
        };
        assert!(crossed, "system {s}: {f:?}");
    }
    // A stopped system and a surviving one, each alone in an ensemble of one (seed + s draws
    // the same planet), have the same row to the last bit.
    let survivor = (0..systems).find(|s| !stopped.contains(s)).unwrap();
    for s in [stopped[0], survivor] {
        let sub = d.join(format!("alone{s}"));
        std::fs::create_dir_all(&sub).unwrap();
        let path = ensemble(&sub, 1, 500 + s as u64, steps);
        let o = orrery(&["run", path.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(rows(&sub)[0], tables[0][s], "system {s} alone differs");
    }
}

#[test]
fn settings_the_map_cannot_honour_are_refused_by_name() {
    let d = scratch("wh-refused");
    for (tag, correctors, extra, expected) in [
        (
            "pr",
            0,
            "forces: (poynting_robertson: true),",
            "forces.poynting_robertson",
        ),
        ("order", 0, "order: 4,", "order"),
        ("corr", 4, "", "corrector order 4"),
        (
            "tp",
            0,
            "mode: TestParticles, particle_minimum_mass: 1e-4,",
            "mode",
        ),
    ] {
        let path = scenario(&d, tag, correctors, 10, (0, 0), extra);
        refused(
            &d,
            &["run", path.to_str().unwrap()],
            &[expected, &format!("{tag}.ron")],
        );
    }
}

#[test]
fn param_dat_selects_the_map_with_genga_style_keys() {
    let d = scratch("wh-param");
    let ic = d.join("ic.dat");
    let (p1, v1) = genga_sims::circular(1.0, 1e-3, 5.2, 0.3, 0.01);
    let (p2, v2) = genga_sims::circular(1.0, 3e-4, 9.5, 2.0, 0.02);
    let lines = [
        genga_sims::ic_line(0, 1e-3, 4e-4, p1, v1),
        genga_sims::ic_line(1, 3e-4, 4e-4, p2, v2),
    ];
    std::fs::write(&ic, lines.concat()).unwrap();
    let param = |extra: &str| {
        let text = format!(
            "Time step in days = 20\nOutput name = wh\nIntegration steps = 200\n\
             Energy output interval = 100\nCoordinates output interval = 0\n\
             Input file = ic.dat\nInput file Format: << i m r x y z vx vy vz >>\n{extra}"
        );
        std::fs::write(d.join("param.dat"), text).unwrap();
        d.join("param.dat")
    };
    let p = param("Integrator = WH\nWH correctors = 11\n");
    let o = orrery(&[
        "run",
        p.to_str().unwrap(),
        "--out",
        d.join("ran").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("Wisdom-Holman map (Jacobi coordinates, corrector order 11"),
        "{out}"
    );
    let p = param("WH correctors = 5\n");
    let err = refused(
        &d,
        &["run", p.to_str().unwrap()],
        &["WH correctors", "Integrator = WH"],
    );
    assert!(err.contains("param.dat"), "{err}");
    // GENGA's GR and J2 keys run on the map; a force of the velocities is refused by its key.
    let p = param("Integrator = WH\nUse GR = 1\nJ2 = 1e-4\nJ2 radius = 0.01\n");
    let o = orrery(&[
        "run",
        p.to_str().unwrap(),
        "--out",
        d.join("gr").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let p = param("Integrator = WH\nUse Poynting-Robertson = 1\n");
    refused(
        &d,
        &["run", p.to_str().unwrap()],
        &["Use Poynting-Robertson"],
    );
}

/// Jupiter and a planet of 10 Earth masses on an orbit that crosses Jupiter's, on the map with
/// `stop`, for `steps` steps of `dt_days`.
fn crossing(dir: &Path, stop: &str, steps: u64, dt_days: f64) -> PathBuf {
    let text = format!(
        r#"Scenario(
    name: "cross",
    time_step_days: {dt_days:?},
    steps: Some({steps}),
    integrator: WisdomHolman(correctors: 0),
    stop: {stop},
    inner_truncation: 0.1,
    outer_truncation: 100.0,
    bodies: [
        Kepler(name: "Jupiter", m: 9.547919e-4, radius: Some(4.673e-4), a: 5.2029, e: 0.0484,
               inc_deg: 1.3, node_deg: 100.5, peri_deg: 274.3, mean_anomaly_deg: 19.7),
        Kepler(name: "X", m: 3e-5, radius: Some(1e-4), a: 4.6, e: 0.2, inc_deg: 1.0,
               node_deg: 90.0, peri_deg: 20.0, mean_anomaly_deg: 100.0),
    ],
    output: (dir: "{out}", energy_interval: 0, coordinates_interval: 0,
             checkpoint_interval: 0),
)
"#,
        out = dir.join("out").display()
    );
    let path = dir.join("cross.ron");
    std::fs::write(&path, text).unwrap();
    path
}

/// Rewrite the scenario at `path` with `edit` and run it: its standard output.
fn run_edited(path: &Path, edit: impl Fn(String) -> String) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    std::fs::write(path, edit(text)).unwrap();
    let o = orrery(&["run", path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// [`crossing`]'s scenario text on the hybrid step.
fn hybrid(text: String) -> String {
    text.replace("integrator: WisdomHolman(correctors: 0),", "")
}

/// The step the run stopped at, from its summary's `... at step N` line.
fn stop_step(stdout: &str) -> u64 {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("stopped early:"))
        .unwrap_or_else(|| panic!("the run did not stop:\n{stdout}"));
    let after = line.rsplit("at step ").next().unwrap();
    let digits: String = after.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().unwrap()
}

/// When the pair of [`crossing`]'s scenario `path` first comes within
/// `max(min_distance, hill_radii (R_H,1 + R_H,2))`, in code units, and the run's step: the same
/// map with a step 40 times shorter, the criterion checked at every step, the crossing time
/// refined by bisection on the linear interpolation between steps.
fn reference_crossing(path: &Path, hill_radii: f64, min_distance: f64) -> (f64, f64) {
    let setup = config::load_setup(path, &Overrides::default(), false).unwrap();
    let (m0, bodies) = (setup.sims[0].spec.m0, &setup.sims[0].bodies);
    let mut m = vec![m0];
    let (mut pos, mut vel) = (vec![[0.0; 3]], vec![[0.0; 3]]);
    for b in bodies {
        m.push(b.m);
        pos.push(b.pos);
        vel.push(b.vel);
    }
    let fine = setup.cfg.dt() / 40.0;
    let hill = |k: usize| (m[k] / (3.0 * m0)).cbrt();
    let margin = |x: &[[f64; 3]]| {
        let helio = |k: usize| -> f64 {
            (0..3)
                .map(|c| (x[k][c] - x[0][c]).powi(2))
                .sum::<f64>()
                .sqrt()
        };
        let r12 = (0..3)
            .map(|c| (x[1][c] - x[2][c]).powi(2))
            .sum::<f64>()
            .sqrt();
        r12 - min_distance.max(hill_radii * (hill(1) * helio(1) + hill(2) * helio(2)))
    };
    let mut wh = WisdomHolman::new(&m, &pos, &vel, fine, 0).unwrap();
    let mut before = margin(&pos);
    let t_ref = loop {
        wh.step().unwrap();
        let now = margin(&wh.state().unwrap().0);
        if now < 0.0 {
            // Bisect the straight line between the two samples for its zero.
            let (mut lo, mut hi) = (0.0, 1.0);
            for _ in 0..60 {
                let mid = 0.5 * (lo + hi);
                match before + mid * (now - before) < 0.0 {
                    true => hi = mid,
                    false => lo = mid,
                }
            }
            break wh.time() - fine + hi * fine;
        }
        before = now;
        assert!(
            wh.steps() < 40 * 200_000,
            "the reference never met the criterion"
        );
    };
    (t_ref, setup.cfg.dt())
}

#[test]
fn the_hill_stop_time_agrees_with_a_dense_reference() {
    let d = scratch("wh-hill");
    let dt_days = 5.0;
    let path = crossing(&d, "(hill_radii: Some(1.0))", 200_000, dt_days);
    let o = orrery(&["run", path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(out.contains("came within"), "{out}");
    let n = stop_step(&out);
    let (t_ref, dt) = reference_crossing(&path, 1.0, 0.0);
    // The run checks at each step's kick (its middle) and sweeps the drift after it to the next
    // kick; it reports the step whose sweep met the criterion: the crossing lies between that
    // step's kick and the next one, from half a step before its end to half a step after.
    let early = (n as f64 - 0.5) * dt - 0.05 * dt;
    let late = (n as f64 + 0.5) * dt + 0.05 * dt;
    println!(
        "stopped at step {n}; reference crossing at {:.3} steps",
        t_ref / dt
    );
    assert!(
        (early..=late).contains(&t_ref),
        "reference crossing at {:.3} steps, the run stopped at step {n}",
        t_ref / dt
    );
}

#[test]
fn a_collision_stop_ends_the_run_at_the_touch() {
    let d = scratch("wh-collision");
    // Radii of 0.05 AU: the planets touch before they come within one mutual Hill radius.
    let path = crossing(&d, "(collision: true)", 200_000, 5.0);
    let out = run_edited(&path, |t| t.replace("Some(4.673e-4)", "Some(0.3)"));
    assert!(out.contains("touched"), "{out}");
    let log = std::fs::read_to_string(d.join("out/Collisionscross.dat")).unwrap();
    assert_eq!(log.lines().count(), 1, "{log}");
    // The two bodies of the line are at most their radii apart.
    let cols: Vec<f64> = log.split_whitespace().map(|v| v.parse().unwrap()).collect();
    let (a, b) = (&cols[1..13], &cols[13..25]);
    let dist = (0..3)
        .map(|c| (a[3 + c] - b[3 + c]).powi(2))
        .sum::<f64>()
        .sqrt();
    assert!(
        dist < a[2] + b[2],
        "distance {dist} against radii {} + {}",
        a[2],
        b[2]
    );
}

#[test]
fn the_hybrid_step_stops_at_its_first_merger() {
    let d = scratch("hybrid-stop");
    let path = crossing(&d, "(collision: true)", 200_000, 5.0);
    let out = run_edited(&path, |t| hybrid(t).replace("Some(4.673e-4)", "Some(0.3)"));
    assert!(out.contains("a collision (bodies"), "{out}");
    let n = stop_step(&out);
    let log = std::fs::read_to_string(d.join("out/Collisionscross.dat")).unwrap();
    assert_eq!(log.lines().count(), 1, "{log}");
    // The merger happened within the last step (here at its very start, to 1e-2 of a step).
    let t: f64 = log.split_whitespace().next().unwrap().parse().unwrap();
    let years = |steps: f64| steps * 5.0 / 365.25;
    assert!(
        t > years(n as f64 - 1.01) && t <= years(n as f64),
        "{t} at step {n}"
    );
}

#[test]
fn the_hybrid_steps_hill_stop_agrees_with_the_dense_reference() {
    let d = scratch("hybrid-hill");
    let path = crossing(&d, "(hill_radii: Some(1.0))", 200_000, 5.0);
    let out = run_edited(&path, hybrid);
    assert!(
        out.contains("an encounter within the stop's distance (bodies"),
        "{out}"
    );
    let n = stop_step(&out);
    // The hybrid step sweeps each whole drift: the crossing lies within the step it stopped
    // at, up to the two integrators' different errors (here a few hundredths of a step).
    let (t_ref, dt) = reference_crossing(&path, 1.0, 0.0);
    println!(
        "stopped at step {n}; reference crossing at {:.3} steps",
        t_ref / dt
    );
    let (early, late) = ((n as f64 - 1.05) * dt, (n as f64 + 0.05) * dt);
    assert!(
        (early..=late).contains(&t_ref),
        "reference crossing at {:.3} steps, the run stopped at step {n}",
        t_ref / dt
    );
    // The stop's time is the crossing within the step, not the step's end.
    let years = stop_years(&out);
    let t = years * 365.25 / 5.0 * dt;
    assert!(
        (t - t_ref).abs() < 0.05 * dt,
        "stop at {:.3} steps, reference crossing at {:.3}",
        t / dt,
        t_ref / dt
    );
}

#[test]
fn the_hybrid_steps_distance_stop_sees_pairs_beyond_the_critical_radii() {
    // Planets of 1e-7 and 1e-8 solar masses: critical radii of about 0.05 AU, so that pairs
    // 0.3 AU apart are seen only because the stop raises the critical radii to its distance.
    let d = scratch("hybrid-distance");
    let path = crossing(&d, "(min_distance: Some(0.3))", 400_000, 5.0);
    let out = run_edited(&path, |t| {
        hybrid(t)
            .replace("m: 9.547919e-4", "m: 1e-7")
            .replace("m: 3e-5", "m: 1e-8")
    });
    assert!(out.contains("(stop.min_distance)"), "{out}");
    let n = stop_step(&out);
    let (t_ref, dt) = reference_crossing(&path, 0.0, 0.3);
    let t = stop_years(&out) * 365.25 / 5.0 * dt;
    println!(
        "stopped at step {n}, t = {:.3} steps; reference crossing at {:.3} steps",
        t / dt,
        t_ref / dt
    );
    assert!(
        (t - t_ref).abs() < 0.05 * dt && t <= n as f64 * dt && t >= (n - 1) as f64 * dt,
        "stop at {:.3} steps (step {n}), reference crossing at {:.3}",
        t / dt,
        t_ref / dt
    );
}

/// The stop's time (years) from the run's `stopped early: ..., t = T yr` line.
fn stop_years(stdout: &str) -> f64 {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("stopped early:"))
        .unwrap();
    let after = line.split(", t = ").nth(1).expect("a stop time");
    after.split(" yr").next().unwrap().parse().unwrap()
}

#[test]
fn a_resume_with_other_stop_settings_is_refused() {
    let d = scratch("wh-stop-resume");
    let path = crossing(&d, "(hill_radii: Some(1.0))", 2000, 5.0);
    let p = path.to_str().unwrap();
    let o = orrery(&["run", p, "--steps", "100"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("Some(1.0)", "Some(2.0)")).unwrap();
    let o = orrery(&["run", p, "--resume"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("stop=hill:1e0") && err.contains("stop=hill:2e0"),
        "{err}"
    );
}

/// The positions (columns x y z) of a snapshot's bodies.
fn snapshot_positions(path: &Path) -> Vec<[f64; 3]> {
    std::fs::read_to_string(path)
        .expect("snapshot")
        .lines()
        .map(|l| {
            let f: Vec<f64> = l.split_whitespace().map(|v| v.parse().unwrap()).collect();
            [f[4], f[5], f[6]]
        })
        .collect()
}

#[test]
fn the_map_kicks_with_gr_and_j2_as_the_hybrid_step_does() {
    let d = scratch("wh-forces");
    // A strong J2 (J2 R^2 = 0.05 AU^2) about a tilted spin axis turns the giants' orbital
    // angular momentum by a fifth of itself in 1100 years; GR rides along.
    let forces = "forces: (gr: true, j2: 0.05, j2_radius: 1.0, central_spin: (0.2, -0.1, 1.0)),";
    let steps = 20_000;
    let mut finals = Vec::new();
    let runs = [
        ("wh", Some(0), None),
        ("wh17", Some(17), None),
        // Stopped between two outputs: the books' sums must not depend on where syncs fall.
        ("resumed", Some(17), Some("7481")),
        ("hybrid", None, None),
    ];
    let mut energies = Vec::new();
    for (name, correctors, first_steps) in runs {
        let sub = d.join(name);
        std::fs::create_dir_all(&sub).unwrap();
        let path = scenario(&sub, "f", correctors.unwrap_or(0), steps, (1000, 0), forces);
        if correctors.is_none() {
            let text = std::fs::read_to_string(&path).unwrap();
            let hybrid = text.replace("integrator: WisdomHolman(correctors: 0),", "");
            std::fs::write(&path, hybrid).unwrap();
        }
        let p = path.to_str().unwrap();
        let o = orrery(&["run", p, "--steps", first_steps.unwrap_or("20000")]);
        assert!(o.status.success(), "{}", stderr(&o));
        if first_steps.is_some() {
            let o = orrery(&["run", p, "--resume"]);
            assert!(o.status.success(), "{}", stderr(&o));
        }
        let energy = std::fs::read_to_string(sub.join("out/Energyf.dat")).unwrap();
        let col =
            |l: &str, k: usize| -> f64 { l.split_whitespace().nth(k).unwrap().parse().unwrap() };
        let worst = |k: usize| energy.lines().map(|l| col(l, k).abs()).fold(0.0, f64::max);
        let (de, dl) = (worst(9), worst(8));
        let last = energy.lines().last().unwrap();
        let lost = col(last, 4) / col(last, 7);
        println!("{name}: |dE/E| {de:e}, |dL/L| {dl:e}, J2 moved {lost:e} of L to the spin");
        // J2's torque is booked to the last bit (measured: 2.8e-15, 5.2e-15 and 9.1e-15; the
        // map with correctors books the undone corrector's share too, without it 5.9e-9).
        assert!(lost > 0.1, "{name}: {lost:e}");
        assert!(dl < 1e-13, "{name}: angular momentum error {dl:e}");
        // The potential is in the conserved energy (without it the error is 5e-4).
        let bound = if correctors == Some(17) { 1e-9 } else { 1e-6 };
        assert!(de < bound, "{name}: energy error {de:e}");
        energies.push(energy);
        finals.push(snapshot_positions(
            &sub.join(format!("out/Outf_{steps:012}.dat")),
        ));
    }
    assert_eq!(energies[1], energies[2], "the resumed run's books differ");
    // The same physics: the map's giants end where the hybrid step's do, to within the hybrid
    // step's error (measured 6.2e-4 and 3.8e-4 AU; the nodes moved by about a radian).
    for k in 0..2 {
        let apart = finals[k]
            .iter()
            .zip(&finals[3])
            .map(|(a, b)| {
                ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
            })
            .fold(0.0, f64::max);
        println!(
            "{}: largest distance from the hybrid step's positions {apart:e} AU",
            runs[k].0
        );
        assert!(apart < 1e-3, "{apart:e} AU");
    }
}

/// An ensemble of `systems` on the map, each with the giants and a planet drawn between 1.5 and
/// 4 AU (its innermost orbit), stepped `time_step` (a scenario field and value).
fn own_step_ensemble(dir: &Path, systems: usize, seed: u64, time_step: &str) -> PathBuf {
    let drawn = "m: (1e-6, 1e-5), a: (1.5, 4.0), e: (0.0, 0.1)";
    let settings =
        format!("{time_step} steps: Some(3000), integrator: WisdomHolman(correctors: 5),");
    ensemble_file(dir, (systems, seed), drawn, &settings)
}

#[test]
fn systems_with_steps_of_their_own_are_each_system_alone() {
    let d = scratch("wh-own-steps");
    let rule = "time_step: InnerPeriodFraction(0.05),";
    let path = own_step_ensemble(&d, 6, 90, rule);
    let o = orrery(&["run", path.to_str().unwrap(), "--threads", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = rows(&d);
    // Stopped at step 1234 and resumed: the same table.
    let sub = d.join("resumed");
    std::fs::create_dir_all(&sub).unwrap();
    let again = own_step_ensemble(&sub, 6, 90, rule);
    let p = again.to_str().unwrap();
    let o = orrery(&["run", p, "--steps", "1234"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = orrery(&["run", p, "--resume"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(rows(&sub), table, "the resumed ensemble differs");
    // Each system alone (the same seed draws the same planet, so the same step) has its row.
    for s in [0, 3, 5] {
        let sub = d.join(format!("alone{s}"));
        std::fs::create_dir_all(&sub).unwrap();
        let path = own_step_ensemble(&sub, 1, 90 + s as u64, rule);
        let o = orrery(&["run", path.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(rows(&sub)[0], table[s], "system {s} alone differs");
    }
    // The rule's refusals: with time_step_days, with end_time_years, and on the hybrid step.
    for (tag, extra, field) in [
        (
            "both",
            "time_step: InnerPeriodFraction(0.05), time_step_days: 5.0,",
            "time_step_days",
        ),
        (
            "end",
            "time_step: InnerPeriodFraction(0.05), end_time_years: Some(1.0),",
            "end_time_years",
        ),
        ("zero", "time_step: InnerPeriodFraction(0.0),", "time_step"),
    ] {
        let sub = d.join(tag);
        std::fs::create_dir_all(&sub).unwrap();
        let path = own_step_ensemble(&sub, 2, 90, extra);
        let text = std::fs::read_to_string(&path)
            .unwrap()
            .replace("steps: Some(3000),", "");
        let text = if tag == "end" {
            text
        } else {
            text.replace("mode: Multi,", "mode: Multi, steps: Some(10),")
        };
        std::fs::write(&path, text).unwrap();
        refused(&sub, &["run", path.to_str().unwrap()], &[field]);
    }
    let sub = d.join("hybrid");
    std::fs::create_dir_all(&sub).unwrap();
    let path = own_step_ensemble(&sub, 3, 90, rule);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replace("integrator: WisdomHolman(correctors: 5),", ""),
    )
    .unwrap();
    refused(
        &sub,
        &["run", path.to_str().unwrap()],
        &["time_step", "hybrid step"],
    );
}

#[test]
fn a_fraction_of_the_innermost_period_steps_a_single_run() {
    // The giants alone: a twentieth of Jupiter's period, about 216.6 days; the Energy file's
    // times are whole multiples of it.
    let d = scratch("wh-inner-period");
    let path = scenario(&d, "ip", 5, 100, (10, 0), "");
    let text = std::fs::read_to_string(&path).unwrap().replace(
        "time_step_days: 20.0,",
        "time_step: InnerPeriodFraction(0.05),",
    );
    std::fs::write(&path, text).unwrap();
    let o = orrery(&["run", path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (a, m) = (5.20288700f64, 9.547919e-4);
    let period_days = 2.0 * std::f64::consts::PI * (a * a * a / (1.0 + m)).sqrt() / 0.01720209895;
    let last = last_energy_time(&std::fs::read_to_string(d.join("out/Energyip.dat")).unwrap());
    let want = 100.0 * 0.05 * period_days / 365.25;
    // Jupiter's osculating a at the start differs from the J2000 mean a by its perturbations.
    assert!(
        (last / want - 1.0).abs() < 5e-3,
        "{last} years, expected about {want}"
    );
}

#[test]
fn a_multi_simulation_list_on_the_map_keeps_each_time_step() {
    let d = scratch("wh-multi-steps");
    let sims = d.join("sims");
    let mut list = String::new();
    for (name, dt, m0) in [("six", 6.0, 1.0), ("three", 3.0, 1.2)] {
        let mut ics = String::new();
        for (k, (m, a)) in [(1e-6, 1.0), (3e-6, 2.1)].into_iter().enumerate() {
            let (p, v) = genga_sims::circular(m0, m, a, 1.1 * k as f64, 0.01);
            ics.push_str(&genga_sims::ic_line(k, m, 1e-5, p, v));
        }
        let dir = sims.join(name);
        genga_sims::genga_sim(&dir, name, m0, 3.0, &ics);
        let param = std::fs::read_to_string(dir.join("param.dat")).unwrap();
        let param = param.replace(
            "Time step in days = 6",
            &format!("Time step in days = {dt}"),
        );
        std::fs::write(dir.join("param.dat"), param + "Integrator = WH\n").unwrap();
        list.push_str(&format!("sims/{name}\n"));
    }
    let list_path = d.join("list.txt");
    std::fs::write(&list_path, list).unwrap();
    let o = orrery(&[
        "run",
        "--multi",
        list_path.to_str().unwrap(),
        "--steps",
        "200",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        !stderr(&o).contains("Time step"),
        "no warning: {}",
        stderr(&o)
    );
    for (name, dt) in [("six", 6.0), ("three", 3.0)] {
        let energy =
            std::fs::read_to_string(sims.join(name).join(format!("Energy{name}.dat"))).unwrap();
        let last = last_energy_time(&energy);
        assert!((last - 200.0 * dt / 365.25).abs() < 1e-12, "{name}: {last}");
        // The same simulation alone has the same files.
        let lone = d.join("lone").join(name);
        let param = sims.join(name).join("param.dat");
        let o = orrery(&[
            "run",
            param.to_str().unwrap(),
            "--out",
            lone.to_str().unwrap(),
            "--steps",
            "200",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let file = format!("Energy{name}.dat");
        assert_eq!(
            energy,
            std::fs::read_to_string(lone.join(&file)).unwrap(),
            "{name}"
        );
    }
}

/// The time (years) of an Energy file's last line.
fn last_energy_time(energy: &str) -> f64 {
    let line = energy.lines().last().expect("an energy line");
    line.split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn bodies_out_of_order_of_semi_major_axis_are_warned_about_on_the_map() {
    let d = scratch("wh-jacobi-order");
    let inner = "m: (1e-6, 1e-5), a: (0.8, 1.3), e: (0.0, 0.05)";
    let on_map = "time_step_days: 20.0, steps: Some(10), integrator: WisdomHolman(correctors: 0),";
    let warnings = |path: &Path| {
        let setup = config::load_setup(path, &Overrides::default(), false).unwrap();
        setup.cfg.warnings.join("\n")
    };
    // The drawn inner planet comes after the giants in every system.
    let w = warnings(&ensemble_file(&d, (5, 3), inner, on_map));
    assert!(
        w.contains("5 of 5 systems list their bodies out of order"),
        "{w}"
    );
    assert!(w.contains("from the inside out"), "{w}");
    // The giants from the inside out, and the hybrid step (any order), are not warned about.
    let w = warnings(&scenario(&d, "ordered", 0, 10, (0, 0), ""));
    assert!(!w.contains("out of order"), "{w}");
    let hybrid = "time_step_days: 20.0, steps: Some(10),";
    let w = warnings(&ensemble_file(&d, (5, 3), inner, hybrid));
    assert!(!w.contains("out of order"), "{w}");
}
