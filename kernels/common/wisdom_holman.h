/*
 * wisdom_holman.h — one step of one system on the Wisdom-Holman map in Jacobi coordinates
 * (Wisdom & Holman 1991; Rein & Tamayo 2015), one work-item per system: the interaction kick
 * K(h) with the watch's check of the kick's positions, then the Kepler drift D(h) of every
 * Jacobi body about its interior mass, swept for pairs that come within their stop limits
 * (src/physics/wisdom_holman/mod.rs explains the map and watch.rs the stops).
 *
 * Arrays hold `L` systems of `n` bodies side by side, body-major, body k of system s at
 * `k * L + s`, so that the work-items of one body read consecutive doubles. Arrays of several
 * components take them one after another, component c at `c * n * L`.
 *
 * Rust twins, operation for operation (the same association, no fused products):
 *   orr_wh_from_jacobi, orr_wh_to_jacobi   jacobi::{from_jacobi, to_jacobi} for one system
 *   orr_wh_pair_sums                       pairs::add_pairs (Gravity, Tidal: each body's sum
 *                                          in the order of its partners, as one_system.rs
 *                                          shows it is)
 *   orr_wh_potential                       CentralPotential::add_accelerations
 *   orr_wh_kick_velocities, orr_wh_tidal   kick::kick_bodies (MapTerm, TangentTerm), variational::tidal
 *   orr_wh_drift                           WhPack::drift_into (kepler.h:
 *                                          drift_batch_per_body_into)
 *   orr_wh_restore                         WhPack::restore_failed
 *   orr_wh_check                           Watch::check and Watch::check_pairs
 *   orr_wh_sweep                           Watch::sweep_pairs and Watch::pair_event
 *   orr_wh_min_separation, orr_wh_first_crossing   encounter::{min_separation_sq, first_crossing}
 * Only + - * / and sqrt besides the drift: bitwise the CPU, but for the drift's scalar fallback
 * (kepler.h: e >= 0.9, unbound or unconverged orbits).
 */
#ifndef ORRERY_WISDOM_HOLMAN_H
#define ORRERY_WISDOM_HOLMAN_H

#include "device.h"
#include "forces.h"
#include "hermite.h"
#include "kepler.h"
#include "lanes.h"

/* The watch's stop kinds (`LaneStop`), 0 for none. */
#define ORR_WH_NONE 0u
#define ORR_WH_INNER 1u
#define ORR_WH_OUTER 2u
#define ORR_WH_ENCOUNTER 3u
#define ORR_WH_COLLISION 4u
#define ORR_WH_FAILED 5u
#define ORR_WH_CHAOTIC 6u

/* Bits of the step's flags. */
#define ORR_WH_WATCH 1u
#define ORR_WH_PAIRS 2u
#define ORR_WH_SWEEP 4u
#define ORR_WH_COLLIDE 8u
#define ORR_WH_POTENTIAL 16u
#define ORR_WH_TORQUE 32u
#define ORR_WH_MEGNO_STOP 64u

/* Words of the status buffer: systems whose event changed this step (their first, a failed
 * drift among them, or a failure after a stop on MEGNO). */
#define ORR_WH_STATUS_STOPS 0
#define ORR_WH_STATUS_LEN 1

/* One system's place: its index s among L systems of n bodies. */
typedef struct {
    u32 s;
    u32 L;
    u32 n;
} orr_wh_at_t;

DEVICE_FN u32 orr_wh_i(orr_wh_at_t at, u32 k)
{
    return k * at.L + at.s;
}

/* Jacobi vectors w (one component) to inertial ones in out: from the whole system's mean down,
 * c -= (m_k / eta_k) w_k, x_k = w_k + c, x_0 = c. */
DEVICE_FN void orr_wh_from_jacobi(orr_wh_at_t at, GLOBAL const double *RESTRICT m_over_eta,
    GLOBAL const double *RESTRICT w, GLOBAL double *RESTRICT out)
{
    double c = w[at.s];
    u32 k;
    for (k = at.n - 1; k >= 1; k--) {
        double wk = w[orr_wh_i(at, k)];
        c = c - m_over_eta[orr_wh_i(at, k)] * wk;
        out[orr_wh_i(at, k)] = wk + c;
    }
    out[at.s] = c;
}

