#!/usr/bin/env python3
"""One small planetary system for many steps: Orrery beside REBOUND WHFast and MERCURIUS.

For each system (default: the outer solar system, Sun and four giants, dt 50 days, and the full
solar system, Sun and eight planets, dt 6 days) the script
- writes Orrery's initial snapshot (`orrery run SCENARIO --steps 0`), so REBOUND starts from the
  same bits (heliocentric, GENGA units: G = 1, AU, Msun, time unit 1/k days);
- times REBOUND WHFast (democratic heliocentric coordinates, safe mode off: its fastest setting
  with Orrery's splitting) and MERCURIUS (r_crit_hill = 3, Orrery's n1; safe mode on, its
  default) with `sim.steps(n)`: the median of `--repeats` blocks after warm-up;
- runs `orrery run SCENARIO --steps N --threads 1` `--repeats` times and takes the median of
  the time per step it prints;
all in the same process, one after another, on one thread (the wheel has no OpenMP). It reports
us/step and the relative energy error after `--steps` steps from the start (REBOUND's from an
untimed run), and adds a row per code to RESULTS.md.
The criterion benchmark of the same Orrery steps: `cargo bench --bench modes -- one_system`.
"""
import argparse
import os
import re
import subprocess
import tempfile

import rebound

import common

SECTION = "5. One small system: Sun + planets, one thread"
COLUMNS = ["date", "code", "system", "integrator", "settings", "N", "dt [d]", "steps",
           "us/step median", "min", "max", "rel dE"]
ROOT = os.path.join(common.HERE, "..", "..")
SYSTEMS = {
    "outer": "inputs/outer_solar_system.ron",
    "solar": "inputs/bench/solar_system_6d.ron",
}


scenario_value = common.scenario_value
snapshot = common.snapshot


def make_sim(bodies, m0, integrator, dt_days):
    sim = common.heliocentric_sim(m0, bodies)
    if integrator == "whfast":
        settings = common.use_whfast_dh(sim)
    else:
        sim.integrator = integrator
        sim.integrator.r_crit_hill = 3.0
        settings = "r_crit_hill=3.0, safe_mode=1"
    sim.dt = common.days(dt_days)
    return sim, settings


def run_rebound(bodies, m0, dt_days, integrator, args):
    sim, settings = make_sim(bodies, m0, integrator, dt_days)
    per_step = common.timed_blocks(sim, args.steps, args.repeats, args.warmup)
    # The energy error after `--steps` steps from the start, as Orrery's run reports it.
    sim, _ = make_sim(bodies, m0, integrator, dt_days)
    e0 = sim.energy()
    sim.steps(args.steps)
    sim.synchronize()
    de = abs((sim.energy() - e0) / e0)
    return settings, args.warmup + args.steps * args.repeats, per_step, de


def run_orrery(orrery, scenario, out, args):
    per_step, de = [], None
    for _ in range(args.repeats):
        log = subprocess.run([orrery, "run", scenario, "--steps", str(args.steps), "--threads", "1",
                              "--out", out, "--overwrite"], check=True, capture_output=True,
                             text=True).stdout
        per_step.append(float(re.search(r"([0-9.e+-]+) s per step", log).group(1)))
        de = abs(float(re.search(r"relative energy error \(E \+ U\) ([0-9.e+-]+)", log).group(1)))
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or "unknown commit"
    return f"cpu, 1 thread, {commit}", args.steps, per_step, de


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--systems", default="outer,solar", help="outer, solar or scenario files")
    ap.add_argument("--orrery", default=os.path.join(ROOT, "target", "release", "orrery"),
                    help="the orrery binary (build with `cargo build --release`)")
    ap.add_argument("--steps", type=int, default=1_000_000, help="steps per timed block")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=10_000)
    ap.add_argument("--integrators", default="whfast,mercurius")
    ap.add_argument("--no-record", action="store_true")
    args = ap.parse_args()
    for system in args.systems.split(","):
        scenario = os.path.join(ROOT, SYSTEMS.get(system, system))
        with tempfile.TemporaryDirectory() as tmp:
            m0, dt_days, bodies = snapshot(args.orrery, scenario, tmp)
            runs = [("rebound " + rebound.__version__, i, *run_rebound(bodies, m0, dt_days, i, args))
                    for i in args.integrators.split(",")]
            runs.append(("orrery", "hybrid (GENGA)", *run_orrery(args.orrery, scenario, tmp, args)))
        for code, integrator, settings, steps, per_step, de in runs:
            st = common.stats(per_step)
            us = [st["median"] * 1e6, st["min"] * 1e6, st["max"] * 1e6]
            common.emit({"code": code, "system": system, "integrator": integrator,
                         "settings": settings, "N": len(bodies) + 1, "dt_days": dt_days,
                         "steps": steps, "us_per_step": us[0], "min": us[1], "max": us[2],
                         "rel_dE": de, "cpu": common.cpu_model()})
            if not args.no_record:
                common.record(SECTION, COLUMNS, [common.today(), code, system, integrator, settings,
                                                 len(bodies) + 1, dt_days, steps, *us, de])


if __name__ == "__main__":
    main()
