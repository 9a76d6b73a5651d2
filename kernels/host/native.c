/*
 * native.c — the host build of the device headers, for the parity tests in
 * src/backend/device_math_tests.rs (no OpenCL or CUDA runtime involved).
 *
 * build.rs compiles this file twice, with contraction off and without fast-math:
 *   - as C99 (gcc/clang -std=c99), exporting orrery_native_* ;
 *   - as C++ (-x c++ -DORRERY_NATIVE_CXX), exporting orrery_native_cxx_* ,
 * so that the headers are checked in both languages the device builds use (OpenCL C is C99 based,
 * CUDA is C++). The wrappers only move values between plain arrays and the headers' structs; the
 * loops in orrery_native_*_sums are the test harness's summation order, not device code.
 */
#if defined(__cplusplus)
/* The C++ build's own work-item globals (C++ does not mangle names of global variables). */
#define orrery_host_global_id orrery_host_cxx_global_id
#define orrery_host_global_size orrery_host_cxx_global_size
#endif
#include "../common/device.h"
#include "../common/lanes.h"
#include "../common/sincos.h"
#include "../common/kepler.h"
#include "../common/kepler_tangent.h"
#include "../common/changeover.h"
#include "../common/hermite.h"
#include "../common/energy.h"
#include "../common/bulirsch_stoer.h"
#include "../common/truncation.h"
#include "../common/forces.h"
#include "../common/tides.h"
#include "../common/status.h"
/* The sheet engine's kernels themselves: those that need no work-group cooperation run here as
 * loops over their work-item or work-group index (LOCAL_ID 0, LOCAL_SIZE 1). */
#include "../sheet.cl"

u32 orrery_host_global_id, orrery_host_global_size;

