//! Tests of the gas disk: the in-house logarithm and exponential, the disk's profile, drag,
//! damping and migration against their formulas and timescales.

use super::*;

#[test]
fn ln_is_within_two_ulp_of_libm() {
    let mut worst = 0.0f64;
    for k in 0..200_000 {
        let x = 1e-3 * (1e7f64).powf(k as f64 / 200_000.0);
        let (got, want) = (ln(x), x.ln());
        let ulp = want.abs().max(1e-300) * f64::EPSILON;
        worst = worst.max((got - want).abs() / ulp);
    }
    assert!(worst <= 2.0, "worst {worst} ulp");
    assert_eq!(ln(1.0), 0.0);
}

#[test]
fn powers_match_powf() {
    for &(x, p) in &[
        (0.3, -1.0),
        (2.5, 0.25),
        (35.0, -1.5),
        (0.1, 1.25),
        (7.0, 0.0),
    ] {
        let (got, want) = (exp_of(p * ln(x)), f64::powf(x, p));
        assert!((got / want - 1.0).abs() < 1e-15, "{x}^{p}: {got} {want}");
    }
}

use crate::physics::elements::cartesian_from_elements;
use crate::physics::merge::cross;

/// GENGA's default disk with every part on for every body, at t = 0.
fn disk() -> Gas {
    Gas::resolve(&GasDisk {
        on: true,
        potential: GasBodies::Off,
        drag: GasBodies::All,
        tidal_damping: GasBodies::All,
        ..Default::default()
    })
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The orbit averages of `[da/dt, de/dt, di/dt]` under the disk's acceleration (drag off:
/// massive body of radius 0) for a body of mass `m` on the orbit `(a, e, i)` around 1 Msun,
/// from the Gauss-type derivatives of the energy, the eccentricity vector and the angular
/// momentum at 4000 points uniform in mean anomaly.
fn orbit_averaged_rates(g: &Gas, m: f64, a: f64, e: f64, inc: f64) -> [f64; 3] {
    let (m0, n) = (1.0, 4000);
    let mu = m0 + m;
    let mut sum = [0.0; 3];
    for k in 0..n {
        let mean = 2.0 * std::f64::consts::PI * (k as f64 + 0.5) / n as f64;
        let (x, v) = cartesian_from_elements(mu, a, e, inc, 0.3, 1.1, mean).unwrap();
        let acc = gas_accel(g, GAS_ON, m0, 0.0, m, m, 0.0, x, v);
        let r = dot(x, x).sqrt();
        let l = cross(x, v);
        let evec: [f64; 3] = std::array::from_fn(|c| cross(v, l)[c] / mu - x[c] / r);
        let e_now = dot(evec, evec).sqrt();
        // dE/dt = v·a, a = -mu/(2E): da/dt = 2 a^2 v·a / mu.
        let dadt = 2.0 * a * a * dot(v, acc) / mu;
        // de/dt = (a × L + v × (x × a)) / mu along e.
        let dl = cross(x, acc);
        let de: [f64; 3] = std::array::from_fn(|c| (cross(acc, l)[c] + cross(v, dl)[c]) / mu);
        let dedt = dot(de, evec) / e_now;
        // cos i = Lz / |L|: di/dt = -(dLz/dt - cos i d|L|/dt) / (|L| sin i).
        let ln = dot(l, l).sqrt();
        let cos_i = l[2] / ln;
        let dln = dot(l, dl) / ln;
        let didt = -(dl[2] - cos_i * dln) / (ln * (1.0 - cos_i * cos_i).sqrt());
        for (s, d) in sum.iter_mut().zip([dadt, dedt, didt]) {
            *s += d / n as f64;
        }
    }
    sum
}

/// Tanaka & Ward's (2004) t_wave at radius a: `(M/m)(M/(Σ a²)) h⁴ / Ω`.
fn t_wave(g: &Gas, m: f64, a: f64) -> f64 {
    let h = GAS_H1 * a.powf(g.beta);
    let sigma = g.sigma * a.powf(-g.alpha);
    (1.0 / m) * (1.0 / (sigma * a * a)) * h.powi(4) / a.powf(-1.5)
}

#[test]
fn type_one_rates_are_tanaka_and_wards() {
    // A 0.1 Earth-mass embryo at 1 AU in GENGA's default disk: e and i well below h.
    let (g, m, a) = (disk(), 0.1 * units::EARTH_MASS, 1.0);
    let tw = t_wave(&g, m, a);
    let h = GAS_H1 * a.powf(g.beta);
    // Tanaka, Takeuchi & Ward (2002): da/dt = -(2.7 + 1.1 α) a / (t_wave h^-2).
    let want_a = -(2.7 + 1.1 * g.alpha) * a / (tw / (h * h));
    let [dadt, _, _] = orbit_averaged_rates(&g, m, a, 1e-5, 1e-5);
    assert!((dadt / want_a - 1.0).abs() < 1e-3, "da/dt {dadt} {want_a}");
    // Tanaka & Ward (2004): t_e = t_wave / 0.780, t_i = t_wave / 0.544.
    let (e, i) = (2e-3, 2e-3);
    let [_, dedt, didt] = orbit_averaged_rates(&g, m, a, e, i);
    let (te, ti) = (-e / dedt, -i / didt);
    assert!(
        (te / (tw / 0.780) - 1.0).abs() < 0.02,
        "t_e {te} {}",
        tw / 0.780
    );
    assert!(
        (ti / (tw / 0.544) - 1.0).abs() < 0.02,
        "t_i {ti} {}",
        tw / 0.544
    );
    // About 300 years for an Earth mass in GENGA's default disk (the helper's worked number).
    let years = units::code_to_years(t_wave(&g, units::EARTH_MASS, 1.0));
    assert!((years - 299.0).abs() < 2.0, "t_wave {years} yr");
}

#[test]
fn the_rates_follow_the_surface_density_law_and_its_dissipation() {
    let g = Gas::resolve(&GasDisk {
        on: true,
        potential: GasBodies::Off,
        drag: GasBodies::Off,
        tidal_damping: GasBodies::All,
        alpha: 1.5,
        beta: 0.25,
        ..Default::default()
    });
    let m = 1e-7;
    let [d1, _, _] = orbit_averaged_rates(&g, m, 1.0, 0.0, 0.0);
    let [d2, _, _] = orbit_averaged_rates(&g, m, 2.0, 0.0, 0.0);
    // 1/τ_a ∝ Σ a² (a/H)² Ω ∝ a^(-1.5 + 2 - 0.5 - 1.5), so da/dt = -a/τ_a ∝ a^-0.5.
    assert!((d2 / d1 - 0.5f64.sqrt()).abs() < 1e-4, "{}", d2 / d1);
    let tau = units::years_to_code(10_000.0);
    let later = g.at_time(tau);
    assert!((later.sigma / g.sigma - (-1.0f64).exp()).abs() < 1e-15);
    let [d3, _, _] = orbit_averaged_rates(&later, m, 1.0, 0.0, 0.0);
    assert!((d3 / d1 - (-1.0f64).exp()).abs() < 1e-9);
}

#[test]
fn drag_is_a_headwind_on_a_keplerian_orbit() {
    let g = Gas::resolve(&GasDisk {
        on: true,
        potential: GasBodies::Off,
        drag: GasBodies::All,
        tidal_damping: GasBodies::Off,
        ..Default::default()
    });
    // A 1 km planetesimal (2 g/cm³) on a circular orbit at 2 AU in the midplane.
    let s = 1e5 / units::AU_CM;
    let mass = units::MSUN_G.recip() * 2.0 * 4.0 / 3.0 * std::f64::consts::PI * 1e15;
    let r = 2.0f64;
    let vk = (1.0 / r).sqrt();
    let a = gas_accel(
        &g,
        GAS_ON,
        1.0,
        0.0,
        mass,
        mass,
        s,
        [r, 0.0, 0.0],
        [0.0, vk, 0.0],
    );
    // The gas is slower by η v_K: the body feels a headwind -c_D π s² ρ (η v_K)² / (2m).
    let h = GAS_H1 * r.powf(1.25);
    let eta = 0.5 * (1.0 + 2.0 - 0.25) * h * h / (r * r);
    let rho = g.sigma / r / ((2.0 * std::f64::consts::PI).sqrt() * h);
    let want = -GAS_CD * std::f64::consts::PI * s * s * rho / (2.0 * mass) * (eta * vk).powi(2);
    assert!((a[1] / want - 1.0).abs() < 1e-12, "{} {want}", a[1]);
    // Over a kick far longer than the stopping time the body is brought to the gas's
    // velocity, never past it: the drag's mean is exact for its law.
    let dt = 1e9;
    let long = gas_accel(
        &g,
        GAS_ON,
        1.0,
        dt,
        mass,
        mass,
        s,
        [r, 0.0, 0.0],
        [0.0, vk, 0.0],
    );
    let dv = dt * long[1];
    assert!(
        dv < 0.0 && -dv < eta * vk && -dv > 0.999 * eta * vk,
        "{dv} {}",
        eta * vk
    );
    assert_eq!((a[0], a[2]), (0.0, 0.0));
    // Outside the edges, above 1.5 r and for bodies the flags leave out: nothing.
    for x in [[0.05, 0.0, 0.0], [40.0, 0.0, 0.0], [1.0, 0.0, 1.6]] {
        assert_eq!(
            gas_accel(&g, GAS_ON, 1.0, 0.0, mass, mass, s, x, [0.0, 1.0, 0.0]),
            [0.0; 3]
        );
    }
    let giant = Gas::resolve(&GasDisk {
        on: true,
        potential: GasBodies::Off,
        ..Default::default()
    });
    let jupiter = units::JUPITER_MASS;
    let v = [0.0, vk, 0.0];
    assert_eq!(
        gas_accel(
            &giant,
            GAS_ON,
            1.0,
            0.0,
            jupiter,
            jupiter,
            s,
            [r, 0.0, 0.0],
            v
        ),
        [0.0; 3]
    );
}

/// GENGA's enhancement maps the super-particle masses `fMass_min .. M_Enhance` onto
/// `Mass_pl .. M_Enhance` logarithmically at the bodies' density, and the drag and the
/// damping of a super-particle are those of a body of the mapped mass and radius.
#[test]
fn enhancement_maps_super_particles_onto_planetesimals() {
    let disk = GasDisk {
        on: true,
        potential: GasBodies::Off,
        drag: GasBodies::All,
        tidal_damping: GasBodies::All,
        enhancement: GasBodies::All,
        ..Default::default()
    };
    let g = Gas::resolve(&disk);
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-13 * b.abs();
    let (m, _, s) = enhanced(&g, F_MASS_MIN, F_MASS_MIN, 1e-6);
    assert!(close(m, MASS_PL), "{m}");
    assert!(close(s, 1e-6 * (MASS_PL / F_MASS_MIN).cbrt()), "{s}");
    let mid = (F_MASS_MIN * M_ENHANCE).sqrt();
    let (m, mass, s) = enhanced(&g, mid, mid, 2e-6);
    assert!(close(m, (MASS_PL * M_ENHANCE).sqrt()) && mass == m, "{m}");
    assert!(close(m / (s * s * s), mid / 8e-18), "the density is kept");
    // Outside the range, or with the flag off, nothing changes.
    for b in [2.0 * M_ENHANCE, 1e-15, 0.0] {
        assert_eq!(enhanced(&g, b, b, 1e-6), (b, b, 1e-6));
    }
    let off = Gas::resolve(&GasDisk {
        enhancement: GasBodies::Off,
        ..disk
    });
    assert_eq!(enhanced(&off, mid, mid, 1e-6), (mid, mid, 1e-6));
    // A super-particle feels what its planetesimal feels.
    let (x, v) = ([1.0, 0.2, 0.01], [-0.2, 0.97, 0.003]);
    let (me, _, se) = enhanced(&g, mid, mid, 2e-6);
    let got = gas_accel(&g, GAS_ON, 1.0, 0.5, mid, mid, 2e-6, x, v);
    let want = gas_accel(&off, GAS_ON, 1.0, 0.5, me, me, se, x, v);
    assert_eq!(got, want);
    assert!(got != gas_accel(&off, GAS_ON, 1.0, 0.5, mid, mid, 2e-6, x, v));
}