/* Inertial vectors w (one component) to Jacobi ones in out: w'_k = w_k - S_{k-1} / eta_{k-1}
 * with S_k = m_0 w_0 + ... + m_k w_k, and w'_0 = S_{n-1} / eta_{n-1}. */
DEVICE_FN void orr_wh_to_jacobi(orr_wh_at_t at, GLOBAL const double *RESTRICT m,
    GLOBAL const double *RESTRICT inv_eta, GLOBAL const double *RESTRICT w,
    GLOBAL double *RESTRICT out)
{
    double sum = m[at.s] * w[at.s];
    u32 k;
    for (k = 1; k < at.n; k++) {
        double wk = w[orr_wh_i(at, k)];
        out[orr_wh_i(at, k)] = wk - sum * inv_eta[orr_wh_i(at, k - 1)];
        sum = sum + m[orr_wh_i(at, k)] * wk;
    }
    out[at.s] = sum * inv_eta[orr_wh_i(at, at.n - 1)];
}

/* The three components of the same vector array, `nl = n * L` apart. */
DEVICE_FN void orr_wh_from_jacobi3(orr_wh_at_t at, GLOBAL const double *RESTRICT m_over_eta,
    GLOBAL const double *RESTRICT w, GLOBAL double *RESTRICT out)
{
    u32 nl = at.n * at.L, c;
    for (c = 0; c < 3; c++)
        orr_wh_from_jacobi(at, m_over_eta, w + c * nl, out + c * nl);
}

/* The change of d / r^3 for the change dd of d, dd / r^3 - 3 d (d . dd) / r^5 (`tidal`): the
 * tangent map's pair term. */
DEVICE_FN void orr_wh_tidal(const double *d, const double *dd, double *t)
{
    double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    double inv_r3 = 1.0 / (r2 * sqrt(r2));
    double k = 3.0 * (d[0] * dd[0] + d[1] * dd[1] + d[2] * dd[2]) / r2 * inv_r3;
    int c;
    for (c = 0; c < 3; c++)
        t[c] = dd[c] * inv_r3 - k * d[c];
}

/* The pair sums of a kick (`pairs::pair_sums`) at inertial positions p into a (overwritten):
 * body k's sum over its partners l in ascending order, every pair but the centre-first one, of
 * the map's pair term (m_l / r^3) (x_l - x_k), r^3 = r^2 sqrt(r^2), without a tangent vector
 * (dp = 0: `Gravity`), or of its change m_l T(p_l - p_k) (dp_l - dp_k) along the tangent
 * positions dp (`Tidal`). */
DEVICE_FN void orr_wh_pair_sums(orr_wh_at_t at, GLOBAL const double *RESTRICT m,
    GLOBAL const double *RESTRICT p, GLOBAL const double *RESTRICT dp, GLOBAL double *RESTRICT a)
{
    u32 nl = at.n * at.L, k, l, c;
    for (k = 0; k < at.n; k++) {
        u32 ik = orr_wh_i(at, k);
        double acc[3] = {0.0, 0.0, 0.0};
        for (l = 0; l < at.n; l++) {
            if (l == k || (k <= 1 && l <= 1))
                continue;
            u32 il = orr_wh_i(at, l);
            double d[3], term[3];
            for (c = 0; c < 3; c++)
                d[c] = p[c * nl + il] - p[c * nl + ik];
            if (dp) {
                double dd[3], t[3];
                for (c = 0; c < 3; c++)
                    dd[c] = dp[c * nl + il] - dp[c * nl + ik];
                orr_wh_tidal(d, dd, t);
                for (c = 0; c < 3; c++)
                    term[c] = m[il] * t[c];
            } else {
                double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                double f = m[il] * (1.0 / (r2 * sqrt(r2)));
                for (c = 0; c < 3; c++)
                    term[c] = f * d[c];
            }
            for (c = 0; c < 3; c++)
                acc[c] = acc[c] + term[c];
        }
        for (c = 0; c < 3; c++)
            a[c * nl + ik] = acc[c];
    }
}

