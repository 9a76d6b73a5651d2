//! The interaction kick of one system alone (a pack of one lane), its bodies in the vector
//! lanes, as WHFast512 does: the general kick's loops over systems are one lane long there.
//!
//! The arithmetic is the general kick's, operation for operation, so a system has the same bits
//! alone and in a pack. Body k's pair acceleration is the general loop's sum in its order,
//! ascending over the other bodies l (the centre-first pair left out):
//! `a_k = sum_l (m_l / r_kl^3) (x_l - x_k)` with `1 / r^3 = 1 / (r^2 sqrt(r^2))`,
//! `r^2 = dx dx + dy dy + dz dz`. The general loop adds `(m_l / r^3) (x_l - x_k)` for l > k
//! and subtracts `(m_l / r^3) (x_k - x_l)` for l < k, which is the same number: negation is
//! exact, so `r^2`, the product and the sum are bitwise those of the form above (a sum that
//! starts at +0 is never -0, so a zero term's sign cannot tell the two apart either). Only
//! `+ - * / sqrt`, never fused or reordered, so every SIMD level gives the same bits.
//!
//! Two layouts:
//! - **Up to eight planets** ([`COLUMNS_MAX`] bodies, the Sun and eight planets included) have
//!   the planets in the lanes of one narrow group of `W` = 4 or 8 lanes and the central body
//!   apart. Body l's column of terms over the lanes k comes straight from `d = x_l - x_k`, so
//!   each planet pair's `1 / r^3` is taken twice, once in each column, with the same bits
//!   (`r^2` is the same number for `d` and `-d`). That costs a few more divisions and square
//!   roots than taking each pair once, but no term goes through memory. The 9-body step took
//!   323 ns so, against 414 ns with the pairs stored in a matrix and read back by columns and
//!   430 ns with each pair once in lanes rotated as WHFast512 does, its columns blended
//!   together (criterion on a Xeon, same hour).
//! - **Up to sixteen bodies** ([`MAX_BODIES`]) take rows of up to eight pairs `(i, j > i)`, two
//!   per lane group of [`GROUP`], written into a matrix the sums read by columns.

use super::pairs::inv_r3;
use super::watch::Xyz;
use crate::simd::lanes::{GroupIo, GROUP};
use crate::simd::{dispatch_lanes, dispatch_narrow, LaneKernel, NarrowKernel};

/// Largest body count this path takes (one lane group); larger systems take the general loops.
pub(super) const MAX_BODIES: usize = GROUP;

/// Largest body count of the column layout: the central body and eight planets.
const COLUMNS_MAX: usize = 9;

/// Each lane's body index, as a number to compare lanes with.
const BODY_INDEX: [f64; GROUP] = [
    0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0,
];

/// Pairs per half of a lane group: the partners `j = first .. first + HALF` of body i.
const HALF: usize = GROUP / 2;

/// The pair accelerations of one system of `n = m.len() <= MAX_BODIES` bodies at inertial
/// positions `p` into `a` (overwritten), at the run-time SIMD level.
pub(super) fn pair_accelerations(p: &Xyz, m: &[f64], a: &mut Xyz) {
    let n = m.len();
    assert!(
        (2..=MAX_BODIES).contains(&n),
        "{n} bodies in the one-system kick"
    );
    if n <= COLUMNS_MAX {
        return dispatch_narrow(n - 1, Pairs { p, m, a });
    }
    dispatch_lanes(Pairs { p, m, a })
}

/// The column layout on the narrow lane group the dispatch picks (4 lanes up to four planets,
/// 8 up to eight).
impl NarrowKernel for Pairs<'_> {
    type Output = ();
    #[inline(always)]
    fn run<const W: usize, V: GroupIo<W>>(self) {
        let (p, m) = (self.p, self.m);
        let planets = m.len() - 1;
        let pos = [
            planet_lanes::<W, V>(&p[0], planets),
            planet_lanes::<W, V>(&p[1], planets),
            planet_lanes::<W, V>(&p[2], planets),
        ];
        let centre = [p[0][0], p[1][0], p[2][0]];
        let mass = planet_lanes::<W, V>(m, planets);
        let lane = V::from_array(BODY_INDEX[..W].try_into().expect("W <= GROUP lanes"));
        let splat = V::splat;
        // The central body's pairs: d = x_k - x_0 over the planets k.
        let d0 = [
            pos[0] - splat(centre[0]),
            pos[1] - splat(centre[1]),
            pos[2] - splat(centre[2]),
        ];
        let inv0 = inv_r3(d0);
        // Body k's sum, l ascending: the central body first (not for the first planet, the
        // centre-first pair), then the planets but k itself, each column of pair terms taken
        // from d = x_l - x_k over the lanes k.
        let first = lane.eq(splat(0.0));
        let f0 = splat(m[0]) * inv0;
        let mut acc = [splat(0.0); 3];
        for c in 0..3 {
            let term = f0 * (splat(centre[c]) - pos[c]);
            acc[c] = V::select(first, acc[c], acc[c] + term);
        }
        let pos_at = [pos[0].to_array(), pos[1].to_array(), pos[2].to_array()];
        for l in 0..planets {
            let d = [
                splat(pos_at[0][l]) - pos[0],
                splat(pos_at[1][l]) - pos[1],
                splat(pos_at[2][l]) - pos[2],
            ];
            let skip = lane.eq(splat(l as f64));
            let f = splat(m[l + 1]) * inv_r3(d);
            for c in 0..3 {
                acc[c] = V::select(skip, acc[c], acc[c] + f * d[c]);
            }
        }
        // The central body's sum over the planets but the first, ascending.
        let t0 = mass * inv0;
        let t0 = t0.to_array();
        for c in 0..3 {
            let d = d0[c].to_array();
            let mut sum = 0.0;
            for k in 1..planets {
                sum += t0[k] * d[k];
            }
            self.a[c][0] = sum;
            let lanes = acc[c].to_array();
            put_planet_lanes::<W>(&mut self.a[c], &lanes, planets);
        }
    }
}

