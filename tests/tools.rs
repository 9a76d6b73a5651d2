//! `orrery elements` and `orrery plot` (issue 12, section 7): elements of known orbits come
//! back, PNG files are valid (checked by an independent decoder, chunk CRCs by hand) and a known
//! body lands on the pixel its axis ranges put it at.

mod common;
use common::*;
use orrery::physics::elements::cartesian_from_elements;
use orrery::tools::plot::{BOTTOM, GAP, HEIGHT, LEFT, RIGHT, TOP, WIDTH};
use std::path::Path;

const DEG: f64 = std::f64::consts::PI / 180.0;

/// (m, a, e, inc, node, peri, M) in Msun, AU and degrees.
const ORBITS: [(f64, f64, f64, f64, f64, f64, f64); 3] = [
    (3e-6, 1.0, 0.5, 10.0, 40.0, 60.0, 100.0),
    (1e-3, 1.6, 0.1, 3.0, 200.0, 300.0, 10.0),
    (0.0, 0.7, 0.05, 25.0, 120.0, 15.0, 250.0),
];

/// A text snapshot and a binary one of the orbits around a central mass `m0`.
fn write_snapshots(dir: &Path, m0: f64) -> (String, String) {
    let mut text = String::new();
    let mut bin = Vec::new();
    for (k, &(m, a, e, i, o, w, ma)) in ORBITS.iter().enumerate() {
        let (p, v) = cartesian_from_elements(m0 + m, a, e, i * DEG, o * DEG, w * DEG, ma * DEG)
            .expect("valid elements");
        let row = [
            2.5, k as f64, m, 1e-5, p[0], p[1], p[2], v[0], v[1], v[2], 0.0, 0.0, 0.0,
        ];
        text.push_str(&format!("{}\n", row.map(|x| format!("{x:e}")).join(" ")));
        for x in row {
            bin.extend_from_slice(&x.to_le_bytes());
        }
    }
    let t = dir.join("Outknown_000000000010.dat");
    let b = dir.join("Outknown_000000000010.bin");
    std::fs::write(&t, text).unwrap();
    std::fs::write(&b, bin).unwrap();
    (t.to_str().unwrap().into(), b.to_str().unwrap().into())
}

fn angle_close(a: f64, b: f64) -> bool {
    let d = (a - b).rem_euclid(360.0);
    d.min(360.0 - d) < 1e-7
}

