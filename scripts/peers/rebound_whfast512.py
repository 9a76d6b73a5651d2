#!/usr/bin/env python3
"""WHFast512 (REBOUND's AVX-512 Wisdom-Holman) beside Orrery and WHFast, one thread (issue 28).

Rows, each timed in microseconds per system-step on one thread:
- `solar`: the Sun + 8 planets, dt 5 d, one system (`inputs/bench/solar_system_5d.ron`);
- `outer`: the Sun + 4 giants, dt 50 d, one system (`inputs/outer_solar_system.ron`);
- `ejs10k`: 10^4 systems Sun + Earth-like + Jupiter + Saturn, dt 5 d
  (`inputs/bench/ensemble_ejs10k.ron`; WHFast512 with `N_systems = 2`, two systems per vector);
- `js10k`: 10^4 systems Sun + Jupiter + Saturn, dt 5 d (`inputs/bench/ensemble_js10k.ron`;
  WHFast512 with `N_systems = 4`).
For each row: REBOUND WHFast (democratic heliocentric, safe_mode 0) for reference, WHFast512
without and with its symplectic correctors (`corrector = 0` and `17`), and Orrery's two
integrators (`--orrery-integrators`): its hybrid step (`orrery-hybrid`, the scenario as it is,
"hybrid (GENGA)" in the table) and its Wisdom-Holman map in Jacobi coordinates without and with
17th-order symplectic correctors (`orrery-wh`, `orrery-wh+corr`; "wh" and "wh+corr" in the
table), a copy of the scenario with the top-level field `integrator: WisdomHolman(correctors:
0)` or `(correctors: 17)` (in an ensemble file inside its `scenario: Scenario(...)`). Each Orrery
case is `orrery run SCENARIO --steps N --threads 1`, timed by "s per step" (one system) or
"system-steps per second" (an ensemble) of its summary's first lines, for both integrators (the
map's own last line, "Wisdom-Holman map (...): X s per step", times a sample of the steps and is
not used); a one-system scenario runs as a copy with its energy, snapshot and checkpoint intervals
0, so that, as REBOUND, it writes nothing until the end. Each case is the median of `--repeats`
runs. It reports the relative energy error after the run's steps from the start: the system's
for the one-system rows (as `rebound_small.py`), the largest over the systems for the ensembles
(Orrery's summary reports that one for a multi run, either integrator; the REBOUND median is in
the JSON line). Then it draws a work-precision figure (`--figure`) for the Sun + 8 planets: the
largest relative energy error over `--figure-years` (sampled `--figure-samples` times) against
the wall time per simulated year (one Earth orbit), for several dt, for Orrery's hybrid step with
`changeover: Genga` and `changeover: Infinity` (the smooth one; both with the scenario's n1 3, n2
0.4), Orrery's Wisdom-Holman map with correctors 0 and 17 (`orrery-wh`, `orrery-wh+corr`),
WHFast512 without and with correctors, and WHFast (`--figure-integrators`, all by default).
Orrery's points run copies of the scenario with `time_step_days`, `changeover` or `integrator`
set and the energy written `--figure-samples` times (its `Energy*.dat`, column 10).

Initial states. The one-system rows start REBOUND from Orrery's step-0 snapshot
(`orrery run SCENARIO --steps 0`, `Out<name>_000000000000.dat`: `t i m r x y z vx vy vz ...`,
heliocentric, GENGA units G = 1, AU, Msun, time unit 1/k days). An ensemble writes no
snapshots, only `summary.csv`, so the script draws the ensemble's systems as Orrery does
(xoshiro256** seeded by splitmix64 with `seed + system`, elements m, a, e, inc, node, peri, M in
that order, REBOUND's elements-to-Cartesian with mu = G (M_sun + m)) and checks them against the
a, e, i of Orrery's step-0 `summary.csv`; when they disagree (Orrery changed its generator) it
says so and goes on with these equivalent draws from the same ranges. REBOUND's bodies of a
system are ordered by semi-major axis (WHFast512 works in Jacobi coordinates). Orrery's
Wisdom-Holman map takes a system's bodies as Jacobi bodies in their input order, the fixed
bodies and then the drawn ones: `ejs10k` lists Jupiter and Saturn before the drawn Earth-like
planet, which costs that map 10^2 to 10^5 in energy error. Its Wisdom-Holman rows therefore run
a copy with Jupiter and Saturn moved after the drawn planet as `Drawn` entries of empty ranges
(lo = hi: drawn as lo exactly, after the planet's draws, which keep their values), the same
systems from the inside out (the settings column says so); the hybrid row runs the file as it is.

WHFast512. REBOUND 5.2.2 (the pip sdist's `src/`) implements WHFast512 in hand-written assembly
(`src/integrator_whfast512.s`, Jacobi coordinates; fields `N_systems` 1, 2 or 4 systems per
AVX-512 vector, `corrector` 0 or 17 (17th-order symplectic correctors, applied at each
synchronisation), `gr_potential`, `concatenate_steps`, default 10^6 steps per call; no
`keep_unsynchronized` or `safe_mode`). The script builds that sdist into a private copy of the
package, `~/.cache/orrery-peers/rebound-<version>-avx512/` (`--cache`): `pip download
rebound==<version> --no-binary :all: --no-deps` (or the sources at `--rebound-src`: an unpacked
sdist or a git checkout, or an sdist `.tar.gz`), then `cc` builds `librebound<EXT_SUFFIX>` from
`src/*.c` and `src/integrator_whfast512.s` with setup.py's flags plus `-DAVX512 -march=native`,
and the sdist's `rebound/` Python package is copied beside it, so `import rebound` from that
folder loads this library (the package finds `librebound` on `sys.path`). `-DAVX512` is what
older (4.x) sources test; 5.2.2 assembles the `.s` file on every x86-64 build (the PyPI wheel holds
the same assembly, built without `-march=native`: `--use-installed` times that one instead). The
WHFast rows use the same library. Each WHFast512 run sets `concatenate_steps` to the run's steps
and calls `sim.steps(1)`: `steps()` counts calls, not steps (`integrate(t)` with
`exact_finish_time = 0` does the same in whole calls); the call ends synchronised.

Needs: Python 3 with `pip install numpy matplotlib` in the virtual environment (rebound itself
is built here; `pip install rebound` only for `--use-installed`), `cc` and `as` (GNU binutils),
and Orrery's `target/release/orrery` (`--orrery`). On a CPU without AVX-512 (avx512f and avx512dq
in /proc/cpuinfo) it prints "skipped: ..." and exits 0.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time

import numpy as np

import common

SECTION = "7. WHFast512 (issue 28): one thread, us per system-step"
COLUMNS = ["date", "code", "row", "system", "integrator", "settings", "systems", "N", "dt [d]",
           "steps", "us/system-step median", "min", "max", "rel dE", "rel dE is"]
FIG_SECTION = "8. Work-precision, Sun + 8 planets (issue 28 figure)"
FIG_COLUMNS = ["date", "code", "integrator", "settings", "dt [d]", "years", "steps",
               "us per simulated year", "max rel dE", "final rel dE"]
ROOT = os.path.abspath(os.path.join(common.HERE, "..", ".."))
# name: (scenario, WHFast512 N_systems, description)
ROWS = {
    "solar": ("inputs/bench/solar_system_5d.ron", 1, "Sun + 8 planets"),
    "outer": ("inputs/outer_solar_system.ron", 1, "Sun + 4 giants"),
    "ejs10k": ("inputs/bench/ensemble_ejs10k.ron", 2, "Sun + Earth-like + Jupiter + Saturn"),
    "js10k": ("inputs/bench/ensemble_js10k.ron", 4, "Sun + Jupiter + Saturn"),
}
DAYS_PER_YEAR = 365.25
rebound = None  # imported by load_rebound()


# ---------------------------------------------------------------- building REBOUND with AVX-512

def avx512_flags():
    """The AVX-512 flags WHFast512 needs that /proc/cpuinfo lacks (None: no /proc/cpuinfo)."""
    try:
        text = open("/proc/cpuinfo").read()
    except OSError:
        return None
    flags = set()
    for line in text.splitlines():
        if line.startswith("flags"):
            flags |= set(line.split(":", 1)[1].split())
    return [f for f in ("avx512f", "avx512dq") if f not in flags]


def sdist_source(args, work):
    """An unpacked REBOUND source tree (with src/ and rebound/) and its description."""
    src = args.rebound_src
    if src is None:
        dl = os.path.join(work, "download")
        os.makedirs(dl, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", f"rebound=={args.rebound_version}",
                        "--no-binary", ":all:", "--no-deps", "-d", dl],
                       check=True)
        tars = [f for f in os.listdir(dl) if f.startswith("rebound-") and f.endswith(".tar.gz")]
        if not tars:
            raise SystemExit(f"pip download left no rebound sdist in {dl}")
        src = os.path.join(dl, sorted(tars)[-1])
    src = os.path.abspath(os.path.expanduser(src))
    if os.path.isfile(src):
        dest = os.path.join(work, "src")
        shutil.rmtree(dest, ignore_errors=True)
        with tarfile.open(src) as tar:
            tar.extractall(dest, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
        tops = os.listdir(dest)
        tree = os.path.join(dest, tops[0]) if len(tops) == 1 else dest
    else:
        tree = src
    for need in ("src", "rebound"):
        if not os.path.isdir(os.path.join(tree, need)):
            raise SystemExit(f"{tree}: no {need}/ folder (expected a REBOUND sdist or checkout)")
    return tree


def build_rebound(args):
    """Build (once) a private AVX-512 copy of REBOUND; returns the folder to put on sys.path."""
    cache = os.path.expanduser(args.cache or os.path.join(
        "~", ".cache", "orrery-peers",
        f"rebound-{args.rebound_version if args.rebound_src is None else 'local'}-avx512"))
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    lib = os.path.join(cache, "librebound" + suffix)
    stamp_path = os.path.join(cache, "build.json")
    cc = os.environ.get("CC", "cc")
    extra = os.environ.get("CFLAGS", "").split()
    want = {"source": args.rebound_src and os.path.abspath(os.path.expanduser(args.rebound_src))
            or f"pypi rebound=={args.rebound_version}", "cc": cc, "extra_cflags": extra}
    if not args.rebuild and os.path.exists(lib) and os.path.exists(stamp_path):
        stamp = json.load(open(stamp_path))
        if all(stamp.get(k) == v for k, v in want.items()):
            return cache
    os.makedirs(cache, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as work:
        tree = sdist_source(args, work)
        setup = open(os.path.join(tree, "setup.py")).read() if os.path.exists(
            os.path.join(tree, "setup.py")) else ""
        ghash = re.search(r"-DGITHASH=([0-9a-f]{40})", setup)
        srcs = sorted(os.path.join(tree, "src", f) for f in os.listdir(os.path.join(tree, "src"))
                      if f.endswith(".c"))
        asm = [os.path.join(tree, "src", f) for f in sorted(os.listdir(os.path.join(tree, "src")))
               if f.endswith(".s")]
        # setup.py's flags (Linux), plus AVX-512 for the C parts.
        flags = ["-O3", "-std=c99", "-fstrict-aliasing", "-fPIC", "-Wno-unreachable-code",
                 "-Wno-unknown-pragmas", "-D_GNU_SOURCE", "-DSERVER", "-DAVX512", "-march=native",
                 "-Wa,--noexecstack"] + ([f"-DGITHASH={ghash.group(1)}"] if ghash else []) + extra
        out = os.path.join(work, "librebound" + suffix)
        cmd = [cc, *flags, "-I", os.path.join(tree, "src"), "-shared", "-o", out, *srcs, *asm,
               "-lm", "-lpthread"]
        print(f"building REBOUND with AVX-512 in {cache} ({len(srcs)} C files"
              f"{', ' + ', '.join(os.path.basename(a) for a in asm) if asm else ''})",
              file=sys.stderr)
        subprocess.run(cmd, check=True)
        shutil.rmtree(os.path.join(cache, "rebound"), ignore_errors=True)
        shutil.copytree(os.path.join(tree, "rebound"), os.path.join(cache, "rebound"))
        shutil.move(out, lib)
    cc_version = subprocess.run([cc, "--version"], capture_output=True, text=True).stdout
    json.dump({**want, "flags": flags, "assembly": [os.path.basename(a) for a in asm],
               "cc_version": cc_version.splitlines()[0] if cc_version else ""},
              open(stamp_path, "w"), indent=1)
    return cache


def load_rebound(args):
    """Import rebound: the private AVX-512 build unless --use-installed; returns a build label."""
    global rebound
    if args.use_installed:
        import rebound as rb
        label = "installed package"
    else:
        cache = build_rebound(args)
        sys.path.insert(0, cache)
        import rebound as rb
        if os.path.dirname(os.path.abspath(rb.__libpath__)) != os.path.abspath(cache):
            raise SystemExit(f"loaded {rb.__libpath__}, not the build in {cache}")
        label = "built -march=native"
        if args.rebound_src is None and rb.__version__ != args.rebound_version:
            raise SystemExit(f"built rebound {rb.__version__}, asked for {args.rebound_version}")
    rebound = rb
    if not getattr(rb, "avx512_available", True):
        raise SystemExit("librebound reports no AVX-512 on this CPU")
    return label


# ---------------------------------------------------------------- Orrery's initial conditions

scenario_value = common.scenario_value
snapshot = common.snapshot


class Rng:
    """Orrery's src/rng.rs: xoshiro256** seeded by splitmix64."""
    MASK = (1 << 64) - 1

    def __init__(self, seed):
        z, self.s = seed & self.MASK, []
        for _ in range(4):
            z = (z + 0x9E3779B97F4A7C15) & self.MASK
            x = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self.MASK
            x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & self.MASK
            self.s.append(x ^ (x >> 31))

    @classmethod
    def rotl(cls, x, k):
        return ((x << k) | (x >> (64 - k))) & cls.MASK

    def next_u64(self):
        s = self.s
        result = (self.rotl((s[1] * 5) & self.MASK, 7) * 9) & self.MASK
        t = (s[1] << 17) & self.MASK
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = self.rotl(s[3], 45)
        return result

    def range(self, lo, hi):
        return lo + (hi - lo) * ((self.next_u64() >> 11) * (1.0 / (1 << 53)))


