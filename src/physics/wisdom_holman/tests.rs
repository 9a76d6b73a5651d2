//! Tests of the Wisdom-Holman map: the Jacobi transform's round trip, a two-body system that
//! the map must integrate exactly, time symmetry, the energy error's dt^2 scaling without
//! correctors and its steeper fall with them.

use super::*;
use crate::physics::kepler::kepler_drift;
use crate::units::days_to_code;

/// The Sun and the four giant planets (heliocentric, J2000-like elements turned into states by
/// hand: circular-ish orbits with small inclinations), G = 1.
fn outer_solar_system() -> System {
    let planets: [(f64, f64, f64, f64, f64); 4] = [
        // mass, a, e, inclination, phase
        (9.547919e-4, 5.2029, 0.0484, 0.0228, 0.3),
        (2.858860e-4, 9.5367, 0.0539, 0.0434, 2.1),
        (4.366244e-5, 19.189, 0.0473, 0.0135, 4.0),
        (5.151389e-5, 30.070, 0.0086, 0.0309, 5.5),
    ];
    let mut m = vec![1.0];
    let mut pos = vec![[0.0; 3]];
    let mut vel = vec![[0.0; 3]];
    for (mass, a, e, inc, phase) in planets {
        // At pericentre of an orbit rotated by `phase` in the plane and tilted by `inc`.
        let r = a * (1.0 - e);
        let speed = ((1.0 + mass) * (1.0 + e) / r).sqrt();
        let (s, c) = f64::sin_cos(phase);
        let (si, ci) = f64::sin_cos(inc);
        m.push(mass);
        pos.push([r * c, r * s * ci, r * s * si]);
        vel.push([-speed * s, speed * c * ci, speed * c * si]);
    }
    (m, pos, vel)
}

/// Total energy (kinetic about the origin's frame plus potential) of inertial states.
fn energy(m: &[f64], pos: &[[f64; 3]], vel: &[[f64; 3]]) -> f64 {
    let mut e = 0.0;
    let mt: f64 = m.iter().sum();
    let mut p = [0.0; 3];
    for i in 0..m.len() {
        for k in 0..3 {
            p[k] += m[i] * vel[i][k];
        }
        e += 0.5 * m[i] * (vel[i][0].powi(2) + vel[i][1].powi(2) + vel[i][2].powi(2));
        for j in (i + 1)..m.len() {
            let d: f64 = (0..3).map(|k| (pos[i][k] - pos[j][k]).powi(2)).sum();
            e -= m[i] * m[j] / d.sqrt();
        }
    }
    // Leave out the centre of mass's kinetic energy (heliocentric input moves it).
    e - 0.5 * (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) / mt
}

/// Largest relative energy error over `steps` steps with `dt` days and `correctors`, sampled
/// every `every` steps.
fn max_energy_error(dt_days: f64, correctors: u8, steps: u64, every: u64) -> f64 {
    let (m, pos, vel) = outer_solar_system();
    let e0 = energy(&m, &pos, &vel);
    let mut wh = WisdomHolman::new(&m, &pos, &vel, days_to_code(dt_days), correctors).unwrap();
    let mut worst = 0.0f64;
    for s in 1..=steps {
        wh.step().unwrap();
        if s % every == 0 {
            let (p, v) = wh.state().unwrap();
            worst = worst.max(((energy(&m, &p, &v) - e0) / e0).abs());
        }
    }
    worst
}

/// Body-major arrays of `systems` (each as `outer_solar_system` gives it).
fn body_major(systems: &[Vec<[f64; 3]>]) -> [Vec<f64>; 3] {
    let (l, n) = (systems.len(), systems[0].len());
    let mut out = [vec![0.0; n * l], vec![0.0; n * l], vec![0.0; n * l]];
    for (s, sys) in systems.iter().enumerate() {
        for (k, w) in sys.iter().enumerate() {
            for c in 0..3 {
                out[c][k * l + s] = w[c];
            }
        }
    }
    out
}

