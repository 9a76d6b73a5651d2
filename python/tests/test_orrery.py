"""The Python module against physics, against the command line, and against REBOUND."""

import math
import os
import re
import shutil
import signal
import subprocess
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

import orrery

from giants import JUPITER, SATURN, giants

REPO = Path(__file__).resolve().parents[2]


def cli_binary():
    """The `orrery` binary the Python run is compared with (ORRERY_BIN, or the release build)."""
    path = Path(os.environ.get("ORRERY_BIN", REPO / "target" / "release" / "orrery"))
    if not path.exists():
        pytest.skip(f"SKIPPED: no orrery binary at {path} (cargo build --release, or set ORRERY_BIN)")
    return path


def saved_and_loaded_continue_bitwise(sim, path, steps):
    """Save `sim` to `path`, load it, step both `steps` on: the same state, bit for bit. Returns
    the loaded copy."""
    sim.save(path)
    back = orrery.Simulation.load(path)
    sim.integrate(steps=steps)
    back.integrate(steps=steps)
    assert np.array_equal(sim.state(), back.state())
    return back


def disk(n, seed=3, massive=True):
    """`n` planetesimals between 0.8 and 2 AU (arrays, as a user would build them)."""
    rng = np.random.default_rng(seed)
    return dict(
        m=np.full(n, 1e-9 if massive else 0.0),
        a=rng.uniform(0.8, 2.0, n),
        e=rng.rayleigh(0.01, n),
        inc=rng.rayleigh(0.005, n),
        node=rng.uniform(0, 2 * np.pi, n),
        peri=rng.uniform(0, 2 * np.pi, n),
        M=rng.uniform(0, 2 * np.pi, n),
    )


# ---- Simulation: physics -------------------------------------------------------------------


def test_a_light_body_follows_kepler_s_orbit():
    """One body of 1e-12 Msun after 1000 steps sits where Kepler's equation puts it."""
    sim = orrery.Simulation(time_step_days=5.0)
    el = dict(a=1.3, e=0.2, inc=0.1, node=0.4, peri=1.1, M=0.5)
    sim.add(m=1e-12, **el)
    sim.integrate(steps=1000)
    mu = 1.0 + 1e-12
    n = math.sqrt(mu / el["a"] ** 3)
    later = dict(el, M=el["M"] + n * sim.t)
    pos, vel = orrery._orrery.cartesian_from_elements(*[np.array([v]) for v in (mu, *later.values())])
    assert np.max(np.abs(sim.x - pos)) < 1e-9
    assert np.max(np.abs(sim.v - vel)) < 1e-9


def test_two_giants_conserve_energy_and_angular_momentum():
    sim = giants()
    sim.integrate(time=orrery.TIMES["yr"] * 1000.0)
    e = sim.energy()
    assert sim.t_years == pytest.approx(1000.0, abs=20.0 / 365.25)
    assert abs(e["e_relative"]) < 1e-6
    assert abs(e["l_relative"]) < 1e-11
    a = sim.elements()["a"]
    assert a[0] == pytest.approx(5.2, abs=0.01) and a[1] == pytest.approx(9.55, abs=0.05)


def test_named_units_convert_in_and_out():
    """A circular orbit at 1 AU in (au, yr, msun) has speed 2 pi k 365.25 / (2 pi) AU/yr."""
    sim = orrery.Simulation(time_step_days=1.0, units=("au", "yr", "msun"))
    sim.add(m=3e-6, x=1.0, vy=orrery.K_GAUSS * 365.25 * math.sqrt(1 + 3e-6))
    code = orrery.Simulation(time_step_days=1.0)
    code.add(m=3e-6, x=1.0, vy=math.sqrt(1 + 3e-6))
    sim.integrate(time=1.0)
    code.integrate(steps=sim.step)
    assert sim.step == 366
    assert np.allclose(sim.x, code.x, rtol=0, atol=1e-15)
    assert np.allclose(sim.v / (orrery.K_GAUSS * 365.25), code.v, rtol=1e-14, atol=0)
    assert np.linalg.norm(sim.x[0]) == pytest.approx(1.0, abs=1e-6)


def test_arrays_and_body_by_body_give_the_same_bits():
    d = disk(50)
    one = orrery.Simulation(time_step_days=6.0)
    one.add(**d)
    each = orrery.Simulation(time_step_days=6.0)
    for k in range(50):
        each.add(**{key: v[k] for key, v in d.items()})
    one.integrate(steps=200)
    each.integrate(steps=200)
    assert np.array_equal(one.state(), each.state())
    assert list(one.i) == list(range(50))


def test_thread_counts_give_the_same_bits():
    runs = []
    for threads in (1, 2):
        sim = orrery.Simulation(time_step_days=6.0, threads=threads)
        sim.add(**disk(300))
        sim.integrate(steps=100)
        runs.append(sim.state())
    assert np.array_equal(runs[0], runs[1])


@pytest.mark.parametrize("integrator", ["hybrid", "wh"])
def test_calls_from_any_thread_give_the_same_bits(integrator):
    """An object's calls run on its own number of threads whichever Python thread makes them:
    the calling thread's own pool, or a shared one (a thread belongs to one pool only). Runs
    stepped from the main thread, from other threads and from both, with one and two threads,
    end on the same bits, and none waits forever."""

    def stepped(threads, parts):
        sim = orrery.Simulation(time_step_days=6.0, threads=threads, integrator=integrator)
        sim.add(**disk(40))
        for where, steps in parts:
            if where == "main":
                sim.integrate(steps=steps)
            else:
                worker = threading.Thread(target=sim.integrate, kwargs={"steps": steps})
                worker.start()
                worker.join(timeout=60)
                assert not worker.is_alive(), "a call from another thread never returned"
        return sim.state()

    main = stepped(2, [("main", 60)])
    for threads in (1, 2, None):
        for parts in ([("other", 60)], [("main", 25), ("other", 20), ("main", 15)]):
            assert np.array_equal(stepped(threads, parts), main), (threads, parts)


