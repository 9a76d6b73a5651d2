"""Orrery against REBOUND: the Wisdom-Holman map against WHFast (and REBOUNDx's GR), the
hand-over both ways (time, names, units, radii, test particles with ``N_active`` and
``testparticle_type``) and the hybrid step against IAS15."""
import math

import numpy as np
import pytest

import orrery
from giants import JUPITER, SATURN, giants


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


def whfast_copy(rebound, sim, correctors):
    """A REBOUND simulation of `sim` in Orrery's code units (G = 1: AU, Msun, 1/k days) on WHFast
    in Jacobi coordinates with `correctors` and the same step."""
    rsim = rebound.Simulation()
    rsim.G = 1.0
    rsim.add(m=sim.central_mass)
    for m, x, v in zip(sim.m, sim.x, sim.v):
        rsim.add(m=float(m), x=x[0], y=x[1], z=x[2], vx=v[0], vy=v[1], vz=v[2])
    rsim.integrator = "whfast"
    rsim.integrator.coordinates = "jacobi"
    rsim.integrator.corrector = correctors
    rsim.integrator.safe_mode = 0
    rsim.dt = sim.dt
    return rsim


def heliocentric_positions(rsim):
    """The heliocentric positions of a REBOUND simulation's particles 1.., synchronized."""
    rsim.synchronize()
    sun = rsim.particles[0]
    return np.array([[p.x - sun.x, p.y - sun.y, p.z - sun.z] for p in rsim.particles[1:]])


@pytest.mark.parametrize("correctors", [0, 17])
def test_the_wisdom_holman_map_is_rebounds_whfast(correctors):
    """After 10^4 steps Orrery's map and REBOUND's WHFast (Jacobi coordinates, the same corrector
    order and step) put the giants within 1e-10 AU of each other (measured: 1.5e-11 and 2.3e-11,
    the size of the difference REBOUND makes to itself when the same system starts in another
    frame; before the drift took f - 1 without cancellation it was 2e-10 and grew as t^2)."""
    rebound = pytest.importorskip("rebound", reason="SKIPPED: rebound is not installed")
    sim = giants(integrator={"WisdomHolman": {"correctors": correctors}})
    rsim = whfast_copy(rebound, sim, correctors)
    sim.integrate(steps=10000)
    rsim.steps(10000)
    assert np.max(np.abs(sim.x - heliocentric_positions(rsim))) < 1e-10


@pytest.mark.parametrize("correctors", [0, 17])
def test_the_maps_gr_is_reboundx_gr_potential_on_whfast(correctors):
    """forces={"gr": True} on the map is REBOUNDx's gr_potential on WHFast (Jacobi coordinates,
    the same correctors): Mercury and Jupiter after 2e4 steps of 2 days agree to 1e-10 AU
    (measured: 3.0e-11 and 1.1e-11 with GR, 7.6e-12 and 1.5e-11 without), while GR moves
    Mercury by more than 1e-6 AU in that time."""
    rebound = pytest.importorskip("rebound", reason="SKIPPED: rebound is not installed")
    reboundx = pytest.importorskip("reboundx", reason="SKIPPED: reboundx is not installed")
    c = 299792458.0 * 86400.0 / orrery.K_GAUSS / 1.495978707e11  # AU per code time unit
    finals = {}
    for gr in (False, True):
        sim = orrery.Simulation(time_step_days=2.0, forces={"gr": gr},
                                integrator={"WisdomHolman": {"correctors": correctors}})
        sim.add(m=1.66e-7, a=0.387098, e=0.205630, inc=0.12, node=0.8, peri=0.5, M=0.3)
        sim.add(m=JUPITER, a=5.2029, e=0.0484, inc=0.0228, node=1.7536, peri=4.7866, M=0.3432)
        rsim = whfast_copy(rebound, sim, correctors)
        if gr:
            extras = reboundx.Extras(rsim)
            force = extras.load_force("gr_potential")
            extras.add_force(force)
            force.params["c"] = c
        sim.integrate(steps=20000)
        rsim.steps(20000)
        assert np.max(np.abs(sim.x - heliocentric_positions(rsim))) < 1e-10, gr
        finals[gr] = sim.x
    assert np.max(np.abs(finals[True] - finals[False])) > 1e-6


