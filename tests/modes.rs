//! Test-particle mode and multi-simulation mode (issue 4): a test particle against a tiny-mass
//! body in main mode, test particles leaving the massive bodies untouched, every system of a multi
//! run against the same system run alone, stability ensembles with their summary table, and the
//! errors of a bad simulation list.

mod common;
use common::genga_sims::*;
use common::*;
use orrery::config::{self, Overrides};
use orrery::hybrid::run::{run_setup, RunSetup, Summary};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

const JUPITER: &str = r#"Kepler(name: "Jupiter", m: 9.547919e-4, radius: Some(4.673e-4), a: 5.20288700,
               e: 0.04838624, inc_deg: 1.30439695, node_deg: 100.47390909,
               peri_deg: 274.25457074, mean_anomaly_deg: 19.66796068)"#;
const SATURN: &str = r#"Kepler(name: "Saturn", m: 2.858860e-4, radius: Some(3.8926e-4), a: 9.53667594,
               e: 0.05386179, inc_deg: 2.48599187, node_deg: 113.66242448,
               peri_deg: 338.93645383, mean_anomaly_deg: 317.35536592)"#;

/// Write a scenario with the given mode, steps, particle minimum mass and body sources; its
/// outputs go to `dir/out_<name>` (final snapshot only). Returns the scenario path.
fn scenario(dir: &Path, name: &str, mode: &str, steps: u64, pmin: f64, bodies: &[&str]) -> PathBuf {
    let text = format!(
        r#"Scenario(
    name: "{name}",
    mode: {mode},
    time_step_days: 6.0,
    steps: Some({steps}),
    n1: 3.0,
    n2: 0.4,
    inner_truncation: 0.2,
    outer_truncation: 50.0,
    particle_minimum_mass: {pmin:e},
    bodies: [
        {bodies},
    ],
    output: (dir: "{out}", energy_interval: 0, coordinates_interval: -1,
             checkpoint_interval: 1000000),
)
"#,
        bodies = bodies.join(",\n        "),
        out = dir.join(format!("out_{name}")).display()
    );
    let path = dir.join(format!("{name}.ron"));
    std::fs::write(&path, text).expect("write scenario");
    path
}

/// Load a scenario or param file and run it through the library; returns the setup and summary.
fn run_file(path: &Path) -> (RunSetup, Summary) {
    let setup = config::load_setup(path, &Overrides::default(), false)
        .unwrap_or_else(|e| panic!("load {}: {e}", path.display()));
    let stop = AtomicBool::new(false);
    let summary = run_setup(setup.clone(), false, &stop, &mut |_| {})
        .unwrap_or_else(|e| panic!("run {}: {e}", path.display()));
    println!("{}: {}", path.display(), summary.report());
    (setup, summary)
}

/// One line of a snapshot: the raw text, the id and the numbers.
struct Line {
    text: String,
    id: u64,
    cols: Vec<f64>,
}

fn read_snapshot(path: &Path) -> Vec<Line> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("read snapshot {}: {e}", path.display()));
    text.lines()
        .map(|l| {
            let cols: Vec<f64> = l
                .split_whitespace()
                .map(|x| x.parse().unwrap_or_else(|_| panic!("bad number in `{l}`")))
                .collect();
            assert_eq!(cols.len(), 13, "snapshot line `{l}` has 13 columns");
            Line {
                text: l.to_string(),
                id: cols[1] as u64,
                cols,
            }
        })
        .collect()
}

fn find(lines: &[Line], id: u64) -> &Line {
    lines
        .iter()
        .find(|l| l.id == id)
        .unwrap_or_else(|| panic!("body {id} is in the snapshot"))
}

fn snapshot_path(dir: &Path, name: &str, step: u64) -> PathBuf {
    dir.join(format!("Out{name}_{step:012}.dat"))
}

/// Number of lines of a file that may not exist (a log without events).
fn count_lines(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .map(|t| t.lines().filter(|l| !l.trim().is_empty()).count())
        .unwrap_or(0)
}

