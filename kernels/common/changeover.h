/*
 * changeover.h — the hybrid integrator's changeover function K (GENGA paper eqs 4-6, after
 * Chambers 1999), the critical radius from an uploaded Hill factor, the close-encounter
 * prechecker (section 3.2.3) and the pair term of the N^2 pair pass.
 *
 * Rust twins: `Changeover::ratio`, `Changeover::k`, `exp_neg` and `critical_radius` in
 * src/physics/changeover.rs; `is_candidate`, `pair_acceleration_with` and the per-pair arithmetic
 * of `tile_far` / `block_sums` in src/backend/cpu/pair_forces.rs; the critical-radius loop of
 * `critical_radii` in src/backend/cpu/mod.rs. Only + - * /, sqrt, round, comparisons and bit
 * moves: bitwise.
 * The Hill factor (m / 3 M0)^(1/3) is computed once on the host (`hill_factor_of`) and uploaded,
 * so no device needs cbrt. Summation over pairs is the kernels' business, not this header's.
 */
#ifndef ORRERY_CHANGEOVER_H
#define ORRERY_CHANGEOVER_H

#include "device.h"
#include "lanes.h"

/* Factor on the critical radius below which a pair is a close-encounter candidate. */
#define ORR_PRECHECK_FACTOR 3.0

/* The changeover functions (Rust: `Changeover::code`): GENGA's eq. 4, Mercury's quintic, and
 * the infinitely smooth f(y) / (f(y) + f(1 - y)) with f(x) = exp(-1/x). Kernels take the run's
 * function as a u32 argument `changeover`. */
#define ORR_CHANGEOVER_GENGA 0u
#define ORR_CHANGEOVER_QUINTIC 1u
#define ORR_CHANGEOVER_INFINITY 2u

/* K(r) as numerator and denominator. */
typedef struct {
    double num;
    double den;
} orr_ratio_t;

/* changeover_y: y = clamp((r / rcrit - 0.1) / 0.9, 0, 1). */
DEVICE_FN double orr_changeover_y(double r, double inv_rcrit)
{
    return orr_clamp((r * inv_rcrit - 0.1) * (1.0 / 0.9), 0.0, 1.0);
}

/* exp_neg: e^-u for u >= 0 (capped at 708) from + - * /, round and bit moves: u = k ln 2 + s,
 * e^-u = 2^-k e^-s with e^-s from its Taylor polynomial to degree 13, 2^-k from its exponent
 * bits (1023 - k moved out of the low mantissa bits of 2^52 + (1023 - k)). */
DEVICE_FN double orr_exp_neg(double u)
{
    const double ln2_hi = 6.931471803691238e-1;
    const double ln2_lo = 1.9082149292705877e-10;
    const double two_52 = 4503599627370496.0;
    double k, x, p;
    u = orr_min(u, 708.0);
    k = round(u * 1.4426950408889634);
    x = -((u - k * ln2_hi) - k * ln2_lo);
    p = 1.0 / 6227020800.0;
    p = p * x + 1.0 / 479001600.0;
    p = p * x + 1.0 / 39916800.0;
    p = p * x + 1.0 / 3628800.0;
    p = p * x + 1.0 / 362880.0;
    p = p * x + 1.0 / 40320.0;
    p = p * x + 1.0 / 5040.0;
    p = p * x + 1.0 / 720.0;
    p = p * x + 1.0 / 120.0;
    p = p * x + 1.0 / 24.0;
    p = p * x + 1.0 / 6.0;
    p = p * x + 0.5;
    p = (p * x + 1.0) * x + 1.0;
    return p * ORR_F64_FROM_BITS((ORR_F64_TO_BITS((1023.0 - k) + two_52) - ORR_F64_TO_BITS(two_52))
                                 << 52);
}

/* ratio_of_y of `Changeover`: K at the clamped y as numerator and denominator. */
DEVICE_FN orr_ratio_t orr_changeover_ratio_of_y(u32 changeover, double y)
{
    orr_ratio_t k;
    if (changeover == ORR_CHANGEOVER_QUINTIC) {
        k.num = y * y * y * (10.0 + y * (6.0 * y - 15.0));
        k.den = 1.0;
    } else if (changeover == ORR_CHANGEOVER_INFINITY && (y >= 1.0 || y <= 0.0)) {
        /* Outside the shell: the exponential below would give exactly these bits. */
        k.num = y >= 1.0 ? 1.0 : 0.0;
        k.den = 1.0;
    } else if (changeover == ORR_CHANGEOVER_INFINITY) {
        /* K = 1 / (1 + e^t), t = (1 - 2y) / (y (1 - y)), without overflow. */
        double t = (1.0 - 2.0 * y) / (y * (1.0 - y));
        double e = orr_exp_neg(fabs(t));
        double num = t >= 0.0 ? e : 1.0;
        k.num = y > 0.0 ? num : 0.0;
        k.den = 1.0 + e;
    } else {
        double y2 = y * y;
        k.num = y2;
        k.den = 2.0 * y2 - 2.0 * y + 1.0;
    }
    return k;
}

/* Changeover::ratio: K(r) of the function `changeover` from the pair's inverse critical radius. */
DEVICE_FN orr_ratio_t orr_changeover_ratio(u32 changeover, double r, double inv_rcrit)
{
    return orr_changeover_ratio_of_y(changeover, orr_changeover_y(r, inv_rcrit));
}

/* Changeover::k: K(r) for a pair with critical radius rcrit. */
DEVICE_FN double orr_changeover(u32 changeover, double r, double rcrit)
{
    orr_ratio_t k = orr_changeover_ratio(changeover, r, 1.0 / rcrit);
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
DEVICE_FN double orr_near_weight(u32 changeover, double m_j, double r2, double inv_rcrit)
{
    double r = sqrt(r2);
    orr_ratio_t k = orr_changeover_ratio(changeover, r, inv_rcrit);
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
DEVICE_FN orr_pair_t orr_pair_term(u32 changeover, double dx, double dy, double dz, double m_j,
    double rcrit_i, double rcrit_j, double inv_rcrit_i, double inv_rcrit_j)
{
    orr_pair_t p;
    double limit = orr_precheck_limit(rcrit_i, rcrit_j);
    p.r2 = dx * dx + dy * dy + dz * dz;
    p.candidate = p.r2 < limit * limit;
    p.near = p.candidate || p.r2 == 0.0;
    p.w_far = orr_far_weight(m_j, p.r2);
    p.w_near = orr_near_weight(changeover, m_j, p.r2, orr_pair_inv_rcrit(inv_rcrit_i, inv_rcrit_j));
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

/* A massive body's critical radius raised to `floor` when one is set (floor > 0: the stop's
 * minimum distance, so that the encounter search sees every pair that comes that close).
 * Rust twin: `with_floor` in src/physics/changeover.rs. */
DEVICE_FN double orr_with_floor(double rcrit, double floor)
{
    return floor > 0.0 ? orr_max(rcrit, floor) : rcrit;
}

/* Critical radius of a test particle (no Hill sphere of its own): (n2 tau) v. */
DEVICE_FN double orr_critical_radius_test_particle(double n2_tau, double vx, double vy, double vz)
{
    return n2_tau * sqrt(vx * vx + vy * vy + vz * vz);
}

#endif /* ORRERY_CHANGEOVER_H */
