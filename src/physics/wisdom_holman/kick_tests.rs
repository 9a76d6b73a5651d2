//! The kick's pair sums on every path (one system with its bodies in the lanes, packs in lane
//! groups and one by one) against the loop they replaced, kept here verbatim as the reference:
//! bit for bit, for 2 to 17 bodies, packs of 1 to 35 systems and every SIMD level.

use super::watch::Xyz;
use super::{one_system, pairs};

/// The pair loop the kick had before its lane-group forms (every pair but the centre-first one,
/// the systems innermost), the reference of the tests.
fn reference(p: &Xyz, m: &[f64], l: usize) -> Xyz {
    let n = m.len() / l;
    let mut a: Xyz = [vec![0.0; n * l], vec![0.0; n * l], vec![0.0; n * l]];
    for i in 0..n {
        for j in (i + 1)..n {
            if i == 0 && j == 1 {
                continue;
            }
            for s in 0..l {
                let (bi, bj) = (i * l + s, j * l + s);
                let d = [
                    p[0][bj] - p[0][bi],
                    p[1][bj] - p[1][bi],
                    p[2][bj] - p[2][bi],
                ];
                let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                let inv_r3 = 1.0 / (r2 * r2.sqrt());
                let (fi, fj) = (m[bj] * inv_r3, m[bi] * inv_r3);
                for c in 0..3 {
                    a[c][bi] += fi * d[c];
                    a[c][bj] -= fj * d[c];
                }
            }
        }
    }
    a
}

/// Positions and masses of `l` systems of `n` bodies, body-major, from a fixed sequence; some
/// coordinates repeat exactly (zero differences along an axis).
fn systems(n: usize, l: usize) -> (Xyz, Vec<f64>) {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let len = n * l;
    let mut p: Xyz = [vec![0.0; len], vec![0.0; len], vec![0.0; len]];
    let mut m = vec![0.0; len];
    for i in 0..len {
        let k = i / l;
        m[i] = if k == 0 {
            1.0
        } else {
            1e-6 * (1.0 + 9.0 * next())
        };
        for (c, pc) in p.iter_mut().enumerate() {
            pc[i] = match (k, c) {
                (0, _) => 1e-3 * next(),
                (_, 2) if k.is_multiple_of(3) => 0.0,
                _ => (0.5 + k as f64) * (2.0 * next() - 1.0),
            };
        }
    }
    (p, m)
}

fn bits(a: &Xyz) -> Vec<u64> {
    a.iter().flatten().map(|x| x.to_bits()).collect()
}

#[test]
fn every_path_sums_the_pairs_bit_for_bit_as_the_loop_it_replaced() {
    for level in crate::simd::supported_levels() {
        crate::simd::with_level(level, || {
            for n in 2..=17 {
                for l in [1, 5, 16, 19, 35] {
                    let (p, m) = systems(n, l);
                    let want = bits(&reference(&p, &m, l));
                    let mut a: Xyz = [vec![0.0; n * l], vec![0.0; n * l], vec![0.0; n * l]];
                    pairs::pair_accelerations(&p, &m, l, &mut a);
                    assert_eq!(bits(&a), want, "pack of {l}, {n} bodies at {level}");
                    if l == 1 && n <= one_system::MAX_BODIES {
                        a.iter_mut().for_each(|c| c.fill(f64::NAN));
                        one_system::pair_accelerations(&p, &m, &mut a);
                        assert_eq!(bits(&a), want, "one system of {n} bodies at {level}");
                    }
                }
            }
        });
    }
}
