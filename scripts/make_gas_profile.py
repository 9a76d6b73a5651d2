#!/usr/bin/env python3
"""Write a tabulated gas disk (GENGA's `Gas file name` format, rows `time r Sigma h`) for
inputs/gas_disk/photoevaporating.txt: GENGA's default disk (Sigma = 2000 g/cm^2 (r/AU)^-1,
h = H/r = 0.03358 (r/AU)^0.25) dissipating with an e-folding time of 10^4 years, and cleared from
the inside out by photoevaporation: no gas inside a hole whose edge moves from 0.25 AU at t = 0
to 5 AU at 2 x 10^4 years (a smooth edge one scale height wide). GENGA's grid: 100 radii uniform
in ln r from 0.25 to 1000 AU; blocks every 1000 years to 2 x 10^4 years.

Usage: python3 scripts/make_gas_profile.py > inputs/gas_disk/photoevaporating.txt
"""
import math

RADII = [0.25 * 4000.0 ** (i / 99) for i in range(100)]
print("# time [yr]  r [AU]  Sigma [g/cm^2]  h = H/r   (scripts/make_gas_profile.py)")
for k in range(21):
    t = 1000.0 * k
    hole = 0.25 + (5.0 - 0.25) * t / 2.0e4
    for r in RADII:
        h = 0.03358 * r ** 0.25
        edge = 0.5 * (1.0 + math.tanh((r - hole) / (h * r)))
        sigma = 2000.0 / r * math.exp(-t / 1.0e4) * edge
        print(f"{t:.1f} {r:.10g} {sigma:.6e} {h:.6e}")
