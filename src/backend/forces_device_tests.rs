//! `kernels/common/forces.h` in the host C and C++ builds (`kernels/host/native.c`) against
//! `physics::forces`, bit for bit, on random states with every force on and off.

use crate::physics::forces::{self, ForceSettings, Forces};
use crate::physics::gas::{GasBodies, GasDisk};
use crate::rng::Rng;

macro_rules! native {
    ($module:ident, $prefix:literal) => {
        mod $module {
            extern "C" {
                #[link_name = concat!($prefix, "potential_accel")]
                pub fn potential_accel(f: *const f64, mu: f64, x: *const f64, a: *mut f64);
                #[link_name = concat!($prefix, "potential_energy")]
                pub fn potential_energy(f: *const f64, mu: f64, x: *const f64) -> f64;
                #[link_name = concat!($prefix, "potential_torque")]
                pub fn potential_torque(
                    f: *const f64,
                    mu: f64,
                    dt: f64,
                    pulling: u32,
                    m: *const f64,
                    x: *const f64,
                    y: *const f64,
                    z: *const f64,
                    l: *mut f64,
                );
                #[link_name = concat!($prefix, "radiation_system")]
                pub fn radiation_system(
                    f: *const f64,
                    m0: f64,
                    dt: f64,
                    n: u32,
                    pulling: u32,
                    m: *const f64,
                    r: *const f64,
                    x: *const f64,
                    y: *const f64,
                    z: *const f64,
                    vx: *const f64,
                    vy: *const f64,
                    vz: *const f64,
                    sx: *const f64,
                    sy: *const f64,
                    sz: *const f64,
                    sw: *mut f64,
                    work: *mut f64,
                    d: *mut f64,
                );
                #[link_name = concat!($prefix, "tide_kick_system")]
                pub fn tide_kick_system(
                    f: *const f64,
                    m0: f64,
                    dt: f64,
                    n: u32,
                    n_table: u32,
                    ids: *const u64,
                    props: *const f64,
                    m: *const f64,
                    r: *const f64,
                    id: *const u64,
                    x: *const f64,
                    y: *const f64,
                    z: *const f64,
                    vx: *mut f64,
                    vy: *mut f64,
                    vz: *mut f64,
                    sx: *mut f64,
                    sy: *mut f64,
                    sz: *mut f64,
                    star_spin: *mut f64,
                ) -> f64;
                #[link_name = concat!($prefix, "yarkovsky_accel")]
                pub fn yarkovsky_accel(
                    f: *const f64,
                    mu: f64,
                    mass: f64,
                    s: f64,
                    x: *const f64,
                    v: *const f64,
                    spin: *const f64,
                    a: *mut f64,
                );
            }
        }
    };
}
native!(c, "orrery_native_");
native!(cxx, "orrery_native_cxx_");

/// Settings number `k` of 32: GR, J2, solar wind, the gas disk and radiation off by the bits
/// of `k` (the Yarkovsky effect with GR off); the gas disk's parts, its gravity among them (on a
/// table to 1.3 AU), on, off or below the giant mass by turns.
fn settings(rng: &mut Rng, k: usize) -> ForceSettings {
    let flags = [GasBodies::Off, GasBodies::All, GasBodies::BelowGiant];
    let gas = GasDisk {
        on: k & 8 != 0,
        drag: flags[(k / 8) % 3],
        tidal_damping: flags[(k / 4 + 1) % 3],
        sigma_10: 1e3 + 1e7 * rng.uniform(),
        alpha: 0.5 + rng.uniform(),
        beta: 0.5 * rng.uniform(),
        m_giant: 5e-5,
        enhancement: flags[(k / 2 + 2) % 3],
        potential: flags[(k / 16 + 1) % 3],
        inner_edge: 0.3,
        grid_outer_edge: 1.3,
        grid_dr: 0.25,
        ..Default::default()
    };
    ForceSettings {
        gr: k & 1 != 0,
        j2: if k & 2 != 0 {
            1e-3 * rng.uniform()
        } else {
            0.0
        },
        j2_radius: 0.005,
        central_spin: [rng.uniform() - 0.5, rng.uniform() - 0.5, rng.uniform()],
        poynting_robertson: k & 16 == 0,
        qpr: 0.5 + rng.uniform(),
        solar_constant: 1367.0,
        solar_wind: if k & 4 != 0 { 0.35 } else { 0.0 },
        yarkovsky: k & 1 == 0,
        asteroid: Default::default(),
        gas,
        tides: Default::default(),
    }
}

