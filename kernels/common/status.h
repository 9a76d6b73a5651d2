/*
 * status.h — the words of the status buffer of the hybrid kernels, the one small buffer the
 * host reads once per substep. src/backend/status.rs names the same indices; the host C build
 * (kernels/host/native.c, orrery_native_status_words) exports these, and a test asserts that
 * both agree.
 */
#ifndef ORRERY_STATUS_H
#define ORRERY_STATUS_H

/* The lowest slot whose Kepler drift failed (0xffffffff: none). */
#define ORR_STATUS_DRIFT_FAILED 0
/* Non-zero when a critical radius grew beyond the precheck factor times the one the stored
 * accelerations were computed with (the opening kick then recomputes every pair). */
#define ORR_STATUS_RADII_GREW 1
/* Length of the candidate pair list. */
#define ORR_STATUS_CANDIDATES 2
/* Pairs the last encounter search confirmed. */
#define ORR_STATUS_ENCOUNTERS 3
/* Occupied slots the last ejection check found beyond the truncation radii. */
#define ORR_STATUS_EJECTIONS 4
/* Non-zero when a round of the union-find (groups.cl) changed a label. */
#define ORR_STATUS_LINK_CHANGED 5
/* Bodies the union-find's compaction listed (orr_link_compact). */
#define ORR_STATUS_TOUCHED 6
/* Words in the buffer. */
#define ORR_STATUS_LEN 7

#endif /* ORRERY_STATUS_H */
