/*
 * bulirsch_stoer.h — the Bulirsch-Stoer integration of one small close-encounter group under H_A
 * (GENGA paper section 3.2.6), by the work-items of one work-group.
 *
 * Rust twin: `integrate_group` in src/physics/bulirsch_stoer.rs (module docs there: modified
 * midpoint sweeps with n = 2, 4, ..., 16, Aitken-Neville extrapolation, Mercury's step control).
 * The same operations in the same order per body, so the same bits: the H_A acceleration of a
 * body sums the Sun's term and then its partners in ascending index (the order in which the CPU's
 * pair loop reaches a body), and the only reductions are maxima (order-free, NaN kept sticky as
 * the CPU's `nan_max` does) and "any" flags.
 *
 * What the device does not do: mergers. A collision found after an accepted substep (the CPU's
 * test, same bits) ends the device integration with ORR_BS_HOST, and so does every failure of the
 * CPU's (bad input, non-finite state, too many substeps, step too small) and a group larger than
 * ORR_BS_MAX_BODIES; the host then integrates that group with the Rust twin from its start state,
 * which gives the CPU's result and its events or error messages.
 *
 * Work sharing: body loops run `for (i = lid; i < n; i += lsize)`; every work-item runs the
 * step control itself on the same shared values, so all of them take the same branches and
 * reach every barrier (the host C build runs it with lid 0, lsize 1 and no barriers).
 */
#ifndef ORRERY_BULIRSCH_STOER_H
#define ORRERY_BULIRSCH_STOER_H

#include "device.h"
#include "lanes.h"
#include "changeover.h"
#include "hermite.h"

/* Largest group integrated on the device (larger ones go to the host). */
#define ORR_BS_MAX_BODIES 16
/* Levels of the midpoint sequence 2, 4, ..., 16. */
#define ORR_BS_KMAX 8
/* f64::MIN_POSITIVE. */
#define ORR_MIN_POSITIVE 2.2250738585072014e-308

/* Outcome of a group's device integration. */
#define ORR_BS_DONE 0u
#define ORR_BS_HOST 1u

#define ORR_BS_N ORR_BS_MAX_BODIES

/* The work-group's shared state of one group: components c of body i at [c * N + i]; tableau
 * level j at [(3 j + c) * N + i]. */
typedef struct {
    double m[ORR_BS_N], r[ORR_BS_N], rc[ORR_BS_N];
    double x[3 * ORR_BS_N], v[3 * ORR_BS_N];
    double x0[3 * ORR_BS_N], v0[3 * ORR_BS_N], a0[3 * ORR_BS_N];
    /* The midpoint states z_{m-1} and z_m: halves `a` and 1 - `a` of xm and vm. */
    double xm[6 * ORR_BS_N], vm[6 * ORR_BS_N];
    double acc[3 * ORR_BS_N];
    double tx[ORR_BS_KMAX * 3 * ORR_BS_N], tv[ORR_BS_KMAX * 3 * ORR_BS_N];
    double xs[ORR_BS_N], vs[ORR_BS_N];
    /* One partial result per work-item for the reductions. */
    double red[ORR_BS_N];
    /* Set by the loader: some input is non-finite or negative (the CPU's validate). */
    u32 bad[ORR_BS_N];
} orr_bs_group_t;

/* What the integration did: ORR_BS_DONE or ORR_BS_HOST, and the CPU's counters. */
typedef struct {
    u32 status;
    u32 accepted;
    u32 rejected;
} orr_bs_result_t;

/* The CPU's nan_max: b if b > a or b is NaN, else a. */
DEVICE_FN double orr_nan_max(double a, double b)
{
    return (b > a || orr_is_nan(b)) ? b : a;
}

/* Midpoint step counts. */
DEVICE_FN double orr_bs_nseq(int k)
{
    return (double)(2 * (k + 1));
}

/* H_A acceleration of body i at positions X (the Sun's term, then the partners by ascending
 * index with the (1 - K) weight of the run's changeover function), into acc. */
