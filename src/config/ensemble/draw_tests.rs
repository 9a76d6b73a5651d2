use super::*;

fn draws(element: Element, domain: Domain, n: usize) -> Vec<f64> {
    let mut rng = Rng::new(7);
    (0..n)
        .map(|_| element.pick(&mut rng, 0, domain).unwrap())
        .collect()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn linear_axes_are_evenly_spaced_with_exact_ends() {
    let (lo, hi, n) = (7.0, 10.0, 31);
    let p: Vec<f64> = (0..n).map(|k| axis_point(lo, hi, n, k, false)).collect();
    assert_eq!((p[0], p[n - 1]), (lo, hi));
    for w in p.windows(2) {
        assert!(((w[1] - w[0]) - 0.1).abs() < 1e-14, "{w:?}");
    }
    assert_eq!(axis_point(lo, hi, 1, 0, false), lo, "one point is lo");
}

#[test]
fn log_axes_have_a_constant_ratio() {
    let p: Vec<f64> = (0..5).map(|k| axis_point(1e-6, 1e-2, 5, k, true)).collect();
    assert_eq!((p[0], p[4]), (1e-6, 1e-2));
    for w in p.windows(2) {
        assert!((w[1] / w[0] / 10.0 - 1.0).abs() < 1e-13, "{w:?}");
    }
}

#[test]
fn laws_have_their_moments() {
    let n = 40_000;
    // Uniform: the mean is the midpoint, and the old tuple form draws the same numbers.
    let u = draws(Element::Law(Law::Uniform(2.0, 4.0)), Domain::ANY, n);
    assert!((mean(&u) - 3.0).abs() < 0.01, "{}", mean(&u));
    assert_eq!(u, draws(Element::Range((2.0, 4.0)), Domain::ANY, n));
    // Log-uniform: ln x is uniform, so its mean is the mean of the logs of the ends.
    let l = draws(
        Element::Law(Law::LogUniform(1e-3, 1e1)),
        Domain::POSITIVE,
        n,
    );
    let logs: Vec<f64> = l.iter().map(|x| x.log10()).collect();
    assert!((mean(&logs) + 1.0).abs() < 0.02, "{}", mean(&logs));
    assert!(l.iter().all(|&x| (1e-3..=1e1).contains(&x)));
    // Normal: mean and standard deviation.
    let g = draws(Element::Law(Law::Normal(5.0, 0.5)), Domain::POSITIVE, n);
    let sd = (g.iter().map(|x| (x - 5.0).powi(2)).sum::<f64>() / n as f64).sqrt();
    assert!(
        (mean(&g) - 5.0).abs() < 0.01 && (sd - 0.5).abs() < 0.01,
        "{sd}"
    );
}

#[test]
fn a_normal_is_truncated_to_the_domain() {
    // Eccentricities from Normal(0, 0.1) truncated at 0: a half-normal, mean sigma sqrt(2/pi).
    let e = draws(
        Element::Law(Law::Normal(0.0, 0.1)),
        Domain::ECCENTRICITY,
        40_000,
    );
    assert!(e.iter().all(|&x| (0.0..1.0).contains(&x)));
    let expected = 0.1 * (2.0 / std::f64::consts::PI).sqrt();
    assert!((mean(&e) / expected - 1.0).abs() < 0.01, "{}", mean(&e));
    // A law that can never land inside gives up instead of looping.
    let never = Element::Law(Law::Normal(0.5, 0.0));
    let mut rng = Rng::new(1);
    assert_eq!(
        never.pick(&mut rng, 0, Domain::new(1.0, 2.0, false, false)),
        None
    );
}

#[test]
fn values_and_axes_take_no_draws() {
    let mut a = Rng::new(3);
    let b = Rng::new(3).next_u64();
    assert_eq!(
        Element::Value(0.25).pick(&mut a, 9, Domain::ANY),
        Some(0.25)
    );
    let axis = Element::Axis((0.0, 0.5, 11));
    assert_eq!(axis.pick(&mut a, 4, Domain::ANY), Some(0.2));
    assert_eq!(a.next_u64(), b, "the stream is untouched");
}

#[test]
fn each_form_is_checked_against_its_domain() {
    let bad = [
        (
            Element::Range((0.0, 1.0)),
            Domain::ECCENTRICITY,
            "values >= 0 and < 1",
        ),
        (Element::Range((2.0, 1.0)), Domain::ANY, "lo <= hi"),
        (
            Element::Law(Law::LogUniform(0.0, 1.0)),
            Domain::POSITIVE,
            "0 < lo",
        ),
        (
            Element::Law(Law::Normal(-1.0, 0.1)),
            Domain::POSITIVE,
            "a mean > 0",
        ),
        (
            Element::Law(Law::Normal(1.0, -0.1)),
            Domain::POSITIVE,
            "sigma >= 0",
        ),
        (Element::Axis((0.0, 1.0, 0)), Domain::ANY, "1 <= n"),
        (Element::Axis((2.0, 2.0, 5)), Domain::ANY, "lo < hi"),
        (
            Element::Law(Law::LogGrid(0.0, 1.0, 3)),
            Domain::ANY,
            "0 < lo",
        ),
        (
            Element::Law(Law::Grid(0.0, 190.0, 3)),
            Domain::INCLINATION,
            "<= 180",
        ),
        (Element::Value(-1e-3), Domain::NON_NEGATIVE, "a value >= 0"),
    ];
    for (element, domain, expected) in bad {
        let m = element.check(domain).unwrap_err();
        assert!(m.contains(expected), "{element:?}: {m}");
    }
    let good = [
        (Element::Range((0.0, 0.99)), Domain::ECCENTRICITY),
        (
            Element::Law(Law::LogGrid(1e-6, 1e-3, 20)),
            Domain::NON_NEGATIVE,
        ),
        (Element::Law(Law::Normal(0.0, 0.05)), Domain::ECCENTRICITY),
        (Element::Value(0.0), Domain::INCLINATION),
    ];
    for (element, domain) in good {
        assert_eq!(element.check(domain), Ok(()), "{element:?}");
    }
}

#[test]
fn a_range_prints_as_the_tuple_it_was() {
    assert_eq!(
        format!("{:?}", Element::Range((1e-5, 1e-4))),
        "(1e-5, 0.0001)"
    );
    assert_eq!(
        format!("{:?}", Element::Axis((7.0, 10.0, 20))),
        "Grid(7.0, 10.0, 20)"
    );
}
