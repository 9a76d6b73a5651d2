/*
 * kepler.h — the Kepler drift of one body around a fixed central mass with Gauss's f and g
 * functions (GENGA paper section 3.2.1, the FG kernel; Danby 1988, Fundamentals of Celestial
 * Mechanics, sections 6.6 and 6.9).
 *
 * Rust twin: `drift_batch` / `drift_batch_per_body` in src/physics/kepler.rs, for one body:
 *   1. the lane path `drift_group` (elliptic orbits with e < BATCH_E_MAX, Danby's iteration in
 *      differential form for at most BATCH_MAX_ITER passes, in-house sin/cos of sincos.h);
 *   2. for a body the lane path does not accept, the scalar solver `drift_scalar`
 *      (`elliptic_fg` up to e < 0.99, then universal variables with Stumpff functions:
 *      `universal_fg`, `solve_universal`, `universal_guess`, `parabolic_root`).
 * A device work-item drifts one body with orr_drift_body; a failure is returned as a code
 * (ORR_KEPLER_*) instead of a panic, and the input state is then to be kept.
 *
 * Parity: the lane path uses only + - * /, fma (where the Rust twin writes mul_add), sqrt, round,
 * floor, copysign and the in-house sin/cos, so it is bitwise the CPU on every target. The scalar
 * fallback is the CPU's `drift_scalar`, which calls the C library's sin and cos (its elliptic
 * iteration and its universal starting value), cbrt and acos (the parabolic starting value) and
 * log (the hyperbolic one). Those five calls are isolated in the orr_libm_* functions below: on
 * the host they are the same C library as Rust's, so the host build is bitwise; on a device they
 * are the target's own (OpenCL/CUDA built-ins, a few ulp), so fallback bodies (e >= 0.9, unbound,
 * unconverged) agree with the CPU to rounding only, until drift_scalar itself moves to in-house
 * functions (see kernels/README.md).
 */
#ifndef ORRERY_KEPLER_H
#define ORRERY_KEPLER_H

#include "device.h"
#include "lanes.h"
#include "sincos.h"

/* KeplerError of the Rust twin, 0 for success. */
#define ORR_KEPLER_OK 0
#define ORR_KEPLER_INVALID_INPUT 1
#define ORR_KEPLER_NO_CONVERGENCE 2
#define ORR_KEPLER_NON_FINITE 3

#define ORR_ELLIPTIC_E_MAX 0.99
#define ORR_ELLIPTIC_ACCEPT 1e-5
#define ORR_ELLIPTIC_MAX_ITER 10
#define ORR_DANBY_K 0.85
#define ORR_UNIVERSAL_TOL 1e-12
#define ORR_UNIVERSAL_MAX_ITER 300
#define ORR_BATCH_E_MAX 0.9
#define ORR_BATCH_MAX_ITER 6

/* The C library functions of the scalar fallback only (see the header comment). */
DEVICE_FN double orr_libm_sin(double x)
{
    return sin(x);
}
DEVICE_FN double orr_libm_cos(double x)
{
    return cos(x);
}
DEVICE_FN double orr_libm_cbrt(double x)
{
    return cbrt(x);
}
DEVICE_FN double orr_libm_acos(double x)
{
    return acos(x);
}
DEVICE_FN double orr_libm_log(double x)
{
    return log(x);
}

/* Position and velocity of one body. */
typedef struct {
    double x[3];
    double v[3];
} orr_phase_t;

/* A drifted state and its error code (the state is the input on error). */
typedef struct {
    orr_phase_t s;
    int err;
} orr_drift_t;

/* Gauss's f and g and their time derivatives, f and gdot as their differences from 1 (the new
   state is the old one plus a change: Brouwer's law); ok = 0 for None. */
typedef struct {
    double f_minus_1, g, fdot, gdot_minus_1;
    int ok;
} orr_fg_t;

