#!/usr/bin/env python3
"""Write inputs/yarkovsky/family.dat: the asteroids of inputs/yarkovsky_family.ron.

A young asteroid family: 200 fragments of 50 m to 2 km (log-uniform radii) spread from one
parent at a = 2.5 AU, e = 0.1, i = 5 deg by 20 m/s isotropic kicks, spinning with periods of
2-20 hours about random axes (isotropic: half prograde, half retrograde, so the diurnal
Yarkovsky drift spreads the family in semi-major axis). Columns `<< x y z m r vx vy vz Sx Sy
Sz >>`: heliocentric, AU and AU per code time unit (1/k days); m = 0 (test particles whose
mass for the Yarkovsky effect is that of a sphere at `Asteroid density rho`, 2500 kg/m^3 in the
scenario); spin angular momentum S = (2/5) m R^2 omega in Msun AU^2 per code time unit.
Deterministic (seeded).

    python3 scripts/make_yarkovsky_family.py
"""
import math
import os
import random

from generators import AU_M, K, isotropic, kepler_state

MSUN_KG = 1.98892e30  # GENGA's solar mass
RHO = 2500.0  # kg/m^3, the scenario's asteroid density
N = 200
random.seed(2026)


pos, vel = kepler_state(2.5, 0.1, math.radians(5.0), math.radians(80.0), math.radians(30.0), 1.0)
speed = 20.0 / AU_M * 86400.0 / K
lines = []
for i in range(N):
    r_m = 10 ** random.uniform(math.log10(50.0), math.log10(2000.0))
    r_au = r_m / AU_M
    mass = 4.0 / 3.0 * math.pi * r_m**3 * RHO / MSUN_KG
    period_h = 10 ** random.uniform(math.log10(2.0), math.log10(20.0))
    omega = 2.0 * math.pi / (period_h * 3600.0) * 86400.0 / K  # rad per code time unit
    s = [0.4 * mass * r_au * r_au * omega * c for c in isotropic()]
    d = isotropic()
    t = random.uniform(0.1, 1.0) * K
    x = [pos[c] + speed * d[c] * t for c in range(3)]
    v = [vel[c] + speed * d[c] for c in range(3)]
    lines.append("%.16e %.16e %.16e 0 %.10e %.16e %.16e %.16e %.10e %.10e %.10e"
                 % (*x, r_au, *v, *s))
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "inputs", "yarkovsky",
                   "family.dat")
with open(out, "w") as f:
    f.write("\n".join(lines) + "\n")
print("wrote", N, "fragments to", os.path.normpath(out))
