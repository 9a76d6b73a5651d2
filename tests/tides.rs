//! Tides and rotational deformation (issue 29) through the whole step: a hot Jupiter's orbital
//! decay or growth and both spins' rates against the constant-time-lag torques on a circular
//! orbit (Hut 1981; Bolmont et al. 2015), and the total angular momentum (orbit, the planet's
//! and the star's spin) conserved to rounding over the run while the tides move it between
//! them.

mod common;

use common::{kit, orrery, scratch, stderr};
use orrery::backend::HybridBackend;
use orrery::hybrid::stepper::Stepper;
use orrery::model::{StepCounts, StepParams};
use orrery::physics::elements::{cartesian_from_elements, elements_from_cartesian};
use orrery::physics::forces::{ForceSettings, Forces};
use orrery::physics::tides::{TidalBody, TidalTable, TideSettings};
use orrery::state::Body;

const M0: f64 = 1.0;
const M: f64 = 1e-3;
const R_PLANET: f64 = 4.67e-4;
const R_STAR: f64 = 4.65e-3;
const A: f64 = 0.03;
/// Exaggerated lags (n τ ≈ 0.002 and 0.4, about 15 s and 1 hour), so that a few hundred
/// orbits show the rates while the spins change by about 1 %.
const PLANET: TidalBody = TidalBody {
    k2: 0.5,
    k2f: 0.5,
    tau: 1e-5,
    ic: 0.25,
};
const STAR: TidalBody = TidalBody {
    k2: 0.03,
    k2f: 0.03,
    tau: 2e-3,
    ic: 0.07,
};

/// A CPU backend with the hot Jupiter on a circular orbit, spins aligned: the planet at
/// `planet_rate` × n, the star at `star_rate` × n.
fn start(p: &StepParams, planet_rate: f64, star_rate: f64) -> (Box<dyn HybridBackend>, Stepper) {
    let (pos, vel) = cartesian_from_elements(M0 + M, A, 0.0, 0.0, 0.0, 0.0, 0.0).unwrap();
    let n = ((M0 + M) / (A * A * A)).sqrt();
    let spin = [
        0.0,
        0.0,
        PLANET.ic * M * R_PLANET * R_PLANET * planet_rate * n,
    ];
    let star = [0.0, 0.0, STAR.ic * M0 * R_STAR * R_STAR * star_rate * n];
    let planet = Body {
        id: 0,
        m: M,
        r: R_PLANET,
        pos,
        vel,
        spin,
    };
    kit::cpu_start(p, &[vec![planet]], 1, |layout| {
        layout.systems[0].central_spin = star
    })
}

fn params(tides: bool, rotation: bool) -> StepParams {
    let settings = ForceSettings {
        tides: TideSettings {
            tides,
            rotational_deformation: rotation,
            star: STAR,
        },
        ..Default::default()
    };
    StepParams {
        inner_truncation: 0.005,
        outer_truncation: 10.0,
        forces: Forces::resolve(&settings).with_tides(
            &settings,
            R_STAR,
            TidalTable::new(vec![(0, PLANET)]),
        ),
        ..kit::step_params(M0, 0.02)
    }
}

/// (semi-major axis, planet spin z, star spin z, total angular momentum) now.
fn state(be: &mut dyn HybridBackend) -> (f64, f64, f64, [f64; 3]) {
    let mut b = be.bodies(0);
    let star = be.layout().systems[0].central_spin;
    let one = b.get(0);
    let orbit = [
        M * (one.pos[1] * one.vel[2] - one.pos[2] * one.vel[1]),
        M * (one.pos[2] * one.vel[0] - one.pos[0] * one.vel[2]),
        M * (one.pos[0] * one.vel[1] - one.pos[1] * one.vel[0]),
    ];
    let l = std::array::from_fn(|c| orbit[c] + one.spin[c] + star[c]);
    let shift = b.heliocentric_velocity_shift(M0);
    b.add_velocity(shift, 1.0);
    let h = b.get(0);
    let a = elements_from_cartesian(M0 + M, h.pos, h.vel).a;
    (a, one.spin[2], star[2], l)
}

/// The rates on a circular orbit of radius `a` with aligned spin rates `wp`, `ws`: each
/// bulge's tangential force `P (Ω - n)` (P = 3 M_other² R⁵ k2 τ / a⁷) changes the orbit's
/// angular momentum `μ sqrt(G M_t a)` by `a F_t`, so `da/dt = 2 F_t / (μ n)`, and its own
/// spin by `-a P (Ω - n)`.
fn analytic(a: f64, wp: f64, ws: f64) -> (f64, f64, f64) {
    let n = ((M0 + M) / (a * a * a)).sqrt();
    let a7 = a.powi(7);
    let pp = 3.0 * M0 * M0 * R_PLANET.powi(5) * PLANET.k2 * PLANET.tau / a7;
    let ps = 3.0 * M * M * R_STAR.powi(5) * STAR.k2 * STAR.tau / a7;
    let (fp, fs) = (pp * (wp - n), ps * (ws - n));
    let mu = M0 * M / (M0 + M);
    (2.0 * (fp + fs) / (mu * n), -a * fp, -a * fs)
}

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

