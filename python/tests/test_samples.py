"""Sampled time series from Python: ``samples={"every": ..., "what": [...]}`` gives each system's
elements, MEGNO, closest pair and energy error at its sample steps, as arrays
(``Simulation.samples()``, ``Ensemble.samples()``) or an ``xarray.Dataset``; a Kepler orbit's
samples are the analytic ones, an ensemble's systems are each the system alone, and a saved
simulation samples on bit for bit."""

import math

import numpy as np
import pytest

import orrery

EVERY = {"every": {"Steps": 40}, "what": ["elements", "jacobi_elements", "megno", "min_distance", "energy"]}


def pair(a_saturn=9.5, samples=EVERY, seed=0):
    sim = orrery.Simulation(time_step_days=60.0, integrator="wh", chaos={"megno": True, "seed": seed}, samples=samples)
    sim.add(m=9.5e-4, a=5.2, e=0.05, inc=0.01)
    sim.add(m=2.9e-4, a=a_saturn, e=0.05, inc=0.02, M=2.0)
    return sim


def test_a_kepler_orbit_samples_its_analytic_elements():
    """One planet alone: a and e stay, the mean longitude advances by 2 pi t / P with the period
    the samples report, every 10 years."""
    sim = orrery.Simulation(time_step_days=10.0, integrator="wh", samples={"every": {"Years": 10.0}, "what": ["elements"]})
    sim.add(m=1e-5, a=2.0, e=0.3, M=0.5)
    sim.integrate(steps=3653)
    s = sim.samples()
    assert s["a"].shape == (11, 1) and np.array_equal(s["step"], np.arange(11) * 365)
    assert np.allclose(s["time"], s["step"] * 10.0 / 365.25, rtol=1e-14)
    assert np.allclose(s["a"], 2.0, rtol=1e-12) and np.allclose(s["e"], 0.3, rtol=1e-11)
    period = 2.0 * math.pi / orrery.K_GAUSS / 365.25 * 2.0**1.5 / math.sqrt(1.0 + 1e-5)
    assert np.allclose(s["period"], period, rtol=1e-12)
    advance = np.angle(np.exp(1j * (s["mean_longitude"][:, 0] - s["mean_longitude"][0, 0])))
    expected = np.angle(np.exp(2j * math.pi * s["time"] / period))
    assert np.allclose(advance, expected, atol=1e-9)


def test_an_ensembles_systems_are_each_system_alone_and_a_dataset_too():
    alone = [pair(a, seed=k) for k, a in enumerate([7.0, 8.5, 9.5])]
    systems = [pair(a) for a in [7.0, 8.5, 9.5]]
    for sim in alone:
        sim.integrate(steps=400)
    ens = orrery.Ensemble(systems)
    ens.integrate(steps=400)
    s = ens.samples()
    assert s["a"].shape == (3, 11, 2) and np.array_equal(s["system"], [0, 1, 2])
    for k, sim in enumerate(alone):
        one = sim.samples()
        for name, values in one.items():
            assert np.array_equal(values, s[name][k], equal_nan=True), (k, name)
    ds = ens.samples(xarray=True)
    assert dict(ds.sizes) == {"system": 3, "sample": 11, "body": 2}
    assert np.array_equal(ds["jacobi_e"].values, s["jacobi_e"]) and ds["time"].attrs["units"] == "yr"
    assert float(ds["megno"].isel(system=2, sample=-1)) == pytest.approx(2.0, abs=0.3)
    one = alone[0].samples(xarray=True)
    assert dict(one.sizes) == {"sample": 11, "body": 2}


def test_a_saved_simulation_samples_on_bit_for_bit(tmp_path):
    straight = pair()
    straight.integrate(steps=400)
    first = pair()
    first.integrate(steps=170)
    first.save(tmp_path / "sim.bin")
    later = orrery.Simulation.load(tmp_path / "sim.bin")
    later.integrate(steps=230)  # steps more: to step 400
    want, got = straight.samples(), later.samples()
    for name in want:
        assert np.array_equal(want[name], got[name], equal_nan=True), name


def test_a_runs_file_reads_with_numpy_alone(tmp_path):
    """orrery.run writes Samples<name>.npz; numpy.load reads it, and read_samples gives the same
    arrays (or a Dataset)."""
    text = f"""Scenario(
    name: "k", time_step_days: 20.0, steps: Some(100), integrator: WisdomHolman(correctors: 0),
    samples: (every: Steps(25), what: [elements, min_distance]),
    bodies: [Kepler(name: "b", m: 1e-5, a: 1.0, e: 0.1, inc_deg: 0.0, node_deg: 0.0, peri_deg: 0.0,
                    mean_anomaly_deg: 0.0),
             Kepler(name: "c", m: 1e-5, a: 1.5, e: 0.1, inc_deg: 0.0, node_deg: 0.0, peri_deg: 0.0,
                    mean_anomaly_deg: 0.0)],
    output: (dir: "{tmp_path / 'out'}", energy_interval: 0, coordinates_interval: 0),
)"""
    path = tmp_path / "k.ron"
    path.write_text(text)
    orrery.run(path)
    file = tmp_path / "out" / "Samplesk.npz"
    with np.load(file) as f:
        raw = {name: f[name] for name in f.files}
    assert raw["a"].shape == (1, 5, 2) and raw["id"].dtype == np.int64
    # Both planets start at pericentre on the same line: 1.5 * 0.9 - 1.0 * 0.9 AU apart.
    assert raw["min_distance"][0, 0] == pytest.approx(0.45, rel=1e-12)
    read = orrery.read_samples(file)
    assert all(np.array_equal(raw[k], read[k]) for k in raw)
    assert dict(orrery.read_samples(file, xarray=True).sizes) == {"system": 1, "sample": 5, "body": 2}


def test_systems_with_steps_and_cadences_of_their_own_are_each_alone():
    """Per-system steps (a twentieth of each inner orbit) and a cadence in years: the systems
    fall due at different steps, and each one's samples are still those of the system alone."""
    def system(a_jupiter, seed=0):
        sim = orrery.Simulation(time_step={"InnerPeriodFraction": 0.05}, integrator="wh", chaos={"megno": True, "seed": seed},
                                samples={"every": {"Years": 30.0}, "what": ["elements", "megno", "energy"]})
        sim.add(m=9.5e-4, a=a_jupiter, e=0.05)
        sim.add(m=2.9e-4, a=1.8 * a_jupiter, e=0.05, M=1.0)
        return sim

    sizes = [3.0, 5.2, 7.0]
    ens = orrery.Ensemble([system(a) for a in sizes])
    ens.integrate(steps=600)
    s = ens.samples()
    steps = [s["step"][k][s["step"][k] >= 0] for k in range(3)]
    assert not all(np.array_equal(steps[0], x) for x in steps[1:]), "cadences differ"
    for k, a in enumerate(sizes):
        alone = system(a, seed=k)
        alone.integrate(steps=600)
        one = alone.samples()
        for name, values in one.items():
            n = values.shape[0]
            assert np.array_equal(values, s[name][k][:n], equal_nan=True), (k, name)
