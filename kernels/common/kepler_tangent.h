/*
 * kepler_tangent.h — the tangent map of the Kepler drift: how a small change (dx0, dv0) of a
 * body's state moves its state after a drift of dt about mu, from the universal-variable
 * solution (Danby 1988, ch. 6.9) differentiated as Mikkola & Innanen (1999) do; the module docs
 * of src/physics/kepler/tangent.rs derive every line.
 *
 * Rust twins, operation for operation:
 *   orr_stumpff_series        tangent::stumpff_series
 *   orr_tangent_from_stumpff  tangent::tangent_from_stumpff
 *   orr_tangent_from_root     tangent_lanes::tangent_from_root, on one lane
 *   orr_drift_tangent_scalar  tangent::drift_tangent
 *   orr_drift_with_tangent    tangent_lanes::drift_with_tangent for one body
 * The lane path uses only + - * / and sqrt on the stages of the drift's own lane path
 * (kepler.h: orr_drift_lane), so it is bitwise the CPU on every target; the scalar fallback
 * (unbound orbits, e >= 0.9, drifts of more than half a period) solves Kepler's equation with
 * kepler.h's scalar solvers, whose sin and cos are the target's (see kepler.h's header).
 */
#ifndef ORRERY_KEPLER_TANGENT_H
#define ORRERY_KEPLER_TANGENT_H

#include "device.h"
#include "forces.h"
#include "kepler.h"
#include "lanes.h"

#define ORR_PI 3.141592653589793

/* A tangent vector of NaNs: a tangent drift that failed (never a silent wrong value). */
DEVICE_FN void orr_tangent_lost(orr_phase_t *d)
{
    int k;
    for (k = 0; k < 3; k++) {
        d->x[k] = ORR_INF - ORR_INF;
        d->v[k] = ORR_INF - ORR_INF;
    }
}

/* `nested`: 1 - z (1 - z (1 - ...) / d1) / d0 for the divisors d0..d5 (d4 = d5 = 0: four),
 * innermost last, each division a product with the divisor's reciprocal. */
DEVICE_FN double orr_nested(double z, double d0, double d1, double d2, double d3, double d4,
    double d5)
{
    double inner = 1.0;
    if (d5 != 0.0)
        inner = 1.0 - z * inner * (1.0 / d5);
    if (d4 != 0.0)
        inner = 1.0 - z * inner * (1.0 / d4);
    inner = 1.0 - z * inner * (1.0 / d3);
    inner = 1.0 - z * inner * (1.0 / d2);
    inner = 1.0 - z * inner * (1.0 / d1);
    inner = 1.0 - z * inner * (1.0 / d0);
    return inner;
}

/* Stumpff's c2 .. c5 from their series in z (for |z| < 0.1). */
DEVICE_FN void orr_stumpff_series(double z, double c[4])
{
    c[0] = orr_nested(z, 12.0, 30.0, 56.0, 90.0, 132.0, 182.0) * (1.0 / 2.0);
    c[1] = orr_nested(z, 20.0, 42.0, 72.0, 110.0, 156.0, 210.0) * (1.0 / 6.0);
    c[2] = orr_nested(z, 30.0, 56.0, 90.0, 132.0, 0.0, 0.0) * (1.0 / 24.0);
    c[3] = orr_nested(z, 42.0, 72.0, 110.0, 156.0, 0.0, 0.0) * (1.0 / 120.0);
}

/* The drift's tangent map from its universal anomaly s, beta = 2 mu / r0 - v0^2 and Stumpff's
 * c0 .. c5 at beta s^2: the change *out of the state after the drift for the change d of the
 * state st before it. */
