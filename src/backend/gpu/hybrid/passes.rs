//! The hybrid step's passes on the device: kicks, drift, encounter search and the candidate
//! list, energies, ejections and the removal's slot moves, and the status reads.

use super::*;

/// Candidate pairs up to which [`DeviceHybrid::try_candidate_ends`] reads slot by slot.
const FEW_PAIRS: usize = 8;

impl DeviceHybrid {
    pub(super) fn try_critical_radii(&mut self, p: &StepParams) -> Result<()> {
        self.saw(p);
        let (n, block) = (self.slots, self.layout.block);
        self.reset_status(STATUS_RADII_GREW, 0)?;
        let k = &self.dev()?.kernels.critical_radii;
        set_args(k, &[(0, n as u32), (1, block as u32)])?;
        set_args(k, &[(2, p.rcrit_floor)])?;
        Self::launch(k, n, "critical radii")?;
        self.radii_adopted = true;
        Ok(())
    }

    pub(super) fn try_kick(&mut self, dt: f64) -> Result<()> {
        let many = self.layout.systems.len() > 1;
        let n = match many {
            true => self.slots,
            false => self.layout.systems.first().map_or(0, |s| s.len),
        };
        let k = &self.dev()?.kernels.kick;
        set_args(k, &[(0, n as u32), (1, many as u32)])?;
        set_args(k, &[(2, dt)])?;
        Self::launch(k, n, "kick")
    }

    pub(super) fn try_sun_kick(&mut self, p: &StepParams, dt: f64) -> Result<()> {
        self.saw(p);
        let (systems, block, slots) = (self.layout.systems.len(), self.layout.block, self.slots);
        let k = &self.dev()?.kernels;
        let shift = [&k.sun_shift, &k.sun_shift_group];
        Self::launch_systems(shift, (systems, block), Some(dt), "Sun kick")?;
        set_args(&k.sun_move, &[(0, slots as u32), (1, block as u32)])?;
        Self::launch(&k.sun_move, slots, "Sun kick")
    }

    pub(super) fn try_potential_kick(&mut self, p: &StepParams, dt: f64) -> Result<()> {
        self.saw(p);
        let (systems, block, slots) = (self.layout.systems.len(), self.layout.block, self.slots);
        if p.forces.has_torque() {
            self.start_work()?;
            let k = &self.dev()?.kernels.potential_torque;
            set_args(k, &[(0, systems as u32), (1, block as u32)])?;
            set_args(k, &[(2, dt)])?;
            Self::launch(k, systems, "potential kick")?;
        }
        let k = &self.dev()?.kernels.potential_kick;
        set_args(k, &[(0, slots as u32), (1, block as u32)])?;
        set_args(k, &[(2, dt)])?;
        Self::launch(k, slots, "potential kick")
    }

    pub(super) fn try_radiation_kick(&mut self, p: &StepParams, dt: f64) -> Result<()> {
        self.saw(p);
        let (systems, block, slots) = (self.layout.systems.len(), self.layout.block, self.slots);
        self.start_work()?;
        let k = &self.dev()?.kernels;
        set_args(
            &k.radiation_system,
            &[(0, systems as u32), (1, block as u32)],
        )?;
        set_args(&k.radiation_system, &[(2, dt)])?;
        Self::launch(&k.radiation_system, systems, "radiation kick")?;
        set_args(&k.radiation_kick, &[(0, slots as u32), (1, block as u32)])?;
        set_args(&k.radiation_kick, &[(2, dt)])?;
        Self::launch(&k.radiation_kick, slots, "radiation kick")
    }

    /// Zero the work buffer before the first tally after a take.
    pub(super) fn start_work(&mut self) -> Result<()> {
        if !self.work_pending {
            let systems = self.layout.systems.len();
            self.dev_mut()?
                .maps
                .work
                .upload(&vec![0.0; WORK_LEN * systems])?;
            self.work_pending = true;
        }
        Ok(())
    }

