/*
 * sheet.cl — the passes of the sheet engine's step on the device (OCCLUDE report section 3;
 * tree build and group walks after Bonsai, Bedorf et al. 2012). The host side is
 * src/backend/gpu/sheet.rs, which gives the order of the launches; the math is in
 * common/sheet.h, the twin of the CPU reference (src/physics/sheet/, src/backend/sheet/).
 *
 * Particles are structure-of-arrays f64 (x y z vx vy vz m r) and u32 ids. The tree: per node
 * start, end, first child, number of children, level and parent (u32 arrays, breadth-first as
 * tree::build), and its cell (SHEET_CELL_WORDS doubles). Every pass is deterministic: no float
 * is ever accumulated by atomics; atomics only count (integer sums) or take minima.
 */
#include "common/sheet.h"

/* ------------------------------------------------------------------ integration, boundary */

/* SEI drift of every particle (sei::drift). */
KERNEL void orr_sheet_drift(u32 n, GLOBAL double *x, GLOBAL double *y, GLOBAL double *z,
                            GLOBAL double *vx, GLOBAL double *vy, GLOBAL double *vz, double omega,
                            double dt, double c, double s)
{
    u32 k = GLOBAL_ID;
    if (k >= n)
        return;
    double p[6] = {x[k], y[k], z[k], vx[k], vy[k], vz[k]};
    sheet_epicycle(omega, dt, c, s, p);
    x[k] = p[0];
    y[k] = p[1];
    z[k] = p[2];
    vx[k] = p[3];
    vy[k] = p[4];
    vz[k] = p[5];
}

/* v += dt a (sei::kick). */
KERNEL void orr_sheet_kick(u32 n, GLOBAL double *vx, GLOBAL double *vy, GLOBAL double *vz,
                           GLOBAL const double *ax, GLOBAL const double *ay,
                           GLOBAL const double *az, double dt)
{
    u32 k = GLOBAL_ID;
    if (k >= n)
        return;
    vx[k] += dt * ax[k];
    vy[k] += dt * ay[k];
    vz[k] += dt * az[k];
}

/* Shear-periodic boundary at time t (Shear::apply). */
KERNEL void orr_sheet_boundary(u32 n, GLOBAL double *x, GLOBAL double *y, GLOBAL double *vy,
                               double omega, double l, double t)
{
    u32 k = GLOBAL_ID;
    if (k >= n)
        return;
    double p[3] = {x[k], y[k], vy[k]};
    sheet_boundary_one(omega, l, t, p);
    x[k] = p[0];
    y[k] = p[1];
    vy[k] = p[2];
}

/* ------------------------------------------------------------------ keys and radix sort */

/* tree::root_cube: one work-group of SHEET_WG takes the largest |z| (a maximum: the same for
 * any order) and writes the side of the root cube to cube[0]. */
KERNEL void orr_sheet_root_cube(u32 n, GLOBAL const double *z, double l,
                                GLOBAL double *cube WORKGROUP_ARG(SheetF64Block, red))
{
    WORKGROUP_DECL(SheetF64Block, red);
    u32 t = LOCAL_ID;
    double zmax = 0.0;
    for (u32 k = t; k < n; k += SHEET_WG)
        zmax = sheet_max(zmax, fabs(z[k]));
    red->v[t] = zmax;
    LOCAL_BARRIER();
    for (u32 w = SHEET_WG / 2; w > 0; w /= 2) {
        if (t < w)
            red->v[t] = sheet_max(red->v[t], red->v[t + w]);
        LOCAL_BARRIER();
    }
    if (t == 0) {
        double zm = red->v[0];
        cube[0] = 2.0 * zm < l ? l : 2.0 * zm * (1.0 + 1e-9);
    }
}

