#!/usr/bin/env python3
"""Tides (issue 29): a hot Jupiter's orbital decay and spin-up in REBOUNDx and in Orrery.

Two cases, both with the constant-time-lag tides raised on the star and on the planet and both
spins evolved:
1. WASP-12b (inputs/hot_jupiter.ron): 1.47 Jupiter masses on a 1.0914-day circular orbit around a
   1.43 Msun, 1.66 Rsun star rotating in 36 days; the star's lag from Q'* = 1.75e5 (k2* = 0.03),
   the planet synchronous (k2 = 0.3, Q' = 1e6). 10^5 steps of 0.02 days (5.5 years). Measured:
   da/dt and the star's spin-up dOmega*/dt, fitted with lines, against the constant-time-lag
   torque on a circular orbit, da/dt = 2 P* (Omega* - n) / (mu n), dS*/dt = -a P* (Omega* - n),
   P* = 3 G m^2 R*^5 k2* tau* / a^7 (Hut 1981; Bolmont et al. 2015); and dP/dt in ms/yr against
   the observed -29 ms/yr (Yee et al. 2020).
2. The same planet on an eccentric orbit (e = 0.1) with a lag on the planet 10^4 times
   longer (the planet's tide dominates; e falls by about 8 % in the run): e-folding time of e
   and da/dt, the two codes against each other.

REBOUND: IAS15 with REBOUNDx `tides_spin` (Lu et al. 2023). Its `k2` is half the potential Love
number GENGA and Orrery use (REBOUNDx's own Earth-Moon example sets k2 = k2_earth / 2): its
conservative tide is 6 k2 G m^2 R^5 / d^7 against Bolmont's 3 k2. Its rotational flattening
uses that same k2 in place of the fluid Love number, with the force Bolmont's eq. 15 gives for
k2f = k2_rebx: so Orrery's runs here set k2f = k2 / 2, the same flattening in both codes (with
k2f = k2, as inputs/hot_jupiter.ron has, the eccentric case's rates differ by about 1.5 %).
I = Ic m R^2, Omega = S / I.
Orrery: the scenario's forces.tides, snapshots and Energy lines (the star's spin in the last
three columns) every 1000 steps.

Prints one JSON line; `--record` adds the rows to RESULTS.md.
    python rebound_tides.py                 # REBOUNDx, and Orrery from target/release/orrery
"""
import argparse
import glob
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
import rebound
import reboundx

import common

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SECTION = "10. Tides (issue 29): WASP-12b's decay and its star's spin-up; an eccentric hot Jupiter"
COLUMNS = ["date", "code", "case", "da/dt [AU/yr]", "dOmega*/dt [1/yr^2]", "t_e [yr]",
           "dP/dt [ms/yr]", "da/dt / CTL", "dOmega*/dt / CTL"]
K = common.K_GAUSS
YEAR = 365.25 * K  # code time units per year

M0, R0 = 1.43, 0.0077197802
STAR = dict(k2=0.03, tau=4.268698e-7, ic=0.07, spin=6.052571e-5)
M, R, A = 0.001403544093, 0.000887927, 0.0233802787
PLANET = dict(k2=0.3, tau=7.470222e-9, ic=0.25, spin=9.258212e-8)
DT_DAYS, STEPS, EVERY = 0.02, 100000, 1000


def case(name):
    planet = dict(PLANET)
    e = 0.0
    if name == "eccentric":
        e = 0.1
        planet["tau"] = PLANET["tau"] * 1e4
    return e, planet


def analytic(a):
    """Circular-orbit rates of case 1 (star's bulge; the synchronous planet's gives none)."""
    n = math.sqrt((M0 + M) / a ** 3)
    w_star = STAR["spin"] / (STAR["ic"] * M0 * R0 ** 2)
    p_star = 3.0 * M * M * R0 ** 5 * STAR["k2"] * STAR["tau"] / a ** 7
    mu = M0 * M / (M0 + M)
    dadt = 2.0 * p_star * (w_star - n) / (mu * n)
    dsdt = -a * p_star * (w_star - n)
    return dadt, dsdt / (STAR["ic"] * M0 * R0 ** 2)


def rebound_run(name):
    e, planet = case(name)
    sim = rebound.Simulation()
    sim.G = 1.0
    sim.add(m=M0, r=R0)
    sim.add(m=M, r=R, a=A, e=e, primary=sim.particles[0])
    sim.integrator = "ias15"
    sim.move_to_com()
    rebx = reboundx.Extras(sim)
    ts = rebx.load_force("tides_spin")
    rebx.add_force(ts)
    for p, d, m, r in [(sim.particles[0], STAR, M0, R0), (sim.particles[1], planet, M, R)]:
        inertia = d["ic"] * m * r * r
        p.params["k2"] = d["k2"] / 2.0
        p.params["tau"] = d["tau"]
        p.params["I"] = inertia
        p.params["Omega"] = rebound.Vec3d(0.0, 0.0, d["spin"] / inertia)
    rebx.initialize_spin_ode(ts)
    rows = []
    dt = DT_DAYS * K
    for k in range(0, STEPS + 1, EVERY):
        sim.integrate(k * dt)
        o = sim.particles[1].orbit(primary=sim.particles[0])
        rows.append((sim.t, o.a, o.e, sim.particles[0].params["Omega"][2]))
    return np.array(rows)


