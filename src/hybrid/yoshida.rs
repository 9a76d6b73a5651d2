//! Symplectic composition of the second-order hybrid step into orders 4 and 6 (Yoshida 1990).

/// Drift weights of the substeps of one step of the given order (2, 4 or 6): each substep is a
/// full second-order kick-drift-kick step of length `w tau`, and the weights sum to one.
///
/// Order 4 is the triple jump `w1 w0 w1` with `w1 = 1 / (2 - 2^{1/3})`, `w0 = 1 - 2 w1`;
/// order 6 is Yoshida's solution A, `w3 w2 w1 w0 w1 w2 w3` with `w0 = 1 - 2 (w1 + w2 + w3)`.
pub fn substep_weights(order: u8) -> Option<&'static [f64]> {
    match order {
        2 => Some(&ORDER2),
        4 => Some(&ORDER4),
        6 => Some(&ORDER6),
        _ => None,
    }
}

const ORDER2: [f64; 1] = [1.0];

/// 1 / (2 - 2^{1/3}) and 1 - 2 w1, to full double precision.
const W4_1: f64 = 1.351_207_191_959_657_6;
const W4_0: f64 = -1.702_414_383_919_315_3;
const ORDER4: [f64; 3] = [W4_1, W4_0, W4_1];

/// Yoshida (1990) table 1, solution A.
const W6_1: f64 = -1.177_679_984_178_87;
const W6_2: f64 = 0.235_573_213_359_357;
const W6_3: f64 = 0.784_513_610_477_560;
const W6_0: f64 = 1.0 - 2.0 * (W6_1 + W6_2 + W6_3);
const ORDER6: [f64; 7] = [W6_3, W6_2, W6_1, W6_0, W6_1, W6_2, W6_3];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_sum_to_one_and_cancel_the_third_order_error() {
        for order in [2u8, 4, 6] {
            let w = substep_weights(order).unwrap();
            let s: f64 = w.iter().sum();
            assert!((s - 1.0).abs() < 1e-14, "order {order}");
            if order > 2 {
                // A symmetric composition of second-order steps is fourth order when sum w^3 = 0.
                let s3: f64 = w.iter().map(|w| w * w * w).sum();
                assert!(s3.abs() < 1e-13, "order {order}: {s3}");
            }
        }
        let w1 = 1.0 / (2.0 - 2f64.cbrt());
        assert!((W4_1 - w1).abs() < 1e-15 && (W4_0 - (1.0 - 2.0 * w1)).abs() < 1e-15);
        assert!(substep_weights(3).is_none());
    }

    #[test]
    fn sixth_order_cancels_the_fifth_order_error() {
        // For Yoshida's solution A, sum w^5 vanishes to the precision of the published digits.
        let s5: f64 = ORDER6.iter().map(|w| w.powi(5)).sum();
        assert!(s5.abs() < 1e-11, "{s5}");
    }
}