/* The Morton key of every particle on the root cube, and its index (the sort's value). */
KERNEL void orr_sheet_keys(u32 n, GLOBAL const double *x, GLOBAL const double *y,
                           GLOBAL const double *z, GLOBAL const double *cube, GLOBAL u64 *keys,
                           GLOBAL u32 *vals)
{
    u32 k = GLOBAL_ID;
    if (k >= n)
        return;
    keys[k] = sheet_morton_key(x[k], y[k], z[k], cube[0]);
    vals[k] = k;
}

DEVICE_FN u32 sheet_digit(u64 key, u32 shift) { return (u32)(key >> shift) & (SHEET_RADIX - 1u); }

/* Radix sort, pass 1 of 3: work-group g counts the digits of its block of SHEET_WG keys into
 * counts[digit * groups + g] (digit-major, so that one exclusive scan gives every block's
 * offset for every digit). */
KERNEL void orr_sort_count(u32 n, u32 shift, GLOBAL const u64 *keys,
                           GLOBAL u32 *counts WORKGROUP_ARG(SheetU32Block, digits))
{
    WORKGROUP_DECL(SheetU32Block, digits);
    u32 t = LOCAL_ID, g = GROUP_ID, k = GROUP_ID * SHEET_WG + LOCAL_ID;
    digits->v[t] = k < n ? sheet_digit(keys[k], shift) : SHEET_RADIX;
    LOCAL_BARRIER();
    if (t < SHEET_RADIX) {
        u32 c = 0;
        for (u32 s = 0; s < SHEET_WG; s++)
            c += digits->v[s] == t ? 1u : 0u;
        counts[t * NUM_GROUPS + g] = c;
    }
}

/* Radix sort, pass 3 of 3: every key goes to its digit's offset for its block plus the number
 * of keys of its block before it with the same digit (a stable pass). */
KERNEL void orr_sort_scatter(u32 n, u32 shift, GLOBAL const u64 *keys, GLOBAL const u32 *vals,
                             GLOBAL const u32 *offsets, GLOBAL u64 *keys_out,
                             GLOBAL u32 *vals_out WORKGROUP_ARG(SheetU32Block, digits))
{
    WORKGROUP_DECL(SheetU32Block, digits);
    u32 t = LOCAL_ID, g = GROUP_ID, k = GROUP_ID * SHEET_WG + LOCAL_ID;
    u32 d = k < n ? sheet_digit(keys[k], shift) : SHEET_RADIX;
    digits->v[t] = d;
    LOCAL_BARRIER();
    if (k >= n)
        return;
    u32 rank = 0;
    for (u32 s = 0; s < t; s++)
        rank += digits->v[s] == d ? 1u : 0u;
    u32 at = offsets[d * NUM_GROUPS + g] + rank;
    keys_out[at] = keys[k];
    vals_out[at] = vals[k];
}

/* Exclusive prefix sum of n counts (one work-group of SHEET_WG; each work-item sums a
 * contiguous chunk): out[k] = in[0] + ... + in[k-1], status[slot] = the total. out may be in. */
KERNEL void orr_scan_u32(u32 n, GLOBAL const u32 *in, GLOBAL u32 *out, GLOBAL u32 *status,
                         u32 slot WORKGROUP_ARG(SheetU32Block, sums))
{
    WORKGROUP_DECL(SheetU32Block, sums);
    u32 t = LOCAL_ID;
    u32 chunk = (n + SHEET_WG - 1) / SHEET_WG;
    u32 a = t * chunk < n ? t * chunk : n;
    u32 b = a + chunk < n ? a + chunk : n;
    u32 s = 0;
    for (u32 k = a; k < b; k++)
        s += in[k];
    sums->v[t] = s;
    LOCAL_BARRIER();
    if (t == 0) {
        u32 run = 0;
        for (u32 k = 0; k < SHEET_WG; k++) {
            u32 v = sums->v[k];
            sums->v[k] = run;
            run += v;
        }
        status[slot] = run;
    }
    LOCAL_BARRIER();
    u32 run = sums->v[t];
    for (u32 k = a; k < b; k++) {
        u32 v = in[k];
        out[k] = run;
        run += v;
    }
}

