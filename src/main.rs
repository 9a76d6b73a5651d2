//! The `orrery` command line: parse, dispatch, map errors to exit codes
//! (0 success, 1 failure during the run, 2 bad input or configuration, 128 + the signal's number
//! when stopped by SIGINT (130), SIGTERM (143) or SIGHUP (129)).

use clap::{Args, Parser, Subcommand};
use orrery::backend::{BackendChoice, Pass};
use orrery::config::param_dat::ConsoleValue;
use orrery::config::scenario::{DiskSpec, Mode};
use orrery::config::Overrides;
use orrery::io::generate;
use orrery::observe::Progress;
use orrery::run::request::{run_request, Engine, Outcome, Resume, RunEvent, RunRequest};
use orrery::Error;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::Ordering;

#[derive(Parser)]
#[command(
    name = "orrery",
    version,
    about = "Hybrid symplectic N-body integrator for planetary systems",
    after_help = "Example:\n  orrery run inputs/disk2048.ron --steps 100    \
                  GENGA's 2048-planetesimal disk for 100 steps\n  \
                  orrery plot ae out/disk2048/Outdisk2048_000000000100.dat\n\n\
                  The user guide, by task: docs/guide/ (start with docs/guide/getting-started.md)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario (.ron) or a GENGA param.dat.
    #[command(
        after_help = "Examples:\n  orrery run inputs/disk2048.ron                  \
                      a scenario (RON)\n  \
                      orrery run param.dat --steps 1000               a GENGA setup\n  \
                      orrery run param.dat -dt 3 -I 20000             GENGA's console \
                      arguments set param.dat keys\n  \
                      orrery run inputs/disk2048.ron --resume auto    continue from the \
                      newest checkpoint\n\n\
                      Output files and their columns: docs/guide/outputs.md. Every scenario \
                      field: docs/reference/scenario.md; every param.dat key and console \
                      argument: \
                      docs/reference/param-dat.md."
    )]
    Run(RunArgs),
    /// List the CUDA and OpenCL devices (the index `--device N` takes) and what auto picks.
    Devices,
    /// Generate initial conditions in GENGA format on standard output.
    Generate {
        #[command(subcommand)]
        what: GenerateWhat,
    },
    /// Orbital elements of every body of a snapshot (`Out<name>_<step>.dat` or `.bin`) as a
    /// table on standard output: `t i m a e inc node peri M` (years, index, Msun, AU, -, degrees).
    Elements(ElementsArgs),
    /// Draw a PNG figure: `ae` or `ai` of a snapshot, `energy` of an Energy file, `sheet` of a
    /// sheet snapshot, `mass` of snapshots, `map` of an ensemble, `series` of a samples file.
    Plot(PlotArgs),
    /// Combine the shards of a sharded ensemble or list (`run ... --shard K/N`) in DIR (the
    /// ensemble's output directory, or the list's folder) into the unsharded run's
    /// `summary.csv`; refuses, naming them, when shards are missing, unfinished or of another
    /// configuration.
    Merge {
        /// The folder holding the `shard-K-of-N` folders.
        dir: PathBuf,
    },
}

#[derive(Args)]
struct ElementsArgs {
    /// A snapshot: text `Out<name>_<step>.dat` or binary `Out<name>_<step>.bin`.
    file: PathBuf,
    /// Central mass in Msun (the elements use mu = G (M + m)).
    #[arg(long, default_value_t = 1.0)]
    central_mass: f64,
}

