//! The words of the hybrid kernels' status buffer, the one small buffer the host reads once per
//! substep. The indices are `kernels/common/status.h`'s `ORR_STATUS_*`; the host C build of
//! that header exports them, and `device_math_tests` asserts that both agree.

/// The lowest slot whose Kepler drift failed (`u32::MAX`: none).
pub const STATUS_DRIFT_FAILED: usize = 0;
/// Non-zero when a critical radius grew beyond the precheck factor times the one the stored
/// accelerations were computed with (the opening kick then recomputes every pair).
pub const STATUS_RADII_GREW: usize = 1;
/// Length of the candidate pair list.
pub const STATUS_CANDIDATES: usize = 2;
/// Pairs the last encounter search confirmed.
pub const STATUS_ENCOUNTERS: usize = 3;
/// Occupied slots the last ejection check found beyond the truncation radii.
pub const STATUS_EJECTIONS: usize = 4;
/// Non-zero when a round of the union-find changed a label.
pub const STATUS_LINK_CHANGED: usize = 5;
/// Bodies the union-find's compaction listed.
pub const STATUS_TOUCHED: usize = 6;
/// Words in the buffer.
pub const STATUS_LEN: usize = 7;

/// The words in `status.h`'s order, then the length (as the host C build exports them).
pub const STATUS_WORDS: [usize; 8] = [
    STATUS_DRIFT_FAILED,
    STATUS_RADII_GREW,
    STATUS_CANDIDATES,
    STATUS_ENCOUNTERS,
    STATUS_EJECTIONS,
    STATUS_LINK_CHANGED,
    STATUS_TOUCHED,
    STATUS_LEN,
];
