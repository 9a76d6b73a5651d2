#!/usr/bin/env python3
"""Accuracy of Orrery's close-encounter changeover against REBOUND MERCURIUS, IAS15 as truth.

Three experiments, all at Orrery order 2 with n1 = 3, n2 = 0.4 (MERCURIUS r_crit_hill = 3), G = 1,
AU, Msun, time unit 1/k days. Orrery runs each changeover function given by `--changeovers`
(scenario field `changeover: Genga | Quintic | Infinity`; the field is written only when it is not
Genga, so a binary without the field runs Genga). REBOUND always starts from the bits of Orrery's
own initial snapshot (`orrery run SCENARIO --steps 0`, heliocentric; the Sun gets the scenario's
central_mass and the system is moved to the barycentre), and every comparison is made in
heliocentric coordinates at the same time t = steps * dt.

1. `flyby`: Sun, a Jupiter-mass planet on a circular orbit at `--flyby-a` (1 AU: Hill radius
   0.068 AU, changeover region 3 R_H = 0.205 AU) and an Earth-mass planet that passes it at
   q = 0.0107 AU (0.16 R_H, deep inside the changeover region). The state at closest approach is
   built from the two-body hyperbola (relative speed at infinity v_inf, relative velocity along
   (1, 0.4, 0.15) normalised, offset perpendicular to it) and integrated backwards with IAS15, so
   the run starts with the small planet `--flyby-start-rcrit` (4) x 3 R_H / v_inf before the
   encounter, passes through the whole changeover region and ends as far beyond it. A single
   encounter's error depends strongly on where the steps fall relative to closest approach, so
   each variant is run `--flyby-phases` (16) times with closest approach shifted by k/16 of a
   step, and the median over phases is reported. Variants by v_inf (`--flyby-vinf`, km/s;
   default 3 slow, 6 mild, 15 fast), dt `--flyby-dt` (4 d); `--flyby-a 5.2` puts the giant at
   Jupiter's distance (3 R_H = 1.07 AU; there the changeover region is crossed in hundreds of
   steps and every code and function gives the same error). Metric: final heliocentric position
   error (AU) of the Earth-mass planet (and of the giant) against IAS15 from the same bits.
   MERCURIUS runs with its default switching function (L_mercury, the quintic) and with
   L_infinity. IAS15's minimum giant-small distance (sampled 20 times per step) is reported.
2. `ejecta`: Sun, Venus, Earth, Mars, Jupiter (Kepler elements, J2000-like) and `--particles`
   massless particles launched from 1.05 Earth radii (`--launch surface`; or from 1.1 Earth Hill
   radii with `--launch hill`) at a random point, in a random direction of the outward hemisphere,
   with speed sqrt(v_esc(r0)^2 + v_inf^2), v_inf uniform in `--vinf-kms` (1..5 km/s). Orrery runs
   mode TestParticles; REBOUND N_active = 5, testparticle_type = 0; IAS15 truth in one simulation
   with N_targets = N_active for the collision search. `--years` (10) at dt = 1 d and 0.25 d
   (`--ejecta-dt`). Collisions: Orrery removes a particle that hits a planet or the Sun, or goes
   inside inner_truncation (0.2 AU) or beyond outer_truncation (50 AU); REBOUND runs use direct
   collision search with `merge` (a massless particle merging into a planet leaves the planet
   unchanged) and planet radii as in the scenario. Metric: median heliocentric position error
   after `--years` of the particles present at the end in every run (IAS15, every MERCURIUS and
   every Orrery run of the invocation); removal counts are reported per run. MERCURIUS runs with
   L_mercury (add L_infinity with `--ejecta-mercurius-infinity`).
3. `ensemble`: the GENGA paper's figure 3 test (Grimm & Stadel 2014, section 4.1): 32-body disks,
   total mass 5 Earth masses between 0.5 and 4 AU, n1 = 3, n2 = 0.4, dt = 6 days. Orrery's Disk
   generator (Sigma ~ a^-1, Rayleigh e 0.01 and i 0.005 rad, its defaults) with seeds 1..`--seeds`,
   `--steps` steps (10^5; the paper ran 40 disks for longer). Collisions are avoided: radii from
   rho = 1e12 g/cm^3 (about 4e-9 AU) in Orrery (a merger would be counted and shown), collision
   search off in REBOUND. Metric: worst |E/E0 - 1| over the run, sampled every `--energy-every`
   (100) steps (Orrery's Energy file, ERelativ, which includes U; REBOUND sim.energy() with
   safe_mode on), and the median over seeds.

MERCURIUS's critical radius (REBOUND 5.2.2, reb_integrator_mercurius_calculate_dcrit_for_particle,
checked against the installed library in this script's development) differs from Orrery's eq. 6
`rcrit = max(n1 r (m/3M0)^(1/3), n2 dt v)`:
- MERCURIUS computes dcrit once, at the first step (and again only when particles are added), from
  the osculating heliocentric orbit: dcrit = max(0.4 dt v_c, 0.4 dt v, r_crit_hill a (m/3M0)^(1/3),
  2 R) with a the semi-major axis from GM = G(M0 + m), v the heliocentric speed and
  v_c = sqrt(GM/|a|); Orrery recomputes rcrit every step from the heliocentric distance r and the
  barycentric (democratic) speed. Same numbers for near-circular orbits; for eccentric orbits the
  Hill term differs by r/a, and MERCURIUS's radii never follow the orbit.
- The velocity factor 0.4 is fixed in MERCURIUS (equal to n2 = 0.4 here).
- Both switch with y = (d - 0.1 dcrit)/(0.9 dcrit), dcrit the larger of the pair's radii.
  MERCURIUS L_mercury is the quintic 10y^3 - 15y^4 + 6y^5 (= Orrery Quintic), L_infinity the
  exp(-1/x) function (= Orrery Infinity); Orrery Genga is y^2/(2y^2 - 2y + 1).
- MERCURIUS flags a pair for the encounter integration when the cubic-Hermite minimum distance
  over the step is below 1.1 dcrit, and then integrates all flagged bodies together in one IAS15
  integration over the step (with the star fixed, (1-L) forces); Orrery flags pairs inside 3 rcrit
  at the kicks, confirms with the Hermite minimum and integrates independent groups by
  Bulirsch-Stoer.
- MERCURIUS's test particles (m = 0) have no Hill term; neither do Orrery's.
MERCURIUS's L is a function pointer in 5.2.2; `sim.integrator.L` is set to the address of
`reb_integrator_mercurius_L_infinity` in librebound for the L = infinity runs.

Usage: python3 rebound_changeover.py [--experiments flyby,ejecta,ensemble] [--orrery PATH]
[--changeovers Genga,Quintic,Infinity] [--no-record]. Quick check: --particles 200 --years 2
--seeds 2 --steps 20000.
"""
import argparse
import ctypes
import math
import os
import re
import subprocess
import tempfile
import time

