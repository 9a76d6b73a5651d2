//! A small, fast, reproducible pseudo-random generator (xoshiro256**, seeded by splitmix64) for
//! initial-condition generators and tests. Same seed, same numbers, on every platform.

/// xoshiro256** (Blackman & Vigna 2018).
#[derive(Debug, Clone)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// A generator whose state is expanded from `seed` by splitmix64.
    pub fn new(seed: u64) -> Self {
        let mut z = seed;
        let mut next = || {
            z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut x = z;
            x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            x ^ (x >> 31)
        };
        Rng {
            s: [next(), next(), next(), next()],
        }
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }

    /// Standard normal deviate (Box-Muller).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.uniform();
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }

    /// Uniform integer in `0..n` (n > 0; the multiply-shift map, bias below 2^-32 for the
    /// small `n` of tests and generators).
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64() >> 32) * u128::from(n)) >> 32) as u64
    }

    /// A direction uniform on the unit sphere.
    pub fn unit_vector(&mut self) -> [f64; 3] {
        let z = self.range(-1.0, 1.0);
        let phi = self.range(0.0, std::f64::consts::TAU);
        let s = (1.0 - z * z).sqrt();
        [s * phi.cos(), s * phi.sin(), z]
    }

    /// Rayleigh deviate with scale `sigma` (the distribution of planetesimal e and i).
    pub fn rayleigh(&mut self, sigma: f64) -> f64 {
        sigma * (-2.0 * (1.0 - self.uniform()).ln()).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moments_are_right() {
        let mut r = Rng::new(42);
        let n = 200_000;
        let (mut su, mut sn, mut sn2, mut sr) = (0.0, 0.0, 0.0, 0.0);
        for _ in 0..n {
            su += r.uniform();
            let g = r.normal();
            sn += g;
            sn2 += g * g;
            sr += r.rayleigh(1.0);
        }
        let n = n as f64;
        assert!((su / n - 0.5).abs() < 0.005);
        assert!((sn / n).abs() < 0.01);
        assert!((sn2 / n - 1.0).abs() < 0.02);
        assert!((sr / n - (std::f64::consts::PI / 2.0).sqrt()).abs() < 0.01);
        assert_eq!(Rng::new(7).next_u64(), Rng::new(7).next_u64());
        assert_ne!(Rng::new(7).next_u64(), Rng::new(8).next_u64());
    }
}
