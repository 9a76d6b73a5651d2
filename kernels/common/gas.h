/*
 * gas.h — GENGA's gas disk on a body (README "Gas disk"): aerodynamic drag and type-I tidal
 * damping and migration in a power-law disk, added to the radiation kick's acceleration
 * (forces.h).
 *
 * Rust twins, operation for operation: `ln`, `exp_of`, `gas_accel` and `type_one` in
 * src/physics/gas/mod.rs (the formulas are in its module docs). Only + - * /, sqrt, fabs and bit
 * moves (orr_exp_neg of changeover.h for the exponentials): bitwise. The constants are
 * f[16..24] of the forces buffer: the mass limits of the drag and of the damping (0 off,
 * infinity every body), the surface density at 1 AU now (Msun/AU^2), alpha, beta,
 * alpha + 2 - beta, 2.7 + 1.1 alpha, the inner and the outer edge (`Forces::device_constants`);
 * f[32] the enhancement's mass limit; the disk's gravity (src/physics/gas/gravity.rs): f[33]
 * its mass limit, f[34] the dissipation's factor exp(-t/tau), f[35..38] the table's rows, first
 * radius, radial spacing and spacing in asinh(z/H), and the table itself from f[ORR_FORCES_LEN]
 * on ((a_r, a_z) per node, ORR_GAS_HEIGHTS nodes per row); a tabulated disk
 * (src/physics/gas/profile.rs): f[39] its number of radii (0: none), f[40] ln of the first,
 * f[41] the spacing in ln r, f[42] the time block now, f[43] the fraction of the way to the
 * next, f[44] where its radii start in f (its values follow them).
 */
#ifndef ORRERY_GAS_H
#define ORRERY_GAS_H

#include "device.h"
#include "changeover.h"

#define ORR_GAS 16
#define ORR_GAS_H1 0.03358
#define ORR_GAS_CD 2.0
#define ORR_SQRT_2PI 2.5066282746310005

/* ln x for a positive normal x (Rust `gas::ln`). */
DEVICE_FN double orr_ln(double x)
{
    const double ln2_hi = 6.931471803691238e-1;
    const double ln2_lo = 1.9082149292705877e-10;
    const double c[10] = {1.0 / 21.0, 1.0 / 19.0, 1.0 / 17.0, 1.0 / 15.0, 1.0 / 13.0,
        1.0 / 11.0, 1.0 / 9.0, 1.0 / 7.0, 1.0 / 5.0, 1.0 / 3.0};
    u64 bits = ORR_F64_TO_BITS(x);
    long exponent = (long)((bits >> 52) & 0x7ff) - 1023;
    double mantissa = ORR_F64_FROM_BITS((bits & 0x000fffffffffffffUL) | 0x3ff0000000000000UL);
    double m, k;
    if (mantissa > 1.4142135623730951) {
        m = 0.5 * mantissa;
        k = (double)(exponent + 1);
    } else {
        m = mantissa;
        k = (double)exponent;
    }
    double s = (m - 1.0) / (m + 1.0);
    double z = s * s;
    double p = c[0];
    int i;
    for (i = 1; i < 10; i++)
        p = p * z + c[i];
    p = p * z + 1.0;
    return k * ln2_hi + (k * ln2_lo + 2.0 * s * p);
}

/* e^u of either sign (Rust `gas::exp_of`). */
DEVICE_FN double orr_exp_of(double u)
{
    if (u <= 0.0)
        return orr_exp_neg(-u);
    return 1.0 / orr_exp_neg(u);
}

#define ORR_GAS_HEIGHTS 64
#define ORR_GAS_TABLE 45 /* = ORR_FORCES_LEN: the gravity table follows the constants */

/* erf x for x >= 0 to 1.5e-7, Abramowitz & Stegun 7.1.26 (Rust `gravity::erf`). */
DEVICE_FN double orr_erf(double x)
{
    double t = 1.0 / (1.0 + 0.3275911 * x);
    double p = ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t
        + 0.254829592) * t;
    return 1.0 - p * orr_exp_neg(x * x);
}

/* The disk's pull (a_r, a_z) at cylindrical radius r1 and height z, where the scale height is
 * h and the surface density now sigma (Rust `gravity::disk_pull`). */
