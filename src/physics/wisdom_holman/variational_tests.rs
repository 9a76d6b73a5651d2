//! The map's variational equations against finite differences of the map, and MEGNO on regular
//! and chaotic orbits.

use super::*;
use crate::physics::forces::Forces;
use crate::units::days_to_code;

/// The Sun and planets `(m, a, e, phase)` near the plane, heliocentric, G = 1.
fn planets(list: &[(f64, f64, f64, f64)]) -> (Vec<f64>, Vec<[f64; 3]>, Vec<[f64; 3]>) {
    let mut sys = (vec![1.0], vec![[0.0; 3]], vec![[0.0; 3]]);
    for (k, &(m, a, e, phase)) in list.iter().enumerate() {
        // At pericentre of an orbit turned by `phase` and tilted a little.
        let r = a * (1.0 - e);
        let speed = ((1.0 + m) * (1.0 + e) / r).sqrt();
        let (s, c) = phase.sin_cos();
        let inc = 0.01 * (k + 1) as f64;
        sys.0.push(m);
        sys.1.push([r * c, r * s * inc.cos(), r * s * inc.sin()]);
        sys.2
            .push([-speed * s, speed * c * inc.cos(), speed * c * inc.sin()]);
    }
    sys
}

/// A system as [`planets`] gives it.
type System = (Vec<f64>, Vec<[f64; 3]>, Vec<[f64; 3]>);

/// Jupiter (5.2 AU, e 0.048) and a Saturn (e 0.1) at each semi-major axis of `a`: systems
/// regular far apart, chaotic close.
fn saturns(a: &[f64]) -> Vec<System> {
    let jupiter = (9.54e-4, 5.2, 0.048, 0.0);
    let saturn = |a: f64| planets(&[jupiter, (2.86e-4, a, 0.1, 2.0)]);
    a.iter().map(|&a| saturn(a)).collect()
}

/// A system as [`WhPack::new`] takes it.
fn as_ref(s: &System) -> SystemRef<'_> {
    (&s.0[..], &s.1[..], &s.2[..])
}

/// The map state of a pack of one as one flat vector (`x y z vx vy vz` per body).
fn flat(pack: &WhPack) -> Vec<f64> {
    pack.map_state().1.remove(0)
}

/// The tangent vector of a pack of one, flat as [`flat`]'s state.
fn tangent_of(pack: &WhPack) -> Vec<f64> {
    let v = pack.variations().unwrap();
    let n = v.dx[0].len();
    (0..n)
        .flat_map(|k| {
            [
                v.dx[0][k], v.dx[1][k], v.dx[2][k], v.dv[0][k], v.dv[1][k], v.dv[2][k],
            ]
        })
        .collect()
}

/// The largest difference between the tangent map of `steps` steps of `sys` (8-day steps,
/// corrector order 5, the potential forces of `forces`) and central finite differences of the
/// map along the same tangent vector, relative to the largest component.
fn tangent_map_error(sys: &System, forces: &Forces, steps: usize) -> f64 {
    let dt = days_to_code(8.0);
    let base = WhPack::with_forces(&[as_ref(sys)], (dt, 5), forces).unwrap();
    let masses = [base.masses(0)];
    let refs: Vec<&[f64]> = masses.iter().map(|m| &m[..]).collect();
    let x0 = flat(&base);
    let mut pack = base.clone();
    pack.set_variations(&[7]).unwrap();
    let delta = tangent_of(&pack);
    for _ in 0..steps {
        pack.step().unwrap();
    }
    let tangent = tangent_of(&pack);
    let h = 1e-7;
    let moved = |sign: f64| {
        let state: Vec<f64> = x0
            .iter()
            .zip(&delta)
            .map(|(x, d)| x + sign * h * d)
            .collect();
        let mut p = WhPack::from_map_state(&refs, &(0, vec![state]), (dt, 5), forces).unwrap();
        for _ in 0..steps {
            p.step().unwrap();
        }
        flat(&p)
    };
    let (plus, minus) = (moved(1.0), moved(-1.0));
    let fd: Vec<f64> = plus
        .iter()
        .zip(&minus)
        .map(|(a, b)| (a - b) / (2.0 * h))
        .collect();
    let scale = fd.iter().fold(0.0f64, |m, c| m.max(c.abs()));
    tangent
        .iter()
        .zip(&fd)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()))
        / scale
}