/// The run of `steps` steps from [`start`]: samples every 50 steps of (t, a), (t, S_p),
/// (t, S*), and the largest change of the total angular momentum relative to its z
/// component.
type Samples = Vec<(f64, f64)>;
fn run(p: &StepParams, wp: f64, ws: f64, steps: usize) -> (Samples, Samples, Samples, f64) {
    let (mut be, mut stepper) = start(p, wp, ws);
    let (.., l0) = state(be.as_mut());
    let mut counts = StepCounts::default();
    let (mut sa, mut sp, mut ss) = (Vec::new(), Vec::new(), Vec::new());
    let mut worst = 0.0f64;
    for k in 0..=steps {
        if k % 50 == 0 {
            let (a, s_p, s_s, l) = state(be.as_mut());
            let t = k as f64 * p.tau;
            sa.push((t, a));
            sp.push((t, s_p));
            ss.push((t, s_s));
            for c in 0..3 {
                worst = worst.max((l[c] - l0[c]).abs() / l0[2].abs());
            }
        }
        if k < steps {
            stepper.step(be.as_mut(), &mut counts).unwrap();
        }
    }
    (sa, sp, ss, worst)
}

/// A planet spinning slower than its orbit around a slow star: both bulges pull the orbit in
/// and spin their bodies up. The measured rates over 100 days (about 50 orbits; the spins
/// change by about 1 %) are the analytic ones to 1 %, and the total angular momentum keeps
/// to rounding, as it does without tides, while the tides move ten thousand times more
/// between the orbit and the spins.
#[test]
fn hot_jupiter_rates_match_constant_time_lag_and_angular_momentum_is_conserved() {
    let (wp, ws, steps) = (0.5, 0.05, 5000);
    let p = params(true, true);
    let (sa, sp, ss, worst) = run(&p, wp, ws, steps);
    let n0 = ((M0 + M) / (A * A * A)).sqrt();
    let (want_a, want_sp, want_ss) = analytic(sa[0].1, wp * n0, ws * n0);
    let (got_a, got_sp, got_ss) = (slope(&sa), slope(&sp), slope(&ss));
    let rel = |g: f64, w: f64| (g - w).abs() / w.abs();
    println!(
        "da/dt {got_a:e} vs {want_a:e}; dSp/dt {got_sp:e} vs {want_sp:e}; \
         dS*/dt {got_ss:e} vs {want_ss:e}; |dL|/L {worst:e}"
    );
    assert!(rel(got_a, want_a) < 0.01, "da/dt {got_a:e} vs {want_a:e}");
    assert!(
        rel(got_sp, want_sp) < 0.01,
        "dSp/dt {got_sp:e} vs {want_sp:e}"
    );
    assert!(
        rel(got_ss, want_ss) < 0.01,
        "dS*/dt {got_ss:e} vs {want_ss:e}"
    );
    let (.., free) = run(&params(false, false), wp, ws, steps);
    let l = ((M0 + M) * A).sqrt() * M;
    let moved = (sp.last().unwrap().1 - sp[0].1).abs() + (ss.last().unwrap().1 - ss[0].1).abs();
    println!("tide-free |dL|/L {free:e}; moved {:e} of L", moved / l);
    assert!(
        moved / l > 1e4 * worst.max(free),
        "the tides moved too little to tell"
    );
    assert!(
        worst <= 4.0 * free + 1e-15,
        "|dL|/L {worst:e}, without tides {free:e}"
    );
}

/// Without a lag the tides are conservative: nothing moves between the orbit and the spins
/// (aligned spins feel only radial and in-plane forces), the orbit keeps its size.
#[test]
fn without_lags_the_orbit_and_the_spins_keep_their_sizes() {
    let mut p = params(true, true);
    p.forces.tides.star.tau = 0.0;
    p.forces.tides.bodies = TidalTable::new(vec![(0, TidalBody { tau: 0.0, ..PLANET })]);
    let (mut be, mut stepper) = start(&p, 2.5, 0.05);
    let (a0, sp0, ss0, _) = state(be.as_mut());
    let mut counts = StepCounts::default();
    for _ in 0..2000 {
        stepper.step(be.as_mut(), &mut counts).unwrap();
    }
    let (a1, sp1, ss1, _) = state(be.as_mut());
    assert_eq!((sp1, ss1), (sp0, ss0));
    // The conservative radial tide changes the osculating a by about D a² / (μ M) ≈ 1e-8.
    assert!((a1 - a0).abs() < 1e-7 * a0, "{a0} -> {a1}");
}

/// The shipped WASP-12b example as a scenario and as a GENGA `param.dat` (the tidal columns
/// `k2 k2f tau Ic` and `Sx Sy Sz` of the initial-condition file, the `Star ...` keys) are the
/// same run: their snapshots and Energy files agree byte for byte, and the star spun up.
#[test]
fn the_genga_and_scenario_forms_of_the_hot_jupiter_are_one_run() {
    let d = scratch("tides-forms");
    let root = env!("CARGO_MANIFEST_DIR");
    let (ron, dat) = (d.join("ron"), d.join("dat"));
    for (input, out) in [
        (format!("{root}/inputs/hot_jupiter.ron"), &ron),
        (format!("{root}/inputs/hot_jupiter/param.dat"), &dat),
    ] {
        let o = orrery(&[
            "run",
            &input,
            "--out",
            out.to_str().unwrap(),
            "--steps",
            "10000",
            "--overwrite",
        ]);
        assert!(o.status.success(), "{input}: {}", stderr(&o));
    }
    for name in ["Outhot_jupiter_000000010000.dat", "Energyhot_jupiter.dat"] {
        let (a, b) = (
            std::fs::read(ron.join(name)).unwrap(),
            std::fs::read(dat.join(name)).unwrap(),
        );
        assert!(a == b, "{name} differs between the two forms");
    }
    let energy = std::fs::read_to_string(ron.join("Energyhot_jupiter.dat")).unwrap();
    let spin = |line: &str| {
        line.split_whitespace()
            .nth(12)
            .unwrap()
            .parse::<f64>()
            .unwrap()
    };
    let lines: Vec<&str> = energy.lines().collect();
    assert!(
        spin(lines[lines.len() - 1]) > spin(lines[0]),
        "the star must spin up"
    );
}
