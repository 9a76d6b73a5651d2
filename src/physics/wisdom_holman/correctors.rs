//! Symplectic correctors (Wisdom, Holman & Touma 1996, section 4; Rein & Tamayo 2015, section
//! 3.4, whose orders and coefficients WHFast uses). The Wisdom-Holman map is conjugate to a map
//! whose energy error is `O(eps dt^(n+1) + eps^2 dt^2)` for a corrector of order n: the corrector
//! `C` takes real coordinates to the map's, `C^-1` back. Both are products of
//! `Z(a, b) = X(a, b) X(-a, -b)` with `X(a, b) = D(a) K(b) D(-a)` (D a Kepler drift, K an
//! interaction kick; written as `D(a) K(-b) D(-2a) K(b) D(a)`), with `a_k = k sqrt(7/40) dt`.

/// `sqrt(7/40)`: the drift coefficients are its multiples, `a_k = k A1`.
const A1: f64 = 0.4183300132670378;

/// The kick coefficients `b` of the orders WHFast offers, outermost first (WHT96's solution of
/// their linear conditions, as WHFast tabulates them to 50 digits; here the nearest doubles).
const B3: [f64; 1] = [-0.024900596027799867];
const B5: [f64; 2] = [-0.008300198675933288, 0.041500993379666444];
const B7: [f64; 3] = [
    0.0024926811426922105,
    -0.018270923246702132,
    0.0539643990931275,
];
const B11: [f64; 5] = [
    0.0002036157964785465,
    -0.0023487215292295354,
    0.012309078592019946,
    -0.03812161368128865,
    0.07259339474884274,
];
const B17: [f64; 8] = [
    -4.334741547337358e-6,
    7.643635522793574e-5,
    -0.0006359998307581766,
    0.0033132577069380654,
    -0.01207176082234229,
    0.03242219886471358,
    -0.0651928635763779,
    0.09305610377142595,
];

/// The corrector orders there are (0: none).
pub const ORDERS: [u8; 6] = [0, 3, 5, 7, 11, 17];

/// The kick coefficients of corrector `order`, outermost first; `None` for an order that does
/// not exist, an empty slice for 0.
pub fn coefficients(order: u8) -> Option<&'static [f64]> {
    Some(match order {
        0 => &[],
        3 => &B3,
        5 => &B5,
        7 => &B7,
        11 => &B11,
        17 => &B17,
        _ => return None,
    })
}

/// The `(a, b)` of each `Z` of corrector `order` for a step `dt`, in the order they apply;
/// `sign` +1 for `C` (real to map coordinates), -1 for `C^-1`. The sequence is
/// `Z(-a_K, -s b_1) ... Z(-a_1, -s b_K) Z(a_1, s b_K) ... Z(a_K, s b_1)`, K coefficients
/// (order 3: `Z(a_1, -s b_1) Z(-a_1, s b_1)`).
pub fn z_sequence(order: u8, dt: f64, sign: f64) -> impl Iterator<Item = (f64, f64)> {
    let b = coefficients(order).unwrap_or(&[]);
    let k = b.len();
    // Order 3 is the one exception: its drifts run from +a_1 (its kicks as the others').
    let a_sign = if order == 3 { -1.0 } else { 1.0 };
    let down = (0..k).map(move |j| {
        let a = (k - j) as f64 * A1 * dt;
        (-a_sign * a, -sign * b[j] * dt)
    });
    let up = (0..k).rev().map(move |j| {
        let a = (k - j) as f64 * A1 * dt;
        (a_sign * a, sign * b[j] * dt)
    });
    down.chain(up)
}
