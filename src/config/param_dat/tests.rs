use super::*;

fn parse(text: &str) -> Result<GengaParams> {
    parse_param_str(text, Path::new("/runs/a/param.dat"))
}

/// The message of an input error, with its location; panics on success.
fn err(text: &str) -> (Location, String) {
    match parse(text) {
        Err(Error::Input { at, message }) => (at, message),
        other => panic!("expected an input error, got {other:?}"),
    }
}

#[test]
fn changeover_function_is_read_and_checked() {
    assert_eq!(parse("n1 = 3\n").unwrap().changeover, Changeover::Genga);
    for (text, want) in [
        ("genga", Changeover::Genga),
        ("quintic", Changeover::Quintic),
        ("Infinity", Changeover::Infinity),
    ] {
        let p = parse(&format!("Changeover function = {text}\n")).unwrap();
        assert_eq!(p.changeover, want);
    }
    let (at, msg) = err("n1 = 3\nChangeover function = cubic\n");
    assert_eq!(at.field.as_deref(), Some("Changeover function"));
    assert_eq!(at.line, Some(2));
    assert!(
        msg.contains("genga, quintic or infinity") && msg.contains("cubic"),
        "{msg}"
    );
}

#[test]
fn genga_example_param_file_loads() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("inputs/genga/param.dat");
    let p = parse_param_file(&path).unwrap();
    assert_eq!(p.time_step_days, 6.0);
    assert_eq!(p.output_name, "test");
    assert_eq!(p.energy_interval, 100);
    assert_eq!(p.coordinates_interval, 100);
    assert_eq!(p.integration_steps, 100_000);
    assert_eq!(p.central_mass, 1.0);
    assert_eq!((p.n1, p.n2), (3.0, 0.4));
    assert_eq!(
        p.input_file,
        Some(path.parent().unwrap().join("initialplanet_2048.dat"))
    );
    assert_eq!(p.input_format, "<< x y z m vx vy vz >>");
    assert_eq!(p.default_rho, 2.0);
    assert_eq!(p.use_test_particles, 0);
    assert_eq!(p.restart_timestep, 0);
    assert_eq!(p.minimum_bodies, 1);
    assert_eq!(p.order, 2);
    // Keys not in the file keep GENGA's defaults.
    assert_eq!(p.star_radius, crate::units::SUN_RADIUS_AU);
    assert_eq!((p.inner_truncation, p.outer_truncation), (0.2, 50.0));
    assert!(!p.angle_degrees);
    // Nothing is noted: `Number of outputs per interval = 1` is read, the aeGrid and gas keys
    // are all at GENGA's defaults.
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    assert_eq!(p.outputs_per_interval, 1);
    assert_eq!(p.line_of("Input file Format"), Some(11));
    assert_eq!(p.line_of("order  OF integrator"), Some(16));
    assert_eq!(p.line_of("Star Radius"), None);
}

#[test]
fn empty_text_gives_genga_defaults() {
    let p = parse("\n# only a comment\n\n").unwrap();
    assert_eq!(
        p,
        GengaParams::genga_defaults(Path::new("/runs/a/param.dat"))
    );
    assert_eq!(p.integration_steps, 1000);
    assert_eq!(p.input_file, None);
}

#[test]
fn colon_separator_whitespace_and_case_are_accepted() {
    let p =
        parse("  time   STEP in days : 0.5\r\nOutput name=run1\n\tCentral Mass =2.5\n").unwrap();
    assert_eq!(p.time_step_days, 0.5);
    assert_eq!(p.output_name, "run1");
    assert_eq!(p.central_mass, 2.5);
    assert_eq!(p.line_of("Time step in days"), Some(1));
    assert_eq!(p.line_of("Central Mass"), Some(3));
}