def orrery_run(binary, name):
    e, planet = case(name)
    with tempfile.TemporaryDirectory() as tmp:
        scenario = os.path.join(tmp, "tides.ron")
        out = os.path.join(tmp, "out")
        text = f"""Scenario(
    name: "tides",
    central_mass: {M0!r},
    central_radius: {R0!r},
    time_step_days: {DT_DAYS!r},
    steps: Some({STEPS}),
    inner_truncation: {R0!r},
    forces: (
        central_spin: (0.0, 0.0, {STAR['spin']!r}),
        tides: (tides: true, rotational_deformation: true,
                star: (k2: {STAR['k2']!r}, k2f: {STAR['k2'] / 2!r}, tau: {STAR['tau']!r}, ic: {STAR['ic']!r})),
    ),
    bodies: [
        Kepler(name: "b", m: {M!r}, radius: Some({R!r}), a: {A!r}, e: {e!r}, inc_deg: 0.0,
               node_deg: 0.0, peri_deg: 0.0, mean_anomaly_deg: 0.0,
               spin: (0.0, 0.0, {planet['spin']!r}),
               tides: Some((k2: {planet['k2']!r}, k2f: {planet['k2'] / 2!r}, tau: {planet['tau']!r},
                            ic: {planet['ic']!r}))),
    ],
    output: (dir: "{out}", energy_interval: {EVERY}, coordinates_interval: {EVERY},
             checkpoint_interval: 0),
)"""
        open(scenario, "w").write(text)
        run = subprocess.run([binary, "run", scenario, "--threads", "1"], capture_output=True,
                             text=True)
        if run.returncode != 0:
            raise SystemExit(f"orrery failed ({run.returncode}):\n{run.stdout}{run.stderr}")
        snaps = [np.loadtxt(f, ndmin=2)[0]
                 for f in sorted(glob.glob(os.path.join(out, "Out*_*.dat")))]
        energy = np.loadtxt(glob.glob(os.path.join(out, "Energy*.dat"))[0], ndmin=2)
    snaps = np.array(snaps)
    x, v = snaps[:, 4:7], snaps[:, 7:10]
    mu = M0 + M
    r = np.linalg.norm(x, axis=1)
    a = 1.0 / (2.0 / r - np.sum(v * v, axis=1) / mu)
    h = np.cross(x, v)
    ecc = np.linalg.norm(np.cross(v, h) / mu - x / r[:, None], axis=1)
    omega_star = energy[:, 12] / (STAR["ic"] * M0 * R0 ** 2)
    n = min(len(a), len(energy))
    return np.column_stack([snaps[:n, 0] * YEAR, a[:n], ecc[:n], omega_star[:n]])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--orrery", default=os.path.join(ROOT, "target", "release", "orrery"))
    ap.add_argument("--record", action="store_true", help="add the rows to RESULTS.md")
    args = ap.parse_args()
    dadt0, dwdt0 = analytic(A)
    period = 2.0 * math.pi * math.sqrt(A ** 3 / (M0 + M))
    to_ms_per_yr = 1.5 * period / A * 86400e3 * 365.25  # dP/dt (s/s) from da/dt, in ms/yr
    results = {"analytic": {"dadt_au_per_yr": dadt0 * YEAR, "domega_dt_per_yr2": dwdt0 * YEAR ** 2,
                            "dPdt_ms_per_yr": dadt0 * to_ms_per_yr}}
    runs = [("rebound " + rebound.__version__ + " + reboundx " + reboundx.__version__,
             lambda name: rebound_run(name))]
    if os.path.exists(args.orrery):
        runs.append(("orrery", lambda name: orrery_run(args.orrery, name)))
    else:
        print(f"orrery: no binary at {args.orrery} (cargo build --release); Orrery run skipped",
              file=sys.stderr)
    for code, run in runs:
        for name in ["WASP-12b", "eccentric"]:
            rows = run(name)
            t = rows[:, 0]
            dadt = np.polyfit(t, rows[:, 1], 1)[0]
            dwdt = np.polyfit(t, rows[:, 3], 1)[0]
            t_e = -1.0 / np.polyfit(t, np.log(rows[:, 2]), 1)[0] if name == "eccentric" else float("nan")
            circular = name == "WASP-12b"
            row = [common.today(), code, name, dadt * YEAR, dwdt * YEAR ** 2, t_e / YEAR,
                   dadt * to_ms_per_yr, dadt / dadt0 if circular else float("nan"),
                   dwdt / dwdt0 if circular else float("nan")]
            results[f"{code} {name}"] = dict(zip(COLUMNS[3:], row[3:]))
            print(f"{code:32s} {name:9s} da/dt {dadt * YEAR:.5e} AU/yr  dOmega*/dt "
                  f"{dwdt * YEAR ** 2:.5e}/yr^2  t_e {t_e / YEAR:.5g} yr  dP/dt "
                  f"{dadt * to_ms_per_yr:.3f} ms/yr  (of CTL: {row[7]:.5f}, {row[8]:.5f})",
                  file=sys.stderr)
            if args.record:
                common.record(SECTION, COLUMNS, row)
    print(f"analytic (constant time lag, circular): da/dt {dadt0 * YEAR:.5e} AU/yr, dOmega*/dt "
          f"{dwdt0 * YEAR ** 2:.5e}/yr^2, dP/dt {dadt0 * to_ms_per_yr:.3f} ms/yr", file=sys.stderr)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
