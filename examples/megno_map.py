"""REBOUND's MEGNO stability map (its `python_examples/megno`): Jupiter fixed, Saturn's
semi-major axis (7-10 AU) and eccentricity (0-0.5) on a grid, 1000 years on the Wisdom-Holman
map in Jacobi coordinates with a step of 1/(2 pi) year, MEGNO from first-order variational
equations. Computed with Orrery (every grid point one system of one orrery.Ensemble, in
process) and with REBOUND's WHFast and `init_megno` on the same grid, drawn side by side with
their difference, and compared class by class: MEGNO < 2.5 regular, > 4 chaotic, undecided in
between.

    python examples/megno_map.py [--grid 20] [--out megno_map.png] [--no-rebound]

Prints the time each code took and how many grid points fall in the same class.
"""

import argparse
import math
import time

import numpy as np

import orrery

# REBOUND's example: G = 1, AU, Msun, time unit yr / (2 pi) (Orrery's code unit, 1/k days, to
# 2e-5), step 1, 1000 years.
JUPITER = dict(m=0.000954, a=5.204, M=0.600, peri=0.257, e=0.048)
SATURN = dict(m=0.000285, M=0.871, peri=1.616)
YEARS = 1000.0
STEP_DAYS = 1.0 / orrery.K_GAUSS


def grid(n):
    """Saturn's (a, e) at every point, a fastest: orrery.grid lays the points out as REBOUND's
    example does (``[(a, e) for e in np.linspace(...) for a in np.linspace(...)]``)."""
    return [(p["a"], p["e"]) for p in orrery.grid(a=(7.0, 10.0, n), e=(0.0, 0.5, n))]


def orrery_map(points, seed=0):
    """MEGNO of every point from one Ensemble (system k's tangent vector from seed + k)."""
    systems = []
    for a, e in points:
        sim = orrery.Simulation(time_step_days=STEP_DAYS, integrator="wh", chaos={"megno": True, "seed": seed})
        sim.add(**JUPITER)
        sim.add(a=a, e=e, **SATURN)
        systems.append(sim)
    ens = orrery.Ensemble(systems)
    ens.integrate(steps=round(YEARS * 365.25 / STEP_DAYS))
    return ens.megno()


def rebound_map(points):
    """MEGNO of every point with REBOUND's WHFast and init_megno, as its example does."""
    import rebound

    out = []
    for k, (a, e) in enumerate(points):
        sim = rebound.Simulation()
        sim.integrator = "whfast"
        sim.dt = 1.0
        sim.add(m=1.0)
        sim.add(primary=sim.particles[0], m=JUPITER["m"], a=JUPITER["a"], M=JUPITER["M"], omega=JUPITER["peri"], e=JUPITER["e"])
        sim.add(primary=sim.particles[0], m=SATURN["m"], a=a, M=SATURN["M"], omega=SATURN["peri"], e=e)
        sim.move_to_com()
        sim.init_megno(seed=k)  # seeded, so that the comparison is the same every run
        sim.integrate(YEARS * 2.0 * math.pi, exact_finish_time=0)
        out.append(sim.megno())
    return np.array(out)


def classes(megno):
    """0 regular (< 2.5), 2 chaotic (> 4), 1 undecided; NaN (a system the map lost) chaotic."""
    m = np.nan_to_num(megno, nan=np.inf)
    return np.where(m < 2.5, 0, np.where(m > 4.0, 2, 1))


def draw(n, maps, out):
    import matplotlib.pyplot as plt

    extent = [7.0, 10.0, 0.0, 0.5]
    panels = [(name, np.clip(m.reshape(n, n), 1.0, 8.0)) for name, m in maps.items()]
    if len(maps) == 2:
        ours, theirs = maps.values()
        diff = np.clip(ours, 1.0, 8.0) - np.clip(theirs, 1.0, 8.0)
        panels.append(("Orrery - REBOUND", diff.reshape(n, n)))
    fig, axes = plt.subplots(1, len(panels), figsize=(5.0 * len(panels), 4.2), squeeze=False)
    for ax, (name, values) in zip(axes[0], panels):
        diverging = name.startswith("Orrery -")
        im = ax.imshow(values, origin="lower", aspect="auto", extent=extent,
                       cmap="RdBu_r" if diverging else "RdYlGn_r",
                       vmin=-3.0 if diverging else 1.0, vmax=3.0 if diverging else 8.0)
        ax.set_xlabel("Saturn's semi-major axis a [AU]")
        ax.set_ylabel("Saturn's eccentricity e")
        ax.set_title(name)
        fig.colorbar(im, ax=ax, label="MEGNO difference" if diverging else "MEGNO <Y> (clipped to 1-8)")
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", type=int, default=20, help="points per axis (default 20)")
    parser.add_argument("--out", default="megno_map.png", help="the figure (PNG)")
    parser.add_argument("--no-rebound", action="store_true", help="Orrery's map alone")
    args = parser.parse_args()
    points = grid(args.grid)
    t0 = time.perf_counter()
    maps = {"Orrery": orrery_map(points)}
    print(f"Orrery: {len(points)} systems in {time.perf_counter() - t0:.2f} s")
    if not args.no_rebound:
        t0 = time.perf_counter()
        maps["REBOUND WHFast"] = rebound_map(points)
        print(f"REBOUND: {len(points)} systems in {time.perf_counter() - t0:.2f} s")
        same = int(np.sum(classes(maps["Orrery"]) == classes(maps["REBOUND WHFast"])))
        print(f"same class: {same} of {len(points)} ({100.0 * same / len(points):.1f} %)")
    counts = np.bincount(classes(maps["Orrery"]), minlength=3)
    print(f"Orrery: {counts[0]} regular, {counts[1]} undecided, {counts[2]} chaotic")
    draw(args.grid, maps, args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
