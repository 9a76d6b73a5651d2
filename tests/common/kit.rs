//! The test kit: the builders and comparisons the integration tests share (step parameters, a
//! CPU backend holding given systems, heliocentric read-back, bit comparisons). Random numbers
//! come from the project's generator, `orrery::rng::Rng`.

use orrery::backend::{self, BackendChoice, HybridBackend, PassSet};
use orrery::hybrid::stepper::Stepper;
use orrery::model::{HybridSnapshot, Layout, StepParams, System, SystemSpec};
use orrery::physics::forces::Forces;
use orrery::physics::recursion::Recursion;
use orrery::state::{Bodies, Body};
use orrery::units;

/// Step parameters around `m0` with a step of `dt_days`: GENGA's n1 = 3 and n2 = 0.4,
/// truncation radii 0.1 and 100 AU, no extra forces, no recursive sub-steps. Tests change what
/// they need with `StepParams { .., ..step_params(m0, dt) }`.
pub fn step_params(m0: f64, dt_days: f64) -> StepParams {
    StepParams {
        m0,
        tau: units::days_to_code(dt_days),
        n1: 3.0,
        n2: 0.4,
        inner_truncation: 0.1,
        outer_truncation: 100.0,
        forces: Forces::NONE,
        recursion: Recursion::OFF,
        rcrit_floor: 0.0,
    }
}

/// A CPU backend holding `systems` (each a list of heliocentric bodies, its first `massive`
/// massive; shorter systems padded with empty slots far out) in democratic coordinates, with a
/// second-order stepper. `edit` adjusts the layout first (a changeover, a central spin).
pub fn cpu_start(
    p: &StepParams,
    systems: &[Vec<Body>],
    massive: usize,
    edit: impl FnOnce(&mut Layout),
) -> (Box<dyn HybridBackend>, Stepper) {
    let block = systems
        .iter()
        .map(Vec::len)
        .max()
        .expect("at least one system");
    let mut b = Bodies::default();
    for sys in systems {
        let mut one = Bodies::from_bodies(sys);
        one.to_democratic(p.m0);
        b.extend_from(&one, 0..one.len());
        let hole = Body::without_spin(u64::MAX, 0.0, 0.0, [9.0, 0.0, 0.0], [0.0; 3]);
        for _ in sys.len()..block {
            b.push(&hole);
        }
    }
    let mut layout = Layout {
        block,
        systems: systems
            .iter()
            .map(|s| System {
                len: s.len(),
                massive: massive.min(s.len()),
                spec: (systems.len() > 1).then(|| SystemSpec::from(p)),
                active: true,
                central_spin: [0.0; 3],
            })
            .collect(),
        ..Layout::single(0, 0)
    };
    edit(&mut layout);
    let mut be = backend::create(BackendChoice::Cpu, PassSet::NONE, None).expect("CPU backend");
    be.restore(HybridSnapshot {
        bodies: b,
        layout,
        ..Default::default()
    });
    let stepper = Stepper::new(*p, 2, be.as_mut(), true).expect("stepper");
    (be, stepper)
}

/// The bodies of system `s` as heliocentric values.
pub fn heliocentric(be: &mut dyn HybridBackend, m0: f64, s: usize) -> Vec<Body> {
    let mut b = be.bodies(s);
    let shift = b.heliocentric_velocity_shift(m0);
    b.add_velocity(shift, 1.0);
    (0..b.len()).map(|k| b.get(k)).collect()
}

/// Assert that `a` and `b` hold the same bits, naming the first difference.
pub fn assert_same_bits(what: &str, a: &[f64], b: &[f64]) {
    assert_eq!(a.len(), b.len(), "{what}: lengths differ");
    if let Some(k) = (0..a.len()).find(|&k| a[k].to_bits() != b[k].to_bits()) {
        panic!("{what}: entry {k} differs: {:e} vs {:e}", a[k], b[k]);
    }
}

/// Assert that two bodies lists hold the same bits in every field.
pub fn assert_same_bodies(what: &str, a: &[Body], b: &[Body]) {
    assert_eq!(a.len(), b.len(), "{what}: body counts differ");
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        let flat = |q: &Body| {
            let mut v = vec![q.m, q.r];
            v.extend(q.pos);
            v.extend(q.vel);
            v.extend(q.spin);
            v
        };
        assert_eq!(x.id, y.id, "{what}: body {k} ids");
        assert_same_bits(&format!("{what}: body {k}"), &flat(x), &flat(y));
    }
}
