//! Tests of the shearing-sheet engine (issue 5): SEI against the analytic epicycle, tree gravity
//! against direct summation, tree collision search against brute force, collision resolution
//! invariants, and thread-count independence.

use orrery::rng::Rng;
use orrery::sheet::boundary::{GhostShift, Shear};
use orrery::sheet::collisions::{self, Pair, Restitution};
use orrery::sheet::gravity::{self, GravityParams};
use orrery::sheet::scenario::{RadiusLaw, Sheet, SheetOutput};
use orrery::sheet::{
    self, tree, CpuSheet, Particles, SheetBackend, SheetFallback, SheetParams, SheetPassSet,
    SheetPassTimes,
};

const OMEGA: f64 = 1.3143527e-4;

/// The OCCLUDE table-1 ring in a box of `l` metres.
fn ring(l: f64) -> Sheet {
    Sheet {
        name: "test".into(),
        steps: 10,
        seed: 7,
        omega: OMEGA,
        g: 6.67428e-11,
        surface_density: 2000.0,
        particle_density: 200.0,
        box_size: l,
        radius: RadiusLaw {
            min: 1.0,
            max: 4.0,
            slope: 3.0,
        },
        z_sigma: 1.0,
        dt_orbits: 1e-3,
        theta: 0.5,
        softening: 0.1,
        ghosts: (1, 1, 0),
        restitution: Restitution::Bridges { v_c: 7.7e-5 },
        output: SheetOutput {
            dir: "unused".into(),
            snapshot_every: 0,
            series_every: 1,
        },
    }
}

/// Ring particles with random velocities of `dv` m/s on top of the shear flow, Morton-sorted,
/// with the tree built and moments computed.
fn sorted_ring(l: f64, dv: f64, seed: u64) -> (Particles, tree::Tree) {
    let mut p = ring(l).generate();
    let mut rng = Rng::new(seed);
    for k in 0..p.len() {
        p.vx[k] += dv * rng.normal();
        p.vy[k] += dv * rng.normal();
        p.vz[k] += dv * rng.normal();
    }
    let keys = tree::sort_particles(&mut p, l);
    let mut t = tree::build(&keys);
    tree::moments(&mut t, &p, l);
    (p, t)
}

/// Sheet parameters without gravity (a single particle follows a free epicycle).
fn free_params(l: f64, steps_per_orbit: f64) -> SheetParams {
    SheetParams {
        omega: OMEGA,
        g: 0.0,
        dt: 2.0 * std::f64::consts::PI / OMEGA / steps_per_orbit,
        box_size: l,
        theta: 0.5,
        softening: 0.1,
        ghosts: [1, 1],
        restitution: Restitution::Constant(0.5),
    }
}

/// The free epicycle from `(x0, y0, vx0, vy0)` at time `t`, unwrapped: OCCLUDE eq. 15 with
/// (y0 - y_g) (DESIGN.md), written out independently. Returns x, y, vx, vy.
fn epicycle(x0: f64, y0: f64, vx0: f64, vy0: f64, t: f64) -> [f64; 4] {
    let (xg, yg) = (4.0 * x0 + 2.0 * vy0 / OMEGA, y0 - 2.0 * vx0 / OMEGA);
    let (c, s) = ((OMEGA * t).cos(), (OMEGA * t).sin());
    [
        xg + (x0 - xg) * c + 0.5 * (y0 - yg) * s,
        yg - 1.5 * OMEGA * xg * t + (y0 - yg) * c - 2.0 * (x0 - xg) * s,
        -OMEGA * (x0 - xg) * s + 0.5 * OMEGA * (y0 - yg) * c,
        -1.5 * OMEGA * xg - OMEGA * (y0 - yg) * s - 2.0 * OMEGA * (x0 - xg) * c,
    ]
}

