//! The gas disk's own gravity (GENGA `Use gas disk potential`; Morishima, Stadel & Moore 2010,
//! pkdgrav's `msrGasTable` as GENGA's `gas.cu` ports it): the pull of the axisymmetric disk of
//! [`crate::physics::gas`] on the bodies, tabulated once at the start on an (r, z) grid and
//! interpolated in the step; its surface density dissipates with the disk's, so the table is
//! scaled by `exp(-t / τ_diss)`.
//!
//! **The table.** Nodes at the radii `r_i = inner + i dr` up to `Gas disk grid outer edge`
//! (GENGA's `G_Nr_p` rows) and at the heights `z = H(r_i) sinh(j Δs)`, `j < 64`, up to
//! `|z| = 1.5 r` (where the gas ends): the heights are uniform in `s = asinh(z / H)`, `0.08 H`
//! apart at the midplane (where the vertical pull changes over one scale height) and wider far
//! above it. At each node, the radial and vertical pull of the disk cut into rings `dr` wide
//! (GENGA's gas rings, the last one ending at the outer edge), each a Gaussian column of
//! surface density `Σ(r)`. One ring of mass `M` and radius `a` pulls a point at cylindrical
//! radius `R`, height `dz` above it, by (Binney & Tremaine 2008, eq. 2.153 differentiated; the
//! form of GENGA's table kernel)
//!
//! `a_R = -M / (π R p) [K(k) - E(k) (a² - R² + dz²) / q²]`, `a_z = -2 M dz E(k) / (π p q²)`,
//!
//! with `p² = (R + a)² + dz²`, `q² = (R - a)² + dz²` and `k² = 4 R a / p²`; `K` and `E` by the
//! arithmetic-geometric mean. A ring near the node (closer than 8 scale heights) is cut into
//! sub-rings half a scale height wide and its column into 48 layers a quarter scale height thick
//! to ±6 H; farther rings take the three-point Gauss–Hermite rule of the column (exact to the
//! fifth moment), and rings farther than 100 H their midplane. The column holds the ring's mass
//! exactly. (GENGA weights each of its 50 layers, 0.01 r apart, with a thickness of 0.03 r: three
//! times the column's mass. Orrery keeps the disk's mass.)
//!
//! **In the step** ([`disk_pull`]): inside the table, the bilinear interpolation in `r` and
//! `s = asinh(|z| / H(r))` at the body (`z` odd); beyond the table's last radius (and still in
//! the gas), GENGA's local approximation of an extended disk, `a_r = -2π Σ(r)` (exact for the
//! infinite `Σ ∝ 1/r` disk) and the infinite slab's `a_z = -2π Σ erf(z / (√2 H))` (GENGA writes
//! `erf(z / H)`). The table is built on the CPU with the standard library's functions; every
//! backend reads the same numbers, and the interpolation is + - * / with the in-house `ln`.

use crate::physics::changeover::exp_neg;
use crate::physics::gas::{ln, GasDisk, GAS_H1};
use crate::units;
use rayon::prelude::*;
use std::f64::consts::PI;

/// Heights per table row.
pub const TABLE_HEIGHTS: usize = 64;

/// Most table rows times disk rings: the table's cost at the start (about 10 s on one core)
/// and memory (a row is 1 KiB).
pub const MAX_TABLE_WORK: usize = 10_000_000;

/// The disk's pull tabulated on its grid (module docs), at t = 0. Lives for the rest of the
/// process (the step parameters that carry it are plain values); compared by address.
#[derive(Debug, Clone, Copy, Default)]
pub struct DiskPull {
    /// Table rows (radii); 0 for no table.
    pub rows: usize,
    /// The first row's radius (the disk's inner edge) and the rows' spacing, AU.
    pub r0: f64,
    pub dr: f64,
    /// The heights' spacing in `s = asinh(z / H)`.
    pub ds: f64,
    /// `(a_r, a_z)` at node `(i, j)` at `2 (i TABLE_HEIGHTS + j)` (`a_z` for `z ≥ 0`).
    pub values: &'static [f64],
}

impl PartialEq for DiskPull {
    fn eq(&self, o: &DiskPull) -> bool {
        std::ptr::eq(self.values.as_ptr(), o.values.as_ptr()) && self.values.len() == o.values.len()
    }
}

