//! Per-pass parity of a device backend against the CPU reference (whole runs are in
//! runs.rs), included by tests/opencl_passes.rs and tests/cuda_passes.rs with their `API`. Run
//! with `cargo test --release --features opencl --test opencl_passes` (or `cuda`).
//!
//! Every pass test builds one state in a `CpuHybrid` and a `DeviceHybrid` (the same
//! `HybridSnapshot`, or the same fields imported), runs the pass on both and compares what it
//! produced bit for bit (`to_bits`). The one stated bound: bodies the Kepler drift sends to its
//! scalar fallback (e >= 0.9, unbound) use the device's libm (kernels/README.md, parity policy
//! point 4); they must agree to a relative 1e-13 of the state, and the worst seen is printed.
//!
//! A test that needs a device and finds none prints a `SKIPPED` line and passes; it fails
//! instead where the device is required (OpenCL with `CI=true`, since CI installs PoCL; CUDA
//! with `ORRERY_REQUIRE_CUDA=1`). `ORRERY_TEST_DEVICE=N` picks the device.

use super::API;
use crate::common;
use orrery::backend::cpu::CpuHybrid;
use orrery::backend::fields::{EncounterPairs, PreDriftStates};
use orrery::backend::gpu::DeviceHybrid;
use orrery::backend::{Field, FieldData, FieldTransfer, HybridBackend};
use orrery::model::{EncounterStats, HybridSnapshot, Layout, StepParams, System, SystemSpec};
use orrery::physics::bulirsch_stoer::BsOptions;
use orrery::physics::changeover::Changeover;
use orrery::rng::Rng;
use orrery::state::{Bodies, Body};
use std::io::Write;

#[path = "grouping.rs"]
mod grouping;

/// The device backend on the device under test, or `None` after reporting why the test is
/// skipped (a failure where the device is required). A device that is there must open.
fn device_or_skip(test: &str) -> Option<DeviceHybrid> {
    common::device::available(API, test)?;
    let index = common::device::device_index();
    Some(DeviceHybrid::open(API, index).unwrap_or_else(|e| panic!("{e}")))
}

fn params() -> StepParams {
    StepParams {
        m0: 1.0,
        tau: 0.1,
        n1: 3.0,
        n2: 0.4,
        inner_truncation: 0.2,
        outer_truncation: 8.0,
        forces: orrery::physics::forces::Forces::NONE,
        recursion: orrery::physics::recursion::Recursion::OFF,
        rcrit_floor: 0.0,
    }
}

/// One system of a test state: occupied slots, massive ones, active, own parameters.
#[derive(Clone, Copy)]
struct Sys {
    len: usize,
    massive: usize,
    active: bool,
    spec: Option<SystemSpec>,
}

fn sys(len: usize, massive: usize) -> Sys {
    Sys {
        len,
        massive,
        active: true,
        spec: None,
    }
}

/// A random body around a central mass `mu`: near-circular, eccentric (e 0.9..0.999),
/// near-parabolic, hyperbolic, or close to the body before it (for candidate pairs).
fn body(rng: &mut Rng, mu: f64, id: u64, massive: bool, prev: Option<&Body>) -> Body {
    let m = if massive {
        10f64.powf(rng.range(-9.0, -3.0))
    } else {
        0.0
    };
    let kind = rng.next_u64() % 8;
    let (pos, vel) = match (kind, prev) {
        (0..=2, Some(p)) => {
            let d = rng.unit_vector();
            let s = rng.range(1e-4, 3e-2);
            let dv = rng.unit_vector();
            let w = rng.range(0.0, 0.05);
            (
                std::array::from_fn(|c| p.pos[c] + s * d[c]),
                std::array::from_fn(|c| p.vel[c] + w * dv[c]),
            )
        }
        _ => {
            let r = rng.range(0.4, 3.0);
            let x = rng.unit_vector();
            // A velocity perpendicular-ish to x.
            let a = rng.unit_vector();
            let mut t = [
                x[1] * a[2] - x[2] * a[1],
                x[2] * a[0] - x[0] * a[2],
                x[0] * a[1] - x[1] * a[0],
            ];
            let n = (t[0] * t[0] + t[1] * t[1] + t[2] * t[2]).sqrt();
            t = t.map(|v| v / n);
            let vc = (mu / r).sqrt();
            let vesc = (2.0 * mu / r).sqrt();
            let speed = match kind {
                3 => vc * (1.0 + rng.range(0.9, 0.999)).sqrt(),
                4 => vesc * (1.0 + rng.range(-1e-10, 1e-10)),
                5 => vesc * rng.range(1.1, 2.0),
                _ => vc * rng.range(0.9, 1.1),
            };
            let radial = rng.range(-0.05, 0.05) * vc;
            (
                x.map(|c| r * c),
                std::array::from_fn(|c| speed * t[c] + radial * x[c]),
            )
        }
    };
    Body {
        id,
        m,
        r: rng.range(1e-6, 1e-4),
        pos,
        vel,
        spin: [rng.range(-1e-12, 1e-12), 0.0, rng.range(-1e-12, 1e-12)],
    }
}

