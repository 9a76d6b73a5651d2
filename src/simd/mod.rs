//! The vector instruction set, chosen at run time.
//!
//! The binary is built for the baseline x86-64 (SSE2), so it runs on any x86-64 CPU; the hot
//! passes are compiled a second and third time with AVX2 + FMA and with AVX-512 enabled, and
//! [`dispatch`] / [`dispatch_lanes`] run the best version the CPU has ([`dispatch_sized`] runs
//! a pass over a few slots inline in baseline code instead, and [`dispatch_avx`] runs the narrow
//! AVX lanes of one small system in the AVX2 version also on AVX-512 CPUs). Each version is the same
//! Rust code: Rust never contracts `a * b + c` into an FMA and never reorders float operations,
//! and the explicit lane types of [`crate::simd::lanes`] are bitwise the scalar operations,
//! so every level gives the same bits; only the width of the instructions changes.
//!
//! The level is detected once. `ORRERY_SIMD=avx512|avx2|base` forces a lower level (a level the
//! CPU lacks is refused with a warning, and the best available level is used); [`with_level`]
//! forces one for a closure (the tests). The choice is made per pass call or per rayon task,
//! never per body.

#[cfg(target_arch = "x86_64")]
pub mod lanes;

use crate::simd::lanes::Avx512;
use crate::simd::lanes::{GroupIo, Portable, Wide};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Mutex, OnceLock};

/// An instruction-set level of the hot passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// The build's target (x86-64: SSE2); the only level on other architectures.
    Base,
    /// x86-64-v3: AVX2, FMA, BMI1/2, LZCNT, MOVBE.
    Avx2,
    /// x86-64-v4: the AVX2 level and AVX-512 F, BW, CD, DQ, VL.
    Avx512,
}

impl Level {
    /// Every level, lowest first.
    pub const ALL: [Level; 3] = [Level::Base, Level::Avx2, Level::Avx512];

    /// The name `ORRERY_SIMD` takes.
    pub fn name(self) -> &'static str {
        match self {
            Level::Base => "base",
            Level::Avx2 => "avx2",
            Level::Avx512 => "avx512",
        }
    }

    /// The level called `name` (as [`Level::name`]).
    pub fn parse(name: &str) -> Option<Level> {
        Level::ALL.into_iter().find(|l| l.name() == name.trim())
    }

    /// Whether this CPU runs the level.
    pub fn supported(self) -> bool {
        self <= detected()
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The highest level this CPU runs.
pub fn detected() -> Level {
    static DETECTED: OnceLock<Level> = OnceLock::new();
    *DETECTED.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            macro_rules! all {
                ($($f:tt),*) => { true $(&& std::arch::is_x86_feature_detected!($f))* };
            }
            let avx2 = all!(
                "avx", "avx2", "fma", "bmi1", "bmi2", "f16c", "lzcnt", "movbe", "popcnt", "sse3",
                "ssse3", "sse4.1", "sse4.2"
            );
            let avx512 = all!("avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl");
            if avx2 && avx512 {
                return Level::Avx512;
            }
            if avx2 {
                return Level::Avx2;
            }
        }
        Level::Base
    })
}

/// The levels this CPU runs, lowest first.
pub fn supported_levels() -> Vec<Level> {
    Level::ALL.into_iter().filter(|l| l.supported()).collect()
}

/// The detected level, lowered by `ORRERY_SIMD` when set.
fn chosen() -> Level {
    static CHOSEN: OnceLock<Level> = OnceLock::new();
    *CHOSEN.get_or_init(|| {
        let best = detected();
        let Ok(name) = std::env::var("ORRERY_SIMD") else {
            return best;
        };
        match Level::parse(&name) {
            Some(l) if l <= best => l,
            Some(l) => {
                eprintln!("warning: ORRERY_SIMD={name}: this CPU lacks {l}; using {best}");
                best
            }
            None => {
                eprintln!("warning: ORRERY_SIMD={name} is not avx512, avx2 or base; using {best}");
                best
            }
        }
    })
}

