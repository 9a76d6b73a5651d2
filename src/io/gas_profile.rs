//! Reading a tabulated gas disk (GENGA `Gas file name`; the table is
//! [`crate::physics::gas::profile::DiskProfile`]): rows `time r Sigma h`, whitespace-separated,
//! with the time in years, the radius in AU, the surface density in g/cm² and the aspect ratio
//! `h = H/r`; the rows of one time form a block, with the radii increasing and uniform in `ln r`
//! (GENGA's grid; GENGA takes them as 0.25 to 1000 AU, Orrery reads them), the same radii in
//! every block and the blocks' times increasing. Blank lines and lines from `#` on are skipped.

use crate::error::{Error, Location, Result};
use crate::physics::gas::profile::DiskProfile;
use crate::units;
use std::path::Path;

/// The columns, for messages.
const COLUMNS: [&str; 4] = ["time", "r", "Sigma", "h"];

/// Read the tabulated disk at `path`; `named` is where the file was named (the param file's
/// `Gas file name` line or the scenario's `forces.gas.file`), for a missing file.
pub fn read_gas_profile(path: &Path, named: Location) -> Result<DiskProfile> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::input(
            named,
            format!("cannot read the gas disk file `{}`: {e}", path.display()),
        )
    })?;
    let mut radii: Vec<f64> = Vec::new();
    let (mut times, mut values) = (Vec::new(), Vec::new());
    let mut row = 0;
    for (k, line) in text.lines().enumerate() {
        let at = |c: usize| Location::file(path).line(k + 1).field(COLUMNS[c]);
        let line = line.split('#').next().unwrap_or("");
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.is_empty() {
            continue;
        }
        if words.len() != 4 {
            return Err(Error::input(
                Location::file(path).line(k + 1),
                format!("expected 4 columns `time r Sigma h`, got {}", words.len()),
            ));
        }
        let mut v = [0.0; 4];
        for (c, w) in words.iter().enumerate() {
            v[c] = w
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| Error::input(at(c), format!("expected a number, got `{w}`")))?;
        }
        let [t, r, sigma, h] = v;
        if sigma < 0.0 {
            return Err(Error::input(
                at(2),
                format!("expected a surface density >= 0 g/cm^2, got {sigma}"),
            ));
        }
        if h <= 0.0 {
            return Err(Error::input(
                at(3),
                format!("expected an aspect ratio H/r > 0, got {h}"),
            ));
        }
        let t = units::years_to_code(t);
        if times.last() != Some(&t) {
            if let Some(&last) = times.last() {
                if t < last || row != radii.len() {
                    let why = match t < last {
                        true => "a time after the previous block's".to_string(),
                        false => format!("the previous block's {} radii", radii.len()),
                    };
                    return Err(Error::input(at(0), format!("expected {why}")));
                }
            }
            times.push(t);
            row = 0;
        }
        if times.len() == 1 {
            if !(r > 0.0 && radii.last().is_none_or(|&p| r > p)) {
                return Err(Error::input(
                    at(1),
                    format!("expected a radius > 0 AU beyond the previous row's, got {r}"),
                ));
            }
            radii.push(r);
        } else if radii.get(row) != Some(&r) {
            return Err(Error::input(
                at(1),
                format!(
                    "expected the first block's radius {} (every block has the same radii), \
                     got {r}",
                    radii
                        .get(row)
                        .map_or("(none: too many rows)".into(), |x| x.to_string())
                ),
            ));
        }
        row += 1;
        values.extend([sigma * units::AU_CM * units::AU_CM / units::MSUN_G, h]);
    }
    check_grid(path, &radii, row, times.len())?;
    Ok(DiskProfile::new(radii, times, values))
}

