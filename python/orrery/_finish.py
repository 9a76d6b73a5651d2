"""Exact finish times: the state at a time between two steps, from one step of the
remaining length.

``integrate(time=T, exact_finish_time=True)`` steps to the last step at or before ``T`` and then
takes the state at ``T`` from a copy of the system: a fresh simulation with the same settings,
started from the bodies' state and stepped once by ``T - t``, with the same integrator (the
hybrid step, or the Wisdom-Holman map with its correctors). The simulation itself stays on its
steps: the next ``integrate`` goes on from the last whole step, so asking for the state at ``T``
never changes the trajectory (REBOUND's shortened last step does change it). Until then ``t``,
``state()``, ``x``, ``v``, ``elements()`` and ``particles`` are those at ``T``; ``step``,
``energy()`` and the event tables are those of the last whole step.
"""

import math
import warnings
from typing import Any

import numpy as np

from ._orrery import InputError

#: Settings that are the simulation's own steps, replaced by the one partial step.
_STEP_SETTINGS = ("time_step", "time_step_days", "steps", "end_time_years")


def last_step_at_or_before(target_steps: float, step: int) -> int:
    """The last whole step at or before ``target_steps`` steps (a time, as a count of steps),
    allowing for the rounding of the time's conversion (1e-9 of a step)."""
    last = math.floor(target_steps + 1e-9)
    return max(last, step)


def state_after(sim: Any, h_days: float) -> np.ndarray:
    """The native body table of ``sim`` (a started Simulation) after one step of ``h_days``
    days from its state now, with its settings and integrator, the bodies keeping their
    indices."""
    forces = sim._settings.get("forces") or {}
    if isinstance(forces, dict) and forces.get("tides"):
        raise InputError(
            "field `exact_finish_time`: a simulation with tides keeps its bodies' tidal "
            "properties in its sources; expected exact_finish_time=False (the state at the last "
            "step)"
        )
    from . import Simulation

    table = np.array(sim._started().state())
    settings = {k: v for k, v in sim._settings.items() if k not in _STEP_SETTINGS}
    # Made without units: the settings and the table are in Orrery's units.
    copy = Simulation(time_step_days=h_days, threads=1, _origin=sim._origin, **settings)
    spins = table[:, 9:12]
    copy.add(
        m=table[:, 1], r=table[:, 2],
        x=table[:, 3], y=table[:, 4], z=table[:, 5], vx=table[:, 6], vy=table[:, 7], vz=table[:, 8],
        spin=spins if np.any(spins != 0.0) else None,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        copy.integrate(steps=1, raise_on_stop=False)
    after = np.array(copy._native_table())
    # The copy numbers its bodies 0.. in the order of the table it started from.
    after[:, 0] = table[after[:, 0].astype(np.int64), 0]
    return after
