"""Simulation.integrate against the command line on the same work: time per step and peak memory.

    python python/bench/overhead.py [--binary target/release/orrery] [--threads 2] [--repeats 3]

Cases: GENGA's 2048-planetesimal disk (inputs/disk2048.ron, 1000 steps) and 10^5 test particles
with Jupiter and Saturn (inputs/bench/tp100k.ron, 300 steps), both with their energy lines and
snapshots switched off so that both sides do only the steps. Each measurement runs in its own
process: the command line's time per step is the one it prints; the module's is the wall time of
`integrate` over its steps; peak memory is the process's maximum resident set (the Python process
includes the interpreter and numpy).
"""

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

CASES = {
    "disk2048": dict(
        scenario="inputs/disk2048.ron",
        steps=1000,
        settings=dict(name="disk2048", time_step_days=6.0, n1=3.0, n2=0.4, inner_truncation=0.2, outer_truncation=50.0, default_rho=2.0),
        bodies=lambda sim: sim.add_file(REPO / "inputs/genga/initialplanet_2048.dat", "<< x y z m vx vy vz >>"),
    ),
    "tp100k": dict(
        scenario="inputs/bench/tp100k.ron",
        steps=300,
        settings=dict(name="tp100k", mode="TestParticles", time_step_days=6.0, n1=3.0, n2=0.4, inner_truncation=0.1, outer_truncation=100.0, particle_minimum_mass=1e-20),
        bodies=None,
    ),
}

CHILD = r"""
import json, math, resource, sys, time
import orrery
case, steps, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sim = orrery.Simulation(threads=threads, **json.loads(sys.argv[4]))
if case == "disk2048":
    sim.add_file(sys.argv[5], "<< x y z m vx vy vz >>")
else:
    d = math.radians
    sim.add(m=9.547919e-4, a=5.2)
    sim.add(m=2.858860e-4, a=9.58, M=d(120.0))
    sim.add_disk(100000, total_mass_earth=1e-30, a_min=0.5, a_max=4.0, surface_density_exponent=1.0, e_rayleigh=0.02, i_rayleigh=0.02, seed=1)
sim.integrate(steps=0)
start = time.perf_counter()
sim.integrate(steps=steps)
wall = time.perf_counter() - start
print(json.dumps(dict(per_step=wall / steps, rss_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, n=sim.N)))
"""


def cli(binary, case, threads, out):
    spec = CASES[case]
    text = (REPO / spec["scenario"]).read_text()
    text = re.sub(r"energy_interval: *-?\d+", "energy_interval: 0", text)
    text = re.sub(r"coordinates_interval: *-?\d+", "coordinates_interval: 0", text)
    text = re.sub(r"checkpoint_interval: *-?\d+", "checkpoint_interval: 0", text)
    text = text.replace('"genga/', f'"{REPO}/inputs/genga/')
    path = Path(out) / f"{case}.ron"
    path.write_text(text)
    command = [binary, "run", str(path), "--steps", str(spec["steps"]), "--threads", str(threads), "--out", str(Path(out) / case), "--overwrite"]
    # A fresh wrapper process, so that its children's peak memory is this run's alone.
    done = subprocess.run([sys.executable, "-c", WRAPPER, *command], check=True, capture_output=True, text=True)
    per_step = float(re.search(r"([0-9.e+-]+) s per step", done.stdout).group(1))
    rss = int(done.stdout.strip().splitlines()[-1])
    return dict(per_step=per_step, rss_mib=rss / 1024)


WRAPPER = r"""
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], check=True, capture_output=True, text=True)
print(done.stdout)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def module(case, threads):
    spec = CASES[case]
    done = subprocess.run(
        [sys.executable, "-c", CHILD, case, str(spec["steps"]), str(threads), json.dumps(spec["settings"]), str(REPO / "inputs/genga/initialplanet_2048.dat")],
        check=True, capture_output=True, text=True,
    )
    return json.loads(done.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=str(REPO / "target/release/orrery"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as out:
        for case in CASES:
            rows = {"cli": [], "python": []}
            for _ in range(args.repeats):  # alternating, so both see the same machine
                rows["cli"].append(cli(args.binary, case, args.threads, out))
                rows["python"].append(module(case, args.threads))
            for side, runs in rows.items():
                times = [r["per_step"] for r in runs]
                print(
                    f"{case:9s} {side:7s} s/step median {statistics.median(times):.4e} "
                    f"(min {min(times):.4e}, max {max(times):.4e}), peak RSS {max(r['rss_mib'] for r in runs):.0f} MiB"
                )


if __name__ == "__main__":
    main()
