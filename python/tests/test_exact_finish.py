"""Exact finish times (issue 45): integrate(time=T, exact_finish_time=True) lands on T without
changing the trajectory."""
import math

import numpy as np
import pytest

import orrery
from giants import JUPITER, SATURN
from giants import giants_in_years as _giants


def _kepler(a, e, mean_anomaly):
    """The heliocentric position of an orbit in the x-y plane (pericentre on x) at a mean
    anomaly, by Newton's method on Kepler's equation."""
    big_e = mean_anomaly
    for _ in range(60):
        big_e -= (big_e - e * math.sin(big_e) - mean_anomaly) / (1 - e * math.cos(big_e))
    return np.array([a * (math.cos(big_e) - e), a * math.sqrt(1 - e * e) * math.sin(big_e), 0.0])


@pytest.mark.parametrize("integrator", ["wh", "hybrid"])
def test_one_planet_lands_on_the_kepler_orbit_at_the_time_asked(integrator):
    """One planet is a Kepler problem, which both integrators solve exactly: at T = 3.3 years
    (between two 20-day steps) the state is the analytic one at T."""
    sim = orrery.Simulation(time_step_days=20.0, units=("au", "yr", "msun"), integrator=integrator)
    a, e, m = 1.3, 0.2, 1e-12
    sim.add(m=m, a=a, e=e, M=0.0)
    T = 3.3
    sim.integrate(time=T, exact_finish_time=True)
    assert sim.t == T and sim.step == math.floor(T * 365.25 / 20.0)
    G = (orrery.K_GAUSS * 365.25) ** 2  # AU^3 Msun^-1 yr^-2 (Gauss's constant, as Orrery's)
    period = 2 * math.pi * math.sqrt(a**3 / (G * (1 + m)))
    expected = _kepler(a, e, 2 * math.pi * T / period)
    assert np.max(np.abs(sim.x[0] - expected)) < 1e-11
    # Without it, the state is the next step's (after T).
    other = orrery.Simulation(time_step_days=20.0, units=("au", "yr", "msun"), integrator=integrator)
    other.add(m=m, a=a, e=e, M=0.0)
    other.integrate(time=T)
    assert other.t > T and np.max(np.abs(other.x[0] - expected)) > 1e-4


@pytest.mark.parametrize("integrator", ["wh", "hybrid"])
def test_an_exact_finish_leaves_the_trajectory_alone(integrator):
    """The state at T comes from a copy: the simulation goes on from its last whole step, so
    outputs at exact times give the same bits as none at all."""
    settings = {"integrator": {"WisdomHolman": {"correctors": 5}}} if integrator == "wh" else {}
    sim, plain = _giants(**settings), _giants(**settings)
    for T in np.linspace(0.37, 30.0, 7):
        sim.integrate(time=float(T), exact_finish_time=True)
        assert sim.t == float(T)
    sim.integrate(time=40.0)
    plain.integrate(time=40.0)
    assert sim.step == plain.step and np.array_equal(sim.x, plain.x) and np.array_equal(sim.v, plain.v)


def test_an_exact_finish_agrees_with_a_run_whose_steps_land_on_it():
    """The giants at T = 12.3 years from the 20-day run with an exact finish, and from a run of
    steps that land on T (its step a divisor of T): the same to the map's error over one step."""
    sim = _giants(integrator="wh")
    T = 12.3
    sim.integrate(time=T, exact_finish_time=True)
    n = math.ceil(T * 365.25 / 20.0)
    fine = orrery.Simulation(time_step_days=T * 365.25 / n, units=("au", "yr", "msun"), integrator="wh")
    fine.add(m=JUPITER, a=5.2029, e=0.0484, inc=0.0228, node=1.7536, peri=4.7866, M=0.3432)
    fine.add(m=SATURN, a=9.5367, e=0.0539, inc=0.0434, node=1.9838, peri=5.9155, M=5.5389)
    fine.integrate(steps=n)
    assert fine.t == pytest.approx(T, rel=1e-13)
    assert np.max(np.abs(sim.x - fine.x)) < 1e-6
    # And it is far from the next step's state, which the plain integrate(time=) would give.
    assert np.max(np.abs(sim.x - _giants(integrator="wh").x)) > 1.0


def test_exact_finish_time_asks_for_a_time():
    sim = _giants()
    with pytest.raises(orrery.InputError, match="exact_finish_time"):
        sim.integrate(steps=3, exact_finish_time=True)
    sim.integrate(time=1.0, exact_finish_time=True)
    # Before the time reached: before the last whole step, and between it and the exact time.
    for before in (0.5, 0.99):
        with pytest.raises(orrery.InputError, match="time"):
            sim.integrate(time=before, exact_finish_time=True)


def test_the_exact_state_is_what_every_reader_sees_and_a_new_t_clears_it(tmp_path):
    """After an exact finish, the figures and a new archive's first record agree with what
    t and x say (the state at T, and the whole step's time for the saved step); a time inside
    the step just taken is refused; setting t at step 0 forgets the exact state."""
    sim = _giants()
    sim.integrate(time=0.37, exact_finish_time=True)
    curves = orrery.plot.orbit_curves(sim)
    assert np.array_equal(np.array([c["position"] for c in curves]), sim.x)
    with pytest.raises(orrery.InputError, match="before the time reached"):
        sim.integrate(time=0.36, exact_finish_time=True)
    sim.integrate(time=0.4, archive=tmp_path / "a.orrery", every=1.0)
    archive = orrery.Archive(tmp_path / "a.orrery")
    assert archive.times[0] == pytest.approx(archive.steps[0] * sim.dt, rel=1e-14)
    early = _giants()
    early.integrate(time=0.01, exact_finish_time=True)
    assert early.step == 0 and early.t == 0.01
    early.t = 5.0
    assert early.t == 5.0