#[derive(Args)]
struct PlotArgs {
    kind: orrery::tools::plot::Kind,
    /// The snapshot or energy file (`mass` takes one or more snapshots, `map` the ensemble
    /// file).
    #[arg(required = true, num_args = 1..)]
    files: Vec<PathBuf>,
    /// Output PNG (default: the input's name with `_<kind>.png`, in the current directory).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Central mass in Msun (for the orbital elements).
    #[arg(long, default_value_t = 1.0)]
    central_mass: f64,
    /// Horizontal axis limits `LO,HI` (default: from the data).
    #[arg(long, value_name = "LO,HI", value_parser = parse_limits)]
    xlim: Option<(f64, f64)>,
    /// Vertical axis limits `LO,HI` (default: from the data).
    #[arg(long, value_name = "LO,HI", value_parser = parse_limits)]
    ylim: Option<(f64, f64)>,
    /// `map`: the colour scale's limits `LO,HI` (default: 1.9,4, as REBOUND's MEGNO map).
    #[arg(long, value_name = "LO,HI", value_parser = parse_limits)]
    clim: Option<(f64, f64)>,
    /// `map`: the ensemble's table (default: `summary.csv` in the ensemble's output directory).
    #[arg(long, value_name = "CSV")]
    summary: Option<PathBuf>,
    /// `series`: the system (its index in the ensemble; default 0).
    #[arg(long, default_value_t = 0)]
    system: usize,
    /// `series`: what to draw, an array of the file: `megno`, `a`, `e`, `jacobi_a`,
    /// `min_distance`, `energy_error`, ... (default: `megno` if the file has it, else `a`).
    #[arg(long, value_name = "NAME")]
    what: Option<String>,
}

fn parse_limits(s: &str) -> Result<(f64, f64), String> {
    let bad = || format!("expected two finite numbers LO,HI with LO < HI, got `{s}`");
    let (a, b) = s.split_once(',').ok_or_else(bad)?;
    let (a, b): (f64, f64) = (
        a.trim().parse().map_err(|_| bad())?,
        b.trim().parse().map_err(|_| bad())?,
    );
    if a.is_finite() && b.is_finite() && a < b {
        Ok((a, b))
    } else {
        Err(bad())
    }
}

#[derive(Args)]
struct RunArgs {
    /// Scenario file (.ron), ensemble file (.ron), GENGA param.dat, or with `--mode multi` a
    /// multi-simulation list.
    file: Option<PathBuf>,
    /// Multi-simulation list (GENGA's `-M`): one simulation directory per line.
    #[arg(long, value_name = "LIST")]
    multi: Option<PathBuf>,
    /// Test-particle mode: small bodies pull on the massive bodies (GENGA's Use Test Particles = 2).
    #[arg(long)]
    semi_active: bool,
    /// End the run at step N (counted from step 0).
    #[arg(long)]
    steps: Option<u64>,
    /// Output directory.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Backend: auto (a CUDA GPU, then an OpenCL GPU, then the CPU), cpu, opencl or cuda.
    #[arg(long)]
    backend: Option<BackendChoice>,
    #[arg(long, value_name = "LIST", help = cpu_passes_help())]
    cpu_passes: Option<String>,
    /// Device index of the chosen API (CUDA or OpenCL), as `orrery devices` lists them.
    #[arg(long, value_name = "N")]
    device: Option<usize>,
    /// Run shard K (from 0) of N of an ensemble or multi-simulation list: a share of its systems
    /// balanced by body count, with checkpoints and tables in `shard-K-of-N/`; combine the
    /// shards with `orrery merge` (for Slurm job arrays: scripts/slurm/).
    #[arg(long, value_name = "K/N")]
    shard: Option<orrery::io::shard::Shard>,
    /// Number of CPU threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Integrator order: 2, 4 or 6.
    #[arg(long)]
    order: Option<u8>,
    /// Mode: main, test-particles or multi.
    #[arg(long)]
    mode: Option<Mode>,
    /// Continue from the newest checkpoint in the output directory; `--resume auto` continues
    /// when a checkpoint exists and starts fresh otherwise (for requeued batch jobs).
    #[arg(long, value_name = "auto", num_args = 0..=1, require_equals = true,
          default_missing_value = "always", value_parser = ["always", "auto"])]
    resume: Option<String>,
    /// A fresh run into a directory that holds files of a run of the same name removes them
    /// first (without it the run is refused).
    #[arg(long)]
    overwrite: bool,
}

#[derive(Subcommand)]
enum GenerateWhat {
    /// A planetesimal disk; columns `i m r x y z vx vy vz` (format `<< i m r x y z vx vy vz >>`).
    Disk(DiskArgs),
}

