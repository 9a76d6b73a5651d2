/*
 * canary.cl — fails loudly (through tests/opencl.rs) when a device build contracts a*b+c into a
 * fused multiply-add, which would break bitwise parity with the CPU backend.
 *
 * With a = 1 + 2^-30, b = 1 - 2^-30, c = -1:
 *   exact a*b            = 1 - 2^-60
 *   rounded a*b          = 1              (2^-60 is far below half an ulp of 1, 2^-53)
 *   rounded(a*b) + c     = 0              <- what Orrery requires (two roundings)
 *   fma(a, b, c)         = -2^-60 = -8.673617379884035e-19   (one rounding of the exact value)
 * With a = 0.1, b = 10, c = -1: separately 0, fused 2^-54 = 5.551115123125783e-17.
 *
 * The inputs come from buffers, so the compiler cannot fold them at build time.
 */
#include "common/device.h"

KERNEL void canary(GLOBAL const double *RESTRICT a, GLOBAL const double *RESTRICT b,
                   GLOBAL const double *RESTRICT c, GLOBAL double *RESTRICT out, const u32 n)
{
    const u32 i = GLOBAL_ID;
    if (i < n) {
        out[i] = a[i] * b[i] + c[i];
    }
}
