/*
 * groups.cl — the parallel union-find of the close-encounter groups (GENGA paper, Appendix A).
 * Written once for every target (names from common/device.h only).
 *
 * LINK[k] starts as k. Each round, one work-item per confirmed pair (i, j) lowers LINK of both
 * ends to min(LINK[i], LINK[j]) with an atomic minimum, then one work-item per slot jumps
 * LINK[k] to LINK[LINK[k]]. Labels only decrease and always name a member of k's group, so at
 * the fixpoint (a round that changes nothing) every group carries the label of its smallest
 * member. A change sets the status word ORR_STATUS_LINK_CHANGED; the host runs rounds until a
 * round leaves it clear. The second half of the `link` buffer flags the slots named by a pair
 * (`touched`); orr_link_compact lists the touched slots with their labels, so the host downloads
 * only the bodies in encounters and orders the groups as the CPU does
 * (src/physics/groups.rs, `EncounterGroups::from_touched_labels`).
 *
 * Which pairs: the candidate list with the search's confirmed flags (`use_hit` 1; the list's
 * length is the status word ORR_STATUS_CANDIDATES), leaving out a pair whose second body is a
 * test particle when the particles are passive (`tp_passive`: they get groups of their own, as
 * on the CPU); or a list of `count` pairs uploaded by the host (`use_hit` 0).
 */
#include "common/device.h"
#include "common/status.h"

/* LINK[k] = k, touched[k] = 0 for the `slots` slots. */
KERNEL void orr_link_init(u32 slots, GLOBAL u32 *RESTRICT link)
{
    u32 k = GLOBAL_ID;
    if (k >= slots)
        return;
    link[k] = k;
    link[slots + k] = 0u;
}

/* One pass over the pairs: both ends take the smaller label. A fixed number of work-items
 * strides over the pairs (the list's length may be known only on the device). */
KERNEL void orr_link_pairs(u32 count, u32 use_hit, u32 tp_passive, u32 block, u32 slots,
    GLOBAL const u32 *RESTRICT pairs, GLOBAL const u32 *RESTRICT hit,
    GLOBAL const u32 *RESTRICT sys_massive, GLOBAL u32 *link, GLOBAL u32 *status)
{
    u32 n = count;
    if (use_hit && status[ORR_STATUS_CANDIDATES] < n)
        n = status[ORR_STATUS_CANDIDATES];
    for (u32 p = GLOBAL_ID; p < n; p += GLOBAL_SIZE) {
        if (use_hit && hit[p] == 0u)
            continue;
        u32 i = pairs[2u * p], j = pairs[2u * p + 1u];
        if (i == j)
            continue;
        if (use_hit && tp_passive) {
            u32 s = j / block;
            if (j - s * block >= sys_massive[s])
                continue;
        }
        link[slots + i] = 1u;
        link[slots + j] = 1u;
        u32 li = link[i], lj = link[j];
        u32 m = li < lj ? li : lj;
        u32 oi = ATOMIC_MIN_U32(&link[i], m);
        u32 oj = ATOMIC_MIN_U32(&link[j], m);
        if (oi > m || oj > m)
            status[ORR_STATUS_LINK_CHANGED] = 1u;
    }
}

/* Pointer jumping: LINK[k] = LINK[LINK[k]]. */
KERNEL void orr_link_jump(u32 slots, GLOBAL u32 *link, GLOBAL u32 *status)
{
    u32 k = GLOBAL_ID;
    if (k >= slots)
        return;
    u32 l = link[k];
    u32 ll = link[l];
    if (ll < l) {
        ATOMIC_MIN_U32(&link[k], ll);
        status[ORR_STATUS_LINK_CHANGED] = 1u;
    }
}

/* The touched slots and their labels, (slot, label) at an index taken from the counter
 * status[ORR_STATUS_TOUCHED] (in no particular order: the host sorts them). */
KERNEL void orr_link_compact(u32 slots, GLOBAL const u32 *RESTRICT link,
    GLOBAL u32 *RESTRICT out, GLOBAL u32 *status)
{
    u32 k = GLOBAL_ID;
    if (k >= slots || link[slots + k] == 0u)
        return;
    u32 q = ATOMIC_ADD_U32(&status[ORR_STATUS_TOUCHED], 1u);
    out[2u * q] = k;
    out[2u * q + 1u] = link[k];
}

/* The members' Bulirsch-Stoer start states, gathered for one download: for member q (slot
 * members[q], in the groups' order) twelve doubles (the pre-drift position and velocity, mass,
 * radius, spin, critical radius) and the id. */
KERNEL void orr_group_gather(u32 count, GLOBAL const u32 *RESTRICT members,
    GLOBAL const double *RESTRICT pre, GLOBAL const double *RESTRICT m,
    GLOBAL const double *RESTRICT r, GLOBAL const double *RESTRICT sx,
    GLOBAL const double *RESTRICT sy, GLOBAL const double *RESTRICT sz,
    GLOBAL const double *RESTRICT rcrit, GLOBAL const u64 *RESTRICT id,
    GLOBAL double *RESTRICT out, GLOBAL u64 *RESTRICT out_id)
{
    u32 q = GLOBAL_ID;
    if (q >= count)
        return;
    u32 k = members[q];
    for (int c = 0; c < 6; c++)
        out[12u * q + c] = pre[6u * k + c];
    out[12u * q + 6u] = m[k];
    out[12u * q + 7u] = r[k];
    out[12u * q + 8u] = sx[k];
    out[12u * q + 9u] = sy[k];
    out[12u * q + 10u] = sz[k];
    out[12u * q + 11u] = rcrit[k];
    out_id[q] = id[k];
}