#[test]
fn input_file_is_resolved_against_the_param_folder() {
    let p = parse("Input file = ics/bodies.dat\n").unwrap();
    assert_eq!(p.input_file, Some(PathBuf::from("/runs/a/ics/bodies.dat")));
    let p = parse("Input file = /abs/bodies.dat\n").unwrap();
    assert_eq!(p.input_file, Some(PathBuf::from("/abs/bodies.dat")));
}

#[test]
fn supported_keys_are_read() {
    let text = "Angle units = degrees\nUse Test Particles = 2\nParticle Minimum Mass = 1e-9\n\
                Restart timestep = -1\nMinimum number of test particles = 7\n\
                Order of integrator = 6\nInner truncation radius = 0.05\n\
                Outer truncation radius = 100\nStar Radius = 0\nEnergy output interval = -1\n\
                Coordinates output interval = 0\nInput file Format: << i m r a e inc O w M >>\n";
    let p = parse(text).unwrap();
    assert!(p.angle_degrees);
    assert_eq!(p.use_test_particles, 2);
    assert_eq!(p.particle_minimum_mass, 1e-9);
    assert_eq!(p.restart_timestep, -1);
    assert_eq!(p.minimum_test_particles, 7);
    assert_eq!(p.order, 6);
    assert_eq!((p.inner_truncation, p.outer_truncation), (0.05, 100.0));
    assert_eq!(p.star_radius, 0.0);
    assert_eq!((p.energy_interval, p.coordinates_interval), (-1, 0));
    assert_eq!(p.input_format, "<< i m r a e inc O w M >>");
    assert!(p.warnings.is_empty());
}

#[test]
fn unknown_key_suggests_the_nearest_one() {
    let (at, msg) = err("n1 = 3\nTime step in day = 6\n");
    assert_eq!(at.line, Some(2));
    assert_eq!(at.file, Some(PathBuf::from("/runs/a/param.dat")));
    assert!(msg.contains("unknown key `Time step in day`"), "{msg}");
    assert!(msg.contains("did you mean `Time step in days`"), "{msg}");
    let (_, msg) = err("central mas = 1\n");
    assert!(msg.contains("`Central Mass`"), "{msg}");
}

#[test]
fn levenshtein_distances() {
    assert_eq!(levenshtein("", ""), 0);
    assert_eq!(levenshtein("abc", ""), 3);
    assert_eq!(levenshtein("kitten", "sitting"), 3);
    assert_eq!(levenshtein("n1", "n2"), 1);
    assert_eq!(nearest_key("use gr"), "Use GR");
}

#[test]
fn bad_numbers_name_line_key_and_type() {
    let (at, msg) = err("\nCentral Mass = one\n");
    assert_eq!(at.line, Some(2));
    assert_eq!(at.field.as_deref(), Some("Central Mass"));
    assert!(msg.contains("expected a finite number"), "{msg}");
    let (_, msg) = err("Integration steps = 1e5\n");
    assert!(msg.contains("integer"), "{msg}");
    let (_, msg) = err("Integration steps = -5\n");
    assert!(msg.contains(">= 0"), "{msg}");
    let (_, msg) = err("Time step in days = nan\n");
    assert!(msg.contains("finite number"), "{msg}");
    let (at, msg) = err("Order of integrator = 3\n");
    assert_eq!(at.field.as_deref(), Some("Order of integrator"));
    assert!(msg.contains("expected an integer 2, 4 or 6"), "{msg}");
    let (_, msg) = err("Use Test Particles = 3\n");
    assert!(msg.contains("0, 1 or 2"), "{msg}");
    let (_, msg) = err("Angle units = gradians\n");
    assert!(msg.contains("`radians` or `degrees`"), "{msg}");
    let (_, msg) = err("Energy output interval = -2\n");
    assert!(msg.contains("-1 (last only)"), "{msg}");
    let (_, msg) = err("Minimum number of bodies = x\n");
    assert!(msg.contains("integer >= 0"), "{msg}");
}

