//! The batched and lane drifts against the analytic solution and the scalar drift.

use super::*;

/// Semi-major axis, eccentricity, mean anomaly and orientation of a test orbit.
type Elements = (f64, f64, f64, Frame);

/// `n` bodies with semi-major axes in [0.5, 5], eccentricities in [e_lo, e_hi), random
/// orientations and phases, in structure of arrays, with their mean anomalies.
fn random_disk(rng: &mut Rng, n: usize, e_lo: f64, e_hi: f64) -> ([Vec<f64>; 6], Vec<Elements>) {
    let mut soa: [Vec<f64>; 6] = Default::default();
    let mut el = Vec::new();
    for _ in 0..n {
        let (a, e, m0) = (
            rng.range(0.5, 5.0),
            rng.range(e_lo, e_hi),
            rng.range(-PI, PI),
        );
        let fr = Frame::random(rng);
        let (p, v) = elliptic_state(1.0, a, e, m0, &fr);
        for k in 0..3 {
            soa[k].push(p[k]);
            soa[k + 3].push(v[k]);
        }
        el.push((a, e, m0, fr));
    }
    (soa, el)
}

fn batch(mu: f64, dt: f64, s: &mut [Vec<f64>; 6]) -> Result<(), (usize, KeplerError)> {
    let [x, y, z, vx, vy, vz] = s;
    drift_batch(mu, dt, x, y, z, vx, vy, vz)
}

fn body(s: &[Vec<f64>; 6], i: usize) -> ([f64; 3], [f64; 3]) {
    ([s[0][i], s[1][i], s[2][i]], [s[3][i], s[4][i], s[5][i]])
}

#[test]
fn batch_matches_the_analytic_solution_and_the_scalar_drift() {
    let mut rng = Rng::new(12);
    let n = 4099; // 512 lane groups and a padded last group
    let (mut worst_exact, mut worst_scalar) = (0.0f64, 0.0f64);
    for trial in 0..20 {
        let (mut s, el) = random_disk(&mut rng, n, 0.0, 0.9);
        let s0 = s.clone();
        // Up to one orbital period of the shortest orbit (several of the longest), either way.
        let dt =
            rng.range(-1.0, 1.0) * TAU * 0.5f64.powf(1.5) * if trial < 10 { 1.0 } else { 0.05 };
        batch(1.0, dt, &mut s).unwrap();
        for (i, (a, e, m0, fr)) in el.iter().enumerate() {
            let (p, v) = body(&s, i);
            let (pr, vr) = elliptic_state(1.0, *a, *e, m0 + dt / (a * a * a).sqrt(), fr);
            let (ep, ev) = rel_err(p, v, pr, vr);
            worst_exact = worst_exact.max(ep.max(ev));
            assert!(
                ep < 1e-12 && ev < 1e-12,
                "e={e} a={a} dt={dt}: {ep:e} {ev:e}"
            );
            let (p0, v0) = body(&s0, i);
            let (ps, vs) = drift_scalar(1.0, dt, p0, v0).unwrap();
            let (ep, ev) = rel_err(p, v, ps, vs);
            worst_scalar = worst_scalar.max(ep.max(ev));
            assert!(
                ep < 1e-13 && ev < 1e-13,
                "e={e} a={a} dt={dt}: {ep:e} {ev:e}"
            );
        }
    }
    eprintln!("batch: worst {worst_exact:e} from exact, {worst_scalar:e} from scalar");
}

/// [`drift_lanes`] on the lane group of the current SIMD level.
#[allow(clippy::type_complexity)]
fn drift_lanes_dispatched(
    mu: [f64; BATCH_LANES],
    inv_mu: [f64; BATCH_LANES],
    dt: f64,
    pos: [[f64; BATCH_LANES]; 3],
    vel: [[f64; BATCH_LANES]; 3],
) -> (
    [[f64; BATCH_LANES]; 3],
    [[f64; BATCH_LANES]; 3],
    [bool; BATCH_LANES],
) {
    struct Drift {
        mu: [f64; BATCH_LANES],
        inv_mu: [f64; BATCH_LANES],
        dt: f64,
        pos: [[f64; BATCH_LANES]; 3],
        vel: [[f64; BATCH_LANES]; 3],
    }
    impl LaneKernel for Drift {
        type Output = (
            [[f64; BATCH_LANES]; 3],
            [[f64; BATCH_LANES]; 3],
            [bool; BATCH_LANES],
        );
        #[inline(always)]
        fn run<G: GroupIo>(self) -> Self::Output {
            drift_lanes::<BATCH_LANES, G>(self.mu, self.inv_mu, self.dt, self.pos, self.vel)
        }
    }
    dispatch_lanes(Drift {
        mu,
        inv_mu,
        dt,
        pos,
        vel,
    })
}

