"""Shared helpers for the REBOUND anchor scripts.

timing statistics, environment/version info, GENGA units, and the RESULTS.md table writer.
Every anchor script prints one JSON line and calls `record()` to add a row to its workload's table.
"""
import datetime
import json
import os
import platform
import statistics
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "RESULTS.md")
GENGA_DIR = os.path.join(HERE, "..", "..", "inputs", "genga")

# GENGA units: G = 1, AU, Msun, time unit = 1/k days.
K_GAUSS = 0.01720209895
MSUN_G = 1.98892e33  # g (GENGA's value)
AU_CM = 1.495978707e13  # cm
RSUN_AU = 6.957e10 / AU_CM


def days(d):
    """Convert days to the GENGA code time unit (1/k days)."""
    return d * K_GAUSS


def radius_from_density(m_msun, rho_cgs):
    """Radius in AU of a sphere of mass m (Msun) and density rho (g/cm^3)."""
    import numpy as np

    r_cm = (3.0 * np.asarray(m_msun) * MSUN_G / (4.0 * np.pi * rho_cgs)) ** (1.0 / 3.0)
    return r_cm / AU_CM


def stats(samples):
    """Median/min/max of a list of timings."""
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples)}


def time_call(fn, *args):
    """Wall-clock seconds of fn(*args)."""
    t0 = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0


def timed_blocks(sim, steps, repeats, warmup):
    """Warm up, then time `repeats` blocks of `steps` steps; returns seconds per step per block."""
    if warmup:
        sim.steps(warmup)
    return [time_call(sim.steps, steps) / steps for _ in range(repeats)]


def versions():
    import numpy
    import rebound

    return {
        "python": platform.python_version(),
        "rebound": rebound.__version__,
        "rebound_git": rebound.__githash__[:8],
        "numpy": numpy.__version__,
    }


def cpu_model():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
    except OSError:
        out = ""
    for line in out.splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def fmt(x):
    """Compact number formatting for tables."""
    if isinstance(x, float):
        return f"{x:.4g}"
    return str(x)


def emit(result):
    """Print the one-line JSON result."""
    print(json.dumps(result, default=float))


def record(section, columns, row, path=RESULTS):
    """Add `row` to the markdown table under '## section' in `path`.

    The section (heading + table header) is appended at the end of the file when missing; a table
    whose header differs from `columns` gets a fresh table below it.
    """
    header = "| " + " | ".join(columns) + " |"
    rule = "|" + "|".join("---" for _ in columns) + "|"
    line = "| " + " | ".join(fmt(v) for v in row) + " |"
    text = open(path).read() if os.path.exists(path) else "# REBOUND anchor measurements\n"
    lines = text.rstrip("\n").split("\n")
    heading = "## " + section
    if heading not in lines:
        lines += ["", heading, "", header, rule, line]
    else:
        start = lines.index(heading) + 1
        end = next((i for i in range(start, len(lines)) if lines[i].startswith("## ")), len(lines))
        tables = [i for i in range(start, end) if lines[i] == header]
        if tables:
            last = tables[-1] + 1
            while last + 1 < end and lines[last + 1].startswith("|"):
                last += 1
            lines.insert(last + 1, line)
        else:
            while end > start and lines[end - 1] == "":
                end -= 1
            lines[end:end] = ["", header, rule, line]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def today():
    return datetime.date.today().isoformat()


def scenario_value(text, key, default=None):
    """The number of field `key` in an Orrery scenario's text (`default` when absent)."""
    import re
    m = re.search(rf"^\s*{key}:\s*([0-9.eE+-]+)", text, re.M)
    if not m:
        if default is not None:
            return default
        raise SystemExit(f"scenario: no `{key}` field")
    return float(m.group(1))


def snapshot(orrery, scenario, out):
    """(m0, dt_days, rows of m x y z vx vy vz) of a one-system scenario's initial state, from
    Orrery's step-0 snapshot (`orrery run SCENARIO --steps 0`)."""
    import numpy as np
    subprocess.run([orrery, "run", scenario, "--steps", "0", "--out", out, "--overwrite"],
                   check=True, capture_output=True)
    name = next(f for f in os.listdir(out) if f.startswith("Out") and f.endswith("_000000000000.dat"))
    rows = np.loadtxt(os.path.join(out, name), ndmin=2)
    text = open(scenario).read()
    return (scenario_value(text, "central_mass"), scenario_value(text, "time_step_days"),
            rows[:, [2, 4, 5, 6, 7, 8, 9]])


def heliocentric_sim(m0, bodies):
    """A REBOUND simulation (G = 1) of a central mass `m0` and `bodies` (rows of m x y z vx vy
    vz, heliocentric), moved to the centre of mass."""
    import rebound
    sim = rebound.Simulation()
    sim.G = 1.0
    sim.add(m=m0)
    for m, x, y, z, vx, vy, vz in bodies:
        sim.add(m=m, x=x, y=y, z=z, vx=vx, vy=vy, vz=vz)
    sim.move_to_com()
    return sim


def use_whfast_dh(sim):
    """WHFast in democratic heliocentric coordinates with safe mode off (its fastest setting
    with Orrery's splitting); returns the settings' label."""
    sim.integrator = "whfast"
    sim.integrator.coordinates = "democraticheliocentric"
    sim.integrator.safe_mode = 0
    return "democraticheliocentric, safe_mode=0"