/// The level forced by [`with_level`], plus one (0: none).
static FORCED: AtomicU8 = AtomicU8::new(0);

/// The level the passes run at now.
#[inline]
pub fn level() -> Level {
    match FORCED.load(Ordering::Relaxed) {
        0 => chosen(),
        k => Level::ALL[k as usize - 1],
    }
}

/// Run `f` with every pass at `level` (for tests and comparisons). The level is process-wide
/// while `f` runs (rayon's threads follow it), and calls of `with_level` take turns; passes run
/// by other threads meanwhile also take `level`, which gives them the same bits.
///
/// # Panics
/// If the CPU lacks `level`.
pub fn with_level<R>(level: Level, f: impl FnOnce() -> R) -> R {
    assert!(level.supported(), "this CPU lacks the SIMD level {level}");
    static TURN: Mutex<()> = Mutex::new(());
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            FORCED.store(0, Ordering::Relaxed);
        }
    }
    let _reset = Reset;
    FORCED.store(level as u8 + 1, Ordering::Relaxed);
    f()
}

/// Run `f` compiled for the current [`level`]. `f` and everything hot it calls must be
/// `#[inline(always)]` (or small `#[inline]` functions) so that LLVM compiles them into the
/// level's wrapper with its features; pass closures as `dispatch(#[inline(always)] || ...)`.
#[inline(always)]
pub fn dispatch<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    match level() {
        // SAFETY: `level` returns only levels the CPU supports.
        Level::Avx512 => return unsafe { x86::avx512(f) },
        Level::Avx2 => return unsafe { x86::avx2(f) },
        Level::Base => {}
    }
    f()
}

/// Slots from which a per-slot pass is worth the run-time SIMD level: below, [`dispatch_sized`]
/// runs it inline in baseline code, since the call into a level's wrapper costs more than a
/// few slots of work (one small system's passes).
pub const DISPATCH_MIN: usize = 32;

/// [`dispatch`] for a pass over `len` slots: inline below [`DISPATCH_MIN`] slots. The bits are
/// the same either way.
#[inline(always)]
pub fn dispatch_sized<R>(len: usize, f: impl FnOnce() -> R) -> R {
    if len < DISPATCH_MIN {
        f()
    } else {
        dispatch(f)
    }
}

