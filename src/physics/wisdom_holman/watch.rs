//! What ends a system on the map, checked at every step's kick on the inertial positions the
//! kick uses (the middle of the step): a body leaving the truncation radii, two bodies closer
//! than their encounter distance (a number of mutual Hill radii, or a fixed distance), two
//! bodies touching. The first event of a system is kept; the driver stops the system.
//!
//! With pair limits, each drift between two kicks is also swept ([`Watch::sweep`]): every pair's
//! smallest separation over it, from the cubic Hermite interpolation of the squared separation
//! with the positions and velocities at both ends ([`crate::physics::encounter`], GENGA's
//! encounter search, as REBOUND checks its collisions within a step). Between two kicks the
//! bodies only drift, so the interpolation follows smooth motion: two bodies that pass each other
//! within a step are seen, not only those close at a kick. The event's time is when the pair
//! first crosses its limit (bisection on the interpolant), and its distance the separation
//! then. The central body's pairs and the truncation radii are checked at the kicks only.

pub use crate::physics::encounter::PairLimits;
use crate::physics::encounter::{
    first_crossing, min_separation_sq, min_separation_sq_lanes, RelativeState, SEARCH_LANES,
};

/// Three body-major arrays, one per Cartesian component.
pub type Xyz = [Vec<f64>; 3];

/// The first event that ends a system (bodies by their index in the system, the central body
/// 0), with the distance that met the limit (none for a failed drift): at the step's kick, half
/// a step before its end, for a pair where the sweep of the drift after it first crossed the
/// limit, or for a failed drift at the step's start (see [`super::WhPack::step`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LaneStop {
    /// The body came inside the inner truncation radius; its distance from the central body.
    Inner(usize, f64),
    /// The body went beyond the outer truncation radius (or its position is not finite); its
    /// distance from the central body.
    Outer(usize, f64),
    /// Bodies `i < j` came closer than their encounter distance; their distance.
    Encounter(usize, usize, f64),
    /// Bodies `i < j` touched (the sum of their radii); their distance.
    Collision(usize, usize, f64),
    /// The Kepler drift of Jacobi body `k` failed (see [`super::WhPack::step`]): a close
    /// approach the map cannot resolve left a state the solver cannot drift.
    Failed(usize, crate::physics::kepler::KeplerError),
    /// MEGNO exceeded the stop's threshold (see [`super::WhPack::stop_above_megno`]); its value.
    Chaotic(f64),
}

/// The watch of a pack of `lanes` systems.
#[derive(Debug, Clone)]
pub struct Watch {
    /// Per system, the squared truncation radii.
    inner2: Vec<f64>,
    outer2: Vec<f64>,
    /// Per body (body-major), `(m / 3 M0)^(1/3)` and the physical radius.
    hill_factor: Vec<f64>,
    radius: Vec<f64>,
    limits: PairLimits,
    /// Scratch: per body, the heliocentric distance at the last check.
    helio_r: Vec<f64>,
    /// The sweep's ends: inertial positions and velocities at the last kick (after it) and at
    /// the next one (before it), body-major.
    start: [Xyz; 2],
    end: [Xyz; 2],
    /// Scratch of the sweep: per system, whether it had no event before it.
    open: Vec<bool>,
}

/// The three components of `a`, to read.
pub(super) fn refs(a: &Xyz) -> [&[f64]; 3] {
    [&a[0], &a[1], &a[2]]
}

/// The three components of `a`, to write.
pub(super) fn muts(a: &mut Xyz) -> [&mut [f64]; 3] {
    let [x, y, z] = a;
    [x, y, z]
}

/// Three zero arrays of `len`.
pub(super) fn xyz(len: usize) -> Xyz {
    [vec![0.0; len], vec![0.0; len], vec![0.0; len]]
}

/// System `s`'s bodies of the body-major pair `(x, v)` of `lanes` systems, per body
/// `x y z vx vy vz` (the layout of a checkpoint's map state, [`super::MapState`]).
pub(super) fn body_values<'a>(
    (x, v): (&'a Xyz, &'a Xyz),
    s: usize,
    lanes: usize,
) -> impl Iterator<Item = f64> + 'a {
    let n = x[0].len() / lanes;
    (0..n).flat_map(move |k| {
        let i = k * lanes + s;
        [x[0][i], x[1][i], x[2][i], v[0][i], v[1][i], v[2][i]]
    })
}