    pub(super) fn try_take_work(&mut self) -> Result<Vec<Work>> {
        if !std::mem::take(&mut self.work_pending) {
            return Ok(Vec::new());
        }
        let w = self.dev()?.maps.work.to_vec()?;
        Ok(w.chunks_exact(WORK_LEN)
            .map(|c| std::array::from_fn(|k| c[k]))
            .collect())
    }

    pub(super) fn try_drift(&mut self, p: &StepParams, dt: f64) -> Result<()> {
        self.saw(p);
        let save = std::mem::take(&mut self.save_pending) as u32;
        let k = &self.dev()?.kernels.drift;
        set_args(k, &[(0, self.slots as u32), (2, save)])?;
        set_args(k, &[(1, dt)])?;
        Self::launch(k, self.slots, "drift")
    }

    /// Enqueue `status[slot] = value` (no wait).
    pub(super) fn set_status(&self, slot: usize, value: u32) -> Result<()> {
        let k = &self.dev()?.kernels.set_status;
        set_args(k, &[(0, slot as u32), (1, value)])?;
        Self::launch(k, 1, "status")
    }

    /// The candidate list from the device (its length is a status word).
    pub(super) fn candidates(&self) -> Result<Vec<(u32, u32)>> {
        let count = self.status_words()?[STATUS_CANDIDATES] as usize;
        self.dev()?.pair.download(count)
    }

    /// Replace the candidate list on the device (the confirmed encounters of an earlier search
    /// are split first: their flags refer to the old list).
    pub(super) fn set_candidates(&mut self, pairs: &[(u32, u32)]) -> Result<()> {
        self.encounter_pairs()?;
        if pairs.len() > self.dev()?.pair.capacity() {
            self.grow_candidate_list(pairs.len())?;
        }
        let dev = self.dev_mut()?;
        dev.pair.upload(pairs)?;
        dev.status
            .upload_at(STATUS_CANDIDATES, &[pairs.len() as u32])
    }

    /// The confirmed encounters, split from the device's flags of the last search if need be:
    /// pairs whose second body is a passive test particle go to `test_particles` as (test
    /// particle, partner), sorted; the others stay in candidate order (the CPU's split).
    pub(super) fn encounter_pairs(&mut self) -> Result<&EncounterPairs> {
        if self.encounters.is_none() {
            let mut out = EncounterPairs::default();
            let candidates = self.candidates()?;
            let n = candidates.len();
            if n > 0 {
                let hits = self.dev()?.hit.to_vec_prefix(n)?;
                let block = self.layout.block.max(1);
                let test_particle = |k: usize| {
                    let sys = &self.layout.systems[k / block];
                    k % block >= sys.massive && k % block < sys.len
                };
                for (&(i, j), &hit) in candidates.iter().zip(&hits) {
                    if hit == 0 {
                        continue;
                    }
                    if test_particle(j as usize) && !self.layout.semi_active {
                        out.test_particles.push((j, i));
                    } else {
                        out.pairs.push((i, j));
                    }
                }
                out.test_particles.sort_unstable();
            }
            self.encounters = Some(out);
        }
        Ok(self.encounters.as_ref().expect("set above"))
    }

    /// Save-candidates is taken over by the next drift kernel (it saves each slot's state before
    /// drifting it); any other pass or field move first runs it on its own ([`Self::settle`]).
    pub(super) fn try_save_candidates(&mut self) -> Result<()> {
        self.save_pending = true;
        Ok(())
    }

    /// Run a save-candidates that no drift took over, before anything else touches the state.
    pub(super) fn settle(&mut self) {
        if std::mem::take(&mut self.save_pending) {
            let r = self.dev().and_then(|d| {
                let k = &d.kernels.save_states;
                set_args(k, &[(0, self.slots as u32)])?;
                Self::launch(k, self.slots, "save candidates")
            });
            self.latch(r);
        }
    }

