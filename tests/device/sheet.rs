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
use orrery::sheet::run::BackendSpec;
use orrery::sheet::scenario::Sheet;
use orrery::sheet::{
    self, CpuSheet, Particles, SheetBackend, SheetField, SheetFieldData, SheetParams,
    SheetPassSet, SheetPassTimes,
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
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/inputs/ring.ron"));
    let mut sc = Sheet::load(path).expect("inputs/ring.ron");
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
/// and a clump of 40 particles at one point (one Morton key: a leaf of more than 16 at the
/// deepest level).
fn adversarial(l: f64) -> (SheetParams, Particles) {
    let (params, mut p) = ring(l, 1);
    let h = 0.5 * l;
    let o = params.omega;
    let mut add = |x: f64, y: f64, z: f64, vz: f64| {
        p.push([x, y, z], [1e-4, -1.5 * o * x, vz], 5e5, 1.5);
    };
    for (x, y) in [(h, 0.0), (-h, h - 1e-12), (h + 0.3, -h), (-h - 2.0, 3.0), (1.0, h + 7.0)] {
        add(x, y, 0.0, 0.0);
    }
    add(3.0, 3.0, 1.5 * l, -1e-3);
    add(-3.0, 5.0, -0.8 * l, 1e-3);
    for k in 0..40 {
        add(7.25, -11.5, 0.125, 1e-5 * k as f64);
    }
    (params, p)
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
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
    assert_eq!(a.nodes, b.nodes, "{what}: nodes");
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
    let scale = a.vx.iter().chain(&a.vy).chain(&a.vz).fold(0.0f64, |m, v| m.max(v.abs()));
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
        assert_eq!(pairs(&mut cpu), pairs(&mut dev), "{}", at("candidate pairs"));
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
    assert!(resolved > 10, "{test}: the test must resolve collisions: {resolved}");
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
            "orr_resolve_apply",
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
