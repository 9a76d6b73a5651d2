//! A tiny rasteriser for the plots: an image of palette indices, lines, filled discs and text
//! in a built-in 5x7 bitmap font.

/// Palette indices.
pub const WHITE: u8 = 0;
pub const BLACK: u8 = 1;
pub const GRID: u8 = 2;
pub const BLUE: u8 = 3;
pub const RED: u8 = 4;
pub const GREY: u8 = 5;
pub const NAVY: u8 = 6;

/// The colours of the palette indices above.
pub const PALETTE: [[u8; 3]; 7] = [
    [255, 255, 255],
    [0, 0, 0],
    [225, 225, 225],
    [31, 119, 180],
    [214, 39, 40],
    [140, 140, 140],
    [8, 48, 107],
];

/// An image of palette indices, row by row from the top.
#[derive(Debug, Clone, PartialEq)]
pub struct Canvas {
    pub width: usize,
    pub height: usize,
    pub pixels: Vec<u8>,
}

impl Canvas {
    /// A white canvas.
    pub fn new(width: usize, height: usize) -> Self {
        Canvas {
            width,
            height,
            pixels: vec![WHITE; width * height],
        }
    }

    /// The colour at (x, y).
    pub fn get(&self, x: usize, y: usize) -> u8 {
        self.pixels[y * self.width + x]
    }

    /// Set one pixel (ignored outside the canvas).
    pub fn set(&mut self, x: i64, y: i64, c: u8) {
        if x >= 0 && y >= 0 && (x as usize) < self.width && (y as usize) < self.height {
            self.pixels[y as usize * self.width + x as usize] = c;
        }
    }

    /// A straight line (Bresenham).
    pub fn line(&mut self, x0: i64, y0: i64, x1: i64, y1: i64, c: u8) {
        let (dx, dy) = ((x1 - x0).abs(), -(y1 - y0).abs());
        let (sx, sy) = (if x0 < x1 { 1 } else { -1 }, if y0 < y1 { 1 } else { -1 });
        let (mut x, mut y, mut err) = (x0, y0, dx + dy);
        loop {
            self.set(x, y, c);
            if x == x1 && y == y1 {
                break;
            }
            let e2 = 2 * err;
            if e2 >= dy {
                err += dy;
                x += sx;
            }
            if e2 <= dx {
                err += dx;
                y += sy;
            }
        }
    }

    /// A filled disc of radius `r` pixels centred on (cx, cy) (at least the centre pixel).
    pub fn disc(&mut self, cx: f64, cy: f64, r: f64, c: u8) {
        let (px, py) = (cx.round() as i64, cy.round() as i64);
        let ri = r.ceil() as i64;
        for dy in -ri..=ri {
            for dx in -ri..=ri {
                if ((dx * dx + dy * dy) as f64) <= r * r + 0.25 {
                    self.set(px + dx, py + dy, c);
                }
            }
        }
        self.set(px, py, c);
    }

    /// The outline of a circle of radius `r` pixels centred on (cx, cy).
    pub fn circle(&mut self, cx: f64, cy: f64, r: f64, c: u8) {
        let steps = (8.0 * r).ceil().max(8.0) as usize;
        for k in 0..steps {
            let phi = std::f64::consts::TAU * k as f64 / steps as f64;
            self.set(
                (cx + r * phi.cos()).round() as i64,
                (cy + r * phi.sin()).round() as i64,
                c,
            );
        }
    }

