"""Many small systems integrated together in memory (GENGA's multi-simulation mode), and the
view of one of them."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _orrery
from ._common import _index, _rows, _steps_wanted, _threads
from ._orrery import K_GAUSS, InputError
from ._samples import _result
from ._tables import (
    BODY_DTYPE,
    _StateColumns,
    _collision_rows,
    _ejection_rows,
    _elements,
    _stop_dict,
    _warn_removals,
)


class Ensemble:
    """Many small systems integrated together: GENGA's multi-simulation mode in memory, as
    ``orrery run`` runs an ``Ensemble(...)`` scenario, with every system's state in numpy.

    Build each system as a :class:`Simulation` (not yet integrated) and hand the list over.
    Each system keeps its own bodies, ``central_mass``, ``n1``, ``n2``, truncation radii,
    ``minimum_bodies`` and ``default_rho``; a ``minimum_bodies`` of 0 (the default) means every
    initial massive body, so a system stops at its first collision or ejection, as in an
    ``Ensemble(...)`` scenario file. On the Wisdom-Holman map each system keeps its own time
    step too (``time_step_days``, or ``time_step={"InnerPeriodFraction": f}``), and
    ``integrate`` then takes ``steps=``; the hybrid step needs one for all. Every other setting
    (order, forces, backend, units) must be the same in all, and a difference is an
    :class:`InputError` naming it. Systems are stepped side by side (vectorised across systems on the CPU) and each
    one's results are those of the same system integrated alone.

    >>> systems = []
    >>> for k in range(64):
    ...     s = orrery.Simulation(time_step_days=20.0)
    ...     s.add(m=9.5e-4, a=5.2); s.add(m=2.9e-4, a=9.5); s.add(m=1e-5, a=6.0 + 0.04 * k)
    ...     systems.append(s)
    >>> ens = orrery.Ensemble(systems)
    >>> ens.integrate(time=1000.0)
    >>> [len(ens.state(k)) for k in range(len(ens))]
    """

    #: The settings a system may have of its own.
    PER_SYSTEM = frozenset(
        {"name", "central_mass", "n1", "n2", "inner_truncation", "outer_truncation", "minimum_bodies", "default_rho",
         "time_step_days", "time_step"}
    )

    def __init__(self, systems: Sequence["Simulation"], *, threads: Optional[int] = None) -> None:
        from . import Simulation

        systems = list(systems)
        if not systems:
            raise InputError("field `systems`: expected at least one Simulation")
        first = systems[0]
        for k, sim in enumerate(systems):
            if not isinstance(sim, Simulation):
                raise InputError(f"field `systems[{k}]`: expected an orrery.Simulation, got {type(sim).__name__}")
            if sim.step > 0:
                raise InputError(f"field `systems[{k}]`: expected a Simulation not yet integrated")
            if sim._units.names != first._units.names:
                raise InputError(f"field `systems[{k}].units`: expected the first system's units")
            if sim._units.epoch != first._units.epoch:
                raise InputError(f"field `systems[{k}].t`: {sim.t} at step 0; expected the first system's {first.t}")
            # Compared with every default filled in: order=2 is the default order.
            mine, theirs = sim._resolved(), first._resolved()
            for key in sorted((set(mine) | set(theirs)) - self.PER_SYSTEM - {"bodies"}):
                if mine.get(key) != theirs.get(key):
                    raise InputError(
                        f"field `systems[{k}].{key}`: `{sim._settings.get(key)}` differs from the first "
                        f"system's `{first._settings.get(key)}`; expected one value for every system"
                    )
        self._first = first
        self._settings = [sim._settings for sim in systems]
        self._native = _orrery.NativeSimulation.ensemble(
            [sim._scenario() for sim in systems], first._threads if threads is None else _threads(threads)
        )
        self._names = [dict(sim._names) for sim in systems]
        self._after_start()

    def _after_start(self) -> None:
        """What follows from the native ensemble: each system's step in the systems' time unit
        (its own on the Wisdom-Holman map), and no events before it."""
        per_day = K_GAUSS / self._first._units.time
        self._dts = [self._native.time_step_days(k) * per_day for k in range(len(self))]
        self._events_before: List[Tuple[np.ndarray, np.ndarray]] = [
            (np.zeros((0, 25)), np.zeros((0, 14))) for _ in range(len(self))
        ]

    def __len__(self) -> int:
        return self._native.systems

    def _system(self, k: Any) -> int:
        """System index ``k`` checked: a whole number, negative ones counting from the end."""
        return _index(k, len(self), "system")

    def __getitem__(self, k: int) -> "EnsembleSystem":
        """System ``k`` (negative ``k`` counts from the end) as a view with its own ``t`` and
        ``step``."""
        return EnsembleSystem(self, self._system(k))

    def __iter__(self) -> Iterator["EnsembleSystem"]:
        return (EnsembleSystem(self, k) for k in range(len(self)))

    def integrate(self, *, steps: Optional[int] = None, time: Optional[float] = None) -> int:
        """Integrate every system ``steps`` more steps, or on to absolute ``time`` (the systems'
        time unit), as :meth:`Simulation.integrate`. Returns the step reached."""
        epoch = self._first._units.epoch
        if time is not None and len(set(self._dts)) > 1:
            raise InputError(
                "field `time`: the systems have time steps of their own, so one time is a different "
                "step count in each; expected steps= (each system's ens[k].t is its own)"
            )
        wanted = _steps_wanted(self._native.step, steps, time, self._dts[0], "time", epoch)
        before = self._native.ejection_counts()
        step = self._native.integrate(wanted)
        for k, (n, now) in enumerate(zip(before, self._native.ejection_counts())):
            if now > n:
                new = self.ejections(k)[-(now - n):]
                _warn_removals(new, self._settings[k], self._first._units, system=k)
        return step

    @property
    def step(self) -> int:
        """The step reached."""
        return self._native.step

    @property
    def t(self) -> float:
        """The time reached in the systems' time unit (the first system's, when the systems have
        time steps of their own: ``ens[k].t`` is system k's)."""
        return self._first._units.epoch + self.step * self._dts[0]

    def dt(self, k: int) -> float:
        """System ``k``'s time step in the systems' time unit."""
        return self._dts[self._system(k)]

    def state(self, k: int) -> np.ndarray:
        """System ``k``'s bodies now (:data:`BODY_DTYPE`, heliocentric, the systems' units)."""
        return self._first._to_user(_rows(self._native.state(self._system(k)), BODY_DTYPE))

    def elements(self, k: int) -> np.ndarray:
        """System ``k``'s heliocentric orbital elements (see :meth:`Simulation.elements`)."""
        return _elements(self._native.state(self._system(k)), self._settings[self._system(k)], self._first._units)

    def stopped(self, k: int) -> bool:
        """Whether system ``k`` stopped (fewer bodies than its ``minimum_bodies``; by default
        every initial body, so at its first collision or ejection); the others step on."""
        return self._native.system_stopped(self._system(k))

    def stop(self, k: int) -> Optional[Dict[str, Any]]:
        """How system ``k`` stopped, or None (see :meth:`Simulation.stop`; its state, energy and
        elements stay those of that step)."""
        return _stop_dict(self._native.stop_record(self._system(k)), self._first._units)

    def megno(self) -> np.ndarray:
        """Every system's MEGNO now (see :meth:`Simulation.megno`; a stopped system's at its stop),
        as an array over the systems. Needs ``chaos=True`` in the systems' settings."""
        return np.ascontiguousarray(self._native.chaos_table()[:, 0])

    def lyapunov(self) -> np.ndarray:
        """Every system's maximal Lyapunov exponent now, per year (see :meth:`Simulation.lyapunov`),
        as an array over the systems."""
        return np.ascontiguousarray(self._native.chaos_table()[:, 1])

    def samples(self, *, xarray: bool = False) -> Any:
        """Every system's sampled time series so far (``samples={"every": {"Years": 10.0},
        "what": ["elements", "megno"]}`` in the systems' settings): a dict of arrays shaped
        ``[system, sample]`` or ``[system, sample, body]``, as :func:`orrery.read_samples` reads a
        run's file (``time`` in years since step 0; AU, years and radians whatever ``units``);
        with ``xarray=True`` an ``xarray.Dataset``."""
        return _result(self._native.samples(), xarray)

    def energy(self, k: int) -> Dict[str, Any]:
        """System ``k``'s Energy line now (see :meth:`Simulation.energy`); a stopped system's at
        the step it stopped at, with that step's ``time``."""
        return self._first._units.energy_line(self._native.energy(self._system(k)))

    def _events(self, k: int) -> Tuple[np.ndarray, np.ndarray]:
        """System ``k``'s native event rows, those before a load first."""
        before = self._events_before[k]
        c, e = self._native.events(k)
        return np.vstack([before[0], c]), np.vstack([before[1], e])

    def collisions(self, k: int) -> np.ndarray:
        """System ``k``'s mergers (:data:`COLLISION_DTYPE`)."""
        return _collision_rows(self._events(self._system(k))[0], self._first._to_user, self._first._units)

    def ejections(self, k: int) -> np.ndarray:
        """System ``k``'s ejections (:data:`EJECTION_DTYPE`)."""
        return _ejection_rows(self._events(self._system(k))[1], self._first._to_user, self._first._units)

    def save(self, path: Union[str, os.PathLike]) -> None:
        """Write the ensemble to ``path`` (numpy ``.npz``: every system's settings, the binary
        checkpoint of the state, each system's collisions and ejections so far).
        :meth:`load` continues it bitwise, stopped systems and their records included."""
        from . import __version__

        systems = []
        for k, settings in enumerate(self._settings):
            # The step a rule chose and the minimum the bodies gave are saved, not the rule: a
            # loaded ensemble has no bodies to take them from.
            one = {key: v for key, v in settings.items() if key != "time_step"}
            one["time_step_days"] = self._native.time_step_days(k)
            one["minimum_bodies"] = self._native.minimum_bodies(k)
            systems.append(one)
        meta = {
            "systems": systems,
            "units": list(self._first._units.names),
            "epoch": self._first._units.epoch,
            "names": self._names,
            "threads": self._first._threads,
            "orrery": __version__,
        }
        events = {}
        for k in range(len(self)):
            events[f"collisions_{k}"], events[f"ejections_{k}"] = self._events(k)
        with open(path, "wb") as f:
            np.savez(
                f,
                meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8),
                checkpoint=np.frombuffer(self._native.checkpoint(), dtype=np.uint8),
                **events,
            )

    @classmethod
    def load(cls, path: Union[str, os.PathLike], *, threads: Optional[int] = None) -> "Ensemble":
        """An ensemble continued from a file :meth:`save` wrote."""
        from . import Simulation, _Units

        try:
            with np.load(path) as z:
                meta = json.loads(bytes(z["meta"]).decode())
                data = bytes(z["checkpoint"])
                n = len(meta["systems"])
                events = [(z[f"collisions_{k}"], z[f"ejections_{k}"]) for k in range(n)]
        except (OSError, ValueError, KeyError) as err:
            raise InputError(f"{path}: not a file Ensemble.save() wrote ({err})") from None
        units = meta["units"]
        # The saved settings are the scenarios', in Orrery's units: the systems are made
        # without units, then given the saved ones.
        first = Simulation(**{key: v for key, v in meta["systems"][0].items() if key != "steps"})
        first._units = _Units(None if units == ["au", "code", "msun"] else units)
        first._units.epoch = float(meta.get("epoch", 0.0))
        first._threads = _threads(threads) if threads is not None else meta.get("threads")
        ens = cls.__new__(cls)
        ens._first = first
        ens._settings = [dict(s) for s in meta["systems"]]
        ens._names = [{str(a): int(b) for a, b in names.items()} for names in meta.get("names", [{}] * n)]
        scenarios = [dict(s, bodies=[]) for s in ens._settings]
        ens._native = _orrery.NativeSimulation.ensemble(scenarios, first._threads, data)
        ens._after_start()
        ens._events_before = events
        return ens

    def __repr__(self) -> str:
        return f"<orrery.Ensemble {len(self)} systems, step {self.step}>"


