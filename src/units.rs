//! Units and physical constants, in one place (GENGA's conventions).
//!
//! G = 1, length in AU, mass in solar masses, time unit 1/k days with the Gaussian gravitational
//! constant k = 0.01720209895, so one code time unit is 58.13244087 days and a circular orbit at
//! 1 AU around one solar mass has speed 1.

/// Gaussian gravitational constant k (AU^{3/2} Msun^{-1/2} day^{-1}).
pub const K_GAUSS: f64 = 0.01720209895;
/// Days in a Julian year (output times are in years of 365.25 days).
pub const DAYS_PER_YEAR: f64 = 365.25;
/// Solar mass in grams (GENGA's value).
pub const MSUN_G: f64 = 1.98892e33;
/// Astronomical unit in centimetres (IAU 2012).
pub const AU_CM: f64 = 1.495978707e13;
/// Earth mass in solar masses (IAU 2015 nominal GM ratio).
pub const EARTH_MASS: f64 = 3.003_489_614_915_764e-6;
/// Jupiter mass in solar masses (IAU 2015 nominal GM ratio).
pub const JUPITER_MASS: f64 = 9.547_919_384_243_266e-4;
/// GENGA's default star radius in AU (one solar radius).
pub const SUN_RADIUS_AU: f64 = 0.00465475877;

/// Days to code time units (1/k days).
pub fn days_to_code(days: f64) -> f64 {
    days * K_GAUSS
}

/// Code time units to days.
pub fn code_to_days(t: f64) -> f64 {
    t / K_GAUSS
}

/// Code time units to years of 365.25 days.
pub fn code_to_years(t: f64) -> f64 {
    code_to_days(t) / DAYS_PER_YEAR
}

/// The time in years of step `step` of a run with step `tau` (code units), as every file of a
/// hybrid run writes it: `step · tau`, converted.
pub fn step_time_years(step: u64, tau: f64) -> f64 {
    code_to_years(step as f64 * tau)
}

/// Years of 365.25 days to code time units.
pub fn years_to_code(years: f64) -> f64 {
    days_to_code(years * DAYS_PER_YEAR)
}

/// Radius (AU) of a uniform sphere of mass `m` (Msun) and density `rho` (g/cm^3).
pub fn radius_from_density(m: f64, rho: f64) -> f64 {
    (3.0 * m * MSUN_G / (4.0 * std::f64::consts::PI * rho)).cbrt() / AU_CM
}

/// Density (g/cm^3) of a uniform sphere of mass `m` (Msun) and radius `r` (AU).
pub fn density_from_radius(m: f64, r: f64) -> f64 {
    let r_cm = r * AU_CM;
    3.0 * m * MSUN_G / (4.0 * std::f64::consts::PI * r_cm * r_cm * r_cm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_code_unit_is_58_days() {
        assert!((code_to_days(1.0) - 58.132_440_87).abs() < 1e-8);
    }

    #[test]
    fn density_and_radius_are_inverse() {
        let m = 7.332687758e-9;
        let r = radius_from_density(m, 2.0);
        assert!((density_from_radius(m, r) - 2.0).abs() < 1e-12);
        // A 2 g/cm^3 body of 7.3e-9 Msun has a radius of about 1200 km.
        let km = r * AU_CM / 1e5;
        assert!(km > 1000.0 && km < 1500.0, "{km}");
    }
}