/* Set n words of buf to value. */
KERNEL void orr_fill_u32(u32 n, GLOBAL u32 *buf, u32 value)
{
    u32 k = GLOBAL_ID;
    if (k < n)
        buf[k] = value;
}

/* Reorder every particle array into key order (new k holds old perm[k]) into the t* arrays. */
KERNEL void orr_sheet_permute(u32 n, GLOBAL const u32 *perm, GLOBAL const double *x,
                              GLOBAL const double *y, GLOBAL const double *z,
                              GLOBAL const double *vx, GLOBAL const double *vy,
                              GLOBAL const double *vz, GLOBAL const double *m,
                              GLOBAL const double *r, GLOBAL const u32 *id, GLOBAL double *tx,
                              GLOBAL double *ty, GLOBAL double *tz, GLOBAL double *tvx,
                              GLOBAL double *tvy, GLOBAL double *tvz, GLOBAL double *tm,
                              GLOBAL double *tr, GLOBAL u32 *tid)
{
    u32 k = GLOBAL_ID;
    if (k >= n)
        return;
    u32 o = perm[k];
    tx[k] = x[o];
    ty[k] = y[o];
    tz[k] = z[o];
    tvx[k] = vx[o];
    tvy[k] = vy[o];
    tvz[k] = vz[o];
    tm[k] = m[o];
    tr[k] = r[o];
    tid[k] = id[o];
}

/* Copy the permuted arrays back. */
KERNEL void orr_sheet_copy_back(u32 n, GLOBAL const double *tx, GLOBAL const double *ty,
                                GLOBAL const double *tz, GLOBAL const double *tvx,
                                GLOBAL const double *tvy, GLOBAL const double *tvz,
                                GLOBAL const double *tm, GLOBAL const double *tr,
                                GLOBAL const u32 *tid, GLOBAL double *x, GLOBAL double *y,
                                GLOBAL double *z, GLOBAL double *vx, GLOBAL double *vy,
                                GLOBAL double *vz, GLOBAL double *m, GLOBAL double *r,
                                GLOBAL u32 *id)
{
    u32 k = GLOBAL_ID;
    if (k >= n)
        return;
    x[k] = tx[k];
    y[k] = ty[k];
    z[k] = tz[k];
    vx[k] = tvx[k];
    vy[k] = tvy[k];
    vz[k] = tvz[k];
    m[k] = tm[k];
    r[k] = tr[k];
    id[k] = tid[k];
}

/* ------------------------------------------------------------------ tree build */

/* The root node over all n particles. */
KERNEL void orr_tree_root(u32 n, GLOBAL u32 *start, GLOBAL u32 *end, GLOBAL u32 *first,
                          GLOBAL u32 *nchild, GLOBAL u32 *level, GLOBAL u32 *parent)
{
    if (GLOBAL_ID != 0)
        return;
    start[0] = 0;
    end[0] = n;
    first[0] = 0;
    nchild[0] = 0;
    level[0] = 0;
    parent[0] = SHEET_NONE;
}