/// The lane group of every SIMD level the CPU has (AVX-512 lanes, the portable array lanes
/// compiled with AVX2 and with SSE2), the portable lanes and the same kernel on single `f64`
/// values give the same acceptance and the same bits, for orbits up to e = 0.95 (some
/// rejected), steps of up to two orbits, both signs of dt.
#[test]
fn lane_groups_give_the_single_lane_kernel_bitwise() {
    for level in supported_levels() {
        with_level(level, || lane_groups_match(drift_lanes_dispatched));
    }
}

#[allow(clippy::type_complexity)]
fn lane_groups_match(
    group_drift: fn(
        [f64; BATCH_LANES],
        [f64; BATCH_LANES],
        f64,
        [[f64; BATCH_LANES]; 3],
        [[f64; BATCH_LANES]; 3],
    ) -> (
        [[f64; BATCH_LANES]; 3],
        [[f64; BATCH_LANES]; 3],
        [bool; BATCH_LANES],
    ),
) {
    let mut rng = Rng::new(77);
    let mut accepted = 0;
    for round in 0..400 {
        let (s, _) = random_disk(&mut rng, BATCH_LANES, 0.0, 0.95);
        let dt = rng.range(-12.0, 12.0) * if round % 3 == 0 { 0.01 } else { 1.0 };
        let mu: [f64; BATCH_LANES] = std::array::from_fn(|l| 0.5 + l as f64 * 0.1);
        let inv_mu = mu.map(|m| 1.0 / m);
        let arr = |k: usize| -> [f64; BATCH_LANES] { s[k][..].try_into().unwrap() };
        let (pos, vel) = ([arr(0), arr(1), arr(2)], [arr(3), arr(4), arr(5)]);
        let group = group_drift(mu, inv_mu, dt, pos, vel);
        let portable = drift_lanes::<BATCH_LANES, Portable>(mu, inv_mu, dt, pos, vel);
        assert_eq!(group.2, portable.2, "acceptance, round {round}");
        for l in 0..BATCH_LANES {
            let (p, v, ok) =
                drift_group::<f64>(mu[l], inv_mu[l], dt, pos.map(|c| c[l]), vel.map(|c| c[l]));
            assert_eq!(ok, group.2[l], "acceptance, round {round} lane {l}");
            if !ok {
                continue;
            }
            accepted += 1;
            for c in 0..3 {
                for (want, got) in [(p[c], group.0[c][l]), (v[c], group.1[c][l])] {
                    assert_eq!(want.to_bits(), got.to_bits(), "round {round} lane {l}");
                }
                assert_eq!(group.0[c][l].to_bits(), portable.0[c][l].to_bits());
                assert_eq!(group.1[c][l].to_bits(), portable.1[c][l].to_bits());
            }
        }
    }
    assert!(accepted > 4000, "only {accepted} lanes accepted");
}

#[test]
fn batch_lanes_converge_for_all_accepted_orbits() {
    // A grid over e < 0.9, initial phase and mean-anomaly step in [-pi, pi] (a = mu = 1):
    // every lane must pass the acceptance test within BATCH_MAX_ITER passes.
    let fr = Frame {
        p: [1.0, 0.0, 0.0],
        q: [0.0, 1.0, 0.0],
    };
    let mut rejected = 0;
    for ie in 0..90 {
        let e = 0.01 * ie as f64 + 0.0099;
        for ip in 0..64 {
            let (p, v) = elliptic_state(1.0, 1.0, e, -PI + TAU * (ip as f64 + 0.5) / 64.0, &fr);
            for id in 0..=64 {
                let dt = -PI + TAU * id as f64 / 64.0;
                let (_, _, ok) = drift_lanes_dispatched(
                    [1.0; BATCH_LANES],
                    [1.0; BATCH_LANES],
                    dt,
                    p.map(|c| [c; BATCH_LANES]),
                    v.map(|c| [c; BATCH_LANES]),
                );
                rejected += ok.iter().filter(|&&o| !o).count();
            }
        }
    }
    assert_eq!(rejected, 0);
}