fn read_or_empty(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

#[test]
fn test_particle_matches_a_tiny_mass_body_in_main_mode() {
    let d = scratch("modes-tp-vs-tiny");
    let steps = 10_000;
    let body = |m: &str| {
        format!(
            r#"Kepler(name: "Ceres-like", m: {m}, radius: Some(1e-6), a: 2.77, e: 0.05,
               inc_deg: 3.0, node_deg: 80.3, peri_deg: 73.6, mean_anomaly_deg: 120.0)"#
        )
    };
    let (tp_body, tiny_body) = (body("0.0"), body("1e-20"));
    let a = scenario(
        &d,
        "tp",
        "TestParticles",
        steps,
        0.0,
        &[JUPITER, SATURN, &tp_body],
    );
    let b = scenario(
        &d,
        "tiny",
        "Main",
        steps,
        0.0,
        &[JUPITER, SATURN, &tiny_body],
    );
    let (setup_a, sum_a) = run_file(&a);
    let (setup_b, sum_b) = run_file(&b);
    assert_eq!(
        setup_a.sims[0].massive, 2,
        "the mass-0 body is a test particle"
    );
    assert_eq!(
        setup_b.sims[0].massive, 3,
        "main mode: every body is massive"
    );
    println!(
        "encounters: test-particle run {}, main run {}",
        sum_a.encounters, sum_b.encounters
    );
    assert_eq!(sum_a.encounters, 0, "no close encounters in the TP run");
    assert_eq!(sum_b.encounters, 0, "no close encounters in the main run");
    assert_eq!((sum_a.n_end, sum_b.n_end), (3, 3));

    let sa = read_snapshot(&snapshot_path(&d.join("out_tp"), "tp", steps));
    let sb = read_snapshot(&snapshot_path(&d.join("out_tiny"), "tiny", steps));
    let (pa, pb) = (find(&sa, 2), find(&sb, 2));
    assert_eq!(pa.cols[2], 0.0, "the test particle keeps mass 0");
    let dx: f64 = (4..7)
        .map(|c| (pa.cols[c] - pb.cols[c]).powi(2))
        .sum::<f64>()
        .sqrt();
    let dv: f64 = (7..10)
        .map(|c| (pa.cols[c] - pb.cols[c]).powi(2))
        .sum::<f64>()
        .sqrt();
    let r: f64 = (4..7).map(|c| pa.cols[c].powi(2)).sum::<f64>().sqrt();
    println!(
        "after {steps} steps ({} yr): |dx| = {dx:e} AU, |dv| = {dv:e}, r = {r} AU",
        pa.cols[0]
    );
    // The body moved around its orbit (a 2.77 AU orbit, not a frozen state).
    assert!((2.5..3.0).contains(&r), "r = {r}");
    assert!(
        dx < 1e-10,
        "test particle vs 1e-20 Msun body: |dx| = {dx:e} AU"
    );
    // The giants themselves agree too (the 1e-20 body barely pulls on them).
    for id in [0, 1] {
        let (ga, gb) = (find(&sa, id), find(&sb, id));
        let dg: f64 = (4..7)
            .map(|c| (ga.cols[c] - gb.cols[c]).powi(2))
            .sum::<f64>()
            .sqrt();
        println!("giant {id}: |dx| = {dg:e} AU");
        assert!(dg < 1e-10, "giant {id}: |dx| = {dg:e}");
    }
}