def _stepped_state(threads):
    """The giants stepped 50 steps on `threads` threads: their state (run in a forked child)."""
    sim = giants(threads=threads)
    sim.integrate(steps=50)
    return sim.state()


def test_a_forked_child_steps_on_pools_of_its_own():
    """A child forked after the parent's calls made its pools (whose worker threads stay in the
    parent) steps on pools of its own: the same bits, and it does not wait forever."""
    import multiprocessing

    for threads in (1, 2):
        giants(threads=threads).integrate(steps=5)  # the parent's own and shared pools
    with multiprocessing.get_context("fork").Pool(1) as pool:
        for threads in (1, 2, None):
            child = pool.apply_async(_stepped_state, (threads,)).get(timeout=60)
            assert np.array_equal(child, _stepped_state(threads))


def test_a_head_on_pair_merges_and_is_recorded():
    sim = orrery.Simulation(time_step_days=1.0)
    sim.add(m=[1e-6, 1e-6], r=[1e-4, 1e-4], x=[1.0, 1.0], y=[-0.01, 0.01], vx=[0.0, 0.0], vy=[1.0, -0.5])
    e0 = sim.energy()["e_total"]
    sim.integrate(steps=5)
    c = sim.collisions
    assert len(c) == 1 and sim.N == 1
    assert c["bodies"]["i"].tolist() == [[0, 1]]
    assert 0 < c["t"][0] < 5 * sim.dt  # the simulation's time unit
    assert sim.m[0] == pytest.approx(2e-6, rel=1e-15)
    # The merger took half the orbital energy into U (an inelastic merger at 1.5 times the
    # orbital speed); E + U is conserved to the Bulirsch-Stoer tolerance of the encounter.
    e = sim.energy()
    assert e["u"] > 0.3 * abs(e0)
    assert abs(e["e_total"] - e0) < 1e-4 * e["u"]


def test_save_and_load_continue_bitwise(tmp_path):
    sim = giants()
    sim.integrate(steps=500)
    sim.save(tmp_path / "giants.npz")
    again = orrery.Simulation.load(tmp_path / "giants.npz")
    assert again.step == 500
    sim.integrate(steps=700)
    again.integrate(steps=700)
    assert np.array_equal(sim.state(), again.state())
    assert sim.energy() == again.energy()


def test_a_checkpoint_of_other_settings_is_refused(tmp_path):
    sim = giants()
    sim.integrate(steps=10)
    sim.save(tmp_path / "a.npz")
    data = dict(np.load(tmp_path / "a.npz"))
    meta = __import__("json").loads(bytes(data["meta"]).decode())
    meta["settings"]["n1"] = 5.0
    data["meta"] = np.frombuffer(__import__("json").dumps(meta).encode(), dtype=np.uint8)
    np.savez(tmp_path / "b.npz", **data)
    with pytest.raises(orrery.InputError, match="different settings"):
        orrery.Simulation.load(tmp_path / "b.npz")


# ---- Simulation: bad input ------------------------------------------------------------------


def test_bad_settings_are_input_errors_naming_the_field():
    with pytest.raises(orrery.InputError, match="chngeover"):
        orrery.Simulation(time_step_days=6.0, chngeover="Quintic").add(m=1e-9, a=1.0).integrate(steps=1)
    with pytest.raises(orrery.InputError) as err:
        orrery.Simulation(time_step_days=6.0, order=3).add(m=1e-9, a=1.0).integrate(steps=1)
    assert err.value.field == "order" and "2, 4 or 6" in err.value.expected
    with pytest.raises(orrery.InputError, match="invalid orbital elements"):
        orrery.Simulation(time_step_days=6.0).add(m=1e-9, a=1.0, e=-0.1)
    with pytest.raises(orrery.InputError, match="units"):
        orrery.Simulation(time_step_days=6.0, units=("au", "fortnight", "msun"))
    with pytest.raises(orrery.InputError, match="no bodies"):
        orrery.Simulation(time_step_days=6.0).integrate(steps=1)
    with pytest.raises(orrery.InputError, match="field `x`: 3 values where `m` has 2; expected a number or 2 values"):
        orrery.Simulation(time_step_days=6.0).add(m=[1e-9, 1e-9], x=[1.0, 2.0, 3.0]).integrate(steps=1)


# ---- Ctrl-C ---------------------------------------------------------------------------------


