"""The systems several test files step: Jupiter and Saturn on their J2000 orbits."""
import orrery

JUPITER, SATURN = 9.547919e-4, 2.858860e-4


def giants_in_years(**settings):
    """Jupiter and Saturn (named) around the Sun, steps of 20 days, units (au, yr, msun)."""
    sim = orrery.Simulation(time_step_days=20.0, units=("au", "yr", "msun"), **settings)
    sim.add(m=JUPITER, a=5.2029, e=0.0484, inc=0.0228, node=1.7536, peri=4.7866, M=0.3432, name="Jupiter")
    sim.add(m=SATURN, a=9.5367, e=0.0539, inc=0.0434, node=1.9838, peri=5.9155, M=5.5389, name="Saturn")
    return sim


def giants(**settings):
    """Jupiter and Saturn around the Sun, steps of 20 days, in Orrery's code units."""
    sim = orrery.Simulation(time_step_days=20.0, **settings)
    sim.add(m=JUPITER, a=5.2029, e=0.0484, inc=0.0228, node=1.7536, peri=4.7866, M=0.3432)
    sim.add(m=SATURN, a=9.5367, e=0.0539, inc=0.0434, node=1.9838, peri=5.9155, M=5.5389)
    return sim
