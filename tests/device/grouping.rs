//! The union-find grouping on the device against the CPU's groups (part of passes.rs, whose
//! helpers it uses): random encounter sets of every shape, a long chain and a giant group.

use super::*;

/// A random encounter set inside the systems of `layout` (unique pairs, as candidates are:
/// both massive, or a massive body then a test particle): chains, stars, disjoint pairs, one
/// group of up to 60, and a mix of every size class.
fn encounter_set(rng: &mut Rng, layout: &Layout, kind: u64) -> Vec<(u32, u32)> {
    let mut pairs = std::collections::BTreeSet::new();
    let live: Vec<usize> = (0..layout.systems.len())
        .filter(|&s| layout.systems[s].active && layout.systems[s].massive >= 1)
        .collect();
    if live.is_empty() {
        return Vec::new();
    }
    let mut add = |s: usize, a: usize, b: usize| {
        let sys = layout.systems[s];
        let (a, b) = (a.min(b), a.max(b));
        if a == b || a >= sys.massive || b >= sys.len {
            return;
        }
        let base = s * layout.block;
        pairs.insert(((base + a) as u32, (base + b) as u32));
    };
    let groups = 1 + rng.next_u64() % 12;
    for g in 0..groups {
        let s = live[(rng.next_u64() % live.len() as u64) as usize];
        let (len, massive) = (layout.systems[s].len, layout.systems[s].massive);
        let size = match kind % 5 {
            0 | 1 => 2 + (rng.next_u64() % 16) as usize,
            2 => 2,
            3 if g == 0 => 60,
            _ => 2 + (rng.next_u64() % (2 + g * 3)) as usize,
        }
        .min(len);
        // Random members; the first is massive (every pair needs one).
        let mut members = vec![(rng.next_u64() % massive as u64) as usize];
        for _ in 1..size {
            members.push((rng.next_u64() % len as u64) as usize);
        }
        for k in 1..members.len() {
            match kind % 5 {
                // A chain through massive bodies where it can, or a star on the first.
                0 => add(s, members[k - 1].min(massive - 1), members[k]),
                1 => add(s, members[0], members[k]),
                _ => {
                    let prev = members[(rng.next_u64() % k as u64) as usize];
                    add(s, prev.min(massive - 1), members[k])
                }
            }
        }
    }
    let mut out: Vec<(u32, u32)> = pairs.into_iter().collect();
    for i in (1..out.len()).rev() {
        out.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
    }
    out
}

/// The groups exported by both backends agree exactly: members, order, test-particle flags,
/// loaded states bitwise, labels.
fn same_groups(cpu: &mut CpuHybrid, dev: &mut DeviceHybrid, what: &str) -> usize {
    let (FieldData::Groups(a), FieldData::Groups(b)) = (
        cpu.export_field(Field::Groups).unwrap(),
        dev.export_field(Field::Groups).unwrap(),
    ) else {
        panic!("{what}: not groups");
    };
    assert_eq!(a.len(), b.len(), "{what}: number of groups");
    for g in 0..a.len() {
        assert_eq!(a.slots(g), b.slots(g), "{what}: group {g} members");
        assert_eq!(
            a.is_test_particle(g),
            b.is_test_particle(g),
            "{what}: group {g}"
        );
        let (x, y) = (a.state(g), b.state(g));
        let flat3 = |v: &[[f64; 3]]| bits(&v.concat());
        assert_eq!(bits(&x.m), bits(&y.m), "{what}: group {g} m");
        assert_eq!(bits(&x.r), bits(&y.r), "{what}: group {g} r");
        assert_eq!(bits(&x.rcrit), bits(&y.rcrit), "{what}: group {g} rcrit");
        assert_eq!(flat3(&x.pos), flat3(&y.pos), "{what}: group {g} pos");
        assert_eq!(flat3(&x.vel), flat3(&y.vel), "{what}: group {g} vel");
        assert_eq!(flat3(&x.spin), flat3(&y.spin), "{what}: group {g} spin");
        assert_eq!(x.id, y.id, "{what}: group {g} ids");
        assert_eq!(x.alive, y.alive, "{what}: group {g} alive");
    }
    let (ga, gb) = (a.groups(), b.groups());
    assert_eq!(ga.offsets(), gb.offsets(), "{what}: offsets");
    assert_eq!(ga.all_members(), gb.all_members(), "{what}: members");
    for k in 0..cpu.layout().block * cpu.layout().systems.len() {
        assert_eq!(ga.group_of(k), gb.group_of(k), "{what}: group of {k}");
    }
    a.len()
}