#[derive(Args)]
struct DiskArgs {
    /// Number of planetesimals.
    #[arg(long, default_value_t = 2048)]
    n: usize,
    /// Total mass in Earth masses.
    #[arg(long, default_value_t = 5.0)]
    mass_earth: f64,
    /// Inner edge of the semi-major axes (AU).
    #[arg(long, default_value_t = 0.5)]
    a_min: f64,
    /// Outer edge of the semi-major axes (AU).
    #[arg(long, default_value_t = 4.0)]
    a_max: f64,
    /// Surface density exponent p (Sigma ~ a^-p).
    #[arg(long, default_value_t = 1.0)]
    p: f64,
    /// Rayleigh parameter of the eccentricities.
    #[arg(long, default_value_t = 0.01)]
    e_rayleigh: f64,
    /// Rayleigh parameter of the inclinations (radians).
    #[arg(long, default_value_t = 0.005)]
    i_rayleigh: f64,
    /// Density in g/cm^3.
    #[arg(long, default_value_t = 2.0)]
    rho: f64,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Central mass in Msun.
    #[arg(long, default_value_t = 1.0)]
    central_mass: f64,
}

/// The help text of `--cpu-passes`, with the pass names of both engines.
fn cpu_passes_help() -> String {
    format!(
        "Passes to run on the CPU reference instead of the device backend (comma-separated; \
         `all` or `none`, the default). Hybrid engine: {}. Sheet engine: {}",
        Pass::names(),
        orrery::sheet::SheetPass::names()
    )
}

fn main() -> ExitCode {
    // `--resume auto` (with a space) is `--resume=auto`; a bare `--resume` never takes the
    // scenario file that may follow it as its value.
    let mut argv: Vec<std::ffi::OsString> = Vec::new();
    for a in std::env::args_os() {
        if a == "auto" && argv.last().is_some_and(|l| l == "--resume") {
            argv.pop();
            argv.push("--resume=auto".into());
        } else {
            argv.push(a);
        }
    }
    let (argv, console) = match split_genga_console(argv) {
        Ok(split) => split,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(e.exit_code() as u8);
        }
    };
    let cli = Cli::parse_from(argv);
    let result = match cli.command {
        Command::Run(args) => run_command(args, console),
        Command::Devices => {
            orrery::backend::describe_devices().and_then(|text| write_stdout(&text).map(|()| 0))
        }
        Command::Generate {
            what: GenerateWhat::Disk(d),
        } => generate_disk(d),
        Command::Elements(a) => elements_command(a),
        Command::Plot(a) => plot_command(a),
        Command::Merge { dir } => orrery::io::shard::merge(&dir).and_then(|m| {
            write_stdout(&format!(
                "merged {} shards of {} `{}`: {} systems{}{}; largest shard's bodies over the \
                 mean {:.3}\n",
                m.shards,
                m.kind,
                m.name,
                m.systems,
                m.summary
                    .map(|p| format!(", table {}", p.display()))
                    .unwrap_or_default(),
                m.samples
                    .map(|p| format!(", samples {}", p.display()))
                    .unwrap_or_default(),
                m.balance
            ))
            .map(|()| 0)
        }),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
    }
}

/// After `orrery run`, GENGA's console arguments (`-dt 5 -I 1000`, `-M list`, ...) come apart
/// from the words the option parser reads (orrery::config::param_dat::console).
fn split_genga_console(
    argv: Vec<std::ffi::OsString>,
) -> Result<(Vec<std::ffi::OsString>, Vec<ConsoleValue>), Error> {
    let run_at = argv
        .iter()
        .skip(1)
        .position(|a| !a.to_string_lossy().starts_with('-'));
    match run_at.map(|i| i + 1) {
        Some(i) if argv[i] == "run" => {
            let words: Vec<String> = argv[i + 1..]
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect();
            let (rest, console) = orrery::config::param_dat::console::split_console(words)?;
            let mut out = argv[..=i].to_vec();
            out.extend(rest.into_iter().map(Into::into));
            Ok((out, console))
        }
        _ => Ok((argv, Vec::new())),
    }
}

