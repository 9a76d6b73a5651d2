//! The CPU backend of the sheet engine (rayon): the reference implementation of every pass.
//! Results are bitwise identical for any number of threads: every parallel loop writes disjoint
//! outputs computed in a fixed order, and collisions are resolved sequentially in search order.

use super::boundary::{GhostShift, Shear};
use super::collisions::{self, Pair};
use super::gravity::{self, GravityParams, GravityStats};
use super::sei::{self, Epicycle};
use super::tree::{self, Tree};
use super::{Particles, SheetBackend, SheetParams};

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
    fn drift(&mut self, dt: f64) {
        sei::drift(&Epicycle::new(self.params.omega, dt), &mut self.particles);
    }
    fn kick(&mut self, dt: f64) {
        sei::kick(&mut self.particles, &self.acc, dt);
    }
    fn boundary(&mut self, t: f64) {
        self.shear().apply(&mut self.particles, t);
    }
    fn build_tree(&mut self) {
        self.tree_cube = tree::root_cube(&self.particles, self.params.box_size);
        let keys = tree::sort_particles(&mut self.particles, self.tree_cube);
        self.tree = tree::build(&keys);
    }
    fn moments(&mut self) {
        tree::moments(&mut self.tree, &self.particles, self.tree_cube);
    }
    fn gravity(&mut self, t: f64) {
        let ghosts = self.shear().ghosts(self.params.ghosts, t);
        let gp = self.gravity_params();
        self.acc.resize(self.particles.len(), [0.0; 3]);
        self.gravity_stats =
            gravity::tree_gravity(&self.particles, &self.tree, &ghosts, &gp, &mut self.acc);
    }
    fn collision_search(&mut self, t: f64) -> usize {
        self.ghosts = self.shear().ghosts(self.params.ghosts, t);
        self.pairs = collisions::search(&self.particles, &self.tree, &self.ghosts);
        self.pairs.len()
    }
    fn resolve_collisions(&mut self, _t: f64) -> usize {
        collisions::resolve(
            &mut self.particles,
            &self.pairs,
            &self.ghosts,
            &self.params.restitution,
        )
    }
    fn download(&self) -> Particles {
        self.particles.clone()
    }
}