def ron_calls(text, name):
    """The inner text of every `name( ... )` in text (balanced parentheses)."""
    out = []
    for m in re.finditer(rf"\b{name}\(", text):
        depth, i = 1, m.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        out.append(text[m.end():i - 1])
    return out


NUM = r"[-+]?[0-9.]+(?:[eE][-+]?[0-9]+)?"


def ron_fields(inner):
    """Scalars and (lo, hi) ranges (also inside Some(...)) of one RON struct's fields."""
    fields = {}
    for m in re.finditer(rf"(\w+):\s*(?:Some\()?\(\s*({NUM})\s*,\s*({NUM})\s*\)", inner):
        fields[m.group(1)] = (float(m.group(2)), float(m.group(3)))
    for m in re.finditer(rf"(\w+):\s*(?:Some\()?({NUM})\b", inner):
        fields.setdefault(m.group(1), float(m.group(2)))
    return fields


def parse_ensemble(path):
    text = re.sub(r"//[^\n]*", "", open(path).read())
    inner = ron_calls(text, "Scenario")[0]
    bodies = inner[inner.index("bodies:"):]
    if re.search(r"\b(Cartesian|File|Generate|Genga)\(", bodies):
        raise SystemExit(f"{path}: only Kepler bodies are supported as fixed bodies")
    return {
        "systems": int(re.search(r"\bsystems:\s*(\d+)", text).group(1)),
        "seed": int(re.search(r"\bseed:\s*(\d+)", text).group(1)),
        "m0": scenario_value(inner, "central_mass", 1.0),
        "dt_days": scenario_value(inner, "time_step_days"),
        "fixed": [ron_fields(k) for k in ron_calls(bodies, "Kepler")],
        "drawn": [ron_fields(d) for d in ron_calls(text, "Drawn")],
    }


