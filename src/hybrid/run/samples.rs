//! Each system's sampled time series (scenario field `samples`, [`crate::config::samples`]):
//! when a system is due, its elements, MEGNO, closest pair and energy error are appended to its
//! records, which checkpoints keep and `Samples<name>.npz` holds ([`crate::io::samples`]).

use super::*;
use crate::config::samples::{SampleSettings, Sampled};
use crate::io::samples::{self as file, Array, Layout};
use crate::physics::changeover::hill_factor_of;
use crate::physics::wisdom_holman::jacobi::{to_jacobi, Masses};
use rayon::prelude::*;

/// A sampled body's elements, in record order (angles in radians, the period in years).
const ELEMENTS: [&str; 9] = [
    "a",
    "e",
    "inc",
    "node",
    "peri",
    "pomega",
    "mean_anomaly",
    "mean_longitude",
    "period",
];

/// The run's sampling: each system's cadence and records.
pub(super) struct Sampler {
    settings: SampleSettings,
    /// Steps between two samples, per system.
    every: Vec<u64>,
    /// The names of the system's values and of each body slot's values, in record order.
    system: Vec<&'static str>,
    body: Vec<String>,
    /// Body slots per record: the most bodies a system starts with.
    slots: usize,
    /// Each system's records, one after another.
    records: Vec<Vec<f64>>,
    /// The next step at which some system is due.
    next: u64,
}

/// `angle` in [0, 2π).
fn wrap(angle: f64) -> f64 {
    angle.rem_euclid(std::f64::consts::TAU)
}

/// The elements of a body at `pos`, `vel` about a mass `mu` (code units), in [`ELEMENTS`]'
/// order: with the longitude of pericentre `node + peri`, the mean longitude `pomega + M` and
/// the period `2π sqrt(a³ / mu)` in years (NaN when unbound).
fn elements_row(mu: f64, pos: [f64; 3], vel: [f64; 3]) -> [f64; 9] {
    let el = elements_from_cartesian(mu, pos, vel);
    let pomega = wrap(el.node + el.peri);
    let period = if el.a > 0.0 {
        units::code_to_years(std::f64::consts::TAU * (el.a * el.a * el.a / mu).sqrt())
    } else {
        f64::NAN
    };
    let lambda = wrap(pomega + el.mean_anomaly);
    [
        el.a,
        el.e,
        el.inc,
        el.node,
        el.peri,
        pomega,
        el.mean_anomaly,
        lambda,
        period,
    ]
}

/// Each body's Jacobi position and velocity (heliocentric `bodies` about `m0`; the transform
/// does not depend on the frame's origin or drift), and the interior mass `eta_k` of its orbit.
fn jacobi(bodies: &[Body], m0: f64) -> Vec<(f64, [f64; 3], [f64; 3])> {
    let n = bodies.len() + 1;
    let m: Vec<f64> = std::iter::once(m0)
        .chain(bodies.iter().map(|b| b.m))
        .collect();
    let masses = Masses::new(&m, 1);
    // Positions then velocities, a component after another, the central body at the origin.
    let mut w = vec![0.0; 6 * n];
    for (k, b) in bodies.iter().enumerate() {
        for c in 0..3 {
            w[c * n + k + 1] = b.pos[c];
            w[(3 + c) * n + k + 1] = b.vel[c];
        }
    }
    let mut j = vec![0.0; 6 * n];
    for (w, j) in w.chunks_exact(3 * n).zip(j.chunks_exact_mut(3 * n)) {
        let [w0, w1, w2] = [&w[..n], &w[n..2 * n], &w[2 * n..]];
        let (j0, rest) = j.split_at_mut(n);
        let (j1, j2) = rest.split_at_mut(n);
        to_jacobi(&masses, [w0, w1, w2], [j0, j1, j2]);
    }
    let at = |c: usize, k: usize| j[c * n + k];
    (1..n)
        .map(|k| {
            let x = [at(0, k), at(1, k), at(2, k)];
            (masses.eta[k], x, [at(3, k), at(4, k), at(5, k)])
        })
        .collect()
}