/* danby_step: Danby's quartically convergent correction from y and three derivatives. */
DEVICE_FN double orr_danby_step(double y, double yp, double ypp, double yppp)
{
    double num = y * yp;
    double den1 = fma(yp, yp, -(0.5 * y * ypp));
    double den1_sq = den1 * den1;
    double inner = fma(ypp, den1, -(num * yppp * (1.0 / 3.0)));
    double den2 = fma(yp, den1_sq, -(0.5 * num * inner));
    return -y * den1_sq / den2;
}

/* reduce: t into [-period/2, period/2] modulo period. */
DEVICE_FN double orr_reduce(double t, double period)
{
    return t - period * round(t / period);
}

/* reduce_mean_anomaly: an angle into [-pi, pi] modulo 2 pi. */
DEVICE_FN double orr_reduce_mean_anomaly(double t)
{
    return t - ORR_TAU * round(t * (1.0 / ORR_TAU));
}

/* one_minus_cos: 1 - cos x without cancellation, sin^2 x / (1 + cos x) where cos x > 0. */
DEVICE_FN double orr_one_minus_cos(double s, double c)
{
    return c > 0.0 ? s * s / (1.0 + c) : 1.0 - c;
}

/* r = r0 + ((f - 1) r0 + g v0), v = v0 + (fdot r0 + (gdot - 1) v0). */
DEVICE_FN orr_phase_t orr_apply_fg(orr_fg_t fg, orr_phase_t s)
{
    orr_phase_t o;
    int c;
    for (c = 0; c < 3; c++) {
        o.x[c] = s.x[c] + (fg.f_minus_1 * s.x[c] + fg.g * s.v[c]);
        o.v[c] = s.v[c] + (fg.fdot * s.x[c] + fg.gdot_minus_1 * s.v[c]);
    }
    return o;
}

DEVICE_FN int orr_phase_is_finite(orr_phase_t s)
{
    int c, all = 1;
    for (c = 0; c < 3; c++)
        all = all && orr_is_finite(s.x[c]) && orr_is_finite(s.v[c]);
    return all;
}

/* ------------------------------------------------------------------------------------------ */
/* The lane path: drift_group for one lane.                                                    */

/* series_start: the starting value of Kepler's equation for short steps from its inverse
 * series in t = dm a/r0 (no division, no square root), and whether the lane takes it. */
typedef struct {
    double x;
    int taken;
} orr_start_t;

#define ORR_SERIES_T_MAX 0.6
#define ORR_SERIES_AT_MAX 0.25

DEVICE_FN orr_start_t orr_series_start(double ec, double es, double a_over_r0, double dm)
{
    orr_start_t out;
    double t = dm * a_over_r0;
    double a1 = 0.5 * es * a_over_r0;
    double b = (1.0 / 6.0) * ec * a_over_r0;
    double c = (-1.0 / 24.0) * es * a_over_r0;
    double d = (-1.0 / 120.0) * ec * a_over_r0;
    double a_sq = a1 * a1;
    double c3 = fma(2.0, a_sq, -b);
    double c4 = fma(5.0 * a1, b - a_sq, -c);
    double c5 = fma(a_sq, fma(14.0, a_sq, -21.0 * b), fma(6.0 * a1, c, fma(3.0 * b, b, -d)));
    out.x = t * fma(t, fma(t, fma(t, fma(t, c5, c4), c3), -a1), 1.0);
    out.taken = fabs(t) < ORR_SERIES_T_MAX && fabs(a1 * t) < ORR_SERIES_AT_MAX;
    return out;
}

/* A lane drift: the state and whether the lane path accepts it (else drift_scalar), with the
 * stages a tangent map shares (`DriftSetup`, `DriftRoot`; kepler_tangent.h): whether the setup
 * accepts the orbit, the mean motion, the root x of Kepler's equation, sin x, cos x, 1 - cos x
 * (0 unless converged) and whether the iteration converged. */
typedef struct {
    orr_phase_t s;
    int ok;
    int setup_ok, converged;
    double n, x, sin, cos, omc;
} orr_lane_t;

