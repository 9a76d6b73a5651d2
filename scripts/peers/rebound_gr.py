#!/usr/bin/env python3
"""General relativity: Mercury's perihelion precession in REBOUND/REBOUNDx, and in Orrery.

Sun (m = 1) + Mercury, heliocentric elements (mu = G(M + m)) in `ELEMENTS` below, GENGA units:
G = 1, AU, Msun, time unit 1/k days; c = 299792458 m/s in AU per code time unit (about 10065.32).
REBOUND WHFast (dt 0.5 d; democratic heliocentric coordinates as Orrery's splitting, or Jacobi
with `--coordinates jacobi`) integrates `--years` (1000 Julian years) three times: with REBOUNDx
`gr_potential` (Nobili & Roxburgh 1986: right precession, mean motion off by O(GM/ac^2)),
with REBOUNDx `gr` (Anderson et al. 1975, 1PN for one dominant mass; velocity dependent, so
REBOUNDx warns that WHFast is then not exactly symplectic: the warning is silenced here) and with
no GR (the Newtonian baseline, ~0 for two bodies). The longitude of perihelion pomega = Omega +
omega is computed from the heliocentric state (mu = G(M + m)) at ~`--samples` (2000) evenly
spaced steps, unwrapped, and fitted with a straight line; the slope is reported in arcsec per
Julian century beside the GR value for these elements, 6 pi GM / (c^2 a (1 - e^2)) per orbit
(42.98"/cy). The fit moves by ~1e-4"/cy with the sampling (short-period terms of the osculating
pomega, aliased): compare codes at the same sample steps.

`--orrery [BINARY]` (default `target/release/orrery`) also runs
`orrery run inputs/gr_mercury.ron --out TMP --overwrite` (`--scenario` for another file) and
fits pomega of body 0 from all its snapshots `Out<name>_<step>.dat` (columns t[yr] i m r x y z vx
vy vz Sx Sy Sz, heliocentric; mu = central_mass of the scenario + m) in the same way. The
scenario must carry the same elements and dt 0.5 d; coordinates_interval 365 gives snapshots at
exactly the REBOUND sample steps (2002 with step 0).

Prints one JSON line; `--record` adds the rows to RESULTS.md.
    python rebound_gr.py                  # REBOUND only
    python rebound_gr.py --orrery         # and Orrery from target/release/orrery
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
import rebound
import reboundx

import common

SECTION = "GR: Mercury's perihelion precession"
COLUMNS = ["date", "code", "GR", "settings", "dt [d]", "years", "samples",
           "precession [\"/cy]", "minus theory [\"/cy]", "runtime [s]"]
ROOT = os.path.abspath(os.path.join(common.HERE, "..", ".."))
ARCSEC = 180.0 / np.pi * 3600.0
C_LIGHT = 299792458.0 * (86400.0 / common.K_GAUSS) / 1.495978707e11  # AU per code time unit
M_MERCURY = 1.66013e-7
# a [AU], e, inc, Omega (node), omega (argument of perihelion), mean anomaly [deg]: these must
# match the Kepler body of inputs/gr_mercury.ron.
ELEMENTS = dict(a=0.387098, e=0.205630, inc=7.005, Omega=48.331, omega=29.124, M=174.796)


def pomega(r, v, mu):
    """Longitude of perihelion Omega + omega (rad) of heliocentric states r, v (arrays (n, 3))."""
    h = np.cross(r, v)
    e = np.cross(v, h) / np.reshape(mu, (-1, 1)) - r / np.linalg.norm(r, axis=1)[:, None]
    n = np.stack([-h[:, 1], h[:, 0], np.zeros(len(h))], axis=1)  # z x h, towards the node
    cos_w = np.einsum("ij,ij->i", n, e)
    sin_w = np.einsum("ij,ij->i", h, np.cross(n, e)) / np.linalg.norm(h, axis=1)
    return np.arctan2(h[:, 0], -h[:, 1]) + np.arctan2(sin_w, cos_w)


def rate(t_years, w):
    """Slope of the line fitted to the unwrapped pomega, arcsec per Julian century."""
    return np.polyfit(t_years / 100.0, np.unwrap(w), 1)[0] * ARCSEC


def theory(m=M_MERCURY, a=ELEMENTS["a"], e=ELEMENTS["e"]):
    """1PN precession 3 mu^1.5 / (c^2 a^2.5 (1 - e^2)) in arcsec per Julian century."""
    mu = 1.0 + m
    per_code_time = 3.0 * mu**1.5 / (C_LIGHT**2 * a**2.5 * (1.0 - e * e))
    return per_code_time * common.days(36525.0) * ARCSEC


def run_rebound(gr, args):
    sim = rebound.Simulation()
    sim.G = 1.0
    sim.add(m=1.0)
    el = {k: np.radians(v) if k not in ("a", "e") else v for k, v in ELEMENTS.items()}
    sim.add(m=M_MERCURY, primary=sim.particles[0], **el)
    sim.move_to_com()
    sim.integrator = "whfast"
    sim.integrator.coordinates = args.coordinates
    sim.dt = common.days(args.dt)
    if gr != "none":
        rebx = reboundx.Extras(sim)
        force = rebx.load_force(gr)
        rebx.add_force(force)
        force.params["c"] = C_LIGHT
    steps = round(args.years * 365.25 / args.dt)
    stride = max(1, round(steps / args.samples))
    t, r, v = [], [], []
    t0 = time.perf_counter()
    for _ in range(steps // stride + 1):
        if t:
            sim.steps(stride)
        sun, p = sim.particles[0], sim.particles[1]
        t.append(sim.t / common.days(365.25))
        r.append([p.x - sun.x, p.y - sun.y, p.z - sun.z])
        v.append([p.vx - sun.vx, p.vy - sun.vy, p.vz - sun.vz])
    runtime = time.perf_counter() - t0
    w = pomega(np.array(r), np.array(v), 1.0 + M_MERCURY)
    return rate(np.array(t), w), len(t), runtime, steps


def scenario_value(text, key, default):
    m = re.search(rf"^\s*{key}:\s*([0-9.eE+-]+)", text, re.M)
    return float(m.group(1)) if m else default


def run_orrery(binary, scenario):
    text = open(scenario).read()
    m0, dt = scenario_value(text, "central_mass", 1.0), scenario_value(text, "time_step_days", None)
    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        run = subprocess.run([binary, "run", scenario, "--out", out, "--overwrite"],
                             capture_output=True, text=True)
        if run.returncode:
            raise SystemExit(f"orrery failed ({run.returncode}):\n{run.stdout}{run.stderr}")
        runtime = time.perf_counter() - t0
        rows = [np.loadtxt(f, ndmin=2) for f in sorted(glob.glob(os.path.join(out, "Out*_*.dat")))]
    rows = np.array([r[r[:, 1] == 0][0] for r in rows if (r[:, 1] == 0).any()])
    if len(rows) < 3:
        raise SystemExit(f"orrery: only {len(rows)} snapshots with body 0 in {scenario}")
    w = pomega(rows[:, 4:7], rows[:, 7:10], m0 + rows[:, 2])
    return rate(rows[:, 0], w), len(rows), runtime, rows[-1, 0], dt


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--years", type=float, default=1000.0)
    ap.add_argument("--dt", type=float, default=0.5, help="time step in days")
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--coordinates", default="democraticheliocentric",
                    help="WHFast coordinates: democraticheliocentric or jacobi")
    ap.add_argument("--gr", default="gr_potential,gr,none", help="REBOUND runs (REBOUNDx forces)")
    ap.add_argument("--orrery", nargs="?", const=os.path.join(ROOT, "target", "release", "orrery"),
                    help="also run this orrery binary (default target/release/orrery)")
    ap.add_argument("--scenario", default=os.path.join(ROOT, "inputs", "gr_mercury.ron"))
    ap.add_argument("--record", action="store_true", help="add the rows to RESULTS.md")
    args = ap.parse_args()
    warnings.filterwarnings("ignore", message="REBOUNDx: Passing a velocity-dependent force")

    gr_theory = theory()
    result = {"theory_arcsec_per_cy": gr_theory, "c_au_per_code_time": C_LIGHT,
              "elements": {**ELEMENTS, "m": M_MERCURY}, "years": args.years, "dt_days": args.dt,
              **common.versions(), "reboundx": reboundx.__version__, "cpu": common.cpu_model()}
    rows = []
    settings = f"WHFast {args.coordinates}"
    for gr in args.gr.split(","):
        prec, n, runtime, steps = run_rebound(gr, args)
        result[f"rebound_{gr}"] = {"arcsec_per_cy": prec, "samples": n, "steps": steps,
                                   "runtime_s": runtime}
        rows.append([f"rebound {rebound.__version__} reboundx {reboundx.__version__}", gr,
                     settings, args.dt, args.years, n, f"{prec:.7g}",
                     prec - gr_theory if gr != "none" else "-", runtime])
    if "rebound_gr_potential" in result and "rebound_gr" in result:
        result["gr_potential_minus_gr"] = (result["rebound_gr_potential"]["arcsec_per_cy"]
                                           - result["rebound_gr"]["arcsec_per_cy"])
    if args.orrery and not os.path.exists(args.orrery):
        print(f"orrery: no binary at {args.orrery} (cargo build --release); Orrery run skipped",
              file=sys.stderr)
    elif args.orrery:
        prec, n, runtime, t_end, dt = run_orrery(args.orrery, args.scenario)
        result["orrery"] = {"arcsec_per_cy": prec, "samples": n, "t_end_years": t_end,
                            "dt_days": dt, "runtime_s": runtime,
                            "scenario": os.path.relpath(args.scenario, ROOT)}
        commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip() or "unknown"
        rows.append([f"orrery {commit}", "as in " + os.path.basename(args.scenario),
                     "run defaults", dt, t_end, n, f"{prec:.7g}", prec - gr_theory, runtime])
    common.emit(result)
    if args.record:
        for row in rows:
            common.record(SECTION, COLUMNS, [common.today(), *row])


if __name__ == "__main__":
    main()
