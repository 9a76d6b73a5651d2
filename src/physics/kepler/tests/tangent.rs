//! The Kepler drift's tangent map against finite differences of the drift.

use super::*;
use crate::physics::kepler::drift_tangent;

/// The central difference of `drift_scalar` along `(dx0, dv0)` with step `h`.
fn finite_difference(
    mu: f64,
    dt: f64,
    (x0, v0): ([f64; 3], [f64; 3]),
    (dx0, dv0): ([f64; 3], [f64; 3]),
    h: f64,
) -> ([f64; 3], [f64; 3]) {
    let moved = |sign: f64| {
        let p = [0, 1, 2].map(|c| x0[c] + sign * h * dx0[c]);
        let v = [0, 1, 2].map(|c| v0[c] + sign * h * dv0[c]);
        drift_scalar(mu, dt, p, v).unwrap()
    };
    let ((p1, v1), (p2, v2)) = (moved(1.0), moved(-1.0));
    let d = |a: [f64; 3], b: [f64; 3]| [0, 1, 2].map(|c| (a[c] - b[c]) / (2.0 * h));
    (d(p1, p2), d(v1, v2))
}

/// A random direction of six components, of unit length.
fn direction(rng: &mut Rng) -> ([f64; 3], [f64; 3]) {
    let w: Vec<f64> = (0..6).map(|_| rng.range(-1.0, 1.0)).collect();
    let n = w.iter().map(|c| c * c).sum::<f64>().sqrt();
    (
        [w[0] / n, w[1] / n, w[2] / n],
        [w[3] / n, w[4] / n, w[5] / n],
    )
}

#[test]
fn the_tangent_map_is_the_derivative_of_the_drift() {
    let mut rng = Rng::new(46);
    let mut worst = 0.0f64;
    // Bound orbits from circular to e = 0.95, steps from a hundredth of the period to more
    // than one, either way; hyperbolic orbits (near-parabolic ones below).
    for trial in 0..300 {
        let fr = Frame::random(&mut rng);
        let (mu, a) = (rng.range(0.5, 2.0), rng.range(0.5, 5.0));
        let m = rng.range(-PI, PI);
        let (state, period) = match trial % 3 {
            0 | 1 => {
                let e = if trial % 3 == 0 {
                    rng.range(0.0, 0.3)
                } else {
                    rng.range(0.3, 0.95)
                };
                (
                    elliptic_state(mu, a, e, m, &fr),
                    TAU * (a * a * a / mu).sqrt(),
                )
            }
            _ => {
                let e = rng.range(1.01, 3.0);
                let m = rng.range(-2.0, 2.0);
                (
                    hyperbolic_state(mu, -a, e, m, &fr),
                    TAU * (a * a * a / mu).sqrt(),
                )
            }
        };
        let dt = period * rng.range(-1.3, 1.3).powi(3);
        let along = direction(&mut rng);
        let (dx, dv) = drift_tangent(mu, dt, state, along).unwrap();
        let (fx, fv) = finite_difference(mu, dt, state, along, 1e-6);
        let scale = norm(fx).max(norm(fv)).max(1.0);
        let err = dist(dx, fx).max(dist(dv, fv)) / scale;
        worst = worst.max(err);
        assert!(err < 1e-6, "trial {trial}: dt {dt}, error {err:e}");
    }
    // Near-parabolic, on both sides of e = 1 (the universal solver's path), pericentre 0.5.
    for (e, m) in [(1.0 - 1e-6, 1e-9), (1.0 + 1e-6, 1e-9)] {
        let fr = Frame::random(&mut rng);
        let a = 0.5 / (1.0 - e);
        let state = match e < 1.0 {
            true => elliptic_state(1.0, a, e, m, &fr),
            false => hyperbolic_state(1.0, a, e, m, &fr),
        };
        let along = direction(&mut rng);
        let (dx, dv) = drift_tangent(1.0, 0.3, state, along).unwrap();
        let (fx, fv) = finite_difference(1.0, 0.3, state, along, 1e-6);
        let scale = norm(fx).max(norm(fv)).max(1.0);
        let err = dist(dx, fx).max(dist(dv, fv)) / scale;
        worst = worst.max(err);
        assert!(err < 1e-6, "e {e}: error {err:e}");
    }
    eprintln!("tangent map: worst relative difference from finite differences {worst:e}");
    // Linear: twice the change gives twice the result, and no change none.
    let fr = Frame::random(&mut rng);
    let state = elliptic_state(1.0, 1.3, 0.2, 0.4, &fr);
    let along = direction(&mut rng);
    let twice = (along.0.map(|c| 2.0 * c), along.1.map(|c| 2.0 * c));
    let (dx, dv) = drift_tangent(1.0, 0.7, state, along).unwrap();
    let (dx2, dv2) = drift_tangent(1.0, 0.7, state, twice).unwrap();
    for c in 0..3 {
        assert!(
            (dx2[c] - 2.0 * dx[c]).abs() <= 1e-14 * norm(dx)
                && (dv2[c] - 2.0 * dv[c]).abs() <= 1e-14 * norm(dv)
        );
    }
    let zero = drift_tangent(1.0, 0.7, state, ([0.0; 3], [0.0; 3])).unwrap();
    assert_eq!(zero, ([0.0; 3], [0.0; 3]));
    assert_eq!(
        drift_tangent(1.0, 0.7, ([0.0; 3], [1.0, 0.0, 0.0]), along),
        Err(KeplerError::InvalidInput)
    );
}