/// The smallest distance between two of `bodies` (AU), and the smallest in mutual Hill radii
/// (`R_H,i + R_H,j`, each `r (m / 3 M0)^{1/3}` at its heliocentric distance, as the Hill stop
/// counts them); NaN with fewer than two bodies.
fn closest(bodies: &[Body], m0: f64) -> (f64, f64) {
    let (mut d_min, mut hill_min) = (f64::NAN, f64::NAN);
    for (i, a) in bodies.iter().enumerate() {
        for b in &bodies[i + 1..] {
            let d = norm([
                a.pos[0] - b.pos[0],
                a.pos[1] - b.pos[1],
                a.pos[2] - b.pos[2],
            ]);
            let hill =
                hill_factor_of(a.m, m0) * norm(a.pos) + hill_factor_of(b.m, m0) * norm(b.pos);
            d_min = d_min.min(d);
            if hill > 0.0 {
                hill_min = hill_min.min(d / hill);
            }
        }
    }
    (d_min, hill_min)
}

impl Sampler {
    /// The next step at which some system may be due (the run loop reads the systems there).
    pub(super) fn next_due(&self) -> u64 {
        self.next
    }

    /// The sampling of `setup` (`None` without `samples`): each system's cadence and the body
    /// slots, from the initial bodies (before the start hands them to the backend).
    pub(super) fn new(setup: &RunSetup) -> Result<Option<Self>> {
        let settings = setup.cfg.samples.clone();
        if !settings.on() {
            return Ok(None);
        }
        let mut every = Vec::with_capacity(setup.sims.len());
        for sim in &setup.sims {
            // A start from a checkpoint alone (no initial bodies) takes the cadence from it.
            if sim.bodies.is_empty() {
                every.push(0);
                continue;
            }
            let k = settings
                .interval_steps(sim.time_step_days, sim.spec.m0, &sim.bodies)
                .ok_or_else(|| {
                    Error::input(
                        Location::default().field("samples.every"),
                        format!(
                            "simulation `{}` has no bound orbit to count orbits of; expected \
                             Years(x) or Steps(n)",
                            sim.name
                        ),
                    )
                })?;
            every.push(k);
        }
        let mut system = Vec::new();
        let mut body = Vec::new();
        for k in &settings.what {
            match k {
                Sampled::Megno => system.extend(["megno", "lyapunov"]),
                Sampled::MinDistance => system.extend(["min_distance", "min_distance_hill"]),
                Sampled::Energy => system.push("energy_error"),
                Sampled::Elements => body.extend(ELEMENTS.map(String::from)),
                Sampled::JacobiElements => body.extend(ELEMENTS.map(|e| format!("jacobi_{e}"))),
            }
        }
        if !body.is_empty() {
            body.insert(0, "id".into());
        }
        let slots = setup.sims.iter().map(|s| s.bodies.len()).max().unwrap_or(0);
        let sampler = Sampler {
            settings,
            every,
            system,
            body,
            slots,
            records: vec![Vec::new(); setup.sims.len()],
            next: 0,
        };
        sampler.check_memory(setup.cfg.steps, memory_available())?;
        Ok(Some(sampler))
    }

