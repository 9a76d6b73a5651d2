"""Grids of initial conditions for stability maps, laid out as an ``Ensemble(...)`` scenario's
``Grid(...)`` bodies are: the first axis varies fastest, as in REBOUND's MEGNO-map example."""

from __future__ import annotations

import math
from typing import Any, Dict, Iterable, Iterator, List, Sequence, Tuple, Union

import numpy as np

from ._orrery import InputError

AxisSpec = Union[Tuple[float, float, int], Sequence[float], np.ndarray]


def _axis_points(name: str, spec: Any, log: bool) -> np.ndarray:
    """The points of one axis: a tuple ``(lo, hi, n)`` evenly spaced (in ``ln x`` when ``log``),
    both ends included, to the bit the points of a scenario's ``(lo, hi, n)`` /
    ``LogGrid(lo, hi, n)``; or a list or array of the points themselves (``[7, 8, 9]`` is three
    points)."""
    if not (isinstance(spec, tuple) and len(spec) == 3):
        points = np.asarray(spec, dtype=float).ravel()
        if points.size == 0 or not np.all(np.isfinite(points)):
            raise InputError(f"field `{name}`: expected (lo, hi, n) or a non-empty array of finite points")
        if log and np.any(points <= 0.0):
            raise InputError(f"field `{name}`: a log axis needs points > 0")
        return points
    try:
        lo, hi, n = float(spec[0]), float(spec[1]), spec[2]
    except (TypeError, ValueError, IndexError):
        raise InputError(f"field `{name}`: expected (lo, hi, n) or an array of points, got {spec!r}") from None
    if not (isinstance(n, (int, np.integer)) and n >= 1 and math.isfinite(lo) and math.isfinite(hi) and lo <= hi):
        raise InputError(f"field `{name}`: expected (lo, hi, n) with lo <= hi and an integer n >= 1, got {spec!r}")
    if log and lo <= 0.0:
        raise InputError(f"field `{name}`: a log axis needs lo > 0, got {lo}")
    n = int(n)
    if n == 1:
        return np.array([lo])
    # The same operations as the scenario's axes (src/config/ensemble/draw.rs, `axis_point`), in
    # Python floats (libm's exp and log, as Rust's) so that both give the same bits.
    div = float(n - 1)
    if log:
        l0, l1 = math.log(lo), math.log(hi)
        step = (l1 - l0) / div
        inner = [math.exp(l0 + k * step) for k in range(1, n - 1)]
    else:
        step = (hi - lo) / div
        inner = [lo + k * step for k in range(1, n - 1)]
    return np.array([lo] + inner + [hi])