class EnsembleSystem(_StateColumns):
    """System ``index`` of an :class:`Ensemble` (``ens[k]``), read in place: it follows the
    ensemble as it steps. Its ``step`` and ``t`` are its own: a stopped system's are those of
    the step it stopped at, the state it keeps."""

    def __init__(self, ensemble: Ensemble, index: int) -> None:
        self._ensemble = ensemble
        self.index = index

    @property
    def step(self) -> int:
        """The step the system's state is at: the ensemble's, or the one it stopped at."""
        stop = self._ensemble.stop(self.index)
        return self._ensemble.step if stop is None else stop["step"]

    @property
    def t(self) -> float:
        """The system's time in the systems' time unit."""
        first = self._ensemble._first
        return first._units.epoch + self.step * self._ensemble.dt(self.index)

    @property
    def stopped(self) -> bool:
        """Whether the system stopped (see :meth:`Ensemble.stopped`)."""
        return self._ensemble.stopped(self.index)

    def stop(self) -> Optional[Dict[str, Any]]:
        """How the system stopped, or None (see :meth:`Simulation.stop`)."""
        return self._ensemble.stop(self.index)

    def state(self) -> np.ndarray:
        """The bodies now (:data:`BODY_DTYPE`, heliocentric, the systems' units)."""
        return self._ensemble.state(self.index)

    def _native_table(self) -> np.ndarray:
        return self._ensemble._native.state(self.index)

    def _user_units(self) -> Any:
        return self._ensemble._first._units

    def elements(self) -> np.ndarray:
        """Heliocentric orbital elements (see :meth:`Simulation.elements`)."""
        return self._ensemble.elements(self.index)

    def energy(self) -> Dict[str, Any]:
        """The Energy file's line at the system's step (see :meth:`Simulation.energy`)."""
        return self._ensemble.energy(self.index)

    @property
    def collisions(self) -> np.ndarray:
        """The system's mergers (:data:`COLLISION_DTYPE`)."""
        return self._ensemble.collisions(self.index)

    @property
    def ejections(self) -> np.ndarray:
        """The system's ejections (:data:`EJECTION_DTYPE`)."""
        return self._ensemble.ejections(self.index)

    def __repr__(self) -> str:
        state = "stopped" if self.stopped else "running"
        return f"<orrery.EnsembleSystem {self.index}: {self.N} bodies, step {self.step}, {state}>"