def bracket_span(text, start):
    """The end (past the closing bracket) of the [...] or (...) opening at text[start]."""
    depth, i = 0, start
    while True:
        depth += {"[": 1, "(": 1, "]": -1, ")": -1}.get(text[i], 0)
        i += 1
        if depth == 0:
            return i


KEPLER_AS_DRAWN = ("m", "a", "e", "inc_deg", "node_deg", "peri_deg", "mean_anomaly_deg")


def inside_out_copy(src, dst):
    """For Orrery's Wisdom-Holman map, which takes a system's bodies in their input order as
    Jacobi bodies (the fixed ones, then the drawn ones): a copy of an ensemble whose drawn bodies
    all lie inside its fixed ones, with the fixed ones moved after the drawn ones as `Drawn`
    entries of empty ranges (lo = hi, drawn as lo exactly, after the real draws, which keep their
    values), so that its bodies go from the inside out as REBOUND's (sorted by a). Returns (path,
    note); src itself when its bodies already go outwards or cannot be reordered so (with a
    note on stderr)."""
    def keep(why):
        print(f"note: {os.path.basename(src)}: {why}; Orrery's Wisdom-Holman map takes its bodies"
              " in their input order, REBOUND's are sorted by a", file=sys.stderr)
        return src, ""

    ens = parse_ensemble(src)
    if not ens["fixed"] or not ens["drawn"]:
        return src, ""
    fixed_a = [f["a"] for f in ens["fixed"]]
    drawn_lo = [d["a"][0] for d in ens["drawn"]]
    drawn_hi = [d["a"][1] for d in ens["drawn"]]
    if fixed_a == sorted(fixed_a) and drawn_lo == sorted(drawn_lo) and max(fixed_a) < min(drawn_lo):
        return src, ""
    text = open(src).read()
    code = re.sub(r"//[^\n]*", lambda m: " " * len(m.group(0)), text)  # same offsets
    sc = code.index("Scenario(")
    b = code.index("bodies:", sc)
    b_open = code.index("[", b)
    b_end = bracket_span(code, b_open)
    entries = []
    for inner in ron_calls(code[b_open:b_end], "Kepler"):
        fields = dict(re.findall(rf"(\w+):\s*(Some\({NUM}\)|\"[^\"]*\"|{NUM})", inner))
        extra = set(re.findall(r"(\w+):", inner)) - set(KEPLER_AS_DRAWN) - {"name", "radius"}
        if extra or any(k not in fields for k in KEPLER_AS_DRAWN):
            return keep("a fixed body has fields a Drawn entry lacks")
        entries.append((fields, float(fields["a"])))
    if max(drawn_hi) >= min(a for _, a in entries) or drawn_lo != sorted(drawn_lo):
        return keep("its drawn and fixed bodies interleave in a")
    drawn = []
    for fields, _ in sorted(entries, key=lambda e: e[1]):
        parts = [f"name: {fields['name']}", f"m: ({fields['m']}, {fields['m']})"]
        if "radius" in fields:
            parts.append(f"radius: {fields['radius']}")
        for k in KEPLER_AS_DRAWN[1:]:
            v = f"({fields[k]}, {fields[k]})"
            parts.append(f"{k}: {v}" if k in ("a", "e", "inc_deg") else f"{k}: Some({v})")
        drawn.append("        Drawn(" + ", ".join(parts) + "),\n")
    h = code.index("hypothetical:")
    h_open = code.index("[", h)
    h_end = bracket_span(code, h_open)
    if not h_end < b_open:
        return keep("its hypothetical bodies follow its scenario")
    before = text[:h_end - 1].rstrip()
    before += "" if before.endswith((",", "[")) else ","
    text = before + "\n" + "".join(drawn) + "    " + text[h_end - 1:b_open] + "[]" + text[b_end:]
    with open(dst, "w") as f:
        f.write(text)
    return dst, ("bodies inside out: the fixed bodies listed after the drawn ones, as empty-range "
                 "Drawn entries")