#[test]
fn batch_fallback_lanes_equal_the_scalar_drift_bitwise() {
    let mut rng = Rng::new(13);
    let n = 203;
    let (mut s, _) = random_disk(&mut rng, n, 0.0, 0.5);
    // Every third body is hyperbolic or has e = 0.99 (scalar fallback), a few more have
    // e = 0.95 (rejected by the vector path as well).
    let mut fallback = vec![false; n];
    for i in (0..n).step_by(3) {
        let fr = Frame::random(&mut rng);
        let (p, v) = match i % 9 {
            0 => hyperbolic_state(
                1.0,
                -rng.range(0.5, 3.0),
                rng.range(1.01, 4.0),
                rng.range(-3.0, 3.0),
                &fr,
            ),
            3 => elliptic_state(1.0, rng.range(0.5, 3.0), 0.99, rng.range(-PI, PI), &fr),
            _ => elliptic_state(1.0, rng.range(0.5, 3.0), 0.95, rng.range(-PI, PI), &fr),
        };
        for k in 0..3 {
            s[k][i] = p[k];
            s[k + 3][i] = v[k];
        }
        fallback[i] = true;
    }
    let s0 = s.clone();
    for dt in [0.1, -2.5, 40.0] {
        let mut s = s0.clone();
        batch(1.0, dt, &mut s).unwrap();
        for i in 0..n {
            let (p0, v0) = body(&s0, i);
            let want = drift_scalar(1.0, dt, p0, v0).unwrap();
            let got = body(&s, i);
            if fallback[i] {
                assert_eq!(got, want, "body {i}");
            } else {
                let (ep, ev) = rel_err(got.0, got.1, want.0, want.1);
                assert!(ep < 1e-13 && ev < 1e-13, "body {i}: {ep:e} {ev:e}");
            }
        }
    }
    // dt = 0 leaves everything unchanged.
    let mut s = s0.clone();
    batch(1.0, 0.0, &mut s).unwrap();
    assert_eq!(s, s0);
}

/// The batch drift of a disk with fallback lanes (e up to 0.97), a padded last group and a
/// per-body central mass gives the same bits at every SIMD level the CPU has.
#[test]
fn batch_drift_is_the_same_at_every_simd_level() {
    let mut rng = Rng::new(15);
    let n = 1001;
    let (s0, _) = random_disk(&mut rng, n, 0.0, 0.97);
    let mu: Vec<f64> = (0..n).map(|i| 1.0 + 1e-3 * (i % 7) as f64).collect();
    let inv_mu: Vec<f64> = mu.iter().map(|m| 1.0 / m).collect();
    let run = || {
        let (mut one, mut many) = (s0.clone(), s0.clone());
        for dt in [0.37, -5.0] {
            batch(1.0, dt, &mut one).unwrap();
            let [x, y, z, vx, vy, vz] = &mut many;
            drift_batch_per_body(&mu, &inv_mu, dt, [x, y, z, vx, vy, vz]).unwrap();
        }
        (one, many)
    };
    let levels = crate::simd::supported_levels();
    let base = with_level(levels[0], run);
    assert_ne!(base.0, s0);
    for &level in &levels[1..] {
        assert!(with_level(level, run) == base, "SIMD level {level}");
    }
}

#[test]
fn batch_results_do_not_depend_on_lane_grouping_and_errors_name_the_body() {
    let mut rng = Rng::new(14);
    let n = 1000;
    let (s0, _) = random_disk(&mut rng, n, 0.0, 0.9);
    let mut whole = s0.clone();
    batch(1.0, 0.37, &mut whole).unwrap();
    // Shift the lane grouping by 3 bodies (and so the padded last group): all agree bitwise.
    let mut shifted = s0.clone();
    {
        let [x, y, z, vx, vy, vz] = &mut shifted;
        drift_batch(
            1.0,
            0.37,
            &mut x[3..],
            &mut y[3..],
            &mut z[3..],
            &mut vx[3..],
            &mut vy[3..],
            &mut vz[3..],
        )
        .unwrap();
    }
    for i in 3..n {
        assert_eq!(body(&whole, i), body(&shifted, i), "body {i}");
    }
    // A body on the central mass: Err names it; earlier bodies drifted, later ones untouched.
    let mut s = s0.clone();
    for k in 0..6 {
        s[k][13] = 0.0;
    }
    let before = s.clone();
    assert_eq!(
        batch(1.0, 0.37, &mut s),
        Err((13, KeplerError::InvalidInput))
    );
    for i in 0..n {
        if i < 13 {
            assert_eq!(body(&s, i), body(&whole, i), "body {i}");
        } else {
            assert_eq!(body(&s, i), body(&before, i), "body {i}");
        }
    }
    assert_eq!(
        batch(f64::NAN, 0.37, &mut s),
        Err((0, KeplerError::InvalidInput))
    );
}