#[test]
fn test_particles_never_change_the_massive_bodies() {
    let d = scratch("modes-tp-massive");
    let steps = 1000;
    let disk = r#"Disk((n: 2000, total_mass_earth: 1e-12, a_min: 1.0, a_max: 4.5, e_rayleigh: 0.02,
              i_rayleigh: 0.01, rho: 2.0, seed: 5))"#;
    let with = scenario(
        &d,
        "withtp",
        "TestParticles",
        steps,
        1e-15,
        &[JUPITER, SATURN, disk],
    );
    let alone_tp = scenario(
        &d,
        "alonetp",
        "TestParticles",
        steps,
        1e-15,
        &[JUPITER, SATURN],
    );
    let alone_main = scenario(&d, "alonemain", "Main", steps, 0.0, &[JUPITER, SATURN]);
    let (setup, sum) = run_file(&with);
    assert_eq!(setup.sims[0].massive, 2, "only the giants are massive");
    assert_eq!(setup.sims[0].bodies.len(), 2002);
    let (_, sum_tp) = run_file(&alone_tp);
    let (_, sum_main) = run_file(&alone_main);
    println!(
        "TP run: encounters {}, candidates {}, groups {}, collisions {}, ejections {}, N {} -> {}",
        sum.encounters,
        sum.candidates,
        sum.groups.groups,
        sum.collisions,
        sum.ejections,
        sum.n_start,
        sum.n_end
    );
    assert!(
        sum.encounters > 0,
        "the disk has test-particle encounters with Jupiter"
    );
    assert_eq!(sum_tp.encounters + sum_main.encounters, 0);

    let out = d.join("out_withtp");
    let s = read_snapshot(&snapshot_path(&out, "withtp", steps));
    let collisions = count_lines(&out.join("Collisionswithtp.dat"));
    let ejections = count_lines(&out.join("Ejectionswithtp.dat"));
    println!(
        "final N {} + collisions {collisions} + ejections {ejections} (initial 2002)",
        s.len()
    );
    assert_eq!(s.len(), sum.n_end);
    assert_eq!(
        s.len() + collisions + ejections,
        2002,
        "every vanished test particle is logged"
    );
    assert_eq!(sum.collisions as usize, collisions);
    assert_eq!(sum.ejections as usize, ejections);
    // A logged collision is a test particle hitting a giant; the giants are all still there.
    for l in read_or_empty(&out.join("Collisionswithtp.dat")).lines() {
        println!("collision: {l}");
        let c: Vec<f64> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
        assert_eq!(c.len(), 25, "{l}");
        let mut ids = [c[1] as u64, c[13] as u64];
        ids.sort();
        assert!(
            ids[0] <= 1 && ids[1] >= 2,
            "a test particle and a giant: {l}"
        );
    }

    let s_tp = read_snapshot(&snapshot_path(&d.join("out_alonetp"), "alonetp", steps));
    let s_main = read_snapshot(&snapshot_path(&d.join("out_alonemain"), "alonemain", steps));
    for id in [0, 1] {
        let l = &find(&s, id).text;
        println!("body {id} with test particles: {l}");
        println!("body {id} alone (main mode):   {}", find(&s_main, id).text);
        assert_eq!(
            l,
            &find(&s_tp, id).text,
            "massive body {id}: with vs without test particles (test-particle mode)"
        );
        assert_eq!(
            l,
            &find(&s_main, id).text,
            "massive body {id}: with test particles vs main mode without them"
        );
    }
}

#[test]
fn each_multi_system_matches_running_it_alone() {
    let d = scratch("modes-multi");
    let (list, sims) = three_systems(&d);
    let o = orrery(&["run", "--multi", list.to_str().unwrap(), "--steps", "400"]);
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    println!("multi run:\n{stdout}{}", stderr(&o));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout.contains("simulations 3 (0 stopped"),
        "the summary names the simulations: {stdout}"
    );
    let lone_root = d.join("lone");
    for (dir, name) in &sims {
        let lone = lone_root.join(name);
        let param = dir.join("param.dat");
        let o = orrery(&[
            "run",
            param.to_str().unwrap(),
            "--out",
            lone.to_str().unwrap(),
            "--steps",
            "400",
        ]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let multi_snap = std::fs::read(snapshot_path(dir, name, 400))
            .unwrap_or_else(|e| panic!("{name}: multi run wrote its final snapshot: {e}"));
        let lone_snap = std::fs::read(snapshot_path(&lone, name, 400)).unwrap();
        let n = read_snapshot(&snapshot_path(dir, name, 400)).len();
        println!(
            "{name}: final N {n}, snapshot {} bytes, collisions {}",
            multi_snap.len(),
            count_lines(&dir.join(format!("Collisions{name}.dat")))
        );
        assert_eq!(
            multi_snap, lone_snap,
            "{name}: final snapshot of the multi run vs the system alone"
        );
        for f in ["Collisions", "Ejections", "Energy"] {
            let file = format!("{f}{name}.dat");
            assert_eq!(
                read_or_empty(&dir.join(&file)),
                read_or_empty(&lone.join(&file)),
                "{name}: {file} of the multi run vs the system alone"
            );
        }
        // An intermediate snapshot too.
        assert_eq!(
            std::fs::read(snapshot_path(dir, name, 200)).unwrap(),
            std::fs::read(snapshot_path(&lone, name, 200)).unwrap(),
            "{name}: snapshot at step 200"
        );
    }
    // The colliding system really lost a body early, the others kept theirs.
    let counts: Vec<usize> = sims
        .iter()
        .map(|(dir, name)| read_snapshot(&snapshot_path(dir, name, 400)).len())
        .collect();
    assert_eq!(counts, vec![2, 2, 5], "final body counts");
    let beta = &sims[1].0;
    let coll = std::fs::read_to_string(beta.join("Collisionsbeta.dat")).unwrap();
    assert_eq!(coll.lines().count(), 1, "one merger in beta: {coll}");
    let t: f64 = coll.split_whitespace().next().unwrap().parse().unwrap();
    println!("beta merger at t = {t} yr");
    assert!(t > 0.0 && t < 0.1, "the merger happens in the first steps");
    // The heavier body (id 1) survives with the summed mass.
    let snap = read_snapshot(&snapshot_path(beta, "beta", 400));
    assert_eq!(find(&snap, 1).cols[2], 1e-5 + 2e-5);
    assert!(snap.iter().all(|l| l.id != 0));
    assert_eq!(count_lines(&sims[0].0.join("Collisionsalpha.dat")), 0);
    assert_eq!(count_lines(&sims[2].0.join("Collisionsgamma.dat")), 0);
}

