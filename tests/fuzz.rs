//! Randomized robustness tests of every parser (issue 12, section 8): mutations, truncations,
//! bit flips, spliced and extreme tokens of the real shipped files in `inputs/` and of real
//! checkpoints written here. Every input must give a value or a clean error, never a panic.
//!
//! `ORRERY_FUZZ_CASES=N` sets the number of inputs per parser (default 2000, a few seconds in
//! release); `ORRERY_FUZZ_SEED=S` changes the seed. A failure prints the case number and the
//! input that panicked.

mod common;
use common::*;
use orrery::config::{self, param_dat, Overrides};
use orrery::io::checkpoint;
use orrery::io::initial_conditions::{read_initial_conditions_str, IcOptions};
use orrery::rng::Rng;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::Instant;

fn cases() -> u64 {
    std::env::var("ORRERY_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000)
}

fn seed() -> u64 {
    std::env::var("ORRERY_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12)
}

/// Tokens that stress number and identifier handling.
const EXTREMES: [&str; 16] = [
    "0",
    "-1",
    "-0",
    "1e308",
    "-1e308",
    "1e-320",
    "NaN",
    "inf",
    "-inf",
    "18446744073709551616",
    "4294967297",
    "99999999999",
    "\"\"",
    "()",
    "None",
    "Some(",
];

fn below(rng: &mut Rng, n: usize) -> usize {
    if n == 0 {
        0
    } else {
        (rng.next_u64() % n as u64) as usize
    }
}

/// One random mutation (or a few) of `seed_data`.
fn mutate(rng: &mut Rng, seed_data: &[u8], text: bool) -> Vec<u8> {
    let mut d = seed_data.to_vec();
    let rounds = 1 + below(rng, 4);
    for _ in 0..rounds {
        let len = d.len();
        match below(rng, if text { 9 } else { 7 }) {
            // Flip one bit.
            0 => {
                if len > 0 {
                    let k = below(rng, len);
                    d[k] ^= 1 << below(rng, 8);
                }
            }
            // Replace a byte by a random one.
            1 => {
                if len > 0 {
                    let k = below(rng, len);
                    d[k] = rng.next_u64() as u8;
                }
            }
            // Truncate.
            2 => d.truncate(below(rng, len + 1)),
            // Delete a range.
            3 => {
                let a = below(rng, len + 1);
                let b = (a + below(rng, 64)).min(len);
                d.drain(a..b);
            }
            // Duplicate a range somewhere else.
            4 => {
                let a = below(rng, len + 1);
                let b = (a + below(rng, 64)).min(len);
                let piece = d[a..b].to_vec();
                let at = below(rng, d.len() + 1);
                d.splice(at..at, piece);
            }
            // Overwrite 8 bytes with an extreme little-endian number (binary headers, counts).
            5 => {
                if len >= 8 {
                    let k = below(rng, len - 7);
                    let v = [
                        u64::MAX,
                        u64::MAX / 2,
                        1 << 32,
                        0,
                        f64::NAN.to_bits(),
                        f64::INFINITY.to_bits(),
                        (len as u64) * 2,
                    ][below(rng, 7)];
                    d[k..k + 8].copy_from_slice(&v.to_le_bytes());
                }
            }
            // Insert random bytes.
            6 => {
                let at = below(rng, len + 1);
                let n = 1 + below(rng, 8);
                let bytes: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
                d.splice(at..at, bytes);
            }
            // Replace a token (a run of non-separator characters) by an extreme one.
            7 => {
                if len > 0 {
                    let k = below(rng, len);
                    let sep = |c: u8| c.is_ascii_whitespace() || b",:=()[]".contains(&c);
                    let mut a = k;
                    while a > 0 && !sep(d[a - 1]) {
                        a -= 1;
                    }
                    let mut b = k;
                    while b < d.len() && !sep(d[b]) {
                        b += 1;
                    }
                    let tok = EXTREMES[below(rng, EXTREMES.len())].as_bytes().to_vec();
                    d.splice(a..b, tok);
                }
            }
            // Delete or duplicate whole lines.
            _ => {
                let lines: Vec<&[u8]> = d.split(|&c| c == b'\n').collect();
                let k = below(rng, lines.len());
                let mut out: Vec<&[u8]> = lines.clone();
                if rng.uniform() < 0.5 {
                    out.remove(k);
                } else {
                    out.insert(k, lines[k]);
                }
                d = out.join(&b'\n');
            }
        }
    }
    d
}

/// Run `parse` on `n` mutations of each seed; fail on the first panic with the input.
fn fuzz(name: &str, seeds: &[Vec<u8>], text: bool, mut parse: impl FnMut(&[u8]) -> bool) {
    let n = cases();
    let mut rng = Rng::new(seed() ^ (name.len() as u64 * 0x9E37));
    let start = Instant::now();
    let mut accepted = 0u64;
    for case in 0..n {
        let s = &seeds[(case % seeds.len() as u64) as usize];
        let input = if case < seeds.len() as u64 {
            s.clone()
        } else {
            mutate(&mut rng, s, text)
        };
        match catch_unwind(AssertUnwindSafe(|| parse(&input))) {
            Ok(ok) => accepted += ok as u64,
            Err(_) => panic!(
                "{name}: case {case} panicked on input:\n{}",
                String::from_utf8_lossy(&input)
            ),
        }
    }
    eprintln!(
        "fuzz {name}: {n} inputs ({accepted} accepted, {} clean errors) in {:.2} s",
        n - accepted,
        start.elapsed().as_secs_f64()
    );
}

/// An error must be a located input error: exit code 2 and a message that names the file.
fn clean<T>(r: orrery::Result<T>, file: &Path) -> bool {
    match r {
        Ok(_) => true,
        Err(e) => {
            let msg = e.to_string();
            assert!(!msg.is_empty());
            if let orrery::Error::Input { at, .. } = &e {
                assert!(
                    at.file.is_some() || at.field.is_some(),
                    "unlocated error for {}: {msg}",
                    file.display()
                );
            }
            false
        }
    }
}

fn quiet() {
    // Panics are caught and reported with their input; keep the default hook's noise out.
    std::panic::set_hook(Box::new(|_| {}));
}

#[test]
fn ron_scenarios_never_panic() {
    quiet();
    let d = scratch("fuzz-ron");
    let genga = inputs().join("genga");
    let mut seeds = Vec::new();
    for f in [
        "example.ron",
        "solar_system.ron",
        "ensemble_example.ron",
        "ring.ron",
    ] {
        let text = std::fs::read_to_string(inputs().join(f)).unwrap();
        // Body files by absolute path, and a short IC file so each case stays fast.
        let ic = d.join("ic.dat");
        let head: String = std::fs::read_to_string(genga.join("initialplanet_2048.dat"))
            .unwrap()
            .lines()
            .take(120)
            .map(|l| format!("{l}\n"))
            .collect();
        std::fs::write(&ic, head).unwrap();
        let text = text.replace("genga/initialplanet_2048.dat", ic.to_str().unwrap());
        seeds.push(text.into_bytes());
    }
    let path = d.join("case.ron");
    let ov = Overrides::default();
    fuzz("RON scenario", &seeds, true, |input| {
        std::fs::write(&path, input).unwrap();
        if orrery::sheet::is_sheet_scenario(&path) {
            clean(orrery::sheet::scenario::Sheet::load(&path), &path)
        } else {
            clean(config::load_setup(&path, &ov, false), &path)
        }
    });
}

#[test]
fn param_dat_files_never_panic() {
    quiet();
    let d = scratch("fuzz-param");
    let ic = d.join("ic.dat");
    let head: String = std::fs::read_to_string(inputs().join("genga/initialplanet_2048.dat"))
        .unwrap()
        .lines()
        .take(50)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&ic, head).unwrap();
    let text = std::fs::read_to_string(inputs().join("genga/param.dat"))
        .unwrap()
        .replace("initialplanet_2048.dat", ic.to_str().unwrap());
    let path = d.join("param.dat");
    let ov = Overrides {
        out: Some(d.join("out")),
        ..Default::default()
    };
    let mut toggle = false;
    fuzz("param.dat", &[text.into_bytes()], true, |input| {
        // Alternate the text parser alone and the whole load (parser, IC file, validation).
        toggle = !toggle;
        match std::str::from_utf8(input) {
            Ok(t) if toggle => clean(param_dat::parse_param_str(t, &path), &path),
            _ => {
                std::fs::write(&path, input).unwrap();
                clean(config::load(&path, &ov), &path)
            }
        }
    });
}

#[test]
fn initial_condition_files_never_panic() {
    quiet();
    let text = std::fs::read_to_string(inputs().join("genga/initialplanet_2048.dat")).unwrap();
    let head: String = text.lines().take(60).map(|l| format!("{l}\n")).collect();
    // Keplerian and indexed variants of the same bodies.
    let kepler = "0 1e-9 2.0 0.1 5.0 30.0 40.0 50.0\n1 2e-9 3.0 0.2 10.0 60.0 70.0 80.0\n\
                  2 0 1.5 0.0 0.0 0.0 0.0 0.0\n";
    let seeds = vec![
        format!("<< x y z m vx vy vz >>\n{head}").into_bytes(),
        format!("<< i m a e inc O w M >>\n{kepler}").into_bytes(),
        format!("<< x y z m vx vy vz - >>\n{}", head.replace('\n', " 7\n")).into_bytes(),
    ];
    let src = PathBuf::from("ic.dat");
    let opts = IcOptions {
        central_mass: 1.0,
        default_rho: 2.0,
        angle_degrees: true,
        central_radius: 0.00465,
        tides: true,
    };
    fuzz("initial conditions", &seeds, true, |input| {
        // The first line is the format string (mutated too), the rest the file.
        let t = String::from_utf8_lossy(input);
        let (format, body) = t.split_once('\n').unwrap_or((&t, ""));
        clean(read_initial_conditions_str(body, &src, format, &opts), &src)
    });
}

#[test]
fn multi_simulation_lists_never_panic() {
    quiet();
    let d = scratch("fuzz-multi");
    let ic_text: String = std::fs::read_to_string(inputs().join("genga/initialplanet_2048.dat"))
        .unwrap()
        .lines()
        .take(20)
        .map(|l| format!("{l}\n"))
        .collect();
    let param = std::fs::read_to_string(inputs().join("genga/param.dat")).unwrap();
    for (k, sim) in ["sim1", "sim2", "deep/sim3"].iter().enumerate() {
        let dir = d.join(sim);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("initialplanet_2048.dat"), &ic_text).unwrap();
        let p = param
            .replace(
                "initialplanet_2048.dat",
                dir.join("initialplanet_2048.dat").to_str().unwrap(),
            )
            .replace("Output name = test", &format!("Output name = s{k}"));
        std::fs::write(dir.join("param.dat"), p).unwrap();
    }
    let seeds = vec![
        b"sim1\nsim2\n".to_vec(),
        b"# three simulations\nsim1\n\n  deep/sim3  \nsim2\n".to_vec(),
    ];
    let path = d.join("list.txt");
    let ov = Overrides::default();
    fuzz("multi list", &seeds, true, |input| {
        std::fs::write(&path, input).unwrap();
        clean(config::load_setup(&path, &ov, true), &path)
    });
}