/// Bodies about `mu` (structure of arrays: x y z vx vy vz) on random orbits: bound ones from
/// circular to e = 0.97 (those above 0.9 take the scalar path) and a few hyperbolic ones.
fn random_bodies(rng: &mut Rng, n: usize, mu: f64) -> [Vec<f64>; 6] {
    let mut s: [Vec<f64>; 6] = Default::default();
    for i in 0..n {
        let fr = Frame::random(rng);
        let (x, v) = match i % 10 {
            9 => hyperbolic_state(mu, -rng.range(0.5, 3.0), rng.range(1.01, 2.0), 0.3, &fr),
            _ => {
                let e = rng.range(0.0, 0.97);
                elliptic_state(mu, rng.range(0.5, 3.0), e, rng.range(-PI, PI), &fr)
            }
        };
        for c in 0..3 {
            s[c].push(x[c]);
            s[3 + c].push(v[c]);
        }
    }
    s
}

/// [`drift_tangent_batch`] of `state`'s bodies about `mu` over `dt` along `tangent`.
fn batch_tangent(
    mu: &[f64],
    dt: f64,
    state: &[Vec<f64>; 6],
    tangent: &[Vec<f64>; 6],
) -> [Vec<f64>; 6] {
    let inv: Vec<f64> = mu.iter().map(|m| 1.0 / m).collect();
    let mut out: [Vec<f64>; 6] = std::array::from_fn(|_| vec![0.0; mu.len()]);
    fn three(a: &[Vec<f64>; 6], o: usize) -> [&[f64]; 3] {
        [&a[o][..], &a[o + 1][..], &a[o + 2][..]]
    }
    let (t, s) = (
        (three(tangent, 0), three(tangent, 3)),
        (three(state, 0), three(state, 3)),
    );
    let [a, b, c, d, e, f] = &mut out;
    let to = (
        [&mut a[..], &mut b[..], &mut c[..]],
        [&mut d[..], &mut e[..], &mut f[..]],
    );
    crate::physics::kepler::drift_tangent_batch((mu, &inv), dt, s, t, to);
    out
}

#[test]
fn the_lane_groups_tangent_is_the_scalar_one_at_every_simd_level_and_grouping() {
    let mut rng = Rng::new(47);
    let n = 501;
    let state = random_bodies(&mut rng, n, 1.0);
    let tangent: [Vec<f64>; 6] =
        std::array::from_fn(|_| (0..n).map(|_| rng.range(-1.0, 1.0)).collect());
    let mu: Vec<f64> = (0..n).map(|i| 1.0 + 1e-3 * (i % 5) as f64).collect();
    // Short steps (the map's) and one of more than half a period for the shorter orbits, which
    // the lanes leave to the scalar path.
    for dt in [0.05, -0.3, 2.5] {
        let base = batch_tangent(&mu, dt, &state, &tangent);
        let mut worst = 0.0f64;
        for i in 0..n {
            let at = |a: &[Vec<f64>; 6], o: usize| [a[o][i], a[o + 1][i], a[o + 2][i]];
            let (sx, sv) = drift_tangent(
                mu[i],
                dt,
                (at(&state, 0), at(&state, 3)),
                (at(&tangent, 0), at(&tangent, 3)),
            )
            .unwrap();
            let (bx, bv) = (at(&base, 0), at(&base, 3));
            let scale = norm(sx).max(norm(sv)).max(1.0);
            let err = dist(bx, sx).max(dist(bv, sv)) / scale;
            worst = worst.max(err);
            assert!(err < 1e-12, "body {i}, dt {dt}: {err:e}");
        }
        eprintln!("dt {dt}: lanes against the scalar tangent, worst {worst:e}");
        for &level in &crate::simd::supported_levels() {
            let again = crate::simd::with_level(level, || batch_tangent(&mu, dt, &state, &tangent));
            assert!(again == base, "SIMD level {level}, dt {dt}");
        }
        // Shifted by one body: every body's bits are its own, whatever its lane.
        let cut =
            |a: &[Vec<f64>; 6]| -> [Vec<f64>; 6] { std::array::from_fn(|c| a[c][1..].to_vec()) };
        let shifted = batch_tangent(&mu[1..], dt, &cut(&state), &cut(&tangent));
        assert!(shifted == cut(&base), "dt {dt}: grouping");
    }
}