/* drift_group on one lane: mu > 0 and dt finite and non-zero (the caller's business). */
DEVICE_FN orr_lane_t orr_drift_lane(double mu, double inv_mu, double dt, orr_phase_t st)
{
    orr_lane_t out;
    double x = st.x[0], y = st.x[1], z = st.x[2];
    double vx = st.v[0], vy = st.v[1], vz = st.v[2];
    double r0 = sqrt(fma(z, z, fma(y, y, x * x)));
    double v2 = fma(vz, vz, fma(vy, vy, vx * vx));
    double u = fma(z, vz, fma(y, vy, x * vx));
    double ec = fma(r0 * v2, inv_mu, -1.0);
    double r0_over_a = 1.0 - ec;
    double inv = 1.0 / (r0 * r0_over_a);
    double inv_r0 = r0_over_a * inv;
    double a_over_r0 = r0 * inv;
    double alpha = r0_over_a * inv_r0;
    double w = sqrt(mu * alpha);
    double n = alpha * w;
    double es = u * w * inv_mu;
    double e2 = fma(es, es, ec * ec);
    int ok = alpha > 0.0 && r0 > 0.0 && orr_is_finite(v2) && orr_is_finite(r0)
        && e2 < ORR_BATCH_E_MAX * ORR_BATCH_E_MAX;
    double dm = orr_reduce_mean_anomaly(n * dt);
    orr_start_t start = orr_series_start(ec, es, a_over_r0, dm);
    double xa = start.x;
    double sa = 0.0, ca = 0.0, oa = 0.0;
    int done = !ok, conv = 0, it, k;
    double r_over_a, inv_rn, inv_n, a_over_r, f_minus_1, g, fdot, gdot_minus_1;
    if (ok && !start.taken) {
        double ya = dm - es;
        orr_sin_cos_t sc = orr_sin_cos_lane(ya);
        xa = ya + copysign(ORR_DANBY_K * sqrt(e2), fma(es, sc.c, ec * sc.s));
    }
    for (it = 0; it < ORR_BATCH_MAX_ITER && !done; it++) {
        orr_sin_cos_t sc = orr_sin_cos_lane(xa);
        double s = sc.s, c = sc.c, omc = sc.omc;
        double ecs = ec * s;
        double esc = es * c;
        double fx = fma(es, omc, xa - ecs) - dm;
        double fp = fma(es, s, fma(-ec, c, 1.0));
        double dx = orr_danby_step(fx, fp, ecs + esc, fma(ec, c, -(es * s)));
        int accept = fabs(dx) <= (0.5 * ORR_ELLIPTIC_ACCEPT) * fp;
        double h2 = 0.5 * dx * dx;
        double h3 = h2 * dx * (1.0 / 3.0);
        xa = xa + dx;
        if (accept) {
            sa = fma(-c, h3, fma(-s, h2, fma(c, dx, s)));
            ca = fma(s, h3, fma(-c, h2, fma(-s, dx, c)));
            oa = fma(-s, h3, fma(c, h2, fma(s, dx, omc)));
            conv = 1;
        }
        done = accept || !orr_is_finite(xa);
    }
    r_over_a = fma(es, sa, fma(-ec, ca, 1.0));
    inv_rn = 1.0 / (n * r_over_a);
    inv_n = r_over_a * inv_rn;
    a_over_r = n * inv_rn;
    f_minus_1 = -a_over_r0 * oa;
    g = (dm + (sa - xa)) * inv_n;
    fdot = -(a_over_r0 * n) * sa * a_over_r;
    gdot_minus_1 = -a_over_r * oa;
    for (k = 0; k < 3; k++) {
        out.s.x[k] = st.x[k] + fma(g, st.v[k], f_minus_1 * st.x[k]);
        out.s.v[k] = st.v[k] + fma(gdot_minus_1, st.v[k], fdot * st.x[k]);
    }
    out.ok = ok && conv && fabs(xa) < 8.0 && orr_phase_is_finite(out.s);
    out.setup_ok = ok;
    out.converged = conv;
    out.n = n;
    out.x = xa;
    out.sin = sa;
    out.cos = ca;
    out.omc = oa;
    return out;
}