    /// Text with its top-left corner at (x, y), each font pixel `scale` pixels wide.
    pub fn text(&mut self, x: i64, y: i64, s: &str, scale: i64, c: u8) {
        for (k, ch) in s.chars().enumerate() {
            let g = glyph(ch);
            let ox = x + k as i64 * 6 * scale;
            for (row, bits) in g.iter().enumerate() {
                for col in 0..5 {
                    if bits & (0x10 >> col) != 0 {
                        for sy in 0..scale {
                            for sx in 0..scale {
                                self.set(ox + col * scale + sx, y + row as i64 * scale + sy, c);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Text rotated a quarter turn counter-clockwise (reads bottom to top), its glyphs' top-left
    /// at (x, y) for the first character, running upwards.
    pub fn text_up(&mut self, x: i64, y: i64, s: &str, scale: i64, c: u8) {
        for (k, ch) in s.chars().enumerate() {
            let g = glyph(ch);
            let oy = y - k as i64 * 6 * scale;
            for (row, bits) in g.iter().enumerate() {
                for col in 0..5 {
                    if bits & (0x10 >> col) != 0 {
                        for sy in 0..scale {
                            for sx in 0..scale {
                                self.set(x + row as i64 * scale + sx, oy - col * scale - sy, c);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Width in pixels of `s` drawn at `scale`.
pub fn text_width(s: &str, scale: i64) -> i64 {
    (s.chars().count() as i64 * 6 - 1).max(0) * scale
}

/// The 5x7 bitmap of a character (rows top to bottom, bit 4 the leftmost column); upper-case
/// letters without a glyph use the lower-case one, anything else a box.
fn glyph(c: char) -> [u8; 7] {
    match c {
        '0' => [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E],
        '1' => [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
        '2' => [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F],
        '3' => [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
        '4' => [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02],
        '5' => [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
        '6' => [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E],
        '7' => [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        '8' => [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E],
        '9' => [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C],
        ' ' => [0; 7],
        '.' => [0, 0, 0, 0, 0, 0x0C, 0x0C],
        ',' => [0, 0, 0, 0, 0x0C, 0x04, 0x08],
        ':' => [0, 0x0C, 0x0C, 0, 0x0C, 0x0C, 0],
        '-' => [0, 0, 0, 0x1F, 0, 0, 0],
        '+' => [0, 0x04, 0x04, 0x1F, 0x04, 0x04, 0],
        '=' => [0, 0, 0x1F, 0, 0x1F, 0, 0],
        '_' => [0, 0, 0, 0, 0, 0, 0x1F],
        '|' => [0x04; 7],
        '/' => [0, 0x01, 0x02, 0x04, 0x08, 0x10, 0],
        '[' => [0x0E, 0x08, 0x08, 0x08, 0x08, 0x08, 0x0E],
        ']' => [0x0E, 0x02, 0x02, 0x02, 0x02, 0x02, 0x0E],
        '(' => [0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02],
        ')' => [0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08],
        'A' => [0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11],
        'E' => [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F],
        'N' => [0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11],
        'O' => [0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E],
        'U' => [0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E],
        'a' => [0, 0, 0x0E, 0x01, 0x0F, 0x11, 0x0F],
        'b' => [0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x1E],
        'c' => [0, 0, 0x0E, 0x10, 0x10, 0x11, 0x0E],
        'd' => [0x01, 0x01, 0x0D, 0x13, 0x11, 0x11, 0x0F],
        'e' => [0, 0, 0x0E, 0x11, 0x1F, 0x10, 0x0E],
        'f' => [0x06, 0x09, 0x08, 0x1C, 0x08, 0x08, 0x08],
        'g' => [0, 0, 0x0F, 0x11, 0x0F, 0x01, 0x0E],
        'h' => [0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x11],
        'i' => [0x04, 0, 0x0C, 0x04, 0x04, 0x04, 0x0E],
        'j' => [0x02, 0, 0x06, 0x02, 0x02, 0x12, 0x0C],
        'k' => [0x10, 0x10, 0x12, 0x14, 0x18, 0x14, 0x12],
        'l' => [0x0C, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E],
        'm' => [0, 0, 0x1A, 0x15, 0x15, 0x11, 0x11],
        'n' => [0, 0, 0x16, 0x19, 0x11, 0x11, 0x11],
        'o' => [0, 0, 0x0E, 0x11, 0x11, 0x11, 0x0E],
        'p' => [0, 0, 0x1E, 0x11, 0x1E, 0x10, 0x10],
        'q' => [0, 0, 0x0D, 0x13, 0x0F, 0x01, 0x01],
        'r' => [0, 0, 0x16, 0x19, 0x10, 0x10, 0x10],
        's' => [0, 0, 0x0F, 0x10, 0x0E, 0x01, 0x1E],
        't' => [0x08, 0x08, 0x1C, 0x08, 0x08, 0x09, 0x06],
        'u' => [0, 0, 0x11, 0x11, 0x11, 0x13, 0x0D],
        'v' => [0, 0, 0x11, 0x11, 0x11, 0x0A, 0x04],
        'w' => [0, 0, 0x11, 0x11, 0x15, 0x15, 0x0A],
        'x' => [0, 0, 0x11, 0x0A, 0x04, 0x0A, 0x11],
        'y' => [0, 0, 0x11, 0x11, 0x0F, 0x01, 0x0E],
        'z' => [0, 0, 0x1F, 0x02, 0x04, 0x08, 0x1F],
        c if c.is_ascii_uppercase() => glyph(c.to_ascii_lowercase()),
        _ => [0x1F, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1F],
    }
}