/// A state of `systems` in blocks of `block` slots (empty slots zero).
fn state(rng: &mut Rng, block: usize, systems: &[Sys], semi_active: bool) -> HybridSnapshot {
    let mut bodies = Bodies::default();
    for (s, sy) in systems.iter().enumerate() {
        let mu = sy.spec.map_or(1.0, |sp| sp.m0);
        let mut prev: Option<Body> = None;
        for k in 0..block {
            let id = (s * block + k) as u64;
            let b = if k < sy.len {
                body(rng, mu, id, k < sy.massive, prev.as_ref())
            } else {
                Body::without_spin(id, 0.0, 0.0, [0.0; 3], [0.0; 3])
            };
            if k < sy.len {
                prev = Some(b);
            }
            bodies.push(&b);
        }
    }
    let layout = Layout {
        block,
        systems: systems
            .iter()
            .map(|s| System {
                len: s.len,
                massive: s.massive,
                spec: s.spec,
                active: s.active,
                central_spin: [0.0; 3],
            })
            .collect(),
        semi_active,
        changeover: Changeover::Genga,
    };
    HybridSnapshot {
        bodies,
        layout,
        rcrit: Vec::new(),
        far: Default::default(),
        near: Default::default(),
        candidates: Vec::new(),
    }
}

/// The state after the CPU's critical radii and full pair pass (kick state and candidates).
fn prepared(snap: HybridSnapshot, p: &StepParams) -> HybridSnapshot {
    let mut cpu = CpuHybrid::default();
    cpu.restore(snap);
    cpu.critical_radii(p);
    cpu.accelerations();
    cpu.snapshot()
}

/// The same snapshot in both backends.
fn both(dev: &mut DeviceHybrid, snap: &HybridSnapshot) -> CpuHybrid {
    let mut cpu = CpuHybrid::default();
    cpu.restore(snap.clone());
    dev.restore(snap.clone());
    cpu
}