/// Set system `s`'s bodies of the body-major pair `(x, v)` from [`body_values`]' layout.
pub(super) fn set_bodies((x, v): (&mut Xyz, &mut Xyz), s: usize, values: &[f64]) {
    let lanes = x[0].len() / (values.len() / 6).max(1);
    for (k, b) in values.chunks_exact(6).enumerate() {
        for c in 0..3 {
            x[c][k * lanes + s] = b[c];
            v[c][k * lanes + s] = b[3 + c];
        }
    }
}

/// Keep the lanes of `a` (body-major, or one value per system) that `keep` marks (one flag per
/// system of the pack), in order, in place.
pub(super) fn retain_lanes<T: Copy>(a: &mut Vec<T>, keep: &[bool]) {
    let lanes = keep.len();
    let mut kept = 0;
    for i in 0..a.len() {
        if keep[i % lanes] {
            a[kept] = a[i];
            kept += 1;
        }
    }
    a.truncate(kept);
}

/// [`retain_lanes`] of each component.
pub(super) fn retain_xyz(a: &mut Xyz, keep: &[bool]) {
    a.iter_mut().for_each(|c| retain_lanes(c, keep));
}

/// The lanes of `b` (`lb` systems; body-major, or one value per system) after those of `a`
/// (`la` systems), row by row: the values of a pack of `a`'s systems followed by `b`'s.
pub(super) fn append_lanes<T: Copy>(a: &mut Vec<T>, la: usize, b: &[T], lb: usize) {
    let rows = a.len() / la;
    assert_eq!(rows * lb, b.len(), "the same rows in both packs");
    let mut out = Vec::with_capacity(a.len() + b.len());
    for r in 0..rows {
        out.extend_from_slice(&a[r * la..(r + 1) * la]);
        out.extend_from_slice(&b[r * lb..(r + 1) * lb]);
    }
    *a = out;
}

/// [`append_lanes`] of each component.
pub(super) fn append_xyz(a: &mut Xyz, la: usize, b: &Xyz, lb: usize) {
    for (a, b) in a.iter_mut().zip(b) {
        append_lanes(a, la, b, lb);
    }
}

impl Watch {
    /// A watch of systems with truncation radii `inner[s]`, `outer[s]`, and per body (body-major,
    /// the central body first) Hill factors and physical radii, with pair limits `limits`.
    pub fn new(
        inner: &[f64],
        outer: &[f64],
        hill_factor: Vec<f64>,
        radius: Vec<f64>,
        limits: PairLimits,
    ) -> Self {
        let squares = |r: &[f64]| r.iter().map(|r| r * r).collect();
        let len = radius.len();
        Watch {
            inner2: squares(inner),
            outer2: squares(outer),
            hill_factor,
            radius,
            limits,
            helio_r: vec![0.0; len],
            start: [xyz(len), xyz(len)],
            end: [xyz(len), xyz(len)],
            open: vec![false; inner.len()],
        }
    }

    /// Keep the systems `keep` marks (see [`super::WhPack::retain_systems`]).
    pub(super) fn retain_systems(&mut self, keep: &[bool]) {
        for a in [
            &mut self.inner2,
            &mut self.outer2,
            &mut self.hill_factor,
            &mut self.radius,
            &mut self.helio_r,
        ] {
            retain_lanes(a, keep);
        }
        for a in self.start.iter_mut().chain(self.end.iter_mut()) {
            retain_xyz(a, keep);
        }
        retain_lanes(&mut self.open, keep);
    }

