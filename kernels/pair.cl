/*
 * pair.cl — the changeover-weighted pair accelerations with the close-encounter prechecker
 * (GENGA paper eqs 4-5 and section 3.2.3, the kick kernel) and the candidate pair list, written
 * once for every target.
 *
 * One work-item per receiver slot sums its sources in ascending order, as the CPU reference
 * (src/backend/cpu/pair_forces.rs) does in every path, so the sums are the CPU's bits:
 *   far  = sum over massive sources j of w_far(j) dx, with w_far = m_j / r^3 for a pair outside
 *          the precheck radius and 0 for a candidate or the receiver itself (r = 0);
 *   near = sum over candidate sources j != i of m_j K / r^3 dx (kernels/common/changeover.h);
 *   semi-active small bodies pull on the massive bodies in separate sums added at the end
 *   (the CPU's small_body_pull), every term with the changeover weight.
 * Sources are the massive bodies of the receiver's system (its first sys_massive slots).
 *
 * The candidate list is then compacted in the CPU's order (receiver ascending, partner
 * ascending, each pair once: a pair of massive bodies belongs to the lower one, a test particle
 * owns its pairs): per-slot counts of owned pairs, an exclusive scan in blocks of
 * ORR_SCAN_BLOCK slots, and every receiver writing its pairs at its offset. The total goes to
 * status[ORR_STATUS_CANDIDATES]; the list buffer holds the most pairs the layout allows.
 */
#include "common/device.h"
#include "common/changeover.h"

#define ORR_STATUS_CANDIDATES 2
#define ORR_SCAN_BLOCK 256u

/* The pair term of receiver i and source j with the changeover weight (pair_acceleration). */
DEVICE_FN void orr_add_near(double m_j, double dx, double dy, double dz, double r2,
    double inv_rcrit, double *ax, double *ay, double *az)
{
    double w = orr_near_weight(m_j, r2, inv_rcrit);
    *ax += w * dx;
    *ay += w * dy;
    *az += w * dz;
}

KERNEL void orr_pair_forces(u32 slots, u32 block, u32 semi_active,
    GLOBAL const u32 *RESTRICT sys_len, GLOBAL const u32 *RESTRICT sys_massive,
    GLOBAL const double *RESTRICT x, GLOBAL const double *RESTRICT y,
    GLOBAL const double *RESTRICT z, GLOBAL const double *RESTRICT m,
    GLOBAL const double *RESTRICT rcrit, GLOBAL const double *RESTRICT inv_rcrit,
    GLOBAL double *RESTRICT fx, GLOBAL double *RESTRICT fy, GLOBAL double *RESTRICT fz,
    GLOBAL double *RESTRICT nx, GLOBAL double *RESTRICT ny, GLOBAL double *RESTRICT nz,
    GLOBAL u32 *RESTRICT owned)
{
    u32 i = GLOBAL_ID;
    if (i >= slots)
        return;
    u32 s = i / block;
    u32 k = i - s * block;
    u32 len = sys_len[s];
    if (k >= len) {
        owned[i] = 0u;
        return;
    }
    u32 start = s * block;
    u32 massive = sys_massive[s];
    double xi = x[i], yi = y[i], zi = z[i], rci = rcrit[i], inv_i = inv_rcrit[i];
    double ax = 0.0, ay = 0.0, az = 0.0, bx = 0.0, by = 0.0, bz = 0.0;
    u32 own = 0u;
    for (u32 q = 0u; q < massive; q++) {
        u32 j = start + q;
        double dx = x[j] - xi;
        double dy = y[j] - yi;
        double dz = z[j] - zi;
        double r2 = dx * dx + dy * dy + dz * dz;
        double limit = ORR_PRECHECK_FACTOR * orr_max(rci, rcrit[j]);
        int inside = r2 < limit * limit;
        int near = inside || r2 == 0.0;
        double w = orr_far_weight(m[j], r2);
        w = near ? 0.0 : w;
        ax += w * dx;
        ay += w * dy;
        az += w * dz;
        if (inside && q != k) {
            orr_add_near(m[j], dx, dy, dz, r2, orr_min(inv_i, inv_rcrit[j]), &bx, &by, &bz);
            own += (k >= massive || q > k) ? 1u : 0u;
        }
    }
    if (semi_active && k < massive && massive < len) {
        double sfx = 0.0, sfy = 0.0, sfz = 0.0, snx = 0.0, sny = 0.0, snz = 0.0;
        for (u32 q = massive; q < len; q++) {
            u32 j = start + q;
            double dx = x[j] - xi;
            double dy = y[j] - yi;
            double dz = z[j] - zi;
            double r2 = dx * dx + dy * dy + dz * dz;
            double limit = ORR_PRECHECK_FACTOR * orr_max(rci, rcrit[j]);
            double inv = orr_min(inv_i, inv_rcrit[j]);
            if (r2 < limit * limit)
                orr_add_near(m[j], dx, dy, dz, r2, inv, &snx, &sny, &snz);
            else
                orr_add_near(m[j], dx, dy, dz, r2, inv, &sfx, &sfy, &sfz);
        }
        ax += sfx;
        ay += sfy;
        az += sfz;
        bx += snx;
        by += sny;
        bz += snz;
    }
    fx[i] = ax;
    fy[i] = ay;
    fz[i] = az;
    nx[i] = bx;
    ny[i] = by;
    nz[i] = bz;
    owned[i] = own;
}

