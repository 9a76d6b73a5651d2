//! The changeover, the perihelion test, the pair term, the prechecker and the critical radii,
//! bitwise against the CPU pair.

use super::*;

/// Separations at the joins of K's pieces (r = 0.1 rcrit, r = rcrit), at the precheck radius
/// 3 rcrit, their neighbours, and random ones.
fn separations(rng: &mut Rng, rc: f64) -> Vec<f64> {
    let inv = 1.0 / rc;
    let mut r = vec![
        0.0,
        0.1 * rc,
        rc,
        1.0 / inv,
        0.1 / inv,
        3.0 * rc,
        0.55 * rc,
        1e300,
    ];
    for base in [0.1 * rc, rc, 3.0 * rc, 0.1 / inv, 1.0 / inv] {
        for k in [-2, -1, 1, 2] {
            r.push(ulps(base, k));
        }
    }
    for _ in 0..32 {
        r.push(rng.range(0.0, 4.0) * rc);
    }
    r
}

#[test]
fn changeover_is_bitwise_the_rust_changeover() {
    let mut rng = Rng::new(15);
    for k in 0..6_000 {
        let c = Changeover::ALL[k % 3];
        let rc = match rng.next_u64() % 20 {
            0 => 0.0,
            1 => 5e-324,
            _ => 10f64.powf(rng.range(-6.0, 1.0)),
        };
        let inv = 1.0 / rc;
        for r in separations(&mut rng, rc) {
            for nat in &BUILDS {
                let (n, d) = nat.changeover_ratio(c, r, inv);
                let (wn, wd) = c.ratio(r, inv);
                assert!(
                    same(n, wn) && same(d, wd),
                    "{}: {c} ratio r={r:e} rc={rc:e}",
                    nat.name
                );
                let k = nat.changeover(c, r, rc);
                assert!(same(k, c.k(r, rc)), "{}: {c} K r={r:e} rc={rc:e}", nat.name);
            }
        }
    }
}

#[test]
fn perihelion_test_is_bitwise_the_rust_test() {
    let mut rng = Rng::new(26);
    let mut inside = 0;
    for _ in 0..100_000 {
        let radius = 10f64.powf(rng.range(-3.0, 0.0));
        let mu = rng.range(0.5, 2.0);
        let st: [f64; 6] = std::array::from_fn(|c| {
            if c < 3 {
                rng.range(-2.0, 2.0)
            } else {
                rng.range(-1.5, 1.5)
            }
        });
        let want = crate::physics::truncation::inside_perihelion(
            1.0 / mu,
            1.0 / radius,
            radius,
            [st[0], st[1], st[2]],
            [st[3], st[4], st[5]],
        );
        inside += want as usize;
        let g = Grazing::new(mu, radius, rng.range(0.01, 3.0));
        let (pos, vel) = ([st[0], st[1], st[2]], [st[3], st[4], st[5]]);
        let grazed = crate::physics::truncation::may_have_grazed(&g, pos, vel);
        for nat in &BUILDS {
            let got = nat.inside_perihelion(1.0 / mu, radius, st);
            assert_eq!(got, want, "{}: {st:?}", nat.name);
            assert_eq!(nat.may_have_grazed(&g, st), grazed, "{}: {st:?}", nat.name);
        }
    }
    assert!(inside > 1000, "{inside}");
}

#[test]
fn exp_neg_is_bitwise_the_rust_exp_neg() {
    let mut rng = Rng::new(25);
    let edges = [
        0.0,
        1e-300,
        0.5 * std::f64::consts::LN_2,
        707.9,
        708.0,
        709.0,
        f64::INFINITY,
    ];
    for k in 0..200_000 {
        let u = match k {
            k if k < edges.len() => edges[k],
            _ => 10f64.powf(rng.range(-12.0, 2.86)),
        };
        for nat in &BUILDS {
            assert!(same(nat.exp_neg(u), exp_neg(u)), "{}: e^-{u:e}", nat.name);
        }
    }
}

#[test]
fn pair_term_and_prechecker_are_bitwise_the_cpu_pair() {
    let mut rng = Rng::new(16);
    for _ in 0..20_000 {
        let rc_i = 10f64.powf(rng.range(-4.0, -1.0));
        let rc_j = match rng.next_u64() % 8 {
            0 => 0.0,
            1 => rc_i,
            _ => 10f64.powf(rng.range(-4.0, -1.0)),
        };
        let rc = rc_i.max(rc_j);
        let dir = unit(&mut rng);
        for r in separations(&mut rng, rc) {
            // Along an axis the separation is exact, so r = 3 rcrit is exactly the precheck
            // radius; in a random direction it is within rounding of it.
            let axis = [r, 0.0, 0.0];
            let along = dir.map(|c| c * r);
            for d in [axis, along] {
                let (x, y, z) = ([0.0, d[0]], [0.0, d[1]], [0.0, d[2]]);
                let m = [1e-3, rng.range(1e-9, 1e-3)];
                let rcrit = [rc_i, rc_j];
                let inv_rcrit = [1.0 / rc_i, 1.0 / rc_j];
                let src = Sources {
                    x: &x,
                    y: &y,
                    z: &z,
                    m: &m,
                    rcrit: &rcrit,
                    inv_rcrit: &inv_rcrit,
                    changeover: Changeover::ALL[rng.next_u64() as usize % 3],
                };
                let inv = inv_rcrit[0].min(inv_rcrit[1]);
                let want_a = pair_acceleration_with(src, 0, 1, inv);
                let want_c = is_candidate(src, 0, 1);
                for nat in &BUILDS {
                    let a = nat.near_acceleration(src.changeover, d, m[1], inv);
                    assert!(
                        same_all(&a, &want_a),
                        "{}: pair d={d:?} rc={rc:e}",
                        nat.name
                    );
                    let c = nat.is_candidate(d, rc_i, rc_j);
                    assert_eq!(c, want_c, "{}: candidate d={d:?} rc={rc:e}", nat.name);
                }
            }
        }
    }
    // The precheck radius itself along an axis: not a candidate; one ulp inside: a candidate.
    for nat in &BUILDS {
        let rc = 0.01;
        assert!(!nat.is_candidate([PRECHECK_FACTOR * rc, 0.0, 0.0], rc, 0.0));
        assert!(nat.is_candidate([ulps(PRECHECK_FACTOR * rc, -1), 0.0, 0.0], rc, 0.0));
    }
}

