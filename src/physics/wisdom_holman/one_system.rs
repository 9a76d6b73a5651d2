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
//! starts at +0 is never -0, so a zero term's sign cannot tell the two apart either). The pair
//! terms `1 / r^3` are taken once per pair (two rows of up to eight pairs `(i, j > i)` per
//! lane group), the sums with the bodies in the lanes. Only `+ - * / sqrt`, never fused or reordered, so every
//! SIMD level gives the same bits.

use super::watch::Xyz;
use crate::simd::lanes::{GroupIo, GROUP};
use crate::simd::{dispatch_lanes, LaneKernel};

/// Largest body count this path takes (one lane group); larger systems take the general loops.
pub(super) const MAX_BODIES: usize = GROUP;

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
    dispatch_lanes(Pairs { p, m, a })
}

/// [`pair_accelerations`]'s arguments, run on the lane group the dispatch picks.
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
        let [dx, dy, dz] = [
            G::from_array(d[0]),
            G::from_array(d[1]),
            G::from_array(d[2]),
        ];
        let r2 = dx * dx + dy * dy + dz * dz;
        let terms = (G::splat(1.0) / (r2 * r2.sqrt())).to_array();
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
