//! Parity of the sheet engine on a device backend against the CPU reference, pass by pass and
//! over whole runs, included by tests/opencl_sheet.rs and tests/cuda_sheet.rs with their `API`.
//! Run with `cargo test --release --features opencl --test opencl_sheet` (or `cuda`).
//!
//! Each pass test holds one state in a `CpuSheet` and a `DeviceSheet`, runs every pass of the
//! step on both and compares what the pass produced: the particles (order and values), the
//! tree (nodes, leaves, walk groups, root cube, every cell's moments), the accelerations, the
//! candidate pairs and the resolved velocities. The bound for each is stated where it is
//! checked: bit for bit everywhere (the device passes perform the CPU's operations in the CPU's
//! order), except the velocities of pairs resolved with the Bridges law, whose `pow` is the
//! device's (the CPU calls the C library's): within 4 ulp of the velocity scale.
//!
//! A test that needs a device and finds none prints a `SKIPPED` line and passes; it fails
//! instead where the device is required (OpenCL with `CI=true`; CUDA with
//! `ORRERY_REQUIRE_CUDA=1`). `ORRERY_TEST_DEVICE=N` picks the device.

use super::API;
use crate::common;
use orrery::backend::gpu::DeviceSheet;
use orrery::sheet::collisions::Restitution;
use orrery::sheet::scenario::Sheet;
use orrery::sheet::BackendSpec;
use orrery::sheet::{
    self, CpuSheet, Particles, SheetBackend, SheetField, SheetFieldData, SheetParams, SheetPassSet,
    SheetPassTimes,
};
use std::io::Write;
use std::path::Path;

/// The device backend holding `p`, or `None` after reporting why the test is skipped.
fn device_or_skip(test: &str, params: SheetParams, p: &Particles) -> Option<DeviceSheet> {
    common::device::available(API, test)?;
    let index = common::device::device_index();
    Some(DeviceSheet::open(API, index, params, p).unwrap_or_else(|e| panic!("{e}")))
}

/// The ring of `inputs/ring.ron` in a box of `l` metres after `warm` CPU steps.
fn ring(l: f64, warm: usize) -> (SheetParams, Particles) {
    let path = common::inputs().join("ring.ron");
    let mut sc = Sheet::load(&path).expect("inputs/ring.ron");
    sc.box_size = l;
    let params = sc.params();
    let mut cpu = CpuSheet::new(params, sc.generate());
    let mut times = SheetPassTimes::default();
    for k in 0..warm {
        sheet::step(&mut cpu, k as f64 * params.dt, params.dt, &mut times).unwrap();
    }
    (params, cpu.particles)
}

/// An adversarial patch: the ring plus particles outside the box in x and y (wrapped by the
/// boundary), exactly on its edges, far above the mid-plane (a root cube larger than the box),
/// a clump of 40 particles at one point (one Morton key: a leaf of more than 16 at the deepest
/// level), and 40 tight clumps of 17 (a chain of single-child nodes down to where each splits:
/// more nodes than the device's first guess, so its node arrays grow during a build).
fn adversarial(l: f64) -> (SheetParams, Particles) {
    let (params, mut p) = ring(l, 1);
    let h = 0.5 * l;
    let o = params.omega;
    let mut add = |x: f64, y: f64, z: f64, vz: f64| {
        p.push([x, y, z], [1e-4, -1.5 * o * x, vz], 5e5, 1.5);
    };
    for (x, y) in [
        (h, 0.0),
        (-h, h - 1e-12),
        (h + 0.3, -h),
        (-h - 2.0, 3.0),
        (1.0, h + 7.0),
    ] {
        add(x, y, 0.0, 0.0);
    }
    add(3.0, 3.0, 1.5 * l, -1e-3);
    add(-3.0, 5.0, -0.8 * l, 1e-3);
    for k in 0..40 {
        add(7.25, -11.5, 0.125, 1e-5 * k as f64);
    }
    for c in 0..40 {
        let (cx, cy) = (-h + 0.9 + 0.024 * l * c as f64, 0.31 * h);
        for k in 0..17 {
            add(
                cx + 3e-6 * k as f64,
                cy - 2e-6 * k as f64,
                1e-6 * k as f64,
                0.0,
            );
        }
    }
    (params, p)
}

