//! The sheet engine's kernels (`kernels/sheet.cl`, `kernels/common/sheet.h`) against the CPU
//! reference without any OpenCL or CUDA runtime: `build.rs` compiles them for the host
//! (`kernels/host/native.c`) as C99 and as C++, and the kernels that need no work-group
//! cooperation (all but the sort, the scans and the root cube) run there as loops over their
//! work-item or work-group index. Every test requires the CPU's bits: the same Morton keys,
//! moments, accelerations and interaction counts, the same candidate pairs in the same order,
//! and the resolution in rounds giving the sequential loop's velocities (the host's `pow` is the
//! C library's, as the CPU's `powf`).

use super::boundary::{GhostShift, Shear};
use super::collisions::{self, Pair, Restitution};
use super::gravity::GravityParams;
use super::scenario::Sheet;
use super::tree::{self, Tree};
use super::{sei, CpuSheet, Particles, SheetBackend, SheetParams, SheetPassTimes};

/// The `extern "C"` wrappers of one host build of native.c, with the symbol prefix `$prefix`.
macro_rules! sheet_build {
    ($module:ident, $prefix:literal) => {
        mod $module {
            extern "C" {
                #[link_name = concat!($prefix, "sheet_drift")]
                pub fn drift(
                    n: u32,
                    x: *mut f64,
                    y: *mut f64,
                    z: *mut f64,
                    vx: *mut f64,
                    vy: *mut f64,
                    vz: *mut f64,
                    omega: f64,
                    dt: f64,
                    c: f64,
                    s: f64,
                );
                #[link_name = concat!($prefix, "sheet_boundary")]
                pub fn boundary(
                    n: u32,
                    x: *mut f64,
                    y: *mut f64,
                    vy: *mut f64,
                    omega: f64,
                    l: f64,
                    t: f64,
                );
                #[link_name = concat!($prefix, "sheet_keys")]
                pub fn keys(
                    n: u32,
                    x: *const f64,
                    y: *const f64,
                    z: *const f64,
                    cube: f64,
                    keys: *mut u64,
                    vals: *mut u32,
                );
                #[link_name = concat!($prefix, "sheet_moments")]
                pub fn moments(
                    nodes: u32,
                    start: *const u32,
                    end: *const u32,
                    first: *const u32,
                    nchild: *const u32,
                    level: *const u32,
                    x: *const f64,
                    y: *const f64,
                    z: *const f64,
                    m: *const f64,
                    r: *const f64,
                    cube: f64,
                    cells: *mut f64,
                );
                #[link_name = concat!($prefix, "sheet_gravity")]
                pub fn gravity(
                    ngroups: u32,
                    groups: *const u32,
                    start: *const u32,
                    end: *const u32,
                    first: *const u32,
                    nchild: *const u32,
                    cells: *const f64,
                    x: *const f64,
                    y: *const f64,
                    z: *const f64,
                    m: *const f64,
                    ghosts: *const f64,
                    nghosts: u32,
                    inv_theta: f64,
                    eps2: f64,
                    g: f64,
                    ax: *mut f64,
                    ay: *mut f64,
                    az: *mut f64,
                    pp: *mut u64,
                    pc: *mut u64,
                );
                #[link_name = concat!($prefix, "sheet_collisions")]
                pub fn collisions(
                    nleaves: u32,
                    leaves: *const u32,
                    start: *const u32,
                    end: *const u32,
                    first: *const u32,
                    nchild: *const u32,
                    cells: *const f64,
                    x: *const f64,
                    y: *const f64,
                    z: *const f64,
                    vx: *const f64,
                    vy: *const f64,
                    vz: *const f64,
                    r: *const f64,
                    ghosts: *const f64,
                    nghosts: u32,
                    n: u32,
                    count: *mut u32,
                    offset: *mut u32,
                    cap: u32,
                    pi: *mut u32,
                    pj: *mut u32,
                    pg: *mut u32,
                ) -> u32;
                #[link_name = concat!($prefix, "sheet_resolve")]
                pub fn resolve(
                    npairs: u32,
                    pi: *const u32,
                    pj: *const u32,
                    pg: *const u32,
                    ghosts: *const f64,
                    x: *const f64,
                    y: *const f64,
                    z: *const f64,
                    vx: *mut f64,
                    vy: *mut f64,
                    vz: *mut f64,
                    m: *const f64,
                    n: u32,
                    count: *mut u32,
                    offset: *mut u32,
                    fill: *mut u32,
                    list: *mut u32,
                    prev_i: *mut u32,
                    prev_j: *mut u32,
                    done: *mut u32,
                    kind: u32,
                    value: f64,
                    rounds: *mut u32,
                ) -> u32;
            }
        }
    };
}
sheet_build!(c99, "orrery_native_");
sheet_build!(cxx, "orrery_native_cxx_");