/// The states of the test: single systems (main, passive and semi-active test particles) and
/// many systems with stopped ones, empty slots and own parameters, each with one of the
/// changeover functions.
fn states(seed: u64) -> Vec<(String, HybridSnapshot)> {
    let mut rng = Rng::new(seed);
    let p = params();
    let mut out = Vec::new();
    out.push((
        "main".to_string(),
        state(&mut rng, 300, &[sys(300, 300)], false),
    ));
    out.push(("small".to_string(), state(&mut rng, 3, &[sys(3, 3)], false)));
    for semi in [false, true] {
        out.push((
            format!("test particles, semi-active {semi}"),
            state(&mut rng, 260, &[sys(260, 12)], semi),
        ));
    }
    let mut many = Vec::new();
    for s in 0..40 {
        let len = (rng.next_u64() % 13) as usize;
        let massive = if len == 0 {
            0
        } else {
            (rng.next_u64() % (len as u64 + 1)) as usize
        };
        let spec = (s % 3 == 0).then(|| SystemSpec {
            m0: rng.range(0.5, 2.0),
            n1: rng.range(2.0, 4.0),
            n2: rng.range(0.2, 0.6),
            inner_truncation: rng.range(0.1, 0.3),
            outer_truncation: rng.range(3.0, 9.0),
        });
        many.push(Sys {
            len,
            massive,
            active: s % 7 != 3,
            spec,
        });
    }
    for semi in [false, true] {
        out.push((
            format!("40 systems, semi-active {semi}"),
            state(&mut rng, 12, &many, semi),
        ));
    }
    // Every changeover function in turn (the seed shifts which state gets which).
    out.into_iter()
        .enumerate()
        .map(|(k, (name, mut s))| {
            let c = Changeover::ALL[(k + seed as usize) % 3];
            s.layout.changeover = c;
            (format!("{name}, changeover {c}"), prepared(s, &p))
        })
        .collect()
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// Field `f` exported from both backends, as bits where it holds floats.
fn same_field(cpu: &mut CpuHybrid, dev: &mut DeviceHybrid, f: Field, what: &str) {
    let a = cpu.export_field(f).unwrap();
    let b = dev.export_field(f).unwrap();
    match (a, b) {
        (FieldData::Positions(a), FieldData::Positions(b))
        | (FieldData::Velocities(a), FieldData::Velocities(b))
        | (FieldData::Spins(a), FieldData::Spins(b)) => {
            for c in 0..3 {
                assert_eq!(bits(&a[c]), bits(&b[c]), "{what}: {f:?} component {c}");
            }
        }
        (FieldData::Masses(a), FieldData::Masses(b))
        | (FieldData::Radii(a), FieldData::Radii(b))
        | (FieldData::CriticalRadii(a), FieldData::CriticalRadii(b)) => {
            assert_eq!(bits(&a), bits(&b), "{what}: {f:?}")
        }
        (FieldData::Ids(a), FieldData::Ids(b)) => assert_eq!(a, b, "{what}: ids"),
        (FieldData::Layout(a), FieldData::Layout(b)) => assert_eq!(a, b, "{what}: layout"),
        (FieldData::Kick(a), FieldData::Kick(b)) => {
            assert_eq!(bits(&a.rcrit), bits(&b.rcrit), "{what}: kick radii");
            for c in 0..3 {
                assert_eq!(bits(&a.far[c]), bits(&b.far[c]), "{what}: far {c}");
                assert_eq!(bits(&a.near[c]), bits(&b.near[c]), "{what}: near {c}");
            }
            assert_eq!(a.radii_grew, b.radii_grew, "{what}: radii grew");
        }
        (FieldData::Candidates(a), FieldData::Candidates(b)) => {
            assert_eq!(a, b, "{what}: candidates")
        }
        (FieldData::Encounters(a), FieldData::Encounters(b)) => {
            assert_eq!(a, b, "{what}: encounters")
        }
        (FieldData::PreDrift(a), FieldData::PreDrift(b)) => {
            // The device saves every slot (identity index); the CPU the candidate bodies.
            let FieldData::Candidates(c) = cpu.export_field(Field::Candidates).unwrap() else {
                unreachable!()
            };
            for &(i, j) in &c {
                for k in [i as usize, j as usize] {
                    let sa = a.states[a.index[k] as usize];
                    let sb = b.states[b.index[k] as usize];
                    assert_eq!(bits(&sa), bits(&sb), "{what}: pre-drift state of slot {k}");
                }
            }
        }
        (a, b) => panic!("{what}: {:?} against {:?}", a.field(), b.field()),
    }
}

const BODY_FIELDS: [Field; 6] = [
    Field::Positions,
    Field::Velocities,
    Field::Masses,
    Field::Radii,
    Field::Spins,
    Field::Ids,
];

#[test]
fn energies_are_bitwise_the_cpu() {
    let Some(mut dev) = device_or_skip("energies_are_bitwise_the_cpu") else {
        return;
    };
    let p = params();
    for seed in [1, 2] {
        for (name, snap) in states(seed) {
            let mut cpu = both(&mut dev, &snap);
            let a = cpu.energies(&p);
            let b = dev.energies(&p);
            dev.status().unwrap();
            assert_eq!(a.len(), b.len(), "{name}");
            for (s, (a, b)) in a.iter().zip(&b).enumerate() {
                let fa = [
                    a.kinetic,
                    a.potential,
                    a.angular_momentum[0],
                    a.angular_momentum[1],
                ];
                let fb = [
                    b.kinetic,
                    b.potential,
                    b.angular_momentum[0],
                    b.angular_momentum[1],
                ];
                assert_eq!(bits(&fa), bits(&fb), "{name}: system {s}");
                assert_eq!(
                    a.angular_momentum[2].to_bits(),
                    b.angular_momentum[2].to_bits(),
                    "{name}: system {s}"
                );
            }
        }
    }
    common::device::params_match_the_ptx(
        dev.gpu(),
        &[
            "orr_energy_pairs",
            "orr_energy_sums",
            "orr_energy_sums_group",
            "orr_drift",
        ],
    );
}

#[test]
fn critical_radii_kick_and_sun_kick_are_bitwise_the_cpu() {
    let Some(mut dev) = device_or_skip("critical_radii_kick_and_sun_kick_are_bitwise_the_cpu")
    else {
        return;
    };
    for (name, snap) in states(3) {
        for tau in [0.1, -0.05, 3.0] {
            let p = StepParams { tau, ..params() };
            let mut cpu = both(&mut dev, &snap);
            cpu.critical_radii(&p);
            dev.critical_radii(&p);
            same_field(&mut cpu, &mut dev, Field::CriticalRadii, &name);
            same_field(&mut cpu, &mut dev, Field::Kick, &name);
            cpu.kick(0.5 * tau);
            dev.kick(0.5 * tau);
            same_field(&mut cpu, &mut dev, Field::Velocities, &name);
            cpu.sun_kick(&p, 0.5 * tau);
            dev.sun_kick(&p, 0.5 * tau);
            same_field(&mut cpu, &mut dev, Field::Positions, &name);
            dev.status().unwrap();
        }
    }
    common::device::params_match_the_ptx(
        dev.gpu(),
        &["orr_sun_shift", "orr_sun_shift_group", "orr_sun_move"],
    );
    // Critical radii exactly where the velocity and Hill terms meet, and bodies at rest.
    let mut rng = Rng::new(99);
    let mut snap = state(&mut rng, 8, &[sys(8, 6)], false);
    for k in 0..8 {
        let mut b = snap.bodies.get(k);
        if k % 2 == 0 {
            b.vel = [0.0; 3];
        }
        snap.bodies.set(k, &b);
    }
    let p = params();
    let mut cpu = both(&mut dev, &snap);
    cpu.critical_radii(&p);
    dev.critical_radii(&p);
    same_field(&mut cpu, &mut dev, Field::CriticalRadii, "bodies at rest");
    same_field(&mut cpu, &mut dev, Field::Kick, "bodies at rest");
}

/// KickA: the near terms of the listed pairs with new critical radii (or the full pass where a
/// radius grew) are the CPU's bits, on states whose lists join massive bodies, test particles
/// (passive and semi-active) and many systems.
#[test]
fn opening_kick_refresh_is_bitwise_the_cpu() {
    let Some(mut dev) = device_or_skip("opening_kick_refresh_is_bitwise_the_cpu") else {
        return;
    };
    let mut refreshed = Vec::new();
    for (name, snap) in states(5) {
        for tau in [0.1, 0.5, 3.0] {
            let p = StepParams { tau, ..params() };
            let mut cpu = both(&mut dev, &snap);
            let FieldData::Candidates(listed) = cpu.export_field(Field::Candidates).unwrap() else {
                unreachable!()
            };
            cpu.critical_radii(&p);
            dev.critical_radii(&p);
            let FieldData::Kick(kick) = cpu.export_field(Field::Kick).unwrap() else {
                unreachable!()
            };
            cpu.refresh_accelerations();
            dev.refresh_accelerations();
            let what = format!("{name}, tau {tau}");
            same_field(&mut cpu, &mut dev, Field::Kick, &what);
            dev.status().unwrap();
            if !listed.is_empty() && !kick.radii_grew {
                refreshed.push(what);
            }
        }
    }
    for kind in [
        "main",
        "semi-active false",
        "semi-active true",
        "40 systems",
    ] {
        assert!(
            refreshed.iter().any(|w| w.contains(kind)),
            "no state of kind '{kind}' ran KickA with pairs: {refreshed:?}"
        );
    }
    common::device::params_match_the_ptx(
        dev.gpu(),
        &[
            "orr_refresh_near",
            "orr_incidence_clear",
            "orr_incidence_count",
            "orr_incidence_fill",
            "orr_scan_blocks",
            "orr_scan_totals",
        ],
    );
}

/// Eccentricity and energy of a heliocentric state around `mu`.
fn orbit(mu: f64, x: [f64; 3], v: [f64; 3]) -> (f64, f64) {
    let r = (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt();
    let v2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    let rv = x[0] * v[0] + x[1] * v[1] + x[2] * v[2];
    let e: [f64; 3] = std::array::from_fn(|c| ((v2 - mu / r) * x[c] - rv * v[c]) / mu);
    (
        (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]).sqrt(),
        0.5 * v2 - mu / r,
    )
}

#[test]
fn drift_is_bitwise_on_the_lane_path_and_bounded_on_the_scalar_fallback() {
    let Some(mut dev) =
        device_or_skip("drift_is_bitwise_on_the_lane_path_and_bounded_on_the_scalar_fallback")
    else {
        return;
    };
    let (mut worst, mut fallback_bodies, mut fallback_differ) = (0.0f64, 0, 0);
    for seed in [4, 5] {
        for (name, snap) in states(seed) {
            for dt in [0.1, -0.3, 7.0] {
                let p = params();
                let mut cpu = both(&mut dev, &snap);
                cpu.drift(&p, dt);
                dev.drift(&p, dt);
                let (ra, rb) = (cpu.status(), dev.status());
                assert_eq!(ra.is_ok(), rb.is_ok(), "{name}: drift failure");
                let get = |d: FieldData| match d {
                    FieldData::Positions(v) | FieldData::Velocities(v) => v,
                    _ => unreachable!(),
                };
                let xa = get(cpu.export_field(Field::Positions).unwrap());
                let xb = get(dev.export_field(Field::Positions).unwrap());
                let va = get(cpu.export_field(Field::Velocities).unwrap());
                let vb = get(dev.export_field(Field::Velocities).unwrap());
                let b0 = &snap.bodies;
                for k in 0..b0.len() {
                    let s = k / snap.layout.block;
                    let sy = &snap.layout.systems[s];
                    let mu = sy.spec.map_or(p.m0, |sp| sp.m0);
                    let (e, energy) = orbit(mu, b0.get(k).pos, b0.get(k).vel);
                    let scalar = e >= 0.9 || energy >= 0.0;
                    let same = (0..3).all(|c| {
                        xa[c][k].to_bits() == xb[c][k].to_bits()
                            && va[c][k].to_bits() == vb[c][k].to_bits()
                    });
                    if scalar && sy.active && k % snap.layout.block < sy.len {
                        fallback_bodies += 1;
                    }
                    if same {
                        continue;
                    }
                    assert!(
                        scalar,
                        "{name}, dt {dt}: slot {k} (e {e}, energy {energy}) on the lane path \
                         differs"
                    );
                    fallback_differ += 1;
                    let norm =
                        |a: &[Vec<f64>; 3]| (0..3).map(|c| a[c][k] * a[c][k]).sum::<f64>().sqrt();
                    let dx = (0..3)
                        .map(|c| (xa[c][k] - xb[c][k]).powi(2))
                        .sum::<f64>()
                        .sqrt()
                        / norm(&xa);
                    let dv = (0..3)
                        .map(|c| (va[c][k] - vb[c][k]).powi(2))
                        .sum::<f64>()
                        .sqrt()
                        / norm(&va);
                    worst = worst.max(dx).max(dv);
                    assert!(
                        dx <= 1e-13 && dv <= 1e-13,
                        "{name}, dt {dt}: slot {k} (e {e}) differs by {dx:e} / {dv:e}"
                    );
                }
            }
        }
    }
    let _ = writeln!(
        std::io::stderr(),
        "drift: {fallback_bodies} body-drifts on the scalar fallback, {fallback_differ} not \
         bitwise, worst relative difference {worst:e}"
    );
}

#[test]
fn save_candidates_and_encounter_search_are_bitwise_the_cpu() {
    let Some(mut dev) = device_or_skip("save_candidates_and_encounter_search_are_bitwise_the_cpu")
    else {
        return;
    };
    let p = params();
    let mut searched = (0u64, 0u64);
    for seed in [6, 7] {
        for (name, snap) in states(seed) {
            for dt in [0.1, 2.0, -0.5] {
                let mut cpu = both(&mut dev, &snap);
                cpu.save_candidate_states();
                dev.save_candidate_states();
                same_field(&mut cpu, &mut dev, Field::PreDrift, &name);
                drift_on_the_cpu(&mut cpu, &mut dev, &p, dt);
                let (sa, sb) = (cpu.status().unwrap(), dev.status().unwrap());
                assert_eq!(sa, sb, "{name}, dt {dt}: status");
                searched.0 += sa.candidates;
                searched.1 += sa.encounters;
                same_field(&mut cpu, &mut dev, Field::Encounters, &name);
            }
        }
    }
    assert!(
        searched.0 > 100 && searched.1 > 10,
        "few pairs: {searched:?}"
    );
    let _ = writeln!(
        std::io::stderr(),
        "search: {} candidate pairs, {} confirmed",
        searched.0,
        searched.1
    );
}

#[test]
fn encounter_search_is_bitwise_at_the_edges_and_with_no_candidates() {
    let Some(mut dev) =
        device_or_skip("encounter_search_is_bitwise_at_the_edges_and_with_no_candidates")
    else {
        return;
    };
    // Hand-made pairs: 2 massive bodies and test particles; body 0 at (0, 1, 0) at rest,
    // partners at exactly max(rcrit) along an axis at the end of the drift, 1 ulp inside and
    // outside, zero relative velocity, head-on through each other, and NaN.
    let n = 12;
    let mut rng = Rng::new(11);
    for semi in [false, true] {
        let mut snap = state(&mut rng, n, &[sys(n, 2)], semi);
        let rc = 0.0625; // exact in binary: rc^2 exact
        let mut x = [vec![0.0; n], vec![0.0; n], vec![0.0; n]];
        let mut v = [vec![0.0; n], vec![0.0; n], vec![0.0; n]];
        x[1] = vec![1.0; n];
        let offsets = [
            rc,
            rc * (1.0 - f64::EPSILON / 2.0),
            rc * (1.0 + f64::EPSILON),
            0.5 * rc,
            -rc,
            2.0 * rc,
            0.0,
            rc,
            f64::NAN,
            3.0 * rc,
            rc,
        ];
        for (k, off) in (1..n).zip(offsets) {
            x[0][k] = off;
            if k == 5 {
                v[0][k] = -40.0 * rc; // passes through body 0 during the drift
            }
            if k == 9 {
                v[1][k] = 1.0;
            }
        }
        let pre = PreDriftStates {
            states: (0..n)
                .map(|k| {
                    let mut s = [x[0][k], x[1][k], x[2][k], v[0][k], v[1][k], v[2][k]];
                    if k == 5 {
                        s[0] = 2.0 * rc;
                    }
                    if k == 9 {
                        s[1] = 0.9;
                    }
                    s
                })
                .collect(),
            index: (0..n as u32).rev().map(|k| n as u32 - 1 - k).collect(),
        };
        let rcrit: Vec<f64> = (0..n).map(|k| if k == 0 { rc } else { rc / 2.0 }).collect();
        let mut candidates: Vec<(u32, u32)> = (1..n as u32).map(|j| (0, j)).collect();
        candidates.push((1, 7));
        snap.rcrit = Vec::new();
        let mut cpu = both(&mut dev, &snap);
        for list in [Vec::new(), candidates] {
            for be in [&mut cpu as &mut dyn FieldTransfer, &mut dev] {
                be.import_field(FieldData::Positions(x.clone())).unwrap();
                be.import_field(FieldData::Velocities(v.clone())).unwrap();
                be.import_field(FieldData::CriticalRadii(rcrit.clone()))
                    .unwrap();
                be.import_field(FieldData::PreDrift(pre.clone())).unwrap();
                be.import_field(FieldData::Candidates(list.clone()))
                    .unwrap();
            }
            for dt in [0.1, -0.1] {
                cpu.encounter_search(dt);
                dev.encounter_search(dt);
                let (sa, sb) = (cpu.status().unwrap(), dev.status().unwrap());
                assert_eq!(sa, sb, "semi {semi}, {} pairs", list.len());
                same_field(&mut cpu, &mut dev, Field::Encounters, "edges");
                if !list.is_empty() {
                    let FieldData::Encounters(EncounterPairs {
                        pairs,
                        test_particles,
                    }) = dev.export_field(Field::Encounters).unwrap()
                    else {
                        unreachable!()
                    };
                    assert!(
                        pairs.len() + test_particles.len() >= 4,
                        "{sa:?} {pairs:?} {test_particles:?}"
                    );
                    assert_eq!(test_particles.is_empty(), semi);
                }
            }
        }
    }
}

#[test]
fn ejections_are_bitwise_the_cpu() {
    let Some(mut dev) = device_or_skip("ejections_are_bitwise_the_cpu") else {
        return;
    };
    let p = params();
    let mut rng = Rng::new(12);
    let mut total = 0;
    for (name, mut snap) in states(8) {
        // Move some bodies just inside the inner and beyond the outer radius, exactly onto
        // them, and 1 ulp across, massive bodies and test particles alike.
        let block = snap.layout.block;
        for k in 0..snap.bodies.len() {
            let s = k / block;
            let sy = snap.layout.systems[s];
            if k % block >= sy.len || !rng.next_u64().is_multiple_of(9) {
                continue;
            }
            let sp = sy.spec.unwrap_or_else(|| (&p).into());
            let mut b = snap.bodies.get(k);
            let r = match rng.next_u64() % 6 {
                0 => sp.inner_truncation * 0.5,
                1 => sp.outer_truncation * 1.5,
                2 => sp.inner_truncation,
                3 => sp.outer_truncation,
                4 => sp.inner_truncation * (1.0 - f64::EPSILON),
                _ => sp.outer_truncation * (1.0 + f64::EPSILON),
            };
            b.pos = [r, 0.0, 0.0];
            snap.bodies.set(k, &b);
        }
        let mut cpu = both(&mut dev, &snap);
        for round in 0..2 {
            let a = cpu.ejections(&p);
            let b = dev.ejections(&p);
            dev.status().unwrap();
            total += a.len();
            assert_eq!(format!("{a:?}"), format!("{b:?}"), "{name}: ejections");
            for f in BODY_FIELDS.into_iter().chain([
                Field::Layout,
                Field::CriticalRadii,
                Field::Candidates,
            ]) {
                same_field(&mut cpu, &mut dev, f, &format!("{name}, round {round}"));
            }
            if round == 0 {
                // The removed bodies no longer pull; the next step starts from here.
                cpu.accelerations();
                for f in [Field::Kick, Field::Candidates] {
                    dev.import_field(cpu.export_field(f).unwrap()).unwrap();
                }
            }
        }
        // The energies of the state after the removals.
        let (ea, eb) = (cpu.energies(&p), dev.energies(&p));
        assert_eq!(format!("{ea:?}"), format!("{eb:?}"), "{name}: energies");
    }
    assert!(total > 20, "few ejections: {total}");
    common::device::params_match_the_ptx(
        dev.gpu(),
        &["orr_bodies_gather", "orr_apply_moves", "orr_ejection_check"],
    );
}

/// Drift on the CPU and give the device the same drifted state (the drift has its own test),
/// then search on both.
fn drift_on_the_cpu(cpu: &mut CpuHybrid, dev: &mut DeviceHybrid, p: &StepParams, dt: f64) {
    cpu.drift(p, dt);
    let _ = cpu.status();
    for f in [Field::Positions, Field::Velocities] {
        dev.import_field(cpu.export_field(f).unwrap()).unwrap();
    }
    cpu.encounter_search(dt);
    dev.encounter_search(dt);
}

#[test]
fn bulirsch_stoer_and_mergers_are_bitwise_the_cpu() {
    // Encounter groups of clumped bodies, integrated by the device's Bulirsch-Stoer and written
    // back; with radii inflated, many groups collide and go through the host's merger path. The
    // bodies, layout, critical radii, candidates, collision records and counters must be the
    // CPU's bits either way.
    let Some(mut dev) = device_or_skip("bulirsch_stoer_and_mergers_are_bitwise_the_cpu") else {
        return;
    };
    let p = params();
    let opts = BsOptions::default();
    let (mut groups, mut collisions) = (0u64, 0usize);
    for seed in [31, 32] {
        for (name, snap) in states(seed) {
            for (inflate, dt) in [(1.0, 0.1), (300.0, 0.1), (1.0, -0.5)] {
                let what = format!("{name}, radii x{inflate}, dt {dt}");
                let mut snap = snap.clone();
                for r in &mut snap.bodies.r {
                    *r *= inflate;
                }
                let mut cpu = both(&mut dev, &prepared(snap, &p));
                cpu.save_candidate_states();
                dev.save_candidate_states();
                drift_on_the_cpu(&mut cpu, &mut dev, &p, dt);
                let (sa, sb) = (cpu.status().unwrap(), dev.status().unwrap());
                assert_eq!(sa, sb, "{what}: status");
                if sa.encounters == 0 {
                    continue;
                }
                let (mut st_a, mut st_b) = (EncounterStats::default(), EncounterStats::default());
                cpu.group_encounters(&mut st_a).unwrap();
                dev.group_encounters(&mut st_b).unwrap();
                cpu.integrate_groups(&p, dt, &opts);
                dev.integrate_groups(&p, dt, &opts);
                match (
                    cpu.apply_groups(&p, &mut st_a),
                    dev.apply_groups(&p, &mut st_b),
                ) {
                    (Ok(a), Ok(b)) => {
                        assert_eq!(a, b, "{what}: collision records");
                        collisions += a.len();
                    }
                    (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{what}"),
                    (a, b) => panic!("{what}: CPU {a:?}, device {b:?}"),
                }
                assert_eq!(st_a, st_b, "{what}: counters");
                groups += st_a.groups;
                let rest = [Field::Layout, Field::CriticalRadii, Field::Candidates];
                for f in BODY_FIELDS.into_iter().chain(rest) {
                    same_field(&mut cpu, &mut dev, f, &what);
                }
            }
        }
    }
    let (on_device, on_host) = dev.bulirsch_stoer_groups();
    let _ = writeln!(
        std::io::stderr(),
        "Bulirsch-Stoer: {groups} groups, {on_device} finished on the device, {on_host} handed \
         back, {collisions} collisions"
    );
    assert!(
        on_device > 30 && on_host > 5 && collisions > 5,
        "the test must reach both paths: {on_device} on the device, {on_host} on the host, \
         {collisions} collisions"
    );
    common::device::params_match_the_ptx(
        dev.gpu(),
        &[
            "orr_bs_groups",
            "orr_group_gather",
            "orr_group_scatter",
            "orr_link_pairs",
        ],
    );
}
