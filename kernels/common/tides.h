/*
 * tides.h — tides and rotational deformation between the central body and each body, with
 * both spins evolved (README "Tides"; Hut 1981, Bolmont et al. 2015).
 *
 * Rust twins, operation for operation: `bulge_force`, `spin_rate`, `tidal_rates` and
 * `tide_kick_system` in src/physics/tides.rs. Only + - * / and sqrt: bitwise. The constants
 * follow the gas disk's in the forces buffer `f` (`Forces::device_constants`): f[25] = 1 with
 * the tides on, f[26] = 1 with the rotational deformation on, f[27..30] = the central body's
 * k2, k2f, tau and Ic, f[31] its radius. The bodies' properties are a table sorted by id:
 * `ids[n_table]` and `props[4 n_table]` (k2, k2f, tau, Ic); an id not listed has none.
 */
#ifndef ORRERY_TIDES_H
#define ORRERY_TIDES_H

#include "device.h"
#include "forces.h"

#define ORR_TIDES_AT 25
#define ORR_WORK_TIDES 7

/* One bulge's force on the body (tides with D = d / r^7, P = D tau; flattening with
 * C = c |omega|^2), into out. */
DEVICE_FN void orr_bulge_force(GLOBAL const double *RESTRICT f, double d, double c, double tau,
    const double *omega, const double *x, const double *v, double *out)
{
    double r2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
    double ir2 = 1.0 / r2;
    double ir = sqrt(ir2);
    double ir5 = ir2 * ir2 * ir;
    double ir7 = ir5 * ir2;
    double big_d = f[ORR_TIDES_AT] * d * ir7;
    double p = big_d * tau;
    double xv = x[0] * v[0] + x[1] * v[1] + x[2] * v[2];
    double radial = -(big_d + 2.0 * xv * ir2 * p) * ir;
    double wx[3];
    orr_cross(omega, x, wx);
    double pr = p * ir;
    double w2 = omega[0] * omega[0] + omega[1] * omega[1] + omega[2] * omega[2];
    double xw = x[0] * omega[0] + x[1] * omega[1] + x[2] * omega[2];
    double cr = f[ORR_TIDES_AT + 1] * c;
    double flat = cr * (15.0 * xw * xw * ir7 - 3.0 * w2 * ir5);
    double along = 6.0 * cr * xw * ir5;
    int k;
    for (k = 0; k < 3; k++)
        out[k] = (radial + flat) * x[k] + pr * (wx[k] - v[k]) - along * omega[k];
}

/* Spin rate S / (Ic m R^2), 0 without moment of inertia. */
DEVICE_FN void orr_spin_rate(const double *spin, double ic, double m, double radius, double *w)
{
    double inertia = ic * m * radius * radius;
    int c;
    for (c = 0; c < 3; c++)
        w[c] = inertia > 0.0 ? spin[c] / inertia : 0.0;
}

/* The body's acceleration and the rates of its spin and the central body's, for a body of
 * mass m > 0 with properties body[4] (zero for m <= 0). */
DEVICE_FN void orr_tidal_rates(GLOBAL const double *RESTRICT f, const double *body, double m0,
    double m, double radius, const double *x, const double *v, const double *spin,
    const double *star_spin, double *accel, double *ds, double *dss)
{
    int k;
    if (m <= 0.0) {
        for (k = 0; k < 3; k++) {
            accel[k] = 0.0;
            ds[k] = 0.0;
            dss[k] = 0.0;
        }
        return;
    }
    double rb = radius * radius * radius * radius * radius;
    double rsr = f[ORR_TIDES_AT + 6];
    double rs = rsr * rsr * rsr * rsr * rsr;
    double wo[3], ws[3], own[3], star[3], lo[3], ls[3];
    orr_spin_rate(spin, body[3], m, radius, wo);
    orr_bulge_force(f, 3.0 * m0 * m0 * rb * body[0], m0 * body[1] * rb / 6.0, body[2], wo, x, v,
        own);
    orr_spin_rate(star_spin, f[ORR_TIDES_AT + 5], m0, rsr, ws);
    orr_bulge_force(f, 3.0 * m * m * rs * f[ORR_TIDES_AT + 2],
        m * f[ORR_TIDES_AT + 3] * rs / 6.0, f[ORR_TIDES_AT + 4], ws, x, v, star);
    orr_cross(x, own, lo);
    orr_cross(x, star, ls);
    for (k = 0; k < 3; k++) {
        accel[k] = (own[k] + star[k]) / m;
        ds[k] = -lo[k];
        dss[k] = -ls[k];
    }
}