/* The first index in keys[lo..hi) whose octant digit at shift exceeds oct (partition_point). */
DEVICE_FN u32 sheet_octant_end(GLOBAL const u64 *keys, u32 lo, u32 hi, u32 shift, u32 oct)
{
    while (lo < hi) {
        u32 mid = lo + (hi - lo) / 2;
        if (((u32)(keys[mid] >> shift) & 7u) <= oct)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The non-empty octants of node k (tree::build's split rule): count[k - begin] = their number,
 * 0 for a node that stays a leaf. */
KERNEL void orr_tree_count(u32 begin, u32 end_node, GLOBAL const u32 *start, GLOBAL const u32 *end,
                           GLOBAL const u32 *level, GLOBAL const u64 *keys, GLOBAL u32 *count)
{
    u32 k = begin + GLOBAL_ID;
    if (k >= end_node)
        return;
    u32 s = start[k], e = end[k], lv = level[k];
    u32 c = 0;
    if (e - s > SHEET_LEAF_SIZE && lv < SHEET_KEY_BITS) {
        u32 shift = 3u * (SHEET_KEY_BITS - 1u - lv);
        u32 lo = s;
        for (u32 oct = 0; oct < 8u; oct++) {
            u32 hi = sheet_octant_end(keys, lo, e, shift, oct);
            c += hi > lo ? 1u : 0u;
            lo = hi;
        }
    }
    count[GLOBAL_ID] = c;
}

/* Split node k into its non-empty octants at first_child = end_node + offset[k - begin], in
 * octant order (the children of a level in the order of their parents: tree::build's
 * breadth-first order). */
KERNEL void orr_tree_split(u32 begin, u32 end_node, GLOBAL u32 *start, GLOBAL u32 *end,
                           GLOBAL u32 *first, GLOBAL u32 *nchild, GLOBAL u32 *level,
                           GLOBAL u32 *parent, GLOBAL const u64 *keys, GLOBAL const u32 *count,
                           GLOBAL const u32 *offset)
{
    u32 k = begin + GLOBAL_ID;
    if (k >= end_node)
        return;
    u32 c = count[GLOBAL_ID];
    u32 f = end_node + offset[GLOBAL_ID];
    first[k] = c > 0 ? f : 0u;
    nchild[k] = c;
    if (c == 0)
        return;
    u32 s = start[k], e = end[k], lv = level[k];
    u32 shift = 3u * (SHEET_KEY_BITS - 1u - lv);
    u32 lo = s;
    for (u32 oct = 0; oct < 8u; oct++) {
        u32 hi = sheet_octant_end(keys, lo, e, shift, oct);
        if (hi > lo) {
            start[f] = lo;
            end[f] = hi;
            first[f] = 0;
            nchild[f] = 0;
            level[f] = lv + 1u;
            parent[f] = k;
            f++;
        }
        lo = hi;
    }
}

/* Mark, at the first particle of each, the leaves and the walk groups (the largest cells with
 * at most SHEET_GROUP_SIZE particles, or leaves) for their compaction in key order. */
KERNEL void orr_tree_mark(u32 nodes, GLOBAL const u32 *start, GLOBAL const u32 *end,
                          GLOBAL const u32 *nchild, GLOBAL const u32 *parent,
                          GLOBAL u32 *leaf_flag, GLOBAL u32 *leaf_at, GLOBAL u32 *group_flag,
                          GLOBAL u32 *group_at)
{
    u32 k = GLOBAL_ID;
    if (k >= nodes)
        return;
    u32 s = start[k];
    int leaf = nchild[k] == 0;
    if (leaf) {
        leaf_flag[s] = 1;
        leaf_at[s] = k;
    }
    u32 p = parent[k];
    int parent_open = p == SHEET_NONE || end[p] - start[p] > SHEET_GROUP_SIZE;
    if (parent_open && (leaf || end[k] - s <= SHEET_GROUP_SIZE)) {
        group_flag[s] = 1;
        group_at[s] = k;
    }
}

/* out[offset[k]] = at[k] for every flagged k < n (stream compaction in index order). */
KERNEL void orr_compact(u32 n, GLOBAL const u32 *flag, GLOBAL const u32 *offset,
                        GLOBAL const u32 *at, GLOBAL u32 *out)
{
    u32 k = GLOBAL_ID;
    if (k < n && flag[k] != 0)
        out[offset[k]] = at[k];
}

/* ------------------------------------------------------------------ moments */

/* The moments of the nodes begin..end_node of one level (tree::moments): leaves from their
 * particles, the others from their children (the deeper level, done before). */
KERNEL void orr_tree_moments(u32 begin, u32 end_node, GLOBAL const u32 *start,
                             GLOBAL const u32 *end, GLOBAL const u32 *first,
                             GLOBAL const u32 *nchild, GLOBAL const u32 *level,
                             GLOBAL const double *x, GLOBAL const double *y,
                             GLOBAL const double *z, GLOBAL const double *m,
                             GLOBAL const double *r, GLOBAL const double *cube,
                             GLOBAL double *cells)
{
    u32 k = begin + GLOBAL_ID;
    if (k >= end_node)
        return;
    double c[SHEET_CELL_WORDS];
    u32 s = start[k];
    if (nchild[k] == 0)
        sheet_leaf_moments(x, y, z, m, r, s, end[k], c);
    else
        sheet_combine(cells + first[k] * SHEET_CELL_WORDS, nchild[k], c);
    double q[3] = {x[s], y[s], z[s]};
    sheet_set_geometry(c, level[k], q, cube[0]);
    c[SHEET_CELL_WORDS - 1] = 0.0;
    for (u32 w = 0; w < SHEET_CELL_WORDS; w++)
        cells[k * SHEET_CELL_WORDS + w] = c[w];
}

/* ------------------------------------------------------------------ gravity */

/* Tree gravity (gravity::tree_gravity): work-group g takes walk group groups[g]; each
 * work-item walks the tree for the group's box over every ghost box, as the CPU builds the
 * group's interaction lists, and sums the particle entries, then the cell entries, in list
 * order for its particles (so the sums are the CPU's). Every work-item of a group makes the
 * same opening decisions (they depend on the group's box only): the walk does not diverge.
 * Work-item 0 writes the group's interaction counts (n * list lengths). */
KERNEL void orr_sheet_gravity(u32 ngroups, GLOBAL const u32 *groups, GLOBAL const u32 *start,
                              GLOBAL const u32 *end, GLOBAL const u32 *first,
                              GLOBAL const u32 *nchild, GLOBAL const double *cells,
                              GLOBAL const double *x, GLOBAL const double *y,
                              GLOBAL const double *z, GLOBAL const double *m,
                              GLOBAL const double *ghosts, u32 nghosts, double inv_theta,
                              double eps2, double g, GLOBAL double *ax, GLOBAL double *ay,
                              GLOBAL double *az, GLOBAL u64 *pp, GLOBAL u64 *pc)
{
    u32 gi = GROUP_ID;
    if (gi >= ngroups)
        return;
    u32 node = groups[gi];
    GLOBAL const double *gc = cells + node * SHEET_CELL_WORDS;
    double lo[3] = {gc[CELL_LO], gc[CELL_LO + 1], gc[CELL_LO + 2]};
    double hi[3] = {gc[CELL_HI], gc[CELL_HI + 1], gc[CELL_HI + 2]};
    u32 s0 = start[node], s1 = end[node];
    u32 stack[SHEET_STACK];
    for (u32 i = s0 + LOCAL_ID; i < s1; i += LOCAL_SIZE) {
        double sink[3] = {x[i], y[i], z[i]};
        double a[3] = {0.0, 0.0, 0.0};
        u64 np = 0, nc = 0;
        /* Pass 0: the particle list; pass 1: the cell list. */
        for (u32 pass = 0; pass < 2u; pass++) {
            for (u32 gb = 0; gb < nghosts; gb++) {
                double gdx = ghosts[3 * gb], gdy = ghosts[3 * gb + 1];
                u32 top = 0;
                stack[top++] = 0;
                while (top > 0) {
                    u32 k = stack[--top];
                    GLOBAL const double *c = cells + k * SHEET_CELL_WORDS;
                    if (sheet_accepts(c, lo, hi, gdx, gdy, inv_theta)) {
                        if (pass == 1u) {
                            sheet_cell_term(c[CELL_COM] + gdx, c[CELL_COM + 1] + gdy,
                                            c[CELL_COM + 2], c, sink, eps2, a);
                            nc++;
                        }
                    } else if (nchild[k] == 0) {
                        if (pass == 0u) {
                            for (u32 j = start[k]; j < end[k]; j++)
                                sheet_particle_term(x[j] + gdx, y[j] + gdy, z[j], m[j], sink,
                                                    eps2, a);
                            np += end[k] - start[k];
                        }
                    } else {
                        for (u32 ch = first[k] + nchild[k]; ch > first[k]; ch--)
                            stack[top++] = ch - 1u;
                    }
                }
            }
        }
        if (i == s0) {
            pp[gi] = (u64)(s1 - s0) * np;
            pc[gi] = (u64)(s1 - s0) * nc;
        }
        ax[i] = g * a[0];
        ay[i] = g * a[1];
        az[i] = g * a[2];
    }
}

/* ------------------------------------------------------------------ collisions */

/* The collision search of particle i of leaf node `leaf` (collisions::search: the leaf's box
 * grown by the radii against every cell, partners with a higher index only), over every ghost
 * box. With out == 0 it counts the pairs; otherwise it writes them from out on and sorts them
 * by (partner, ghost), the CPU's order. Returns the count. */
DEVICE_FN u32 sheet_search_one(u32 i, u32 leaf, GLOBAL const u32 *start, GLOBAL const u32 *end,
                               GLOBAL const u32 *first, GLOBAL const u32 *nchild,
                               GLOBAL const double *cells, GLOBAL const double *x,
                               GLOBAL const double *y, GLOBAL const double *z,
                               GLOBAL const double *vx, GLOBAL const double *vy,
                               GLOBAL const double *vz, GLOBAL const double *r,
                               GLOBAL const double *ghosts, u32 nghosts, GLOBAL u32 *out_j,
                               GLOBAL u32 *out_g, int write)
{
    GLOBAL const double *lc = cells + leaf * SHEET_CELL_WORDS;
    u32 lstart = start[leaf];
    u32 stack[SHEET_STACK];
    u32 found = 0;
    for (u32 gb = 0; gb < nghosts; gb++) {
        GLOBAL const double *g = ghosts + 3 * gb;
        double glo[3] = {lc[CELL_LO] - g[0], lc[CELL_LO + 1] - g[1], lc[CELL_LO + 2]};
        double ghi[3] = {lc[CELL_HI] - g[0], lc[CELL_HI + 1] - g[1], lc[CELL_HI + 2]};
        u32 top = 0;
        stack[top++] = 0;
        while (top > 0) {
            u32 k = stack[--top];
            if (end[k] <= lstart + 1u)
                continue;
            GLOBAL const double *oc = cells + k * SHEET_CELL_WORDS;
            double reach = lc[CELL_RMAX] + oc[CELL_RMAX];
            if (sheet_box_gap2(glo, ghi, oc + CELL_LO, oc + CELL_HI) > reach * reach)
                continue;
            if (nchild[k] == 0) {
                u32 j0 = start[k] > i + 1u ? start[k] : i + 1u;
                for (u32 j = j0; j < end[k]; j++) {
                    if (sheet_colliding(x, y, z, vx, vy, vz, r, i, j, g)) {
                        if (write) {
                            out_j[found] = j;
                            out_g[found] = gb;
                        }
                        found++;
                    }
                }
            } else {
                for (u32 ch = first[k] + nchild[k]; ch > first[k]; ch--)
                    stack[top++] = ch - 1u;
            }
        }
    }
    if (write) {
        /* Insertion sort by (j, ghost): few pairs per particle. */
        for (u32 a = 1; a < found; a++) {
            u32 j = out_j[a], gb = out_g[a];
            u32 b = a;
            while (b > 0 && (out_j[b - 1] > j || (out_j[b - 1] == j && out_g[b - 1] > gb))) {
                out_j[b] = out_j[b - 1];
                out_g[b] = out_g[b - 1];
                b--;
            }
            out_j[b] = j;
            out_g[b] = gb;
        }
    }
    return found;
}

/* Collision search, count pass: work-group g takes leaf leaves[g], one work-item per member
 * (the members share the leaf's walk decisions); count[i] = the pairs particle i records. */
KERNEL void orr_collision_count(u32 nleaves, GLOBAL const u32 *leaves, GLOBAL const u32 *start,
                                GLOBAL const u32 *end, GLOBAL const u32 *first,
                                GLOBAL const u32 *nchild, GLOBAL const double *cells,
                                GLOBAL const double *x, GLOBAL const double *y,
                                GLOBAL const double *z, GLOBAL const double *vx,
                                GLOBAL const double *vy, GLOBAL const double *vz,
                                GLOBAL const double *r, GLOBAL const double *ghosts, u32 nghosts,
                                GLOBAL u32 *count)
{
    if (GROUP_ID >= nleaves)
        return;
    u32 leaf = leaves[GROUP_ID];
    for (u32 i = start[leaf] + LOCAL_ID; i < end[leaf]; i += LOCAL_SIZE)
        count[i] = sheet_search_one(i, leaf, start, end, first, nchild, cells, x, y, z, vx, vy,
                                    vz, r, ghosts, nghosts, count, count, 0);
}

/* Collision search, write pass: particle i's pairs (i, j, ghost) from offset[i] on, sorted by
 * (j, ghost): the whole list is then in the CPU's order (leaves in key order, members, then
 * partners). */
KERNEL void orr_collision_write(u32 nleaves, GLOBAL const u32 *leaves, GLOBAL const u32 *start,
                                GLOBAL const u32 *end, GLOBAL const u32 *first,
                                GLOBAL const u32 *nchild, GLOBAL const double *cells,
                                GLOBAL const double *x, GLOBAL const double *y,
                                GLOBAL const double *z, GLOBAL const double *vx,
                                GLOBAL const double *vy, GLOBAL const double *vz,
                                GLOBAL const double *r, GLOBAL const double *ghosts, u32 nghosts,
                                GLOBAL const u32 *offset, GLOBAL u32 *pair_i, GLOBAL u32 *pair_j,
                                GLOBAL u32 *pair_g)
{
    if (GROUP_ID >= nleaves)
        return;
    u32 leaf = leaves[GROUP_ID];
    for (u32 i = start[leaf] + LOCAL_ID; i < end[leaf]; i += LOCAL_SIZE) {
        u32 o = offset[i];
        u32 c = sheet_search_one(i, leaf, start, end, first, nchild, cells, x, y, z, vx, vy, vz,
                                 r, ghosts, nghosts, pair_j + o, pair_g + o, 1);
        for (u32 k = 0; k < c; k++)
            pair_i[o + k] = i;
    }
}

/* ------------------------------------------------------------------ resolution */

/* Resolution in rounds (the sequential order's result, in parallel). Pair k waits for its two
 * predecessors: the last earlier pair of its first particle and the last earlier pair of its
 * second (collisions::resolve resolves pairs in list order, and a pair reads and writes only its
 * two particles' velocities). A pair whose predecessors were resolved in earlier rounds is
 * resolved in this one: pairs of one round share no particle, and each reads exactly the
 * velocities the sequential loop would. The list is sorted by (i, j, ghost), so the pairs of a
 * particle p are first those where p is the partner j (in list order), then those where it is i
 * (contiguous). The partner occurrences are listed per particle by a counting sort:
 * step 1 counts them. */
KERNEL void orr_partner_count(u32 npairs, GLOBAL const u32 *pair_j, GLOBAL u32 *count)
{
    u32 k = GLOBAL_ID;
    if (k < npairs)
        ATOMIC_ADD_U32(&count[pair_j[k]], 1u);
}

/* Step 2 (after a scan of the counts into offsets): every pair enters its partner's list. */
KERNEL void orr_partner_fill(u32 npairs, GLOBAL const u32 *pair_j, GLOBAL const u32 *offset,
                             GLOBAL u32 *fill, GLOBAL u32 *list)
{
    u32 k = GLOBAL_ID;
    if (k < npairs) {
        u32 j = pair_j[k];
        list[offset[j] + ATOMIC_ADD_U32(&fill[j], 1u)] = k;
    }
}

/* Step 3: each particle's list in pair order (the atomics filled it in any order). */
KERNEL void orr_partner_sort(u32 n, GLOBAL const u32 *offset, GLOBAL const u32 *count,
                             GLOBAL u32 *list)
{
    u32 p = GLOBAL_ID;
    if (p >= n)
        return;
    GLOBAL u32 *l = list + offset[p];
    for (u32 a = 1; a < count[p]; a++) {
        u32 v = l[a], b = a;
        while (b > 0 && l[b - 1] > v) {
            l[b] = l[b - 1];
            b--;
        }
        l[b] = v;
    }
}

/* Step 4: the two predecessors of every pair (SHEET_NONE for none). */
KERNEL void orr_pair_predecessors(u32 npairs, GLOBAL const u32 *pair_i, GLOBAL const u32 *pair_j,
                                  GLOBAL const u32 *offset, GLOBAL const u32 *count,
                                  GLOBAL const u32 *list, GLOBAL u32 *prev_i, GLOBAL u32 *prev_j)
{
    u32 k = GLOBAL_ID;
    if (k >= npairs)
        return;
    u32 i = pair_i[k], j = pair_j[k];
    if (k > 0 && pair_i[k - 1] == i)
        prev_i[k] = k - 1u;
    else
        prev_i[k] = count[i] > 0 ? list[offset[i] + count[i] - 1u] : SHEET_NONE;
    u32 lo = offset[j], hi = offset[j] + count[j];
    while (lo < hi) {
        u32 mid = lo + (hi - lo) / 2;
        if (list[mid] < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    prev_j[k] = lo > offset[j] ? list[lo - 1] : SHEET_NONE;
}

DEVICE_FN int sheet_done_before(GLOBAL const u32 *done, u32 pair, u32 round)
{
    return pair == SHEET_NONE || (done[pair] != 0u && done[pair] < round);
}

/* One round (1, 2, ...): every unresolved pair whose predecessors are done resolves, and its
 * done word becomes the round; the others count as left in status[left_slot + round % 2]
 * (work-item 0 clears the other slot for the next round). A pair done in this round never
 * makes another ready in it: a predecessor's done word read during its own round is 0 or this
 * round, both "not ready", so the outcome does not depend on the order of that aligned word's
 * write and read. status[resolved_slot] counts the pairs that still approached. */
KERNEL void orr_resolve_round(u32 npairs, u32 round, GLOBAL const u32 *pair_i,
                              GLOBAL const u32 *pair_j, GLOBAL const u32 *pair_g,
                              GLOBAL const u32 *prev_i, GLOBAL const u32 *prev_j,
                              GLOBAL const double *ghosts, GLOBAL const double *x,
                              GLOBAL const double *y, GLOBAL const double *z, GLOBAL double *vx,
                              GLOBAL double *vy, GLOBAL double *vz, GLOBAL const double *m,
                              GLOBAL u32 *done, GLOBAL u32 *status, u32 left_slot,
                              u32 resolved_slot, u32 kind, double value)
{
    u32 k = GLOBAL_ID;
    if (k == 0)
        status[left_slot + (round + 1u) % 2u] = 0;
    if (k >= npairs || done[k] != 0u)
        return;
    if (!sheet_done_before(done, prev_i[k], round) || !sheet_done_before(done, prev_j[k], round)) {
        ATOMIC_ADD_U32(&status[left_slot + round % 2u], 1u);
        return;
    }
    if (sheet_resolve_pair(x, y, z, vx, vy, vz, m, pair_i[k], pair_j[k], ghosts + 3 * pair_g[k],
                           kind, value))
        ATOMIC_ADD_U32(&status[resolved_slot], 1u);
    done[k] = round;
}
