//! The Kepler drift (per body, scalar and lane paths) bitwise against the batch drift.

use super::*;

/// A time step relative to the orbital time scale: tiny to many orbits, either sign, and the
/// special values (0, +-0, subnormal, huge, non-finite).
fn random_dt(rng: &mut Rng) -> f64 {
    match rng.next_u64() % 40 {
        0 => 0.0,
        1 => -0.0,
        2 => 5e-324,
        3 => -1e-300,
        4 => 1e12,
        5 => -1e12,
        6 => f64::NAN,
        7 => f64::INFINITY,
        _ => log_uniform(rng, -9.0, 4.0),
    }
}

fn error_code(e: Option<KeplerError>) -> i32 {
    match e {
        None => 0,
        Some(KeplerError::InvalidInput) => 1,
        Some(KeplerError::NoConvergence) => 2,
        Some(KeplerError::NonFinite) => 3,
    }
}

/// `drift_batch_per_body` on every body, with the error of each failing body (the batch stops
/// at the first failure, so it is resumed after it).
fn rust_batch(mu: &[f64], inv_mu: &[f64], dt: f64, states: &[[f64; 6]]) -> Vec<([f64; 6], i32)> {
    let n = states.len();
    let mut cols: [Vec<f64>; 6] = std::array::from_fn(|c| states.iter().map(|s| s[c]).collect());
    let mut err = vec![0; n];
    let mut start = 0;
    while start < n {
        let [x, y, z, vx, vy, vz] = &mut cols;
        let state = [
            &mut x[start..],
            &mut y[start..],
            &mut z[start..],
            &mut vx[start..],
            &mut vy[start..],
            &mut vz[start..],
        ];
        match kepler::drift_batch_per_body(&mu[start..], &inv_mu[start..], dt, state) {
            Ok(()) => break,
            Err((i, e)) => {
                err[start + i] = error_code(Some(e));
                start += i + 1;
            }
        }
    }
    (0..n)
        .map(|i| (std::array::from_fn(|c| cols[c][i]), err[i]))
        .collect()
}

#[test]
fn drift_body_is_bitwise_the_batch_drift() {
    let mut rng = Rng::new(13);
    let (mut total, mut failures, mut lane_path) = (0usize, 0usize, 0usize);
    // 1250 batches of 80 bodies (5 lane groups) with one dt each: 10^5 drifts per build.
    for _ in 0..1250 {
        let dt = random_dt(&mut rng);
        let n = 80;
        let mut mu = Vec::with_capacity(n);
        let mut states = Vec::with_capacity(n);
        for _ in 0..n {
            let m = match rng.next_u64() % 50 {
                0 => 0.0, // an empty slot
                1 => 1e-12,
                2 => 1e6,
                _ => rng.range(0.5, 2.0),
            };
            let mut s = random_state(&mut rng, if m > 0.0 { m } else { 1.0 });
            // Scale the step to the orbit so every phase of it is visited.
            s = match rng.next_u64() % 200 {
                0 => [0.0; 6], // at the centre: invalid input
                1 => [s[0], s[1], s[2], f64::INFINITY, 0.0, 0.0],
                _ => s,
            };
            mu.push(m);
            states.push(s);
        }
        let inv_mu: Vec<f64> = mu.iter().map(|&m| 1.0 / m).collect();
        let want = rust_batch(&mu, &inv_mu, dt, &states);
        for nat in &BUILDS {
            for i in 0..n {
                let (got, err) = nat.drift_body(mu[i], inv_mu[i], dt, states[i]);
                let (w, werr) = want[i];
                assert!(
                    err == werr && same_all(&got, &w),
                    "{}: body mu={:e} dt={dt:e} state={:?}\n got {got:?} err {err}\nwant {w:?} err {werr}",
                    nat.name,
                    mu[i],
                    states[i]
                );
            }
        }
        for i in 0..n {
            total += 1;
            failures += (want[i].1 != 0) as usize;
            lane_path += (dt.is_finite() && dt != 0.0 && mu[i] > 0.0 && {
                let s = states[i];
                let p = kepler::drift_group::<f64>(
                    mu[i],
                    inv_mu[i],
                    dt,
                    [s[0], s[1], s[2]],
                    [s[3], s[4], s[5]],
                );
                p.2
            }) as usize;
        }
    }
    eprintln!("{total} drifts: {lane_path} on the lane path, {failures} failures");
    // Both paths and the failures are exercised.
    assert!(lane_path > total / 4 && lane_path < total - total / 10);
    assert!(failures > 100);
}