    /// The systems of `other` (`lb` of them, the same limits) after this watch's `la` (see
    /// [`super::WhPack::append_systems`]).
    pub(super) fn append_systems(&mut self, la: usize, other: &Watch, lb: usize) {
        assert_eq!(self.limits, other.limits, "one run's pair limits");
        let pairs = [
            (&mut self.inner2, &other.inner2),
            (&mut self.outer2, &other.outer2),
            (&mut self.hill_factor, &other.hill_factor),
            (&mut self.radius, &other.radius),
            (&mut self.helio_r, &other.helio_r),
        ];
        for (a, b) in pairs {
            append_lanes(a, la, b, lb);
        }
        let ends = self.start.iter_mut().chain(self.end.iter_mut());
        for (a, b) in ends.zip(other.start.iter().chain(other.end.iter())) {
            append_xyz(a, la, b, lb);
        }
        append_lanes(&mut self.open, la, &other.open, lb);
    }

    /// The watch as a device takes it.
    pub fn view(&self) -> super::WatchView<'_> {
        super::WatchView {
            inner2: &self.inner2,
            outer2: &self.outer2,
            hill_factor: &self.hill_factor,
            radius: &self.radius,
            limits: self.limits,
            sweeps: self.sweeps(),
        }
    }

    /// Whether drifts are swept between kicks ([`Watch::sweep`]): with pair limits, and
    /// pairs to sweep (two bodies besides the central one).
    pub fn sweeps(&self) -> bool {
        self.limits.any() && self.radius.len() >= 3 * self.open.len()
    }

    /// The start of the next sweep: the inertial positions and velocities just after a kick,
    /// to be filled by the caller (positions, velocities).
    pub fn sweep_start(&mut self) -> (&mut Xyz, &mut Xyz) {
        let [p, v] = &mut self.start;
        (p, v)
    }

    /// The end of the sweep: the inertial positions and velocities after the drift, to be
    /// filled by the caller before [`Watch::sweep`].
    pub fn sweep_end(&mut self) -> (&mut Xyz, &mut Xyz) {
        let [p, v] = &mut self.end;
        (p, v)
    }

    /// Sweep the drift of length `tau` between [`Watch::sweep_start`] and [`Watch::sweep_end`]
    /// for the systems without an event yet: each pair other than with the central body whose
    /// smallest separation over the drift falls below its collision or encounter distance (the
    /// Hill radii at the last kick) is a candidate, at the time it first crosses that distance
    /// (the earlier of the two when both are crossed; the collision on a tie, as at the kick);
    /// the earliest candidate of a system stops it, with the separation then and, in `after`,
    /// that time as a fraction of the drift.
    pub fn sweep(&mut self, tau: f64, stops: &mut [Option<LaneStop>], after: &mut [f64]) {
        for (open, stop) in self.open.iter_mut().zip(stops.iter()) {
            *open = stop.is_none();
        }
        crate::simd::dispatch(
            #[inline(always)]
            || self.sweep_pairs(tau, stops, after),
        );
    }

    /// [`Watch::sweep`]'s pairs: their smallest separations over the drift [`SEARCH_LANES`]
    /// systems at a time without branches ([`min_separation_sq_lanes`], bitwise the scalar
    /// search), and [`Watch::pair_event`] for the few below a limit.
    #[inline(always)]
    fn sweep_pairs(&self, tau: f64, stops: &mut [Option<LaneStop>], after: &mut [f64]) {
        let l = stops.len();
        let n = self.radius.len() / l;
        let ([p0, v0], [p1, v1]) = (&self.start, &self.end);
        let at =
            |a: &Xyz, i: usize, j: usize| [a[0][j] - a[0][i], a[1][j] - a[1][i], a[2][j] - a[2][i]];
        for a in 1..n {
            for b in (a + 1)..n {
                for first in (0..l).step_by(SEARCH_LANES) {
                    let group = |w: &Xyz| relative_group(w, (a, b), l, first);
                    let mins =
                        min_separation_sq_lanes(group(p0), group(v0), group(p1), group(v1), tau);
                    for (k, &r2) in mins.iter().enumerate().take(l - first) {
                        let s = first + k;
                        let (i, j) = (a * l + s, b * l + s);
                        if !self.open[s] || !self.below_a_limit(i, j, r2) {
                            continue;
                        }
                        let start = (at(p0, i, j), at(v0, i, j));
                        let end = (at(p1, i, j), at(v1, i, j));
                        let Some((t, event)) = self.pair_event((a, b), (i, j), (start, end), tau)
                        else {
                            continue;
                        };
                        if stops[s].is_none() || t < after[s] {
                            stops[s] = Some(event);
                            after[s] = t;
                        }
                    }
                }
            }
        }
    }

    /// The pair limits of slots `(i, j)`: their collision distance (0 without the collision
    /// stop) and their encounter distance.
    #[inline(always)]
    fn pair_limits(&self, i: usize, j: usize) -> (f64, f64) {
        let limits = self.limits;
        let touch = match limits.collision {
            true => self.radius[i] + self.radius[j],
            false => 0.0,
        };
        let hill = self.hill_factor[i] * self.helio_r[i] + self.hill_factor[j] * self.helio_r[j];
        (touch, limits.encounter_distance(hill))
    }

    /// Whether the squared separation `r2` of slots `(i, j)` lies below one of their limits.
    #[inline(always)]
    fn below_a_limit(&self, i: usize, j: usize, r2: f64) -> bool {
        let (touch, encounter) = self.pair_limits(i, j);
        r2 < touch * touch || r2 < encounter * encounter
    }

    /// The first event of the pair `(a, b)` (body-major slots `(i, j)`) over a drift of length
    /// `tau` with relative states `start` and `end`, if its smallest separation falls below its
    /// collision or encounter distance: the fraction of the drift at which it first crosses,
    /// and the event with the separation then.
    fn pair_event(
        &self,
        (a, b): (usize, usize),
        (i, j): (usize, usize),
        (start, end): (RelativeState, RelativeState),
        tau: f64,
    ) -> Option<(f64, LaneStop)> {
        let (r2, t_min) = min_separation_sq(start.0, start.1, end.0, end.1, tau);
        let (touch, encounter) = self.pair_limits(i, j);
        let crossing = |limit: f64| first_crossing(start, end, tau, limit * limit, t_min);
        let collision = (r2 < touch * touch).then(|| crossing(touch));
        let close = (r2 < encounter * encounter).then(|| crossing(encounter));
        match (collision, close) {
            (Some((tc, pc)), Some((te, _))) if tc <= te => {
                Some((tc, LaneStop::Collision(a, b, pc.sqrt())))
            }
            (_, Some((te, pe))) => Some((te, LaneStop::Encounter(a, b, pe.sqrt()))),
            (Some((tc, pc)), None) => Some((tc, LaneStop::Collision(a, b, pc.sqrt()))),
            (None, None) => None,
        }
    }

    /// Check the inertial positions `p` (body-major) and note in `stops` each system's first
    /// event. A pass without branches over every body (in the vector lanes) finds whether any
    /// body is outside its truncation radii or touches the central body; only then are the
    /// systems checked one by one ([`Watch::check_bodies`], the same arithmetic).
    pub fn check(&mut self, p: &Xyz, stops: &mut [Option<LaneStop>]) {
        let l = stops.len();
        let limits = self.limits;
        let pairs = limits.any();
        let radii = (&self.inner2[..l], &self.outer2[..l], &self.radius[..]);
        let alarm = match l {
            1 => one_system_alarm(p, radii, &mut self.helio_r, limits),
            _ => packed_alarm(p, l, radii, &mut self.helio_r, limits),
        };
        if alarm {
            self.check_bodies(p, stops);
        }
        if pairs {
            self.check_pairs(p, stops);
        }
    }

    /// Each system's bodies against its truncation radii and (with `collision`) the central
    /// body's radius, one system at a time, noting each system's first event.
    fn check_bodies(&mut self, p: &Xyz, stops: &mut [Option<LaneStop>]) {
        let l = stops.len();
        let n = p[0].len() / l;
        let limits = self.limits;
        let pairs = limits.any();
        for k in 1..n {
            for s in 0..l {
                let i = k * l + s;
                let d = [p[0][i] - p[0][s], p[1][i] - p[1][s], p[2][i] - p[2][s]];
                let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                if pairs {
                    self.helio_r[i] = r2.sqrt();
                }
                if stops[s].is_some() {
                    continue;
                }
                if !(r2 >= self.inner2[s] && r2 <= self.outer2[s]) {
                    stops[s] = Some(match r2 < self.inner2[s] {
                        true => LaneStop::Inner(k, r2.sqrt()),
                        false => LaneStop::Outer(k, r2.sqrt()),
                    });
                } else if limits.collision && self.helio_r[i] < self.radius[s] + self.radius[i] {
                    stops[s] = Some(LaneStop::Collision(0, k, self.helio_r[i]));
                }
            }
        }
    }

    /// The pairs of bodies other than the central one against the encounter and collision
    /// limits.
    fn check_pairs(&self, p: &Xyz, stops: &mut [Option<LaneStop>]) {
        let l = stops.len();
        let n = p[0].len() / l;
        let limits = self.limits;
        for a in 1..n {
            for b in (a + 1)..n {
                for (s, stop) in stops.iter_mut().enumerate() {
                    let (i, j) = (a * l + s, b * l + s);
                    let d = [p[0][j] - p[0][i], p[1][j] - p[1][i], p[2][j] - p[2][i]];
                    let r = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
                    let hill = self.hill_factor[i] * self.helio_r[i]
                        + self.hill_factor[j] * self.helio_r[j];
                    let encounter = limits.encounter_distance(hill);
                    if stop.is_some() {
                        continue;
                    }
                    if limits.collision && r < self.radius[i] + self.radius[j] {
                        *stop = Some(LaneStop::Collision(a, b, r));
                    } else if r < encounter {
                        *stop = Some(LaneStop::Encounter(a, b, r));
                    }
                }
            }
        }
    }
}