DEVICE_FN void orr_tangent_from_stumpff(double mu, double dt, double s, double beta,
    const double c[6], orr_phase_t st, orr_phase_t d, orr_phase_t *out)
{
    double r0 = sqrt(orr_dot(st.x, st.x));
    double eta = orr_dot(st.x, st.v);
    double s2 = s * s;
    double g0 = c[0], g1 = s * c[1], g2 = s2 * c[2], g3 = s2 * s * c[3];
    double g4 = s2 * s2 * c[4], g5 = s2 * s2 * s * c[5];
    double r = r0 * g0 + eta * g1 + mu * g2;
    double inv_r0 = 1.0 / r0, inv_r = 1.0 / r;
    double inv_r0_sq = inv_r0 * inv_r0;
    double f = 1.0 - mu * g2 * inv_r0, g = dt - mu * g3;
    double fdot = -mu * g1 * (inv_r * inv_r0), gdot = 1.0 - mu * g2 * inv_r;
    double dr0 = orr_dot(st.x, d.x) * inv_r0;
    double deta = orr_dot(d.x, st.v) + orr_dot(st.x, d.v);
    double dbeta = -2.0 * mu * dr0 * inv_r0_sq - 2.0 * orr_dot(st.v, d.v);
    double b0 = -0.5 * s * g1;
    double b1 = 0.5 * (g3 - s * g2);
    double b2 = 0.5 * (2.0 * g4 - s * g3);
    double b3 = 0.5 * (3.0 * g5 - s * g4);
    double f_beta = r0 * b1 + eta * b2 + mu * b3;
    double ds = -(g1 * dr0 + g2 * deta + f_beta * dbeta) * inv_r;
    double dg0 = -beta * g1 * ds + b0 * dbeta;
    double dg1 = g0 * ds + b1 * dbeta;
    double dg2 = g1 * ds + b2 * dbeta;
    double dg3 = g2 * ds + b3 * dbeta;
    double dr = g0 * dr0 + r0 * dg0 + g1 * deta + eta * dg1 + mu * dg2;
    double df = -mu * (dg2 * inv_r0 - g2 * dr0 * inv_r0_sq);
    double dg = -mu * dg3;
    double dfdot = -mu * (dg1 - g1 * (dr * inv_r + dr0 * inv_r0)) * (inv_r * inv_r0);
    double dgdot = -mu * (dg2 - g2 * dr * inv_r) * inv_r;
    int k;
    for (k = 0; k < 3; k++) {
        out->x[k] = df * st.x[k] + f * d.x[k] + dg * st.v[k] + g * d.v[k];
        out->v[k] = dfdot * st.x[k] + fdot * d.x[k] + dgdot * st.v[k] + gdot * d.v[k];
    }
}

/* The tangent map of a lane drift from its stages (orr_drift_lane's root): 1 where the lane path
 * accepts it (a converged root within half a period, a finite result), else 0 and *out is
 * garbage. */
DEVICE_FN int orr_tangent_from_root(orr_lane_t lane, double mu, double dt, orr_phase_t st,
    orr_phase_t d, orr_phase_t *out)
{
    double x = lane.x;
    double r0 = sqrt(orr_dot(st.x, st.x));
    double beta = 2.0 * mu / r0 - orr_dot(st.v, st.v);
    double s = x / sqrt(beta);
    double z = x * x;
    double c[6];
    int ok, k;
    c[0] = lane.cos;
    if (z < 0.1) {
        orr_stumpff_series(z, c + 2);
        c[1] = 1.0 - z * c[3];
    } else {
        c[1] = lane.sin / x;
        c[2] = lane.omc / z;
        c[3] = (x - lane.sin) / (x * z);
        c[4] = (0.5 - c[2]) / z;
        c[5] = (1.0 / 6.0 - c[3]) / z;
    }
    orr_tangent_from_stumpff(mu, dt, s, beta, c, st, d, out);
    ok = lane.setup_ok && lane.converged && fabs(lane.n * dt) <= ORR_PI;
    for (k = 0; k < 3; k++)
        ok = ok && orr_is_finite(out->x[k]) && orr_is_finite(out->v[k]);
    return ok;
}

/* `elliptic_anomaly`: the universal anomaly of a drift of dt on a bound orbit of r0,
 * eta = x0 . v0 and beta from the change of eccentric anomaly; 0 in *ok where that does not
 * apply (unbound or very eccentric orbits, drifts of more than half a period). */