    pub(super) fn try_encounter_search(&mut self, dt: f64) -> Result<()> {
        self.encounter_pairs()?;
        self.searched = true;
        self.encounters = None;
        self.set_status(STATUS_ENCOUNTERS, 0)?;
        let d = self.dev()?;
        set_args(&d.search, &[(1, dt)])?;
        Self::launch(
            &d.search,
            d.pair.capacity().min(LIST_ITEMS),
            "encounter search",
        )
    }

    /// [`HybridBackend::candidate_ends`]: the listed pairs with each body's pre-drift state and
    /// its state now, read slot by slot for a few pairs (a stability run's), whole arrays for
    /// many.
    pub(super) fn try_candidate_ends(&mut self) -> Result<Vec<PairEnds>> {
        let pairs = self.candidates()?;
        let p = self
            .params
            .ok_or_else(|| Error::run("the encounter stop read pairs before any step"))?;
        let block = self.layout.block.max(1);
        let d = self.dev()?;
        let fields: Vec<&Buffer<f64>> = d.bodies.pos.iter().chain(&d.bodies.vel).collect();
        let whole = match pairs.len() > FEW_PAIRS {
            true => Some((
                d.pre.to_vec()?,
                fields
                    .iter()
                    .map(|f| f.to_vec())
                    .collect::<Result<Vec<_>>>()?,
                d.bodies.id.to_vec()?,
            )),
            false => None,
        };
        // Slot k's states before and after the drift, and its id.
        let read = |k: usize| -> Result<([f64; 6], [f64; 6], u64)> {
            if let Some((pre, now, id)) = &whole {
                let start = std::array::from_fn(|c| pre[6 * k + c]);
                return Ok((start, std::array::from_fn(|c| now[c][k]), id[k]));
            }
            let pre = d.pre.to_vec_range(6 * k..6 * k + 6)?;
            let mut now = [0.0; 6];
            for (c, field) in fields.iter().enumerate() {
                now[c] = field.to_vec_range(k..k + 1)?[0];
            }
            let id = d.bodies.id.to_vec_range(k..k + 1)?[0];
            Ok((std::array::from_fn(|c| pre[c]), now, id))
        };
        // A test particle has no Hill sphere of its own (as in the critical radii).
        let hill = |k: usize, m0: f64| {
            let sys = &self.layout.systems[k / block];
            match k % block < sys.massive {
                true => hill_factor_of(self.masses[k], m0),
                false => 0.0,
            }
        };
        let mut out = Vec::with_capacity(pairs.len());
        for (i, j) in pairs {
            let (i, j) = (i as usize, j as usize);
            let system = i / block;
            let spec = self.layout.systems[system].spec;
            let m0 = spec.unwrap_or_else(|| SystemSpec::from(&p)).m0;
            let ((start_i, end_i, id_i), (start_j, end_j, id_j)) = (read(i)?, read(j)?);
            out.push(PairEnds {
                system,
                ids: [id_i, id_j],
                hill_factors: [hill(i, m0), hill(j, m0)],
                start: [start_i, start_j],
                end: [end_i, end_j],
            });
        }
        Ok(out)
    }

    pub(super) fn try_accelerations(&mut self) -> Result<()> {
        self.encounter_pairs()?;
        if !self.radii_adopted {
            self.dev()?.pair.adopt()?;
            self.radii_adopted = true;
        }
        self.dev()?.pair.run(&self.layout, false)?;
        self.check_candidate_list(false)
    }

    /// A bounded candidate list ([`pair_pass`] docs) after a full pass: read the count the scan
    /// made and, when the list was too short, grow it and emit the pass's candidates again.
    pub(super) fn check_candidate_list(&mut self, only_if_grew: bool) -> Result<()> {
        if !self.dev()?.pair.bounded(&self.layout) {
            return Ok(());
        }
        let needed = self.status_words()?[STATUS_CANDIDATES] as usize;
        if needed <= self.dev()?.pair.capacity() {
            return Ok(());
        }
        self.grow_candidate_list(needed)?;
        self.dev()?.pair.emit_again(only_if_grew)
    }

