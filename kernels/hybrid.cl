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
 * The status words are those of common/status.h (the encounter and ejection counts are
 * cleared by orr_set_status before their pass).
 */
#include "common/device.h"
#include "common/changeover.h"
#include "common/kepler.h"
#include "common/energy.h"
#include "common/hermite.h"
#include "common/status.h"
#include "common/truncation.h"
#include "common/forces.h"
#include "common/tides.h"

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

/* Work-items per work-group of the passes that give one work-group to each system
 * (orr_sun_shift_group, orr_energy_sums_group), and bodies per tile of their work-group memory:
 * the work-items compute a tile's per-body terms side by side, then the first adds them in
 * slot order, so that the sums are the per-system kernels' (and the CPU's) bits. */
#define ORR_SUM_GROUP 64u
#define ORR_SUM_TILE 256u

/* One tile of momentum terms m v. */
typedef struct {
    double px[ORR_SUM_TILE], py[ORR_SUM_TILE], pz[ORR_SUM_TILE];
} orr_momentum_tile_t;

/* orr_sun_shift with one work-group of ORR_SUM_GROUP work-items per system, for systems of many
 * bodies (main and test-particle modes): the products load and multiply in parallel, the sums
 * stay in slot order. */
KERNEL void orr_sun_shift_group(u32 systems, u32 block, double dt,
    GLOBAL const u32 *RESTRICT sys_pulling, GLOBAL const double *RESTRICT sys_m0,
    GLOBAL const double *RESTRICT m, GLOBAL const double *RESTRICT vx,
    GLOBAL const double *RESTRICT vy, GLOBAL const double *RESTRICT vz,
    GLOBAL double *RESTRICT shift WORKGROUP_ARG(orr_momentum_tile_t, tile))
{
    WORKGROUP_DECL(orr_momentum_tile_t, tile);
    u32 s = GROUP_ID, l = LOCAL_ID;
    if (s >= systems)
        return;
    u32 start = s * block, n = sys_pulling[s];
    double px = 0.0, py = 0.0, pz = 0.0;
    for (u32 base = 0u; base < n; base += ORR_SUM_TILE) {
        u32 count = orr_min_u32(n - base, ORR_SUM_TILE);
        for (u32 t = l; t < count; t += LOCAL_SIZE) {
            u32 k = start + base + t;
            tile->px[t] = m[k] * vx[k];
            tile->py[t] = m[k] * vy[k];
            tile->pz[t] = m[k] * vz[k];
        }
        LOCAL_BARRIER();
        if (l == 0u) {
            for (u32 t = 0u; t < count; t++) {
                px += tile->px[t];
                py += tile->py[t];
                pz += tile->pz[t];
            }
        }
        LOCAL_BARRIER();
    }
    if (l == 0u) {
        double f = dt / sys_m0[s];
        shift[3 * s] = f * px;
        shift[3 * s + 1] = f * py;
        shift[3 * s + 2] = f * pz;
    }
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

/* The potential forces' kick (GR, J2): v += dt a(x) for the occupied slots (the CPU's
 * kick_potential_forces). */
KERNEL void orr_potential_kick(u32 slots, u32 block, double dt, GLOBAL const u32 *RESTRICT sys_len,
    GLOBAL const double *RESTRICT sys_m0, GLOBAL const double *RESTRICT forces,
    GLOBAL const double *RESTRICT x, GLOBAL const double *RESTRICT y,
    GLOBAL const double *RESTRICT z, GLOBAL double *RESTRICT vx, GLOBAL double *RESTRICT vy,
    GLOBAL double *RESTRICT vz)
{
    u32 i = GLOBAL_ID;
    if (i >= slots)
        return;
    u32 s = i / block;
    if (i - s * block >= sys_len[s])
        return;
    double a[3];
    orr_potential_accel(forces, sys_m0[s], x[i], y[i], z[i], a);
    vx[i] += dt * a[0];
    vy[i] += dt * a[1];
    vz[i] += dt * a[2];
}

/* J2's torque of the potential kick, before it: one work-item per system adds
 * orr_potential_torque to work[7 s + 4 ..] (the CPU's kick_potential_forces). */
KERNEL void orr_potential_torque_pass(u32 systems, u32 block, double dt,
    GLOBAL const u32 *RESTRICT sys_len, GLOBAL const u32 *RESTRICT sys_pulling,
    GLOBAL const double *RESTRICT sys_m0, GLOBAL const double *RESTRICT forces,
    GLOBAL const double *RESTRICT m, GLOBAL const double *RESTRICT x,
    GLOBAL const double *RESTRICT y, GLOBAL const double *RESTRICT z,
    GLOBAL double *RESTRICT work)
{
    u32 s = GLOBAL_ID;
    if (s >= systems || sys_len[s] == 0)
        return;
    double l[3] = {0.0, 0.0, 0.0};
    orr_potential_torque(forces, sys_m0[s], dt, s * block, sys_pulling[s], m, x, y, z, l);
    work[ORR_WORK_LEN * s + ORR_WORK_TORQUE] += l[0];
    work[ORR_WORK_LEN * s + ORR_WORK_TORQUE + 1] += l[1];
    work[ORR_WORK_LEN * s + ORR_WORK_TORQUE + 2] += l[2];
}

/* The radiation kick, first half: one work-item per system computes its shift and recoil
 * (radiation[6 s ..]) and adds its work to work[7 s ..] (orr_radiation_system). */
KERNEL void orr_radiation_system_pass(u32 systems, u32 block, double dt,
    GLOBAL const u32 *RESTRICT sys_len, GLOBAL const u32 *RESTRICT sys_pulling,
    GLOBAL const double *RESTRICT sys_m0, GLOBAL const double *RESTRICT forces,
    GLOBAL const double *RESTRICT m, GLOBAL const double *RESTRICT r,
    GLOBAL const double *RESTRICT x, GLOBAL const double *RESTRICT y,
    GLOBAL const double *RESTRICT z, GLOBAL const double *RESTRICT vx,
    GLOBAL const double *RESTRICT vy, GLOBAL const double *RESTRICT vz,
    GLOBAL const double *RESTRICT sx, GLOBAL const double *RESTRICT sy,
    GLOBAL const double *RESTRICT sz, GLOBAL double *RESTRICT radiation,
    GLOBAL double *RESTRICT work)
{
    u32 s = GLOBAL_ID;
    if (s >= systems || sys_len[s] == 0)
        return;
    double sw[ORR_RADIATION_SYSTEM_LEN];
    double w[4] = {0.0, 0.0, 0.0, 0.0};
    int c;
    orr_radiation_system(forces, sys_m0[s], dt, s * block, sys_pulling[s], m, r, x, y, z, vx,
        vy, vz, sx, sy, sz, sw, w);
    for (c = 0; c < ORR_RADIATION_SYSTEM_LEN; c++)
        radiation[ORR_RADIATION_SYSTEM_LEN * s + c] = sw[c];
    for (c = 0; c < 4; c++)
        work[ORR_WORK_LEN * s + c] += w[c];
}

/* The radiation kick, second half: v += dt (a - w) for the occupied slots. */
KERNEL void orr_radiation_kick(u32 slots, u32 block, double dt, GLOBAL const u32 *RESTRICT sys_len,
    GLOBAL const double *RESTRICT sys_m0, GLOBAL const double *RESTRICT forces,
    GLOBAL const double *RESTRICT radiation, GLOBAL const double *RESTRICT m,
    GLOBAL const double *RESTRICT r, GLOBAL const double *RESTRICT x,
    GLOBAL const double *RESTRICT y, GLOBAL const double *RESTRICT z, GLOBAL double *RESTRICT vx,
    GLOBAL double *RESTRICT vy, GLOBAL double *RESTRICT vz, GLOBAL const double *RESTRICT sx,
    GLOBAL const double *RESTRICT sy, GLOBAL const double *RESTRICT sz)
{
    u32 i = GLOBAL_ID;
    if (i >= slots)
        return;
    u32 s = i / block;
    if (i - s * block >= sys_len[s])
        return;
    double sw[ORR_RADIATION_SYSTEM_LEN];
    double pos[3] = {x[i], y[i], z[i]};
    double v[3] = {vx[i], vy[i], vz[i]};
    double spin[3] = {sx[i], sy[i], sz[i]};
    double d[3];
    int c;
    for (c = 0; c < ORR_RADIATION_SYSTEM_LEN; c++)
        sw[c] = radiation[ORR_RADIATION_SYSTEM_LEN * s + c];
    orr_radiation_dv(forces, sys_m0[s], dt, sw, m[i], r[i], pos, v, spin, d);
    vx[i] += d[0];
    vy[i] += d[1];
    vz[i] += d[2];
}

/* The tide kick: one work-item per system kicks its pulling bodies' velocities and spins and
 * its central spin (central_spin[3 s ..]) and adds the work to work[8 s + 7]
 * (orr_tide_kick_system; the CPU's kick_tides). */
KERNEL void orr_tide_kick(u32 systems, u32 block, double dt, u32 n_table,
    GLOBAL const u32 *RESTRICT sys_len, GLOBAL const u32 *RESTRICT sys_pulling,
    GLOBAL const double *RESTRICT sys_m0, GLOBAL const double *RESTRICT forces,
    GLOBAL const u64 *RESTRICT tidal_ids, GLOBAL const double *RESTRICT tidal_props,
    GLOBAL const double *RESTRICT m, GLOBAL const double *RESTRICT r,
    GLOBAL const u64 *RESTRICT id, GLOBAL const double *RESTRICT x,
    GLOBAL const double *RESTRICT y, GLOBAL const double *RESTRICT z, GLOBAL double *RESTRICT vx,
    GLOBAL double *RESTRICT vy, GLOBAL double *RESTRICT vz, GLOBAL double *RESTRICT sx,
    GLOBAL double *RESTRICT sy, GLOBAL double *RESTRICT sz,
    GLOBAL double *RESTRICT central_spin, GLOBAL double *RESTRICT work)
{
    u32 s = GLOBAL_ID;
    if (s >= systems || sys_len[s] == 0)
        return;
    double star[3] = {central_spin[3 * s], central_spin[3 * s + 1], central_spin[3 * s + 2]};
    double w = orr_tide_kick_system(forces, sys_m0[s], dt, s * block, sys_pulling[s], n_table,
        tidal_ids, tidal_props, m, r, id, x, y, z, vx, vy, vz, sx, sy, sz, star);
    central_spin[3 * s] = star[0];
    central_spin[3 * s + 1] = star[1];
    central_spin[3 * s + 2] = star[2];
    work[ORR_WORK_LEN * s + ORR_WORK_TIDES] += w;
}

/* Pre-drift state of slot i (pre[6 i ..] = x, y, z, vx, vy, vz): the encounter search reads
 * those of the candidate bodies. Nothing to save when the candidate list is empty. */
DEVICE_FN void orr_save_state(u32 i, GLOBAL const double *RESTRICT x,
    GLOBAL const double *RESTRICT y, GLOBAL const double *RESTRICT z,
    GLOBAL const double *RESTRICT vx, GLOBAL const double *RESTRICT vy,
    GLOBAL const double *RESTRICT vz, GLOBAL double *RESTRICT pre,
    GLOBAL const u32 *RESTRICT status)
{
    if (status[ORR_STATUS_CANDIDATES] == 0u)
        return;
    pre[6 * i] = x[i];
    pre[6 * i + 1] = y[i];
    pre[6 * i + 2] = z[i];
    pre[6 * i + 3] = vx[i];
    pre[6 * i + 4] = vy[i];
    pre[6 * i + 5] = vz[i];
}

/* Kepler drift of every occupied slot around its system's central mass (kepler.h); a failing
 * body keeps its state and its slot is reported (the lowest, as the CPU reports). With `save`,
 * each slot's pre-drift state is saved first (save-candidates folded into the drift, as in
 * GENGA's FG kernel: x and v are read once). */
KERNEL void orr_drift(u32 slots, double dt, u32 save, GLOBAL double *RESTRICT pre,
    GLOBAL const double *RESTRICT live_mu,
    GLOBAL const double *RESTRICT inv_mu, GLOBAL double *RESTRICT x, GLOBAL double *RESTRICT y,
    GLOBAL double *RESTRICT z, GLOBAL double *RESTRICT vx, GLOBAL double *RESTRICT vy,
    GLOBAL double *RESTRICT vz, GLOBAL u32 *RESTRICT status)
{
    u32 i = GLOBAL_ID;
    if (i >= slots)
        return;
    if (save)
        orr_save_state(i, x, y, z, vx, vy, vz, pre, status);
    if (!(live_mu[i] > 0.0))
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
 * test particle has no Hill sphere of its own; a massive body's radius is at least
 * `rcrit_floor` when that is set (orr_with_floor); empty slots keep their radii. */
KERNEL void orr_critical_radii(u32 slots, u32 block, double rcrit_floor,
    GLOBAL const u32 *RESTRICT sys_len,
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
        ? orr_with_floor(
            orr_critical_radius(n1[i], n2_tau[i], hill[i], x[i], y[i], z[i], vx[i], vy[i], vz[i]),
            rcrit_floor)
        : orr_critical_radius_test_particle(n2_tau[i], vx[i], vy[i], vz[i]);
    if (r > ORR_PRECHECK_FACTOR * rcrit_kick[i])
        ATOMIC_ADD_U32(&status[ORR_STATUS_RADII_GREW], 1u);
    rcrit[i] = r;
    rcrit_kick[i] = r;
    inv_rcrit_kick[i] = 1.0 / r;
}

/* status[slot] = value (one work-item), so that a counter is cleared in queue order without
 * the host waiting. */
KERNEL void orr_set_status(u32 slot, u32 value, GLOBAL u32 *RESTRICT status)
{
    if (GLOBAL_ID == 0)
        status[slot] = value;
}

/* Energy, first half (src/physics/energy.rs, energy_split): for every massive slot i of every
 * system, m_i sum_{j > i} m_j / r_ij over the system's included bodies (sys_pulling: all of
 * them with semi-active test particles, else the massive ones), j ascending. Stopped systems
 * too: the CPU reports their energy as well. */
KERNEL void orr_energy_pairs(u32 slots, u32 block, GLOBAL const u32 *RESTRICT sys_pulling,
    GLOBAL const u32 *RESTRICT sys_massive, GLOBAL const double *RESTRICT m,
    GLOBAL const double *RESTRICT x, GLOBAL const double *RESTRICT y,
    GLOBAL const double *RESTRICT z, GLOBAL double *RESTRICT pair)
{
    u32 i = GLOBAL_ID;
    if (i >= slots)
        return;
    u32 s = i / block;
    u32 start = s * block;
    if (i - start >= sys_massive[s])
        return;
    u32 end = start + sys_pulling[s];
    double acc = 0.0;
    for (u32 j = i + 1; j < end; j++)
        acc += orr_pair_potential_term(m[j], x[j] - x[i], y[j] - y[i], z[j] - z[i]);
    pair[i] = orr_pair_potential(m[i], acc);
}

/* One body's terms of the energy sums (energy_split's order of operations): kinetic, central
 * plus own pair potential (subtracted), angular momentum with the spin, momentum, and the
 * potential forces' energy (with `potential` forces only). */
typedef struct {
    double kinetic, potential, l0, l1, l2, p0, p1, p2, extra;
} orr_energy_terms_t;

DEVICE_FN orr_energy_terms_t orr_energy_terms(u32 k, u32 i, u32 massive, double m0,
    GLOBAL const double *RESTRICT m, GLOBAL const double *RESTRICT x,
    GLOBAL const double *RESTRICT y, GLOBAL const double *RESTRICT z,
    GLOBAL const double *RESTRICT vx, GLOBAL const double *RESTRICT vy,
    GLOBAL const double *RESTRICT vz, GLOBAL const double *RESTRICT sx,
    GLOBAL const double *RESTRICT sy, GLOBAL const double *RESTRICT sz,
    GLOBAL const double *RESTRICT pair, GLOBAL const double *RESTRICT forces)
{
    orr_energy_terms_t t;
    double mi = m[i];
    t.kinetic = orr_kinetic_term(mi, vx[i], vy[i], vz[i]);
    double own = k < massive ? pair[i] : 0.0;
    t.potential = orr_central_potential_term(m0, mi, x[i], y[i], z[i]) + own;
    t.l0 = orr_angular_momentum_term(0, mi, x[i], y[i], z[i], vx[i], vy[i], vz[i], sx[i]);
    t.l1 = orr_angular_momentum_term(1, mi, x[i], y[i], z[i], vx[i], vy[i], vz[i], sy[i]);
    t.l2 = orr_angular_momentum_term(2, mi, x[i], y[i], z[i], vx[i], vy[i], vz[i], sz[i]);
    t.p0 = mi * vx[i];
    t.p1 = mi * vy[i];
    t.p2 = mi * vz[i];
    t.extra = orr_has_potential(forces) ? mi * orr_potential_energy(forces, m0, x[i], y[i], z[i])
                                        : 0.0;
    return t;
}

/* A system's running energy sums, the terms added body by body in slot order. */
typedef struct {
    double kinetic, potential, extra, l0, l1, l2, p0, p1, p2;
} orr_energy_acc_t;

DEVICE_FN void orr_energy_add(orr_energy_acc_t *a, orr_energy_terms_t t)
{
    a->kinetic += t.kinetic;
    a->potential -= t.potential;
    a->l0 += t.l0;
    a->l1 += t.l1;
    a->l2 += t.l2;
    a->p0 += t.p0;
    a->p1 += t.p1;
    a->p2 += t.p2;
    a->extra += t.extra;
}

/* The system's five numbers from its sums: the central body's kinetic energy added, and the
 * potential forces' energy, summed apart, added last (the CPU's energies()). out[5 s ..] =
 * kinetic, potential, Lx, Ly, Lz. */
DEVICE_FN void orr_energy_finish(orr_energy_acc_t a, double m0, GLOBAL const double *RESTRICT forces,
    u32 s, GLOBAL double *RESTRICT out)
{
    a.kinetic += orr_central_kinetic(m0, a.p0, a.p1, a.p2);
    if (orr_has_potential(forces))
        a.potential += a.extra;
    out[5 * s] = a.kinetic;
    out[5 * s + 1] = a.potential;
    out[5 * s + 2] = a.l0;
    out[5 * s + 3] = a.l1;
    out[5 * s + 4] = a.l2;
}

/* Energy, second half: one work-item per system adds every included body's terms in slot
 * order as energy_split does (kinetic, central plus pair potential, angular momentum with the
 * spin, momentum), then the central body's kinetic energy (orr_energy_finish). */
KERNEL void orr_energy_sums(u32 systems, u32 block, GLOBAL const u32 *RESTRICT sys_pulling,
    GLOBAL const u32 *RESTRICT sys_massive, GLOBAL const double *RESTRICT sys_m0,
    GLOBAL const double *RESTRICT m, GLOBAL const double *RESTRICT x,
    GLOBAL const double *RESTRICT y, GLOBAL const double *RESTRICT z,
    GLOBAL const double *RESTRICT vx, GLOBAL const double *RESTRICT vy,
    GLOBAL const double *RESTRICT vz, GLOBAL const double *RESTRICT sx,
    GLOBAL const double *RESTRICT sy, GLOBAL const double *RESTRICT sz,
    GLOBAL const double *RESTRICT pair, GLOBAL const double *RESTRICT forces,
    GLOBAL double *RESTRICT out)
{
    u32 s = GLOBAL_ID;
    if (s >= systems)
        return;
    u32 start = s * block;
    u32 n = sys_pulling[s], massive = sys_massive[s];
    double m0 = sys_m0[s];
    orr_energy_acc_t acc = { 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0 };
    for (u32 k = 0; k < n; k++)
        orr_energy_add(&acc, orr_energy_terms(k, start + k, massive, m0, m, x, y, z, vx, vy, vz,
                                 sx, sy, sz, pair, forces));
    orr_energy_finish(acc, m0, forces, s, out);
}

/* One tile of energy terms. */
typedef struct {
    orr_energy_terms_t t[ORR_SUM_TILE];
} orr_energy_tile_t;

/* orr_energy_sums with one work-group of ORR_SUM_GROUP work-items per system, for systems of
 * many bodies: the terms are computed in parallel, added in slot order by the first work-item. */
KERNEL void orr_energy_sums_group(u32 systems, u32 block, GLOBAL const u32 *RESTRICT sys_pulling,
    GLOBAL const u32 *RESTRICT sys_massive, GLOBAL const double *RESTRICT sys_m0,
    GLOBAL const double *RESTRICT m, GLOBAL const double *RESTRICT x,
    GLOBAL const double *RESTRICT y, GLOBAL const double *RESTRICT z,
    GLOBAL const double *RESTRICT vx, GLOBAL const double *RESTRICT vy,
    GLOBAL const double *RESTRICT vz, GLOBAL const double *RESTRICT sx,
    GLOBAL const double *RESTRICT sy, GLOBAL const double *RESTRICT sz,
    GLOBAL const double *RESTRICT pair, GLOBAL const double *RESTRICT forces,
    GLOBAL double *RESTRICT out WORKGROUP_ARG(orr_energy_tile_t, tile))
{
    WORKGROUP_DECL(orr_energy_tile_t, tile);
    u32 s = GROUP_ID, l = LOCAL_ID;
    if (s >= systems)
        return;
    u32 start = s * block;
    u32 n = sys_pulling[s], massive = sys_massive[s];
    double m0 = sys_m0[s];
    orr_energy_acc_t acc = { 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0 };
    for (u32 base = 0u; base < n; base += ORR_SUM_TILE) {
        u32 count = orr_min_u32(n - base, ORR_SUM_TILE);
        for (u32 t = l; t < count; t += LOCAL_SIZE)
            tile->t[t] = orr_energy_terms(base + t, start + base + t, massive, m0, m, x, y, z,
                vx, vy, vz, sx, sy, sz, pair, forces);
        LOCAL_BARRIER();
        if (l == 0u)
            for (u32 t = 0u; t < count; t++)
                orr_energy_add(&acc, tile->t[t]);
        LOCAL_BARRIER();
    }
    if (l == 0u)
        orr_energy_finish(acc, m0, forces, s, out);
}

/* Save-candidates on its own (when no drift on the device follows it): orr_save_state of every
 * slot. */
KERNEL void orr_save_states(u32 slots, GLOBAL const double *RESTRICT x,
    GLOBAL const double *RESTRICT y, GLOBAL const double *RESTRICT z,
    GLOBAL const double *RESTRICT vx, GLOBAL const double *RESTRICT vy,
    GLOBAL const double *RESTRICT vz, GLOBAL double *RESTRICT pre,
    GLOBAL const u32 *RESTRICT status)
{
    u32 i = GLOBAL_ID;
    if (i < slots)
        orr_save_state(i, x, y, z, vx, vy, vz, pre, status);
}

/* Encounter search: candidate pair p = (pairs[2p], pairs[2p+1]) of the list the pair pass left
 * (its length in the status buffer; launched over the list's capacity) is confirmed when the
 * cubic Hermite minimum of its separation over the drift (hermite.h, one lane of the CPU's
 * min_separation_sq_lanes) is below max(rcrit_i, rcrit_j)^2; hit[p] = 1 then, and the
 * confirmed pairs are counted in the status buffer. */
KERNEL void orr_encounter_search(u32 capacity, double tau, GLOBAL const u32 *RESTRICT pairs,
    GLOBAL const double *RESTRICT pre,
    GLOBAL const double *RESTRICT x, GLOBAL const double *RESTRICT y,
    GLOBAL const double *RESTRICT z, GLOBAL const double *RESTRICT vx,
    GLOBAL const double *RESTRICT vy, GLOBAL const double *RESTRICT vz,
    GLOBAL const double *RESTRICT rcrit, GLOBAL u32 *RESTRICT hit, GLOBAL u32 *RESTRICT status)
{
    /* The list's length is on the device: a fixed number of work-items strides over it. */
    u32 listed = status[ORR_STATUS_CANDIDATES];
    u32 count = listed < capacity ? listed : capacity;
    for (u32 p = GLOBAL_ID; p < count; p += GLOBAL_SIZE) {
        u32 i = pairs[2u * p], j = pairs[2u * p + 1u];
        double dr0[3], dv0[3], dr1[3], dv1[3];
        for (int c = 0; c < 3; c++) {
            dr0[c] = pre[6 * j + c] - pre[6 * i + c];
            dv0[c] = pre[6 * j + 3 + c] - pre[6 * i + 3 + c];
        }
        dr1[0] = x[j] - x[i];
        dr1[1] = y[j] - y[i];
        dr1[2] = z[j] - z[i];
        dv1[0] = vx[j] - vx[i];
        dv1[1] = vy[j] - vy[i];
        dv1[2] = vz[j] - vz[i];
        double rc = orr_max(rcrit[i], rcrit[j]);
        double d2 = orr_min_separation_sq(dr0, dv0, dr1, dv1, tau);
        u32 h = d2 < rc * rc ? 1u : 0u;
        hit[p] = h;
        if (h)
            ATOMIC_ADD_U32(&status[ORR_STATUS_ENCOUNTERS], 1u);
    }
}

/* Ejection check: counts the occupied slots of active systems with |x|^2 beyond the system's
 * outer truncation radius squared or inside its inner one (the CPU's test), or that may have
 * passed a perihelion inside the inner radius within the step (orr_may_have_grazed; the host
 * then asks whether the passage fell within the step), and lists them in `found` (in no
 * particular order; the host sorts them). The host reads the count once per step and only when
 * it is not zero reads the list and removes the bodies that leave. */
KERNEL void orr_ejection_check(u32 slots, u32 block, GLOBAL const u32 *RESTRICT sys_len,
    GLOBAL const double *RESTRICT sys_inner2, GLOBAL const double *RESTRICT sys_outer2,
    GLOBAL const double *RESTRICT sys_short_alpha, GLOBAL const double *RESTRICT inv_mu,
    GLOBAL const double *RESTRICT x, GLOBAL const double *RESTRICT y,
    GLOBAL const double *RESTRICT z, GLOBAL const double *RESTRICT vx,
    GLOBAL const double *RESTRICT vy, GLOBAL const double *RESTRICT vz,
    GLOBAL u32 *RESTRICT status, GLOBAL u32 *RESTRICT found)
{
    u32 i = GLOBAL_ID;
    if (i >= slots)
        return;
    u32 s = i / block;
    if (i - s * block >= sys_len[s])
        return;
    double r2 = x[i] * x[i] + y[i] * y[i] + z[i] * z[i];
    /* sqrt(R * R) is R exactly (IEEE binary arithmetic), the CPU's radius. */
    double inner = sqrt(sys_inner2[s]);
    int grazing = orr_may_have_grazed(inv_mu[i], 1.0 / inner, inner, sys_short_alpha[s], x[i],
        y[i], z[i], vx[i], vy[i], vz[i]);
    if (r2 > sys_outer2[s] || r2 < sys_inner2[s] || grazing)
        found[ATOMIC_ADD_U32(&status[ORR_STATUS_EJECTIONS], 1u)] = i;
}

/* The bodies of the `count` slots listed, for the host's records: thirteen doubles each
 * (x, y, z, vx, vy, vz, m, r, sx, sy, sz) and the id. */
KERNEL void orr_bodies_gather(u32 count, GLOBAL const u32 *RESTRICT list,
    GLOBAL const double *RESTRICT x, GLOBAL const double *RESTRICT y,
    GLOBAL const double *RESTRICT z, GLOBAL const double *RESTRICT vx,
    GLOBAL const double *RESTRICT vy, GLOBAL const double *RESTRICT vz,
    GLOBAL const double *RESTRICT m, GLOBAL const double *RESTRICT r,
    GLOBAL const double *RESTRICT sx, GLOBAL const double *RESTRICT sy,
    GLOBAL const double *RESTRICT sz, GLOBAL const u64 *RESTRICT id,
    GLOBAL double *RESTRICT out, GLOBAL u64 *RESTRICT out_id)
{
    u32 q = GLOBAL_ID;
    if (q >= count)
        return;
    u32 k = list[q];
    GLOBAL double *o = out + 11u * q;
    o[0] = x[k];
    o[1] = y[k];
    o[2] = z[k];
    o[3] = vx[k];
    o[4] = vy[k];
    o[5] = vz[k];
    o[6] = m[k];
    o[7] = r[k];
    o[8] = sx[k];
    o[9] = sy[k];
    o[10] = sz[k];
    out_id[q] = id[k];
}

/* The removal's slot moves (src/backend/cpu/removal.rs, removal_moves), applied in order by one
 * work-item: each copies a body and its critical radius from slot moves[2q] to moves[2q + 1]. */
KERNEL void orr_apply_moves(u32 count, GLOBAL const u32 *RESTRICT moves, GLOBAL double *x,
    GLOBAL double *y, GLOBAL double *z, GLOBAL double *vx, GLOBAL double *vy, GLOBAL double *vz,
    GLOBAL double *m, GLOBAL double *r, GLOBAL double *sx, GLOBAL double *sy, GLOBAL double *sz,
    GLOBAL u64 *id, GLOBAL double *rcrit)
{
    if (GLOBAL_ID != 0u)
        return;
    for (u32 q = 0; q < count; q++) {
        u32 from = moves[2u * q], to = moves[2u * q + 1u];
        x[to] = x[from];
        y[to] = y[from];
        z[to] = z[from];
        vx[to] = vx[from];
        vy[to] = vy[from];
        vz[to] = vz[from];
        m[to] = m[from];
        r[to] = r[from];
        sx[to] = sx[from];
        sy[to] = sy[from];
        sz[to] = sz[from];
        id[to] = id[from];
        rcrit[to] = rcrit[from];
    }
}