/* ------------------------------------------------------------------------------------------ */
/* The scalar fallback: drift_scalar.                                                          */

/* solve_elliptic's result: x, sin x, cos x; ok = 0 for None. */
typedef struct {
    double x, s, c;
    int ok;
} orr_elliptic_t;

/* solve_elliptic: x - ec sin x + es (1 - cos x) = dm for x. */
DEVICE_FN orr_elliptic_t orr_solve_elliptic(double ec, double es, double r0_over_a, double dm)
{
    orr_elliptic_t out;
    double disc = r0_over_a * r0_over_a + 2.0 * es * dm;
    double xq = 2.0 * dm / (r0_over_a + sqrt(orr_max(disc, 0.0)));
    double x;
    int it;
    if (disc >= 0.0 && fabs(xq) < 0.3) {
        x = xq;
    } else {
        double y = dm - es;
        double sy = orr_libm_sin(y), cy = orr_libm_cos(y);
        x = y + copysign(ORR_DANBY_K * sqrt(ec * ec + es * es), es * cy + ec * sy);
    }
    out.ok = 0;
    for (it = 1; it <= ORR_ELLIPTIC_MAX_ITER; it++) {
        double s = orr_libm_sin(x), c = orr_libm_cos(x);
        double ecs = ec * s;
        double esc = es * c;
        double f = x - ecs + es * (1.0 - c) - dm;
        double fp = 1.0 - ec * c + es * s;
        double dx = orr_danby_step(f, fp, ecs + esc, ec * c - es * s);
        x += dx;
        if (fabs(dx) <= 0.5 * ORR_ELLIPTIC_ACCEPT * fp) {
            double h2 = 0.5 * dx * dx;
            double h3 = h2 * dx * (1.0 / 3.0);
            out.x = x;
            out.s = s + c * dx - s * h2 - c * h3;
            out.c = c - s * dx - c * h2 + s * h3;
            out.ok = 1;
            return out;
        }
        if (!orr_is_finite(x))
            return out;
    }
    return out;
}

/* elliptic_fg: f and g from the eccentric anomaly, ok = 0 when unbound, e >= 0.99 or
 * unconverged. */
DEVICE_FN orr_fg_t orr_elliptic_fg(double mu, double dt, double r0, double v2, double u)
{
    orr_fg_t fg;
    double inv_r0 = 1.0 / r0;
    double inv_mu = 1.0 / mu;
    double alpha = 2.0 * inv_r0 - v2 * inv_mu;
    double a, w, n, r0_over_a, ec, es, e2, dm, one_minus_c, inv_n, a_over_r;
    orr_elliptic_t sol;
    fg.ok = 0;
    if (orr_is_nan(alpha) || alpha <= 0.0)
        return fg;
    a = 1.0 / alpha;
    w = sqrt(mu * alpha);
    n = alpha * w;
    r0_over_a = r0 * alpha;
    ec = 1.0 - r0_over_a;
    es = u * w * inv_mu;
    e2 = ec * ec + es * es;
    if (orr_is_nan(e2) || e2 >= ORR_ELLIPTIC_E_MAX * ORR_ELLIPTIC_E_MAX)
        return fg;
    dm = orr_reduce_mean_anomaly(n * dt);
    sol = orr_solve_elliptic(ec, es, r0_over_a, dm);
    if (!sol.ok)
        return fg;
    one_minus_c = orr_one_minus_cos(sol.s, sol.c);
    inv_n = 1.0 / n;
    a_over_r = 1.0 / (1.0 - ec * sol.c + es * sol.s);
    fg.f_minus_1 = -a * inv_r0 * one_minus_c;
    fg.g = (dm + (sol.s - sol.x)) * inv_n;
    fg.fdot = -a * n * sol.s * inv_r0 * a_over_r;
    fg.gdot_minus_1 = -a_over_r * one_minus_c;
    fg.ok = 1;
    return fg;
}

