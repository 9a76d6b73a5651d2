"""Ensemble.save and Ensemble.load (issue 45, "Ensemble as a container"): a loaded ensemble
continues bitwise, with each system's stop, time step, minimum and events kept."""
import numpy as np
import pytest

import orrery

JUPITER, SATURN = 9.547919e-4, 2.858860e-4


def _giants(**settings):
    sim = orrery.Simulation(**settings)
    sim.add(m=JUPITER, a=5.2029, e=0.0484, inc=0.0228, node=1.7536, peri=4.7866, M=0.3432, name="Jupiter")
    sim.add(m=SATURN, a=9.5367, e=0.0539, inc=0.0434, node=1.9838, peri=5.9155, M=5.5389, name="Saturn")
    return sim


def _same(a, b, k):
    sa, sb = a.state(k), b.state(k)
    assert sa.tobytes() == sb.tobytes(), f"system {k}: states differ"
    assert a.stop(k) == b.stop(k) and a.stopped(k) == b.stopped(k)
    assert a.collisions(k).tobytes() == b.collisions(k).tobytes()
    assert a.ejections(k).tobytes() == b.ejections(k).tobytes()
    assert a.energy(k) == b.energy(k)


@pytest.mark.parametrize("integrator", ["wh", "hybrid"])
def test_a_saved_ensemble_continues_bitwise(tmp_path, integrator):
    """Systems with their own steps (a fraction of the innermost period on the map), one that
    stopped before the save and one that stops after it at its first collision (the default
    minimum: every initial body, which the loaded ensemble keeps though it has no bodies to
    count)."""
    wh = integrator == "wh"
    extra = {"integrator": "wh", "stop": {"hill_radii": 1.0}} if wh else {}
    steps = [{"time_step_days": 5.0}, {"time_step": {"InnerPeriodFraction": 0.05}}] if wh else [{"time_step_days": 5.0}] * 2
    systems = []
    for k in range(4):
        sim = _giants(units=("au", "yr", "msun"), **steps[k % 2], **extra)
        if k == 1:
            # On Jupiter's orbit, a little behind it: an encounter or a merger soon.
            sim.add(m=1e-5, a=5.2029, e=0.0484, inc=0.0228, node=1.7536, peri=4.7866, M=0.32, r=0.02)
        elif k == 2:
            # Further behind: it stops (about step 6000) after the save.
            sim.add(m=1e-5, a=5.2029, e=0.0484, inc=0.0228, node=1.7536, peri=4.7866, M=0.1, r=0.02)
        else:
            sim.add(m=3e-6, a=7.0 + 0.3 * k, e=0.05, M=1.0 * k)
        systems.append(sim)
    ens = orrery.Ensemble(systems)
    ens.integrate(steps=800)
    path = tmp_path / "ens.npz"
    ens.save(path)
    back = orrery.Ensemble.load(path)
    assert len(back) == 4 and back.step == ens.step
    assert [back.dt(k) for k in range(4)] == [ens.dt(k) for k in range(4)]
    for k in range(4):
        _same(ens, back, k)
        assert back[k].t == ens[k].t
    ens.integrate(steps=6000)
    back.integrate(steps=6000)
    stopped = [k for k in range(4) if ens.stopped(k)]
    assert stopped == [1, 2], f"expected systems 1 and 2 to stop: {stopped}"
    assert ens.stop(1)["step"] < 800 < ens.stop(2)["step"]
    for k in range(4):
        _same(ens, back, k)


def test_load_refuses_a_file_save_did_not_write(tmp_path):
    path = tmp_path / "junk.npz"
    np.savez(path, x=np.zeros(3))
    with pytest.raises(orrery.InputError, match="Ensemble.save"):
        orrery.Ensemble.load(path)