import numpy as np
import rebound

import common

SECTION = "6. Changeover accuracy vs MERCURIUS"
COLUMNS = ["date", "experiment", "case", "code", "changeover", "dt [d]", "steps", "metric",
           "value", "/ MERCURIUS quintic", "bodies used", "wall [s]", "notes"]
ROOT = os.path.join(common.HERE, "..", "..")
KMS = 1.495978707e8 * common.K_GAUSS / 86400.0  # km/s per code velocity unit (29.78)
CHANGEOVERS = ("Genga", "Quintic", "Infinity")

M_SUN = 1.0
M_JUPITER = 9.547919e-4
M_EARTH = 3.0034896e-6
R_EARTH = 4.2635e-5  # AU (6378 km)
# name, m, radius (AU), a, e, inc, node, peri, M (degrees)
PLANETS = [
    ("Venus", 2.4478383e-6, 4.0454e-5, 0.72333, 0.00677, 3.3947, 76.680, 54.884, 50.115),
    ("Earth", M_EARTH, R_EARTH, 1.00000, 0.01671, 0.00005, -11.261, 114.208, 358.617),
    ("Mars", 3.227151e-7, 2.2657e-5, 1.52368, 0.09340, 1.8497, 49.558, 286.502, 19.373),
    ("Jupiter", M_JUPITER, 4.6733e-4, 5.20260, 0.04849, 1.3033, 100.464, 273.867, 20.020),
]


# ---------------------------------------------------------------------------------------------
# Orrery side


def ron_float(x):
    """A float literal RON reads back to the same bits."""
    s = repr(float(x))
    return s if ("." in s or "e" in s or "n" in s) else s + ".0"


