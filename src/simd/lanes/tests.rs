//! The lane types against the scalar IEEE operations, value by value.

use super::*;

/// Awkward values: zeros of both signs, halves, tiny and huge numbers, infinities, NaN.
fn samples() -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.5,
        -2.5,
        0.49999999999999994,
        -0.49999999999999994,
        4503599627370495.5,
        1e-310,
        -3.7,
        1e300,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MAX,
    ];
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..96 {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let e = (s % 40) as i32 - 20;
        v.push(((s >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 2f64.powi(e));
    }
    v
}

fn groups<const L: usize>() -> Vec<[f64; L]> {
    let s = samples();
    (0..s.len())
        .map(|k| std::array::from_fn(|l| s[(k * 7 + l * 3) % s.len()]))
        .collect()
}

/// Whether lanes hold the same bits (any NaN matching any NaN).
fn same<const L: usize>(got: [f64; L], want: [f64; L]) -> bool {
    got.iter()
        .zip(&want)
        .all(|(g, w)| g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()))
}

/// An operation of the lane group, its name and the `f64` operation it must equal.
type Unary<G> = (&'static str, G, fn(f64) -> f64);
type Binary<G> = (&'static str, G, fn(f64, f64) -> f64);
type Test<M> = (&'static str, M, fn(f64, f64) -> bool);

/// Every operation of a lane group `G` gives, lane by lane, the bits of the same `f64`
/// operation.
fn lanes_are_scalar_ops<const L: usize, G: GroupIo<L>>() {
    let gs = groups::<L>();
    for (a, b) in gs.iter().zip(gs.iter().rev()) {
        let (va, vb) = (G::from_array(*a), G::from_array(*b));
        let unary: [Unary<G>; 6] = [
            ("sqrt", va.sqrt(), f64::sqrt),
            ("abs", va.abs(), f64::abs),
            ("round", va.round(), f64::round),
            (
                "round_ties_even",
                va.round_ties_even(),
                f64::round_ties_even,
            ),
            ("floor", va.floor(), f64::floor),
            ("neg", -va, |x| -x),
        ];
        for (name, got, f) in unary {
            assert!(same(got.to_array(), a.map(f)), "{name}: {a:?}");
        }
        let binary: [Binary<G>; 6] = [
            ("add", va + vb, |x, y| x + y),
            ("sub", va - vb, |x, y| x - y),
            ("mul", va * vb, |x, y| x * y),
            ("div", va / vb, |x, y| x / y),
            ("max", va.max(vb), <f64 as Lanes>::max),
            ("copysign", va.copysign(vb), f64::copysign),
        ];
        for (name, got, f) in binary {
            let want = std::array::from_fn(|l| f(a[l], b[l]));
            assert!(same(got.to_array(), want), "{name}: {a:?} {b:?}");
        }
        // One rounding: a * b - a * b is the rounding error of the product, not 0.
        let product = va * vb;
        let fused = va.mul_add(vb, -product).to_array();
        let want: [f64; L] = std::array::from_fn(|l| a[l].mul_add(b[l], -(a[l] * b[l])));
        assert!(same(fused, want), "mul_add: {a:?} {b:?}");
        let tests: [Test<G::Mask>; 5] = [
            ("lt", va.lt(vb), |x, y| x < y),
            ("le", va.le(vb), |x, y| x <= y),
            ("gt", va.gt(vb), |x, y| x > y),
            ("ge", va.ge(vb), |x, y| x >= y),
            ("eq", va.eq(vb), |x, y| x == y),
        ];
        for (name, got, f) in tests {
            let want: [bool; L] = std::array::from_fn(|l| f(a[l], b[l]));
            assert_eq!(G::mask_array(got), want, "{name}");
        }
        assert_eq!(G::mask_array(va.is_finite()), a.map(f64::is_finite));
        let m = va.lt(vb);
        let picked = G::select(m, va, vb).to_array();
        let want = std::array::from_fn(|l| if a[l] < b[l] { a[l] } else { b[l] });
        assert!(same(picked, want));
        let mask = G::mask_array(m);
        assert_eq!(G::any(m), mask.iter().any(|&b| b));
        assert_eq!(G::all(m), mask.iter().all(|&b| b));
        assert!(G::all(m | !m));
        assert!(!G::any(m & !m));
        assert!(!G::any(G::none()));
    }
}

#[test]
fn portable_lanes_are_the_scalar_operations() {
    lanes_are_scalar_ops::<GROUP, Portable>();
    lanes_are_scalar_ops::<4, Wide<4>>();
    lanes_are_scalar_ops::<8, Wide<8>>();
}

/// The AVX2 lanes of one small system, run as the drift runs them (`dispatch_avx`).
#[test]
#[cfg(target_arch = "x86_64")]
fn avx2_lanes_are_the_scalar_operations() {
    use crate::simd::{dispatch_avx, with_level, Level};
    if !Level::Avx2.supported() {
        eprintln!("this CPU has no AVX2: AVX2 lanes not tested");
        return;
    }
    let ran = with_level(Level::Avx2, || {
        dispatch_avx(
            (),
            #[inline(always)]
            |()| {
                lanes_are_scalar_ops::<4, Avx2<1>>();
                lanes_are_scalar_ops::<8, Avx2<2>>();
                true
            },
            |()| false,
        )
    });
    assert!(ran, "the AVX2 lanes did not run");
}

/// The AVX-512 lanes, run in the AVX-512 level's wrapper (as the kernels run them).
#[test]
#[cfg(target_arch = "x86_64")]
fn avx512_lanes_are_the_scalar_operations() {
    struct Check;
    impl crate::simd::LaneKernel for Check {
        type Output = &'static str;
        #[inline(always)]
        fn run<G: GroupIo>(self) -> &'static str {
            lanes_are_scalar_ops::<GROUP, G>();
            std::any::type_name::<G>()
        }
    }
    use crate::simd::{dispatch_lanes, with_level, Level};
    if !Level::Avx512.supported() {
        eprintln!("this CPU has no AVX-512: AVX-512 lanes not tested");
        return;
    }
    let ran = with_level(Level::Avx512, || dispatch_lanes(Check));
    assert_eq!(ran, std::any::type_name::<Avx512>());
}