    /// Refuse samples that would not fit in `available` bytes of memory (when known) by the
    /// run's last step `steps` (none for a run without an end, `u64::MAX`: Python's
    /// in-memory runs): the records stay in memory for the whole run, and writing them (a
    /// checkpoint, the npz) takes a second copy, so twice the records must stay under 80 % of
    /// what is available; a run killed for its memory would lose them all. Systems whose
    /// cadence a checkpoint will give (0 here) are not counted.
    fn check_memory(&self, steps: u64, available: Option<u64>) -> Result<()> {
        let Some(available) = available.filter(|_| steps != u64::MAX) else {
            return Ok(());
        };
        let per_record = 8 * self.layout().record_len() as u64;
        let records = (self.every.iter().filter(|&&k| k > 0))
            .fold(0u64, |sum, &k| sum.saturating_add(steps / k + 1));
        let bytes = records.saturating_mul(per_record);
        if bytes.saturating_mul(2) <= available / 10 * 8 {
            return Ok(());
        }
        let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
        Err(Error::input(
            Location::default().field("samples.every"),
            format!(
                "{records} samples of {} values would hold {:.1} GiB in memory by the last step \
                 (twice that while they are written), more than 80 % of the {:.1} GiB \
                 available; expected a longer interval, fewer `what` or fewer systems",
                per_record / 8,
                gib(bytes),
                gib(available)
            ),
        ))
    }

    /// Take back the cadence, body slots and records a checkpoint kept ([`Sampler::states`]).
    pub(super) fn restore(&mut self, restored: checkpoint::MapStates) -> Result<()> {
        let mismatch = || {
            Error::run(
                "the checkpoint's samples do not match the run's `samples`; expected the \
                 settings the run started with",
            )
        };
        for (s, values) in restored {
            let (&[every, slots], records) = values.split_first_chunk().ok_or_else(mismatch)?;
            self.slots = slots as usize;
            if s >= self.records.len()
                || every < 1.0
                || records.len() % self.layout().record_len() != 0
            {
                return Err(mismatch());
            }
            self.every[s] = every as u64;
            self.records[s] = records.to_vec();
        }
        if let Some(s) = self.every.iter().position(|&k| k == 0) {
            return Err(Error::input(
                Location::default().field("samples"),
                format!("system {s} has no bodies to sample; expected at least one body"),
            ));
        }
        Ok(())
    }

    fn layout(&self) -> Layout<'_> {
        Layout {
            system: &self.system,
            body: &self.body,
            slots: self.slots,
        }
    }

    /// Whether system `s` is due at `step`.
    fn due(&self, s: usize, step: u64) -> bool {
        step.is_multiple_of(self.every[s])
    }

    /// The next step after `step` at which a running system is due.
    fn next_after(&self, step: u64, running: impl Fn(usize) -> bool) -> u64 {
        (0..self.every.len())
            .filter(|&s| running(s))
            .map(|s| (step / self.every[s] + 1) * self.every[s])
            .min()
            .unwrap_or(u64::MAX)
    }

    /// The records as a checkpoint keeps them: per system its cadence (steps), the body slots,
    /// then its records.
    pub(super) fn states(&self) -> Vec<(usize, Vec<f64>)> {
        let head = |s: usize| [self.every[s] as f64, self.slots as f64];
        (0..self.records.len())
            .map(|s| (s, [&head(s)[..], &self.records[s]].concat()))
            .collect()
    }

    /// The arrays of every system's samples (their indices `systems`).
    pub(super) fn arrays(&self, systems: &[usize]) -> Vec<Array> {
        let records: Vec<&[f64]> = self.records.iter().map(Vec::as_slice).collect();
        self.layout().arrays(systems, &records)
    }

    /// One record at `step` (`years`) of a system: its heliocentric `bodies` about `m0`, its
    /// MEGNO and Lyapunov exponent, and its relative energy error.
    fn record(&self, (step, years): (u64, f64), due: &Due) -> Vec<f64> {
        let (bodies, m0) = (&due.bodies[..], due.m0);
        let (chaos, energy_error) = (due.chaos, due.energy_error);
        let mut rec = Vec::with_capacity(self.layout().record_len());
        rec.push(step as f64);
        rec.push(years);
        let (d, hill) = if self.settings.has(Sampled::MinDistance) {
            closest(bodies, m0)
        } else {
            (f64::NAN, f64::NAN)
        };
        for name in &self.system {
            rec.push(match *name {
                "megno" => chaos.map_or(f64::NAN, |c| c.0),
                "lyapunov" => chaos.map_or(f64::NAN, |c| c.1),
                "min_distance" => d,
                "min_distance_hill" => hill,
                _ => energy_error,
            });
        }
        if self.body.is_empty() {
            return rec;
        }
        let jac = self
            .settings
            .has(Sampled::JacobiElements)
            .then(|| jacobi(bodies, m0));
        for slot in 0..self.slots {
            let Some(b) = bodies.get(slot) else {
                rec.extend(std::iter::repeat_n(f64::NAN, self.body.len()));
                continue;
            };
            rec.push(b.id as f64);
            for k in &self.settings.what {
                match k {
                    Sampled::Elements => rec.extend(elements_row(m0 + b.m, b.pos, b.vel)),
                    Sampled::JacobiElements => {
                        let (mu, x, v) =
                            jac.as_ref().map_or((0.0, [0.0; 3], [0.0; 3]), |j| j[slot]);
                        rec.extend(elements_row(mu, x, v));
                    }
                    _ => {}
                }
            }
        }
        rec
    }
}

