#!/usr/bin/env python3
"""Write inputs/dust/grains.dat: the grains of inputs/dust_ejecta.ron.

Dust released by a parent body on an asteroid-belt orbit (a = 2.5 AU, e = 0.1, i = 3 deg) at
its perihelion, with 20 m/s isotropic ejection speeds (placed where up to a day of flight takes
them); grain radii log-uniform between 0.58 and
5.8 micrometres at 2 g/cm^3, which with Qpr = 1 and the solar constant 1367 W/m^2 gives
beta = 0.05 ... 0.5 (Burns, Lamy & Soter 1979: beta = 0.576 Qpr / (rho s[um])). Columns
`<< x y z m r vx vy vz >>` (heliocentric, AU, AU per code time unit of 1/k days; m = 0: test
particles whose radiation mass is that of `default_rho`). Deterministic (seeded).

    python3 scripts/make_dust_ejecta.py
"""
import math
import os
import random

from generators import AU_M, K, isotropic, kepler_state

N = 300
random.seed(26)
pos, vel = kepler_state(2.5, 0.1, math.radians(3.0), math.radians(40.0), math.radians(70.0), 0.0)
speed = 20.0 / AU_M * 86400.0 / K  # 20 m/s in AU per code time unit
lines = []
for i in range(N):
    beta = 10 ** random.uniform(math.log10(0.05), math.log10(0.5))
    s_um = 0.576 / (2.0 * beta)
    r_au = s_um * 1e-6 / AU_M
    d = isotropic()
    v = [vel[c] + speed * d[c] for c in range(3)]
    # Where a grain is after up to a day of flight (1700 km at 20 m/s).
    t = random.uniform(0.1, 1.0) * K
    x = [pos[c] + speed * d[c] * t for c in range(3)]
    lines.append("%.16e %.16e %.16e 0 %.10e %.16e %.16e %.16e" % (*x, r_au, *v))
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "inputs", "dust", "grains.dat")
with open(out, "w") as f:
    f.write("\n".join(lines) + "\n")
print("wrote", N, "grains to", os.path.normpath(out))