class Grid:
    """The points of a grid over named axes, the first axis varying fastest.

    ``orrery.grid(a=(7.0, 10.0, 20), e=(0.0, 0.5, 20))`` has 400 points; ``for p in grid`` gives
    ``{"a": ..., "e": ...}`` in order, so that system ``k`` of an :class:`Ensemble` built in that
    order sits at ``grid[k]``. ``grid.map(ens.megno())`` lays a per-system array out as the map,
    shaped :attr:`shape` (rows the last axis, columns the first, as ``imshow`` draws it with
    :attr:`extent`).
    """

    def __init__(self, axes: Dict[str, np.ndarray], log: Iterable[str] = ()) -> None:
        self.axes: Dict[str, np.ndarray] = axes
        self.log = frozenset(log)
        self.names: List[str] = list(axes)
        self.sizes: Tuple[int, ...] = tuple(len(v) for v in axes.values())

    def __len__(self) -> int:
        return int(np.prod(self.sizes))

    @property
    def shape(self) -> Tuple[int, ...]:
        """The map's shape: the axes' sizes, last axis first (numpy's order for a first axis that
        varies fastest)."""
        return tuple(reversed(self.sizes))

    def index(self, k: int) -> Tuple[int, ...]:
        """Point ``k``'s index along each axis (in the order the axes were given)."""
        if not 0 <= k < len(self):
            raise IndexError(f"point {k} of a grid of {len(self)}")
        out = []
        for n in self.sizes:
            out.append(k % n)
            k //= n
        return tuple(out)

    def __getitem__(self, k: int) -> Dict[str, float]:
        return {name: float(self.axes[name][i]) for name, i in zip(self.names, self.index(k))}

    def __iter__(self) -> Iterator[Dict[str, float]]:
        return (self[k] for k in range(len(self)))

    @property
    def points(self) -> np.ndarray:
        """Every point as a structured array, one field per axis, in order."""
        out = np.zeros(len(self), dtype=[(name, "f8") for name in self.names])
        mesh = np.meshgrid(*(self.axes[n] for n in reversed(self.names)), indexing="ij")
        for name, values in zip(reversed(self.names), mesh):
            out[name] = values.ravel()
        return out

    def map(self, values: Any) -> np.ndarray:
        """A per-point array (one value per system, in order) shaped as the map, :attr:`shape`.
        An array with a whole number of passes over the grid (the same point drawn several
        times) gives each point's median."""
        values = np.asarray(values, dtype=float).ravel()
        if values.size == 0 or values.size % len(self) != 0:
            raise InputError(f"field `values`: expected a multiple of the grid's {len(self)} points, got {values.size}")
        passes = values.reshape(-1, len(self))
        flat = passes[0] if len(passes) == 1 else np.nanmedian(passes, axis=0)
        return flat.reshape(self.shape)

    def edges(self, name: str) -> np.ndarray:
        """The cell edges of axis ``name``: halfway between neighbouring points, half a spacing
        beyond the end points (in ``ln x`` on a log axis), as ``orrery plot map`` draws its
        cells; for ``pcolormesh``."""
        p = np.asarray(self.axes[name], dtype=float)
        log = name in self.log
        q = np.log(p) if log else p
        if len(q) == 1:
            half = 0.5 if q[0] == 0.0 else 0.05 * abs(q[0])
            e = np.array([q[0] - half, q[0] + half])
        else:
            mid = 0.5 * (q[1:] + q[:-1])
            e = np.concatenate([[q[0] - 0.5 * (q[1] - q[0])], mid, [q[-1] + 0.5 * (q[-1] - q[-2])]])
        return np.exp(e) if log else e

    @property
    def extent(self) -> List[float]:
        """``[x_lo, x_hi, y_lo, y_hi]`` of a two-axis grid, the outer cell edges (see
        :meth:`edges`), for matplotlib's ``imshow``, which then centres each cell on its point
        (on evenly spaced linear axes; draw log axes with ``pcolormesh`` and :meth:`edges`)."""
        if len(self.names) != 2:
            raise InputError(f"field `extent`: a map has two axes; this grid has {len(self.names)}")
        x, y = (self.edges(n) for n in self.names)
        return [float(x[0]), float(x[-1]), float(y[0]), float(y[-1])]

    def __repr__(self) -> str:
        axes = ", ".join(f"{n}: {len(v)} points {v[0]:g}..{v[-1]:g}" for n, v in self.axes.items())
        return f"Grid({axes})"


def grid(log: Iterable[str] = (), **axes: AxisSpec) -> Grid:
    """A grid over the named axes, each ``(lo, hi, n)`` (``n`` points from ``lo`` to ``hi``, both
    included: numpy's ``linspace``, and to the bit a scenario's ``Grid(...)`` axis) or an array of
    points; the axes named in ``log`` are evenly spaced in ``ln x`` (a scenario's ``LogGrid``).
    The first axis varies fastest, as an ``Ensemble(...)`` file's grid does.

    >>> g = orrery.grid(a=(7.0, 10.0, 20), e=(0.0, 0.5, 20))
    >>> systems = [jupiter_and_saturn(p["a"], p["e"]) for p in g]
    >>> ens = orrery.Ensemble(systems); ens.integrate(time=5000.0)
    >>> plt.imshow(g.map(ens.megno()), origin="lower", extent=g.extent, aspect="auto")
    """
    if not axes:
        raise InputError("field `axes`: expected at least one axis, such as a=(7.0, 10.0, 20)")
    log = [log] if isinstance(log, str) else list(log)
    unknown = sorted(set(log) - set(axes))
    if unknown:
        raise InputError(f"field `log`: {unknown} name no axis; expected some of {list(axes)}")
    points = {name: _axis_points(name, spec, name in log) for name, spec in axes.items()}
    return Grid(points, log)
