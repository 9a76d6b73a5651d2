"""Helpers the module's classes share: body tables as structured arrays, the steps an
``integrate`` call asks for, and checked indices and thread counts."""

from __future__ import annotations

import math
from typing import Optional

import numpy as np

from ._orrery import InputError


def _rows(table: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A (K, 12) table of body columns as a structured array of ``dtype``."""
    out = np.zeros(len(table), dtype=dtype)
    for k, name in enumerate(dtype.names):
        out[name] = table[:, k]
    return out


def _steps_wanted(
    step: int, steps: Optional[int], until: Optional[float], per_step: float, name: str, epoch: float = 0.0
) -> int:
    """The steps an ``integrate(steps=N | <name>=T)`` call asks for at step ``step``: ``N``, or
    up to the first step at or after ``T`` (``per_step`` of ``T``'s unit a step, ``epoch`` the
    time of step 0). A ``T`` before the time reached, a ``N`` that is not a whole number >= 0,
    and NaN are errors, never a silent truncation or an empty call."""
    if (steps is None) == (until is None):
        raise InputError(f"field `integrate`: expected exactly one of steps= and {name}=")
    if until is not None:
        target = (float(until) - epoch) / per_step
        if not math.isfinite(target):
            raise InputError(f"field `{name}`: expected a finite {name}, got {until}")
        last = math.ceil(target - 1e-9)
        if last < step:
            raise InputError(
                f"field `{name}`: {until} is before the {name} reached, {epoch + step * per_step:.17g}; "
                "expected a later one (integrate goes forward)"
            )
        return last - step
    if isinstance(steps, (bool, np.bool_)) or not isinstance(steps, (int, np.integer, float, np.floating)):
        raise InputError(f"field `steps`: expected a whole number of steps, got {steps!r}")
    if not (math.isfinite(steps) and float(steps) == math.floor(steps) and steps >= 0):
        raise InputError(f"field `steps`: expected a whole number of steps >= 0, got {steps!r}")
    return int(steps)


def _index(k: Any, n: int, name: str) -> int:
    """``k`` as an index into ``n`` items: a whole number (negative ones count from the end)."""
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise InputError(f"field `{name}`: expected a whole number, got {k!r}")
    if not -n <= int(k) < n:
        raise InputError(f"field `{name}`: {int(k)} of {n}; expected {-n} to {n - 1}")
    return int(k) % n


def _threads(value: Any) -> Optional[int]:
    """A thread count: None (every core) or a whole number >= 1."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InputError(f"field `threads`: expected a whole number >= 1 or None, got {value!r}")
    return int(value)
