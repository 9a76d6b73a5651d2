/*
 * hermite.h — the close-encounter search's minimum separation of a pair over one drift, from
 * the cubic Hermite interpolation of the squared separation (GENGA paper section 2.2, eqs 10-12,
 * after Chambers 1999).
 *
 * Rust twin: one lane of `min_separation_sq_lanes` in src/physics/encounter.rs (what the CPU
 * backend's encounter search calls; its value is bitwise that of `min_separation_sq`). Only
 * + - * /, sqrt, comparisons and the sign of b: bitwise.
 */
#ifndef ORRERY_HERMITE_H
#define ORRERY_HERMITE_H

#include "device.h"
#include "lanes.h"

DEVICE_FN double orr_dot3(double ax, double ay, double az, double bx, double by, double bz)
{
    return ax * bx + ay * by + az * bz;
}

/* hermite: the interpolant of eq. 10 at t. */
DEVICE_FN double orr_hermite(double p0, double p1, double tpd0, double tpd1, double t)
{
    double s = 1.0 - t;
    return s * s * (1.0 + 2.0 * t) * p0 + t * t * (3.0 - 2.0 * t) * p1 + t * s * s * tpd0
        - t * t * s * tpd1;
}

/* Minimum of P(t) = |dr|^2 over t in [0, 1] for a step of length tau (either sign): the end
 * points and the roots of eq. 11 inside the step, clamped at 0. dr0, dv0 at the start of the
 * drift, dr1, dv1 at its end, as 3-vectors. */
DEVICE_FN double orr_min_separation_sq(const double dr0[3], const double dv0[3],
    const double dr1[3], const double dv1[3], double tau)
{
    double p0 = orr_dot3(dr0[0], dr0[1], dr0[2], dr0[0], dr0[1], dr0[2]);
    double p1 = orr_dot3(dr1[0], dr1[1], dr1[2], dr1[0], dr1[1], dr1[2]);
    double tpd0 = 2.0 * tau * orr_dot3(dr0[0], dr0[1], dr0[2], dv0[0], dv0[1], dv0[2]);
    double tpd1 = 2.0 * tau * orr_dot3(dr1[0], dr1[1], dr1[2], dv1[0], dv1[1], dv1[2]);
    double best = p1 < p0 ? p1 : p0;
    double a = 6.0 * (p0 - p1) + 3.0 * (tpd0 + tpd1);
    double b = 6.0 * (p1 - p0) - 2.0 * (2.0 * tpd0 + tpd1);
    double c = tpd0;
    double disc = b * b - 4.0 * a * c;
    int real = disc >= 0.0 && orr_is_finite(disc);
    double q = -0.5 * (b + orr_signum(b) * sqrt(disc));
    /* A root that does not exist is NaN in the Rust twin, which is never inside (0, 1). */
    if (real && a != 0.0) {
        double t = q / a;
        double p = orr_hermite(p0, p1, tpd0, tpd1, t);
        best = (t > 0.0 && t < 1.0 && p < best) ? p : best;
    }
    if (real && q != 0.0) {
        double t = c / q;
        double p = orr_hermite(p0, p1, tpd0, tpd1, t);
        best = (t > 0.0 && t < 1.0 && p < best) ? p : best;
    }
    return orr_max(best, 0.0);
}

#endif /* ORRERY_HERMITE_H */
