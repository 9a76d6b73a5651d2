//! A tabulated gas disk (GENGA `Gas file name`, its `readGasFile` and `GasAcc2_kernel`): the
//! surface density `Σ(r, t)` and the aspect ratio `h(r, t) = H/r` at radii uniform in `ln r`,
//! in blocks of increasing time, in place of [`crate::physics::gas`]'s power laws (the drag and
//! the type-I damping and migration take them; the disk's gravity and the dissipation law do
//! not apply, as in GENGA). The file is read by [`crate::io::gas_profile`].
//!
//! At radius `r` between the rows `r_i ≤ r < r_(i+1)` and time `t` between the blocks
//! `t_k ≤ t < t_(k+1)`: `Σ` and `h` are linear in `r` within each block, then linear in `t`
//! between the blocks (GENGA's interpolation), and `H = h r`. Before the first block the first
//! holds, after the last the last. There is gas between the first and the last radius.

/// The table (module docs), in code units, for the rest of the process; compared by address.
#[derive(Debug, Clone, Copy, Default)]
pub struct DiskProfile {
    /// The radii (AU), uniform in `ln r`; empty for no table.
    pub radii: &'static [f64],
    /// `ln` of the first radius and the spacing in `ln r`.
    pub ln_r0: f64,
    pub dln: f64,
    /// The blocks' times (code units), increasing; at least two.
    pub times: &'static [f64],
    /// `(Σ in Msun/AU², h)` at block `k`, radius `i` at `2 (k n_r + i)`.
    pub values: &'static [f64],
}

impl PartialEq for DiskProfile {
    fn eq(&self, o: &DiskProfile) -> bool {
        std::ptr::eq(self.values.as_ptr(), o.values.as_ptr()) && self.values.len() == o.values.len()
    }
}

impl DiskProfile {
    /// The table of `radii` (uniform in `ln r`, at least two), block `times` (increasing, at
    /// least one; one block is held for all time) and `values` (module docs).
    pub fn new(radii: Vec<f64>, mut times: Vec<f64>, mut values: Vec<f64>) -> DiskProfile {
        if times.len() == 1 {
            times.push(times[0] + 1.0);
            values.extend_from_within(..);
        }
        let n = radii.len();
        DiskProfile {
            ln_r0: radii[0].ln(),
            dln: (radii[n - 1] / radii[0]).ln() / (n - 1) as f64,
            radii: Box::leak(radii.into_boxed_slice()),
            times: Box::leak(times.into_boxed_slice()),
            values: Box::leak(values.into_boxed_slice()),
        }
    }

    /// True when a table is set.
    pub fn is_set(&self) -> bool {
        !self.radii.is_empty()
    }

    /// The block `k` and the fraction of the way to block `k + 1` at code time `t`.
    pub fn block_at(&self, t: f64) -> (usize, f64) {
        let last = self.times.len() - 2;
        let k = self
            .times
            .partition_point(|&b| b <= t)
            .saturating_sub(1)
            .min(last);
        let (t0, t1) = (self.times[k], self.times[k + 1]);
        (k, ((t - t0) / (t1 - t0)).clamp(0.0, 1.0))
    }
}

