#!/usr/bin/env python3
"""MEGNO's cost and values beside REBOUND's WHFast with first-order variations (issue 46).

- `cost`: REBOUND's WHFast (Jacobi) on one Sun + Earth-like + Jupiter + Saturn system, dt 5 d,
  ns per step without variations (safe mode off and on) and with `init_megno` (which needs safe
  mode): the ratio the issue's 2x bar refers to. Orrery's own ratio is the criterion pair
  `wh_ensemble_ejs10k/packs_of_64` and `packs_of_64_megno` (`cargo bench --bench wisdom_holman`).
- `map`: REBOUND's time for one Sun + Jupiter + Saturn system with `init_megno` over 1000
  Jupiter orbits (dt 60 d, 72,210 steps), times 10^4: the one-core time of a 10^4-system MEGNO
  map, to set beside `orrery run` of `inputs/megno_ensemble.ron` with 10^4 systems for 11,862
  years (see RESULTS.md, section 11).

Run with the module's venv: `target/python-venv/bin/python scripts/peers/rebound_megno.py`.
"""
import time

import numpy as np
import rebound

K = 0.01720209895  # Gaussian constant: Orrery's code time unit is 1/K days (G = 1)


def ejs(megno, safe_mode):
    """Sun, an Earth-like planet, Jupiter and Saturn on WHFast (Jacobi), G = 1, dt 5 days."""
    s = rebound.Simulation()
    s.G = 1.0
    s.add(m=1.0)
    s.add(m=3.0e-6, a=1.0, e=0.017)
    s.add(m=9.5e-4, a=5.2, e=0.048, inc=0.02)
    s.add(m=2.86e-4, a=9.54, e=0.054, inc=0.04)
    s.move_to_com()
    s.integrator = "whfast"
    s.integrator.coordinates = "jacobi"
    s.integrator.safe_mode = safe_mode
    s.dt = 5.0 * K
    if megno:
        s.init_megno(seed=1)
    return s


def per_step(make, steps=200000, repeats=3):
    """The best of `repeats` timings of `steps` steps, seconds per step."""
    best = float("inf")
    for _ in range(repeats):
        s = make()
        t0 = time.perf_counter()
        s.steps(steps)
        best = min(best, (time.perf_counter() - t0) / steps)
    return best


def cost():
    fast = per_step(lambda: ejs(False, 0))
    safe = per_step(lambda: ejs(False, 1))
    megno = per_step(lambda: ejs(True, 1))
    print(f"cost: WHFast {fast * 1e9:.0f} ns/step (safe mode off), {safe * 1e9:.0f} (on), "
          f"with MEGNO {megno * 1e9:.0f}: {megno / safe:.2f}x the safe step, {megno / fast:.2f}x the fast one")


def megno_map(systems=6):
    rng = np.random.default_rng(3)
    times = []
    for k in range(systems):
        s = rebound.Simulation()
        s.G = 1.0
        s.add(m=1.0)
        s.add(m=9.547919e-4, a=5.2029, e=0.0484, inc=0.0228)
        s.add(m=2.8588e-4, a=rng.uniform(8.5, 9.6), e=rng.uniform(0.0, 0.1), inc=0.004)
        s.move_to_com()
        s.integrator = "whfast"
        s.integrator.coordinates = "jacobi"
        s.dt = 60.0 * K
        s.init_megno(seed=k)
        t0 = time.perf_counter()
        s.steps(72210)
        times.append(time.perf_counter() - t0)
    per = float(np.median(times))
    print(f"map: {per:.3f} s per system over 1000 Jupiter orbits -> 10^4 systems {per * 1e4:.0f} s on one core")


if __name__ == "__main__":
    print(f"rebound {rebound.__version__}")
    cost()
    megno_map()
