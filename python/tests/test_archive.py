"""Archives (issue 45): integrate(..., archive=, every=) appends snapshots that Archive reads
back as simulations continuing bitwise, as REBOUND's Simulationarchive."""
import warnings

import numpy as np
import pytest

import orrery
from giants import JUPITER, SATURN
from giants import giants_in_years as _giants


@pytest.mark.parametrize("integrator", ["wh", "hybrid"])
def test_an_archive_holds_snapshots_that_continue_bitwise(tmp_path, integrator):
    path = tmp_path / "run.orrery"
    sim = _giants(integrator=integrator)
    sim.integrate(time=10.0, archive=path, every=1.0)
    # A second call appends (and does not write a second start).
    sim.integrate(time=20.0, archive=path, every=1.0)
    archive = orrery.Archive(path)
    per = round(1.0 / sim.dt)
    assert len(archive) == 1 + sim.step // per
    assert np.array_equal(archive.steps, np.arange(len(archive)) * per)
    assert np.allclose(archive.times, archive.steps * sim.dt, rtol=1e-14, atol=0)
    # Snapshot 7, loaded and integrated on, is where the run went, to the bit.
    middle = archive[7]
    assert middle.step == 7 * per and middle.particles["Saturn"].name == "Saturn"
    middle.integrate(time=20.0)
    assert middle.step == sim.step and np.array_equal(middle.x, sim.x) and np.array_equal(middle.v, sim.v)
    assert archive.at(7.5 * per * sim.dt).step == 7 * per
    assert np.array_equal(archive[-1].x, orrery.Archive(path)[len(archive) - 1].x)


def test_a_stop_is_archived_and_a_torn_record_left_out(tmp_path):
    path = tmp_path / "stop.orrery"
    sim = orrery.Simulation(time_step_days=5.0, units=("au", "yr", "msun"), integrator="wh",
                            stop={"hill_radii": 1.0})
    sim.add(m=JUPITER, a=5.2029, e=0.0484, inc=0.0227, node=1.754, peri=4.787, M=0.344, r=0.3)
    sim.add(m=3e-5, a=4.6, e=0.2, inc=0.0175, node=1.571, peri=0.349, M=1.745, r=1e-4)
    with pytest.raises(orrery.Encounter):
        sim.integrate(time=300.0, archive=path, every=10.0)
    archive = orrery.Archive(path)
    assert archive.steps[-1] == sim.step and archive[-1].stop() == sim.stop()
    # A run killed while writing its last snapshot: the earlier ones stay readable.
    data = path.read_bytes()
    path.write_bytes(data[:-100])
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        torn = orrery.Archive(path)
    assert len(torn) == len(archive) - 1 and any("incomplete" in str(w.message) for w in seen)
    assert np.array_equal(torn[-1].x, archive[-2].x)


def test_archive_settings_are_checked(tmp_path):
    sim = _giants()
    with pytest.raises(orrery.InputError, match="every"):
        sim.integrate(time=1.0, archive=tmp_path / "a.orrery", every=-1.0)
    with pytest.raises(orrery.InputError, match="archive"):
        sim.integrate(time=1.0, every=1.0)
    (tmp_path / "junk").write_bytes(b"not an archive")
    with pytest.raises(orrery.InputError, match="not an Orrery archive"):
        orrery.Archive(tmp_path / "junk")