/// `(Σ, H)` of `p` at cylindrical radius `r1` (with `lr = ln r1`) in block `k` (as a float) at
/// the fraction `tt` of the way to the next (module docs). `r1` outside the radii takes the
/// nearest row pair's line. Device twin: `orr_gas_profile`.
#[inline(always)]
pub fn profile_at(p: &DiskProfile, k: f64, tt: f64, r1: f64, lr: f64) -> (f64, f64) {
    let n = p.radii.len();
    let top = n as f64 - 2.0;
    let i = ((lr - p.ln_r0) / p.dln).floor().max(0.0).min(top);
    let i = i as usize;
    let (ra, rb) = (p.radii[i], p.radii[i + 1]);
    let tr = (r1 - ra) / (rb - ra);
    let b0 = 2 * (k as usize * n + i);
    let b1 = b0 + 2 * n;
    let v = p.values;
    let s0 = (v[b0 + 2] - v[b0]) * tr + v[b0];
    let h0 = (v[b0 + 3] - v[b0 + 1]) * tr + v[b0 + 1];
    let s1 = (v[b1 + 2] - v[b1]) * tr + v[b1];
    let h1 = (v[b1 + 3] - v[b1 + 1]) * tr + v[b1 + 1];
    ((s1 - s0) * tt + s0, ((h1 - h0) * tt + h0) * r1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::gas::{gas_accel, Gas, GasBodies, GasDisk, GAS_FILE, GAS_H1, GAS_ON};
    use crate::units;

    /// GENGA's default disk (drag and damping on every body, without its gravity) and the same
    /// disk tabulated on GENGA's grid (`n` radii from 0.25 to 1000 AU) at the times `years`.
    fn disks(n: usize, years: &[f64]) -> (Gas, Gas) {
        let disk = GasDisk {
            on: true,
            drag: GasBodies::All,
            tidal_damping: GasBodies::All,
            potential: GasBodies::Off,
            ..Default::default()
        };
        let g = Gas::resolve(&disk);
        let radii: Vec<f64> = (0..n)
            .map(|i| 0.25 * 4000f64.powf(i as f64 / (n - 1) as f64))
            .collect();
        let mut values = Vec::new();
        for &t in years {
            let depletion = (-t / disk.dissipation_time).exp();
            for &r in &radii {
                values.extend([g.sigma_10 * depletion / r, GAS_H1 * r.powf(0.25)]);
            }
        }
        let times = years.iter().map(|&t| units::years_to_code(t)).collect();
        let table = DiskProfile::new(radii, times, values);
        (g, g.with_profile(table))
    }

    #[test]
    fn the_blocks_are_found_and_held_at_the_ends() {
        let (_, g) = disks(50, &[0.0, 100.0, 300.0]);
        let p = g.profile;
        let y = units::years_to_code;
        assert_eq!(p.block_at(y(-5.0)), (0, 0.0));
        assert_eq!(p.block_at(y(50.0)).0, 0);
        assert!((p.block_at(y(50.0)).1 - 0.5).abs() < 1e-12);
        assert_eq!(p.block_at(y(100.0)), (1, 0.0));
        assert!((p.block_at(y(250.0)).1 - 0.75).abs() < 1e-12);
        assert_eq!(p.block_at(y(1e6)), (1, 1.0));
        // One block holds for all time.
        let (_, one) = disks(50, &[10.0]);
        assert_eq!(one.profile.times.len(), 2);
        assert_eq!(one.profile.block_at(y(1e9)), (0, 1.0));
    }

    #[test]
    fn a_tabulated_power_law_disk_acts_as_the_power_law() {
        // GENGA's grid (200 radii from 0.25 to 1000 AU) of GENGA's default disk: Σ and H within
        // the linear interpolation's error, and the drag and damping with them, at random
        // places and times between the blocks (the blocks' exponential dissipation is linear
        // between them: 1e-3 at 100 years apart).
        let years: Vec<f64> = (0..=20).map(|k| 100.0 * k as f64).collect();
        let (power, table) = disks(200, &years);
        let mut rng = crate::rng::Rng::new(29);
        let mut worst = [0.0f64; 3];
        for _ in 0..500 {
            let t = units::years_to_code(2000.0 * rng.uniform());
            let (p, g) = (power.at_time(t), table.at_time(t));
            let r1 = 0.5 + 20.0 * rng.uniform();
            let lr = r1.ln();
            let (sigma, h) = profile_at(&g.profile, g.block, g.block_frac, r1, lr);
            let want_h = GAS_H1 * r1 * r1.powf(0.25);
            worst[0] = worst[0].max((sigma / (p.sigma / r1) - 1.0).abs());
            worst[1] = worst[1].max((h / want_h - 1.0).abs());
            let x = [r1 * 0.6, r1 * 0.8, 0.3 * want_h * (rng.uniform() - 0.5)];
            let vk = (1.0 / r1).sqrt();
            let v = [-0.8 * vk * 1.01, 0.6 * vk * 1.01, 1e-3 * vk];
            let (m, s) = (1e-7, 2e-5);
            let a = gas_accel(&g, GAS_FILE, 1.0, 0.0, m, m, s, x, v);
            let b = gas_accel(&p, GAS_ON, 1.0, 0.0, m, m, s, x, v);
            let norm = b.iter().map(|c| c * c).sum::<f64>().sqrt();
            let diff = (0..3).map(|c| (a[c] - b[c]).powi(2)).sum::<f64>().sqrt();
            worst[2] = worst[2].max(diff / norm);
        }
        eprintln!(
            "tabulated disk: worst Σ {:e}, H {:e}, acceleration {:e}",
            worst[0], worst[1], worst[2]
        );
        assert!(
            worst[0] < 2e-3 && worst[1] < 2e-3 && worst[2] < 1e-2,
            "{worst:?}"
        );
        // Outside the table's radii there is no gas.
        let g = table.at_time(0.0);
        let far = gas_accel(
            &g,
            GAS_FILE,
            1.0,
            0.0,
            1e-7,
            1e-7,
            2e-5,
            [1200.0, 0.0, 0.0],
            [0.0, 0.03, 0.0],
        );
        assert_eq!(far, [0.0; 3]);
    }
}