def interrupt_after(seconds):
    timer = threading.Timer(seconds, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    return timer


def test_ctrl_c_stops_integrate_at_a_step_with_the_state_intact():
    sim = orrery.Simulation(time_step_days=6.0, threads=2)
    sim.add(**disk(400))
    timer = interrupt_after(0.5)
    with pytest.raises(KeyboardInterrupt):
        sim.integrate(steps=10**9)
    timer.join()
    reached = sim.step
    assert 0 < reached < 10**9
    # Python's own handler is back: a later Ctrl-C outside integrate is the usual KeyboardInterrupt.
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    sim.integrate(steps=20)
    fresh = orrery.Simulation(time_step_days=6.0, threads=2)
    fresh.add(**disk(400))
    fresh.integrate(steps=reached + 20)
    assert np.array_equal(sim.state(), fresh.state())


# ---- run and read ---------------------------------------------------------------------------

SCENARIO = """Scenario(
    name: "pyrun",
    time_step_days: 6.0,
    steps: Some(STEPS),
    bodies: [File(path: "REPO/inputs/genga/initialplanet_2048.dat", format: "<< x y z m vx vy vz >>", count: Some(COUNT))],
    output: (dir: "OUT", energy_interval: 50, coordinates_interval: 100, checkpoint_interval: 100),
)
"""


def scenario(tmp_path, steps=200, count=300, out="out"):
    text = SCENARIO.replace("REPO", str(REPO)).replace("STEPS", str(steps)).replace("COUNT", str(count))
    path = tmp_path / "pyrun.ron"
    path.write_text(text.replace("OUT", str(tmp_path / out)))
    return path


def run_files(directory):
    return {f.name: f.read_bytes() for f in sorted(Path(directory).iterdir()) if not f.name.startswith("info")}


def test_run_from_python_writes_the_cli_s_files_bitwise(tmp_path):
    binary = cli_binary()
    path = scenario(tmp_path)
    summary = orrery.run(path, out=tmp_path / "py", threads=2)
    assert summary["engine"] == "hybrid" and summary["last_step"] == 200
    subprocess.run([binary, "run", str(path), "--out", str(tmp_path / "cli"), "--threads", "2"], check=True, capture_output=True)
    py, cli = run_files(tmp_path / "py"), run_files(tmp_path / "cli")
    assert sorted(py) == sorted(cli) and "Outpyrun_000000000200.dat" in py
    for name in py:
        assert py[name] == cli[name], name


def test_simulation_matches_the_cli_s_snapshot_bitwise(tmp_path):
    """The in-memory Simulation and the file run integrate the same bits."""
    path = scenario(tmp_path)
    orrery.run(path, threads=2)
    out = orrery.read(tmp_path / "out")
    table = np.loadtxt(REPO / "inputs/genga/initialplanet_2048.dat")[:300]
    sim = orrery.Simulation(time_step_days=6.0, threads=2)
    sim.add(m=table[:, 3], x=table[:, 0], y=table[:, 1], z=table[:, 2], vx=table[:, 4], vy=table[:, 5], vz=table[:, 6])
    sim.integrate(steps=200)
    last = out.last
    mine = sim.state()
    order = np.argsort(mine["i"])
    for k in ("m", "r", "x", "y", "z", "vx", "vy", "vz"):
        assert np.array_equal(mine[k][order], last[k][np.argsort(last["i"])]), k


def test_read_gives_the_run_s_tables(tmp_path):
    path = scenario(tmp_path)
    orrery.run(path)
    out = orrery.read(tmp_path / "out")
    assert out.name == "pyrun" and out.steps == [0, 100, 200]
    assert len(out.energy) == 5 and out.energy["time"][-1] == pytest.approx(200 * 6.0 / 365.25)
    assert abs(out.energy["e_relative"]).max() < 1e-8
    assert out.last["t"][0] == pytest.approx(200 * 6.0 / 365.25)
    frames = orrery.read(tmp_path / "out", pandas=True)
    assert list(frames["snapshots"]["step"].unique()) == [0, 100, 200]
    assert frames["energy"].shape == (5, 10)


def test_run_errors_are_input_errors_with_file_and_line(tmp_path):
    with pytest.raises(orrery.InputError) as err:
        orrery.run(tmp_path / "missing.ron")
    assert err.value.file.endswith("missing.ron")
    bad = tmp_path / "bad.ron"
    bad.write_text("Scenario(\n  name: \"x\",\n  time_step_days: oops,\n)\n")
    with pytest.raises(orrery.InputError) as err:
        orrery.run(bad)
    assert err.value.line == 3
    with pytest.raises(orrery.InputError, match="resume"):
        orrery.run(bad, resume="sometimes")


def test_ctrl_c_stops_a_run_that_resumes_bitwise(tmp_path):
    path = scenario(tmp_path, steps=10**6, count=500, out="stopped")
    timer = interrupt_after(1.0)
    with pytest.raises(KeyboardInterrupt, match="resume=True"):
        orrery.run(path, threads=2)
    timer.join()
    out = orrery.read(tmp_path / "stopped")
    stop = out.steps[-1]
    assert 0 < stop < 10**6
    end = stop + 37
    orrery.run(path, resume=True, steps=end, threads=2)
    straight = scenario(tmp_path, steps=end, count=500, out="straight")
    orrery.run(straight, threads=2)
    name = f"Outpyrun_{end:012d}.dat"
    assert (tmp_path / "stopped" / name).read_bytes() == (tmp_path / "straight" / name).read_bytes()


def test_run_refuses_another_run_s_files_unless_told_to_overwrite(tmp_path):
    path = scenario(tmp_path, steps=10)
    orrery.run(path)
    with pytest.raises(orrery.InputError, match="overwrite"):
        orrery.run(path)
    assert orrery.run(path, overwrite=True)["last_step"] == 10


def test_a_sheet_scenario_runs_from_python(tmp_path):
    text = (REPO / "inputs/ring.ron").read_text()
    ring = tmp_path / "ring.ron"
    ring.write_text(text)
    summary = orrery.run(ring, steps=3, out=tmp_path / "ring", threads=2)
    assert summary["engine"] == "sheet" and summary["last_step"] == 3
    out = orrery.read(tmp_path / "ring")
    assert out.sheet and len(out.sheet[max(out.sheet)]) == summary["n_end"]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"time": 1.0}, "before the time reached"),
        ({"steps": 2.7}, "whole number of steps"),
        ({"steps": float("nan")}, "whole number of steps"),
        ({"steps": -1}, "whole number of steps >= 0"),
        ({"steps": True}, "whole number of steps"),
    ],
)
def test_integrate_refuses_a_past_time_and_broken_step_counts(kwargs, message):
    """integrate(time=T) with T behind the time reached, a fractional or NaN step count are
    InputErrors naming the field (before, the first returned at once doing nothing, 2.7 became 2
    and NaN a bare ValueError); a whole float and a numpy integer are steps as asked."""
    sim = giants(units=("au", "yr", "msun"))
    sim.integrate(time=10.0)
    reached = sim.step
    with pytest.raises(orrery.InputError, match=message):
        sim.integrate(**kwargs)
    assert sim.step == reached
    assert sim.integrate(steps=2.0) == reached + 2
    assert sim.integrate(steps=np.int64(3)) == reached + 5
    assert sim.integrate(time=sim.t) == reached + 5


