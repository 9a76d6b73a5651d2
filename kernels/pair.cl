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
 * Sources are the massive bodies of the receiver's system (its first sys_massive slots). With
 * zero_empty (the CPU's pass for many systems of at most 16 slots), the empty slots of an active
 * system get zeros, as there.
 *
 * The candidate list is then compacted in the CPU's order (receiver ascending, partner
 * ascending, each pair once: a pair of massive bodies belongs to the lower one, a test particle
 * owns its pairs): per-slot counts of owned pairs, an exclusive scan in blocks of
 * ORR_SCAN_BLOCK slots, and every receiver writing its pairs at its offset. The total goes to
 * status[ORR_STATUS_CANDIDATES]; the list buffer holds the most pairs the layout allows.
 */
#include "common/device.h"
#include "common/changeover.h"
#include "common/status.h"

#define ORR_SCAN_BLOCK 256u

/* True when a pass launched for the case that some critical radius grew has nothing to do. */
#define ORR_SKIP(only_if_grew, status) ((only_if_grew) && (status)[ORR_STATUS_RADII_GREW] == 0u)

/* The pair term of receiver i and source j with the changeover weight (pair_acceleration). */
DEVICE_FN void orr_add_near(u32 changeover, double m_j, double dx, double dy, double dz,
    double r2, double inv_rcrit, double *ax, double *ay, double *az)
{
    double w = orr_near_weight(changeover, m_j, r2, inv_rcrit);
    *ax += w * dx;
    *ay += w * dy;
    *az += w * dz;
}

/* One receiver's running sums of the pair pass. */
typedef struct {
    double ax, ay, az; /* far */
    double bx, by, bz; /* near */
    u32 own;           /* candidate pairs the receiver owns in the list */
} orr_pair_sums_t;

/* The receiver of the pair pass: slot k of its system, its position and critical radius, and
 * the run's changeover function. */
typedef struct {
    u32 k, changeover;
    double x, y, z, rc, inv;
} orr_receiver_t;

/* Source q of the receiver's system (position, mass, critical radius and its inverse) added to
 * the sums, in the order the CPU adds it. */
DEVICE_FN void orr_pair_source(orr_pair_sums_t *acc, const orr_receiver_t *r, u32 massive, u32 q,
    double xj, double yj, double zj, double mj, double rcj, double invj)
{
    double dx = xj - r->x;
    double dy = yj - r->y;
    double dz = zj - r->z;
    double r2 = dx * dx + dy * dy + dz * dz;
    double limit = ORR_PRECHECK_FACTOR * orr_max(r->rc, rcj);
    int inside = r2 < limit * limit;
    int near = inside || r2 == 0.0;
    double w = orr_far_weight(mj, r2);
    w = near ? 0.0 : w;
    acc->ax += w * dx;
    acc->ay += w * dy;
    acc->az += w * dz;
    if (inside && q != r->k) {
        orr_add_near(r->changeover, mj, dx, dy, dz, r2, orr_min(r->inv, invj), &acc->bx,
            &acc->by, &acc->bz);
        acc->own += (r->k >= massive || q > r->k) ? 1u : 0u;
    }
}

/* The end of a receiver's pass: the pull of the semi-active small bodies on a massive receiver
 * (the CPU's small_body_pull, summed apart and added), then the sums written to slot i. */