/// The particle arrays of both backends, bit for bit (ids give the order).
fn same_particles(cpu: &mut CpuSheet, dev: &mut DeviceSheet, what: &str) {
    let (a, b) = (cpu.download().unwrap(), dev.download().unwrap());
    assert_eq!(a.id, b.id, "{what}: particle order");
    for (name, x, y) in [
        ("x", &a.x, &b.x),
        ("y", &a.y, &b.y),
        ("z", &a.z, &b.z),
        ("vx", &a.vx, &b.vx),
        ("vy", &a.vy, &b.vy),
        ("vz", &a.vz, &b.vz),
        ("m", &a.m, &b.m),
        ("r", &a.r, &b.r),
    ] {
        if let Some(k) = (0..x.len()).find(|&k| x[k].to_bits() != y[k].to_bits()) {
            panic!("{what}: {name}[{k}] cpu {:e} device {:e}", x[k], y[k]);
        }
    }
}

/// The tree of both backends: identical nodes, leaves, groups and root cube; every cell's
/// moments within `ulp` units in the last place (0: bit for bit).
fn same_tree(cpu: &mut CpuSheet, dev: &mut DeviceSheet, what: &str, ulp: u64) {
    let get = |b: &mut dyn SheetBackend| match b.export_field(SheetField::Tree).unwrap() {
        SheetFieldData::Tree { tree, cube } => (tree, cube),
        other => panic!("not a tree: {:?}", other.field()),
    };
    let (a, ca) = get(cpu);
    let (b, cb) = get(dev);
    assert_eq!(ca.to_bits(), cb.to_bits(), "{what}: root cube");
    assert_eq!(a.nodes.len(), b.nodes.len(), "{what}: number of nodes");
    if let Some(k) = (0..a.nodes.len()).find(|&k| a.nodes[k] != b.nodes[k]) {
        panic!(
            "{what}: node {k}: cpu {:?} device {:?}",
            a.nodes[k], b.nodes[k]
        );
    }
    assert_eq!(a.leaves, b.leaves, "{what}: leaves");
    assert_eq!(a.groups, b.groups, "{what}: walk groups");
    let mut worst = 0;
    for (k, (x, y)) in a.cells.iter().zip(&b.cells).enumerate() {
        let wx = [x.lo, x.hi, x.com].concat();
        let wy = [y.lo, y.hi, y.com].concat();
        let mut ux = wx.clone();
        ux.extend([x.mass, x.size, x.delta, x.rmax]);
        ux.extend(x.quad);
        let mut uy = wy.clone();
        uy.extend([y.mass, y.size, y.delta, y.rmax]);
        uy.extend(y.quad);
        for (p, q) in ux.iter().zip(&uy) {
            let d = (p.to_bits() as i64).abs_diff(q.to_bits() as i64);
            worst = worst.max(d);
            assert!(d <= ulp, "{what}: cell {k}: cpu {x:?} device {y:?}");
        }
    }
    assert_eq!(worst, 0, "{what}: moments differ by {worst} ulp");
}

fn accelerations(b: &mut dyn SheetBackend) -> Vec<[f64; 3]> {
    match b.export_field(SheetField::Accelerations).unwrap() {
        SheetFieldData::Accelerations(a) => a,
        other => panic!("not accelerations: {:?}", other.field()),
    }
}

fn pairs(b: &mut dyn SheetBackend) -> Vec<orrery::sheet::collisions::Pair> {
    match b.export_field(SheetField::Pairs).unwrap() {
        SheetFieldData::Pairs { pairs, .. } => pairs,
        other => panic!("not pairs: {:?}", other.field()),
    }
}

/// The largest difference of the velocities of both backends in units of the last place of
/// the largest speed.
fn velocity_ulps(cpu: &mut CpuSheet, dev: &mut DeviceSheet) -> f64 {
    let (a, b) = (cpu.download().unwrap(), dev.download().unwrap());
    assert_eq!(a.id, b.id);
    let scale =
        a.vx.iter()
            .chain(&a.vy)
            .chain(&a.vz)
            .fold(0.0f64, |m, v| m.max(v.abs()));
    let d = [(&a.vx, &b.vx), (&a.vy, &b.vy), (&a.vz, &b.vz)]
        .iter()
        .flat_map(|(x, y)| x.iter().zip(y.iter()).map(|(p, q)| (p - q).abs()))
        .fold(0.0f64, f64::max);
    d / (scale * f64::EPSILON)
}