def ensemble_elements(ens, m_systems):
    """Per system: rows (m, a, e, inc, node, peri, M) in radians, fixed bodies then drawn ones."""
    deg = np.pi / 180.0
    systems = []
    for s in range(m_systems):
        rows = [(f["m"], f["a"], f["e"], f["inc_deg"] * deg, f["node_deg"] * deg,
                 f["peri_deg"] * deg, f["mean_anomaly_deg"] * deg) for f in ens["fixed"]]
        rng = Rng(ens["seed"] + s)
        for d in ens["drawn"]:
            m, a, e = rng.range(*d["m"]), rng.range(*d["a"]), rng.range(*d["e"])
            inc = rng.range(*d["inc_deg"]) * deg
            angles = [rng.range(*d.get(k, (0.0, 360.0))) * deg
                      for k in ("node_deg", "peri_deg", "mean_anomaly_deg")]
            rows.append((m, a, e, inc, *angles))
        systems.append(rows)
    return systems


def check_against_orrery(systems, summary_csv):
    """Do the drawn elements match Orrery's step-0 summary.csv (a, e, i per slot)?"""
    import csv

    with open(summary_csv) as f:
        table = {int(r["system"]): r for r in csv.DictReader(f)}
    worst = 0.0
    for s, rows in enumerate(systems):
        r = table[s]
        for k, (m, a, e, inc, *_rest) in enumerate(rows):
            worst = max(worst, abs(float(r[f"a{k}"]) / a - 1), abs(float(r[f"e{k}"]) - e),
                        abs(np.radians(float(r[f"inc{k}_deg"])) - inc))
    return worst


def cartesian_states(m0, systems):
    """(m [S, n], x [S, n, 3], v [S, n, 3]) heliocentric, bodies sorted by a, Sun first."""
    n = len(systems[0]) + 1
    m = np.zeros((len(systems), n))
    xv = np.zeros((len(systems), n, 6))
    for s, rows in enumerate(systems):
        sim = rebound.Simulation()
        sim.G = 1.0
        sim.add(m=m0)
        for b in sorted(rows, key=lambda b: b[1]):
            bm, a, e, inc, node, peri, mean = b
            sim.add(m=bm, a=a, e=e, inc=inc, Omega=node, omega=peri, M=mean, primary=sim.particles[0])
        sim.serialize_particle_data(m=m[s], xyzvxvyvz=xv[s])
    return m, xv[:, :, :3].copy(), xv[:, :, 3:].copy()


