//! The PTX of `cuda/*.cu`, built by `build.rs` (nvcc, or clang 19) for sm_70, sm_80 and sm_90
//! with floating-point contraction off, and embedded in the binary.

include!(concat!(env!("OUT_DIR"), "/ptx_modules.rs"));

/// The PTX targets, newest first, as (compute capability, name).
pub const TARGETS: [((u32, u32), &str); 3] =
    [((9, 0), "sm_90"), ((8, 0), "sm_80"), ((7, 0), "sm_70")];

/// The newest target a device of compute capability `cc` runs (PTX is compiled forward by the
/// driver), or `None` when it is older than every target.
pub fn target_for(cc: (u32, u32)) -> Option<&'static str> {
    TARGETS
        .iter()
        .find(|(min, _)| cc >= *min)
        .map(|(_, name)| *name)
}

/// The PTX text of `module` (a `cuda/<module>.cu`) for `target`.
pub fn module(module: &str, target: &str) -> Option<&'static str> {
    MODULES
        .iter()
        .find(|(m, t, _)| *m == module && *t == target)
        .map(|(_, _, text)| *text)
}
