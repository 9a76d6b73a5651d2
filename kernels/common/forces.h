/*
 * forces.h — the forces beyond point-mass gravity, per body (README "Forces beyond point
 * masses"): the central body's GR as the Nobili-Roxburgh potential and its J2 (position only,
 * kicked with the interaction kicks), and radiation pressure with Poynting-Robertson drag
 * (Burns, Lamy & Soter 1979, with GENGA's solar-wind factor; a kick pair around the step).
 *
 * Rust twins, operation for operation: `potential_accel`, `potential_energy`, `radiation_accel`,
 * `radiation_dv` and `radiation_system` in src/physics/forces/radiation.rs. Only + - * / and sqrt:
 * bitwise. The constants come from the host in one buffer `f` (`Forces` in the same file):
 * f[0] = 6/c^2 (GR on) or 0, f[1] = J2 R^2, f[2..4] = J2's unit axis, f[5] = the radiation
 * constant S AU^2 pi Qpr / (c Msun) or 0, f[6] = (1 + sw) / c, f[7] = 4 pi rho / 3 of a
 * massless body, f[8] = 1 with the Yarkovsky effect on (else 0), then its constants (SI):
 * f[9] the thermal inertia, f[10] eps sigma, f[11] 1 - A, f[12] rho C, f[13] K, f[14] the
 * solar constant, f[15] 3 / (rho c), then the gas disk's f[16..24] (gas.h), the tides'
 * f[25..31] (tides.h), the gas disk's enhancement limit f[32], its gravity f[33..38] and a
 * tabulated disk f[39..44] (gas.h; their tables follow the constants)
 * (`Forces::device_constants`).
 */
#ifndef ORRERY_FORCES_H
#define ORRERY_FORCES_H

#include "device.h"
#include "sincos.h"
#include "changeover.h"
#include "gas.h"

#define ORR_FORCES_LEN 45
/* Per system of the radiation kick: the heliocentric shift P / M0 and the recoil w. */
#define ORR_RADIATION_SYSTEM_LEN 6
/* Per system of the work tally (`Work` in src/physics/forces/radiation.rs): the radiation's dE and dL
 * (0..3), J2's torque (4..6), the tides' dE (7, CPU only for now). */
#define ORR_WORK_LEN 8
#define ORR_WORK_TORQUE 4

/* Acceleration of GR and J2 at heliocentric (x, y, z) around mu, into a[3]. */
DEVICE_FN void orr_potential_accel(GLOBAL const double *RESTRICT f, double mu, double x,
    double y, double z, double *a)
{
    double r2 = x * x + y * y + z * z;
    double ir2 = 1.0 / r2;
    double g = f[0] * mu * mu * ir2 * ir2;
    if (f[1] == 0.0) {
        /* GR alone (the same bits as the general form with J2 = 0, without its root). */
        a[0] = -g * x;
        a[1] = -g * y;
        a[2] = -g * z;
        return;
    }
    double ir = 1.0 / sqrt(r2);
    double zp = x * f[2] + y * f[3] + z * f[4];
    double k = 1.5 * mu * f[1] * ir2 * ir2 * ir;
    double radial = k * (5.0 * zp * zp * ir2 - 1.0) - g;
    double axial = 2.0 * k * zp;
    a[0] = radial * x - axial * f[2];
    a[1] = radial * y - axial * f[3];
    a[2] = radial * z - axial * f[4];
}

/* The change of orr_potential_accel at x for the change dx of x, into out[3]: its Jacobian times
 * dx, the potential's term of the variational equations (Rust twin `potential_accel_tangent`,
 * which derives it). */
DEVICE_FN void orr_potential_accel_tangent(GLOBAL const double *RESTRICT f, double mu,
    const double *x, const double *dx, double *out)
{
    double r2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
    double ir2 = 1.0 / r2;
    double rho = (x[0] * dx[0] + x[1] * dx[1] + x[2] * dx[2]) * ir2;
    double g = f[0] * mu * mu * ir2 * ir2;
    double dg = -4.0 * g * rho;
    int c;
    if (f[1] == 0.0) {
        for (c = 0; c < 3; c++)
            out[c] = -g * dx[c] - dg * x[c];
        return;
    }
    double ir = 1.0 / sqrt(r2);
    double zp = x[0] * f[2] + x[1] * f[3] + x[2] * f[4];
    double dzp = dx[0] * f[2] + dx[1] * f[3] + dx[2] * f[4];
    double k = 1.5 * mu * f[1] * ir2 * ir2 * ir;
    double dk = -5.0 * k * rho;
    double p = 5.0 * zp * zp * ir2 - 1.0;
    double dp = 10.0 * zp * ir2 * (dzp - zp * rho);
    double radial = k * p - g;
    double d_radial = dk * p + k * dp - dg;
    double d_axial = 2.0 * (dk * zp + k * dzp);
    for (c = 0; c < 3; c++)
        out[c] = d_radial * x[c] + radial * dx[c] - d_axial * f[2 + c];
}