def energies(m, x, v):
    """Energy of each system in its own barycentric frame (G = 1); arrays [S, n(, 3)]."""
    vcm = (m[..., None] * v).sum(1) / m.sum(1)[:, None]
    e = 0.5 * (m * ((v - vcm[:, None, :]) ** 2).sum(2)).sum(1)
    for i in range(m.shape[1]):
        for j in range(i + 1, m.shape[1]):
            e -= m[:, i] * m[:, j] / np.sqrt(((x[:, i] - x[:, j]) ** 2).sum(1))
    return e


# ---------------------------------------------------------------- REBOUND

INTEGRATORS = {  # label: (REBOUND integrator, WHFast512 corrector)
    "whfast": ("whfast", None),
    "whfast512": ("whfast512", 0),
    "whfast512+corr": ("whfast512", 17),
}


def configure(sim, label, dt_days, n_systems=1):
    integrator, corrector = INTEGRATORS[label]
    if integrator == "whfast":
        settings = common.use_whfast_dh(sim)
    else:
        sim.integrator = integrator
        sim.integrator.N_systems = n_systems
        sim.integrator.corrector = corrector
        sim.integrator.gr_potential = 0
        sim.exact_finish_time = 0
        settings = f"Jacobi, N_systems={n_systems}, corrector={corrector}, gr_potential=0"
    sim.dt = common.days(dt_days)
    return settings


def run_steps(sim, label, n):
    """n steps, ending synchronised: WHFast512 as one call of n concatenated steps."""
    if INTEGRATORS[label][0] == "whfast512":
        sim.integrator.concatenate_steps = n
        sim.steps(1)
    else:
        sim.steps(n)


def one_system_sim(m0, bodies, label, dt_days):
    sim = common.heliocentric_sim(m0, bodies)
    settings = configure(sim, label, dt_days)
    return sim, settings


def rebound_one_system(m0, bodies, dt_days, label, args):
    """Seconds per step of `--repeats` fresh runs of `steps` steps; energy error of the last."""
    sim, _ = one_system_sim(m0, bodies, label, dt_days)
    run_steps(sim, label, args.warmup)
    per_step = []
    for _ in range(args.repeats):
        sim, settings = one_system_sim(m0, bodies, label, dt_days)
        e0 = sim.energy()
        per_step.append(common.time_call(run_steps, sim, label, args.steps) / args.steps)
        if abs(sim.t / sim.dt - args.steps) > 0.5:
            raise SystemExit(f"{label}: ran {sim.t / sim.dt} steps, expected {args.steps}")
        de = abs((sim.energy() - e0) / e0)
    return settings, per_step, de, None


def ensemble_sims(states, label, dt_days, k):
    """Simulations of k consecutive systems each (k = 1 for WHFast)."""
    m, x, v = states
    for start in range(0, len(m), k):
        sim = rebound.Simulation()
        sim.G = 1.0
        for s in range(start, start + k):
            for i in range(m.shape[1]):
                sim.add(m=m[s, i], x=x[s, i, 0], y=x[s, i, 1], z=x[s, i, 2],
                        vx=v[s, i, 0], vy=v[s, i, 1], vz=v[s, i, 2])
        if k == 1:
            sim.move_to_com()
        yield sim, configure(sim, label, dt_days, k)


def rebound_ensemble(states, e0, dt_days, label, n_systems, args):
    """Seconds per system-step (steps only) of `--repeats` passes; max and median energy error."""
    k = n_systems if INTEGRATORS[label][0] == "whfast512" else 1
    m = states[0]
    if len(m) % k:
        raise SystemExit(f"{len(m)} systems is not a multiple of N_systems={k}")
    n = m.shape[1]
    per_step, rel = [], None
    for _ in range(args.repeats):
        t = 0.0
        xv = np.zeros((len(m), n, 6))
        for j, (sim, settings) in enumerate(ensemble_sims(states, label, dt_days, k)):
            t += common.time_call(run_steps, sim, label, args.ensemble_steps)
            sim.serialize_particle_data(xyzvxvyvz=xv[j * k:(j + 1) * k].reshape(-1, 6))
        per_step.append(t / (len(m) * args.ensemble_steps))
        rel = np.abs(energies(m, xv[:, :, :3], xv[:, :, 3:]) / e0 - 1.0)
    return settings, per_step, float(rel.max()), float(np.median(rel))


# ---------------------------------------------------------------- Orrery

def orrery_commit():
    return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True).stdout.strip() or "unknown commit"


def orrery_run(orrery, scenario, out, steps):
    log = subprocess.run([orrery, "run", scenario, "--steps", str(steps), "--threads", "1",
                          "--out", out, "--overwrite"], check=True, capture_output=True,
                         text=True).stdout
    per_step = float(re.search(r"([0-9.e+-]+) s per step", log).group(1))
    rate = re.search(r"([0-9.e+-]+) system-steps per second", log)
    de = abs(float(re.search(r"relative energy error \(E \+ U\) ([0-9.e+-]+)", log).group(1)))
    return per_step, float(rate.group(1)) if rate else None, de


# Orrery's cases: label: (table's integrator, `integrator` field of the scenario copy or None
# for the scenario's own hybrid step, Wisdom-Holman corrector order). The labels name the rows
# (`--orrery-integrators`) and the figure's curves (`--figure-integrators`, with orrery-genga and
# orrery-infinity, the hybrid step with either changeover).
ORRERY = {
    "orrery-hybrid": ("hybrid (GENGA)", None, None),
    "orrery-wh": ("wh", "WisdomHolman(correctors: 0)", 0),
    "orrery-wh+corr": ("wh+corr", "WisdomHolman(correctors: 17)", 17),
}