/// A tabulated gas disk at 24 radii from 0.2 to 3 AU, three blocks one code time unit apart.
fn profile(rng: &mut Rng) -> crate::physics::gas::profile::DiskProfile {
    let radii: Vec<f64> = (0..24).map(|i| 0.2 * 15f64.powf(i as f64 / 23.0)).collect();
    let values: Vec<f64> = (0..3 * 24)
        .flat_map(|_| [1e-3 * rng.uniform(), 0.02 + 0.05 * rng.uniform()])
        .collect();
    crate::physics::gas::profile::DiskProfile::new(radii, vec![0.0, 1.0, 2.0], values)
}

#[test]
fn potential_forces_are_bitwise_the_rust_functions() {
    let mut rng = Rng::new(26);
    for k in 0..400 {
        let f = Forces::resolve(&settings(&mut rng, k % 8));
        let buf = f.device_buffer();
        let mu = 0.5 + rng.uniform();
        let x = [
            rng.uniform() - 0.5,
            rng.uniform() - 0.5,
            0.2 * (rng.uniform() - 0.5),
        ];
        let want_a = forces::potential_accel(&f, mu, x);
        let want_e = forces::potential_energy(&f, mu, x);
        for (lang, accel, energy) in [
            (
                "C",
                c::potential_accel as unsafe extern "C" fn(_, _, _, _),
                c::potential_energy as unsafe extern "C" fn(_, _, _) -> f64,
            ),
            ("C++", cxx::potential_accel, cxx::potential_energy),
        ] {
            let mut a = [0.0; 3];
            // SAFETY: the pointers cover the 8 constants, 3 coordinates and 3 outputs.
            let e = unsafe {
                accel(buf.as_ptr(), mu, x.as_ptr(), a.as_mut_ptr());
                energy(buf.as_ptr(), mu, x.as_ptr())
            };
            for c in 0..3 {
                assert_eq!(
                    a[c].to_bits(),
                    want_a[c].to_bits(),
                    "{lang} case {k} a[{c}]"
                );
            }
            assert_eq!(e.to_bits(), want_e.to_bits(), "{lang} case {k} energy");
        }
    }
}