/// An ensemble of `systems` systems: Jupiter plus one drawn body. Bodies closer to the star than
/// `inner` AU are ejected (case -2).
fn ensemble(
    dir: &Path,
    name: &str,
    systems: usize,
    drawn: &str,
    steps: u64,
    inner: f64,
) -> PathBuf {
    let text = format!(
        r#"Ensemble(
    systems: {systems},
    seed: 4242,
    hypothetical: [
        {drawn},
    ],
    scenario: Scenario(
        name: "{name}",
        mode: Multi,
        time_step_days: 20.0,
        steps: Some({steps}),
        n1: 3.0,
        n2: 0.4,
        inner_truncation: {inner},
        outer_truncation: 30.0,
        bodies: [
            {JUPITER},
        ],
        output: (dir: "{out}", energy_interval: 0, coordinates_interval: 0,
                 checkpoint_interval: 1000000),
    ),
)
"#,
        out = dir.join(format!("out_{name}")).display()
    );
    let path = dir.join(format!("{name}.ron"));
    std::fs::write(&path, text).unwrap();
    path
}

/// One row of summary.csv.
struct Row {
    survived: bool,
    time: String,
    kind: String,
    n_final: usize,
    /// How it stopped: `stop,stop_time_yr,stop_step,stop_body_i,stop_body_j,stop_distance_au`.
    stop: Vec<String>,
    /// (id, a, e, inc) of the remaining bodies.
    bodies: Vec<(u64, f64, f64, f64)>,
}

fn read_summary(path: &Path, systems: usize) -> Vec<Row> {
    let text = std::fs::read_to_string(path).expect("summary.csv exists");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(
        &header[..14],
        &[
            "system",
            "seed",
            "survived",
            "first_event_time_yr",
            "first_event",
            "n_final",
            "stop",
            "stop_time_yr",
            "stop_step",
            "stop_body_i",
            "stop_body_j",
            "stop_distance_au",
            "megno",
            "lyapunov_per_yr"
        ]
    );
    const FIXED: usize = 14;
    let rows: Vec<Row> = lines
        .enumerate()
        .map(|(k, l)| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), header.len(), "row {k}: `{l}`");
            assert_eq!(f[0], k.to_string());
            assert_eq!(f[1], (4242 + k).to_string(), "seed of system {k}");
            let n_final: usize = f[5].parse().unwrap();
            let bodies = (0..n_final)
                .map(|b| {
                    let c = &f[FIXED + 4 * b..FIXED + 4 + 4 * b];
                    let num = |s: &str| -> f64 {
                        s.parse()
                            .unwrap_or_else(|_| panic!("row {k}: `{s}` is not a number"))
                    };
                    let v = (c[0].parse().unwrap(), num(c[1]), num(c[2]), num(c[3]));
                    assert!(
                        v.1.is_finite() && v.2.is_finite() && v.3.is_finite(),
                        "row {k}: {l}"
                    );
                    v
                })
                .collect();
            // Unused body columns are empty.
            assert!(f[FIXED + 4 * n_final..].iter().all(|s| s.is_empty()), "{l}");
            Row {
                survived: f[2].parse().unwrap(),
                time: f[3].to_string(),
                kind: f[4].to_string(),
                n_final,
                stop: f[6..12].iter().map(|s| s.to_string()).collect(),
                bodies,
            }
        })
        .collect();
    assert_eq!(rows.len(), systems, "one row per system");
    rows
}