/// Run every pass of `steps` steps on both, comparing after each pass (module docs).
fn passes_agree(test: &str, params: SheetParams, p: Particles, steps: usize) {
    let Some(mut dev) = device_or_skip(test, params, &p) else {
        return;
    };
    let mut cpu = CpuSheet::new(params, p);
    let bridges = matches!(params.restitution, Restitution::Bridges { .. });
    let (dt, half) = (params.dt, 0.5 * params.dt);
    let mut resolved = 0;
    let mut worst_ulps = 0.0f64;
    for s in 0..steps {
        let t = s as f64 * dt;
        let at = |pass: &str| format!("{test}: step {s} {pass}");
        for b in [&mut cpu as &mut dyn SheetBackend, &mut dev] {
            b.drift(half).unwrap();
            b.boundary(t + half).unwrap();
        }
        same_particles(&mut cpu, &mut dev, &at("drift and boundary"));
        cpu.build_tree().unwrap();
        dev.build_tree().unwrap();
        same_particles(&mut cpu, &mut dev, &at("Morton order"));
        cpu.moments().unwrap();
        dev.moments().unwrap();
        same_tree(&mut cpu, &mut dev, &at("tree and moments"), 0);
        cpu.gravity(t + half).unwrap();
        dev.gravity(t + half).unwrap();
        let (ga, gb) = (accelerations(&mut cpu), accelerations(&mut dev));
        for (k, (a, b)) in ga.iter().zip(&gb).enumerate() {
            let rel = (0..3).map(|c| (a[c] - b[c]).abs()).fold(0.0, f64::max)
                / a.iter().map(|v| v.abs()).fold(f64::MIN_POSITIVE, f64::max);
            assert!(rel <= 1e-12, "{}: particle {k}: {a:?} {b:?}", at("gravity"));
        }
        assert_eq!(
            ga.iter().flatten().map(|v| v.to_bits()).collect::<Vec<_>>(),
            gb.iter().flatten().map(|v| v.to_bits()).collect::<Vec<_>>(),
            "{}: accelerations bit for bit",
            at("gravity")
        );
        assert_eq!(
            cpu.gravity_stats().unwrap(),
            dev.gravity_stats().unwrap(),
            "{}",
            at("gravity counters")
        );
        for b in [&mut cpu as &mut dyn SheetBackend, &mut dev] {
            b.kick(dt).unwrap();
            b.drift(half).unwrap();
            b.boundary(t + dt).unwrap();
            b.build_tree().unwrap();
            b.moments().unwrap();
        }
        same_particles(&mut cpu, &mut dev, &at("kick, drift, boundary, tree"));
        same_tree(&mut cpu, &mut dev, &at("second tree"), 0);
        let na = cpu.collision_search(t + dt).unwrap();
        let nb = dev.collision_search(t + dt).unwrap();
        assert_eq!(na, nb, "{}", at("candidate count"));
        assert_eq!(
            pairs(&mut cpu),
            pairs(&mut dev),
            "{}",
            at("candidate pairs")
        );
        let ra = cpu.resolve_collisions(t + dt).unwrap();
        let rb = dev.resolve_collisions(t + dt).unwrap();
        assert_eq!(ra, rb, "{}", at("resolved count"));
        resolved += ra;
        if bridges {
            let u = velocity_ulps(&mut cpu, &mut dev);
            worst_ulps = worst_ulps.max(u);
            assert!(u <= 4.0, "{}: {u} ulp", at("resolution"));
            // Continue from the same state: the bound is per resolution pass.
            let v = dev.export_field(SheetField::Velocities).unwrap();
            cpu.import_field(v).unwrap();
        } else {
            same_particles(&mut cpu, &mut dev, &at("resolution"));
        }
    }
    assert!(
        resolved > 10,
        "{test}: the test must resolve collisions: {resolved}"
    );
    let _ = writeln!(
        std::io::stderr(),
        "{test}: {} particles, {steps} steps, {resolved} collisions resolved; resolved velocities \
         within {worst_ulps:.2} ulp of the speed scale",
        cpu.len()
    );
    common::device::params_match_the_ptx(
        dev.gpu(),
        &[
            "orr_sheet_drift",
            "orr_sort_scatter",
            "orr_tree_split",
            "orr_sheet_gravity",
            "orr_collision_write",
            "orr_resolve_round",
            "orr_pair_predecessors",
        ],
    );
}

