//! Shear-periodic boundaries (OCCLUDE report section 3.3; Hill 1878 / Wisdom & Tremaine 1988).
//!
//! The box is `[-L/2, L/2)` in x and y, open in z. The neighbouring box at x offset i L moves
//! with the shear: its particles are the originals shifted by
//! `(i L, j L + s_i(t), 0)` in position and by `-3/2 Omega i L` in vy, where
//! `s_i(t) = -3/2 Omega i L t`, wrapped into `[-L/2, L/2)` (a multiple of L is a periodic copy
//! in y). A particle leaving through x = +L/2 re-enters as the image with i = -1.

use rayon::prelude::*;

/// Geometry of the shearing box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shear {
    /// Box size L in x and y [m].
    pub l: f64,
    /// Orbital frequency [1/s].
    pub omega: f64,
}

/// Position and velocity offset of one ghost box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GhostShift {
    pub dx: f64,
    pub dy: f64,
    pub dvy: f64,
}

/// Wrap `v` into `[-l/2, l/2)`.
#[inline]
pub fn wrap(v: f64, l: f64) -> f64 {
    let w = v - l * (v / l + 0.5).floor();
    // Round-off can land exactly on +l/2.
    if w >= 0.5 * l {
        w - l
    } else {
        w
    }
}

impl Shear {
    /// The y shift of the box column at x offset `i` boxes at time `t`, in `[-L/2, L/2)`.
    pub fn y_shift(&self, i: i32, t: f64) -> f64 {
        wrap(-1.5 * self.omega * self.l * t * i as f64, self.l)
    }

    /// Offset of ghost box (i, j) at time `t`.
    pub fn ghost(&self, i: i32, j: i32, t: f64) -> GhostShift {
        GhostShift {
            dx: i as f64 * self.l,
            dy: j as f64 * self.l + self.y_shift(i, t),
            dvy: -1.5 * self.omega * self.l * i as f64,
        }
    }

    /// All ghost boxes for `n = [nx, ny]` rings at time `t`, in a fixed order (i outer, j inner,
    /// from -n to n); the central box (0, 0) is included.
    pub fn ghosts(&self, n: [u32; 2], t: f64) -> Vec<GhostShift> {
        let (nx, ny) = (n[0] as i32, n[1] as i32);
        let mut out = Vec::with_capacity(((2 * nx + 1) * (2 * ny + 1)) as usize);
        for i in -nx..=nx {
            for j in -ny..=ny {
                out.push(self.ghost(i, j, t));
            }
        }
        out
    }

    /// Map one particle back into the box at time `t`.
    #[inline]
    pub fn apply_one(&self, x: &mut f64, y: &mut f64, vy: &mut f64, t: f64) {
        let half = 0.5 * self.l;
        if *x >= half || *x < -half {
            // Number of boxes to move by (usually +-1); the particle becomes the image in box -k.
            let k = (*x / self.l + 0.5).floor() as i32;
            let g = self.ghost(-k, 0, t);
            *x += g.dx;
            *y += g.dy;
            *vy += g.dvy;
            *x = wrap(*x, self.l);
        }
        *y = wrap(*y, self.l);
    }

    /// Map all particles back into the box at time `t` (parallel; each particle independent).
    pub fn apply(&self, p: &mut super::Particles, t: f64) {
        let super::Particles { x, y, vy, .. } = p;
        (x, y, vy)
            .into_par_iter()
            .with_min_len(1024)
            .for_each(|(x, y, vy)| self.apply_one(x, y, vy, t));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_range() {
        for v in [-150.0, -50.0, -49.999, 0.0, 49.999, 50.0, 149.0, 1e-17] {
            let w = wrap(v, 100.0);
            assert!((-50.0..50.0).contains(&w), "{v} -> {w}");
        }
    }

    #[test]
    fn crossing_keeps_shear_flow() {
        let s = Shear {
            l: 100.0,
            omega: 1e-4,
        };
        let t = 1234.5;
        // A particle riding the shear flow crosses x = +L/2; after the mapping it still rides it.
        let (mut x, mut y, mut vy) = (50.5, 3.0, -1.5e-4 * 50.5);
        s.apply_one(&mut x, &mut y, &mut vy, t);
        assert!((x + 49.5).abs() < 1e-12);
        assert!((vy + 1.5e-4 * x).abs() < 1e-15);
    }
}