#[test]
fn ensemble_summary_reports_unstable_systems_and_nmin_stops() {
    let d = scratch("modes-ensemble");
    let steps = 6000;
    let t_end = steps as f64 * 20.0 / 365.25;
    // Unstable: a body drawn within a Hill radius of Jupiter's orbit, with a large radius (0.05
    // AU, a seventh of Jupiter's Hill radius); a body scattered inside 4 AU counts as ejected.
    let unstable = ensemble(
        &d,
        "unstable",
        20,
        r#"Drawn(name: "X", m: (1e-5, 1e-4), radius: Some(0.05), a: (5.0, 5.4), e: (0.0, 0.05),
                inc_deg: (0.0, 1.0))"#,
        steps,
        4.0,
    );
    let o = orrery(&["run", unstable.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    println!("unstable ensemble:\n{stdout}");
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = read_summary(&d.join("out_unstable/summary.csv"), 20);
    let mut unstable_count = 0;
    let mut kinds = Vec::new();
    for (k, r) in rows.iter().enumerate() {
        println!(
            "system {k}: survived {} first event `{}` at `{}` yr, n_final {}, bodies {:?}",
            r.survived, r.kind, r.time, r.n_final, r.bodies
        );
        if r.survived {
            assert!(r.kind.is_empty() && r.time.is_empty(), "system {k}");
            assert!(
                r.stop.iter().all(|c| c.is_empty()),
                "system {k}: {:?}",
                r.stop
            );
            assert_eq!(r.n_final, 2, "system {k}");
        } else {
            unstable_count += 1;
            kinds.push(r.kind.clone());
            assert!(
                r.kind == "collision" || r.kind == "ejection",
                "system {k}: first event `{}`",
                r.kind
            );
            let t: f64 = r.time.parse().expect("event time is a number");
            assert!(t > 0.0 && t <= t_end, "system {k}: event time {t}");
            // Stopped at its first event (minimum_bodies 0 means every initial body).
            assert_eq!(r.n_final, 1, "system {k}");
            // The stop record names that event: its time, its bodies, a distance that fits.
            assert_eq!(r.stop[0], "minimum bodies", "system {k}: {:?}", r.stop);
            let stop_t: f64 = r.stop[1].parse().expect("stop time is a number");
            assert_eq!(stop_t, t, "system {k}: the stop is the first event");
            let step: f64 = r.stop[2].parse().expect("stop step is a number");
            let dt_years = 20.0 / 365.25;
            assert!(t <= step * dt_years + 1e-12 && t > (step - 1.0) * dt_years - 1e-12);
            let ids: Vec<u64> = r.stop[3..5].iter().filter_map(|c| c.parse().ok()).collect();
            let d: f64 = r.stop[5].parse().expect("stop distance is a number");
            if r.kind == "collision" {
                assert_eq!(ids.len(), 2, "system {k}: {:?}", r.stop);
                // The bodies as the Collisions file records them, at the start of the
                // Bulirsch-Stoer substep that brings them into contact: at least X's radius
                // (0.05 AU), within a substep's approach of it.
                assert!((0.05..0.1).contains(&d), "system {k}: distance {d} AU");
            } else {
                assert_eq!(ids.len(), 1, "system {k}: {:?}", r.stop);
                assert!(d > 0.0, "system {k}: distance {d} AU from the star");
            }
        }
    }
    println!("{unstable_count} of 20 systems unstable: {kinds:?}");
    assert!(unstable_count > 0, "some systems go unstable");
    assert!(unstable_count < 20, "some systems survive");
    // Both ways of leaving (a merger, and the inner truncation) stop their systems.
    assert!(kinds.iter().any(|k| k == "collision"), "{kinds:?}");
    assert!(kinds.iter().any(|k| k == "ejection"), "{kinds:?}");
    let expected = format!("simulations 20 ({unstable_count} stopped early)");
    assert!(
        stdout.contains(&expected),
        "the summary reports the stopped systems (`{expected}`): {stdout}"
    );

    // Control: a small body far inside Jupiter's orbit is stable in every system.
    let stable = ensemble(
        &d,
        "stable",
        20,
        r#"Drawn(name: "Y", m: (1e-9, 1e-8), radius: Some(0.01), a: (1.0, 1.5), e: (0.0, 0.05),
                inc_deg: (0.0, 1.0))"#,
        steps,
        0.5,
    );
    let o = orrery(&["run", stable.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    println!("stable ensemble:\n{stdout}");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout.contains("simulations 20 (0 stopped early)"),
        "{stdout}"
    );
    let rows = read_summary(&d.join("out_stable/summary.csv"), 20);
    for (k, r) in rows.iter().enumerate() {
        assert!(r.survived && r.kind.is_empty(), "system {k} is stable");
        assert_eq!(r.n_final, 2);
        let (jid, ja, je, ji) = r.bodies[0];
        let (yid, ya, ye, yi) = r.bodies[1];
        if k < 3 {
            println!("stable system {k}: Jupiter a {ja} e {je} i {ji}; Y a {ya} e {ye} i {yi}");
        }
        assert_eq!((jid, yid), (0, 1));
        assert!((ja - 5.2029).abs() < 0.05 && je < 0.1 && ji < 3.0, "{k}");
        assert!((0.98..1.52).contains(&ya) && ye < 0.1 && yi < 3.0, "{k}");
    }
}

#[test]
fn multi_list_errors_are_named() {
    let d = scratch("modes-list-error");
    let (_, sims) = three_systems(&d);
    let list = d.join("bad_list.txt");
    std::fs::write(&list, "# a list\nsims/alpha\nsims/nowhere\n").unwrap();
    let o = orrery(&["run", "--multi", list.to_str().unwrap(), "--steps", "10"]);
    let err = stderr(&o);
    println!("{err}");
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&list.display().to_string()),
        "names the list: {err}"
    );
    assert!(err.contains("line 3"), "names the line: {err}");
    assert!(err.contains("nowhere"), "names the directory: {err}");
    // Nothing was run: no outputs in the valid simulation's directory.
    assert!(files_with_prefix(&sims[0].0, "Out").is_empty());
    assert!(files_with_prefix(&sims[0].0, "Energy").is_empty());
}