def orrery_settings(label):
    """The settings column of an Orrery case (without the commit)."""
    if ORRERY[label][1] is None:
        return "hybrid, changeover Genga"
    return f"Wisdom-Holman map, Jacobi, correctors={ORRERY[label][2]}"


def orrery_scenario(scenario, tmp, name, label, **fields):
    """The scenario of an Orrery case: a copy with its `integrator` (and `fields`) set, or the
    scenario itself for the hybrid step without fields."""
    integrator = ORRERY[label][1]
    if integrator is not None:
        fields["integrator"] = integrator
    if not fields:
        return scenario
    tag = label.replace("orrery-", "").replace("+", "_")
    return scenario_copy(scenario, os.path.join(tmp, f"{name}-{tag}.ron"), **fields)


def orrery_row(orrery, scenario, out, steps, ensemble, args, label="orrery-hybrid"):
    per, de = [], None
    for _ in range(args.repeats):
        per_step, rate, de = orrery_run(orrery, scenario, out, steps)
        per.append(1.0 / rate if ensemble else per_step)
    return f"{orrery_settings(label)}, cpu, 1 thread, {orrery_commit()}", per, de, None


def scenario_copy(src, dst, **fields):
    """A copy of a scenario with top-level numeric/enum fields replaced or added."""
    text = open(src).read()
    for key, value in fields.items():
        pat = rf"(\n\s*{key}:\s*)[^,\n]+"
        if re.search(pat, text):
            text = re.sub(pat, rf"\g<1>{value}", text, count=1)
        else:  # add it after n2 (a top-level scenario field)
            text = re.sub(r"(\n(\s*)n2:[^\n]*\n)", rf"\1\2{key}: {value},\n", text, count=1)
    with open(dst, "w") as f:
        f.write(text)
    return dst


# ---------------------------------------------------------------- the table

def run_row(name, args, orrery, tmp, build):
    scenario_rel, n_systems, desc = ROWS[name]
    scenario = os.path.join(ROOT, scenario_rel)
    code = f"rebound {rebound.__version__}"
    results = []
    if n_systems == 1:
        m0, dt_days, bodies = snapshot(orrery, scenario, os.path.join(tmp, name + "-0"))
        count, n_body, steps = 1, len(bodies) + 1, args.steps
        for label in args.integrators:
            settings, per, de, med = rebound_one_system(m0, bodies, dt_days, label, args)
            results.append((code, label, f"{settings}; {build}", per, de, "after the steps"))
        # Timed without outputs during the run, as REBOUND's rows (and the ensemble scenarios).
        for label in args.orrery_integrators:
            quiet = orrery_scenario(scenario, tmp, name + "-quiet", label, energy_interval=0,
                                    coordinates_interval=0, checkpoint_interval=0)
            settings, per, de, _ = orrery_row(orrery, quiet, os.path.join(tmp, name), steps,
                                              False, args, label)
            settings += ", no outputs during the run"
            results.append(("orrery", ORRERY[label][0], settings, per, de, "after the steps"))
    else:
        ens = parse_ensemble(scenario)
        count = args.ensemble_systems or ens["systems"]
        if count != ens["systems"]:
            scenario = scenario_copy(scenario, os.path.join(tmp, os.path.basename(scenario)),
                                     systems=count)
        dt_days, steps = ens["dt_days"], args.ensemble_steps
        systems = ensemble_elements(ens, count)
        out0 = os.path.join(tmp, name + "-0")
        subprocess.run([orrery, "run", scenario, "--steps", "0", "--out", out0, "--overwrite"],
                       check=True, capture_output=True)
        worst = check_against_orrery(systems, os.path.join(out0, "summary.csv"))
        origin = "Orrery's systems" if worst < 1e-9 else "draws from the same ranges"
        if worst >= 1e-9:
            print(f"note: {name}: the drawn elements differ from Orrery's summary.csv by {worst:.3g};"
                  " REBOUND integrates equivalent systems drawn from the same ranges", file=sys.stderr)
        states = cartesian_states(ens["m0"], systems)
        e0 = energies(*states)
        n_body = states[0].shape[1]
        for label in args.integrators:
            settings, per, de, med = rebound_ensemble(states, e0, dt_days, label, n_systems, args)
            results.append((code, label, f"{settings}; {build}; {origin}", per, de,
                            f"max over systems (median {med:.3g})"))
        for label in args.orrery_integrators:
            path, note = scenario, ""
            if ORRERY[label][1] is not None:  # the map's Jacobi bodies from the inside out
                path, note = inside_out_copy(scenario, os.path.join(tmp, name + "-inside-out.ron"))
            path = orrery_scenario(path, tmp, name, label)
            settings, per, de, _ = orrery_row(orrery, path, os.path.join(tmp, name), steps,
                                              True, args, label)
            settings += f"; {note}" if note else ""
            results.append(("orrery", ORRERY[label][0], settings, per, de,
                            "max over systems (Orrery's summary)"))
    for code_, integrator, settings, per, de, what in results:
        if integrator.startswith("whfast512"):
            settings = settings.replace("gr_potential=0", f"gr_potential=0, {steps} steps per call")
        st = common.stats(per)
        us = [st["median"] * 1e6, st["min"] * 1e6, st["max"] * 1e6]
        common.emit({"row": name, "system": desc, "code": code_, "integrator": integrator,
                     "settings": settings, "systems": count, "N": n_body, "dt_days": dt_days,
                     "steps": steps, "us_per_system_step": us[0], "min": us[1], "max": us[2],
                     "rel_dE": de, "rel_dE_is": what, "repeats": args.repeats,
                     "cpu": common.cpu_model(), **common.versions()})
        if not args.no_record:
            common.record(SECTION, COLUMNS, [common.today(), code_, name, desc, integrator,
                                             settings, count, n_body, dt_days, steps, *us, de,
                                             what])