/* Potential energy per unit mass of GR and J2 at (x, y, z). */
DEVICE_FN double orr_potential_energy(GLOBAL const double *RESTRICT f, double mu, double x,
    double y, double z)
{
    double r2 = x * x + y * y + z * z;
    double ir2 = 1.0 / r2;
    double ir = 1.0 / sqrt(r2);
    double zp = x * f[2] + y * f[3] + z * f[4];
    return 0.5 * mu * f[1] * ir2 * ir * (3.0 * zp * zp * ir2 - 1.0) - 0.5 * f[0] * mu * mu * ir2;
}

/* True when GR or J2 is on. */
DEVICE_FN int orr_has_potential(GLOBAL const double *RESTRICT f)
{
    return (f[0] != 0.0) | (f[1] != 0.0);
}

/* J2's torque of one potential kick on a system's `pulling` bodies from slot `start`,
 * sum m x cross (dt a) in slot order, added to l[3]. */
DEVICE_FN void orr_potential_torque(GLOBAL const double *RESTRICT f, double mu, double dt,
    u32 start, u32 pulling, GLOBAL const double *RESTRICT m, GLOBAL const double *RESTRICT x,
    GLOBAL const double *RESTRICT y, GLOBAL const double *RESTRICT z, double *l)
{
    double l0 = 0.0, l1 = 0.0, l2 = 0.0;
    u32 k;
    for (k = start; k < start + pulling; k++) {
        double a[3], d[3];
        orr_potential_accel(f, mu, x[k], y[k], z[k], a);
        d[0] = dt * a[0];
        d[1] = dt * a[1];
        d[2] = dt * a[2];
        l0 += m[k] * (y[k] * d[2] - z[k] * d[1]);
        l1 += m[k] * (z[k] * d[0] - x[k] * d[2]);
        l2 += m[k] * (x[k] * d[1] - y[k] * d[0]);
    }
    l[0] += l0;
    l[1] += l1;
    l[2] += l2;
}

/* The Yarkovsky effect's thresholds (`YARKOVSKY_CIRCULAR`, `YARKOVSKY_X_MAX`) and the units
 * (`units::K_GAUSS`, `units::AU_CM`). */
#define ORR_K_GAUSS 0.01720209895
#define ORR_AU_CM 1.495978707e13
#define ORR_YARKOVSKY_CIRCULAR 1e-8
#define ORR_YARKOVSKY_X_MAX 262144.0

DEVICE_FN void orr_cross(const double *a, const double *b, double *c)
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

