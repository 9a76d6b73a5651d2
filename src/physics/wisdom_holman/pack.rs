//! Systems of one body count stepped side by side on the Wisdom-Holman map (see the module
//! docs): body-major arrays, the loops over systems innermost.

use super::kick::{kick_bodies, MapTerm};
use super::pairs::pair_accelerations;
use super::potential::CentralPotential;
use super::variational::Variations;
use super::{correctors, jacobi, one_system, States, SystemRef, WhError};
use crate::physics::forces::Forces;
use crate::physics::kepler::{drift_batch_per_body_into, drift_with_tangent, KeplerError};
use rayon::prelude::*;

use super::watch::{
    append_lanes, append_xyz, body_values, muts, refs, retain_lanes, retain_xyz, set_bodies, xyz,
    LaneStop, Watch, Xyz,
};

/// Systems of one body count on the Wisdom-Holman map with one time step and corrector order.
#[derive(Debug, Clone)]
pub struct WhPack {
    /// Masses, body-major, with the systems side by side (the lanes); `eta_k` and its inverse
    /// are the drifts' central masses.
    pub(super) ms: jacobi::Masses,
    /// Jacobi positions (slot 0: the centre of mass), half a drift ahead of the step's end.
    pub(super) x: Xyz,
    /// Jacobi velocities.
    pub(super) v: Xyz,
    /// Scratch of the kick: inertial positions, then Jacobi accelerations, then (after
    /// [`WhPack::drift_into`], which writes the positions apart and swaps) the positions before
    /// the drift; accelerations, then (after [`WhPack::kick`], likewise) the velocities before
    /// the kick. A system whose drift failed goes back to those two.
    scratch: Xyz,
    acc: Xyz,
    /// The drift failures of the last drift: (lane, Jacobi body, reason), in the order of the
    /// body-major arrays.
    failed: Vec<(usize, usize, KeplerError)>,
    pub(super) dt: f64,
    correctors: u8,
    pub(super) steps: u64,
    /// What ends a system, checked at every step's kick and swept over its drift
    /// ([`WhPack::set_watch`]).
    pub(super) watch: Option<Watch>,
    /// Per system, the first event that ends it ([`WhPack::stops`]), and when in its step.
    pub(super) stops: Vec<Option<LaneStop>>,
    pub(super) stop_after: Vec<f64>,
    /// Per system, whether its state is a step behind the pack's: its last step's drift failed
    /// and it went back to the step's start ([`WhPack::behind`]).
    pub(super) behind: Vec<bool>,
    /// The central body's GR potential and J2, when on.
    pub(super) potential: Option<CentralPotential>,
    /// The systems' tangent vectors and MEGNO sums, when on ([`WhPack::set_variations`]).
    pub(super) variations: Option<Variations>,
}

/// A pack's state between steps, as a checkpoint keeps it: the steps taken and each system's
/// Jacobi positions and velocities (half a drift ahead, corrected), per body `x y z vx vy vz`,
/// followed, with variations on, by its Jacobi tangent vector (per body `dx dy dz dvx dvy
/// dvz`) and the 9 values of its MEGNO sums ([`super::MegnoSums::values`]): `6 n` or
/// `12 n + 9` values per system of `n` bodies.
pub type MapState = (u64, Vec<Vec<f64>>);

