//! Moving the hybrid state between the device and the host: fields for the per-pass fallback,
//! snapshots and restores, one system's bodies.

use super::*;

impl DeviceHybrid {
    pub(super) fn try_export(&mut self, f: Field) -> Result<FieldData> {
        if f == Field::Layout {
            self.sync_central_spins()?;
        }
        let d = self.dev()?;
        Ok(match f {
            Field::Positions => FieldData::Positions(Self::download3(&d.bodies.pos)?),
            Field::Velocities => FieldData::Velocities(Self::download3(&d.bodies.vel)?),
            Field::Masses => FieldData::Masses(d.bodies.m.to_vec()?),
            Field::Radii => FieldData::Radii(d.bodies.r.to_vec()?),
            Field::Spins => FieldData::Spins(Self::download3(&d.bodies.spin)?),
            Field::Ids => FieldData::Ids(d.bodies.id.to_vec()?),
            Field::Layout => FieldData::Layout(self.layout.clone()),
            Field::CriticalRadii => FieldData::CriticalRadii(d.kick.rcrit.to_vec()?),
            Field::Kick => {
                let grew = self.status_words()?[STATUS_RADII_GREW] != 0;
                let d = self.dev()?;
                FieldData::Kick(KickState {
                    rcrit: d.kick.rcrit_kick.to_vec()?,
                    far: Self::download3(&d.kick.far)?,
                    near: Self::download3(&d.kick.near)?,
                    radii_grew: grew,
                })
            }
            Field::Candidates => FieldData::Candidates(self.candidates()?),
            Field::PreDrift => {
                // Every slot saved: the index is the identity.
                let pre = d.pre.to_vec()?;
                FieldData::PreDrift(PreDriftStates {
                    states: pre
                        .chunks_exact(6)
                        .map(|c| std::array::from_fn(|k| c[k]))
                        .collect(),
                    index: (0..self.slots as u32).collect(),
                })
            }
            Field::Encounters => FieldData::Encounters(self.encounter_pairs()?.clone()),
            Field::Groups => {
                self.groups_to_host()?;
                FieldData::Groups(self.groups.clone())
            }
        })
    }

    pub(super) fn try_import(&mut self, data: FieldData) -> Result<()> {
        match data {
            FieldData::Positions(v) => Self::upload3(&mut self.dev_mut()?.bodies.pos, &v),
            FieldData::Velocities(v) => Self::upload3(&mut self.dev_mut()?.bodies.vel, &v),
            FieldData::Masses(m) => {
                self.dev_mut()?.bodies.m.upload(&m)?;
                self.masses = m;
                self.upload_maps()
            }
            FieldData::Radii(r) => self.dev_mut()?.bodies.r.upload(&r),
            FieldData::Spins(v) => Self::upload3(&mut self.dev_mut()?.bodies.spin, &v),
            FieldData::Ids(id) => self.dev_mut()?.bodies.id.upload(&id),
            FieldData::Layout(layout) => {
                // The imported layout's central spins are the current ones.
                self.spins_on_device = false;
                self.layout = layout;
                self.upload_maps()
            }
            FieldData::CriticalRadii(r) => {
                self.radii_adopted = false;
                self.dev_mut()?.kick.rcrit.upload(&r)
            }
            FieldData::Kick(k) => {
                let inv: Vec<f64> = k.rcrit.iter().map(|r| 1.0 / r).collect();
                self.radii_adopted = false;
                self.reset_status(STATUS_RADII_GREW, k.radii_grew as u32)?;
                let d = &mut self.dev_mut()?.kick;
                d.rcrit_kick.upload(&k.rcrit)?;
                d.inv_rcrit_kick.upload(&inv)?;
                Self::upload3(&mut d.far, &k.far)?;
                Self::upload3(&mut d.near, &k.near)
            }
            FieldData::Candidates(c) => self.set_candidates(&c),
            FieldData::PreDrift(p) => {
                // Spread the saved states to their slots (slots not saved hold zeros; the
                // search reads only candidate bodies, which are saved).
                let mut pre = vec![0.0; 6 * self.slots];
                for (k, &ix) in p.index.iter().enumerate().take(self.slots) {
                    if let Some(st) = p.states.get(ix as usize) {
                        pre[6 * k..6 * k + 6].copy_from_slice(st);
                    }
                }
                self.dev_mut()?.pre.upload(&pre)
            }
            FieldData::Encounters(e) => {
                self.searched = false;
                self.encounters = Some(e);
                Ok(())
            }
            FieldData::Groups(g) => {
                self.groups = g;
                self.group_stage = GroupStage::OnHost;
                Ok(())
            }
        }
    }