DEVICE_FN void orr_bs_acceleration(LOCAL_PTR orr_bs_group_t *s, u32 n, double m0, u32 changeover,
    LOCAL_PTR const double *X, LOCAL_PTR double *acc, u32 i)
{
    const u32 N = ORR_BS_N;
    double xi0 = X[i], xi1 = X[N + i], xi2 = X[2 * N + i];
    double r2 = xi0 * xi0 + xi1 * xi1 + xi2 * xi2;
    double f = -m0 / (r2 * sqrt(r2));
    double a0 = f * xi0, a1 = f * xi1, a2 = f * xi2;
    for (u32 k = 0; k < n; k++) {
        if (k == i)
            continue;
        u32 lo = k < i ? k : i, hi = k < i ? i : k;
        double d0 = X[hi] - X[lo], d1 = X[N + hi] - X[N + lo], d2 = X[2 * N + hi] - X[2 * N + lo];
        double dr2 = d0 * d0 + d1 * d1 + d2 * d2;
        double dr = sqrt(dr2);
        double w = (1.0 - orr_changeover(changeover, dr, orr_max(s->rc[lo], s->rc[hi]))) / (dr2 * dr);
        double fk = s->m[k] * w;
        if (k < i) {
            a0 -= fk * d0;
            a1 -= fk * d1;
            a2 -= fk * d2;
        } else {
            a0 += fk * d0;
            a1 += fk * d1;
            a2 += fk * d2;
        }
    }
    acc[i] = a0;
    acc[N + i] = a1;
    acc[2 * N + i] = a2;
}

DEVICE_FN void orr_bs_accelerations(LOCAL_PTR orr_bs_group_t *s, u32 n, double m0, u32 changeover,
    LOCAL_PTR const double *X, LOCAL_PTR double *acc, u32 lid, u32 lsize)
{
    for (u32 i = lid; i < n; i += lsize)
        orr_bs_acceleration(s, n, m0, changeover, X, acc, i);
}

/* NaN-sticky maximum of the work-items' partials red[0..lsize), read by every work-item. */
DEVICE_FN double orr_bs_reduce_max(LOCAL_PTR orr_bs_group_t *s, u32 lsize)
{
    double out = 0.0;
    for (u32 l = 0; l < lsize; l++)
        out = orr_nan_max(out, s->red[l]);
    return out;
}

/* One trial substep of length h from (x0, v0, a0) (the CPU's `attempt`): on convergence the
 * extrapolated state is in (x, v) and the level reached is returned, otherwise -1. */
DEVICE_FN int orr_bs_attempt(LOCAL_PTR orr_bs_group_t *s, u32 n, double m0, u32 changeover, double h, double tol,
    u32 lid, u32 lsize)
{
    const u32 N = ORR_BS_N;
    for (int k = 0; k < ORR_BS_KMAX; k++) {
        double ns = orr_bs_nseq(k);
        double hs = h / ns;
        /* Offsets of z_{m-1} (a) and z_m (b) in xm, vm; swapped after every midpoint step. */
        u32 a = 0u, b = 3u * N;
        for (u32 i = lid; i < n; i += lsize)
            for (u32 c = 0; c < 3; c++) {
                u32 q = c * N + i;
                s->xm[a + q] = s->x0[q];
                s->vm[a + q] = s->v0[q];
                s->xm[b + q] = s->x0[q] + hs * s->v0[q];
                s->vm[b + q] = s->v0[q] + hs * s->a0[q];
            }
        for (int step = 1; step < 2 * (k + 1); step++) {
            LOCAL_BARRIER();
            orr_bs_accelerations(s, n, m0, changeover, s->xm + b, s->acc, lid, lsize);
            LOCAL_BARRIER();
            for (u32 i = lid; i < n; i += lsize)
                for (u32 c = 0; c < 3; c++) {
                    u32 q = c * N + i;
                    s->xm[a + q] += 2.0 * hs * s->vm[b + q];
                    s->vm[a + q] += 2.0 * hs * s->acc[q];
                }
            u32 t = a;
            a = b;
            b = t;
        }
        LOCAL_BARRIER();
        orr_bs_accelerations(s, n, m0, changeover, s->xm + b, s->acc, lid, lsize);
        LOCAL_BARRIER();

        /* y = (z_n + z_{n-1} + hs f(z_n)) / 2, then Aitken-Neville in (h/n)^2; the error is the
         * change of the diagonal value from the previous level. */
        double ratio[ORR_BS_KMAX];
        for (int j = 1; j <= k; j++) {
            double q = ns / orr_bs_nseq(k - j);
            ratio[j] = q * q - 1.0;
        }
        double err_part = 0.0;
        for (u32 i = lid; i < n; i += lsize) {
            double ex = 0.0, ev = 0.0;
            for (u32 c = 0; c < 3; c++) {
                u32 q = c * N + i;
                double cx = 0.5 * (s->xm[b + q] + s->xm[a + q] + hs * s->vm[b + q]);
                double cv = 0.5 * (s->vm[b + q] + s->vm[a + q] + hs * s->acc[q]);
                if (k == 0) {
                    s->tx[q] = cx;
                    s->tv[q] = cv;
                    continue;
                }
                u32 prev = (3u * (u32)(k - 1) + c) * N + i;
                double px = s->tx[prev], pv = s->tv[prev];
                for (int j = 1; j <= k; j++) {
                    u32 slot = (3u * (u32)(j - 1) + c) * N + i;
                    double ox = s->tx[slot], ov = s->tv[slot];
                    s->tx[slot] = cx;
                    s->tv[slot] = cv;
                    cx += (cx - ox) / ratio[j];
                    cv += (cv - ov) / ratio[j];
                }
                u32 top = (3u * (u32)k + c) * N + i;
                s->tx[top] = cx;
                s->tv[top] = cv;
                ex = orr_nan_max(ex, fabs(cx - px));
                ev = orr_nan_max(ev, fabs(cv - pv));
            }
            err_part = orr_nan_max(orr_nan_max(err_part, ex / s->xs[i]), ev / s->vs[i]);
        }
        s->red[lid] = err_part;
        LOCAL_BARRIER();
        double err = orr_bs_reduce_max(s, lsize);
        LOCAL_BARRIER();
        if (k >= 1 && err <= tol) {
            for (u32 i = lid; i < n; i += lsize)
                for (u32 c = 0; c < 3; c++) {
                    u32 q = c * N + i;
                    s->x[q] = s->tx[(3u * (u32)k + c) * N + i];
                    s->v[q] = s->tv[(3u * (u32)k + c) * N + i];
                }
            return k;
        }
    }
    return -1;
}

