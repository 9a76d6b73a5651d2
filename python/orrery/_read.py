"""Reading a run's output directory (the files docs/guide/outputs.md lists)."""

from __future__ import annotations

import csv
import os
import re
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

import numpy as np

SNAPSHOT_COLUMNS = ("t", "i", "m", "r", "x", "y", "z", "vx", "vy", "vz", "sx", "sy", "sz")
ENERGY_COLUMNS = ("time", "n", "potential", "kinetic", "l_lost", "u", "e_total", "l_total", "l_relative", "e_relative")
SPIN_COLUMNS = ("star_sx", "star_sy", "star_sz")
BODY_COLUMNS = SNAPSHOT_COLUMNS[1:]
SHEET_COLUMNS = ("x", "y", "z", "vx", "vy", "vz", "r", "m")
SERIES_COLUMNS = (
    "step", "t_s", "t_orbits", "n", "sigma_x", "sigma_y", "sigma_z", "sigma", "tau",
    "filling_factor", "z_rms", "candidates_per_step", "collisions_per_step",
)


def _structured(table: np.ndarray, names: Any) -> np.ndarray:
    table = np.asarray(table, dtype=np.float64).reshape(-1, len(names))
    out = np.zeros(len(table), dtype=[(n, "f8") for n in names])
    for k, n in enumerate(names):
        out[n] = table[:, k]
    return out


def _load_text(path: Path, width: int) -> np.ndarray:
    if path.stat().st_size == 0:
        return np.zeros((0, width))
    return np.loadtxt(path, ndmin=2, comments="#")


class Output:
    """A run's output directory, read into numpy structured arrays.

    Attributes (None or empty where the run wrote no such file):

    * ``name`` -- the run's name (``Out<name>_...``);
    * ``snapshots`` -- ``{step: array}`` of every ``Out<name>_<step>.dat``/``.bin`` (fields
      ``t i m r x y z vx vy vz sx sy sz``); ``steps`` their sorted steps; ``last`` the newest;
    * ``energy`` -- the Energy file (``time n potential kinetic l_lost u e_total l_total
      l_relative e_relative``, and ``star_sx star_sy star_sz`` with tides);
    * ``collisions`` -- ``t`` and both bodies' columns (``a_i a_m ... b_sz``); ``ejections`` --
      ``t``, the body's columns and ``case``;
    * ``summary`` -- an ensemble's ``summary.csv`` as a list of dictionaries;
    * ``sheet`` -- ``{step: array}`` of sheet snapshots (``x y z vx vy vz r m``, SI) and
      ``series`` the sheet's ``Series<name>.dat``.

    :meth:`frames` gives the tables as pandas DataFrames.
    """

    def __init__(self, directory: Union[str, os.PathLike], name: Optional[str] = None):
        d = Path(directory)
        if not d.is_dir():
            from ._orrery import InputError

            raise InputError(f"{d}: not a directory; expected a run's output directory")
        self.directory = d
        self.name = name if name is not None else _guess_name(d)
        n = re.escape(self.name or "")
        self.snapshots: Dict[int, np.ndarray] = {}
        self.sheet: Dict[int, np.ndarray] = {}
        for f in sorted(d.iterdir()):
            m = re.fullmatch(rf"Out{n}_(\d+)\.(dat|bin)", f.name)
            if m:
                if m.group(2) == "bin":
                    table = np.fromfile(f, "<f8").reshape(-1, 13)
                else:
                    table = _load_text(f, 13)
                self.snapshots[int(m.group(1))] = _snapshot(table)
            m = re.fullmatch(rf"Sheet{n}_(\d+)\.dat", f.name)
            if m:
                self.sheet[int(m.group(1))] = _structured(_load_text(f, 8), SHEET_COLUMNS)
        self.energy = self._table(f"Energy{self.name}.dat", _energy)
        both = [f"a_{c}" for c in BODY_COLUMNS] + [f"b_{c}" for c in BODY_COLUMNS]
        self.collisions = self._table(f"Collisions{self.name}.dat", lambda t: _structured(t, ("t", *both)))
        self.ejections = self._table(
            f"Ejections{self.name}.dat", lambda t: _structured(t, ("t", *BODY_COLUMNS, "case"))
        )
        self.series = self._table(f"Series{self.name}.dat", lambda t: _structured(t, SERIES_COLUMNS))
        summary = d / "summary.csv"
        self.summary: Optional[List[Dict[str, str]]] = None
        if summary.exists():
            with open(summary, newline="") as fh:
                self.summary = list(csv.DictReader(fh))

    def _table(self, file: str, make: Any) -> Optional[np.ndarray]:
        path = self.directory / file
        if not path.exists():
            return None
        width = len(open(path).readline().split()) or 1
        return make(_load_text(path, width))

    @property
    def steps(self) -> List[int]:
        """The steps of the snapshots, sorted."""
        return sorted(self.snapshots)

    @property
    def last(self) -> Optional[np.ndarray]:
        """The newest snapshot."""
        return self.snapshots[self.steps[-1]] if self.snapshots else None

    def frames(self) -> Dict[str, Any]:
        """The tables as pandas DataFrames (needs pandas): ``energy``, ``collisions``,
        ``ejections``, ``summary``, ``series`` and ``snapshots`` (one frame, with a ``step``
        column)."""
        import pandas as pd

        out: Dict[str, Any] = {}
        for key in ("energy", "collisions", "ejections", "series"):
            table = getattr(self, key)
            if table is not None:
                out[key] = pd.DataFrame(table)
        if self.summary is not None:
            out["summary"] = pd.DataFrame(self.summary)
        if self.snapshots:
            parts = [pd.DataFrame(self.snapshots[s]).assign(step=s) for s in self.steps]
            out["snapshots"] = pd.concat(parts, ignore_index=True)
        return out

    def __repr__(self) -> str:
        return (
            f"<orrery.Output {self.directory} name={self.name!r}: {len(self.snapshots)} snapshots, "
            f"{0 if self.energy is None else len(self.energy)} energy lines, "
            f"{0 if self.collisions is None else len(self.collisions)} collisions, "
            f"{0 if self.ejections is None else len(self.ejections)} ejections>"
        )


def _snapshot(table: np.ndarray) -> np.ndarray:
    out = _structured(table, SNAPSHOT_COLUMNS)
    return out.astype([(c, "i8" if c == "i" else "f8") for c in SNAPSHOT_COLUMNS])


def _energy(table: np.ndarray) -> np.ndarray:
    names = ENERGY_COLUMNS + (SPIN_COLUMNS if table.shape[1] == 13 else ())
    return _structured(table, names)


def _guess_name(d: Path) -> str:
    """The run's name from its info, Energy or snapshot files (the one name in the folder)."""
    names = set()
    for f in d.iterdir():
        for pattern in (r"info(.*)\.dat", r"Energy(.*)\.dat", r"Out(.*)_\d+\.(?:dat|bin)", r"Sheet(.*)_\d+\.dat"):
            m = re.fullmatch(pattern, f.name)
            if m:
                names.add(m.group(1))
    if len(names) > 1:
        from ._orrery import InputError

        raise InputError(f"{d}: holds the files of several runs ({', '.join(sorted(names))}); expected name=")
    return names.pop() if names else ""


def read(directory: Union[str, os.PathLike], name: Optional[str] = None, *, pandas: bool = False) -> Any:
    """Read a run's output directory (:class:`Output`); with ``pandas=True`` the tables as
    DataFrames (:meth:`Output.frames`)."""
    out = Output(directory, name)
    return out.frames() if pandas else out