/// The tree's node arrays as the kernels take them: start, end, first child, children, level.
struct NodeArrays([Vec<u32>; 5]);

impl NodeArrays {
    fn of(t: &Tree) -> Self {
        let col = |f: fn(&tree::Node) -> u32| t.nodes.iter().map(f).collect();
        NodeArrays([
            col(|n| n.start),
            col(|n| n.end),
            col(|n| n.first_child),
            col(|n| n.n_children),
            col(|n| n.level),
        ])
    }
}

/// A cell's 20 words (`kernels/common/sheet.h`, `CELL_*`).
fn cell_words(c: &tree::Cell) -> Vec<f64> {
    let mut w = Vec::with_capacity(20);
    w.extend(c.lo);
    w.extend(c.hi);
    w.extend(c.com);
    w.push(c.mass);
    w.extend(c.quad);
    w.extend([c.size, c.delta, c.rmax, 0.0]);
    w
}

fn ghost_words(g: &[GhostShift]) -> Vec<f64> {
    g.iter().flat_map(|s| [s.dx, s.dy, s.dvy]).collect()
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// A ring of about 700 particles after two CPU steps (overlapping, colliding), in Morton order
/// with its tree and moments.
fn ring_state() -> (SheetParams, CpuSheet) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/inputs/ring.ron");
    let mut sc = Sheet::load(std::path::Path::new(path)).expect("inputs/ring.ron");
    sc.box_size = 42.0;
    let params = sc.params();
    let mut cpu = CpuSheet::new(params, sc.generate());
    let mut times = SheetPassTimes::default();
    for k in 0..2 {
        super::step(&mut cpu, k as f64 * params.dt, params.dt, &mut times).unwrap();
    }
    cpu.build_tree().unwrap();
    cpu.moments().unwrap();
    (params, cpu)
}

macro_rules! for_each_build {
    ($body:ident) => {
        $body!(c99, "C99");
        $body!(cxx, "C++");
    };
}

#[test]
fn sheet_integration_keys_and_wrap_are_bitwise_the_cpu() {
    let (params, cpu) = ring_state();
    let p = &cpu.particles;
    let n = p.len() as u32;
    let dt = 0.37 * params.dt;
    let e = sei::Epicycle::new(params.omega, dt);
    let mut want = p.clone();
    sei::drift(&e, &mut want);
    let shear = Shear {
        l: params.box_size,
        omega: params.omega,
    };
    let t = 1.7e6;
    let mut moved = p.clone();
    for k in 0..moved.len() {
        moved.x[k] *= 1.0 + (k % 5) as f64 * 0.3;
        moved.y[k] -= 1.3 * params.box_size * (k % 3) as f64;
    }
    let mut wrapped = moved.clone();
    shear.apply(&mut wrapped, t);
    let cube = tree::root_cube(p, params.box_size);
    let keys: Vec<u64> = (0..p.len())
        .map(|k| tree::morton_key(p.x[k], p.y[k], p.z[k], cube))
        .collect();
    let phi = params.omega * dt;
    macro_rules! check {
        ($m:ident, $name:literal) => {{
            let mut q = p.clone();
            // SAFETY: every array has n elements.
            unsafe {
                $m::drift(
                    n,
                    q.x.as_mut_ptr(),
                    q.y.as_mut_ptr(),
                    q.z.as_mut_ptr(),
                    q.vx.as_mut_ptr(),
                    q.vy.as_mut_ptr(),
                    q.vz.as_mut_ptr(),
                    params.omega,
                    dt,
                    phi.cos(),
                    phi.sin(),
                )
            };
            assert_eq!(q, want, "{}: drift", $name);
            let mut w = moved.clone();
            // SAFETY: as above.
            unsafe {
                $m::boundary(
                    n,
                    w.x.as_mut_ptr(),
                    w.y.as_mut_ptr(),
                    w.vy.as_mut_ptr(),
                    params.omega,
                    params.box_size,
                    t,
                )
            };
            assert_eq!(bits(&w.x), bits(&wrapped.x), "{}: wrap x", $name);
            assert_eq!(bits(&w.y), bits(&wrapped.y), "{}: wrap y", $name);
            assert_eq!(bits(&w.vy), bits(&wrapped.vy), "{}: wrap vy", $name);
            let (mut k, mut v) = (vec![0u64; p.len()], vec![0u32; p.len()]);
            // SAFETY: as above.
            unsafe {
                $m::keys(
                    n,
                    p.x.as_ptr(),
                    p.y.as_ptr(),
                    p.z.as_ptr(),
                    cube,
                    k.as_mut_ptr(),
                    v.as_mut_ptr(),
                )
            };
            assert_eq!(k, keys, "{}: Morton keys", $name);
        }};
    }
    for_each_build!(check);
}

