"""Named units and the conversion between a user's units and Orrery's own (AU, Msun and the
code time unit 1/k days, so that G = 1): one object, one unit system, every number in and out."""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple

from ._orrery import K_GAUSS, InputError

_DAYS_PER_YEAR = 365.25
_AU_M = 1.495978707e11
#: The solar mass in kg of the ``kg`` and ``g`` units: the IAU's nominal GM☉ (1.3271244e20
#: m^3/s^2, Orrery's k^2 AU^3/day^2 to 1e-11) over CODATA 2014's G (6.67408e-11), the value
#: REBOUND's SI units use, so that a system given in kg has REBOUND's GM (GENGA's 1.98892e30
#: kg, which its ``param.dat`` files keep, is 2.2e-4 more).
_MSUN_KG = 1.9884754159665356e30
_EARTH_MASS = 3.003489614915764e-6
_JUPITER_MASS = 9.547919384243266e-4

#: Lengths in AU per named unit.
LENGTHS: Dict[str, float] = {"au": 1.0, "km": 1e3 / _AU_M, "m": 1.0 / _AU_M, "cm": 0.01 / _AU_M}
#: Masses in Msun per named unit (``kg`` and ``g`` with REBOUND's solar mass, 1.98847542e30 kg).
MASSES: Dict[str, float] = {
    "msun": 1.0,
    "mjupiter": _JUPITER_MASS,
    "mjup": _JUPITER_MASS,
    "mearth": _EARTH_MASS,
    "kg": 1.0 / _MSUN_KG,
    "g": 1e-3 / _MSUN_KG,
}
#: Times in code units (1/k days) per named unit.
TIMES: Dict[str, float] = {
    "code": 1.0,
    "day": K_GAUSS,
    "days": K_GAUSS,
    "yr": _DAYS_PER_YEAR * K_GAUSS,
    "year": _DAYS_PER_YEAR * K_GAUSS,
    "s": K_GAUSS / 86400.0,
}

#: The keys of an energy line that are energies, and those that are angular momenta.
_ENERGIES = ("potential", "kinetic", "u", "e_total")
_MOMENTA = ("l_lost", "l_total")


def _scaled_unit(name: str) -> Tuple[float, str]:
    """A unit's name as (factor, base name): ``"yr"`` is (1, "yr"), ``"58.13 day"`` (58.13, "day")."""
    text = str(name).strip().lower()
    head, _, tail = text.partition(" ")
    if tail:
        try:
            return float(head), tail.strip()
        except ValueError:
            pass
    return 1.0, text


class _Units:
    """Conversion between a user's named units and Orrery's (AU, Msun, 1/k days). A name may
    carry a factor: ``"1000 yr"``, ``"58.13244 day"``. Each attribute is Orrery's units per
    user unit; ``epoch`` is the user's time at step 0 (REBOUND's ``t`` at a hand-over), which
    every absolute time given back includes."""

    def __init__(self, units: Optional[Sequence[str]]):
        self.epoch = 0.0
        if units is None:
            self.length = self.mass = self.time = 1.0
            self.names = ("au", "code", "msun")
            return
        length = mass = time = None
        for u in units:
            factor, key = _scaled_unit(u)
            if key in LENGTHS:
                length = factor * LENGTHS[key]
            elif key in MASSES:
                mass = factor * MASSES[key]
            elif key in TIMES:
                time = factor * TIMES[key]
            else:
                raise InputError(
                    f"field `units`: unknown unit `{u}`; expected one length ({', '.join(LENGTHS)}), "
                    f"one time ({', '.join(TIMES)}) and one mass ({', '.join(MASSES)})"
                )
        if None in (length, mass, time):
            raise InputError(
                "field `units`: expected one length, one time and one mass unit, "
                f"e.g. ('au', 'yr', 'msun'); got {tuple(units)}"
            )
        self.length, self.mass, self.time = length, mass, time
        self.names = tuple(units)

    @property
    def velocity(self) -> float:
        """Orrery velocity (AU per code unit) per user velocity unit."""
        return self.length / self.time

    @property
    def energy(self) -> float:
        """Orrery energy per user energy unit."""
        return self.mass * self.velocity * self.velocity

    @property
    def spin(self) -> float:
        """Orrery angular momentum (Msun AU^2 per code unit) per user unit."""
        return self.mass * self.length * self.velocity

    def length_name(self) -> str:
        """The length unit's name for messages (``AU`` by default)."""
        for name in self.names:
            if _scaled_unit(name)[1] in LENGTHS:
                return "AU" if _scaled_unit(name) == (1.0, "au") else str(name)
        return "AU"

    def time_name(self) -> str:
        """The time unit's name (``code`` by default)."""
        for name in self.names:
            if _scaled_unit(name)[1] in TIMES:
                return str(name)
        return "code"

    def from_years(self, years: Any) -> Any:
        """Times since step 0 in years of 365.25 days as the user's times (the epoch added)."""
        return self.epoch + years * (_DAYS_PER_YEAR * K_GAUSS) / self.time

    def epoch_years(self) -> float:
        """The epoch in years of 365.25 days."""
        return self.epoch * self.time / (_DAYS_PER_YEAR * K_GAUSS)

    def energy_line(self, line: Dict[str, Any]) -> Dict[str, Any]:
        """A native energy line (years, Orrery's units) in the user's units; the relative errors
        have none."""
        out = dict(line)
        out["time"] = self.from_years(line["time"])
        for key in _ENERGIES:
            out[key] = line[key] / self.energy
        for key in _MOMENTA:
            out[key] = line[key] / self.spin
        if line.get("central_spin") is not None:
            out["central_spin"] = [s / self.spin for s in line["central_spin"]]
        return out
