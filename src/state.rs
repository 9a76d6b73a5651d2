//! Structure-of-arrays body state (f64) shared by every engine and backend.
//!
//! In the hybrid engine positions are heliocentric and velocities barycentric (democratic
//! heliocentric coordinates); files always hold heliocentric positions and velocities, and
//! [`Bodies::to_democratic`] / [`Bodies::heliocentric_velocity_shift`] convert between the two.

/// One body as read from an input file or produced by a generator (heliocentric, code units).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Body {
    /// Index in the input (column `i`), stable for the whole run.
    pub id: u64,
    /// Mass (Msun).
    pub m: f64,
    /// Physical radius (AU).
    pub r: f64,
    /// Heliocentric position (AU).
    pub pos: [f64; 3],
    /// Heliocentric velocity (AU per code time unit).
    pub vel: [f64; 3],
    /// Spin angular momentum (Msun AU^2 per code time unit).
    pub spin: [f64; 3],
}

impl Body {
    /// A body without spin.
    pub fn without_spin(id: u64, m: f64, r: f64, pos: [f64; 3], vel: [f64; 3]) -> Body {
        Body {
            id,
            m,
            r,
            pos,
            vel,
            spin: [0.0; 3],
        }
    }
}

/// Bodies as parallel arrays. Every array has the same length `len()`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Bodies {
    pub id: Vec<u64>,
    pub m: Vec<f64>,
    pub r: Vec<f64>,
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    pub z: Vec<f64>,
    pub vx: Vec<f64>,
    pub vy: Vec<f64>,
    pub vz: Vec<f64>,
    pub sx: Vec<f64>,
    pub sy: Vec<f64>,
    pub sz: Vec<f64>,
}

impl Bodies {
    /// Number of bodies.
    pub fn len(&self) -> usize {
        self.m.len()
    }

    /// True when there are no bodies.
    pub fn is_empty(&self) -> bool {
        self.m.is_empty()
    }

    /// Empty arrays with room for `n` bodies.
    pub fn with_capacity(n: usize) -> Self {
        let v = || Vec::with_capacity(n);
        Bodies {
            id: Vec::with_capacity(n),
            m: v(),
            r: v(),
            x: v(),
            y: v(),
            z: v(),
            vx: v(),
            vy: v(),
            vz: v(),
            sx: v(),
            sy: v(),
            sz: v(),
        }
    }

    /// Arrays from a list of bodies, in order, velocities unchanged.
    pub fn from_bodies(list: &[Body]) -> Self {
        let mut b = Bodies::default();
        for body in list {
            b.push(body);
        }
        b
    }

    /// Append one body.
    pub fn push(&mut self, b: &Body) {
        self.id.push(b.id);
        self.m.push(b.m);
        self.r.push(b.r);
        self.x.push(b.pos[0]);
        self.y.push(b.pos[1]);
        self.z.push(b.pos[2]);
        self.vx.push(b.vel[0]);
        self.vy.push(b.vel[1]);
        self.vz.push(b.vel[2]);
        self.sx.push(b.spin[0]);
        self.sy.push(b.spin[1]);
        self.sz.push(b.spin[2]);
    }

    /// Append the bodies `range` of `other`, in order.
    pub fn extend_from(&mut self, other: &Bodies, range: std::ops::Range<usize>) {
        self.id.extend_from_slice(&other.id[range.clone()]);
        for (dst, src) in [
            (&mut self.m, &other.m),
            (&mut self.r, &other.r),
            (&mut self.x, &other.x),
            (&mut self.y, &other.y),
            (&mut self.z, &other.z),
            (&mut self.vx, &other.vx),
            (&mut self.vy, &other.vy),
            (&mut self.vz, &other.vz),
            (&mut self.sx, &other.sx),
            (&mut self.sy, &other.sy),
            (&mut self.sz, &other.sz),
        ] {
            dst.extend_from_slice(&src[range.clone()]);
        }
    }

    /// Body `k` as a value.
    pub fn get(&self, k: usize) -> Body {
        Body {
            id: self.id[k],
            m: self.m[k],
            r: self.r[k],
            pos: [self.x[k], self.y[k], self.z[k]],
            vel: [self.vx[k], self.vy[k], self.vz[k]],
            spin: [self.sx[k], self.sy[k], self.sz[k]],
        }
    }

    /// Overwrite body `k`.
    pub fn set(&mut self, k: usize, b: &Body) {
        self.id[k] = b.id;
        self.m[k] = b.m;
        self.r[k] = b.r;
        self.x[k] = b.pos[0];
        self.y[k] = b.pos[1];
        self.z[k] = b.pos[2];
        self.vx[k] = b.vel[0];
        self.vy[k] = b.vel[1];
        self.vz[k] = b.vel[2];
        self.sx[k] = b.spin[0];
        self.sy[k] = b.spin[1];
        self.sz[k] = b.spin[2];
    }

    /// Remove the bodies whose `remove` flag is set, keeping the order of the others
    /// (deterministic compaction).
    pub fn compact(&mut self, remove: &[bool]) {
        debug_assert_eq!(remove.len(), self.len());
        macro_rules! compact_vec {
            ($($v:ident),*) => {$(
                let mut it = remove.iter();
                self.$v.retain(|_| !*it.next().unwrap_or(&false));
            )*};
        }
        compact_vec!(id, m, r, x, y, z, vx, vy, vz, sx, sy, sz);
    }

    /// Total momentum sum m v, summed in index order (deterministic).
    pub fn momentum(&self) -> [f64; 3] {
        self.momentum_range(0, self.len())
    }

