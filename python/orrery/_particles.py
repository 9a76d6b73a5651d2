"""Bodies as objects, by index or by name, as REBOUND's ``sim.particles``.

A :class:`Particle` is a view of one body of a :class:`Simulation`: every attribute reads the
simulation's state at that moment (heliocentric, in the simulation's units), so a particle
taken before an ``integrate`` reads the new state after it. Bodies are found by their index
``i`` (their place in the order of adding, stable for the whole run: a merger or an ejection
does not renumber the others) or by the name given to ``add(name=...)``. The central body is
not a particle: it is the simulation's ``central_mass`` (REBOUND's ``particles[0]``).
"""

from typing import Any, Dict, Iterator, List, Optional, Union

import numpy as np

from ._orrery import InputError


class Particle:
    """One body of a simulation, read fresh at every access (heliocentric, the simulation's
    units; angles in radians). ``i`` is its index, ``name`` its name or None."""

    def __init__(self, sim: Any, index: int, name: Optional[str]):
        self._sim = sim
        self._i = int(index)
        self._name = name

    @property
    def i(self) -> int:
        """The body's index (its place in the order of adding)."""
        return self._i

    @property
    def name(self) -> Optional[str]:
        """The body's name (``add(name=...)``), or None."""
        return self._name

    def _row(self) -> np.void:
        state = self._sim.state()
        at = np.flatnonzero(state["i"] == self._i)
        if at.size == 0:
            raise InputError(f"{self._label()} is no longer in the simulation (merged or ejected)")
        return state[at[0]]

    def _native_row(self) -> np.ndarray:
        """The body's row of the native table (Orrery's units; the columns of ``state()``)."""
        table = self._sim._native_table()
        # Bodies keep their places until one leaves: look there first.
        if self._i < len(table) and table[self._i, 0] == self._i:
            return table[self._i]
        at = np.flatnonzero(table[:, 0] == self._i)
        if at.size == 0:
            raise InputError(f"{self._label()} is no longer in the simulation (merged or ejected)")
        return table[at[0]]

    def _elements(self) -> np.void:
        """The body's row of ``elements()``, computed for this body alone (the same bits)."""
        from ._tables import _elements

        row = self._native_row()[None, :]
        return _elements(row, self._sim._settings, self._sim._units)[0]

    def _label(self) -> str:
        return f"body {self.name!r} (index {self.i})" if self.name else f"body {self.i}"

    # ---- state ------------------------------------------------------------------------------

    # The native row's columns divided by the units, as state() divides them (the same bits).

    @property
    def m(self) -> float:
        """Mass."""
        return float(self._native_row()[1] / self._sim._units.mass)

    @property
    def r(self) -> float:
        """Radius."""
        return float(self._native_row()[2] / self._sim._units.length)

    @property
    def xyz(self) -> List[float]:
        """Heliocentric position ``[x, y, z]``."""
        return (self._native_row()[3:6] / self._sim._units.length).tolist()

    @property
    def vxyz(self) -> List[float]:
        """Heliocentric velocity ``[vx, vy, vz]``."""
        return (self._native_row()[6:9] / self._sim._units.velocity).tolist()

    @property
    def x(self) -> float:
        """Heliocentric x."""
        return self.xyz[0]

    @property
    def y(self) -> float:
        """Heliocentric y."""
        return self.xyz[1]

    @property
    def z(self) -> float:
        """Heliocentric z."""
        return self.xyz[2]

    @property
    def vx(self) -> float:
        """Heliocentric vx."""
        return self.vxyz[0]

    @property
    def vy(self) -> float:
        """Heliocentric vy."""
        return self.vxyz[1]

    @property
    def vz(self) -> float:
        """Heliocentric vz."""
        return self.vxyz[2]

    # ---- orbit (heliocentric, mu = G (M0 + m), as elements()) ---------------------------------

    @property
    def a(self) -> float:
        """Semi-major axis (negative: unbound)."""
        return float(self._elements()["a"])

    @property
    def e(self) -> float:
        """Eccentricity."""
        return float(self._elements()["e"])

    @property
    def inc(self) -> float:
        """Inclination."""
        return float(self._elements()["inc"])

    @property
    def Omega(self) -> float:
        """Longitude of the ascending node."""
        return float(self._elements()["node"])

    @property
    def omega(self) -> float:
        """Argument of pericentre."""
        return float(self._elements()["peri"])

    @property
    def M(self) -> float:
        """Mean anomaly."""
        return float(self._elements()["M"])

    @property
    def f(self) -> float:
        """True anomaly."""
        return float(self._elements()["f"])

    @property
    def pomega(self) -> float:
        """Longitude of pericentre, ``Omega + omega``."""
        el = self._elements()
        return float(el["node"] + el["peri"])

    @property
    def l(self) -> float:  # noqa: E743 - REBOUND's name
        """Mean longitude, ``Omega + omega + M``."""
        return float(self._elements()["l"])

    @property
    def theta(self) -> float:
        """True longitude, ``Omega + omega + f``."""
        el = self._elements()
        return float(el["node"] + el["peri"]) + float(el["f"])

    @property
    def P(self) -> float:
        """Orbital period in the simulation's time unit (``2 pi sqrt(a^3 / mu)``; NaN unbound)."""
        return float(self._elements()["P"])

    def __repr__(self) -> str:
        try:
            row = self._row()
        except InputError:
            return f"<orrery.Particle {self._label()}, gone>"
        return (f"<orrery.Particle {self._label()} m={row['m']:.6g} "
                f"x={row['x']:.6g} y={row['y']:.6g} z={row['z']:.6g}>")