DEVICE_FN void orr_gas_disk_pull(GLOBAL const double *RESTRICT f, double r1, double z, double h,
    double sigma, double *ar, double *az)
{
    double last = f[35] - 1.0;
    double u = (r1 - f[36]) / f[37];
    double zeta = fabs(z) / h;
    if (u >= last) {
        *ar = -2.0 * 3.141592653589793 * sigma;
        *az = *ar * orr_erf(zeta * 0.7071067811865476);
    } else {
        double i = orr_min(orr_max(floor(u), 0.0), last - 1.0);
        double fr = u - i;
        double top = (double)(ORR_GAS_HEIGHTS - 1);
        double s = orr_min(orr_ln(zeta + sqrt(zeta * zeta + 1.0)) / f[38], top);
        double j = orr_min(orr_max(floor(s), 0.0), top - 1.0);
        double fs = s - j;
        const GLOBAL double *v = f + ORR_GAS_TABLE + 2 * ((long)i * ORR_GAS_HEIGHTS + (long)j);
        const int row = 2 * ORR_GAS_HEIGHTS;
        *ar = ((1.0 - fr) * ((1.0 - fs) * v[0] + fs * v[2])
                  + fr * ((1.0 - fs) * v[row] + fs * v[row + 2]))
            * f[34];
        *az = ((1.0 - fr) * ((1.0 - fs) * v[1] + fs * v[3])
                  + fr * ((1.0 - fs) * v[row + 1] + fs * v[row + 3]))
            * f[34];
    }
    if (z < 0.0)
        *az = -*az;
}

/* Sigma and H of the tabulated disk at cylindrical radius r1 (lr = ln r1) now (Rust
 * `gas_profile::profile_at`). */
DEVICE_FN void orr_gas_profile(GLOBAL const double *RESTRICT f, double r1, double lr,
    double *sigma, double *h)
{
    double n = f[39];
    double i = orr_min(orr_max(floor((lr - f[40]) / f[41]), 0.0), n - 2.0);
    long ii = (long)i, nn = (long)n;
    const GLOBAL double *radii = f + (long)f[44];
    const GLOBAL double *v = radii + nn;
    double ra = radii[ii], rb = radii[ii + 1];
    double tr = (r1 - ra) / (rb - ra);
    long b0 = 2 * ((long)f[42] * nn + ii);
    long b1 = b0 + 2 * nn;
    double s0 = (v[b0 + 2] - v[b0]) * tr + v[b0];
    double h0 = (v[b0 + 3] - v[b0 + 1]) * tr + v[b0 + 1];
    double s1 = (v[b1 + 2] - v[b1]) * tr + v[b1];
    double h1 = (v[b1 + 3] - v[b1 + 1]) * tr + v[b1 + 1];
    *sigma = (s1 - s0) * f[43] + s0;
    *h = ((h1 - h0) * f[43] + h0) * r1;
}

/* Type-I damping and migration in cylindrical components (a_r, a_theta, a_z) into d[3], with
 * the cylindrical radius r1 and the Kepler speed vk there (Rust `gas::type_one`). */
DEVICE_FN void orr_gas_type_one(GLOBAL const double *RESTRICT f, double m0, double m,
    double sigma, double h, double r1, double vk, const double *x, const double *v, double *d)
{
    double mu = m0 + m;
    double r = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    double v2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    double energy = 0.5 * v2 - mu / r;
    d[0] = 0.0;
    d[1] = 0.0;
    d[2] = 0.0;
    if (energy >= 0.0)
        return;
    double semi = -mu / (2.0 * energy);
    double l0 = x[1] * v[2] - x[2] * v[1];
    double l1 = x[2] * v[0] - x[0] * v[2];
    double l2z = x[0] * v[1] - x[1] * v[0];
    double l2 = l0 * l0 + l1 * l1 + l2z * l2z;
    double e2 = 1.0 + 2.0 * energy * l2 / (mu * mu);
    e2 = e2 > 0.0 ? e2 : 0.0;
    double sin2i = 0.0;
    if (l2 > 0.0) {
        sin2i = 1.0 - l2z * l2z / l2;
        sin2i = sin2i > 0.0 ? sin2i : 0.0;
    }
    double chi = 0.5 * semi * sqrt(e2 + sin2i) / h;
    double ir1 = 1.0 / r1;
    double omega = vk * ir1;
    double hr = r1 / h;
    double base = m / m0 * (sigma * (r1 * r1) / m0) * (hr * hr) * omega;
    double chi2 = chi * chi;
    double chi4 = chi2 * chi2;
    double inv_wave = base * (hr * hr) / (1.0 + 0.25 * chi2 * chi);
    double inv_tau_a = f[ORR_GAS + 6] * (1.0 - 0.683 * chi4) / (1.0 + 0.269329 * chi4 * chi) * base;
    double vr = (v[0] * x[0] + v[1] * x[1]) * ir1;
    double vt = (v[1] * x[0] - v[0] * x[1]) * ir1;
    double dvt = vt - vk;
    d[0] = (0.104 * dvt + 0.176 * vr) * inv_wave;
    d[1] = -0.5 * vk * inv_tau_a + (-1.736 * dvt + 0.325 * vr) * inv_wave;
    d[2] = (-1.088 * v[2] - 0.871 * omega * x[2]) * inv_wave;
}

