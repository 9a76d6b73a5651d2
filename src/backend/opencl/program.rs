//! OpenCL programs built from the kernel sources embedded in the binary.
//!
//! `kernels/*.cl` and `kernels/common/*.h` are compiled into the binary with `include_str!`
//! ([`SOURCES`]), so a run never needs the source tree. `#include "..."` lines are resolved
//! textually from that table (relative to the including file, then to `kernels/`), each file at
//! most once (the headers have include guards anyway), with `#line` markers so that the build
//! log names the original file and line. `#include <...>` lines are left alone: only the host C
//! branch of `common/device.h` has them, which OpenCL never compiles.
//!
//! Build options keep floating-point contraction off (`common/device.h` also says
//! `#pragma OPENCL FP_CONTRACT OFF`): no `-cl-mad-enable`, no `-cl-fast-relaxed-math`, no
//! `-cl-unsafe-math-optimizations`. The canary test (`tests/opencl.rs`, `kernels/canary.cl`)
//! fails when a device contracts a*b+c anyway.

use super::{cl_error, config_error};
use crate::error::{Error, Result};
use std::ffi::CString;

macro_rules! embed {
    ($($path:literal),* $(,)?) => {
        &[$(($path, include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/kernels/", $path)))),*]
    };
}

/// Every device source, by its path under `kernels/`. A test checks that this table lists every
/// `*.cl` and `*.h` file of `kernels/`: add new files here.
pub const SOURCES: &[(&str, &str)] = embed![
    "common/device.h",
    "common/lanes.h",
    "common/sincos.h",
    "common/kepler.h",
    "common/kepler_tangent.h",
    "common/changeover.h",
    "common/hermite.h",
    "common/energy.h",
    "common/status.h",
    "common/bulirsch_stoer.h",
    "common/truncation.h",
    "common/gas.h",
    "common/tides.h",
    "common/forces.h",
    "common/sheet.h",
    "common/wisdom_holman.h",
    "common/wh_variations.h",
    "canary.cl",
    "hybrid.cl",
    "pair.cl",
    "groups.cl",
    "bulirsch_stoer.cl",
    "sheet.cl",
    "wisdom_holman.cl",
];

/// Options of every build: OpenCL C 1.2, contraction off (nothing that enables it).
pub const BUILD_OPTIONS: &str = "-cl-std=CL1.2";

/// Options that would allow a*b+c to be contracted or reassociated; refused by [`build`].
const FORBIDDEN_OPTIONS: [&str; 4] = [
    "-cl-mad-enable",
    "-cl-fast-relaxed-math",
    "-cl-unsafe-math-optimizations",
    "-cl-finite-math-only",
];

/// The embedded text of `path` (relative to `kernels/`).
pub fn source(path: &str) -> Option<&'static str> {
    SOURCES.iter().find(|(p, _)| *p == path).map(|(_, t)| *t)
}

/// The embedded entry files `entries` (paths under `kernels/`) with every quoted include
/// resolved, in one translation unit.
pub fn expand(entries: &[&str]) -> Result<String> {
    let mut out = String::new();
    let mut seen = Vec::new();
    for e in entries {
        let text = source(e).ok_or_else(|| missing(e, None))?;
        expand_into(e, text, &mut seen, &mut out)?;
    }
    Ok(out)
}

/// `text` (named `name` in the build log) with its quoted includes resolved from the embedded
/// table: for sources that are not in the table, such as tests' kernels.
pub fn expand_text(name: &str, text: &str) -> Result<String> {
    let mut out = String::new();
    expand_into(name, text, &mut Vec::new(), &mut out)?;
    Ok(out)
}

fn missing(path: &str, from: Option<(&str, usize)>) -> Error {
    let known: Vec<&str> = SOURCES.iter().map(|(p, _)| *p).collect();
    Error::run(format!(
        "device source `{path}`{} is not embedded in this binary (embedded: {}); add it to \
         `SOURCES` in src/backend/opencl/program.rs",
        from.map(|(f, l)| format!(" (included from {f}:{l})"))
            .unwrap_or_default(),
        known.join(", ")
    ))
}

/// The quoted file name of an `#include "..."` line, if `line` is one.
pub fn quoted_include(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("include")?.trim_start();
    let rest = rest.strip_prefix('"')?;
    rest.find('"').map(|end| &rest[..end])
}

/// `target` as included from the file `from`: relative to `from`'s directory, else to
/// `kernels/`; `.` and `..` components folded.
pub fn resolve(from: &str, target: &str) -> Option<&'static str> {
    let dir = from.rfind('/').map(|i| &from[..i]).unwrap_or("");
    let relative = normalize(&format!("{dir}/{target}"));
    if source(&relative).is_some() {
        return SOURCES
            .iter()
            .find(|(p, _)| *p == relative)
            .map(|(p, _)| *p);
    }
    let rooted = normalize(target);
    SOURCES.iter().find(|(p, _)| *p == rooted).map(|(p, _)| *p)
}

fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for c in path.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    parts.join("/")
}

