//! The CPU backend of the sheet engine (rayon): the reference implementation of every pass.
//! Results are bitwise identical for any number of threads: every parallel loop writes disjoint
//! outputs computed in a fixed order, and collisions are resolved sequentially in search order.

use super::{SheetBackend, SheetField, SheetFieldData};
use crate::error::{Error, Result};
use crate::physics::sheet::boundary::{GhostShift, Shear};
use crate::physics::sheet::collisions::{self, Pair};
use crate::physics::sheet::gravity::{self, GravityParams, GravityStats};
use crate::physics::sheet::sei::{self, Epicycle};
use crate::physics::sheet::tree::{self, Tree};
use crate::physics::sheet::{Particles, SheetParams};

/// Particles, tree and work buffers on the host.
#[derive(Debug)]
pub struct CpuSheet {
    pub params: SheetParams,
    pub particles: Particles,
    /// Accelerations of the last gravity pass (same order as `particles`).
    pub acc: Vec<[f64; 3]>,
    pub tree: Tree,
    /// Candidate pairs of the last collision search.
    pub pairs: Vec<Pair>,
    /// Ghost offsets at the time of the last collision search.
    ghosts: Vec<GhostShift>,
    /// Work counters of the last gravity pass.
    pub gravity_stats: GravityStats,
    /// Side of the root cube of the last tree (the box, or more for a thick patch).
    tree_cube: f64,
}

impl CpuSheet {
    /// A backend holding `particles`.
    pub fn new(params: SheetParams, particles: Particles) -> Self {
        let n = particles.len();
        CpuSheet {
            params,
            particles,
            acc: vec![[0.0; 3]; n],
            tree: Tree::default(),
            pairs: Vec::new(),
            ghosts: Vec::new(),
            gravity_stats: GravityStats::default(),
            tree_cube: params.box_size,
        }
    }

    fn shear(&self) -> Shear {
        Shear {
            l: self.params.box_size,
            omega: self.params.omega,
        }
    }

    /// Gravity parameters of this run.
    pub fn gravity_params(&self) -> GravityParams {
        GravityParams {
            g: self.params.g,
            theta: self.params.theta,
            softening: self.params.softening,
        }
    }
}

impl SheetBackend for CpuSheet {
    fn name(&self) -> &'static str {
        "cpu"
    }
    fn len(&self) -> usize {
        self.particles.len()
    }
    fn drift(&mut self, dt: f64) -> Result<()> {
        sei::drift(&Epicycle::new(self.params.omega, dt), &mut self.particles);
        Ok(())
    }
    fn kick(&mut self, dt: f64) -> Result<()> {
        sei::kick(&mut self.particles, &self.acc, dt);
        Ok(())
    }
    fn boundary(&mut self, t: f64) -> Result<()> {
        self.shear().apply(&mut self.particles, t);
        Ok(())
    }
    fn build_tree(&mut self) -> Result<()> {
        self.tree_cube = tree::root_cube(&self.particles, self.params.box_size);
        let keys = tree::sort_particles(&mut self.particles, self.tree_cube);
        self.tree = tree::build(&keys);
        Ok(())
    }
    fn moments(&mut self) -> Result<()> {
        tree::moments(&mut self.tree, &self.particles, self.tree_cube);
        Ok(())
    }
    fn gravity(&mut self, t: f64) -> Result<()> {
        let ghosts = self.shear().ghosts(self.params.ghosts, t);
        let gp = self.gravity_params();
        self.acc.resize(self.particles.len(), [0.0; 3]);
        self.gravity_stats =
            gravity::tree_gravity(&self.particles, &self.tree, &ghosts, &gp, &mut self.acc);
        Ok(())
    }
    fn collision_search(&mut self, t: f64) -> Result<usize> {
        self.ghosts = self.shear().ghosts(self.params.ghosts, t);
        self.pairs = collisions::search(&self.particles, &self.tree, &self.ghosts);
        Ok(self.pairs.len())
    }
    fn resolve_collisions(&mut self, _t: f64) -> Result<usize> {
        Ok(collisions::resolve(
            &mut self.particles,
            &self.pairs,
            &self.ghosts,
            &self.params.restitution,
        ))
    }
    fn gravity_stats(&mut self) -> Result<GravityStats> {
        Ok(self.gravity_stats)
    }
    fn download(&mut self) -> Result<Particles> {
        Ok(self.particles.clone())
    }
    fn export_field(&mut self, f: SheetField) -> Result<SheetFieldData> {
        let p = &self.particles;
        Ok(match f {
            SheetField::Positions => {
                SheetFieldData::Positions([p.x.clone(), p.y.clone(), p.z.clone()])
            }
            SheetField::Velocities => {
                SheetFieldData::Velocities([p.vx.clone(), p.vy.clone(), p.vz.clone()])
            }
            SheetField::Properties => SheetFieldData::Properties {
                m: p.m.clone(),
                r: p.r.clone(),
                id: p.id.clone(),
            },
            SheetField::Tree => SheetFieldData::Tree {
                tree: self.tree.clone(),
                cube: self.tree_cube,
            },
            SheetField::Accelerations => SheetFieldData::Accelerations(self.acc.clone()),
            SheetField::Pairs => SheetFieldData::Pairs {
                pairs: self.pairs.clone(),
                ghosts: self.ghosts.clone(),
            },
        })
    }
    fn import_field(&mut self, data: SheetFieldData) -> Result<()> {
        let n = self.particles.len();
        let sized = |len: usize, what: &str| {
            if len == n {
                Ok(())
            } else {
                Err(Error::run(format!(
                    "sheet field {what}: {len} elements imported into a state of {n} particles"
                )))
            }
        };
        let p = &mut self.particles;
        match data {
            SheetFieldData::Positions([x, y, z]) => {
                sized(x.len(), "positions")?;
                (p.x, p.y, p.z) = (x, y, z);
            }
            SheetFieldData::Velocities([vx, vy, vz]) => {
                sized(vx.len(), "velocities")?;
                (p.vx, p.vy, p.vz) = (vx, vy, vz);
            }
            SheetFieldData::Properties { m, r, id } => {
                sized(m.len(), "properties")?;
                (p.m, p.r, p.id) = (m, r, id);
            }
            SheetFieldData::Tree { tree, cube } => {
                self.tree = tree;
                self.tree_cube = cube;
            }
            SheetFieldData::Accelerations(a) => {
                sized(a.len(), "accelerations")?;
                self.acc = a;
            }
            SheetFieldData::Pairs { pairs, ghosts } => {
                self.pairs = pairs;
                self.ghosts = ghosts;
            }
        }
        Ok(())
    }
}
