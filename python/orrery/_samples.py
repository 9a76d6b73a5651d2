"""Sampled time series (``samples={"every": ..., "what": [...]}``) as numpy arrays, and as an
``xarray.Dataset`` where xarray is installed: the arrays of a run's ``Samples<name>.npz``."""

from __future__ import annotations

import os
from typing import Any, Dict, Union

import numpy as np

#: The dimensions of each kind of array.
_DIMS = {1: ("system",), 2: ("system", "sample"), 3: ("system", "sample", "body")}


def _dataset(arrays: Dict[str, np.ndarray]) -> Any:
    """The arrays as an ``xarray.Dataset``: dimensions ``system``, ``sample`` and ``body``, the
    systems' indices, the steps and the times (years) as coordinates."""
    try:
        import xarray
    except ImportError:
        raise ImportError("samples as a Dataset need xarray (pip install xarray); without it, "
                          "use the arrays (xarray=False)") from None
    coords = {
        "system": ("system", arrays["system"]),
        "step": (("system", "sample"), arrays["step"]),
        "time": (("system", "sample"), arrays["time"], {"units": "yr"}),
    }
    data = {name: (_DIMS[a.ndim], a) for name, a in arrays.items() if name not in ("system", "step", "time")}
    return xarray.Dataset(data, coords=coords)


def _result(arrays: Dict[str, np.ndarray], xarray: bool) -> Any:
    return _dataset(arrays) if xarray else arrays


def read_samples(path: Union[str, os.PathLike], *, xarray: bool = False) -> Any:
    """A run's ``Samples<name>.npz`` as a dict of arrays (``numpy.load`` reads the same file
    without Orrery), or with ``xarray=True`` as an ``xarray.Dataset``. Arrays: ``system`` [S],
    ``step`` and ``time`` (years) [S, N], the systems' values (``megno``, ``lyapunov``,
    ``min_distance``, ``min_distance_hill``, ``energy_error``) [S, N], the bodies' (``id``, the
    elements ``a e inc node peri pomega mean_anomaly mean_longitude period`` and the ``jacobi_``
    ones) [S, N, B]; NaN (-1 for integers) where a system has no sample or a slot no body."""
    with np.load(os.fspath(path)) as f:
        arrays = {name: f[name] for name in f.files}
    return _result(arrays, xarray)