def ron_vec(v):
    return "(" + ", ".join(ron_float(c) for c in v) + ")"


def scenario_text(name, dt_days, steps, bodies, out, changeover, mode="Main", energy_interval=0,
                  extra=""):
    """A scenario at order 2, n1 3, n2 0.4; `changeover` written only when it is not Genga."""
    lines = [
        "Scenario(",
        f'    name: "{name}",',
        f"    mode: {mode},",
        f"    central_mass: {ron_float(M_SUN)},",
        f"    time_step_days: {ron_float(dt_days)},",
        f"    steps: Some({int(steps)}),",
        "    order: 2,",
        "    n1: 3.0,",
        "    n2: 0.4,",
    ]
    if changeover != "Genga":
        lines.append(f"    changeover: {changeover},")
    if extra:
        lines.append(extra)
    lines.append("    bodies: [")
    lines += ["        " + b + "," for b in bodies]
    lines.append("    ],")
    lines.append(f'    output: (dir: "{out}", energy_interval: {energy_interval}, '
                 "coordinates_interval: -1, checkpoint_interval: 0),")
    lines.append(")")
    return "\n".join(lines) + "\n"


def kepler_ron(name, m, radius, a, e, inc, node, peri, mean):
    return (f'Kepler(name: "{name}", m: {ron_float(m)}, radius: Some({ron_float(radius)}), '
            f"a: {ron_float(a)}, e: {ron_float(e)}, inc_deg: {ron_float(inc)}, "
            f"node_deg: {ron_float(node)}, peri_deg: {ron_float(peri)}, "
            f"mean_anomaly_deg: {ron_float(mean)})")


def cartesian_ron(name, m, radius, pos, vel):
    return (f'Cartesian(name: "{name}", m: {ron_float(m)}, radius: Some({ron_float(radius)}), '
            f"pos: {ron_vec(pos)}, vel: {ron_vec(vel)})")


def orrery_run(orrery, scenario, out, steps):
    """Run and return (rows of the final snapshot, wall seconds, summary text)."""
    t0 = time.perf_counter()
    proc = subprocess.run([orrery, "run", scenario, "--steps", str(steps), "--out", out,
                           "--overwrite", "--threads", "1"], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"orrery failed on {scenario} (exit {proc.returncode}):\n{proc.stderr}"
                         f"{proc.stdout}")
    name = next(f for f in os.listdir(out)
                if f.startswith("Out") and f.endswith(f"_{steps:012d}.dat"))
    rows = np.loadtxt(os.path.join(out, name), ndmin=2)
    return rows, wall, proc.stdout + proc.stderr


def orrery_counts(log):
    """(collisions, ejections) from the run summary."""
    m = re.search(r"collisions (\d+), ejections (\d+)", log)
    return (int(m.group(1)), int(m.group(2))) if m else (None, None)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


# ---------------------------------------------------------------------------------------------
# REBOUND side


def rebound_sim(rows, names=False, radii=True):
    """Sun + the snapshot rows (t i m r x y z vx vy vz ...), heliocentric, moved to the COM."""
    sim = rebound.Simulation()
    sim.G = 1.0
    sim.add(m=M_SUN, r=common.RSUN_AU if radii else 0.0)
    for row in rows:
        sim.add(m=row[2], r=row[3] if radii else 0.0, x=row[4], y=row[5], z=row[6], vx=row[7],
                vy=row[8], vz=row[9], name=str(int(row[1])) if names else None)
    sim.move_to_com()
    return sim


def helio(sim):
    """{name or index-1: heliocentric position} of every body but the Sun."""
    sun = sim.particles[0]
    out = {}
    for k in range(1, sim.N):
        p = sim.particles[k]
        key = p.name if p.name is not None else k - 1
        out[key] = np.array([p.x - sun.x, p.y - sun.y, p.z - sun.z])
    return out


def helio_array(sim):
    """Heliocentric positions of bodies 1.. as an (N-1, 3) array (fast path, no names)."""
    xyz = np.zeros((sim.N, 3))
    sim.serialize_particle_data(xyz=xyz)
    return xyz[1:] - xyz[0]