DEVICE_FN double orr_elliptic_anomaly(double mu, double dt, double r0, double eta, double beta,
    int *ok)
{
    double alpha, n, ec, es, dm;
    orr_elliptic_t sol;
    *ok = 0;
    if (orr_is_nan(beta) || beta <= 0.0)
        return 0.0;
    alpha = beta / mu;
    n = sqrt(mu * alpha * alpha * alpha);
    ec = 1.0 - r0 * alpha;
    es = eta * sqrt(alpha / mu);
    dm = n * dt;
    if (ec * ec + es * es >= 0.9 * 0.9 || fabs(dm) > ORR_PI)
        return 0.0;
    sol = orr_solve_elliptic(ec, es, r0 * alpha, dm);
    if (!sol.ok)
        return 0.0;
    *ok = 1;
    return sol.x / sqrt(beta);
}

/* `drift_tangent`: the tangent map of the drift of st by dt about mu for the change d, into
 * *out; ORR_KEPLER_* as the drift's for input it cannot drift. */
DEVICE_FN int orr_drift_tangent_scalar(double mu, double dt, orr_phase_t st, orr_phase_t d,
    orr_phase_t *out)
{
    double r0 = sqrt(orr_dot(st.x, st.x));
    double v2 = orr_dot(st.v, st.v);
    double eta, beta, s, z, c[6];
    int finite = orr_is_finite(mu) && orr_is_finite(r0) && orr_is_finite(v2) && orr_is_finite(dt);
    int elliptic, k;
    orr_four_t cs;
    if (!(mu > 0.0 && r0 > 0.0 && finite))
        return ORR_KEPLER_INVALID_INPUT;
    if (dt == 0.0) {
        *out = d;
        return ORR_KEPLER_OK;
    }
    eta = orr_dot(st.x, st.v);
    beta = 2.0 * mu / r0 - v2;
    s = orr_elliptic_anomaly(mu, dt, r0, eta, beta, &elliptic);
    if (!elliptic) {
        orr_four_t g = orr_solve_universal(mu, dt, r0, eta, beta, &s);
        if (!g.ok)
            return ORR_KEPLER_NO_CONVERGENCE;
    }
    z = beta * s * s;
    cs = orr_stumpff(z);
    for (k = 0; k < 4; k++)
        c[k] = cs.v[k];
    if (fabs(z) < 0.1) {
        double series[4];
        orr_stumpff_series(z, series);
        c[4] = series[2];
        c[5] = series[3];
    } else {
        c[4] = (0.5 - c[2]) / z;
        c[5] = (1.0 / 6.0 - c[3]) / z;
    }
    orr_tangent_from_stumpff(mu, dt, s, beta, c, st, d, out);
    for (k = 0; k < 3; k++)
        if (!orr_is_finite(out->x[k]) || !orr_is_finite(out->v[k]))
            return ORR_KEPLER_NON_FINITE;
    return ORR_KEPLER_OK;
}

/* One body of `drift_with_tangent`: its drift (orr_drift_body's) and, from the same solution
 * of Kepler's equation where the lane path accepts it, the tangent map of the change d into
 * *d_out (by orr_drift_tangent_scalar where it does not: NaN where that fails, never a silent
 * wrong value). */
DEVICE_FN orr_drift_t orr_drift_with_tangent(double mu, double inv_mu, double dt, orr_phase_t st,
    orr_phase_t d, orr_phase_t *d_out)
{
    int by_lane = 0;
    orr_drift_t out;
    if (orr_is_finite(dt) && dt != 0.0) {
        orr_lane_t lane = orr_drift_lane(mu, inv_mu, dt, st);
        int taken = orr_tangent_from_root(lane, mu, dt, st, d, d_out);
        if (!taken && orr_drift_tangent_scalar(mu, dt, st, d, d_out) != ORR_KEPLER_OK)
            orr_tangent_lost(d_out);
        by_lane = lane.ok && mu > 0.0 && orr_is_finite(mu);
        out.s = lane.s;
        out.err = ORR_KEPLER_OK;
    } else if (orr_drift_tangent_scalar(mu, dt, st, d, d_out) != ORR_KEPLER_OK) {
        orr_tangent_lost(d_out);
    }
    if (by_lane)
        return out;
    if (mu == 0.0) {
        out.s = st;
        out.err = ORR_KEPLER_OK;
        return out;
    }
    return orr_drift_scalar(mu, dt, st);
}

#endif /* ORRERY_KEPLER_TANGENT_H */