/// [`crate::physics::kepler::drift_with_tangent`] of `state`'s bodies: the drifted state and
/// the moved tangent vectors, and the failed bodies.
fn fused(
    mu: &[f64],
    dt: f64,
    state: &[Vec<f64>; 6],
    tangent: &[Vec<f64>; 6],
) -> ([Vec<f64>; 6], [Vec<f64>; 6], Vec<usize>) {
    let inv: Vec<f64> = mu.iter().map(|m| 1.0 / m).collect();
    let n = mu.len();
    let mut drifted = state.clone();
    let mut moved: [Vec<f64>; 6] = std::array::from_fn(|_| vec![0.0; n]);
    let mut failed = Vec::new();
    let [x, y, z, vx, vy, vz] = &mut drifted;
    let [a, b, c, d, e, f] = &mut moved;
    let t = (
        [&tangent[0][..], &tangent[1][..], &tangent[2][..]],
        [&tangent[3][..], &tangent[4][..], &tangent[5][..]],
    );
    let out = (
        [&mut a[..], &mut b[..], &mut c[..]],
        [&mut d[..], &mut e[..], &mut f[..]],
    );
    crate::physics::kepler::drift_with_tangent(
        (mu, &inv),
        dt,
        (
            [&state[0][..], &state[1][..], &state[2][..]],
            [&mut x[..], &mut y[..], &mut z[..]],
        ),
        [&mut vx[..], &mut vy[..], &mut vz[..]],
        &mut |i, _| failed.push(i),
        (t, out),
    );
    (drifted, moved, failed)
}

#[test]
fn the_drift_with_its_tangent_is_both_drifts_bit_for_bit() {
    let mut rng = Rng::new(48);
    let n = 203;
    let state = random_bodies(&mut rng, n, 1.0);
    let tangent: [Vec<f64>; 6] =
        std::array::from_fn(|_| (0..n).map(|_| rng.range(-1.0, 1.0)).collect());
    let mu: Vec<f64> = (0..n).map(|i| 1.0 + 1e-3 * (i % 5) as f64).collect();
    // Many bodies (full lane groups and a short one), a few (one narrow group), no drift.
    for (count, dt) in [
        (n, 0.05),
        (n, -0.3),
        (n, 2.5),
        (5, 0.05),
        (7, -0.3),
        (n, 0.0),
    ] {
        let cut = |a: &[Vec<f64>; 6]| -> [Vec<f64>; 6] {
            std::array::from_fn(|c| a[c][..count].to_vec())
        };
        let (state, tangent, mu) = (cut(&state), cut(&tangent), &mu[..count]);
        let (drifted, moved, failed) = fused(mu, dt, &state, &tangent);
        assert!(failed.is_empty(), "dt {dt}: {failed:?}");
        assert!(
            moved == batch_tangent(mu, dt, &state, &tangent),
            "{count} bodies, dt {dt}"
        );
        let mut alone = state.clone();
        let [x, y, z, vx, vy, vz] = &mut alone;
        let inv: Vec<f64> = mu.iter().map(|m| 1.0 / m).collect();
        let st = [
            &mut x[..],
            &mut y[..],
            &mut z[..],
            &mut vx[..],
            &mut vy[..],
            &mut vz[..],
        ];
        crate::physics::kepler::drift_batch_per_body(mu, &inv, dt, st).unwrap();
        assert!(drifted == alone, "{count} bodies, dt {dt}: the drift");
    }
}