    /// Replace the candidate list and its confirmation flags by longer ones for `needed` pairs,
    /// and rebind the kernels that read them.
    pub(super) fn grow_candidate_list(&mut self, needed: usize) -> Result<()> {
        let capacity = pair_pass::grown_capacity(&self.layout, needed);
        let gpu = self.gpu.clone();
        let d = self.dev_mut()?;
        d.pair.grow(&gpu, capacity)?;
        d.hit = Buffer::<u32>::new(&gpu, "candidate_hit", capacity)?;
        for (kernel, pairs, hit) in [(&d.search, 2, 11), (&d.link_pairs, 5, 6)] {
            kernel.set_arg(0, capacity as u32)?;
            kernel.set_arg(pairs, d.pair.pairs())?;
            kernel.set_arg(hit, &d.hit)?;
        }
        Ok(())
    }

    /// The opening kick's refresh (see `HybridBackend::refresh_accelerations`): adopt the new
    /// radii, then the full pass if a radius grew, KickA otherwise (both decided on the device
    /// from the status words, without a read).
    pub(super) fn try_refresh(&mut self) -> Result<()> {
        self.encounter_pairs()?;
        if !self.radii_adopted {
            self.dev()?.pair.adopt()?;
            self.radii_adopted = true;
        }
        let semi = self.layout.semi_active;
        self.dev()?.pair.run(&self.layout, true)?;
        self.check_candidate_list(true)?;
        self.dev()?.pair.refresh(semi)
    }

    pub(super) fn try_stop_system(&mut self, s: usize) -> Result<()> {
        self.layout.systems[s].active = false;
        let block = self.layout.block.max(1);
        let mut pairs = self.candidates()?;
        pairs.retain(|&(i, _)| (i as usize) / block != s);
        self.set_candidates(&pairs)?;
        self.upload_maps()
    }

    pub(super) fn try_energies(&mut self, p: &StepParams) -> Result<Vec<EnergyParts>> {
        self.saw(p);
        // The driver adds the central spins from the layout to the angular momentum.
        self.sync_central_spins()?;
        let (systems, block, slots) = (self.layout.systems.len(), self.layout.block, self.slots);
        if systems == 0 {
            return Ok(Vec::new());
        }
        let d = self.dev()?;
        let k = &d.kernels;
        set_args(&k.energy_pairs, &[(0, slots as u32), (1, block as u32)])?;
        Self::launch(&k.energy_pairs, slots, "energy")?;
        let sums = [&k.energy_sums, &k.energy_sums_group];
        Self::launch_systems(sums, (systems, block), None, "energy")?;
        let out = d.energy.out.to_vec()?;
        Ok(out
            .chunks_exact(5)
            .map(|e| EnergyParts {
                kinetic: e[0],
                potential: e[1],
                angular_momentum: [e[2], e[3], e[4]],
            })
            .collect())
    }

    pub(super) fn try_ejections(&mut self, p: &StepParams) -> Result<Vec<Ejection>> {
        self.saw(p);
        let (block, slots) = (self.layout.block, self.slots);
        if slots == 0 {
            return Ok(Vec::new());
        }
        let k = &self.dev()?.kernels.ejection_check;
        set_args(k, &[(0, slots as u32), (1, block as u32)])?;
        Self::launch(k, slots, "ejections")?;
        let count = self.status_words()?[STATUS_EJECTIONS] as usize;
        if count == 0 {
            return Ok(Vec::new());
        }
        self.set_status(STATUS_EJECTIONS, 0)?;
        self.remove_ejected(p, count)
    }