#[test]
fn every_sheet_pass_is_the_cpu_on_a_ring() {
    let (params, p) = ring(60.0, 3);
    passes_agree("every_sheet_pass_is_the_cpu_on_a_ring", params, p, 4);
}

#[test]
fn every_sheet_pass_is_the_cpu_bit_for_bit_with_constant_restitution() {
    let (mut params, p) = ring(50.0, 2);
    params.restitution = Restitution::Constant(0.5);
    passes_agree(
        "every_sheet_pass_is_the_cpu_bit_for_bit_with_constant_restitution",
        params,
        p,
        3,
    );
}

#[test]
fn every_sheet_pass_is_the_cpu_on_an_adversarial_patch() {
    let (mut params, p) = adversarial(40.0);
    params.restitution = Restitution::Constant(0.8);
    params.ghosts = [2, 1];
    passes_agree(
        "every_sheet_pass_is_the_cpu_on_an_adversarial_patch",
        params,
        p,
        3,
    );
}

/// The scenario of `inputs/ring.ron` with its output in a scratch folder named `tag`.
fn ring_scenario(tag: &str, steps: u64) -> Sheet {
    let path = common::inputs().join("ring.ron");
    let mut sc = Sheet::load(&path).expect("inputs/ring.ron");
    sc.steps = steps;
    sc.output.dir = common::scratch(tag);
    sc.output.snapshot_every = 0;
    sc
}

/// The backend of the device under test, with `cpu_passes` on the CPU reference.
fn spec(cpu_passes: SheetPassSet) -> BackendSpec {
    BackendSpec {
        backend: common::device::choice(API),
        cpu_passes,
        device: common::device::device_index(),
    }
}

/// Run `sc` on `spec` (resuming when asked) and return the final particles in input order.
fn run(sc: &Sheet, spec: &BackendSpec, resume: bool) -> (Particles, orrery::sheet::SheetSummary) {
    let stop = std::sync::atomic::AtomicBool::new(false);
    let s = orrery::sheet::run::run_scenario_on(sc, spec, &stop, resume, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"));
    let snap = sc
        .output
        .dir
        .join(format!("Sheet{}_{:012}.dat", sc.name, sc.steps));
    (read_snapshot(&snap), s)
}

/// The particles of a snapshot file (input order).
fn read_snapshot(path: &Path) -> Particles {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut p = Particles::default();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let v: Vec<f64> = line
            .split_whitespace()
            .map(|w| w.parse().unwrap())
            .collect();
        p.push([v[0], v[1], v[2]], [v[3], v[4], v[5]], v[7], v[6]);
    }
    p
}

/// Largest position difference over the box and velocity difference over the velocity
/// dispersion's scale (the largest speed relative to the shear).
fn run_difference(a: &Particles, b: &Particles, l: f64) -> (f64, f64) {
    let dpos = [(&a.x, &b.x), (&a.y, &b.y), (&a.z, &b.z)]
        .iter()
        .flat_map(|(x, y)| x.iter().zip(y.iter()).map(|(p, q)| (p - q).abs()))
        .fold(0.0f64, f64::max);
    let scale = a.vx.iter().chain(&a.vz).fold(0.0f64, |m, v| m.max(v.abs()));
    let dvel = [(&a.vx, &b.vx), (&a.vy, &b.vy), (&a.vz, &b.vz)]
        .iter()
        .flat_map(|(x, y)| x.iter().zip(y.iter()).map(|(p, q)| (p - q).abs()))
        .fold(0.0f64, f64::max);
    (dpos / l, dvel / scale)
}

