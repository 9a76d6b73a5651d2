"""Grids of initial conditions: ``orrery.grid`` lays points out as REBOUND's MEGNO-map example
and as an ``Ensemble(...)`` file's ``Grid(...)`` body does (the first axis fastest), its points are
numpy's ``linspace`` to the bit, and ``Grid.map`` turns per-system values into the map."""

import numpy as np
import pytest

import orrery


def test_points_are_linspace_to_the_bit_first_axis_fastest():
    g = orrery.grid(a=(7.0, 10.0, 20), e=(0.0, 0.5, 15))
    par_a, par_e = np.linspace(7.0, 10.0, 20), np.linspace(0.0, 0.5, 15)
    assert np.array_equal(g.axes["a"], par_a) and np.array_equal(g.axes["e"], par_e)
    # REBOUND's example: parameters = [(a, e) for e in par_e for a in par_a].
    rebound_order = [(a, e) for e in par_e for a in par_a]
    assert [(p["a"], p["e"]) for p in g] == rebound_order
    pts = g.points
    assert np.array_equal(pts["a"], [a for a, _ in rebound_order])
    assert np.array_equal(pts["e"], [e for _, e in rebound_order])
    assert len(g) == 300 and g.shape == (15, 20)
    # The extent's cells are centred on the points, as orrery plot map draws them.
    assert g.extent == pytest.approx([7.0 - 1.5 / 19, 10.0 + 1.5 / 19, -0.25 / 14, 0.5 + 0.25 / 14])
    # The map: row j is e_j, column i is a_i, as imshow(origin="lower") draws it.
    values = np.array([10.0 * a + e for a, e in rebound_order])
    m = g.map(values)
    assert m.shape == (15, 20) and m[3, 7] == 10.0 * par_a[7] + par_e[3]
    # Two passes over the grid: each point's median.
    assert np.array_equal(g.map(np.concatenate([values, values + 2.0, values + 1.0])), m + 1.0)


def test_log_axes_arrays_and_bad_axes():
    assert list(orrery.grid(a=[7, 8, 9]).axes["a"]) == [7.0, 8.0, 9.0], "a list is its points"
    g = orrery.grid(m=(1e-6, 1e-3, 4), a=[5.0, 6.0], log="m")
    assert g.edges("m")[0] == pytest.approx(1e-6 / 10**0.5) and g.edges("a")[-1] == 6.5
    assert g.axes["m"][0] == 1e-6 and g.axes["m"][-1] == 1e-3
    assert np.allclose(g.axes["m"][1:] / g.axes["m"][:-1], 10.0, rtol=1e-13)
    assert g.shape == (2, 4) and g[5] == {"m": g.axes["m"][1], "a": 6.0}
    for bad, match in [
        ({"a": (10.0, 7.0, 5)}, "lo <= hi"),
        ({"a": (7.0, 10.0, 0)}, "n >= 1"),
        ({"a": (7.0, 10.0, 2.5)}, "integer n"),
        ({"a": []}, "non-empty"),
        ({}, "at least one axis"),
    ]:
        with pytest.raises(orrery.InputError, match=match):
            orrery.grid(**bad)
    with pytest.raises(orrery.InputError, match="lo > 0"):
        orrery.grid(a=(0.0, 1.0, 3), log=["a"])
    with pytest.raises(orrery.InputError, match="name no axis"):
        orrery.grid(a=(1.0, 2.0, 3), log=["e"])
    with pytest.raises(orrery.InputError, match="multiple of the grid's 8"):
        g.map(np.ones(12))


def test_a_scenario_grid_is_the_python_grid(tmp_path):
    """An Ensemble(...) file with a Grid(...) body: system k starts at orrery.grid's point k
    (read back from summary.csv after zero steps), and two passes over the grid repeat it."""
    out = tmp_path / "out"
    text = f"""Ensemble(
    systems: 24, seed: 3,
    hypothetical: [
        Grid(name: "S", m: 2.858e-4, a: (7.0, 10.0, 4), e: LogGrid(0.01, 0.3, 3), inc_deg: 0.0,
             node_deg: Some(0.0), peri_deg: Some(0.0), mean_anomaly_deg: Some(0.0)),
    ],
    scenario: Scenario(
        name: "grid", mode: Multi, time_step_days: 60.0, steps: Some(1),
        integrator: WisdomHolman(correctors: 0),
        bodies: [Kepler(name: "J", m: 9.5e-4, a: 5.2, e: 0.05, inc_deg: 0.0, node_deg: 0.0, peri_deg: 0.0,
                        mean_anomaly_deg: 0.0)],
        output: (dir: "{out}", energy_interval: 0, coordinates_interval: 0, checkpoint_interval: -1),
    ),
)"""
    path = tmp_path / "grid.ron"
    path.write_text(text)
    orrery.run(path, steps=0)
    table = np.genfromtxt(out / "summary.csv", delimiter=",", names=True, dtype=None, encoding="utf-8")
    g = orrery.grid(a=(7.0, 10.0, 4), e=(0.01, 0.3, 3), log=["e"])
    expected = g.points
    for k, row in enumerate(np.sort(table, order="system")):
        p = expected[k % len(g)]
        assert row["a1"] == pytest.approx(p["a"], rel=1e-12) and row["e1"] == pytest.approx(p["e"], rel=1e-9)
