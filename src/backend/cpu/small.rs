//! Passes over many small systems vectorised across systems: the systems are stored in blocks of
//! `B <= SMALL_MAX` slots, and lane l of a group holds system l of [`LANES`] consecutive systems, so
//! every operation on "body b of the system" runs for a whole group at once. Each system gets
//! exactly the arithmetic of its own per-system loop (same terms, same order), so results are
//! bitwise those of the system integrated alone.

/// Receivers per tile of the pair passes, and systems per lane group here (one AVX-512 vector of
/// f64).
pub const LANES: usize = 8;

/// Systems of at most this many bodies (and blocks of many systems of at most this many slots)
/// take the pair-at-once passes (`small_accelerations` and `small_systems` of `pair_forces`), which evaluate
/// every pair once for both of its bodies.
pub const SMALL_MAX: usize = 2 * LANES;

/// One quantity of a group of systems, transposed: body b of lane l at `[b][l]`.
pub type Transposed<const B: usize> = [[f64; LANES]; B];

/// Call `f::<B>(args)` with the block size `$block` (1 to
/// [`SMALL_MAX`]) as a constant.
macro_rules! with_block {
    ($block:expr, $($f:ident)::+ ($($arg:expr),* $(,)?)) => {
        match $block {
            0 | 1 => $($f)::+::<1>($($arg),*),
            2 => $($f)::+::<2>($($arg),*),
            3 => $($f)::+::<3>($($arg),*),
            4 => $($f)::+::<4>($($arg),*),
            5 => $($f)::+::<5>($($arg),*),
            6 => $($f)::+::<6>($($arg),*),
            7 => $($f)::+::<7>($($arg),*),
            8 => $($f)::+::<8>($($arg),*),
            9 => $($f)::+::<9>($($arg),*),
            10 => $($f)::+::<10>($($arg),*),
            11 => $($f)::+::<11>($($arg),*),
            12 => $($f)::+::<12>($($arg),*),
            13 => $($f)::+::<13>($($arg),*),
            14 => $($f)::+::<14>($($arg),*),
            15 => $($f)::+::<15>($($arg),*),
            16 => $($f)::+::<16>($($arg),*),
            b => panic!("blocks of at most {} slots, not {b}", $crate::backend::cpu::small::SMALL_MAX),
        }
    };
}
pub(crate) use with_block;

/// The slots `first * B ..` of up to [`LANES`] systems of `v`, transposed (lanes past the last
/// system hold zeros).
#[inline(always)]
pub fn load<const B: usize>(v: &[f64], first: usize, systems: usize) -> Transposed<B> {
    let mut t = [[0.0; LANES]; B];
    let (rows, _) = v[first * B..(first + systems) * B].as_chunks::<B>();
    if let Ok(rows) = <&[[f64; B]; LANES]>::try_from(rows) {
        // A whole group: constant indices, which compile to shuffles.
        for l in 0..LANES {
            for b in 0..B {
                t[b][l] = rows[l][b];
            }
        }
    } else {
        for (row, l) in rows.iter().zip(0..LANES) {
            for b in 0..B {
                t[b][l] = row[b];
            }
        }
    }
    t
}

/// Write `t` back to the slots of the lanes marked in `write`.
#[inline(always)]
pub fn store<const B: usize>(
    t: &Transposed<B>,
    v: &mut [f64],
    first: usize,
    systems: usize,
    write: &[bool; LANES],
) {
    let (rows, _) = v[first * B..(first + systems) * B].as_chunks_mut::<B>();
    if let (Ok(rows), true) = (
        <&mut [[f64; B]; LANES]>::try_from(&mut *rows),
        write.iter().all(|&w| w),
    ) {
        for l in 0..LANES {
            for b in 0..B {
                rows[l][b] = t[b][l];
            }
        }
        return;
    }
    for (row, l) in rows.iter_mut().zip(0..LANES) {
        if write[l] {
            for b in 0..B {
                row[b] = t[b][l];
            }
        }
    }
}

/// Per-system inputs of the Sun kick.
pub struct SunKickLanes<'a> {
    /// Occupied slots of every system (0 when stopped) and the bodies that pull.
    pub live_len: &'a [u32],
    pub pulling: &'a [u32],
    /// Every system's parameters (for its central mass).
    pub specs: &'a [crate::model::SystemSpec],
}

/// The Sun kick (H_C) of the systems `first .. first + systems` (slots `first * B ..`):
/// `x += (dt / M0) sum m v`, the momentum summed over each system's pulling bodies in slot
/// order, applied to its occupied slots.
#[inline(always)]
pub fn sun_kick<const B: usize>(
    first: usize,
    systems: usize,
    dt: f64,
    lanes: &SunKickLanes<'_>,
    m: &[f64],
    v: [&[f64]; 3],
    x: [&mut [f64]; 3],
) {
    for g in (0..systems).step_by(LANES) {
        let n = LANES.min(systems - g);
        let s0 = first + g;
        let mass = load::<B>(m, s0, n);
        // Counts as f64, so that every lane operation below is a vector operation.
        let (mut len, mut pulls, mut m0) = ([0.0; LANES], [0.0; LANES], [1.0; LANES]);
        for l in 0..n {
            len[l] = lanes.live_len[s0 + l] as f64;
            pulls[l] = lanes.pulling[s0 + l] as f64;
            m0[l] = lanes.specs[s0 + l].m0;
        }
        let factor: [f64; LANES] = std::array::from_fn(|l| dt / m0[l]);
        let write = std::array::from_fn(|l| len[l] > 0.0);
        for c in 0..3 {
            let vel = load::<B>(v[c], s0, n);
            let mut mom = [0.0; LANES];
            for b in 0..B {
                for l in 0..LANES {
                    let term = mass[b][l] * vel[b][l];
                    mom[l] += if (b as f64) < pulls[l] { term } else { 0.0 };
                }
            }
            let mut pos = load::<B>(x[c], s0, n);
            for b in 0..B {
                for l in 0..LANES {
                    let moved = pos[b][l] + factor[l] * mom[l];
                    pos[b][l] = if (b as f64) < len[l] {
                        moved
                    } else {
                        pos[b][l]
                    };
                }
            }
            store::<B>(&pos, x[c], s0, n, &write);
        }
    }
}