/// The values of the `planets` bodies after the central body in `s` in the lanes, padded with
/// zeros. (Element by element below a full group, never a call to `memcpy`.)
#[inline(always)]
fn planet_lanes<const W: usize, V: GroupIo<W>>(s: &[f64], planets: usize) -> V {
    if planets == W {
        return V::from_array(s[1..=W].try_into().expect("W planets"));
    }
    let mut o = [0.0; W];
    for (i, o) in o.iter_mut().enumerate() {
        if i < planets {
            *o = s[1 + i];
        }
    }
    V::from_array(o)
}

/// Write the lanes of the `planets` bodies back after the central body's slot of `s`.
#[inline(always)]
fn put_planet_lanes<const W: usize>(s: &mut [f64], lanes: &[f64; W], planets: usize) {
    if planets == W {
        s[1..=W].copy_from_slice(lanes);
        return;
    }
    for (i, &v) in lanes.iter().enumerate() {
        if i < planets {
            s[1 + i] = v;
        }
    }
}

/// [`pair_accelerations`]'s arguments, run on the lane group a dispatch picks: the matrix layout
/// on [`GROUP`] lanes, the column layout on narrow ones.
struct Pairs<'a> {
    p: &'a Xyz,
    m: &'a [f64],
    a: &'a mut Xyz,
}

impl LaneKernel for Pairs<'_> {
    type Output = ();
    #[inline(always)]
    fn run<G: GroupIo>(self) {
        let n = self.m.len();
        // Positions padded past every half group's last lane; padding lanes are never read back.
        let padded = |s: &[f64]| {
            let mut o = [0.0; 2 * GROUP];
            o[..n].copy_from_slice(&s[..n]);
            o
        };
        let p = [padded(&self.p[0]), padded(&self.p[1]), padded(&self.p[2])];
        let inv_r3 = pair_terms::<G>(&p, n);
        let acc = sums::<G>(&p, self.m, &inv_r3);
        for c in 0..3 {
            self.a[c][..n].copy_from_slice(&acc[c][..n]);
        }
    }
}

/// `inv_r3[k][l] = 1 / r_kl^3` of every pair of the `n` bodies at padded positions `p`
/// (symmetric; the diagonal zero), two half groups of pairs `(i, j > i)` per lane group.
#[inline(always)]
fn pair_terms<G: GroupIo>(p: &[[f64; 2 * GROUP]; 3], n: usize) -> [[f64; GROUP]; GROUP] {
    // The half groups (i, first): body i's partners from `first` on, at most HALF of them.
    let mut halves = [(0, 0); 2 * GROUP];
    let mut count = 0;
    for i in 0..n - 1 {
        for first in (i + 1..n).step_by(HALF) {
            halves[count] = (i, first);
            count += 1;
        }
    }
    let mut inv_r3 = [[0.0; GROUP]; GROUP];
    for two in halves[..count].chunks(2) {
        // An odd last half is taken twice: computed and stored twice, the same values.
        let (lo, hi) = (two[0], *two.last().expect("a half"));
        let mut d = [[0.0; GROUP]; 3];
        for (c, d) in d.iter_mut().enumerate() {
            for (h, &(i, first)) in [lo, hi].iter().enumerate() {
                for t in 0..HALF {
                    d[h * HALF + t] = p[c][first + t] - p[c][i];
                }
            }
        }
        let d = [
            G::from_array(d[0]),
            G::from_array(d[1]),
            G::from_array(d[2]),
        ];
        let terms = super::pairs::inv_r3(d).to_array();
        for (h, &(i, first)) in [lo, hi].iter().enumerate() {
            for t in 0..HALF.min(n - first) {
                let (j, v) = (first + t, terms[h * HALF + t]);
                inv_r3[i][j] = v;
                inv_r3[j][i] = v;
            }
        }
    }
    inv_r3
}

/// Every body's pair acceleration, the bodies in the lanes: body l's pull added for l
/// ascending, where it pulls (not on itself, not across the centre-first pair).
#[inline(always)]
fn sums<G: GroupIo>(
    p: &[[f64; 2 * GROUP]; 3],
    m: &[f64],
    inv_r3: &[[f64; GROUP]; GROUP],
) -> [[f64; GROUP]; 3] {
    let splat = G::splat;
    let body = G::from_array(BODY_INDEX);
    let at = |c: usize| G::from_array(p[c][..GROUP].try_into().expect("a lane group"));
    let pos = [at(0), at(1), at(2)];
    let mut acc = [splat(0.0); 3];
    for (l, &ml) in m.iter().enumerate() {
        let skip = match l <= 1 {
            true => body.le(splat(1.0)),
            false => body.eq(splat(l as f64)),
        };
        let f = splat(ml) * G::from_array(inv_r3[l]);
        for c in 0..3 {
            let term = f * (splat(p[c][l]) - pos[c]);
            acc[c] = G::select(skip, acc[c], acc[c] + term);
        }
    }
    [acc[0].to_array(), acc[1].to_array(), acc[2].to_array()]
}