#[test]
fn ring_runs_agree_with_the_cpu_after_30_steps() {
    let test = "ring_runs_agree_with_the_cpu_after_30_steps";
    if common::device::available(API, test).is_none() {
        return;
    }
    // inputs/ring.ron as shipped (Bridges law): within the bound the pow differences grow to.
    let cpu_sc = ring_scenario("sheet-run-cpu", 30);
    let dev_sc = ring_scenario("sheet-run-dev", 30);
    let (a, sa) = run(&cpu_sc, &BackendSpec::default(), false);
    let (b, sb) = run(&dev_sc, &spec(SheetPassSet::NONE), false);
    assert_eq!(sb.backend, API.name());
    let (dpos, dvel) = run_difference(&a, &b, cpu_sc.box_size);
    let _ = writeln!(
        std::io::stderr(),
        "{test}: N = {}, {} collisions; after 30 steps positions within {dpos:.2e} of the box, \
         velocities within {dvel:.2e} of the largest random speed",
        a.len(),
        sa.collisions
    );
    assert!(dpos <= 1e-10 && dvel <= 1e-6, "{dpos:e} {dvel:e}");
    assert!(sa.collisions > 10_000, "{}", sa.collisions);
    assert!(sa.collisions.abs_diff(sb.collisions) <= sa.collisions / 1000);
    // A constant coefficient: the whole run bit for bit, with the same counts.
    let mut cpu_sc = ring_scenario("sheet-run-cpu-const", 30);
    let mut dev_sc = ring_scenario("sheet-run-dev-const", 30);
    cpu_sc.restitution = Restitution::Constant(0.5);
    dev_sc.restitution = Restitution::Constant(0.5);
    let (a, sa) = run(&cpu_sc, &BackendSpec::default(), false);
    let (b, sb) = run(&dev_sc, &spec(SheetPassSet::NONE), false);
    assert_eq!(a, b, "constant restitution: the run bit for bit");
    assert_eq!(
        (sa.candidates, sa.collisions, sa.gravity_pp, sa.gravity_pc),
        (sb.candidates, sb.collisions, sb.gravity_pp, sb.gravity_pc)
    );
}

#[test]
fn any_sheet_pass_on_the_cpu_gives_the_same_bits() {
    let test = "any_sheet_pass_on_the_cpu_gives_the_same_bits";
    if common::device::available(API, test).is_none() {
        return;
    }
    let base = {
        let mut sc = ring_scenario("sheet-fallback-cpu", 6);
        sc.box_size = 40.0;
        sc.restitution = Restitution::Constant(0.5);
        sc
    };
    let (want, _) = run(&base, &BackendSpec::default(), false);
    let mut sets: Vec<SheetPassSet> = orrery::sheet::SheetPass::ALL
        .iter()
        .map(|&p| SheetPassSet::of(&[p]))
        .collect();
    sets.extend([0b1010_0101, 0b0101_1010, 0b0011_1100, 0xff].map(SheetPassSet::from_mask));
    for (k, set) in sets.into_iter().enumerate() {
        let mut sc = base.clone();
        sc.output.dir = common::scratch(&format!("sheet-fallback-{k}"));
        let (got, s) = run(&sc, &spec(set), false);
        assert_eq!(got, want, "--cpu-passes {set}");
        assert_eq!(s.backend, API.name());
    }
}

#[test]
fn a_device_checkpoint_resumes_on_the_cpu_and_back() {
    let test = "a_device_checkpoint_resumes_on_the_cpu_and_back";
    if common::device::available(API, test).is_none() {
        return;
    }
    let constant = |tag: &str, steps: u64| {
        let mut sc = ring_scenario(tag, steps);
        sc.box_size = 40.0;
        sc.restitution = Restitution::Constant(0.5);
        sc
    };
    let whole_sc = constant("sheet-resume-whole", 12);
    let (want, whole) = run(&whole_sc, &BackendSpec::default(), false);
    let mut sc = constant("sheet-resume-parts", 4);
    run(&sc, &spec(SheetPassSet::NONE), false);
    sc.steps = 8;
    run(&sc, &BackendSpec::default(), true);
    sc.steps = 12;
    let (got, parts) = run(&sc, &spec(SheetPassSet::NONE), true);
    assert_eq!(
        got, want,
        "device 0-4, CPU 4-8, device 8-12 against the CPU 0-12"
    );
    assert_eq!(parts.collisions, whole.collisions);
    let series = |sc: &Sheet| std::fs::read(sc.output.dir.join(format!("Series{}.dat", sc.name)));
    assert_eq!(series(&sc).unwrap(), series(&whole_sc).unwrap());
}