#[test]
fn the_tangent_map_is_the_derivative_of_the_map() {
    // Three planets, the outer two 1.5 mutual Hill radii apart at their closest: strong
    // interactions, so that the kick's Hessian matters.
    let sys = planets(&[
        (3e-6, 0.6, 0.05, 0.0),
        (1e-3, 1.0, 0.05, 2.0),
        (3e-4, 1.45, 0.08, 2.6),
    ]);
    // GR and J2 far stronger than the Sun's (6/c^2 = 5.9e-8, J2 R^2 = 5e-12 in code units),
    // so that a missing or wrong Jacobian of theirs shows far above the differences' error:
    // without their terms the tangent map misses by 1e-3 and more.
    let axis = [0.1f64, -0.2, 1.0];
    let norm = axis.iter().map(|c| c * c).sum::<f64>().sqrt();
    let gr = Forces {
        gr: 1e-3,
        ..Forces::default()
    };
    let j2 = Forces {
        j2r2: 2e-3,
        axis: axis.map(|c| c / norm),
        ..Forces::default()
    };
    let both = Forces { gr: 1e-3, ..j2 };
    let cases = [
        ("point masses", Forces::default()),
        ("GR", gr),
        ("J2", j2),
        ("GR and J2", both),
    ];
    for (name, forces) in cases {
        for steps in [1, 40] {
            let err = tangent_map_error(&sys, &forces, steps);
            eprintln!("{name}, {steps} steps: tangent map against finite differences {err:e}");
            assert!(err < 1e-6, "{name}, {steps} steps: {err:e}");
        }
    }
}

/// MEGNO after `orbits` orbits of the innermost planet (`per_orbit` steps each).
fn megno_of(list: &[(f64, f64, f64, f64)], orbits: f64, per_orbit: f64) -> (f64, f64) {
    megno_with(list, (orbits, per_orbit), &Forces::default())
}

/// [`megno_of`] with the central body's potential forces of `forces`.
fn megno_with(
    list: &[(f64, f64, f64, f64)],
    (orbits, per_orbit): (f64, f64),
    forces: &Forces,
) -> (f64, f64) {
    let sys = planets(list);
    let p_inner = std::f64::consts::TAU * list[0].1.powf(1.5);
    let dt = p_inner / per_orbit;
    let mut pack = WhPack::with_forces(&[as_ref(&sys)], (dt, 5), forces).unwrap();
    pack.set_variations(&[3]).unwrap();
    for _ in 0..(orbits * per_orbit) as u64 {
        pack.step().unwrap();
    }
    let sums = pack.variations.as_ref().unwrap().sums()[0];
    (sums.megno(), sums.lyapunov())
}

#[test]
fn megno_tends_to_two_on_regular_orbits_and_grows_on_chaotic_ones() {
    // A hierarchical pair far from resonance: regular.
    let (regular, _) = megno_of(&[(1e-3, 1.0, 0.02, 0.0), (3e-4, 3.3, 0.03, 1.0)], 1e4, 30.0);
    eprintln!("regular: MEGNO {regular}");
    assert!((regular - 2.0).abs() < 0.01, "MEGNO {regular}");
    // Jupiter, and a Saturn at 6.6 AU (e 0.1; their orbits do not cross): in the chaotic zone
    // of REBOUND's MEGNO map of Saturn's a and e.
    let jupiter = (9.54e-4, 5.2, 0.048, 0.0);
    let (chaotic, lyapunov) = megno_of(&[jupiter, (2.86e-4, 6.6, 0.1, 2.0)], 1e3, 50.0);
    eprintln!("chaotic: MEGNO {chaotic}, Lyapunov exponent {lyapunov:e} per code unit");
    assert!(
        chaotic > 4.0 && lyapunov > 0.0,
        "MEGNO {chaotic}, {lyapunov:e}"
    );
}

#[test]
fn megno_reads_two_on_regular_orbits_precessing_under_gr_and_j2() {
    // The regular pair, its inner planet at 0.1 AU, GR at the speed of light and a J2 that
    // precesses the orbits a thousand times faster than the Sun's: still regular.
    let c = crate::physics::forces::speed_of_light();
    let forces = Forces {
        gr: 6.0 / (c * c),
        j2r2: 1e-7,
        axis: [0.0, 0.0, 1.0],
        ..Forces::default()
    };
    let list = [(1e-3, 0.1, 0.02, 0.0), (3e-4, 0.33, 0.03, 1.0)];
    let (megno, _) = megno_with(&list, (1e4, 30.0), &forces);
    eprintln!("regular with GR and J2: MEGNO {megno}");
    assert!((megno - 2.0).abs() < 0.01, "MEGNO {megno}");
}

