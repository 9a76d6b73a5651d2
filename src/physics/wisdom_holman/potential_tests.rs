//! Tests of the central body's potential forces on the map: GR's perihelion advance and J2's
//! nodal regression against their analytic rates, the energy with the potential conserved as
//! the map conserves it without, J2's torque tally against the angular momentum it moves, and
//! a system's bits the same alone and in a pack.

use super::*;
use crate::physics::elements::{cartesian_from_elements, elements_from_cartesian};
use crate::physics::forces::{potential_energy, speed_of_light, ForceSettings, Forces};
use crate::units::days_to_code;
use std::f64::consts::PI;

/// The Sun and one planet of mass `m` on the orbit `(a, e, inc, node, peri, M)`.
fn two_body(m: f64, el: [f64; 6]) -> (Vec<f64>, Vec<[f64; 3]>, Vec<[f64; 3]>) {
    let [a, e, inc, node, peri, mean] = el;
    let (x, v) = cartesian_from_elements(1.0 + m, a, e, inc, node, peri, mean).unwrap();
    (vec![1.0, m], vec![[0.0; 3], x], vec![[0.0; 3], v])
}

fn forces(gr: bool, j2: f64, j2_radius: f64, spin: [f64; 3]) -> Forces {
    Forces::resolve(&ForceSettings {
        gr,
        j2,
        j2_radius,
        central_spin: spin,
        ..ForceSettings::default()
    })
}

