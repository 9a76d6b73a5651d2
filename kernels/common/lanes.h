/*
 * lanes.h — the single-lane operations of src/simd/lanes.rs (`impl Lanes for f64`) and the
 * few f64 methods of Rust's std the device math uses, with the same IEEE semantics.
 *
 * Only exact operations: comparisons, fabs, round (ties away from zero, as f64::round),
 * floor, and copysign (a sign-bit operation, exact on every target and in all three languages).
 * round_ties_even is built from round, so no target needs rint or a rounding mode.
 */
#ifndef ORRERY_LANES_H
#define ORRERY_LANES_H

#include "device.h"

/* +infinity (f64::INFINITY); HUGE_VAL is a double constant in C99, OpenCL C and CUDA. */
#define ORR_INF HUGE_VAL
/* f64::EPSILON = 2^-52. */
#define ORR_EPSILON 2.220446049250313e-16
/* std::f64::consts::TAU. */
#define ORR_TAU 6.283185307179586

/* f64::is_finite and Lanes::is_finite: |x| < inf (false for NaN). */
DEVICE_FN int orr_is_finite(double x)
{
    return fabs(x) < ORR_INF;
}

/* f64::is_nan. */
DEVICE_FN int orr_is_nan(double x)
{
    return x != x;
}

/* Lanes::max: `a` if a > b, else `b` (so `b` for a NaN `a`). */
DEVICE_FN double orr_lanes_max(double a, double b)
{
    return a > b ? a : b;
}

/* f64::max (IEEE maxNum): the other operand when one is NaN, else the larger. Rust leaves the
 * sign of max(+0, -0) unspecified; x86-64 code (maxsd/maxpd with the NaN fix-up) returns the
 * first operand on a tie, and so does this. */
DEVICE_FN double orr_max(double a, double b)
{
    if (orr_is_nan(a))
        return b;
    if (orr_is_nan(b))
        return a;
    return a < b ? b : a;
}

/* The smaller of two counts. */
DEVICE_FN u32 orr_min_u32(u32 a, u32 b)
{
    return a < b ? a : b;
}

/* f64::min (IEEE minNum), the first operand on a tie like orr_max. */
DEVICE_FN double orr_min(double a, double b)
{
    if (orr_is_nan(a))
        return b;
    if (orr_is_nan(b))
        return a;
    return b < a ? b : a;
}

/* f64::clamp(lo, hi): NaN stays NaN. */
DEVICE_FN double orr_clamp(double x, double lo, double hi)
{
    if (x < lo)
        x = lo;
    if (x > hi)
        x = hi;
    return x;
}

/* f64::signum: +-1 with the sign bit of x (so -1 for -0), NaN for NaN. */
DEVICE_FN double orr_signum(double x)
{
    return orr_is_nan(x) ? x : copysign(1.0, x);
}

/* f64::round_ties_even from round (ties away from zero): at an exact tie x = k + 1/2 the even
 * neighbour is 2 round(x/2) (x/2 = k/2 + 1/4 is exact and not a tie). r - x is exact: both lie
 * within 1/2 of each other and x has no bits below 1/2 ulp of r. NaN and infinities give
 * round(x). */
DEVICE_FN double orr_round_ties_even(double x)
{
    double r = round(x);
    return fabs(r - x) == 0.5 ? 2.0 * round(0.5 * x) : r;
}

#endif /* ORRERY_LANES_H */
