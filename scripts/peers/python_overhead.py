"""Call overhead of the Python module against REBOUND's (issue 45): the cost of one
`integrate(steps=1)` and of reading the positions, for the Sun, Jupiter and Saturn, in the same
process. Orrery: `sim.integrate(steps=1)`, `sim.x` (all positions, (N, 3)), `sim.particles[i].x`;
REBOUND: `sim.steps(1)` (WHFast), `sim.particles[i].x`, and the positions of all particles as
Python reads them (`[[p.x, p.y, p.z] for p in sim.particles]`). Microseconds per call, the least
of five rounds. Needs the orrery module, rebound and numpy in the environment's python.
"""
import argparse
import time

import common


def per_call(fn, calls):
    """Microseconds per call of `fn`, the least of five rounds of `calls` calls."""
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - start) / calls * 1e6)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=20000, help="calls per round")
    parser.add_argument("--no-record", action="store_true", help="leave RESULTS.md alone")
    args = parser.parse_args()
    import orrery
    import rebound

    sim = orrery.Simulation(time_step_days=5.0, integrator="wh")
    sim.add(m=9.547919e-4, a=5.2029, e=0.0484, name="Jupiter")
    sim.add(m=2.858860e-4, a=9.5367, e=0.0539, name="Saturn")
    sim.integrate(steps=1)
    rsim = rebound.Simulation()
    rsim.add(m=1.0)
    rsim.add(m=9.547919e-4, a=5.2029, e=0.0484)
    rsim.add(m=2.858860e-4, a=9.5367, e=0.0539)
    rsim.dt = common.days(5.0)
    rsim.integrator = "whfast"
    rsim.steps(1)
    n = args.calls
    result = {
        "orrery_integrate_1_us": per_call(lambda: sim.integrate(steps=1), n),
        "rebound_steps_1_us": per_call(lambda: rsim.steps(1), n),
        "orrery_x_all_us": per_call(lambda: sim.x, n),
        "rebound_xyz_all_us": per_call(lambda: [[p.x, p.y, p.z] for p in rsim.particles], n),
        "orrery_particle_x_us": per_call(lambda: sim.particles[0].x, n // 4),
        "rebound_particle_x_us": per_call(lambda: rsim.particles[1].x, n),
    }
    result.update(common.versions())
    result["cpu"] = common.cpu_model()
    common.emit(result)
    if not args.no_record:
        common.record(
            "Python call overhead (Sun, Jupiter, Saturn; µs per call)",
            ["date", "cpu", "orrery integrate(steps=1)", "REBOUND steps(1)", "orrery .x (all)",
             "REBOUND x, y, z (all)", "orrery particles[0].x", "REBOUND particles[1].x"],
            [common.today(), result["cpu"], result["orrery_integrate_1_us"], result["rebound_steps_1_us"],
             result["orrery_x_all_us"], result["rebound_xyz_all_us"], result["orrery_particle_x_us"],
             result["rebound_particle_x_us"]],
        )


if __name__ == "__main__":
    main()