@pytest.mark.parametrize(
    "settings, field",
    [
        ({"time_step_days": -5.0}, "time_step_days"),
        ({"time_step_days": 5.0, "oder": 4}, "oder"),
        ({}, "time_step_days"),
        ({"time_step_days": 5.0, "order": 3}, "order"),
        # A scenario field, not GENGA's key, for a Python simulation.
        ({"time_step_days": 5.0, "integrator": "wh", "forces": {"poynting_robertson": True}}, "forces.poynting_robertson"),
        # A value of the wrong type deep in the settings names its path.
        ({"time_step_days": 5.0, "forces": {"tides": True}}, "forces.tides"),
        ({"time_step_days": 5.0, "threads": -1}, "threads"),
        ({"time_step_days": 5.0, "threads": 1.5}, "threads"),
    ],
)
def test_settings_are_checked_at_construction(settings, field):
    """A bad setting is an InputError naming its field when the Simulation is made (before, it
    surfaced only at the first integrate, after bodies were added)."""
    with pytest.raises(orrery.InputError, match=field):
        orrery.Simulation(**settings)


def test_late_and_wrong_errors_are_input_errors_naming_the_field(tmp_path):
    """Each of these was an OverflowError, a silent wrong index, a message naming no field or
    the wrong one, or a failure only at the first integrate."""
    sim = giants()
    ens = orrery.Ensemble([giants(), giants()])
    for k, field in ((2, "system"), (-3, "system"), (1.5, "system"), ("0", "system")):
        with pytest.raises(orrery.InputError, match=field):
            ens.state(k)
    assert np.array_equal(ens.state(-1), ens.state(1))
    with pytest.raises(orrery.InputError, match="field `m`"):
        orrery.Simulation(time_step_days=5.0).add(m=float("nan"), a=5.2)
    with pytest.raises(orrery.InputError, match="field `m`"):
        orrery.Simulation(time_step_days=5.0).add(m=-1e-3, a=5.2)
    with pytest.raises(orrery.InputError, match="steps"):
        orrery.run(Path(__file__).parents[2] / "inputs" / "outer_solar_system.ron", steps=-1, out=tmp_path)
    with pytest.raises(orrery.InputError, match="threads"):
        orrery.Ensemble([giants()], threads=0)
    assert sim.N == 2


def test_scalars_broadcast_against_arrays_in_add():
    sim = orrery.Simulation(time_step_days=5.0)
    sim.add(m=1e-9, a=np.linspace(1.0, 3.0, 5), e=[0.1], inc=0.01)
    assert sim.N == 5 and np.allclose(sim.elements()["a"], np.linspace(1.0, 3.0, 5), rtol=1e-12)
    assert np.allclose(sim.elements()["e"], 0.1, rtol=1e-12)
    with pytest.raises(orrery.InputError, match="field `a`: 5 values where `m` has 2"):
        sim.add(m=[1e-9, 1e-9], a=np.linspace(1.0, 3.0, 5))


def test_reading_is_not_integrating():
    """After only reading N or x, a simulation still takes tidal bodies and joins an Ensemble;
    after an integrate it does not."""
    sim = giants()
    assert sim.N == 2 and sim.x.shape == (2, 3)
    sim.add(m=1e-6, a=1.0, r=1e-5, tides={"k2": 0.3, "k2f": 0.3, "tau": 1e-3, "ic": 0.3})
    assert sim.N == 3
    other = giants()
    other.x
    ens = orrery.Ensemble([other, giants()])
    assert np.array_equal(ens.state(0), ens.state(1))
    other.integrate(steps=1)
    with pytest.raises(orrery.InputError, match="not yet integrated"):
        orrery.Ensemble([other])


def test_an_ensemble_takes_equivalent_settings_and_numpy_values(tmp_path):
    """order=2 is the default, forces={"gr": False} no forces, np.int64(4) the number 4."""
    a, b = giants(order=2, forces={"gr": False}), giants()
    ens = orrery.Ensemble([a, b])
    ens.integrate(steps=10)
    assert np.array_equal(ens.state(0), ens.state(1))
    with pytest.raises(orrery.InputError, match="order"):
        orrery.Ensemble([giants(order=4), giants()])
    sim = giants(order=np.int64(4), n1=np.float64(3.0))
    sim.integrate(steps=3)
    sim.save(tmp_path / "np.npz")
    assert sim.settings["order"] == 4 and type(sim.settings["order"]) is int
    assert orrery.Simulation.load(tmp_path / "np.npz").step == 3


# ---- units ----------------------------------------------------------------------------------