#[test]
fn drift_paths_are_bitwise_their_rust_twins() {
    // The lane path alone (drift_group on one lane, with its acceptance) and the scalar solver
    // alone (drift_scalar), including the orbits the batch never sends to the other one.
    let mut rng = Rng::new(14);
    for _ in 0..20_000 {
        let mu = rng.range(0.5, 2.0);
        let inv_mu = 1.0 / mu;
        let s = random_state(&mut rng, mu);
        let dt = random_dt(&mut rng);
        let want = kepler::drift_scalar(mu, dt, [s[0], s[1], s[2]], [s[3], s[4], s[5]]);
        let (wp, wv, werr) = match want {
            Ok((p, v)) => (p, v, 0),
            Err(e) => ([s[0], s[1], s[2]], [s[3], s[4], s[5]], error_code(Some(e))),
        };
        let w = [wp[0], wp[1], wp[2], wv[0], wv[1], wv[2]];
        for nat in &BUILDS {
            let (got, err) = nat.drift_scalar(mu, dt, s);
            assert!(
                err == werr && same_all(&got, &w),
                "{}: drift_scalar mu={mu:e} dt={dt:e} {s:?}: {got:?} {err}, want {w:?} {werr}",
                nat.name
            );
        }
        if dt.is_finite() && dt != 0.0 {
            let (p, v, ok) =
                kepler::drift_group::<f64>(mu, inv_mu, dt, [s[0], s[1], s[2]], [s[3], s[4], s[5]]);
            let w = [p[0], p[1], p[2], v[0], v[1], v[2]];
            for nat in &BUILDS {
                let (got, gok) = nat.drift_lane(mu, inv_mu, dt, s);
                assert_eq!(
                    gok, ok,
                    "{}: lane acceptance mu={mu:e} dt={dt:e} {s:?}",
                    nat.name
                );
                if ok {
                    assert!(
                        same_all(&got, &w),
                        "{}: lane mu={mu:e} dt={dt:e} {s:?}: {got:?}, want {w:?}",
                        nat.name
                    );
                }
            }
        }
    }
}

#[test]
fn drift_with_tangent_is_bitwise_its_rust_twin() {
    // Batches of 40 bodies (lane groups and a remainder) with one dt each, random tangent
    // vectors: the device's drift and tangent map of each body against `drift_with_tangent`'s,
    // on the lane path, the scalar fallbacks and failures.
    let mut rng = Rng::new(15);
    let (mut total, mut lost, mut failures) = (0usize, 0usize, 0usize);
    for _ in 0..500 {
        let dt = random_dt(&mut rng);
        let n = 40;
        let mu: Vec<f64> = (0..n).map(|_| rng.range(0.5, 2.0)).collect();
        let inv_mu: Vec<f64> = mu.iter().map(|&m| 1.0 / m).collect();
        let states: Vec<[f64; 6]> = mu.iter().map(|&m| random_state(&mut rng, m)).collect();
        let tangents: Vec<[f64; 6]> = (0..n)
            .map(|_| std::array::from_fn(|_| rng.normal()))
            .collect();
        let col = |a: &[[f64; 6]], c: usize| a.iter().map(|s| s[c]).collect::<Vec<f64>>();
        let x: [Vec<f64>; 3] = std::array::from_fn(|c| col(&states, c));
        let mut v: [Vec<f64>; 3] = std::array::from_fn(|c| col(&states, 3 + c));
        let dx: [Vec<f64>; 3] = std::array::from_fn(|c| col(&tangents, c));
        let dv: [Vec<f64>; 3] = std::array::from_fn(|c| col(&tangents, 3 + c));
        let (mut x_to, mut dx_to, mut dv_to) = (x.clone(), dx.clone(), dv.clone());
        let mut err = vec![0; n];
        let [xt0, xt1, xt2] = &mut x_to;
        let [v0, v1, v2] = &mut v;
        let [dxt0, dxt1, dxt2] = &mut dx_to;
        let [dvt0, dvt1, dvt2] = &mut dv_to;
        kepler::drift_with_tangent(
            (&mu, &inv_mu),
            dt,
            ([&x[0], &x[1], &x[2]], [xt0, xt1, xt2]),
            [v0, v1, v2],
            &mut |i, e| err[i] = error_code(Some(e)),
            (
                ([&dx[0], &dx[1], &dx[2]], [&dv[0], &dv[1], &dv[2]]),
                ([dxt0, dxt1, dxt2], [dvt0, dvt1, dvt2]),
            ),
        );
        for i in 0..n {
            let state = [
                x_to[0][i], x_to[1][i], x_to[2][i], v[0][i], v[1][i], v[2][i],
            ];
            let moved = [0, 1, 2, 3, 4, 5].map(|c| match c {
                0..=2 => dx_to[c][i],
                _ => dv_to[c - 3][i],
            });
            for nat in &BUILDS {
                let (got, got_d, got_err) =
                    nat.drift_with_tangent((mu[i], inv_mu[i], dt), states[i], tangents[i]);
                assert!(
                    got_err == err[i] && same_all(&got_d, &moved),
                    "{}: mu={:e} dt={dt:e} state={:?} tangent={:?}\n got {got_d:?} err {got_err}\n\
                     want {moved:?} err {}",
                    nat.name,
                    mu[i],
                    states[i],
                    tangents[i],
                    err[i]
                );
                assert!(
                    err[i] != 0 || same_all(&got, &state),
                    "{}: the drift of mu={:e} dt={dt:e} {:?}: {got:?}, want {state:?}",
                    nat.name,
                    mu[i],
                    states[i]
                );
            }
            total += 1;
            lost += moved[0].is_nan() as usize;
            failures += (err[i] != 0) as usize;
        }
    }
    eprintln!("{total} tangent drifts: {lost} NaN tangent vectors, {failures} failed drifts");
    assert!(lost < total / 4 && failures < total / 4);
}
