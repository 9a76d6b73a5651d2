//! The critical radii pass (GENGA paper eq. 6) with its cache of Hill factors.

use super::pair_forces::{PRECHECK_FACTOR, SMALL_MAX};
use super::slots::{self, SharedSlice};
use super::{norm2, CpuHybrid};
use crate::model::StepParams;
use crate::physics::changeover::{
    critical_radius_from as critical_radius, hill_factor_of, with_floor,
};

impl CpuHybrid {
    /// The critical radii of the step (eq. 6), adopted for the kicks in the same sweep.
    pub(super) fn compute_critical_radii(&mut self, p: &StepParams) {
        self.refresh_specs(p);
        if let [one] = *self.layout.systems.as_slice() {
            if one.active && one.len <= SMALL_MAX {
                return self.small_system_radii(one.len, one.massive, p);
            }
        }
        // The Hill-factor cache of one system covers its massive bodies (they come first, so a
        // test-particle run needs almost none of it); that of many systems every slot.
        let hill_end = match self.layout.systems.as_slice() {
            [one] => one.massive,
            _ => self.b.len(),
        };
        self.hill_mass.resize(hill_end, f64::NAN);
        self.hill_factor.resize(hill_end, 0.0);
        let (b, layout, specs, maps) = (&self.b, &self.layout, &self.specs, &self.maps);
        let out = SharedSlice::new(&mut self.rcrit);
        let kick = SharedSlice::new(&mut self.rcrit_kick);
        let inv_kick = SharedSlice::new(&mut self.inv_rcrit_kick);
        let hill_mass = SharedSlice::new(&mut self.hill_mass);
        let hill_factor = SharedSlice::new(&mut self.hill_factor);
        let single = layout.systems.len() == 1;
        let floor = p.rcrit_floor;
        // Also tell whether a radius grew beyond the precheck margin of the stored accelerations,
        // and adopt the new radii for the kicks in the same sweep (the opening kick's refresh
        // needs only the new ones).
        self.radii_adopted = true;
        self.radii_grew = slots::map_reduce(
            &self.chunks,
            false,
            |c| {
                // At the run-time SIMD level.
                crate::simd::dispatch_sized(
                    c.len,
                    #[inline(always)]
                    || {
                        let end = c.start + c.len;
                        let hill = c.start.min(hill_end)..end.min(hill_end);
                        // SAFETY: chunks are disjoint slot ranges.
                        let (rc, old, inv, hm, hf) = unsafe {
                            (
                                out.range(c.start, c.len),
                                kick.range(c.start, c.len),
                                inv_kick.range(c.start, c.len),
                                hill_mass.range(hill.start, hill.len()),
                                hill_factor.range(hill.start, hill.len()),
                            )
                        };
                        // The cube root of the Hill factor changes only when the mass does (a merger).
                        // Many systems take a vectorised look for such a slot first.
                        let stale = !single && {
                            let r = c.start..end;
                            let (m, mu) = (&b.m[r.clone()], &maps.live_mu[r.clone()]);
                            let tp = &maps.test_particle[r];
                            let n = c.len;
                            let (m, mu, tp, cached) = (&m[..n], &mu[..n], &tp[..n], &hm[..n]);
                            (0..n).fold(false, |any, k| {
                                any | ((mu[k] > 0.0) & !tp[k] & (cached[k] != m[k]))
                            })
                        };
                        let mut refresh_hill = |k: usize, i: usize, m0: f64| {
                            if hm[k] != b.m[i] {
                                hm[k] = b.m[i];
                                hf[k] = hill_factor_of(b.m[i], m0);
                            }
                        };
                        if single {
                            (0..hill.len()).for_each(|k| refresh_hill(k, c.start + k, specs[0].m0));
                        } else if stale {
                            let (live_mu, tps) = (&maps.live_mu, &maps.test_particle);
                            for k in 0..c.len {
                                let i = c.start + k;
                                if live_mu[i] > 0.0 && !tps[i] {
                                    refresh_hill(k, i, live_mu[i]);
                                }
                            }
                        }
                        // Then every slot in branch-free (vectorised) loops: rcrit = max(n1 R_H, n2 tau v)
                        // (eq. 6); a test particle has no Hill sphere of its own; empty slots keep their
                        // radii. One system reads its factors once, many systems per slot.
                        let mut grew = false;
                        let n = c.len;
                        let (rc, old, inv) = (&mut rc[..n], &mut old[..n], &mut inv[..n]);
                        let mut adopt = |k: usize, new: f64, live: bool| {
                            grew |= live & (new > PRECHECK_FACTOR * old[k]);
                            rc[k] = if live { new } else { rc[k] };
                            old[k] = rc[k];
                            inv[k] = if live { 1.0 / new } else { inv[k] };
                        };
                        let r = c.start..end;
                        let (x, y, z) = (&b.x[r.clone()], &b.y[r.clone()], &b.z[r.clone()]);
                        let (vx, vy, vz) = (&b.vx[r.clone()], &b.vy[r.clone()], &b.vz[r.clone()]);
                        let (x, y, z, vx, vy, vz) =
                            (&x[..n], &y[..n], &z[..n], &vx[..n], &vy[..n], &vz[..n]);
                        let speed = |k: usize| norm2(vx[k], vy[k], vz[k]).sqrt();
                        let dist = |k: usize| norm2(x[k], y[k], z[k]).sqrt();
                        if single {
                            let (n1, v_factor) = (specs[0].n1, specs[0].n2 * p.tau);
                            // Massive slots are below `hill_end`, so `hill` covers them.
                            let hf = &hf[..hill.len()];
                            for k in 0..hf.len() {
                                let rc = critical_radius(n1, dist(k), hf[k], v_factor * speed(k));
                                adopt(k, with_floor(rc, floor), true);
                            }
                            for k in hf.len()..n {
                                adopt(k, v_factor * speed(k), true);
                            }
                        } else {
                            // The cache covers every slot here.
                            let (n1s, n2s) = (&maps.n1[r.clone()], &maps.n2[r.clone()]);
                            let (live_mu, tps) = (&maps.live_mu[r.clone()], &maps.test_particle[r]);
                            let (n1s, n2s, live_mu, tps, hf) =
                                (&n1s[..n], &n2s[..n], &live_mu[..n], &tps[..n], &hf[..n]);
                            for k in 0..n {
                                let v_part = n2s[k] * p.tau * speed(k);
                                let hill_part = critical_radius(n1s[k], dist(k), hf[k], v_part);
                                let hill_part = with_floor(hill_part, floor);
                                let new = if tps[k] { v_part } else { hill_part };
                                adopt(k, new, live_mu[k] > 0.0);
                            }
                        }
                        grew
                    },
                )
            },
            |a, b| a || b,
        );
    }

