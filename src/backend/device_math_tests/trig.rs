//! The in-house sine and cosine, rounding and the status words, bitwise against Rust.

use super::*;

/// Awkward arguments of the in-house sine and cosine.
fn sin_cos_adversarial() -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        5e-324,
        -5e-324,
        1e-300,
        0.78,
        -0.78,
        ulps(0.78, 1),
        ulps(0.78, -1),
        PI / 4.0,
        PI,
        -PI,
        TAU,
        8.0,
        -8.0,
        524287.9,
        -524287.9,
        524288.0,
        1e6,
        1e22,
        1e300,
        f64::MAX,
        -f64::MAX,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    // Multiples of pi/2 (and their neighbours) over the whole valid range and beyond.
    for k in -2000i64..=2000 {
        let x = k as f64 * FRAC_PI_2;
        v.extend([x, ulps(x, 1), ulps(x, -1)]);
    }
    for e in 0..24 {
        let x = (1u64 << e) as f64 * FRAC_PI_2;
        v.extend([x, -x, ulps(x, 1), ulps(-x, 1)]);
    }
    // Ties of the quadrant rounding: x (2/pi) = k + 1/2 exactly or nearly.
    for k in -50i64..50 {
        let x = (k as f64 + 0.5) * FRAC_PI_2;
        v.extend([x, ulps(x, 1), ulps(x, -1)]);
    }
    v
}

fn check_sin_cos(nat: &Native, x: f64) {
    let (s, c) = kepler::sin_cos::<f64>(x);
    let (ns, nc) = nat.sin_cos(x);
    assert!(
        same(s, ns) && same(c, nc),
        "{}: sin_cos({x:e}) = ({ns:e}, {nc:e}), Rust ({s:e}, {c:e})",
        nat.name
    );
    let (s, c) = kepler::sin_cos_lanes::<f64>(x);
    let (ns, nc) = nat.sin_cos_lane(x);
    assert!(
        same(s, ns) && same(c, nc),
        "{}: sin_cos_lane({x:e}) = ({ns:e}, {nc:e}), Rust ({s:e}, {c:e})",
        nat.name
    );
}

#[test]
fn the_status_words_are_status_h_s() {
    // The host's indices (src/backend/status.rs) against kernels/common/status.h's, as the C and
    // C++ builds of the header export them.
    for (lang, words) in [
        ("C", c99::status_words as unsafe extern "C" fn(*mut u32)),
        ("C++", cxx::status_words),
    ] {
        let mut got = [u32::MAX; 8];
        // SAFETY: the function writes exactly 8 words.
        unsafe { words(got.as_mut_ptr()) };
        let want = crate::backend::status::STATUS_WORDS.map(|w| w as u32);
        assert_eq!(got, want, "{lang}");
    }
}

#[test]
fn round_ties_even_is_bitwise_f64_round_ties_even() {
    let mut rng = Rng::new(11);
    let mut xs = vec![
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.5,
        -2.5,
        0.49999999999999994,
        -0.49999999999999994,
        4503599627370495.5,
        -4503599627370495.5,
        4503599627370497.0,
        9007199254740993.0,
        f64::MAX,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        5e-324,
    ];
    for k in -1000..1000 {
        xs.push(k as f64 * 0.5);
        xs.push(ulps(k as f64 * 0.5, 1));
        xs.push(ulps(k as f64 * 0.5, -1));
    }
    for _ in 0..100_000 {
        xs.push(log_uniform(&mut rng, -5.0, 17.0));
    }
    for nat in &BUILDS {
        for &x in &xs {
            let got = nat.round_ties_even(x);
            assert!(
                same(got, x.round_ties_even()),
                "{}: {x:e} -> {got:e}",
                nat.name
            );
        }
    }
}

#[test]
fn sin_cos_is_bitwise_the_rust_kernel() {
    let mut rng = Rng::new(12);
    let adversarial = sin_cos_adversarial();
    for nat in &BUILDS {
        for &x in &adversarial {
            check_sin_cos(nat, x);
        }
    }
    // 10^6 random arguments per build: the Kepler range, the reduction range and all scales.
    for nat in &BUILDS {
        for k in 0..1_000_000 {
            let x = match k % 4 {
                0 => rng.range(-8.0, 8.0),
                1 => rng.range(-0.8, 0.8),
                2 => log_uniform(&mut rng, -20.0, 5.7),
                _ => log_uniform(&mut rng, -320.0, 300.0),
            };
            check_sin_cos(nat, x);
        }
    }
}