DEVICE_FN void orr_pair_finish(orr_pair_sums_t acc, const orr_receiver_t *r, u32 i, u32 start,
    u32 massive, u32 len, u32 semi_active, GLOBAL const double *RESTRICT x,
    GLOBAL const double *RESTRICT y, GLOBAL const double *RESTRICT z,
    GLOBAL const double *RESTRICT m, GLOBAL const double *RESTRICT rcrit,
    GLOBAL const double *RESTRICT inv_rcrit, GLOBAL double *RESTRICT fx,
    GLOBAL double *RESTRICT fy, GLOBAL double *RESTRICT fz, GLOBAL double *RESTRICT nx,
    GLOBAL double *RESTRICT ny, GLOBAL double *RESTRICT nz, GLOBAL u32 *RESTRICT owned)
{
    if (semi_active && r->k < massive && massive < len) {
        double sfx = 0.0, sfy = 0.0, sfz = 0.0, snx = 0.0, sny = 0.0, snz = 0.0;
        for (u32 q = massive; q < len; q++) {
            u32 j = start + q;
            double dx = x[j] - r->x;
            double dy = y[j] - r->y;
            double dz = z[j] - r->z;
            double r2 = dx * dx + dy * dy + dz * dz;
            double limit = ORR_PRECHECK_FACTOR * orr_max(r->rc, rcrit[j]);
            double inv = orr_min(r->inv, inv_rcrit[j]);
            if (r2 < limit * limit)
                orr_add_near(r->changeover, m[j], dx, dy, dz, r2, inv, &snx, &sny, &snz);
            else
                orr_add_near(r->changeover, m[j], dx, dy, dz, r2, inv, &sfx, &sfy, &sfz);
        }
        acc.ax += sfx;
        acc.ay += sfy;
        acc.az += sfz;
        acc.bx += snx;
        acc.by += sny;
        acc.bz += snz;
    }
    fx[i] = acc.ax;
    fy[i] = acc.ay;
    fz[i] = acc.az;
    nx[i] = acc.bx;
    ny[i] = acc.by;
    nz[i] = acc.bz;
    owned[i] = acc.own;
}

DEVICE_FN orr_pair_sums_t orr_pair_sums_zero(void)
{
    orr_pair_sums_t acc;
    acc.ax = acc.ay = acc.az = acc.bx = acc.by = acc.bz = 0.0;
    acc.own = 0u;
    return acc;
}

DEVICE_FN orr_receiver_t orr_receiver(u32 changeover, u32 i, u32 k, GLOBAL const double *RESTRICT x,
    GLOBAL const double *RESTRICT y, GLOBAL const double *RESTRICT z,
    GLOBAL const double *RESTRICT rcrit, GLOBAL const double *RESTRICT inv_rcrit)
{
    orr_receiver_t r;
    r.k = k;
    r.changeover = changeover;
    r.x = x[i];
    r.y = y[i];
    r.z = z[i];
    r.rc = rcrit[i];
    r.inv = inv_rcrit[i];
    return r;
}

KERNEL void orr_pair_forces(u32 slots, u32 block, u32 semi_active, u32 changeover, u32 zero_empty,
    GLOBAL const u32 *RESTRICT sys_len, GLOBAL const u32 *RESTRICT sys_massive,
    GLOBAL const u32 *RESTRICT sys_active,
    GLOBAL const double *RESTRICT x, GLOBAL const double *RESTRICT y,
    GLOBAL const double *RESTRICT z, GLOBAL const double *RESTRICT m,
    GLOBAL const double *RESTRICT rcrit, GLOBAL const double *RESTRICT inv_rcrit,
    GLOBAL double *RESTRICT fx, GLOBAL double *RESTRICT fy, GLOBAL double *RESTRICT fz,
    GLOBAL double *RESTRICT nx, GLOBAL double *RESTRICT ny, GLOBAL double *RESTRICT nz,
    GLOBAL u32 *RESTRICT owned, GLOBAL const u32 *RESTRICT status, u32 only_if_grew)
{
    u32 i = GLOBAL_ID;
    if (i >= slots || ORR_SKIP(only_if_grew, status))
        return;
    u32 s = i / block;
    u32 k = i - s * block;
    u32 len = sys_len[s];
    if (k >= len) {
        owned[i] = 0u;
        if (zero_empty && sys_active[s]) {
            fx[i] = 0.0;
            fy[i] = 0.0;
            fz[i] = 0.0;
            nx[i] = 0.0;
            ny[i] = 0.0;
            nz[i] = 0.0;
        }
        return;
    }
    u32 start = s * block;
    u32 massive = sys_massive[s];
    orr_receiver_t r = orr_receiver(changeover, i, k, x, y, z, rcrit, inv_rcrit);
    orr_pair_sums_t acc = orr_pair_sums_zero();
    for (u32 q = 0u; q < massive; q++) {
        u32 j = start + q;
        orr_pair_source(&acc, &r, massive, q, x[j], y[j], z[j], m[j], rcrit[j], inv_rcrit[j]);
    }
    orr_pair_finish(acc, &r, i, start, massive, len, semi_active, x, y, z, m, rcrit, inv_rcrit,
        fx, fy, fz, nx, ny, nz, owned);
}