#[test]
fn jacobi_coordinates_go_there_and_back() {
    let (m, pos, vel) = outer_solar_system();
    let n = m.len();
    let ms = jacobi::Masses::new(&m, 1);
    let eta = &ms.eta;
    for w in [&pos, &vel] {
        let w = body_major(std::slice::from_ref(w));
        let (mut j, mut back) = (
            [vec![0.0; n], vec![0.0; n], vec![0.0; n]],
            [vec![0.0; n], vec![0.0; n], vec![0.0; n]],
        );
        let [jx, jy, jz] = &mut j;
        jacobi::to_jacobi(&ms, [&w[0], &w[1], &w[2]], [jx, jy, jz]);
        let [bx, by, bz] = &mut back;
        jacobi::from_jacobi(&ms, [&j[0], &j[1], &j[2]], [bx, by, bz]);
        for c in 0..3 {
            for k in 0..n {
                let (a, b) = (w[c][k], back[c][k]);
                assert!((a - b).abs() <= 1e-15 * (1.0 + a.abs()), "{a} {b}");
            }
        }
        // Slot 0 is the mass-weighted mean, slot 1 the first planet relative to the centre.
        let mt = eta[n - 1];
        for c in 0..3 {
            let mean: f64 = (0..n).map(|k| m[k] * w[c][k]).sum::<f64>() / mt;
            assert!((j[c][0] - mean).abs() < 1e-15);
            assert_eq!(j[c][1], w[c][1] - w[c][0]);
        }
    }
}

/// One system's masses, positions and velocities.
type System = (Vec<f64>, Vec<[f64; 3]>, Vec<[f64; 3]>);

/// Three systems of the outer solar system with the planets' masses and phases changed.
fn three_systems() -> Vec<System> {
    (0..3)
        .map(|s| {
            let (mut m, mut pos, mut vel) = outer_solar_system();
            let f = 1.0 + 0.3 * s as f64;
            for k in 1..m.len() {
                m[k] *= f;
                let (sn, cs) = f64::sin_cos(0.2 * s as f64 * k as f64);
                for w in [&mut pos[k], &mut vel[k]] {
                    *w = [cs * w[0] - sn * w[1], sn * w[0] + cs * w[1], w[2]];
                }
            }
            (m, pos, vel)
        })
        .collect()
}

#[test]
fn a_system_in_a_pack_has_the_bits_it_has_alone() {
    let systems = three_systems();
    let (packed, alone) = packed_and_alone(&systems, days_to_code(40.0), 300);
    for (s, one) in alone.iter().enumerate() {
        assert_eq!(&packed[s], one, "system {s}");
    }
    // The systems differ (the test compares different states).
    assert_ne!(packed[0], packed[1]);
}

/// `count` systems of `n` bodies: the Sun and n - 1 planets on near-circular orbits spaced by
/// a factor 1.5 from 0.4 AU, masses and phases varied per system.
fn many_planets(n: usize, count: usize) -> Vec<System> {
    (0..count)
        .map(|s| {
            let mut sys = (vec![1.0], vec![[0.0; 3]], vec![[0.0; 3]]);
            for k in 1..n {
                let (a, mass) = (
                    0.4 * 1.5f64.powi(k as i32 - 1),
                    1e-6 * (1 + (k + s) % 7) as f64,
                );
                let (e, inc, phase) = (
                    0.02 + 0.003 * k as f64,
                    0.01 * k as f64,
                    0.7 * (k * (s + 1)) as f64,
                );
                let r = a * (1.0 - e);
                let speed = ((1.0 + mass) * (1.0 + e) / r).sqrt();
                let (sn, cs) = f64::sin_cos(phase);
                let (si, ci) = f64::sin_cos(inc);
                sys.0.push(mass);
                sys.1.push([r * cs, r * sn * ci, r * sn * si]);
                sys.2.push([-speed * sn, speed * cs * ci, speed * cs * si]);
            }
            sys
        })
        .collect()
}

/// Each system's state after `steps` steps of `dt` (corrector order 5) in one pack, and each
/// alone.
fn packed_and_alone(systems: &[System], dt: f64, steps: usize) -> (Vec<States>, Vec<States>) {
    let refs: Vec<_> = systems
        .iter()
        .map(|(m, p, v)| (m.as_slice(), p.as_slice(), v.as_slice()))
        .collect();
    let mut pack = WhPack::new(&refs, dt, 5).unwrap();
    let mut alone: Vec<WhPack> = refs
        .iter()
        .map(|r| WhPack::new(&[*r], dt, 5).unwrap())
        .collect();
    for _ in 0..steps {
        pack.step().unwrap();
        step_packs(&mut alone).unwrap();
    }
    let packed = (0..refs.len()).map(|s| pack.state(s).unwrap()).collect();
    (packed, alone.iter().map(|p| p.state(0).unwrap()).collect())
}