/// The table's rows and the disk's rings for `disk` (GENGA's `G_Nr_p`; the rings cover the gas
/// `dr` apart, the last one ending at the outer edge).
pub fn table_size(disk: &GasDisk) -> (usize, usize) {
    let rows = ((disk.grid_outer_edge - disk.inner_edge + 0.5 * disk.grid_dr) / disk.grid_dr)
        .floor()
        .max(0.0)
        + 1.0;
    let rings = ((disk.outer_edge - disk.inner_edge) / disk.grid_dr - 1e-9).ceil();
    (rows.min(1e12) as usize, rings.clamp(1.0, 1e12) as usize)
}

/// Complete elliptic integrals `(K(k), E(k))` of the modulus with `k'² = 1 - k² = kp2`, by the
/// arithmetic-geometric mean (Abramowitz & Stegun 17.6): `K = π / (2 M(1, k'))`,
/// `E = K (1 - Σ 2^(n-1) c_n²)` with `c_0 = k`.
pub fn complete_elliptic(kp2: f64) -> (f64, f64) {
    let (mut a, mut g) = (1.0f64, kp2.sqrt());
    let mut weight = 0.5;
    let mut sum = 0.5 * (1.0 - kp2);
    for _ in 0..64 {
        if a - g <= 2e-15 * a {
            break;
        }
        let c = 0.5 * (a - g);
        (a, g) = (0.5 * (a + g), (a * g).sqrt());
        weight *= 2.0;
        sum += weight * c * c;
    }
    let k = PI / (2.0 * a);
    (k, k * (1.0 - sum))
}

/// The pull `(a_R, a_z)` of a ring of unit mass and radius `a` at height `zr` on a point at
/// cylindrical radius `r`, height `z` (module docs).
pub fn ring_pull(r: f64, z: f64, a: f64, zr: f64) -> (f64, f64) {
    let dz = z - zr;
    let p2 = (r + a) * (r + a) + dz * dz;
    let q2 = (r - a) * (r - a) + dz * dz;
    let (k, e) = complete_elliptic(q2 / p2);
    let p = p2.sqrt();
    let ar = -(k - e * (a * a - r * r + dz * dz) / q2) / (PI * r * p);
    let az = -2.0 * dz * e / (PI * p * q2);
    (ar, az)
}

/// The disk's geometry for the table, code units (Msun, AU).
struct Disk {
    sigma_10: f64,
    alpha: f64,
    beta: f64,
    inner: f64,
    outer: f64,
    dr: f64,
}

impl Disk {
    fn scale_height(&self, r: f64) -> f64 {
        GAS_H1 * r * r.powf(self.beta)
    }

    fn surface_density(&self, r: f64) -> f64 {
        self.sigma_10 * r.powf(-self.alpha)
    }

    /// The pull of the whole disk at (r, z), at t = 0: the rings within 8 scale heights of
    /// `r` by [`Disk::near_pull`], the others as columns (module docs).
    fn pull(&self, r: f64, z: f64) -> (f64, f64) {
        let rings = ((self.outer - self.inner) / self.dr - 1e-9).ceil() as usize;
        let reach = 8.0 * self.scale_height(r) + 0.5 * self.dr;
        let (mut ar, mut az) = (0.0, 0.0);
        let (mut first, mut last) = (f64::INFINITY, f64::NEG_INFINITY);
        for k in 0..rings {
            let lo = self.inner + k as f64 * self.dr;
            let hi = (lo + self.dr).min(self.outer);
            let (w, mid) = (hi - lo, 0.5 * (lo + hi));
            if (mid - r).abs() < reach {
                (first, last) = (first.min(lo), last.max(hi));
                continue;
            }
            let d = ((r - mid) * (r - mid) + z * z).sqrt();
            let cuts = (w * 8.0 / d).ceil().clamp(1.0, 256.0) as usize;
            let ws = w / cuts as f64;
            for q in 0..cuts {
                let a = lo + (q as f64 + 0.5) * ws;
                let mass = 2.0 * PI * a * self.surface_density(a) * ws;
                let (dr, dz) = self.column_pull(r, z, a);
                ar += mass * dr;
                az += mass * dz;
            }
        }
        if first < last {
            let (nr, nz) = self.near_pull(r, z, first, last);
            ar += nr;
            az += nz;
        }
        (ar, az)
    }