def test_one_unit_system_in_and_out():
    """Spins, the central mass and radius go in, and the energy line and event times come out,
    in the simulation's units (before, spins and the central body were taken in Orrery's units
    and energies and event times came out in Orrery's units and years)."""
    yr = orrery.Simulation(time_step_days=5.0, units=("au", "yr", "msun"))
    yr.add(m=1e-3, a=5.2, spin=[[1e-10, 0.0, 0.0]])
    yr.integrate(steps=1)
    assert yr.state()["sx"][0] == pytest.approx(1e-10, rel=1e-14)
    jup = orrery.Simulation(time_step_days=5.0, units=("au", "yr", "mjup"), central_mass=1047.0)
    assert jup.central_mass == pytest.approx(1047.0, rel=1e-14)
    assert jup.settings["central_mass"] == pytest.approx(1047.0 * orrery.MASSES["mjup"], rel=1e-14)
    km = orrery.Simulation(time_step_days=5.0, units=("km", "yr", "msun"), central_radius=7e5)
    assert km.settings["central_radius"] == pytest.approx(7e5 * orrery.LENGTHS["km"], rel=1e-14)
    lines = {}
    for units in (None, ("au", "day", "msun")):
        sim = orrery.Simulation(time_step_days=1.0, units=units)
        sim.add(m=[1e-6, 1e-6], r=[1e-4, 1e-4], x=[1.0, 1.0], y=[-0.01, 0.01], vx=[0.0, 0.0], vy=[1.0, -0.5])
        if units is not None:
            sim = orrery.Simulation(time_step_days=1.0, units=units)
            k = orrery.K_GAUSS  # AU per day per code velocity unit
            sim.add(m=[1e-6, 1e-6], r=[1e-4, 1e-4], x=[1.0, 1.0], y=[-0.01, 0.01], vx=[0.0, 0.0], vy=[k, -0.5 * k])
        sim.integrate(steps=5)
        line = sim.energy()
        assert line["time"] == pytest.approx(sim.t, rel=1e-14)
        assert 0 < sim.collisions["t"][0] < sim.t
        lines[units] = (line, sim.collisions["t"][0], sim.t)
    (code, t_code, _), (day, t_day, _) = lines[None], lines[("au", "day", "msun")]
    k2 = orrery.K_GAUSS**2
    for key in ("potential", "kinetic", "u", "e_total"):
        assert day[key] == pytest.approx(code[key] * k2, rel=1e-12), key
    for key in ("l_total", "l_lost"):
        assert day[key] == pytest.approx(code[key] * orrery.K_GAUSS, rel=1e-12, abs=1e-300), key
    assert day["e_relative"] == pytest.approx(code["e_relative"], rel=1e-6)
    assert t_day == pytest.approx(t_code / orrery.K_GAUSS, rel=1e-12)


def test_a_saved_simulation_keeps_its_units_and_central_body(tmp_path):
    sim = orrery.Simulation(time_step_days=5.0, units=("au", "yr", "mjup"), central_mass=1047.0)
    sim.add(m=1.0, a=5.2)
    sim.integrate(steps=10)
    sim.save(tmp_path / "s.npz")
    back = orrery.Simulation.load(tmp_path / "s.npz")
    assert back.central_mass == sim.central_mass and back.t == sim.t
    assert np.array_equal(back.state(), sim.state())


# ---- removals -------------------------------------------------------------------------------


@pytest.mark.parametrize("a", [0.1, 0.05])
def test_no_body_vanishes_without_truncation_radii(a):
    """A Python simulation has no truncation radii unless asked for them: a planet at 0.1 AU
    and a hot Jupiter at 0.05 AU stay (GENGA's 0.2 AU inner radius, the scenario files'
    default, removed both without a word)."""
    sim = orrery.Simulation(time_step_days=0.5)
    sim.add(m=1e-3, a=a)
    with warnings.catch_warnings():
        warnings.simplefilter("error", orrery.RemovalWarning)
        sim.integrate(steps=5)
    assert sim.N == 1 and len(sim.ejections) == 0


def test_a_removal_is_a_warning_naming_the_body_the_radius_and_the_time():
    sim = orrery.Simulation(time_step_days=20.0, outer_truncation=6.0, units=("au", "yr", "msun"))
    sim.add(m=1e-3, a=5.2, e=0.5)  # from pericentre at 2.6 AU out to 7.8 AU
    with pytest.warns(orrery.RemovalWarning, match=r"body 0 removed at t = [0-9.]+ yr: beyond outer_truncation = 6 AU"):
        sim.integrate(time=12.0)
    assert sim.N == 0 and len(sim.ejections) == 1 and 0 < sim.ejections["t"][0] < 6.0


def test_an_ensemble_names_the_system_of_a_removal():
    def one(outer):
        sim = orrery.Simulation(time_step_days=20.0, outer_truncation=outer, units=("au", "yr", "msun"))
        sim.add(m=1e-3, a=5.2, e=0.5)
        return sim

    ens = orrery.Ensemble([one(100.0), one(6.0)])
    with pytest.warns(orrery.RemovalWarning, match=r"^system 1: body 0 removed"):
        ens.integrate(time=12.0)
    assert len(ens.ejections(0)) == 0 and len(ens.ejections(1)) == 1


# ---- REBOUND --------------------------------------------------------------------------------


