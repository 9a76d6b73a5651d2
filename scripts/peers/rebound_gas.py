#!/usr/bin/env python3
"""Gas disk (issue 29): type-I damping and migration of an embryo in REBOUNDx and in Orrery.

A 0.1 Earth-mass embryo at a = 1 AU with e = i = 0.005 (well below the disk's aspect ratio
h = 0.034) around 1 Msun, in GENGA's default disk: surface density 2000 g/cm^2 at 1 AU falling
as 1/r (alpha = 1), scale height 0.03358 r^1.25 AU (flaring beta = 0.25), not dissipating. Both
codes integrate 1.5 t_e with dt 5 days; e(t) and i(t) are fitted with exponentials and a(t) with
a line. Reported against the analytic rates:
- Tanaka & Ward (2004): t_wave = (M/m)(M/(Sigma a^2)) h^4 / Omega, t_e = t_wave / 0.780,
  t_i = t_wave / 0.544;
- Tanaka, Takeuchi & Ward (2002): da/dt = -(2.7 + 1.1 alpha) a h^2 / t_wave.

REBOUND: WHFast with REBOUNDx `type_I_migration` (Cresswell & Nelson 2008 damping, Tanaka et al.
2002 migration; heliocentric coordinates through `coordinates = PARTICLE`). Orrery: a scenario
with `forces: (gas: (on: true, ...))` (GENGA's gas disk: Tanaka & Ward's force form with
Papaloizou & Larwood's reduction), its snapshots every 500 steps (heliocentric x, v; mu = 1 + m).

Prints one JSON line; `--record` adds the rows to RESULTS.md.
    python rebound_gas.py                 # REBOUNDx, and Orrery from target/release/orrery
"""
import argparse
import glob
import json
import math
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import rebound
import reboundx

import common

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SECTION = "9. Gas disk (issue 29): type-I damping and migration of a 0.1 Earth-mass embryo at 1 AU"
COLUMNS = ["date", "code", "integrator", "t_e [yr]", "t_i [yr]", "da/dt [AU/yr]", "t_e / TW04",
           "t_i / TW04", "da/dt / TTW02"]
EARTH_MASS = 3.003489614915764e-6
SIGMA_CGS_TO_CODE = common.AU_CM ** 2 / common.MSUN_G
H1 = 0.03358
YEAR = 365.25 * common.K_GAUSS  # code time units per year


def analytic(m, sigma_10, alpha):
    """t_wave, t_e, t_i and da/dt at a = 1 AU around 1 Msun (code units)."""
    t_wave = (1.0 / m) * (1.0 / sigma_10) * H1 ** 4
    return t_wave, t_wave / 0.780, t_wave / 0.544, -(2.7 + 1.1 * alpha) * H1 ** 2 / t_wave


def fit(t, e, i, a):
    """e-folding times of e and i and the slope of a, from lines through ln e, ln i and a."""
    return -1.0 / np.polyfit(t, np.log(e), 1)[0], -1.0 / np.polyfit(t, np.log(i), 1)[0], \
        np.polyfit(t, a, 1)[0]


def rebound_run(m, e0, i0, sigma_10, alpha, beta, steps, every):
    # REBOUNDx warns that a velocity-dependent force breaks WHFast's symplecticity; the force is
    # small here (the rates are fitted over thousands of orbits, as in REBOUNDx's examples).
    warnings.filterwarnings("ignore", message="REBOUNDx: Passing a velocity-dependent force")
    sim = rebound.Simulation()
    sim.G = 1.0
    sim.add(m=1.0)
    sim.add(m=m, a=1.0, e=e0, inc=i0, Omega=0.4, omega=1.3, M=2.0, primary=sim.particles[0])
    sim.integrator = "whfast"
    sim.dt = 5.0 * common.K_GAUSS
    rebx = reboundx.Extras(sim)
    mig = rebx.load_force("type_I_migration")
    rebx.add_force(mig)
    mig.params["tIm_surface_density_1"] = sigma_10
    mig.params["tIm_scale_height_1"] = H1
    mig.params["tIm_surface_density_exponent"] = alpha
    mig.params["tIm_flaring_index"] = beta
    mig.params["coordinates"] = reboundx.coordinates["PARTICLE"]
    sim.particles[0].params["primary"] = 1
    rows = []
    for k in range(0, steps + 1, every):
        sim.integrate(k * sim.dt, exact_finish_time=0)
        o = sim.particles[1].orbit(primary=sim.particles[0])
        rows.append((sim.t, o.e, o.inc, o.a))
    return np.array(rows)


