//! Tests of the recursive sub-steps: the weights' partition of unity, convergence to the
//! Bulirsch-Stoer flow of the same Hamiltonian as the sub-steps shrink, and a merger at the
//! deepest level.

use super::*;
use crate::physics::bulirsch_stoer::integrate_group;
use crate::state::Body;

const M0: f64 = 1.0;
/// 6 days in code units (G = 1, AU, Msun).
const H: f64 = 6.0 * 0.01720209895;

fn system() -> LevelSystem {
    LevelSystem {
        m0: M0,
        n1: 3.0,
        n2: 0.4,
    }
}

/// Circular speed at `r` around `M0`.
fn vcirc(r: f64) -> f64 {
    (M0 / r).sqrt()
}

/// A group of the bodies `bodies` with their top-level critical radii (eq. 6, step `H`).
fn group(bodies: &[Body]) -> GroupState {
    let mut g = GroupState::new();
    for b in bodies {
        let r = b.pos.iter().map(|x| x * x).sum::<f64>().sqrt();
        let v = b.vel.iter().map(|x| x * x).sum::<f64>().sqrt();
        g.push(b, critical_radius(3.0, 0.4, H, b.m, M0, r, v));
    }
    g
}

/// A close pair near 1 AU: an embryo and a planetesimal 0.004 AU apart, drifting past each other
/// within one step (inside each other's critical radius the whole step).
fn close_pair() -> Vec<Body> {
    let (r1, r2) = (1.0, 1.004);
    vec![
        Body::without_spin(1, 3e-7, 0.0, [r1, 0.0, 0.0], [0.0, vcirc(r1), 0.0]),
        Body::without_spin(2, 1e-9, 0.0, [r2, -0.002, 1e-4], [0.0, vcirc(r2), 2e-4]),
    ]
}

/// The group of `bodies` over `H` by recursive sub-steps `rec`: its end state, the levels'
/// groups and the mergers.
fn integrate_levels(
    bodies: &[Body],
    rec: Recursion,
) -> (GroupState, LevelStats, Vec<CollisionEvent>) {
    let mut g = group(bodies);
    let mut stats = LevelStats::default();
    let mut events = Vec::new();
    integrate_group_levels(
        system(),
        H,
        rec,
        &mut g,
        &[(0, 1)],
        &mut LevelWorkspace::default(),
        &BsOptions::default(),
        &mut events,
        &mut stats,
    )
    .expect("levels integrate");
    (g, stats, events)
}

fn distance(a: &GroupState, b: &GroupState) -> f64 {
    (0..a.len())
        .map(|k| {
            (0..3)
                .map(|c| (a.pos[k][c] - b.pos[k][c]).powi(2))
                .sum::<f64>()
                .sqrt()
        })
        .fold(0.0, f64::max)
}

#[test]
fn the_levels_weights_and_the_remainder_sum_to_one() {
    for changeover in Changeover::ALL {
        let (n, levels) = (2, 4);
        // Radii shrinking level by level, with equal neighbours too (a Hill-dominated level).
        let radii: Vec<f64> = [0.05, 0.05, 0.02, 0.02, 0.02, 0.01, 0.004, 0.003].to_vec();
        for q in 0..400 {
            let r = 1e-4 + 0.06 * q as f64 / 400.0;
            let mut total = 0.0;
            let mut rest = 1.0;
            for level in 0..levels {
                total += level_weight(changeover, &radii, n, level, r, 0, 1);
                let rc = radii[level * n].max(radii[level * n + 1]);
                rest *= 1.0 - changeover.k(r, rc);
            }
            assert!(
                (total + rest - 1.0).abs() < 1e-14,
                "{changeover}: r {r}: levels {total} + remainder {rest} != 1"
            );
        }
    }
}

#[test]
fn sub_steps_converge_to_the_bulirsch_stoer_flow_at_second_order() {
    let bodies = close_pair();
    // The same Hamiltonian (Kepler + (1 - K0) pair force) by Bulirsch-Stoer alone.
    let mut bs = group(&bodies);
    let opts = BsOptions {
        rel_tol: 1e-14,
        ..BsOptions::default()
    };
    integrate_group(
        M0,
        H,
        &mut bs,
        &mut BsWorkspace::new(),
        &opts,
        &mut Vec::new(),
    )
    .expect("Bulirsch-Stoer integrates");
    let mut errors = Vec::new();
    for sub_steps in [4, 8, 16] {
        let (g, stats, _) = integrate_levels(
            &bodies,
            Recursion {
                levels: 2,
                sub_steps,
            },
        );
        assert!(stats.groups[1] > 0, "the pair stays close at level 1");
        errors.push(distance(&g, &bs));
    }
    println!("position errors against Bulirsch-Stoer: {errors:?}");
    assert!(errors[0] < 1e-7, "{errors:?}");
    for w in errors.windows(2) {
        // Second order: halving the sub-step divides the error by about 4.
        assert!(w[1] < w[0] / 3.0, "{errors:?}");
    }
    // A third level agrees as well.
    let (g, _, _) = integrate_levels(
        &bodies,
        Recursion {
            levels: 3,
            sub_steps: 8,
        },
    );
    assert!(distance(&g, &bs) < 1e-7);
}