# ---------------------------------------------------------------- the work-precision figure

def rebound_precision(m0, bodies, label, dt_days, n, samples):
    sim, settings = one_system_sim(m0, bodies, label, dt_days)
    e0 = sim.energy()
    t, worst, chunk = 0.0, 0.0, n // samples
    for _ in range(samples):
        t += common.time_call(run_steps, sim, label, chunk)
        de = abs((sim.energy() - e0) / e0)
        worst = max(worst, de)
    return settings, t, worst, de


def orrery_precision(orrery, scenario, tmp, label, dt_days, n, samples):
    """An Orrery curve's point: the hybrid step with `changeover` (orrery-genga,
    orrery-infinity) or the Wisdom-Holman map (orrery-wh, orrery-wh+corr)."""
    name = f"wp_{label.replace('orrery-', '').replace('+', '_')}_{dt_days:g}".replace(".", "p")
    fields = dict(time_step_days=dt_days, energy_interval=n // samples, coordinates_interval=0,
                  checkpoint_interval=0)
    if label in ORRERY:
        fields["integrator"] = ORRERY[label][1]
        settings = orrery_settings(label)
    else:
        changeover = {"orrery-genga": "Genga", "orrery-infinity": "Infinity"}[label]
        fields["changeover"] = changeover
        settings = f"changeover {changeover}, n1 3, n2 0.4"
    path = scenario_copy(scenario, os.path.join(tmp, name + ".ron"), **fields)
    out = os.path.join(tmp, name)
    per_step, _, _ = orrery_run(orrery, path, out, n)
    energy = next(f for f in os.listdir(out) if f.startswith("Energy"))
    rel = np.abs(np.loadtxt(os.path.join(out, energy), ndmin=2)[1:, 9])
    return settings, per_step * n, float(rel.max()), float(rel[-1])


def work_precision(args, orrery, tmp, build):
    scenario = os.path.join(ROOT, ROWS["solar"][0])
    m0, _, bodies = snapshot(orrery, scenario, os.path.join(tmp, "wp-0"))
    points = []  # (code, integrator, settings, dt, steps, us per year, max dE, final dE)
    for dt in args.figure_dts:
        n = int(round(args.figure_years * DAYS_PER_YEAR / dt / args.figure_samples))
        n *= args.figure_samples
        years = n * dt / DAYS_PER_YEAR
        for label in args.figure_integrators:
            if label.startswith("orrery-"):
                settings, t, worst, final = orrery_precision(orrery, scenario, tmp, label,
                                                             dt, n, args.figure_samples)
                code = "orrery"
                settings += f", cpu, 1 thread, {orrery_commit()}"
            else:
                settings, t, worst, final = rebound_precision(m0, bodies, label, dt, n,
                                                              args.figure_samples)
                code = f"rebound {rebound.__version__}"
                settings += f"; {build}"
            points.append((code, label, settings, dt, years, n, t / years * 1e6, worst, final))
            common.emit({"figure": "work_precision_solar", "code": code, "integrator": label,
                         "settings": settings, "dt_days": dt, "years": years, "steps": n,
                         "us_per_year": t / years * 1e6, "max_rel_dE": worst,
                         "final_rel_dE": final, "samples": args.figure_samples})
            if not args.no_record:
                common.record(FIG_SECTION, FIG_COLUMNS, [common.today(), code, label, settings,
                                                         dt, years, n, t / years * 1e6, worst,
                                                         final])
    draw_figure(points, args)


STYLE = {
    "orrery-genga": ("Orrery hybrid, GENGA changeover", "C0", "o", "-"),
    "orrery-infinity": ("Orrery hybrid, smooth (Infinity) changeover", "C1", "s", "--"),
    "orrery-wh": ("Orrery Wisdom-Holman (Jacobi), no correctors", "C4", "D", "--"),
    "orrery-wh+corr": ("Orrery Wisdom-Holman (Jacobi), 17th-order correctors", "C9", "P", "--"),
    "whfast512": ("WHFast512, no correctors", "C3", "^", "-"),
    "whfast512+corr": ("WHFast512, 17th-order correctors", "C2", "v", "-"),
    "whfast": ("WHFast (democratic heliocentric)", "0.5", "x", ":"),
}


def draw_figure(points, args):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 6.4), dpi=120)
    for label in args.figure_integrators:
        pts = sorted((p for p in points if p[1] == label), key=lambda p: p[6])
        if not pts:
            continue
        name, color, marker, ls = STYLE[label]
        ax.plot([p[6] for p in pts], [p[7] for p in pts], ls, color=color, marker=marker,
                label=name, markerfacecolor="none" if label == "orrery-infinity" else color)
        if label in ("orrery-genga", "whfast512", "orrery-wh"):
            for p in pts:
                ax.annotate(f"{p[3]:g} d", (p[6], p[7]), textcoords="offset points",
                            xytext=(4, 4), fontsize=7, color=color)
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain = matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}")
    some = matplotlib.ticker.FuncFormatter(
        lambda v, _: f"{v:g}" if f"{v:.0e}"[0] in "25" else "")
    ax.xaxis.set_major_formatter(plain)
    ax.xaxis.set_minor_formatter(some)
    genga = sorted((p[3], p[7]) for p in points if p[1] == "orrery-genga")
    smooth = sorted((p[3], p[7]) for p in points if p[1] == "orrery-infinity")
    if genga and genga == smooth:
        fig.text(0.5, 0.01, "Orrery's two changeovers give the same energies here: "
                 "no pair of planets comes inside the changeover zone",
                 ha="center", va="bottom", fontsize=7, color="0.3")
    ax.set_xlabel("wall time per simulated year (one Earth orbit) [µs], one thread")
    ax.set_ylabel(f"max |ΔE/E| over {args.figure_years:g} yr ({args.figure_samples} samples)")
    dts = ", ".join(f"{d:g}" for d in args.figure_dts)
    ax.set_title(f"Sun + 8 planets, dt = {dts} d, {args.figure_years:g} yr: REBOUND "
                 f"{rebound.__version__}, Orrery {orrery_commit()}\n{common.cpu_model()}",
                 fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    # Below the axes: with seven curves no corner inside them is free.
    ax.legend(fontsize=7.5, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.11),
              frameon=False)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    os.makedirs(os.path.dirname(os.path.abspath(args.figure)), exist_ok=True)
    fig.savefig(args.figure)
    print(f"figure: {args.figure}", file=sys.stderr)