    /// Momentum sum m v of the bodies `start .. end`, summed in index order.
    pub fn momentum_range(&self, start: usize, end: usize) -> [f64; 3] {
        let mut p = [0.0; 3];
        for k in start..end {
            p[0] += self.m[k] * self.vx[k];
            p[1] += self.m[k] * self.vy[k];
            p[2] += self.m[k] * self.vz[k];
        }
        p
    }

    /// Total mass of the bodies (without the central body).
    pub fn total_mass(&self) -> f64 {
        self.m.iter().sum()
    }

    /// Convert heliocentric velocities to barycentric ones (democratic heliocentric coordinates):
    /// `v_b = v_h - sum(m_j v_h,j) / (M0 + sum m_j)`.
    pub fn to_democratic(&mut self, m0: f64) {
        let p = self.momentum();
        let mt = m0 + self.total_mass();
        let shift = [p[0] / mt, p[1] / mt, p[2] / mt];
        self.add_velocity(shift, -1.0);
    }

    /// The shift that turns barycentric velocities back into heliocentric ones:
    /// `v_h = v_b + sum(m_j v_b,j) / M0` (the central body's barycentric velocity, negated).
    pub fn heliocentric_velocity_shift(&self, m0: f64) -> [f64; 3] {
        heliocentric_shift(self.momentum(), m0)
    }

    /// `v += sign * shift` for every body.
    pub fn add_velocity(&mut self, shift: [f64; 3], sign: f64) {
        for k in 0..self.len() {
            self.vx[k] += sign * shift[0];
            self.vy[k] += sign * shift[1];
            self.vz[k] += sign * shift[2];
        }
    }
}

/// The shift `P / M0` that makes democratic (barycentric) velocities heliocentric, from the
/// momentum `P` of the bodies that pull: `v_h = v_b + P / M0`. The one home of that conversion.
#[inline(always)]
pub fn heliocentric_shift(p: [f64; 3], m0: f64) -> [f64; 3] {
    [p[0] / m0, p[1] / m0, p[2] / m0]
}

/// The heliocentric velocity of a democratic-heliocentric velocity `v`: `v + shift`, the shift of
/// [`heliocentric_shift`].
#[inline(always)]
pub fn helio(v: [f64; 3], shift: [f64; 3]) -> [f64; 3] {
    [v[0] + shift[0], v[1] + shift[1], v[2] + shift[2]]
}

/// A system in democratic heliocentric coordinates (`b`: heliocentric positions, barycentric
/// velocities, central mass `m0`) as inertial masses, positions and velocities, the central body
/// first: at the origin, with the velocity `-P / m0` that makes the total momentum zero.
pub fn inertial_from_democratic(m0: f64, b: &Bodies) -> (Vec<f64>, Vec<[f64; 3]>, Vec<[f64; 3]>) {
    let shift = heliocentric_shift(b.momentum(), m0);
    let mut m = vec![m0];
    let mut pos = vec![[0.0; 3]];
    let mut vel = vec![[-shift[0], -shift[1], -shift[2]]];
    for k in 0..b.len() {
        m.push(b.m[k]);
        pos.push([b.x[k], b.y[k], b.z[k]]);
        vel.push([b.vx[k], b.vy[k], b.vz[k]]);
    }
    (m, pos, vel)
}

/// The inverse of [`inertial_from_democratic`] into the slots `range` of `out`: positions
/// relative to the central body (`pos[0]`), velocities relative to the centre of mass's.
pub fn democratic_from_inertial(
    m: &[f64],
    pos: &[[f64; 3]],
    vel: &[[f64; 3]],
    out: &mut Bodies,
    range: std::ops::Range<usize>,
) {
    let mut p = [0.0; 3];
    for (mk, v) in m.iter().zip(vel) {
        for c in 0..3 {
            p[c] += mk * v[c];
        }
    }
    let total: f64 = m.iter().sum();
    let vcom = [p[0] / total, p[1] / total, p[2] / total];
    for (k, slot) in range.enumerate() {
        let (x, v) = (pos[k + 1], vel[k + 1]);
        out.x[slot] = x[0] - pos[0][0];
        out.y[slot] = x[1] - pos[0][1];
        out.z[slot] = x[2] - pos[0][2];
        out.vx[slot] = v[0] - vcom[0];
        out.vy[slot] = v[1] - vcom[1];
        out.vz[slot] = v[2] - vcom[2];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(id: u64, m: f64, v: f64) -> Body {
        Body {
            id,
            m,
            r: 1e-5,
            pos: [1.0 + id as f64, 0.0, 0.0],
            vel: [0.0, v, 0.0],
            spin: [0.0; 3],
        }
    }

    #[test]
    fn democratic_round_trip() {
        let list = [body(0, 1e-3, 1.0), body(1, 3e-4, 0.7)];
        let mut b = Bodies::from_bodies(&list);
        b.to_democratic(1.0);
        let shift = b.heliocentric_velocity_shift(1.0);
        b.add_velocity(shift, 1.0);
        for (k, orig) in list.iter().enumerate() {
            assert!((b.vy[k] - orig.vel[1]).abs() < 1e-15);
        }
    }

    #[test]
    fn compaction_keeps_order() {
        let mut b = Bodies::from_bodies(&[body(0, 1.0, 0.0), body(1, 2.0, 0.0), body(2, 3.0, 0.0)]);
        b.compact(&[false, true, false]);
        assert_eq!(b.id, vec![0, 2]);
        assert_eq!(b.m, vec![1.0, 3.0]);
        assert_eq!(b.sz.len(), 2);
    }
}
