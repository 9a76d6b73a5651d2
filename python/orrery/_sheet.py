"""The sheet engine (OCCLUDE's shearing-sheet ring patch) in memory."""

from __future__ import annotations

from typing import Any, Dict, Optional

import numpy as np

from . import _orrery
from ._common import _rows, _steps_wanted

#: One sheet particle (SI units): its id, position, velocity, radius and mass (the sheet
#: snapshot's columns after the id).
SHEET_DTYPE = np.dtype(
    [("id", "i8")] + [(n, "f8") for n in ("x", "y", "z", "vx", "vy", "vz", "r", "m")]
)


class Sheet:
    """A shearing-sheet ring patch in memory: the sheet engine (OCCLUDE) stepped from Python.

    Keywords are the fields of a ``Sheet(...)`` scenario (``inputs/ring.ron``), SI units, with
    the same names and values; ``name``, ``steps`` and ``output`` are optional here (nothing is
    written). ``restitution`` is ``{"Bridges": {"v_c": 7.7e-5}}`` or ``{"Constant": 0.5}``,
    ``radius`` is ``dict(min=1.0, max=4.0, slope=3.0)``. ``threads``, ``backend`` (``cpu``,
    ``opencl``, ``cuda``, ``auto``), ``cpu_passes`` (sheet pass names) and ``device`` choose
    where it runs. The particles are generated from ``seed`` as ``orrery run`` generates them,
    so a Sheet's particles after N steps are bitwise those of the run's snapshot at step N.

    >>> ring = orrery.Sheet(omega=1.3143527e-4, surface_density=2000.0, particle_density=200.0,
    ...                     box_size=50.0, radius=dict(min=1.0, max=4.0, slope=3.0), z_sigma=1.0,
    ...                     dt_orbits=1e-3, theta=0.5, softening=0.1,
    ...                     restitution={"Bridges": {"v_c": 7.7e-5}})
    >>> ring.integrate(orbits=0.1)
    >>> ring.observables()["tau"]
    """

    def __init__(
        self,
        *,
        threads: Optional[int] = None,
        backend: Optional[str] = None,
        cpu_passes: Optional[str] = None,
        device: Optional[int] = None,
        **settings: Any,
    ) -> None:
        settings.setdefault("name", "sheet")
        settings.setdefault("steps", 0)
        settings.setdefault("output", {"dir": ""})
        if isinstance(settings.get("ghosts"), list):
            settings["ghosts"] = tuple(settings["ghosts"])
        self._settings = settings
        self._native = _orrery.NativeSheet(settings, threads, backend, cpu_passes, device)

    def integrate(self, *, steps: Optional[int] = None, orbits: Optional[float] = None) -> int:
        """Integrate ``steps`` more steps, or on to ``orbits`` orbital periods from the start (the
        first step at or after it). Releases the interpreter's lock; Ctrl-C stops at the end of
        a step and raises ``KeyboardInterrupt`` with that step's state kept. Returns the step."""
        wanted = _steps_wanted(self.step, steps, orbits, self._settings["dt_orbits"], "orbits")
        return self._native.integrate(wanted)

    @property
    def step(self) -> int:
        """The step reached."""
        return self._native.step

    @property
    def t(self) -> float:
        """The time reached in seconds."""
        return self.step * self._native.dt

    @property
    def orbits(self) -> float:
        """The time reached in orbital periods."""
        return self.step * self._settings["dt_orbits"]

    @property
    def backend(self) -> str:
        """The backend stepping the sheet."""
        return self._native.backend

    @property
    def collisions(self) -> int:
        """Collisions resolved so far."""
        return self._native.counts[1]

    @property
    def candidates(self) -> int:
        """Collision candidate pairs found so far."""
        return self._native.counts[0]

    def particles(self) -> np.ndarray:
        """Every particle now, sorted by id, as a structured array of :data:`SHEET_DTYPE`
        (positions relative to the patch's centre, velocities including the shear flow)."""
        return _rows(self._native.particles(), SHEET_DTYPE)

    @property
    def N(self) -> int:
        """The number of particles."""
        return len(self._native.particles())

    def observables(self) -> Dict[str, Any]:
        """The ring's observables now, as the Series file gives them: ``sigma`` (x, y, z velocity
        dispersions about the shear flow, m/s), ``sigma_total``, ``tau`` (optical depth),
        ``filling_factor`` and ``z_rms`` (m)."""
        return self._native.observables()

    def __repr__(self) -> str:
        return f"<orrery.Sheet {self.N} particles, step {self.step}, {self.orbits:g} orbits>"