#[test]
fn duplicate_key_is_an_error() {
    let (at, msg) = err("n1 = 3\nn2 = 0.4\nN1 = 4\n");
    assert_eq!(at.line, Some(3));
    assert_eq!(at.field.as_deref(), Some("n1"));
    assert!(msg.contains("given twice (first on line 1)"), "{msg}");
}

#[test]
fn line_without_separator_is_an_error() {
    let (at, msg) = err("n1 = 3\nTime step in days 6\n");
    assert_eq!(at.line, Some(2));
    assert!(msg.contains("expected `Key = value`"), "{msg}");
    let (at, msg) = err("= 6\n");
    assert_eq!(at.line, Some(1));
    assert!(msg.contains("expected a key"), "{msg}");
}

#[test]
fn unsupported_key_at_default_warns_otherwise_errors() {
    let p = parse("Use force = 0\nCollision Model = 0\nSet Elements file name = -\n").unwrap();
    assert_eq!(p.warnings.len(), 3, "{:?}", p.warnings);
    assert!(p.warnings[0].contains("line 1") && p.warnings[0].contains("Use force"));
    let (at, msg) = err("n1 = 3\nUse force = 2\n");
    assert_eq!(at.line, Some(2));
    assert_eq!(at.field.as_deref(), Some("Use force"));
    assert!(msg.contains("does not implement"), "{msg}");
    assert!(msg.contains("tidal"), "{msg}");
    let (_, msg) = err("Collision Model = 1\n");
    assert!(
        msg.contains("does not implement") && msg.contains("perfect merging"),
        "{msg}"
    );
    assert_eq!(
        parse("Number of outputs per interval = 5\n")
            .unwrap()
            .outputs_per_interval,
        5
    );
    let (at, msg) = err("Coordinates output interval = 4\nNumber of outputs per interval = 5\n");
    assert_eq!(
        (at.line, at.field.as_deref()),
        (Some(2), Some("Number of outputs per interval"))
    );
    assert!(
        msg.contains("at most `Coordinates output interval` (4)"),
        "{msg}"
    );
    let (_, msg) = err("Number of outputs per interval = 0\n");
    assert!(msg.contains("at least 1"), "{msg}");
    // The collision stop with its mass threshold, and the contact precision: GENGA's default
    // 1e-4, none from 1 up.
    let p = parse("Stop at Collision = 1\nStop Minimum Mass = 1e-6\n").unwrap();
    let stop = p.stop();
    assert!(stop.collision);
    assert_eq!(stop.collision_minimum_mass, Some(1e-6));
    assert_eq!(p.collisions.precision, Some(1e-4));
    assert_eq!(parse("").unwrap().stop().collision_minimum_mass, None);
    let shift = |text: &str| parse(text).unwrap().collisions.time_shift;
    assert_eq!(shift("Collision Time Shift = 3\n"), Some(3.0));
    assert_eq!(shift("Collision Time Shift = 1\n"), None);
    let (at, msg) = err("Collision Time Shift = 0.5\n");
    assert_eq!(at.field.as_deref(), Some("Collision Time Shift"));
    assert!(msg.contains("at least 1"), "{msg}");
    for (value, precision) in [("-1e-6", Some(-1e-6)), ("1", None), ("2.5", None)] {
        let text = format!("Collision Precision = {value}\n");
        assert_eq!(
            parse(&text).unwrap().collisions.precision,
            precision,
            "{value}"
        );
    }
    let (_, msg) = err("Set Elements file name = elements.dat\n");
    assert!(msg.contains("set-elements"), "{msg}");
    // A malformed value of an unsupported key is a type error.
    let (_, msg) = err("Use force = maybe\n");
    assert!(msg.contains("expected an integer"), "{msg}");
}

