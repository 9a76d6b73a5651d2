"""Stop conditions from Python: the Hill, distance and collision stops of both integrators,
their exceptions and records, and stopped systems of an ensemble at their own times."""

import warnings

import numpy as np
import pytest

import orrery
from giants import JUPITER, SATURN


def crossing_planets(au=1.0, **settings):
    """Jupiter and a planet of 10 Earth masses on an orbit that crosses Jupiter's (``au``: the
    simulation's length units per AU)."""
    sim = orrery.Simulation(time_step_days=5.0, **settings)
    sim.add(m=JUPITER, a=5.2029 * au, e=0.0484, inc=0.0227, node=1.754, peri=4.787, M=0.344, r=0.3 * au)
    sim.add(m=3e-5, a=4.6 * au, e=0.2, inc=0.0175, node=1.571, peri=0.349, M=1.745, r=1e-4 * au)
    return sim


def test_a_hill_stop_ends_a_simulation_at_the_encounter():
    """stop={"hill_radii": 1.0} ends a Wisdom-Holman simulation when the two planets come
    within one mutual Hill radius: integrate raises orrery.Encounter (as REBOUND does) with the
    state of that step kept, or returns with raise_on_stop=False; .stopped says why."""
    sim = crossing_planets(integrator="wh", stop={"hill_radii": 1.0})
    with pytest.raises(orrery.Encounter, match="came within"):
        sim.integrate(steps=100000)
    quiet = crossing_planets(integrator="wh", stop={"hill_radii": 1.0})
    assert quiet.integrate(steps=100000, raise_on_stop=False) == sim.step
    assert quiet.stopped == sim.stopped and "came within" in sim.stopped
    assert np.array_equal(quiet.state(), sim.state())
    assert sim.step < 100000
    x = sim.x
    r = np.linalg.norm(x, axis=1)
    hill = r * (sim.m / (3.0 * sim.central_mass)) ** (1.0 / 3.0)
    assert np.linalg.norm(x[0] - x[1]) < 1.2 * hill.sum()


def test_a_stop_says_when_why_which_pair_and_how_close(tmp_path):
    """Simulation.stop() gives the stop as a dict in the simulation's units: the Hill stop's
    pair, and the time and distance at which the map's watch saw it (the step's kick, or where
    its sweep of the drift to the next kick saw the pair cross the limit: from half a step
    before the state kept to half a step after), at one mutual Hill radius; a saved and loaded
    simulation gives the same; a running one gives None."""
    sim = crossing_planets(integrator="wh", stop={"hill_radii": 1.0}, units=("au", "yr", "msun"))
    assert sim.stop() is None
    sim.integrate(steps=100000, raise_on_stop=False)
    stop = sim.stop()
    assert stop["reason"] == "encounter" and stop["pair"] == (0, 1), stop
    assert stop["step"] == sim.step
    assert sim.t - 0.5 * sim.dt * (1 + 1e-12) <= stop["time"] <= sim.t + 0.5 * sim.dt * (1 + 1e-12)
    x = sim.x
    r = np.linalg.norm(x, axis=1)
    hill = r * (sim.m / (3.0 * sim.central_mass)) ** (1.0 / 3.0)
    # The record is the pair's crossing of one mutual Hill radius (the limit, from the radii at
    # the kick before it), before the state kept: the state's pair is a little closer.
    apart = np.linalg.norm(x[0] - x[1])
    assert apart < stop["distance"] == pytest.approx(hill.sum(), rel=0.01)
    assert stop["time"] < sim.t
    sim.save(tmp_path / "stopped.npz")
    assert orrery.Simulation.load(tmp_path / "stopped.npz").stop() == stop


