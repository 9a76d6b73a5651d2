//! Helpers shared by the integration tests.
#![allow(dead_code)]

#[cfg(any(feature = "opencl", feature = "cuda"))]
pub mod device;
pub mod genga_sims;
pub mod kit;
pub mod runs;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Jupiter, Saturn and Uranus on their J2000 orbits as scenario `Kepler` entries (each two
/// lines), for the Wisdom-Holman runs' scenarios.
pub const GIANTS: &str = r#"
        Kepler(name: "Jupiter", m: 9.547919e-4, a: 5.20288700, e: 0.04838624, inc_deg: 1.30439695,
               node_deg: 100.47390909, peri_deg: 274.25457074, mean_anomaly_deg: 19.66796068),
        Kepler(name: "Saturn", m: 2.858860e-4, a: 9.53667594, e: 0.05386179, inc_deg: 2.48599187,
               node_deg: 113.66242448, peri_deg: 338.93645383, mean_anomaly_deg: 317.35536592),
        Kepler(name: "Uranus", m: 4.36624e-5, a: 19.18916464, e: 0.04725744, inc_deg: 0.77263783,
               node_deg: 74.01692503, peri_deg: 96.93735127, mean_anomaly_deg: 142.2386),"#;

/// A fresh, empty scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("orrery-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// The folder that holds `inputs/`: `ORRERY_SOURCE_DIR` where set (a test binary run from a
/// device pack, away from the checkout it was built in), otherwise the crate's own folder.
pub fn source_dir() -> PathBuf {
    match std::env::var_os("ORRERY_SOURCE_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")),
    }
}

/// The crate's `inputs/` folder (under [`source_dir`]).
pub fn inputs() -> PathBuf {
    source_dir().join("inputs")
}

/// The `orrery` binary under test: `ORRERY_BIN` where set (a device pack), otherwise the one
/// cargo built beside this test.
pub fn orrery_bin() -> PathBuf {
    match std::env::var_os("ORRERY_BIN") {
        Some(bin) => PathBuf::from(bin),
        None => PathBuf::from(env!("CARGO_BIN_EXE_orrery")),
    }
}

/// Run the `orrery` binary with `args`.
pub fn orrery(args: &[&str]) -> Output {
    Command::new(orrery_bin())
        .args(args)
        .output()
        .expect("run orrery")
}

/// Standard error of a finished command as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Files in `dir` whose names start with `prefix`.
pub fn files_with_prefix(dir: &Path, prefix: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|f| f.starts_with(prefix))
        .collect();
    v.sort();
    v
}

/// A small scenario (RON) of `n` widely spaced low-mass bodies that has no close encounters,
/// written to `dir/name.ron`; returns its path.
pub fn quiet_disk(dir: &Path, name: &str, n: usize, steps: u64, extra_output: &str) -> PathBuf {
    let text = format!(
        r#"Scenario(
    name: "{name}",
    time_step_days: 6.0,
    steps: Some({steps}),
    n1: 3.0,
    n2: 0.0,
    bodies: [
        Disk((n: {n}, total_mass_earth: 0.05, a_min: 0.8, a_max: 3.0, e_rayleigh: 0.02,
              i_rayleigh: 0.01, rho: 2.0, seed: 11)),
        Kepler(name: "Jupiter", m: 9.547919e-4, radius: None, a: 5.2, e: 0.048, inc_deg: 1.3,
               node_deg: 100.5, peri_deg: 274.3, mean_anomaly_deg: 19.7),
    ],
    output: (dir: "{out}", energy_interval: 10, coordinates_interval: 50{extra_output}),
)
"#,
        out = dir.join("out").display()
    );
    let path = dir.join(format!("{name}.ron"));
    std::fs::write(&path, text).expect("write scenario");
    path
}

/// A number that follows `label` in the run summary printed on standard output.
pub fn summary_count(stdout: &str, label: &str) -> u64 {
    let at = stdout
        .find(label)
        .unwrap_or_else(|| panic!("no `{label}` in the summary:\n{stdout}"));
    stdout[at + label.len()..]
        .split(|c: char| !c.is_ascii_digit())
        .find(|t| !t.is_empty())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no count after `{label}`:\n{stdout}"))
}

/// Run orrery, expect exit code 2 with every fragment in the message and no run output.
pub fn refused(dir: &Path, args: &[&str], expected: &[&str]) -> String {
    let o = orrery(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "args {args:?}: {err}");
    for e in expected {
        assert!(err.contains(e), "message for {args:?} lacks `{e}`: {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
    for prefix in ["Out", "Energy", "Checkpoint"] {
        assert!(
            files_with_prefix(&dir.join("out"), prefix).is_empty(),
            "{prefix} files left for {args:?}"
        );
    }
    err
}

/// The ERelativ column (last) of an energy file, one value per line.
pub fn relative_energy_errors(path: &std::path::Path) -> Vec<f64> {
    std::fs::read_to_string(path)
        .expect("energy file")
        .lines()
        .map(|l| {
            l.split_whitespace()
                .last()
                .unwrap()
                .parse::<f64>()
                .unwrap()
                .abs()
        })
        .collect()
}