fn run_command(args: RunArgs, console: Vec<ConsoleValue>) -> Result<u8, Error> {
    let overrides = Overrides {
        steps: args.steps,
        out: args.out,
        backend: args.backend,
        cpu_passes: None,
        sheet_cpu_passes: None,
        device: args.device,
        shard: args.shard,
        threads: args.threads,
        order: args.order,
        mode: args.mode,
        semi_active: args.semi_active,
        overwrite: args.overwrite,
        genga_console: console,
    };
    let (file, multi) = match (&args.file, &args.multi) {
        (Some(f), None) => (f.clone(), false),
        (None, Some(l)) => (l.clone(), true),
        _ => {
            return Err(Error::input(
                orrery::Location::default().field("FILE"),
                "expected either a scenario/param file or --multi LIST",
            ))
        }
    };
    let request = RunRequest {
        file,
        multi,
        overrides,
        cpu_passes: args.cpu_passes,
        resume: match args.resume.as_deref() {
            Some("auto") => Resume::Auto,
            Some(_) => Resume::Always,
            None => Resume::Fresh,
        },
    };
    install_signals()?;
    let interrupt = &orrery::signals::STOP;
    let terminal = std::io::stderr().is_terminal();
    let mut bar: Option<indicatif::ProgressBar> = None;
    let mut reports = 0u64;
    let mut observer = |event: RunEvent| match event {
        RunEvent::Started { engine, n, line } => {
            if engine == Engine::Sheet {
                // A failure here shows again at the summary's write.
                let _ = write_stdout(&format!("N = {n}\n"));
            }
            eprintln!("{line}");
        }
        RunEvent::Warning(w) => eprintln!("warning: {w}"),
        RunEvent::Progress(p) => {
            reports += 1;
            show_progress(&p, terminal, &mut bar, reports);
        }
    };
    let outcome = run_request(&request, interrupt, &mut observer);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let outcome = outcome?;
    for w in outcome.warnings() {
        eprintln!("warning: {w}");
    }
    write_stdout(&format!("{}\n", outcome.report()))?;
    let stopped = match &outcome {
        Outcome::Hybrid(_) => interrupt.load(Ordering::Relaxed),
        Outcome::Sheet(s) => s.interrupted,
    };
    Ok(stop_code(stopped))
}

/// A run's progress (either engine): a bar (crate `indicatif`) on a terminal, a line every ten reports
/// (about ten seconds) in a log.
fn show_progress(
    p: &Progress,
    terminal: bool,
    bar: &mut Option<indicatif::ProgressBar>,
    reports: u64,
) {
    let (per_step, eta) = (p.per_step(), p.eta_s());
    if terminal {
        let bar = bar.get_or_insert_with(|| {
            let style = indicatif::ProgressStyle::with_template(
                "[{bar:30}] {percent:>3}% step {pos}/{len} {msg}",
            )
            .expect("a valid template")
            .progress_chars("#>-");
            indicatif::ProgressBar::new(p.last_step)
                .with_style(style)
                .with_position(p.first_step)
        });
        bar.set_position(p.step);
        bar.set_message(format!("N={} {per_step:.3e} s/step ETA {eta:.0} s", p.n));
    } else if reports % 10 == 1 {
        eprintln!(
            "step {}/{} N={} {:.3e} s/step ETA {:.0} s",
            p.step, p.last_step, p.n, per_step, eta
        );
    }
}

/// Write `text` to standard output. A reader that closed the pipe early (`orrery run ... |
/// head`) is not an error: the run's files are complete and nothing is lost. Any other failure
/// (a full disk behind a redirection) is.
fn write_stdout(text: &str) -> Result<(), Error> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Error::run(format!("cannot write to standard output: {e}")))
        }
        _ => Ok(()),
    }
}

/// SIGINT, SIGTERM and SIGHUP stop a run at the end of its step (with a snapshot and a
/// checkpoint); SIGUSR1 writes a checkpoint and carries on.
fn install_signals() -> Result<(), Error> {
    orrery::signals::install()
        .map_err(|e| Error::run(format!("cannot install the signal handlers: {e}")))
}