def test_the_hybrid_steps_hill_stop_records_the_crossing_within_its_last_step():
    """stop={"hill_radii": 1.0} on the hybrid step: integrate raises orrery.Encounter with the
    state at the end of the step whose encounter search saw the pair cross one mutual Hill
    radius; the record's time lies within that step, its distance is the limit, and the
    crossing is the map's to a few hundredths of a step."""
    units = ("au", "yr", "msun")
    sim = crossing_planets(stop={"hill_radii": 1.0}, units=units)
    with pytest.raises(orrery.Encounter, match="bodies 0 and 1"):
        sim.integrate(steps=100000)
    stop = sim.stop()
    assert stop["reason"] == "encounter" and stop["pair"] == (0, 1), stop
    assert stop["step"] == sim.step
    assert sim.t - sim.dt <= stop["time"] <= sim.t
    x = sim.x
    hill = np.linalg.norm(x, axis=1) * (sim.m / (3.0 * sim.central_mass)) ** (1.0 / 3.0)
    assert stop["distance"] == pytest.approx(hill.sum(), rel=0.01)
    wh = crossing_planets(integrator="wh", stop={"hill_radii": 1.0}, units=units)
    wh.integrate(steps=100000, raise_on_stop=False)
    assert abs(wh.stop()["time"] - stop["time"]) < 0.05 * sim.dt, (wh.stop(), stop)


@pytest.mark.parametrize("integrator", ["wh", "hybrid"])
def test_a_collision_stop_names_the_pair_in_contact(integrator, tmp_path, monkeypatch):
    """A collision stop's record: both bodies, at their contact distance (the map's state
    inside the sum of the radii; the hybrid step's merger recorded just before contact, as its
    Collisions file has it) and within the last step (the map's sweep reaches half a step
    past it). A simulation held in memory writes no file (no OutCollision.dat) where it runs."""
    monkeypatch.chdir(tmp_path)
    sim = crossing_planets(integrator=integrator, stop={"collision": True})
    sim.integrate(steps=100000, raise_on_stop=False)
    assert list(tmp_path.iterdir()) == []
    stop = sim.stop()
    assert stop["reason"] == "collision" and sorted(stop["pair"]) == [0, 1], stop
    assert stop["step"] == sim.step
    assert sim.t - sim.dt <= stop["time"] <= sim.t + 0.5 * sim.dt * (1 + 1e-12)
    radii = 0.3 + 1e-4
    if integrator == "wh":
        assert stop["distance"] < radii
    else:
        assert radii <= stop["distance"] < 2 * radii


def test_an_ensemble_reports_each_stop_at_its_own_time():
    """Ensemble.stop(k) is system k's stop or None; a stopped system's energy line carries its
    stop time, not the ensemble's time, while the others step on."""
    stable = orrery.Simulation(time_step_days=5.0, integrator="wh", stop={"hill_radii": 1.0})
    stable.add(m=JUPITER, a=5.2029, e=0.0484, inc=0.0228, node=1.7536, peri=4.7866, M=0.3432)
    stable.add(m=SATURN, a=9.5367, e=0.0539, inc=0.0434, node=1.9838, peri=5.9155, M=5.5389)
    crossing = crossing_planets(integrator="wh", stop={"hill_radii": 1.0})
    ens = orrery.Ensemble([crossing, stable])
    ens.integrate(steps=20000)
    stop = ens.stop(0)
    assert ens.stop(1) is None and ens.stopped(0) and not ens.stopped(1)
    assert stop["reason"] == "encounter" and stop["pair"] == (0, 1)
    assert stop["step"] < ens.step == 20000
    # Alone, the crossing system stops at the same step.
    alone = crossing_planets(integrator="wh", stop={"hill_radii": 1.0})
    alone.integrate(steps=20000, raise_on_stop=False)
    assert alone.stop() == stop
    dt = stable.dt  # the systems' time unit (code units here)
    assert ens.energy(0)["time"] == pytest.approx(stop["step"] * dt, rel=1e-14)
    assert ens.energy(1)["time"] == pytest.approx(20000 * dt, rel=1e-14)