/* The gas disk's acceleration on a body of mass m (mass: the mass its drag takes) and radius s
 * at heliocentric x with heliocentric velocity v around m0, as the mean over a kick of length dt
 * (the drag exact for its quadratic law with the gas held), into a[3] (Rust `gas_accel`). */
#define ORR_GAS_M_ENHANCE (5.98 / 1.98 * 1e-8)
#define ORR_GAS_MASS_PL 0.502e-14
#define ORR_GAS_F_MASS_MIN 7.55e-9
#define ORR_GAS_M_SMALL 1e-14

/* GENGA's enhancement of super-particles (gas.rs `enhanced`): m, mass and s in place. f[32] is
 * the flag's mass limit. */
DEVICE_FN void orr_gas_enhanced(GLOBAL const double *RESTRICT f, double *m, double *mass,
    double *s)
{
    double mm = *m;
    if (!(mm < f[32] && mm > ORR_GAS_M_SMALL && mm < ORR_GAS_M_ENHANCE))
        return;
    double p = orr_ln(mm / ORR_GAS_F_MASS_MIN) / orr_ln(ORR_GAS_M_ENHANCE / ORR_GAS_F_MASS_MIN);
    double m_eff = ORR_GAS_MASS_PL * orr_exp_of(p * orr_ln(ORR_GAS_M_ENHANCE / ORR_GAS_MASS_PL));
    *s = *s * orr_exp_of(orr_ln(m_eff / mm) / 3.0);
    *m = m_eff;
    *mass = m_eff;
}

DEVICE_FN void orr_gas_accel(GLOBAL const double *RESTRICT f, double m0, double dt, double m,
    double mass, double s, const double *x, const double *v, double *a)
{
    const GLOBAL double *g = f + ORR_GAS;
    int drag = m < g[0] && s > 0.0;
    int damp = m > 0.0 && m < g[1];
    int pot = m < f[33];
    double r1sq = x[0] * x[0] + x[1] * x[1];
    double r1 = sqrt(r1sq);
    int inside = r1 > g[7] && r1 < g[8] && fabs(x[2]) < 1.5 * r1;
    a[0] = 0.0;
    a[1] = 0.0;
    a[2] = 0.0;
    if (!((drag || damp || pot) && inside))
        return;
    orr_gas_enhanced(f, &m, &mass, &s);
    double lr = orr_ln(r1);
    double h, sigma;
    if (f[39] > 0.0) {
        orr_gas_profile(f, r1, lr, &sigma, &h);
    } else {
        sigma = g[2] * orr_exp_of(-g[3] * lr);
        h = ORR_GAS_H1 * r1 * orr_exp_of(g[4] * lr);
    }
    double ir1 = 1.0 / r1;
    double ar = 0.0, az = 0.0;
    if (pot)
        orr_gas_disk_pull(f, r1, x[2], h, sigma, &ar, &az);
    double vk = sqrt(m0 * ir1 - ar * r1);
    double er0 = x[0] * ir1, er1 = x[1] * ir1;
    double et0 = -x[1] * ir1, et1 = x[0] * ir1;
    if (drag) {
        double z = x[2];
        double eta = 0.5 * (g[5] * h * h + 0.5 * z * z) * (ir1 * ir1);
        double vgas = vk * (1.0 - eta);
        double rho = sigma / (ORR_SQRT_2PI * h) * orr_exp_neg(z * z / (2.0 * h * h));
        double w0 = v[0] - vgas * et0, w1 = v[1] - vgas * et1, w2 = v[2];
        double speed = sqrt(w0 * w0 + w1 * w1 + w2 * w2);
        double k = ORR_GAS_CD * 3.141592653589793 * s * s * rho / (2.0 * mass) * speed;
        k = k / (1.0 + k * fabs(dt));
        a[0] = a[0] - k * w0;
        a[1] = a[1] - k * w1;
        a[2] = a[2] - k * w2;
    }
    if (damp) {
        double d[3];
        orr_gas_type_one(f, m0, m, sigma, h, r1, vk, x, v, d);
        a[0] = a[0] + (d[0] * er0 + d[1] * et0);
        a[1] = a[1] + (d[0] * er1 + d[1] * et1);
        a[2] = a[2] + d[2];
    }
    if (pot) {
        a[0] = a[0] + ar * er0;
        a[1] = a[1] + ar * er1;
        a[2] = a[2] + az;
    }
}

#endif