def test_rebounds_time_is_carried_over_and_back(tmp_path):
    """from_rebound keeps REBOUND's t (before, the copy started at 0): integrate(time=...) is
    absolute, the energy line, events and to_rebound() carry the time on, and save/load keeps
    it; a Simulation's t is settable before the first integrate, as REBOUND's."""
    rebound = pytest.importorskip("rebound", reason="SKIPPED: rebound is not installed")
    rsim = rebound.Simulation()
    rsim.units = ("yr", "AU", "Msun")
    rsim.add(m=1.0)
    rsim.add(m=JUPITER, a=5.2029, e=0.0484)
    rsim.t, rsim.dt = 12.5, 0.05
    sim = orrery.from_rebound(rsim)
    assert sim.t == pytest.approx(12.5, rel=1e-14) and sim.step == 0
    sim.integrate(time=13.5)
    assert sim.step == 20 and sim.t == pytest.approx(13.5, rel=1e-12)
    assert sim.energy()["time"] == pytest.approx(sim.t, rel=1e-12)
    assert sim.to_rebound().t == pytest.approx(13.5, rel=1e-12)
    with pytest.raises(orrery.InputError, match="before the time reached, 13.4999"):
        sim.integrate(time=13.0)
    sim.save(tmp_path / "t.npz")
    assert orrery.Simulation.load(tmp_path / "t.npz").t == sim.t
    # In days: REBOUND's 12.5 years are 4565.625 days.
    days = orrery.from_rebound(rsim, units=("au", "day", "msun"))
    assert days.t == pytest.approx(12.5 * 365.25, rel=1e-13)
    fresh = giants(units=("au", "yr", "msun"))
    fresh.t = 100.0
    fresh.integrate(steps=1)
    assert fresh.t == pytest.approx(100.0 + fresh.dt) and fresh.t_years == pytest.approx(fresh.t)
    with pytest.raises(orrery.InputError, match="field `t`"):
        fresh.t = 0.0


def test_to_rebound_picks_rebounds_closest_integrator():
    """to_rebound() sets MERCURIUS (r_crit_hill = n1) for the hybrid step and WHFast in Jacobi
    coordinates with the same corrector order for the Wisdom-Holman map, not IAS15."""
    pytest.importorskip("rebound", reason="SKIPPED: rebound is not installed")
    hybrid = giants(n1=2.5)
    hybrid.integrate(steps=10)
    rsim = hybrid.to_rebound()
    assert str(rsim.integrator) == "mercurius" and rsim.integrator.r_crit_hill == 2.5
    wh = giants(integrator={"WisdomHolman": {"correctors": 11}})
    wh.integrate(steps=10)
    rsim = wh.to_rebound()
    assert str(rsim.integrator) == "whfast"
    assert str(rsim.integrator.coordinates).lower() == "jacobi" and rsim.integrator.corrector == 11


def test_rebound_round_trip_keeps_the_state():
    rebound = pytest.importorskip("rebound", reason="SKIPPED: rebound is not installed")
    sim = giants()
    sim.integrate(steps=100)
    rsim = sim.to_rebound()
    assert rsim.N == 3 and rsim.t == pytest.approx(sim.t_years)
    back = orrery.from_rebound(rsim)
    # The copy keeps REBOUND's units (years): the same step, the same states in AU and AU/yr.
    year = 365.25 * orrery.K_GAUSS  # code units per year
    assert back.dt == pytest.approx(sim.dt / year, rel=1e-14)
    a, b = sim.state(), back.state()
    for k in ("m", "x", "y", "z"):
        assert np.allclose(a[k], b[k], rtol=0, atol=1e-14), k
    for k in ("vx", "vy", "vz"):
        assert np.allclose(a[k] * year, b[k], rtol=0, atol=1e-14), k
    assert isinstance(rsim, rebound.Simulation)


@pytest.mark.parametrize(
    "units, unit_days",
    [(None, 1.0 / orrery.K_GAUSS), (("yr", "AU", "Msun"), 365.25), (("day", "AU", "Msun"), 1.0)],
)
def test_from_rebound_keeps_rebounds_units(units, unit_days):
    """A REBOUND simulation handed over keeps its units: integrate(time=T) runs T of REBOUND's
    time units (G = 1: 1/k days; years; days), and t, x and v read as in REBOUND, where the same
    system integrated by REBOUND's IAS15 for the same time agrees to the map's error."""
    rebound = pytest.importorskip("rebound", reason="SKIPPED: rebound is not installed")
    rsim = rebound.Simulation()
    if units is not None:
        rsim.units = units
    assert rsim.G == pytest.approx(1.0 if units is None else (orrery.K_GAUSS * unit_days) ** 2, rel=1e-12)
    rsim.add(m=1.0)
    rsim.add(m=JUPITER, a=5.2029, e=0.0484, inc=0.0228, Omega=1.7536, omega=4.7866, M=0.3432)
    rsim.add(m=SATURN, a=9.5367, e=0.0539, inc=0.0434, Omega=1.9838, omega=5.9155, M=5.5389)
    rsim.dt = 5.0 / unit_days  # 5 days in REBOUND's unit
    sim = orrery.from_rebound(rsim, order=4)
    assert sim.dt == pytest.approx(rsim.dt, rel=1e-13)
    # A Jupiter period (11.86 years) in REBOUND's time unit: 867 steps of 5 days, not 35.
    period = 11.86 * 365.25 / unit_days
    steps = sim.integrate(time=period)
    assert abs(steps - 11.86 * 365.25 / 5.0) <= 1.0, steps
    assert sim.t == pytest.approx(period, rel=2e-3)
    rsim.integrator = "ias15"
    rsim.integrate(sim.t, exact_finish_time=1)
    ps = rsim.particles
    ref_x = np.array([[p.x - ps[0].x, p.y - ps[0].y, p.z - ps[0].z] for p in ps[1:]])
    ref_v = np.array([[p.vx - ps[0].vx, p.vy - ps[0].vy, p.vz - ps[0].vz] for p in ps[1:]])
    assert np.max(np.abs(sim.x - ref_x)) < 1e-6
    speed = np.max(np.abs(ref_v))
    assert np.max(np.abs(sim.v - ref_v)) < 1e-6 * speed


