"""Shared helpers of the input generators (scripts/make_*.py): GENGA units and Kepler states."""
import math
import random

K = 0.01720209895  # Gaussian gravitational constant (code time unit: 1/K days)
AU_M = 1.495978707e11  # astronomical unit in metres


def kepler_state(a, e, inc, node, peri, mean, mu=1.0):
    """Heliocentric position and velocity (AU, AU per code time unit) of an elliptic orbit."""
    E = mean
    for _ in range(50):
        E -= (E - e * math.sin(E) - mean) / (1 - e * math.cos(E))
    x, y = a * (math.cos(E) - e), a * math.sqrt(1 - e * e) * math.sin(E)
    n = math.sqrt(mu / a**3)
    vx = -a * n * math.sin(E) / (1 - e * math.cos(E))
    vy = a * n * math.sqrt(1 - e * e) * math.cos(E) / (1 - e * math.cos(E))
    cw, sw, ci, si, cn, sn = (math.cos(peri), math.sin(peri), math.cos(inc), math.sin(inc),
                              math.cos(node), math.sin(node))

    def rot(px, py):
        x1, y1 = cw * px - sw * py, sw * px + cw * py
        return [cn * x1 - sn * ci * y1, sn * x1 + cn * ci * y1, si * y1]

    return rot(x, y), rot(vx, vy)


def isotropic():
    """A random unit vector (isotropic)."""
    u, w = random.uniform(-1.0, 1.0), random.uniform(0.0, 2.0 * math.pi)
    return [math.sqrt(1 - u * u) * math.cos(w), math.sqrt(1 - u * u) * math.sin(w), u]
