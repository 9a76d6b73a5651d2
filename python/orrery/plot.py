"""Figures of orbits and of orbital elements, as REBOUND's ``OrbitPlot`` draws them.

``orbits(sim)`` draws every body's osculating orbit about the central body, with the body where
it is now, in a top view (x-y) and a side view (x-z); ``ae(...)`` plots eccentricity against
semi-major axis for the bodies of a simulation or of every system of an ensemble. Both take a
:class:`~orrery.Simulation` or one system of an :class:`~orrery.Ensemble` (``ens[k]``), work in
its length unit, and return a matplotlib ``Figure``; matplotlib is imported when they are
called, so ``import orrery`` does not need it.
"""

import math
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ._orrery import InputError
from ._units import LENGTHS, _scaled_unit

__all__ = ["orbits", "ae", "orbit_curves"]

#: The panels ``orbits`` can draw: the two position components each shows.
VIEWS = {"xy": (0, 1), "xz": (0, 2), "yz": (1, 2)}


def _bodies(system: Any) -> Tuple[np.ndarray, float, Any, Dict[int, str]]:
    """The native body table (code units: AU, Msun, G = 1), the central mass (Msun), the units
    and the names by index of a Simulation or an ensemble's system."""
    ensemble = getattr(system, "_ensemble", None)
    if ensemble is not None:
        k = ensemble._system(system.index)
        rows = np.asarray(ensemble._native.state(k))
        settings = ensemble._settings[k]
        first = ensemble._first
        return rows, float(settings.get("central_mass", 1.0)), first._units, {}
    if not hasattr(system, "_started"):
        raise InputError(
            f"field `sim`: got {type(system).__name__}; expected an orrery.Simulation or an "
            "ensemble's system (ens[k])"
        )
    # The state shown now (at an exact finish time, that one).
    rows = np.asarray(system._native_table())
    names = {i: name for name, i in system._names.items()}
    return rows, float(system._settings.get("central_mass", 1.0)), system._units, names


def _conic(mu: float, r: np.ndarray, v: np.ndarray, samples: int) -> np.ndarray:
    """``samples`` points of the osculating orbit of position ``r`` and velocity ``v`` about
    ``mu`` (G = 1): ``r(f) = p / (1 + e cos f)`` in the orbit's plane, ``p = h^2 / mu``, ``f``
    from the pericentre; the whole ellipse of a bound orbit, the part of an unbound one within
    95 % of its asymptotes' true anomaly."""
    h = np.cross(r, v)
    h2 = float(h @ h)
    dist = float(np.linalg.norm(r))
    e_vec = np.cross(v, h) / mu - r / dist
    e = float(np.linalg.norm(e_vec))
    # The pericentre's direction, or the body's own for a circular orbit.
    p_hat = e_vec / e if e > 1e-12 else r / dist
    q_hat = np.cross(h / math.sqrt(h2), p_hat)
    if e < 1.0:
        f = np.linspace(-math.pi, math.pi, samples)
    else:
        limit = 0.95 * math.acos(-1.0 / e)
        f = np.linspace(-limit, limit, samples)
    radius = (h2 / mu) / (1.0 + e * np.cos(f))
    return radius[:, None] * (np.cos(f)[:, None] * p_hat + np.sin(f)[:, None] * q_hat)


def orbit_curves(system: Any, samples: int = 256) -> List[Dict[str, Any]]:
    """Every body's osculating orbit now, in the system's length unit: per body a dict with
    ``i`` (its index), ``name`` (or None), ``position`` (3,) and ``orbit`` (samples, 3), the
    heliocentric points ``orbits`` draws."""
    if not (isinstance(samples, int) and samples >= 8):
        raise InputError(f"field `samples`: got {samples!r}; expected an integer of at least 8")
    rows, m0, units, names = _bodies(system)
    out = []
    for row in rows:
        r, v = np.array(row[3:6], float), np.array(row[6:9], float)
        orbit = _conic(m0 + float(row[1]), r, v, samples)
        out.append(
            {
                "i": int(row[0]),
                "name": names.get(int(row[0])),
                "position": r / units.length,
                "orbit": orbit / units.length,
            }
        )
    return out


def orbits(
    system: Any,
    *,
    views: Sequence[str] = ("xy", "xz"),
    samples: int = 256,
    names: bool = True,
    figsize: Optional[Tuple[float, float]] = None,
) -> Any:
    """A figure of every body's osculating orbit about the central body (at the origin) with the
    body where it is now, one panel per view (``"xy"`` top, ``"xz"`` and ``"yz"`` side), equal
    axes in the system's length unit; named bodies are labelled when ``names``. Returns the
    matplotlib ``Figure``."""
    import matplotlib.pyplot as plt

    unknown = [v for v in views if v not in VIEWS]
    if unknown or not views:
        raise InputError(f"field `views`: got {list(views)!r}; expected some of {sorted(VIEWS)}")
    curves = orbit_curves(system, samples)
    unit = _length_name(system)
    width = 4.5 * len(views)
    fig, axes = plt.subplots(1, len(views), figsize=figsize or (width, 4.5), squeeze=False)
    for ax, view in zip(axes[0], views):
        a, b = VIEWS[view]
        for k, body in enumerate(curves):
            colour = f"C{k % 10}"
            ax.plot(body["orbit"][:, a], body["orbit"][:, b], "-", color=colour, lw=1.0)
            ax.plot([body["position"][a]], [body["position"][b]], "o", color=colour, ms=4)
            if names and body["name"]:
                ax.annotate(body["name"], (body["position"][a], body["position"][b]), fontsize=8,
                            xytext=(3, 3), textcoords="offset points")
        ax.plot([0.0], [0.0], "*", color="orange", ms=10)
        ax.set_aspect("equal", adjustable="datalim")
        ax.set_xlabel(f"{'xyz'[a]} [{unit}]")
        ax.set_ylabel(f"{'xyz'[b]} [{unit}]")
    fig.tight_layout()
    return fig


def ae(systems: Any, *, ax: Any = None, log_a: bool = False) -> Any:
    """Eccentricity against semi-major axis of the bound bodies of a Simulation, of an
    ensemble's system, or of every system of an Ensemble (stopped systems in grey, the others
    coloured by system). Returns the matplotlib ``Figure``."""
    import matplotlib.pyplot as plt

    members = list(systems) if hasattr(systems, "__iter__") else [systems]
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.0, 4.5))
    else:
        fig = ax.figure
    for k, system in enumerate(members):
        el = system.elements()
        bound = (el["a"] > 0) & (el["e"] < 1.0)
        stopped = bool(getattr(system, "stopped", None))
        colour = "0.6" if stopped else f"C{k % 10}"
        ax.plot(el["a"][bound], el["e"][bound], "o", color=colour, ms=3)
    if log_a:
        ax.set_xscale("log")
    ax.set_xlabel(f"a [{_length_name(members[0])}]")
    ax.set_ylabel("e")
    return fig


def _length_name(system: Any) -> str:
    """The system's length unit's name."""
    _, _, units, _ = _bodies(system)
    for name in units.names:
        if _scaled_unit(name)[1] in LENGTHS:
            return str(name)
    return "au"
