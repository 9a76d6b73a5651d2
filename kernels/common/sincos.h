/*
 * sincos.h — Orrery's in-house sine and cosine, one lane of `sin_cos`, `sin_cos_kernel`,
 * `sin_cos_lanes` and `two_sum` in src/physics/kepler.rs (the batch Kepler drift's trigonometry).
 *
 * Method (fdlibm, as the Rust twin documents): Cody-Waite reduction x = k pi/2 + r with
 * k = round_ties_even(2x/pi) and pi/2 in three parts (fdlibm's __ieee754_rem_pio2 constants),
 * TwoSum error terms (Knuth), then fdlibm's __kernel_sin / __kernel_cos minimax polynomials on
 * |r| <= pi/4 and the quadrant k mod 4 computed with floor. Only + - * /, floor, round and
 * copysign: bitwise the Rust function on every target. Valid for |x| < 2^19.
 */
#ifndef ORRERY_SINCOS_H
#define ORRERY_SINCOS_H

#include "device.h"
#include "lanes.h"

/* pi/2 in three parts (bit patterns 0x3FF921FB54400000, 0x3DD0B4611A600000, 0x3BA3198A2E037073). */
#define ORR_PIO2_1 1.5707963267341256
#define ORR_PIO2_2 6.077100506303966e-11
#define ORR_PIO2_2T 2.0222662487959506e-21
/* 2/pi (std::f64::consts::FRAC_2_PI). */
#define ORR_INV_PIO2 0.6366197723675814
/* Largest |x| for which the reduction gives k = 0 (kepler.rs SIN_COS_NO_REDUCTION). */
#define ORR_SIN_COS_NO_REDUCTION 0.78

/* fdlibm's __kernel_sin coefficients S1..S6 and __kernel_cos coefficients C1..C6. */
#define ORR_S0 -0.16666666666666632
#define ORR_S1 8.33333333332249e-3
#define ORR_S2 -1.984126982985795e-4
#define ORR_S3 2.7557313707070068e-6
#define ORR_S4 -2.5050760253406863e-8
#define ORR_S5 1.58969099521155e-10
#define ORR_C0 4.16666666666666e-2
#define ORR_C1 -1.388888888887411e-3
#define ORR_C2 2.480158728947673e-5
#define ORR_C3 -2.7557314351390663e-7
#define ORR_C4 2.087572321298175e-9
#define ORR_C5 -1.1359647557788195e-11

/* A sine and a cosine. */
typedef struct {
    double s;
    double c;
    double omc; /* 1 - cos, without cancellation */
} orr_sin_cos_t;

/* A double-double: hi + lo. */
typedef struct {
    double hi;
    double lo;
} orr_two_t;

/* two_sum: a + b = hi + lo exactly (Knuth's TwoSum). */
DEVICE_FN orr_two_t orr_two_sum(double a, double b)
{
    orr_two_t t;
    double bb;
    t.hi = a + b;
    bb = t.hi - a;
    t.lo = (a - (t.hi - bb)) + (b - bb);
    return t;
}

/* sin_cos_kernel: sine, cosine and 1 - cosine of hi + lo for |hi| <= pi/4, |lo| tiny (products
 * and sums fused with fma exactly where the Rust twin uses mul_add). */
DEVICE_FN orr_sin_cos_t orr_sin_cos_kernel(double hi, double lo)
{
    orr_sin_cos_t out;
    double z = hi * hi;
    double zz = z * z;
    double v = z * hi;
    double rs = fma(z * zz, fma(z, ORR_S5, ORR_S4), fma(z, fma(z, ORR_S3, ORR_S2), ORR_S1));
    double rc = fma(zz * zz, fma(z, fma(z, ORR_C5, ORR_C4), ORR_C3),
        z * fma(z, fma(z, ORR_C2, ORR_C1), ORR_C0));
    double hz = 0.5 * z;
    double wc = 1.0 - hz;
    double t = fma(-v, rs, 0.5 * lo);
    out.s = hi - fma(-v, ORR_S0, fma(z, t, -lo));
    double tail = fma(z, rc, -(hi * lo));
    out.c = wc + (((1.0 - wc) - hz) + tail);
    out.omc = hz - tail;
    return out;
}

/* sin_cos_omc of the Rust twin: sine, cosine and 1 - cosine of x, |x| < 2^19 (1 - cos from the
 * kernel's polynomial in the quadrant k mod 4 = 0, as 1 - cos elsewhere). */
DEVICE_FN orr_sin_cos_t orr_sin_cos(double x)
{
    double k = orr_round_ties_even(x * ORR_INV_PIO2);
    double r1 = x - k * ORR_PIO2_1;
    orr_two_t r2 = orr_two_sum(r1, -(k * ORR_PIO2_2));
    double w = k * ORR_PIO2_2T - r2.lo;
    orr_two_t r = orr_two_sum(r2.hi, -w);
    orr_sin_cos_t k_r = orr_sin_cos_kernel(r.hi, r.lo);
    double q = k - 4.0 * floor(0.25 * k);
    int odd = q == 1.0 || q == 3.0;
    orr_sin_cos_t out;
    out.s = odd ? k_r.c : k_r.s;
    out.c = odd ? k_r.s : k_r.c;
    out.s = q >= 2.0 ? -out.s : out.s;
    out.c = (q == 1.0 || q == 2.0) ? -out.c : out.c;
    out.omc = q == 0.0 ? k_r.omc : 1.0 - out.c;
    return out;
}

/* sin_cos_lanes for one lane: without the reduction when |x| <= 0.78 (bitwise the same). */
DEVICE_FN orr_sin_cos_t orr_sin_cos_lane(double x)
{
    if (fabs(x) <= ORR_SIN_COS_NO_REDUCTION)
        return orr_sin_cos_kernel(x + 0.0, 0.0);
    return orr_sin_cos(x);
}

#endif /* ORRERY_SINCOS_H */