/// [`Watch::check`]'s branch-free pass over `l` systems (body-major positions `p`, their inner
/// and outer squared radii and every body's radius) in the vector lanes: whether any body is
/// outside its system's radii or (with `collision`) touches its central body. With the pair
/// limits, the heliocentric distances go into `helio_r` (a square root per body and step).
fn packed_alarm(
    p: &Xyz,
    l: usize,
    (inner2, outer2, radii): (&[f64], &[f64], &[f64]),
    helio_r: &mut [f64],
    limits: PairLimits,
) -> bool {
    let n = p[0].len() / l;
    let pairs = limits.any();
    let central = &radii[..l];
    let (cx, cy, cz) = (&p[0][..l], &p[1][..l], &p[2][..l]);
    crate::simd::dispatch_sized(
        n * l,
        #[inline(always)]
        || {
            let mut alarm = 0u32;
            for k in 1..n {
                let at = k * l..(k + 1) * l;
                let (bx, by, bz) = (&p[0][at.clone()], &p[1][at.clone()], &p[2][at.clone()]);
                let r2 = |s: usize| {
                    let d = [bx[s] - cx[s], by[s] - cy[s], bz[s] - cz[s]];
                    d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
                };
                let helio = &mut helio_r[at.clone()];
                if pairs {
                    (0..l).for_each(|s| helio[s] = r2(s).sqrt());
                }
                let radius = &radii[at];
                for s in 0..l {
                    let r2 = r2(s);
                    let outside = !((r2 >= inner2[s]) & (r2 <= outer2[s]));
                    let touching = limits.collision & (helio[s] < central[s] + radius[s]);
                    alarm |= (outside | touching) as u32;
                }
            }
            alarm != 0
        },
    )
}

