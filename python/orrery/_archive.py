"""Archives of snapshots, as REBOUND's Simulationarchive.

``sim.integrate(..., archive="run.orrery", every=X)`` appends a snapshot of the simulation to the
file every ``X`` of its time unit (on the steps that are multiples of ``X / dt``), at the start
when the file is new, and when a stop ends the run. ``orrery.Archive("run.orrery")[k]`` is a
:class:`~orrery.Simulation` at snapshot ``k``, loaded when asked for and continuing bitwise as
the archived run went on.

The file is a header line and then one record per snapshot: its byte length, step and time
(little-endian u64, u64, f64) and the bytes :meth:`Simulation.save` writes. Records are only
appended, so a run that is killed while writing leaves every earlier snapshot whole; the reader
leaves out an incomplete last record, with a warning.
"""

import io
import math
import os
import struct
import warnings
from typing import Any, Iterator, List, Optional, Tuple, Union

import numpy as np

from . import _finish
from ._orrery import InputError

__all__ = ["Archive"]

HEADER = b"ORRERY-ARCHIVE 1\n"
_RECORD = struct.Struct("<QQd")


def append(sim: Any, path: Union[str, os.PathLike]) -> None:
    """Append a snapshot of ``sim`` to the archive ``path`` (made when missing)."""
    buffer = io.BytesIO()
    sim.save(buffer)
    data = buffer.getvalue()
    fresh = not os.path.exists(path) or os.path.getsize(path) == 0
    with open(path, "ab") as f:
        if fresh:
            f.write(HEADER)
        # The time of the step saved (not an exact finish time shown beside it).
        f.write(_RECORD.pack(len(data), sim.step, sim._units.epoch + sim.step * sim.dt))
        f.write(data)


def integrate(sim: Any, path: Union[str, os.PathLike], every: Any, steps: Optional[int], time: Optional[float],
              raise_on_stop: bool, exact_finish_time: bool) -> int:
    """``sim.integrate`` with a snapshot appended to ``path`` on every step that is a multiple of
    ``every / dt`` (see the module docs). Returns the step reached."""
    from . import StopCondition
    from ._common import _steps_wanted

    if not (isinstance(every, (int, float, np.integer, np.floating)) and math.isfinite(every) and every > 0):
        raise InputError(f"field `every`: expected a positive time between snapshots, got {every!r}")
    per = max(1, round(float(every) / sim.dt))
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        append(sim, path)
    native = sim._started()
    if exact_finish_time:
        # The whole steps first, with their snapshots; then the exact finish itself.
        if time is None or steps is not None:
            raise InputError("field `exact_finish_time`: expected time= (and no steps=) with it")
        _steps_wanted(native.step, None, time, sim.dt, "time", sim._units.epoch)
        last = _finish.last_step_at_or_before((float(time) - sim._units.epoch) / sim.dt, native.step)
        integrate(sim, path, every, last - native.step, None, raise_on_stop, False)
        return sim.integrate(time=time, raise_on_stop=raise_on_stop, exact_finish_time=True)
    end = native.step + _steps_wanted(native.step, steps, time, sim.dt, "time", sim._units.epoch)
    while native.step < end and native.stopped is None:
        mark = min((native.step // per + 1) * per, end)
        try:
            sim.integrate(steps=mark - native.step, raise_on_stop=raise_on_stop)
        except StopCondition:
            append(sim, path)
            raise
        if native.step % per == 0 or native.stopped is not None:
            append(sim, path)
    return native.step


class Archive:
    """The snapshots of an archive file (``integrate(..., archive=path, every=...)``):
    ``len(archive)`` of them, ``archive[k]`` a :class:`~orrery.Simulation` at snapshot ``k``
    (loaded from the file when asked for; negative ``k`` counts from the end), ``steps`` and
    ``times`` of every snapshot (the simulation's time unit), :meth:`at` the last one at or
    before a time. An incomplete last record (a run killed while writing it) is left out with a
    warning."""

    def __init__(self, path: Union[str, os.PathLike]) -> None:
        self.path = os.fspath(path)
        self._records: List[Tuple[int, int, int, float]] = []  # offset, length, step, time
        try:
            with open(self.path, "rb") as f:
                if f.read(len(HEADER)) != HEADER:
                    raise InputError(f"{self.path}: not an Orrery archive (expected its header line)")
                size = os.fstat(f.fileno()).st_size
                at = len(HEADER)
                while at + _RECORD.size <= size:
                    f.seek(at)
                    length, step, t = _RECORD.unpack(f.read(_RECORD.size))
                    if at + _RECORD.size + length > size:
                        break
                    self._records.append((at + _RECORD.size, length, step, t))
                    at += _RECORD.size + length
                if at < size:
                    warnings.warn(f"{self.path}: an incomplete last snapshot ({size - at} bytes) is left out",
                                  stacklevel=2)
        except OSError as err:
            raise InputError(f"{self.path}: cannot read the archive ({err})") from None

    def __len__(self) -> int:
        return len(self._records)

    @property
    def steps(self) -> np.ndarray:
        """The step of every snapshot."""
        return np.array([r[2] for r in self._records], dtype=np.int64)

    @property
    def times(self) -> np.ndarray:
        """The time of every snapshot, in the simulation's time unit."""
        return np.array([r[3] for r in self._records], dtype=float)

    def __getitem__(self, k: int) -> Any:
        """Snapshot ``k`` as a :class:`~orrery.Simulation` that continues bitwise."""
        from . import Simulation
        from ._common import _index

        offset, length, _, _ = self._records[_index(k, len(self), "snapshot")]
        with open(self.path, "rb") as f:
            f.seek(offset)
            data = f.read(length)
        return Simulation.load(io.BytesIO(data))

    def __iter__(self) -> Iterator[Any]:
        return (self[k] for k in range(len(self)))

    def at(self, t: float) -> Any:
        """The last snapshot at or before time ``t`` (the simulation's time unit)."""
        times = self.times
        k = int(np.searchsorted(times, float(t), side="right")) - 1
        if k < 0:
            raise InputError(f"field `t`: {t} is before the first snapshot, at {times[0] if len(times) else 'none'}")
        return self[k]

    def __repr__(self) -> str:
        return f"<orrery.Archive {self.path}: {len(self)} snapshots>"
