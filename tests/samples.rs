//! Sampled time series (`samples: (every: ..., what: [...])`): `Samples<name>.npz` holds each
//! system's state at its sample steps (the last sample, at the end step here, is the state
//! `summary.csv` reports, the
//! closest pair is the distance between the sampled orbits' positions, the first planet's Jacobi
//! orbit is its heliocentric one), and the file is the same bytes for any thread count and
//! across a resume; settings that cannot run are refused by name.

mod common;

use common::*;
use orrery::physics::elements::cartesian_from_elements;
use std::collections::HashMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};

const DT_DAYS: f64 = 60.0;

/// An ensemble file `dir/s.ron` of 6 Sun-Jupiter-Saturn systems on the map with MEGNO, 600
/// steps, sampled with `samples`.
fn ensemble(dir: &Path, samples: &str) -> PathBuf {
    let text = format!(
        r#"Ensemble(
    systems: 6,
    seed: 4,
    hypothetical: [
        Drawn(name: "J", m: (9.5e-4, 9.6e-4), a: (5.20, 5.21), e: (0.04, 0.05), inc_deg: (0.0, 1.0)),
        Drawn(name: "S", m: (2.8e-4, 2.9e-4), a: (6.5, 9.6), e: (0.0, 0.12), inc_deg: (0.0, 1.0)),
    ],
    scenario: Scenario(
        name: "s",
        mode: Multi,
        time_step_days: {DT_DAYS},
        steps: Some(600),
        integrator: WisdomHolman(correctors: 0),
        chaos: (megno: true, seed: 0),
        samples: {samples},
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
    let path = dir.join("s.ron");
    std::fs::write(&path, text).unwrap();
    path
}

const ALL: &str =
    "(every: Steps(50), what: [elements, jacobi_elements, megno, min_distance, energy])";

fn ok(args: &[&str]) {
    let o = orrery(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
}

/// The arrays of an `.npz` file (integers as floats) with their shapes, read with `zip` and
/// `npyz` as numpy reads them.
fn npz(path: &Path) -> HashMap<String, (Vec<u64>, Vec<f64>)> {
    let file = std::fs::File::open(path).unwrap();
    let mut zip = zip::ZipArchive::new(file).unwrap();
    let mut out = HashMap::new();
    for k in 0..zip.len() {
        let mut entry = zip.by_index(k).unwrap();
        let name = entry.name().unwrap().trim_end_matches(".npy").to_string();
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).unwrap();
        let npy = npyz::NpyFile::new(&bytes[..]).unwrap();
        let shape = npy.shape().to_vec();
        let values = match npy.dtype().descr().as_str() {
            "'<i8'" => npy
                .into_vec::<i64>()
                .unwrap()
                .into_iter()
                .map(|v| v as f64)
                .collect(),
            _ => npy.into_vec::<f64>().unwrap(),
        };
        out.insert(name, (shape, values));
    }
    out
}

#[test]
fn samples_hold_each_systems_state_at_its_sample_steps() {
    let d = scratch("samples-state");
    let p = ensemble(&d, ALL);
    ok(&["run", p.to_str().unwrap()]);
    let a = npz(&d.join("out/Sampless.npz"));
    let (n_sys, n, slots) = (6usize, 13usize, 2usize);
    assert_eq!(a["a"].0, [n_sys as u64, n as u64, slots as u64]);
    assert_eq!(a["megno"].0, [n_sys as u64, n as u64]);
    assert_eq!(a["system"].1, [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    let at = |name: &str, s: usize, k: usize, b: usize| a[name].1[(s * n + k) * slots + b];
    let sys = |name: &str, s: usize, k: usize| a[name].1[s * n + k];
    // The summary's last a, e and MEGNO are the last sample's, to the bit.
    let table = std::fs::read_to_string(d.join("out/summary.csv")).unwrap();
    let mut lines = table.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    for (s, line) in lines.enumerate() {
        let cells: Vec<&str> = line.split(',').collect();
        let num = |name: &str| cells[col(name)].parse::<f64>().unwrap();
        assert_eq!(at("a", s, n - 1, 1), num("a1"), "system {s}");
        assert_eq!(at("e", s, n - 1, 0), num("e0"), "system {s}");
        assert_eq!(sys("megno", s, n - 1), num("megno"), "system {s}");
    }
    for s in 0..n_sys {
        for k in 0..n {
            assert_eq!(sys("step", s, k), (50 * k) as f64);
            let t = (50 * k) as f64 * DT_DAYS / 365.25;
            assert!((sys("time", s, k) - t).abs() <= 1e-12 * t.max(1.0));
            // The first planet's Jacobi orbit is its heliocentric one.
            let rel = |x: f64, y: f64| (x - y).abs() / y.abs().max(1e-300);
            assert!(rel(at("jacobi_a", s, k, 0), at("a", s, k, 0)) < 1e-12);
            // The closest pair: the distance between the positions the sampled elements give.
            let pos = |b: usize| {
                let m0 = 1.0 + [9.55e-4, 2.85e-4][b];
                let el = |name: &str| at(name, s, k, b);
                cartesian_from_elements(
                    m0,
                    el("a"),
                    el("e"),
                    el("inc"),
                    el("node"),
                    el("peri"),
                    el("mean_anomaly"),
                )
                .unwrap()
                .0
            };
            let (p, q) = (pos(0), pos(1));
            let dist =
                ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt();
            assert!(
                rel(sys("min_distance", s, k), dist) < 1e-6,
                "system {s} sample {k}"
            );
            // The derived elements.
            let two_pi = std::f64::consts::TAU;
            let lambda = (at("pomega", s, k, 1) + at("mean_anomaly", s, k, 1)).rem_euclid(two_pi);
            assert!((at("mean_longitude", s, k, 1) - lambda).abs() < 1e-12);
            let period = at("period", s, k, 0);
            assert!(
                (period / (at("a", s, k, 0).powf(1.5)) - 1.0).abs() < 2e-3,
                "{period}"
            );
            assert!(sys("energy_error", s, k).abs() < 1e-5);
        }
        assert_eq!(sys("megno", s, 0), 0.0, "MEGNO starts at 0");
    }
}

#[test]
fn samples_are_the_same_bytes_for_threads_and_resume() {
    let d = scratch("samples-bits");
    let one = d.join("one");
    let p = ensemble(&one, ALL);
    ok(&["run", p.to_str().unwrap(), "--threads", "1"]);
    let want = std::fs::read(one.join("out/Sampless.npz")).unwrap();
    let two = d.join("two");
    let p = ensemble(&two, ALL);
    ok(&["run", p.to_str().unwrap(), "--threads", "2"]);
    assert!(
        std::fs::read(two.join("out/Sampless.npz")).unwrap() == want,
        "two threads differ"
    );
    let resumed = d.join("resumed");
    let p = ensemble(&resumed, ALL);
    ok(&["run", p.to_str().unwrap(), "--steps", "275"]);
    ok(&["run", p.to_str().unwrap(), "--resume"]);
    assert!(
        std::fs::read(resumed.join("out/Sampless.npz")).unwrap() == want,
        "the resumed run differs"
    );
}

#[test]
fn sample_settings_that_cannot_run_are_refused_by_name() {
    let d = scratch("samples-refused");
    for (samples, expected) in [
        ("(every: Years(0.0), what: [elements])", "samples.every"),
        (
            "(every: Steps(10), what: [elements, elements])",
            "samples.what",
        ),
    ] {
        let p = ensemble(&d, samples);
        let o = orrery(&["run", p.to_str().unwrap(), "--overwrite"]);
        assert_eq!(o.status.code(), Some(2), "{samples}");
        assert!(stderr(&o).contains(expected), "{samples}: {}", stderr(&o));
    }
    let text = std::fs::read_to_string(ensemble(&d, "(every: Steps(10), what: [megno])")).unwrap();
    let p = d.join("no-chaos.ron");
    std::fs::write(&p, text.replace("chaos: (megno: true, seed: 0),", "")).unwrap();
    let o = orrery(&["run", p.to_str().unwrap(), "--overwrite"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("samples.what") && stderr(&o).contains("chaos"),
        "{}",
        stderr(&o)
    );
    // Samples that could not be held in memory by the last step (10^15 steps of 6 systems,
    // every step): refused before the run, not killed for their memory at the end.
    let text = std::fs::read_to_string(ensemble(&d, ALL)).unwrap();
    let p = d.join("too-many.ron");
    let endless = text.replace("steps: Some(600),", "steps: Some(1000000000000000),");
    std::fs::write(&p, endless.replace("Steps(50)", "Steps(1)")).unwrap();
    let o = orrery(&["run", p.to_str().unwrap(), "--overwrite"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("samples.every") && stderr(&o).contains("GiB"),
        "{}",
        stderr(&o)
    );
}