/// One small system (at most 8 bodies) takes narrow lane groups: every body gets the bits it
/// gets in a wide group of a large batch, at every SIMD level, including bodies the vector path
/// hands to the scalar drift (e close to 1) and bodies with their own central mass.
#[test]
fn narrow_lane_groups_of_a_few_bodies_give_the_wide_groups_bits() {
    let mut rng = Rng::new(16);
    let n = 40;
    let (s0, _) = random_disk(&mut rng, n, 0.0, 0.97);
    let mu: Vec<f64> = (0..n).map(|i| 1.0 + 1e-3 * (i % 5) as f64).collect();
    let inv_mu: Vec<f64> = mu.iter().map(|m| 1.0 / m).collect();
    for level in crate::simd::supported_levels() {
        for dt in [0.37, -5.0, 1e-3] {
            let mut whole = s0.clone();
            with_level(level, || batch(1.0, dt, &mut whole)).unwrap();
            let mut whole_own = s0.clone();
            let [x, y, z, vx, vy, vz] = &mut whole_own;
            let state = [x, y, z, vx, vy, vz].map(|v| v.as_mut_slice());
            with_level(level, || drift_batch_per_body(&mu, &inv_mu, dt, state)).unwrap();
            for len in 1..=16 {
                for first in [0, 5, n - len] {
                    let r = first..first + len;
                    let mut few: [Vec<f64>; 6] = std::array::from_fn(|k| s0[k][r.clone()].to_vec());
                    with_level(level, || batch(1.0, dt, &mut few)).unwrap();
                    let mut own: [Vec<f64>; 6] = std::array::from_fn(|k| s0[k][r.clone()].to_vec());
                    let [x, y, z, vx, vy, vz] = &mut own;
                    let state = [x, y, z, vx, vy, vz].map(|v| v.as_mut_slice());
                    let (m, im) = (&mu[r.clone()], &inv_mu[r.clone()]);
                    with_level(level, || drift_batch_per_body(m, im, dt, state)).unwrap();
                    for i in r.clone() {
                        let at = format!("{level}, dt {dt}, bodies {r:?}, body {i}");
                        assert_eq!(body(&few, i - first), body(&whole, i), "{at}");
                        assert_eq!(body(&own, i - first), body(&whole_own, i), "{at}");
                    }
                }
            }
        }
    }
}

#[test]
fn repeated_batch_drifts_conserve_energy_and_angular_momentum_like_the_scalar_drift() {
    // 10^4 drifts of 32 bodies per eccentricity, batch and scalar: rounding makes dE/E and
    // dh/h random walks, so compare their rms over the bodies (a systematic error from
    // inexact sines would show up as growth well above the scalar's).
    let mu = 1.0;
    let mut rng = Rng::new(15);
    let es = [0.0, 0.05, 0.1, 0.3, 0.5, 0.7, 0.85, 0.89];
    let per_e = 32;
    let dt = TAU / 60.25;
    let mut s: [Vec<f64>; 6] = Default::default();
    for &e in &es {
        for _ in 0..per_e {
            let a = rng.range(0.8, 1.25);
            let (p, v) = elliptic_state(mu, a, e, rng.range(-PI, PI), &Frame::random(&mut rng));
            for k in 0..3 {
                s[k].push(p[k]);
                s[k + 3].push(v[k]);
            }
        }
    }
    let s0 = s.clone();
    for _ in 0..10_000 {
        batch(mu, dt, &mut s).unwrap();
    }
    for (j, &e) in es.iter().enumerate() {
        let mut sum = [0.0f64; 4];
        for i in j * per_e..(j + 1) * per_e {
            let (p0, v0) = body(&s0, i);
            let (pb, vb) = body(&s, i);
            let (mut ps, mut vs) = (p0, v0);
            for _ in 0..10_000 {
                (ps, vs) = drift_scalar(mu, dt, ps, vs).unwrap();
            }
            let (e0, h0) = (energy(mu, p0, v0), cross(p0, v0));
            let de_b = energy(mu, pb, vb) / e0 - 1.0;
            let dh_b = dist(cross(pb, vb), h0) / norm(h0);
            let de_s = energy(mu, ps, vs) / e0 - 1.0;
            let dh_s = dist(cross(ps, vs), h0) / norm(h0);
            let tol = 2e-13 * (1.0 + e) / (1.0 - e);
            assert!(
                de_b.abs() < tol && dh_b < tol,
                "e={e}: dE/E = {de_b:e}, dh/h = {dh_b:e}"
            );
            for (acc, d) in sum.iter_mut().zip([de_b, dh_b, de_s, dh_s]) {
                *acc += d * d;
            }
        }
        let [de_b, dh_b, de_s, dh_s] = sum.map(|s2| (s2 / per_e as f64).sqrt());
        eprintln!(
            "e = {e}: rms dE/E, dh/h batch {de_b:.1e} {dh_b:.1e}, scalar {de_s:.1e} {dh_s:.1e}"
        );
        assert!(
            de_b < 2.0 * de_s.max(1e-14) && dh_b < 2.0 * dh_s.max(1e-14),
            "e={e}"
        );
    }
}

