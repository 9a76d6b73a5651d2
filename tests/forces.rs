//! Forces beyond point masses (issue 26) against analytic rates: GR's perihelion precession in
//! main, test-particle and multi-system layouts and inside a Bulirsch–Stoer group, J2's nodal
//! precession, the Poynting–Robertson inspiral time (Wyatt & Whipple), the energy bookkeeping
//! of the conservative and the dissipative forces, and thread-count independence; GENGA's gas
//! disk (issue 29) against Tanaka & Ward's damping and Tanaka, Takeuchi & Ward's migration
//! rates.

mod common;

use common::kit;
use orrery::backend::HybridBackend;
use orrery::hybrid::stepper::Stepper;
use orrery::model::{StepCounts, StepParams};
use orrery::physics::elements::{cartesian_from_elements, elements_from_cartesian, Elements};
use orrery::physics::forces::{speed_of_light, ForceSettings, Forces};
use orrery::state::Body;
use orrery::units;

/// One body from elements around `m0` (heliocentric), angles in radians.
fn body(id: u64, m0: f64, m: f64, r: f64, el: [f64; 6]) -> Body {
    let (pos, vel) =
        cartesian_from_elements(m0 + m, el[0], el[1], el[2], el[3], el[4], el[5]).unwrap();
    Body {
        id,
        m,
        r,
        pos,
        vel,
        spin: [0.0; 3],
    }
}

/// The tests' step parameters with an inner truncation radius `inner` and `forces`.
fn params(m0: f64, dt_days: f64, inner: f64, forces: Forces) -> StepParams {
    StepParams {
        inner_truncation: inner,
        forces,
        ..kit::step_params(m0, dt_days)
    }
}

/// A CPU backend holding `systems` with a stepper ([`kit::cpu_start`]).
fn start(
    p: &StepParams,
    systems: &[Vec<Body>],
    massive: usize,
) -> (Box<dyn HybridBackend>, Stepper) {
    kit::cpu_start(p, systems, massive, |_| {})
}

/// Heliocentric elements of slot `k` of system `s` around `mu`.
fn elements(be: &mut dyn HybridBackend, m0: f64, s: usize, k: usize, mu: f64) -> Elements {
    let one = kit::heliocentric(be, m0, s)[k];
    elements_from_cartesian(mu, one.pos, one.vel)
}

/// Wrap an angle difference into (-pi, pi].
fn wrap(d: f64) -> f64 {
    let t = std::f64::consts::TAU;
    d - t * (d / t).round()
}

const MERCURY: [f64; 6] = [0.387098, 0.205630, 0.1222, 0.8435, 0.5083, 3.0508];
const M_MERCURY: f64 = 1.66013e-7;

/// GR's perihelion advance per unit time for a test orbit: 3 mu^1.5 / (c^2 a^2.5 (1 - e^2)).
fn gr_rate(mu: f64, a: f64, e: f64) -> f64 {
    let c = speed_of_light();
    3.0 * mu.powf(1.5) / (c * c * a.powf(2.5) * (1.0 - e * e))
}

fn gr_on() -> Forces {
    let s = ForceSettings {
        gr: true,
        ..Default::default()
    };
    Forces::resolve(&s)
}

/// The slope of a least-squares line through `(t, y)`.
fn slope(samples: &[(f64, f64)]) -> f64 {
    let n = samples.len() as f64;
    let (mt, my) = samples
        .iter()
        .fold((0.0, 0.0), |(a, b), &(t, y)| (a + t / n, b + y / n));
    let (num, den) = samples.iter().fold((0.0, 0.0), |(a, b), &(t, y)| {
        (a + (t - mt) * (y - my), b + (t - mt) * (t - mt))
    });
    num / den
}

/// The longitude of perihelion of slot `k` of every system, sampled about 400 times over
/// `steps` and fitted with a line (the osculating elements' short-period terms average out),
/// with the encounters seen.
fn perihelion_rates(
    p: &StepParams,
    systems: &[Vec<Body>],
    massive: usize,
    k: usize,
    mu: f64,
    steps: u64,
) -> (Vec<f64>, u64) {
    let (mut be, mut stepper) = start(p, systems, massive);
    let every = (steps / 400).max(1);
    let mut samples = vec![Vec::new(); systems.len()];
    let mut counts = StepCounts::default();
    for step in 0..=steps {
        if step % every == 0 {
            for (s, list) in samples.iter_mut().enumerate() {
                let e = elements(be.as_mut(), p.m0, s, k, mu);
                let w = e.node + e.peri;
                let last: Option<&(f64, f64)> = list.last();
                let w = last.map_or(w, |&(_, prev)| prev + wrap(w - prev));
                list.push((step as f64 * p.tau, w));
            }
        }
        if step < steps {
            stepper.step(be.as_mut(), &mut counts).unwrap();
        }
    }
    (
        samples.iter().map(|l| slope(l)).collect(),
        counts.encounters,
    )
}

