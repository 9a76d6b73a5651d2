//! One small system (issue 16): a substep without candidate pairs runs fused
//! (`HybridBackend::fused_substep`), all other substeps and every timed step run the passes one
//! by one. Both must give the same bits, through encounters, Bulirsch-Stoer and mergers, at
//! every order.

use orrery::backend::{self, BackendChoice, HybridBackend, PassSet};
use orrery::hybrid::stepper::Stepper;
use orrery::hybrid::yoshida::substep_weights;
use orrery::model::{HybridSnapshot, StepCounts, StepParams};
use orrery::physics::forces::{ForceSettings, Forces};
use orrery::state::{Bodies, Body};
use orrery::units;

const M0: f64 = 1.0;

/// The Sun with a giant planet, two super-Earths on crossing eccentric orbits (frequent close
/// encounters, with radii large enough to merge now and then) and two distant planets.
fn crossing_system() -> Vec<Body> {
    let planet = |id: u64, m: f64, a: f64, phase: f64, e: f64, r: f64| {
        // At perihelion q = a (1 - e) with the perihelion speed of the orbit.
        let q = a * (1.0 - e);
        let v = ((M0 + m) * (1.0 + e) / q).sqrt();
        Body {
            id,
            m,
            r,
            pos: [
                q * phase.cos(),
                q * phase.sin(),
                0.01 * q * (id as f64).sin(),
            ],
            vel: [-v * phase.sin(), v * phase.cos(), 0.0],
            spin: [0.0; 3],
        }
    };
    vec![
        planet(0, 1e-4, 1.0, 0.0, 0.2, 4e-3),
        planet(1, 5e-5, 1.1, 0.35, 0.3, 4e-3),
        planet(2, 1e-3, 5.2, 2.0, 0.05, 4.7e-4),
        planet(3, 3e-4, 9.5, 4.0, 0.05, 3.9e-4),
        planet(4, 1e-6, 1.6, 5.0, 0.1, 1e-4),
    ]
}

/// The final bodies, the counters and the mergers' times (in steps) of a run.
fn run(
    order: u8,
    steps: u64,
    every_step_timed: bool,
    forces: Forces,
) -> (Bodies, StepCounts, Vec<f64>) {
    let p = StepParams {
        m0: M0,
        tau: units::days_to_code(4.0),
        n1: 3.0,
        n2: 0.4,
        inner_truncation: 0.05,
        outer_truncation: 100.0,
        forces,
        recursion: orrery::physics::recursion::Recursion::OFF,
        rcrit_floor: 0.0,
    };
    let mut b = Bodies::from_bodies(&crossing_system());
    b.to_democratic(M0);
    let mut be: Box<dyn HybridBackend> =
        backend::create(BackendChoice::Cpu, PassSet::NONE, None).unwrap();
    be.restore(HybridSnapshot {
        bodies: b,
        ..Default::default()
    });
    let mut stepper = Stepper::new(p, order, be.as_mut(), true).unwrap();
    if every_step_timed {
        stepper.time_every_step();
    }
    let mut counts = StepCounts::default();
    let mut merged = Vec::new();
    for step in 0..steps {
        let events = stepper.step(be.as_mut(), &mut counts).unwrap();
        merged.extend(
            events
                .collisions
                .iter()
                .map(|c| step as f64 + c.time_offset / p.tau),
        );
    }
    (be.bodies(0), counts, merged)
}

/// Every number of body `k` as bits (so that -0 and 0, or two NaNs, are told apart as stored).
fn bits(b: &Bodies, k: usize) -> Vec<u64> {
    let body = b.get(k);
    let numbers = [body.m, body.r].into_iter().chain(body.pos).chain(body.vel);
    let mut out: Vec<u64> = numbers.chain(body.spin).map(f64::to_bits).collect();
    out.push(body.id);
    out
}

/// Substeps per step of the composition of `order`.
fn order_substeps(order: u8) -> u64 {
    substep_weights(order).expect("an order").len() as u64
}

/// The forces of the test: none, and GR with J2 and radiation (issue 26), whose potential kick
/// the fused substep carries.
fn force_cases() -> [Forces; 2] {
    let all = ForceSettings {
        gr: true,
        j2: 1e-3,
        j2_radius: 0.01,
        central_spin: [0.1, 0.0, 1.0],
        poynting_robertson: true,
        solar_constant: 1e9,
        ..Default::default()
    };
    [Forces::NONE, Forces::resolve(&all)]
}

#[test]
fn fused_substeps_give_the_bits_of_the_passes_through_encounters_and_mergers() {
    for (order, forces) in [2, 4, 6]
        .into_iter()
        .flat_map(|o| force_cases().map(|f| (o, f)))
    {
        let steps = 20_000 / order as u64;
        let substeps = steps * order_substeps(order);
        let (fused, counts, merged) = run(order, steps, false, forces);
        let (passes, counts_passes, merged_passes) = run(order, steps, true, forces);
        println!(
            "order {order}: {} candidates, {} encounters, mergers at steps {merged:?}, {} of \
             {substeps} substeps fused",
            counts.candidates, counts.encounters, counts.fused_substeps
        );
        assert!(
            counts.candidates > 0 && counts.encounters > 0,
            "order {order}: no encounters"
        );
        // The forces move the crossing orbits off their merger at some orders.
        assert!(
            !merged.is_empty() || forces != Forces::NONE,
            "order {order}: no merger"
        );
        // Most substeps have no candidates and fuse; every step of the other run is timed.
        assert!(
            counts.fused_substeps > substeps / 2,
            "order {order}: {} substeps fused",
            counts.fused_substeps
        );
        assert_eq!(counts_passes.fused_substeps, 0);
        let merged_bits = |m: &[f64]| m.iter().map(|t| t.to_bits()).collect::<Vec<_>>();
        assert_eq!(
            merged_bits(&merged),
            merged_bits(&merged_passes),
            "order {order}"
        );
        assert_eq!(counts.candidates, counts_passes.candidates, "order {order}");
        assert_eq!(counts.encounters, counts_passes.encounters, "order {order}");
        assert_eq!(fused.len(), passes.len(), "order {order}");
        for k in 0..fused.len() {
            assert_eq!(bits(&fused, k), bits(&passes, k), "order {order}, body {k}");
        }
    }
}