/* 1 when some pair of the group touches during the accepted substep of length h from
 * (x0, v0) to (x, v): the CPU's `collide` test (end-point separation, then the Hermite minimum). */
DEVICE_FN int orr_bs_any_contact(LOCAL_PTR orr_bs_group_t *s, u32 n, double h, u32 lid,
    u32 lsize)
{
    const u32 N = ORR_BS_N;
    double hit = 0.0;
    for (u32 i = lid; i < n; i += lsize)
        for (u32 j = i + 1; j < n; j++) {
            double rsum = s->r[i] + s->r[j];
            if (rsum <= 0.0)
                continue;
            double rsum2 = rsum * rsum;
            double dr0[3], dv0[3], dr1[3], dv1[3];
            for (u32 c = 0; c < 3; c++) {
                dr1[c] = s->x[c * N + j] - s->x[c * N + i];
                dr0[c] = s->x0[c * N + j] - s->x0[c * N + i];
                dv0[c] = s->v0[c * N + j] - s->v0[c * N + i];
                dv1[c] = s->v[c * N + j] - s->v[c * N + i];
            }
            double p1 = dr1[0] * dr1[0] + dr1[1] * dr1[1] + dr1[2] * dr1[2];
            if (p1 < rsum2 || orr_min_separation_sq(dr0, dv0, dr1, dv1, h) < rsum2)
                hit = 1.0;
        }
    s->red[lid] = hit;
    LOCAL_BARRIER();
    double any = orr_bs_reduce_max(s, lsize);
    LOCAL_BARRIER();
    return any != 0.0;
}

/* 1 when every position and velocity of the group is finite (the CPU's check after a substep). */
DEVICE_FN int orr_bs_all_finite(LOCAL_PTR orr_bs_group_t *s, u32 n, u32 lid, u32 lsize)
{
    const u32 N = ORR_BS_N;
    double bad = 0.0;
    for (u32 i = lid; i < n; i += lsize)
        for (u32 c = 0; c < 3; c++)
            if (!orr_is_finite(s->x[c * N + i]) || !orr_is_finite(s->v[c * N + i]))
                bad = 1.0;
    s->red[lid] = bad;
    LOCAL_BARRIER();
    double any = orr_bs_reduce_max(s, lsize);
    LOCAL_BARRIER();
    return any == 0.0;
}

/* Integrate the group loaded in s (m, r, rc, x, v, bad; n <= ORR_BS_MAX_BODIES) over tau around
 * the central mass m0 with the changeover function `changeover`, as the CPU's `integrate_group` with tolerance tol, minimum step
 * min_step |tau| and at most max_substeps substeps. On ORR_BS_DONE (x, v) hold the end state. */
