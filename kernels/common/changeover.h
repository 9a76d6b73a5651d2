/*
 * changeover.h — the hybrid integrator's changeover function K (GENGA paper eqs 4-6, after
 * Chambers 1999), the critical radius from an uploaded Hill factor, the close-encounter
 * prechecker (section 3.2.3) and the pair term of the N^2 pair pass.
 *
 * Rust twins: `changeover_ratio`, `changeover` and `critical_radius` in
 * src/physics/changeover.rs; `is_candidate`, `pair_acceleration_with` and the per-pair arithmetic
 * of `tile_far` / `block_sums` in src/backend/cpu/pair_forces.rs; the critical-radius loop of
 * `critical_radii` in src/backend/cpu/mod.rs. Only + - * /, sqrt and comparisons: bitwise.
 * The Hill factor (m / 3 M0)^(1/3) is computed once on the host (`hill_factor_of`) and uploaded,
 * so no device needs cbrt. Summation over pairs is the kernels' business, not this header's.
 */
#ifndef ORRERY_CHANGEOVER_H
#define ORRERY_CHANGEOVER_H

#include "device.h"
#include "lanes.h"

/* Factor on the critical radius below which a pair is a close-encounter candidate. */
#define ORR_PRECHECK_FACTOR 3.0

/* K(r) as numerator and denominator. */
typedef struct {
    double num;
    double den;
} orr_ratio_t;

/* changeover_ratio: y = clamp((r / rcrit - 0.1) / 0.9, 0, 1), K = y^2 / (2y^2 - 2y + 1). */
DEVICE_FN orr_ratio_t orr_changeover_ratio(double r, double inv_rcrit)
{
    orr_ratio_t k;
    double y = orr_clamp((r * inv_rcrit - 0.1) * (1.0 / 0.9), 0.0, 1.0);
    double y2 = y * y;
    k.num = y2;
    k.den = 2.0 * y2 - 2.0 * y + 1.0;
    return k;
}

/* changeover: K(r) for a pair with critical radius rcrit. */
DEVICE_FN double orr_changeover(double r, double rcrit)
{
    orr_ratio_t k = orr_changeover_ratio(r, 1.0 / rcrit);
    return k.num / k.den;
}

/* The pair's inverse critical radius 1 / max(rc_i, rc_j) = min(1/rc_i, 1/rc_j). */
DEVICE_FN double orr_pair_inv_rcrit(double inv_rcrit_i, double inv_rcrit_j)
{
    return orr_min(inv_rcrit_i, inv_rcrit_j);
}

/* The precheck radius of a pair, PRECHECK_FACTOR max(rc_i, rc_j). */
DEVICE_FN double orr_precheck_limit(double rcrit_i, double rcrit_j)
{
    return ORR_PRECHECK_FACTOR * orr_max(rcrit_i, rcrit_j);
}

/* is_candidate: r^2 < (3 max(rc_i, rc_j))^2, with d = x_j - x_i. */
DEVICE_FN int orr_is_candidate(double dx, double dy, double dz, double rcrit_i, double rcrit_j)
{
    double limit = orr_precheck_limit(rcrit_i, rcrit_j);
    return dx * dx + dy * dy + dz * dz < limit * limit;
}

/* The far weight m_j / r^3 (K = 1), as tile_far and block_sums write it. */
DEVICE_FN double orr_far_weight(double m_j, double r2)
{
    return m_j / (r2 * sqrt(r2));
}

/* The near weight m_j K / r^3 = (m_j k_num) / (k_den r^3), as pair_acceleration_with and
 * block_sums write it. */
DEVICE_FN double orr_near_weight(double m_j, double r2, double inv_rcrit)
{
    double r = sqrt(r2);
    orr_ratio_t k = orr_changeover_ratio(r, inv_rcrit);
    return m_j * k.num / (k.den * r2 * r);
}

/* One pair (receiver i, source j) of the pair pass, as the tiles evaluate it. */
typedef struct {
    double r2;     /* |x_j - x_i|^2 */
    double w_far;  /* far weight, valid when !near */
    double w_near; /* changeover-weighted weight, valid when candidate */
    int candidate; /* prechecker candidate: r < 3 max(rc_i, rc_j) */
    int near;      /* left out of the far sum: a candidate, or the receiver itself (r = 0) */
} orr_pair_t;

/* The pair term of receiver i from source j with d = x_j - x_i. The far part adds w_far d to
 * the far sum unless `near`; the near part adds w_near d to the near sum if `candidate` and
 * j != i (the caller knows the indices). */
DEVICE_FN orr_pair_t orr_pair_term(double dx, double dy, double dz, double m_j, double rcrit_i,
    double rcrit_j, double inv_rcrit_i, double inv_rcrit_j)
{
    orr_pair_t p;
    double limit = orr_precheck_limit(rcrit_i, rcrit_j);
    p.r2 = dx * dx + dy * dy + dz * dz;
    p.candidate = p.r2 < limit * limit;
    p.near = p.candidate || p.r2 == 0.0;
    p.w_far = orr_far_weight(m_j, p.r2);
    p.w_near = orr_near_weight(m_j, p.r2, orr_pair_inv_rcrit(inv_rcrit_i, inv_rcrit_j));
    return p;
}

/* Critical radius of a massive body, eq. 6: max(n1 r hill_factor, (n2 tau) v) with the
 * uploaded hill_factor = (m / 3 M0)^(1/3), heliocentric position x and velocity v. */
DEVICE_FN double orr_critical_radius(double n1, double n2_tau, double hill_factor, double x,
    double y, double z, double vx, double vy, double vz)
{
    double dist = sqrt(x * x + y * y + z * z);
    double speed = sqrt(vx * vx + vy * vy + vz * vz);
    return orr_max(n1 * dist * hill_factor, n2_tau * speed);
}

/* Critical radius of a test particle (no Hill sphere of its own): (n2 tau) v. */
DEVICE_FN double orr_critical_radius_test_particle(double n2_tau, double vx, double vy, double vz)
{
    return n2_tau * sqrt(vx * vx + vy * vy + vz * vz);
}

#endif /* ORRERY_CHANGEOVER_H */
