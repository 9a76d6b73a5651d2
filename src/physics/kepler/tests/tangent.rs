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