#[test]
fn sei_follows_the_analytic_epicycle_for_many_orbits() {
    // One particle, no gravity: the full step (drift, boundary, kick with zero force, drift,
    // collisions) must follow the exact epicycle, with y wrapped by the periodic boundary.
    let l = 100.0;
    let orbits = 50.0;
    let steps_per_orbit = 200.0;
    let params = free_params(l, steps_per_orbit);
    let (x0, y0, z0, vx0, vy0, vz0) = (3.0, -10.0, 0.7, 2e-4, -1.5 * OMEGA * 3.0 + 1e-4, -3e-4);
    let mut p = Particles::default();
    p.push([x0, y0, z0], [vx0, vy0, vz0], 1.0, 1.0);
    let mut b = CpuSheet::new(params, p);
    let mut times = SheetPassTimes::default();
    let n = (orbits * steps_per_orbit) as u64;
    let mut max_err: f64 = 0.0;
    for k in 0..n {
        sheet::step(&mut b, k as f64 * params.dt, params.dt, &mut times).unwrap();
        let t = (k + 1) as f64 * params.dt;
        let [x, y, vx, _] = epicycle(x0, y0, vx0, vy0, t);
        let z = z0 * (OMEGA * t).cos() + vz0 / OMEGA * (OMEGA * t).sin();
        let q = &b.particles;
        let dy = orrery::sheet::boundary::wrap(q.y[0] - y, l);
        let err = (q.x[0] - x).abs().max(dy.abs()).max((q.z[0] - z).abs());
        max_err = max_err.max(err);
        assert!((q.vx[0] - vx).abs() < 1e-12, "vx at step {k}");
    }
    assert!(max_err < 1e-9, "largest position error {max_err:e} m");
    // The guiding centre drifts by -3/2 Omega x_g per unit time: the particle has crossed y.
    assert!((1.5 * OMEGA * (4.0 * x0 + 2.0 * vy0 / OMEGA)).abs() * n as f64 * params.dt > l);
}

fn rms_relative_error(a: &[[f64; 3]], b: &[[f64; 3]]) -> f64 {
    let mut s = 0.0;
    for (x, y) in a.iter().zip(b) {
        let d = ((x[0] - y[0]).powi(2) + (x[1] - y[1]).powi(2) + (x[2] - y[2]).powi(2)).sqrt();
        let n = (y[0] * y[0] + y[1] * y[1] + y[2] * y[2]).sqrt();
        s += (d / n).powi(2);
    }
    (s / a.len() as f64).sqrt()
}

#[test]
fn tree_gravity_matches_direct_summation_with_ghost_boxes() {
    let l = 100.0;
    let (p, t) = sorted_ring(l, 0.0, 1);
    let shear = Shear { l, omega: OMEGA };
    // A time at which the sheared columns are offset by a fraction of the box.
    let ghosts = shear.ghosts([1, 1], 0.37 * l / (1.5 * OMEGA * l));
    let gp = |theta| GravityParams {
        g: 6.67428e-11,
        theta,
        softening: 0.1,
    };
    let direct = gravity::direct_gravity(&p, &ghosts, &gp(0.5));
    let mut errors = Vec::new();
    for theta in [0.8, 0.5, 0.35, 0.2] {
        let mut acc = vec![[0.0; 3]; p.len()];
        gravity::tree_gravity(&p, &t, &ghosts, &gp(theta), &mut acc);
        let e = rms_relative_error(&acc, &direct);
        eprintln!(
            "theta {theta}: RMS relative force error {e:.3e} (N = {})",
            p.len()
        );
        errors.push((theta, e));
    }
    assert!(errors[1].1 < 1e-3, "theta 0.5: {:e}", errors[1].1);
    for w in errors.windows(2) {
        assert!(w[1].1 < w[0].1, "error does not decrease: {w:?}");
    }
}

#[test]
fn tree_collision_search_finds_exactly_the_brute_force_pairs() {
    let l = 60.0;
    let shear = Shear { l, omega: OMEGA };
    for (seed, t) in [(1, 0.0), (2, 1234.5), (3, 7.7e3)] {
        let (p, tr) = sorted_ring(l, 1e-3, seed);
        let ghosts = shear.ghosts([1, 1], t);
        let mut found = collisions::search(&p, &tr, &ghosts);
        let expect = collisions::brute_force(&p, &ghosts);
        found.sort_unstable();
        assert!(
            expect.len() > 100,
            "too few pairs to test: {}",
            expect.len()
        );
        let central = ghosts
            .iter()
            .position(|g| g.dx == 0.0 && g.dy == 0.0)
            .unwrap() as u32;
        let across = expect.iter().filter(|q| q.ghost != central).count();
        assert!(across > 5, "only {across} pairs across the boundaries");
        assert_eq!(found, expect);
    }
}