/// Semi-active small bodies pull on the massive body, also through close encounters and in the
/// opening kick that refreshes candidate pairs: angular momentum stays conserved to round-off
/// and the energy error stays at the hybrid integrator's level.
#[test]
fn semi_active_small_bodies_conserve_angular_momentum_through_encounters() {
    let dir = scratch("semi");
    let text = format!(
        r#"Scenario(name: "s", mode: TestParticles, particle_minimum_mass: 1e-6, semi_active: true,
            time_step_days: 6.0, steps: Some(300), inner_truncation: 0.05,
            bodies: [
                Cartesian(name: "P", m: 1e-4, radius: Some(0.0), pos: (1.0, 0.0, 0.0), vel: (0.0, 1.0, 0.0)),
                Cartesian(name: "S1", m: 1e-6, radius: Some(0.0), pos: (1.03, 0.0, 0.0), vel: (0.0, 0.985, 0.0)),
                Cartesian(name: "S2", m: 1e-6, radius: Some(0.0), pos: (0.97, 0.02, 0.0), vel: (0.0, 1.015, 0.0)),
            ],
            output: (dir: "{}", energy_interval: 10, coordinates_interval: 0, checkpoint_interval: 0))"#,
        dir.join("out").display()
    );
    let path = dir.join("s.ron");
    std::fs::write(&path, text).unwrap();
    let (cfg, bodies) = orrery::config::load(&path, &Default::default()).unwrap();
    let never = std::sync::atomic::AtomicBool::new(false);
    let s = orrery::hybrid::run::run(&cfg, &bodies, false, &never, &mut |_| {}).unwrap();
    println!(
        "semi-active: encounters {}, dE/E {:.3e}, dL/L {:.3e}",
        s.encounters, s.rel_energy_error, s.rel_angular_momentum_error
    );
    assert!(
        s.encounters > 100,
        "the small bodies must stay in encounters"
    );
    assert!(s.rel_angular_momentum_error.abs() < 1e-11);
    assert!(s.rel_energy_error.abs() < 1e-5);
}

