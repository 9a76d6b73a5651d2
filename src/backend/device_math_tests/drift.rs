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