/// The planet's heliocentric elements now.
fn planet(wh: &WisdomHolman, m: f64) -> crate::physics::elements::Elements {
    let (p, v) = wh.state().unwrap();
    let d = |a: [f64; 3], b: [f64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    elements_from_cartesian(1.0 + m, d(p[1], p[0]), d(v[1], v[0]))
}

/// The angle `to - from` in (-pi, pi].
fn turned(from: f64, to: f64) -> f64 {
    (to - from + PI).rem_euclid(2.0 * PI) - PI
}

#[test]
fn gr_advances_mercurys_perihelion_by_einsteins_rate() {
    // Mercury: 6 pi mu / (c^2 a (1 - e^2)) per orbit, 42.98 arcseconds per century (Nobili &
    // Roxburgh's potential gives GR's advance to first order).
    let (m, a, e) = (1.66e-7, 0.387098, 0.205630);
    let (ms, pos, vel) = two_body(m, [a, e, 0.1, 0.8, 0.5, 0.0]);
    let f = forces(true, 0.0, 0.0, [0.0; 3]);
    let dt = days_to_code(0.5);
    let mut wh = WisdomHolman::with_forces((&ms, &pos, &vel), (dt, 0), &f).unwrap();
    let start = planet(&wh, m).peri;
    // Ten centuries: the osculating perihelion's short-period wobble (about 4e-7 rad where the
    // orbit starts, at perihelion) is then 0.02 % of the advance.
    let steps = 730_500;
    for _ in 0..steps {
        wh.step().unwrap();
    }
    let advance = turned(start, planet(&wh, m).peri);
    let c = speed_of_light();
    let mu = 1.0 + m;
    let period = 2.0 * PI * (a * a * a / mu).sqrt();
    let orbits = steps as f64 * dt / period;
    let want = orbits * 6.0 * PI * mu / (c * c * a * (1.0 - e * e));
    let arcsec = advance.to_degrees() * 3600.0;
    println!("perihelion advance {arcsec:.3}\" in ten centuries, Einstein's {want:e} rad");
    assert!(
        (advance / want - 1.0).abs() < 1e-3,
        "{advance:e} vs {want:e}"
    );
    assert!((arcsec / 10.0 - 42.98).abs() < 0.05, "{arcsec}\"");
}

#[test]
fn j2_regresses_the_node_at_the_secular_rate_about_the_spin_axis() {
    // dΩ/dt = -3/2 n J2 (R/a)^2 cos i / (1 - e^2)^2 about the spin axis (z here).
    let (m, a, e, inc) = (1e-6, 0.05, 0.02, 10f64.to_radians());
    let (j2, radius) = (1e-3, 0.01);
    let (ms, pos, vel) = two_body(m, [a, e, inc, 0.3, 1.0, 2.0]);
    let f = forces(false, j2, radius, [0.0; 3]);
    let mu = 1.0 + m;
    let n = (mu / (a * a * a)).sqrt();
    let dt = 2.0 * PI / n / 40.0;
    let mut wh = WisdomHolman::with_forces((&ms, &pos, &vel), (dt, 3), &f).unwrap();
    let start = planet(&wh, m).node;
    let steps = 40_000; // a thousand orbits
    for _ in 0..steps {
        wh.step().unwrap();
    }
    let regression = turned(start, planet(&wh, m).node);
    let rate = -1.5 * n * j2 * (radius / a).powi(2) * inc.cos() / (1.0 - e * e).powi(2);
    let want = rate * steps as f64 * dt;
    println!("node moved {regression:e} rad, secular theory {want:e}");
    assert!((regression / want - 1.0).abs() < 0.01);
}

/// The outer solar system with a strong J2 (R = 1 AU, J2 = 0.05, about a tilted axis) and GR:
/// the largest relative error of the energy with the potential (`Σ m Φ`) over `steps` steps of
/// `dt_days`, and that error with the potential left out.
fn energy_errors(correctors: u8, dt_days: f64, steps: u64) -> (f64, f64) {
    let f = forces(true, 0.05, 1.0, [0.2, -0.1, 1.0]);
    let el = [
        (9.547919e-4, [5.2029, 0.0484, 0.0228, 1.75, 4.79, 0.3]),
        (2.858860e-4, [9.5367, 0.0539, 0.0434, 1.98, 5.92, 2.1]),
        (4.366244e-5, [19.189, 0.0473, 0.0135, 1.29, 1.69, 4.0]),
    ];
    let mut m = vec![1.0];
    let (mut pos, mut vel) = (vec![[0.0; 3]], vec![[0.0; 3]]);
    for (mass, [a, e, i, node, peri, mean]) in el {
        let (x, v) = cartesian_from_elements(1.0 + mass, a, e, i, node, peri, mean).unwrap();
        m.push(mass);
        pos.push(x);
        vel.push(v);
    }
    let energy = |p: &[[f64; 3]], v: &[[f64; 3]]| {
        let mut kinetic_potential = 0.0;
        let mut central = 0.0;
        let (mt, mut mom) = (m.iter().sum::<f64>(), [0.0; 3]);
        for i in 0..m.len() {
            let v2 = v[i][0] * v[i][0] + v[i][1] * v[i][1] + v[i][2] * v[i][2];
            kinetic_potential += 0.5 * m[i] * v2;
            (0..3).for_each(|c| mom[c] += m[i] * v[i][c]);
            for j in (i + 1)..m.len() {
                let d: f64 = (0..3).map(|c| (p[i][c] - p[j][c]).powi(2)).sum();
                kinetic_potential -= m[i] * m[j] / d.sqrt();
            }
            if i > 0 {
                let x = [p[i][0] - p[0][0], p[i][1] - p[0][1], p[i][2] - p[0][2]];
                central += m[i] * potential_energy(&f, m[0], x);
            }
        }
        let bulk = 0.5 * (mom[0] * mom[0] + mom[1] * mom[1] + mom[2] * mom[2]) / mt;
        (kinetic_potential - bulk, central)
    };
    let (k0, u0) = energy(&pos, &vel);
    let mut wh =
        WisdomHolman::with_forces((&m, &pos, &vel), (days_to_code(dt_days), correctors), &f)
            .unwrap();
    let (mut with, mut without) = (0.0f64, 0.0f64);
    for s in 1..=steps {
        wh.step().unwrap();
        if s % 50 == 0 {
            let (p, v) = wh.state().unwrap();
            let (k, u) = energy(&p, &v);
            with = with.max(((k + u - k0 - u0) / (k0 + u0)).abs());
            without = without.max(((k - k0) / k0).abs());
        }
    }
    (with, without)
}

#[test]
fn the_energy_with_the_potential_is_the_maps_conserved_quantity() {
    let (plain, without) = energy_errors(0, 50.0, 10_000);
    let (corrected, _) = energy_errors(17, 50.0, 10_000);
    println!("energy errors: {plain:e} (no correctors), {corrected:e} (17); without Φ {without:e}");
    // The potential's energy is exchanged with the orbits' far beyond the map's error...
    assert!(without > 1e3 * plain, "{without:e} vs {plain:e}");
    // ...and the correctors remove the map's error as they do without the potential.
    assert!(corrected < plain / 100.0, "{corrected:e} vs {plain:e}");
}

#[test]
fn j2s_torque_tally_is_the_angular_momentum_it_moves() {
    // Without correctors the real coordinates are the map's: orbital L plus the tally is
    // conserved to rounding, while L itself moves.
    let (m, a) = (1e-5, 0.05);
    let (ms, pos, vel) = two_body(m, [a, 0.05, 0.3, 0.2, 0.4, 1.0]);
    let f = forces(false, 1e-3, 0.01, [0.3, 0.0, 1.0]);
    let n = (1.0 / (a * a * a)).sqrt();
    let mut pack = WhPack::with_forces(&[(&ms, &pos, &vel)], (2.0 * PI / n / 40.0, 0), &f).unwrap();
    let l = |p: &[[f64; 3]], v: &[[f64; 3]]| {
        let mut out = [0.0; 3];
        for k in 0..2 {
            let (x, u) = (p[k], v[k]);
            out[0] += ms[k] * (x[1] * u[2] - x[2] * u[1]);
            out[1] += ms[k] * (x[2] * u[0] - x[0] * u[2]);
            out[2] += ms[k] * (x[0] * u[1] - x[1] * u[0]);
        }
        out
    };
    let l0 = l(&pos, &vel);
    let norm = (l0[0] * l0[0] + l0[1] * l0[1] + l0[2] * l0[2]).sqrt();
    let mut given = [0.0; 3];
    let (mut moved, mut kept) = (0.0f64, 0.0f64);
    for _ in 0..100 {
        for _ in 0..40 {
            pack.step().unwrap();
        }
        let t = pack.take_torque()[0];
        (0..3).for_each(|c| given[c] += t[c]);
        let (p, v) = pack.state(0).unwrap();
        let now = l(&p, &v);
        for c in 0..3 {
            moved = moved.max((now[c] - l0[c]).abs() / norm);
            kept = kept.max((now[c] - given[c] - l0[c]).abs() / norm);
        }
    }
    println!("J2 moved {moved:e} of L; L minus the tally kept to {kept:e}");
    assert!(moved > 1e-4 && kept < 1e-12, "{moved:e} {kept:e}");
}

#[test]
fn a_system_with_forces_has_the_same_bits_alone_and_in_a_pack() {
    let f = forces(true, 1e-3, 0.01, [0.1, 0.2, 1.0]);
    let systems: Vec<_> = (0..3)
        .map(|k| {
            two_body(
                1e-5 * (k + 1) as f64,
                [0.05 + 0.01 * k as f64, 0.1, 0.2, 1.0, 2.0, 3.0],
            )
        })
        .collect();
    let refs: Vec<SystemRef<'_>> = systems
        .iter()
        .map(|(m, p, v)| (&m[..], &p[..], &v[..]))
        .collect();
    let dt = 0.003;
    let mut pack = WhPack::with_forces(&refs, (dt, 5), &f).unwrap();
    let mut alone: Vec<WhPack> = refs
        .iter()
        .map(|r| WhPack::with_forces(&[*r], (dt, 5), &f).unwrap())
        .collect();
    for _ in 0..500 {
        pack.step().unwrap();
        alone.iter_mut().for_each(|p| p.step().unwrap());
    }
    let torques = pack.take_torque();
    for (s, one) in alone.iter_mut().enumerate() {
        assert_eq!(pack.state(s).unwrap(), one.state(0).unwrap(), "system {s}");
        assert_eq!(torques[s], one.take_torque()[0], "system {s}");
    }
}

#[test]
fn forces_of_the_velocities_are_refused() {
    let (ms, pos, vel) = two_body(1e-5, [1.0, 0.1, 0.1, 0.0, 0.0, 0.0]);
    let f = Forces::resolve(&ForceSettings {
        poynting_robertson: true,
        ..ForceSettings::default()
    });
    let e = WisdomHolman::with_forces((&ms, &pos, &vel), (0.1, 0), &f).unwrap_err();
    assert!(e.to_string().contains("GR's potential and J2"), "{e}");
}