    /// [`Self::compute_critical_radii`] of one active system of `n <= SMALL_MAX` slots, the
    /// first `massive` of them massive, in one plain loop (the same arithmetic).
    fn small_system_radii(&mut self, n: usize, massive: usize, p: &StepParams) {
        let (tau, floor) = (p.tau, p.rcrit_floor);
        let spec = self.specs[0];
        let b = &self.b;
        self.hill_mass.resize(massive, f64::NAN);
        self.hill_factor.resize(massive, 0.0);
        for k in 0..massive {
            if self.hill_mass[k] != b.m[k] {
                self.hill_mass[k] = b.m[k];
                self.hill_factor[k] = hill_factor_of(b.m[k], spec.m0);
            }
        }
        let v_factor = spec.n2 * tau;
        let mut grew = false;
        for k in 0..n {
            let v_part = v_factor * norm2(b.vx[k], b.vy[k], b.vz[k]).sqrt();
            let new = match self.hill_factor.get(k) {
                Some(&hf) => {
                    let r = norm2(b.x[k], b.y[k], b.z[k]).sqrt();
                    with_floor(critical_radius(spec.n1, r, hf, v_part), floor)
                }
                None => v_part,
            };
            grew |= new > PRECHECK_FACTOR * self.rcrit_kick[k];
            self.rcrit[k] = new;
            self.rcrit_kick[k] = new;
            self.inv_rcrit_kick[k] = 1.0 / new;
        }
        self.radii_grew = grew;
        self.radii_adopted = true;
    }
}