/// At least two radii, uniform in `ln r` (to 1e-6 of the spacing), and a complete last block.
fn check_grid(path: &Path, radii: &[f64], row: usize, blocks: usize) -> Result<()> {
    let at = Location::file(path).field("r");
    if blocks == 0 || radii.len() < 2 {
        return Err(Error::input(
            at,
            "expected at least one block of two or more radii",
        ));
    }
    if row != radii.len() {
        return Err(Error::input(
            at,
            format!(
                "expected the last block to have all {} radii, got {row}",
                radii.len()
            ),
        ));
    }
    let n = radii.len() - 1;
    let dln = (radii[n] / radii[0]).ln() / n as f64;
    for (i, r) in radii.iter().enumerate() {
        let off = (r / radii[0]).ln() / dln - i as f64;
        if off.abs() > 1e-6 {
            return Err(Error::input(
                at,
                format!(
                    "expected radii uniform in ln r (GENGA's grid), but radius {i} ({r} AU) is \
                     {off:.3e} spacings off"
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(name: &str, text: &str) -> Result<DiskProfile> {
        let dir = std::env::temp_dir().join(format!("orrery-gas-profile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        read_gas_profile(&path, Location::default().field("Gas file name"))
    }

    /// Rows of `blocks` at radii 1, 2, 4 AU (uniform in ln r).
    fn rows(times: &[f64]) -> String {
        let mut s = String::from("# time r Sigma h\n");
        for t in times {
            for (r, sigma) in [(1.0, 2000.0), (2.0, 1000.0), (4.0, 500.0)] {
                s += &format!("{t} {r} {sigma} 0.05\n");
            }
            s += "\n";
        }
        s
    }

    #[test]
    fn a_gas_file_is_read_in_code_units() {
        let p = read("good.txt", &rows(&[0.0, 1000.0])).unwrap();
        assert_eq!(p.radii, [1.0, 2.0, 4.0]);
        assert_eq!(p.times, [0.0, units::years_to_code(1000.0)]);
        assert!((p.dln - 2f64.ln()).abs() < 1e-15 && p.ln_r0 == 0.0);
        let sigma = 2000.0 * units::AU_CM * units::AU_CM / units::MSUN_G;
        assert_eq!((p.values[0], p.values[1]), (sigma, 0.05));
        assert_eq!(p.values.len(), 12);
    }

    #[test]
    fn bad_gas_files_are_named_by_line_and_column() {
        let good = rows(&[0.0, 1000.0]);
        for (text, line, field, want) in [
            (
                good.replace("2 1000 0.05", "2 -3 0.05"),
                3,
                "Sigma",
                "surface density >= 0",
            ),
            (
                good.replace("4 500 0.05", "4 500 0"),
                4,
                "h",
                "aspect ratio",
            ),
            (
                good.replace("1000 2 1000", "1000 2.5 1000"),
                7,
                "r",
                "first block's radius 2",
            ),
            (rows(&[1000.0, 0.0]), 6, "time", "a time after"),
            (
                good.replace("0 2 1000 0.05", "0 3 1000 0.05"),
                0,
                "r",
                "uniform in ln r",
            ),
            (
                rows(&[0.0, 1000.0, 2000.0]).replace("1000 4 500 0.05\n", ""),
                9,
                "time",
                "previous block's 3 radii",
            ),
            (good.replace("1000 4 500 0.05\n", ""), 0, "r", "all 3 radii"),
            (
                good.replace("0 1 2000 0.05", "0 1 x 0.05"),
                2,
                "Sigma",
                "a number",
            ),
        ] {
            let e = read("bad.txt", &text).unwrap_err();
            let Error::Input { at, message } = e else {
                panic!("{text}: not an input error: {e}");
            };
            if line > 0 {
                assert_eq!(at.line, Some(line), "{text}: {message}");
            }
            assert_eq!(at.field.as_deref(), Some(field), "{text}: {message}");
            assert!(message.contains(want), "{text}: {message}");
        }
        let e = read_gas_profile(
            Path::new("/nonexistent/gas.txt"),
            Location::default().field("Gas file name"),
        )
        .unwrap_err();
        assert!(e.to_string().contains("Gas file name") && e.to_string().contains("cannot read"));
    }
}