/// [`Watch::check`]'s branch-free pass for one system alone (bodies at `p`, its inner and
/// outer squared radii and its bodies' radii): [`packed_alarm`]'s arithmetic in a straight loop
/// over the bodies (the lane pass cuts every body's slices, 12 % of a 9-body step): whether any
/// body is outside the radii or (with `collision`) touches the central body. With the pair
/// limits, the heliocentric distances go into `helio_r`.
fn one_system_alarm(
    p: &Xyz,
    (inner2, outer2, radius): (&[f64], &[f64], &[f64]),
    helio_r: &mut [f64],
    limits: PairLimits,
) -> bool {
    let n = p[0].len();
    let (inner2, outer2, central) = (inner2[0], outer2[0], radius[0]);
    let (x, y, z) = (&p[0][..n], &p[1][..n], &p[2][..n]);
    let (radius, helio_r) = (&radius[..n], &mut helio_r[..n]);
    let pairs = limits.any();
    let mut alarm = false;
    for k in 1..n {
        let d = [x[k] - x[0], y[k] - y[0], z[k] - z[0]];
        let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        if pairs {
            helio_r[k] = r2.sqrt();
        }
        let outside = !((r2 >= inner2) & (r2 <= outer2));
        let touching = limits.collision & (helio_r[k] < central + radius[k]);
        alarm |= outside | touching;
    }
    alarm
}