/* Four values: the Stumpff functions c0..c3 or G0..G3; ok = 0 for None. */
typedef struct {
    double v[4];
    int ok;
} orr_four_t;

/* stumpff: c0..c3 of a finite z (Taylor series below |z| = 0.1, quartering and doubling). */
DEVICE_FN orr_four_t orr_stumpff(double z)
{
    orr_four_t out;
    int n = 0, k;
    double c0, c1, c2, c3;
    while (fabs(z) > 0.1) {
        z *= 0.25;
        n += 1;
    }
    c2 = (1.0
             - z * (1.0
                   - z * (1.0 - z * (1.0 - z * (1.0 - z * (1.0 - z / 182.0) / 132.0) / 90.0) / 56.0)
                       / 30.0)
                 / 12.0)
        / 2.0;
    c3 = (1.0
             - z * (1.0
                   - z * (1.0 - z * (1.0 - z * (1.0 - z * (1.0 - z / 210.0) / 156.0) / 110.0) / 72.0)
                       / 42.0)
                 / 20.0)
        / 6.0;
    c1 = 1.0 - z * c3;
    c0 = 1.0 - z * c2;
    for (k = 0; k < n; k++) {
        c3 = (c2 + c0 * c3) * 0.25;
        c2 = 0.5 * c1 * c1;
        c1 *= c0;
        c0 = 2.0 * c0 * c0 - 1.0;
    }
    out.v[0] = c0;
    out.v[1] = c1;
    out.v[2] = c2;
    out.v[3] = c3;
    out.ok = 1;
    return out;
}

/* g_functions: G_k = s^k c_k(beta s^2), ok = 0 if they overflow. */
DEVICE_FN orr_four_t orr_g_functions(double beta, double s)
{
    orr_four_t g;
    double z = beta * s * s;
    int k;
    g.ok = 0;
    if (!orr_is_finite(z))
        return g;
    g = orr_stumpff(z);
    g.v[1] = s * g.v[1];
    g.v[2] = s * s * g.v[2];
    g.v[3] = s * s * s * g.v[3];
    for (k = 0; k < 4; k++)
        g.ok = g.ok && orr_is_finite(g.v[k]);
    return g;
}

/* parabolic_root: real root of mu s^3/6 + u s^2/2 + r0 s - dt = 0 (Cardano), or dt / r0. */
DEVICE_FN double orr_parabolic_root(double mu, double dt, double r0, double u)
{
    double a2 = 3.0 * u / mu;
    double a1 = 6.0 * r0 / mu;
    double a0 = -6.0 * dt / mu;
    double q = (3.0 * a1 - a2 * a2) / 9.0;
    double r = (9.0 * a2 * a1 - 27.0 * a0 - 2.0 * a2 * a2 * a2) / 54.0;
    double d = q * q * q + r * r;
    double s;
    if (d >= 0.0) {
        double sd = sqrt(d);
        s = orr_libm_cbrt(r + sd) + orr_libm_cbrt(r - sd) - a2 / 3.0;
    } else {
        double rho = sqrt(-q);
        double theta = orr_libm_acos(orr_clamp(r / (rho * rho * rho), -1.0, 1.0));
        double lin = dt / r0;
        double best = ORR_INF - ORR_INF; /* NaN, the fold's start */
        int k;
        for (k = 0; k < 3; k++) {
            double sk = 2.0 * rho * orr_libm_cos((theta + ORR_TAU * (double)k) / 3.0) - a2 / 3.0;
            if (orr_is_nan(best) || fabs(sk - lin) < fabs(best - lin))
                best = sk;
        }
        s = best;
    }
    return orr_is_finite(s) ? s : dt / r0;
}

