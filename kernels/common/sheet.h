/*
 * sheet.h — the device math of the sheet engine (OCCLUDE report section 3), the twins of the
 * Rust functions in src/physics/sheet/: every function here performs the same IEEE operations in the
 * same order as the Rust function it names, so that a device pass gives the CPU's bits.
 *
 *   sheet_epicycle          sei::Epicycle::apply (SEI drift, OCCLUDE eq. 15)
 *   sheet_wrap, sheet_boundary_one   boundary::wrap, Shear::apply_one
 *   sheet_morton_key        tree::morton_key
 *   sheet_leaf_moments, sheet_combine, sheet_set_geometry   tree::cell_moments, combine,
 *                           set_geometry (a cell: SHEET_CELL_WORDS doubles, layout CELL_*)
 *   sheet_particle_term, sheet_cell_term   gravity::evaluate_body (one list entry)
 *   sheet_opens             gravity::walk's opening test (Bonsai eq. 1)
 *   sheet_box_gap2, sheet_colliding     collisions::box_gap2, colliding (OCCLUDE eq. 18)
 *   sheet_resolve_pair      collisions::resolve_pair (OCCLUDE eq. 13, Bridges eq. 21)
 *
 * The one call outside + - * / sqrt floor is pow in the Bridges restitution law (as the CPU's
 * powf): it agrees with the CPU to the device's pow accuracy, not bitwise.
 */
#ifndef ORRERY_SHEET_H
#define ORRERY_SHEET_H

#include "device.h"

/* tree::LEAF_SIZE, GROUP_SIZE, KEY_BITS */
#define SHEET_LEAF_SIZE 16u
#define SHEET_GROUP_SIZE 64u
#define SHEET_KEY_BITS 21u
/* Work-group size of the sort, the scans and the reductions. */
#define SHEET_WG 256u
/* Radix sort digit: 4 bits, 16 buckets, 16 passes over the 64-bit key. */
#define SHEET_RADIX_BITS 4u
#define SHEET_RADIX 16u
/* No node / no pair. */
#define SHEET_NONE 0xffffffffu
/* Depth-first stack of a walk: a node is split only below level KEY_BITS, so at most
 * 1 + 7 * KEY_BITS entries are ever on it. */
#define SHEET_STACK 160

/* A cell of the tree (tree::Cell) as SHEET_CELL_WORDS doubles. */
#define SHEET_CELL_WORDS 20u
#define CELL_LO 0
#define CELL_HI 3
#define CELL_COM 6
#define CELL_MASS 9
#define CELL_QUAD 10
#define CELL_SIZE 16
#define CELL_DELTA 17
#define CELL_RMAX 18

/* Work-group memory of the sort, scans and reductions. */
typedef struct {
    u32 v[SHEET_WG];
} SheetU32Block;
typedef struct {
    double v[SHEET_WG];
} SheetF64Block;

DEVICE_FN double sheet_min(double a, double b) { return b < a ? b : a; }
DEVICE_FN double sheet_max(double a, double b) { return b > a ? b : a; }

/* sei::Epicycle::apply: the exact H0 flow over dt (c = cos(omega dt), s = sin(omega dt)). */
DEVICE_FN void sheet_epicycle(double o, double dt, double c, double s, double *p)
{
    double x = p[0], y = p[1], z = p[2], vx = p[3], vy = p[4], vz = p[5];
    double xg = 4.0 * x + 2.0 * vy / o;
    double yg = y - 2.0 * vx / o;
    double dx = x - xg;
    double nx = xg + dx * c + (vx / o) * s;
    double ny = yg - 1.5 * o * xg * dt + (y - yg) * c - 2.0 * dx * s;
    double nvx = vx * c - o * dx * s;
    double nvy = -1.5 * o * xg - 2.0 * o * (nx - xg);
    double nz = z * c + (vz / o) * s;
    double nvz = vz * c - o * z * s;
    p[0] = nx;
    p[1] = ny;
    p[2] = nz;
    p[3] = nvx;
    p[4] = nvy;
    p[5] = nvz;
}

/* Rust's `v as i32`: NaN to 0, saturated at the ends (a C cast of those is undefined). */
DEVICE_FN i32 sheet_to_i32(double v)
{
    if (!(v == v))
        return 0;
    return v <= -2147483648.0 ? (i32)(-2147483647 - 1) : (v >= 2147483647.0 ? 2147483647 : (i32)v);
}

/* boundary::wrap: v into [-l/2, l/2). */
DEVICE_FN double sheet_wrap(double v, double l)
{
    double w = v - l * floor(v / l + 0.5);
    return w >= 0.5 * l ? w - l : w;
}