/* The central body's GR potential and J2 (forces.h) at the heliocentric positions, added to the
 * inertial accelerations a, the central body taking the reaction (m_k / m_0) g_k; with
 * ORR_WH_TORQUE, J2's torque h m_k (x_k - x_0) x g_k added to the system's tally. */
DEVICE_FN void orr_wh_potential(orr_wh_at_t at, u32 flags, double h,
    GLOBAL const double *RESTRICT f, GLOBAL const double *RESTRICT m,
    GLOBAL const double *RESTRICT ratio, GLOBAL const double *RESTRICT p,
    GLOBAL double *RESTRICT a, GLOBAL double *RESTRICT torque)
{
    u32 nl = at.n * at.L, k, c;
    for (k = 1; k < at.n; k++) {
        u32 i = orr_wh_i(at, k);
        double x[3], g[3];
        for (c = 0; c < 3; c++)
            x[c] = p[c * nl + i] - p[c * nl + at.s];
        orr_potential_accel(f, m[at.s], x[0], x[1], x[2], g);
        for (c = 0; c < 3; c++) {
            a[c * nl + i] += g[c];
            a[c * nl + at.s] -= ratio[i] * g[c];
        }
        if (flags & ORR_WH_TORQUE) {
            double hm = h * m[i];
            torque[at.s] += hm * (x[1] * g[2] - x[2] * g[1]);
            torque[at.L + at.s] += hm * (x[2] * g[0] - x[0] * g[2]);
            torque[2 * at.L + at.s] += hm * (x[0] * g[1] - x[1] * g[0]);
        }
    }
}

/* The end of a kick (`kick_bodies`): v'_k = v_k + h (ja_k + [k >= 2] term_k) for k >= 1, from
 * `v` into `out` (the centre of mass's velocity copied), at the Jacobi positions x. The term is
 * the map's eta_k x'_k / r'_k^3 without a tangent vector (dx = 0: `MapTerm`), or its change
 * eta_k T(x_k) dx_k along the tangent positions dx (`TangentTerm`). */
DEVICE_FN void orr_wh_kick_velocities(orr_wh_at_t at, double h, GLOBAL const double *RESTRICT eta,
    GLOBAL const double *RESTRICT x, GLOBAL const double *RESTRICT dx,
    GLOBAL const double *RESTRICT ja, GLOBAL const double *RESTRICT v,
    GLOBAL double *RESTRICT out)
{
    u32 nl = at.n * at.L, k, c;
    for (c = 0; c < 3; c++)
        out[c * nl + at.s] = v[c * nl + at.s];
    for (k = 1; k < at.n; k++) {
        u32 i = orr_wh_i(at, k);
        double acc[3];
        for (c = 0; c < 3; c++)
            acc[c] = ja[c * nl + i];
        if (k >= 2) {
            double xk[3], term[3];
            for (c = 0; c < 3; c++)
                xk[c] = x[c * nl + i];
            if (dx) {
                double dxk[3], t[3];
                for (c = 0; c < 3; c++)
                    dxk[c] = dx[c * nl + i];
                orr_wh_tidal(xk, dxk, t);
                for (c = 0; c < 3; c++)
                    term[c] = eta[i] * t[c];
            } else {
                double r2 = xk[0] * xk[0] + xk[1] * xk[1] + xk[2] * xk[2];
                double kepler = eta[i] / (r2 * sqrt(r2));
                for (c = 0; c < 3; c++)
                    term[c] = kepler * xk[c];
            }
            for (c = 0; c < 3; c++)
                acc[c] = acc[c] + term[c];
        }
        for (c = 0; c < 3; c++)
            out[c * nl + i] = v[c * nl + i] + h * acc[c];
    }
}

/* The Kepler drift D(h): the centre of mass in a straight line, every Jacobi body about its
 * interior mass (kepler.h), from the positions `x` into `x_out` and the velocities `v` in place.
 * Returns 0, or (body << 2) | code of the first body that failed (the later bodies not
 * drifted). */