#[test]
fn test_particle_run_resumes_bitwise_through_encounters() {
    // Test particles near Jupiter are prechecker candidates in every step, so the checkpoint
    // carries candidate pairs whose pre-drift states must be rebuilt after the restart.
    let d = scratch("modes-tp-resume");
    let disk = r#"Disk((n: 2000, total_mass_earth: 1e-12, a_min: 1.0, a_max: 4.5, e_rayleigh: 0.02,
              i_rayleigh: 0.01, rho: 2.0, seed: 5))"#;
    let (a, b) = (d.join("a"), d.join("b"));
    let mut paths = Vec::new();
    for dir in [&a, &b] {
        std::fs::create_dir_all(dir).unwrap();
        paths.push(scenario(
            dir,
            "tpres",
            "TestParticles",
            300,
            1e-15,
            &[JUPITER, SATURN, disk],
        ));
    }
    let (_, straight) = run_file(&paths[0]);
    assert!(
        straight.candidates > 100 * 300 && straight.encounters > 0,
        "the run must have candidates in every step and encounters: {}",
        straight.report()
    );
    let sb = paths[1].to_str().unwrap();
    for args in [
        vec!["run", sb, "--steps", "150"],
        vec!["run", sb, "--resume"],
    ] {
        let o = orrery(&args);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let last = |dir: &Path| {
        std::fs::read(snapshot_path(&dir.join("out_tpres"), "tpres", 300)).expect("snapshot")
    };
    assert!(
        last(&a) == last(&b),
        "the resumed run differs from the uninterrupted one"
    );
}

/// An ensemble large enough to be stepped as several parts (600 two-body systems; the CPU
/// backend cuts 256 of them per part) with collisions, ejections and stopped systems gives the
/// same summary table, byte for byte, on one and two threads and when interrupted and resumed.
#[test]
fn an_ensemble_of_many_parts_is_the_same_for_any_thread_count_and_through_a_resume() {
    let d = scratch("modes-many-parts");
    let drawn = r#"Drawn(name: "X", m: (1e-5, 1e-4), radius: Some(0.05), a: (5.0, 5.6),
                e: (0.0, 0.05), inc_deg: (0.0, 1.0))"#;
    let mut tables = Vec::new();
    for (tag, threads, split) in [
        ("one", "1", false),
        ("two", "2", false),
        ("split", "2", true),
    ] {
        let sub = d.join(tag);
        std::fs::create_dir_all(&sub).unwrap();
        let path = ensemble(&sub, "many", 600, drawn, 1500, 4.0);
        let p = path.to_str().unwrap();
        let runs = if split {
            vec![
                vec!["run", p, "--threads", threads, "--steps", "700"],
                vec!["run", p, "--threads", threads, "--resume"],
            ]
        } else {
            vec![vec!["run", p, "--threads", threads]]
        };
        let mut stdout = String::new();
        for args in runs {
            let o = orrery(&args);
            assert!(o.status.success(), "{tag}: {}", stderr(&o));
            stdout = String::from_utf8_lossy(&o.stdout).into_owned();
        }
        println!("{tag}:\n{stdout}");
        tables.push(std::fs::read(sub.join("out_many/summary.csv")).expect("summary.csv"));
    }
    let rows = read_summary(&d.join("one/out_many/summary.csv"), 600);
    let unstable = rows.iter().filter(|r| !r.survived).count();
    let kinds: Vec<&str> = rows.iter().map(|r| r.kind.as_str()).collect();
    println!("{unstable} of 600 unstable");
    // Events in every part, of both kinds.
    for part in [0..256, 256..512, 512..600] {
        assert!(rows[part.clone()].iter().any(|r| !r.survived), "{part:?}");
    }
    assert!(kinds.contains(&"collision") && kinds.contains(&"ejection"));
    assert!(tables[0] == tables[1], "one and two threads differ");
    assert!(tables[0] == tables[2], "the resumed run differs");
}
