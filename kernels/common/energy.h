/*
 * energy.h — the terms of the total energy and angular momentum in democratic heliocentric
 * coordinates (G = 1; GENGA paper eq. 3 with H_C the central body's kinetic energy):
 *   E = sum 1/2 m v^2 + |sum m v|^2 / (2 M0) - sum M0 m / |x| - sum_{i<j} m_i m_j / r_ij,
 *   L = sum m x cross v + spins.
 *
 * Rust twin: `energy_split` in src/physics/energy.rs, term by term. Only + - * / and sqrt:
 * each term is bitwise; the sums over bodies are the caller's (the CPU adds the pair sum of each
 * body i over j > i in ascending j, then every body's terms in index order).
 */
#ifndef ORRERY_ENERGY_H
#define ORRERY_ENERGY_H

#include "device.h"

/* m_j / r_ij with d = x_j - x_i: one term of body i's pair sum (multiplied by m_i at the end). */
DEVICE_FN double orr_pair_potential_term(double m_j, double dx, double dy, double dz)
{
    return m_j / sqrt(dx * dx + dy * dy + dz * dz);
}

/* m_i times body i's pair sum s_i = sum_{j > i} m_j / r_ij. */
DEVICE_FN double orr_pair_potential(double m_i, double s_i)
{
    return m_i * s_i;
}

/* 1/2 m v^2. */
DEVICE_FN double orr_kinetic_term(double m, double vx, double vy, double vz)
{
    return 0.5 * m * (vx * vx + vy * vy + vz * vz);
}

/* M0 m / |x|, the central potential of one body (subtracted with its pair potential: the CPU
 * adds `central + pair` before subtracting it from the potential). */
DEVICE_FN double orr_central_potential_term(double m0, double m, double x, double y, double z)
{
    return m0 * m / sqrt(x * x + y * y + z * z);
}

/* |P|^2 / (2 M0), the central body's kinetic energy from the total momentum P = sum m v. */
DEVICE_FN double orr_central_kinetic(double m0, double px, double py, double pz)
{
    return (px * px + py * py + pz * pz) / (2.0 * m0);
}

/* Component c (0, 1, 2) of m x cross v plus the spin component s_c. */
DEVICE_FN double orr_angular_momentum_term(int c, double m, double x, double y, double z,
    double vx, double vy, double vz, double s_c)
{
    if (c == 0)
        return m * (y * vz - z * vy) + s_c;
    if (c == 1)
        return m * (z * vx - x * vz) + s_c;
    return m * (x * vy - y * vx) + s_c;
}

#endif /* ORRERY_ENERGY_H */
