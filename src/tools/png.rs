//! A small PNG encoder for indexed-colour images (8-bit palette): zlib stream of fixed-Huffman
//! deflate blocks whose matches repeat the previous byte or copy the row above (plots are mostly
//! flat colour, so this compresses them well), CRC-32 per chunk and Adler-32 per stream.

/// CRC-32 (ISO 3309, the PNG chunk checksum).
pub fn crc32(data: &[u8]) -> u32 {
    const TABLE: [u32; 256] = {
        let mut t = [0u32; 256];
        let mut n = 0;
        while n < 256 {
            let mut c = n as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
                k += 1;
            }
            t[n] = c;
            n += 1;
        }
        t
    };
    !data.iter().fold(!0u32, |c, &b| {
        TABLE[((c ^ b as u32) & 0xFF) as usize] ^ (c >> 8)
    })
}

/// Adler-32 (the zlib stream checksum).
pub fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for chunk in data.chunks(5552) {
        for &x in chunk {
            a += x as u32;
            b += a;
        }
        a %= 65521;
        b %= 65521;
    }
    (b << 16) | a
}

/// LSB-first bit writer of a deflate stream.
struct Bits {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl Bits {
    fn put(&mut self, value: u32, count: u32) {
        self.acc |= (value as u64) << self.n;
        self.n += count;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }
    /// A Huffman code, sent most significant bit first.
    fn code(&mut self, code: u32, len: u32) {
        let rev = code.reverse_bits() >> (32 - len);
        self.put(rev, len);
    }
    fn finish(mut self) -> Vec<u8> {
        if self.n > 0 {
            self.out.push(self.acc as u8);
        }
        self.out
    }
}

/// Fixed-Huffman literal/length symbol.
fn symbol(b: &mut Bits, s: u32) {
    match s {
        0..=143 => b.code(0x30 + s, 8),
        144..=255 => b.code(0x190 + s - 144, 9),
        256..=279 => b.code(s - 256, 7),
        _ => b.code(0xC0 + s - 280, 8),
    }
}

const LEN_BASE: [u32; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
    163, 195, 227, 258,
];
const LEN_EXTRA: [u32; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
const DIST_BASE: [u32; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
    2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
const DIST_EXTRA: [u32; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];

fn match_code(b: &mut Bits, len: usize, dist: usize) {
    let (len, dist) = (len as u32, dist as u32);
    let k = LEN_BASE.iter().rposition(|&x| x <= len).unwrap_or(0);
    symbol(b, 257 + k as u32);
    b.put(len - LEN_BASE[k], LEN_EXTRA[k]);
    let d = DIST_BASE.iter().rposition(|&x| x <= dist).unwrap_or(0);
    b.code(d as u32, 5);
    b.put(dist - DIST_BASE[d], DIST_EXTRA[d]);
}

/// A zlib stream of `data`: one fixed-Huffman block whose matches are runs of the previous
/// byte (distance 1) or copies of the byte `stride` back (the row above), whichever is longer.
pub fn zlib(data: &[u8], stride: usize) -> Vec<u8> {
    let mut b = Bits {
        out: vec![0x78, 0x01],
        acc: 0,
        n: 0,
    };
    b.put(1, 1); // final block
    b.put(1, 2); // fixed Huffman
    let run = |at: usize, dist: usize| {
        if dist == 0 || dist > at || dist > 32768 {
            return 0;
        }
        let max = (data.len() - at).min(258);
        (0..max)
            .take_while(|&k| data[at + k] == data[at + k - dist])
            .count()
    };
    let mut at = 0;
    while at < data.len() {
        let (l1, l2) = (run(at, 1), run(at, stride));
        let (len, dist) = if l2 > l1 { (l2, stride) } else { (l1, 1) };
        if len >= 3 {
            match_code(&mut b, len, dist);
            at += len;
        } else {
            symbol(&mut b, data[at] as u32);
            at += 1;
        }
    }
    symbol(&mut b, 256);
    let mut out = b.finish();
    out.extend_from_slice(&adler32(data).to_be_bytes());
    out
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

/// A PNG file of a `width` x `height` image of palette indices (row by row, top first).
pub fn encode_indexed(width: usize, height: usize, pixels: &[u8], palette: &[[u8; 3]]) -> Vec<u8> {
    assert_eq!(pixels.len(), width * height, "pixel count");
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&(width as u32).to_be_bytes());
    ihdr.extend_from_slice(&(height as u32).to_be_bytes());
    ihdr.extend_from_slice(&[8, 3, 0, 0, 0]); // 8-bit, indexed colour, no interlace
    chunk(&mut out, b"IHDR", &ihdr);
    let plte: Vec<u8> = palette.iter().flatten().copied().collect();
    chunk(&mut out, b"PLTE", &plte);
    let mut raw = Vec::with_capacity((width + 1) * height);
    for row in pixels.chunks_exact(width.max(1)) {
        raw.push(0); // filter: none
        raw.extend_from_slice(row);
    }
    chunk(&mut out, b"IDAT", &zlib(&raw, width + 1));
    chunk(&mut out, b"IEND", &[]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_match_the_reference_values() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b"IEND"), 0xAE42_6082);
        assert_eq!(adler32(b"Wikipedia"), 0x11E6_0398);
    }
}
