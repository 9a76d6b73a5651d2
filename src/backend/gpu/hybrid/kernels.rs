//! The hybrid engine's kernels bound to their buffer arguments, and the scalar arguments set at
//! each launch.

use super::*;

impl Kernels {
    /// Build the kernels of `kernels/hybrid.cl` with their buffer arguments; the scalar
    /// arguments (counts, time steps) are set at each launch.
    pub(super) fn bind(
        g: &Gpu,
        b: &BodyBuffers,
        k: &KickBuffers,
        m: &LayoutBuffers,
        e: &EnergyBuffers,
        scratch: &StepScratch<'_>,
    ) -> Result<Kernels> {
        let StepScratch { pre, status, found } = *scratch;
        let kick = g
            .kernel("orr_kick")
            .arg(0u32)
            .arg(0u32)
            .arg(0.0f64)
            .arg(&m.live_mu)
            .args(&k.far)
            .args(&k.near)
            .args(&b.vel)
            .build()?;
        let sun_shift = g
            .kernel("orr_sun_shift")
            .arg(0u32)
            .arg(0u32)
            .arg(0.0f64)
            .arg(&m.sys_len)
            .arg(&m.sys_pulling)
            .arg(&m.sys_m0)
            .arg(&b.m)
            .args(&b.vel)
            .arg(&m.shift)
            .build()?;
        let sun_shift_group = g
            .kernel("orr_sun_shift_group")
            .arg(0u32)
            .arg(0u32)
            .arg(0.0f64)
            .arg(&m.sys_pulling)
            .arg(&m.sys_m0)
            .arg(&b.m)
            .args(&b.vel)
            .arg(&m.shift)
            // orr_momentum_tile_t: three arrays of SUM_TILE doubles.
            .local_f64(3 * SUM_TILE)
            .build()?;
        let sun_move = g
            .kernel("orr_sun_move")
            .arg(0u32)
            .arg(0u32)
            .arg(&m.sys_len)
            .arg(&m.shift)
            .args(&b.pos)
            .build()?;
        let drift = g
            .kernel("orr_drift")
            .arg(0u32)
            .arg(0.0f64)
            .arg(0u32)
            .arg(pre)
            .arg(&m.live_mu)
            .arg(&m.inv_mu)
            .args(&b.pos)
            .args(&b.vel)
            .arg(status)
            .build()?;
        let critical_radii = g
            .kernel("orr_critical_radii")
            .arg(0u32)
            .arg(0u32)
            .arg(0.0f64)
            .arg(&m.sys_len)
            .arg(&m.sys_massive)
            .arg(&m.n1)
            .arg(&m.n2_tau)
            .arg(&m.hill)
            .args(&b.pos)
            .args(&b.vel)
            .arg(&k.rcrit)
            .arg(&k.rcrit_kick)
            .arg(&k.inv_rcrit_kick)
            .arg(status)
            .build()?;
        let set_status = g
            .kernel("orr_set_status")
            .arg(0u32)
            .arg(0u32)
            .arg(status)
            .build()?;
        let energy_pairs = g
            .kernel("orr_energy_pairs")
            .arg(0u32)
            .arg(0u32)
            .arg(&m.sys_pulling)
            .arg(&m.sys_massive)
            .arg(&b.m)
            .args(&b.pos)
            .arg(&e.pair)
            .build()?;
        let energy_sums = energy_sums_args(&mut g.kernel("orr_energy_sums"), b, m, e).build()?;
        let energy_sums_group = energy_sums_args(&mut g.kernel("orr_energy_sums_group"), b, m, e)
            // orr_energy_tile_t: SUM_TILE terms of nine doubles.
            .local_f64(9 * SUM_TILE)
            .build()?;
        let potential_kick = g
            .kernel("orr_potential_kick")
            .arg(0u32)
            .arg(0u32)
            .arg(0.0f64)
            .arg(&m.sys_len)
            .arg(&m.sys_m0)
            .arg(&m.forces)
            .args(&b.pos)
            .args(&b.vel)
            .build()?;
        let potential_torque = g
            .kernel("orr_potential_torque_pass")
            .arg(0u32)
            .arg(0u32)
            .arg(0.0f64)
            .arg(&m.sys_len)
            .arg(&m.sys_pulling)
            .arg(&m.sys_m0)
            .arg(&m.forces)
            .arg(&b.m)
            .args(&b.pos)
            .arg(&m.work)
            .build()?;
        let radiation_system = g
            .kernel("orr_radiation_system_pass")
            .arg(0u32)
            .arg(0u32)
            .arg(0.0f64)
            .arg(&m.sys_len)
            .arg(&m.sys_pulling)
            .arg(&m.sys_m0)
            .arg(&m.forces)
            .arg(&b.m)
            .arg(&b.r)
            .args(&b.pos)
            .args(&b.vel)
            .args(&b.spin)
            .arg(&m.radiation)
            .arg(&m.work)
            .build()?;
        let radiation_kick = g
            .kernel("orr_radiation_kick")
            .arg(0u32)
            .arg(0u32)
            .arg(0.0f64)
            .arg(&m.sys_len)
            .arg(&m.sys_m0)
            .arg(&m.forces)
            .arg(&m.radiation)
            .arg(&b.m)
            .arg(&b.r)
            .args(&b.pos)
            .args(&b.vel)
            .args(&b.spin)
            .build()?;
        let tide_kick = g
            .kernel("orr_tide_kick")
            .arg(0u32)
            .arg(0u32)
            .arg(0.0f64)
            .arg(0u32)
            .arg(&m.sys_len)
            .arg(&m.sys_pulling)
            .arg(&m.sys_m0)
            .arg(&m.forces)
            .arg(&m.tidal_ids)
            .arg(&m.tidal_props)
            .arg(&b.m)
            .arg(&b.r)
            .arg(&b.id)
            .args(&b.pos)
            .args(&b.vel)
            .args(&b.spin)
            .arg(&m.central_spin)
            .arg(&m.work)
            .build()?;
        let save_states = g
            .kernel("orr_save_states")
            .arg(0u32)
            .args(&b.pos)
            .args(&b.vel)
            .arg(pre)
            .arg(status)
            .build()?;
        let ejection_check = g
            .kernel("orr_ejection_check")
            .arg(0u32)
            .arg(0u32)
            .arg(&m.sys_len)
            .arg(&m.sys_inner2)
            .arg(&m.sys_outer2)
            .arg(&m.sys_short_alpha)
            .arg(&m.inv_mu)
            .args(&b.pos)
            .args(&b.vel)
            .arg(status)
            .arg(found)
            .build()?;
        Ok(Kernels {
            kick,
            sun_shift,
            sun_shift_group,
            sun_move,
            drift,
            critical_radii,
            set_status,
            energy_pairs,
            energy_sums,
            energy_sums_group,
            save_states,
            ejection_check,
            potential_kick,
            potential_torque,
            radiation_system,
            radiation_kick,
            tide_kick,
        })
    }
}

/// Set the scalar arguments `(index, value)` of `kernel`.
pub(super) fn set_args<T: KernelArg + Copy>(kernel: &Kernel, args: &[(u32, T)]) -> Result<()> {
    for &(i, v) in args {
        kernel.set_arg(i, v)?;
    }
    Ok(())
}

/// The arguments of both energy-sum kernels (`orr_energy_sums`, `orr_energy_sums_group`): the
/// counts (set at launch), the system maps, the bodies, the pair potentials, the potential
/// forces and the output.
fn energy_sums_args<'k>(
    k: &'k mut KernelBuilder,
    b: &BodyBuffers,
    m: &LayoutBuffers,
    e: &EnergyBuffers,
) -> &'k mut KernelBuilder {
    k.arg(0u32)
        .arg(0u32)
        .arg(&m.sys_pulling)
        .arg(&m.sys_massive)
        .arg(&m.sys_m0)
        .arg(&b.m)
        .args(&b.pos)
        .args(&b.vel)
        .args(&b.spin)
        .arg(&e.pair)
        .arg(&m.forces)
        .arg(&e.out)
}
