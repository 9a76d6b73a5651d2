//! The shearing sheet's physics (the OCCLUDE design, Vincent 2014, section 3), in SI units: the
//! particles and the step's parameters, the SEI drift and kick ([`sei`]), the shear-periodic
//! boundary ([`boundary`]), the octree ([`tree`]), tree gravity with ghost boxes ([`gravity`]) and
//! hard-sphere collisions ([`collisions`]). The step that orders them is the engine's
//! ([`crate::sheet`]); the backends that run them are in [`crate::backend::sheet`].

pub mod boundary;
pub mod collisions;
pub mod gravity;
pub mod sei;
pub mod tree;

pub use collisions::Restitution;
pub use gravity::GravityStats;

/// Particle state as a structure of arrays (SI units). `id` is the particle's index in the
/// initial conditions; backends may reorder the arrays (the CPU backend keeps them in Morton order).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Particles {
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    pub z: Vec<f64>,
    pub vx: Vec<f64>,
    pub vy: Vec<f64>,
    pub vz: Vec<f64>,
    /// Mass [kg].
    pub m: Vec<f64>,
    /// Radius [m].
    pub r: Vec<f64>,
    /// Index in the initial conditions.
    pub id: Vec<u32>,
}

impl Particles {
    /// Number of particles.
    pub fn len(&self) -> usize {
        self.x.len()
    }
    /// True when there are no particles.
    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }
    /// Append one particle (`id` = its position in the arrays).
    pub fn push(&mut self, pos: [f64; 3], vel: [f64; 3], m: f64, r: f64) {
        self.id.push(self.x.len() as u32);
        self.x.push(pos[0]);
        self.y.push(pos[1]);
        self.z.push(pos[2]);
        self.vx.push(vel[0]);
        self.vy.push(vel[1]);
        self.vz.push(vel[2]);
        self.m.push(m);
        self.r.push(r);
    }
    /// Reorder all arrays so that new index k holds old index `perm[k]`.
    pub fn permute(&mut self, perm: &[u32]) {
        fn gather<T: Copy>(v: &mut Vec<T>, perm: &[u32]) {
            let out: Vec<T> = perm.iter().map(|&k| v[k as usize]).collect();
            *v = out;
        }
        gather(&mut self.x, perm);
        gather(&mut self.y, perm);
        gather(&mut self.z, perm);
        gather(&mut self.vx, perm);
        gather(&mut self.vy, perm);
        gather(&mut self.vz, perm);
        gather(&mut self.m, perm);
        gather(&mut self.r, perm);
        gather(&mut self.id, perm);
    }
    /// The same particles ordered by `id` (the order of the initial conditions).
    pub fn sorted_by_id(&self) -> Particles {
        let mut perm: Vec<u32> = (0..self.len() as u32).collect();
        perm.sort_by_key(|&k| self.id[k as usize]);
        let mut p = self.clone();
        p.permute(&perm);
        p
    }
}

/// Physical and numerical parameters of the sheet step (SI units).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SheetParams {
    /// Orbital frequency Omega [1/s] (also the vertical frequency).
    pub omega: f64,
    /// Gravitational constant [m^3 kg^-1 s^-2].
    pub g: f64,
    /// Time step [s].
    pub dt: f64,
    /// Box size L in x and y [m].
    pub box_size: f64,
    /// Opening angle theta of the Bonsai criterion d > l/theta + delta.
    pub theta: f64,
    /// Plummer softening length [m].
    pub softening: f64,
    /// Ghost boxes on each side in x and y (1 = one ring, 3 x 3 boxes).
    pub ghosts: [u32; 2],
    /// Normal coefficient of restitution.
    pub restitution: Restitution,
}