    pub(super) fn try_snapshot(&mut self) -> Result<HybridSnapshot> {
        self.sync_central_spins()?;
        let d = self.dev()?;
        let [x, y, z] = Self::download3(&d.bodies.pos)?;
        let [vx, vy, vz] = Self::download3(&d.bodies.vel)?;
        let [sx, sy, sz] = Self::download3(&d.bodies.spin)?;
        let bodies = Bodies {
            id: d.bodies.id.to_vec()?,
            m: d.bodies.m.to_vec()?,
            r: d.bodies.r.to_vec()?,
            x,
            y,
            z,
            vx,
            vy,
            vz,
            sx,
            sy,
            sz,
        };
        Ok(HybridSnapshot {
            bodies,
            layout: self.layout.clone(),
            rcrit: d.kick.rcrit_kick.to_vec()?,
            far: Self::download3(&d.kick.far)?,
            near: Self::download3(&d.kick.near)?,
            candidates: self.candidates()?,
        })
    }

    pub(super) fn try_restore(&mut self, s: HybridSnapshot) -> Result<()> {
        self.spins_on_device = false;
        let n = s.bodies.len();
        self.layout = match s.layout.systems.is_empty() {
            true => Layout {
                changeover: s.layout.changeover,
                ..Layout::single(n, n)
            },
            false => s.layout,
        };
        self.slots = n;
        self.dev = None;
        let mut dev = self.allocate(n, self.layout.systems.len())?;
        let b = &s.bodies;
        Self::upload3(
            &mut dev.bodies.pos,
            &[b.x.clone(), b.y.clone(), b.z.clone()],
        )?;
        Self::upload3(
            &mut dev.bodies.vel,
            &[b.vx.clone(), b.vy.clone(), b.vz.clone()],
        )?;
        Self::upload3(
            &mut dev.bodies.spin,
            &[b.sx.clone(), b.sy.clone(), b.sz.clone()],
        )?;
        dev.bodies.m.upload(&b.m)?;
        dev.bodies.r.upload(&b.r)?;
        dev.bodies.id.upload(&b.id)?;
        let complete = s.rcrit.len() == n && s.far.iter().chain(&s.near).all(|v| v.len() == n);
        if complete {
            let inv: Vec<f64> = s.rcrit.iter().map(|r| 1.0 / r).collect();
            dev.kick.rcrit.upload(&s.rcrit)?;
            dev.kick.rcrit_kick.upload(&s.rcrit)?;
            dev.kick.inv_rcrit_kick.upload(&inv)?;
            Self::upload3(&mut dev.kick.far, &s.far)?;
            Self::upload3(&mut dev.kick.near, &s.near)?;
        }
        let mut words = [0u32; STATUS_LEN];
        words[STATUS_DRIFT_FAILED] = NO_FAILURE;
        dev.status.upload(&words)?;
        self.dev = Some(dev);
        self.work_pending = false;
        self.masses = s.bodies.m;
        self.radii_adopted = complete;
        self.searched = false;
        self.save_pending = false;
        self.encounters = Some(EncounterPairs::default());
        match complete {
            true => self.set_candidates(&s.candidates)?,
            false => self.set_candidates(&[])?,
        }
        *self.groups = Default::default();
        self.group_stage = GroupStage::OnHost;
        self.upload_maps()
    }

    /// The bodies of system `s` from the device (only its slots move).
    pub(super) fn try_bodies(&mut self, s: usize) -> Result<Bodies> {
        let r = self.layout.range(s);
        let b = &self.dev()?.bodies;
        let get = |f: &Buffer<f64>| f.to_vec_range(r.clone());
        Ok(Bodies {
            id: b.id.to_vec_range(r.clone())?,
            m: get(&b.m)?,
            r: get(&b.r)?,
            x: get(&b.pos[0])?,
            y: get(&b.pos[1])?,
            z: get(&b.pos[2])?,
            vx: get(&b.vel[0])?,
            vy: get(&b.vel[1])?,
            vz: get(&b.vel[2])?,
            sx: get(&b.spin[0])?,
            sy: get(&b.spin[1])?,
            sz: get(&b.spin[2])?,
        })
    }
}
