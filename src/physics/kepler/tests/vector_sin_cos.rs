//! The vector sine and cosine: constants, reduction, accuracy against libm.

use super::*;

/// Position of `a` relative to `b` in units in the last place (count of doubles between).
fn ulps(a: f64, b: f64) -> u64 {
    let key = |v: f64| {
        let i = v.to_bits() as i64;
        if i < 0 {
            i64::MIN - i
        } else {
            i
        }
    };
    key(a).abs_diff(key(b))
}

/// A random argument of either sign with a magnitude log-uniform in [10^lowest, 0.1].
fn tiny(rng: &mut Rng, lowest: f64) -> f64 {
    10f64
        .powf(rng.range(lowest, -1.0))
        .copysign(rng.range(-1.0, 1.0))
}

/// The sine and cosine lanes on every SIMD level's lane group (AVX-512 lanes where the CPU has
/// them) against [`sin_cos`] of each lane.
#[test]
fn sin_cos_without_reduction_is_bitwise_the_reduced_one() {
    struct Check;
    impl LaneKernel for Check {
        type Output = ();
        #[inline(always)]
        fn run<G: GroupIo>(self) {
            let mut rng = Rng::new(31);
            let mut lanes = [0.0; BATCH_LANES];
            for k in 0..200_000 {
                for x in lanes.iter_mut() {
                    *x = rng.range(-SIN_COS_NO_REDUCTION, SIN_COS_NO_REDUCTION);
                }
                if k == 0 {
                    lanes[0] = -0.0;
                    lanes[1] = SIN_COS_NO_REDUCTION;
                    lanes[2] = -SIN_COS_NO_REDUCTION;
                }
                let [s, c, omc] = sin_cos_omc_lanes(G::from_array(lanes)).map(G::to_array);
                for l in 0..BATCH_LANES {
                    let reduced = sin_cos_omc(lanes[l]);
                    assert_eq!(
                        [s[l], c[l], omc[l]].map(f64::to_bits),
                        reduced.map(f64::to_bits)
                    );
                }
            }
        }
    }
    for level in supported_levels() {
        with_level(level, || dispatch_lanes(Check));
    }
}

#[test]
fn sin_cos_constants_have_fdlibms_bits() {
    let bits = [PIO2_1, PIO2_2, PIO2_2T, INV_PIO2].map(f64::to_bits);
    assert_eq!(
        bits,
        [
            0x3FF9_21FB_5440_0000,
            0x3DD0_B461_1A60_0000,
            0x3BA3_198A_2E03_7073,
            0x3FE4_5F30_6DC9_C883
        ]
    );
    assert_eq!(
        S.map(f64::to_bits),
        [
            0xBFC5_5555_5555_5549,
            0x3F81_1111_1110_F8A6,
            0xBF2A_01A0_19C1_61D5,
            0x3EC7_1DE3_57B1_FE7D,
            0xBE5A_E5E6_8A2B_9CEB,
            0x3DE5_D93A_5ACF_D57C
        ]
    );
    assert_eq!(
        C.map(f64::to_bits),
        [
            0x3FA5_5555_5555_554C,
            0xBF56_C16C_16C1_5177,
            0x3EFA_01A0_19CB_1590,
            0xBE92_7E4F_809C_52AD,
            0x3E21_EE9E_BDB4_B1C4,
            0xBDA8_FAE9_BE88_38D4
        ]
    );
}

#[test]
fn vector_sin_cos_is_within_one_ulp_of_libm() {
    let mut rng = Rng::new(11);
    let mut worst = 0;
    let mut check = |x: f64| {
        let (s, c) = sin_cos(x);
        let (es, ec) = x.sin_cos();
        let d = ulps(s, es).max(ulps(c, ec));
        assert!(
            d <= 2,
            "x = {x:e}: sin {s:e} vs {es:e}, cos {c:e} vs {ec:e}"
        );
        worst = worst.max(d);
    };
    // The Kepler lanes' range, the kernel range, tiny arguments, near multiples of pi/2, and
    // the large end of the reduction.
    for _ in 0..4_000_000 {
        check(rng.range(-8.0, 8.0));
    }
    for _ in 0..1_000_000 {
        check(rng.range(-PI / 4.0, PI / 4.0));
    }
    for _ in 0..200_000 {
        check(tiny(&mut rng, -300.0));
    }
    for k in 1..=64 {
        let m = k as f64 * PI / 2.0;
        for d in -200..=200 {
            check(f64::from_bits((m.to_bits() as i64 + d) as u64));
            check(-f64::from_bits((m.to_bits() as i64 + d) as u64));
        }
        for _ in 0..1000 {
            check(
                m + 10f64
                    .powf(rng.range(-15.0, -1.0))
                    .copysign(rng.range(-1.0, 1.0)),
            );
        }
    }
    for _ in 0..500_000 {
        check(rng.range(-5e5, 5e5));
    }
    eprintln!("vector sin_cos: worst {worst} ulp from libm");
    assert!(worst <= 1, "worst {worst} ulp");
}

/// `1 - cos x` beside the sine and cosine: within 2 ulp of `2 sin^2(x/2)` (libm's sine, whose
/// square and doubling add at most 1.5 ulp) from tiny arguments to the reduction's quadrants,
/// where `1 - cos x` in floating point would lose every digit for small x.
#[test]
fn one_minus_cos_has_no_cancellation() {
    let mut rng = Rng::new(12);
    let check = |x: f64| {
        let [_, c, omc] = sin_cos_omc(x);
        let half = (0.5 * x).sin();
        let want = 2.0 * half * half;
        assert!(
            ulps(omc, want) <= 3,
            "x = {x:e}: 1 - cos = {omc:e}, 2 sin^2(x/2) = {want:e}"
        );
        assert!((omc - (1.0 - c)).abs() <= 2.0 * f64::EPSILON);
    };
    for _ in 0..1_000_000 {
        check(rng.range(-8.0, 8.0));
    }
    for _ in 0..200_000 {
        check(tiny(&mut rng, -150.0));
    }
    for k in 1..=8 {
        let m = k as f64 * PI / 2.0;
        for d in -1000..=1000 {
            check(m + d as f64 * 1e-9);
        }
    }
}
