//! The one hash behind every fingerprint of a configuration (the hybrid run's resume
//! fingerprint, a shard's configuration, a tabulated gas disk's contents): 64-bit FNV-1a,
//! deterministic across platforms and releases, fed piece by piece or as formatted text.

/// 64-bit FNV-1a of `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h = Fnv1a::default();
    h.add(bytes);
    h.0
}

/// An FNV-1a hash fed piece by piece (also as a `fmt::Write`, so that large texts are hashed
/// as they are formatted, never held whole).
pub struct Fnv1a(pub u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv1a {
    /// Feed `bytes`.
    pub fn add(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    /// The hash as 16 hexadecimal digits.
    pub fn hex(&self) -> String {
        format!("{:016x}", self.0)
    }
}

impl std::fmt::Write for Fnv1a {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.add(s.as_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The published FNV-1a 64 test vectors.
    #[test]
    fn fnv1a_matches_the_reference_vectors() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
        let mut h = Fnv1a::default();
        std::fmt::Write::write_str(&mut h, "foo").unwrap();
        h.add(b"bar");
        assert_eq!(h.hex(), "85944171f73967e8");
    }
}
