/*
 * hybrid.cl — entry points of the hybrid step's per-body passes (GENGA paper section 3.2:
 * the Kick, HC and FG kernels, and the critical radii of eq. 6). Written once for every target:
 * only names from common/device.h, and all arithmetic in the common/ headers or in the few lines here
 * that mirror the CPU reference pass by pass (src/backend/cpu), so that the results are the
 * CPU's bits (kernels/README.md, parity policy).
 *
 * Layout (see src/model/layout.rs): systems stored back to back in blocks of `block` slots;
 * system s uses slots s*block .. s*block + sys_len[s] (0 for a stopped system), the first
 * sys_massive[s] massive. Per-slot maps uploaded by the host: live_mu (the system's central mass
 * for an occupied slot of an active system, else 0), inv_mu (1 / live_mu, or 0), n1, n2_tau
 * (n2 times the step), hill (the Hill factor (m / 3 M0)^(1/3) of massive slots, computed on the
 * host where the cube root is the CPU's own).
 *
 * The status words are those of common/status.h.
 */
#include "common/device.h"
#include "common/changeover.h"
#include "common/kepler.h"
#include "common/status.h"

/* v += dt (far + near), for the `n` slots of one system (every slot occupied) or for every slot
 * of many systems (live_mu > 0 marks the occupied ones: the CPU adds 0 to the others). */
KERNEL void orr_kick(u32 n, u32 many, double dt, GLOBAL const double *RESTRICT live_mu,
    GLOBAL const double *RESTRICT fx, GLOBAL const double *RESTRICT fy,
    GLOBAL const double *RESTRICT fz, GLOBAL const double *RESTRICT nx,
    GLOBAL const double *RESTRICT ny, GLOBAL const double *RESTRICT nz,
    GLOBAL double *RESTRICT vx, GLOBAL double *RESTRICT vy, GLOBAL double *RESTRICT vz)
{
    u32 i = GLOBAL_ID;
    if (i >= n)
        return;
    double dx = dt * (fx[i] + nx[i]);
    double dy = dt * (fy[i] + ny[i]);
    double dz = dt * (fz[i] + nz[i]);
    if (many && !(live_mu[i] > 0.0)) {
        dx = 0.0;
        dy = 0.0;
        dz = 0.0;
    }
    vx[i] += dx;
    vy[i] += dy;
    vz[i] += dz;
}

/* H_C, first half: the shift (dt / M0) P of every system, P the momentum of its pulling bodies
 * summed in slot order (one work-item per system, the CPU's order). */
KERNEL void orr_sun_shift(u32 systems, u32 block, double dt, GLOBAL const u32 *RESTRICT sys_len,
    GLOBAL const u32 *RESTRICT sys_pulling, GLOBAL const double *RESTRICT sys_m0,
    GLOBAL const double *RESTRICT m, GLOBAL const double *RESTRICT vx,
    GLOBAL const double *RESTRICT vy, GLOBAL const double *RESTRICT vz,
    GLOBAL double *RESTRICT shift)
{
    u32 s = GLOBAL_ID;
    if (s >= systems)
        return;
    u32 start = s * block;
    double px = 0.0, py = 0.0, pz = 0.0;
    for (u32 k = start; k < start + sys_pulling[s]; k++) {
        px += m[k] * vx[k];
        py += m[k] * vy[k];
        pz += m[k] * vz[k];
    }
    double f = dt / sys_m0[s];
    shift[3 * s] = f * px;
    shift[3 * s + 1] = f * py;
    shift[3 * s + 2] = f * pz;
    (void)sys_len;
}

/* H_C, second half: x += shift of the slot's system, for the occupied slots. */
KERNEL void orr_sun_move(u32 slots, u32 block, GLOBAL const u32 *RESTRICT sys_len,
    GLOBAL const double *RESTRICT shift, GLOBAL double *RESTRICT x, GLOBAL double *RESTRICT y,
    GLOBAL double *RESTRICT z)
{
    u32 i = GLOBAL_ID;
    if (i >= slots)
        return;
    u32 s = i / block;
    if (i - s * block >= sys_len[s])
        return;
    x[i] += shift[3 * s];
    y[i] += shift[3 * s + 1];
    z[i] += shift[3 * s + 2];
}

/* Kepler drift of every occupied slot around its system's central mass (kepler.h); a failing
 * body keeps its state and its slot is reported (the lowest, as the CPU reports). */
KERNEL void orr_drift(u32 slots, double dt, GLOBAL const double *RESTRICT live_mu,
    GLOBAL const double *RESTRICT inv_mu, GLOBAL double *RESTRICT x, GLOBAL double *RESTRICT y,
    GLOBAL double *RESTRICT z, GLOBAL double *RESTRICT vx, GLOBAL double *RESTRICT vy,
    GLOBAL double *RESTRICT vz, GLOBAL u32 *RESTRICT status)
{
    u32 i = GLOBAL_ID;
    if (i >= slots || !(live_mu[i] > 0.0))
        return;
    orr_phase_t st;
    st.x[0] = x[i];
    st.x[1] = y[i];
    st.x[2] = z[i];
    st.v[0] = vx[i];
    st.v[1] = vy[i];
    st.v[2] = vz[i];
    orr_drift_t out = orr_drift_body(live_mu[i], inv_mu[i], dt, st);
    if (out.err != ORR_KEPLER_OK) {
        ATOMIC_MIN_U32(&status[ORR_STATUS_DRIFT_FAILED], i);
        return;
    }
    x[i] = out.s.x[0];
    y[i] = out.s.x[1];
    z[i] = out.s.x[2];
    vx[i] = out.s.v[0];
    vy[i] = out.s.v[1];
    vz[i] = out.s.v[2];
}

/* Critical radii (eq. 6) of the occupied slots, adopted at once for the stored accelerations
 * (rcrit_kick and its inverse), with the precheck-margin test against the old rcrit_kick. A
 * test particle has no Hill sphere of its own; empty slots keep their radii. */
KERNEL void orr_critical_radii(u32 slots, u32 block, GLOBAL const u32 *RESTRICT sys_len,
    GLOBAL const u32 *RESTRICT sys_massive, GLOBAL const double *RESTRICT n1,
    GLOBAL const double *RESTRICT n2_tau, GLOBAL const double *RESTRICT hill,
    GLOBAL const double *RESTRICT x, GLOBAL const double *RESTRICT y,
    GLOBAL const double *RESTRICT z, GLOBAL const double *RESTRICT vx,
    GLOBAL const double *RESTRICT vy, GLOBAL const double *RESTRICT vz,
    GLOBAL double *RESTRICT rcrit, GLOBAL double *RESTRICT rcrit_kick,
    GLOBAL double *RESTRICT inv_rcrit_kick, GLOBAL u32 *RESTRICT status)
{
    u32 i = GLOBAL_ID;
    if (i >= slots)
        return;
    u32 s = i / block;
    u32 k = i - s * block;
    if (k >= sys_len[s])
        return;
    double r = k < sys_massive[s]
        ? orr_critical_radius(n1[i], n2_tau[i], hill[i], x[i], y[i], z[i], vx[i], vy[i], vz[i])
        : orr_critical_radius_test_particle(n2_tau[i], vx[i], vy[i], vz[i]);
    if (r > ORR_PRECHECK_FACTOR * rcrit_kick[i])
        ATOMIC_ADD_U32(&status[ORR_STATUS_RADII_GREW], 1u);
    rcrit[i] = r;
    rcrit_kick[i] = r;
    inv_rcrit_kick[i] = 1.0 / r;
}