/* Shear::apply_one: x, y, vy of one particle back into the box at time t (p = {x, y, vy}). */
DEVICE_FN void sheet_boundary_one(double omega, double l, double t, double *p)
{
    double edge = 0.5 * l;
    if (p[0] >= edge || p[0] < -edge) {
        i32 i = -sheet_to_i32(floor(p[0] / l + 0.5));
        double gdx = (double)i * l;
        double gdy = 0.0 * l + sheet_wrap(-1.5 * omega * l * t * (double)i, l);
        double gdvy = -1.5 * omega * l * (double)i;
        p[0] += gdx;
        p[1] += gdy;
        p[2] += gdvy;
        p[0] = sheet_wrap(p[0], l);
    }
    p[1] = sheet_wrap(p[1], l);
}

/* tree::dilate3: the low 21 bits of v to every third bit. */
DEVICE_FN u64 sheet_dilate3(u64 v)
{
    u64 x = v & 0x1fffffUL;
    x = (x | (x << 32)) & 0x001f00000000ffffUL;
    x = (x | (x << 16)) & 0x001f0000ff0000ffUL;
    x = (x | (x << 8)) & 0x100f00f00f00f00fUL;
    x = (x | (x << 4)) & 0x10c30c30c30c30c3UL;
    x = (x | (x << 2)) & 0x1249249249249249UL;
    return x;
}

DEVICE_FN u64 sheet_quantise(double v, double l, double scale)
{
    double q = (v + 0.5 * l) * scale;
    /* f64::clamp, then `as u64` (NaN to 0). */
    if (!(q == q))
        return 0;
    q = q < 0.0 ? 0.0 : (q > 2097151.0 ? 2097151.0 : q);
    return (u64)q;
}

/* tree::morton_key on the cube [-l/2, l/2)^3. */
DEVICE_FN u64 sheet_morton_key(double x, double y, double z, double l)
{
    double scale = 2097152.0 / l;
    return (sheet_dilate3(sheet_quantise(x, l, scale)) << 2) |
           (sheet_dilate3(sheet_quantise(y, l, scale)) << 1) |
           sheet_dilate3(sheet_quantise(z, l, scale));
}