def test_a_system_in_si_units_has_rebounds_gm():
    """The Sun and Jupiter given in metres, seconds and kilograms, as a REBOUND simulation in SI
    units holds them, move as REBOUND moves them: after a century on IAS15 and on the hybrid
    step the positions agree to 1e-6 of the orbit (GENGA's solar mass in kg, 2.2e-4 more,
    puts Jupiter 5e-3 of its orbit off)."""
    rebound = pytest.importorskip("rebound", reason="SKIPPED: rebound is not installed")
    rsim = rebound.Simulation()
    rsim.units = ("s", "m", "kg")
    msun = orrery.MASSES["msun"] / orrery.MASSES["kg"]
    rsim.add(m=msun)
    rsim.add(m=JUPITER * msun, a=5.2029 * 1.495978707e11, e=0.0484, inc=0.0228, M=0.3432)
    rsim.move_to_hel()
    j = rsim.particles[1]
    sim = orrery.Simulation(time_step_days=2.0, units=("m", "s", "kg"), central_mass=msun, order=6)
    sim.add(m=j.m, x=j.x, y=j.y, z=j.z, vx=j.vx, vy=j.vy, vz=j.vz)
    century = 100 * 365.25 * 86400.0
    sim.integrate(time=century, exact_finish_time=True)
    rsim.integrator = "ias15"
    rsim.integrate(century, exact_finish_time=1)
    ps = rsim.particles
    ref = np.array([ps[1].x - ps[0].x, ps[1].y - ps[0].y, ps[1].z - ps[0].z])
    assert np.linalg.norm(sim.x[0] - ref) < 1e-6 * np.linalg.norm(ref)


def test_from_rebound_keeps_each_radius():
    """Each particle keeps its own radius; only those REBOUND gives none (r = 0) take the
    default_rho radius (before, one r = 0 dropped every radius)."""
    rebound = pytest.importorskip("rebound", reason="SKIPPED: rebound is not installed")
    rsim = rebound.Simulation()
    rsim.units = ("yr", "AU", "Msun")
    rsim.add(m=1.0, r=0.005)
    rsim.add(m=JUPITER, a=5.2, r=4.67e-4)
    rsim.add(m=3e-6, a=1.0)  # no radius
    sim = orrery.from_rebound(rsim, default_rho=3.0)
    r = sim.state()["r"]
    assert r[0] == pytest.approx(4.67e-4, rel=1e-15)
    sphere = (3.0 * 3e-6 * 1.98892e33 / (4.0 * math.pi * 3.0)) ** (1.0 / 3.0) / 1.495978707e13
    assert r[1] == pytest.approx(sphere, rel=1e-12)


def test_orrery_and_rebound_ias15_agree_on_the_giants():
    """REBOUND's IAS15 (machine precision) and Orrery's hybrid integrator on Jupiter and Saturn:
    after 200 years the positions agree to the second-order map's error."""
    rebound = pytest.importorskip("rebound", reason="SKIPPED: rebound is not installed")
    rsim = rebound.Simulation()
    rsim.units = ("yr", "AU", "Msun")
    rsim.add(m=1.0)
    rsim.add(m=JUPITER, a=5.2029, e=0.0484, inc=0.0228, Omega=1.7536, omega=4.7866, M=0.3432)
    rsim.add(m=SATURN, a=9.5367, e=0.0539, inc=0.0434, Omega=1.9838, omega=5.9155, M=5.5389)
    rsim.dt = 1.0 / 365.25
    sim = orrery.from_rebound(rsim, order=4)
    rsim.integrator = "ias15"
    steps = 200 * 365
    sim.integrate(steps=steps)
    rsim.integrate(steps * rsim.dt, exact_finish_time=1)
    ps = rsim.particles
    ref = np.array([[p.x - ps[0].x, p.y - ps[0].y, p.z - ps[0].z] for p in ps[1:]])
    assert np.max(np.abs(sim.x - ref)) < 1e-6


# ---- the example ----------------------------------------------------------------------------