#[test]
fn every_path_and_simd_level_gives_a_system_the_same_bits() {
    // 35 systems fill two lane groups of 16 and 3 lanes after them; alone, up to 16 bodies take
    // the one-system kick (bodies in the lanes; odd and even counts of half rows, rows of one
    // and two halves) and 17 the general loops.
    let levels = crate::simd::supported_levels();
    for n in [2, 4, 8, 9, 10, 16, 17] {
        let systems = many_planets(n, 35);
        let at = |level| {
            crate::simd::with_level(level, || packed_and_alone(&systems, days_to_code(4.0), 150))
        };
        let (packed, alone) = at(crate::simd::Level::Base);
        for s in 0..systems.len() {
            assert_eq!(
                packed[s], alone[s],
                "{n} bodies, system {s}: packed and alone"
            );
        }
        for &level in &levels[1..] {
            assert_eq!(
                at(level),
                (packed.clone(), alone.clone()),
                "{n} bodies at {level}"
            );
        }
        assert_ne!(packed[0], packed[1], "the systems differ");
    }
}

#[test]
fn a_pack_refuses_systems_of_other_body_counts() {
    let systems = three_systems();
    let (m, p, v) = &systems[0];
    let short = (&m[..3], &p[..3], &v[..3]);
    let e = WhPack::new(&[(m, p, v), short], 0.1, 0).unwrap_err();
    assert!(e.to_string().contains("system 1"), "{e}");
}

#[test]
fn two_bodies_follow_their_kepler_orbit_to_rounding() {
    let m = [1.0, 1e-3];
    let pos = [[0.0; 3], [0.7, 0.1, 0.05]];
    let vel = [[0.0; 3], [-0.2, 1.1, 0.02]];
    let dt = days_to_code(20.0);
    for correctors in correctors::ORDERS {
        let mut wh = WisdomHolman::new(&m, &pos, &vel, dt, correctors).unwrap();
        for _ in 0..1000 {
            wh.step().unwrap();
        }
        let (p, v) = wh.state().unwrap();
        let (mut rp, mut rv) = (pos[1], vel[1]);
        kepler_drift(1.0 + 1e-3, 1000.0 * dt, &mut rp, &mut rv).unwrap();
        for k in 0..3 {
            let (dp, dv) = (p[1][k] - p[0][k] - rp[k], v[1][k] - v[0][k] - rv[k]);
            // 1000 drifts against one: rounding only (the interaction of two bodies is zero).
            assert!(
                dp.abs() < 1e-10 && dv.abs() < 1e-10,
                "order {correctors}: {dp} {dv}"
            );
        }
    }
}

#[test]
fn stepping_back_returns_to_the_start() {
    let (m, pos, vel) = outer_solar_system();
    let dt = days_to_code(30.0);
    for correctors in [0, 17] {
        let mut wh = WisdomHolman::new(&m, &pos, &vel, dt, correctors).unwrap();
        for _ in 0..500 {
            wh.step().unwrap();
        }
        let (p, v) = wh.state().unwrap();
        let mut back = WisdomHolman::new(&m, &p, &v, -dt, correctors).unwrap();
        for _ in 0..500 {
            back.step().unwrap();
        }
        let (p0, v0) = back.state().unwrap();
        for i in 0..m.len() {
            for k in 0..3 {
                assert!(
                    (p0[i][k] - pos[i][k]).abs() < 1e-11,
                    "order {correctors} body {i}"
                );
                assert!(
                    (v0[i][k] - vel[i][k]).abs() < 1e-11,
                    "order {correctors} body {i}"
                );
            }
        }
    }
}