DEVICE_FN u32 orr_wh_drift(orr_wh_at_t at, double h, GLOBAL const double *RESTRICT eta,
    GLOBAL const double *RESTRICT inv_eta, GLOBAL const double *RESTRICT x,
    GLOBAL double *RESTRICT x_out, GLOBAL double *RESTRICT v)
{
    u32 nl = at.n * at.L, k, c;
    for (c = 0; c < 3; c++)
        x_out[c * nl + at.s] = x[c * nl + at.s] + h * v[c * nl + at.s];
    for (k = 1; k < at.n; k++) {
        u32 i = orr_wh_i(at, k);
        orr_phase_t st;
        for (c = 0; c < 3; c++) {
            st.x[c] = x[c * nl + i];
            st.v[c] = v[c * nl + i];
        }
        orr_drift_t out = orr_drift_body(eta[i], inv_eta[i], h, st);
        if (out.err != ORR_KEPLER_OK)
            return (k << 2) | (u32)out.err;
        for (c = 0; c < 3; c++) {
            x_out[c * nl + i] = out.s.x[c];
            v[c * nl + i] = out.s.v[c];
        }
    }
    return 0;
}

/* Put a system whose drift failed back to its state before the step: `from` (x, y, z, vx, vy,
 * vz, the layout of `jac`) into `to`. */
DEVICE_FN void orr_wh_restore(orr_wh_at_t at, GLOBAL const double *RESTRICT from,
    GLOBAL double *RESTRICT to)
{
    u32 nl = at.n * at.L, k, c;
    for (c = 0; c < 6; c++)
        for (k = 0; k < at.n; k++)
            to[c * nl + orr_wh_i(at, k)] = from[c * nl + orr_wh_i(at, k)];
}

/* A system's first event. */
typedef struct {
    u32 kind;
    u32 a;
    u32 b;
    double distance;
} orr_wh_stop_t;

/* The watch of one system: its squared truncation radii (`sys`: inner2 then outer2, per
 * system), and per body the Hill factor, the physical radius and the heliocentric distance at
 * the last check (`body`, three components of n * L), with the pair limits. */
typedef struct {
    double hill_radii;
    double min_distance;
    u32 flags;
} orr_wh_limits_t;

/* The collision distance (0 without the collision stop) and the encounter distance of the
 * bodies at slots i and j (`Watch::pair_limits`). */
DEVICE_FN void orr_wh_pair_limits(orr_wh_at_t at, orr_wh_limits_t lim,
    GLOBAL const double *RESTRICT body, u32 i, u32 j, double *touch, double *encounter)
{
    u32 nl = at.n * at.L;
    GLOBAL const double *hill_factor = body;
    GLOBAL const double *radius = body + nl;
    GLOBAL const double *helio_r = body + 2 * nl;
    *touch = (lim.flags & ORR_WH_COLLIDE) ? radius[i] + radius[j] : 0.0;
    double hill = hill_factor[i] * helio_r[i] + hill_factor[j] * helio_r[j];
    *encounter = orr_max(lim.min_distance, lim.hill_radii * hill);
}

/* Check the inertial positions p: truncation radii and the central body's collisions for
 * bodies 1.., then the pairs of the others (`Watch::check`, `Watch::check_pairs`); the first
 * event found is kept in *stop (left as it is when one is there). */
