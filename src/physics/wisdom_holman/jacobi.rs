//! Jacobi coordinates (Wisdom & Holman 1991, section 3; Rein & Tamayo 2015, section 2.2): body k
//! is placed relative to the centre of mass of the bodies before it, `x'_k = x_k - C_{k-1}` with
//! `C_k = (m_0 x_0 + ... + m_k x_k) / eta_k` and `eta_k = m_0 + ... + m_k`; slot 0 holds the
//! centre of mass of the whole system. Velocities and accelerations transform the same way (the
//! map is linear and constant). Their one home: the map, its correctors and the outputs call
//! these functions.
//!
//! Arrays hold `lanes` systems of one body count side by side, body-major: body k of system s at
//! `[k * lanes + s]`, one array per Cartesian component. Each system's arithmetic is the same
//! whatever `lanes` is.

use crate::simd::lanes::{load, store, GroupIo, GROUP};
use crate::simd::{dispatch_lanes, LaneKernel};

/// The masses the transforms need, computed once (body-major, `lanes` systems): `m_k`, the
/// interior masses `eta_k = m_0 + ... + m_k`, `1 / eta_k` and `m_k / eta_k`.
#[derive(Debug, Clone)]
pub struct Masses {
    pub lanes: usize,
    pub m: Vec<f64>,
    pub eta: Vec<f64>,
    pub inv_eta: Vec<f64>,
    pub m_over_eta: Vec<f64>,
}

impl Masses {
    /// The masses of `lanes` systems from their body-major masses `m`.
    pub fn new(m: &[f64], lanes: usize) -> Self {
        let mut eta = m.to_vec();
        for k in lanes..m.len() {
            eta[k] = eta[k - lanes] + m[k];
        }
        Masses {
            lanes,
            inv_eta: eta.iter().map(|e| 1.0 / e).collect(),
            m_over_eta: m.iter().zip(&eta).map(|(m, e)| m / e).collect(),
            m: m.to_vec(),
            eta,
        }
    }

    /// Keep the systems `keep` marks (one flag per system), in order.
    pub fn retain_systems(&mut self, keep: &[bool]) {
        for a in [
            &mut self.m,
            &mut self.eta,
            &mut self.inv_eta,
            &mut self.m_over_eta,
        ] {
            super::watch::retain_lanes(a, keep);
        }
        self.lanes = keep.iter().filter(|&&k| k).count();
    }

    /// The systems of `other` after these (see [`super::WhPack::append_systems`]).
    pub fn append_systems(&mut self, other: &Masses) {
        let (la, lb) = (self.lanes, other.lanes);
        let pairs = [
            (&mut self.m, &other.m),
            (&mut self.eta, &other.eta),
            (&mut self.inv_eta, &other.inv_eta),
            (&mut self.m_over_eta, &other.m_over_eta),
        ];
        for (a, b) in pairs {
            super::watch::append_lanes(a, la, b, lb);
        }
        self.lanes = la + lb;
    }

    /// Bodies per system.
    pub fn bodies(&self) -> usize {
        self.m.len() / self.lanes
    }

    /// System `s` alone.
    pub fn system(&self, s: usize) -> Masses {
        let take = |a: &[f64]| lane(a, s, self.lanes);
        Masses {
            lanes: 1,
            m: take(&self.m),
            eta: take(&self.eta),
            inv_eta: take(&self.inv_eta),
            m_over_eta: take(&self.m_over_eta),
        }
    }
}

/// System `s`'s values of a body-major array of `lanes` systems.
pub fn lane(a: &[f64], s: usize, lanes: usize) -> Vec<f64> {
    a.iter().skip(s).step_by(lanes).copied().collect()
}

/// Inertial vectors `w` (positions, velocities or accelerations) as Jacobi vectors in `out`
/// (slot 0: the mass-weighted mean, the centre of mass for positions). Per system, with the sum
/// `S_k = m_0 w_0 + ... + m_k w_k`: `w'_k = w_k - S_{k-1} / eta_{k-1}`, `w'_0 = S_{n-1} /
/// eta_{n-1}` (the reciprocals taken once, [`Masses::inv_eta`]).
pub fn to_jacobi(ms: &Masses, w: [&[f64]; 3], out: [&mut [f64]; 3]) {
    for (w, out) in w.into_iter().zip(out) {
        by_lane_groups(ms, Transform::ToJacobi, w, out);
    }
}

