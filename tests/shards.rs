//! Sharded ensembles and lists (issue 15): `--shard K/N` runs, a shard preempted by SIGTERM and
//! resumed with `--resume auto`, `orrery merge` giving byte for byte the unsharded run's
//! `summary.csv` (and for lists, the same per-simulation files), and merge refusing missing,
//! unfinished and foreign shards by name.
#![cfg(unix)]

mod common;
use common::genga_sims::*;
use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `inputs/ensemble_example.ron` with `systems` systems over `years`, output in `out`.
fn ensemble(dir: &Path, file: &str, out: &Path, systems: usize, years: f64) -> PathBuf {
    let text = std::fs::read_to_string(inputs().join("ensemble_example.ron"))
        .unwrap()
        .replace("systems: 200,", &format!("systems: {systems},"))
        .replace(
            "end_time_years: Some(2000.0)",
            &format!("end_time_years: Some({years})"),
        )
        .replace("out/ensemble_example", out.to_str().unwrap())
        .replace(
            "mode: Multi,",
            "mode: Multi, samples: (every: Years(100.0), what: [elements, min_distance, energy]),",
        );
    let path = dir.join(file);
    std::fs::write(&path, text).unwrap();
    path
}

fn ok(args: &[&str]) -> std::process::Output {
    let o = orrery(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    o
}

/// Run `args`, send SIGTERM once the shard folder `folder` has its record, and return the exit
/// code (143 when the signal stopped it, 0 when it finished first).
fn preempted(args: &[&str], folder: &Path) -> i32 {
    let mut child = Command::new(env!("CARGO_BIN_EXE_orrery"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn orrery");
    let start = Instant::now();
    while !folder.join("shard.ron").exists() {
        assert!(start.elapsed() < Duration::from_secs(60), "no shard record");
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(50));
    // SAFETY: kill with the id of a child of this process.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    child.wait().unwrap().code().unwrap_or(-1)
}

#[test]
fn a_sharded_ensemble_merges_into_the_unsharded_table() {
    let d = scratch("shards-ensemble");
    let (whole_out, shard_out) = (d.join("whole"), d.join("sharded"));
    let whole = ensemble(&d, "whole.ron", &whole_out, 13, 3000.0);
    let sharded = ensemble(&d, "sharded.ron", &shard_out, 13, 3000.0);
    let sharded = sharded.to_str().unwrap();
    ok(&["run", whole.to_str().unwrap()]);
    // Shard 1 is preempted (SIGTERM, as Slurm sends before the time limit) and requeued.
    let code = preempted(
        &["run", sharded, "--shard", "1/3"],
        &shard_out.join("shard-1-of-3"),
    );
    println!("shard 1 exited with {code} after SIGTERM");
    assert!(code == 143 || code == 0, "exit code {code}");
    for k in ["0/3", "2/3", "1/3"] {
        ok(&["run", sharded, "--shard", k, "--resume", "auto"]);
    }
    let o = ok(&["merge", shard_out.to_str().unwrap()]);
    let report = String::from_utf8_lossy(&o.stdout).into_owned();
    println!("{report}");
    assert!(report.contains("merged 3 shards"), "{report}");
    let want = std::fs::read(whole_out.join("summary.csv")).unwrap();
    let got = std::fs::read(shard_out.join("summary.csv")).unwrap();
    assert!(want.len() > 13 * 100, "a table of 13 systems");
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&want),
        "the merged table is the unsharded run's, byte for byte"
    );
    let samples = |dir: &Path| std::fs::read(dir.join("Samplesensemble_example.npz")).unwrap();
    assert!(
        samples(&shard_out) == samples(&whole_out),
        "the merged samples are the unsharded run's, byte for byte"
    );
    assert!(report.contains("samples "), "{report}");
}

#[test]
fn merge_refuses_missing_unfinished_and_foreign_shards_by_name() {
    let d = scratch("shards-refusals");
    let out = d.join("out");
    let e = ensemble(&d, "e.ron", &out, 7, 20000.0);
    let e = e.to_str().unwrap();
    let merge = |what: &str| {
        let o = orrery(&["merge", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{what}: {}", stderr(&o));
        stderr(&o)
    };
    ok(&["run", e, "--shard", "0/3"]);
    ok(&["run", e, "--shard", "2/3"]);
    let msg = merge("missing");
    assert!(msg.contains("missing shard 1 of 3"), "{msg}");
    // Shard 1 preempted: unfinished until resumed.
    let folder = out.join("shard-1-of-3");
    let code = preempted(&["run", e, "--shard", "1/3"], &folder);
    assert_eq!(code, 143, "SIGTERM stops the shard (it runs for seconds)");
    let msg = merge("unfinished");
    assert!(msg.contains("unfinished shard 1"), "{msg}");
    ok(&["run", e, "--shard", "1/3", "--resume", "auto"]);
    ok(&["merge", out.to_str().unwrap()]);
    // A shard table of another version's columns (before the stop columns) is refused.
    let table = folder.join("summary.csv");
    let kept = std::fs::read_to_string(&table).unwrap();
    let fixed = "system,seed,survived,first_event_time_yr,first_event,n_final";
    let (head, rows) = kept.split_once('\n').unwrap();
    let old_head = format!("{fixed}{}", &head[head.find(",id0").unwrap()..]);
    std::fs::write(&table, format!("{old_head}\n{rows}")).unwrap();
    let msg = merge("old columns");
    assert!(
        msg.contains("other columns") && msg.contains("shard-1-of-3"),
        "{msg}"
    );
    std::fs::write(&table, kept).unwrap();
    ok(&["merge", out.to_str().unwrap()]);
    // A shard run to another end step.
    std::fs::remove_dir_all(&folder).unwrap();
    ok(&["run", e, "--shard", "1/3", "--steps", "200"]);
    let msg = merge("end step");
    assert!(msg.contains("different end step"), "{msg}");
    assert!(msg.contains("shard-1-of-3"), "{msg}");
    // A shard of another ensemble (another seed), and of a run into another number of shards.
    std::fs::remove_dir_all(&folder).unwrap();
    let other = std::fs::read_to_string(e)
        .unwrap()
        .replace("seed: 1000,", "seed: 7,");
    let other_path = d.join("other.ron");
    std::fs::write(&other_path, other).unwrap();
    ok(&["run", other_path.to_str().unwrap(), "--shard", "1/3"]);
    let msg = merge("foreign");
    assert!(msg.contains("different configuration"), "{msg}");
    assert!(msg.contains("shard-1-of-3"), "{msg}");
    std::fs::remove_dir_all(&folder).unwrap();
    ok(&["run", e, "--shard", "1/4", "--steps", "10"]);
    let msg = merge("other count");
    assert!(msg.contains("shard-1-of-4"), "{msg}");
    // A changed ensemble resubmitted into the same folder does not continue the old shard.
    let changed = d.join("changed.ron");
    std::fs::write(
        &changed,
        std::fs::read_to_string(e)
            .unwrap()
            .replace("seed: 1000,", "seed: 8,"),
    )
    .unwrap();
    let o = orrery(&[
        "run",
        changed.to_str().unwrap(),
        "--shard",
        "0/3",
        "--resume",
        "auto",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("another configuration"),
        "{}",
        stderr(&o)
    );
    // An empty shard, a bad value and --shard on a single simulation are input errors.
    let o = orrery(&["run", e, "--shard", "7/8"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("holds no system"), "{}", stderr(&o));
    let o = orrery(&["run", e, "--shard", "3/3"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let single = inputs().join("outer_solar_system.ron");
    let o = orrery(&["run", single.to_str().unwrap(), "--shard", "0/2"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--shard"), "{}", stderr(&o));
}

/// The bytes of every file in `dir` but the info file (whose summary holds wall times).
fn outputs(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with("info"))
        .map(|n| {
            let bytes = std::fs::read(dir.join(&n)).unwrap();
            (n, bytes)
        })
        .collect();
    files.sort();
    files
}

#[test]
fn a_sharded_list_writes_the_unsharded_files_of_every_simulation() {
    let d = scratch("shards-list");
    let (a, b) = (d.join("a"), d.join("b"));
    let (list_a, sims_a) = three_systems(&a);
    let (list_b, sims_b) = three_systems(&b);
    ok(&["run", "--multi", list_a.to_str().unwrap(), "--steps", "300"]);
    for k in ["0/2", "1/2"] {
        let l = list_b.to_str().unwrap();
        ok(&["run", "--multi", l, "--steps", "300", "--shard", k]);
    }
    let o = ok(&["merge", b.to_str().unwrap()]);
    println!("{}", String::from_utf8_lossy(&o.stdout));
    for ((da, name), (db, _)) in sims_a.iter().zip(&sims_b) {
        let (fa, fb) = (outputs(da), outputs(db));
        assert!(fa.len() > 3, "{name}: {fa:?}", fa = fa.len());
        assert_eq!(
            fa.iter().map(|f| &f.0).collect::<Vec<_>>(),
            fb.iter().map(|f| &f.0).collect::<Vec<_>>()
        );
        for (x, y) in fa.iter().zip(&fb) {
            assert!(x.1 == y.1, "{name}: {} differs", x.0);
        }
    }
    // Balanced by body count: 2, 3 and 5 bodies go 5 | 3 + 2.
    let record = std::fs::read_to_string(b.join("shard-0-of-2/shard.ron")).unwrap();
    assert!(record.contains("bodies: 5"), "{record}");
}