def test_an_ensemble_is_a_container_of_systems_with_their_own_time():
    """ens[k] is system k with its own step and t (a stopped one's are its stop's), iteration
    goes over the systems, and a system's view reads what the ensemble's methods read."""
    stable = orrery.Simulation(time_step_days=5.0, integrator="wh", stop={"hill_radii": 1.0})
    stable.add(m=JUPITER, a=5.2029, e=0.0484, inc=0.0228, node=1.7536, peri=4.7866, M=0.3432)
    stable.add(m=SATURN, a=9.5367, e=0.0539, inc=0.0434, node=1.9838, peri=5.9155, M=5.5389)
    ens = orrery.Ensemble([crossing_planets(integrator="wh", stop={"hill_radii": 1.0}), stable])
    ens.integrate(steps=20000)
    crossed, kept = ens[0], ens[-1]
    assert kept.index == 1 and [s.index for s in ens] == [0, 1]
    assert crossed.stopped and crossed.step == ens.stop(0)["step"] < ens.step
    assert crossed.t == pytest.approx(crossed.step * stable.dt, rel=1e-15)
    assert crossed.energy()["time"] == pytest.approx(crossed.t, rel=1e-14)
    assert kept.step == ens.step and kept.t == pytest.approx(ens.t) and kept.stop() is None
    assert np.array_equal(kept.x, np.stack([ens.state(1)[c] for c in "xyz"], axis=1))
    assert kept.N == 2 and np.array_equal(kept.elements(), ens.elements(1))
    with pytest.raises(orrery.InputError, match="system"):
        ens[2]


@pytest.mark.parametrize("integrator", ["wh", "hybrid"])
def test_a_collision_stop_raises_collision(integrator):
    """stop={"collision": True} raises orrery.Collision in both integrators (the hybrid step
    after merging the pair)."""
    sim = crossing_planets(integrator=integrator, stop={"collision": True})
    with pytest.raises(orrery.Collision):
        sim.integrate(steps=100000)
    assert len(sim.collisions) == 1 and sim.step < 100000


@pytest.mark.parametrize("integrator", ["wh", "hybrid"])
def test_a_distance_stop_is_in_the_simulations_length_unit(integrator):
    """stop={"min_distance": d} (REBOUND's exit_min_distance) raises orrery.Encounter in both
    integrators, with d and the record's distance in the simulation's length unit: 0.5 AU given
    in km stops at the same step as 0.5 given in AU."""
    km_per_au = 1.495978707e8
    au = crossing_planets(integrator=integrator, stop={"min_distance": 0.5})
    with pytest.raises(orrery.Encounter):
        au.integrate(steps=100000)
    km = crossing_planets(km_per_au, integrator=integrator, stop={"min_distance": 0.5 * km_per_au},
                          units=("km", "code", "msun"))
    with pytest.raises(orrery.Encounter):
        km.integrate(steps=100000)
    assert km.step == au.step < 100000
    assert au.stop()["distance"] == pytest.approx(0.5, rel=1e-9)
    assert km.stop()["distance"] == pytest.approx(0.5 * km_per_au, rel=1e-9)


def test_a_body_inside_the_inner_radius_raises_ejection_on_the_map():
    """On the map a body inside inner_truncation ends the simulation: orrery.Ejection, the
    body's row in ejections with GENGA's case -2, and a warning naming the radius."""
    sim = orrery.Simulation(time_step_days=1.0, integrator="wh", inner_truncation=0.3)
    sim.add(m=JUPITER, a=5.2029, e=0.0484)
    sim.add(m=1e-9, a=2.0, e=0.9, M=3.0, name="comet")  # perihelion 0.2 AU
    with pytest.warns(orrery.RemovalWarning, match="inside inner_truncation = 0.3 AU"):
        with pytest.raises(orrery.Ejection):
            sim.integrate(steps=100000)
    assert sim.stop()["reason"] == "ejection" and sim.stop()["pair"][0] == 1
    assert list(sim.ejections["case"]) == [-2]