fn expand_into(
    name: &str,
    text: &str,
    seen: &mut Vec<&'static str>,
    out: &mut String,
) -> Result<()> {
    out.push_str(&format!("#line 1 \"{name}\"\n"));
    for (i, line) in text.lines().enumerate() {
        match quoted_include(line) {
            Some(target) => {
                let path =
                    resolve(name, target).ok_or_else(|| missing(target, Some((name, i + 1))))?;
                if !seen.contains(&path) {
                    seen.push(path);
                    let inner = source(path).unwrap_or_default();
                    expand_into(path, inner, seen, out)?;
                    out.push_str(&format!("#line {} \"{name}\"\n", i + 2));
                } else {
                    out.push('\n');
                }
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    Ok(())
}

/// Build `source` (already expanded) for `device` with [`BUILD_OPTIONS`] and `extra_options`.
/// A build failure is a configuration error (exit code 2) that carries the full build log.
pub fn build(
    context: &ocl::Context,
    device: &ocl::Device,
    source: &str,
    extra_options: &str,
) -> Result<ocl::Program> {
    if let Some(bad) = FORBIDDEN_OPTIONS
        .iter()
        .find(|o| extra_options.split_whitespace().any(|w| w == **o))
    {
        return Err(Error::run(format!(
            "OpenCL build option `{bad}` would allow contraction or unsafe math, which breaks \
             parity with the CPU backend"
        )));
    }
    let options = format!("{BUILD_OPTIONS} {extra_options}");
    let text = CString::new(source)
        .map_err(|_| Error::run("OpenCL program source contains a NUL byte"))?;
    let opts = CString::new(options.trim())
        .map_err(|_| Error::run("OpenCL build options contain a NUL byte"))?;
    let program = ocl::core::create_program_with_source(context, &[text])
        .map_err(|e| cl_error("creating the program", e))?;
    let ids = [device.as_core()];
    if let Err(e) = ocl::core::build_program(&program, Some(&ids[..]), &opts, None, None) {
        let log = match ocl::core::get_program_build_info(
            &program,
            device.as_core(),
            ocl::core::ProgramBuildInfo::BuildLog,
        ) {
            Ok(log) => log.to_string(),
            Err(_) => e.to_string(),
        };
        let device_name = device.name().unwrap_or_else(|_| "the device".into());
        return Err(config_error(format!(
            "the OpenCL kernels do not build on {device_name} (options `{}`); build log:\n{}",
            options.trim(),
            with_source_positions(log.trim_end(), source)
        )));
    }
    Ok(ocl::Program::from(program))
}

/// The position in the original files of line `n` (1-based) of an expanded `source`, read off
/// its `#line` markers: the file's name and line.
pub fn original_position(source: &str, n: usize) -> Option<(&str, usize)> {
    let mut at: Option<(&str, usize)> = None;
    for (index, line) in source.lines().enumerate() {
        if index + 1 == n {
            return at;
        }
        at = match line.strip_prefix("#line ").and_then(line_marker) {
            Some(marker) => Some(marker),
            None => at.map(|(name, l)| (name, l + 1)),
        };
    }
    None
}

/// `L "name"` of a `#line` marker.
fn line_marker(rest: &str) -> Option<(&str, usize)> {
    let (number, name) = rest.split_once(' ')?;
    let name = name.strip_prefix('"')?.strip_suffix('"')?;
    Some((name, number.parse().ok()?))
}

/// A build log whose positions name the expanded source (`<kernel>:L:C`, as NVIDIA's compiler
/// writes them, ignoring `#line`) with each such position followed by the original file and line
/// (`(file:line)`). Logs that already name the files (PoCL) come back unchanged.
pub fn with_source_positions(log: &str, source: &str) -> String {
    const TAG: &str = "<kernel>:";
    let mut out = String::with_capacity(log.len());
    let mut rest = log;
    while let Some(at) = rest.find(TAG) {
        let after = &rest[at + TAG.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        // The column after the line, if any, stays with it.
        let column = after[digits..]
            .strip_prefix(':')
            .map_or(0, |c| c.bytes().take_while(u8::is_ascii_digit).count());
        let end = digits + if column > 0 { column + 1 } else { 0 };
        out.push_str(&rest[..at + TAG.len() + end]);
        if let Some((name, line)) = after[..digits]
            .parse()
            .ok()
            .and_then(|n| original_position(source, n))
        {
            out.push_str(&format!(" ({name}:{line})"));
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}