    /// The pull at (r, z) of the disk between the radii `lo` and `hi` around `r`, by
    /// singularity subtraction: sub-rings half a local scale height wide, each a column of 48
    /// layers, less the same samples of the straight slab of the local surface density and
    /// scale height (which has the same near-singular pull at small distances), plus that
    /// slab's exact pull (`strip_pull`). The difference is smooth, so the coarse samples hold.
    fn near_pull(&self, r: f64, z: f64, lo: f64, hi: f64) -> (f64, f64) {
        const LAYERS: usize = 24;
        let (h0, sigma0) = (self.scale_height(r), self.surface_density(r));
        let cuts = ((hi - lo) / (0.5 * h0)).ceil().clamp(1.0, 65_536.0) as usize;
        let ws = (hi - lo) / cuts as f64;
        let total: f64 = (0..LAYERS)
            .map(|l| 2.0 * (-0.5 * ((l as f64 + 0.5) * 0.25).powi(2)).exp())
            .sum();
        let (mut ar, mut az) = (0.0, 0.0);
        for q in 0..cuts {
            let a = lo + (q as f64 + 0.5) * ws;
            let mass = 2.0 * PI * a * self.surface_density(a) * ws;
            let h = self.scale_height(a);
            for l in 0..LAYERS {
                let u = (l as f64 + 0.5) * 0.25;
                let w = mass * (-0.5 * u * u).exp() / total;
                for zr in [u * h, -u * h] {
                    let (pr, pz) = ring_pull(r, z, a, zr);
                    // The slab's line of linear density Σ0 ws ρ(zr) dz at the same place.
                    let v = zr / h0;
                    let line = sigma0 * ws * (-0.5 * v * v).exp() / (SQRT_2PI * h0) * 0.25 * h;
                    let (dx, dz) = (r - a, z - zr);
                    let d2 = dx * dx + dz * dz;
                    ar += w * pr + 2.0 * line * dx / d2;
                    az += w * pz + 2.0 * line * dz / d2;
                }
            }
        }
        let (sr, sz) = strip_pull(sigma0, h0, z, lo - r, hi - r);
        (ar + sr, az + sz)
    }

    /// The pull of the Gaussian column of unit mass of the ring of radius `a` (module docs).
    fn column_pull(&self, r: f64, z: f64, a: f64) -> (f64, f64) {
        let h = self.scale_height(a);
        let d = ((r - a) * (r - a) + z * z).sqrt();
        if d > 100.0 * h {
            return ring_pull(r, z, a, 0.0);
        }
        if d > 8.0 * h {
            let up = 3f64.sqrt() * h;
            let (c0, c1) = (ring_pull(r, z, a, 0.0), ring_pull(r, z, a, up));
            let c2 = ring_pull(r, z, a, -up);
            let (w0, w1) = (2.0 / 3.0, 1.0 / 6.0);
            return (
                w0 * c0.0 + w1 * (c1.0 + c2.0),
                w0 * c0.1 + w1 * (c1.1 + c2.1),
            );
        }
        const LAYERS: usize = 24;
        let (mut ar, mut az, mut total) = (0.0, 0.0, 0.0);
        for l in 0..LAYERS {
            let u = (l as f64 + 0.5) * 0.25;
            let w = (-0.5 * u * u).exp();
            for zr in [u * h, -u * h] {
                let (pr, pz) = ring_pull(r, z, a, zr);
                ar += w * pr;
                az += w * pz;
            }
            total += 2.0 * w;
        }
        (ar / total, az / total)
    }
}

const SQRT_2PI: f64 = 2.506_628_274_631_000_5;

