"""Bodies as objects, by index and by name, their orbits and elements against REBOUND's, and
bodies added about other primaries (REBOUND's Jacobi default, or a body)."""
import math
import os
import tempfile

import numpy as np
import pytest

import orrery


def _two_planets(**kw):
    sim = orrery.Simulation(time_step_days=5.0, **kw)
    sim.add(m=9.5e-4, a=5.2, e=0.05, inc=0.02, node=1.0, peri=0.5, M=2.0, name="Jupiter")
    sim.add(m=[2.9e-4, 3e-6], a=[9.5, 1.0], e=[0.05, 0.6], M=[0.3, 4.0], name=["Saturn", "Earth"])
    return sim


def test_particles_by_name_and_index_read_the_state_now():
    sim = _two_planets()
    jup = sim.particles["Jupiter"]
    assert jup.i == 0 and jup.name == "Jupiter"
    assert sim.particles[2].name == "Earth" and sim.particles["Saturn"].i == 1
    state = sim.state()
    assert jup.m == pytest.approx(9.5e-4, rel=1e-15)
    assert jup.xyz == [state["x"][0], state["y"][0], state["z"][0]]
    assert sim.particles["Earth"].vxyz == [state["vx"][2], state["vy"][2], state["vz"][2]]
    before = jup.x
    sim.integrate(steps=10)
    assert jup.x != before and jup.x == sim.state()["x"][0]  # a view, read fresh
    assert [p.name for p in sim.particles] == ["Jupiter", "Saturn", "Earth"]
    assert len(sim.particles) == 3 and "Earth" in sim.particles and "Pluto" not in sim.particles


def test_a_particles_orbit_is_rebounds():
    rebound = pytest.importorskip("rebound")
    sim = _two_planets()
    rsim = sim.to_rebound()
    for name in ("Jupiter", "Saturn", "Earth"):
        mine, theirs = sim.particles[name], rsim.particles[name]
        orbit = theirs.orbit(primary=rsim.particles[0])
        assert mine.a == pytest.approx(orbit.a, rel=1e-9)
        assert mine.e == pytest.approx(orbit.e, rel=1e-9, abs=1e-12)
        for ours, rb in (("inc", orbit.inc), ("Omega", orbit.Omega), ("omega", orbit.omega), ("f", orbit.f),
                         ("M", orbit.M), ("l", orbit.l), ("pomega", orbit.pomega), ("theta", orbit.theta)):
            diff = math.remainder(getattr(mine, ours) - rb, 2 * math.pi)
            assert abs(diff) < 1e-8, (name, ours, getattr(mine, ours), rb)
        # REBOUND's units are years here; the simulation's time unit is Orrery's code unit.
        assert mine.P / sim.dt * (5.0 / 365.25) == pytest.approx(orbit.P, rel=1e-9)


def test_names_go_to_rebound_and_back():
    rebound = pytest.importorskip("rebound")
    sim = _two_planets()
    back = orrery.from_rebound(sim.to_rebound())
    assert [p.name for p in back.particles] == ["Jupiter", "Saturn", "Earth"]
    rsim = rebound.Simulation()
    rsim.add(m=1.0)
    rsim.add(m=1e-3, a=1.0, name="b")
    rsim.add(m=1e-3, a=2.0)
    sim = orrery.from_rebound(rsim)
    assert sim.particles["b"].i == 0 and sim.particles[1].name is None


def test_names_survive_save_load_and_units():
    sim = _two_planets(units=("au", "yr", "msun"))
    assert sim.particles["Earth"].P == pytest.approx(1.0, rel=1e-4)  # a = 1 AU, years
    sim.integrate(steps=3)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "s.npz")
        sim.save(path)
        back = orrery.Simulation.load(path)
    assert back.particles["Saturn"].xyz == sim.particles["Saturn"].xyz


def test_bad_names_and_indices_are_refused():
    sim = _two_planets()
    with pytest.raises(orrery.InputError, match="name"):
        sim.add(m=1e-9, a=2.0, name="Jupiter")  # taken
    with pytest.raises(orrery.InputError, match="name"):
        sim.add(m=[1e-9, 1e-9], a=[2.0, 3.0], name="Ceres")  # one name for two bodies
    with pytest.raises(KeyError, match="Pluto"):
        sim.particles["Pluto"]
    with pytest.raises(KeyError, match="index 7"):
        sim.particles[7]
    with pytest.raises(orrery.InputError):
        sim.particles[1.5]
    sim.add(m=1e-9, a=2.0, name="Ceres")
    assert sim.particles["Ceres"].i == 3


