//! The output directory's contract, the same for both engines: it is created and must be
//! writable (else an input error naming it), and a fresh run does not write into the files of
//! an earlier run of the same name. It refuses (exit code 2, naming the files) unless
//! `--overwrite`, which removes them first; `--resume` continues that run instead.

use crate::error::{Error, Location, Result};
use std::path::{Path, PathBuf};

/// Create `dir` if needed and check that it can be written: an input error naming it if not.
pub fn prepare_output_dir(dir: &Path) -> Result<()> {
    let fail = |e: std::io::Error| {
        Error::input(
            Location::file(dir).field("output directory"),
            format!("cannot write to the output directory ({e}); expected a writable directory"),
        )
    };
    std::fs::create_dir_all(dir).map_err(fail)?;
    let probe = dir.join(".orrery-write-test");
    std::fs::write(&probe, b"").map_err(fail)?;
    std::fs::remove_file(&probe).map_err(fail)
}

/// Whether `file` is `prefix`, a 12-digit step number and one of `exts` (a run's numbered
/// snapshots and checkpoints).
pub fn is_numbered(file: &str, prefix: &str, exts: &[&str]) -> bool {
    file.strip_prefix(prefix).is_some_and(|rest| {
        exts.iter().any(|ext| {
            rest.strip_suffix(ext)
                .is_some_and(|d| d.len() == 12 && d.bytes().all(|b| b.is_ascii_digit()))
        })
    })
}

/// The files in `dir` that `is_run_file` claims, sorted (none when `dir` does not exist).
pub fn run_files(dir: &Path, is_run_file: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_str().is_some_and(&is_run_file))
        .map(|e| e.path())
        .collect();
    found.sort();
    found
}

/// Before a fresh run whose files would mix with `found` (an earlier run's of the same name):
/// with `overwrite` remove them, else refuse with an input error that names them.
pub fn refuse_or_clear(found: &[PathBuf], overwrite: bool) -> Result<()> {
    if found.is_empty() {
        return Ok(());
    }
    if overwrite {
        for f in found {
            std::fs::remove_file(f).map_err(|e| Error::io(f, e))?;
        }
        return Ok(());
    }
    let shown: Vec<String> = found
        .iter()
        .take(8)
        .map(|p| p.display().to_string())
        .collect();
    let more = found.len().saturating_sub(8);
    Err(Error::input(
        Location::file(found[0].parent().unwrap_or(Path::new("."))).field("output directory"),
        format!(
            "the output directory holds files of a run of the same name ({}{}); expected \
             --resume to continue that run, --overwrite to replace it, or another output \
             directory or name",
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ),
    ))
}