/// Mercury's perihelion advance (slot `k` of every system) over `years` against the analytic
/// rate (42.98"/century); returns the measured/analytic ratio farthest from 1 and the
/// encounters seen.
fn mercury_precession(systems: &[Vec<Body>], massive: usize, k: usize, years: f64) -> (f64, u64) {
    let p = params(1.0, 0.5, 0.01, gr_on());
    let mu = 1.0 + systems[0][k].m;
    let steps = (units::years_to_code(years) / p.tau).round() as u64;
    let (rates, encounters) = perihelion_rates(&p, systems, massive, k, mu, steps);
    let want = gr_rate(mu, MERCURY[0], MERCURY[1]);
    let arcsec_per_century = 36525.0 * units::K_GAUSS * 206264.806;
    let mut worst: f64 = 1.0;
    for (s, got) in rates.iter().enumerate() {
        let ratio = got / want;
        println!(
            "system {s}: {:.4}\"/cy ({ratio:.6} of {:.4}\"/cy)",
            got * arcsec_per_century,
            want * arcsec_per_century
        );
        if (ratio - 1.0).abs() > (worst - 1.0).abs() {
            worst = ratio;
        }
    }
    (worst, encounters)
}

#[test]
fn gr_gives_mercurys_perihelion_precession_in_main_mode() {
    let mercury = body(0, 1.0, M_MERCURY, 1.6e-5, MERCURY);
    let (ratio, _) = mercury_precession(&[vec![mercury]], 1, 0, 100.0);
    assert!((ratio - 1.0).abs() < 1e-3, "{ratio}");
}