DEVICE_FN double orr_dot(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* The thermal response (G cos delta, G sin delta) of a sphere at argument x and lambda
 * (`yarkovsky_response`). */
DEVICE_FN void orr_yarkovsky_response(double x, double lambda, double *gc, double *gs)
{
    x = x < ORR_YARKOVSKY_X_MAX ? x : ORR_YARKOVSKY_X_MAX;
    double l = lambda / (1.0 + lambda);
    orr_sin_cos_t t = orr_sin_cos(x);
    double sx = t.s, cx = t.c;
    double ex = orr_exp_neg(x);
    double x2c = (x - 2.0) * cx;
    double x2s = (x - 2.0) * sx;
    double a = -ex * (x + 2.0) - (x2c - x * sx);
    double b = -ex * x - (x * cx + x2s);
    double c = a + l * (ex * 3.0 * (x + 2.0) + (3.0 * x2c + x * (x - 3.0) * sx));
    double d = b + l * (ex * x * (x + 3.0) - (x * (x - 3.0) * cx - 3.0 * x2s));
    double inv = 1.0 / (c * c + d * d);
    *gc = (a * c + b * d) * inv;
    *gs = (b * c - a * d) * inv;
}

/* The Yarkovsky acceleration (`yarkovsky_accel`) into acc[3]. */
DEVICE_FN void orr_yarkovsky_accel(GLOBAL const double *RESTRICT f, double mu, double mass,
    double s, const double *x, const double *v, const double *spin, double *acc)
{
    int c;
    acc[0] = 0.0;
    acc[1] = 0.0;
    acc[2] = 0.0;
    double inertia = 0.4 * mass * s * s;
    double w[3] = {spin[0] / inertia, spin[1] / inertia, spin[2] / inertia};
    double omega = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    if (!(omega > 0.0))
        return;
    double sh[3] = {w[0] / omega, w[1] / omega, w[2] / omega};
    double r2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
    double ir = 1.0 / sqrt(r2);
    double v2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    double u = x[0] * v[0] + x[1] * v[1] + x[2] * v[2];
    double ia = 2.0 * ir - v2 / mu;
    double h[3], vh[3];
    orr_cross(x, v, h);
    double hn = sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2]);
    orr_cross(v, h, vh);
    double ev[3] = {vh[0] / mu - x[0] * ir, vh[1] / mu - x[1] * ir, vh[2] / mu - x[2] * ir};
    double e2 = ev[0] * ev[0] + ev[1] * ev[1] + ev[2] * ev[2];
    double e = sqrt(e2);
    double a = 1.0 / fabs(ia);
    double unit_s = 86400.0 / ORR_K_GAUSS;
    double au_m = ORR_AU_CM * 1e-2;
    double radius = s * au_m;
    double n = sqrt(mu * fabs(ia) * fabs(ia) * fabs(ia)) / unit_s;
    double nu = omega / unit_s;
    double d = a * (1.0 + 0.5 * e2);
    double flux = f[14] / (d * d);
    double t4 = f[11] * flux / f[10];
    double t = sqrt(sqrt(t4));
    double theta_scale = f[9] / (f[10] * t * t * t);
    double force = f[11] * flux * f[15] / (9.0 * radius);
    /* Diurnal. */
    double xd = 1.4142135623730951 * radius * sqrt(f[12] * nu / f[13]);
    double lambda_d = theta_scale * sqrt(nu) / xd;
    double gc, gs;
    orr_yarkovsky_response(xd, lambda_d, &gc, &gs);
    double wd = force / (1.0 + lambda_d);
    double rs[3], srs[3];
    orr_cross(x, sh, rs);
    for (c = 0; c < 3; c++)
        rs[c] = rs[c] * ir;
    orr_cross(sh, rs, srs);
    for (c = 0; c < 3; c++)
        acc[c] = wd * (gs * rs[c] + gc * srs[c]);
    /* Seasonal, on bound orbits. */
    if (ia > 0.0 && e < 1.0) {
        double xs = 1.4142135623730951 * radius * sqrt(f[12] * n / f[13]);
        double eta = sqrt(1.0 - e2);
        double lambda_s = theta_scale * sqrt(n) / xs * sqrt(sqrt(eta * eta * eta));
        orr_yarkovsky_response(xs, lambda_s, &gc, &gs);
        double e4 = e2 * e2;
        double e6 = e4 * e2;
        double alpha = 1.0 - 0.375 * e2 + 5.0 / 192.0 * e4 - 7.0 / 9216.0 * e6;
        double beta = 1.0 - e2 / 8.0 + e4 / 192.0 - e6 / 9216.0;
        double sp, sq, cm, sm;
        if (e > ORR_YARKOVSKY_CIRCULAR) {
            double hev[3];
            orr_cross(h, ev, hev);
            sp = orr_dot(sh, ev) / e;
            sq = orr_dot(sh, hev) / (e * hn);
            double ecos = 1.0 - ia / ir;
            double esin = u * sqrt(ia / mu);
            orr_sin_cos_t k = orr_sin_cos(esin);
            double ce = ecos / e, se = esin / e;
            cm = ce * k.c + se * k.s;
            sm = se * k.c - ce * k.s;
        } else {
            double q[3];
            orr_cross(h, x, q);
            for (c = 0; c < 3; c++)
                q[c] = q[c] * ir / hn;
            sp = orr_dot(sh, x) * ir;
            sq = orr_dot(sh, q);
            cm = 1.0;
            sm = 0.0;
        }
        double ws = (sp * alpha * (cm * gc - sm * gs) + sq * beta * (sm * gc + cm * gs))
            / (1.0 + lambda_s);
        double fs = force * ws;
        for (c = 0; c < 3; c++)
            acc[c] += fs * sh[c];
    }
    double to_code = unit_s * unit_s / au_m;
    for (c = 0; c < 3; c++)
        acc[c] = acc[c] * to_code;
}

/* Radiation acceleration on a body of mass m and radius s at x with heliocentric velocity v and
 * spin, around m0, for a kick of length dt (the gas drag's mean over it): pressure and
 * Poynting-Robertson drag, plus the gas disk and the Yarkovsky effect when on, added in that
 * order. */