#[test]
fn a_system_in_a_pack_has_the_megno_it_has_alone() {
    // Twenty systems side by side (a lane group of 16 and four one by one; regular and
    // chaotic ones), and each alone with its seed: the same tangent vectors and sums, bit for
    // bit, at every SIMD level.
    let a: Vec<f64> = (0..20).map(|k| 6.3 + 0.17 * k as f64).collect();
    let systems = saturns(&a);
    let refs: Vec<_> = systems.iter().map(as_ref).collect();
    let dt = days_to_code(100.0);
    let seeds: Vec<u64> = (11..31).collect();
    let stepped = |level| {
        crate::simd::with_level(level, || {
            let mut pack = WhPack::new(&refs, dt, 5).unwrap();
            pack.set_variations(&seeds).unwrap();
            for _ in 0..300 {
                pack.step().unwrap();
            }
            pack.variations().unwrap().sums().to_vec()
        })
    };
    let levels = crate::simd::supported_levels();
    let at_level = stepped(levels[0]);
    for &level in &levels[1..] {
        assert_eq!(stepped(level), at_level, "SIMD level {level}");
    }
    let mut pack = WhPack::new(&refs, dt, 5).unwrap();
    pack.set_variations(&seeds).unwrap();
    let mut alone: Vec<WhPack> = (0..20)
        .map(|s| {
            let mut one = WhPack::new(&refs[s..=s], dt, 5).unwrap();
            one.set_variations(&[11 + s as u64]).unwrap();
            one
        })
        .collect();
    for _ in 0..300 {
        pack.step().unwrap();
        for one in &mut alone {
            one.step().unwrap();
        }
    }
    let sums = pack.variations().unwrap().sums();
    assert_eq!(sums, &at_level[..]);
    for (s, one) in alone.iter().enumerate() {
        assert_eq!(sums[s], one.variations().unwrap().sums()[0], "system {s}");
    }
    assert_ne!(sums[0], sums[1]);
}

#[test]
fn a_pack_from_its_map_state_goes_on_with_its_variations_and_stops_on_megno() {
    // A chaotic system and a regular one, stepped 1500 steps straight, or 700 then rebuilt from
    // the map state (tangent vectors and sums included, as a checkpoint keeps them) and 800
    // more: the same bits. With the stop on MEGNO 5 after 500 code units, only the chaotic one
    // stops, at the step MEGNO first passes 5.
    let systems = saturns(&[6.6, 9.5]);
    let refs: Vec<_> = systems.iter().map(as_ref).collect();
    let dt = days_to_code(100.0);
    let start = || {
        let mut pack = WhPack::new(&refs, dt, 5).unwrap();
        pack.set_variations(&[4, 5]).unwrap();
        pack
    };
    let mut straight = start();
    let mut first = start();
    for _ in 0..700 {
        straight.step().unwrap();
        first.step().unwrap();
    }
    let state = first.map_state();
    assert_eq!(state.1[0].len(), 12 * 3 + 9);
    let masses: Vec<Vec<f64>> = (0..2).map(|s| first.masses(s)).collect();
    let masses: Vec<&[f64]> = masses.iter().map(|m| &m[..]).collect();
    let forces = crate::physics::forces::Forces::default();
    let mut resumed = WhPack::from_map_state(&masses, &state, (dt, 5), &forces).unwrap();
    let mut stopping = WhPack::from_map_state(&masses, &state, (dt, 5), &forces).unwrap();
    stopping.stop_above_megno(5.0, 500.0).unwrap();
    let mut crossed = None;
    for k in 0..800 {
        straight.step().unwrap();
        resumed.step().unwrap();
        let before = stopping.variations().unwrap().sums()[0].megno();
        stopping.step().unwrap();
        let after = stopping.variations().unwrap().sums()[0];
        let late = after.sampled_at() >= 500.0;
        if crossed.is_none() && late && after.megno() > 5.0 {
            crossed = Some((k, before));
        }
        if crossed.is_some() {
            // The first crossing stopped it (and the stop is kept).
            assert!(matches!(stopping.stops()[0], Some(LaneStop::Chaotic(m)) if m > 5.0));
        } else {
            assert_eq!(stopping.stops()[0], None, "step {k}");
        }
    }
    assert_eq!(resumed.map_state(), straight.map_state());
    let (k, before) = crossed.expect("the chaotic system passes MEGNO 5");
    eprintln!("MEGNO passed 5 at step {k} of the rebuilt pack, from {before}");
    assert_eq!(stopping.stops()[1], None, "the regular system runs on");
}