#[test]
fn without_correctors_the_energy_error_scales_as_dt_squared() {
    let coarse = max_energy_error(80.0, 0, 2000, 10);
    let fine = max_energy_error(40.0, 0, 4000, 20);
    let ratio = coarse / fine;
    assert!(
        (3.3..4.7).contains(&ratio),
        "{coarse:e} {fine:e}: ratio {ratio}"
    );
}

/// With a corrector of order n the energy error is `c_n eps dt^(n+1) + F eps^2 dt^2` (WHT96):
/// at a long step each order lowers it towards the floor `F eps^2 dt^2` that no corrector
/// removes, the floor grows as dt^2, and order 3's part above the floor as dt^4.
#[test]
fn each_corrector_order_lowers_the_error_towards_the_eps_squared_floor() {
    let long: Vec<f64> = correctors::ORDERS
        .iter()
        .map(|&o| max_energy_error(240.0, o, 667, 5))
        .collect();
    let short: Vec<f64> = correctors::ORDERS
        .iter()
        .map(|&o| max_energy_error(120.0, o, 1334, 10))
        .collect();
    eprintln!(
        "orders {:?}: dt 240 d {long:?}, dt 120 d {short:?}",
        correctors::ORDERS
    );
    // 0, 3, 5, 7, 11: each at least 10 % below the order before; 17 no higher than 11.
    for k in 1..5 {
        assert!(
            long[k] < 0.9 * long[k - 1],
            "order {}: {long:?}",
            correctors::ORDERS[k]
        );
    }
    assert!(long[5] <= long[4], "{long:?}");
    // The uncorrected map's error is ~600 times the floor here (eps ~ 1e-3).
    assert!(long[0] > 300.0 * long[5], "{long:?}");
    // The floor (order 17) grows as dt^2.
    let floor = long[5] / short[5];
    assert!((3.3..4.7).contains(&floor), "floor ratio {floor}");
    // Order 3's excess over the floor grows as dt^4.
    let excess = (long[1] - long[5]) / (short[1] - short[5]);
    assert!(
        (11.0..22.0).contains(&excess),
        "order 3 excess ratio {excess}"
    );
}

#[test]
fn bad_input_is_refused_with_its_reason() {
    let m = [1.0, 1e-3];
    let pos = [[0.0; 3], [1.0, 0.0, 0.0]];
    let vel = [[0.0; 3], [0.0, 1.0, 0.0]];
    let e = WisdomHolman::new(&m, &pos, &vel, 0.1, 4).unwrap_err();
    assert_eq!(e, WhError::CorrectorOrder(4));
    assert!(e.to_string().contains("0, 3, 5, 7, 11, 17"));
    let e = WisdomHolman::new(&[1.0, 0.0], &pos, &vel, 0.1, 0).unwrap_err();
    assert!(e.to_string().contains("system 0, body 1"), "{e}");
    let e = WisdomHolman::new(&m, &pos, &vel, 0.0, 0).unwrap_err();
    assert!(e.to_string().contains("time step"), "{e}");
    let e = WisdomHolman::new(&m[..1], &pos[..1], &vel[..1], 0.1, 0).unwrap_err();
    assert!(e.to_string().contains("at least 2"), "{e}");
}