DEVICE_FN void orr_wh_check(orr_wh_at_t at, orr_wh_limits_t lim,
    GLOBAL const double *RESTRICT sys, GLOBAL double *RESTRICT body,
    GLOBAL const double *RESTRICT p, orr_wh_stop_t *stop)
{
    u32 nl = at.n * at.L, k, a, b;
    GLOBAL const double *radius = body + nl;
    GLOBAL double *helio_r = body + 2 * nl;
    double inner2 = sys[at.s], outer2 = sys[at.L + at.s];
    int pairs = (lim.flags & ORR_WH_PAIRS) != 0;
    for (k = 1; k < at.n; k++) {
        u32 i = orr_wh_i(at, k);
        double d[3];
        d[0] = p[i] - p[at.s];
        d[1] = p[nl + i] - p[nl + at.s];
        d[2] = p[2 * nl + i] - p[2 * nl + at.s];
        double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        if (pairs)
            helio_r[i] = sqrt(r2);
        if (stop->kind != ORR_WH_NONE)
            continue;
        if (!(r2 >= inner2 && r2 <= outer2)) {
            stop->kind = r2 < inner2 ? ORR_WH_INNER : ORR_WH_OUTER;
            stop->a = k;
            stop->b = 0;
            stop->distance = sqrt(r2);
        } else if ((lim.flags & ORR_WH_COLLIDE) && helio_r[i] < radius[at.s] + radius[i]) {
            stop->kind = ORR_WH_COLLISION;
            stop->a = 0;
            stop->b = k;
            stop->distance = helio_r[i];
        }
    }
    if (!pairs)
        return;
    for (a = 1; a < at.n; a++) {
        for (b = a + 1; b < at.n; b++) {
            u32 i = orr_wh_i(at, a), j = orr_wh_i(at, b);
            double d[3];
            d[0] = p[j] - p[i];
            d[1] = p[nl + j] - p[nl + i];
            d[2] = p[2 * nl + j] - p[2 * nl + i];
            double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            double touch, encounter;
            orr_wh_pair_limits(at, lim, body, i, j, &touch, &encounter);
            if (stop->kind != ORR_WH_NONE)
                continue;
            if ((lim.flags & ORR_WH_COLLIDE) && r < radius[i] + radius[j]) {
                stop->kind = ORR_WH_COLLISION;
                stop->a = a;
                stop->b = b;
                stop->distance = r;
            } else if (r < encounter) {
                stop->kind = ORR_WH_ENCOUNTER;
                stop->a = a;
                stop->b = b;
                stop->distance = r;
            }
        }
    }
}

/* The interpolant's end values P0, P1, tau Pdot0, tau Pdot1 (`end_values`). */
DEVICE_FN void orr_wh_end_values(const double dr0[3], const double dv0[3], const double dr1[3],
    const double dv1[3], double tau, double e[4])
{
    e[0] = orr_dot3(dr0[0], dr0[1], dr0[2], dr0[0], dr0[1], dr0[2]);
    e[1] = orr_dot3(dr1[0], dr1[1], dr1[2], dr1[0], dr1[1], dr1[2]);
    e[2] = 2.0 * tau * orr_dot3(dr0[0], dr0[1], dr0[2], dv0[0], dv0[1], dv0[2]);
    e[3] = 2.0 * tau * orr_dot3(dr1[0], dr1[1], dr1[2], dv1[0], dv1[1], dv1[2]);
}

/* `min_separation_sq`: the smallest squared separation over the drift and the fraction of it
 * where it falls (the earliest on a tie). */
DEVICE_FN double orr_wh_min_separation(const double dr0[3], const double dv0[3],
    const double dr1[3], const double dv1[3], double tau, double *t_min)
{
    double e[4];
    orr_wh_end_values(dr0, dv0, dr1, dv1, tau, e);
    double best = e[0], best_t = 0.0;
    if (e[1] < e[0]) {
        best = e[1];
        best_t = 1.0;
    }
    double a = 6.0 * (e[0] - e[1]) + 3.0 * (e[2] + e[3]);
    double b = 6.0 * (e[1] - e[0]) - 2.0 * (2.0 * e[2] + e[3]);
    double c = e[2];
    double disc = b * b - 4.0 * a * c;
    if (disc >= 0.0 && orr_is_finite(disc)) {
        double q = -0.5 * (b + orr_signum(b) * sqrt(disc));
        double roots[2];
        int exists[2], r;
        exists[0] = a != 0.0;
        exists[1] = q != 0.0;
        roots[0] = exists[0] ? q / a : 0.0;
        roots[1] = exists[1] ? c / q : 0.0;
        for (r = 0; r < 2; r++) {
            double t = roots[r];
            if (exists[r] && t > 0.0 && t < 1.0) {
                double p = orr_hermite(e[0], e[1], e[2], e[3], t);
                if (p < best || (p == best && t < best_t)) {
                    best = p;
                    best_t = t;
                }
            }
        }
    }
    *t_min = best_t;
    return orr_max(best, 0.0);
}

/* `first_crossing`: the first fraction of the drift in [0, t_end] at which the interpolant
 * falls to limit_sq (60 halvings), with the interpolant there, in *p_cross. */
