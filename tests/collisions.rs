//! The Collisions file holds true heliocentric states at the recorded time (issue 12, section
//! 1): checked against the exact circular orbit of a planet that a test particle hits. GENGA's
//! collision keys (issue 47): `Collision Precision` puts the recorded pair in its band,
//! `Stop Minimum Mass` lets lighter collisions pass, and a collision stop writes every body at
//! the collision's time to `OutCollision.dat`.

mod common;
use common::*;

#[test]
fn collision_records_hold_heliocentric_states_at_the_recorded_time() {
    let d = scratch("collision-states");
    // A planet on a circular orbit of 1 AU (mu = 1 + m in code units) and a test particle just
    // ahead of it, slower, so the planet runs into it within a few steps. The test particle does
    // not pull, so the planet's heliocentric orbit is exactly the two-body circle.
    let m: f64 = 1e-3;
    let v = (1.0 + m).sqrt();
    let tp = "mode: TestParticles, particle_minimum_mass: 1e-20,";
    let o = pileup(&d, (m, "m: 0.0, radius: Some(1e-7)"), tp);
    assert!(o.status.success(), "{}", stderr(&o));
    let cols = only_collision(&d);
    assert_eq!(cols.len(), 1 + 2 * 12);
    let t_code = cols[0] * orrery::units::DAYS_PER_YEAR * orrery::units::K_GAUSS;
    // Step 0 begins at t = 0; the merger happens inside a step, not on its boundary.
    let h = 6.0 * orrery::units::K_GAUSS;
    assert!((t_code / h).fract() > 1e-6, "t = {t_code}");
    let planet = if cols[2] > 0.0 {
        &cols[1..13]
    } else {
        &cols[13..25]
    };
    let (x, y, z) = (planet[3], planet[4], planet[5]);
    let (vx, vy) = (planet[6], planet[7]);
    let w = v; // angular speed of the circle of radius 1
    let exact = [(w * t_code).cos(), (w * t_code).sin()];
    let err = ((x - exact[0]).powi(2) + (y - exact[1]).powi(2) + z * z).sqrt();
    // The same orbit's error at a step boundary (the final snapshot): the integrator's own
    // splitting error, which a record inside a step cannot beat.
    let snap = std::fs::read_to_string(d.join("out/Outc_000000000040.dat")).unwrap();
    let row: Vec<f64> = snap
        .lines()
        .next()
        .unwrap()
        .split_whitespace()
        .map(|x| x.parse().unwrap())
        .collect();
    let tf = 40.0 * h;
    let snap_err = ((row[4] - (w * tf).cos()).powi(2) + (row[5] - (w * tf).sin()).powi(2)).sqrt();
    println!("record off by {err:e} AU, final snapshot off by {snap_err:e} AU");
    // The Sun-kick offset this guards against is up to m v h/2 = 5e-5 AU (3.1e-5 here before the
    // fix); the splitting error of the two-body orbit is about 100 times smaller.
    assert!(
        err < 2e-6,
        "planet position off the exact orbit by {err:e} AU"
    );
    let verr =
        ((vx + v * (w * t_code).sin()).powi(2) + (vy - v * (w * t_code).cos()).powi(2)).sqrt();
    println!("record velocity off by {verr:e}");
    assert!(
        verr < 2e-6,
        "planet velocity off the exact orbit by {verr:e}"
    );
}

/// A planet of mass `m` (radius 0.004 AU) running into a body (`light`: its mass and radius,
/// e.g. `m: 1e-8, radius: Some(1e-4)`) just ahead of it on a slower orbit, in a 40-step run
/// with the scenario fields EXTRA.
fn pileup(d: &std::path::Path, (m, light): (f64, &str), extra: &str) -> std::process::Output {
    let v = (1.0 + m).sqrt();
    let text = format!(
        r#"Scenario(
    name: "c",
    time_step_days: 6.0,
    steps: Some(40),
    n1: 3.0,
    n2: 0.4,
    {extra}
    bodies: [
        Cartesian(name: "planet", m: {m:e}, radius: Some(0.004), pos: (1.0, 0.0, 0.0), vel: (0.0, {v:e}, 0.0)),
        Cartesian(name: "light", {light}, pos: (1.0, 0.03, 0.0), vel: (0.0, {w:e}, 0.0)),
    ],
    output: (dir: "{out}", energy_interval: 5, coordinates_interval: -1),
)
"#,
        w = 0.8 * v,
        out = d.join("out").display()
    );
    let sc = d.join("c.ron");
    std::fs::write(&sc, text).unwrap();
    orrery(&["run", sc.to_str().unwrap()])
}

