/*
 * wisdom_holman.cl — the Wisdom-Holman map's step of a pack of systems, one work-item per
 * system (common/wisdom_holman.h; the Rust twin is `WhPack::step` in
 * src/physics/wisdom_holman/pack.rs): the kick K(h) at the positions half a drift into the step,
 * with the watch's check of them, then the drift D(h) that holds the next step's first half,
 * swept for pairs within their stop limits. Every array is body-major with the systems side by
 * side (`k * lanes + s`), several components one after another (src/backend/gpu/wisdom_holman.rs
 * lays them out):
 *
 *   masses  m, eta, 1 / eta, m / eta          jac    x, y, z, vx, vy, vz (Jacobi), before the
 *                                                    step; jac_out the same after it
 *   work    inertial positions, then the Jacobi accelerations
 *   acc     inertial accelerations             ends   the sweep's p0, v0, p1, v1 (inertial)
 *   sys     per system: inner^2, outer^2       body   Hill factor, radius, heliocentric distance
 *   f       the forces' constants (forces.h)   ratio  m_k / m_0
 *   torque  per system, J2's tally x, y, z     stop_u per system: kind, a, b, drift failure
 *   torque_kept  the tally before the step's kick
 *   stop_f  per system: distance, fraction of the step after the kick
 *   status  ORR_WH_STATUS_*: systems with a new event
 *
 * With MEGNO, orr_wh_step_megno also steps each system's tangent vector (common/wh_variations.h;
 * the Rust twin is `Variations`): `tan` and `tan_out` (six components, Jacobi) alternate as `jac`
 * does, `sums` holds the nine MEGNO sums per system, `var_work` the tangent step's scratch
 * (five three-component arrays); ORR_WH_MEGNO_STOP stops a system whose MEGNO exceeds
 * `megno_above` once `t >= megno_after` (ORR_WH_CHAOTIC, distance: the MEGNO).
 *
 * The host alternates `jac` and `jac_out` between steps. A system whose drift fails is written
 * to `jac_out` as it was in `jac`, bit for bit (the state before the step, as `WhPack::step`
 * keeps it), its torque tally as it was before the kick (its tangent vector and MEGNO sums too),
 * with its failure word set and, unless the kick found an event other than MEGNO's first, the
 * event
 * ORR_WH_FAILED (a: the Jacobi body, b: the code) half a step before the kick. A system's event
 * is kept once found (a stopped system still steps until the host repacks).
 */
#include "common/device.h"
#include "common/wh_variations.h"
#include "common/wisdom_holman.h"

/* The map's buffers (see the header). */
#define ORR_WH_STEP_PARAMS                                                                      \
    u32 lanes, u32 n, double h, u32 flags, double hill_radii, double min_distance,              \
        GLOBAL const double *RESTRICT masses, GLOBAL const double *RESTRICT jac,                \
        GLOBAL double *RESTRICT jac_out, GLOBAL double *RESTRICT work,                          \
        GLOBAL double *RESTRICT acc, GLOBAL double *RESTRICT ends,                              \
        GLOBAL const double *RESTRICT sys, GLOBAL double *RESTRICT body,                        \
        GLOBAL const double *RESTRICT f, GLOBAL const double *RESTRICT ratio,                   \
        GLOBAL double *RESTRICT torque, GLOBAL double *RESTRICT torque_kept,                    \
        GLOBAL u32 *RESTRICT stop_u, GLOBAL double *RESTRICT stop_f, GLOBAL u32 *RESTRICT status
#define ORR_WH_STEP_ARGS                                                                        \
    lanes, n, h, flags, hill_radii, min_distance, masses, jac, jac_out, work, acc, ends, sys,   \
        body, f, ratio, torque, torque_kept, stop_u, stop_f, status

