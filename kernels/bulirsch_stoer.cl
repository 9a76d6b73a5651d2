/*
 * bulirsch_stoer.cl — Bulirsch-Stoer of the close-encounter groups on the device (GENGA paper
 * section 3.2.6), one work-group of ORR_BS_MAX_BODIES work-items per group, and the write-back
 * of the results. Written once for every target (names from common/device.h only); the math is
 * common/bulirsch_stoer.h.
 *
 * Inputs are those of groups.cl's orr_group_gather: the members' start states, twelve doubles
 * each, in group order; group g holds members start[g] .. start[g + 1] - 1 and moves around the
 * central mass m0[g]. Outputs: the members' end states (six doubles each) and three words per
 * group (ORR_BS_DONE or ORR_BS_HOST, accepted and rejected substeps). A group the device hands
 * back (ORR_BS_HOST: too large, a collision or a failure) is integrated on the host.
 */
#include "common/device.h"
#include "common/bulirsch_stoer.h"

KERNEL void orr_bs_groups(u32 groups, u32 changeover, double tau, double tol, double min_step,
    u32 max_substeps, GLOBAL const u32 *RESTRICT start, GLOBAL const double *RESTRICT m0,
    GLOBAL const double *RESTRICT states, GLOBAL double *RESTRICT out,
    GLOBAL u32 *RESTRICT result, u32 shared_bytes WORKGROUP_ARG(orr_bs_group_t, shared))
{
    WORKGROUP_DECL(orr_bs_group_t, shared);
    u32 g = GROUP_ID, lid = LOCAL_ID, lsize = LOCAL_SIZE;
    if (g >= groups)
        return;
    u32 first = start[g], n = start[g + 1u] - first;
    /* A host that gave less work-group memory than the state needs (ORR_BS_SHARED_BYTES) gets
     * every group back rather than a corrupted one. */
    int room = shared_bytes >= (u32)sizeof(orr_bs_group_t);
    if (n > ORR_BS_MAX_BODIES || lsize > ORR_BS_MAX_BODIES || !room) {
        if (lid == 0u) {
            result[3u * g] = ORR_BS_HOST;
            result[3u * g + 1u] = 0u;
            result[3u * g + 2u] = 0u;
        }
        return;
    }
    for (u32 i = lid; i < n; i += lsize)
        orr_bs_load(shared, i, states + 12u * (first + i));
    LOCAL_BARRIER();
    orr_bs_result_t res =
        orr_bs_integrate(shared, n, m0[g], changeover, tau, tol, min_step, max_substeps, lid, lsize);
    for (u32 i = lid; i < n; i += lsize)
        for (u32 c = 0; c < 3u; c++) {
            out[6u * (first + i) + c] = shared->x[c * ORR_BS_N + i];
            out[6u * (first + i) + 3u + c] = shared->v[c * ORR_BS_N + i];
        }
    if (lid == 0u) {
        result[3u * g] = res.status;
        result[3u * g + 1u] = res.accepted;
        result[3u * g + 2u] = res.rejected;
    }
}

/* The end states of members whose write flag is set (all members of a massive group, the last
 * one of a test particle's group) back to their slots. Only for groups the device finished. */
KERNEL void orr_group_scatter(u32 count, GLOBAL const u32 *RESTRICT members,
    GLOBAL const u32 *RESTRICT write, GLOBAL const double *RESTRICT out,
    GLOBAL double *RESTRICT x, GLOBAL double *RESTRICT y, GLOBAL double *RESTRICT z,
    GLOBAL double *RESTRICT vx, GLOBAL double *RESTRICT vy, GLOBAL double *RESTRICT vz)
{
    u32 q = GLOBAL_ID;
    if (q >= count || write[q] == 0u)
        return;
    u32 k = members[q];
    x[k] = out[6u * q];
    y[k] = out[6u * q + 1u];
    z[k] = out[6u * q + 2u];
    vx[k] = out[6u * q + 3u];
    vy[k] = out[6u * q + 4u];
    vz[k] = out[6u * q + 5u];
}