#[test]
fn tide_keys_are_read_and_checked() {
    let p = parse(
        "Use Tides = 1\nUse Rotational Deformation = 1\nStar Love Number = 0.03\n\
         Star fluid Love Number = 0.9\nStar tau = 0.0002\nStar Ic = 0.07\nStar spin_z = 2e-5\n",
    )
    .unwrap();
    let t = p.forces.tides;
    assert!(t.tides && t.rotational_deformation);
    assert_eq!(
        (t.star.k2, t.star.k2f, t.star.tau, t.star.ic),
        (0.03, 0.9, 0.0002, 0.07)
    );
    assert_eq!(p.forces.central_spin, [0.0, 0.0, 2e-5]);
    for (text, line, key, want) in [
        ("Use Tides = 2\n", 1, "Use Tides", "expected 0 (off) or 1"),
        (
            "Use Rotational Deformation = 2\n",
            1,
            "Use Rotational Deformation",
            "expected 0",
        ),
        (
            "Use Tides = 1\nStar Love Number = -0.1\n",
            2,
            "Star Love Number",
            "Love number",
        ),
        (
            "Use Tides = 1\nStar fluid Love Number = 3\n",
            2,
            "Star fluid Love Number",
            "[0, 1.5]",
        ),
        (
            "Use Tides = 1\nStar tau = -1\n",
            2,
            "Star tau",
            "time lag >= 0",
        ),
        ("Use Tides = 1\nStar Ic = 0\n", 2, "Star Ic", "(0, 2/3]"),
    ] {
        let (at, msg) = err(text);
        assert_eq!(at.line, Some(line), "{text}: {msg}");
        assert_eq!(at.field.as_deref(), Some(key), "{text}");
        assert!(msg.contains(want), "{text}: {msg}");
    }
    // Off, the star's values are not checked (GENGA's defaults are sane anyway).
    assert!(parse("Star Ic = 0\n").is_ok());
}

#[test]
fn gas_disk_keys_are_read_and_checked() {
    let p = parse(
        "Use gas disk = 1\nUse gas disk potential = 0\nGas Sigma_10 = 1500\nGas alpha = 1.5\n\
         Gas dTau_diss = 2e5\nUse gas disk drag = 1\nUse gas disk tidal dampening = 0\n",
    )
    .unwrap();
    let g = p.forces.gas;
    assert!(g.on);
    assert_eq!(
        (g.sigma_10, g.alpha, g.dissipation_time),
        (1500.0, 1.5, 2e5)
    );
    assert_eq!((g.drag, g.tidal_damping), (GasBodies::All, GasBodies::Off));
    assert_eq!((g.beta, g.inner_edge, g.outer_edge), (0.25, 0.1, 35.0));
    assert_eq!(g.potential, GasBodies::Off);
    // GENGA's default turns the disk's own gravity on, on GENGA's grid.
    let g = parse("Use gas disk = 1\nGas disk grid dr = 0.5\n")
        .unwrap()
        .forces
        .gas;
    assert_eq!(
        (g.potential, g.grid_outer_edge, g.grid_dr),
        (GasBodies::All, 15.0, 0.5)
    );
    let on = "n1 = 3\nUse gas disk = 1\n";
    for (text, line, field, want) in [
        ("Gas Sigma_10 = -5\n", 3, "Gas Sigma_10", "> 0"),
        ("Gas Sigma_10 = 0\n", 3, "Gas Sigma_10", "> 0"),
        (
            "Gas disk inner edge = 2\nGas disk outer edge = 1\n",
            4,
            "Gas disk outer edge",
            "beyond",
        ),
        ("Gas dTau_diss = 0\n", 3, "Gas dTau_diss", "> 0"),
        ("Gas beta = -1\n", 3, "Gas beta", "[0, 2]"),
        (
            "Use gas disk drag = 3\n",
            3,
            "Use gas disk drag",
            "Gas Mgiant",
        ),
        ("Gas Mgiant = 0\n", 3, "Gas Mgiant", "> 0"),
        ("Gas disk grid dr = 0\n", 3, "Gas disk grid dr", "> 0"),
        (
            "Gas disk grid dr = 1e-3\n",
            3,
            "Gas disk grid dr",
            "can hold",
        ),
        (
            "Gas disk grid outer edge = 0.15\n",
            3,
            "Gas disk grid outer edge",
            "beyond the inner",
        ),
        (
            "Use gas disk potential = 3\n",
            3,
            "Use gas disk potential",
            "expected 0 (off)",
        ),
        (
            "Use gas disk enhancement = 3\n",
            3,
            "Use gas disk enhancement",
            "expected 0 (off), 1 (every body) or 2",
        ),
    ] {
        let (at, msg) = err(&format!("{on}{text}"));
        assert_eq!(at.line, Some(line), "{text}: {msg}");
        assert_eq!(at.field.as_deref(), Some(field), "{text}");
        assert!(msg.contains(want), "{text}: {msg}");
    }
    // With the disk off its parameters are not checked (GENGA reads them and ignores them).
    assert!(parse("Gas Sigma_10 = -5\nGas file name = disk.dat\n").is_ok());
}

