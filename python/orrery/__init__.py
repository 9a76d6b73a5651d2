"""Orrery from Python: a hybrid symplectic N-body integrator for planetary systems (the GENGA
design), on the CPU, OpenCL or CUDA.

Four entry points:

* :class:`Simulation` -- build a system from numpy arrays or body by body, integrate it
  in-process (the interpreter's lock is released), read the state back as numpy arrays.
* :func:`run` -- run a scenario (``.ron``), ensemble, GENGA ``param.dat``, multi-simulation list
  or sheet scenario exactly as ``orrery run`` does, with the same output files.
* :func:`read` -- read a run's output directory into numpy arrays (or pandas frames).
* :func:`from_rebound` / :meth:`Simulation.to_rebound` -- hand a REBOUND simulation over and back.

Units: Orrery's own (GENGA's) are AU, solar masses and the time unit 1/k days (k the Gaussian
gravitational constant, so G = 1 and a circular orbit at 1 AU around 1 Msun has speed 1); times
are reported in years of 365.25 days. A :class:`Simulation` takes and gives its states in named
units when asked: ``Simulation(units=("au", "yr", "msun"))``.

Errors are :class:`InputError` (bad input: ``file``, ``line``, ``field`` and ``expected`` say
where and what) or :class:`RunError`, both :class:`OrreryError`. Ctrl-C during
:meth:`Simulation.integrate` or :func:`run` stops at the end of a step and raises
``KeyboardInterrupt`` with the state intact.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any, BinaryIO, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _archive, _finish, _orrery, _primary
from ._archive import Archive
from ._grid import Grid, grid
from ._samples import _dataset, read_samples
from ._orrery import InputError, OrreryError, RunError
from ._common import _rows, _steps_wanted, _threads
from ._particles import Particle, Particles, _one_of, rebound_angles
from ._read import Output, read
from ._sheet import SHEET_DTYPE, Sheet
from ._stops import _STOP_CONDITIONS, Chaotic, Collision, Ejection, Encounter, Escape, StopCondition
from ._units import LENGTHS, MASSES, TIMES, _DAYS_PER_YEAR, _Units
from ._tables import (
    BODY_DTYPE,
    COLLISION_DTYPE,
    EJECTION_DTYPE,
    ELEMENTS_DTYPE,
    RemovalWarning,
    _StateColumns,
    _collision_rows,
    _ejection_rows,
    _elements,
    _stop_dict,
    _warn_removals,
)

__all__ = [
    "Simulation",
    "Ensemble",
    "EnsembleSystem",
    "Grid",
    "grid",
    "Particle",
    "Particles",
    "Archive",
    "Sheet",
    "run",
    "read",
    "read_samples",
    "Output",
    "from_rebound",
    "devices",
    "backends",
    "OrreryError",
    "InputError",
    "RunError",
    "RemovalWarning",
    "StopCondition",
    "Encounter",
    "Collision",
    "Ejection",
    "Escape",
    "Chaotic",
    "BODY_DTYPE",
    "SHEET_DTYPE",
    "K_GAUSS",
    "plot",
]

__version__: str = _orrery.VERSION

#: The Gaussian gravitational constant k (AU^3/2 Msun^-1/2 day^-1): the code time unit is 1/k days.
K_GAUSS: float = _orrery.K_GAUSS
def _column(value: Any, n: int, name: str) -> np.ndarray:
    """``value`` as ``n`` numbers: a number (or one-element array) broadcasts."""
    a = np.asarray(value, dtype=np.float64)
    if a.size == 1:
        return np.full(n, float(a.reshape(-1)[0]))
    if a.shape != (n,):
        raise InputError(f"field `{name}`: expected a number or {n} values, got shape {a.shape}")
    return a


#: The outer truncation radius (AU) of a Python simulation that names none: far enough that no
#: body is removed (GENGA's 50 AU stays the default of scenario files and ``param.dat``).
NO_OUTER_TRUNCATION = 1e100


def _settings_dict(settings: Mapping[str, Any]) -> Dict[str, Any]:
    """Keyword settings as the scenario's fields: nested dictionaries stay, ``output`` gets a
    folder (an in-memory simulation writes nothing there). No truncation radii unless asked
    for: no body is removed from a Python simulation without the user saying so."""
    s = _plain(dict(settings))
    s.setdefault("name", "python")
    s.setdefault("steps", 0)
    s.setdefault("output", {"dir": "."})
    s.setdefault("inner_truncation", 0.0)
    s.setdefault("outer_truncation", NO_OUTER_TRUNCATION)
    integrator = s.get("integrator")
    if isinstance(integrator, str) and integrator.lower() in _INTEGRATOR_NAMES:
        s["integrator"] = _INTEGRATOR_NAMES[integrator.lower()]
    if isinstance(s.get("chaos"), bool):  # chaos=True: MEGNO with seed 0
        s["chaos"] = {"megno": s["chaos"]}
    return s


def _plain(value: Any) -> Any:
    """Settings as plain Python values (numpy scalars and arrays become numbers and lists), so
    that ``settings``, ``save()`` and the scenario take them."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    return value


