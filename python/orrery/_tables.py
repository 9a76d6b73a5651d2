"""Body and event tables as numpy structured arrays, in the user's units, and the warning a
removal raises: what a Simulation and an Ensemble both give back."""

from __future__ import annotations

import warnings
from typing import Any, Dict, Mapping, Optional

import numpy as np

from . import _orrery
from ._common import _rows
from ._units import _Units


#: One body as a row of a structured array: index, mass, radius, heliocentric position,
#: velocity and spin (the columns of a snapshot).
BODY_DTYPE = np.dtype(
    [
        ("i", "i8"),
        ("m", "f8"),
        ("r", "f8"),
        ("x", "f8"),
        ("y", "f8"),
        ("z", "f8"),
        ("vx", "f8"),
        ("vy", "f8"),
        ("vz", "f8"),
        ("sx", "f8"),
        ("sy", "f8"),
        ("sz", "f8"),
    ]
)
COLLISION_DTYPE = np.dtype([("t", "f8"), ("bodies", BODY_DTYPE, (2,))])
EJECTION_DTYPE = np.dtype([("t", "f8"), ("body", BODY_DTYPE), ("case", "i4")])
#: Orbital elements as a row of a structured array: index, semi-major axis, eccentricity,
#: inclination, longitude of the node, argument of pericentre, mean anomaly, and from them the
#: period ``P`` (NaN when unbound), the true anomaly ``f`` and the mean longitude
#: ``l = node + peri + M``.
ELEMENTS_DTYPE = np.dtype(
    [("i", "i8"), ("a", "f8"), ("e", "f8"), ("inc", "f8"), ("node", "f8"), ("peri", "f8"), ("M", "f8"),
     ("P", "f8"), ("f", "f8"), ("l", "f8")]
)


def _true_anomalies(mean: np.ndarray, e: np.ndarray) -> np.ndarray:
    """The true anomalies of mean anomalies ``mean`` and eccentricities ``e``: Kepler's equation
    by Newton's method (elliptic, from ``E = M + 0.85 e sign(sin M)``; hyperbolic, its hyperbolic
    form from ``asinh(M / e)``), Barker's equation ``M = D + D^3 / 3``, ``D = tan(f / 2)``
    (parabolic). Each element is iterated until its step is below 1e-15 (of ``H`` when
    hyperbolic)."""
    mean, e = np.broadcast_arrays(np.asarray(mean, float), np.asarray(e, float))
    f = np.full(mean.shape, np.nan)
    with np.errstate(all="ignore"):
        ell = e < 1.0
        big = mean[ell] + 0.85 * e[ell] * np.copysign(1.0, np.sin(mean[ell]))
        ee, done = e[ell], np.zeros(big.shape, bool)
        for _ in range(50):
            step = np.where(done, 0.0, (big - ee * np.sin(big) - mean[ell]) / (1.0 - ee * np.cos(big)))
            big = big - step
            done |= np.abs(step) < 1e-15
            if np.all(done):
                break
        f[ell] = 2.0 * np.arctan2(np.sqrt(1.0 + ee) * np.sin(big / 2.0), np.sqrt(1.0 - ee) * np.cos(big / 2.0))
        hyp = e > 1.0
        eh, mh = e[hyp], mean[hyp]
        h, done = np.arcsinh(mh / eh), np.zeros(mh.shape, bool)
        for _ in range(100):
            step = np.where(done, 0.0, (eh * np.sinh(h) - h - mh) / (eh * np.cosh(h) - 1.0))
            h = h - step
            done |= np.abs(step) < 1e-15 * np.maximum(1.0, np.abs(h))
            if np.all(done):
                break
        f[hyp] = 2.0 * np.arctan2(np.sqrt(eh + 1.0) * np.sinh(h / 2.0), np.sqrt(eh - 1.0) * np.cosh(h / 2.0))
        par = e == 1.0
        f[par] = 2.0 * np.arctan(2.0 * np.sinh(np.arcsinh(1.5 * mean[par]) / 3.0))
    return f


def _elements(table: np.ndarray, settings: Dict[str, Any], units: Any) -> np.ndarray:
    """Orbital elements (:data:`ELEMENTS_DTYPE`) of a native (N, 12) body table about the
    central mass of `settings` (``mu = G (M0 + m)``), ``a`` in the user's length unit and ``P``
    in its time unit."""
    mu = settings.get("central_mass", 1.0) + table[:, 1]
    el = _orrery.elements_from_cartesian(mu, np.ascontiguousarray(table[:, 3:6]), np.ascontiguousarray(table[:, 6:9]))
    out = np.zeros(len(table), dtype=ELEMENTS_DTYPE)
    out["i"] = table[:, 0]
    for k, name in enumerate(("a", "e", "inc", "node", "peri", "M")):
        out[name] = el[:, k]
    a = el[:, 0]
    with np.errstate(invalid="ignore"):
        out["P"] = np.where(a > 0.0, 2.0 * np.pi * np.sqrt(np.abs(a) ** 3 / mu), np.nan) / units.time
    out["f"] = _true_anomalies(el[:, 5], el[:, 1])
    out["l"] = el[:, 3] + el[:, 4] + el[:, 5]
    out["a"] /= units.length
    return out