/// Brouwer's law for the drift: 64 orbits (a in [0.5, 5], e < 0.3) drifted 2 10^5 times by a
/// fixed step keep their energies to rounding noise that grows like the square root of the
/// number of drifts. A short drift's `f` and `gdot` lie close to 1: computed from `1 - cos x`
/// and rounded near 1, they carry the rounding error of `cos x`, the same at every drift of a
/// near-circular orbit, and the energy drifted linearly, to 80 times this bound (batch) and 7
/// times (scalar). The drift now takes `1 - cos x` as `sin^2 x / (1 + cos x)` and adds the
/// change `(f - 1) r0 + g v0` to the old state ([`super::super::scalar::one_minus_cos`]).
#[test]
fn repeated_drifts_keep_the_energy_to_rounding_noise() {
    let mut rng = Rng::new(77);
    let (mut s, _) = random_disk(&mut rng, 64, 0.0, 0.3);
    let mut one = s.clone();
    let energy_of = |s: &[Vec<f64>; 6], i: usize| {
        let (p, v) = body(s, i);
        energy(1.0, p, v)
    };
    let e0: Vec<f64> = (0..64).map(|i| energy_of(&s, i)).collect();
    let (dt, steps) = (0.01, 200_000);
    for _ in 0..steps {
        batch(1.0, dt, &mut s).unwrap();
    }
    for i in 0..8 {
        let (mut p, mut v) = body(&one, i);
        for _ in 0..steps {
            (p, v) = drift_scalar(1.0, dt, p, v).unwrap();
        }
        for k in 0..3 {
            one[k][i] = p[k];
            one[k + 3][i] = v[k];
        }
    }
    let worst = |s: &[Vec<f64>; 6], n: usize| {
        (0..n)
            .map(|i| ((energy_of(s, i) - e0[i]) / e0[i]).abs())
            .fold(0.0, f64::max)
    };
    let (batch_err, scalar_err) = (worst(&s, 64), worst(&one, 8));
    println!(
        "relative energy error after {steps} drifts: batch {batch_err:e}, scalar {scalar_err:e}"
    );
    assert!(batch_err < 2e-13, "batch drift: {batch_err:e}");
    assert!(scalar_err < 2e-13, "scalar drift: {scalar_err:e}");
}

