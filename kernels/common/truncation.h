/*
 * truncation.h — the first look of the inner truncation within the step: is the perihelion
 * distance q of a body's Kepler orbit around M0 below the inner truncation radius R?
 *
 * Rust twins: `inside_perihelion` and `may_have_grazed` in src/physics/truncation.rs (the host then decides with the
 * orbit's anomaly, `ejection_of`). Only + - * and comparisons: bitwise.
 */
#ifndef ORRERY_TRUNCATION_H
#define ORRERY_TRUNCATION_H

#include "device.h"

/* q < R for any conic, without a root or a division: with p = |r x v|^2 / mu,
 * q = p / (1 + e) < R iff p < R, or A = (p/R - 1)^2 - 1 - p v^2/mu < 0 and r^2 A^2 > 4 p^2. */
DEVICE_FN int orr_inside_perihelion(double inv_mu, double inv_radius, double radius, double x,
    double y, double z, double vx, double vy, double vz)
{
    double hx = y * vz - z * vy;
    double hy = z * vx - x * vz;
    double hz = x * vy - y * vx;
    double p = (hx * hx + hy * hy + hz * hz) * inv_mu;
    double r2 = x * x + y * y + z * z;
    double v2 = vx * vx + vy * vy + vz * vz;
    double k = p * inv_radius - 1.0;
    double a = k * k - 1.0 - p * v2 * inv_mu;
    return (p < radius) | ((a < 0.0) & (r2 * (a * a) > 4.0 * (p * p)));
}

/* may_have_grazed: orr_inside_perihelion, and the body moving outward (r.v >= 0) or on an orbit
 * of period below two steps (r^2 (short_alpha + v^2/mu)^2 < 4, short_alpha from the host). */
DEVICE_FN int orr_may_have_grazed(double inv_mu, double inv_radius, double radius,
    double short_alpha, double x, double y, double z, double vx, double vy, double vz)
{
    double u = x * vx + y * vy + z * vz;
    double r2 = x * x + y * y + z * z;
    double v2 = vx * vx + vy * vy + vz * vz;
    double s = short_alpha + v2 * inv_mu;
    int moving_or_short = (u >= 0.0) | (r2 * (s * s) < 4.0);
    return moving_or_short
        & orr_inside_perihelion(inv_mu, inv_radius, radius, x, y, z, vx, vy, vz);
}

#endif /* ORRERY_TRUNCATION_H */