DEVICE_FN orr_bs_result_t orr_bs_integrate(LOCAL_PTR orr_bs_group_t *s, u32 n, double m0, u32 changeover,
    double tau, double tol, double min_step, u32 max_substeps, u32 lid, u32 lsize)
{
    const u32 N = ORR_BS_N;
    orr_bs_result_t res;
    res.status = ORR_BS_HOST;
    res.accepted = 0u;
    res.rejected = 0u;
    u32 bad = 0u;
    for (u32 i = 0; i < n; i++)
        bad |= s->bad[i];
    int opts_ok = tol > 0.0 && orr_is_finite(tol) && min_step >= 0.0;
    if (bad || n > ORR_BS_MAX_BODIES || !orr_is_finite(m0) || !orr_is_finite(tau) || m0 < 0.0
        || !opts_ok)
        return res;
    res.status = ORR_BS_DONE;
    if (n == 0u || tau == 0.0)
        return res;
    double h_min = min_step * fabs(tau);
    double t = 0.0, h = tau;
    /* As f64's Sum: the first mass, then the others in order. */
    double m_group = s->m[0];
    for (u32 i = 1; i < n; i++)
        m_group += s->m[i];
    for (;;) {
        double remaining = tau - t;
        if (remaining == 0.0 || orr_signum(remaining) != orr_signum(tau))
            break;
        int last = fabs(h) >= fabs(remaining);
        double hstep = last ? remaining : h;
        for (u32 i = lid; i < n; i += lsize) {
            for (u32 c = 0; c < 3; c++) {
                s->x0[c * N + i] = s->x[c * N + i];
                s->v0[c * N + i] = s->v[c * N + i];
            }
            double x0 = s->x[i], x1 = s->x[N + i], x2 = s->x[2 * N + i];
            double v0 = s->v[i], v1 = s->v[N + i], v2 = s->v[2 * N + i];
            double r = sqrt(x0 * x0 + x1 * x1 + x2 * x2);
            double sp = sqrt(v0 * v0 + v1 * v1 + v2 * v2);
            s->xs[i] = orr_max(r, ORR_MIN_POSITIVE);
            s->vs[i] = orr_max(orr_max(sp, 1e-3 * sqrt((m0 + m_group) / s->xs[i])),
                ORR_MIN_POSITIVE);
        }
        LOCAL_BARRIER();
        orr_bs_accelerations(s, n, m0, changeover, s->x0, s->a0, lid, lsize);
        LOCAL_BARRIER();
        if (res.accepted + res.rejected >= max_substeps) {
            res.status = ORR_BS_HOST;
            return res;
        }
        int k = orr_bs_attempt(s, n, m0, changeover, hstep, tol, lid, lsize);
        LOCAL_BARRIER();
        if (k >= 0) {
            res.accepted++;
            if (!orr_bs_all_finite(s, n, lid, lsize) || orr_bs_any_contact(s, n, hstep, lid, lsize)) {
                res.status = ORR_BS_HOST;
                return res;
            }
            t = last ? tau : t + hstep;
            if (k == ORR_BS_KMAX - 1)
                h = 0.55 * hstep;
            else if (k + 2 < ORR_BS_KMAX)
                h = 1.3 * hstep;
            else
                h = hstep;
        } else {
            res.rejected++;
            h = 0.5 * hstep;
            if (fabs(h) < h_min || h == 0.0) {
                res.status = ORR_BS_HOST;
                return res;
            }
        }
    }
    return res;
}

/* Load member i of a group from the gathered start state st (twelve doubles: position,
 * velocity, mass, radius, spin, critical radius; see groups.cl's orr_group_gather), flagging
 * what the CPU's validation refuses. */
DEVICE_FN void orr_bs_load(LOCAL_PTR orr_bs_group_t *s, u32 i, GLOBAL const double *st)
{
    const u32 N = ORR_BS_N;
    u32 bad = 0u;
    for (u32 c = 0; c < 3; c++) {
        s->x[c * N + i] = st[c];
        s->v[c * N + i] = st[3 + c];
    }
    s->m[i] = st[6];
    s->r[i] = st[7];
    s->rc[i] = st[11];
    for (u32 q = 0; q < 12; q++)
        if (!orr_is_finite(st[q]))
            bad = 1u;
    if (st[6] < 0.0 || st[7] < 0.0 || st[11] < 0.0)
        bad = 1u;
    s->bad[i] = bad;
}

#endif /* ORRERY_BULIRSCH_STOER_H */
