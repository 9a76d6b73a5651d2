//! The one binary reader and writer of both engines' checkpoints: little-endian words behind a
//! common header (8 bytes of magic, a `u64` format version, the `u64` step). The hybrid
//! engine's [`crate::io::checkpoint`] and the sheet's [`crate::io::sheet_checkpoint`] write
//! their contents with [`LeWriter`] and read them back with [`LeReader`]; neither touches bytes
//! itself.

/// Little-endian writer over any `Write`; the first I/O error is kept and reported by
/// [`LeWriter::finish`], so a format is written as straight-line code.
pub struct LeWriter<'w> {
    out: &'w mut dyn std::io::Write,
    error: Option<std::io::Error>,
}

impl<'w> LeWriter<'w> {
    /// A writer that starts with the checkpoint header.
    pub fn with_header(
        out: &'w mut dyn std::io::Write,
        magic: &[u8; 8],
        version: u64,
        step: u64,
    ) -> Self {
        let mut w = LeWriter { out, error: None };
        w.raw(magic);
        w.u64(version);
        w.u64(step);
        w
    }

    /// The first write error, if any.
    pub fn finish(self) -> std::io::Result<()> {
        self.error.map_or(Ok(()), Err)
    }

    pub fn raw(&mut self, b: &[u8]) {
        if self.error.is_none() {
            if let Err(e) = self.out.write_all(b) {
                self.error = Some(e);
            }
        }
    }

    pub fn u64(&mut self, v: u64) {
        self.raw(&v.to_le_bytes());
    }

    pub fn u32(&mut self, v: u32) {
        self.raw(&v.to_le_bytes());
    }

    pub fn f64(&mut self, v: f64) {
        self.raw(&v.to_le_bytes());
    }

    /// Values with no length before them (the reader knows it).
    pub fn f64s(&mut self, v: &[f64]) {
        v.iter().for_each(|x| self.f64(*x));
    }

    /// One array, its length first, written from consecutive pieces.
    pub fn f64s_joined(&mut self, pieces: &[&[f64]]) {
        self.u64(pieces.iter().map(|p| p.len()).sum::<usize>() as u64);
        pieces.iter().for_each(|p| self.f64s(p));
    }

    /// Bytes, their length first.
    pub fn bytes(&mut self, v: &[u8]) {
        self.u64(v.len() as u64);
        self.raw(v);
    }
}

/// Little-endian reader over bytes in memory; every read is `None` past the end.
pub struct LeReader<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> LeReader<'a> {
    /// A reader after the checkpoint header, with the header's step; `None` when the magic or
    /// the version differ or the data is shorter than a header.
    pub fn after_header(data: &'a [u8], magic: &[u8; 8], version: u64) -> Option<(Self, u64)> {
        let mut r = LeReader { data, at: 0 };
        if r.take(8)? != magic || r.u64()? != version {
            return None;
        }
        let step = r.u64()?;
        Some((r, step))
    }

    pub fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.data.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }

    pub fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    pub fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    pub fn f64(&mut self) -> Option<f64> {
        Some(f64::from_bits(self.u64()?))
    }

    /// A length word that cannot exceed the data's size (so no huge allocation on a corrupt
    /// file).
    pub fn length(&mut self) -> Option<usize> {
        let n = usize::try_from(self.u64()?).ok()?;
        (n <= self.data.len()).then_some(n)
    }

    /// `n` values with no length before them.
    pub fn f64s_exact(&mut self, n: usize) -> Option<Vec<f64>> {
        let raw = self.take(n.checked_mul(8)?)?;
        Some(
            raw.chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
                .collect(),
        )
    }

    /// `n` words with no length before them.
    pub fn u32s_exact(&mut self, n: usize) -> Option<Vec<u32>> {
        let raw = self.take(n.checked_mul(4)?)?;
        Some(
            raw.chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap_or([0; 4])))
                .collect(),
        )
    }

    /// An array written by [`LeWriter::f64s_joined`].
    pub fn f64s(&mut self) -> Option<Vec<f64>> {
        let n = self.length()?;
        self.f64s_exact(n)
    }

    /// Bytes written by [`LeWriter::bytes`].
    pub fn bytes(&mut self) -> Option<Vec<u8>> {
        let n = self.length()?;
        Some(self.take(n)?.to_vec())
    }

    /// All the data was read.
    pub fn at_end(&self) -> bool {
        self.at == self.data.len()
    }

    /// Bytes not yet read.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip_and_reads_past_the_end_fail() {
        let mut data = Vec::new();
        let mut w = LeWriter::with_header(&mut data, b"TESTMAGC", 7, 42);
        w.f64s_joined(&[&[1.5, -0.0], &[f64::MIN_POSITIVE]]);
        w.bytes(b"abc");
        w.u32(9);
        w.finish().unwrap();
        assert_eq!(&data[..8], b"TESTMAGC");
        assert_eq!(data.len(), 8 + 8 + 8 + 8 + 24 + 8 + 3 + 4);
        let (mut r, step) = LeReader::after_header(&data, b"TESTMAGC", 7).unwrap();
        assert_eq!(step, 42);
        let v = r.f64s().unwrap();
        assert_eq!(
            v.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            [1.5f64, -0.0, f64::MIN_POSITIVE].map(f64::to_bits)
        );
        assert_eq!(r.bytes().unwrap(), b"abc");
        assert_eq!(r.u32(), Some(9));
        assert!(r.at_end());
        assert_eq!(r.u64(), None);
        assert!(LeReader::after_header(&data, b"TESTMAGC", 8).is_none());
        assert!(LeReader::after_header(&data[..20], b"TESTMAGC", 7).is_none());
        // A length beyond the data is refused before any allocation.
        let mut huge = data[..24].to_vec();
        huge.extend_from_slice(&u64::MAX.to_le_bytes());
        let (mut r, _) = LeReader::after_header(&huge, b"TESTMAGC", 7).unwrap();
        assert_eq!(r.f64s(), None);
    }
}