/* Sources of one tile of the tiled pair pass, in work-group memory. */
#define ORR_PAIR_TILE 64u
typedef struct {
    double x[ORR_PAIR_TILE], y[ORR_PAIR_TILE], z[ORR_PAIR_TILE];
    double m[ORR_PAIR_TILE], rc[ORR_PAIR_TILE], inv[ORR_PAIR_TILE];
} orr_pair_tile_t;

/* orr_pair_forces for a state of one system (main and test-particle modes), with the sources
 * staged through work-group memory a tile of ORR_PAIR_TILE at a time, as GENGA's kick kernel
 * does: each work-item loads one source of the tile, then every receiver of the work-group
 * runs over the tile in order. The sums are those of orr_pair_forces (same sources, same
 * order). Launched with work-groups of exactly ORR_PAIR_TILE work-items. */
KERNEL void orr_pair_forces_tiled(u32 slots, u32 semi_active, u32 changeover,
    GLOBAL const u32 *RESTRICT sys_len, GLOBAL const u32 *RESTRICT sys_massive,
    GLOBAL const double *RESTRICT x, GLOBAL const double *RESTRICT y,
    GLOBAL const double *RESTRICT z, GLOBAL const double *RESTRICT m,
    GLOBAL const double *RESTRICT rcrit, GLOBAL const double *RESTRICT inv_rcrit,
    GLOBAL double *RESTRICT fx, GLOBAL double *RESTRICT fy, GLOBAL double *RESTRICT fz,
    GLOBAL double *RESTRICT nx, GLOBAL double *RESTRICT ny, GLOBAL double *RESTRICT nz,
    GLOBAL u32 *RESTRICT owned, GLOBAL const u32 *RESTRICT status,
    u32 only_if_grew WORKGROUP_ARG(orr_pair_tile_t, tile))
{
    WORKGROUP_DECL(orr_pair_tile_t, tile);
    /* Uniform over the work-group: every work-item reads the same word. */
    if (ORR_SKIP(only_if_grew, status) || LOCAL_SIZE != ORR_PAIR_TILE)
        return;
    u32 i = GLOBAL_ID, lid = LOCAL_ID;
    u32 len = sys_len[0], massive = sys_massive[0];
    int receiver = i < slots && i < len;
    orr_receiver_t r = orr_receiver(changeover, receiver ? i : 0u, i, x, y, z, rcrit, inv_rcrit);
    orr_pair_sums_t acc = orr_pair_sums_zero();
    for (u32 base = 0u; base < massive; base += ORR_PAIR_TILE) {
        u32 q = base + lid;
        if (q < massive) {
            tile->x[lid] = x[q];
            tile->y[lid] = y[q];
            tile->z[lid] = z[q];
            tile->m[lid] = m[q];
            tile->rc[lid] = rcrit[q];
            tile->inv[lid] = inv_rcrit[q];
        }
        LOCAL_BARRIER();
        u32 count = massive - base < ORR_PAIR_TILE ? massive - base : ORR_PAIR_TILE;
        if (receiver)
            for (u32 t = 0u; t < count; t++)
                orr_pair_source(&acc, &r, massive, base + t, tile->x[t], tile->y[t], tile->z[t],
                    tile->m[t], tile->rc[t], tile->inv[t]);
        LOCAL_BARRIER();
    }
    if (i >= slots)
        return;
    if (!receiver) {
        owned[i] = 0u;
        return;
    }
    orr_pair_finish(acc, &r, i, 0u, massive, len, semi_active, x, y, z, m, rcrit, inv_rcrit, fx,
        fy, fz, nx, ny, nz, owned);
}

/* Scan, step 1: the exclusive offsets of the owned pairs within each block of slots, and the
 * block's total. */
KERNEL void orr_scan_blocks(u32 slots, GLOBAL const u32 *RESTRICT owned,
    GLOBAL u32 *RESTRICT offset, GLOBAL u32 *RESTRICT block_total,
    GLOBAL const u32 *RESTRICT status, u32 only_if_grew)
{
    u32 b = GLOBAL_ID;
    u32 first = b * ORR_SCAN_BLOCK;
    if (first >= slots || ORR_SKIP(only_if_grew, status))
        return;
    u32 end = first + ORR_SCAN_BLOCK < slots ? first + ORR_SCAN_BLOCK : slots;
    u32 sum = 0u;
    for (u32 i = first; i < end; i++) {
        offset[i] = sum;
        sum += owned[i];
    }
    block_total[b] = sum;
}