def set_mercurius(sim, dt_days, L):
    sim.integrator = "mercurius"
    sim.integrator.r_crit_hill = 3.0
    if L == "infinity":
        fn = rebound.clibrebound.reb_integrator_mercurius_L_infinity
        sim.integrator.L = ctypes.cast(fn, ctypes.c_void_p).value
    elif L != "mercury":
        raise ValueError(L)
    sim.dt = common.days(dt_days)


MERCURIUS_LS = ("mercury", "infinity")


def merc_label(L):
    return "L_mercury (quintic)" if L == "mercury" else "L_infinity"


# ---------------------------------------------------------------------------------------------
# Reporting


class Report:
    def __init__(self, args):
        self.args = args
        self.rows = []

    def add(self, experiment, case, code, changeover, dt, steps, metric, value, ref, used, wall,
            notes=""):
        ratio = value / ref if (ref not in (None, 0) and value is not None) else None
        self.rows.append([experiment, case, code, changeover, dt, steps, metric, value, ratio,
                          used, wall, notes])

    def table(self, experiment):
        rows = [r for r in self.rows if r[0] == experiment]
        head = ["case", "code", "changeover", "dt [d]", "steps", "metric", "value",
                "/MERC quintic", "used", "wall [s]", "notes"]
        cells = [[common.fmt(c) if c is not None else "-" for c in r[1:]] for r in rows]
        cells = [[(f"{r[7]:.3e}" if isinstance(r[7], float) else c) if j == 6 else
                  (f"{r[8]:.3f}" if j == 7 and r[8] is not None else c)
                  for j, c in enumerate(row)] for r, row in zip(rows, cells)]
        widths = [max(len(h), *(len(c[j]) for c in cells)) if cells else len(h)
                  for j, h in enumerate(head)]
        print(f"\n== {experiment} ==")
        print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
        for c in cells:
            print("  ".join(x.ljust(w) for x, w in zip(c, widths)))

    def record(self, commit):
        if self.args.no_record:
            return
        for r in self.rows:
            value = r[7]
            common.record(SECTION, COLUMNS, [
                common.today(), r[0], r[1], r[2], r[3], r[4], r[5], r[6],
                f"{value:.3e}" if isinstance(value, float) else value,
                f"{r[8]:.3f}" if r[8] is not None else "-", r[9], f"{r[10]:.1f}",
                (r[11] + "; " if r[11] else "") + commit], path=self.args.results)


# ---------------------------------------------------------------------------------------------
# 1. flyby


def flyby_start(q, vinf_kms, half_time, a_giant):
    """Heliocentric (pos, vel) of the giant and the small planet half_time before closest
    approach q (two-body hyperbola with excess speed vinf at the encounter)."""
    sim = rebound.Simulation()
    sim.G = 1.0
    sim.add(m=M_SUN)
    sim.add(m=M_JUPITER, a=a_giant)
    g = sim.particles[1]
    d = np.array([1.0, 0.4, 0.15])
    d /= np.linalg.norm(d)
    n = np.cross(d, [0.0, 0.0, 1.0])
    n /= np.linalg.norm(n)
    vinf = vinf_kms / KMS
    vp = math.sqrt(vinf * vinf + 2.0 * (M_JUPITER + M_EARTH) / q)
    gp, gv = np.array(g.xyz), np.array(g.vxyz)
    sim.add(m=M_EARTH, x=gp[0] + q * n[0], y=gp[1] + q * n[1], z=gp[2] + q * n[2],
            vx=gv[0] + vp * d[0], vy=gv[1] + vp * d[1], vz=gv[2] + vp * d[2])
    sim.move_to_com()
    sim.integrator = "ias15"
    sim.integrate(-half_time)
    sun = sim.particles[0]
    return [(np.array(p.xyz) - sun.xyz, np.array(p.vxyz) - sun.vxyz) for p in sim.particles[1:]]


def ias15_flyby(rows, t_end, samples):
    """IAS15 from the snapshot: (final heliocentric positions, min giant-small distance)."""
    sim = rebound_sim(rows)
    sim.integrator = "ias15"
    dmin = math.inf
    for t in np.linspace(0.0, t_end, samples + 1)[1:]:
        sim.integrate(t)
        dmin = min(dmin, math.dist(sim.particles[1].xyz, sim.particles[2].xyz))
    return helio_array(sim), dmin


