"""Simulation.from_file (issue 45, ".ron body names kept"): a scenario file's settings and bodies,
its named bodies found by name, stepping as `orrery run` steps it."""
import math
from pathlib import Path

import numpy as np
import pytest

import orrery

INPUTS = Path(__file__).resolve().parents[2] / "inputs"


def test_a_scenario_files_bodies_keep_their_names():
    sim = orrery.Simulation.from_file(INPUTS / "solar_system.ron")
    names = [p.name for p in sim.particles]
    assert names == ["Mercury", "Venus", "EarthMoon", "Mars", "Jupiter", "Saturn", "Uranus", "Neptune"]
    jupiter = sim.particles["Jupiter"]
    assert jupiter.a == pytest.approx(5.20288700, rel=1e-12)
    assert jupiter.inc == pytest.approx(math.radians(1.30439695), rel=1e-12)
    assert sim.settings["inner_truncation"] == 0.1 and sim.dt == pytest.approx(2.0 * orrery.K_GAUSS)


def test_a_file_simulation_steps_as_orrery_run_does(tmp_path):
    """The outer solar system from its file, 200 steps in Python and with `orrery run`: the same
    final state (the run's last snapshot, written to all its digits)."""
    sim = orrery.Simulation.from_file(INPUTS / "outer_solar_system.ron")
    sim.integrate(steps=200)
    orrery.run(INPUTS / "outer_solar_system.ron", steps=200, out=str(tmp_path / "run"))
    last = orrery.read(tmp_path / "run").last
    order = np.argsort(last["i"])
    mine = np.argsort(sim.i)
    assert np.array_equal(last["i"][order], sim.i[mine])
    for c, column in enumerate("xyz"):
        assert np.array_equal(last[column][order], sim.x[mine, c]), column
    assert sim.particles["Jupiter"].name == "Jupiter"


def test_a_file_that_is_not_a_scenario_is_refused(tmp_path):
    bad = tmp_path / "bad.ron"
    bad.write_text("Scenario(name: \"x\", time_step_days: oops)")
    with pytest.raises(orrery.InputError, match="bad.ron"):
        orrery.Simulation.from_file(bad)


def test_a_file_with_a_time_step_rule_keeps_the_rule(tmp_path):
    text = (INPUTS / "outer_solar_system.ron").read_text()
    import re

    text = re.sub(r"time_step_days: [0-9.]+,", "time_step: InnerPeriodFraction(0.01),", text)
    path = tmp_path / "rule.ron"
    path.write_text(text)
    sim = orrery.Simulation.from_file(path)
    jupiter_period_days = 4332.6
    assert sim.dt == pytest.approx(0.01 * jupiter_period_days * orrery.K_GAUSS, rel=2e-3)
    sim.integrate(time=100.0 * orrery.K_GAUSS)
    assert sim.step > 0