/* Scan, step 2 (one work-item): the blocks' exclusive offsets and, with write_total, the total
 * number of pairs (the incidence rows' scan needs no total). */
KERNEL void orr_scan_totals(u32 blocks, GLOBAL u32 *RESTRICT block_total,
    GLOBAL u32 *RESTRICT status, u32 only_if_grew, u32 write_total)
{
    if (GLOBAL_ID != 0u || ORR_SKIP(only_if_grew, status))
        return;
    u32 sum = 0u;
    for (u32 b = 0u; b < blocks; b++) {
        u32 n = block_total[b];
        block_total[b] = sum;
        sum += n;
    }
    if (write_total)
        status[ORR_STATUS_CANDIDATES] = sum;
}

/* Every receiver writes its owned candidate pairs (lower slot first) at its offset, partners
 * ascending, as the CPU's candidate list holds them. */
KERNEL void orr_emit_candidates(u32 slots, u32 block, u32 capacity,
    GLOBAL const u32 *RESTRICT sys_len, GLOBAL const u32 *RESTRICT sys_massive,
    GLOBAL const double *RESTRICT x, GLOBAL const double *RESTRICT y,
    GLOBAL const double *RESTRICT z, GLOBAL const double *RESTRICT rcrit,
    GLOBAL const u32 *RESTRICT owned, GLOBAL const u32 *RESTRICT offset,
    GLOBAL const u32 *RESTRICT block_total, GLOBAL u32 *RESTRICT pairs,
    GLOBAL const u32 *RESTRICT status, u32 only_if_grew)
{
    u32 i = GLOBAL_ID;
    if (i >= slots || ORR_SKIP(only_if_grew, status) || owned[i] == 0u)
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

/* The slot that owns candidate pair p (a test particle owns its pairs with massive bodies, a
 * massive body those with higher massive bodies): the list is sorted by owner. */
DEVICE_FN u32 orr_pair_owner(GLOBAL const u32 *RESTRICT pairs, u32 p, u32 block,
    GLOBAL const u32 *RESTRICT sys_massive)
{
    u32 a = pairs[2u * p], b = pairs[2u * p + 1u];
    u32 s = b / block;
    return b - s * block >= sys_massive[s] ? b : a;
}

/* The first pair of the list (of `count`) whose owner is not below `owner`. */
DEVICE_FN u32 orr_first_owned(GLOBAL const u32 *RESTRICT pairs, u32 count, u32 owner, u32 block,
    GLOBAL const u32 *RESTRICT sys_massive)
{
    u32 lo = 0u, hi = count;
    while (lo < hi) {
        u32 mid = lo + (hi - lo) / 2u;
        if (orr_pair_owner(pairs, mid, block, sys_massive) < owner)
            lo = mid + 1u;
        else
            hi = mid;
    }
    return lo;
}

/* KickA's incidence rows of the pairs of massive bodies: each massive slot's row lists the
 * indices of the massive pairs it is a member of, so that it reads its own pairs instead of
 * every massive pair of the list (a test particle's pairs are its own contiguous part of the
 * list, found by binary search). The rows are built before every KickA: counts
 * (orr_incidence_count), their exclusive scan (orr_scan_blocks and orr_scan_totals over the
 * counts), the indices (orr_incidence_fill, in any order), and each row sorted by
 * orr_refresh_near before it is read, so that the partners come in the list's order whatever
 * order the atomics gave. */

/* True when KickA has nothing to do: a radius grew (the full pass runs instead) or the list is
 * empty (KickB). */
DEVICE_FN int orr_refresh_idle(GLOBAL const u32 *RESTRICT status)
{
    return status[ORR_STATUS_RADII_GREW] != 0u || status[ORR_STATUS_CANDIDATES] == 0u;
}

/* True when candidate pair p joins two massive bodies (its higher slot is massive). */
DEVICE_FN int orr_massive_pair(GLOBAL const u32 *RESTRICT pairs, u32 p, u32 block,
    GLOBAL const u32 *RESTRICT sys_massive)
{
    u32 b = pairs[2u * p + 1u];
    u32 s = b / block;
    return b - s * block < sys_massive[s];
}

/* The pairs the incidence passes stride over: the list's length (at most `capacity`), or none
 * when KickA has nothing to do. */
DEVICE_FN u32 orr_incidence_pairs(GLOBAL const u32 *RESTRICT status, u32 capacity)
{
    return orr_refresh_idle(status) ? 0u
                                    : orr_min_u32(status[ORR_STATUS_CANDIDATES], capacity);
}

/* The first entry of slot i's incidence row (the scan's block offset plus its own). */
DEVICE_FN u32 orr_row_start(u32 i, GLOBAL const u32 *RESTRICT row_offset,
    GLOBAL const u32 *RESTRICT row_block_total)
{
    return row_block_total[i / ORR_SCAN_BLOCK] + row_offset[i];
}

/* Incidence rows, step 1: every slot's count and fill cursor set to zero. */
KERNEL void orr_incidence_clear(u32 slots, GLOBAL u32 *RESTRICT degree,
    GLOBAL u32 *RESTRICT cursor, GLOBAL const u32 *RESTRICT status)
{
    u32 i = GLOBAL_ID;
    if (i >= slots || orr_refresh_idle(status))
        return;
    degree[i] = 0u;
    cursor[i] = 0u;
}

/* Incidence rows, step 2: each pair of massive bodies counted under both of its slots
 * (work-items striding over the list). */
KERNEL void orr_incidence_count(u32 capacity, u32 block, GLOBAL const u32 *RESTRICT sys_massive,
    GLOBAL const u32 *RESTRICT pairs, GLOBAL u32 *RESTRICT degree,
    GLOBAL const u32 *RESTRICT status)
{
    u32 count = orr_incidence_pairs(status, capacity);
    for (u32 p = GLOBAL_ID; p < count; p += GLOBAL_SIZE) {
        if (!orr_massive_pair(pairs, p, block, sys_massive))
            continue;
        ATOMIC_ADD_U32(&degree[pairs[2u * p]], 1u);
        ATOMIC_ADD_U32(&degree[pairs[2u * p + 1u]], 1u);
    }
}

/* Incidence rows, step 3 (after the scan of the counts): each massive pair's index written into
 * the rows of both of its slots, at a place the slot's cursor hands out. */
KERNEL void orr_incidence_fill(u32 capacity, u32 block, GLOBAL const u32 *RESTRICT sys_massive,
    GLOBAL const u32 *RESTRICT pairs, GLOBAL u32 *RESTRICT cursor,
    GLOBAL const u32 *RESTRICT row_offset, GLOBAL const u32 *RESTRICT row_block_total,
    GLOBAL u32 *RESTRICT rows, GLOBAL const u32 *RESTRICT status)
{
    u32 count = orr_incidence_pairs(status, capacity);
    for (u32 p = GLOBAL_ID; p < count; p += GLOBAL_SIZE) {
        if (!orr_massive_pair(pairs, p, block, sys_massive))
            continue;
        for (u32 side = 0u; side < 2u; side++) {
            u32 slot = pairs[2u * p + side];
            u32 at = orr_row_start(slot, row_offset, row_block_total);
            rows[at + ATOMIC_ADD_U32(&cursor[slot], 1u)] = p;
        }
    }
}

/* Heap sort's sift-down of v[root] within the heap v[0 .. n). */
DEVICE_FN void orr_sift_down_u32(GLOBAL u32 *RESTRICT v, u32 root, u32 n)
{
    for (;;) {
        u32 child = 2u * root + 1u;
        if (child >= n)
            return;
        if (child + 1u < n && v[child + 1u] > v[child])
            child++;
        if (v[root] >= v[child])
            return;
        u32 t = v[root];
        v[root] = v[child];
        v[child] = t;
        root = child;
    }
}

/* v[0 .. n) in ascending order (heap sort: in place, n log n however the row came). */
DEVICE_FN void orr_sort_u32(GLOBAL u32 *RESTRICT v, u32 n)
{
    if (n < 2u)
        return;
    for (u32 r = n / 2u; r-- > 0u;)
        orr_sift_down_u32(v, r, n);
    for (u32 end = n - 1u; end > 0u; end--) {
        u32 t = v[0];
        v[0] = v[end];
        v[end] = t;
        orr_sift_down_u32(v, 0u, end);
    }
}

/* The near term of candidate pair p for its member i, added to the sums (the other member is
 * the source). */
DEVICE_FN void orr_refresh_pair(u32 changeover, u32 i, u32 p, GLOBAL const u32 *RESTRICT pairs,
    double xi, double yi, double zi, double inv_i, GLOBAL const double *RESTRICT x,
    GLOBAL const double *RESTRICT y, GLOBAL const double *RESTRICT z,
    GLOBAL const double *RESTRICT m, GLOBAL const double *RESTRICT inv_rcrit, double *ax,
    double *ay, double *az)
{
    u32 a = pairs[2u * p], b = pairs[2u * p + 1u];
    u32 c = a == i ? b : a;
    double dx = x[c] - xi;
    double dy = y[c] - yi;
    double dz = z[c] - zi;
    double r2 = dx * dx + dy * dy + dz * dz;
    orr_add_near(changeover, m[c], dx, dy, dz, r2, orr_min(inv_i, inv_rcrit[c]), ax, ay, az);
}

/* KickA (GENGA paper section 3.2.3): the near accelerations of the bodies of the candidate
 * pairs recomputed with the new critical radii, each body summing its partners in the list's
 * order (ascending partner), as the CPU's refresh does; a body without pairs keeps its near
 * term. A massive body reads its incidence row of massive pairs, sorted here into the list's
 * order, then, in a semi-active run only, its pairs with test particles (listed after every
 * massive pair of its system); a test particle reads its own part of the list. Nothing to do
 * when a radius grew (the full pass runs instead) or the list is empty (KickB). */
KERNEL void orr_refresh_near(u32 slots, u32 block, u32 semi_active, u32 changeover,
    GLOBAL const u32 *RESTRICT sys_len, GLOBAL const u32 *RESTRICT sys_massive,
    GLOBAL const double *RESTRICT x, GLOBAL const double *RESTRICT y,
    GLOBAL const double *RESTRICT z, GLOBAL const double *RESTRICT m,
    GLOBAL const double *RESTRICT inv_rcrit, GLOBAL double *RESTRICT nx,
    GLOBAL double *RESTRICT ny, GLOBAL double *RESTRICT nz, GLOBAL const u32 *RESTRICT pairs,
    GLOBAL const u32 *RESTRICT degree, GLOBAL const u32 *RESTRICT row_offset,
    GLOBAL const u32 *RESTRICT row_block_total, GLOBAL u32 *RESTRICT rows,
    GLOBAL const u32 *RESTRICT status)
{
    u32 i = GLOBAL_ID;
    if (i >= slots || orr_refresh_idle(status))
        return;
    u32 count = status[ORR_STATUS_CANDIDATES];
    u32 s = i / block;
    u32 k = i - s * block;
    if (k >= sys_len[s])
        return;
    u32 start = s * block, massive = sys_massive[s], len = sys_len[s];
    double ax = 0.0, ay = 0.0, az = 0.0;
    u32 found = 0u;
    double xi = x[i], yi = y[i], zi = z[i], inv_i = inv_rcrit[i];
    u32 lo, hi;
    if (k < massive) {
        GLOBAL u32 *RESTRICT row = rows + orr_row_start(i, row_offset, row_block_total);
        u32 n = degree[i];
        orr_sort_u32(row, n);
        for (u32 r = 0u; r < n; r++)
            orr_refresh_pair(changeover, i, row[r], pairs, xi, yi, zi, inv_i, x, y, z, m,
                inv_rcrit, &ax, &ay, &az);
        found = n;
        lo = semi_active ? orr_first_owned(pairs, count, start + massive, block, sys_massive) : 0u;
        hi = semi_active ? orr_first_owned(pairs, count, start + len, block, sys_massive) : 0u;
    } else {
        lo = orr_first_owned(pairs, count, i, block, sys_massive);
        hi = orr_first_owned(pairs, count, i + 1u, block, sys_massive);
    }
    for (u32 p = lo; p < hi; p++) {
        if (pairs[2u * p] != i && pairs[2u * p + 1u] != i)
            continue;
        orr_refresh_pair(changeover, i, p, pairs, xi, yi, zi, inv_i, x, y, z, m, inv_rcrit, &ax,
            &ay, &az);
        found++;
    }
    if (found > 0u) {
        nx[i] = ax;
        ny[i] = ay;
        nz[i] = az;
    }
}
