"""The exceptions ``Simulation.integrate`` raises at a stop condition, by the stop's reason."""

from ._orrery import RunError


class StopCondition(Exception):
    """A :class:`Simulation` met one of its stop conditions during ``integrate``; the message says
    what happened, to which bodies, at which step, and the state at that step is kept."""


class Encounter(StopCondition):
    """Two bodies came closer than ``stop``'s ``hill_radii`` or ``min_distance``."""


class Collision(StopCondition):
    """Two bodies touched, with ``stop={"collision": True}``."""


class Ejection(StopCondition):
    """A body came inside the inner truncation radius, or touched the central body."""


class Escape(StopCondition):
    """A body went beyond the outer truncation radius."""


class Chaotic(StopCondition):
    """MEGNO went above ``chaos``'s ``stop_above`` after ``stop_after_years``."""


# What ``integrate`` raises at each stop (a failed drift of the map is the run's error).
_STOP_CONDITIONS = {"encounter": Encounter, "collision": Collision, "ejection": Ejection,
                    "escape": Escape, "chaotic": Chaotic, "failure": RunError}