/* Scan, step 1: the exclusive offsets of the owned pairs within each block of slots, and the
 * block's total. */
KERNEL void orr_scan_blocks(u32 slots, GLOBAL const u32 *RESTRICT owned,
    GLOBAL u32 *RESTRICT offset, GLOBAL u32 *RESTRICT block_total)
{
    u32 b = GLOBAL_ID;
    u32 first = b * ORR_SCAN_BLOCK;
    if (first >= slots)
        return;
    u32 end = first + ORR_SCAN_BLOCK < slots ? first + ORR_SCAN_BLOCK : slots;
    u32 sum = 0u;
    for (u32 i = first; i < end; i++) {
        offset[i] = sum;
        sum += owned[i];
    }
    block_total[b] = sum;
}

/* Scan, step 2 (one work-item): the blocks' exclusive offsets and the total number of pairs. */
KERNEL void orr_scan_totals(u32 blocks, GLOBAL u32 *RESTRICT block_total,
    GLOBAL u32 *RESTRICT status)
{
    if (GLOBAL_ID != 0u)
        return;
    u32 sum = 0u;
    for (u32 b = 0u; b < blocks; b++) {
        u32 n = block_total[b];
        block_total[b] = sum;
        sum += n;
    }
    status[ORR_STATUS_CANDIDATES] = sum;
}

/* Every receiver writes its owned candidate pairs (lower slot first) at its offset, partners
 * ascending, as the CPU's candidate list holds them. */
KERNEL void orr_emit_candidates(u32 slots, u32 block, u32 capacity,
    GLOBAL const u32 *RESTRICT sys_len, GLOBAL const u32 *RESTRICT sys_massive,
    GLOBAL const double *RESTRICT x, GLOBAL const double *RESTRICT y,
    GLOBAL const double *RESTRICT z, GLOBAL const double *RESTRICT rcrit,
    GLOBAL const u32 *RESTRICT owned, GLOBAL const u32 *RESTRICT offset,
    GLOBAL const u32 *RESTRICT block_total, GLOBAL u32 *RESTRICT pairs)
{
    u32 i = GLOBAL_ID;
    if (i >= slots || owned[i] == 0u)
        return;
    u32 s = i / block;
    u32 k = i - s * block;
    u32 start = s * block;
    u32 massive = sys_massive[s];
    u32 next = block_total[i / ORR_SCAN_BLOCK] + offset[i];
    (void)sys_len;
    for (u32 q = 0u; q < massive; q++) {
        if (q == k || !(k >= massive || q > k))
            continue;
        u32 j = start + q;
        double dx = x[j] - x[i];
        double dy = y[j] - y[i];
        double dz = z[j] - z[i];
        if (!orr_is_candidate(dx, dy, dz, rcrit[i], rcrit[j]))
            continue;
        if (next < capacity) {
            pairs[2u * next] = i < j ? i : j;
            pairs[2u * next + 1u] = i < j ? j : i;
        }
        next++;
    }
}

/* Adopt the current critical radii for the stored accelerations (every slot, as the CPU's
 * adopt_critical_radii): rcrit_kick = rcrit and its inverse. */
KERNEL void orr_adopt_radii(u32 slots, GLOBAL const double *RESTRICT rcrit,
    GLOBAL double *RESTRICT rcrit_kick, GLOBAL double *RESTRICT inv_rcrit_kick)
{
    u32 i = GLOBAL_ID;
    if (i >= slots)
        return;
    rcrit_kick[i] = rcrit[i];
    inv_rcrit_kick[i] = 1.0 / rcrit[i];
}