/// The exact pull at height `z` above the midplane of a straight slab of surface density
/// `sigma` and Gaussian scale height `h` that spans `x1 < x < x2` across the point (`x1 < 0 <
/// x2`, or an edge at 0): the lines of density `λ` at `(x, z')` pull by `-2λ (-x, z - z') /
/// (x² + (z - z')²)`, which integrates over x to `a_x = Σ ∫ ρ ln((x2² + u²) / (x1² + u²)) dz'`
/// and `a_z = -2 Σ ∫ ρ [atan(x2/u) - atan(x1/u)] dz'` (`u = z - z'`); over z' by the midpoint
/// rule on either side of `z` (where `atan(x/u)` jumps) to ±8 h.
fn strip_pull(sigma: f64, h: f64, z: f64, x1: f64, x2: f64) -> (f64, f64) {
    const POINTS: usize = 400;
    let (bottom, top) = (-8.0 * h, 8.0 * h);
    let mid = z.clamp(bottom, top);
    let (mut ax, mut az) = (0.0, 0.0);
    for (from, to) in [(bottom, mid), (mid, top)] {
        let step = (to - from) / POINTS as f64;
        for p in 0..POINTS {
            let zp = from + (p as f64 + 0.5) * step;
            let v = zp / h;
            let rho = (-0.5 * v * v).exp() / (SQRT_2PI * h) * step;
            let u = z - zp;
            ax += rho * ((x2 * x2 + u * u) / (x1 * x1 + u * u)).ln();
            az -= rho * 2.0 * ((x2 / u).atan() - (x1 / u).atan());
        }
    }
    (sigma * ax, sigma * az)
}

/// The table of `disk`'s pull (module docs); empty when the disk or its gravity is off. The
/// rows are computed in parallel, each alone: the same numbers for any thread count.
pub fn build(disk: &GasDisk) -> DiskPull {
    if !disk.on || disk.potential == crate::physics::gas::GasBodies::Off {
        return DiskPull::default();
    }
    let (rows, _) = table_size(disk);
    let d = Disk {
        sigma_10: disk.sigma_10 * units::AU_CM * units::AU_CM / units::MSUN_G,
        alpha: disk.alpha,
        beta: disk.beta,
        inner: disk.inner_edge,
        outer: disk.outer_edge,
        dr: disk.grid_dr,
    };
    let zeta_max = 1.5 * d.inner / d.scale_height(d.inner);
    let ds = zeta_max.asinh() / (TABLE_HEIGHTS - 1) as f64;
    let values: Vec<f64> = (0..rows)
        .into_par_iter()
        .flat_map_iter(|i| {
            let r = d.inner + i as f64 * d.dr;
            let h = d.scale_height(r);
            let d = &d;
            (0..TABLE_HEIGHTS).flat_map(move |j| {
                let (ar, az) = d.pull(r, h * (j as f64 * ds).sinh());
                // In the midplane the vertical pull is 0 by symmetry (the sum's is rounding).
                [ar, if j == 0 { 0.0 } else { az }]
            })
        })
        .collect();
    DiskPull {
        rows,
        r0: disk.inner_edge,
        dr: disk.grid_dr,
        ds,
        values: Box::leak(values.into_boxed_slice()),
    }
}

/// `erf x` for `x ≥ 0` to 1.5e-7 (Abramowitz & Stegun 7.1.26), from + - * / and [`exp_neg`]
/// (device twin `orr_erf`).
#[inline(always)]
pub fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let p = ((((1.061_405_429 * t - 1.453_152_027) * t + 1.421_413_741) * t - 0.284_496_736) * t
        + 0.254_829_592)
        * t;
    1.0 - p * exp_neg(x * x)
}