/// Jacobi vectors `wj` back to inertial ones in `out`: from the whole system's mean `C_{n-1}`
/// (slot 0) down, `x_k = x'_k + C_{k-1}` with `C_{k-1} = C_k - (m_k / eta_k) x'_k` (the ratio
/// taken once, [`Masses::m_over_eta`]), and `x_0 = C_0`.
pub fn from_jacobi(ms: &Masses, wj: [&[f64]; 3], out: [&mut [f64]; 3]) {
    for (wj, out) in wj.into_iter().zip(out) {
        by_lane_groups(ms, Transform::FromJacobi, wj, out);
    }
}

/// The two transforms.
#[derive(Clone, Copy)]
enum Transform {
    ToJacobi,
    FromJacobi,
}

/// `transform` of one component `w` into `out`: the systems in lane groups of [`GROUP`] at the
/// run-time SIMD level, the rest one by one, one system alone in straight loops; every system
/// takes the same operations in the same order.
fn by_lane_groups(ms: &Masses, transform: Transform, w: &[f64], out: &mut [f64]) {
    let lanes = ms.lanes;
    if lanes == 1 {
        return straight_loops(ms, transform, w, out);
    }
    let full = lanes - lanes % GROUP;
    if full > 0 {
        dispatch_lanes(Groups {
            ms,
            transform,
            w,
            out: &mut *out,
            full,
        });
    }
    for o in full..lanes {
        transform_group::<f64, 1>(ms, transform, (w, &mut *out), o);
    }
}

/// [`by_lane_groups`]'s full groups, run on the lane group the dispatch picks.
struct Groups<'a> {
    ms: &'a Masses,
    transform: Transform,
    w: &'a [f64],
    out: &'a mut [f64],
    full: usize,
}

impl LaneKernel for Groups<'_> {
    type Output = ();
    #[inline(always)]
    fn run<G: GroupIo>(self) {
        for o in (0..self.full).step_by(GROUP) {
            transform_group::<G, GROUP>(self.ms, self.transform, (self.w, &mut *self.out), o);
        }
    }
}

/// `transform` of the `W` systems from lane `o` on, on the lane group `V`.
#[inline(always)]
fn transform_group<V: GroupIo<W>, const W: usize>(
    ms: &Masses,
    transform: Transform,
    (w, out): (&[f64], &mut [f64]),
    o: usize,
) {
    let (l, n) = (ms.lanes, ms.bodies());
    match transform {
        Transform::ToJacobi => {
            let mut sum = load::<V, W>(&ms.m, o) * load::<V, W>(w, o);
            for k in 1..n {
                let w_k: V = load(w, k * l + o);
                store(
                    out,
                    k * l + o,
                    w_k - sum * load(&ms.inv_eta, (k - 1) * l + o),
                );
                sum = sum + load::<V, W>(&ms.m, k * l + o) * w_k;
            }
            store(out, o, sum * load(&ms.inv_eta, (n - 1) * l + o));
        }
        Transform::FromJacobi => {
            let mut c: V = load(w, o);
            for k in (1..n).rev() {
                let w_k: V = load(w, k * l + o);
                c = c - load::<V, W>(&ms.m_over_eta, k * l + o) * w_k;
                store(out, k * l + o, w_k + c);
            }
            store(out, o, c);
        }
    }
}

/// `transform` of one system alone (`lanes == 1`): [`transform_group`]'s operations in its
/// order, as straight loops over the bodies (its lane-group indexing costs more than the
/// arithmetic of one small system).
fn straight_loops(ms: &Masses, transform: Transform, w: &[f64], out: &mut [f64]) {
    let n = ms.m.len();
    let (w, out) = (&w[..n], &mut out[..n]);
    match transform {
        Transform::ToJacobi => {
            let (m, inv_eta) = (&ms.m[..n], &ms.inv_eta[..n]);
            let mut sum = m[0] * w[0];
            for k in 1..n {
                out[k] = w[k] - sum * inv_eta[k - 1];
                sum += m[k] * w[k];
            }
            out[0] = sum * inv_eta[n - 1];
        }
        Transform::FromJacobi => {
            let f = &ms.m_over_eta[..n];
            let mut c = w[0];
            for k in (1..n).rev() {
                c -= f[k] * w[k];
                out[k] = w[k] + c;
            }
            out[0] = c;
        }
    }
}