/// The exit code of a run: 0, or 128 + the number of the signal that stopped it.
fn stop_code(stopped: bool) -> u8 {
    if stopped {
        orrery::signals::exit_code(orrery::signals::STOP_SIGNAL.load(Ordering::Relaxed))
    } else {
        0
    }
}

fn generate_disk(d: DiskArgs) -> Result<u8, Error> {
    let spec = DiskSpec {
        n: d.n,
        total_mass_earth: d.mass_earth,
        a_min: d.a_min,
        a_max: d.a_max,
        surface_density_exponent: d.p,
        e_rayleigh: d.e_rayleigh,
        i_rayleigh: d.i_rayleigh,
        rho: d.rho,
        seed: d.seed,
    };
    let bodies = generate::disk(&spec, d.central_mass)
        .map_err(|m| Error::input(orrery::Location::default().field("generate disk"), m))?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    generate::write_genga(&bodies, &mut out)
        .and_then(|_| std::io::Write::flush(&mut out))
        .or_else(|e| match e.kind() {
            // A reader that closed the pipe early (`| head`) is not an error.
            std::io::ErrorKind::BrokenPipe => Ok(()),
            _ => Err(e),
        })
        .map_err(|e| Error::run(format!("cannot write to standard output: {e}")))?;
    eprintln!(
        "wrote {} bodies; Input file Format: {}",
        bodies.len(),
        generate::GENGA_FORMAT
    );
    Ok(0)
}

fn central_mass_ok(m: f64) -> Result<(), Error> {
    if m.is_finite() && m > 0.0 {
        Ok(())
    } else {
        Err(Error::input(
            orrery::Location::default().field("--central-mass"),
            format!("expected a positive finite mass in Msun, got {m}"),
        ))
    }
}

fn elements_command(a: ElementsArgs) -> Result<u8, Error> {
    central_mass_ok(a.central_mass)?;
    let rows = orrery::tools::files::read_snapshot(&a.file)?;
    let table =
        orrery::tools::elements::table(&rows, a.central_mass, &a.file.display().to_string());
    write_stdout(&table)?;
    Ok(0)
}

fn plot_command(a: PlotArgs) -> Result<u8, Error> {
    use orrery::tools::plot::{self, Kind};
    central_mass_ok(a.central_mass)?;
    let (kind, suffix) = (a.kind, a.kind.name());
    if kind != Kind::Mass && a.files.len() != 1 {
        return Err(Error::input(
            orrery::Location::default().field("FILE"),
            format!(
                "expected one file for this kind of plot, got {} (only `mass` compares several)",
                a.files.len()
            ),
        ));
    }
    if kind == Kind::Mass && [a.xlim, a.ylim].iter().flatten().any(|l| l.0 <= 0.0) {
        return Err(Error::input(
            orrery::Location::default().field("--xlim"),
            "the mass spectrum has log scales: expected limits > 0",
        ));
    }
    let file = a.files[0].clone();
    if kind == Kind::Energy && a.ylim.is_some_and(|(lo, _)| lo <= 0.0) {
        return Err(Error::input(
            orrery::Location::default().field("--ylim"),
            "the energy plot has a log scale: expected limits > 0",
        ));
    }
    let opts = plot::Options {
        central_mass: a.central_mass,
        xlim: a.xlim,
        ylim: a.ylim,
    };
    let fig = match kind {
        Kind::Mass => {
            let files: Vec<&std::path::Path> = a.files.iter().map(PathBuf::as_path).collect();
            plot::mass_spectra(&files, &opts)?
        }
        Kind::Map => plot::map::stability_map(&file, a.summary.as_deref(), a.clim, &opts)?,
        Kind::Series => plot::series::series_figure(&file, a.system, a.what.as_deref(), &opts)?,
        _ => plot::figure(kind, &file, &opts)?,
    };
    let output = a.output.unwrap_or_else(|| {
        let stem = file
            .file_stem()
            .map_or_else(|| "plot".to_string(), |s| s.to_string_lossy().into_owned());
        PathBuf::from(format!("{stem}_{suffix}.png"))
    });
    orrery::io::output::write_atomic(&output, &fig.png()?)?;
    eprintln!("wrote {}: {}", output.display(), fig.note);
    Ok(0)
}