/// The planet and the light body of the collision tests: 1e-5 and 1e-8 Msun.
const LIGHT: (f64, &str) = (1e-5, "m: 1e-8, radius: Some(1e-4)");

/// The [`pileup`] with the scenario fields `extra` refused with exit code 2 and a message
/// naming `field`.
fn refused_pileup(dir: &str, extra: &str, field: &str) {
    let o = pileup(&scratch(dir), LIGHT, extra);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains(field), "{field}: {}", stderr(&o));
}

/// The numbers of each line of the run's output file `name`.
fn rows(d: &std::path::Path, name: &str) -> Vec<Vec<f64>> {
    let text = std::fs::read_to_string(d.join("out").join(name)).unwrap();
    let row = |l: &str| l.split_whitespace().map(|x| x.parse().unwrap()).collect();
    text.lines().map(row).collect()
}

/// The columns of the only line of the run's Collisions file.
fn only_collision(d: &std::path::Path) -> Vec<f64> {
    let lines = rows(d, "Collisionsc.dat");
    assert_eq!(lines.len(), 1, "expected one merger: {lines:?}");
    lines[0].clone()
}

#[test]
fn collision_precision_puts_the_recorded_pair_in_its_band() {
    let rsum = 0.004 + 1e-4;
    let separation = |c: &[f64]| {
        let d: Vec<f64> = (0..3).map(|k| c[4 + k] - c[16 + k]).collect();
        (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
    };
    // By default the record is the last substep start before contact: apart by more than R.
    let d = scratch("collision-precision-none");
    let o = pileup(&d, LIGHT, "");
    assert!(o.status.success(), "{}", stderr(&o));
    let plain = only_collision(&d);
    assert!(separation(&plain) > rsum, "{plain:?}");
    for (p, lo, hi) in [
        (1e-6, rsum * (1.0 - 1e-6), rsum),
        (-1e-6, rsum, rsum * (1.0 + 1e-6)),
    ] {
        let d = scratch(&format!("collision-precision-{p:e}"));
        let o = pileup(&d, LIGHT, &format!("collisions: (precision: Some({p:e})),"));
        assert!(o.status.success(), "{}", stderr(&o));
        let c = only_collision(&d);
        let r = separation(&c);
        assert!(
            lo <= r && r <= hi,
            "p {p}: r {r:e} outside [{lo:e}, {hi:e}]"
        );
        // At the contact, later than the last substep start before it.
        assert!(c[0] > plain[0], "{} {}", c[0], plain[0]);
        println!(
            "p {p:e}: r / R - 1 = {:e} at t = {} yr",
            r / rsum - 1.0,
            c[0]
        );
    }
    let bad = "collisions: (precision: Some(0.0)),";
    refused_pileup("collision-precision-bad", bad, "collisions.precision");
}

#[test]
fn stop_minimum_mass_lets_light_collisions_pass() {
    let snapshot = |d: &std::path::Path, step: u64| d.join(format!("out/Outc_{step:012}.dat"));
    // Both bodies must be as heavy as the minimum: the light one (1e-8) is not as heavy as 1e-7.
    let d = scratch("stop-minimum-mass-pass");
    let stop = "stop: (collision: true, collision_minimum_mass: Some(1e-7)),";
    let o = pileup(&d, LIGHT, stop);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(only_collision(&d).len(), 25);
    assert!(snapshot(&d, 40).exists(), "the run went on to its end");
    assert!(!d.join("out/OutCollision.dat").exists());
    // At 1e-9 it is: the run stops at the merger's step, whose snapshot is the last.
    let d = scratch("stop-minimum-mass-stop");
    let stop = "stop: (collision: true, collision_minimum_mass: Some(1e-9)),";
    let o = pileup(&d, LIGHT, stop);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = only_collision(&d)[0];
    let step = (t * orrery::units::DAYS_PER_YEAR / 6.0).ceil() as u64;
    assert!(step < 40, "merger at step {step}");
    assert!(snapshot(&d, step).exists(), "{}", stderr(&o));
    assert!(!snapshot(&d, 40).exists());
    let bad = "stop: (collision: true, collision_minimum_mass: Some(-1.0)),";
    refused_pileup("stop-minimum-mass-bad", bad, "stop.collision_minimum_mass");
}

#[test]
fn a_collision_stop_writes_every_body_at_the_collision_time() {
    let d = scratch("out-collision");
    let extra = "stop: (collision: true), collisions: (precision: Some(1e-6)),";
    let o = pileup(&d, LIGHT, extra);
    assert!(o.status.success(), "{}", stderr(&o));
    let record = only_collision(&d);
    let rows = rows(&d, "OutCollision.dat");
    // Both bodies, unmerged, at the record's time, in the snapshots' 13 columns.
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(rows.iter().all(|r| r.len() == 13));
    let years = orrery::units::DAYS_PER_YEAR;
    for r in &rows {
        assert!(
            (r[0] - record[0]).abs() * years < 1e-9,
            "{} {}",
            r[0],
            record[0]
        );
    }
    // Where the Collisions line has them: the step redone up to the contact is a shorter
    // step of the same integrator, so they agree to its splitting error (2e-6 AU here, as the
    // planet's error on its exact circle after 40 steps in the test above; a step moves the
    // bodies 0.1 AU).
    let mut worst: f64 = 0.0;
    for r in &rows {
        let b = if r[1] == record[1] {
            &record[1..13]
        } else {
            &record[13..25]
        };
        assert_eq!(r[1], b[0]);
        let d: f64 = (0..3)
            .map(|k| (r[4 + k] - b[3 + k]).powi(2))
            .sum::<f64>()
            .sqrt();
        worst = worst.max(d);
    }
    let sep: f64 = (0..3)
        .map(|k| (rows[0][4 + k] - rows[1][4 + k]).powi(2))
        .sum::<f64>()
        .sqrt();
    let rsum = 0.004 + 1e-4;
    println!(
        "OutCollision: bodies {worst:e} AU from the record, separation / R - 1 = {:e}",
        sep / rsum - 1.0
    );
    assert!(worst < 5e-6, "{worst:e}");
    assert!((sep / rsum - 1.0).abs() < 2e-3, "{sep:e}");
}

#[test]
fn collision_time_shift_backtraces_the_pair_to_f_radii() {
    let rsum = 0.004 + 1e-4;
    let d = scratch("time-shift");
    let extra = "collisions: (precision: Some(1e-6), time_shift: Some(3.0)),";
    let o = pileup(&d, LIGHT, extra);
    assert!(o.status.success(), "{}", stderr(&o));
    let real = only_collision(&d);
    let log = std::fs::read_to_string(d.join("out/CollisionsTShiftc.dat")).unwrap();
    let lines = rows(&d, "CollisionsTShiftc.dat");
    assert_eq!(lines.len(), 1, "{log}");
    let shifted = &lines[0];
    assert_eq!(shifted.len(), 25);
    let gap = |c: &[f64]| {
        (0..3)
            .map(|k| (c[4 + k] - c[16 + k]).powi(2))
            .sum::<f64>()
            .sqrt()
    };
    // Three times the radii apart, within the precision, before the collision; the radii
    // columns are the bodies' own, and the real collision is the run's as without the option.
    let r = gap(shifted);
    assert!(r <= 3.0 * rsum && r >= 3.0 * rsum * (1.0 - 1e-6), "{r:e}");
    assert!(shifted[0] < real[0]);
    assert_eq!((shifted[3], shifted[15]), (real[3], real[15]));
    let plain = scratch("time-shift-off");
    let o = pileup(&plain, LIGHT, "collisions: (precision: Some(1e-6)),");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(only_collision(&plain), real);
    let snap = |d: &std::path::Path| std::fs::read(d.join("out/Outc_000000000040.dat")).unwrap();
    assert_eq!(snap(&d), snap(&plain));
    // The time between: the pair closes 2 (R_i + R_j) at its relative speed.
    let dv = (0..3)
        .map(|k| (real[7 + k] - real[19 + k]).powi(2))
        .sum::<f64>()
        .sqrt();
    let dt_code = (real[0] - shifted[0]) * orrery::units::DAYS_PER_YEAR * orrery::units::K_GAUSS;
    let expected = 2.0 * rsum / dv;
    println!("backtrace {dt_code:e} before the contact, straight-line estimate {expected:e}");
    assert!(
        (dt_code / expected - 1.0).abs() < 0.2,
        "{dt_code:e} {expected:e}"
    );
    // With the collision stop, OutCollision.dat holds the bodies at the backtraced time.
    let d = scratch("time-shift-stop");
    let o = pileup(&d, LIGHT, &format!("stop: (collision: true), {extra}"));
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = rows(&d, "OutCollision.dat");
    assert_eq!(rows.len(), 2);
    assert!((rows[0][0] - shifted[0]).abs() * orrery::units::DAYS_PER_YEAR < 1e-9);
    let sep = (0..3)
        .map(|k| (rows[0][4 + k] - rows[1][4 + k]).powi(2))
        .sum::<f64>()
        .sqrt();
    assert!((sep / (3.0 * rsum) - 1.0).abs() < 2e-3, "{sep:e}");
    // A run stopped after the collision and resumed keeps the backtraced line, once.
    let resumed = scratch("time-shift-resumed");
    let o = pileup(&resumed, LIGHT, extra);
    assert!(o.status.success(), "{}", stderr(&o));
    let sc = resumed.join("c.ron");
    let o = orrery(&["run", sc.to_str().unwrap(), "--overwrite", "--steps", "10"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = orrery(&["run", sc.to_str().unwrap(), "--resume"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let again = std::fs::read_to_string(resumed.join("out/CollisionsTShiftc.dat")).unwrap();
    assert_eq!(again, log);
    // A factor the pair never crossed within two steps is refused by name.
    let far = "collisions: (time_shift: Some(1000.0)),";
    refused_pileup("time-shift-far", far, "collisions.time_shift");
}

#[test]
fn a_backtrace_leaves_the_run_and_its_books_as_they_were() {
    // Poynting-Robertson drag does work every step, booked into U at the energy outputs: the
    // redone steps must neither add theirs nor lose the run's.
    let drag = "forces: (poynting_robertson: true),";
    let plain = scratch("shift-books-plain");
    let o = pileup(&plain, LIGHT, drag);
    assert!(o.status.success(), "{}", stderr(&o));
    let shifted = scratch("shift-books-shifted");
    let o = pileup(
        &shifted,
        LIGHT,
        &format!("{drag} collisions: (time_shift: Some(2.0)),"),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(rows(&shifted, "CollisionsTShiftc.dat").len(), 1);
    let snap = |d: &std::path::Path| std::fs::read(d.join("out/Outc_000000000040.dat")).unwrap();
    assert_eq!(snap(&plain), snap(&shifted), "the run's bodies");
    let (a, b) = (rows(&plain, "Energyc.dat"), rows(&shifted, "Energyc.dat"));
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        // t N V T LI U ETotal ...: U is booked at other times, so to its rounding only.
        for k in [0, 1, 2, 3, 6] {
            assert_eq!(x[k], y[k], "column {k}: {x:?} {y:?}");
        }
        assert!(
            (x[5] - y[5]).abs() <= 1e-12 * x[5].abs().max(1e-30),
            "U {x:?} {y:?}"
        );
    }
}