/// What one system due for a sample hands to [`Sampler::record`].
struct Due {
    s: usize,
    bodies: Vec<Body>,
    m0: f64,
    years: f64,
    chaos: Option<(f64, f64)>,
    energy_error: f64,
}

impl Driver {
    /// Sample the running systems due at `step` (all of them at a fresh start), if any are.
    pub(super) fn take_samples(&mut self, step: u64) -> Result<()> {
        let Some(sampler) = &self.samples else {
            return Ok(());
        };
        if step < sampler.next {
            return Ok(());
        }
        let running = |d: &Driver, s: usize| !d.sims[s].stopped;
        let due: Vec<usize> = (0..self.sims.len())
            .filter(|&s| running(self, s) && sampler.due(s, step))
            .collect();
        let (megno, energy) = (
            sampler.settings.has(Sampled::Megno),
            sampler.settings.has(Sampled::Energy),
        );
        if !due.is_empty() {
            // Systems with cadences of their own are seldom due together: bring only those
            // over, unless most are.
            let running_now = (0..self.sims.len()).filter(|&s| running(self, s)).count();
            if 4 * due.len() >= running_now {
                self.sync()?;
            } else {
                self.sync_systems(&due)?;
            }
            let chaos = if megno { self.chaos() } else { None };
            let energies = self.energies(energy);
            let due: Vec<Due> = due
                .into_iter()
                .map(|s| Due {
                    s,
                    energy_error: energies.get(s).map_or(f64::NAN, |e| self.errors(s, e).0),
                    bodies: self.bodies_now(s),
                    m0: self.setup.sims[s].spec.m0,
                    years: self.time_years(s, step),
                    chaos: chaos.as_ref().and_then(|c| c[s]),
                })
                .collect();
            // The records in parallel (the run's threads), each system's its own arithmetic.
            if let Some(p) = &mut self.samples {
                let records: Vec<Vec<f64>> = due
                    .par_iter()
                    .map(|d| p.record((step, d.years), d))
                    .collect();
                for (d, record) in due.iter().zip(records) {
                    p.records[d.s].extend(record);
                }
            }
        }
        let next = self
            .samples
            .as_ref()
            .map_or(u64::MAX, |p| p.next_after(step, |s| running(self, s)));
        if let Some(p) = &mut self.samples {
            p.next = next;
        }
        Ok(())
    }

    /// Write the samples so far to `Samples<name>.npz` (a run with files).
    pub(super) fn write_samples(&self) -> Result<()> {
        let Some(sampler) = &self.samples else {
            return Ok(());
        };
        if !self.setup.has_files() {
            return Ok(());
        }
        let systems: Vec<usize> = self.setup.sims.iter().map(|s| s.index).collect();
        let path = file::samples_path(&self.setup.checkpoint_dir, &self.setup.checkpoint_name);
        file::write_npz(&path, &sampler.arrays(&systems))
    }
}

/// The memory the system says is available to a new allocation (`MemAvailable` of
/// `/proc/meminfo`, Linux), `None` where it does not say.
fn memory_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