def test_the_wisdom_holman_map_keeps_the_energy_and_saves_bitwise(tmp_path):
    """integrator="wh" is the map without correctors; order 17 shrinks its energy error, and a
    saved map continues bit for bit (the checkpoint keeps the map's own state)."""
    errors = {}
    for name, integrator in (("wh", "wh"), ("17", {"WisdomHolman": {"correctors": 17}})):
        sim = giants(integrator=integrator)
        sim.integrate(steps=20000)
        errors[name] = abs(sim.energy()["e_relative"])
    assert errors["17"] < 1e-9 and errors["17"] < errors["wh"] / 100, errors
    sim = giants(integrator={"WisdomHolman": {"correctors": 5}})
    sim.integrate(steps=300)
    saved_and_loaded_continue_bitwise(sim, tmp_path / "wh.npz", 800)


def test_ensemble_systems_keep_their_own_time_steps_on_the_map():
    """On the Wisdom-Holman map each system of an Ensemble keeps its time step (given, or a
    fraction of its innermost period) and ends where it ends alone; integrate(time=) then is
    ambiguous and refused, and the hybrid step refuses differing steps."""
    def system(integrator, **step):
        sim = orrery.Simulation(integrator=integrator, units=("au", "yr", "msun"), **step)
        sim.add(m=JUPITER, a=5.2029, e=0.0484, inc=0.0228, node=1.7536, peri=4.7866, M=0.3432)
        sim.add(m=SATURN, a=9.5367, e=0.0539, inc=0.0434, node=1.9838, peri=5.9155, M=5.5389)
        return sim

    steps = [{"time_step_days": 5.0}, {"time_step_days": 20.0}, {"time_step": {"InnerPeriodFraction": 0.05}}]
    ens = orrery.Ensemble([system("wh", **s) for s in steps])
    ens.integrate(steps=500)
    code_per_year = 365.25 * orrery.K_GAUSS
    period = 2 * math.pi * math.sqrt(ens.elements(2)["a"][0] ** 3 / (1 + JUPITER)) / code_per_year
    assert ens[0].t == pytest.approx(500 * 5.0 / 365.25) and ens[1].t == pytest.approx(500 * 20.0 / 365.25)
    assert ens[2].t == pytest.approx(500 * 0.05 * period, rel=1e-2)
    for k, s in enumerate(steps):
        alone = system("wh", **s)
        alone.integrate(steps=500)
        assert np.array_equal(alone.state(), ens.state(k)), k
        assert alone.t == pytest.approx(ens[k].t, rel=1e-14)
    with pytest.raises(orrery.InputError, match="steps="):
        ens.integrate(time=100.0)
    with pytest.raises(orrery.InputError, match="hybrid step"):
        orrery.Ensemble([system("hybrid", **s) for s in steps[:2]])


def test_a_simulation_stepped_by_its_innermost_period(tmp_path):
    """time_step={"InnerPeriodFraction": f}: the step is f times the innermost period of every
    body added before the first integrate (reading dt or N in between does not freeze it), a
    saved simulation keeps the step, and t needs no bodies at step 0."""
    sim = orrery.Simulation(integrator="wh", time_step={"InnerPeriodFraction": 0.05}, units=("au", "yr", "msun"))
    assert sim.t == 0.0
    sim.add(m=JUPITER, a=5.2029, e=0.0484)
    jupiter_step = sim.dt
    sim.add(m=1.66e-7, a=0.387098, e=0.2056)
    mercury_year = 2 * math.pi * math.sqrt(0.387098**3 / (1 + 1.66e-7)) / (365.25 * orrery.K_GAUSS)
    assert sim.dt == pytest.approx(0.05 * mercury_year, rel=1e-3) and sim.dt < jupiter_step / 40
    sim.integrate(steps=10)
    sim.save(tmp_path / "ip.npz")
    back = orrery.Simulation.load(tmp_path / "ip.npz")
    assert back.dt == sim.dt and back.t == sim.t
    with pytest.raises(orrery.InputError, match="tides"):
        back.add(m=1e-6, a=1.0, r=1e-5, tides={"k2": 0.3, "k2f": 0.3, "tau": 1e-3, "ic": 0.3})
    # An unbound body joins a running simulation stepped so.
    sim.add(m=1e-12, x=3.0, vx=0.0, vy=20.0)
    assert sim.N == 3
    with pytest.raises(orrery.InputError, match="time_step_days"):
        orrery.Simulation(time_step_days=5.0, time_step={"InnerPeriodFraction": 0.05})
    with pytest.raises(orrery.InputError, match="field `spin`"):
        orrery.Simulation(time_step_days=5.0).add(m=[1e-3, 1e-3], a=[5.0, 9.0], spin=[[0.0, 0.0, 1e-9]])


def test_from_rebound_takes_the_central_body_in_the_overriding_units():
    rebound = pytest.importorskip("rebound", reason="SKIPPED: rebound is not installed")
    rsim = rebound.Simulation()
    rsim.units = ("yr", "AU", "Msun")
    rsim.add(m=1.0, r=0.00465)
    rsim.add(m=JUPITER, a=5.2029)
    rsim.dt = 0.05
    sim = orrery.from_rebound(rsim, units=("au", "yr", "mearth"))
    assert sim.central_mass == pytest.approx(1.0 / orrery.MASSES["mearth"], rel=1e-14)
    assert sim.settings["central_mass"] == pytest.approx(1.0, rel=1e-14)
    ip = orrery.from_rebound(rsim, time_step={"InnerPeriodFraction": 0.05})
    assert ip.dt == pytest.approx(0.05 * 5.2029**1.5, rel=1e-2)