# ---------------------------------------------------------------- main

def floats(text):
    return [float(x) for x in text.split(",") if x]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", default=",".join(ROWS), help="comma-separated: " + ", ".join(ROWS))
    ap.add_argument("--orrery", default=os.path.join(ROOT, "target", "release", "orrery"),
                    help="the orrery binary (build with `cargo build --release`)")
    ap.add_argument("--steps", type=int, default=1_000_000, help="steps of a one-system run")
    ap.add_argument("--ensemble-steps", type=int, default=1000, help="steps of an ensemble run")
    ap.add_argument("--ensemble-systems", type=int, default=None,
                    help="systems of an ensemble (default: the .ron file's, 10^4)")
    ap.add_argument("--repeats", type=int, default=3, help="timed runs per case (median)")
    ap.add_argument("--warmup", type=int, default=10_000, help="untimed steps before one-system runs")
    ap.add_argument("--integrators", default="whfast,whfast512,whfast512+corr",
                    help="REBOUND cases: " + ", ".join(INTEGRATORS))
    ap.add_argument("--orrery-integrators", default=",".join(ORRERY),
                    help="Orrery cases of the rows: " + ", ".join(ORRERY))
    ap.add_argument("--figure", default=None,
                    help="work-precision PNG ('' for none; default "
                         "docs/figures/work_precision_solar.png, with --quick one in the temp folder)")
    ap.add_argument("--figure-dts", type=floats, default=[1, 2, 3, 5, 8], help="days, comma-separated")
    ap.add_argument("--figure-years", type=float, default=10_000.0)
    ap.add_argument("--figure-samples", type=int, default=100, help="energy samples per run")
    ap.add_argument("--figure-integrators",
                    default="orrery-genga,orrery-infinity,orrery-wh,orrery-wh+corr,whfast512,"
                            "whfast512+corr,whfast",
                    help="the figure's curves: " + ", ".join(STYLE))
    ap.add_argument("--rebound-version", default="5.2.2", help="the sdist pip downloads")
    ap.add_argument("--rebound-src", default=None,
                    help="build from this REBOUND source tree or sdist .tar.gz instead")
    ap.add_argument("--cache", default=None,
                    help="where the AVX-512 build goes (default ~/.cache/orrery-peers/rebound-<version>-avx512)")
    ap.add_argument("--rebuild", action="store_true", help="rebuild even if the cache is current")
    ap.add_argument("--use-installed", action="store_true",
                    help="use the installed rebound package instead of building one")
    ap.add_argument("--quick", action="store_true",
                    help="smoke run: 10^4 steps, 1000 systems x 100 steps, 1 repeat, short figure")
    ap.add_argument("--no-record", action="store_true", help="do not write RESULTS.md")
    args = ap.parse_args()
    if args.figure is None:
        args.figure = (os.path.join(tempfile.gettempdir(), "work_precision_solar_quick.png")
                       if args.quick else
                       os.path.join(ROOT, "docs", "figures", "work_precision_solar.png"))
    if args.quick:
        args.steps, args.ensemble_steps, args.repeats, args.warmup = 10_000, 100, 1, 1000
        args.ensemble_systems = args.ensemble_systems or 1000
        args.figure_years, args.figure_dts, args.figure_samples = 100.0, [2.0, 5.0], 20
    args.integrators = [s for s in args.integrators.split(",") if s]
    args.orrery_integrators = [s for s in args.orrery_integrators.split(",") if s]
    args.figure_integrators = [s for s in args.figure_integrators.split(",") if s]
    for labels, known in ((args.integrators, INTEGRATORS), (args.orrery_integrators, ORRERY),
                          (args.figure_integrators, STYLE)):
        for label in labels:
            if label not in known:
                raise SystemExit(f"unknown integrator {label}; expected one of {', '.join(known)}")
    rows = [r for r in args.rows.split(",") if r]
    for r in rows:
        if r not in ROWS:
            raise SystemExit(f"unknown row {r}; rows: {', '.join(ROWS)}")

    missing = avx512_flags()
    if missing is None or missing:
        why = "no /proc/cpuinfo" if missing is None else "the CPU lacks " + ", ".join(missing)
        print(f"skipped: WHFast512 needs AVX-512 (avx512f, avx512dq); {why}")
        return
    if not os.access(args.orrery, os.X_OK):
        raise SystemExit(f"no orrery binary at {args.orrery} (cargo build --release)")
    build = load_rebound(args)
    with tempfile.TemporaryDirectory() as tmp:
        # One binary for the whole run, even if target/release/orrery is rebuilt meanwhile.
        orrery = shutil.copy(args.orrery, os.path.join(tmp, "orrery"))
        for name in rows:
            run_row(name, args, orrery, tmp, build)
        if args.figure:
            work_precision(args, orrery, tmp, build)


if __name__ == "__main__":
    t0 = time.perf_counter()
    main()
    print(f"done in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