#if defined(__cplusplus)
#define EXPORT(name) orrery_native_cxx_##name
extern "C" {
#else
#define EXPORT(name) orrery_native_##name
#endif

/* The status words of status.h in its order, then their number (src/backend/status.rs). */
void EXPORT(status_words)(u32 *out)
{
    const u32 words[8] = {ORR_STATUS_DRIFT_FAILED, ORR_STATUS_RADII_GREW, ORR_STATUS_CANDIDATES,
        ORR_STATUS_ENCOUNTERS, ORR_STATUS_EJECTIONS, ORR_STATUS_LINK_CHANGED, ORR_STATUS_TOUCHED,
        ORR_STATUS_LEN};
    int k;
    for (k = 0; k < 8; k++)
        out[k] = words[k];
}

double EXPORT(round_ties_even)(double x)
{
    return orr_round_ties_even(x);
}

void EXPORT(sin_cos)(double x, double *s, double *c)
{
    orr_sin_cos_t r = orr_sin_cos(x);
    *s = r.s;
    *c = r.c;
}

void EXPORT(sin_cos_lane)(double x, double *s, double *c)
{
    orr_sin_cos_t r = orr_sin_cos_lane(x);
    *s = r.s;
    *c = r.c;
}

static orr_phase_t load_phase(const double *st)
{
    orr_phase_t p;
    int c;
    for (c = 0; c < 3; c++) {
        p.x[c] = st[c];
        p.v[c] = st[3 + c];
    }
    return p;
}

static void store_phase(orr_phase_t p, double *st)
{
    int c;
    for (c = 0; c < 3; c++) {
        st[c] = p.x[c];
        st[3 + c] = p.v[c];
    }
}

/* One body of drift_batch_per_body, in place on st = [x y z vx vy vz]; returns the error code. */
int EXPORT(drift_body)(double mu, double inv_mu, double dt, double *st)
{
    orr_drift_t d = orr_drift_body(mu, inv_mu, dt, load_phase(st));
    store_phase(d.s, st);
    return d.err;
}

/* drift_scalar, in place; returns the error code. */
int EXPORT(drift_scalar)(double mu, double dt, double *st)
{
    orr_drift_t d = orr_drift_scalar(mu, dt, load_phase(st));
    store_phase(d.s, st);
    return d.err;
}

/* One body of drift_with_tangent, in place on st and on its tangent vector d (both
 * [x y z vx vy vz]); returns the drift's error code (st unchanged then). */
int EXPORT(drift_with_tangent)(double mu, double inv_mu, double dt, double *st, double *d)
{
    orr_phase_t moved;
    orr_drift_t r = orr_drift_with_tangent(mu, inv_mu, dt, load_phase(st), load_phase(d), &moved);
    store_phase(r.s, st);
    store_phase(moved, d);
    return r.err;
}

/* The lane path alone: 1 if it accepts the body (st then drifted). */
int EXPORT(drift_lane)(double mu, double inv_mu, double dt, double *st)
{
    orr_lane_t l = orr_drift_lane(mu, inv_mu, dt, load_phase(st));
    store_phase(l.s, st);
    return l.ok;
}

void EXPORT(changeover_ratio)(u32 changeover, double r, double inv_rcrit, double *num,
    double *den)
{
    orr_ratio_t k = orr_changeover_ratio(changeover, r, inv_rcrit);
    *num = k.num;
    *den = k.den;
}

double EXPORT(changeover)(u32 changeover, double r, double rcrit)
{
    return orr_changeover(changeover, r, rcrit);
}

double EXPORT(exp_neg)(double u)
{
    return orr_exp_neg(u);
}

int EXPORT(inside_perihelion)(double inv_mu, double inv_radius, double radius, const double *st)
{
    return orr_inside_perihelion(inv_mu, inv_radius, radius, st[0], st[1], st[2], st[3], st[4],
        st[5]);
}

int EXPORT(may_have_grazed)(double inv_mu, double inv_radius, double radius, double short_alpha,
    const double *st)
{
    return orr_may_have_grazed(inv_mu, inv_radius, radius, short_alpha, st[0], st[1], st[2], st[3],
        st[4], st[5]);
}

int EXPORT(is_candidate)(const double *d, double rcrit_i, double rcrit_j)
{
    return orr_is_candidate(d[0], d[1], d[2], rcrit_i, rcrit_j);
}

/* pair_acceleration_with: the near term w d with the pair's inverse critical radius given. */
void EXPORT(near_acceleration)(u32 changeover, const double *d, double m_j, double inv_rcrit,
    double *a)
{
    double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    double w = orr_near_weight(changeover, m_j, r2, inv_rcrit);
    a[0] = w * d[0];
    a[1] = w * d[1];
    a[2] = w * d[2];
}

/* Receiver i's far and near sums and candidate count over the sources 0 .. n_src in ascending
 * order, each pair from orr_pair_term (the test harness's order, that of the CPU tile pass). */
u32 EXPORT(pair_sums)(u32 changeover, u32 n_src, u32 i, const double *x, const double *y,
    const double *z,
    const double *m, const double *rcrit, const double *inv_rcrit, double *far, double *near)
{
    u32 j, count = 0;
    int c;
    for (c = 0; c < 3; c++)
        far[c] = near[c] = 0.0;
    for (j = 0; j < n_src; j++) {
        double d[3];
        orr_pair_t p;
        d[0] = x[j] - x[i];
        d[1] = y[j] - y[i];
        d[2] = z[j] - z[i];
        p = orr_pair_term(changeover, d[0], d[1], d[2], m[j], rcrit[i], rcrit[j], inv_rcrit[i],
            inv_rcrit[j]);
        if (!p.near)
            for (c = 0; c < 3; c++)
                far[c] += p.w_far * d[c];
        if (p.candidate && j != i) {
            for (c = 0; c < 3; c++)
                near[c] += p.w_near * d[c];
            count += 1;
        }
    }
    return count;
}

double EXPORT(critical_radius)(double n1, double n2_tau, double hill_factor, const double *st)
{
    return orr_critical_radius(n1, n2_tau, hill_factor, st[0], st[1], st[2], st[3], st[4], st[5]);
}

double EXPORT(min_separation_sq)(
    const double *dr0, const double *dv0, const double *dr1, const double *dv1, double tau)
{
    return orr_min_separation_sq(dr0, dv0, dr1, dv1, tau);
}

/* energy_split's sums (serial, in the CPU's order) from the terms of energy.h:
 * out = [kinetic, potential, Lx, Ly, Lz]. */
void EXPORT(energy)(double m0, u32 n, u32 massive, const double *x, const double *y,
    const double *z, const double *vx, const double *vy, const double *vz, const double *m,
    const double *s, double *out)
{
    double kinetic = 0.0, potential = 0.0, l[3] = { 0.0, 0.0, 0.0 }, p[3] = { 0.0, 0.0, 0.0 };
    u32 i, j;
    int c;
    for (i = 0; i < n; i++) {
        double pair = 0.0;
        if (i < massive) {
            double si = 0.0;
            for (j = i + 1; j < n; j++)
                si += orr_pair_potential_term(m[j], x[j] - x[i], y[j] - y[i], z[j] - z[i]);
            pair = orr_pair_potential(m[i], si);
        }
        kinetic += orr_kinetic_term(m[i], vx[i], vy[i], vz[i]);
        potential -= orr_central_potential_term(m0, m[i], x[i], y[i], z[i]) + pair;
        for (c = 0; c < 3; c++)
            l[c] += orr_angular_momentum_term(
                c, m[i], x[i], y[i], z[i], vx[i], vy[i], vz[i], s[3 * i + c]);
        p[0] += m[i] * vx[i];
        p[1] += m[i] * vy[i];
        p[2] += m[i] * vz[i];
    }
    kinetic += orr_central_kinetic(m0, p[0], p[1], p[2]);
    out[0] = kinetic;
    out[1] = potential;
    out[2] = l[0];
    out[3] = l[1];
    out[4] = l[2];
}

/* One group through bulirsch_stoer.h's integration by a single work-item (lid 0, lsize 1):
 * states holds twelve doubles per member as orr_group_gather writes them; out receives six per
 * member (the end state); result the status and the accepted and rejected substeps. */
void EXPORT(bs_group)(u32 n, double m0, u32 changeover, double tau, double tol, double min_step,
    u32 max_substeps, const double *states, double *out, u32 *result)
{
    orr_bs_group_t s;
    orr_bs_result_t r;
    u32 i, c;
    if (n > ORR_BS_MAX_BODIES) {
        result[0] = ORR_BS_HOST;
        result[1] = 0u;
        result[2] = 0u;
        return;
    }
    for (i = 0; i < n; i++)
        orr_bs_load(&s, i, states + 12u * i);
    r = orr_bs_integrate(&s, n, m0, changeover, tau, tol, min_step, max_substeps, 0u, 1u);
    for (i = 0; i < n; i++)
        for (c = 0; c < 3u; c++) {
            out[6u * i + c] = s.x[c * ORR_BS_N + i];
            out[6u * i + 3u + c] = s.v[c * ORR_BS_N + i];
        }
    result[0] = r.status;
    result[1] = r.accepted;
    result[2] = r.rejected;
}

/* ---------------------------------------------------------------- the sheet kernels */

void EXPORT(sheet_drift)(u32 n, double *x, double *y, double *z, double *vx, double *vy,
    double *vz, double omega, double dt, double c, double s)
{
    u32 k;
    for (k = 0; k < n; k++) {
        orrery_host_global_id = k;
        orr_sheet_drift(n, x, y, z, vx, vy, vz, omega, dt, c, s);
    }
}

void EXPORT(sheet_boundary)(u32 n, double *x, double *y, double *vy, double omega, double l,
    double t)
{
    u32 k;
    for (k = 0; k < n; k++) {
        orrery_host_global_id = k;
        orr_sheet_boundary(n, x, y, vy, omega, l, t);
    }
}

void EXPORT(sheet_keys)(u32 n, const double *x, const double *y, const double *z, double cube,
    u64 *keys, u32 *vals)
{
    u32 k;
    for (k = 0; k < n; k++) {
        orrery_host_global_id = k;
        orr_sheet_keys(n, x, y, z, &cube, keys, vals);
    }
}

/* The moments of every node, children before parents (breadth-first order reversed). */
void EXPORT(sheet_moments)(u32 nodes, const u32 *start, const u32 *end, const u32 *first,
    const u32 *nchild, const u32 *level, const double *x, const double *y, const double *z,
    const double *m, const double *r, double cube, double *cells)
{
    u32 k;
    for (k = nodes; k > 0; k--) {
        orrery_host_global_id = k - 1u;
        orr_tree_moments(0u, nodes, start, end, first, nchild, level, x, y, z, m, r, &cube, cells);
    }
}

void EXPORT(sheet_gravity)(u32 ngroups, const u32 *groups, const u32 *start, const u32 *end,
    const u32 *first, const u32 *nchild, const double *cells, const double *x, const double *y,
    const double *z, const double *m, const double *ghosts, u32 nghosts, double inv_theta,
    double eps2, double g, double *ax, double *ay, double *az, u64 *pp, u64 *pc)
{
    u32 gi;
    for (gi = 0; gi < ngroups; gi++) {
        orrery_host_global_id = gi;
        orr_sheet_gravity(ngroups, groups, start, end, first, nchild, cells, x, y, z, m, ghosts,
            nghosts, inv_theta, eps2, g, ax, ay, az, pp, pc);
    }
}

/* The collision search's count pass, a scan and its write pass into pairs of capacity cap;
 * returns the number of pairs (written only when it fits). */
u32 EXPORT(sheet_collisions)(u32 nleaves, const u32 *leaves, const u32 *start, const u32 *end,
    const u32 *first, const u32 *nchild, const double *cells, const double *x, const double *y,
    const double *z, const double *vx, const double *vy, const double *vz, const double *r,
    const double *ghosts, u32 nghosts, u32 n, u32 *count, u32 *offset, u32 cap, u32 *pi,
    u32 *pj, u32 *pg)
{
    u32 l, k, total = 0;
    for (l = 0; l < nleaves; l++) {
        orrery_host_global_id = l;
        orr_collision_count(nleaves, leaves, start, end, first, nchild, cells, x, y, z, vx, vy,
            vz, r, ghosts, nghosts, count);
    }
    for (k = 0; k < n; k++) {
        offset[k] = total;
        total += count[k];
    }
    if (total > cap)
        return total;
    for (l = 0; l < nleaves; l++) {
        orrery_host_global_id = l;
        orr_collision_write(nleaves, leaves, start, end, first, nchild, cells, x, y, z, vx, vy,
            vz, r, ghosts, nghosts, offset, pi, pj, pg);
    }
    return total;
}

/* The resolution: predecessors by the counting sort of the partners, then rounds until no
 * pair is left; returns the number resolved, the rounds taken in *rounds. count, offset and
 * fill hold n words, list, prev_i and prev_j one per pair. */
u32 EXPORT(sheet_resolve)(u32 npairs, const u32 *pi, const u32 *pj, const u32 *pg,
    const double *ghosts, const double *x, const double *y, const double *z, double *vx,
    double *vy, double *vz, const double *m, u32 n, u32 *count, u32 *offset, u32 *fill,
    u32 *list, u32 *prev_i, u32 *prev_j, u32 *done, u32 kind, double value, u32 *rounds)
{
    u32 status[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    u32 k, total = 0;
    for (k = 0; k < n; k++)
        count[k] = fill[k] = 0;
    for (k = 0; k < npairs; k++) {
        done[k] = 0;
        orrery_host_global_id = k;
        orr_partner_count(npairs, pj, count);
    }
    for (k = 0; k < n; k++) {
        offset[k] = total;
        total += count[k];
    }
    /* Fill in reverse: the sort must put the lists in order. */
    for (k = npairs; k > 0; k--) {
        orrery_host_global_id = k - 1u;
        orr_partner_fill(npairs, pj, offset, fill, list);
    }
    for (k = 0; k < n; k++) {
        orrery_host_global_id = k;
        orr_partner_sort(n, offset, count, list);
    }
    for (k = 0; k < npairs; k++) {
        orrery_host_global_id = k;
        orr_pair_predecessors(npairs, pi, pj, offset, count, list, prev_i, prev_j);
    }
    *rounds = 0;
    do {
        *rounds += 1u;
        for (k = 0; k < npairs; k++) {
            orrery_host_global_id = k;
            orr_resolve_round(npairs, *rounds, pi, pj, pg, prev_i, prev_j, ghosts, x, y, z, vx,
                vy, vz, m, done, status, 4u, 6u, kind, value);
        }
    } while (status[4u + *rounds % 2u] != 0u && *rounds <= npairs);
    return status[6];
}

/* forces.h: the potential forces' acceleration and energy at x[3], and one system's radiation
 * kick (its constants into sw[6], its work added to work[4], and every slot's velocity change
 * into d[3 n]). */
void EXPORT(potential_accel)(const double *f, double mu, const double *x, double *a)
{
    orr_potential_accel(f, mu, x[0], x[1], x[2], a);
}

double EXPORT(potential_energy)(const double *f, double mu, const double *x)
{
    return orr_potential_energy(f, mu, x[0], x[1], x[2]);
}

void EXPORT(potential_torque)(const double *f, double mu, double dt, u32 pulling,
    const double *m, const double *x, const double *y, const double *z, double *l)
{
    orr_potential_torque(f, mu, dt, 0u, pulling, m, x, y, z, l);
}

void EXPORT(radiation_system)(const double *f, double m0, double dt, u32 n, u32 pulling,
    const double *m, const double *r, const double *x, const double *y, const double *z,
    const double *vx, const double *vy, const double *vz, const double *sx, const double *sy,
    const double *sz, double *sw, double *work, double *d)
{
    u32 k;
    orr_radiation_system(f, m0, dt, 0u, pulling, m, r, x, y, z, vx, vy, vz, sx, sy, sz, sw, work);
    for (k = 0; k < n; k++) {
        double pos[3] = {x[k], y[k], z[k]};
        double v[3] = {vx[k], vy[k], vz[k]};
        double spin[3] = {sx[k], sy[k], sz[k]};
        orr_radiation_dv(f, m0, dt, sw, m[k], r[k], pos, v, spin, d + 3 * k);
    }
}

void EXPORT(yarkovsky_accel)(const double *f, double mu, double mass, double s,
    const double *x, const double *v, const double *spin, double *a)
{
    orr_yarkovsky_accel(f, mu, mass, s, x, v, spin, a);
}

/* orr_tide_kick_system over n bodies from slot 0; star_spin[3] in place; returns the work. */
double EXPORT(tide_kick_system)(const double *f, double m0, double dt, u32 n, u32 n_table,
    const u64 *ids, const double *props, const double *m, const double *r, const u64 *id,
    const double *x, const double *y, const double *z, double *vx, double *vy, double *vz,
    double *sx, double *sy, double *sz, double *star_spin)
{
    return orr_tide_kick_system(f, m0, dt, 0, n, n_table, ids, props, m, r, id, x, y, z, vx, vy,
        vz, sx, sy, sz, star_spin);
}

#if defined(__cplusplus)
} /* extern "C" */
#endif