def test_the_stability_ensemble_example_runs(tmp_path):
    pytest.importorskip("matplotlib", reason="SKIPPED: matplotlib is not installed")
    script = REPO / "examples" / "stability_ensemble.py"
    out = tmp_path / "ensemble.png"
    done = subprocess.run(
        [os.sys.executable, str(script), "--systems", "6", "--years", "300", "--out", str(out)],
        check=True, capture_output=True, text=True, env=dict(os.environ, MPLBACKEND="Agg"),
    )
    counts = [int(line.split(":")[1].split(" of ")[0]) for line in done.stdout.splitlines() if " of 6" in line]
    assert sum(counts) == 6
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ---- device backends -----------------------------------------------------------------------


def on_device(name, **settings):
    """A 300-body disk on backend `name`, or a visible skip when this build or machine has none."""
    if name not in orrery.backends():
        pytest.skip(
            f"SKIPPED: the module is built without {name} (scripts/test-python builds it with "
            f"`--features {name}` where the library is installed)"
        )
    sim = orrery.Simulation(time_step_days=6.0, backend=name, **settings)
    sim.add(**disk(300))
    try:
        sim.integrate(steps=1)
    except orrery.OrreryError as e:
        pytest.skip(f"SKIPPED: no {name} device here: {e}")
    return sim


def test_the_opencl_backend_gives_the_cpu_s_bits():
    """On PoCL every pass of the device backend is bitwise the CPU's, also with some passes on
    the CPU reference (the per-pass fallback)."""
    for passes in ("none", "drift,encounter_search"):
        dev = on_device("opencl", cpu_passes=passes)
        assert dev.backend == "opencl"
        dev.integrate(steps=100)
        cpu = orrery.Simulation(time_step_days=6.0)
        cpu.add(**disk(300))
        cpu.integrate(steps=1)
        cpu.integrate(steps=100)
        assert np.array_equal(dev.state(), cpu.state()), f"cpu_passes={passes}"
        assert dev.energy() == cpu.energy()


def has_cuda_device():
    try:
        text = orrery.devices()
    except orrery.OrreryError:
        return False
    return re.search(r"^\d+ CUDA devices? \(", text, re.M) is not None


def test_a_backend_that_is_absent_is_an_error_not_a_crash():
    """CUDA on a machine without an NVIDIA driver (or a build without CUDA): an OrreryError that
    says what is missing, and the interpreter goes on."""
    if "cuda" in orrery.backends() and has_cuda_device():
        pytest.skip("SKIPPED: this machine has a CUDA device")
    sim = orrery.Simulation(time_step_days=6.0, backend="cuda")
    sim.add(**disk(10))
    with pytest.raises(orrery.OrreryError) as e:
        sim.integrate(steps=1)
    assert "CUDA" in str(e.value) or "cuda" in str(e.value)
    assert orrery.backends()[0] == "cpu"


# ---- the sheet in memory -------------------------------------------------------------------


RING = dict(
    omega=1.3143527e-4,
    surface_density=2000.0,
    particle_density=200.0,
    box_size=40.0,
    radius=dict(min=1.0, max=4.0, slope=3.0),
    z_sigma=1.0,
    dt_orbits=1e-3,
    theta=0.5,
    softening=0.1,
    restitution={"Bridges": {"v_c": 7.7e-5}},
)


def test_a_sheet_in_memory_is_bitwise_the_run_s_snapshot(tmp_path):
    """orrery.Sheet after 30 steps holds exactly the particles `orrery run` writes at step 30 of
    the same scenario; the particles stay in the box, collide, and the backends agree."""
    ring = orrery.Sheet(threads=2, **RING)
    assert ring.integrate(steps=10) == 10
    ring.integrate(steps=20)
    assert ring.collisions > 0, "the dense ring must collide"
    got = ring.particles()
    assert np.all(np.abs(got["x"]) <= 20.0) and np.all(np.abs(got["y"]) <= 20.0)
    ron = "Sheet(name: \"r\", steps: 30, " + ", ".join(
        [
            "omega: 1.3143527e-4", "surface_density: 2000.0", "particle_density: 200.0",
            "box_size: 40.0", "radius: (min: 1.0, max: 4.0, slope: 3.0)", "z_sigma: 1.0",
            "dt_orbits: 1e-3", "theta: 0.5", "softening: 0.1",
            "restitution: Bridges(v_c: 7.7e-5)", f"output: (dir: \"{tmp_path / 'out'}\")",
        ]
    ) + ")"
    (tmp_path / "r.ron").write_text(ron)
    orrery.run(tmp_path / "r.ron", threads=1)
    snap = orrery.read(tmp_path / "out").sheet[30]
    for c in ("x", "y", "z", "vx", "vy", "vz", "r", "m"):
        assert np.array_equal(got[c], snap[c]), c
    o = ring.observables()
    assert 0.0 < o["tau"] and 0.0 < o["sigma_total"] < 1.0
    if "opencl" in orrery.backends():
        dev = orrery.Sheet(backend="opencl", cpu_passes="collision_resolution", **RING)
        dev.integrate(steps=30)
        assert np.array_equal(dev.particles(), got)


def test_sheet_settings_are_checked_by_name():
    with pytest.raises(orrery.InputError) as e:
        orrery.Sheet(**{**RING, "theta": -1.0})
    assert "theta" in str(e.value)
    with pytest.raises(orrery.InputError):
        orrery.Sheet(**{**RING, "thetta": 0.5})


def test_ctrl_c_stops_a_sheet_at_a_step_that_continues_bitwise():
    ring = orrery.Sheet(threads=2, **RING)
    timer = interrupt_after(0.3)
    with pytest.raises(KeyboardInterrupt):
        ring.integrate(steps=10**9)
    timer.join()
    reached = ring.step
    assert 0 < reached < 10**9
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    ring.integrate(steps=5)
    straight = orrery.Sheet(threads=2, **RING)
    straight.integrate(steps=reached + 5)
    assert np.array_equal(ring.particles(), straight.particles())


