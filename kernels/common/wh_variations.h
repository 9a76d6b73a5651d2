/*
 * wh_variations.h — the first-order variational equations of the Wisdom-Holman map for one
 * system, one work-item per system, and MEGNO's running sums (Cincotta & Simo 2000, with
 * REBOUND's definitions): the tangent kick by the Hessian of the interaction potential, with GR
 * and J2 when on, MEGNO's sample at the kick, the tangent drift by the Kepler drift's Jacobian
 * (kepler_tangent.h) and the rescaling of a tangent vector grown too long or short.
 * src/physics/wisdom_holman/variational.rs explains each step.
 *
 * The layout is wisdom_holman.h's: body k of system s at `k * L + s`, components `n * L` apart.
 * A tangent vector is six components (dx, dy, dz, dvx, dvy, dvz, Jacobi); the sums are nine
 * per system, `c * L + s` (`MegnoSums::values`: elapsed, t, ys, yss, cov_yt, var_t, mean_t,
 * mean_y, n).
 *
 * Rust twins, operation for operation:
 *   orr_wh_pair_sums            pair_sums with Tidal (wisdom_holman.h)
 *   orr_wh_potential_tangent    CentralPotential::add_tangent_accelerations
 *   orr_wh_kick_velocities      kick_bodies with TangentTerm (wisdom_holman.h)
 *   orr_wh_megno_ratio          Variations::sample's ratio (add_centre_pair included)
 *   orr_megno_add               MegnoSums::add
 *   orr_wh_vary_kick            Variations::kick_and_sample
 *   orr_wh_drift_with_tangent   WhPack::drift_into with the variations
 *   orr_wh_rescale              Variations::rescale
 */
#ifndef ORRERY_WH_VARIATIONS_H
#define ORRERY_WH_VARIATIONS_H

#include "device.h"
#include "forces.h"
#include "kepler_tangent.h"
#include "wisdom_holman.h"

/* Entries of a system's MEGNO sums. */
#define ORR_MEGNO_ELAPSED 0
#define ORR_MEGNO_T 1
#define ORR_MEGNO_YS 2
#define ORR_MEGNO_YSS 3
#define ORR_MEGNO_COV_YT 4
#define ORR_MEGNO_VAR_T 5
#define ORR_MEGNO_MEAN_T 6
#define ORR_MEGNO_MEAN_Y 7
#define ORR_MEGNO_N 8
#define ORR_MEGNO_LEN 9

/* The central body's GR and J2 along the tangent: the change of their accelerations at the
 * heliocentric positions for the heliocentric tangent positions, added to da, the central body
 * taking the reaction (m_k / m_0) dg_k. */
DEVICE_FN void orr_wh_potential_tangent(orr_wh_at_t at, GLOBAL const double *RESTRICT f,
    GLOBAL const double *RESTRICT m, GLOBAL const double *RESTRICT ratio,
    GLOBAL const double *RESTRICT p, GLOBAL const double *RESTRICT dp, GLOBAL double *RESTRICT da)
{
    u32 nl = at.n * at.L, k, c;
    for (k = 1; k < at.n; k++) {
        u32 i = orr_wh_i(at, k);
        double x[3], dx[3], dg[3];
        for (c = 0; c < 3; c++) {
            x[c] = p[c * nl + i] - p[c * nl + at.s];
            dx[c] = dp[c * nl + i] - dp[c * nl + at.s];
        }
        orr_potential_accel_tangent(f, m[at.s], x, dx, dg);
        for (c = 0; c < 3; c++) {
            da[c * nl + i] += dg[c];
            da[c * nl + at.s] -= ratio[i] * dg[c];
        }
    }
}

/* MEGNO's sample at the kick, delta . d(delta)/dt / |delta|^2 over every body in inertial
 * coordinates: the tangent velocities the mean of those before (dv) and after (dv_out) the
 * kick, into mean and, inertial, du; the tangent accelerations da with the centre-first pair's
 * term added. */