/// The disk's pull `(a_r, a_z)` (cylindrical) at cylindrical radius `r1 > 0` and height `z`,
/// where the disk's scale height is `h` and its surface density now `sigma`, with `depletion`
/// the dissipation's factor `exp(-t / τ_diss)` (module docs). Device twin: `orr_gas_disk_pull`.
#[inline(always)]
pub fn disk_pull(t: &DiskPull, depletion: f64, r1: f64, z: f64, h: f64, sigma: f64) -> (f64, f64) {
    let last = t.rows as f64 - 1.0;
    let u = (r1 - t.r0) / t.dr;
    let zeta = z.abs() / h;
    if u >= last {
        let ar = -2.0 * PI * sigma;
        let az = ar * erf(zeta * std::f64::consts::FRAC_1_SQRT_2);
        return (ar, if z < 0.0 { -az } else { az });
    }
    let i = u.floor().max(0.0).min(last - 1.0);
    let fr = u - i;
    let top = (TABLE_HEIGHTS - 1) as f64;
    let s = (ln(zeta + (zeta * zeta + 1.0).sqrt()) / t.ds).min(top);
    let j = s.floor().max(0.0).min(top - 1.0);
    let fs = s - j;
    let k = 2 * (i as usize * TABLE_HEIGHTS + j as usize);
    let row = 2 * TABLE_HEIGHTS;
    let v = &t.values[k..k + row + 4];
    let mix = |c: usize| {
        ((1.0 - fr) * ((1.0 - fs) * v[c] + fs * v[c + 2])
            + fr * ((1.0 - fs) * v[row + c] + fs * v[row + c + 2]))
            * depletion
    };
    let (ar, az) = (mix(0), mix(1));
    (ar, if z < 0.0 { -az } else { az })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::gas::GasBodies;

    fn disk(inner: f64, outer: f64, grid_outer: f64, dr: f64) -> GasDisk {
        GasDisk {
            on: true,
            potential: GasBodies::All,
            inner_edge: inner,
            outer_edge: outer,
            grid_outer_edge: grid_outer,
            grid_dr: dr,
            ..Default::default()
        }
    }

    fn geometry(d: &GasDisk) -> Disk {
        Disk {
            sigma_10: d.sigma_10 * units::AU_CM * units::AU_CM / units::MSUN_G,
            alpha: d.alpha,
            beta: d.beta,
            inner: d.inner_edge,
            outer: d.outer_edge,
            dr: d.grid_dr,
        }
    }

    #[test]
    fn elliptic_integrals_match_tabulated_values() {
        // A&S table 17.5 at m = k^2 = 1/2, and the limits at k = 0.
        let (k, e) = complete_elliptic(0.5);
        assert!((k - 1.854_074_677_301_372).abs() < 1e-15, "{k}");
        assert!((e - 1.350_643_881_047_675).abs() < 1e-14, "{e}");
        let (k, e) = complete_elliptic(1.0);
        assert_eq!((k, e), (PI / 2.0, PI / 2.0));
        // Near k = 1: K ~ ln(4/k'), E ~ 1.
        let (k, e) = complete_elliptic(1e-12);
        assert!((k - (4.0 / 1e-6f64).ln()).abs() < 1e-9 && (e - 1.0).abs() < 1e-10);
    }

    #[test]
    fn a_ring_pulls_as_a_ring() {
        // On its axis, a ring of radius a pulls by -dz / (a^2 + dz^2)^(3/2).
        let (ar, az) = ring_pull(1e-9, 0.7, 1.3, 0.1);
        let want = -0.6 / (1.3f64 * 1.3 + 0.36).powf(1.5);
        assert!(
            (az / want - 1.0).abs() < 1e-12 && ar.abs() < 1e-6,
            "{ar} {az} {want}"
        );
        // Far away, as a point mass plus the ring's quadrupole: a_R = -1/R^2 (1 + 3a^2/(4R^2)).
        let (ar, az) = ring_pull(50.0, 0.0, 1.0, 0.0);
        let want = -1.0 / 2500.0 * (1.0 + 0.75 / 2500.0);
        assert!((ar / want - 1.0).abs() < 3e-7 && az == 0.0, "{ar} {want}");
    }

    /// The disk's pull by brute force: rings 0.0005 AU wide, each a column of 640 layers to
    /// ±8 scale heights.
    fn brute_force(d: &Disk, r: f64, z: f64) -> (f64, f64) {
        let rings = ((d.outer - d.inner) / 0.0005).round() as usize;
        let (mut ar, mut az) = (0.0, 0.0);
        for k in 0..rings {
            let a = d.inner + (k as f64 + 0.5) * 0.0005;
            let mass = 2.0 * PI * a * d.sigma_10 * a.powf(-d.alpha) * 0.0005;
            let h = d.scale_height(a);
            let (mut sr, mut sz, mut total) = (0.0, 0.0, 0.0);
            for l in 0..640 {
                let u = -8.0 + (l as f64 + 0.5) * 0.025;
                let w = (-0.5 * u * u).exp();
                let (pr, pz) = ring_pull(r, z, a, u * h);
                sr += w * pr;
                sz += w * pz;
                total += w;
            }
            ar += mass * sr / total;
            az += mass * sz / total;
        }
        (ar, az)
    }

    #[test]
    fn the_table_agrees_with_brute_force() {
        let g = disk(1.0, 3.0, 3.5, 0.25);
        let d = geometry(&g);
        let t = build(&g);
        assert_eq!((t.rows, t.values.len()), (11, 11 * 2 * TABLE_HEIGHTS));
        let scale = 2.0 * PI * d.sigma_10;
        let mut worst = 0.0f64;
        for (i, j) in [
            (0, 0),
            (2, 5),
            (4, 12),
            (4, 30),
            (6, 20),
            (8, 0),
            (10, 40),
            (3, 63),
        ] {
            let k = 2 * (i * TABLE_HEIGHTS + j);
            let r = 1.0 + 0.25 * i as f64;
            let z = d.scale_height(r) * (j as f64 * t.ds).sinh();
            let (br, bz) = brute_force(&d, r, z);
            let err = ((t.values[k] - br).abs()).max((t.values[k + 1] - bz).abs()) / scale;
            worst = worst.max(err);
            assert!(
                err < 3e-3,
                "node ({i}, {j}) at ({r}, {z}): {:?} against {:?}",
                (t.values[k], t.values[k + 1]),
                (br, bz)
            );
        }
        eprintln!("worst node error {worst:e} of 2 pi Sigma_10");
    }

    #[test]
    fn the_interpolation_follows_the_disk_between_nodes() {
        // Between the nodes (GENGA's spacing, half an AU and more from the sharp inner edge,
        // where the pull changes fastest), within 1 % of 2π Σ(r) of the direct sum; the
        // depletion scales it; z odd; beyond the table, the extended disk's -2π Σ.
        let g = disk(0.5, 6.0, 4.0, 0.1);
        let d = geometry(&g);
        let t = build(&g);
        let mut rng = crate::rng::Rng::new(7);
        let mut worst = 0.0f64;
        for _ in 0..200 {
            let r = 1.0 + 2.9 * rng.uniform();
            let h = d.scale_height(r);
            let z = h * 10.0 * (rng.uniform() - 0.5) * rng.uniform();
            let sigma = d.sigma_10 / r;
            let (ar, az) = disk_pull(&t, 1.0, r, z, h, sigma);
            let (wr, wz) = d.pull(r, z);
            let err = (ar - wr).abs().max((az - wz).abs()) / (2.0 * PI * sigma);
            worst = worst.max(err);
            let (hr, hz) = disk_pull(&t, 0.25, r, -z, h, sigma);
            assert_eq!((hr, hz), (0.25 * ar, -0.25 * az));
        }
        eprintln!("worst interpolation error {worst:e} of 2 pi Sigma");
        assert!(worst < 0.01, "worst {worst:e} of 2 pi Sigma");
        let sigma = d.sigma_10 / 5.0;
        let (ar, az) = disk_pull(&t, 1.0, 5.0, 0.0, d.scale_height(5.0), sigma);
        assert_eq!(ar, -2.0 * PI * sigma);
        assert!(az.abs() < 1e-8 * ar.abs(), "{az}");
    }

    #[test]
    fn far_from_the_disk_it_pulls_as_its_mass() {
        // A narrow disk 1-2 AU seen from 40 AU in its plane: -M/R^2 (1 + 3<a^2>/(4R^2)).
        let g = GasDisk {
            alpha: 1.0,
            ..disk(1.0, 2.0, 41.0, 0.1)
        };
        let d = geometry(&g);
        let mass = 2.0 * PI * d.sigma_10 * 1.0;
        let a2 = 7.0 / 3.0;
        let (ar, _) = d.pull(40.0, 0.0);
        let want = -mass / 1600.0 * (1.0 + 0.75 * a2 / 1600.0);
        assert!((ar / want - 1.0).abs() < 1e-4, "{ar} {want}");
    }

    #[test]
    fn erf_is_within_its_bound() {
        for k in 0..=400 {
            let x = k as f64 * 0.01;
            // erf by its series (x < 2) or its continued fraction's first terms are not at
            // hand; the midpoint integral of the Gaussian to 1e-10 is.
            let n = 20_000;
            let s: f64 = (0..n)
                .map(|i| (-((i as f64 + 0.5) * x / n as f64).powi(2)).exp())
                .sum::<f64>()
                * x
                / n as f64
                * 2.0
                / PI.sqrt();
            assert!((erf(x) - s).abs() < 1.6e-7, "{x}: {} {s}", erf(x));
        }
    }
}