@pytest.mark.parametrize("keywords", [
    dict(P=1.7, e=0.3, inc=0.2, Omega=1.1, omega=0.4, f=2.5),
    dict(a=2.0, e=0.7, inc=0.3, Omega=-0.5, pomega=2.0, l=1.0),
    dict(a=-3.0, e=1.8, inc=0.1, Omega=0.2, omega=1.0, f=0.6),
])
def test_add_takes_rebounds_orbital_keywords(keywords):
    """add() takes REBOUND's P, Omega, omega, pomega, f and l, and puts the body where REBOUND
    does (units yr, AU, Msun)."""
    rebound = pytest.importorskip("rebound")
    rsim = rebound.Simulation()
    rsim.units = ("yr", "AU", "Msun")
    rsim.add(m=1.0)
    rsim.add(m=1e-3, **keywords)
    sim = orrery.Simulation(time_step_days=5.0, units=("au", "yr", "msun"))
    sim.add(m=1e-3, **keywords)
    p = rsim.particles[1]
    assert np.allclose(sim.x[0], [p.x, p.y, p.z], rtol=0, atol=1e-12)
    assert np.allclose(sim.v[0], [p.vx, p.vy, p.vz], rtol=0, atol=1e-12)


def test_orbital_keywords_given_twice_are_refused():
    sim = orrery.Simulation(time_step_days=5.0)
    for twice in (dict(a=1.0, P=1.0), dict(a=1.0, node=0.1, Omega=0.1), dict(a=1.0, M=0.1, f=0.1),
                  dict(a=1.0, omega=0.1, pomega=0.2), dict(x=1.0, Omega=0.2)):
        with pytest.raises(orrery.InputError, match="given twice|Cartesian"):
            sim.add(m=1e-9, **twice)


def test_bodies_added_after_load_get_indices_of_their_own(tmp_path):
    sim = _two_planets()
    sim.integrate(steps=2)
    sim.save(tmp_path / "a.npz")
    back = orrery.Simulation.load(tmp_path / "a.npz")
    back.add(m=1e-9, a=2.0, name="Ceres")
    assert back.i.tolist() == [0, 1, 2, 3] and back.particles["Ceres"].i == 3
    assert back.particles["Jupiter"].xyz == sim.particles["Jupiter"].xyz
    back.save(tmp_path / "b.npz")
    again = orrery.Simulation.load(tmp_path / "b.npz")
    again.add(m=1e-9, a=2.5)
    assert again.i.tolist() == [0, 1, 2, 3, 4]


def test_cartesian_bodies_refuse_elements_and_unbound_true_anomalies_their_asymptotes():
    sim = orrery.Simulation(time_step_days=5.0)
    with pytest.raises(orrery.InputError, match="elements with Cartesian"):
        sim.add(m=1e-9, x=1.0, vy=1.0, e=0.5)
    with pytest.raises(orrery.InputError, match="asymptotes"):
        sim.add(m=1e-9, a=-1.0, e=2.0, f=2.2)  # beyond arccos(-1/2) = 2.094
    sim.add(m=1e-9, a=-1.0, e=2.0, f=2.0)
    assert sim.particles[0].f == pytest.approx(2.0, rel=1e-12)


def test_state_columns_are_the_states_bits_in_any_units():
    """x, v, m, r, i and a particle's xyz read the native table and divide by the units
    (without building the structured array): the same bits as state()'s columns."""
    for units in (None, ("au", "yr", "mearth"), ("au", "day", "kg")):
        sim = _two_planets(units=units)
        sim.integrate(steps=3)
        s = sim.state()
        assert np.array_equal(sim.x, np.stack([s["x"], s["y"], s["z"]], axis=1))
        assert np.array_equal(sim.v, np.stack([s["vx"], s["vy"], s["vz"]], axis=1))
        assert np.array_equal(sim.m, s["m"]) and np.array_equal(sim.r, s["r"])
        assert np.array_equal(sim.i, s["i"]) and sim.i.dtype == s["i"].dtype and sim.N == len(s)
        earth = sim.particles["Earth"]
        assert earth.xyz == [s["x"][2], s["y"][2], s["z"][2]] and earth.m == s["m"][2]
        assert earth.vxyz == [s["vx"][2], s["vy"][2], s["vz"][2]] and earth.r == s["r"][2]
        ens = orrery.Ensemble([_two_planets(units=units), _two_planets(units=units)])
        ens.integrate(steps=3)
        system, rows = ens[1], ens.state(1)
        assert np.array_equal(system.x, np.stack([rows["x"], rows["y"], rows["z"]], axis=1))
        assert np.array_equal(system.m, rows["m"]) and system.N == len(rows)