/// `avx(arg)` compiled for the AVX2 level when the current [`level`] has AVX (the AVX2 and
/// AVX-512 levels), `base(arg)` otherwise: for code using 256-bit AVX intrinsics (the narrow
/// lane groups [`crate::simd::lanes::Avx2`]), chosen with one reading of the level. The
/// AVX-512 level takes the AVX2 code too: LLVM's AVX-512 code for these kernels (compares into
/// mask registers) drifted 8 bodies in 322 ns instead of 238 ns on a Xeon; the bits are the
/// same. Both closures as in [`dispatch`].
#[inline(always)]
pub fn dispatch_avx<A, R>(arg: A, avx: impl FnOnce(A) -> R, base: impl FnOnce(A) -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if level() >= Level::Avx2 {
        // SAFETY: `level` returns only levels the CPU supports, and AVX-512 includes AVX2.
        return unsafe {
            x86::avx2(
                #[inline(always)]
                || avx(arg),
            )
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    drop(avx);
    base(arg)
}

/// A kernel over the narrow lane groups of one small system, generic over their width `W` (4
/// or 8) and type `V`: [`dispatch_narrow`] picks both.
pub trait NarrowKernel {
    type Output;
    /// The kernel on groups `V` of `W` lanes; implementations must be `#[inline(always)]`.
    fn run<const W: usize, V: GroupIo<W>>(self) -> Self::Output;
}

/// Run the kernel `k` for `n` slots on narrow lane groups: 4 lanes up to 4 slots, 8 beyond, as
/// AVX vectors ([`crate::simd::lanes::Avx2`], through [`dispatch_avx`]) where the CPU has
/// them and as arrays ([`Wide`]) otherwise. The bits are the same either way.
#[inline(always)]
pub fn dispatch_narrow<K: NarrowKernel>(n: usize, k: K) -> K::Output {
    let four = n <= 4;
    dispatch_avx(
        k,
        #[inline(always)]
        |k| {
            #[cfg(target_arch = "x86_64")]
            {
                use crate::simd::lanes::Avx2;
                match four {
                    true => k.run::<4, Avx2<1>>(),
                    false => k.run::<8, Avx2<2>>(),
                }
            }
            #[cfg(not(target_arch = "x86_64"))]
            unreachable!("AVX is an x86-64 level")
        },
        #[inline(always)]
        |k| match four {
            true => k.run::<4, Wide<4>>(),
            false => k.run::<8, Wide<8>>(),
        },
    )
}

/// A kernel generic over the lane group: [`dispatch_lanes`] runs it on [`Avx512`] at the
/// AVX-512 level and on [`Portable`] otherwise.
pub trait LaneKernel {
    type Output;
    /// The kernel on the lane group `G`; implementations must be `#[inline(always)]`.
    fn run<G: GroupIo>(self) -> Self::Output;
}

/// Run the kernel `k` compiled for the current [`level`], on its lane group.
#[inline(always)]
pub fn dispatch_lanes<K: LaneKernel>(k: K) -> K::Output {
    #[cfg(target_arch = "x86_64")]
    match level() {
        // SAFETY: `level` returns only levels the CPU supports.
        Level::Avx512 => return unsafe { x86::avx512_lanes(k) },
        Level::Avx2 => {
            return unsafe {
                x86::avx2(
                    #[inline(always)]
                    || k.run::<Portable>(),
                )
            }
        }
        Level::Base => {}
    }
    k.run::<Portable>()
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Avx512, LaneKernel};

    /// `f` with the AVX2 level's features. Safety: the CPU must have them.
    #[target_feature(
        enable = "avx,avx2,fma,bmi1,bmi2,f16c,lzcnt,movbe,popcnt,sse3,ssse3,sse4.1,sse4.2"
    )]
    pub(super) unsafe fn avx2<R>(f: impl FnOnce() -> R) -> R {
        f()
    }

    /// `f` with the AVX-512 level's features. Safety: the CPU must have them.
    #[target_feature(
        enable = "avx,avx2,fma,bmi1,bmi2,f16c,lzcnt,movbe,popcnt,sse3,ssse3,sse4.1,sse4.2,avx512f,avx512bw,avx512cd,avx512dq,avx512vl"
    )]
    pub(super) unsafe fn avx512<R>(f: impl FnOnce() -> R) -> R {
        f()
    }

    /// `k` on AVX-512 lanes. Safety: the CPU must have the AVX-512 level's features.
    #[target_feature(
        enable = "avx,avx2,fma,bmi1,bmi2,f16c,lzcnt,movbe,popcnt,sse3,ssse3,sse4.1,sse4.2,avx512f,avx512bw,avx512cd,avx512dq,avx512vl"
    )]
    pub(super) unsafe fn avx512_lanes<K: LaneKernel>(k: K) -> K::Output {
        k.run::<Avx512>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_levels_are_ordered() {
        for l in Level::ALL {
            assert_eq!(Level::parse(l.name()), Some(l));
        }
        assert_eq!(Level::parse("sse9"), None);
        assert!(Level::Base < Level::Avx2 && Level::Avx2 < Level::Avx512);
        assert!(Level::Base.supported());
        assert!(supported_levels().contains(&detected()));
    }

    #[test]
    fn with_level_forces_the_level_and_restores_it() {
        for l in supported_levels() {
            assert_eq!(with_level(l, level), l);
        }
    }
}