#[test]
fn the_radiation_kick_is_bitwise_the_rust_functions() {
    let mut rng = Rng::new(126);
    for k in 0..192 {
        let mut f = Forces::resolve(&settings(&mut rng, k % 32));
        if k % 3 == 1 {
            // A tabulated disk over the bodies' radii, at a time between its blocks.
            f = f.with_gas_profile(profile(&mut rng));
            f.gas = f.gas.at_time(3.0 * rng.uniform());
        }
        let buf = f.device_buffer();
        let n = 1 + k % 7;
        let pulling = n - k % 3 % n;
        // Massive bodies first, then test particles (mass 0 or a small mass).
        let m: Vec<f64> = (0..n)
            .map(|i| {
                if i < pulling {
                    // Some in the range of GENGA's super-particles (enhancement).
                    [1e-4, 3e-8][i % 2] * rng.uniform()
                } else {
                    0.0
                }
            })
            .collect();
        let r: Vec<f64> = (0..n).map(|_| 1e-9 + 1e-5 * rng.uniform()).collect();
        let coord = |rng: &mut Rng, s: f64| {
            (0..n)
                .map(|_| s * (rng.uniform() - 0.5))
                .collect::<Vec<_>>()
        };
        let (x, y, z) = (
            coord(&mut rng, 3.0),
            coord(&mut rng, 3.0),
            coord(&mut rng, 0.3),
        );
        let (vx, vy, vz) = (
            coord(&mut rng, 1.0),
            coord(&mut rng, 1.0),
            coord(&mut rng, 0.1),
        );
        let (sx, sy, sz) = (
            coord(&mut rng, 1e-12),
            coord(&mut rng, 1e-12),
            coord(&mut rng, 1e-12),
        );
        let (m0, dt) = (1.0 + rng.uniform(), 0.1);
        let body = |i: usize| forces::Irradiated {
            m: m[i],
            s: r[i],
            x: [x[i], y[i], z[i]],
            v: [vx[i], vy[i], vz[i]],
            spin: [sx[i], sy[i], sz[i]],
        };
        let sys = forces::radiation_system(&f, m0, dt, pulling, body);
        for (lang, run) in [
            (
                "C",
                c::radiation_system
                    as unsafe extern "C" fn(
                        _,
                        _,
                        _,
                        _,
                        _,
                        _,
                        _,
                        _,
                        _,
                        _,
                        _,
                        _,
                        _,
                        _,
                        _,
                        _,
                        _,
                        _,
                        _,
                    ),
            ),
            ("C++", cxx::radiation_system),
        ] {
            let (mut sw, mut work, mut d) = ([0.0; 6], [0.0; 4], vec![0.0; 3 * n]);
            // SAFETY: every array holds n values (d 3 n), sw 6 and work 4.
            unsafe {
                run(
                    buf.as_ptr(),
                    m0,
                    dt,
                    n as u32,
                    pulling as u32,
                    m.as_ptr(),
                    r.as_ptr(),
                    x.as_ptr(),
                    y.as_ptr(),
                    z.as_ptr(),
                    vx.as_ptr(),
                    vy.as_ptr(),
                    vz.as_ptr(),
                    sx.as_ptr(),
                    sy.as_ptr(),
                    sz.as_ptr(),
                    sw.as_mut_ptr(),
                    work.as_mut_ptr(),
                    d.as_mut_ptr(),
                )
            };
            let torque =
                forces::potential_torque(&f, m0, dt, pulling, |i| (m[i], [x[i], y[i], z[i]]));
            let potential_torque = match lang {
                "C" => c::potential_torque as unsafe extern "C" fn(_, _, _, _, _, _, _, _, _),
                _ => cxx::potential_torque,
            };
            let mut l = [0.0; 3];
            // SAFETY: every array holds at least `pulling` values, l 3.
            unsafe {
                potential_torque(
                    buf.as_ptr(),
                    m0,
                    dt,
                    pulling as u32,
                    m.as_ptr(),
                    x.as_ptr(),
                    y.as_ptr(),
                    z.as_ptr(),
                    l.as_mut_ptr(),
                )
            };
            for c in 0..3 {
                assert_eq!(l[c].to_bits(), torque[c].to_bits(), "{lang} {k} torque");
            }
            for c in 0..3 {
                assert_eq!(sw[c].to_bits(), sys.shift[c].to_bits(), "{lang} {k} shift");
                assert_eq!(sw[3 + c].to_bits(), sys.w[c].to_bits(), "{lang} {k} w");
            }
            for c in 0..4 {
                assert_eq!(
                    work[c].to_bits(),
                    sys.work[c].to_bits(),
                    "{lang} {k} work {c}"
                );
            }
            for i in 0..n {
                let want = forces::radiation_dv(&f, m0, dt, &sys, body(i));
                for c in 0..3 {
                    assert_eq!(
                        d[3 * i + c].to_bits(),
                        want[c].to_bits(),
                        "{lang} {k} dv {i}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_yarkovsky_acceleration_is_bitwise_the_rust_function() {
    // Orbits from circular to hyperbolic, spins from none to fast, radii from dust to 10 km
    // (the thermal functions' argument beyond its cap).
    let mut rng = Rng::new(226);
    let f = Forces::resolve(&ForceSettings {
        yarkovsky: true,
        ..Default::default()
    });
    let buf = f.device_buffer();
    for k in 0..400 {
        let r = 10f64.powf(-6.0 - 9.0 * rng.uniform());
        let mass = 4.0 / 3.0 * std::f64::consts::PI * r * r * r * 1e3 * 1.5e-25;
        let e = match k % 4 {
            0 => 0.0,
            1 => 1e-9,
            2 => 0.9 * rng.uniform(),
            _ => 1.0 + rng.uniform(),
        };
        let a = 0.5 + 3.0 * rng.uniform();
        let x = [a * (1.0 - e), 0.0, 0.01 * (rng.uniform() - 0.5)];
        let vq = ((1.0 + e) / (a * (1.0 - e)).abs()).sqrt();
        let v = [0.01 * (rng.uniform() - 0.5), vq, 0.001];
        let omega = if k % 7 == 0 {
            0.0
        } else {
            10f64.powf(1.0 + 3.0 * rng.uniform())
        };
        let i = 0.4 * mass * r * r;
        let spin = [0.3 * omega * i, -0.2 * omega * i, omega * i];
        let want = forces::yarkovsky_accel(&f, 1.0 + mass, mass, r, x, v, spin);
        for (lang, run) in [
            (
                "C",
                c::yarkovsky_accel as unsafe extern "C" fn(_, _, _, _, _, _, _, _),
            ),
            ("C++", cxx::yarkovsky_accel),
        ] {
            let mut got = [0.0; 3];
            // SAFETY: the constants, three 3-vectors and the output.
            unsafe {
                run(
                    buf.as_ptr(),
                    1.0 + mass,
                    mass,
                    r,
                    x.as_ptr(),
                    v.as_ptr(),
                    spin.as_ptr(),
                    got.as_mut_ptr(),
                )
            };
            for c in 0..3 {
                assert_eq!(
                    got[c].to_bits(),
                    want[c].to_bits(),
                    "{lang} case {k} a[{c}]"
                );
            }
            if omega > 0.0 && k % 4 != 3 {
                assert!(want.iter().any(|&c| c != 0.0), "case {k}: no acceleration");
            }
        }
    }
}

/// A system of random bodies for the tide kick (some listed in the table, some not, one
/// without mass): the state as columns.
struct TidalColumns {
    m: Vec<f64>,
    r: Vec<f64>,
    id: Vec<u64>,
    x: [Vec<f64>; 3],
    v: [Vec<f64>; 3],
    s: [Vec<f64>; 3],
}

impl crate::physics::tides::TidalSystem for (TidalColumns, crate::physics::tides::TidalTable) {
    fn get(&self, k: usize) -> crate::physics::tides::Tidal {
        let c = &self.0;
        crate::physics::tides::Tidal {
            m: c.m[k],
            radius: c.r[k],
            body: self.1.get(c.id[k]),
            x: [c.x[0][k], c.x[1][k], c.x[2][k]],
            v: [c.v[0][k], c.v[1][k], c.v[2][k]],
            spin: [c.s[0][k], c.s[1][k], c.s[2][k]],
        }
    }
    fn add(&mut self, k: usize, dv: [f64; 3], ds: [f64; 3]) {
        for c in 0..3 {
            self.0.v[c][k] += dv[c];
            self.0.s[c][k] += ds[c];
        }
    }
}

#[test]
fn the_tide_kick_is_bitwise_the_rust_function() {
    use crate::physics::tides::{self, TidalBody, TidalTable, TideSettings};
    let mut rng = Rng::new(2929);
    for k in 0..64 {
        let settings = ForceSettings {
            tides: TideSettings {
                tides: k & 1 == 0,
                rotational_deformation: k & 2 == 0 || k & 1 != 0,
                star: TidalBody {
                    k2: 0.1 * rng.uniform(),
                    k2f: rng.uniform(),
                    tau: 1e-3 * rng.uniform(),
                    ic: 0.05 + 0.3 * rng.uniform(),
                },
            },
            ..Default::default()
        };
        let n = 1 + k % 7;
        let entries: Vec<(u64, TidalBody)> = (0..n as u64)
            .filter(|i| !(i + k as u64).is_multiple_of(3))
            .map(|i| {
                let body = TidalBody {
                    k2: 0.5 * rng.uniform(),
                    k2f: 0.5 * rng.uniform(),
                    tau: 1e-2 * rng.uniform(),
                    ic: 0.1 + 0.3 * rng.uniform(),
                };
                (10 * i, body)
            })
            .collect();
        let table = TidalTable::new(entries.clone());
        let f =
            Forces::resolve(&settings).with_tides(&settings, 0.005 + 0.01 * rng.uniform(), table);
        let buf = f.device_buffer();
        let col = |rng: &mut Rng, s: f64| {
            (0..n)
                .map(|_| s * (rng.uniform() - 0.5))
                .collect::<Vec<_>>()
        };
        let cols = TidalColumns {
            m: (0..n)
                .map(|i| if i == 3 { 0.0 } else { 1e-3 * rng.uniform() })
                .collect(),
            r: (0..n).map(|_| 1e-4 + 1e-3 * rng.uniform()).collect(),
            id: (0..n as u64).map(|i| 10 * i).collect(),
            x: [col(&mut rng, 0.2), col(&mut rng, 0.2), col(&mut rng, 0.02)],
            v: [col(&mut rng, 10.0), col(&mut rng, 10.0), col(&mut rng, 1.0)],
            s: [
                col(&mut rng, 1e-8),
                col(&mut rng, 1e-8),
                col(&mut rng, 1e-7),
            ],
        };
        let (ids, props): (Vec<u64>, Vec<f64>) = (
            table.entries().iter().map(|e| e.0).collect(),
            table
                .entries()
                .iter()
                .flat_map(|e| [e.1.k2, e.1.k2f, e.1.tau, e.1.ic])
                .collect(),
        );
        let star0 = [
            1e-6 * rng.uniform(),
            -1e-6 * rng.uniform(),
            1e-5 * rng.uniform(),
        ];
        let (m0, dt) = (0.8 + 0.4 * rng.uniform(), 0.01);
        let mut want = (
            TidalColumns {
                m: cols.m.clone(),
                r: cols.r.clone(),
                id: cols.id.clone(),
                x: cols.x.clone(),
                v: cols.v.clone(),
                s: cols.s.clone(),
            },
            table,
        );
        let mut star = star0;
        let work = tides::tide_kick_system(&f.tides, m0, dt, n, &mut star, &mut want);
        for (lang, run) in [
            (
                "C",
                c::tide_kick_system
                    as unsafe extern "C" fn(
                        _,
                        _,
                        _,
                        _,
                        _,
                        _,
                        _,
                        _,
                        _,
                        _,
                        _,
                        _,
                        _,
                        _,
                        _,
                        _,
                        _,
                        _,
                        _,
                        _,
                    ) -> _,
            ),
            ("C++", cxx::tide_kick_system),
        ] {
            let (mut v, mut s, mut st) = (cols.v.clone(), cols.s.clone(), star0);
            let [vx, vy, vz] = &mut v;
            let [sx, sy, sz] = &mut s;
            // SAFETY: every column holds n values, the table ids.len() entries, st 3.
            let w = unsafe {
                run(
                    buf.as_ptr(),
                    m0,
                    dt,
                    n as u32,
                    ids.len() as u32,
                    ids.as_ptr(),
                    props.as_ptr(),
                    cols.m.as_ptr(),
                    cols.r.as_ptr(),
                    cols.id.as_ptr(),
                    cols.x[0].as_ptr(),
                    cols.x[1].as_ptr(),
                    cols.x[2].as_ptr(),
                    vx.as_mut_ptr(),
                    vy.as_mut_ptr(),
                    vz.as_mut_ptr(),
                    sx.as_mut_ptr(),
                    sy.as_mut_ptr(),
                    sz.as_mut_ptr(),
                    st.as_mut_ptr(),
                )
            };
            assert_eq!(w.to_bits(), work.to_bits(), "{lang} {k} work");
            for c in 0..3 {
                assert_eq!(st[c].to_bits(), star[c].to_bits(), "{lang} {k} star spin");
                for i in 0..n {
                    assert_eq!(
                        v[c][i].to_bits(),
                        want.0.v[c][i].to_bits(),
                        "{lang} {k} v {i}"
                    );
                    assert_eq!(
                        s[c][i].to_bits(),
                        want.0.s[c][i].to_bits(),
                        "{lang} {k} spin {i}"
                    );
                }
            }
            assert!(
                star != star0 || !f.tides.is_on() || n == 0,
                "{k}: nothing happened"
            );
        }
    }
}
