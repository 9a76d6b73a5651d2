"""REBOUND simulations handed to Orrery in REBOUND's own units."""

from __future__ import annotations

import math
from typing import Any, Dict, Optional

import numpy as np

from . import _orrery
from ._orrery import K_GAUSS, InputError
from ._units import TIMES, _Units


def from_rebound(rsim: Any, *, time_step_days: Optional[float] = None, **settings: Any) -> Any:
    """An Orrery :class:`Simulation` of a REBOUND simulation, in REBOUND's units: particle 0 is
    the central body, the others become heliocentric bodies (masses, radii, positions,
    velocities, names), and ``integrate(time=...)``, ``t`` (REBOUND's ``t`` carried over), ``x`` and
    ``v`` mean what they mean in REBOUND. REBOUND's lengths and masses must be AU and Msun
    (``rsim.units`` with 'au' and 'msun', or no units set); its time unit follows from its G
    (G = 1: Orrery's code unit, 1/k
    days; ``('yr', 'AU', 'Msun')``: years; ``('day', 'AU', 'Msun')``: days). The time step is
    REBOUND's ``dt`` unless ``time_step_days`` is given. Further keywords are the scenario's
    settings (``units=`` overrides the units).

    REBOUND's test particles (the particles from ``N_active`` on) become Orrery's: test-particle
    mode with ``particle_minimum_mass`` at the heaviest of them, semi-active where REBOUND's
    ``testparticle_type`` is 1. Orrery tells test particles by mass, so an active particle no
    heavier than a test particle is refused."""
    G = float(rsim.G)
    if not (G > 0 and math.isfinite(G)):
        raise InputError(f"field `G`: expected REBOUND's G > 0, got {G}")
    try:
        units = dict(rsim.units or {})
    except Exception:  # a REBOUND without units
        units = {}
    for field, want in (("length", "au"), ("mass", "msun")):
        got = units.get(field)
        if got is not None and str(got).lower() != want:
            raise InputError(
                f"field `units`: REBOUND's {field} unit is `{got}`; expected lengths in AU and masses "
                "in Msun (or no units with G in AU and Msun)"
            )
    # REBOUND's time unit in days: G = k^2 T^2 (AU^3 Msun^-1 day^-2 times days^2).
    unit_days = math.sqrt(G) / K_GAUSS
    settings.setdefault("units", ("au", _time_unit_name(units.get("time"), G), "msun"))
    if time_step_days is None and "time_step" not in settings:
        if not rsim.dt > 0:
            raise InputError("field `dt`: REBOUND's dt is not positive; expected time_step_days=")
        time_step_days = abs(rsim.dt) * unit_days
    ps = rsim.particles
    star = ps[0]
    # REBOUND's central body (Msun, AU) in the Simulation's units (`units=` may override them).
    mine = _Units(settings["units"])
    settings.setdefault("central_mass", star.m / mine.mass)
    if star.r > 0:
        settings.setdefault("central_radius", star.r / mine.length)
    for key, value in _test_particle_settings(rsim, mine.mass).items():
        settings.setdefault(key, value)
    from . import Simulation

    sim = Simulation(time_step_days=time_step_days, **settings)
    n = rsim.N - 1
    if n > 0:
        rows = np.array([[p.m, p.r, p.x - star.x, p.y - star.y, p.z - star.z, p.vx - star.vx, p.vy - star.vy, p.vz - star.vz] for p in ps[1:]])
        # REBOUND's velocities (AU per its time unit, sqrt(G) code units) in the Simulation's units.
        scale = 1.0 / (math.sqrt(G) * sim._units.velocity)
        # Each particle's own radius; REBOUND's r = 0 (none given) gets the default_rho radius.
        rho = float(sim._settings.get("default_rho", 2.0))
        radius = np.where(rows[:, 1] > 0, rows[:, 1], _orrery.radius_from_density(rows[:, 0], rho))
        radius = radius / sim._units.length
        sim.add(
            m=rows[:, 0] / sim._units.mass, r=radius,
            x=rows[:, 2] / sim._units.length, y=rows[:, 3] / sim._units.length, z=rows[:, 4] / sim._units.length,
            vx=rows[:, 5] * scale, vy=rows[:, 6] * scale, vz=rows[:, 7] * scale,
            name=[getattr(p, "name", None) or None for p in ps[1:]],
        )
    # REBOUND's time, from its time unit (unit_days days) to the Simulation's.
    sim.t = float(rsim.t) * unit_days * K_GAUSS / sim._units.time
    return sim


def _test_particle_settings(rsim: Any, mass_unit: float) -> Dict[str, Any]:
    """The settings that make REBOUND's test particles (from ``N_active`` on) Orrery's, in a
    Simulation of mass unit ``mass_unit`` (Msun): none when every particle is active."""
    n_active = int(rsim.N_active)
    if n_active < 0 or n_active >= rsim.N:
        return {}
    masses = [p.m for p in rsim.particles]
    heaviest_test = max(masses[n_active:])
    light = [k for k in range(1, n_active) if masses[k] <= heaviest_test]
    if light:
        k = light[0]
        raise InputError(
            f"field `N_active`: REBOUND's active particle {k} (m = {masses[k]!r}) is no heavier than "
            f"its heaviest test particle (m = {heaviest_test!r}); expected active particles heavier "
            "than every test particle (Orrery tells test particles by mass)"
        )
    semi = int(getattr(rsim, "testparticle_type", 0)) == 1 and heaviest_test > 0
    out: Dict[str, Any] = {"mode": "TestParticles", "particle_minimum_mass": heaviest_test / mass_unit}
    if semi:
        out["semi_active"] = True
    return out


def _time_unit_name(name: Optional[str], G: float) -> str:
    """The name of REBOUND's time unit for a Simulation: its own name where Orrery knows it and
    its G agrees (to 1e-12), ``"code"`` for G = 1, otherwise the unit in days from G."""
    per_unit = math.sqrt(G)  # code units per REBOUND time unit
    if name is not None and str(name).lower() in TIMES:
        if abs(TIMES[str(name).lower()] / per_unit - 1.0) < 1e-12:
            return str(name).lower()
    if abs(per_unit - 1.0) < 1e-12:
        return "code"
    return f"{per_unit / K_GAUSS!r} day"


