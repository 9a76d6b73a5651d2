//! Tests of the Bulirsch-Stoer group integrator: two-body and three-body orbits against
//! analytic and reference solutions, the step control, collisions and errors.

use super::*;

fn norm(a: [f64; 3]) -> f64 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// Analytic Kepler propagation (elliptic orbits, Danby's f and g in the eccentric anomaly).
fn kepler(mu: f64, x0: [f64; 3], v0: [f64; 3], dt: f64) -> ([f64; 3], [f64; 3]) {
    let r0 = norm(x0);
    let v2 = v0.iter().map(|v| v * v).sum::<f64>();
    let a = 1.0 / (2.0 / r0 - v2 / mu);
    assert!(a > 0.0);
    let nmean = (mu / (a * a * a)).sqrt();
    let sigma = (x0[0] * v0[0] + x0[1] * v0[1] + x0[2] * v0[2]) / mu.sqrt();
    let dm = nmean * dt;
    let (c1, c2) = (1.0 - r0 / a, sigma / a.sqrt());
    // F(E) = E - c1 sin E + c2 (1 - cos E) - dM = 0
    let mut e = dm;
    for _ in 0..100 {
        let f = e - c1 * e.sin() + c2 * (1.0 - e.cos()) - dm;
        let fp = 1.0 - c1 * e.cos() + c2 * e.sin();
        let de = f / fp;
        e -= de;
        if de.abs() < 1e-16 {
            break;
        }
    }
    let r = a + (r0 - a) * e.cos() + sigma * a.sqrt() * e.sin();
    let f = 1.0 - a / r0 * (1.0 - e.cos());
    let g = dt + (e.sin() - e) / nmean;
    let fd = -(mu * a).sqrt() * e.sin() / (r * r0);
    let gd = 1.0 - a / r * (1.0 - e.cos());
    let mut x = [0.0; 3];
    let mut v = [0.0; 3];
    for c in 0..3 {
        x[c] = f * x0[c] + g * v0[c];
        v[c] = fd * x0[c] + gd * v0[c];
    }
    (x, v)
}

/// H_A energy with K = 0: sum 1/2 m v^2 - M0 m / r - sum m m / r.
fn energy_k0(m0: f64, g: &GroupState) -> f64 {
    let mut e = 0.0;
    for i in 0..g.len() {
        if !g.alive[i] {
            continue;
        }
        let v = g.vel[i];
        e +=
            0.5 * g.m[i] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) - m0 * g.m[i] / norm(g.pos[i]);
        for j in i + 1..g.len() {
            if g.alive[j] {
                e -= g.m[i] * g.m[j] / norm(sub(g.pos[i], g.pos[j]));
            }
        }
    }
    e
}

/// Pair potential of the force `(1 - K) m1 m2 / r^2`: `-m1 m2 [1/r - 1/(0.1 rc)]` below the
/// changeover plus the integral of `(1 - K(s)) / s^2` from `max(r, 0.1 rc)` to `rc` (Simpson).
fn changeover_potential(c: Changeover, m1m2: f64, r: f64, rc: f64) -> f64 {
    let lo = r.max(0.1 * rc);
    let mut w = 0.0;
    if r < 0.1 * rc {
        w -= m1m2 * (1.0 / r - 1.0 / (0.1 * rc));
    }
    if lo < rc {
        let n = 20_000;
        let hq = (rc - lo) / n as f64;
        let f = |s: f64| (1.0 - c.k(s, rc)) / (s * s);
        let mut sum = f(lo) + f(rc);
        for k in 1..n {
            sum += f(lo + k as f64 * hq) * if k % 2 == 1 { 4.0 } else { 2.0 };
        }
        w -= m1m2 * sum * hq / 3.0;
    }
    w
}

fn energy_changeover(m0: f64, g: &GroupState) -> f64 {
    let mut e = 0.0;
    for i in 0..g.len() {
        let v = g.vel[i];
        e +=
            0.5 * g.m[i] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) - m0 * g.m[i] / norm(g.pos[i]);
        for j in i + 1..g.len() {
            let rc = g.rcrit[i].max(g.rcrit[j]);
            let r = norm(sub(g.pos[i], g.pos[j]));
            e += changeover_potential(g.changeover, g.m[i] * g.m[j], r, rc);
        }
    }
    e
}