#[test]
fn a_pair_that_never_comes_close_at_a_level_is_only_kicked_and_drifted() {
    // Two bodies 0.03 AU apart: inside the top level's critical radius (n2 tau v ~ 0.04 AU)
    // but outside level 1's (a tenth of it): no Bulirsch-Stoer below the top.
    let bodies = vec![
        Body::without_spin(1, 1e-9, 0.0, [1.0, 0.0, 0.0], [0.0, vcirc(1.0), 0.0]),
        Body::without_spin(2, 1e-9, 0.0, [1.03, 0.0, 0.0], [0.0, vcirc(1.03), 0.0]),
    ];
    let (g, stats, _) = integrate_levels(
        &bodies,
        Recursion {
            levels: 2,
            sub_steps: 10,
        },
    );
    assert_eq!(stats.groups, [0; MAX_LEVELS]);
    // Almost pure Kepler motion: the pair's pull over one step is tiny.
    for (k, b) in bodies.iter().enumerate() {
        let (mut p, mut v) = (b.pos, b.vel);
        crate::physics::kepler::kepler_drift(M0, H, &mut p, &mut v).unwrap();
        let d = (0..3)
            .map(|c| (g.pos[k][c] - p[c]).powi(2))
            .sum::<f64>()
            .sqrt();
        assert!(d < 1e-9, "body {k}: {d}");
    }
}

#[test]
fn a_collision_merges_at_the_deepest_level_conserving_mass_and_momentum() {
    // Two embryos with inflated radii on a collision course (closing at 3e-3 AU per day).
    let mut bodies = close_pair();
    bodies[0].r = 5e-4;
    bodies[1].r = 5e-4;
    bodies[1].m = 2e-7;
    bodies[1].pos = [1.0, 0.002, 0.0];
    bodies[1].vel = [0.0, vcirc(1.0) - 0.2, 0.0];
    let m_before: f64 = bodies.iter().map(|b| b.m).sum();
    let (g, stats, events) = integrate_levels(
        &bodies,
        Recursion {
            levels: 3,
            sub_steps: 4,
        },
    );
    assert_eq!(events.len(), 1, "one merger");
    let e = &events[0];
    assert!(e.t_before >= 0.0 && e.t_merge <= H && e.t_before < e.t_merge);
    assert_eq!(g.alive.iter().filter(|&&a| a).count(), 1);
    assert!(
        stats.groups[2] > 0,
        "the merger happened at the deepest level"
    );
    assert_eq!(g.m.iter().sum::<f64>(), m_before);
    let survivor = e.survivor_slot;
    assert_eq!(g.m[survivor], m_before);
    assert!(g.rcrit[survivor] >= g.rcrit[1 - survivor]);
    // The merger itself conserves momentum (over the step the Sun's pull turns it).
    let [a, b] = e.at_merge;
    for c in 0..3 {
        let before = a.m * a.vel[c] + b.m * b.vel[c];
        let after = e.merged.m * e.merged.vel[c];
        assert!(
            (after - before).abs() <= 1e-14 * before.abs().max(1e-12),
            "{c}: {after} {before}"
        );
    }
}

#[test]
fn settings_out_of_range_name_their_field() {
    assert!(Recursion::OFF.check().is_none());
    assert!(!Recursion::OFF.is_on());
    assert_eq!(Recursion::OFF.fingerprint(), "");
    let on = Recursion {
        levels: 2,
        sub_steps: 10,
    };
    assert!(on.check().is_none() && on.is_on());
    assert_eq!(on.fingerprint(), " recursion=2x10");
    for (bad, field) in [
        (
            Recursion {
                levels: 0,
                sub_steps: 2,
            },
            "levels",
        ),
        (
            Recursion {
                levels: 9,
                sub_steps: 2,
            },
            "levels",
        ),
        (
            Recursion {
                levels: 2,
                sub_steps: 1,
            },
            "sub_steps",
        ),
        (
            Recursion {
                levels: 2,
                sub_steps: 1001,
            },
            "sub_steps",
        ),
    ] {
        assert_eq!(bad.check().map(|c| c.0), Some(field), "{bad:?}");
    }
}