/* universal_guess: starting value of the universal anomaly (after Swift's drift_kepu_guess). */
DEVICE_FN double orr_universal_guess(double mu, double dt, double r0, double u, double beta)
{
    double cubic;
    if (beta > 0.0) {
        double sb, n, ec, es, e, y, sy, cy;
        if (fabs(dt) / r0 <= 0.4)
            return dt / r0 - dt * dt * u / (2.0 * r0 * r0 * r0);
        sb = sqrt(beta);
        n = beta * sb / mu;
        ec = 1.0 - r0 * beta / mu;
        es = u * sb / mu;
        e = sqrt(ec * ec + es * es);
        y = n * dt - es;
        sy = orr_libm_sin(y);
        cy = orr_libm_cos(y);
        return (y + copysign(ORR_DANBY_K * e, es * cy + ec * sy)) / sb;
    }
    cubic = orr_parabolic_root(mu, dt, r0, u);
    if (beta < 0.0) {
        double k = sqrt(-beta);
        double d = (r0 * k * k + u * copysign(1.0, dt) * k + mu) / (k * k * k);
        double arg = 2.0 * fabs(dt) / d;
        if (d > 0.0 && arg > 1.0) {
            double s_log = orr_libm_log(arg) / k;
            if (orr_is_finite(s_log) && s_log < fabs(cubic))
                return copysign(s_log, dt);
        }
    }
    return cubic;
}

/* next_in_bracket: the midpoint of a closed bracket, else 2 s towards the open side. */
DEVICE_FN double orr_next_in_bracket(double s, double lo, double hi)
{
    if (orr_is_finite(lo) && orr_is_finite(hi))
        return 0.5 * (lo + hi);
    return 2.0 * s;
}

/* solve_universal: r0 G1 + u G2 + mu G3 = dt for s (bracketed, safeguarded Danby/Newton);
 * returns the G functions at the root (ok = 0 for None), the root itself in *root. */
DEVICE_FN orr_four_t orr_solve_universal(double mu, double dt, double r0, double u, double beta,
    double *root)
{
    double lo = dt > 0.0 ? 0.0 : -ORR_INF;
    double hi = dt > 0.0 ? ORR_INF : 0.0;
    double s = orr_universal_guess(mu, dt, r0, u, beta);
    double f_prev = ORR_INF;
    orr_four_t none;
    int it;
    none.ok = 0;
    if (!(s > lo && s < hi))
        s = dt / r0;
    for (it = 0; it < ORR_UNIVERSAL_MAX_ITER; it++) {
        orr_four_t g = orr_g_functions(beta, s);
        double f, fp, newton, ds, s_new;
        int stalled, closed, converging, small_step, tiny_bracket;
        if (!g.ok) {
            if (s > 0.0)
                hi = s;
            else
                lo = s;
            s = orr_next_in_bracket(s, lo, hi);
            continue;
        }
        f = r0 * g.v[1] + u * g.v[2] + mu * g.v[3] - dt;
        *root = s;
        if (f == 0.0)
            return g;
        if (f > 0.0)
            hi = s;
        else
            lo = s;
        fp = r0 * g.v[0] + u * g.v[1] + mu * g.v[2];
        newton = -f / fp;
        if (fabs(newton) > 1e-3 * fabs(s)) {
            ds = newton;
        } else {
            double zz = mu - beta * r0;
            ds = orr_danby_step(f, fp, zz * g.v[1] + u * g.v[0], zz * g.v[0] - beta * u * g.v[1]);
        }
        stalled = fabs(f) > 0.5 * f_prev;
        f_prev = fabs(f);
        closed = orr_is_finite(lo) && orr_is_finite(hi);
        if (!stalled && s + ds > lo && s + ds < hi) {
            s_new = s + ds;
            converging = 1;
        } else if (!(stalled && closed) && s + newton > lo && s + newton < hi) {
            s_new = s + newton;
            converging = 1;
        } else {
            s_new = orr_next_in_bracket(s, lo, hi);
            converging = 0;
        }
        small_step = converging && fabs(s_new - s) <= ORR_UNIVERSAL_TOL * fabs(s_new);
        tiny_bracket = closed && hi - lo <= 4.0 * ORR_EPSILON * orr_max(fabs(lo), fabs(hi));
        if (small_step || tiny_bracket) {
            *root = s_new;
            return orr_g_functions(beta, s_new);
        }
        s = s_new;
    }
    return none;
}

