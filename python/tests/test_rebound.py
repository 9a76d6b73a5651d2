"""REBOUND's test particles at the hand-over (issue 45, item 3): ``N_active`` and
``testparticle_type`` become Orrery's test-particle mode and back."""
import numpy as np
import pytest

import orrery

JUPITER, SATURN = 9.547919e-4, 2.858860e-4


def _with_test_particles(rebound, masses, testparticle_type=0):
    """The Sun, Jupiter and Saturn active, then one test particle per mass in ``masses``."""
    rsim = rebound.Simulation()
    rsim.units = ("yr", "AU", "Msun")
    rsim.add(m=1.0)
    rsim.add(m=JUPITER, a=5.2, e=0.05, M=0.3, name="Jupiter")
    rsim.add(m=SATURN, a=9.5, e=0.05, M=2.0, name="Saturn")
    for k, m in enumerate(masses):
        rsim.add(m=m, a=2.0 + 0.3 * k, e=0.1, M=0.7 * k)
    rsim.N_active = 3
    rsim.testparticle_type = testparticle_type
    rsim.dt = 5.0 / 365.25
    return rsim


def test_rebounds_test_particles_stay_test_particles():
    """Passive test particles (N_active = 3): Orrery's test-particle mode, whose massive bodies
    move as they would alone; to_rebound() gives N_active and the particles back."""
    rebound = pytest.importorskip("rebound", reason="SKIPPED: rebound is not installed")
    rsim = _with_test_particles(rebound, [0.0, 0.0, 0.0])
    sim = orrery.from_rebound(rsim)
    assert sim.settings["mode"] == "TestParticles"
    assert sim.settings["particle_minimum_mass"] == 0.0
    assert "semi_active" not in sim.settings
    alone = orrery.from_rebound(_with_test_particles(rebound, []))
    sim.integrate(steps=400)
    alone.integrate(steps=400)
    # The giants do not feel the test particles: the same bits as without them.
    assert np.array_equal(sim.x[:2], alone.x)
    back = sim.to_rebound()
    assert back.N == 6 and back.N_active == 3 and back.testparticle_type == 0
    assert [p.m for p in back.particles[3:]] == [0.0, 0.0, 0.0]


def test_semi_active_test_particles_pull_the_giants_but_not_each_other():
    """testparticle_type = 1 with light test particles: semi-active in Orrery (they pull the
    giants, which then differ from a run without them), and type 1 again in REBOUND."""
    rebound = pytest.importorskip("rebound", reason="SKIPPED: rebound is not installed")
    rsim = _with_test_particles(rebound, [1e-7, 2e-7], testparticle_type=1)
    sim = orrery.from_rebound(rsim)
    assert sim.settings["mode"] == "TestParticles" and sim.settings["semi_active"] is True
    assert sim.settings["particle_minimum_mass"] == 2e-7
    alone = orrery.from_rebound(_with_test_particles(rebound, []))
    sim.integrate(steps=400)
    alone.integrate(steps=400)
    assert not np.array_equal(sim.x[:2], alone.x)
    back = sim.to_rebound()
    assert back.N_active == 3 and back.testparticle_type == 1


def test_an_active_particle_no_heavier_than_a_test_particle_is_refused():
    rebound = pytest.importorskip("rebound", reason="SKIPPED: rebound is not installed")
    rsim = _with_test_particles(rebound, [1e-3], testparticle_type=1)
    with pytest.raises(orrery.InputError, match="N_active"):
        orrery.from_rebound(rsim)


def test_the_test_particle_mass_limit_is_in_the_simulations_units():
    """``particle_minimum_mass`` is read in the simulation's mass unit like every other mass
    (before: in Msun whatever the units)."""
    sim = orrery.Simulation(
        time_step_days=5.0, units=("au", "yr", "mearth"), mode="TestParticles", particle_minimum_mass=0.5
    )
    sim.add(m=[318.0, 0.4, 1.0], a=[5.2, 1.0, 1.5])
    rsim = pytest.importorskip("rebound", reason="SKIPPED: rebound is not installed") and sim.to_rebound()
    # Jupiter and the Earth-mass body are massive, the 0.4 Earth-mass one a test particle.
    assert rsim.N_active == 3
    assert rsim.particles[3].m == pytest.approx(0.4 * 3.003489614915764e-6, rel=1e-12)