#[test]
fn resolution_conserves_momentum_and_never_gains_energy() {
    let mut rng = Rng::new(11);
    let ghosts = [
        GhostShift {
            dx: 0.0,
            dy: 0.0,
            dvy: 0.0,
        },
        GhostShift {
            dx: -100.0,
            dy: 37.0,
            dvy: 1.5 * OMEGA * 100.0,
        },
    ];
    let rests = [
        Restitution::Bridges { v_c: 7.7e-5 },
        Restitution::Constant(0.0),
        Restitution::Constant(1.0),
        Restitution::Constant(0.5),
    ];
    let mut resolved = 0;
    for trial in 0..4000 {
        let g = ghosts[trial % 2];
        let mut p = Particles::default();
        let r1 = rng.range(1.0, 4.0);
        let r2 = rng.range(1.0, 4.0);
        let v = |rng: &mut Rng| {
            [
                1e-3 * rng.normal(),
                1e-3 * rng.normal(),
                1e-3 * rng.normal(),
            ]
        };
        p.push([0.0; 3], v(&mut rng), 200.0 * r1.powi(3), r1);
        // Partner image overlapping the first particle.
        let d = (r1 + r2) * rng.range(0.5, 1.0);
        let dir = [rng.normal(), rng.normal(), rng.normal()];
        let nd = (dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]).sqrt();
        let pos = [
            d * dir[0] / nd - g.dx,
            d * dir[1] / nd - g.dy,
            d * dir[2] / nd,
        ];
        p.push(pos, v(&mut rng), 200.0 * r2.powi(3), r2);
        let rest = rests[trial % rests.len()];
        let mom = |p: &Particles| {
            [
                p.m[0] * p.vx[0] + p.m[1] * p.vx[1],
                p.m[0] * p.vy[0] + p.m[1] * p.vy[1],
                p.m[0] * p.vz[0] + p.m[1] * p.vz[1],
            ]
        };
        // Kinetic energy with the partner's image velocity (the frame in which they touch).
        let ke = |p: &Particles| {
            0.5 * p.m[0] * (p.vx[0].powi(2) + p.vy[0].powi(2) + p.vz[0].powi(2))
                + 0.5 * p.m[1] * (p.vx[1].powi(2) + (p.vy[1] + g.dvy).powi(2) + p.vz[1].powi(2))
        };
        let scale = p.m[0] * 1e-3 + p.m[1] * 1e-3 + p.m[1] * g.dvy.abs();
        let (m0, e0) = (mom(&p), ke(&p));
        let approaching = collisions::colliding(&p, 0, 1, &g);
        let pair = Pair {
            i: 0,
            j: 1,
            ghost: trial as u32 % 2,
        };
        let did = collisions::resolve(&mut p, &[pair], &ghosts, &rest) == 1;
        assert_eq!(did, approaching);
        let (m1, e1) = (mom(&p), ke(&p));
        for a in 0..3 {
            assert!(
                (m1[a] - m0[a]).abs() <= 4.0 * f64::EPSILON * scale,
                "momentum {a}"
            );
        }
        assert!(e1 <= e0 * (1.0 + 4.0 * f64::EPSILON), "energy {e0} -> {e1}");
        if did {
            resolved += 1;
            // Afterwards the pair separates (or is at rest along the normal for eps = 0).
            assert!(!collisions::colliding(&p, 0, 1, &g) || rest == Restitution::Constant(0.0));
        }
    }
    assert!(resolved > 1000);
}