#[test]
fn gr_gives_the_precession_to_test_particles_and_in_many_systems() {
    // A test particle (slot 1) on Mercury's orbit beside a far, light massive body (slot 0).
    let far = body(1, 1.0, 1e-12, 1e-6, [40.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    let tp = body(0, 1.0, 0.0, 1.6e-5, MERCURY);
    let (mut systems, massive) = (vec![vec![far, tp]], 1);
    let (ratio_tp, _) = mercury_precession(&systems, massive, 1, 100.0);
    println!("test particle: {ratio_tp:.6} of the analytic precession");
    assert!((ratio_tp - 1.0).abs() < 1e-3, "{ratio_tp}");
    // Three independent systems of their own parameters (multi mode).
    systems.clear();
    for k in 0..3 {
        let mut el = MERCURY;
        el[5] += k as f64;
        systems.push(vec![body(0, 1.0, M_MERCURY, 1.6e-5, el)]);
    }
    let (ratio, _) = mercury_precession(&systems, 1, 0, 100.0);
    assert!((ratio - 1.0).abs() < 1e-3, "{ratio}");
}

#[test]
fn gr_stays_on_inside_bulirsch_stoer_groups() {
    // A light moon at a tenth of Mercury's Hill radius, on a prograde circular orbit in
    // Mercury's orbital plane, keeps the pair in a close-encounter group at every step:
    // Bulirsch-Stoer integrates their drift, the kicks carry GR.
    let mercury = body(0, 1.0, M_MERCURY, 1.6e-5, MERCURY);
    let hill = MERCURY[0] * (1.0 - MERCURY[1]) * (M_MERCURY / 3.0).cbrt();
    let d = hill / 10.0;
    let speed = (M_MERCURY / d).sqrt();
    let unit = |v: [f64; 3]| {
        let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        v.map(|c| c / n)
    };
    let (x, v) = (unit(mercury.pos), mercury.vel);
    let radial = v[0] * x[0] + v[1] * x[1] + v[2] * x[2];
    let along = unit([
        v[0] - radial * x[0],
        v[1] - radial * x[1],
        v[2] - radial * x[2],
    ]);
    let mut moon = mercury;
    moon.id = 1;
    moon.m = 1e-14;
    moon.r = 1e-9;
    for c in 0..3 {
        moon.pos[c] += d * x[c];
        moon.vel[c] += speed * along[c];
    }
    let (ratio, encounters) = mercury_precession(&[vec![mercury, moon]], 2, 0, 20.0);
    let steps = (units::years_to_code(20.0) / units::days_to_code(0.5)).round() as u64;
    assert!(
        encounters >= steps,
        "the pair must stay in a group: {encounters} encounters in {steps} steps"
    );
    assert!((ratio - 1.0).abs() < 2e-3, "{ratio}");
}

/// `m v` for a 3x3 matrix `m`.
fn rotate(m: &[[f64; 3]; 3], v: [f64; 3]) -> [f64; 3] {
    std::array::from_fn(|r| m[r][0] * v[0] + m[r][1] * v[1] + m[r][2] * v[2])
}

/// The transpose of `m` (its inverse for a rotation).
fn transpose(m: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    std::array::from_fn(|r| std::array::from_fn(|c| m[c][r]))
}

#[test]
fn j2_gives_the_analytic_nodal_precession_and_conserves_energy() {
    // A test orbit at 0.05 AU inclined by 30 degrees to the star's equator, J2 = 0.01 (radius
    // one solar radius): dOmega/dt = -3/2 n J2 (R / p)^2 cos i. Once with the spin along z, once
    // with the spin (and the orbit with it) turned by 40 degrees about x and 25 about z: the
    // node is measured in the star's equatorial frame.
    let (ca, sa, cb, sb) = (
        40f64.to_radians().cos(),
        40f64.to_radians().sin(),
        25f64.to_radians().cos(),
        25f64.to_radians().sin(),
    );
    let tilted = [
        [cb, -sb * ca, sb * sa],
        [sb, cb * ca, -cb * sa],
        [0.0, sa, ca],
    ];
    let identity = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for rot in [identity, tilted] {
        let settings = ForceSettings {
            j2: 0.01,
            j2_radius: units::SUN_RADIUS_AU,
            central_spin: rotate(&rot, [0.0, 0.0, 2.5]),
            ..Default::default()
        };
        let f = Forces::resolve(&settings);
        let el = [0.05, 0.01, 30f64.to_radians(), 0.3, 1.0, 0.0];
        let mut planet = body(0, 1.0, 1e-9, 1e-6, el);
        planet.pos = rotate(&rot, planet.pos);
        planet.vel = rotate(&rot, planet.vel);
        let p = params(1.0, 0.05, 0.01, f);
        let (mut be, mut stepper) = start(&p, &[vec![planet]], 1);
        let mu = 1.0 + 1e-9;
        let back = transpose(&rot);
        let node = |be: &mut dyn HybridBackend| {
            let mut b = be.bodies(0);
            let shift = b.heliocentric_velocity_shift(1.0);
            b.add_velocity(shift, 1.0);
            let one = b.get(0);
            elements_from_cartesian(mu, rotate(&back, one.pos), rotate(&back, one.vel)).node
        };
        let e0 = be.energies(&p)[0];
        let first = node(be.as_mut());
        let steps = 40_000u64;
        let mut counts = StepCounts::default();
        for _ in 0..steps {
            stepper.step(be.as_mut(), &mut counts).unwrap();
        }
        let last = node(be.as_mut());
        let t = steps as f64 * p.tau;
        let n = (mu / el[0].powi(3)).sqrt();
        let semi_latus = el[0] * (1.0 - el[1] * el[1]);
        let r = units::SUN_RADIUS_AU / semi_latus;
        let want = -1.5 * n * 0.01 * r * r * el[2].cos() * t;
        let got = wrap(last - first);
        println!("J2 nodal precession {got:.6} rad against {want:.6} rad");
        assert!(want.abs() > 0.2, "the test needs a measurable precession");
        assert!((got / want - 1.0).abs() < 1e-2, "{got} against {want}");
        let e1 = be.energies(&p)[0];
        let de = ((e1.kinetic + e1.potential) - (e0.kinetic + e0.potential))
            / (e0.kinetic + e0.potential);
        // Without the J2 potential in the energy the error would be of the order of the J2 term.
        let x0 = rotate(&rot, [el[0], 0.0, 0.0]);
        let j2_share = orrery::physics::forces::potential_energy(&f, mu, x0) * 1e-9
            / (e0.kinetic + e0.potential);
        println!("relative energy error {de:.3e} (the J2 term is {j2_share:.3e} of E)");
        assert!(de.abs() < 1e-2 * j2_share.abs(), "{de}");
    }
}

#[test]
fn poynting_robertson_inspiral_takes_the_wyatt_whipple_time() {
    // A beta = 0.1 grain on a circular orbit at 1 AU (circular under the reduced gravity
    // (1 - beta) mu): a^2 = a0^2 - 4 beta mu t / c, so it reaches 0.5 AU at
    // t = c (1 - 0.25) / (4 beta mu).
    let settings = ForceSettings {
        poynting_robertson: true,
        ..Default::default()
    };
    let f = Forces::resolve(&settings);
    let beta: f64 = 0.1;
    // A massless grain's beta = radiation / (s massless_density mu).
    let s = f.radiation / (beta * f.massless_density);
    let far = body(1, 1.0, 1e-15, 1e-9, [60.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    let mut grain = body(0, 1.0, 0.0, s, [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    let k = (1.0 - beta).sqrt();
    grain.vel = grain.vel.map(|v| v * k);
    let p = params(1.0, 5.0, 0.05, f);
    let (mut be, mut stepper) = start(&p, &[vec![far, grain]], 1);
    let c = speed_of_light();
    let want = c * 0.75 / (4.0 * beta);
    let mut counts = StepCounts::default();
    let mut step = 0u64;
    let mut a = 1.0;
    while a > 0.5 {
        stepper.step(be.as_mut(), &mut counts).unwrap();
        step += 1;
        if step.is_multiple_of(50) {
            a = elements(be.as_mut(), 1.0, 0, 1, 1.0 - beta).a;
        }
        assert!(step < 400_000, "no inspiral: a = {a}");
    }
    let got = step as f64 * p.tau;
    println!(
        "Poynting-Robertson: 1 -> 0.5 AU in {:.1} yr against Wyatt & Whipple's {:.1} yr",
        units::code_to_years(got),
        units::code_to_years(want)
    );
    assert!((got / want - 1.0).abs() < 5e-3, "{got} against {want}");
}

#[test]
fn radiation_work_on_massive_bodies_is_booked_so_that_e_plus_u_is_conserved() {
    // Two planets with an exaggerated solar constant: the drag changes E by much more than the
    // integrator's error, and E - (work) stays at E0.
    work_is_booked(ForceSettings {
        poynting_robertson: true,
        solar_constant: 1e14,
        solar_wind: 0.35,
        ..Default::default()
    });
}

#[test]
fn the_gas_disk_s_work_is_booked_so_that_e_plus_u_is_conserved() {
    // The same two planets in a disk 10^4 times GENGA's default, drag and type-I damping on.
    use orrery::physics::gas::{GasBodies, GasDisk};
    work_is_booked(ForceSettings {
        gas: GasDisk {
            on: true,
            drag: GasBodies::All,
            tidal_damping: GasBodies::All,
            sigma_10: 2e7,
            ..Default::default()
        },
        ..Default::default()
    });
}

/// Two planets under the velocity-dependent forces of `settings` for 5000 steps: E changes
/// measurably, E + U (the booked work) and L + the booked angular momentum stay at their
/// start.
fn work_is_booked(settings: ForceSettings) {
    let f = Forces::resolve(&settings);
    let a = body(0, 1.0, 3e-6, 4e-5, [1.0, 0.05, 0.01, 0.0, 0.0, 0.0]);
    let b = body(1, 1.0, 1e-6, 3e-5, [1.6, 0.1, 0.02, 1.0, 2.0, 3.0]);
    let p = params(1.0, 2.0, 0.05, f);
    let (mut be, mut stepper) = start(&p, &[vec![a, b]], 2);
    let e0 = be.energies(&p)[0];
    let (en0, l0) = (e0.kinetic + e0.potential, e0.angular_momentum);
    let mut counts = StepCounts::default();
    let (mut u, mut l_lost) = (0.0, [0.0; 3]);
    for _ in 0..5000 {
        stepper.step(be.as_mut(), &mut counts).unwrap();
        for w in be.take_work() {
            u -= w[0];
            for c in 0..3 {
                l_lost[c] -= w[1 + c] + w[4 + c];
            }
        }
    }
    let e = be.energies(&p)[0];
    let en = e.kinetic + e.potential;
    let drift = (en - en0) / en0.abs();
    let booked = (en + u - en0) / en0.abs();
    println!("E changed by {drift:.3e} of E0; E + U by {booked:.3e}");
    assert!(
        drift.abs() > 1e-6,
        "the drag must do measurable work: {drift}"
    );
    assert!(booked.abs() < 1e-4 * drift.abs(), "{booked}");
    for c in 0..3 {
        let dl = e.angular_momentum[c] + l_lost[c] - l0[c];
        assert!(dl.abs() < 1e-12 * l0[2].abs(), "L[{c}] {dl}");
    }
}

#[test]
fn j2_torque_is_booked_so_that_l_plus_l_lost_is_conserved() {
    // J2 about a tilted axis turns the orbits' angular momentum; the central body's spin takes
    // it back, booked as lost angular momentum.
    let settings = ForceSettings {
        j2: 0.05,
        j2_radius: 0.02,
        central_spin: [0.3, -0.1, 1.0],
        ..Default::default()
    };
    let f = Forces::resolve(&settings);
    let a = body(0, 1.0, 3e-6, 4e-5, [0.2, 0.05, 0.3, 0.0, 0.0, 0.0]);
    let b = body(1, 1.0, 1e-6, 3e-5, [0.35, 0.1, 0.2, 1.0, 2.0, 3.0]);
    let p = params(1.0, 1.0, 0.05, f);
    let (mut be, mut stepper) = start(&p, &[vec![a, b]], 2);
    let l0 = be.energies(&p)[0].angular_momentum;
    let mut counts = StepCounts::default();
    let mut l_lost = [0.0; 3];
    for _ in 0..3000 {
        stepper.step(be.as_mut(), &mut counts).unwrap();
        for w in be.take_work() {
            assert_eq!(w[0], 0.0, "J2 does no work");
            for c in 0..3 {
                l_lost[c] -= w[1 + c] + w[4 + c];
            }
        }
    }
    let l = be.energies(&p)[0].angular_momentum;
    let norm = (l0[0] * l0[0] + l0[1] * l0[1] + l0[2] * l0[2]).sqrt();
    let turned = (0..3).map(|c| (l[c] - l0[c]).abs()).fold(0.0, f64::max) / norm;
    let booked = (0..3)
        .map(|c| (l[c] + l_lost[c] - l0[c]).abs())
        .fold(0.0, f64::max)
        / norm;
    println!("J2 turned L by {turned:.3e} of |L0|; L + L_lost is off by {booked:.3e}");
    assert!(turned > 1e-4, "{turned}");
    assert!(booked < 1e-12, "{booked}");
}

/// The orbit-averaged Yarkovsky drift of a circular orbit of radius `a` (AU) for a body of
/// radius `s` (AU) spinning at `nu` rad/s, by GENGA's documented rates (its `Use Yarkovsky = 2`
/// equations): diurnal `-2 F G sin(delta) cos(gamma) / ((1 + lambda) n)` and seasonal
/// `F G sin(delta) sin^2(gamma) / ((1 + lambda) n)` with `F = (4/9) (1 - A) Phi`; AU per code
/// time unit, for obliquity 0 (diurnal) and 90 degrees (seasonal).
fn yarkovsky_rates(f: &Forces, a: f64, s: f64, nu: f64) -> (f64, f64) {
    let unit_s = 86_400.0 / units::K_GAUSS;
    let au_m = units::AU_CM * 1e-2;
    let radius = s * au_m;
    let n = (1.0 / (a * a * a)).sqrt() / unit_s;
    let flux = f.solar_constant / (a * a);
    let t = (f.absorbed * flux / f.eps_sigma).powf(0.25);
    let theta = f.thermal_inertia / (f.eps_sigma * t * t * t);
    let force = f.absorbed * flux * f.inv_rho_c_light / (9.0 * radius);
    let rate = |freq: f64| {
        let x = 2f64.sqrt() * radius * (f.rho_c * freq / f.conductivity).sqrt();
        let lambda = theta * freq.sqrt() / x;
        let (_, gs) = orrery::physics::forces::yarkovsky_response(x, lambda);
        force * gs / ((1.0 + lambda) * n)
    };
    let to_code = unit_s / au_m;
    (-2.0 * rate(nu) * to_code, rate(n) * to_code)
}

#[test]
fn yarkovsky_drifts_at_genga_s_orbit_averaged_rates() {
    // A 2 m boulder (GENGA's asteroid defaults) on a circular orbit at 1 AU spinning once in 5
    // hours: prograde about the orbit normal (diurnal drift, outward), and about an axis in the
    // orbit plane (seasonal drift, always inward).
    let settings = ForceSettings {
        yarkovsky: true,
        ..Default::default()
    };
    let f = Forces::resolve(&settings);
    let s = 2.0 / (units::AU_CM * 1e-2);
    let nu = 2.0 * std::f64::consts::PI / (5.0 * 3600.0);
    let (diurnal, seasonal) = yarkovsky_rates(&f, 1.0, s, nu);
    let mass = s * s * s * f.massless_density;
    let omega = nu * 86_400.0 / units::K_GAUSS;
    let far = body(1, 1.0, 1e-15, 1e-9, [60.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    for (name, axis, want) in [
        ("diurnal", [0.0, 0.0, 1.0], diurnal),
        ("seasonal", [1.0, 0.0, 0.0], seasonal),
    ] {
        let mut rock = body(0, 1.0, 0.0, s, [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        rock.spin = axis.map(|c| c * omega * 0.4 * mass * s * s);
        let p = params(1.0, 5.0, 0.05, f);
        let years = 200.0;
        let steps = (units::years_to_code(years) / p.tau).round() as u64;
        let (mut be, mut stepper) = start(&p, &[vec![far, rock]], 1);
        let every = steps / 200;
        let mut samples = Vec::new();
        let mut counts = StepCounts::default();
        for step in 0..=steps {
            if step % every == 0 {
                let a = elements(be.as_mut(), 1.0, 0, 1, 1.0).a;
                samples.push((step as f64 * p.tau, a));
            }
            if step < steps {
                stepper.step(be.as_mut(), &mut counts).unwrap();
            }
        }
        let got = slope(&samples);
        let per_myr = units::years_to_code(1e6);
        println!(
            "Yarkovsky {name}: {:.5e} AU/Myr against GENGA's averaged rate {:.5e} AU/Myr",
            got * per_myr,
            want * per_myr
        );
        assert!(
            (got / want - 1.0).abs() < 0.02,
            "{name}: {got} against {want}"
        );
    }
    assert!(diurnal > 0.0, "a prograde rotator drifts outward");
    assert!(seasonal < 0.0, "the seasonal drift is inward");
}

#[test]
fn the_gas_disk_damps_and_moves_an_embryo_at_tanaka_and_wards_rates() {
    // A 0.1 Earth-mass embryo at 1 AU with e = i = 0.005 (well below h = 0.034) in GENGA's
    // default disk, kept from dissipating: e and i decay as exp(-t / t_e) and exp(-t / t_i)
    // with t_e = t_wave / 0.780 and t_i = t_wave / 0.544 (Tanaka & Ward 2004), and a shrinks at
    // da/dt = -(2.7 + 1.1 alpha) a h^2 / t_wave (Tanaka, Takeuchi & Ward 2002).
    use orrery::physics::gas::{GasBodies, GasDisk, GAS_H1};
    let disk = GasDisk {
        on: true,
        drag: GasBodies::Off,
        tidal_damping: GasBodies::All,
        potential: GasBodies::Off,
        dissipation_time: 1e12,
        ..Default::default()
    };
    let f = Forces::resolve(&ForceSettings {
        gas: disk,
        ..Default::default()
    });
    let m = 0.1 * units::EARTH_MASS;
    let (e0, i0) = (0.005, 0.005);
    let embryo = body(0, 1.0, m, 1e-5, [1.0, e0, i0, 0.4, 1.3, 2.0]);
    let far = body(1, 1.0, 1e-15, 1e-9, [60.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    let p = params(1.0, 5.0, 0.05, f);
    let (mut be, mut stepper) = start(&p, &[vec![embryo, far]], 2);
    let sigma = f.gas.sigma;
    let t_wave = (1.0 / m) * (1.0 / sigma) * GAS_H1.powi(4);
    let (t_e, t_i) = (t_wave / 0.780, t_wave / 0.544);
    let mut counts = StepCounts::default();
    let (mut ln_e, mut ln_i, mut semi) = (vec![], vec![], vec![]);
    let steps = (1.5 * t_e / p.tau) as u64;
    for step in 1..=steps {
        stepper.step(be.as_mut(), &mut counts).unwrap();
        if step % 500 == 0 {
            let el = elements(be.as_mut(), 1.0, 0, 0, 1.0 + m);
            let t = step as f64 * p.tau;
            ln_e.push((t, el.e.ln()));
            ln_i.push((t, el.inc.ln()));
            semi.push((t, el.a));
        }
    }
    let (rate_e, rate_i, rate_a) = (-slope(&ln_e), -slope(&ln_i), slope(&semi));
    let want_a = -(2.7 + 1.1) * GAS_H1 * GAS_H1 / t_wave;
    println!(
        "gas disk: t_e {:.1} yr (Tanaka & Ward {:.1}), t_i {:.1} yr ({:.1}), da/dt {:.4e} AU/yr ({:.4e})",
        units::code_to_years(1.0 / rate_e),
        units::code_to_years(t_e),
        units::code_to_years(1.0 / rate_i),
        units::code_to_years(t_i),
        rate_a / units::code_to_years(1.0),
        want_a / units::code_to_years(1.0)
    );
    assert!((rate_e * t_e - 1.0).abs() < 0.03, "e: {}", rate_e * t_e);
    assert!((rate_i * t_i - 1.0).abs() < 0.03, "i: {}", rate_i * t_i);
    assert!(
        (rate_a / want_a - 1.0).abs() < 0.03,
        "a: {}",
        rate_a / want_a
    );
}

#[test]
fn a_body_circles_at_the_disk_s_speed_in_its_gravity() {
    // GENGA's default disk (kept from dissipating) with its own gravity only: a body at 2 AU
    // started at the circular speed of the Sun and the disk, sqrt(M/r - a_r r), stays on a
    // circle and turns at that rate; at the Kepler speed alone it swings by half a per cent.
    use orrery::physics::gas::gravity::disk_pull;
    use orrery::physics::gas::{GasBodies, GasDisk};
    let disk = GasDisk {
        on: true,
        drag: GasBodies::Off,
        tidal_damping: GasBodies::Off,
        potential: GasBodies::All,
        dissipation_time: 1e12,
        ..Default::default()
    };
    let f = Forces::resolve(&ForceSettings {
        gas: disk,
        ..Default::default()
    });
    let r = 2.0;
    let (ar, az) = disk_pull(&f.gas.pull, 1.0, r, 0.0, 0.05, f.gas.sigma / r);
    assert!(az == 0.0 && ar < 0.0 && ar > -1e-2, "{ar} {az}");
    let speed = |m0: f64| (m0 / r - ar * r).sqrt();
    let p = params(1.0, 5.0, 0.05, f);
    let circle = |v: f64| Body {
        id: 0,
        m: 1e-12,
        r: 1e-9,
        pos: [r, 0.0, 0.0],
        vel: [0.0, v, 0.0],
        spin: [0.0; 3],
    };
    let far = body(1, 1.0, 1e-15, 1e-9, [60.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    let swing = |v: f64| {
        let (mut be, mut stepper) = start(&p, &[vec![circle(v), far]], 2);
        let mut counts = StepCounts::default();
        let (mut worst, mut angle) = (0.0f64, 0.0);
        for _ in 0..2000 {
            stepper.step(be.as_mut(), &mut counts).unwrap();
            let b = be.bodies(0);
            let x = b.get(0).pos;
            worst = worst.max(((x[0] * x[0] + x[1] * x[1]).sqrt() / r - 1.0).abs());
            angle = x[1].atan2(x[0]);
        }
        (worst, angle)
    };
    let (worst, angle) = swing(speed(1.0 + 1e-12));
    let omega = speed(1.0 + 1e-12) / r;
    let want = wrap(omega * 2000.0 * p.tau);
    let (kepler, _) = swing((1.0f64 + 1e-12).sqrt() / r.sqrt());
    println!(
        "disk gravity at 2 AU: a_r {ar:.4e}, radius held to {worst:.1e} (Kepler speed: {kepler:.1e}), \
         angle {angle:.9} against {want:.9}"
    );
    assert!(worst < 2e-6, "{worst}");
    assert!(kepler > 1e-3, "{kepler}");
    assert!(wrap(angle - want).abs() < 1e-5, "{angle} {want}");
}