DEVICE_FN double orr_wh_first_crossing(const double dr0[3], const double dv0[3],
    const double dr1[3], const double dv1[3], double tau, double limit_sq, double t_end,
    double *p_cross)
{
    double e[4];
    int it;
    orr_wh_end_values(dr0, dv0, dr1, dv1, tau, e);
    if (e[0] < limit_sq || orr_is_nan(e[0])) {
        *p_cross = e[0];
        return 0.0;
    }
    double lo = 0.0, hi = t_end;
    for (it = 0; it < 60; it++) {
        double mid = 0.5 * (lo + hi);
        if (orr_hermite(e[0], e[1], e[2], e[3], mid) < limit_sq)
            hi = mid;
        else
            lo = mid;
    }
    *p_cross = orr_max(orr_hermite(e[0], e[1], e[2], e[3], hi), 0.0);
    return hi;
}

/* The relative vector w_b - w_a of slots i (body a) and j (body b) of a three-component array. */
DEVICE_FN void orr_wh_relative(u32 nl, GLOBAL const double *RESTRICT w, u32 i, u32 j, double out[3])
{
    u32 c;
    for (c = 0; c < 3; c++)
        out[c] = w[c * nl + j] - w[c * nl + i];
}

/* Sweep the drift of length tau for pairs of bodies other than the central one
 * (`Watch::sweep_pairs`, `Watch::pair_event`): `ends` holds the inertial positions and
 * velocities after the kick, then after the drift (four three-component arrays). A pair whose
 * smallest separation falls below its collision or encounter distance is a candidate at the time
 * it first crosses that distance (the collision on a tie); the earliest candidate is the
 * system's event, with its time as a fraction of the drift in *after. */
DEVICE_FN void orr_wh_sweep(orr_wh_at_t at, orr_wh_limits_t lim, double tau,
    GLOBAL const double *RESTRICT body, GLOBAL const double *RESTRICT ends, orr_wh_stop_t *stop,
    double *after)
{
    u32 nl = at.n * at.L, a, b;
    GLOBAL const double *p0 = ends;
    GLOBAL const double *v0 = ends + 3 * nl;
    GLOBAL const double *p1 = ends + 6 * nl;
    GLOBAL const double *v1 = ends + 9 * nl;
    for (a = 1; a < at.n; a++) {
        for (b = a + 1; b < at.n; b++) {
            u32 i = orr_wh_i(at, a), j = orr_wh_i(at, b);
            double dr0[3], dv0[3], dr1[3], dv1[3];
            orr_wh_relative(nl, p0, i, j, dr0);
            orr_wh_relative(nl, v0, i, j, dv0);
            orr_wh_relative(nl, p1, i, j, dr1);
            orr_wh_relative(nl, v1, i, j, dv1);
            double t_min;
            double r2 = orr_wh_min_separation(dr0, dv0, dr1, dv1, tau, &t_min);
            double touch, encounter;
            orr_wh_pair_limits(at, lim, body, i, j, &touch, &encounter);
            int collide = r2 < touch * touch, close = r2 < encounter * encounter;
            if (!collide && !close)
                continue;
            double tc = 0.0, pc = 0.0, te = 0.0, pe = 0.0, t;
            orr_wh_stop_t event;
            if (collide)
                tc = orr_wh_first_crossing(dr0, dv0, dr1, dv1, tau, touch * touch, t_min, &pc);
            if (close)
                te = orr_wh_first_crossing(dr0, dv0, dr1, dv1, tau, encounter * encounter, t_min,
                    &pe);
            event.a = a;
            event.b = b;
            if (collide && (!close || tc <= te)) {
                t = tc;
                event.kind = ORR_WH_COLLISION;
                event.distance = sqrt(pc);
            } else {
                t = te;
                event.kind = ORR_WH_ENCOUNTER;
                event.distance = sqrt(pe);
            }
            if (stop->kind == ORR_WH_NONE || t < *after) {
                *stop = event;
                *after = t;
            }
        }
    }
}

#endif /* ORRERY_WISDOM_HOLMAN_H */