# Shorthands of ``integrator=``: the Wisdom-Holman map without correctors (REBOUND's WHFast
# default) and the hybrid step.
_INTEGRATOR_NAMES: Dict[str, Any] = {
    "wh": {"WisdomHolman": {"correctors": 0}},
    "whfast": {"WisdomHolman": {"correctors": 0}},
    "hybrid": "Hybrid",
}


class Simulation(_StateColumns):
    """An in-memory hybrid simulation: the scenario's settings as keywords, bodies added from
    numpy arrays or one by one, integrated in this process.

    Every field of a ``.ron`` scenario is a keyword (``inputs/example.ron`` documents them), e.g.
    ``time_step_days=6.0, order=4, changeover="Quintic", central_mass=1.0,
    forces={"gr": True}, backend="cpu", cpu_passes="kick"``; ``integrator="wh"`` or
    ``integrator={"WisdomHolman": {"correctors": 17}}`` steps the bodies on the Wisdom-Holman map
    (Jacobi coordinates, symplectic correctors of order 0, 3, 5, 7, 11 or 17) instead of the
    hybrid step, for systems without close encounters. Enumerations are strings
    (``mode="TestParticles"``); variants with data are ``{"Variant": {...}}``. ``threads`` sets the
    number of CPU threads (all cores by default); ``units`` names the units of the states, radii
    and distances given to and read from the simulation (default: AU, AU per code time unit,
    Msun). No body is removed unless asked: ``inner_truncation`` is 0 and ``outer_truncation``
    :data:`NO_OUTER_TRUNCATION` AU unless given (scenario files and ``param.dat`` keep GENGA's 0.2
    and 50 AU); a body removed at a radius the user gave is a :class:`RemovalWarning` and a row of
    ``ejections``.

    Example::

        sim = orrery.Simulation(time_step_days=20.0, units=("au", "yr", "msun"))
        sim.add(m=9.54e-4, a=5.2, e=0.048)
        sim.add(m=2.86e-4, a=9.58, e=0.056, inc=0.04)
        sim.integrate(time=1000.0)          # years, in these units
        print(sim.x, sim.energy()["e_relative"])
    """

    def __init__(
        self,
        *,
        time_step_days: Optional[float] = None,
        threads: Optional[int] = None,
        units: Optional[Sequence[str]] = None,
        **settings: Any,
    ) -> None:
        if time_step_days is not None:
            settings["time_step_days"] = time_step_days
        elif "time_step" not in settings:
            raise InputError(
                "field `time_step_days`: expected the time step in days, e.g. time_step_days=5.0 (or "
                'time_step={"InnerPeriodFraction": f})'
            )
        for forbidden in ("bodies", "steps", "end_time_years"):
            if forbidden in settings:
                raise InputError(
                    f"field `{forbidden}`: a Simulation takes its bodies from add() and its steps "
                    "from integrate(); expected it absent"
                )
        self._units = _Units(units)
        # Where relative paths (bodies from files, a gas table) start: a scenario file's own
        # path for from_file (internal keyword), else the current folder.
        self._origin = str(settings.pop("_origin", "<Simulation>"))
        # The scenario is in Orrery's units: the central body's mass and radius, the truncation
        # radii and the test particles' mass limit come in the simulation's (the defaults are
        # Orrery's).
        given = set(settings)
        self._settings = _settings_dict(settings)
        scaled = (
            ("central_mass", self._units.mass),
            ("central_radius", self._units.length),
            ("particle_minimum_mass", self._units.mass),
            ("inner_truncation", self._units.length),
            ("outer_truncation", self._units.length),
        )
        for key, per_unit in scaled:
            if key in given and isinstance(self._settings.get(key), (int, float)) and per_unit != 1.0:
                self._settings[key] = float(self._settings[key]) * per_unit
        stop = self._settings.get("stop")
        if isinstance(stop, dict):  # the stop's distances, in the simulation's length unit
            self._settings["stop"] = {
                k: float(v) * self._units.length if k in ("min_distance", "escape") and isinstance(v, (int, float)) else v
                for k, v in stop.items()
            }
        # Checked now, as a scenario file's fields are: a typo or a value out of range is an
        # InputError naming its field here, not at the first integrate.
        _orrery.check_settings(dict(self._settings, bodies=[]), self._origin)
        self._threads = _threads(threads)
        self._loaded = False  # made by load(): its bodies are in its checkpoint
        self._sources: List[Dict[str, Any]] = []
        # Bodies added so far (their next index; None when unknown) and the named ones' indices.
        self._added: Optional[int] = 0
        self._names: Dict[str, int] = {}
        self._native: Optional[Any] = None
        # The state at an exact finish time between two steps (time, native table), until the
        # next integrate or add.
        self._view: Optional[Tuple[float, np.ndarray]] = None
        self._events_before: Tuple[np.ndarray, np.ndarray] = (
            np.zeros((0, 25)),
            np.zeros((0, 14)),
        )

    # ---- building -------------------------------------------------------------------------

    @property
    def central_mass(self) -> float:
        """The central body's mass in the simulation's mass unit."""
        return float(self._settings.get("central_mass", 1.0)) / self._units.mass

    def add(
        self,
        m: Any = 0.0,
        *,
        x: Any = None,
        y: Any = 0.0,
        z: Any = 0.0,
        vx: Any = 0.0,
        vy: Any = 0.0,
        vz: Any = 0.0,
        a: Any = None,
        e: Any = None,
        inc: Any = None,
        node: Any = None,
        peri: Any = None,
        M: Any = None,
        r: Any = None,
        spin: Any = None,
        tides: Optional[Mapping[str, float]] = None,
        name: Union[None, str, Sequence[Optional[str]]] = None,
        P: Any = None,
        Omega: Any = None,
        omega: Any = None,
        pomega: Any = None,
        f: Any = None,
        l: Any = None,  # noqa: E741 - REBOUND's name
        primary: Any = None,
    ) -> "Simulation":
        """Add bodies: scalars add one, arrays (of one length, scalars broadcast) add many.

        Give either heliocentric Cartesian ``x, y, z, vx, vy, vz`` or orbital elements ``a, e,
        inc, node, peri, M`` (angles in radians, about the central body with ``mu = G (M0 + m)``;
        REBOUND's keywords also: ``P`` for ``a``, ``Omega`` for ``node``, ``omega`` or ``pomega``
        for ``peri``, ``f`` or ``l`` for ``M``). ``primary="jacobi"`` takes the elements as
        REBOUND's default does, about the centre of mass of the central body and every body added
        before (``mu = G (M + m)``), and ``primary=`` a body's index or name about that body
        (``mu = G (m_primary + m)``); see ``orrery._primary``.
        ``r`` is the radius (default: from the scenario's ``default_rho``); ``spin`` an (N, 3)
        array of spin angular momenta (mass times length times velocity, the simulation's units);
        ``tides`` one body's
        ``{"k2", "k2f", "tau", "ic"}`` for ``forces={"tides": ...}``. Bodies get their index
        (``i``) in the order they are added. Bodies added after an :meth:`integrate` join at the
        step reached (as in REBOUND): the integrator restarts from every body's state, and the
        energy bookkeeping moves by what the new bodies bring, so ``energy()["e_relative"]``
        carries on. Tidal properties are given before the first integrate. ``name`` names the
        body (a string) or the bodies (one string or None each): ``particles["Jupiter"]`` finds
        it.
        """
        u = self._units
        by_period = _one_of("the orbit's size", {"a": a, "P": P}) == "P"
        if by_period:
            a = P  # the periods, until the masses give each body's mu
        angles = {"node": node, "Omega": Omega, "peri": peri, "omega": omega, "pomega": pomega,
                  "M": M, "f": f, "l": l}
        if x is not None and any(v is not None for v in [e, inc, *angles.values()]):
            raise InputError("field `add`: orbital elements with Cartesian x, y, z; expected one or the other")
        e, inc = (0.0 if e is None else e), (0.0 if inc is None else inc)
        node, peri, M = rebound_angles(e, angles).values()
        if (x is None) == (a is None):
            raise InputError("field `add`: expected either Cartesian x, y, z, vx, vy, vz or elements a, e, ...")
        given = {"m": m, "x": x, "y": y, "z": z, "vx": vx, "vy": vy, "vz": vz, "a": a, "e": e,
                 "inc": inc, "node": node, "peri": peri, "M": M, "r": r}
        # Scalars broadcast against the arrays: the number of bodies is the arrays' length.
        arrays = [(k, np.size(v)) for k, v in given.items() if v is not None and np.size(v) > 1]
        n = arrays[0][1] if arrays else 1
        for key, size in arrays:
            if size != n:
                raise InputError(
                    f"field `{key}`: {size} values where `{arrays[0][0]}` has {n}; expected a number "
                    f"or {n} values (arrays of one length, numbers broadcast)"
                )
        names = self._new_names(name, n)
        if spin is not None and np.size(spin) != 3 * n:
            raise InputError(f"field `spin`: {np.size(spin)} values; expected 3 per body ({3 * n})")
        mm = _column(m, n, "m")
        if not np.all(np.isfinite(mm) & (mm >= 0.0)):
            raise InputError(f"field `m`: expected finite masses >= 0, got {mm[~(np.isfinite(mm) & (mm >= 0.0))][0]}")
        mass = mm * u.mass
        if a is not None:
            mu = _primary.gravitational_parameters(self, primary, mass)
            size = "P" if by_period else "a"
            cols = [_column(v, n, k) for k, v in ((size, a), ("e", e), ("inc", inc), ("node", node), ("peri", peri), ("M", M))]
            cols[0] = _primary.a_from_period(cols[0] * u.time, mu) if by_period else cols[0] * u.length
            pos, vel = _primary.place(self, primary, mass, mu, cols)
        elif primary not in _primary.CENTRAL:
            raise InputError("field `primary`: Cartesian states are heliocentric; expected primary with orbital elements only")
        else:
            pos = np.stack([_column(v, n, k) for k, v in (("x", x), ("y", y), ("z", z))], axis=1) * u.length
            vel = np.stack([_column(v, n, k) for k, v in (("vx", vx), ("vy", vy), ("vz", vz))], axis=1) * u.velocity
        if tides is not None:
            if n != 1:
                raise InputError("field `tides`: tidal properties are given one body at a time")
            if self.step > 0 or self._loaded:
                raise InputError(
                    "field `tides`: bodies with tidal properties are added before the first "
                    "integrate() of a new Simulation"
                )
            # Only read so far: the simulation starts anew from its sources at the next read.
            self._native = None
            source = {
                "Cartesian": {
                    "name": f"body {len(self._sources)}",
                    "m": float(mass[0]),
                    "radius": None if r is None else float(r) * u.length,
                    "pos": pos[0].tolist(),
                    "vel": vel[0].tolist(),
                    "spin": [0.0, 0.0, 0.0] if spin is None else list(np.asarray(spin, float).ravel() * u.spin),
                    "tides": _plain(dict(tides)),
                }
            }
        else:
            source = {
                "Columns": {
                    "m": mass.tolist(),
                    "radius": None if r is None else (_column(r, n, "r") * u.length).tolist(),
                    "pos": pos.tolist(),
                    "vel": vel.tolist(),
                    "spin": None if spin is None else (np.asarray(spin, float).reshape(n, 3) * u.spin).tolist(),
                }
            }
        self._append(source)
        self._name_added(names, n)
        return self

    def _new_names(self, name: Union[None, str, Sequence[Optional[str]]], n: int) -> List[Optional[str]]:
        """The names ``add(name=...)`` gives its ``n`` bodies, checked (None: unnamed)."""
        if name is None:
            return []
        names = [name] if isinstance(name, str) else list(name)
        if len(names) != n or not all(x is None or (isinstance(x, str) and x) for x in names):
            raise InputError(
                f"field `name`: {name!r}; expected one non-empty string (or None) per body ({n})"
            )
        given = [x for x in names if x is not None]
        taken = [x for x in given if x in self._names] + [x for i, x in enumerate(given) if x in given[:i]]
        if taken:
            raise InputError(f"field `name`: {taken[0]!r} is taken; expected names of their own")
        if self._added is None:
            raise InputError(
                "field `name`: the bodies' indices are not known after add_file() without `count`; "
                "expected `count` given, or names on bodies added before the file"
            )
        return names

    def _name_added(self, names: List[Optional[str]], n: Optional[int]) -> None:
        """Note ``n`` bodies added (None: unknown) and the names of the first ones."""
        if self._added is not None:
            self._names.update({x: self._added + k for k, x in enumerate(names) if x is not None})
            self._added = None if n is None else self._added + n

    @classmethod
    def from_file(cls, path: Union[str, os.PathLike], *, threads: Optional[int] = None) -> "Simulation":
        """A simulation of the scenario file ``path`` (``.ron``, one system), not yet integrated:
        its settings and bodies as ``orrery run`` reads them (Orrery's units; relative paths
        from the file's folder; its ``steps`` and end time left to :meth:`integrate`), each
        named body (``Kepler(name: ...)``, ``Cartesian(name: ...)``) found by
        ``particles[name]``."""
        scenario = dict(_orrery.read_scenario(os.fspath(path)))
        if scenario.get("mode") == "Multi":
            raise InputError(f"{path}, field `mode`: a Simulation is one system; expected Main or TestParticles")
        bodies = scenario.pop("bodies", [])
        for key in ("steps", "end_time_years"):
            scenario.pop(key, None)
        # A rule for the time step (the innermost period's fraction) replaces time_step_days.
        if scenario.get("time_step") in (None, "Days"):
            scenario.pop("time_step", None)
        else:
            scenario.pop("time_step_days", None)
        settings = {k: v for k, v in scenario.items() if v is not None}
        sim = cls(threads=threads, _origin=os.fspath(path), **settings)
        count: Optional[int] = 0
        for source in bodies:
            (kind, fields), = source.items()
            if kind in ("Kepler", "Cartesian"):
                name = fields.get("name")
                if count is not None and name and name not in sim._names:
                    sim._names[name] = count
                count = None if count is None else count + 1
            elif kind == "Disk" and count is not None:
                count += int(fields["n"])
            else:
                count = None  # a file's bodies are counted when read
            sim._sources.append(source)
        sim._added = count
        return sim

    @property
    def particles(self) -> Particles:
        """The bodies as objects (:class:`orrery.Particle`): ``particles["Jupiter"]`` by name,
        ``particles[i]`` by index (the order of adding; the central body is not among them), each
        attribute read from the state now."""
        return Particles(self, self._names)

    def add_disk(
        self,
        n: int,
        *,
        total_mass_earth: float,
        a_min: float,
        a_max: float,
        surface_density_exponent: float = 1.0,
        e_rayleigh: float = 0.01,
        i_rayleigh: float = 0.005,
        rho: float = 2.0,
        seed: int = 1,
    ) -> "Simulation":
        """Add a generated planetesimal disk: the scenario's ``Disk`` source (``orrery generate
        disk``), the same bodies for the same seed. Masses in Earth masses, lengths in AU."""
        spec = dict(
            n=int(n), total_mass_earth=float(total_mass_earth), a_min=float(a_min), a_max=float(a_max),
            surface_density_exponent=float(surface_density_exponent), e_rayleigh=float(e_rayleigh),
            i_rayleigh=float(i_rayleigh), rho=float(rho), seed=int(seed),
        )
        self._append({"Disk": spec})
        self._name_added([], int(n))
        return self

    def add_file(self, path: Union[str, os.PathLike], format: str, count: Optional[int] = None) -> "Simulation":
        """Add the bodies of a GENGA initial-condition file (``format`` as GENGA's, e.g.
        ``"<< x y z m vx vy vz >>"``; the first ``count`` bodies when given), in Orrery's units."""
        self._append({"File": {"path": os.fspath(Path(path).resolve()), "format": format, "count": count}})
        self._name_added([], None if count is None else int(count))
        return self

    def _append(self, source: Dict[str, Any]) -> None:
        """Add a source: to the scenario before the first integrate(), to the running simulation
        after it (its state rebuilt with the new bodies, E0 and L0 moved by what they bring)."""
        self._view = None
        self._sources.append(source)
        if self._native is not None and self.step == 0 and "time_step" in self._settings:
            # Only read so far, and the step comes from the innermost orbit: start anew from the
            # sources, so that the new bodies count.
            if self._loaded:
                self._sources.pop()
                raise InputError(
                    "field `add`: a loaded simulation's bodies are in its checkpoint; expected "
                    "bodies added after integrate() or to a new Simulation"
                )
            self._native = None
        if self._native is None:
            return
        only = dict(self._settings)
        only["bodies"] = [source]
        # A loaded simulation's earlier sources are in its checkpoint: its new bodies' indices
        # go on from the bodies added before (the largest index present + 1 when not known).
        first_id = None
        if self._loaded:
            first_id = self._added if self._added is not None else int(np.max(self.i, initial=-1)) + 1
        try:
            self._native.add_bodies(self._scenario(), only, first_id)
        except BaseException:
            self._sources.pop()
            raise

    @property
    def settings(self) -> Dict[str, Any]:
        """The scenario's settings (a copy), without the bodies."""
        return json.loads(json.dumps(self._settings))

    def _resolved(self) -> Dict[str, Any]:
        """The settings with every default filled in, without the bodies."""
        return _orrery.resolve_settings(dict(self._settings, bodies=[]))

    def _scenario(self) -> Dict[str, Any]:
        s = dict(self._settings)
        s["bodies"] = self._sources
        return s

    def _started(self) -> Any:
        if self._native is None:
            if not self._sources:
                raise InputError("field `bodies`: the simulation has no bodies; expected add() first")
            self._native = _orrery.NativeSimulation(self._scenario(), self._origin, self._threads)
        return self._native

    # ---- integrating ----------------------------------------------------------------------

    def _dt_days(self) -> float:
        """The time step in days: ``time_step_days``, or the one ``time_step`` chose."""
        if "time_step_days" in self._settings:
            return float(self._settings["time_step_days"])
        return self._started().time_step_days()

    @property
    def dt(self) -> float:
        """The time step in the simulation's time unit."""
        return self._dt_days() * K_GAUSS / self._units.time

    def integrate(
        self,
        *,
        steps: Optional[int] = None,
        time: Optional[float] = None,
        raise_on_stop: bool = True,
        exact_finish_time: bool = False,
        archive: Union[None, str, os.PathLike] = None,
        every: Optional[float] = None,
    ) -> int:
        """Integrate ``steps`` more steps, or on to absolute ``time`` (in the simulation's time unit:
        code units unless ``units`` named one): to the first step at or after it. Releases the
        interpreter's lock while it runs; Ctrl-C stops at the end of a step and raises
        ``KeyboardInterrupt`` with that step's state kept. Returns the step reached.

        A stop condition met during the call (``stop={"hill_radii": ...}`` or ``"min_distance"``,
        ``"collision"``, ``"escape"``, ``"ejection"``, a Wisdom-Holman body leaving the
        truncation radii, or MEGNO above ``chaos``'s ``stop_above``) raises, as in REBOUND, the
        :class:`StopCondition` subclass :class:`Encounter`, :class:`Collision`,
        :class:`Ejection`, :class:`Escape` or :class:`Chaotic`, with the state at the step it stopped kept; with
        ``raise_on_stop=False`` it returns, and :attr:`stopped` says why. A Kepler drift the map
        cannot take raises :class:`RunError` the same way, with the state before that step kept.
        A stop below ``minimum_bodies`` returns (see :attr:`stopped`).

        With ``exact_finish_time=True`` (and ``time=``) it steps to the last step at or before
        ``time`` and gives the state at ``time`` itself, from one step of the rest: ``t``,
        ``state()``, ``x``, ``v``, ``elements()`` and ``particles`` are those at ``time`` until
        the next integrate, which goes on from the last whole step, so the trajectory is the
        same as without it (see ``orrery._finish``).

        With ``archive=path`` and ``every=X`` (the simulation's time unit) a snapshot is
        appended to the archive file every ``X`` (on the steps that are multiples of ``X / dt``),
        at the start when the file is new, and when a stop ends the run: :class:`Archive` reads
        them back as simulations that continue bitwise.
        """
        if archive is not None or every is not None:
            if archive is None or every is None:
                raise InputError("field `archive`: expected archive= and every= together")
            return _archive.integrate(self, archive, every, steps, time, raise_on_stop, exact_finish_time)
        native = self._started()
        if self._view is not None and time is not None and float(time) < self._view[0]:
            raise InputError(
                f"field `time`: {time} is before the time reached, {self._view[0]!r}; expected a "
                "later one (integrate goes forward)"
            )
        self._view = None
        before = native.ejection_counts()[0]
        was_stopped = native.stopped is not None
        epoch = self._units.epoch
        finish = None
        if exact_finish_time:
            if time is None or steps is not None:
                raise InputError("field `exact_finish_time`: expected time= (and no steps=) with it")
            # Checked as integrate(time=) checks it: finite, and not before the time reached
            # (within the last step too: that would need a step backwards).
            _steps_wanted(native.step, None, time, self.dt, "time", epoch)
            finish = float(time)
            reached = epoch + native.step * self.dt
            if finish < reached - 1e-9 * self.dt:
                raise InputError(
                    f"field `time`: {time} is before the time reached, {reached!r}; expected a "
                    "later one (integrate goes forward)"
                )
            last = _finish.last_step_at_or_before((finish - epoch) / self.dt, native.step)
            steps, time = last - native.step, None
        step = native.integrate(_steps_wanted(native.step, steps, time, self.dt, "time", epoch))
        new = native.ejection_counts()[0] - before
        if new:
            _warn_removals(self.ejections[-new:], self._settings, self._units)
        raised = _STOP_CONDITIONS.get(native.stop_kind or "")
        if raise_on_stop and raised is not None and not was_stopped:
            raise raised(native.stopped)
        if finish is not None and native.stopped is None:
            rest = finish - (epoch + step * self.dt)
            if rest > 1e-9 * self.dt:
                days = rest * self._units.time / K_GAUSS
                self._view = (finish, _finish.state_after(self, days))
        return step

    @property
    def step(self) -> int:
        """The step reached (0 before the first integrate)."""
        return 0 if self._native is None else self._native.step

    @property
    def t(self) -> float:
        """The time reached in the simulation's time unit (code units by default): the time of
        step 0 (0 unless set, or REBOUND's ``t`` at :func:`from_rebound`) plus the steps', or
        the time an ``exact_finish_time`` integrate landed on."""
        if self._view is not None:
            return self._view[0]
        if self.step == 0:
            return self._units.epoch
        return self._units.epoch + self.step * self.dt

    @t.setter
    def t(self, value: float) -> None:
        """Set the time of the state given (before the first integrate), as REBOUND's ``t``."""
        if self.step > 0:
            raise InputError("field `t`: the time is set before the first integrate(); expected it unset now")
        value = float(value)
        if not math.isfinite(value):
            raise InputError(f"field `t`: expected a finite time, got {value}")
        self._view = None
        self._units.epoch = value

    @property
    def t_years(self) -> float:
        """The time reached in years of 365.25 days."""
        if self._view is not None:
            return self._units.epoch_years() + (self._view[0] - self._units.epoch) * self._units.time / (
                _DAYS_PER_YEAR * K_GAUSS)
        if self.step == 0:
            return self._units.epoch_years()
        return self._units.epoch_years() + self.step * self._dt_days() / _DAYS_PER_YEAR

    @property
    def stopped(self) -> Optional[str]:
        """Why the simulation stopped (fewer bodies than ``minimum_bodies``, or a ``stop``
        condition such as ``stop={"hill_radii": 1.0}``: what happened, to which bodies, at which
        step), or None."""
        return None if self._native is None else self._native.stopped

    def stop(self) -> Optional[Dict[str, Any]]:
        """How the simulation stopped (see :attr:`stopped`), or None: a dict of ``reason``
        (``"encounter"``, ``"collision"``, ``"ejection"``, ``"escape"``, ``"minimum bodies"``,
        ``"chaotic"`` or ``"failure"``, a Kepler drift of the map that failed), ``time`` (the event's time, in the
        simulation's time unit), ``step`` (the step whose state it keeps), ``pair`` (the ids
        involved: both bodies of an encounter or collision, the one of an ejection, escape or
        failure) and ``distance`` (between the pair, or of the one body from the central body,
        in the simulation's length unit)."""
        return None if self._native is None else _stop_dict(self._native.stop_record(), self._units)

    def megno(self) -> float:
        """MEGNO now (Cincotta & Simo 2000; REBOUND's ``sim.megno()``): it tends to 2 for a regular
        orbit and grows as half the Lyapunov exponent times t for a chaotic one. Needs
        ``chaos=True`` (or ``chaos={"megno": True, "seed": N}``, the tangent vector's seed) and
        the Wisdom-Holman map; adding bodies restarts the variations (0 until the next step)."""
        return float(self._started().chaos_table()[0, 0])

    def lyapunov(self) -> float:
        """The maximal Lyapunov exponent now, per year (REBOUND's ``sim.lyapunov()`` in its time
        unit: the slope of MEGNO, half the tangent vector's growth rate; see :meth:`megno`)."""
        return float(self._started().chaos_table()[0, 1])

    def samples(self, *, xarray: bool = False) -> Any:
        """The sampled time series so far (``samples={"every": {"Years": 10.0}, "what":
        ["elements", "megno"]}``): :meth:`Ensemble.samples`' arrays of this one system (``time`` in
        years since step 0; AU, years and radians whatever ``units``)."""
        arrays = self._started().samples()
        if xarray:
            return _dataset(arrays).isel(system=0)
        return {k: v[0] for k, v in arrays.items() if k != "system"}

    @property
    def backend(self) -> str:
        """The backend integrating the simulation (cpu, opencl or cuda)."""
        return self._started().backend

    # ---- reading --------------------------------------------------------------------------

    def state(self) -> np.ndarray:
        """All bodies now as a structured array of :data:`BODY_DTYPE` (heliocentric, in the
        simulation's units), in the backend's order (``i`` is each body's index)."""
        return self._to_user(_rows(self._native_table(), BODY_DTYPE))

    def _native_table(self) -> np.ndarray:
        if self._view is not None:
            return self._view[1]
        return self._started().state()

    def _user_units(self) -> _Units:
        return self._units

    def _to_user(self, rows: np.ndarray) -> np.ndarray:
        u = self._units
        for k in ("x", "y", "z", "r"):
            rows[k] /= u.length
        for k in ("vx", "vy", "vz"):
            rows[k] /= u.velocity
        rows["m"] /= u.mass
        spin_unit = u.mass * u.length * u.velocity
        for k in ("sx", "sy", "sz"):
            rows[k] /= spin_unit
        return rows

    def elements(self) -> np.ndarray:
        """Heliocentric orbital elements of every body (:data:`ELEMENTS_DTYPE`: ``a`` in the
        simulation's length unit, the period ``P`` in its time unit, angles in radians, with the
        true anomaly ``f`` and the mean longitude ``l``), with ``mu = G (M0 + m)``."""
        return _elements(self._native_table(), self._settings, self._units)

    def energy(self) -> Dict[str, Any]:
        """The Energy file's line now, in the simulation's units: ``time``, ``n``,
        ``potential``, ``kinetic``, ``u`` (energy removed), ``l_lost``, ``e_total``, ``l_total``,
        ``e_relative``, ``l_relative`` and ``central_spin`` (with tides; angular momenta as
        mass times length times velocity)."""
        return self._units.energy_line(self._started().energy())

    def _events(self) -> Tuple[np.ndarray, np.ndarray]:
        if self._native is None:
            return self._events_before
        c, e = self._native.events()
        return np.vstack([self._events_before[0], c]), np.vstack([self._events_before[1], e])

    @property
    def collisions(self) -> np.ndarray:
        """Every merger: ``t`` and both ``bodies`` just before contact (:data:`COLLISION_DTYPE`,
        the Collisions file's rows, in the simulation's units)."""
        return _collision_rows(self._events()[0], self._to_user, self._units)

    @property
    def ejections(self) -> np.ndarray:
        """Every ejection: ``t``, the ``body`` and GENGA's ``case`` (:data:`EJECTION_DTYPE`, in
        the simulation's units)."""
        return _ejection_rows(self._events()[1], self._to_user, self._units)

    # ---- checkpoints ----------------------------------------------------------------------

    def save(self, path: Union[str, os.PathLike, BinaryIO]) -> None:
        """Write the simulation to ``path`` (a file name or a binary file; numpy ``.npz``: the
        settings, the binary checkpoint of the state, the collisions and ejections so far).
        :meth:`load` continues it bitwise."""
        native = self._started()
        collisions, ejections = self._events()
        # The step the rule chose is saved, not the rule: a loaded simulation has no bodies to
        # take an innermost period from.
        settings = {k: v for k, v in self._settings.items() if k != "time_step"}
        settings["time_step_days"] = self._dt_days()
        meta = {
            "settings": settings,
            "units": list(self._units.names),
            "epoch": self._units.epoch,
            "names": self._names,
            "bodies_added": self._added,
            "orrery": __version__,
        }
        arrays = {
            "meta": np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8),
            "checkpoint": np.frombuffer(native.checkpoint(), dtype=np.uint8),
            "collisions": collisions,
            "ejections": ejections,
        }
        if hasattr(path, "write"):
            np.savez(path, **arrays)
            return
        with open(path, "wb") as f:
            np.savez(f, **arrays)

    @classmethod
    def load(cls, path: Union[str, os.PathLike, BinaryIO], *, threads: Optional[int] = None) -> "Simulation":
        """A simulation continued from a file :meth:`save` wrote (a file name or a binary
        file)."""
        try:
            with np.load(path) as z:
                meta = json.loads(bytes(z["meta"]).decode())
                data = bytes(z["checkpoint"])
                events = (z["collisions"], z["ejections"])
        except (OSError, ValueError, KeyError) as err:
            raise InputError(f"{path}: not a file Simulation.save() wrote ({err})") from None
        units = meta["units"]
        settings = dict(meta["settings"])
        settings.pop("steps", None)
        # The saved settings are the scenario's, in Orrery's units: made without units, then
        # given the saved ones.
        sim = cls(threads=threads, **settings)
        sim._units = _Units(None if units == ["au", "code", "msun"] else units)
        sim._units.epoch = float(meta.get("epoch", 0.0))
        sim._loaded = True
        sim._names = {str(k): int(v) for k, v in meta.get("names", {}).items()}
        scenario = dict(sim._settings, bodies=[])
        origin = str(path) if isinstance(path, (str, os.PathLike)) else "<Simulation.load>"
        sim._native = _orrery.NativeSimulation.from_checkpoint(scenario, origin, data, threads)
        added = meta.get("bodies_added")
        sim._added = int(added) if added is not None else int(np.max(sim.i, initial=-1)) + 1
        sim._events_before = events
        return sim

    # ---- REBOUND --------------------------------------------------------------------------

    def to_rebound(self) -> Any:
        """The system as a ``rebound.Simulation`` in units ('yr', 'AU', 'Msun'): the central body
        first, then every body (with its radius; a named body with its REBOUND name, so
        that ``particles["Jupiter"]`` finds it), moved to the centre of mass, at this time and
        step, with REBOUND's closest integrator: WHFast in Jacobi coordinates with the same
        corrector order for the Wisdom-Holman map, MERCURIUS with ``r_crit_hill = n1`` for the
        hybrid step. In test-particle mode the test particles come last, after ``N_active``,
        with ``testparticle_type`` 1 where they are semi-active."""
        import rebound

        rsim = rebound.Simulation()
        rsim.units = ("yr", "AU", "Msun")
        scale = math.sqrt(rsim.G)  # AU/yr per AU per code unit
        table = self._native_table()
        rsim.add(m=self._settings.get("central_mass", 1.0), r=self._settings.get("central_radius", 0.00465475877))
        named = {i: x for x, i in self._names.items()}
        for row in table:
            extra = {"name": named[int(row[0])]} if int(row[0]) in named else {}
            rsim.add(m=row[1], r=row[2], x=row[3], y=row[4], z=row[5], vx=row[6] * scale, vy=row[7] * scale,
                     vz=row[8] * scale, **extra)
        if self._settings.get("mode") == "TestParticles":
            # Orrery keeps its massive bodies first; REBOUND's test particles come last.
            limit = float(self._settings.get("particle_minimum_mass", 0.0))
            rsim.N_active = 1 + int(np.count_nonzero(table[:, 1] > limit))
            rsim.testparticle_type = 1 if self._settings.get("semi_active") else 0
        rsim.t = self.t_years
        rsim.dt = self._dt_days() / _DAYS_PER_YEAR
        rsim.move_to_com()
        integrator = self._settings.get("integrator", "Hybrid")
        if isinstance(integrator, Mapping) and "WisdomHolman" in integrator:
            rsim.integrator = "whfast"
            rsim.integrator.coordinates = "jacobi"
            rsim.integrator.corrector = int(integrator["WisdomHolman"].get("correctors", 0))
        else:
            rsim.integrator = "mercurius"
            rsim.integrator.r_crit_hill = float(self._settings.get("n1", 3.0))
        return rsim

    def __repr__(self) -> str:
        if self._native is None:
            return f"<orrery.Simulation not started, {len(self._sources)} body sources added>"
        return f"<orrery.Simulation {self.N} bodies, step {self.step}, t = {self.t_years:.6g} yr>"