/* tree::cell_moments of the particles start..end into c. */
DEVICE_FN void sheet_leaf_moments(GLOBAL const double *x, GLOBAL const double *y,
                                  GLOBAL const double *z, GLOBAL const double *m,
                                  GLOBAL const double *r, u32 start, u32 end, double *c)
{
    double s[3] = {0.0, 0.0, 0.0};
    double mass = 0.0, rmax = 0.0;
    for (u32 a = 0; a < 3; a++) {
        c[CELL_LO + a] = HUGE_VAL;
        c[CELL_HI + a] = -HUGE_VAL;
    }
    for (u32 k = start; k < end; k++) {
        double q[3] = {x[k], y[k], z[k]};
        for (u32 a = 0; a < 3; a++) {
            c[CELL_LO + a] = sheet_min(c[CELL_LO + a], q[a]);
            c[CELL_HI + a] = sheet_max(c[CELL_HI + a], q[a]);
            s[a] += m[k] * q[a];
        }
        mass += m[k];
        rmax = sheet_max(rmax, r[k]);
    }
    for (u32 a = 0; a < 3; a++)
        c[CELL_COM + a] = mass > 0.0 ? s[a] / mass : 0.5 * (c[CELL_LO + a] + c[CELL_HI + a]);
    c[CELL_MASS] = mass;
    c[CELL_RMAX] = rmax;
    double q[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    for (u32 k = start; k < end; k++) {
        double d0 = x[k] - c[CELL_COM], d1 = y[k] - c[CELL_COM + 1], d2 = z[k] - c[CELL_COM + 2];
        double dd = d0 * d0 + d1 * d1 + d2 * d2;
        double mk = m[k];
        q[0] += mk * (3.0 * d0 * d0 - dd);
        q[1] += mk * (3.0 * d1 * d1 - dd);
        q[2] += mk * (3.0 * d2 * d2 - dd);
        q[3] += mk * 3.0 * d0 * d1;
        q[4] += mk * 3.0 * d0 * d2;
        q[5] += mk * 3.0 * d1 * d2;
    }
    for (u32 a = 0; a < 6; a++)
        c[CELL_QUAD + a] = q[a];
}

/* tree::combine: the moments of a cell from its n children, the cells at ch (contiguous). */
DEVICE_FN void sheet_combine(GLOBAL const double *ch, u32 n, double *c)
{
    double s[3] = {0.0, 0.0, 0.0};
    double mass = 0.0, rmax = 0.0;
    for (u32 a = 0; a < 3; a++) {
        c[CELL_LO + a] = HUGE_VAL;
        c[CELL_HI + a] = -HUGE_VAL;
    }
    for (u32 k = 0; k < n; k++) {
        GLOBAL const double *o = ch + k * SHEET_CELL_WORDS;
        for (u32 a = 0; a < 3; a++) {
            c[CELL_LO + a] = sheet_min(c[CELL_LO + a], o[CELL_LO + a]);
            c[CELL_HI + a] = sheet_max(c[CELL_HI + a], o[CELL_HI + a]);
            s[a] += o[CELL_MASS] * o[CELL_COM + a];
        }
        mass += o[CELL_MASS];
        rmax = sheet_max(rmax, o[CELL_RMAX]);
    }
    for (u32 a = 0; a < 3; a++)
        c[CELL_COM + a] = mass > 0.0 ? s[a] / mass : 0.5 * (c[CELL_LO + a] + c[CELL_HI + a]);
    c[CELL_MASS] = mass;
    c[CELL_RMAX] = rmax;
    double q[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    for (u32 k = 0; k < n; k++) {
        GLOBAL const double *o = ch + k * SHEET_CELL_WORDS;
        double d0 = o[CELL_COM] - c[CELL_COM], d1 = o[CELL_COM + 1] - c[CELL_COM + 1];
        double d2 = o[CELL_COM + 2] - c[CELL_COM + 2];
        double dd = d0 * d0 + d1 * d1 + d2 * d2;
        double mk = o[CELL_MASS];
        q[0] += o[CELL_QUAD] + mk * (3.0 * d0 * d0 - dd);
        q[1] += o[CELL_QUAD + 1] + mk * (3.0 * d1 * d1 - dd);
        q[2] += o[CELL_QUAD + 2] + mk * (3.0 * d2 * d2 - dd);
        q[3] += o[CELL_QUAD + 3] + mk * 3.0 * d0 * d1;
        q[4] += o[CELL_QUAD + 4] + mk * 3.0 * d0 * d2;
        q[5] += o[CELL_QUAD + 5] + mk * 3.0 * d1 * d2;
    }
    for (u32 a = 0; a < 6; a++)
        c[CELL_QUAD + a] = q[a];
}

/* tree::set_geometry: the octree cell's side and the centre-of-mass offset delta of a cell at
 * depth level of the cube of side l, found from its first particle q. */
DEVICE_FN void sheet_set_geometry(double *c, u32 level, const double *q, double l)
{
    double cells = (double)((u64)1 << level);
    double w = l / cells;
    double delta2 = 0.0;
    for (u32 a = 0; a < 3; a++) {
        double idx = floor((q[a] + 0.5 * l) / w);
        idx = idx < 0.0 ? 0.0 : (idx > cells - 1.0 ? cells - 1.0 : idx);
        double centre = -0.5 * l + (idx + 0.5) * w;
        double off = c[CELL_COM + a] - centre;
        delta2 += off * off;
    }
    c[CELL_SIZE] = w;
    c[CELL_DELTA] = sqrt(delta2);
}

/* The opening test of gravity::walk: true when cell c is accepted as a multipole for the
 * group box lo..hi shifted by -(gdx, gdy) (Bonsai eq. 1: d > l / theta + delta). */
DEVICE_FN int sheet_accepts(GLOBAL const double *c, const double *lo, const double *hi,
                            double gdx, double gdy, double inv_theta)
{
    double glo[3] = {lo[0] - gdx, lo[1] - gdy, lo[2]};
    double ghi[3] = {hi[0] - gdx, hi[1] - gdy, hi[2]};
    double d2 = 0.0;
    for (u32 a = 0; a < 3; a++) {
        double d = sheet_max(sheet_max(glo[a] - c[CELL_COM + a], c[CELL_COM + a] - ghi[a]), 0.0);
        d2 += d * d;
    }
    double crit = c[CELL_SIZE] * inv_theta + c[CELL_DELTA];
    return d2 > crit * crit;
}

/* One particle-list entry of gravity::evaluate_body added to a (G-less). */
DEVICE_FN void sheet_particle_term(double xj, double yj, double zj, double mj, const double *s,
                                   double eps2, double *a)
{
    double dx = xj - s[0];
    double dy = yj - s[1];
    double dz = zj - s[2];
    double r2 = dx * dx + dy * dy + dz * dz + eps2;
    double f = r2 > 0.0 ? mj / (r2 * sqrt(r2)) : 0.0;
    a[0] += dx * f;
    a[1] += dy * f;
    a[2] += dz * f;
}

/* One cell-list entry (monopole + quadrupole at (xj, yj, zj)) of gravity::evaluate_body. */
DEVICE_FN void sheet_cell_term(double xj, double yj, double zj, GLOBAL const double *c,
                               const double *s, double eps2, double *a)
{
    double mj = c[CELL_MASS];
    double qxx = c[CELL_QUAD], qyy = c[CELL_QUAD + 1], qzz = c[CELL_QUAD + 2];
    double qxy = c[CELL_QUAD + 3], qxz = c[CELL_QUAD + 4], qyz = c[CELL_QUAD + 5];
    double dx = xj - s[0];
    double dy = yj - s[1];
    double dz = zj - s[2];
    double r2 = dx * dx + dy * dy + dz * dz + eps2;
    double rinv = 1.0 / sqrt(r2);
    double rinv2 = rinv * rinv;
    double rinv3 = rinv * rinv2;
    double rinv5 = rinv3 * rinv2;
    double qdx = qxx * dx + qxy * dy + qxz * dz;
    double qdy = qxy * dx + qyy * dy + qyz * dz;
    double qdz = qxz * dx + qyz * dy + qzz * dz;
    double dqd = dx * qdx + dy * qdy + dz * qdz;
    double mono = mj * rinv3 + 2.5 * dqd * rinv5 * rinv2;
    a[0] += dx * mono - qdx * rinv5;
    a[1] += dy * mono - qdy * rinv5;
    a[2] += dz * mono - qdz * rinv5;
}

/* collisions::box_gap2: squared gap between box a and box b (0 when they overlap). */
DEVICE_FN double sheet_box_gap2(const double *alo, const double *ahi, GLOBAL const double *blo,
                                GLOBAL const double *bhi)
{
    double s = 0.0;
    for (u32 k = 0; k < 3; k++) {
        double d = sheet_max(sheet_max(blo[k] - ahi[k], alo[k] - bhi[k]), 0.0);
        s += d * d;
    }
    return s;
}

/* collisions::colliding: i and the image of j in the ghost box (gdx, gdy, gdvy) overlap and
 * approach (OCCLUDE eq. 18). */
DEVICE_FN int sheet_colliding(GLOBAL const double *x, GLOBAL const double *y,
                              GLOBAL const double *z, GLOBAL const double *vx,
                              GLOBAL const double *vy, GLOBAL const double *vz,
                              GLOBAL const double *r, u32 i, u32 j, GLOBAL const double *g)
{
    double dx = x[j] + g[0] - x[i];
    double dy = y[j] + g[1] - y[i];
    double dz = z[j] - z[i];
    double rr = r[i] + r[j];
    if (dx * dx + dy * dy + dz * dz > rr * rr)
        return 0;
    double dvx = vx[j] - vx[i];
    double dvy = vy[j] + g[2] - vy[i];
    double dvz = vz[j] - vz[i];
    return dx * dvx + dy * dvy + dz * dvz < 0.0;
}

/* Restitution::eps clamped to [0, 1]: kind 0 Bridges (value v_c), 1 constant (value eps). */
DEVICE_FN double sheet_restitution(u32 kind, double value, double vn)
{
    double e;
    if (kind == 0u) {
        double v = fabs(vn);
        e = v <= value ? 1.0 : pow(v / value, -0.234);
    } else {
        e = value;
    }
    return e < 0.0 ? 0.0 : (e > 1.0 ? 1.0 : e);
}

/* collisions::resolve_pair: resolve pair (i, j) in ghost box g if it still approaches; returns
 * whether it did. */
DEVICE_FN int sheet_resolve_pair(GLOBAL const double *x, GLOBAL const double *y,
                                 GLOBAL const double *z, GLOBAL double *vx, GLOBAL double *vy,
                                 GLOBAL double *vz, GLOBAL const double *m, u32 i, u32 j,
                                 GLOBAL const double *g, u32 kind, double value)
{
    double dx = x[j] + g[0] - x[i];
    double dy = y[j] + g[1] - y[i];
    double dz = z[j] - z[i];
    double d = sqrt(dx * dx + dy * dy + dz * dz);
    if (d <= 0.0)
        return 0;
    double n0 = dx / d, n1 = dy / d, n2 = dz / d;
    double dv0 = vx[j] - vx[i];
    double dv1 = vy[j] + g[2] - vy[i];
    double dv2 = vz[j] - vz[i];
    double vn = dv0 * n0 + dv1 * n1 + dv2 * n2;
    if (vn >= 0.0)
        return 0;
    double eps = sheet_restitution(kind, value, vn);
    double dvn = -(1.0 + eps) * vn;
    double mi = m[i], mj = m[j];
    double mt = mi + mj;
    double fi = dvn * mj / mt, fj = dvn * mi / mt;
    vx[i] -= fi * n0;
    vy[i] -= fi * n1;
    vz[i] -= fi * n2;
    vx[j] += fj * n0;
    vy[j] += fj * n1;
    vz[j] += fj * n2;
    return 1;
}

#endif /* ORRERY_SHEET_H */
