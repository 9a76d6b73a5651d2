"""A stability ensemble from Python: Jupiter and Saturn on their J2000 orbits plus one
hypothetical planet between them, many times over: every system in one orrery.Ensemble stepped
in-process (each until its first collision or ejection, or the end), then analysed with numpy
and plotted with matplotlib.

    python examples/stability_ensemble.py [--systems 64] [--years 2000] [--out ensemble.png]

The gap between the giants (6-8.5 AU) is unstable: within a few thousand years most
hypothetical planets are scattered onto eccentric orbits that cross a giant's, a few collide or
are ejected, and only some near the middle of the gap keep their orbits.
"""

import argparse
import math

import numpy as np

import orrery

JUPITER = dict(m=9.547919e-4, a=5.20288700, e=0.04838624, inc=1.30439695, node=100.47390909, peri=274.25457074, M=19.66796068)
SATURN = dict(m=2.858860e-4, a=9.53667594, e=0.05386179, inc=2.48599187, node=113.66242448, peri=338.93645383, M=317.35536592)
ANGLES = ("inc", "node", "peri", "M")


def radians(body):
    return {k: math.radians(v) if k in ANGLES else v for k, v in body.items()}


def system(x, threads):
    """The giants and planet `x` (a dictionary of elements), stopped at the first collision or
    ejection."""
    sim = orrery.Simulation(
        time_step_days=20.0,
        units=("au", "yr", "msun"),  # times in and out in years
        minimum_bodies=3,  # stop at the first collision or ejection
        inner_truncation=0.5,
        outer_truncation=100.0,
        default_rho=1.3,
        threads=threads,
    )
    for body in (JUPITER, SATURN, x):
        sim.add(**radians(body))
    return sim


def fate(ens, k, x, years):
    """How system `k` (planet `x`) ended: the time it lasted, its fate, and the planet's final
    a and e."""
    if ens.stopped(k):
        events = [(t, "collision") for t in ens.collisions(k)["t"]] + [(t, "ejection") for t in ens.ejections(k)["t"]]
        return min(events) + (math.nan, math.nan)
    el = ens.elements(k)
    a, e = el["a"][el["i"] == 2][0], el["e"][el["i"] == 2][0]
    # Scattered: the planet's semi-major axis moved by more than 10 %.
    return years, "scattered" if abs(a - x["a"]) > 0.1 * x["a"] else "kept", a, e


def ensemble(systems, years, seed=1000, threads=1):
    """Draw `systems` hypothetical planets and integrate them as one ensemble; returns a
    structured array."""
    rng = np.random.default_rng(seed)
    rows = np.zeros(
        systems,
        dtype=[("a", "f8"), ("m", "f8"), ("e", "f8"), ("t_end", "f8"), ("fate", "U9"), ("a_end", "f8"), ("e_end", "f8")],
    )
    planets = []
    for _ in range(systems):
        planets.append(dict(m=rng.uniform(3e-6, 3e-5), a=rng.uniform(6.0, 8.5), e=rng.uniform(0.0, 0.1),
                            inc=rng.uniform(0.0, 2.0), node=rng.uniform(0, 360), peri=rng.uniform(0, 360), M=rng.uniform(0, 360)))
    ens = orrery.Ensemble([system(x, threads) for x in planets])
    ens.integrate(time=years)
    for k, x in enumerate(planets):
        rows[k] = (x["a"], x["m"], x["e"], *fate(ens, k, x, years))
    return rows


def plot(rows, years, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), constrained_layout=True)
    colors = {"kept": "tab:green", "scattered": "tab:blue", "collision": "tab:orange", "ejection": "tab:red"}
    for fate, color in colors.items():
        pick = rows["fate"] == fate
        size = 12 + 4e5 * rows["m"][pick]
        left.scatter(rows["a"][pick], rows["a_end"][pick], s=size, c=color, label=f"{fate} ({pick.sum()})")
        right.scatter(rows["a"][pick], rows["e_end"][pick], s=size, c=color)
    for ax in (left, right):
        ax.set_xlabel("initial semi-major axis of the planet (AU)")
    left.plot([6.0, 8.5], [6.0, 8.5], "k:", lw=1)
    left.set_ylabel(f"semi-major axis after {years:g} yr (AU)")
    right.set_ylabel(f"eccentricity after {years:g} yr")
    left.legend(loc="upper left", title="marker area ~ mass")
    fig.suptitle(f"{len(rows)} systems: Jupiter, Saturn and one planet between them (Orrery)")
    fig.savefig(path, dpi=120)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--systems", type=int, default=64)
    ap.add_argument("--years", type=float, default=2000.0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", default="stability_ensemble.png")
    args = ap.parse_args()
    rows = ensemble(args.systems, args.years, threads=args.threads)
    for fate in ("kept", "scattered", "collision", "ejection"):
        pick = rows["fate"] == fate
        extra = f", first events at {np.median(rows['t_end'][pick]):.0f} yr (median)" if fate in ("collision", "ejection") and pick.any() else ""
        print(f"{fate}: {pick.sum()} of {len(rows)}{extra}")
    kept = rows["fate"] == "kept"
    if kept.any():
        print(f"kept orbits start at a = {rows['a'][kept].min():.2f}..{rows['a'][kept].max():.2f} AU")
    plot(rows, args.years, args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