DEVICE_FN void orr_radiation_accel(GLOBAL const double *RESTRICT f, double m0, double dt,
    double m, double s, const double *x, const double *v, const double *spin, double *a)
{
    double mass = m > 0.0 ? m : s * s * s * f[7];
    double r2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
    double ir = 1.0 / sqrt(r2);
    /* Without radiation a body may have neither mass nor radius (0/0): q is 0. */
    double q = f[5] * s * s / (mass * r2);
    q = f[5] == 0.0 ? 0.0 : q;
    double rdot = (x[0] * v[0] + x[1] * v[1] + x[2] * v[2]) * ir;
    double radial = q * (1.0 - f[6] * rdot) * ir;
    double along = q * f[6];
    a[0] = radial * x[0] - along * v[0];
    a[1] = radial * x[1] - along * v[1];
    a[2] = radial * x[2] - along * v[2];
    if (f[ORR_GAS] > 0.0 || f[ORR_GAS + 1] > 0.0) {
        double g[3];
        orr_gas_accel(f, m0, dt, m, mass, s, x, v, g);
        a[0] = a[0] + g[0];
        a[1] = a[1] + g[1];
        a[2] = a[2] + g[2];
    }
    if (f[8] == 0.0)
        return;
    double y[3];
    orr_yarkovsky_accel(f, m0 + mass, mass, s, x, v, spin, y);
    a[0] = a[0] + y[0];
    a[1] = a[1] + y[1];
    a[2] = a[2] + y[2];
}

/* The radiation kick's velocity change of one body, dt (a - w), a at v + shift; sw holds the
 * system's shift (0..2) and w (3..5). */
DEVICE_FN void orr_radiation_dv(GLOBAL const double *RESTRICT f, double m0, double dt,
    const double *sw, double m, double s, const double *x, const double *v, const double *spin,
    double *d)
{
    double h[3], a[3];
    int c;
    for (c = 0; c < 3; c++)
        h[c] = v[c] + sw[c];
    orr_radiation_accel(f, m0, dt, m, s, x, h, spin, a);
    for (c = 0; c < 3; c++)
        d[c] = dt * (a[c] - sw[3 + c]);
}

/* One system's radiation kick constants sw[6] (shift, w) and its work added to work[4]
 * (dE, dLx, dLy, dLz), over its `pulling` bodies from slot `start`, sums in slot order. */
DEVICE_FN void orr_radiation_system(GLOBAL const double *RESTRICT f, double m0, double dt,
    u32 start, u32 pulling, GLOBAL const double *RESTRICT m, GLOBAL const double *RESTRICT r,
    GLOBAL const double *RESTRICT x, GLOBAL const double *RESTRICT y,
    GLOBAL const double *RESTRICT z, GLOBAL const double *RESTRICT vx,
    GLOBAL const double *RESTRICT vy, GLOBAL const double *RESTRICT vz,
    GLOBAL const double *RESTRICT sx, GLOBAL const double *RESTRICT sy,
    GLOBAL const double *RESTRICT sz, double *sw, double *work)
{
    double p[3] = {0.0, 0.0, 0.0}, ma[3] = {0.0, 0.0, 0.0}, dp[3] = {0.0, 0.0, 0.0};
    double mass = 0.0, w0 = 0.0, w1 = 0.0, w2 = 0.0, w3 = 0.0;
    u32 k;
    int c;
    for (k = start; k < start + pulling; k++) {
        p[0] += m[k] * vx[k];
        p[1] += m[k] * vy[k];
        p[2] += m[k] * vz[k];
        mass += m[k];
    }
    for (c = 0; c < 3; c++)
        sw[c] = p[c] / m0;
    for (k = start; k < start + pulling; k++) {
        double pos[3] = {x[k], y[k], z[k]};
        double h[3] = {vx[k] + sw[0], vy[k] + sw[1], vz[k] + sw[2]};
        double spin[3] = {sx[k], sy[k], sz[k]};
        double a[3];
        orr_radiation_accel(f, m0, dt, m[k], r[k], pos, h, spin, a);
        for (c = 0; c < 3; c++)
            ma[c] += m[k] * a[c];
    }
    double mtot = m0 + mass;
    for (c = 0; c < 3; c++)
        sw[3 + c] = ma[c] / mtot;
    for (k = start; k < start + pulling; k++) {
        double pos[3] = {x[k], y[k], z[k]};
        double v[3] = {vx[k], vy[k], vz[k]};
        double spin[3] = {sx[k], sy[k], sz[k]};
        double d[3];
        double mk = m[k];
        orr_radiation_dv(f, m0, dt, sw, mk, r[k], pos, v, spin, d);
        w0 += mk * (v[0] * d[0] + v[1] * d[1] + v[2] * d[2])
            + 0.5 * mk * (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        w1 += mk * (pos[1] * d[2] - pos[2] * d[1]);
        w2 += mk * (pos[2] * d[0] - pos[0] * d[2]);
        w3 += mk * (pos[0] * d[1] - pos[1] * d[0]);
        for (c = 0; c < 3; c++)
            dp[c] += mk * d[c];
    }
    w0 += (2.0 * (p[0] * dp[0] + p[1] * dp[1] + p[2] * dp[2])
              + (dp[0] * dp[0] + dp[1] * dp[1] + dp[2] * dp[2]))
        / (2.0 * m0);
    work[0] += w0;
    work[1] += w1;
    work[2] += w2;
    work[3] += w3;
}

#endif /* ORRERY_FORCES_H */