#[test]
fn inert_keys_are_accepted_and_noted_when_changed() {
    let p = parse("aeGrid amax = 5.0\nDo kernel tuning = 1\nGas alpha = 1\n").unwrap();
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    // Parameters of a feature that is off are accepted silently, whatever their value.
    let p =
        parse("aeGrid Start Count = 1\nGas alpha = 7\naeGrid amin = x\nSymplectic recursion sub steps = 4\n").unwrap();
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    let p = parse("Do kernel tuning = 0\nMaximum encounter pairs = whatever\n").unwrap();
    assert_eq!(p.warnings.len(), 2, "{:?}", p.warnings);
    assert!(p.warnings[0].contains("line 1") && p.warnings[0].contains("no effect"));
}

#[test]
fn ranges_are_validated() {
    let (at, msg) = err("n1 = 3\nTime step in days = 0\n");
    assert_eq!(at.line, Some(2));
    assert!(msg.contains("time step > 0"), "{msg}");
    let (_, msg) = err("Time step in days = -6\n");
    assert!(msg.contains("backward"), "{msg}");
    let (at, _) = err("Central Mass = 0\n");
    assert_eq!(at.field.as_deref(), Some("Central Mass"));
    let (at, _) = err("n2 = -0.1\n");
    assert_eq!(at.field.as_deref(), Some("n2"));
    let (at, _) = err("Star Radius = -1\n");
    assert_eq!(at.field.as_deref(), Some("Star Radius"));
    let (at, _) = err("Default rho = 0\n");
    assert_eq!(at.field.as_deref(), Some("Default rho"));
    let (at, msg) = err("Inner truncation radius = 60\n");
    assert_eq!(at.line, Some(1));
    assert!(msg.contains("smaller than the outer"), "{msg}");
    let (at, _) = err("\nOuter truncation radius = 0.1\n");
    assert_eq!(
        (at.line, at.field.as_deref()),
        (Some(2), Some("Outer truncation radius"))
    );
    let (_, msg) = err("Restart timestep = -3\n");
    assert!(msg.contains("-1 (continue)"), "{msg}");
}

#[test]
fn bad_input_format_is_reported_at_its_line() {
    let (at, msg) = err("n1 = 3\nInput file Format: << x y z m vx vy vz q >>\n");
    assert_eq!(at.line, Some(2));
    assert_eq!(at.field.as_deref(), Some("Input file Format"));
    assert!(msg.contains("`q`"), "{msg}");
    let (_, msg) = err("Input file Format: << x y z m a e >>\n");
    assert!(msg.contains("cannot be mixed"), "{msg}");
}

#[test]
fn unreadable_param_file_names_the_path() {
    let path = Path::new("/nonexistent/orrery/param.dat");
    match parse_param_file(path) {
        Err(e @ Error::Input { .. }) => {
            assert!(
                e.to_string().contains("/nonexistent/orrery/param.dat"),
                "{e}"
            )
        }
        other => panic!("expected an input error, got {other:?}"),
    }
}