impl WhPack {
    /// Systems `(masses, positions, velocities)` (inertial or heliocentric, body 0 the central
    /// body), all with the same number of bodies, at time 0, stepped with `dt` and corrector
    /// order `correctors` (0 for none), point-mass gravity only.
    pub fn new(systems: &[SystemRef<'_>], dt: f64, correctors: u8) -> Result<Self, WhError> {
        Self::with_forces(systems, (dt, correctors), &Forces::default())
    }

    /// [`WhPack::new`] with the central body's potential forces of `forces` in the kick (GR's
    /// potential and J2; see [`CentralPotential`]); its other forces must be off.
    pub fn with_forces(
        systems: &[SystemRef<'_>],
        (dt, correctors): (f64, u8),
        forces: &Forces,
    ) -> Result<Self, WhError> {
        correctors::coefficients(correctors).ok_or(WhError::CorrectorOrder(correctors))?;
        if !(dt != 0.0 && dt.is_finite()) {
            return Err(WhError::Input(format!(
                "time step {dt} (expected a finite non-zero number)"
            )));
        }
        let lanes = systems.len();
        let n = systems.first().map_or(0, |s| s.0.len());
        if lanes == 0 {
            return Err(WhError::Input("no systems (expected at least one)".into()));
        }
        let mut m = vec![0.0; n * lanes];
        let (mut pos, mut vel) = (xyz(n * lanes), xyz(n * lanes));
        for (s, &(ms, ps, vs)) in systems.iter().enumerate() {
            check_system(s, n, ms, ps, vs)?;
            for k in 0..n {
                let i = k * lanes + s;
                m[i] = ms[k];
                for c in 0..3 {
                    pos[c][i] = ps[k][c];
                    vel[c][i] = vs[k][c];
                }
            }
        }
        let mut pack = WhPack::empty(jacobi::Masses::new(&m, lanes), dt, correctors);
        pack.set_forces(forces)?;
        jacobi::to_jacobi(&pack.ms, refs(&pos), muts(&mut pack.x));
        jacobi::to_jacobi(&pack.ms, refs(&vel), muts(&mut pack.v));
        pack.correct(1.0)?;
        pack.drift(0.5 * dt)?;
        Ok(pack)
    }

    /// Systems of masses `masses` (one list per system, the central body first) in the map
    /// state `state` ([`WhPack::map_state`] of the same systems, in any packs, with the same
    /// `forces`): the pack continues bit for bit where those systems were.
    pub fn from_map_state(
        masses: &[&[f64]],
        state: &MapState,
        (dt, correctors): (f64, u8),
        forces: &Forces,
    ) -> Result<Self, WhError> {
        correctors::coefficients(correctors).ok_or(WhError::CorrectorOrder(correctors))?;
        let lanes = masses.len();
        let n = masses.first().map_or(0, |m| m.len());
        let fits = lanes > 0 && n >= 2 && state.1.len() == lanes;
        // With variations, every system's state carries its tangent vector and MEGNO sums.
        let varied = state.1.first().is_some_and(|x| x.len() == 12 * n + 9);
        let len = if varied { 12 * n + 9 } else { 6 * n };
        if !fits
            || masses
                .iter()
                .zip(&state.1)
                .any(|(m, x)| m.len() != n || x.len() != len)
        {
            return Err(WhError::Input(format!(
                "a map state of {} systems for {lanes} systems of {n} bodies (expected 6 values \
                 per body of every system, then 6 per body and 9 MEGNO sums with variations)",
                state.1.len()
            )));
        }
        let mut m = vec![0.0; n * lanes];
        for (s, ms) in masses.iter().enumerate() {
            check_masses(s, ms)?;
            for k in 0..n {
                m[k * lanes + s] = ms[k];
            }
        }
        let mut pack = WhPack::empty(jacobi::Masses::new(&m, lanes), dt, correctors);
        pack.set_forces(forces)?;
        if varied {
            pack.variations = Some(Variations::new(&vec![0; lanes], n));
        }
        for (s, values) in state.1.iter().enumerate() {
            set_bodies((&mut pack.x, &mut pack.v), s, &values[..6 * n]);
            if let Some(var) = &mut pack.variations {
                if !var.set_system(s, &values[6 * n..]) {
                    return Err(WhError::Input(format!(
                        "system {s}: MEGNO sums with a count that is not a whole number"
                    )));
                }
            }
        }
        pack.steps = state.0;
        Ok(pack)
    }

    /// A pack of the systems of masses `ms` with every state zero.
    fn empty(ms: jacobi::Masses, dt: f64, correctors: u8) -> WhPack {
        let len = ms.m.len();
        WhPack {
            stops: vec![None; ms.lanes],
            stop_after: vec![0.0; ms.lanes],
            behind: vec![false; ms.lanes],
            ms,
            x: xyz(len),
            v: xyz(len),
            scratch: xyz(len),
            acc: xyz(len),
            failed: Vec::new(),
            dt,
            correctors,
            steps: 0,
            watch: None,
            potential: None,
            variations: None,
        }
    }

    /// Kick with the potential forces of `forces` (GR and J2), refusing the others.
    fn set_forces(&mut self, forces: &Forces) -> Result<(), WhError> {
        if forces.has_radiation() || forces.has_tides() {
            return Err(WhError::Input(
                "forces other than GR's potential and J2 (expected those two at most: the map's \
                 kick takes forces of the positions only)"
                    .into(),
            ));
        }
        self.potential = CentralPotential::new(forces, &self.ms.m, self.ms.lanes);
        Ok(())
    }

    /// Per system, the angular momentum J2's kicks (steps, and the corrector applied at the
    /// start) gave the bodies since the last call (all zero without J2).
    pub fn take_torque(&mut self) -> Vec<[f64; 3]> {
        let mut out = vec![[0.0; 3]; self.ms.lanes];
        self.drain_torque(|s, t| out[s] = t);
        out
    }

    /// [`WhPack::take_torque`] handed to `book` (lane, tally), allocation-free; nothing without
    /// J2.
    pub fn drain_torque(&mut self, book: impl FnMut(usize, [f64; 3])) {
        if let Some(p) = &mut self.potential {
            p.drain_torque(book);
        }
    }

    /// The map state of every system of the pack (see [`MapState`]).
    pub fn map_state(&self) -> MapState {
        let l = self.ms.lanes;
        let one = |s: usize| -> Vec<f64> {
            let state = body_values((&self.x, &self.v), s, l);
            let tangent = self.variations.iter().flat_map(|var| var.system_values(s));
            state.chain(tangent).collect()
        };
        (self.steps, (0..l).map(one).collect())
    }

    /// Check every step's bodies with `watch` (truncation radii, encounters, collisions; see
    /// [`Watch`]) at the positions each step's kick uses (the step's middle), and sweep the
    /// pairs over the drift from each kick to the next.
    pub fn set_watch(&mut self, watch: Watch) {
        self.watch = Some(watch);
    }

    /// Integrate first-order variational equations beside every system from now on, their
    /// tangent vectors drawn with one seed per system, in lane order (see [`Variations::new`]:
    /// give each system a seed of its own, e.g. its index in the ensemble, so that its MEGNO
    /// does not depend on its pack), and keep MEGNO and the Lyapunov exponent
    /// ([`WhPack::variations`]), the kick's tangent map taking the central body's GR potential
    /// and J2 when on. A device's resident pack steps them too, with the same bits
    /// (`kernels/common/wh_variations.h`), and the map states of checkpoints carry them
    /// ([`MapState`]).
    pub fn set_variations(&mut self, seeds: &[u64]) -> Result<(), WhError> {
        if seeds.len() != self.ms.lanes {
            return Err(WhError::Input(format!(
                "{} seeds for {} systems (expected one per system)",
                seeds.len(),
                self.ms.lanes
            )));
        }
        self.variations = Some(Variations::new(seeds, self.bodies()));
        Ok(())
    }

    /// Stop each system whose MEGNO, sampled at a step's kick `after` (code units) or more
    /// after the variations' start, exceeds `megno`, with the event [`LaneStop::Chaotic`] at
    /// that kick (the variations must be on: [`WhPack::set_variations`]).
    pub fn stop_above_megno(&mut self, megno: f64, after: f64) -> Result<(), WhError> {
        let var = self.variations.as_mut().ok_or_else(|| {
            WhError::Input("a stop on MEGNO without variations (expected them on)".into())
        })?;
        var.stop_above(megno, after);
        Ok(())
    }

    /// The variations, when on.
    pub fn variations(&self) -> Option<&Variations> {
        self.variations.as_ref()
    }

    /// Keep only the systems `keep` marks (one flag per system, in lane order), the others
    /// leaving the pack: the kept ones go on bit for bit (a system's arithmetic does not depend
    /// on its neighbours), in their order, without the pack being built anew. Every system
    /// leaving: an empty pack, to be dropped.
    pub fn retain_systems(&mut self, keep: &[bool]) {
        assert_eq!(keep.len(), self.ms.lanes, "one flag per system of the pack");
        self.ms.retain_systems(keep);
        for a in [&mut self.x, &mut self.v, &mut self.scratch, &mut self.acc] {
            retain_xyz(a, keep);
        }
        retain_lanes(&mut self.stops, keep);
        retain_lanes(&mut self.stop_after, keep);
        retain_lanes(&mut self.behind, keep);
        if let Some(w) = &mut self.watch {
            w.retain_systems(keep);
        }
        if let Some(p) = &mut self.potential {
            p.retain_systems(keep);
        }
        if let Some(v) = &mut self.variations {
            v.retain_systems(keep);
        }
    }

    /// Take the systems of `other` into this pack, after its own: they go on bit for bit (a
    /// system's arithmetic does not depend on its neighbours), so that packs that lost systems
    /// can fill their vector lanes again. Both packs must have the same body count, time step,
    /// corrector order, steps taken, forces and watch ([`WhPack::same_kind`]; a programming
    /// error otherwise).
    pub fn append_systems(&mut self, other: WhPack) {
        assert!(self.same_kind(&other), "packs of the same kind");
        let (la, lb) = (self.ms.lanes, other.ms.lanes);
        for (a, b) in [
            (&mut self.x, &other.x),
            (&mut self.v, &other.v),
            (&mut self.scratch, &other.scratch),
            (&mut self.acc, &other.acc),
        ] {
            append_xyz(a, la, b, lb);
        }
        append_lanes(&mut self.stops, la, &other.stops, lb);
        append_lanes(&mut self.stop_after, la, &other.stop_after, lb);
        append_lanes(&mut self.behind, la, &other.behind, lb);
        if let (Some(a), Some(b)) = (&mut self.watch, &other.watch) {
            a.append_systems(la, b, lb);
        }
        if let (Some(a), Some(b)) = (&mut self.potential, &other.potential) {
            a.append_systems(la, b, lb);
        }
        if let (Some(a), Some(b)) = (&mut self.variations, &other.variations) {
            a.append_systems(la, b, lb);
        }
        self.ms.append_systems(&other.ms);
    }

    /// Whether `other` could join this pack ([`WhPack::append_systems`]): the same body count,
    /// time step, corrector order and steps taken, both watched or neither, the same potential
    /// forces or none.
    pub fn same_kind(&self, other: &WhPack) -> bool {
        let forces = |p: &WhPack| p.potential.as_ref().map(|c| *c.forces());
        self.bodies() == other.bodies()
            && self.dt.to_bits() == other.dt.to_bits()
            && self.correctors == other.correctors
            && self.steps == other.steps
            && self.watch.is_some() == other.watch.is_some()
            && self.variations.is_some() == other.variations.is_some()
            && forces(self) == forces(other)
    }

    /// Per system, the first event found that ends it, if any.
    pub fn stops(&self) -> &[Option<LaneStop>] {
        &self.stops
    }

    /// How many systems have an event of [`WhPack::stops`].
    pub fn stop_count(&self) -> usize {
        self.stops.iter().filter(|stop| stop.is_some()).count()
    }

    /// Per system, when its event of [`WhPack::stops`] fell: the fraction of a step after the
    /// kick of the step that found it (0 at the kick; above 0 when the sweep of the drift after
    /// the kick found it; -0.5, the step's start, for a failed drift,
    /// [`LaneStop::Failed`]).
    pub fn stop_after(&self) -> &[f64] {
        &self.stop_after
    }

    /// Per system, whether its state is one step behind [`WhPack::steps`]: the drift of the
    /// last step failed ([`LaneStop::Failed`], or after an event the step's kick found), and the
    /// system went back, bit for bit, to where it was before that step, the last state the map
    /// reached. [`WhPack::state`] of such a system is at `time() - dt`.
    pub fn behind(&self) -> &[bool] {
        &self.behind
    }

    /// The masses of system `s`, its central body first.
    pub fn masses(&self, s: usize) -> Vec<f64> {
        jacobi::lane(&self.ms.m, s, self.ms.lanes)
    }

    /// Number of systems.
    pub fn systems(&self) -> usize {
        self.ms.lanes
    }

    /// Bodies per system.
    pub fn bodies(&self) -> usize {
        self.ms.bodies()
    }

    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Time reached, `steps * dt`.
    pub fn time(&self) -> f64 {
        self.steps as f64 * self.dt
    }

    /// One step of every system: the kick `K(dt)` and the drift `D(dt)` that holds the next
    /// step's first half. Allocation-free (but for the record of a failed drift).
    ///
    /// A system whose drift fails (a body the Kepler solver cannot drift: a state that is not
    /// finite, or no convergence, after a close approach the map cannot resolve) goes back bit
    /// for bit to its state before the step ([`WhPack::behind`]) and gets the event
    /// [`LaneStop::Failed`] unless the step's kick found one first; the other systems step on,
    /// so that one broken system does not end an ensemble. It must leave the pack
    /// ([`WhPack::retain_systems`]) before the next step.
    pub fn step(&mut self) -> Result<(), WhError> {
        let sweeping = self.watch.as_ref().is_some_and(Watch::sweeps);
        if let Some(p) = &mut self.potential {
            p.keep_tally();
        }
        self.kick(self.dt, true);
        if let Some(var) = &mut self.variations {
            var.kick_and_sample((&self.ms, self.potential.as_ref()), &self.x, self.dt);
            var.check_stop(&mut self.stops, &mut self.stop_after);
        }
        if sweeping {
            self.sweep_ends(true);
        }
        self.drift_into(self.dt, true);
        if !self.failed.is_empty() {
            self.restore_failed();
        }
        if sweeping {
            self.sweep_ends(false);
            let watch = self.watch.as_mut().expect("sweeping has a watch");
            watch.sweep(self.dt, &mut self.stops, &mut self.stop_after);
        }
        self.steps += 1;
        Ok(())
    }

    /// The watch's sweep's start (after a kick: the velocities; the kick copied the positions)
    /// or end (after the drift: the positions and velocities), inertial.
    fn sweep_ends(&mut self, start: bool) {
        let Some(watch) = &mut self.watch else { return };
        let (p, v) = match start {
            true => watch.sweep_start(),
            false => watch.sweep_end(),
        };
        if !start {
            jacobi::from_jacobi(&self.ms, refs(&self.x), muts(p));
        }
        jacobi::from_jacobi(&self.ms, refs(&self.v), muts(v));
    }

    /// System `s`'s inertial positions and velocities at [`WhPack::time`] (the frame of the
    /// input): a copy of it drifted back half a step, with the corrector undone. Allocates; for
    /// outputs.
    pub fn state(&self, s: usize) -> Result<States, WhError> {
        self.state_and_torque(s).map(|(state, _)| state)
    }

    /// [`WhPack::state`] with the angular momentum J2's kicks in the undone corrector gave the
    /// bodies: the real coordinates' angular momentum is the map's plus this (zero without J2
    /// or correctors).
    pub fn state_and_torque(&self, s: usize) -> Result<(States, [f64; 3]), WhError> {
        let mut one = self.system(s).states_and_torques();
        one.pop().expect("a pack of one system")
    }

    /// [`WhPack::state_and_torque`] of every system, from one copy of the whole pack drifted
    /// back and uncorrected in its lanes: each system's bits are those of its copy alone (a
    /// pack of one, which is how [`WhPack::state_and_torque`] takes one system), at a pack's
    /// cost rather than a system's per system. A system whose copy cannot be drifted back gets
    /// the first error of its drifts (naming its lane); the others are not touched by it.
    pub fn states_and_torques(&self) -> Vec<Result<(States, [f64; 3]), WhError>> {
        let l = self.ms.lanes;
        let mut copy = WhPack::empty(self.ms.clone(), self.dt, self.correctors);
        copy.potential = self.potential.clone();
        copy.drain_torque(|_, _| {});
        copy.x = self.x.clone();
        copy.v = self.v.clone();
        copy.steps = self.steps;
        let mut lost: Vec<Option<WhError>> = vec![None; l];
        let mut drift = |pack: &mut WhPack, h: f64| {
            pack.drift_into(h, false);
            for &(s, body, why) in &pack.failed {
                lost[s].get_or_insert(WhError::Drift(s, body, why));
            }
            Ok(())
        };
        let undone =
            drift(&mut copy, -0.5 * self.dt).and_then(|_| copy.correct_with(-1.0, &mut drift));
        undone.expect("failures are noted per system");
        let torque = copy.take_torque();
        let (mut pos, mut vel) = (xyz(l * self.bodies()), xyz(l * self.bodies()));
        jacobi::from_jacobi(&copy.ms, refs(&copy.x), muts(&mut pos));
        jacobi::from_jacobi(&copy.ms, refs(&copy.v), muts(&mut vel));
        let n = self.bodies();
        let at = |a: &Xyz, i: usize| [a[0][i], a[1][i], a[2][i]];
        let state = |s: usize| {
            let pos = (0..n).map(|k| at(&pos, k * l + s)).collect();
            let vel = (0..n).map(|k| at(&vel, k * l + s)).collect();
            (pos, vel)
        };
        lost.into_iter()
            .enumerate()
            .map(|(s, lost)| match lost {
                Some(e) => Err(e),
                None => Ok((state(s), torque[s])),
            })
            .collect()
    }

    /// System `s` alone, as a pack of one in the same state.
    fn system(&self, s: usize) -> WhPack {
        let lanes = self.ms.lanes;
        let take = |a: &[f64]| jacobi::lane(a, s, lanes);
        let take3 = |a: &Xyz| [take(&a[0]), take(&a[1]), take(&a[2])];
        let mut one = WhPack::empty(self.ms.system(s), self.dt, self.correctors);
        one.potential = self.potential.as_ref().map(|p| p.for_system(&one.ms.m));
        one.x = take3(&self.x);
        one.v = take3(&self.v);
        one.steps = self.steps;
        one
    }

    /// Put every system whose last drift failed back to its state before the step (the kick
    /// changed the velocities only: the positions before the drift, the velocities before the
    /// kick) and its torque tally to where it was, mark it behind, and give it the event
    /// [`LaneStop::Failed`] unless the kick found one (a stop on MEGNO, whose sums go back too,
    /// gives way to it).
    fn restore_failed(&mut self) {
        let (l, n) = (self.ms.lanes, self.bodies());
        for &(s, body, why) in &self.failed {
            if let Some(p) = &mut self.potential {
                p.restore_tally(s);
            }
            if let Some(v) = &mut self.variations {
                v.restore_system(s);
            }
            for k in 0..n {
                let i = k * l + s;
                for c in 0..3 {
                    self.x[c][i] = self.scratch[c][i];
                    self.v[c][i] = self.acc[c][i];
                }
            }
            self.behind[s] = true;
            // A stop on MEGNO went back with the sums it was read from.
            if matches!(self.stops[s], None | Some(LaneStop::Chaotic(_))) {
                self.stops[s] = Some(LaneStop::Failed(body, why));
                self.stop_after[s] = -0.5;
            }
        }
    }

    /// The Kepler drift `D(h)`, failing at the first body that cannot be drifted (the pack is
    /// then partly drifted and must be discarded): for the corrector and the copies of
    /// [`WhPack::state`], where a failure ends the run.
    fn drift(&mut self, h: f64) -> Result<(), WhError> {
        self.drift_into(h, false);
        match self.failed.first() {
            Some(&(s, body, why)) => Err(WhError::Drift(s, body, why)),
            None => Ok(()),
        }
    }

    /// The Kepler drift `D(h)`: every Jacobi body of every system about its interior mass in
    /// one batch, the centres of mass in a straight line, the positions written into the
    /// scratch and swapped in, so that the scratch keeps those before the drift. The bodies that
    /// cannot be drifted keep their state and are listed in `failed` (lane, Jacobi body, why).
    /// With `tangent`, the variations (when on) drift with the map, sharing its solutions of
    /// Kepler's equation ([`Variations::drift_parts`]).
    fn drift_into(&mut self, h: f64, tangent: bool) {
        let l = self.ms.lanes;
        let to = &mut self.scratch;
        for c in 0..3 {
            let centre = to[c][..l]
                .iter_mut()
                .zip(&self.x[c][..l])
                .zip(&self.v[c][..l]);
            centre.for_each(|((to, &x), &v)| *to = x + h * v);
        }
        let x = &self.x;
        let from = [&x[0][l..], &x[1][l..], &x[2][l..]];
        let [tx, ty, tz] = to;
        let [vx, vy, vz] = &mut self.v;
        let (to, v) = (
            [&mut tx[l..], &mut ty[l..], &mut tz[l..]],
            [&mut vx[l..], &mut vy[l..], &mut vz[l..]],
        );
        let failed = &mut self.failed;
        failed.clear();
        let mut record = |i: usize, why| failed.push(((l + i) % l, (l + i) / l, why));
        let mass = (&self.ms.eta[l..], &self.ms.inv_eta[l..]);
        match self.variations.as_mut().filter(|_| tangent) {
            Some(var) => {
                let parts = var.drift_parts(l, h);
                drift_with_tangent(mass, h, (from, to), v, &mut record, parts);
                var.end_drift(l);
            }
            None => drift_batch_per_body_into(mass, h, (from, to), v, &mut record),
        }
        std::mem::swap(&mut self.x, &mut self.scratch);
    }

    /// The interaction kick `K(h)`: the Jacobi velocities change by `h` times the Jacobi
    /// accelerations of `H_I`. The step's kick (`step`, not a corrector's) also checks the
    /// inertial positions ([`WhPack::set_watch`]) and hands them to the variations when on
    /// ([`Variations::kick_and_sample`] takes its tidal terms there).
    fn kick(&mut self, h: f64, step: bool) {
        let (l, n) = (self.ms.lanes, self.bodies());
        jacobi::from_jacobi(&self.ms, refs(&self.x), muts(&mut self.scratch));
        if let (true, Some(w)) = (step, &mut self.watch) {
            w.check(&self.scratch, &mut self.stops);
            if w.sweeps() {
                // The sweep starts at these positions (the kick changes the velocities only).
                let (start, _) = w.sweep_start();
                for (to, from) in start.iter_mut().zip(&self.scratch) {
                    to.copy_from_slice(from);
                }
            }
        }
        let (p, a, m) = (&self.scratch, &mut self.acc, &self.ms.m);
        if l == 1 && n <= one_system::MAX_BODIES {
            one_system::pair_accelerations(p, m, a);
        } else {
            pair_accelerations(p, m, l, a);
        }
        if let Some(potential) = &mut self.potential {
            potential.add_accelerations((p, a), m, l, h);
        }
        if let (true, Some(var)) = (step, &mut self.variations) {
            var.take_positions(&mut self.scratch);
        }
        // The Jacobi accelerations, into the scratch (its positions are no longer needed).
        jacobi::to_jacobi(&self.ms, refs(&self.acc), muts(&mut self.scratch));
        // The new velocities into `acc` (free now), swapped in: `acc` keeps the old ones.
        let (x, ja, eta) = (&self.x, &self.scratch, &self.ms.eta);
        kick_bodies((x, ja, eta, h), (&self.v, &mut self.acc), l, MapTerm);
        std::mem::swap(&mut self.v, &mut self.acc);
    }

    /// The corrector `C` (`sign` +1: real to map coordinates) or `C^-1` (-1), as
    /// `Z(a, b) = D(a) K(-b) D(-2a) K(b) D(a)` in [`correctors::z_sequence`]'s order.
    fn correct(&mut self, sign: f64) -> Result<(), WhError> {
        self.correct_with(sign, |pack, h| pack.drift(h))
    }

    /// [`WhPack::correct`] with the drift `drift` (the pack and its length).
    fn correct_with(
        &mut self,
        sign: f64,
        mut drift: impl FnMut(&mut WhPack, f64) -> Result<(), WhError>,
    ) -> Result<(), WhError> {
        for (a, b) in correctors::z_sequence(self.correctors, self.dt, sign) {
            drift(self, a)?;
            self.kick(-b, false);
            drift(self, -2.0 * a)?;
            self.kick(b, false);
            drift(self, a)?;
        }
        Ok(())
    }
}

/// Step every pack once, the packs in parallel: each system's bits are those of stepping it
/// alone, for any number of packs and threads.
pub fn step_packs(packs: &mut [WhPack]) -> Result<(), WhError> {
    packs.par_iter_mut().try_for_each(|p| p.step())
}

/// Check system `s` of a pack of `n`-body systems.
fn check_system(
    s: usize,
    n: usize,
    m: &[f64],
    pos: &[[f64; 3]],
    vel: &[[f64; 3]],
) -> Result<(), WhError> {
    if m.len() < 2 || m.len() != n || pos.len() != m.len() || vel.len() != m.len() {
        return Err(WhError::Input(format!(
            "system {s}: {} masses, {} positions and {} velocities (expected at least 2 bodies, \
             one of each per body, and {n} bodies in every system of a pack)",
            m.len(),
            pos.len(),
            vel.len()
        )));
    }
    check_masses(s, m)
}

/// Check the masses of system `s`: every one positive and finite.
fn check_masses(s: usize, m: &[f64]) -> Result<(), WhError> {
    if let Some(k) = m.iter().position(|&mk| !(mk > 0.0 && mk.is_finite())) {
        return Err(WhError::Input(format!(
            "system {s}, body {k}: mass {} (expected a positive finite number)",
            m[k]
        )));
    }
    Ok(())
}