/// The drift with the positions written apart gives every body the bits of the drift in place
/// (vector lanes, the scalar fallback of e close to 1, the narrow groups of a few bodies, empty
/// slots), goes on past bodies that cannot be drifted, keeping them unchanged and naming them in
/// index order, and leaves the positions it read alone.
#[test]
fn the_drift_with_positions_apart_is_the_drift_in_place_and_goes_on_past_failures() {
    let mut rng = Rng::new(21);
    for n in [5, 37] {
        let (mut s0, _) = random_disk(&mut rng, n, 0.0, 0.97);
        // Failures: a body on the central mass, a velocity that is not finite.
        for k in 0..6 {
            s0[k][1] = 0.0;
        }
        s0[4][n - 1] = f64::NAN;
        let mut mu: Vec<f64> = (0..n).map(|i| 1.0 + 0.01 * i as f64).collect();
        mu[3] = 0.0;
        let inv_mu: Vec<f64> = mu
            .iter()
            .map(|m| if *m > 0.0 { 1.0 / m } else { 0.0 })
            .collect();
        let mut s = s0.clone();
        let mut x_to = [vec![7.0; n], vec![7.0; n], vec![7.0; n]];
        let mut failed = Vec::new();
        {
            let [x, y, z, vx, vy, vz] = &mut s;
            let [tx, ty, tz] = &mut x_to;
            let apart = (
                [&x[..], &y[..], &z[..]],
                [&mut tx[..], &mut ty[..], &mut tz[..]],
            );
            let v = [&mut vx[..], &mut vy[..], &mut vz[..]];
            let mut record = |i: usize, e: KeplerError| failed.push((i, e));
            drift_batch_per_body_into((&mu, &inv_mu), 0.37, apart, v, &mut record);
        }
        let bad = KeplerError::InvalidInput;
        assert_eq!(failed, vec![(1, bad), (n - 1, bad)], "{n} bodies");
        let bits = |s: &[Vec<f64>], i: usize| s.iter().map(|c| c[i].to_bits()).collect::<Vec<_>>();
        for i in 0..n {
            assert_eq!(
                bits(&s[..3], i),
                bits(&s0[..3], i),
                "the positions read, body {i}"
            );
        }
        // The drifted state: positions apart, velocities in place.
        let drifted: Vec<Vec<f64>> = x_to.iter().chain(&s[3..]).cloned().collect();
        for i in [1, 3, n - 1] {
            assert_eq!(bits(&drifted, i), bits(&s0, i), "body {i} unchanged");
        }
        // In place, one body at a time past the failures: the same bits for every other body.
        let mut one = s0.clone();
        for i in (0..n).filter(|i| ![1, n - 1].contains(i)) {
            let [x, y, z, vx, vy, vz] = &mut one;
            let state = [
                &mut x[i..=i],
                &mut y[i..=i],
                &mut z[i..=i],
                &mut vx[i..=i],
                &mut vy[i..=i],
                &mut vz[i..=i],
            ];
            drift_batch_per_body(&mu[i..=i], &inv_mu[i..=i], 0.37, state).unwrap();
            assert_eq!(bits(&drifted, i), bits(&one, i), "{n} bodies: body {i}");
        }
    }
}

/// The lane drift's starting value for short steps, the inverse series of Kepler's equation to
/// `t^5`: its error falls as `t^6` (64 times from dm = 0.1 to 0.05, summed over the phase), and
/// for orbits like the Earth's at dt = 5 days (e <= 0.05, |dm| <= 0.12) it is well below the
/// acceptance test's bound, so the first correction of Danby's iteration is accepted.
#[test]
fn series_start_is_of_fifth_order_and_one_correction_from_the_root() {
    let phases = 64;
    for e in [0.0167, 0.05, 0.2] {
        let mut sums = [0.0; 2];
        for ip in 0..phases {
            let e0 = TAU * (ip as f64 + 0.5) / phases as f64;
            let (ec, es) = (e * e0.cos(), e * e0.sin());
            let a_over_r0 = 1.0 / (1.0 - ec);
            for (k, dm) in [0.1, 0.05].into_iter().enumerate() {
                for dm in [dm, -dm] {
                    let (root, ..) = solve_elliptic(ec, es, 1.0 - ec, dm).unwrap();
                    let (x0, taken) = series_start::<f64>(ec, es, a_over_r0, dm);
                    assert!(taken, "e {e}, phase {e0}, dm {dm}");
                    sums[k] += (x0 - root).abs();
                }
            }
            if e <= 0.05 {
                for dm in [0.12, -0.12, 0.086] {
                    let (root, ..) = solve_elliptic(ec, es, 1.0 - ec, dm).unwrap();
                    let x0 = series_start::<f64>(ec, es, a_over_r0, dm).0;
                    let bound = 0.5 * ELLIPTIC_ACCEPT * (1.0 - e);
                    assert!(
                        (x0 - root).abs() < 0.1 * bound,
                        "e {e}, phase {e0}, dm {dm}: start {x0}, root {root}"
                    );
                }
            }
        }
        let ratio = sums[0] / sums[1];
        assert!(
            (50.0..80.0).contains(&ratio),
            "e {e}: error ratio {ratio} from dm = 0.1 to 0.05 (t^6: 64)"
        );
    }
}