#[test]
fn bridges_restitution_law() {
    let r = Restitution::Bridges { v_c: 7.7e-5 };
    assert_eq!(r.eps(1e-5), 1.0);
    assert_eq!(r.eps(-7.7e-5), 1.0);
    let e = r.eps(7.7e-3);
    assert!((e - 100f64.powf(-0.234)).abs() < 1e-15);
}

fn run_steps(threads: usize, l: f64, steps: u64) -> (Particles, u64) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let sc = ring(l);
        let mut b = CpuSheet::new(sc.params(), sc.generate());
        let mut times = SheetPassTimes::default();
        let mut coll = 0;
        for k in 0..steps {
            let dt = sc.params().dt;
            coll += sheet::step(&mut b, k as f64 * dt, dt, &mut times)
                .unwrap()
                .collisions;
        }
        (b.download().unwrap(), coll)
    })
}

#[test]
fn one_and_two_threads_are_bitwise_identical() {
    let (a, ca) = run_steps(1, 70.0, 15);
    let (b, cb) = run_steps(2, 70.0, 15);
    assert!(ca > 100, "too few collisions to test: {ca}");
    assert_eq!(ca, cb);
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(a.id, b.id);
    for (u, w) in [
        (&a.x, &b.x),
        (&a.y, &b.y),
        (&a.z, &b.z),
        (&a.vx, &b.vx),
        (&a.vy, &b.vy),
        (&a.vz, &b.vz),
    ] {
        assert_eq!(bits(u), bits(w));
    }
}

/// The sheet's gravity at every run-time SIMD level the CPU has (AVX-512, AVX2, baseline) gives
/// the same bits.
#[test]
fn every_simd_level_gives_the_same_bits() {
    use orrery::simd::{supported_levels, with_level};
    let bits = |p: &Particles| {
        [&p.x, &p.y, &p.z, &p.vx, &p.vy, &p.vz]
            .map(|v| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>())
    };
    let levels = supported_levels();
    let (base, cb) = with_level(levels[0], || run_steps(2, 70.0, 8));
    for &level in &levels[1..] {
        let (p, c) = with_level(level, || run_steps(2, 70.0, 8));
        assert_eq!(c, cb, "collisions at SIMD level {level}");
        assert!(bits(&p) == bits(&base), "SIMD level {level}");
    }
}

#[test]
fn a_run_keeps_particles_in_the_box_and_collides() {
    let sc = ring(50.0);
    let mut b = CpuSheet::new(sc.params(), sc.generate());
    let mut times = SheetPassTimes::default();
    let dt = sc.params().dt;
    let mut coll = 0;
    for k in 0..20 {
        coll += sheet::step(&mut b, k as f64 * dt, dt, &mut times)
            .unwrap()
            .collisions;
    }
    let p = b.download().unwrap();
    assert!(p.x.iter().chain(&p.y).all(|&v| (-25.0..25.0).contains(&v)));
    assert!(p.vx.iter().chain(&p.vy).chain(&p.vz).all(|v| v.is_finite()));
    // The table-1 patch is collision dominated (REBOUND: about 0.7 per particle and step).
    assert!(
        coll as f64 / 20.0 > 0.2 * p.len() as f64,
        "{coll} collisions in 20 steps"
    );
}

/// A small ring scenario file in a fresh directory; returns (scenario path, output dir).
fn small_scenario(tag: &str, edit: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("orrery_sheet_{tag}_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/inputs/ring.ron"))
        .unwrap()
        .replace("box_size: 100.0,", "box_size: 40.0,")
        .replace("steps: 2000,", "steps: 12,")
        .replace("snapshot_every: 500", "snapshot_every: 0")
        .replace("theta: 0.5,", edit);
    let path = dir.join("small.ron");
    std::fs::write(&path, text).unwrap();
    (path, dir)
}

