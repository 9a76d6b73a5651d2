//! `orrery elements FILE`: heliocentric orbital elements of every body of a snapshot, as a
//! whitespace table with a `#` header (`numpy.loadtxt` reads it).

use super::files::SnapshotRow;
use crate::physics::elements::elements_from_cartesian;
use std::fmt::Write as _;

/// The header line naming the columns.
pub const HEADER: &str = "# t i m a e inc node peri M";

/// The table: a comment line with the units, the header, then per body `t i m a e inc node peri
/// M` (years, index, Msun, AU, -, degrees), with `mu = G (central_mass + m)` (G = 1).
pub fn table(rows: &[SnapshotRow], central_mass: f64, source: &str) -> String {
    let mut s = format!(
        "# orrery elements of {source}: heliocentric, mu = G (M0 + m) with M0 = {central_mass} \
         Msun; t [yr], i, m [Msun], a [AU], e, inc, node (Omega), peri (omega), M [degrees]\n\
         {HEADER}\n"
    );
    let deg = 180.0 / std::f64::consts::PI;
    for r in rows {
        let el = elements_from_cartesian(central_mass + r.m, r.pos, r.vel);
        let _ = writeln!(
            s,
            "{:e} {} {:e} {:e} {:e} {:e} {:e} {:e} {:e}",
            r.t,
            r.id,
            r.m,
            el.a,
            el.e,
            el.inc * deg,
            el.node * deg,
            el.peri * deg,
            el.mean_anomaly * deg
        );
    }
    s
}