/// A real checkpoint of a short run with encounters: the newest `Checkpoint*.bin` written by the
/// binary.
fn real_checkpoint(d: &Path) -> Vec<u8> {
    let sc = quiet_disk(d, "cp", 40, 20, ", checkpoint_interval: 10");
    let o = orrery(&["run", sc.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = d.join("out");
    let last = files_with_prefix(&out, "Checkpoint")
        .pop()
        .expect("a checkpoint");
    std::fs::read(out.join(last)).unwrap()
}

#[test]
fn checkpoints_never_panic() {
    quiet();
    let d = scratch("fuzz-checkpoint");
    let data = real_checkpoint(&d);
    assert!(
        checkpoint::decode(&data).is_some(),
        "the real checkpoint decodes"
    );
    fuzz("checkpoint", &[data], false, |input| {
        checkpoint::decode(input).is_some()
    });
}

#[test]
fn sheet_checkpoints_never_panic() {
    quiet();
    let d = scratch("fuzz-sheet-checkpoint");
    let ring = std::fs::read_to_string(inputs().join("ring.ron"))
        .unwrap()
        .replace("box_size: 100.0", "box_size: 20.0")
        .replace("out/ring", d.join("out").to_str().unwrap());
    let sc = d.join("ring.ron");
    std::fs::write(&sc, ring).unwrap();
    let o = orrery(&["run", sc.to_str().unwrap(), "--steps", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let file = orrery::sheet::checkpoint::path(&d.join("out"), "ring");
    let data = std::fs::read(&file).unwrap();
    assert!(orrery::sheet::checkpoint::decode(&data, &file).is_ok());
    fuzz("sheet checkpoint", &[data], false, |input| {
        clean(orrery::sheet::checkpoint::decode(input, &file), &file)
    });
}