    /// The ejections the device's check found: their records as the CPU writes them (states of
    /// the removed bodies and of their systems' pulling bodies are read back, nothing else),
    /// then the removal by the CPU's slot moves ([`removal_moves`]) applied on the device. Runs
    /// only in a step that ejects something.
    pub(super) fn remove_ejected(&mut self, p: &StepParams, count: usize) -> Result<Vec<Ejection>> {
        let mut slots = self.dev()?.found.to_vec_prefix(count.min(self.slots))?;
        slots.sort_unstable();
        let bodies = self.gather_bodies(&slots)?;
        let block = self.layout.block.max(1);
        let (mut out, mut moves) = (Vec::new(), Vec::new());
        let mut first = 0;
        while first < slots.len() {
            let s = slots[first] as usize / block;
            let end = first + slots[first..].partition_point(|&k| k as usize / block == s);
            let sys = self.layout.systems[s];
            let spec = sys.spec.unwrap_or_else(|| SystemSpec::from(p));
            let start = s * block;
            let pulling = if self.layout.semi_active {
                sys.len
            } else {
                sys.massive
            };
            // The heliocentric velocity shift, read once a body of the system leaves.
            let mut shift = None;
            let mut flags = vec![false; sys.len];
            for (q, democratic) in bodies.iter().enumerate().take(end).skip(first) {
                // The device's first look lists possible perihelion passages too; the CPU's rule
                // decides which bodies leave.
                let Some((case, before_end, mut body)) = ejection_of(&spec, p.tau, democratic)
                else {
                    continue;
                };
                let shift = match shift {
                    Some(v) => v,
                    None => {
                        let mom = self.momentum(start..start + pulling)?;
                        *shift.insert([mom[0] / spec.m0, mom[1] / spec.m0, mom[2] / spec.m0])
                    }
                };
                for c in 0..3 {
                    body.vel[c] += shift[c];
                }
                let k = slots[q] as usize - start;
                out.push(Ejection {
                    system: s,
                    body,
                    before_end,
                    democratic: *democratic,
                    massive: k < sys.massive,
                    case,
                });
                flags[k] = true;
            }
            let mut local = Vec::new();
            let (len, massive) = removal_moves(sys.len, sys.massive, &mut flags, &mut local);
            moves.extend(
                local
                    .iter()
                    .map(|&(from, to)| (from + start as u32, to + start as u32)),
            );
            self.layout.systems[s].len = len;
            self.layout.systems[s].massive = massive;
            first = end;
        }
        if out.is_empty() {
            // Only perihelia inside the inner radius not passed within the step: nothing
            // leaves, and the state stays as the CPU's does.
            return Ok(out);
        }
        self.apply_moves(&moves)?;
        // Moved critical radii are adopted by the next pair pass, as on the CPU.
        self.radii_adopted = false;
        self.set_candidates(&[])?;
        self.upload_maps()?;
        Ok(out)
    }

    /// The bodies in `slots`, read back in one gather.
    pub(super) fn gather_bodies(&self, slots: &[u32]) -> Result<Vec<Body>> {
        let n = slots.len();
        let d = self.dev()?;
        let b = &d.bodies;
        let list = Buffer::<u32>::from_host(&self.gpu, "gathered_slots", slots)?;
        let out = Buffer::<f64>::new(&self.gpu, "gathered_bodies", 11 * n)?;
        let out_id = Buffer::<u64>::new(&self.gpu, "gathered_ids", n)?;
        let gather = b
            .args(
                self.gpu
                    .kernel("orr_bodies_gather")
                    .arg(n as u32)
                    .arg(&list),
            )
            .arg(&out)
            .arg(&out_id)
            .build()?;
        Self::launch(&gather, n, "gathering bodies")?;
        let (states, ids) = (out.to_vec_prefix(11 * n)?, out_id.to_vec_prefix(n)?);
        Ok(states
            .chunks_exact(11)
            .zip(ids)
            .map(|(s, id)| Body {
                id,
                m: s[6],
                r: s[7],
                pos: [s[0], s[1], s[2]],
                vel: [s[3], s[4], s[5]],
                spin: [s[8], s[9], s[10]],
            })
            .collect())
    }

