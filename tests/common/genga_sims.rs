//! GENGA simulation directories and multi-simulation lists for the tests of multi mode.

use std::path::{Path, PathBuf};

/// One body of a GENGA initial-condition file `<< i m r x y z vx vy vz >>`.
pub fn ic_line(i: usize, m: f64, r: f64, pos: [f64; 3], vel: [f64; 3]) -> String {
    format!(
        "{i} {m} {r} {} {} {} {} {} {}\n",
        pos[0], pos[1], pos[2], vel[0], vel[1], vel[2]
    )
}

/// A body on a circular orbit of radius `a` around `m0` at phase `phi` (radians), inclined by a
/// small `tilt` (radians) about the x axis.
pub fn circular(m0: f64, m: f64, a: f64, phi: f64, tilt: f64) -> ([f64; 3], [f64; 3]) {
    let v = ((m0 + m) / a).sqrt();
    let (s, c) = phi.sin_cos();
    let (st, ct) = tilt.sin_cos();
    let p = [a * c, a * s, 0.0];
    let w = [-v * s, v * c, 0.0];
    ([p[0], p[1] * ct, p[1] * st], [w[0], w[1] * ct, w[1] * st])
}

/// A GENGA simulation directory `dir` with its `param.dat` and `ics.dat`.
pub fn genga_sim(dir: &Path, name: &str, m0: f64, n1: f64, ics: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let param = format!(
        "Time step in days = 6\n\
         Output name = {name}\n\
         Integration steps = 1000\n\
         Central Mass = {m0}\n\
         n1 = {n1}\n\
         n2 = 0.4\n\
         Input file = ics.dat\n\
         Input file Format: << i m r x y z vx vy vz >>\n\
         Energy output interval = 100\n\
         Coordinates output interval = 100\n\
         Minimum number of bodies = 1\n"
    );
    std::fs::write(dir.join("param.dat"), param).unwrap();
    std::fs::write(dir.join("ics.dat"), ics).unwrap();
}

/// The initial conditions of a system of central mass 0.8 whose first two planets merge: radii
/// 0.01 AU on crossing orbits, one circular at 1 AU, the other 0.15 AU farther out, moving inward
/// at 0.5 (about 15 km/s) relative to it: they merge within about three steps, and the merged
/// body stays on a bound orbit (q ~ 0.8 AU). A third planet at 3 AU.
pub fn merging_pair_ics() -> String {
    let m0 = 0.8;
    let vc = f64::sqrt(m0);
    let mut ics = String::new();
    ics.push_str(&ic_line(0, 1e-5, 0.01, [1.0, 0.0, 0.0], [0.0, vc, 0.0]));
    ics.push_str(&ic_line(1, 2e-5, 0.01, [1.15, 0.0, 0.0], [-0.5, vc, 0.0]));
    let (p, v) = circular(m0, 1e-6, 3.0, 4.0, 0.02);
    ics.push_str(&ic_line(2, 1e-6, 1e-5, p, v));
    ics
}

/// Three GENGA simulations (2, 3 and 5 bodies, central masses 1.0, 0.8, 1.2; the second has a
/// head-on collision in its first steps) under `root/sims`, and a list file naming them.
pub fn three_systems(root: &Path) -> (PathBuf, Vec<(PathBuf, &'static str)>) {
    let sims = root.join("sims");
    let mut out = Vec::new();
    // a: two quiet planets.
    let (m0, mut ics) = (1.0, String::new());
    for (k, (m, a, phi)) in [(3e-6, 1.0, 0.3), (1e-5, 2.0, 2.5)].into_iter().enumerate() {
        let (p, v) = circular(m0, m, a, phi, 0.01 * k as f64);
        ics.push_str(&ic_line(k, m, 2e-5, p, v));
    }
    genga_sim(&sims.join("alpha"), "alpha", m0, 3.0, &ics);
    out.push((sims.join("alpha"), "alpha"));
    genga_sim(&sims.join("beta"), "beta", 0.8, 2.5, &merging_pair_ics());
    out.push((sims.join("beta"), "beta"));
    // c: five well-separated planets.
    let (m0, mut ics) = (1.2, String::new());
    for (k, (m, a)) in [
        (1e-7, 0.7),
        (5e-7, 1.3),
        (1e-6, 2.0),
        (2e-7, 3.0),
        (8e-7, 4.5),
    ]
    .into_iter()
    .enumerate()
    {
        let (p, v) = circular(m0, m, a, 1.3 * k as f64, 0.005 * k as f64);
        ics.push_str(&ic_line(k, m, 1e-5, p, v));
    }
    genga_sim(&sims.join("gamma"), "gamma", m0, 3.5, &ics);
    out.push((sims.join("gamma"), "gamma"));
    let list = root.join("list.txt");
    std::fs::write(
        &list,
        "# three systems\nsims/alpha\n\nsims/beta\nsims/gamma\n",
    )
    .unwrap();
    (list, out)
}