#[test]
fn sheet_moments_gravity_and_collision_kernels_are_bitwise_the_cpu() {
    let (params, mut cpu) = ring_state();
    let t = 3.0 * params.dt;
    cpu.gravity(t).unwrap();
    let want_acc = cpu.acc.clone();
    let want_stats = cpu.gravity_stats;
    cpu.collision_search(t).unwrap();
    let want_pairs = cpu.pairs.clone();
    assert!(want_pairs.len() > 50, "few pairs: {}", want_pairs.len());
    let shear = Shear {
        l: params.box_size,
        omega: params.omega,
    };
    let ghosts = ghost_words(&shear.ghosts(params.ghosts, t));
    let ng = (ghosts.len() / 3) as u32;
    let gp = GravityParams {
        g: params.g,
        theta: params.theta,
        softening: params.softening,
    };
    let p = &cpu.particles;
    let tr = &cpu.tree;
    let nodes = NodeArrays::of(tr);
    let [start, end, first, nchild, level] = &nodes.0;
    let want_cells: Vec<f64> = tr.cells.iter().flat_map(cell_words).collect();
    let cube = tree::root_cube(p, params.box_size);
    let n = p.len();
    macro_rules! check {
        ($m:ident, $name:literal) => {{
            let mut cells = vec![0.0; want_cells.len()];
            // SAFETY: node arrays of tr.nodes.len(), particle arrays of n, 20 words per cell.
            unsafe {
                $m::moments(
                    tr.nodes.len() as u32,
                    start.as_ptr(),
                    end.as_ptr(),
                    first.as_ptr(),
                    nchild.as_ptr(),
                    level.as_ptr(),
                    p.x.as_ptr(),
                    p.y.as_ptr(),
                    p.z.as_ptr(),
                    p.m.as_ptr(),
                    p.r.as_ptr(),
                    cube,
                    cells.as_mut_ptr(),
                )
            };
            assert_eq!(bits(&cells), bits(&want_cells), "{}: moments", $name);
            let (mut ax, mut ay, mut az) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
            let (mut pp, mut pc) = (vec![0u64; tr.groups.len()], vec![0u64; tr.groups.len()]);
            // SAFETY: as above; the ghosts have 3 words each, pp and pc one per group.
            unsafe {
                $m::gravity(
                    tr.groups.len() as u32,
                    tr.groups.as_ptr(),
                    start.as_ptr(),
                    end.as_ptr(),
                    first.as_ptr(),
                    nchild.as_ptr(),
                    cells.as_ptr(),
                    p.x.as_ptr(),
                    p.y.as_ptr(),
                    p.z.as_ptr(),
                    p.m.as_ptr(),
                    ghosts.as_ptr(),
                    ng,
                    1.0 / gp.theta,
                    gp.softening * gp.softening,
                    gp.g,
                    ax.as_mut_ptr(),
                    ay.as_mut_ptr(),
                    az.as_mut_ptr(),
                    pp.as_mut_ptr(),
                    pc.as_mut_ptr(),
                )
            };
            let acc: Vec<[f64; 3]> = (0..n).map(|k| [ax[k], ay[k], az[k]]).collect();
            let flat = |a: &[[f64; 3]]| bits(&a.concat());
            assert_eq!(flat(&acc), flat(&want_acc), "{}: accelerations", $name);
            assert_eq!(
                (pp.iter().sum::<u64>(), pc.iter().sum::<u64>()),
                (want_stats.pp, want_stats.pc),
                "{}: interaction counts",
                $name
            );
            let (mut count, mut offset) = (vec![0u32; n], vec![0u32; n]);
            let cap = 4 * n;
            let (mut pi, mut pj, mut pg) = (vec![0u32; cap], vec![0u32; cap], vec![0u32; cap]);
            // SAFETY: as above; the pair arrays hold cap entries.
            let total = unsafe {
                $m::collisions(
                    tr.leaves.len() as u32,
                    tr.leaves.as_ptr(),
                    start.as_ptr(),
                    end.as_ptr(),
                    first.as_ptr(),
                    nchild.as_ptr(),
                    cells.as_ptr(),
                    p.x.as_ptr(),
                    p.y.as_ptr(),
                    p.z.as_ptr(),
                    p.vx.as_ptr(),
                    p.vy.as_ptr(),
                    p.vz.as_ptr(),
                    p.r.as_ptr(),
                    ghosts.as_ptr(),
                    ng,
                    n as u32,
                    count.as_mut_ptr(),
                    offset.as_mut_ptr(),
                    cap as u32,
                    pi.as_mut_ptr(),
                    pj.as_mut_ptr(),
                    pg.as_mut_ptr(),
                )
            } as usize;
            assert!(total <= cap);
            let pairs: Vec<Pair> = (0..total)
                .map(|k| Pair {
                    i: pi[k],
                    j: pj[k],
                    ghost: pg[k],
                })
                .collect();
            assert_eq!(pairs, want_pairs, "{}: candidate pairs", $name);
        }};
    }
    for_each_build!(check);
}

