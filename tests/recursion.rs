//! Recursive symplectic sub-steps of close-encounter groups (issue 27; GENGA's `Symplectic
//! recursion levels` and `sub steps`): a dense ring whose critical radii chain pairs into large
//! groups keeps its energy as well as with Bulirsch-Stoer of whole groups, with far fewer
//! Bulirsch-Stoer steps; mergers happen at the deepest level; the results do not depend on the
//! thread count and resume bitwise; the settings are read from scenarios and GENGA param files
//! and refused, naming the field, when out of range; one level is the plain hybrid step.

mod common;
use common::runs::*;
use common::*;
use orrery::backend::cpu::CpuBackend;
use orrery::config::{self, Overrides};
use orrery::physics::recursion::Recursion;

fn cpu() -> Box<CpuBackend> {
    Box::new(CpuBackend::default())
}

fn chained(dir: &std::path::Path, name: &str, recursion: &str, steps: &str) -> std::path::PathBuf {
    let fill = [("RECURSION", recursion), ("STEPS", steps), ("OUT", "x")];
    write_scenario(dir, name, CHAINED, &fill)
}

#[test]
fn sub_steps_keep_the_energy_of_a_chained_ring_with_far_less_bulirsch_stoer() {
    let d = scratch("recursion-energy");
    let plain = run_on(&chained(&d, "plain", "", "60"), &d.join("plain"), cpu());
    let rec = run_on(&chained(&d, "rec", RECURSION, "60"), &d.join("rec"), cpu());
    let deep = run_on(
        &chained(&d, "deep", "recursion: (levels: 3, sub_steps: 4),", "60"),
        &d.join("deep"),
        cpu(),
    );
    for s in [&plain, &rec, &deep] {
        println!("{}", s.report());
    }
    // The ring chains pairs into groups larger than the device's Bulirsch-Stoer limit.
    assert!(plain.groups.largest_group > 16, "{}", plain.report());
    assert_eq!(rec.groups.largest_group, plain.groups.largest_group);
    // Level 1 forms groups, and only they take Bulirsch-Stoer: a handful of bodies each
    // instead of the chained groups.
    assert!(rec.groups.levels.groups[1] > 0 && rec.groups.levels.largest[1] >= 2);
    assert!(rec.groups.levels.largest[1] * 10 < plain.groups.largest_group);
    assert!(
        deep.groups.levels.groups[2] > 0,
        "three levels reach level 2"
    );
    assert!(deep.groups.levels.largest[2] * 10 < plain.groups.largest_group);
    // Energy: as good as Bulirsch-Stoer of the whole groups (within a factor 3, and small).
    for s in [&rec, &deep] {
        let e = s.rel_energy_error.abs();
        assert!(
            e < 1e-9 && e < 3.0 * plain.rel_energy_error.abs() + 1e-11,
            "energy {e:e} against {:e}",
            plain.rel_energy_error
        );
        assert!(s.rel_angular_momentum_error.abs() < 1e-12);
    }
}

#[test]
fn mergers_happen_in_the_deepest_level_and_conserve_energy_with_u() {
    let d = scratch("recursion-events");
    let text = with_recursion(EVENTS);
    let scenario = write_scenario(&d, "events", &text, &[("ORDER", "2"), ("OUT", "x")]);
    let plain_scenario = write_scenario(&d, "plain", EVENTS, &[("ORDER", "2"), ("OUT", "x")]);
    let s = run_on(&scenario, &d.join("rec"), cpu());
    let p = run_on(&plain_scenario, &d.join("plain"), cpu());
    println!("{}\n{}", s.report(), p.report());
    assert!(s.collisions >= 1, "{}", s.report());
    assert!(s.groups.levels.groups[1] > 0);
    let e = s.rel_energy_error.abs();
    assert!(
        e < 1e-6 && e < 10.0 * p.rel_energy_error.abs() + 1e-10,
        "energy {e:e} against {:e}",
        p.rel_energy_error
    );
}

#[test]
fn results_do_not_depend_on_the_thread_count_and_resume_bitwise() {
    let d = scratch("recursion-threads");
    let scenario = chained(&d, "rec", RECURSION, "30");
    let s = scenario.to_str().unwrap();
    for threads in ["1", "2"] {
        let out = d.join(format!("t{threads}"));
        let o = orrery(&[
            "run",
            s,
            "--threads",
            threads,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    assert_same_outputs(&d.join("t2"), &d.join("t1"), false, "threads 2 against 1");
    // Stop at step 10 (a checkpoint), resume to the end: the uninterrupted run's bytes.
    let out = d.join("resumed");
    run_until(&scenario, &out, cpu(), Some(10), false);
    run_until(&scenario, &out, cpu(), None, true);
    assert_same_outputs(&out, &d.join("t1"), true, "resumed");
}

#[test]
fn one_level_is_the_plain_hybrid_step() {
    let d = scratch("recursion-one-level");
    let one = chained(&d, "one", "recursion: (levels: 1, sub_steps: 7),", "20");
    let none = chained(&d, "none", "", "20");
    run_on(&one, &d.join("one"), cpu());
    run_on(&none, &d.join("none"), cpu());
    assert_same_outputs(&d.join("one"), &d.join("none"), false, "levels 1");
}

#[test]
fn settings_are_read_from_scenarios_and_param_files() {
    let d = scratch("recursion-settings");
    let load = |p: &std::path::Path| {
        config::load(p, &Overrides::default())
            .expect("loads")
            .0
            .recursion
    };
    let scenario = chained(&d, "rec", "recursion: (levels: 3, sub_steps: 4),", "5");
    assert_eq!(
        load(&scenario),
        Recursion {
            levels: 3,
            sub_steps: 4
        }
    );
    let param = d.join("param.dat");
    std::fs::write(
        d.join("ic.dat"),
        "1 0 0 3e-6 0 1 0\n1.1 0 0 3e-6 0 0.95 0\n",
    )
    .unwrap();
    std::fs::write(
        &param,
        "Time step in days = 6\nInput file = ic.dat\nSymplectic recursion levels = 2\n\
         Symplectic recursion sub steps = 10\n",
    )
    .unwrap();
    assert_eq!(
        load(&param),
        Recursion {
            levels: 2,
            sub_steps: 10
        }
    );
}

#[test]
fn settings_out_of_range_are_refused_naming_the_field() {
    let d = scratch("recursion-refused");
    for (text, field) in [
        ("recursion: (levels: 0),", "recursion.levels"),
        ("recursion: (levels: 9, sub_steps: 2),", "recursion.levels"),
        (
            "recursion: (levels: 2, sub_steps: 1),",
            "recursion.sub_steps",
        ),
    ] {
        let s = chained(&d, "bad", text, "5");
        refused(&d, &["run", s.to_str().unwrap()], &[field, "expected"]);
    }
    let s = chained(&d, "typo", "recursion: (level: 2),", "5");
    refused(&d, &["run", s.to_str().unwrap()], &["level"]);
    let param = d.join("param.dat");
    std::fs::write(
        &param,
        "Time step in days = 6\nSymplectic recursion levels = 2\nSymplectic recursion sub steps = 1\n",
    )
    .unwrap();
    let err = refused(
        &d,
        &["run", param.to_str().unwrap()],
        &["Symplectic recursion sub steps"],
    );
    assert!(err.contains("line 3"), "{err}");
}