/// The separation of bodies 1 and 2 of a pack of one.
fn separation(pack: &WhPack) -> f64 {
    let (p, _) = pack.state(0).unwrap();
    let d = [p[2][0] - p[1][0], p[2][1] - p[1][1], p[2][2] - p[1][2]];
    (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
}

#[test]
fn the_sweep_sees_a_pass_between_two_kicks_when_it_crosses_the_limit() {
    // Two light planets that pass 0.02 apart at t = 10 (code units), set up by stepping that
    // meeting back in small steps; the map then steps them with dt = 0.2, its kicks 0.1 before
    // and after the pass, when they are 0.09 apart, beyond the 0.05 encounter distance.
    let meet = 10.0;
    let (s, c) = f64::sin_cos(meet);
    let a = ([c, s, 0.0], [-s, c, 0.0]);
    let b = ([c, s, 0.02], [0.8 * c - 0.5 * s, 0.8 * s + 0.5 * c, 0.0]);
    let m = [1.0, 1e-9, 1e-9];
    let (fine, limit) = (1e-3, 0.05);
    let mut back = WhPack::new(
        &[(&m, &[[0.0; 3], a.0, b.0], &[[0.0; 3], a.1, b.1])],
        -fine,
        0,
    )
    .unwrap();
    for _ in 0..10_000 {
        back.step().unwrap();
    }
    let (p0, v0) = back.state(0).unwrap();
    // The reference: the smallest separation and its time, sampled every 1e-3.
    let mut dense = WhPack::new(&[(&m, &p0, &v0)], fine, 0).unwrap();
    let (mut best, mut best_t) = (separation(&dense), 0.0);
    let (mut before, mut crossing) = (best, None);
    let mut at_kicks = Vec::new();
    for k in 1..=11_000 {
        dense.step().unwrap();
        let (d, t) = (separation(&dense), k as f64 * fine);
        if d < best {
            (best, best_t) = (d, t);
        }
        if d < limit && before >= limit && crossing.is_none() {
            crossing = Some(t - fine * (limit - d) / (before - d));
        }
        before = d;
        if (t - 9.9).abs() < 1e-9 || (t - 10.1).abs() < 1e-9 {
            at_kicks.push(d);
        }
    }
    assert!(
        (best_t - meet).abs() < 2e-3 && (best - 0.02).abs() < 1e-3,
        "{best} at {best_t}"
    );
    assert!(
        at_kicks.len() == 2 && at_kicks.iter().all(|&d| d > 0.08),
        "{at_kicks:?}"
    );

    let dt = 0.2;
    let mut map = WhPack::new(&[(&m, &p0, &v0)], dt, 0).unwrap();
    let limits = PairLimits {
        min_distance: limit,
        ..PairLimits::default()
    };
    map.set_watch(Watch::new(
        &[1e-3],
        &[100.0],
        vec![0.0; 3],
        vec![0.0; 3],
        limits,
    ));
    while map.stops()[0].is_none() && map.steps() < 100 {
        map.step().unwrap();
    }
    // The kick at 9.9 is step 50's; the pair crosses 0.05 AU in the drift after it, a little
    // before the pass.
    assert_eq!(map.steps(), 50);
    let Some(LaneStop::Encounter(1, 2, d)) = map.stops()[0] else {
        panic!("{:?}", map.stops()[0]);
    };
    let when = (map.steps() as f64 - 0.5 + map.stop_after()[0]) * dt;
    let crossing = crossing.expect("the reference crosses the limit");
    assert!(
        crossing < best_t && when < best_t,
        "{crossing} {when} {best_t}"
    );
    assert!(
        (d - limit).abs() < 1e-9,
        "distance {d} at the crossing of {limit}"
    );
    assert!(
        (when - crossing).abs() < 0.01 * dt,
        "time {when} against {crossing}"
    );
}

#[test]
fn the_sweep_keeps_the_pair_that_crosses_first() {
    // Straight-line motion over a drift of length 1 (the interpolation is exact there): body 2
    // passes body 3 at t = 0.2 and body 1 at t = 0.8, each 0.01 apart; the limit is 0.1. The
    // pair (1, 2) comes first in the loops, the pair (2, 3) first in time.
    let limits = PairLimits {
        min_distance: 0.1,
        ..PairLimits::default()
    };
    let mut watch = Watch::new(&[1e-3], &[100.0], vec![0.0; 4], vec![0.0; 4], limits);
    let place = |p: &mut watch::Xyz, v: &mut watch::Xyz, t: f64| {
        let bodies = [
            [0.0; 3],
            [0.0, 1.0, 0.01],
            [t - 0.8, 1.0, 0.0],
            [-0.6, 1.0, 0.01],
        ];
        let speeds = [[0.0; 3], [0.0; 3], [1.0, 0.0, 0.0], [0.0; 3]];
        for k in 0..4 {
            for c in 0..3 {
                p[c][k] = bodies[k][c];
                v[c][k] = speeds[k][c];
            }
        }
    };
    let (p, v) = watch.sweep_start();
    place(p, v, 0.0);
    let (p, v) = watch.sweep_end();
    place(p, v, 1.0);
    let (mut stops, mut after) = ([None], [0.0]);
    watch.sweep(1.0, &mut stops, &mut after);
    let Some(LaneStop::Encounter(2, 3, d)) = stops[0] else {
        panic!("{:?}", stops[0]);
    };
    // Crossing 0.1 at t = 0.2 - sqrt(0.1^2 - 0.01^2).
    let expected = 0.2 - (0.1f64 * 0.1 - 0.01 * 0.01).sqrt();
    assert!(
        (after[0] - expected).abs() < 1e-12 && (d - 0.1).abs() < 1e-12,
        "{after:?} {d}"
    );
}

/// A pack of `systems` (of one body count) with GR, J2 and a watch: truncation radii 0.1 and
/// 30, stops at one Hill radius (Hill factor `hill`) and at collisions of bodies of radius 1e-5.
fn watched_pack(systems: &[System], hill: f64) -> WhPack {
    let refs: Vec<_> = systems
        .iter()
        .map(|(m, p, v)| (m.as_slice(), p.as_slice(), v.as_slice()))
        .collect();
    let forces = crate::physics::forces::Forces {
        gr: 1e-8,
        j2r2: 1e-5,
        axis: [0.0, 0.6, 0.8],
        ..Default::default()
    };
    let mut pack = WhPack::with_forces(&refs, (days_to_code(5.0), 5), &forces).unwrap();
    let lanes = systems.len();
    let n = lanes * systems[0].0.len();
    let limits = PairLimits {
        hill_radii: 1.0,
        min_distance: 0.0,
        collision: true,
    };
    let hill = (0..n).map(|i| if i < lanes { 0.0 } else { hill }).collect();
    let (inner, outer) = (vec![0.1; lanes], vec![30.0; lanes]);
    pack.set_watch(Watch::new(&inner, &outer, hill, vec![1e-5; n], limits));
    pack
}

#[test]
fn systems_leaving_a_pack_leave_the_others_bits_alone() {
    // 37 systems with GR, J2 and the watch; five leave after 40 steps (the first, two of a full
    // lane group, one of the remainder and the last): the others go on with the bits of the
    // pack that kept everyone, their torque tallies and stops too.
    let systems = many_planets(4, 37);
    let mut all = watched_pack(&systems, 0.01);
    for _ in 0..40 {
        all.step().unwrap();
    }
    let leaving = [0, 16, 17, 35, 36];
    let keep: Vec<bool> = (0..37).map(|s| !leaving.contains(&s)).collect();
    let mut fewer = all.clone();
    fewer.retain_systems(&keep);
    assert_eq!(fewer.systems(), 32);
    let kept: Vec<usize> = (0..37).filter(|s| keep[*s]).collect();
    for _ in 0..60 {
        all.step().unwrap();
        fewer.step().unwrap();
        let (t_all, t_fewer) = (all.take_torque(), fewer.take_torque());
        for (lane, &s) in kept.iter().enumerate() {
            assert_eq!(t_all[s], t_fewer[lane], "system {s}: torque");
            assert_eq!(all.stops()[s], fewer.stops()[lane], "system {s}: stop");
        }
    }
    let (_, a) = all.map_state();
    let (_, b) = fewer.map_state();
    for (lane, &s) in kept.iter().enumerate() {
        assert_eq!(a[s], b[lane], "system {s}: map state");
    }
    assert!(t_nonzero(&mut all), "J2's torque must be tallied");
}

/// Whether a step of `pack` tallies a torque.
fn t_nonzero(pack: &mut WhPack) -> bool {
    pack.step().unwrap();
    pack.take_torque()
        .iter()
        .any(|t| t.iter().any(|&c| c != 0.0))
}

#[test]
fn merged_packs_give_each_system_the_bits_it_has_in_one_pack() {
    // 37 systems with GR, J2 and the watch stepped as one pack, and as packs of 21 and 16
    // merged after 40 steps (a full lane group and a remainder in each): after 60 more steps
    // every system has the bits, torque tallies and stops of the one pack (Hill factor 0.2: 24
    // systems stop before the merge, 8 after it).
    let systems = many_planets(4, 37);
    let hill = 0.2;
    let mut all = watched_pack(&systems, hill);
    let mut first = watched_pack(&systems[..21], hill);
    let mut second = watched_pack(&systems[21..], hill);
    for _ in 0..40 {
        for pack in [&mut all, &mut first, &mut second] {
            pack.step().unwrap();
        }
    }
    let stopped = |p: &WhPack| p.stops().iter().filter(|s| s.is_some()).count();
    let before = stopped(&all);
    assert!(first.same_kind(&second));
    first.append_systems(second);
    assert_eq!(first.systems(), 37);
    for _ in 0..60 {
        all.step().unwrap();
        first.step().unwrap();
        assert_eq!(all.take_torque(), first.take_torque(), "torque tallies");
        assert_eq!(all.stops(), first.stops(), "stops");
        assert_eq!(all.stop_after(), first.stop_after(), "stop times");
    }
    assert_eq!(all.map_state(), first.map_state());
    assert!(t_nonzero(&mut all), "J2's torque must be tallied");
    eprintln!(
        "stopped: {before} before the merge, {} at the end",
        stopped(&all)
    );
    assert!(
        before < stopped(&all) && stopped(&all) < 37,
        "systems must stop after the merge, not all: {before}, {}",
        stopped(&all)
    );
}

/// The map state of `systems` (masses per system) in a pack of its own, with corrector order 5.
fn pack_from(masses: &[Vec<f64>], state: &MapState, dt: f64) -> WhPack {
    let refs: Vec<&[f64]> = masses.iter().map(|m| &m[..]).collect();
    WhPack::from_map_state(&refs, state, (dt, 5), &Default::default()).unwrap()
}

/// Bits of map states, so that states that are not finite compare.
fn state_bits(states: &[Vec<f64>]) -> Vec<Vec<u64>> {
    states
        .iter()
        .map(|s| s.iter().map(|v| v.to_bits()).collect())
        .collect()
}

/// 20 four-body systems (a full lane group of 16 and 4 after it) after 10 steps of 10 days,
/// then system 5's Jacobi body 2 given a velocity that is not finite and system 17's body 3
/// such a position: the masses, that map state, the time step and the number of systems.
fn poisoned_systems() -> (Vec<Vec<f64>>, MapState, f64, usize) {
    let (dt, l) = (days_to_code(10.0), 20);
    let systems = many_planets(4, l);
    let refs: Vec<_> = systems
        .iter()
        .map(|(m, p, v)| (m.as_slice(), p.as_slice(), v.as_slice()))
        .collect();
    let mut clean = WhPack::new(&refs, dt, 5).unwrap();
    for _ in 0..10 {
        clean.step().unwrap();
    }
    let masses: Vec<Vec<f64>> = (0..l).map(|s| clean.masses(s)).collect();
    let (steps, mut states) = clean.map_state();
    states[5][6 * 2 + 4] = f64::NAN;
    states[17][6 * 3] = f64::INFINITY;
    (masses, (steps, states), dt, l)
}

#[test]
fn a_system_whose_drift_fails_goes_back_a_step_and_the_others_step_on() {
    let (masses, (steps, states), dt, l) = poisoned_systems();
    let poisoned = state_bits(&states);
    let mut pack = pack_from(&masses, &(steps, states.clone()), dt);
    let seeds: Vec<u64> = (0..l as u64).collect();
    pack.set_variations(&seeds).unwrap();
    let tangents = pack.variations().unwrap().clone();
    pack.step().unwrap();
    // System 5 fails at its body 2; in system 17 the kick spreads the bad position to every
    // velocity, and body 1 fails first. Both go back, bit for bit, to the step's start.
    let bad = crate::physics::kepler::KeplerError::InvalidInput;
    for (s, body) in [(5, 2), (17, 1)] {
        assert_eq!(
            pack.stops()[s],
            Some(LaneStop::Failed(body, bad)),
            "system {s}"
        );
        assert_eq!(pack.stop_after()[s], -0.5, "system {s}");
        // The map state, before the tangent vector and sums that follow it.
        let state = &state_bits(&pack.map_state().1)[s];
        assert_eq!(state[..poisoned[s].len()], poisoned[s], "system {s}");
        // Its tangent vector and MEGNO sums go back too.
        let v = pack.variations().unwrap();
        assert_eq!(v.sums()[s], tangents.sums()[s], "system {s}: MEGNO sums");
        for c in 0..3 {
            for k in 0..4 {
                let i = k * l + s;
                assert_eq!(v.dx[c][i], tangents.dx[c][i], "system {s}: tangent");
                assert_eq!(v.dv[c][i], tangents.dv[c][i], "system {s}: tangent");
            }
        }
    }
    assert_ne!(pack.variations().unwrap().sums()[0], tangents.sums()[0]);
    let broken = |s: usize| s == 5 || s == 17;
    for s in 0..l {
        assert_eq!(pack.behind()[s], broken(s), "system {s}");
        assert_eq!(pack.stops()[s].is_some(), broken(s), "system {s}");
    }
    // The others go on with the bits of a pack that never held the broken ones.
    let keep: Vec<bool> = (0..l).map(|s| !broken(s)).collect();
    let kept: Vec<usize> = (0..l).filter(|&s| keep[s]).collect();
    let sound: Vec<Vec<f64>> = kept.iter().map(|&s| states[s].clone()).collect();
    let sound_masses: Vec<Vec<f64>> = kept.iter().map(|&s| masses[s].clone()).collect();
    let mut reference = pack_from(&sound_masses, &(steps, sound), dt);
    reference.step().unwrap();
    pack.retain_systems(&keep);
    for _ in 0..30 {
        pack.step().unwrap();
        reference.step().unwrap();
    }
    // The map states, without the tangent vectors the reference does not step.
    let states_only = |p: &WhPack| -> Vec<Vec<f64>> {
        let n = 6 * p.bodies();
        p.map_state()
            .1
            .into_iter()
            .map(|v| v[..n].to_vec())
            .collect()
    };
    assert_eq!(states_only(&pack), states_only(&reference));
    assert!(pack.stops().iter().all(Option::is_none));
    // One system alone: the step is the error and leaves it where it was.
    let alone = pack_from(&masses[5..6], &(steps, vec![states[5].clone()]), dt);
    let mut one = WisdomHolman(alone);
    assert_eq!(one.step(), Err(WhError::Drift(0, 2, bad)));
    assert_eq!(one.steps(), steps);
    assert_eq!(state_bits(&one.0.map_state().1)[0], poisoned[5]);
}

#[test]
fn the_whole_packs_states_are_each_systems_own_bit_for_bit() {
    // 20 four-planet systems (a lane group of 16 and four one by one), GR and a strong J2
    // (whose torque the undone corrector moves), corrector order 11: the states and torques
    // of one copy of the pack drifted back are those of each system's copy alone.
    let systems = many_planets(5, 20);
    let refs: Vec<_> = systems
        .iter()
        .map(|(m, p, v)| (m.as_slice(), p.as_slice(), v.as_slice()))
        .collect();
    let forces = crate::physics::forces::Forces {
        gr: 1e-6,
        j2r2: 1e-4,
        axis: [0.0, 0.6, 0.8],
        ..Default::default()
    };
    let mut pack = WhPack::with_forces(&refs, (0.02, 11), &forces).unwrap();
    for _ in 0..50 {
        pack.step().unwrap();
    }
    let all = pack.states_and_torques();
    assert_eq!(all.len(), 20);
    for (s, got) in all.into_iter().enumerate() {
        let want = pack.state_and_torque(s).unwrap();
        assert!(want.1 != [0.0; 3], "system {s}: no torque to compare");
        assert_eq!(got.unwrap(), want, "system {s}");
    }
}

#[test]
fn a_system_whose_copy_fails_leaves_the_whole_packs_other_states_alone() {
    // Systems 5 and 17 cannot be drifted back (errors naming their lanes); every other
    // system's state is its copy's alone, bit for bit.
    let (masses, state, dt, l) = poisoned_systems();
    let pack = pack_from(&masses, &state, dt);
    let all = pack.states_and_torques();
    assert_eq!(all.len(), l);
    for (s, got) in all.into_iter().enumerate() {
        match s {
            5 | 17 => assert!(
                matches!(got, Err(WhError::Drift(lane, _, _)) if lane == s),
                "system {s}: {got:?}"
            ),
            _ => assert_eq!(
                got.unwrap(),
                pack.state_and_torque(s).unwrap(),
                "system {s}"
            ),
        }
    }
}