def _stop_dict(record: Optional[Dict[str, Any]], units: Any) -> Optional[Dict[str, Any]]:
    """A native stop record in the simulation's units (see :meth:`Simulation.stop`)."""
    if record is None:
        return None
    distance = record["distance"]
    return {
        "reason": record["reason"],
        "time": units.from_years(record["years"]),
        "step": record["step"],
        "pair": tuple(record["bodies"]),
        "distance": None if distance is None else distance / units.length,
    }


def _collision_rows(table: np.ndarray, to_user: Any, units: _Units) -> np.ndarray:
    """The native (K, 25) collision table as :data:`COLLISION_DTYPE` in the user's units."""
    out = np.zeros(len(table), dtype=COLLISION_DTYPE)
    out["t"] = units.from_years(table[:, 0])
    for b in range(2):
        out["bodies"][:, b] = to_user(_rows(table[:, 1 + 12 * b : 13 + 12 * b], BODY_DTYPE))
    return out


def _ejection_rows(table: np.ndarray, to_user: Any, units: _Units) -> np.ndarray:
    """The native (J, 14) ejection table as :data:`EJECTION_DTYPE` in the user's units."""
    out = np.zeros(len(table), dtype=EJECTION_DTYPE)
    out["t"] = units.from_years(table[:, 0])
    out["body"] = to_user(_rows(table[:, 1:13], BODY_DTYPE))
    out["case"] = table[:, 13]
    return out


class RemovalWarning(UserWarning):
    """A body was removed from a simulation: ejected beyond ``outer_truncation``, inside
    ``inner_truncation``, or into the central body. The message names the body, the radius (or
    the central body) and the time; the row is in ``ejections``."""


def _warn_removals(
    ejections: np.ndarray, settings: Mapping[str, Any], units: _Units, system: Optional[int] = None
) -> None:
    """A :class:`RemovalWarning` for each row of ``ejections`` (:data:`EJECTION_DTYPE`, the new
    ones, in the user's units), naming the body, the truncation radius it crossed and the time."""
    where = "" if system is None else f"system {system}: "
    for row in ejections:
        case = int(row["case"])
        if case == -1:
            why = "it touched the central body"
        else:
            key = "outer_truncation" if case == -3 else "inner_truncation"
            side = "beyond" if case == -3 else "inside"
            why = f"{side} {key} = {float(settings[key]) / units.length:.6g} {units.length_name()}"
        warnings.warn(
            f"{where}body {int(row['body']['i'])} removed at t = {float(row['t']):.6g} {units.time_name()}: "
            f"{why} (see `ejections`)",
            RemovalWarning,
            stacklevel=3,
        )


class _StateColumns:
    """The columns of ``state()`` as attributes, for every object that has one (a
    :class:`Simulation`, a system of an :class:`Ensemble`). They read the native table and
    divide its columns by the units, as ``state()`` does (the same bits), without building the
    structured array: a column costs about a microsecond."""

    def state(self) -> np.ndarray:  # pragma: no cover - every subclass has its own
        raise NotImplementedError

    def _native_table(self) -> np.ndarray:  # pragma: no cover - every subclass has its own
        """The bodies now as the native (K, 12) table, in Orrery's units."""
        raise NotImplementedError

    def _user_units(self) -> Any:  # pragma: no cover - every subclass has its own
        """The units of the object's numbers."""
        raise NotImplementedError

    @property
    def N(self) -> int:
        """The number of bodies now."""
        return len(self._native_table())

    @property
    def i(self) -> np.ndarray:
        """Every body's index (its place in the order of adding)."""
        return self._native_table()[:, 0].astype(np.int64)

    @property
    def m(self) -> np.ndarray:
        """Masses."""
        return self._native_table()[:, 1] / self._user_units().mass

    @property
    def r(self) -> np.ndarray:
        """Radii."""
        return self._native_table()[:, 2] / self._user_units().length

    @property
    def x(self) -> np.ndarray:
        """Heliocentric positions, (N, 3)."""
        return self._native_table()[:, 3:6] / self._user_units().length

    @property
    def v(self) -> np.ndarray:
        """Heliocentric velocities, (N, 3)."""
        return self._native_table()[:, 6:9] / self._user_units().velocity