def flyby_once(args, tmp, tag, vinf, half_time, steps):
    """One flyby from one start: {(code, setting): (errors [giant, small], wall, counts)} and the
    IAS15 minimum distance."""
    dt = args.flyby_dt
    (gp, gv), (sp, sv) = flyby_start(args.flyby_q, vinf, half_time, args.flyby_a)
    bodies = [cartesian_ron("Giant", M_JUPITER, 4.6733e-4, gp, gv),
              cartesian_ron("Small", M_EARTH, R_EARTH, sp, sv)]
    runs = {}
    snap = None
    for co in args.changeovers or ["Genga"]:
        out = os.path.join(tmp, f"flyby_{tag}_{co}")
        write(out + ".ron", scenario_text("flyby", dt, steps, bodies, out, co))
        if snap is None:
            snap, _, _ = orrery_run(args.orrery, out + ".ron", out, 0)
        if co not in args.changeovers:
            break
        rows, wall, log = orrery_run(args.orrery, out + ".ron", out, steps)
        rows = rows[np.argsort(rows[:, 1])]
        runs[("orrery", co)] = (rows[:, 4:7], wall, orrery_counts(log))
    snap = snap[np.argsort(snap[:, 1])]
    truth, dmin = ias15_flyby(snap, steps * common.days(dt), steps * 20)
    for L in MERCURIUS_LS:
        sim = rebound_sim(snap)
        set_mercurius(sim, dt, L)
        t0 = time.perf_counter()
        sim.steps(steps)
        runs[("mercurius", L)] = (helio_array(sim), time.perf_counter() - t0, None)
    return {k: (np.linalg.norm(v[0] - truth, axis=1), v[1], v[2]) for k, v in runs.items()}, dmin


def experiment_flyby(args, tmp, report):
    dt = args.flyby_dt
    q = args.flyby_q
    rcrit = 3.0 * args.flyby_a * (M_JUPITER / (3.0 * M_SUN)) ** (1.0 / 3.0)
    for vinf in [float(v) for v in args.flyby_vinf.split(",")]:
        half_steps = math.ceil(args.flyby_start_rcrit * rcrit / (vinf / KMS) / common.days(dt))
        steps = 2 * half_steps + 1
        case = (f"giant a {args.flyby_a:g} AU (3 R_H {rcrit:.3g} AU), q {q} AU, "
                f"v_inf {vinf:g} km/s, {args.flyby_phases} phases")
        errs, walls, dmins, counts = {}, {}, [], {}
        for k in range(args.flyby_phases):
            half_time = (half_steps + k / args.flyby_phases) * common.days(dt)
            res, dmin = flyby_once(args, tmp, f"{vinf:g}_{k}", vinf, half_time, steps)
            dmins.append(dmin)
            for key, (err, wall, cnt) in res.items():
                errs.setdefault(key, []).append(err)
                walls[key] = walls.get(key, 0.0) + wall
                if cnt and any(cnt):
                    counts[key] = counts.get(key, 0) + sum(cnt)
        med = {key: np.median(np.array(e), axis=0) for key, e in errs.items()}
        ref = med[("mercurius", "mercury")]
        note0 = f"IAS15 min distance {min(dmins):.4g}-{max(dmins):.4g} AU"
        for key, m in med.items():
            code, co = key
            label = co if code == "orrery" else merc_label(co)
            code_name = "orrery" if code == "orrery" else f"MERCURIUS {rebound.__version__}"
            small = np.array(errs[key])[:, 1]
            note = f"{note0}; small max over phases {small.max():.3e}"
            if key in counts:
                note += f"; collisions + ejections {counts[key]}"
            report.add("flyby", case, code_name, label, dt, steps,
                       "median final pos err small [AU]", float(m[1]), float(ref[1]), 2,
                       walls[key], note)
            report.add("flyby", case, code_name, label, dt, steps,
                       "median final pos err giant [AU]", float(m[0]), float(ref[0]), 2,
                       walls[key], "")
    report.table("flyby")


# ---------------------------------------------------------------------------------------------
# 2. ejecta


