//! GENGA's multi-simulation list (`-M pathfile`, `orrery run --multi LIST`): one simulation
//! directory per line, absolute or relative to the list's folder, each with its own `param.dat`.

use crate::error::{Error, Location, Result};
use std::path::{Path, PathBuf};

/// The simulation directories named in `list` (blank lines and `#` comments skipped).
pub fn read_list(list: &Path) -> Result<Vec<(usize, PathBuf)>> {
    let text = std::fs::read_to_string(list).map_err(|e| {
        Error::input(
            Location::file(list),
            format!("cannot read the simulation list ({e}); expected a text file with one directory per line"),
        )
    })?;
    let base = list.parent().unwrap_or(Path::new("."));
    let mut dirs = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let dir = base.join(line);
        let param = dir.join("param.dat");
        if !param.is_file() {
            return Err(Error::input(
                Location::file(list).line(k + 1),
                format!(
                    "expected a simulation directory holding param.dat, but {} does not exist",
                    param.display()
                ),
            ));
        }
        dirs.push((k + 1, dir));
    }
    if dirs.is_empty() {
        return Err(Error::input(
            Location::file(list),
            "expected at least one simulation directory",
        ));
    }
    Ok(dirs)
}