def test_truncation_radii_are_in_the_simulations_length_unit():
    """inner_truncation and outer_truncation given with units=("km", ...) are kilometres: the
    same removal at the same step as in AU, its warning naming the radius in km."""
    km_per_au = 1.495978707e8

    def comet(au, **settings):
        sim = orrery.Simulation(time_step_days=1.0, **settings)
        sim.add(m=JUPITER, a=5.2029 * au, e=0.0484)
        sim.add(m=1e-9, a=2.0 * au, e=0.9, M=3.0)  # perihelion 0.2 AU
        with pytest.warns(orrery.RemovalWarning) as caught:
            sim.integrate(steps=2000)
        return sim, str(caught[0].message)

    au, _ = comet(1.0, inner_truncation=0.3)
    km, message = comet(km_per_au, inner_truncation=0.3 * km_per_au, units=("km", "code", "msun"))
    assert len(au.ejections) == len(km.ejections) == 1
    assert au.ejections["t"][0] == km.ejections["t"][0]
    assert f"inside inner_truncation = {0.3 * km_per_au:.6g} km" in message


def test_the_ejection_stop_raises_ejection_on_the_hybrid_step():
    """stop={"ejection": True}: the hybrid step, which otherwise removes a body inside
    inner_truncation and goes on, raises orrery.Ejection at that step, the body's row in
    ejections and the record's time within the last step."""
    def comet(**stop):
        sim = orrery.Simulation(time_step_days=1.0, inner_truncation=0.3, units=("au", "yr", "msun"), **stop)
        sim.add(m=JUPITER, a=5.2029, e=0.0484)
        sim.add(m=1e-9, a=2.0, e=0.9, M=3.0, name="comet")  # perihelion 0.2 AU
        return sim
    sim = comet(stop={"ejection": True})
    with pytest.warns(orrery.RemovalWarning):
        with pytest.raises(orrery.Ejection):
            sim.integrate(steps=100000)
    stop = sim.stop()
    assert stop["reason"] == "ejection" and stop["pair"][0] == 1 and stop["step"] == sim.step
    assert sim.t - sim.dt <= stop["time"] <= sim.t
    assert list(sim.ejections["case"]) == [-2]
    quiet = comet()
    with pytest.warns(orrery.RemovalWarning):
        quiet.integrate(steps=2000)
    assert quiet.step == 2000 and quiet.N == 1


def test_a_touch_of_the_central_body_is_named_in_its_warning():
    """A body that touches the central body on the map (GENGA's case -1) is reported as such,
    not as a crossing of the inner truncation radius."""
    sim = orrery.Simulation(time_step_days=1.0, integrator="wh", central_radius=0.3,
                            stop={"collision": True})
    sim.add(m=JUPITER, a=5.2029, e=0.0484)
    sim.add(m=1e-9, a=2.0, e=0.9, M=3.0)  # perihelion 0.2 AU
    with pytest.warns(orrery.RemovalWarning, match="touched the central body"):
        with pytest.raises(orrery.StopCondition):
            sim.integrate(steps=100000)
    assert list(sim.ejections["case"]) == [-1]


def test_the_map_warns_of_bodies_out_of_order_of_semi_major_axis():
    """The Wisdom-Holman map takes the order of add() as its Jacobi order: bodies added out of
    order of semi-major axis get the warning `orrery run` gives, bodies in order none."""
    with pytest.warns(UserWarning, match="out of order of semi-major axis"):
        crossing_planets(integrator="wh").integrate(steps=10)
    sim = orrery.Simulation(time_step_days=5.0, integrator="wh")
    sim.add(m=3e-5, a=4.6, e=0.2)
    sim.add(m=JUPITER, a=5.2029, e=0.0484)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sim.integrate(steps=10)
