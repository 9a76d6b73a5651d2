//! The energy sums bitwise against the CPU energy.

use super::*;

#[test]
fn energy_terms_are_bitwise_the_cpu_energy() {
    let mut rng = Rng::new(20);
    for sys in 0..300 {
        let n = 1 + sys % 40;
        let massive = if sys % 3 == 0 { n } else { 1 + (sys % n) };
        let m0 = rng.range(0.5, 2.0);
        let bodies: Vec<Body> = (0..n)
            .map(|k| {
                let s = random_state(&mut rng, m0);
                Body {
                    id: k as u64,
                    m: 10f64.powf(rng.range(-12.0, -3.0)),
                    r: 0.0,
                    pos: [s[0], s[1], s[2]],
                    vel: [s[3], s[4], s[5]],
                    spin: [
                        rng.range(-1e-9, 1e-9),
                        rng.range(-1e-9, 1e-9),
                        rng.range(-1e-9, 1e-9),
                    ],
                }
            })
            .collect();
        let b = Bodies::from_bodies(&bodies);
        let e = energy_split(m0, &b, 0, n, massive);
        let want = [
            e.kinetic,
            e.potential,
            e.angular_momentum[0],
            e.angular_momentum[1],
            e.angular_momentum[2],
        ];
        for nat in &BUILDS {
            let got = nat.energy(m0, &b, n, massive);
            assert!(
                same_all(&got, &want),
                "{}: energy {got:?}, want {want:?}",
                nat.name
            );
        }
    }
}

/// A cluster of `n` bodies around 1 AU on nearly the same orbit, close enough to pass through
/// each other's changeover zones; with `collide`, radii large enough for contacts.
fn encounter_group(rng: &mut Rng, n: usize, collide: bool) -> GroupState {
    let mut g = GroupState::new();
    for k in 0..n {
        let spread = 0.02;
        let pos = [
            1.0 + spread * (rng.uniform() - 0.5),
            spread * (rng.uniform() - 0.5),
            0.1 * spread * (rng.uniform() - 0.5),
        ];
        let vel = [
            0.02 * (rng.uniform() - 0.5),
            1.0 + 0.02 * (rng.uniform() - 0.5),
            0.002 * (rng.uniform() - 0.5),
        ];
        let m = log_uniform(rng, -7.0, -4.0).abs();
        let r = if collide { 2e-3 } else { 1e-7 };
        let mut body = Body::without_spin(k as u64 + 1, m, r, pos, vel);
        body.spin = [0.0, 0.0, 1e-12 * rng.uniform()];
        g.push(&body, 0.01 + 0.02 * rng.uniform());
    }
    g
}

#[test]
fn bulirsch_stoer_group_is_bitwise_the_cpu_integration() {
    // Groups of every size up to two beyond the device's limit, with and without contacts, over
    // forward and backward steps: a group the device finishes has the CPU's bits and counters
    // and no CPU event; a group it hands back is one the CPU merges in, fails, or is too large.
    let mut rng = Rng::new(21);
    let opts = BsOptions::default();
    let mut ws = BsWorkspace::new();
    for nat in &BUILDS {
        let (mut done, mut handed_back_contact) = (0, 0);
        for case in 0..180 {
            let n = 1 + case % 18;
            let collide = case % 5 == 4;
            let mut g0 = encounter_group(&mut rng, n, collide);
            g0.changeover = Changeover::ALL[case % 3];
            let tau = if case % 2 == 0 { 0.05 } else { -0.03 };
            let m0 = 1.0;
            let (out, [status, accepted, rejected]) = nat.bs_group(&g0, m0, tau, &opts);
            let mut g = g0.clone();
            let mut events = Vec::new();
            let cpu = integrate_group(m0, tau, &mut g, &mut ws, &opts, &mut events);
            if status == 0 {
                let stats =
                    cpu.unwrap_or_else(|e| panic!("{}: case {case}: CPU failed: {e}", nat.name));
                assert!(
                    events.is_empty(),
                    "{}: case {case}: device missed a contact",
                    nat.name
                );
                assert_eq!(
                    (stats.accepted, stats.rejected),
                    (accepted as usize, rejected as usize)
                );
                let cpu_states: Vec<f64> = (0..n)
                    .flat_map(|k| g.pos[k].into_iter().chain(g.vel[k]))
                    .collect();
                assert!(
                    same_all(&cpu_states, &out),
                    "{}: case {case}: end states differ",
                    nat.name
                );
                done += 1;
            } else {
                assert!(
                    n > 16 || cpu.is_err() || !events.is_empty(),
                    "{}: case {case}: device handed back a group the CPU integrates plainly",
                    nat.name
                );
                handed_back_contact += (!events.is_empty() && n <= 16) as usize;
            }
        }
        assert!(
            done > 100 && handed_back_contact > 20,
            "{}: {done} done, {handed_back_contact} contacts",
            nat.name
        );
        // Input the CPU refuses is handed back too.
        let mut bad = encounter_group(&mut rng, 3, false);
        bad.m[1] = -1e-6;
        assert_eq!(nat.bs_group(&bad, 1.0, 0.05, &opts).1[0], 1, "{}", nat.name);
    }
}