DEVICE_FN double orr_wh_megno_ratio(orr_wh_at_t at, GLOBAL const double *RESTRICT m,
    GLOBAL const double *RESTRICT m_over_eta, GLOBAL const double *RESTRICT p,
    GLOBAL const double *RESTRICT dp, GLOBAL double *RESTRICT da,
    GLOBAL const double *RESTRICT dv, GLOBAL const double *RESTRICT dv_out,
    GLOBAL double *RESTRICT mean, GLOBAL double *RESTRICT du)
{
    u32 nl = at.n * at.L, k, c;
    u32 i0 = at.s, i1 = orr_wh_i(at, 1);
    double d[3], dd[3], t[3], dot = 0.0, norm = 0.0;
    for (c = 0; c < 3; c++)
        for (k = 0; k < at.n; k++) {
            u32 i = c * nl + orr_wh_i(at, k);
            mean[i] = 0.5 * (dv[i] + dv_out[i]);
        }
    orr_wh_from_jacobi3(at, m_over_eta, mean, du);
    for (c = 0; c < 3; c++) {
        d[c] = p[c * nl + i1] - p[c * nl + i0];
        dd[c] = dp[c * nl + i1] - dp[c * nl + i0];
    }
    orr_wh_tidal(d, dd, t);
    for (c = 0; c < 3; c++) {
        da[c * nl + i0] += m[i1] * t[c];
        da[c * nl + i1] -= m[i0] * t[c];
    }
    for (k = 0; k < at.n; k++)
        for (c = 0; c < 3; c++) {
            u32 i = c * nl + orr_wh_i(at, k);
            dot += dp[i] * du[i] + du[i] * da[i];
            norm += dp[i] * dp[i] + du[i] * du[i];
        }
    return dot / norm;
}

/* MEGNO at the last sample (0 before the first). */
DEVICE_FN double orr_megno_of(const double *v)
{
    return v[ORR_MEGNO_T] == 0.0 ? 0.0 : v[ORR_MEGNO_YSS] / v[ORR_MEGNO_T];
}

/* Add a step of length dt with the ratio sampled at its kick to the sums v. */
DEVICE_FN void orr_megno_add(double *v, double dt, double ratio)
{
    double t = v[ORR_MEGNO_ELAPSED] + 0.5 * dt;
    double y, n, megno, w;
    v[ORR_MEGNO_ELAPSED] += dt;
    v[ORR_MEGNO_T] = t;
    v[ORR_MEGNO_YS] += 2.0 * t * dt * ratio;
    y = v[ORR_MEGNO_YS] / t;
    v[ORR_MEGNO_YSS] += y * dt;
    v[ORR_MEGNO_N] += 1.0;
    n = v[ORR_MEGNO_N];
    v[ORR_MEGNO_MEAN_T] += (t - v[ORR_MEGNO_MEAN_T]) / n;
    megno = orr_megno_of(v);
    v[ORR_MEGNO_MEAN_Y] += (megno - v[ORR_MEGNO_MEAN_Y]) / n;
    w = (n - 1.0) / n;
    v[ORR_MEGNO_COV_YT] += w * (t - v[ORR_MEGNO_MEAN_T]) * (megno - v[ORR_MEGNO_MEAN_Y]);
    v[ORR_MEGNO_VAR_T] += w * (t - v[ORR_MEGNO_MEAN_T]) * (t - v[ORR_MEGNO_MEAN_T]);
}

/* The tangent kick of the step and MEGNO's ratio there (`kick_and_sample`): the tangent vector
 * `tan` (its positions, and its velocities before the kick) at the map's Jacobi positions x and
 * inertial positions p, the kicked velocities into tan_out's; `work` holds four three-component
 * arrays (inertial tangent positions, tangent accelerations, Jacobi ones then the mean
 * velocities, inertial mean velocities). */