/* universal_fg: f and g from universal variables (ok = 0 if the solver fails). */
DEVICE_FN orr_fg_t orr_universal_fg(double mu, double dt, double r0, double v2, double u)
{
    orr_fg_t fg;
    double beta = 2.0 * mu / r0 - v2;
    double r, root = 0.0;
    orr_four_t g;
    if (beta > 0.0) {
        double period = ORR_TAU * mu / (beta * sqrt(beta));
        dt = orr_reduce(dt, period);
    }
    fg.ok = 1;
    if (dt == 0.0) {
        fg.f_minus_1 = 0.0;
        fg.g = 0.0;
        fg.fdot = 0.0;
        fg.gdot_minus_1 = 0.0;
        return fg;
    }
    g = orr_solve_universal(mu, dt, r0, u, beta, &root);
    if (!g.ok) {
        fg.ok = 0;
        return fg;
    }
    r = r0 * g.v[0] + u * g.v[1] + mu * g.v[2];
    fg.f_minus_1 = -mu * g.v[2] / r0;
    fg.g = r0 * g.v[1] + u * g.v[2];
    fg.fdot = -mu * g.v[1] / (r * r0);
    fg.gdot_minus_1 = -mu * g.v[2] / r;
    return fg;
}

/* drift_scalar: one body, any orbit, any dt. */
DEVICE_FN orr_drift_t orr_drift_scalar(double mu, double dt, orr_phase_t st)
{
    orr_drift_t out;
    double x = st.x[0], y = st.x[1], z = st.x[2];
    double vx = st.v[0], vy = st.v[1], vz = st.v[2];
    double r0 = sqrt(x * x + y * y + z * z);
    double v2 = vx * vx + vy * vy + vz * vz;
    double u = x * vx + y * vy + z * vz;
    orr_fg_t fg;
    out.s = st;
    if (!(mu > 0.0 && r0 > 0.0 && orr_is_finite(mu) && orr_is_finite(r0) && orr_is_finite(v2)
            && orr_is_finite(dt))) {
        out.err = ORR_KEPLER_INVALID_INPUT;
        return out;
    }
    out.err = ORR_KEPLER_OK;
    if (dt == 0.0)
        return out;
    fg = orr_elliptic_fg(mu, dt, r0, v2, u);
    if (!fg.ok)
        fg = orr_universal_fg(mu, dt, r0, v2, u);
    if (!fg.ok) {
        out.err = ORR_KEPLER_NO_CONVERGENCE;
        return out;
    }
    {
        orr_phase_t p = orr_apply_fg(fg, st);
        if (orr_phase_is_finite(p))
            out.s = p;
        else
            out.err = ORR_KEPLER_NON_FINITE;
    }
    return out;
}

/* ------------------------------------------------------------------------------------------ */
/* One body of drift_batch_per_body: central mass mu (0 = empty slot, left unchanged) and its
 * uploaded inverse inv_mu. The lane path where it accepts the body, drift_scalar otherwise. */
DEVICE_FN orr_drift_t orr_drift_body(double mu, double inv_mu, double dt, orr_phase_t st)
{
    if (orr_is_finite(dt) && dt != 0.0) {
        orr_lane_t lane = orr_drift_lane(mu, inv_mu, dt, st);
        if (lane.ok && mu > 0.0 && orr_is_finite(mu)) {
            orr_drift_t out;
            out.s = lane.s;
            out.err = ORR_KEPLER_OK;
            return out;
        }
    }
    if (mu == 0.0) {
        orr_drift_t out;
        out.s = st;
        out.err = ORR_KEPLER_OK;
        return out;
    }
    return orr_drift_scalar(mu, dt, st);
}

#endif /* ORRERY_KEPLER_H */