/// Positions of `n` bodies in a small box, so that many pairs are prechecker candidates, with
/// critical radii (some zero) and masses.
fn cluster(rng: &mut Rng, n: usize) -> [Vec<f64>; 6] {
    let mut c: [Vec<f64>; 6] = Default::default();
    for _ in 0..n {
        let rc = if rng.uniform() < 0.1 {
            0.0
        } else {
            rng.range(0.005, 0.05)
        };
        c[0].push(rng.range(-0.5, 0.5));
        c[1].push(rng.range(-0.5, 0.5));
        c[2].push(rng.range(-0.1, 0.1));
        c[3].push(rng.range(1e-9, 1e-4));
        c[4].push(rc);
        c[5].push(1.0 / rc);
    }
    c
}

#[test]
fn pair_terms_summed_in_order_are_bitwise_the_cpu_pair_pass() {
    // The tile pass (n_src > 32) and the source-outer pass (n_src <= 32) of a system larger than
    // SMALL_MAX: each receiver's far and near sums and candidate count are those of the device
    // pair term summed over the sources in ascending order.
    let mut rng = Rng::new(17);
    for sys in 0..200 {
        let n = 40 + sys % 30;
        let n_src = if sys % 2 == 0 { n } else { 20 + sys % 12 };
        let c = cluster(&mut rng, n);
        let src = Sources {
            x: &c[0],
            y: &c[1],
            z: &c[2],
            m: &c[3],
            rcrit: &c[4],
            inv_rcrit: &c[5],
            changeover: Changeover::ALL[sys % 3],
        };
        let tiles = n.div_ceil(LANES);
        let cap = Hits::capacity(n_src);
        let mut acc = vec![vec![f64::NAN; n]; 6];
        let mut cand = vec![u32::MAX; n];
        let mut hit_tiles = vec![TileHits::default(); tiles];
        let mut rows = vec![0u32; tiles * cap];
        {
            let [a, b, cc, d, e, f] = &mut acc[..] else {
                unreachable!()
            };
            let out = Accelerations {
                far: [a, b, cc],
                near: [d, e, f],
                candidates: &mut cand,
                hits: Hits {
                    tiles: &mut hit_tiles,
                    sources: &mut rows,
                    cap,
                },
                kick: None,
            };
            accelerations(src, n_src, out, false);
        }
        let mut candidates = 0;
        for nat in &BUILDS {
            for i in 0..n {
                let (far, near, count) = nat.pair_sums(src, n_src, i);
                let want_far = [acc[0][i], acc[1][i], acc[2][i]];
                let want_near = [acc[3][i], acc[4][i], acc[5][i]];
                assert!(
                    same_all(&far, &want_far) && same_all(&near, &want_near) && count == cand[i],
                    "{}: system {sys} (n {n}, n_src {n_src}) body {i}: far {far:?} near \
                     {near:?} {count}, want {want_far:?} {want_near:?} {}",
                    nat.name,
                    cand[i]
                );
                candidates += count;
            }
        }
        assert!(candidates > 0, "system {sys} has no candidate pair");
    }
}

#[test]
fn critical_radius_is_bitwise_the_cpu_critical_radius() {
    let mut rng = Rng::new(18);
    for k in 0..100_000 {
        // Either sign of tau (backward integrations); a massless body at rest has both terms 0.
        let (n1, n2) = (rng.range(1.0, 5.0), rng.range(0.1, 1.0));
        let tau = log_uniform(&mut rng, -4.0, 0.0);
        let m0 = rng.range(0.5, 2.0);
        let m = match k % 10 {
            0 => 0.0,
            _ => 10f64.powf(rng.range(-12.0, -2.0)),
        };
        let mut st = random_state(&mut rng, m0);
        if k % 7 == 0 {
            st[3..].fill(0.0);
        }
        let dist = (st[0] * st[0] + st[1] * st[1] + st[2] * st[2]).sqrt();
        let speed = (st[3] * st[3] + st[4] * st[4] + st[5] * st[5]).sqrt();
        let want = critical_radius(n1, n2, tau, m, m0, dist, speed);
        let hill = hill_factor_of(m, m0); // uploaded by the host
        for nat in &BUILDS {
            let got = nat.critical_radius(n1, n2 * tau, hill, st);
            assert!(
                same(got, want),
                "{}: rcrit {got:e}, want {want:e}",
                nat.name
            );
        }
    }
}