DEVICE_FN double orr_wh_vary_kick(orr_wh_at_t at, u32 flags, double h,
    GLOBAL const double *RESTRICT f, GLOBAL const double *RESTRICT masses,
    GLOBAL const double *RESTRICT ratio, GLOBAL const double *RESTRICT x,
    GLOBAL const double *RESTRICT p, GLOBAL const double *RESTRICT tan,
    GLOBAL double *RESTRICT tan_out, GLOBAL double *RESTRICT work)
{
    u32 nl = at.n * at.L, c;
    GLOBAL const double *m = masses;
    GLOBAL const double *eta = masses + nl;
    GLOBAL const double *inv_eta = masses + 2 * nl;
    GLOBAL const double *m_over_eta = masses + 3 * nl;
    GLOBAL double *dp = work;
    GLOBAL double *da = work + 3 * nl;
    GLOBAL double *w = work + 6 * nl;
    GLOBAL double *du = work + 9 * nl;
    orr_wh_from_jacobi3(at, m_over_eta, tan, dp);
    orr_wh_pair_sums(at, m, p, dp, da);
    if (flags & ORR_WH_POTENTIAL)
        orr_wh_potential_tangent(at, f, m, ratio, p, dp, da);
    for (c = 0; c < 3; c++)
        orr_wh_to_jacobi(at, m, inv_eta, da + c * nl, w + c * nl);
    orr_wh_kick_velocities(at, h, eta, x, tan, w, tan + 3 * nl, tan_out + 3 * nl);
    return orr_wh_megno_ratio(at, m, m_over_eta, p, dp, da, tan + 3 * nl, tan_out + 3 * nl, w, du);
}

/* The Kepler drift D(h) with the tangent vector (orr_wh_drift's, each body's tangent map from
 * the same solution of Kepler's equation): the map's state from x into x_out and v in place,
 * the tangent vector's positions from tan into tan_out and its velocities in tan_out in place.
 * Returns 0, or (body << 2) | code of the first body whose drift failed. */
DEVICE_FN u32 orr_wh_drift_with_tangent(orr_wh_at_t at, double h,
    GLOBAL const double *RESTRICT eta, GLOBAL const double *RESTRICT inv_eta,
    GLOBAL const double *RESTRICT x, GLOBAL double *RESTRICT x_out, GLOBAL double *RESTRICT v,
    GLOBAL const double *RESTRICT tan, GLOBAL double *RESTRICT tan_out)
{
    u32 nl = at.n * at.L, k, c;
    for (c = 0; c < 3; c++) {
        x_out[c * nl + at.s] = x[c * nl + at.s] + h * v[c * nl + at.s];
        tan_out[c * nl + at.s] = tan[c * nl + at.s] + h * tan_out[(3 + c) * nl + at.s];
    }
    for (k = 1; k < at.n; k++) {
        u32 i = orr_wh_i(at, k);
        orr_phase_t st, d, moved;
        for (c = 0; c < 3; c++) {
            st.x[c] = x[c * nl + i];
            st.v[c] = v[c * nl + i];
            d.x[c] = tan[c * nl + i];
            d.v[c] = tan_out[(3 + c) * nl + i];
        }
        orr_drift_t out = orr_drift_with_tangent(eta[i], inv_eta[i], h, st, d, &moved);
        if (out.err != ORR_KEPLER_OK)
            return (k << 2) | (u32)out.err;
        for (c = 0; c < 3; c++) {
            x_out[c * nl + i] = out.s.x[c];
            v[c * nl + i] = out.s.v[c];
            tan_out[c * nl + i] = moved.x[c];
            tan_out[(3 + c) * nl + i] = moved.v[c];
        }
    }
    return 0;
}

/* Rescale the tangent vector tan to unit length when its squared length leaves
 * [1e-200, 1e200] (a NaN one, from a failed tangent drift, stays NaN). */
DEVICE_FN void orr_wh_rescale(orr_wh_at_t at, GLOBAL double *RESTRICT tan)
{
    u32 nl = at.n * at.L, k, c;
    double d2 = 0.0, f;
    for (k = 0; k < at.n; k++)
        for (c = 0; c < 3; c++) {
            u32 i = c * nl + orr_wh_i(at, k);
            d2 += tan[i] * tan[i] + tan[3 * nl + i] * tan[3 * nl + i];
        }
    if ((d2 >= 1e-200 && d2 <= 1e200) || !(d2 > 0.0 && orr_is_finite(d2)))
        return;
    f = 1.0 / sqrt(d2);
    for (k = 0; k < at.n; k++)
        for (c = 0; c < 6; c++)
            tan[c * nl + orr_wh_i(at, k)] *= f;
}

#endif /* ORRERY_WH_VARIATIONS_H */