/* One system's step; with `megno` (a constant of each kernel) its tangent vector's too. */
DEVICE_FN void orr_wh_step_system(ORR_WH_STEP_PARAMS, int megno, GLOBAL const double *tan,
    GLOBAL double *tan_out, GLOBAL double *var_work, GLOBAL double *sums, double megno_above,
    double megno_after)
{
    u32 s = GLOBAL_ID;
    if (s >= lanes)
        return;
    orr_wh_at_t at;
    at.s = s;
    at.L = lanes;
    at.n = n;
    u32 nl = n * lanes, c;
    GLOBAL const double *m = masses;
    GLOBAL const double *eta = masses + nl;
    GLOBAL const double *inv_eta = masses + 2 * nl;
    GLOBAL const double *m_over_eta = masses + 3 * nl;
    GLOBAL const double *x = jac;
    GLOBAL const double *v = jac + 3 * nl;
    GLOBAL double *x_out = jac_out;
    GLOBAL double *v_out = jac_out + 3 * nl;
    /* The Jacobi accelerations: over the inertial positions, unless the tangent kick needs them. */
    GLOBAL double *ja = megno ? var_work : work;
    double vary[ORR_MEGNO_LEN];
    orr_wh_limits_t lim;
    lim.hill_radii = hill_radii;
    lim.min_distance = min_distance;
    lim.flags = flags;
    orr_wh_stop_t stop;
    stop.kind = stop_u[s];
    stop.a = stop_u[lanes + s];
    stop.b = stop_u[2 * lanes + s];
    stop.distance = stop_f[s];
    double after = stop_f[lanes + s];
    u32 before = stop.kind;
    int sweep = (flags & ORR_WH_SWEEP) != 0;
    /* The torque tally before the kick, put back if the drift fails (kept in global memory:
     * in registers it would hold 14 of them through the step). */
    if (flags & ORR_WH_TORQUE)
        for (c = 0; c < 3; c++)
            torque_kept[c * lanes + s] = torque[c * lanes + s];

    /* The kick, at the inertial positions. */
    orr_wh_from_jacobi3(at, m_over_eta, x, work);
    if (flags & ORR_WH_WATCH) {
        orr_wh_check(at, lim, sys, body, work, &stop);
        if (sweep) {
            u32 k;
            for (c = 0; c < 3; c++)
                for (k = 0; k < n; k++)
                    ends[c * nl + orr_wh_i(at, k)] = work[c * nl + orr_wh_i(at, k)];
        }
    }
    orr_wh_pair_sums(at, m, work, 0, acc);
    if (flags & ORR_WH_POTENTIAL)
        orr_wh_potential(at, flags, h, f, m, ratio, work, acc, torque);
    for (c = 0; c < 3; c++)
        orr_wh_to_jacobi(at, m, inv_eta, acc + c * nl, ja + c * nl);
    orr_wh_kick_velocities(at, h, eta, x, 0, ja, v, v_out);
    if (megno) {
        double ratio_now = orr_wh_vary_kick(at, flags, h, f, masses, ratio, x, work, tan,
            tan_out, var_work + 3 * nl);
        for (c = 0; c < ORR_MEGNO_LEN; c++)
            vary[c] = sums[c * lanes + s];
        orr_megno_add(vary, h, ratio_now);
        if ((flags & ORR_WH_MEGNO_STOP) && stop.kind == ORR_WH_NONE
            && vary[ORR_MEGNO_T] >= megno_after && orr_megno_of(vary) > megno_above) {
            stop.kind = ORR_WH_CHAOTIC;
            stop.a = 0;
            stop.b = 0;
            stop.distance = orr_megno_of(vary);
            after = 0.0;
        }
    }
    if (sweep)
        orr_wh_from_jacobi3(at, m_over_eta, v_out, ends + 3 * nl);

    /* The drift, swept; a failed one undone. */
    u32 failed = megno
        ? orr_wh_drift_with_tangent(at, h, eta, inv_eta, x, x_out, v_out, tan, tan_out)
        : orr_wh_drift(at, h, eta, inv_eta, x, x_out, v_out);
    if (failed != 0) {
        orr_wh_restore(at, jac, jac_out);
        if (megno)
            orr_wh_restore(at, tan, tan_out);
        if (flags & ORR_WH_TORQUE)
            for (c = 0; c < 3; c++)
                torque[c * lanes + s] = torque_kept[c * lanes + s];
        stop_u[3 * lanes + s] = failed;
        /* A stop on MEGNO goes back with the sums it was read from. */
        if (stop.kind == ORR_WH_NONE || stop.kind == ORR_WH_CHAOTIC) {
            stop.kind = ORR_WH_FAILED;
            stop.a = failed >> 2;
            stop.b = failed & 3u;
            stop.distance = 0.0;
            after = -0.5;
        }
    } else {
        if (megno) {
            orr_wh_rescale(at, tan_out);
            for (c = 0; c < ORR_MEGNO_LEN; c++)
                sums[c * lanes + s] = vary[c];
        }
        if (sweep) {
            orr_wh_from_jacobi3(at, m_over_eta, x_out, ends + 6 * nl);
            orr_wh_from_jacobi3(at, m_over_eta, v_out, ends + 9 * nl);
            if (stop.kind == ORR_WH_NONE)
                orr_wh_sweep(at, lim, h, body, ends, &stop, &after);
        }
    }
    if (stop.kind != before) {
        stop_u[s] = stop.kind;
        stop_u[lanes + s] = stop.a;
        stop_u[2 * lanes + s] = stop.b;
        stop_f[s] = stop.distance;
        stop_f[lanes + s] = after;
        ATOMIC_ADD_U32(&status[ORR_WH_STATUS_STOPS], 1u);
    }
}

KERNEL void orr_wh_step(ORR_WH_STEP_PARAMS)
{
    orr_wh_step_system(ORR_WH_STEP_ARGS, 0, work, work, work, work, 0.0, 0.0);
}

KERNEL void orr_wh_step_megno(ORR_WH_STEP_PARAMS, GLOBAL const double *RESTRICT tan,
    GLOBAL double *RESTRICT tan_out, GLOBAL double *RESTRICT var_work,
    GLOBAL double *RESTRICT sums, double megno_above, double megno_after)
{
    orr_wh_step_system(ORR_WH_STEP_ARGS, 1, tan, tan_out, var_work, sums, megno_above,
        megno_after);
}