#[test]
fn every_key_has_a_well_typed_default_and_a_note() {
    for (k, s) in GENGA_KEYS.iter().enumerate() {
        assert!(
            GENGA_KEYS[k + 1..]
                .iter()
                .all(|o| !o.name.eq_ignore_ascii_case(s.name)),
            "duplicate key {}",
            s.name
        );
        if s.class != KeyClass::Supported {
            assert!(
                is_default(s, s.default) == Ok(true),
                "default of {}",
                s.name
            );
            assert!(!s.note.is_empty(), "note of {}", s.name);
        }
    }
    // Every supported key has a handler.
    for s in GENGA_KEYS.iter().filter(|s| s.class == KeyClass::Supported) {
        let value = match s.name {
            "Input file" => "bodies.dat",
            _ => s.default,
        };
        parse(&format!("{} = {value}\n", s.name)).unwrap();
    }
}

/// Keys GENGA's parser reads that no shipped example uses are known, not "no such key": the
/// migration force is refused as a missing feature, the encounter cloud size follows
/// `Report Encounters`, and the frequency analysis's keys are accepted without effect.
#[test]
fn rarely_used_genga_keys_are_known() {
    let (_, msg) = err("Use Migration Force = 1\n");
    assert!(msg.contains("migration force"), "{msg}");
    assert!(!msg.contains("no such key"), "{msg}");
    assert!(parse("Use Migration Force = 0\n").is_ok());
    assert!(parse("Report Encounters Cloud Size = 4\n").is_ok());
    for (key, value) in [
        ("NAF variables", 2),
        ("NAF size", 20),
        ("NAF nfreqs", 3),
        ("NAF format", 0),
        ("NAF interval", 5),
    ] {
        let p = parse(&format!("{key} = {value}\n")).unwrap_or_else(|e| panic!("{key}: {e}"));
        assert!(
            p.warnings
                .iter()
                .any(|n| n.contains(key) && n.contains("no effect")),
            "{key}: no warning that it has no effect: {:?}",
            p.warnings
        );
    }
}

fn console(pairs: &[(&str, &str)]) -> Vec<ConsoleValue> {
    pairs
        .iter()
        .map(|&(flag, value)| ConsoleValue {
            flag: flag.into(),
            value: value.into(),
        })
        .collect()
}

#[test]
fn console_arguments_replace_the_file_s_values_and_are_checked_as_the_keys_are() {
    let src = Path::new("/runs/a/param.dat");
    let text = "Time step in days = 6\nIntegration steps = 10\nInput file = ic.dat\n";
    let c = console(&[
        ("-dt", "2"),
        ("-SIO", "4"),
        ("-in", "other.dat"),
        ("-TP", "1"),
    ]);
    let p = parse_param_with(text, src, &c).unwrap();
    assert_eq!(p.time_step_days, 2.0);
    assert_eq!(p.integration_steps, 10);
    assert_eq!(p.order, 4);
    assert_eq!(p.use_test_particles, 1);
    // Resolved against the param file's folder, as the key is.
    assert_eq!(p.input_file, Some(PathBuf::from("/runs/a/other.dat")));
    // A value the key refuses is refused at the console argument, not at the file's line.
    let Err(Error::Input { at, message }) = parse_param_with(text, src, &console(&[("-dt", "-1")]))
    else {
        panic!("a negative time step is refused");
    };
    assert_eq!(at.file, None);
    assert_eq!(at.line, None);
    assert!(
        at.field
            .as_deref()
            .unwrap()
            .contains("-dt on the command line"),
        "{at}"
    );
    assert!(message.contains("time step > 0"), "{message}");
    // A later check of a key names the console argument too.
    let p = parse_param_with(text, src, &console(&[("-Nmin", "4")])).unwrap();
    assert!(p
        .at("Minimum number of bodies")
        .to_string()
        .contains("-Nmin on the command line"));
    assert!(p.at("Integration steps").to_string().contains("line 2"));
}