#[test]
fn resolution_in_rounds_is_the_sequential_loop_bit_for_bit() {
    let (params, mut cpu) = ring_state();
    let t = 2.0 * params.dt;
    cpu.collision_search(t).unwrap();
    let pairs = cpu.pairs.clone();
    let shear = Shear {
        l: params.box_size,
        omega: params.omega,
    };
    let g = shear.ghosts(params.ghosts, t);
    let ghosts = ghost_words(&g);
    for rest in [
        Restitution::Bridges { v_c: 7.7e-5 },
        Restitution::Constant(0.5),
    ] {
        let mut want: Particles = cpu.particles.clone();
        let resolved = collisions::resolve(&mut want, &pairs, &g, &rest);
        assert!(resolved > 50, "few resolutions: {resolved}");
        let (kind, value) = match rest {
            Restitution::Bridges { v_c } => (0, v_c),
            Restitution::Constant(e) => (1, e),
        };
        let (pi, pj, pg): (Vec<u32>, Vec<u32>, Vec<u32>) = (
            pairs.iter().map(|q| q.i).collect(),
            pairs.iter().map(|q| q.j).collect(),
            pairs.iter().map(|q| q.ghost).collect(),
        );
        macro_rules! check {
            ($m:ident, $name:literal) => {{
                let mut q = cpu.particles.clone();
                let np = pairs.len();
                let mut per_particle = vec![vec![0u32; q.len()]; 3];
                let mut per_pair = vec![vec![0u32; np]; 4];
                let [count, offset, fill] = &mut per_particle[..] else {
                    unreachable!()
                };
                let [list, prev_i, prev_j, done] = &mut per_pair[..] else {
                    unreachable!()
                };
                let mut rounds = 0u32;
                // SAFETY: pair arrays of pairs.len() words, particle arrays of q.len().
                let got = unsafe {
                    $m::resolve(
                        pairs.len() as u32,
                        pi.as_ptr(),
                        pj.as_ptr(),
                        pg.as_ptr(),
                        ghosts.as_ptr(),
                        q.x.as_ptr(),
                        q.y.as_ptr(),
                        q.z.as_ptr(),
                        q.vx.as_mut_ptr(),
                        q.vy.as_mut_ptr(),
                        q.vz.as_mut_ptr(),
                        q.m.as_ptr(),
                        q.len() as u32,
                        count.as_mut_ptr(),
                        offset.as_mut_ptr(),
                        fill.as_mut_ptr(),
                        list.as_mut_ptr(),
                        prev_i.as_mut_ptr(),
                        prev_j.as_mut_ptr(),
                        done.as_mut_ptr(),
                        kind,
                        value,
                        &mut rounds,
                    )
                } as usize;
                assert_eq!(got, resolved, "{}: resolved count", $name);
                assert_eq!(q, want, "{}: velocities after {rounds} rounds", $name);
                assert!(
                    rounds > 1 && (rounds as usize) < pairs.len(),
                    "{rounds} rounds"
                );
                eprintln!(
                    "{}: {} pairs resolved in {rounds} rounds",
                    $name,
                    pairs.len()
                );
            }};
        }
        for_each_build!(check);
    }
}