#[test]
fn grouping_is_the_cpu_groups_on_random_encounter_sets() {
    let Some(mut dev) = device_or_skip("grouping_is_the_cpu_groups_on_random_encounter_sets")
    else {
        return;
    };
    // A seed whose sets make groups of every size from 2 to 12 and one of 60 or more (the
    // coverage asserted below).
    let mut rng = Rng::new(98);
    let mut sizes = std::collections::BTreeSet::new();
    let mut total = 0;
    for seed in [21, 22] {
        for (name, snap) in states(seed) {
            // Every occupied body at one position and velocity: the search confirms every
            // listed pair (minimum distance 0 below the critical radius).
            let mut snap = snap;
            for k in 0..snap.bodies.len() {
                (snap.bodies.x[k], snap.bodies.y[k], snap.bodies.z[k]) = (1.0, 0.5, 0.25);
                (snap.bodies.vx[k], snap.bodies.vy[k], snap.bodies.vz[k]) = (0.1, 0.7, 0.0);
            }
            for kind in 0..10 {
                let what = format!("{name}, set {kind}");
                let pairs = encounter_set(&mut rng, &snap.layout, kind);
                let mut cpu = both(&mut dev, &snap);
                // Through the candidate list and the device's search flags.
                let f = FieldData::Candidates(pairs.clone());
                cpu.import_field(f.clone()).unwrap();
                dev.import_field(f).unwrap();
                cpu.save_candidate_states();
                dev.save_candidate_states();
                cpu.encounter_search(0.1);
                dev.encounter_search(0.1);
                let (sa, sb) = (cpu.status().unwrap(), dev.status().unwrap());
                assert_eq!(sa, sb, "{what}: status");
                assert_eq!(sa.encounters as usize, pairs.len(), "{what}: all confirmed");
                if pairs.is_empty() {
                    continue;
                }
                let (mut st_a, mut st_b) = Default::default();
                cpu.group_encounters(&mut st_a).unwrap();
                dev.group_encounters(&mut st_b).unwrap();
                assert_eq!(st_a, st_b, "{what}: stats");
                let n = same_groups(&mut cpu, &mut dev, &what);
                if let FieldData::Groups(g) = cpu.export_field(Field::Groups).unwrap() {
                    for k in 0..g.len() {
                        sizes.insert(g.slots(k).len());
                    }
                }
                total += n;
                // Through imported encounters (the search on the CPU): the host's pairs
                // uploaded for the union-find.
                let enc = cpu.export_field(Field::Encounters).unwrap();
                dev.import_field(enc).unwrap();
                let (mut st_a, mut st_b) = Default::default();
                cpu.group_encounters(&mut st_a).unwrap();
                dev.group_encounters(&mut st_b).unwrap();
                assert_eq!(st_a, st_b, "{what}, imported: stats");
                same_groups(&mut cpu, &mut dev, &format!("{what}, imported"));
            }
        }
    }
    assert!(total > 200, "few groups: {total}");
    assert!(
        (2..=12).all(|s| sizes.contains(&s)) && sizes.iter().any(|&s| s >= 60),
        "size classes: {sizes:?}"
    );
    let _ = writeln!(
        std::io::stderr(),
        "grouping: {total} groups, sizes {sizes:?}"
    );
}

/// The union-find converges on the device for a long chain linked from the far end and
/// shuffled, and for one giant star, through the search's flags and through imported pairs.
#[test]
fn grouping_of_a_long_chain_and_a_giant_group_is_the_cpus() {
    let Some(mut dev) = device_or_skip("grouping_of_a_long_chain_and_a_giant_group_is_the_cpus")
    else {
        return;
    };
    let mut rng = Rng::new(5);
    let n = 1500;
    let mut snap = state(&mut rng, n, &[sys(n, n)], false);
    for k in 0..n {
        (snap.bodies.x[k], snap.bodies.y[k], snap.bodies.z[k]) = (1.0, 0.0, 0.0);
        (snap.bodies.vx[k], snap.bodies.vy[k], snap.bodies.vz[k]) = (0.0, 1.0, 0.0);
    }
    let mut cpu = both(&mut dev, &snap);
    cpu.critical_radii(&params());
    dev.critical_radii(&params());
    let chain: Vec<(u32, u32)> = (1..n as u32).rev().map(|k| (k - 1, k)).collect();
    let mut shuffled = chain.clone();
    for i in (1..shuffled.len()).rev() {
        shuffled.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
    }
    let star: Vec<(u32, u32)> = (0..n as u32 - 1).map(|k| (k, n as u32 - 1)).collect();
    for (name, pairs) in [
        ("chain", chain),
        ("shuffled chain", shuffled),
        ("star", star),
    ] {
        let f = FieldData::Candidates(pairs.clone());
        cpu.import_field(f.clone()).unwrap();
        dev.import_field(f).unwrap();
        cpu.save_candidate_states();
        dev.save_candidate_states();
        cpu.encounter_search(0.1);
        dev.encounter_search(0.1);
        let (sa, sb) = (cpu.status().unwrap(), dev.status().unwrap());
        assert_eq!((sa, sa.encounters as usize), (sb, pairs.len()), "{name}");
        let (mut st_a, mut st_b) = Default::default();
        cpu.group_encounters(&mut st_a).unwrap();
        dev.group_encounters(&mut st_b).unwrap();
        assert_eq!(st_a, st_b, "{name}: stats");
        assert_eq!(same_groups(&mut cpu, &mut dev, name), 1, "{name}");
        let enc = cpu.export_field(Field::Encounters).unwrap();
        dev.import_field(enc).unwrap();
        let (mut st_a, mut st_b) = Default::default();
        cpu.group_encounters(&mut st_a).unwrap();
        dev.group_encounters(&mut st_b).unwrap();
        assert_eq!(st_a, st_b, "{name}, imported: stats");
        same_groups(&mut cpu, &mut dev, &format!("{name}, imported"));
    }
}
