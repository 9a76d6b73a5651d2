"""orrery.plot (issue 45, "what REBOUND users reach for"): the orbits drawn are the bodies'
osculating conics, through the bodies, in the simulation's length unit."""
import math

import numpy as np
import pytest

import orrery

matplotlib = pytest.importorskip("matplotlib", reason="SKIPPED: matplotlib is not installed")
matplotlib.use("Agg")


def _system(**kw):
    sim = orrery.Simulation(time_step_days=5.0, **kw)
    sim.add(m=9.5e-4, a=5.2, e=0.05, inc=0.3, node=1.0, peri=0.5, M=2.0, name="Jupiter")
    sim.add(m=3e-6, a=1.0, e=0.6, inc=0.1, M=4.0, name="Earth")
    # A hyperbolic comet: q = a (1 - e) = 2 with a = -4, e = 1.5.
    sim.add(m=0.0, a=-4.0, e=1.5, inc=1.0, M=0.2, name="Comet")
    return sim


def test_orbit_curves_are_the_osculating_conics_through_the_bodies():
    sim = _system()
    sim.integrate(steps=10)
    curves = orrery.plot.orbit_curves(sim, samples=4096)
    el = sim.elements()
    assert [c["name"] for c in curves] == ["Jupiter", "Earth", "Comet"]
    for c, row in zip(curves, el):
        pts, pos = c["orbit"], c["position"]
        a, e = float(row["a"]), float(row["e"])
        dist = np.linalg.norm(pts, axis=1)
        # In the orbit's plane (through the star and the body's momentum).
        normal = np.cross(pts[0], pts[len(pts) // 3])
        normal /= np.linalg.norm(normal)
        assert np.max(np.abs(pts @ normal)) < 1e-12 * abs(a)
        assert np.linalg.norm(pos) == pytest.approx(np.linalg.norm(sim.x[c["i"]]), rel=1e-15)
        assert dist.min() == pytest.approx(a * (1 - e), rel=1e-6)
        if e < 1:
            assert dist.max() == pytest.approx(a * (1 + e), rel=1e-6)
            spacing = 2 * math.pi * a * (1 + e) / len(pts)
        else:
            spacing = np.max(np.linalg.norm(np.diff(pts, axis=0), axis=1))
        # The body lies on its drawn orbit.
        assert np.min(np.linalg.norm(pts - pos, axis=1)) < spacing


def test_orbits_draws_a_panel_per_view_in_the_simulations_length_unit():
    sim = _system(units=("au", "yr", "msun"))
    fig = orrery.plot.orbits(sim, views=("xy", "xz", "yz"))
    axes = fig.get_axes()
    assert len(axes) == 3
    assert [ax.get_xlabel() for ax in axes] == ["x [au]", "x [au]", "y [au]"]
    # Per body an orbit and a dot, and the star.
    assert all(len(ax.get_lines()) == 2 * 3 + 1 for ax in axes)
    # The x-z panel's orbit of Jupiter is its orbit's x and z.
    curve = orrery.plot.orbit_curves(sim)[0]["orbit"]
    line = axes[1].get_lines()[0]
    assert np.array_equal(line.get_xdata(), curve[:, 0]) and np.array_equal(line.get_ydata(), curve[:, 2])
    with pytest.raises(orrery.InputError, match="views"):
        orrery.plot.orbits(sim, views=("xw",))


def test_ae_plots_every_bound_body_of_an_ensemble():
    systems = []
    for k in range(3):
        s = orrery.Simulation(time_step_days=5.0)
        s.add(m=[9.5e-4, 3e-6], a=[5.2, 1.0 + 0.1 * k], e=[0.05, 0.1 * k])
        systems.append(s)
    ens = orrery.Ensemble(systems)
    fig = orrery.plot.ae(ens)
    points = np.concatenate([ln.get_xydata() for ln in fig.get_axes()[0].get_lines()])
    assert len(points) == 6
    expected = np.concatenate([[ens.elements(k)["a"], ens.elements(k)["e"]] for k in range(3)], axis=1).T
    assert np.allclose(np.sort(points, axis=0), np.sort(expected, axis=0), rtol=0, atol=0)