def launch_particles(earth_pos, earth_vel, n, args):
    rng = np.random.default_rng(args.seed)
    if args.launch == "surface":
        r0 = 1.05 * R_EARTH
    else:
        r0 = 1.1 * np.linalg.norm(earth_pos) * (M_EARTH / (3.0 * M_SUN)) ** (1.0 / 3.0)
    lo, hi = (float(v) for v in args.vinf_kms.split(","))
    out = []
    for _ in range(n):
        u = rng.normal(size=3)
        u /= np.linalg.norm(u)
        w = rng.normal(size=3)
        w /= np.linalg.norm(w)
        if w @ u < 0.0:
            w = -w
        vinf = rng.uniform(lo, hi) / KMS
        v = math.sqrt(2.0 * M_EARTH / r0 + vinf * vinf)
        out.append((earth_pos + r0 * u, earth_vel + v * w))
    return out, r0


def ejecta_steps(args, dt):
    """Steps at dt to the common end time: whole steps of the largest --ejecta-dt."""
    big = max(args.ejecta_dt)
    days = round(args.years * 365.25 / big) * big
    steps = round(days / dt)
    if abs(steps * dt - days) > 1e-9 * days:
        raise SystemExit("--ejecta-dt: the largest step must be a whole multiple of the others")
    return steps


def experiment_ejecta(args, tmp, report):
    n = args.particles
    planets = [kepler_ron(*p) for p in PLANETS]
    # Earth's state as Orrery computes it from the elements.
    out = os.path.join(tmp, "ejecta_planets")
    write(out + ".ron", scenario_text("planets", 1.0, 0, planets, out, "Genga"))
    prow, _, _ = orrery_run(args.orrery, out + ".ron", out, 0)
    earth = prow[prow[:, 1] == 1][0]
    parts, r0 = launch_particles(earth[4:7], earth[7:10], n, args)
    bodies = planets + [cartesian_ron(f"p{k}", 0.0, 0.0, p, v) for k, (p, v) in enumerate(parts)]
    n_massive = len(PLANETS)
    case = (f"{n} particles from {r0 / R_EARTH:.3g} R_E, v_inf {args.vinf_kms} km/s, "
            f"{args.years:g} yr")
    mode_extra = "    particle_minimum_mass: 0.0,"
    finals = {}  # (code, setting, dt) -> ({id: pos}, wall, notes)
    snap = None
    for dt in args.ejecta_dt:
        steps = ejecta_steps(args, dt)
        for co in args.changeovers:
            out = os.path.join(tmp, f"ejecta_{dt:g}_{co}")
            write(out + ".ron", scenario_text("ejecta", dt, steps, bodies, out, co,
                                              mode="TestParticles", extra=mode_extra))
            if snap is None:
                snap, _, _ = orrery_run(args.orrery, out + ".ron", out, 0)
            rows, wall, log = orrery_run(args.orrery, out + ".ron", out, steps)
            pos = {int(r[1]): r[4:7] for r in rows if r[1] >= n_massive}
            c, e = orrery_counts(log)
            finals[("orrery", co, dt)] = (pos, wall, f"removed {n - len(pos)} (collisions {c}, "
                                                     f"ejections {e})")
            print(f"  ejecta orrery {co} dt {dt:g} d: {wall:.1f} s, {n - len(pos)} removed",
                  flush=True)
    if snap is None:
        out = os.path.join(tmp, "ejecta_snap")
        write(out + ".ron", scenario_text("ejecta", 1.0, 0, bodies, out, "Genga",
                                          mode="TestParticles", extra=mode_extra))
        snap, _, _ = orrery_run(args.orrery, out + ".ron", out, 0)
    snap = snap[np.argsort(snap[:, 1])]

    def rebound_final(sim, t):
        pos = helio(sim)
        return {int(k): v for k, v in pos.items() if int(k) >= n_massive}

    def setup(sim):
        sim.N_active = n_massive + 1
        sim.testparticle_type = 0
        sim.collision = "direct"
        sim.collision_resolve = "merge"

    # IAS15 truth.
    t_end = ejecta_steps(args, args.ejecta_dt[0]) * common.days(args.ejecta_dt[0])
    sim = rebound_sim(snap, names=True)
    setup(sim)
    sim.N_targets = n_massive + 1  # collisions of particles with the Sun and planets only
    sim.integrator = "ias15"
    sim.dt = common.days(1e-4)
    t0 = time.perf_counter()
    sim.integrate(t_end)
    truth_wall = time.perf_counter() - t0
    truth = rebound_final(sim, t_end)
    truth_note = (f"IAS15 {truth_wall:.1f} s, {n - len(truth)} merged into a planet or the Sun "
                  "(no truncation)")
    print(f"  ejecta IAS15: {truth_wall:.1f} s, {n - len(truth)} merged", flush=True)
    for dt in args.ejecta_dt:
        steps = ejecta_steps(args, dt)
        for L in MERCURIUS_LS if args.ejecta_mercurius_infinity else ("mercury",):
            sim = rebound_sim(snap, names=True)
            setup(sim)
            set_mercurius(sim, dt, L)
            t0 = time.perf_counter()
            sim.steps(steps)
            wall = time.perf_counter() - t0
            pos = rebound_final(sim, t_end)
            finals[("mercurius", L, dt)] = (pos, wall, f"merged {n - len(pos)}")
            print(f"  ejecta MERCURIUS {L} dt {dt:g} d: {wall:.1f} s", flush=True)
    common_ids = set(truth)
    for pos, _, _ in finals.values():
        common_ids &= set(pos)
    ids = sorted(common_ids)
    for dt in args.ejecta_dt:
        steps = ejecta_steps(args, dt)
        med = {}
        for key, (pos, wall, note) in finals.items():
            if key[2] != dt:
                continue
            err = np.array([np.linalg.norm(pos[i] - truth[i]) for i in ids])
            med[key] = float(np.median(err)) if len(err) else float("nan")
        ref = med.get(("mercurius", "mercury", dt))
        for key, value in med.items():
            code, setting, _ = key
            pos, wall, note = finals[key]
            label = setting if code == "orrery" else merc_label(setting)
            code_name = "orrery" if code == "orrery" else f"MERCURIUS {rebound.__version__}"
            report.add("ejecta", case, code_name, label, dt, steps, "median pos err [AU]", value,
                       ref, len(ids), wall, f"{note}; {truth_note}")
    report.table("ejecta")