def elements(mu, x, v):
    """a, e, i of heliocentric states x, v (n x 3)."""
    r = np.linalg.norm(x, axis=1)
    v2 = np.sum(v * v, axis=1)
    a = 1.0 / (2.0 / r - v2 / mu)
    h = np.cross(x, v)
    evec = np.cross(v, h) / mu - x / r[:, None]
    inc = np.arccos(h[:, 2] / np.linalg.norm(h, axis=1))
    return a, np.linalg.norm(evec, axis=1), inc


def orrery_run(binary, m, e0, i0, sigma_cgs, alpha, beta, steps, every):
    with tempfile.TemporaryDirectory() as tmp:
        scenario = os.path.join(tmp, "gas_embryo.ron")
        out = os.path.join(tmp, "out")
        text = f"""Scenario(
    name: "gas_embryo",
    time_step_days: 5.0,
    steps: Some({steps}),
    inner_truncation: 0.05,
    forces: (gas: (on: true, drag: Off, tidal_damping: All, potential: Off, sigma_10: {sigma_cgs!r},
                   alpha: {alpha!r}, beta: {beta!r}, dissipation_time: 1e12)),
    bodies: [
        Kepler(name: "embryo", m: {m!r}, radius: Some(1e-5), a: 1.0, e: {e0!r},
               inc_deg: {math.degrees(i0)!r}, node_deg: {math.degrees(0.4)!r},
               peri_deg: {math.degrees(1.3)!r}, mean_anomaly_deg: {math.degrees(2.0)!r}),
    ],
    output: (dir: "{out}", energy_interval: 0, coordinates_interval: {every}, checkpoint_interval: 0),
)"""
        open(scenario, "w").write(text)
        run = subprocess.run([binary, "run", scenario, "--threads", "1"], capture_output=True,
                             text=True)
        if run.returncode != 0:
            raise SystemExit(f"orrery failed ({run.returncode}):\n{run.stdout}{run.stderr}")
        rows = [np.loadtxt(f, ndmin=2)[0] for f in sorted(glob.glob(os.path.join(out, "Out*_*.dat")))]
    rows = np.array(rows)
    t = rows[:, 0] * YEAR
    a, e, inc = elements(1.0 + m, rows[:, 4:7], rows[:, 7:10])
    return np.column_stack([t, e, inc, a])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--orrery", default=os.path.join(ROOT, "target", "release", "orrery"))
    ap.add_argument("--record", action="store_true", help="add the rows to RESULTS.md")
    args = ap.parse_args()
    m, e0, i0 = 0.1 * EARTH_MASS, 0.005, 0.005
    sigma_cgs, alpha, beta = 2000.0, 1.0, 0.25
    sigma = sigma_cgs * SIGMA_CGS_TO_CODE
    t_wave, t_e, t_i, dadt = analytic(m, sigma, alpha)
    every = 500
    steps = int(1.5 * t_e / (5.0 * common.K_GAUSS)) // every * every
    results = {"analytic": {"t_wave_yr": t_wave / YEAR, "t_e_yr": t_e / YEAR, "t_i_yr": t_i / YEAR,
                            "dadt_au_per_yr": dadt * YEAR}}
    runs = [("rebound " + rebound.__version__ + " + reboundx " + reboundx.__version__,
             "WHFast + type_I_migration", lambda: rebound_run(m, e0, i0, sigma, alpha, beta,
                                                               steps, every))]
    if os.path.exists(args.orrery):
        runs.append(("orrery", "hybrid (GENGA), gas disk",
                     lambda: orrery_run(args.orrery, m, e0, i0, sigma_cgs, alpha, beta, steps,
                                        every)))
    else:
        print(f"orrery: no binary at {args.orrery} (cargo build --release); Orrery run skipped",
              file=sys.stderr)
    for code, integrator, run in runs:
        rows = run()
        te, ti, da = fit(rows[:, 0], rows[:, 1], rows[:, 2], rows[:, 3])
        row = [common.today(), code, integrator, te / YEAR, ti / YEAR, da * YEAR, te / t_e,
               ti / t_i, da / dadt]
        results[code] = dict(zip(COLUMNS[3:], row[3:]))
        print(f"{code:40s} t_e {te / YEAR:8.1f} yr ({te / t_e:.4f} of TW04)  t_i {ti / YEAR:8.1f} yr "
              f"({ti / t_i:.4f})  da/dt {da * YEAR:.4e} AU/yr ({da / dadt:.4f} of TTW02)",
              file=sys.stderr)
        if args.record:
            common.record(SECTION, COLUMNS, row)
    print(f"analytic: t_wave {t_wave / YEAR:.1f} yr, t_e {t_e / YEAR:.1f} yr, t_i {t_i / YEAR:.1f} yr, "
          f"da/dt {dadt * YEAR:.4e} AU/yr", file=sys.stderr)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
