//! Tests of the contact-time refinement (GENGA's `Collision Precision`): the merger's
//! separation in the precision's band, the contact time against the analytic one of straight
//! motion and against a much finer refinement with gravity, and conservation with it.

use super::*;

fn separation(e: &CollisionEvent) -> f64 {
    let d: Vec<f64> = (0..3)
        .map(|c| e.bodies[1].pos[c] - e.bodies[0].pos[c])
        .collect();
    (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
}

/// Two nearly massless bodies of radius `rad` approaching head-on at relative speed 1 without
/// a central mass: contact at exactly `0.01 - 2 rad`.
fn head_on(rad: f64) -> GroupState {
    let mut g = GroupState::new();
    g.push(
        &Body::without_spin(0, 1e-15, rad, [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
        1e-2,
    );
    g.push(
        &Body::without_spin(1, 1e-15, rad, [1.01, 0.0, 0.0], [-1.0, 0.0, 0.0]),
        1e-2,
    );
    g
}

fn merge_one(m0: f64, tau: f64, mut g: GroupState, precision: Option<f64>) -> CollisionEvent {
    let opts = BsOptions {
        collision_precision: precision,
        ..BsOptions::default()
    };
    let mut ev = Vec::new();
    integrate_group(m0, tau, &mut g, &mut BsWorkspace::new(), &opts, &mut ev).unwrap();
    assert_eq!(ev.len(), 1, "{precision:?}: {ev:?}");
    ev[0]
}

#[test]
fn straight_approach_merges_inside_the_precision_band_at_the_contact_time() {
    let rad = 1e-4;
    let (rsum, t_contact) = (2.0 * rad, 0.01 - 2.0 * rad);
    // Without refinement the merger is at the end of the substep that reached contact, an
    // overlap of a sizeable fraction of the radii.
    let coarse = merge_one(0.0, 0.05, head_on(rad), None);
    assert!(
        (coarse.t_merge - t_contact).abs() > 0.1 * rsum,
        "{coarse:?}"
    );
    for p in [1e-4, 1e-8, -1e-4, -1e-8] {
        let e = merge_one(0.0, 0.05, head_on(rad), Some(p));
        let r = separation(&e);
        let (lo, hi) = if p > 0.0 {
            (rsum * (1.0 - p), rsum)
        } else {
            (rsum, rsum * (1.0 - p))
        };
        assert!(
            lo <= r && r <= hi,
            "p {p}: r {r:e} outside [{lo:e}, {hi:e}]"
        );
        // The records are at the merger; at speed 1 the band is |p| R long in time.
        assert_eq!(e.t_before, e.t_merge);
        let dt = (e.t_merge - t_contact).abs();
        assert!(dt <= p.abs() * rsum * (1.0 + 1e-6), "p {p}: off by {dt:e}");
        eprintln!("p {p:e}: r/R - 1 = {:e}, t off by {dt:e}", r / rsum - 1.0);
    }
}

#[test]
fn gravitating_contact_matches_a_finer_refinement_and_conserves() {
    // Two planets falling into each other near 1 AU with the Sun (curved relative motion).
    let rad = 2e-5;
    let group = || super::tests::falling_pair(rad);
    let reference = merge_one(1.0, 0.3, group(), Some(1e-12));
    let rel_speed = {
        let e = &reference;
        let dv: Vec<f64> = (0..3)
            .map(|c| e.bodies[1].vel[c] - e.bodies[0].vel[c])
            .collect();
        (dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2]).sqrt()
    };
    let unrefined = merge_one(1.0, 0.3, group(), None);
    let g0 = group();
    let e0: f64 = (0..2)
        .map(|k| {
            let v = g0.vel[k];
            let x = g0.pos[k];
            0.5 * g0.m[k] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
                - g0.m[k] / (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt()
        })
        .sum::<f64>()
        - g0.m[0] * g0.m[1] / 1e-3;
    for p in [1e-3, 1e-6] {
        let mut g = group();
        let opts = BsOptions {
            collision_precision: Some(p),
            ..BsOptions::default()
        };
        let mut ev = Vec::new();
        let stats = integrate_group(1.0, 0.3, &mut g, &mut BsWorkspace::new(), &opts, &mut ev);
        let stats = stats.unwrap();
        let e = ev[0];
        let r = separation(&e);
        assert!(
            r <= 2.0 * rad && r >= 2.0 * rad * (1.0 - p),
            "p {p}: r {r:e}"
        );
        // The band is p R / v long in time (v the relative speed at contact).
        let dt = (e.t_merge - reference.t_merge).abs();
        assert!(dt <= 1.01 * p * 2.0 * rad / rel_speed, "p {p}: {dt:e}");
        assert!(stats.refined > 0, "{stats:?}");
        // The merged pair's energy with U is the energy before the fall.
        let m = &g;
        let v = m.vel[0];
        let x = m.pos[0];
        let e1 = 0.5 * m.m[0] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
            - m.m[0] / (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt();
        let de = ((e1 + e.u - e0) / e0).abs();
        assert!(de < 1e-11, "p {p}: dE/E {de:e}");
        eprintln!(
            "p {p:e}: contact {:e} (reference {:e}, unrefined merger {:e}), dE/E {de:e}, {stats:?}",
            e.t_merge, reference.t_merge, unrefined.t_merge
        );
    }
}