/// Body b's vectors relative to body a's (`w_b - w_a`, each of `l` systems body-major) in the
/// [`SEARCH_LANES`] systems from `first` on, a short last group repeating its last system.
#[inline(always)]
fn relative_group(
    w: &Xyz,
    (a, b): (usize, usize),
    l: usize,
    first: usize,
) -> [[f64; SEARCH_LANES]; 3] {
    let mut out = [[0.0; SEARCH_LANES]; 3];
    for (c, out) in out.iter_mut().enumerate() {
        for (k, o) in out.iter_mut().enumerate() {
            let s = (first + k).min(l - 1);
            *o = w[c][b * l + s] - w[c][a * l + s];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The check's branch-free pass hands every system with an event to the per-system check:
    /// for each kind of event (inside the inner radius, beyond the outer, touching the central
    /// body, a position that is not finite), in one lane of 19 at a time and in one system
    /// alone, with and without the pair limits, the stops are those of the per-system check
    /// alone.
    #[test]
    fn the_quick_pass_misses_no_event_of_the_bodies() {
        for l in [19, 1] {
            quick_pass_misses_no_event_of_the_bodies(l);
        }
    }

    /// [`the_quick_pass_misses_no_event_of_the_bodies`] for `l` systems (19: the lanes; 1: the
    /// pass of one system alone).
    fn quick_pass_misses_no_event_of_the_bodies(l: usize) {
        let n = 4;
        let kinds: [fn(&mut [f64; 3]); 5] = [
            |_| {},
            |p| *p = [0.0005, 0.0, 0.0],
            |p| p[1] = 50.0,
            |p| *p = [0.004, 0.0, 0.0],
            |p| p[2] = f64::NAN,
        ];
        for limits in [
            PairLimits::default(),
            PairLimits {
                hill_radii: 1.0,
                min_distance: 0.0,
                collision: true,
            },
        ] {
            for (k, edit) in kinds.iter().enumerate() {
                let lanes = match l {
                    1 => vec![0],
                    _ => vec![0, 7, l - 1],
                };
                for lane in lanes {
                    let mut p: Xyz = xyz(n * l);
                    for b in 1..n {
                        for s in 0..l {
                            let i = b * l + s;
                            let r = 1.0 + b as f64 + 0.01 * s as f64;
                            let phi = 0.7 * b as f64 + 0.1 * s as f64;
                            (p[0][i], p[1][i], p[2][i]) = (r * phi.cos(), r * phi.sin(), 0.01);
                        }
                    }
                    let i = 2 * l + lane;
                    let mut body = [p[0][i], p[1][i], p[2][i]];
                    edit(&mut body);
                    (p[0][i], p[1][i], p[2][i]) = (body[0], body[1], body[2]);
                    let radius = (0..n * l)
                        .map(|i| if i < l { 0.005 } else { 1e-5 })
                        .collect();
                    let watch = Watch::new(
                        &vec![0.001; l],
                        &vec![40.0; l],
                        vec![1e-3; n * l],
                        radius,
                        limits,
                    );
                    let (mut quick, mut slow) = (watch.clone(), watch);
                    let (mut got, mut want) = (vec![None; l], vec![None; l]);
                    quick.check(&p, &mut got);
                    slow.check_bodies(&p, &mut want);
                    if limits.any() {
                        slow.check_pairs(&p, &mut want);
                    }
                    assert_eq!(
                        format!("{got:?}"),
                        format!("{want:?}"),
                        "kind {k}, lane {lane}"
                    );
                    let events = got.iter().filter(|s| s.is_some()).count();
                    let expected = match (k, limits.collision) {
                        (0, _) | (3, false) => 0,
                        _ => 1,
                    };
                    assert_eq!(events, expected, "kind {k}, lane {lane}: {got:?}");
                }
            }
        }
    }
}
