"""The escape stop in Python (issue 45, exit conditions): stop={"escape": r} raises
orrery.Escape in both integrators, as REBOUND's exit_max_distance does."""
import pytest

import orrery


@pytest.mark.parametrize("integrator", ["hybrid", "wh"])
def test_a_body_beyond_the_escape_radius_raises_escape(integrator):
    sim = orrery.Simulation(time_step_days=10.0, units=("au", "yr", "msun"), integrator=integrator,
                            stop={"escape": 30.0})
    sim.add(m=9.547919e-4, a=5.2029, e=0.0484, M=0.35)
    sim.add(m=1e-6, a=-10.0, e=1.3, inc=0.17, omega=1.57, M=0.0)
    with pytest.raises(orrery.Escape):
        sim.integrate(time=100.0)
    stop = sim.stop()
    assert stop["reason"] == "escape" and 30.0 <= stop["distance"] < 30.5
    assert sim.t < 20.0