# ---- adding bodies during a run --------------------------------------------------------------


def test_bodies_added_after_integrate_join_at_the_step_reached():
    """A test particle added after 100 steps follows Kepler's orbit from there; the giants go
    on, the ids count on, and the energy error carries over the addition unchanged."""
    sim = giants()
    sim.integrate(steps=100)
    error_before = sim.energy()["e_relative"]
    el = dict(a=1.0, e=0.05, inc=0.02, node=0.3, peri=0.7, M=1.1)
    sim.add(m=1e-13, **el)
    assert list(sim.i) == [0, 1, 2]
    assert sim.step == 100
    assert abs(sim.energy()["e_relative"] - error_before) < 1e-14
    sim.integrate(steps=50)
    # Against a simulation that starts from the same three states at that step.
    s = sim.state()
    fresh = orrery.Simulation(time_step_days=20.0)
    sim2 = giants()
    sim2.integrate(steps=100)
    for row in sim2.state():
        fresh.add(m=row["m"], x=row["x"], y=row["y"], z=row["z"], vx=row["vx"], vy=row["vy"], vz=row["vz"])
    fresh.add(m=1e-13, **el)
    fresh.integrate(steps=50)
    assert np.array_equal(fresh.state()[["x", "y", "z", "vx", "vy", "vz"]], s[["x", "y", "z", "vx", "vy", "vz"]])
    # The light body is where Kepler puts it after 50 steps, to the giants' pull.
    mu = 1.0 + 1e-13
    k = orrery.K_GAUSS
    n = math.sqrt(mu) / el["a"] ** 1.5
    pos, _ = orrery._orrery.cartesian_from_elements(
        np.array([mu]), np.array([el["a"]]), np.array([el["e"]]), np.array([el["inc"]]),
        np.array([el["node"]]), np.array([el["peri"]]), np.array([el["M"] + n * 50 * 20.0 * k]),
    )
    assert np.linalg.norm(sim.x[2] - pos[0]) < 1e-3
    with pytest.raises(orrery.InputError):
        sim.add(m=1e-9, a=2.0, tides={"k2": 0.3, "k2f": 0.9, "tau": 1e-3, "ic": 0.3})
    assert sim.N == 3


def test_a_simulation_with_added_bodies_saves_and_loads_bitwise(tmp_path):
    sim = giants()
    sim.integrate(steps=10)
    sim.add(**disk(20))
    sim.integrate(steps=10)
    back = saved_and_loaded_continue_bitwise(sim, tmp_path / "s.npz", 30)
    assert list(back.i) == list(range(22))


# ---- ensembles in memory ---------------------------------------------------------------------


def third_planet(k, **settings):
    """The giants and one planet between them, drawn for system `k`."""
    rng = np.random.default_rng(100 + k)
    sim = giants(**settings)
    sim.add(m=rng.uniform(3e-6, 3e-5), a=rng.uniform(6.0, 8.5), e=rng.uniform(0, 0.1), inc=0.01, M=rng.uniform(0, 6.28))
    return sim


def test_an_ensemble_gives_each_system_its_own_run():
    """Systems stepped side by side end bitwise where each one integrated alone ends, with its
    own energy bookkeeping and events."""
    n = 6

    def system(k):
        # System 3's planet shares Jupiter's orbit 0.01 rad behind it: it stops at its first event.
        if k != 3:
            return third_planet(k)
        sim = giants(minimum_bodies=3)
        sim.add(m=1e-5, a=5.2029, e=0.0484, inc=0.0228, node=1.7536, peri=4.7866, M=0.3332)
        return sim

    ens = orrery.Ensemble([system(k) for k in range(n)], threads=2)
    assert len(ens) == n
    ens.integrate(steps=500)
    assert [ens.stopped(k) for k in range(n)] == [k == 3 for k in range(n)]
    assert len(ens.collisions(3)) + len(ens.ejections(3)) >= 1
    for k in range(n):
        alone = system(k)
        alone.integrate(steps=500)
        assert (alone.stopped is not None) == (k == 3)
        assert np.array_equal(ens.state(k), alone.state()), k
        # A stopped system's state is frozen at its stop, and its line has its own time.
        assert ens.energy(k) == alone.energy()
        assert abs(ens.energy(k)["e_relative"]) < 1e-6
        assert len(ens.collisions(k)) == len(alone.collisions)
    with pytest.raises(orrery.InputError):
        ens.state(n)


def test_an_ensemble_system_stops_at_its_first_event_by_default():
    """minimum_bodies 0 (the default) means every initial body in an in-memory Ensemble, as in an
    Ensemble(...) scenario file: a planet on Jupiter's orbit stops its system at the first
    collision or ejection (before, the in-memory one stepped on)."""
    sim = giants()
    sim.add(m=1e-5, a=5.2029, e=0.0484, inc=0.0228, node=1.7536, peri=4.7866, M=0.3332)
    ens = orrery.Ensemble([sim, third_planet(0)])
    ens.integrate(steps=500)
    assert ens.stopped(0) and not ens.stopped(1)
    assert len(ens.collisions(0)) + len(ens.ejections(0)) == 1


def test_an_ensemble_refuses_systems_of_other_settings():
    with pytest.raises(orrery.InputError) as e:
        orrery.Ensemble([third_planet(0), third_planet(1, order=4)])
    assert "order" in str(e.value)
    started = third_planet(2)
    started.integrate(steps=1)
    with pytest.raises(orrery.InputError):
        orrery.Ensemble([started])