class Particles:
    """The bodies of a simulation now, by index (``particles[i]``: the body of index ``i``) or
    by name (``particles["Jupiter"]``); ``len()`` and iteration go over the bodies present, in
    the state's order. The central body is not among them."""

    def __init__(self, sim: Any, names: Dict[str, int]):
        self._sim = sim
        self._names = names

    def _name_of(self, index: int) -> Optional[str]:
        """The name of the body of index ``index``, or None."""
        return next((name for name, i in self._names.items() if i == index), None)

    def _present(self, index: int) -> bool:
        """Whether the body of index ``index`` is in the simulation now (bodies keep their
        places until one leaves: looked for there first)."""
        table = self._sim._native_table()
        if 0 <= index < len(table) and table[index, 0] == index:
            return True
        return bool(np.any(table[:, 0] == index))

    def __getitem__(self, key: Union[int, str]) -> Particle:
        """The body named ``key``, or of index ``key``; KeyError when there is none now."""
        if isinstance(key, str):
            if key not in self._names:
                known = ", ".join(repr(k) for k in self._names) or "none"
                raise KeyError(f"no body named {key!r} (named bodies: {known})")
            if not self._present(self._names[key]):
                raise KeyError(f"body {key!r} (index {self._names[key]}) is no longer in the simulation (merged or ejected)")
            return Particle(self._sim, self._names[key], key)
        if isinstance(key, (bool, np.bool_)) or not isinstance(key, (int, np.integer)):
            raise InputError(f"particles[{key!r}]: expected a body's index (an integer) or its name")
        if not self._present(int(key)):
            present = self._sim.i.tolist()
            raise KeyError(f"no body of index {int(key)} now (indices present: {present})")
        return Particle(self._sim, int(key), self._name_of(int(key)))

    def __len__(self) -> int:
        """The number of bodies now."""
        return self._sim.N

    def __iter__(self) -> Iterator[Particle]:
        """The bodies present, in the state's order."""
        names = {i: name for name, i in self._names.items()}
        for i in self._sim.i:
            yield Particle(self._sim, int(i), names.get(int(i)))

    def __contains__(self, key: Union[int, str]) -> bool:
        """Whether a body of that name or index is present now."""
        if isinstance(key, str):
            return key in self._names and self._names[key] in self._sim.i
        return int(key) in self._sim.i

    def __repr__(self) -> str:
        return f"<orrery.Particles: {len(self)} bodies>"


def _one_of(what: str, given: Dict[str, Any]) -> Optional[str]:
    """The one keyword of ``given`` that is set (not None), or None; two set is an error."""
    set_ = [k for k, v in given.items() if v is not None]
    if len(set_) > 1:
        raise InputError(f"field `{set_[1]}`: {what} given twice (`{set_[0]}` too); expected one of them")
    return set_[0] if set_ else None


def mean_anomaly_from_true(f: Any, e: Any) -> np.ndarray:
    """The mean anomaly of true anomaly ``f`` and eccentricity ``e`` (elliptic, parabolic with
    Barker's equation, hyperbolic); an unbound orbit's ``f`` must lie within its asymptotes."""
    f, e = np.broadcast_arrays(np.asarray(f, float), np.asarray(e, float))
    out = np.empty(f.shape)
    ell, par, hyp = e < 1.0, e == 1.0, e > 1.0
    big_e = 2.0 * np.arctan2(np.sqrt(1.0 - e[ell]) * np.sin(f[ell] / 2), np.sqrt(1.0 + e[ell]) * np.cos(f[ell] / 2))
    out[ell] = big_e - e[ell] * np.sin(big_e)
    d = np.tan(f[par] / 2)
    out[par] = d + d**3 / 3.0
    reach = np.arccos(-1.0 / e[hyp])
    wrapped = np.remainder(f[hyp] + np.pi, 2.0 * np.pi) - np.pi
    if np.any(np.abs(wrapped) >= reach) or np.any(np.abs(np.remainder(f[par], 2 * np.pi) - np.pi) < 1e-15):
        raise InputError(f"field `f`: {f.tolist()}; expected true anomalies within an unbound orbit's asymptotes")
    h = 2.0 * np.arctanh(np.sqrt((e[hyp] - 1.0) / (e[hyp] + 1.0)) * np.tan(wrapped / 2))
    out[hyp] = e[hyp] * np.sinh(h) - h
    return out


def rebound_angles(e: Any, angles: Dict[str, Any]) -> Dict[str, Any]:
    """``node``, ``peri`` and ``M`` from REBOUND's keywords among ``angles`` (``node`` or
    ``Omega``; ``peri``, ``omega`` or ``pomega = Omega + omega``; ``M``, ``f`` or
    ``l = Omega + omega + M``), each absent one 0."""
    node = angles[_one_of("the longitude of the node", {k: angles[k] for k in ("node", "Omega")}) or "node"]
    node = 0.0 if node is None else np.asarray(node, float)
    which = _one_of("the pericentre", {k: angles[k] for k in ("peri", "omega", "pomega")})
    peri = 0.0 if which is None else np.asarray(angles[which], float)
    if which == "pomega":
        peri = peri - node
    which = _one_of("the phase", {k: angles[k] for k in ("M", "f", "l")})
    mean = 0.0 if which is None else np.asarray(angles[which], float)
    if which == "f":
        mean = mean_anomaly_from_true(mean, e)
    elif which == "l":
        mean = mean - node - peri
    return {"node": node, "peri": peri, "M": mean}