def test_elements_give_the_period_true_anomaly_and_mean_longitude():
    """elements() has REBOUND's P, f and l beside a e inc node peri M, for bound and unbound
    bodies (P NaN), P in the simulation's time unit; the particles read the same values."""
    rebound = pytest.importorskip("rebound")
    sim = _two_planets(units=("au", "yr", "msun"))
    sim.add(m=1e-9, a=-3.0, e=1.4, inc=0.1, M=0.7, name="rogue")
    el = sim.elements()
    assert el.dtype.names == ("i", "a", "e", "inc", "node", "peri", "M", "P", "f", "l")
    rsim = sim.to_rebound()  # in years, AU and Msun
    for k, name in enumerate(("Jupiter", "Saturn", "Earth", "rogue")):
        orbit = rsim.particles[name].orbit(primary=rsim.particles[0])
        for ours, rb in (("f", orbit.f), ("l", orbit.l)):
            assert abs(math.remainder(el[ours][k] - rb, 2 * math.pi)) < 1e-8, (name, ours)
            assert el[ours][k] == getattr(sim.particles[name], ours)
        if orbit.a > 0:
            assert el["P"][k] == pytest.approx(orbit.P, rel=1e-9) and el["P"][k] == sim.particles[name].P
        else:
            assert math.isnan(el["P"][k]) and math.isnan(sim.particles[name].P)


def test_add_takes_rebounds_primaries():
    """primary="jacobi" places bodies as REBOUND's add() does by default (about the centre of
    mass of the central body and the bodies before, those of the same call too), and
    primary=<body> about that body, with P as well as a: the heliocentric states agree with
    REBOUND's to 1e-12."""
    rebound = pytest.importorskip("rebound")
    rsim = rebound.Simulation()
    rsim.units = ("yr", "AU", "Msun")
    rsim.add(m=1.0)
    rsim.add(m=9.5e-4, a=5.2, e=0.05, inc=0.02, Omega=1.0, omega=0.5, M=2.0)
    rsim.add(m=2.9e-4, a=9.5, e=0.05, M=0.3)
    rsim.add(m=4.4e-5, P=164.8, e=0.01, l=1.2)
    rsim.add(m=2.5e-8, a=0.01, e=0.01, M=0.4, primary=rsim.particles[1])
    sim = orrery.Simulation(time_step_days=5.0, units=("au", "yr", "msun"))
    sim.add(m=9.5e-4, a=5.2, e=0.05, inc=0.02, Omega=1.0, omega=0.5, M=2.0, primary="jacobi", name="Jupiter")
    sim.add(m=2.9e-4, a=9.5, e=0.05, M=0.3, primary="jacobi")
    sim.add(m=4.4e-5, P=164.8, e=0.01, l=1.2, primary="jacobi")
    sim.add(m=2.5e-8, a=0.01, e=0.01, M=0.4, primary="Jupiter")
    sun = rsim.particles[0]
    for k in range(4):
        p = rsim.particles[k + 1]
        assert np.allclose(sim.particles[k].xyz, [p.x - sun.x, p.y - sun.y, p.z - sun.z], rtol=0, atol=1e-12)
        assert np.allclose(sim.particles[k].vxyz, [p.vx - sun.vx, p.vy - sun.vy, p.vz - sun.vz], rtol=0, atol=1e-12)
    # Several bodies in one call: each about the centre of mass of those before it.
    one_call = orrery.Simulation(time_step_days=5.0, units=("au", "yr", "msun"))
    one_call.add(m=[9.5e-4, 2.9e-4], a=[5.2, 9.5], e=[0.05, 0.05], inc=[0.02, 0.0], Omega=[1.0, 0.0],
                 omega=[0.5, 0.0], M=[2.0, 0.3], primary="jacobi")
    assert np.array_equal(one_call.x, sim.x[:2])
    with pytest.raises(orrery.InputError, match="field `primary`"):
        sim.add(m=1e-9, x=1.0, vy=6.28, primary="jacobi")
    with pytest.raises(orrery.InputError, match="field `primary`"):
        sim.add(m=1e-9, a=1.0, primary=2.5)
