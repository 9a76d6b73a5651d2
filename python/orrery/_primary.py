"""The primary that an added body's orbital elements refer to (``add(..., primary=...)``).

Orrery's default is the central body (heliocentric elements, ``mu = G (M0 + m)``). REBOUND's
``add()`` defaults to Jacobi elements instead: each body about the centre of mass of the central
body and every body added before it, with ``mu = G (M + m)`` for their total mass M.
``primary="jacobi"`` does the same, and ``primary=`` a body (its index or name) places the new
body about that one, ``mu = G (m_primary + m)``, as REBOUND's ``primary=particle``. The states
are heliocentric either way (the central body at rest at the origin), in Orrery's units.
"""

from typing import Any, List, Tuple

import numpy as np

from . import _orrery
from ._orrery import InputError

#: The names of the central body as a primary.
CENTRAL = (None, "central", "heliocentric")


def _bodies_now(sim: Any) -> np.ndarray:
    """The bodies the simulation holds, as the native (N, 12) table (Orrery's units)."""
    if sim._native is None and not sim._sources:
        return np.zeros((0, 12))
    return sim._native_table()


def gravitational_parameters(sim: Any, primary: Any, mass: np.ndarray) -> np.ndarray:
    """``G (M_primary + m)`` of each new body of masses ``mass`` (Orrery's units): for Jacobi
    elements the primary's mass grows by each body before it, those of the same call too."""
    m0 = float(sim._settings.get("central_mass", 1.0))
    if primary in CENTRAL:
        return m0 + mass
    if isinstance(primary, str) and primary.lower() == "jacobi":
        before = m0 + float(np.sum(_bodies_now(sim)[:, 1]))
        return before + np.concatenate([[0.0], np.cumsum(mass)[:-1]]) + mass
    return _body(sim, primary)[1] + mass


def a_from_period(period: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """The semi-major axes of orbital periods ``period`` about primaries of ``mu`` (Orrery's
    units, G = 1): Kepler's third law."""
    if not np.all(period > 0):
        raise InputError(f"field `P`: {period!r} (code units); expected periods > 0")
    return np.cbrt(mu * (period / (2.0 * np.pi)) ** 2)


def _body(sim: Any, primary: Any) -> np.ndarray:
    """The native row of the body ``primary`` names (an index or a name)."""
    if isinstance(primary, (bool, np.bool_)) or not isinstance(primary, (int, np.integer, str)):
        raise InputError(
            f"field `primary`: {primary!r}; expected \"central\" (the default), \"jacobi\", or a "
            "body's index or name"
        )
    particle = sim.particles[primary]
    return particle._native_row()


def place(sim: Any, primary: Any, mass: np.ndarray, mu: np.ndarray, elements: List[np.ndarray]) -> Tuple[np.ndarray, np.ndarray]:
    """Heliocentric positions and velocities (Orrery's units) of new bodies of masses ``mass``
    with orbital ``elements`` (the columns ``a e inc node peri M``, Orrery's units) about their
    primaries, whose ``mu`` :func:`gravitational_parameters` gave."""
    pos, vel = _orrery.cartesian_from_elements(mu, *elements)
    pos, vel = np.asarray(pos, float), np.asarray(vel, float)
    if primary in CENTRAL:
        return pos, vel
    if isinstance(primary, str) and primary.lower() == "jacobi":
        table = _bodies_now(sim)
        total = float(sim._settings.get("central_mass", 1.0)) + float(np.sum(table[:, 1]))
        moment = (table[:, 1:2] * table[:, 3:6]).sum(axis=0)
        momentum = (table[:, 1:2] * table[:, 6:9]).sum(axis=0)
        for k in range(len(mass)):
            # About the centre of mass of the central body (at rest at the origin) and every
            # body before this one.
            pos[k] += moment / total
            vel[k] += momentum / total
            total += mass[k]
            moment = moment + mass[k] * pos[k]
            momentum = momentum + mass[k] * vel[k]
        return pos, vel
    row = _body(sim, primary)
    return pos + row[3:6], vel + row[6:9]