def run(path: Union[str, os.PathLike], *, resume: Union[bool, str] = False, **overrides: Any) -> Dict[str, Any]:
    """Run a scenario (``.ron``), ensemble, GENGA ``param.dat``, multi-simulation list
    (``multi=True``) or sheet scenario exactly as ``orrery run`` does, with the same files.

    Keywords are the command line's options: ``steps``, ``out``, ``backend``, ``cpu_passes``,
    ``device``, ``shard`` ("K/N"), ``threads``, ``order``, ``mode``, ``semi_active``,
    ``overwrite``, and ``resume`` (True, False or "auto"). Returns the summary (``report`` is the
    text ``orrery run`` prints). Ctrl-C stops at the end of a step with snapshots and a
    checkpoint written and raises ``KeyboardInterrupt``; ``resume=True`` continues.
    """
    flag = {False: None, True: "yes", "auto": "auto"}.get(resume, resume)
    if flag not in (None, "yes", "auto"):
        raise InputError(f"field `resume`: `{resume}`: expected True, False or \"auto\"")
    for key in ("out",):
        if overrides.get(key) is not None:
            overrides[key] = os.fspath(overrides[key])
    for key, least in (("steps", 0), ("threads", 1), ("device", 0)):
        value = overrides.get(key)
        if value is None:
            continue
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < least:
            raise InputError(f"field `{key}`: expected a whole number >= {least}, got {value!r}")
        overrides[key] = int(value)
    return _orrery.run(os.fspath(path), resume=flag, **overrides)


from ._ensemble import Ensemble, EnsembleSystem  # noqa: E402 (it takes Simulation from here)
from ._rebound import from_rebound  # noqa: E402 (it makes a Simulation)
from . import plot  # noqa: E402 (figures of a Simulation or an ensemble's systems)


def backends() -> list:
    """The backends this build of the module can run: ``cpu`` always, ``opencl`` and ``cuda``
    when it was built with those features (``MATURIN_PEP517_ARGS="--features opencl" pip install
    ./python``)."""
    return list(_orrery.backends())


def devices() -> str:
    """The OpenCL and CUDA devices ``backend=`` and ``device=`` can pick (``orrery devices``)."""
    return _orrery.devices()
