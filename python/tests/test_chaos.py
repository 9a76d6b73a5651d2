"""Chaos indicators from Python: ``chaos=True`` on the Wisdom-Holman map gives REBOUND's MEGNO
and Lyapunov exponent (``Simulation.megno()``, ``lyapunov()``; ``Ensemble.megno()`` as arrays),
regular orbits read 2, the stop on MEGNO raises ``orrery.Chaotic``, an ensemble's systems are
each the system alone, a saved simulation goes on bit for bit, and the hybrid step refuses."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import orrery
from giants import JUPITER, SATURN


def pair(a_saturn=9.5367, e_saturn=0.0539, **settings):
    """The Sun, Jupiter and Saturn (at ``a_saturn``, ``e_saturn``) on the map with MEGNO,
    steps of 60 days (a twentieth of Jupiter's period)."""
    settings.setdefault("chaos", True)
    sim = orrery.Simulation(time_step_days=60.0, integrator="wh", **settings)
    sim.add(m=JUPITER, a=5.2029, e=0.0484, inc=0.0228, node=1.7536, peri=4.7866, M=0.3432)
    sim.add(m=SATURN, a=a_saturn, e=e_saturn, inc=0.0434, node=1.9838, peri=5.9155, M=5.5389)
    return sim


def test_regular_orbits_read_two_and_chaotic_ones_grow():
    """Jupiter and Saturn on their orbits: MEGNO 2 within 0.02 after 2000 Jupiter orbits and a
    Lyapunov exponent near 0; Saturn at 6.6 AU, e 0.1, over 80 Jupiter orbits (before
    Jupiter throws it out, near 1100 years): MEGNO far above 2 and a positive exponent whose
    inverse, the Lyapunov time, is decades to centuries."""
    sim = pair()
    sim.integrate(time=2000 * 4332.6 * orrery.K_GAUSS)
    assert sim.megno() == pytest.approx(2.0, abs=0.02)
    assert abs(sim.lyapunov()) < 1e-4
    wild = pair(a_saturn=6.6, e_saturn=0.1)
    wild.integrate(time=80 * 4332.6 * orrery.K_GAUSS)
    assert wild.megno() > 4.0
    assert 10.0 < 1.0 / wild.lyapunov() < 1000.0


def test_the_stop_on_megno_raises_chaotic_with_the_state_kept():
    """chaos={"megno": True, "stop_above": 5, "stop_after_years": 100}: a chaotic pair stops
    with orrery.Chaotic once MEGNO passes 5, after 100 years, and the record says so; the
    regular pair runs on."""
    chaos = {"megno": True, "seed": 2, "stop_above": 5.0, "stop_after_years": 100.0}
    wild = pair(a_saturn=6.6, e_saturn=0.1, chaos=chaos)
    with pytest.raises(orrery.Chaotic, match="MEGNO reached"):
        wild.integrate(steps=200000)
    stop = wild.stop()
    assert stop["reason"] == "chaotic" and wild.megno() > 5.0
    assert wild.t_years >= 100.0 and wild.step < 200000
    calm = pair(chaos=chaos)
    assert calm.integrate(steps=20000) == 20000 and calm.stopped is None


def test_an_ensembles_systems_are_each_system_alone_and_save_resumes_bit_for_bit(tmp_path):
    """Ensemble.megno() and lyapunov() are arrays over the systems; system k of an ensemble
    with tangent seed s is the simulation alone with seed s + k, to the bit; a saved and
    loaded simulation goes on to the same MEGNO as one that never stopped."""
    places = [6.4, 6.9, 7.6, 8.5, 9.5]
    systems = [pair(a_saturn=a, chaos={"megno": True, "seed": 11}) for a in places]
    ens = orrery.Ensemble(systems)
    ens.integrate(steps=6000)
    megno, lyapunov = ens.megno(), ens.lyapunov()
    assert megno.shape == lyapunov.shape == (len(places),)
    for k, a in enumerate(places):
        alone = pair(a_saturn=a, chaos={"megno": True, "seed": 11 + k})
        alone.integrate(steps=6000)
        assert alone.megno() == megno[k] and alone.lyapunov() == lyapunov[k]
    first = pair(a_saturn=6.9)
    first.integrate(steps=3000)
    first.save(tmp_path / "half.npz")
    resumed = orrery.Simulation.load(tmp_path / "half.npz")
    resumed.integrate(steps=3000)
    straight = pair(a_saturn=6.9)
    straight.integrate(steps=6000)
    assert resumed.megno() == straight.megno()


def test_megno_without_variations_or_on_the_hybrid_step_is_refused():
    """megno() without chaos is an InputError naming `chaos`; chaos on the hybrid step is one
    naming `chaos.megno` and the Wisdom-Holman map, at construction."""
    plain = pair(chaos=False)
    plain.integrate(steps=10)
    with pytest.raises(orrery.InputError, match="chaos"):
        plain.megno()
    with pytest.raises(orrery.InputError, match="Wisdom-Holman"):
        orrery.Simulation(time_step_days=60.0, chaos=True)


def test_megno_agrees_with_rebounds_whfast_on_a_regular_pair():
    """REBOUND's WHFast with variations (init_megno) on the same Jupiter-Saturn pair, the same
    step, over 2000 Jupiter orbits: both MEGNO read 2, within 0.01 of each other."""
    pytest.importorskip("rebound")
    sim = pair()
    steps = int(2000 * 4332.6 / 60.0)
    sim.integrate(steps=steps)
    # to_rebound: WHFast in Jacobi coordinates, units (yr, AU, Msun), the same step.
    rsim = pair(chaos=False).to_rebound()
    rsim.init_megno(seed=1)
    rsim.steps(steps)
    assert rsim.t == pytest.approx(sim.t_years, rel=1e-9)
    assert sim.megno() == pytest.approx(rsim.megno(), abs=0.01)


def test_the_lyapunov_exponent_of_a_chaotic_pair_is_rebounds_over_many_systems():
    """A chaotic Saturn (7.8 AU, e 0.2) beside Jupiter, 32 systems a millionth of a radian
    apart in Saturn's mean anomaly (single chaotic trajectories of two codes part at the
    rounding level): over 1000 Jupiter orbits the mean Lyapunov exponent is within 10 % of
    REBOUND's WHFast with first-order variations on the same map and step (measured: 0.8 %),
    and so is the mean MEGNO."""
    pytest.importorskip("rebound")

    def chaotic(k, chaos):
        sim = orrery.Simulation(time_step_days=60.0, integrator="wh", chaos=chaos)
        sim.add(m=JUPITER, a=5.2029, e=0.0484, inc=0.0, node=0.0, peri=0.0, M=0.0)
        sim.add(m=SATURN, a=7.8, e=0.2, inc=0.0, node=0.0, peri=1.0, M=2.0 + 1e-6 * k)
        return sim

    n, steps = 32, int(1000 * 4332.6 / 60.0)
    ens = orrery.Ensemble([chaotic(k, {"megno": True, "seed": 1}) for k in range(n)])
    ens.integrate(steps=steps)
    ours, ours_megno = ens.lyapunov(), ens.megno()
    theirs, theirs_megno = [], []
    for k in range(n):
        rsim = chaotic(k, False).to_rebound()
        rsim.init_megno(seed=k + 1)
        rsim.steps(steps)
        theirs.append(rsim.lyapunov())  # per year: to_rebound's time unit
        theirs_megno.append(rsim.megno())
    assert np.all(ours_megno > 4.0)
    assert ours.mean() == pytest.approx(np.mean(theirs), rel=0.1)
    assert ours_megno.mean() == pytest.approx(np.mean(theirs_megno), rel=0.1)


def test_the_megno_map_example_matches_rebounds_classes(tmp_path):
    """examples/megno_map.py: REBOUND's MEGNO map (Saturn's a 7-10 AU, e 0-0.5, 1000 years) on a
    20 x 20 grid with Orrery and with REBOUND's WHFast (seeded): at least 95 % of the points in
    the same class (MEGNO < 2.5 regular, > 4 chaotic, undecided between), and the figure."""
    pytest.importorskip("rebound")
    pytest.importorskip("matplotlib", reason="SKIPPED: matplotlib is not installed")
    script = Path(__file__).resolve().parents[2] / "examples" / "megno_map.py"
    out = tmp_path / "map.png"
    done = subprocess.run(
        [sys.executable, str(script), "--grid", "20", "--out", str(out)],
        check=True, capture_output=True, text=True, env=dict(os.environ, MPLBACKEND="Agg"),
    )
    line = next(l for l in done.stdout.splitlines() if l.startswith("same class:"))
    same, total = (int(w) for w in line.split(":")[1].split("(")[0].split(" of "))
    assert total == 400 and same >= 0.95 * total, line
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
