//! Tests of the CPU engine's layout bookkeeping (removal and compaction).

use super::*;
use crate::model::System;
use crate::state::Body;

/// Two systems in blocks of 6: (3 massive + 3 test particles) and (4 massive); body ids
/// are 10 s + slot.
fn engine() -> CpuHybrid {
    let mut b = Bodies::default();
    for s in 0..2 {
        for k in 0..6 {
            b.push(&Body {
                id: 10 * s + k,
                m: if s == 0 && k >= 3 { 0.0 } else { 1e-6 },
                r: 1e-5,
                pos: [1.0 + k as f64, s as f64, 0.0],
                vel: [0.0, 1.0, 0.0],
                spin: [0.0; 3],
            });
        }
    }
    let sys = |len, massive| System {
        len,
        massive,
        spec: None,
        active: true,
        central_spin: [0.0; 3],
    };
    let mut e = CpuHybrid::default();
    e.restore(HybridSnapshot {
        bodies: b,
        layout: Layout {
            block: 6,
            systems: vec![sys(6, 3), sys(4, 4)],
            semi_active: false,
            changeover: crate::physics::changeover::Changeover::Genga,
        },
        ..Default::default()
    });
    e
}

fn ids(e: &CpuHybrid, s: usize) -> Vec<u64> {
    e.layout.range(s).map(|k| e.b.id[k]).collect()
}

#[test]
fn a_removed_body_takes_the_last_body_of_its_system_and_massive_bodies_stay_first() {
    let mut e = engine();
    // A test particle: the system's last body takes its slot.
    e.removed.flag(3);
    e.remove_flagged();
    assert_eq!(ids(&e, 0), [0, 1, 2, 5, 4]);
    assert_eq!(
        (e.layout.systems[0].len, e.layout.systems[0].massive),
        (5, 3)
    );
    // A massive body: the last massive body takes its slot, the last body that one's.
    e.removed.flag(0);
    e.remove_flagged();
    assert_eq!(ids(&e, 0), [2, 1, 4, 5]);
    assert_eq!(
        (e.layout.systems[0].len, e.layout.systems[0].massive),
        (4, 2)
    );
    // Several at once, the moved-in bodies flagged too, in both systems.
    e.removed.flag(0);
    e.removed.flag(3);
    e.removed.flag(6 + 1);
    e.removed.flag(6 + 3);
    e.remove_flagged();
    assert_eq!(ids(&e, 0), [1, 4]);
    assert_eq!(
        (e.layout.systems[0].len, e.layout.systems[0].massive),
        (2, 1)
    );
    assert_eq!(ids(&e, 1), [10, 12]);
    assert_eq!(
        (e.layout.systems[1].len, e.layout.systems[1].massive),
        (2, 2)
    );
    assert!(e.removed.flags.iter().all(|&f| !f) && e.removed.slots.is_empty());
    // Every body except the last of a system.
    e.removed.flag(0);
    e.removed.flag(1);
    e.remove_flagged();
    assert_eq!(ids(&e, 0), Vec::<u64>::new());
    assert_eq!(ids(&e, 1), [10, 12]);
}

/// A failed Kepler drift is reported by the next status, naming the body, for one small
/// system and for one system of several work pieces (the failing body in the last piece, so
/// that the earlier pieces' success cannot hide it), and in a fused substep.
#[test]
fn a_failed_drift_is_reported_whatever_the_work_pieces() {
    let p = StepParams {
        m0: 1.0,
        tau: 0.1,
        n1: 3.0,
        n2: 0.4,
        inner_truncation: 0.0,
        outer_truncation: 1e9,
        forces: crate::physics::forces::Forces::NONE,
        recursion: crate::physics::recursion::Recursion::OFF,
        rcrit_floor: 0.0,
    };
    for n in [5, 3 * CHUNK / 2] {
        let mut b = Bodies::default();
        for k in 0..n {
            let a = 1.0 + k as f64 / n as f64;
            b.push(&Body {
                id: k as u64,
                m: 1e-9,
                r: 1e-6,
                pos: [a, 0.0, 0.0],
                vel: [0.0, a.recip().sqrt(), 0.0],
                spin: [0.0; 3],
            });
        }
        // No position: the drift has no orbit to follow (before or after a Sun kick).
        let bad = n - 2;
        b.x[bad] = f64::NAN;
        let mut e = CpuHybrid::default();
        e.restore(HybridSnapshot {
            bodies: b,
            ..Default::default()
        });
        e.critical_radii(&p);
        e.drift(&p, p.tau);
        let err = e.status().expect_err("the drift failed").to_string();
        assert!(err.contains(&format!("body {bad} ")), "{n} bodies: {err}");
        assert!(
            e.status().is_ok(),
            "{n} bodies: the failure is reported once"
        );
        if n <= pair_forces::SMALL_MAX {
            let fused = e.fused_substep(&p, p.tau).expect("a small system fuses");
            let err = fused.expect_err("the drift failed").to_string();
            assert!(err.contains(&format!("body {bad} ")), "fused: {err}");
        }
    }
}