#[test]
fn elements_of_known_orbits_come_back_from_text_and_binary_snapshots() {
    let d = scratch("elements");
    let m0 = 0.8;
    let (text, bin) = write_snapshots(&d, m0);
    for file in [&text, &bin] {
        let o = orrery(&["elements", file, "--central-mass", "0.8"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = String::from_utf8(o.stdout).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].starts_with('#') && lines[1] == "# t i m a e inc node peri M");
        let rows: Vec<Vec<f64>> = lines
            .iter()
            .filter(|l| !l.starts_with('#'))
            .map(|l| l.split_whitespace().map(|w| w.parse().unwrap()).collect())
            .collect();
        assert_eq!(rows.len(), ORBITS.len());
        for (row, &(m, a, e, i, o, w, ma)) in rows.iter().zip(&ORBITS) {
            assert_eq!(row.len(), 9, "{row:?}");
            assert_eq!((row[0], row[2]), (2.5, m));
            assert!(
                (row[3] - a).abs() < 1e-10 && (row[4] - e).abs() < 1e-10,
                "{row:?}"
            );
            for (got, want) in [(row[5], i), (row[6], o), (row[7], w), (row[8], ma)] {
                assert!(angle_close(got, want), "{got} vs {want} in {row:?}");
            }
        }
    }
    // With the wrong central mass the semi-major axes differ: the option is used.
    let o = orrery(&["elements", &text]);
    let out = String::from_utf8(o.stdout).unwrap();
    let a0: f64 = out
        .lines()
        .nth(2)
        .unwrap()
        .split_whitespace()
        .nth(3)
        .unwrap()
        .parse()
        .unwrap();
    assert!((a0 - 1.0).abs() > 1e-3);
    // A broken snapshot is a located input error.
    std::fs::write(d.join("bad.dat"), "1 0 1e-9 0 1 0 0 0 1 0 0 0\n").unwrap();
    let o = orrery(&["elements", d.join("bad.dat").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad.dat, line 1"), "{}", stderr(&o));
}

/// Decode a PNG with the `png` crate (which checks every chunk's CRC) into RGB rows.
fn decode_png(path: &Path) -> (usize, usize, Vec<u8>) {
    let data = std::fs::read(path).unwrap();
    assert_eq!(&data[..8], b"\x89PNG\r\n\x1a\n");
    let mut dec = png::Decoder::new(&data[..]);
    dec.set_transformations(png::Transformations::EXPAND);
    let mut reader = dec.read_info().expect("PNG header");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("PNG image data");
    assert_eq!(info.color_type, png::ColorType::Rgb);
    buf.truncate(info.buffer_size());
    (info.width as usize, info.height as usize, buf)
}

const BLUE: [u8; 3] = [31, 119, 180];

fn rgb(img: &(usize, usize, Vec<u8>), x: usize, y: usize) -> [u8; 3] {
    let k = 3 * (y * img.0 + x);
    [img.2[k], img.2[k + 1], img.2[k + 2]]
}

#[test]
fn ae_plot_puts_a_known_body_at_its_pixel() {
    let d = scratch("plot-ae");
    let (text, _) = write_snapshots(&d, 1.0);
    let png = d.join("a_e.png");
    let o = orrery(&[
        "plot",
        "ae",
        &text,
        "-o",
        png.to_str().unwrap(),
        "--xlim",
        "0,2",
        "--ylim",
        "0,1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let img = decode_png(&png);
    assert_eq!((img.0, img.1), (WIDTH, HEIGHT));
    // The plot area spans LEFT ..= WIDTH - RIGHT - 1 and TOP ..= HEIGHT - BOTTOM - 1.
    let at = |a: f64, e: f64| {
        let (w, h) = (
            (WIDTH - LEFT - RIGHT - 1) as f64,
            (HEIGHT - TOP - BOTTOM - 1) as f64,
        );
        (
            (LEFT as f64 + a / 2.0 * w).round() as usize,
            (TOP as f64 + (1.0 - e) * h).round() as usize,
        )
    };
    // a = 1, e = 0.5 (and a = 1.6, e = 0.1): the marker covers the pixel and its neighbours.
    for (a, e) in [(1.0, 0.5), (1.6, 0.1)] {
        let (x, y) = at(a, e);
        for (dx, dy) in [(0, 0), (1, 0), (0, 1)] {
            assert_eq!(rgb(&img, x + dx, y + dy), BLUE, "a {a} e {e} at ({x}, {y})");
        }
    }
    // Nothing blue where no body is (a = 1.5, e = 0.8), nor at the mirror image (a = 1, e = 0.5
    // flipped to e = 0.5 from the top would be the same row: test a column away instead).
    for (a, e) in [(1.5, 0.8), (0.5, 0.5), (1.0, 0.2)] {
        let (x, y) = at(a, e);
        assert_ne!(rgb(&img, x, y), BLUE, "a {a} e {e}");
    }
}

#[test]
fn ai_energy_and_sheet_plots_are_valid_pngs_of_the_expected_size() {
    let d = scratch("plot-kinds");
    let (_, bin) = write_snapshots(&d, 1.0);
    let ai = d.join("a_i.png");
    let o = orrery(&[
        "plot",
        "ai",
        &bin,
        "-o",
        ai.to_str().unwrap(),
        "--ylim",
        "0,30",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let img = decode_png(&ai);
    assert_eq!((img.0, img.1), (WIDTH, HEIGHT));
    // The inclined massive body (a = 1.6, i = 3 degrees) at its pixel on the data-chosen a axis:
    // the a range 0.7 .. 1.6 widens by 2 % of its span on each side and rounds out to a fifth of
    // the tick step 0.2: 0.68 .. 1.64.
    let (w, h) = (
        (WIDTH - LEFT - RIGHT - 1) as f64,
        (HEIGHT - TOP - BOTTOM - 1) as f64,
    );
    let x = (LEFT as f64 + (1.6 - 0.68) / (1.64 - 0.68) * w).round() as usize;
    let y = (TOP as f64 + (1.0 - 3.0 / 30.0) * h).round() as usize;
    assert_eq!(rgb(&img, x - 1, y), BLUE);

    let energy = d.join("Energyk.dat");
    let mut text = String::new();
    for k in 0..=20 {
        let t = k as f64 * 0.5;
        let rel = if k == 0 { 0.0 } else { 1e-10 * (1.0 + t) };
        text.push_str(&format!("{t:e} 3 -1 0.5 0 0 -0.5 1 0 {rel:e}\n"));
    }
    std::fs::write(&energy, text).unwrap();
    let png = d.join("energy.png");
    let o = orrery(&[
        "plot",
        "energy",
        energy.to_str().unwrap(),
        "-o",
        png.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let img = decode_png(&png);
    assert_eq!((img.0, img.1), (WIDTH, HEIGHT));
    // t = 10, |dE/E| = 1.1e-9 on a 0..10.4 years (10 widened by 2 %, rounded out to 0.4, a
    // fifth of the tick step), 1e-10..1e-8 log axis.
    let x = (LEFT as f64 + 10.0 / 10.4 * w).round() as usize;
    let y = (TOP as f64 + (1.0 - (1.1e-9f64.log10() + 10.0) / 2.0) * h).round() as usize;
    assert_eq!(rgb(&img, x - 1, y), BLUE);

    let sheet = d.join("Sheetk_000000000000.dat");
    std::fs::write(
        &sheet,
        "# orrery sheet snapshot: t = 0 s = 0 orbits, L = 100 m, Omega = 1e-4 1/s, N = 2\n\
         # x y z vx vy vz r m (SI)\n10 20 0.5 0 0 0 2 100\n-30 -40 -0.5 0 0 0 1 10\n",
    )
    .unwrap();
    let png = d.join("sheet.png");
    let o = orrery(&[
        "plot",
        "sheet",
        sheet.to_str().unwrap(),
        "-o",
        png.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let img = decode_png(&png);
    let side = HEIGHT - TOP - BOTTOM;
    assert_eq!(
        (img.0, img.1),
        (
            LEFT + side + GAP + LEFT + (WIDTH - LEFT - RIGHT) + RIGHT,
            HEIGHT
        )
    );
    // The particle at x = 10, y = 20 m in the square x-y panel over -50 .. 50 m.
    let s = (side - 1) as f64;
    let x = (LEFT as f64 + 0.6 * s).round() as usize;
    let y = (TOP as f64 + (1.0 - 0.7) * s).round() as usize;
    assert_eq!(rgb(&img, x, y), BLUE);

    // An energy file with no nonzero error cannot be drawn on a log scale: a located error.
    std::fs::write(&energy, "0 3 -1 0.5 0 0 -0.5 1 0 0\n").unwrap();
    let o = orrery(&[
        "plot",
        "energy",
        energy.to_str().unwrap(),
        "-o",
        png.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("Energyk.dat"));
}

#[test]
fn mass_spectra_of_two_snapshots_step_through_their_masses() {
    let d = scratch("plot-mass");
    let earth = orrery::units::EARTH_MASS;
    let snapshot = |name: &str, masses: &[f64]| {
        let text: String = masses
            .iter()
            .enumerate()
            .map(|(k, m)| {
                let a = 1.0 + 0.1 * k as f64;
                format!(
                    "1 {k} {:e} 1e-5 {a} 0 0 0 {:e} 0 0 0 0\n",
                    m * earth,
                    a.powf(-0.5)
                )
            })
            .collect();
        let path = d.join(format!("Out{name}_000000000010.dat"));
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let small = snapshot("small", &[1.0, 2.0, 4.0, 4.0]);
    let big = snapshot("big", &[10.0]);
    let png = d.join("mass.png");
    let o = orrery(&["plot", "mass", &small, &big, "-o", png.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("small step 10: 4 bodies, largest 4.00 Earth masses"),
        "{}",
        stderr(&o)
    );
    let img = decode_png(&png);
    // Axes: m over 1e0 .. 1e1 Earth masses, N over 1e0 .. 1e1 (whole decades).
    let (w, h) = (
        (WIDTH - LEFT - RIGHT - 1) as f64,
        (HEIGHT - TOP - BOTTOM - 1) as f64,
    );
    let at = |m: f64, n: f64| {
        (
            (LEFT as f64 + m.log10() * w).round() as usize,
            (TOP as f64 + (1.0 - n.log10()) * h).round() as usize,
        )
    };
    // The small run: N(>= 3) = 2 (the step from m = 4 at N = 2 towards m = 2).
    let (x, y) = at(3.0, 2.0);
    assert_eq!(rgb(&img, x, y), BLUE);
    // Nothing at N(>= 3) = 1 for it; the big run's one body at (10, 1) in red.
    let (x, y) = at(3.0, 1.0);
    assert_ne!(rgb(&img, x, y), BLUE);
    let (x, y) = at(10.0, 1.0);
    assert_eq!(rgb(&img, x - 1, y), [214, 39, 40]);
    // One file for the other kinds.
    let o = orrery(&["plot", "ae", &small, &big]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("expected one file"), "{}", stderr(&o));
}

/// A grid ensemble file (a: 4 points from 1 to 2 AU, e: 3 from 0 to 0.3, twice over) and its
/// table with MEGNO `value(s)` per system (`None`: an empty cell).
fn write_grid_run(dir: &Path, value: impl Fn(usize) -> Option<f64>) -> String {
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let ens = format!(
        "Ensemble(systems: 24, seed: 0, hypothetical: [Grid(name: \"P\", m: 1e-5, a: (1.0, 2.0, 4), \
         e: (0.0, 0.3, 3), inc_deg: 0.0)], scenario: Scenario(name: \"g\", mode: Multi, \
         time_step_days: 10.0, bodies: [], output: (dir: {:?}, energy_interval: 0, \
         coordinates_interval: 0)))",
        out.to_str().unwrap()
    );
    let path = dir.join("grid.ron");
    std::fs::write(&path, ens).unwrap();
    let mut table = orrery::io::summary_table::header(0);
    let megno_col = table.split(',').position(|c| c == "megno").unwrap();
    for s in 0..24 {
        let mut cells = vec![String::new(); table.split(',').count()];
        cells[0] = s.to_string();
        cells[megno_col] = value(s).map_or_else(String::new, |v| format!("{v:e}"));
        table.push('\n');
        table.push_str(&cells.join(","));
    }
    std::fs::write(out.join("summary.csv"), table + "\n").unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn map_plot_colours_each_grid_point_by_its_median_megno() {
    use orrery::tools::plot::map::colour;
    assert_eq!(
        colour(0.0),
        plotters::style::RGBColor(0, 104, 55),
        "regular is green"
    );
    assert_eq!(
        colour(1.0),
        plotters::style::RGBColor(165, 0, 38),
        "chaotic is red"
    );
    let d = scratch("plot-map");
    // Point (i, j) reads 2 + 0.5 i + 0.1 j in the first pass and 1 more in the second: its median
    // is 2.5 + 0.5 i + 0.1 j. Point (1, 2) has no value.
    let base = |s: usize| {
        let p = s % 12;
        2.0 + 0.5 * (p % 4) as f64 + 0.1 * (p / 4) as f64 + if s >= 12 { 1.0 } else { 0.0 }
    };
    let file = write_grid_run(&d, |s| (s % 12 != 9).then(|| base(s)));
    let png = d.join("map.png");
    let o = orrery(&[
        "plot",
        "map",
        &file,
        "-o",
        png.to_str().unwrap(),
        "--clim",
        "2,5",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let img = decode_png(&png);
    assert!(img.0 > WIDTH && img.1 == HEIGHT, "room for the colour bar");
    // Cells are centred on their points, half a spacing beyond the end points.
    let (w, h) = (
        (WIDTH - LEFT - RIGHT - 1) as f64,
        (HEIGHT - TOP - BOTTOM - 1) as f64,
    );
    let (x_lo, x_hi, y_lo, y_hi) = (1.0 - 1.0 / 6.0, 2.0 + 1.0 / 6.0, -0.075, 0.375);
    for p in 0..12 {
        let (i, j) = (p % 4, p / 4);
        let (a, e) = (1.0 + i as f64 / 3.0, 0.15 * j as f64);
        let x = (LEFT as f64 + (a - x_lo) / (x_hi - x_lo) * w).round() as usize;
        let y = (TOP as f64 + (1.0 - (e - y_lo) / (y_hi - y_lo)) * h).round() as usize;
        let c = if p == 9 {
            [150, 150, 150]
        } else {
            let c = colour((base(p) + 0.5 - 2.0) / 3.0);
            [c.0, c.1, c.2]
        };
        // Off the cell's centre by a few pixels, away from the grid lines through tick values.
        assert_eq!(rgb(&img, x + 7, y + 5), c, "point ({i}, {j})");
    }
    // A grid of one axis has no map, and a missing table says to run the ensemble first.
    let one = d.join("one.ron");
    let text = std::fs::read_to_string(&file)
        .unwrap()
        .replace("(0.0, 0.3, 3)", "0.1");
    std::fs::write(&one, text.replace("systems: 24", "systems: 8")).unwrap();
    let o = orrery(&["plot", "map", one.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("two grid axes"), "{}", stderr(&o));
    let o = orrery(&[
        "plot",
        "map",
        &file,
        "--summary",
        "/nonexistent/summary.csv",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("run the ensemble first"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn series_plot_draws_each_bodys_samples_of_one_system() {
    use orrery::io::samples::{read_npz, write_npz, Array, Values};
    let d = scratch("plot-series");
    let f = |name: &str, shape: Vec<u64>, v: Vec<f64>| Array {
        name: name.into(),
        shape,
        values: Values::F64(v),
    };
    let nan = f64::NAN;
    // Systems 4 and 7, three samples each; system 7's second body is gone at its last sample.
    let arrays = vec![
        Array {
            name: "system".into(),
            shape: vec![2],
            values: Values::I64(vec![4, 7]),
        },
        f("time", vec![2, 3], vec![0.0, 1.0, 2.0, 0.0, 1.0, 2.0]),
        f("megno", vec![2, 3], vec![0.0, 2.0, 2.1, 0.0, 3.0, 5.0]),
        f(
            "a",
            vec![2, 3, 2],
            vec![9.0, 9.0, 9.0, 9.0, 9.0, 9.0, 1.0, 3.0, 1.5, 3.0, 2.0, nan],
        ),
    ];
    let file = d.join("Samplest.npz");
    write_npz(&file, &arrays).unwrap();
    let back = read_npz(&file).unwrap();
    assert_eq!(
        format!("{back:?}"),
        format!("{arrays:?}"),
        "the file reads back"
    );
    let png = d.join("series.png");
    let args = [
        "plot",
        "series",
        file.to_str().unwrap(),
        "-o",
        png.to_str().unwrap(),
    ];
    let o = orrery(
        &[
            &args[..],
            &[
                "--system", "7", "--what", "a", "--xlim", "0,2", "--ylim", "0,4",
            ],
        ]
        .concat(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let img = decode_png(&png);
    let (w, h) = (
        (WIDTH - LEFT - RIGHT - 1) as f64,
        (HEIGHT - TOP - BOTTOM - 1) as f64,
    );
    let at = |t: f64, a: f64| {
        (
            (LEFT as f64 + t / 2.0 * w).round() as usize,
            (TOP as f64 + (1.0 - a / 4.0) * h).round() as usize,
        )
    };
    const RED: [u8; 3] = [214, 39, 40];
    for (t, a, colour) in [
        (0.0, 1.0, BLUE),
        (1.0, 1.5, BLUE),
        (2.0, 2.0, BLUE),
        (0.0, 3.0, RED),
    ] {
        let (x, y) = at(t, a);
        assert_eq!(rgb(&img, x + 1, y), colour, "t {t} a {a}");
    }
    // No line on past the second body's last sample.
    let (x, y) = at(1.8, 3.0);
    assert_ne!(rgb(&img, x, y), RED);
    let o = orrery(&[&args[..], &["--system", "5"]].concat());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("system 5 is not in the file"),
        "{}",
        stderr(&o)
    );
}