fn ang_mom(g: &GroupState) -> [f64; 3] {
    let mut l = [0.0; 3];
    for i in 0..g.len() {
        let (x, v) = (g.pos[i], g.vel[i]);
        let c = [
            x[1] * v[2] - x[2] * v[1],
            x[2] * v[0] - x[0] * v[2],
            x[0] * v[1] - x[1] * v[0],
        ];
        for k in 0..3 {
            l[k] += g.m[i] * c[k] + g.spin[i][k];
        }
    }
    l
}

/// Two planets near 1 AU meeting at about t = 0.5; the closest approach is 7e-4 AU (4% of
/// the Hill radius) for `offset = 0.003` and 5e-5 AU for `offset = 0.001`.
fn flyby_at(rcrit: f64, offset: f64) -> GroupState {
    let mut g = GroupState::new();
    g.push(
        &Body::without_spin(3, 1e-5, 0.0, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        rcrit,
    );
    g.push(
        &Body::without_spin(
            8,
            3e-6,
            0.0,
            [1.0 + offset, -0.02, 0.0002],
            [0.0, 1.04, 0.0],
        ),
        rcrit,
    );
    g
}

fn flyby(rcrit: f64) -> GroupState {
    flyby_at(rcrit, 0.003)
}

#[test]
fn single_body_follows_the_kepler_orbit() {
    let mut ws = BsWorkspace::new();
    let opts = BsOptions::default();
    let mut worst: f64 = 0.0;
    for (x0, v0, tau) in [
        ([1.0, 0.0, 0.0], [0.0, 1.2, 0.1], 0.7),
        (
            [0.3, -0.8, 0.05],
            [0.9, 0.2, 0.0],
            2.0 * std::f64::consts::PI,
        ),
        ([2.5, 0.4, -0.2], [-0.1, 0.5, 0.05], -1.5),
    ] {
        let mut g = GroupState::new();
        g.push(&Body::without_spin(1, 1e-7, 1e-6, x0, v0), 0.01);
        let stats = integrate_group(1.0, tau, &mut g, &mut ws, &opts, &mut Vec::new()).unwrap();
        let (x, v) = kepler(1.0, x0, v0, tau);
        let ex = norm(sub(g.pos[0], x)) / norm(x);
        let ev = norm(sub(g.vel[0], v)) / norm(v);
        worst = worst.max(ex).max(ev);
        assert!(ex < 1e-11 && ev < 1e-11, "{ex:e} {ev:e} {stats:?}");
    }
    eprintln!("kepler: worst relative error {worst:e}");
}

#[test]
fn close_flyby_conserves_energy_and_angular_momentum() {
    // K = 0 for every separation below 0.1 rcrit: a huge rcrit makes the pair fully Newtonian.
    for offset in [0.003, 0.001] {
        let mut g = flyby_at(1e3, offset);
        let (e0, l0) = (energy_k0(1.0, &g), ang_mom(&g));
        let v0 = sub(g.vel[1], g.vel[0]);
        let mut ws = BsWorkspace::new();
        let mut ev = Vec::new();
        let stats =
            integrate_group(1.0, 1.0, &mut g, &mut ws, &BsOptions::default(), &mut ev).unwrap();
        let de = ((energy_k0(1.0, &g) - e0) / e0).abs();
        let dl = norm(sub(ang_mom(&g), l0)) / norm(l0);
        // A strong encounter: the relative velocity is turned by a large angle.
        let v1 = sub(g.vel[1], g.vel[0]);
        let cos_turn = (v0[0] * v1[0] + v0[1] * v1[1] + v0[2] * v1[2]) / (norm(v0) * norm(v1));
        eprintln!(
            "flyby K=0 offset {offset}: dE/E {de:e} dL/L {dl:e} cos(turn) {cos_turn:.3} {stats:?}"
        );
        assert!(ev.is_empty());
        assert!(cos_turn < 0.5, "{cos_turn}");
        assert!(de < 1e-11 && dl < 1e-11, "{de:e} {dl:e}");
    }
}

#[test]
fn flyby_through_the_changeover_conserves_its_energy() {
    // rcrit = 0.01: the pair passes from K = 1 through the changeover shell to K = 0 and back;
    // the force (1 - K) m m / r^2 has the potential computed by quadrature, for every
    // changeover function (the group's own K).
    for c in Changeover::ALL {
        let mut g = flyby(0.01);
        g.changeover = c;
        let e0 = energy_changeover(1.0, &g);
        let mut ws = BsWorkspace::new();
        let opts = BsOptions::default();
        integrate_group(1.0, 1.0, &mut g, &mut ws, &opts, &mut Vec::new()).unwrap();
        let de = ((energy_changeover(1.0, &g) - e0) / e0).abs();
        eprintln!("flyby through changeover {c}: dE/E {de:e}");
        assert!(de < 1e-11, "{c}: {de:e}");
        // With the full Newtonian energy the change-over pair is not conserved: K matters.
        let mut g2 = flyby(0.01);
        g2.changeover = c;
        let e_newton = energy_k0(1.0, &g2);
        integrate_group(1.0, 1.0, &mut g2, &mut ws, &opts, &mut Vec::new()).unwrap();
        assert!(((energy_k0(1.0, &g2) - e_newton) / e_newton).abs() > 1e-9);
    }
}

#[test]
fn forward_then_backward_returns_to_the_start() {
    for rcrit in [1e3, 0.01] {
        let start = flyby(rcrit);
        let mut g = start.clone();
        let mut ws = BsWorkspace::new();
        let opts = BsOptions::default();
        integrate_group(1.0, 1.0, &mut g, &mut ws, &opts, &mut Vec::new()).unwrap();
        integrate_group(1.0, -1.0, &mut g, &mut ws, &opts, &mut Vec::new()).unwrap();
        let mut worst: f64 = 0.0;
        for i in 0..2 {
            worst = worst.max(norm(sub(g.pos[i], start.pos[i])) / norm(start.pos[i]));
            worst = worst.max(norm(sub(g.vel[i], start.vel[i])) / norm(start.vel[i]));
        }
        eprintln!("reversibility rcrit {rcrit}: {worst:e}");
        assert!(worst < 1e-10, "{worst:e}");
    }
}

/// Two planets of radius `rad` near 1 AU falling into each other (ids 5 and 2, 3e-6 and 1e-6
/// Msun, 1e-3 AU apart).
pub(super) fn falling_pair(rad: f64) -> GroupState {
    let mut g = GroupState::new();
    g.push(
        &Body::without_spin(5, 3e-6, rad, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        1e3,
    );
    g.push(
        &Body::without_spin(2, 1e-6, rad, [1.0 + 1e-3, 0.0, 0.0], [-0.01, 1.0, 0.0]),
        1e3,
    );
    g
}

#[test]
fn head_on_collision_merges_once_and_conserves() {
    let rad = 2e-5;
    let mut g = falling_pair(rad);
    g.push(
        &Body::without_spin(9, 1e-9, 1e-7, [0.9, 0.3, 0.0], [-0.3, 0.95, 0.0]),
        1e3,
    );
    g.spin[0] = [0.0, 0.0, 1e-12];
    let m_total: f64 = g.m.iter().sum();
    let (e0, l0) = (energy_k0(1.0, &g), ang_mom(&g));
    let mut ws = BsWorkspace::new();
    let mut ev = Vec::new();
    let stats = integrate_group(1.0, 0.3, &mut g, &mut ws, &BsOptions::default(), &mut ev).unwrap();
    assert_eq!(ev.len(), 1);
    assert_eq!(stats.collisions, 1);
    let e = ev[0];
    assert_eq!(e.slots, [0, 1]);
    assert_eq!(e.survivor_slot, 0, "heavier body survives");
    assert_eq!((e.merged.id, g.id[0]), (5, 5));
    assert!(g.alive[0] && !g.alive[1] && g.alive[2] && g.m[1] == 0.0);
    assert_eq!(g.m[0], 3e-6 + 1e-6);
    assert!((g.m.iter().sum::<f64>() - m_total).abs() < 1e-22);
    assert!(0.0 < e.t_before && e.t_before < e.t_merge && e.t_merge < 0.3);
    // Recorded "just before contact": separated by more than the radii, approaching.
    let d_before = norm(sub(e.bodies[1].pos, e.bodies[0].pos));
    assert!(d_before >= 2.0 * rad, "{d_before}");
    assert_eq!(
        (e.bodies[0].id, e.bodies[1].id, e.bodies[0].m),
        (5, 2, 3e-6)
    );
    assert_eq!(e.bodies[0].spin, [0.0, 0.0, 1e-12]);
    let r3 = 2.0 * rad.powi(3);
    assert!((g.r[0].powi(3) - r3).abs() < 1e-15 * r3);
    // H_A energy with U and total angular momentum (orbital + spin) are conserved.
    let de = ((energy_k0(1.0, &g) + e.u - e0) / e0).abs();
    let dl = norm(sub(ang_mom(&g), l0)) / norm(l0);
    eprintln!(
        "collision: dE/E (with U) {de:e} dL/L {dl:e} U {:e} {stats:?}",
        e.u
    );
    assert!(de < 1e-11 && dl < 1e-12, "{de:e} {dl:e}");
    // U is dominated by the (negative) binding energy at contact.
    assert!(e.u < 0.0);
}

#[test]
fn fast_grazing_pass_is_caught_between_substeps() {
    // Nearly massless bodies crossing at relative speed 2 with impact parameter 0.5 (R1 + R2).
    // Without a central mass the motion is straight: BS takes one substep over the whole
    // step, jumping over the contact, and only the Hermite interpolation sees it. With the
    // Sun the relative orbit is curved over a substep and the cubic interpolation of |dr|^2
    // is only accurate to ~1e-6 AU^2 here, so the radii are larger.
    for (m0, rad) in [(0.0, 1e-6), (1.0, 1e-3)] {
        let mut g = GroupState::new();
        g.push(
            &Body::without_spin(0, 1e-15, rad, [1.0, -0.01, 0.0], [0.0, 1.0, 0.0]),
            1e-3,
        );
        g.push(
            &Body::without_spin(1, 1e-15, rad, [1.0 + rad, 0.01, 0.0], [0.0, -1.0, 0.0]),
            1e-3,
        );
        let mut ws = BsWorkspace::new();
        let mut ev = Vec::new();
        integrate_group(m0, 0.05, &mut g, &mut ws, &BsOptions::default(), &mut ev).unwrap();
        assert_eq!(ev.len(), 1, "m0 {m0}");
        let e = ev[0];
        // The contact (t ~ 0.01) lies inside a substep much longer than the crossing time
        // 2 (R1 + R2) / v, and neither end of it is in contact.
        assert!(e.t_before < 0.01 && e.t_merge > 0.01, "{e:?}");
        assert!(e.t_merge - e.t_before > 10.0 * 2.0 * rad, "{e:?}");
        assert!(norm(sub(e.bodies[1].pos, e.bodies[0].pos)) > 2.0 * rad);
        assert!(norm(sub(e.merged.pos, e.bodies[0].pos)) > 2.0 * rad);
        eprintln!("grazing m0 {m0}: substep [{}, {}]", e.t_before, e.t_merge);
    }
}

#[test]
fn failures_are_reported_with_the_group_ids() {
    let mut ws = BsWorkspace::new();
    let opts = BsOptions::default();
    // Two point masses at the same place: infinite force, no convergence.
    let mut g = GroupState::new();
    g.push(
        &Body::without_spin(17, 1e-6, 0.0, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        1.0,
    );
    g.push(
        &Body::without_spin(23, 1e-6, 0.0, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        1.0,
    );
    let e = integrate_group(1.0, 0.1, &mut g, &mut ws, &opts, &mut Vec::new()).unwrap_err();
    assert!(matches!(e, BsError::StepTooSmall { .. }), "{e}");
    assert!(e.to_string().contains("[17, 23]"), "{e}");
    // Non-finite input.
    let mut g = flyby(1.0);
    g.vel[1][2] = f64::NAN;
    let e = integrate_group(1.0, 0.1, &mut g, &mut ws, &opts, &mut Vec::new()).unwrap_err();
    assert!(matches!(e, BsError::NonFinite { .. }), "{e}");
    // Inconsistent arrays.
    let mut g = flyby(1.0);
    g.rcrit.pop();
    let e = integrate_group(1.0, 0.1, &mut g, &mut ws, &opts, &mut Vec::new()).unwrap_err();
    assert!(matches!(e, BsError::BadInput { .. }), "{e}");
    // Substep budget.
    let mut g = flyby(1e3);
    let tight = BsOptions {
        max_substeps: 3,
        ..opts
    };
    let e = integrate_group(1.0, 1.0, &mut g, &mut ws, &tight, &mut Vec::new()).unwrap_err();
    assert!(matches!(e, BsError::TooManySubsteps { .. }), "{e}");
    let err: crate::error::Error = e.into();
    assert!(err.to_string().contains("[3, 8]"));
}