    /// Momentum of the bodies in `range`, summed in slot order (`Bodies::momentum_range`).
    pub(super) fn momentum(&self, range: std::ops::Range<usize>) -> Result<[f64; 3]> {
        let b = &self.dev()?.bodies;
        let m = b.m.to_vec_range(range.clone())?;
        let [vx, vy, vz] = [0, 1, 2].map(|c| b.vel[c].to_vec_range(range.clone()));
        let (vx, vy, vz) = (vx?, vy?, vz?);
        let mut p = [0.0; 3];
        for k in 0..m.len() {
            p[0] += m[k] * vx[k];
            p[1] += m[k] * vy[k];
            p[2] += m[k] * vz[k];
        }
        Ok(p)
    }

    /// Apply a removal's slot moves (global slots, in order) to every per-body field on the
    /// device and to the host copy of the masses.
    pub(super) fn apply_moves(&mut self, moves: &[(u32, u32)]) -> Result<()> {
        if moves.is_empty() {
            return Ok(());
        }
        for &(from, to) in moves {
            self.masses[to as usize] = self.masses[from as usize];
        }
        let flat: Vec<u32> = moves.iter().flat_map(|&(a, b)| [a, b]).collect();
        let list = Buffer::<u32>::from_host(&self.gpu, "slot_moves", &flat)?;
        let d = self.dev()?;
        let b = &d.bodies;
        let kernel = b
            .args(
                self.gpu
                    .kernel("orr_apply_moves")
                    .arg(moves.len() as u32)
                    .arg(&list),
            )
            .arg(&d.kick.rcrit)
            .build()?;
        Self::launch(&kernel, 1, "removing bodies")
    }

    /// Run `f` on a host copy of the state (the CPU reference with this backend's bodies, layout,
    /// kick state, candidates and critical radii), then bring back to the device the fields the
    /// mergers pass writes ([`Pass::writes`]; the groups are the caller's): for a substep whose
    /// groups collide, which then reuses the CPU's code instead of a second copy of it.
    pub(super) fn on_host_copy<T>(
        &mut self,
        p: &StepParams,
        f: impl FnOnce(&mut CpuHybrid) -> Result<T>,
    ) -> Result<T> {
        let mut host = CpuHybrid::default();
        host.restore(self.try_snapshot()?);
        host.adopt_params(p);
        host.import_field(FieldData::CriticalRadii(self.dev()?.kick.rcrit.to_vec()?))?;
        let out = f(&mut host)?;
        for f in Pass::Mergers
            .writes()
            .iter()
            .filter(|&f| f != Field::Groups)
        {
            self.try_import(host.export_field(f)?)?;
        }
        // Changed critical radii are adopted by the next pair pass, as on the CPU.
        self.radii_adopted = false;
        Ok(out)
    }

    pub(super) fn try_status(&mut self) -> Result<PassStatus> {
        if let Some(e) = self.failure.take() {
            return Err(e);
        }
        let words = self.status_words()?;
        let failed = words[STATUS_DRIFT_FAILED];
        let searched = std::mem::take(&mut self.searched);
        if failed == NO_FAILURE {
            if !searched {
                return Ok(PassStatus::default());
            }
            let candidates = words[STATUS_CANDIDATES] as u64;
            let encounters = words[STATUS_ENCOUNTERS] as u64;
            if encounters == 0 {
                self.encounters = Some(EncounterPairs::default());
            }
            return Ok(PassStatus {
                candidates,
                encounters,
            });
        }
        self.reset_status(STATUS_DRIFT_FAILED, NO_FAILURE)?;
        let k = failed as usize;
        let snap = self.try_snapshot()?;
        let b = snap.bodies.get(k);
        Err(Error::run(format!(
            "Kepler drift failed for body {} (m = {:e}, x = [{:e}, {:e}, {:e}]): the f and g and \
             universal-variable solvers did not converge",
            b.id, b.m, b.pos[0], b.pos[1], b.pos[2]
        )))
    }
}
