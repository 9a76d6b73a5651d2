//! Long-term conservation and convergence of the regular hybrid step on the outer solar system.

mod common;
use orrery::backend::{self, BackendChoice, HybridBackend, PassSet};
use orrery::config::{self, Overrides};
use orrery::hybrid::stepper::Stepper;
use orrery::model::StepCounts;
use orrery::model::{HybridSnapshot, StepParams};
use orrery::physics::energy::norm;
use orrery::state::Bodies;

struct Trace {
    /// |E - E0| / |E0| at each sample.
    energy: Vec<f64>,
    /// max |L - L0| / |L0| over the samples.
    max_angular_momentum: f64,
}

/// Integrate the outer solar system with `order` and `dt_days` for `steps`, sampling the energy
/// every `every` steps.
fn outer_solar_system(order: u8, dt_days: f64, steps: u64, every: u64) -> Trace {
    let path = common::inputs().join("outer_solar_system.ron");
    let (cfg, bodies) = config::load(&path, &Overrides::default()).expect("scenario loads");
    let params = StepParams {
        m0: cfg.central_mass,
        tau: orrery::units::days_to_code(dt_days),
        n1: cfg.n1,
        n2: cfg.n2,
        inner_truncation: cfg.inner_truncation,
        outer_truncation: cfg.outer_truncation,
        forces: orrery::physics::forces::Forces::NONE,
        recursion: orrery::physics::recursion::Recursion::OFF,
        rcrit_floor: 0.0,
    };
    let mut b = Bodies::from_bodies(&bodies);
    b.to_democratic(cfg.central_mass);
    let mut be: Box<dyn HybridBackend> =
        backend::create(BackendChoice::Cpu, PassSet::NONE, None).unwrap();
    be.restore(HybridSnapshot {
        bodies: b,
        ..Default::default()
    });
    let e0 = be.energies(&params)[0];
    let (en0, l0) = (e0.kinetic + e0.potential, e0.angular_momentum);
    let mut stepper = Stepper::new(params, order, be.as_mut(), true).unwrap();
    let mut trace = Trace {
        energy: Vec::new(),
        max_angular_momentum: 0.0,
    };
    let mut counts = StepCounts::default();
    for s in 1..=steps {
        let ejected = stepper.step(be.as_mut(), &mut counts).expect("step");
        assert!(ejected.ejections.is_empty() && ejected.collisions.is_empty());
        if s % every == 0 {
            let e = be.energies(&params)[0];
            trace
                .energy
                .push(((e.kinetic + e.potential - en0) / en0).abs());
            let l = e.angular_momentum;
            let dl = norm([l[0] - l0[0], l[1] - l0[1], l[2] - l0[2]]) / norm(l0);
            trace.max_angular_momentum = trace.max_angular_momentum.max(dl);
        }
    }
    assert_eq!(counts.encounters, 0);
    trace
}

fn max(v: &[f64]) -> f64 {
    v.iter().cloned().fold(0.0, f64::max)
}

/// 10^5 steps of 50 days (13,700 years): the energy error stays bounded with no secular drift and
/// the angular momentum is conserved to round-off.
#[test]
fn outer_solar_system_energy_is_bounded_and_angular_momentum_conserved() {
    let t = outer_solar_system(2, 50.0, 100_000, 100);
    let n = t.energy.len();
    let (first, second) = (max(&t.energy[..n / 2]), max(&t.energy[n / 2..]));
    let worst = first.max(second);
    println!(
        "max |dE/E| first half {first:.3e}, second half {second:.3e}; max |dL/L| {:.3e}",
        t.max_angular_momentum
    );
    // Measured: max |dE/E| 2.58e-7 in the first half, 2.61e-7 in the second (the oscillation of
    // the second-order democratic-heliocentric splitting at dt = 50 d); asserted with a margin.
    // regression bound: measured 2.61e-7 on 2026-11-22.
    const ENERGY_REGRESSION_BOUND: f64 = 5e-7;
    assert!(worst < ENERGY_REGRESSION_BOUND, "energy error {worst:e}");
    // No secular drift: the second half is not worse than the first beyond the oscillation.
    assert!(
        second < 1.5 * first,
        "energy error grows: {first:e} -> {second:e}"
    );
    assert!(
        t.max_angular_momentum < 1e-12,
        "angular momentum error {:e}",
        t.max_angular_momentum
    );
}

/// The energy error of order p falls as dt^p: halving dt divides it by about 2^p.
#[test]
fn yoshida_orders_converge_at_their_order() {
    for (order, dt, lo, hi) in [
        (2u8, 100.0, 1.7, 2.4),
        (4, 200.0, 3.5, 4.6),
        (6, 400.0, 5.3, 6.8),
    ] {
        let years = 2000.0;
        let err = |dt: f64| {
            let steps = (years * 365.25 / dt).round() as u64;
            max(&outer_solar_system(order, dt, steps, 10).energy)
        };
        let (coarse, fine) = (err(dt), err(dt / 2.0));
        let slope = (coarse / fine).log2();
        println!(
            "order {order}: dt {dt} -> {coarse:.3e}, dt {} -> {fine:.3e}, slope {slope:.2}",
            dt / 2.0
        );
        assert!(slope > lo && slope < hi, "order {order}: slope {slope}");
    }
}
