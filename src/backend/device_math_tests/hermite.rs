//! The cubic Hermite minimum separation and the Bulirsch-Stoer group, bitwise against Rust.

use super::*;

#[test]
fn hermite_minimum_is_bitwise_the_cpu_search() {
    let mut rng = Rng::new(19);
    let mut pairs: Vec<([[f64; 3]; 4], f64)> = Vec::new();
    for k in 0..200_000 {
        let tau = match k % 5 {
            0 => -log_uniform(&mut rng, -4.0, 0.0).abs(),
            _ => log_uniform(&mut rng, -4.0, 0.0).abs(),
        };
        let r0 = unit(&mut rng).map(|c| c * rng.range(1e-4, 1.0));
        let v0 = unit(&mut rng).map(|c| c * rng.range(0.0, 10.0));
        let uniform: [f64; 3] = std::array::from_fn(|c| r0[c] + tau * v0[c]);
        let p = match k % 8 {
            // Zero relative velocity: P constant.
            0 => [r0, [0.0; 3], r0, [0.0; 3]],
            // Uniform relative motion (a quadratic P), perhaps through the origin.
            1 => [r0, v0, uniform, v0],
            2 => {
                let v = r0.map(|c| -c / tau);
                [r0, v, [0.0; 3], v]
            }
            // Head-on and reversed.
            3 => [r0, v0, r0.map(|c| -c), v0.map(|c| -c)],
            // b = -0 or +0 exactly: P0 = P1 and no radial motion.
            4 => [r0, [0.0; 3], r0.map(|c| -c), [0.0; 3]],
            // A curved path: the end state perturbed.
            _ => {
                let v1 = unit(&mut rng).map(|c| c * rng.range(0.0, 10.0));
                let r1: [f64; 3] = std::array::from_fn(|c| uniform[c] + rng.range(-0.1, 0.1));
                [r0, v0, r1, v1]
            }
        };
        pairs.push((p, tau));
    }
    // The CPU search evaluates SEARCH_LANES pairs of one step per call.
    for chunk in pairs.chunks(SEARCH_LANES) {
        if chunk.len() < SEARCH_LANES {
            break;
        }
        for &(_, tau) in chunk {
            let lanes = |q: usize| -> [[f64; SEARCH_LANES]; 3] {
                std::array::from_fn(|c| std::array::from_fn(|l| chunk[l].0[q][c]))
            };
            let want = min_separation_sq_lanes(lanes(0), lanes(1), lanes(2), lanes(3), tau);
            for nat in &BUILDS {
                for (l, &(p, _)) in chunk.iter().enumerate() {
                    let got = nat.min_separation_sq(p, tau);
                    assert!(
                        same(got, want[l]),
                        "{}: min r^2 {got:e}, want {:e} for {p:?} tau {tau:e}",
                        nat.name,
                        want[l]
                    );
                }
            }
        }
    }
}