# ---------------------------------------------------------------------------------------------
# 3. ensemble


def disk_ron(seed):
    return ("Disk((n: 32, total_mass_earth: 5.0, a_min: 0.5, a_max: 4.0, "
            "surface_density_exponent: 1.0, e_rayleigh: 0.01, i_rayleigh: 0.005, rho: 1e12, "
            f"seed: {seed}))")


def experiment_ensemble(args, tmp, report):
    dt = 6.0
    steps = args.steps
    every = args.energy_every
    worst = {}  # (code, setting) -> list over seeds
    walls = {}
    merged = {}
    for seed in range(1, args.seeds + 1):
        bodies = [disk_ron(seed)]
        snap = None
        for co in args.changeovers:
            out = os.path.join(tmp, f"ens_{seed}_{co}")
            write(out + ".ron", scenario_text("ens", dt, steps, bodies, out, co,
                                              energy_interval=every))
            if snap is None:
                snap, _, _ = orrery_run(args.orrery, out + ".ron", out, 0)
            _, wall, log = orrery_run(args.orrery, out + ".ron", out, steps)
            energy = np.loadtxt(os.path.join(out, "Energyens.dat"), ndmin=2)
            worst.setdefault(("orrery", co), []).append(float(np.max(np.abs(energy[:, 9]))))
            walls[("orrery", co)] = walls.get(("orrery", co), 0.0) + wall
            c, e = orrery_counts(log)
            merged[("orrery", co)] = merged.get(("orrery", co), 0) + (c or 0) + (e or 0)
        if snap is None:
            out = os.path.join(tmp, f"ens_{seed}_snap")
            write(out + ".ron", scenario_text("ens", dt, 0, bodies, out, "Genga"))
            snap, _, _ = orrery_run(args.orrery, out + ".ron", out, 0)
        snap = snap[np.argsort(snap[:, 1])]
        for L in MERCURIUS_LS:
            sim = rebound_sim(snap, radii=False)
            set_mercurius(sim, dt, L)
            e0 = sim.energy()
            w = 0.0
            t0 = time.perf_counter()
            for _ in range(steps // every):
                sim.steps(every)
                w = max(w, abs((sim.energy() - e0) / e0))
            if steps % every:
                sim.steps(steps % every)
                w = max(w, abs((sim.energy() - e0) / e0))
            walls[("mercurius", L)] = walls.get(("mercurius", L), 0.0) + time.perf_counter() - t0
            worst.setdefault(("mercurius", L), []).append(w)
        line = ", ".join(f"{k[1]} {v[-1]:.2e}" for k, v in worst.items())
        print(f"  ensemble seed {seed}: worst |dE/E| {line}", flush=True)
    ref = float(np.median(worst[("mercurius", "mercury")]))
    case = f"{args.seeds} disks of 32 bodies, 5 M_E, 0.5-4 AU, rho 1e12"
    for key, ws in worst.items():
        code, setting = key
        label = setting if code == "orrery" else merc_label(setting)
        code_name = "orrery" if code == "orrery" else f"MERCURIUS {rebound.__version__}"
        per_seed = " ".join(f"{w:.2e}" for w in ws)
        note = f"per seed: {per_seed}; max {max(ws):.2e}"
        if code == "orrery":
            note += f"; collisions + ejections {merged[key]}"
        report.add("ensemble", case, code_name, label, dt, steps,
                   f"median over seeds of worst |dE/E| (every {every} steps)",
                   float(np.median(ws)), ref, 32 * args.seeds, walls[key], note)
    report.table("ensemble")


# ---------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 epilog="See the module docstring for the set-ups.")
    ap.add_argument("--experiments", default="flyby,ejecta,ensemble")
    ap.add_argument("--orrery", default=os.path.join(ROOT, "target", "release", "orrery"),
                    help="the orrery binary")
    ap.add_argument("--changeovers", default=",".join(CHANGEOVERS),
                    help="Orrery changeover functions: Genga, Quintic, Infinity")
    ap.add_argument("--flyby-q", type=float, default=0.0107, help="closest approach [AU]")
    ap.add_argument("--flyby-vinf", default="3,6,15", help="excess speeds [km/s], one run each")
    ap.add_argument("--flyby-dt", type=float, default=4.0, help="[days]")
    ap.add_argument("--flyby-a", type=float, default=1.0, help="giant's semi-major axis [AU]")
    ap.add_argument("--flyby-phases", type=int, default=16,
                    help="runs per variant, closest approach shifted by k/N of a step")
    ap.add_argument("--flyby-start-rcrit", type=float, default=4.0,
                    help="v_inf * half the run in units of the giant's 3 R_H")
    ap.add_argument("--particles", type=int, default=2000)
    ap.add_argument("--years", type=float, default=10.0)
    ap.add_argument("--ejecta-dt", default="1,0.25", help="[days], comma-separated")
    ap.add_argument("--launch", choices=["surface", "hill"], default="surface")
    ap.add_argument("--vinf-kms", default="1,5", help="range of the launch excess speed")
    ap.add_argument("--ejecta-mercurius-infinity", action="store_true",
                    help="also run MERCURIUS with L_infinity in the ejecta experiment")
    ap.add_argument("--seed", type=int, default=1, help="ejecta random seed")
    ap.add_argument("--seeds", type=int, default=10, help="ensemble: disks with seeds 1..N")
    ap.add_argument("--steps", type=int, default=100_000, help="ensemble steps")
    ap.add_argument("--energy-every", type=int, default=100, help="ensemble energy sampling")
    ap.add_argument("--tmp", default=None, help="work directory (default: a fresh temp dir)")
    ap.add_argument("--no-record", action="store_true", help="do not append to RESULTS.md")
    ap.add_argument("--results", default=common.RESULTS, help="the results file to append to")
    args = ap.parse_args()
    args.changeovers = [c.strip().capitalize() for c in args.changeovers.split(",") if c.strip()]
    for c in args.changeovers:
        if c not in CHANGEOVERS:
            raise SystemExit(f"--changeovers: unknown `{c}` (expected {', '.join(CHANGEOVERS)})")
    args.ejecta_dt = [float(v) for v in args.ejecta_dt.split(",")]
    args.orrery = os.path.abspath(args.orrery)
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or "unknown commit"
    commit = f"orrery {commit}, order 2, n1 3, n2 0.4; rebound {rebound.__version__}"
    report = Report(args)
    experiments = {"flyby": experiment_flyby, "ejecta": experiment_ejecta,
                   "ensemble": experiment_ensemble}
    with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
        for name in args.experiments.split(","):
            t0 = time.perf_counter()
            experiments[name](args, tmp, report)
            print(f"({name}: {time.perf_counter() - t0:.1f} s)", flush=True)
    report.record(commit)


if __name__ == "__main__":
    main()
