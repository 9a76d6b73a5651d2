//! The hybrid integrator's changeover function (GENGA paper eqs 4-6, after Chambers 1999).
//!
//! The pair force is split as `F = K(r) F + (1 - K(r)) F`: the K part is applied in the kicks
//! (H_B), the (1 - K) part inside close-encounter Bulirsch-Stoer integrations (H_A). Applying K to
//! the force (not to the potential) keeps the two parts summing exactly to Newtonian gravity.

/// Critical radius of one body, eq. 6: `max(n1 R_H, n2 tau v)` with the Hill radius
/// `R_H = r (m / 3 M0)^{1/3}` from the heliocentric distance `r`, and speed `v`.
#[inline]
pub fn critical_radius(n1: f64, n2: f64, tau: f64, m: f64, m0: f64, r: f64, v: f64) -> f64 {
    critical_radius_from(n1, r, hill_factor_of(m, m0), n2 * tau * v)
}

/// [`critical_radius`] from the parts a pass keeps: `max(n1 r hill_factor, v_part)` with the
/// Hill factor `(m / 3 M0)^{1/3}` (cached per body) and the velocity part `v_part = n2 tau v`.
#[inline(always)]
pub fn critical_radius_from(n1: f64, r: f64, hill_factor: f64, v_part: f64) -> f64 {
    (n1 * r * hill_factor).max(v_part)
}

/// `(m / 3 M0)^{1/3}`, the Hill radius per unit heliocentric distance (0 for a massless body,
/// which skips the cube root).
#[inline]
pub fn hill_factor_of(m: f64, m0: f64) -> f64 {
    if m > 0.0 {
        (m / (3.0 * m0)).cbrt()
    } else {
        0.0
    }
}

/// Changeover K(r) for a pair with critical radius `rcrit` (the larger of the two bodies'), eqs 4-5:
/// `y = (r - 0.1 rcrit) / (0.9 rcrit)`, `K = 0` for y < 0, `y^2 / (2y^2 - 2y + 1)` for 0 <= y <= 1,
/// and 1 for y > 1.
#[inline(always)]
pub fn changeover(r: f64, rcrit: f64) -> f64 {
    let (num, den) = changeover_ratio(r, 1.0 / rcrit);
    num / den
}

/// K(r) as numerator and denominator, from the inverse critical radius, so that a force loop can
/// fold the division into its own (`1 / max(a, b) = min(1/a, 1/b)` exactly, so per-body inverses
/// serve every pair). Clamping y to [0, 1] gives the three branches of eq. 4 without branching,
/// which keeps the pair loop vectorisable.
#[inline(always)]
pub fn changeover_ratio(r: f64, inv_rcrit: f64) -> (f64, f64) {
    let y = ((r * inv_rcrit - 0.1) * (1.0 / 0.9)).clamp(0.0, 1.0);
    let y2 = y * y;
    (y2, 2.0 * y2 - 2.0 * y + 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branches_and_continuity() {
        let rc = 2.0;
        assert_eq!(changeover(0.0, rc), 0.0);
        assert_eq!(changeover(0.1 * rc, rc), 0.0);
        assert_eq!(changeover(rc, rc), 1.0);
        assert_eq!(changeover(10.0 * rc, rc), 1.0);
        // symmetric about y = 1/2
        let mid = 0.1 * rc + 0.45 * rc;
        assert!((changeover(mid, rc) - 0.5).abs() < 1e-15);
        let mut prev = 0.0;
        for k in 0..=1000 {
            let r = 1.2 * rc * k as f64 / 1000.0;
            let kk = changeover(r, rc);
            assert!(kk >= prev && (0.0..=1.0).contains(&kk));
            prev = kk;
        }
    }

    #[test]
    fn critical_radius_takes_the_larger_term() {
        // Hill term dominates for a slow body.
        let rc = critical_radius(3.0, 0.4, 0.1, 3e-6, 1.0, 1.0, 0.0);
        assert!((rc - 3.0 * (1e-6f64).cbrt()).abs() < 1e-15);
        // Velocity term dominates for a tiny body.
        let rc = critical_radius(3.0, 0.4, 0.1, 1e-12, 1.0, 1.0, 1.0);
        assert!((rc - 0.04).abs() < 1e-15);
    }
}