/* The properties of body `id` from the sorted table, into body[4] (none when not listed). */
DEVICE_FN void orr_tidal_body(u32 n_table, GLOBAL const u64 *RESTRICT ids,
    GLOBAL const double *RESTRICT props, u64 id, double *body)
{
    u32 lo = 0, hi = n_table;
    int c;
    body[0] = 0.0;
    body[1] = 0.0;
    body[2] = 0.0;
    body[3] = 0.4;
    while (lo < hi) {
        u32 mid = lo + (hi - lo) / 2u;
        if (ids[mid] < id) {
            lo = mid + 1u;
        } else if (ids[mid] > id) {
            hi = mid;
        } else {
            for (c = 0; c < 4; c++)
                body[c] = props[4u * mid + (u32)c];
            return;
        }
    }
}

/* The tide kick of one system: its `pulling` bodies from slot `start` get v += dt F / m and
 * S += dt dS/dt, the central body's spin star_spin[3] += dt sum dS* / dt, all from the state at
 * the start. Returns the kick's work on the orbits. */
DEVICE_FN double orr_tide_kick_system(GLOBAL const double *RESTRICT f, double m0, double dt,
    u32 start, u32 pulling, u32 n_table, GLOBAL const u64 *RESTRICT ids,
    GLOBAL const double *RESTRICT props, GLOBAL const double *RESTRICT m,
    GLOBAL const double *RESTRICT r, GLOBAL const u64 *RESTRICT id,
    GLOBAL const double *RESTRICT x, GLOBAL const double *RESTRICT y,
    GLOBAL const double *RESTRICT z, GLOBAL double *RESTRICT vx, GLOBAL double *RESTRICT vy,
    GLOBAL double *RESTRICT vz, GLOBAL double *RESTRICT sx, GLOBAL double *RESTRICT sy,
    GLOBAL double *RESTRICT sz, double *star_spin)
{
    double p[3] = {0.0, 0.0, 0.0}, dp[3] = {0.0, 0.0, 0.0}, shift[3], s0[3];
    double work = 0.0;
    u32 k;
    int c;
    for (k = start; k < start + pulling; k++) {
        p[0] += m[k] * vx[k];
        p[1] += m[k] * vy[k];
        p[2] += m[k] * vz[k];
    }
    for (c = 0; c < 3; c++) {
        shift[c] = p[c] / m0;
        s0[c] = star_spin[c];
    }
    for (k = start; k < start + pulling; k++) {
        double body[4], a[3], ds[3], dss[3], d[3];
        double pos[3] = {x[k], y[k], z[k]};
        double v[3] = {vx[k], vy[k], vz[k]};
        double h[3] = {v[0] + shift[0], v[1] + shift[1], v[2] + shift[2]};
        double spin[3] = {sx[k], sy[k], sz[k]};
        double mk = m[k];
        orr_tidal_body(n_table, ids, props, id[k], body);
        orr_tidal_rates(f, body, m0, mk, r[k], pos, h, spin, s0, a, ds, dss);
        for (c = 0; c < 3; c++)
            d[c] = dt * a[c];
        work += mk * (v[0] * d[0] + v[1] * d[1] + v[2] * d[2])
            + 0.5 * mk * (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        for (c = 0; c < 3; c++) {
            dp[c] += mk * d[c];
            star_spin[c] += dt * dss[c];
        }
        vx[k] += d[0];
        vy[k] += d[1];
        vz[k] += d[2];
        sx[k] += dt * ds[0];
        sy[k] += dt * ds[1];
        sz[k] += dt * ds[2];
    }
    return work
        + (2.0 * (p[0] * dp[0] + p[1] * dp[1] + p[2] * dp[2])
              + (dp[0] * dp[0] + dp[1] * dp[1] + dp[2] * dp[2]))
        / (2.0 * m0);
}

#endif /* ORRERY_TIDES_H */
