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
 * The host alternates `jac` and `jac_out` between steps. A system whose drift fails is written
 * to `jac_out` as it was in `jac`, bit for bit (the state before the step, as `WhPack::step`
 * keeps it), its torque tally as it was before the kick, with its failure word set and, unless the kick found an event first, the event
 * ORR_WH_FAILED (a: the Jacobi body, b: the code) half a step before the kick. A system's event
 * is kept once found (a stopped system still steps until the host repacks).
 */
#include "common/device.h"
#include "common/wisdom_holman.h"

KERNEL void orr_wh_step(u32 lanes, u32 n, double h, u32 flags, double hill_radii,
    double min_distance, GLOBAL const double *RESTRICT masses, GLOBAL const double *RESTRICT jac,
    GLOBAL double *RESTRICT jac_out, GLOBAL double *RESTRICT work, GLOBAL double *RESTRICT acc, GLOBAL double *RESTRICT ends,
    GLOBAL const double *RESTRICT sys, GLOBAL double *RESTRICT body,
    GLOBAL const double *RESTRICT f, GLOBAL const double *RESTRICT ratio,
    GLOBAL double *RESTRICT torque, GLOBAL double *RESTRICT torque_kept,
    GLOBAL u32 *RESTRICT stop_u, GLOBAL double *RESTRICT stop_f,
    GLOBAL u32 *RESTRICT status)
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
    orr_wh_pair_accelerations(at, m, work, acc);
    if (flags & ORR_WH_POTENTIAL)
        orr_wh_potential(at, flags, h, f, m, ratio, work, acc, torque);
    for (c = 0; c < 3; c++)
        orr_wh_to_jacobi(at, m, inv_eta, acc + c * nl, work + c * nl);
    orr_wh_kick_velocities(at, h, eta, x, work, v, v_out);
    if (sweep)
        orr_wh_from_jacobi3(at, m_over_eta, v_out, ends + 3 * nl);

    /* The drift, swept; a failed one undone. */
    u32 failed = orr_wh_drift(at, h, eta, inv_eta, x, x_out, v_out);
    if (failed != 0) {
        orr_wh_restore(at, jac, jac_out);
        if (flags & ORR_WH_TORQUE)
            for (c = 0; c < 3; c++)
                torque[c * lanes + s] = torque_kept[c * lanes + s];
        stop_u[3 * lanes + s] = failed;
        if (stop.kind == ORR_WH_NONE) {
            stop.kind = ORR_WH_FAILED;
            stop.a = failed >> 2;
            stop.b = failed & 3u;
            stop.distance = 0.0;
            after = -0.5;
        }
    } else if (sweep) {
        orr_wh_from_jacobi3(at, m_over_eta, x_out, ends + 6 * nl);
        orr_wh_from_jacobi3(at, m_over_eta, v_out, ends + 9 * nl);
        if (stop.kind == ORR_WH_NONE)
            orr_wh_sweep(at, lim, h, body, ends, &stop, &after);
    }
    if (stop.kind != before) {
        stop_u[s] = stop.kind;
        stop_u[lanes + s] = stop.a;
        stop_u[2 * lanes + s] = stop.b;
        stop_f[s] = stop.distance;
        stop_f[lanes + s] = after;
        if (before == ORR_WH_NONE)
            ATOMIC_ADD_U32(&status[ORR_WH_STATUS_STOPS], 1u);
    }
}
