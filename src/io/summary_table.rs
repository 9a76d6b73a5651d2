//! The ensemble table `summary.csv`: its one home. The hybrid run writes it at the end of an
//! ensemble run (a `--multi` list writes none: its simulations write their own files),
//! `orrery merge` reads the shards' tables and writes the unsharded run's. Columns:
//! `system,seed,survived,first_event_time_yr,first_event,n_final`, how the system stopped
//! (`stop,stop_time_yr,stop_step,stop_body_i,stop_body_j,stop_distance_au`, empty for a system
//! that ran to the end), its chaos indicators (`megno,lyapunov_per_yr`, empty without
//! `chaos: (megno: true)`), then `id<k>,a<k>,e<k>,inc<k>_deg` for every body slot `k`, empty
//! for slots a system no longer fills.

use crate::model::StopRecord;
use std::fmt::Write as _;

/// The columns before the bodies'.
const FIXED: &str = "system,seed,survived,first_event_time_yr,first_event,n_final,\
                     stop,stop_time_yr,stop_step,stop_body_i,stop_body_j,stop_distance_au,\
                     megno,lyapunov_per_yr";
/// Columns per body slot.
const PER_BODY: usize = 4;
/// The cells of an empty body slot.
pub const EMPTY_SLOT: &str = ",,,,";

/// The header of a table with `slots` body slots.
pub fn header(slots: usize) -> String {
    let mut row = String::from(FIXED);
    for k in 0..slots {
        let _ = write!(row, ",id{k},a{k},e{k},inc{k}_deg");
    }
    row
}

/// Whether `header` is one this version writes: its fixed columns, then body slots.
pub fn header_is_current(header: &str) -> bool {
    header
        .strip_prefix(FIXED)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(",id0,"))
}

/// The fixed columns, for messages.
pub fn fixed_columns() -> &'static str {
    FIXED
}

/// The body slots a header names.
pub fn header_slots(header: &str) -> usize {
    header
        .split(',')
        .count()
        .saturating_sub(FIXED.split(',').count())
        / PER_BODY
}

/// A row's system index (its first cell), if it has one.
pub fn row_system(row: &str) -> Option<usize> {
    row.split(',').next().and_then(|v| v.parse().ok())
}

/// One system's row without its bodies, into `row` (cleared first): its index, seed, whether it
/// survived, the time (years) and kind of its first event, its bodies at the end, and how it
/// stopped if it did.
pub fn start_row(
    row: &mut String,
    system: usize,
    seed: Option<u64>,
    survived: bool,
    first_event: (Option<f64>, &str),
    n_final: usize,
    stop: Option<&StopRecord>,
) {
    row.clear();
    let text = |v: Option<String>| v.unwrap_or_default();
    let seed = text(seed.map(|x| x.to_string()));
    let t = text(first_event.0.map(|t| format!("{t:e}")));
    let _ = write!(
        row,
        "{system},{seed},{survived},{t},{},{n_final}",
        first_event.1
    );
    match stop {
        None => row.push_str(",,,,,,"),
        Some(s) => {
            let [i, j] = s.bodies.map(|b| text(b.map(|id| id.to_string())));
            let d = text(s.distance.map(|d| format!("{d:e}")));
            let (why, t, step) = (s.reason.name(), s.years, s.step);
            let _ = write!(row, ",{why},{t:e},{step},{i},{j},{d}");
        }
    }
}

/// The chaos indicators' cells after [`start_row`]'s: MEGNO and the Lyapunov exponent (per
/// year), or empty.
pub fn push_chaos(row: &mut String, chaos: Option<(f64, f64)>) {
    match chaos {
        Some((megno, lyapunov)) => {
            let _ = write!(row, ",{megno:e},{lyapunov:e}");
        }
        None => row.push_str(",,"),
    }
}

/// One body's cells: its id, and its a (AU), e and inclination (degrees) at the end.
pub fn push_body(row: &mut String, id: u64, a: f64, e: f64, inc_deg: f64) {
    let _ = write!(row, ",{id},{a:e},{e:e},{inc_deg:e}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_and_its_header_agree() {
        let head = header(3);
        assert_eq!(header_slots(&head), 3);
        assert!(header_is_current(&head) && header_is_current(&header(0)));
        // A table of the version before the stop columns is not.
        let old = "system,seed,survived,first_event_time_yr,first_event,n_final,id0,a0,e0,inc0_deg";
        assert!(!header_is_current(old));
        // Nor is one of the version before the chaos columns.
        let old = header(1).replace(",megno,lyapunov_per_yr", "");
        assert!(!header_is_current(&old));
        let mut row = String::new();
        let stop = StopRecord {
            step: 40,
            years: 12.5,
            reason: crate::model::StopReason::MinimumBodies,
            bodies: [Some(2), Some(4)],
            distance: Some(1e-4),
        };
        start_row(
            &mut row,
            17,
            Some(5),
            false,
            (Some(12.5), "collision"),
            1,
            Some(&stop),
        );
        push_chaos(&mut row, Some((2.5, 1e-5)));
        push_body(&mut row, 2, 5.2, 0.05, 1.5);
        row.push_str(EMPTY_SLOT);
        row.push_str(EMPTY_SLOT);
        assert_eq!(row.split(',').count(), head.split(',').count());
        assert_eq!(row_system(&row), Some(17));
        let want = "17,5,false,1.25e1,collision,1,minimum bodies,1.25e1,40,2,4,1e-4,2.5e0,1e-5,2,\
                    5.2e0,5e-2";
        assert!(row.starts_with(want), "{row}");
        // A system that ran to the end leaves the stop's cells empty.
        start_row(&mut row, 3, None, true, (None, ""), 2, None);
        push_chaos(&mut row, None);
        assert_eq!(row, "3,,true,,,2,,,,,,,,");
    }
}