#[test]
fn cli_runs_a_sheet_scenario_bitwise_identically_on_1_and_2_threads() {
    let (path, dir) = small_scenario("cli", "theta: 0.5,");
    let mut snaps = Vec::new();
    for threads in ["1", "2"] {
        let out = dir.join(format!("out{threads}"));
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_orrery"))
            .args(["run", path.to_str().unwrap(), "--threads", threads, "--out"])
            .arg(&out)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "{stdout} {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(stdout.starts_with("N = "), "{stdout}");
        assert!(stdout.contains("s per step"), "{stdout}");
        snaps.push(std::fs::read(out.join("Sheetring_000000000012.dat")).unwrap());
        assert!(out.join("Seriesring.dat").exists());
    }
    assert_eq!(snaps[0], snaps[1]);
    let (bad, bad_dir) = small_scenario("bad", "theta: -1.0,");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_orrery"))
        .args(["run", bad.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("theta"));
    let _ = std::fs::remove_dir_all(dir);
    let _ = std::fs::remove_dir_all(bad_dir);
}

#[test]
fn degenerate_sheet_scenarios_are_rejected_with_the_field_named() {
    let cases = [
        (
            "slope",
            "theta: 0.5, radius: (min: 0.001, max: 4.0, slope: 400.0),",
            "radius",
        ),
        ("theta", "theta: 1.5,", "theta"),
    ];
    for (tag, edit, field) in cases {
        let (path, dir) = small_scenario(tag, edit);
        // The radius edit replaces the scenario's own radius line.
        let text = std::fs::read_to_string(&path).unwrap();
        let text = if tag == "slope" {
            text.replace("radius: (min: 1.0, max: 4.0, slope: 3.0),", "")
        } else {
            text
        };
        std::fs::write(&path, text).unwrap();
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_orrery"))
            .args(["run", path.to_str().unwrap(), "--out"])
            .arg(dir.join("out"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{tag}: {err}");
        assert!(err.contains(field), "{tag}: {err}");
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[test]
fn resumed_sheet_run_is_bitwise_identical_to_an_uninterrupted_one() {
    let (path, dir) = small_scenario("resume", "theta: 0.5,");
    let run = |out: &std::path::Path, steps: &str, resume: bool| {
        let mut args = vec!["run", path.to_str().unwrap(), "--steps", steps, "--out"];
        args.push(out.to_str().unwrap());
        if resume {
            args.push("--resume");
        }
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_orrery"))
            .args(&args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    let (a, b) = (dir.join("a"), dir.join("b"));
    run(&a, "12", false);
    run(&b, "5", false);
    run(&b, "12", true);
    for f in ["Sheetring_000000000012.dat", "Seriesring.dat"] {
        let (x, y) = (
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
        );
        assert!(
            x == y,
            "{f} differs between the resumed and the uninterrupted run"
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// A thick patch (particles up to 1.5 box sides from the mid-plane): the tree's root cube grows
/// to contain them, so the opening criterion keeps its accuracy.
#[test]
fn tree_gravity_stays_accurate_for_a_thick_patch() {
    let l = 60.0;
    let mut p = ring(l).generate();
    let mut rng = Rng::new(9);
    for z in p.z.iter_mut() {
        *z = rng.range(-1.5 * l, 1.5 * l);
    }
    let cube = tree::root_cube(&p, l);
    let zmax = p.z.iter().fold(0.0f64, |m, z| m.max(z.abs()));
    assert!(
        cube > 2.0 * zmax,
        "the root cube must contain every particle: {cube} vs {zmax}"
    );
    let keys = tree::sort_particles(&mut p, cube);
    let mut t = tree::build(&keys);
    tree::moments(&mut t, &p, cube);
    let shear = Shear { l, omega: OMEGA };
    let ghosts = shear.ghosts([1, 1], 0.0);
    let gp = GravityParams {
        g: 6.67428e-11,
        theta: 0.5,
        softening: 0.1,
    };
    let direct = gravity::direct_gravity(&p, &ghosts, &gp);
    let mut acc = vec![[0.0; 3]; p.len()];
    gravity::tree_gravity(&p, &t, &ghosts, &gp, &mut acc);
    let e = rms_relative_error(&acc, &direct);
    eprintln!(
        "thick patch: RMS relative force error {e:.3e} (N = {})",
        p.len()
    );
    assert!(e < 1e-3, "{e:e}");
    assert_eq!(
        tree::root_cube(&ring(l).generate(), l),
        l,
        "a thin ring keeps the box as cube"
    );
}

/// An epicycle that crosses the radial (x) boundary again and again: every crossing shifts x by
/// the box, vy by 1.5 Omega L and y by the sheared offset of the neighbouring box.
#[test]
fn sei_crosses_the_shear_periodic_boundary_exactly() {
    let l = 100.0;
    let steps_per_orbit = 200.0;
    let params = free_params(l, steps_per_orbit);
    // Guiding centre at x = 45 m, radial amplitude 10 m: x runs from 35 to 55 m.
    let (x0, y0, z0) = (45.0, 0.0, 0.0);
    let (vx0, vy0, vz0) = (10.0 * OMEGA, -1.5 * OMEGA * x0, 0.0);
    let mut p = Particles::default();
    p.push([x0, y0, z0], [vx0, vy0, vz0], 1.0, 1.0);
    let mut b = CpuSheet::new(params, p);
    let mut times = SheetPassTimes::default();
    let mut crossings = 0;
    let mut last_k = 0.0;
    for k in 0..(5.0 * steps_per_orbit) as u64 {
        sheet::step(&mut b, k as f64 * params.dt, params.dt, &mut times).unwrap();
        let t = (k + 1) as f64 * params.dt;
        let [x, y, _, vy] = epicycle(x0, y0, vx0, vy0, t);
        let q = &b.particles;
        let images = ((x - q.x[0]) / l).round();
        if images != last_k {
            crossings += 1;
            last_k = images;
        }
        assert!((q.x[0] - (x - images * l)).abs() < 1e-9, "x at step {k}");
        let vy_image = vy + 1.5 * OMEGA * images * l;
        assert!((q.vy[0] - vy_image).abs() < 1e-12, "vy at step {k}");
        let y_image = y + 1.5 * OMEGA * images * l * t;
        let dy = orrery::sheet::boundary::wrap(q.y[0] - y_image, l);
        assert!(dy.abs() < 1e-9, "y at step {k}: {dy:e}");
    }
    assert!(
        crossings >= 8,
        "the particle must cross the x boundary repeatedly ({crossings})"
    );
}

/// `steps` steps of the ring in a box of `l` through the per-pass fallback with a CPU backend in
/// the device's seat and the passes of `on_cpu` on the CPU reference.
fn fallback_run(l: f64, steps: u64, on_cpu: SheetPassSet) -> (Particles, (u64, u64)) {
    let sc = ring(l);
    let params = sc.params();
    let p = sc.generate();
    let device = Box::new(CpuSheet::new(params, p.clone()));
    let mut b = SheetFallback::new(device, CpuSheet::new(params, p), on_cpu);
    let mut times = SheetPassTimes::default();
    for k in 0..steps {
        sheet::step(&mut b, k as f64 * params.dt, params.dt, &mut times).unwrap();
    }
    (b.download().unwrap(), b.transfers())
}

#[test]
fn every_subset_of_sheet_cpu_passes_gives_the_plain_cpu_bits() {
    // DESIGN.md: the fallback driven with the CPU backend in the device's seat gives the plain
    // CPU bits for every subset of passes, which checks the field tables without a device.
    let sc = ring(30.0);
    let params = sc.params();
    let mut plain = CpuSheet::new(params, sc.generate());
    let mut times = SheetPassTimes::default();
    let mut collisions = 0;
    for k in 0..3 {
        collisions += sheet::step(&mut plain, k as f64 * params.dt, params.dt, &mut times)
            .unwrap()
            .collisions;
    }
    assert!(collisions > 50, "too few collisions to test: {collisions}");
    let want = plain.download().unwrap();
    for mask in 0..256 {
        let set = SheetPassSet::from_mask(mask);
        let (got, (to_host, to_device)) = fallback_run(30.0, 3, set);
        assert_eq!(got, want, "--cpu-passes {set}");
        if set.is_empty() {
            assert_eq!((to_host, to_device), (0, 0), "no CPU pass moves no field");
        } else if set != SheetPassSet::all() {
            assert!(to_host > 0 && to_device > 0, "{set}: fields must move");
        }
    }
}
