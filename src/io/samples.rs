//! The sampled time series of a run's systems as NumPy arrays, and the `.npz` file that holds
//! them (uncompressed, as `numpy.savez` writes; read with `numpy.load`). Arrays, `S` systems,
//! `N` samples (the most any system took; a system that stopped early has the rest empty),
//! `B` body slots:
//!
//! - `system` `[S]` (int64): each system's index in its ensemble or list;
//! - `step` `[S, N]` (int64, -1 where empty) and `time` `[S, N]` (years, NaN where empty);
//! - the system's values, `[S, N]`: `megno`, `lyapunov` (per year), `min_distance` (AU),
//!   `min_distance_hill` (mutual Hill radii), `energy_error`;
//! - the bodies' values, `[S, N, B]`: `id` (int64, -1 for an empty slot), then the elements
//!   `a`, `e`, `inc`, `node`, `peri`, `pomega`, `mean_anomaly`, `mean_longitude` (radians) and
//!   `period` (years), heliocentric, and the same Jacobi ones with the prefix `jacobi_`.

use crate::error::{Error, Result};
use npyz::WriterBuilder as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The file of a run's samples: `Samples<name>.npz` in its output (checkpoint) directory.
pub fn samples_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("Samples{name}.npz"))
}

/// The values of one array.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    F64(Vec<f64>),
    I64(Vec<i64>),
}

/// One named array, row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct Array {
    pub name: String,
    pub shape: Vec<u64>,
    pub values: Values,
}

/// The records of a run's samples laid out as arrays: each system's records are consecutive
/// rows of `[step, time, system values..., B x (body values...)]`.
#[derive(Debug, Clone, Copy)]
pub struct Layout<'a> {
    /// The names of the system's values, in record order.
    pub system: &'a [&'static str],
    /// The names of each body slot's values, in record order (`id` first when there are any).
    pub body: &'a [String],
    /// Body slots per record.
    pub slots: usize,
}

impl Layout<'_> {
    /// Values per record.
    pub fn record_len(&self) -> usize {
        2 + self.system.len() + self.slots * self.body.len()
    }

    /// The arrays of the systems `systems` (their indices) with records `records`.
    pub fn arrays(&self, systems: &[usize], records: &[&[f64]]) -> Vec<Array> {
        let len = self.record_len();
        let n = records.iter().map(|r| r.len() / len).max().unwrap_or(0);
        let s_count = records.len();
        // Column `c` of every record (NaN where a system has fewer samples).
        let column = |c: usize, slot: Option<usize>| -> Vec<f64> {
            let mut out = Vec::with_capacity(s_count * n);
            for r in records {
                for k in 0..n {
                    let v = r.get(k * len..(k + 1) * len).map_or(f64::NAN, |rec| {
                        let at = match slot {
                            None => c,
                            Some(b) => 2 + self.system.len() + b * self.body.len() + c,
                        };
                        rec[at]
                    });
                    out.push(v);
                }
            }
            out
        };
        let ints = |v: Vec<f64>| -> Values {
            Values::I64(
                v.into_iter()
                    .map(|x| if x.is_nan() { -1 } else { x as i64 })
                    .collect(),
            )
        };
        let (s, nn) = (s_count as u64, n as u64);
        let mut out = vec![
            Array {
                name: "system".into(),
                shape: vec![s],
                values: Values::I64(systems.iter().map(|&k| k as i64).collect()),
            },
            Array {
                name: "step".into(),
                shape: vec![s, nn],
                values: ints(column(0, None)),
            },
            Array {
                name: "time".into(),
                shape: vec![s, nn],
                values: Values::F64(column(1, None)),
            },
        ];
        for (c, name) in self.system.iter().enumerate() {
            out.push(Array {
                name: (*name).into(),
                shape: vec![s, nn],
                values: Values::F64(column(2 + c, None)),
            });
        }
        for (c, name) in self.body.iter().enumerate() {
            // Slot-major within a sample: [system, sample, body].
            let per_slot: Vec<Vec<f64>> = (0..self.slots).map(|b| column(c, Some(b))).collect();
            let mut v = Vec::with_capacity(s_count * n * self.slots);
            for i in 0..s_count * n {
                v.extend(per_slot.iter().map(|col| col[i]));
            }
            out.push(Array {
                name: name.clone(),
                shape: vec![s, nn, self.slots as u64],
                values: if name == "id" {
                    ints(v)
                } else {
                    Values::F64(v)
                },
            });
        }
        out
    }
}

/// The `.npy` bytes of `values` shaped `shape`.
fn npy_of<T: npyz::AutoSerialize + Copy>(shape: &[u64], values: &[T]) -> std::io::Result<Vec<u8>> {
    let mut buf = Vec::new();
    let mut w = npyz::WriteOptions::<T>::new()
        .default_dtype()
        .shape(shape)
        .writer(&mut buf)
        .begin_nd()?;
    w.extend(values.iter().copied())?;
    w.finish()?;
    Ok(buf)
}

/// The `.npy` bytes of one array.
fn npy(a: &Array) -> std::io::Result<Vec<u8>> {
    match &a.values {
        Values::F64(v) => npy_of(&a.shape, v),
        Values::I64(v) => npy_of(&a.shape, v),
    }
}

/// Write `arrays` as the `.npz` file `path` (atomically: a reader sees the old file or the new
/// one).
pub fn write_npz(path: &Path, arrays: &[Array]) -> Result<()> {
    let fail =
        |e: &dyn std::fmt::Display| Error::run(format!("cannot write {}: {e}", path.display()));
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for a in arrays {
        let bytes = npy(a).map_err(|e| fail(&e))?;
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored)
            .large_file(bytes.len() as u64 >= u32::MAX as u64);
        zip.start_file(format!("{}.npy", a.name), options)
            .map_err(|e| fail(&e))?;
        zip.write_all(&bytes).map_err(|e| fail(&e))?;
    }
    let data = zip.finish().map_err(|e| fail(&e))?.into_inner();
    crate::io::output::write_atomic(path, &data)
}

/// The arrays of an `.npz` file this module wrote (float64 and int64 `.npy` entries, stored),
/// in the file's order; an input error naming the file otherwise.
pub fn read_npz(path: &Path) -> Result<Vec<Array>> {
    use std::io::Read as _;
    let bad = |m: String| Error::input(crate::error::Location::file(path), m);
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| {
        bad(format!(
            "not an .npz file ({e}); expected Samples<name>.npz"
        ))
    })?;
    let mut out = Vec::with_capacity(zip.len());
    for k in 0..zip.len() {
        let mut entry = zip
            .by_index(k)
            .map_err(|e| bad(format!("cannot read entry {k}: {e}")))?;
        let name = entry
            .name()
            .map_err(|e| bad(format!("entry {k}: {e}")))?
            .trim_end_matches(".npy")
            .to_string();
        let mut bytes = Vec::new();
        entry
            .read_to_end(&mut bytes)
            .map_err(|e| bad(format!("`{name}`: {e}")))?;
        let npy = npyz::NpyFile::new(&bytes[..]).map_err(|e| bad(format!("`{name}`: {e}")))?;
        let shape = npy.shape().to_vec();
        let values = match npy.dtype().descr().as_str() {
            "'<i8'" => npy.into_vec::<i64>().map(Values::I64),
            "'<f8'" => npy.into_vec::<f64>().map(Values::F64),
            other => {
                return Err(bad(format!(
                    "`{name}`: dtype {other}; expected float64 or int64"
                )))
            }
        }
        .map_err(|e| bad(format!("`{name}`: {e}")))?;
        out.push(Array {
            name,
            shape,
            values,
        });
    }
    Ok(out)
}

/// The arrays of the shards of one run (each holding its systems' samples, their indices in
/// `system`) as the unsharded run's: every system in index order, `total` of them, the samples
/// and body slots padded to the most any shard has (NaN, -1 for integers).
pub fn merge_arrays(parts: &[Vec<Array>], total: usize) -> std::result::Result<Vec<Array>, String> {
    let first = parts.first().ok_or("no shard's samples")?;
    let names: Vec<&str> = first.iter().map(|a| a.name.as_str()).collect();
    let get = |part: &[Array], name: &str| -> std::result::Result<Array, String> {
        part.iter()
            .find(|a| a.name == name)
            .cloned()
            .ok_or_else(|| format!("a shard's samples lack `{name}`"))
    };
    // Where each shard's system goes.
    let mut rows = Vec::with_capacity(parts.len());
    for part in parts {
        let Values::I64(systems) = get(part, "system")?.values else {
            return Err("`system` is not int64".into());
        };
        let rows_of: Vec<usize> = systems.iter().map(|&s| s as usize).collect();
        if rows_of.iter().any(|&s| s >= total) {
            return Err(format!("a system index beyond the run's {total} systems"));
        }
        rows.push(rows_of);
    }
    let dim = |name: &str, axis: usize| -> std::result::Result<u64, String> {
        parts.iter().try_fold(0u64, |m, p| {
            Ok(m.max(get(p, name)?.shape.get(axis).copied().unwrap_or(1)))
        })
    };
    let mut out = vec![Array {
        name: "system".into(),
        shape: vec![total as u64],
        values: Values::I64((0..total as i64).collect()),
    }];
    for &name in names.iter().filter(|&&n| n != "system") {
        let shape0 = get(first, name)?.shape;
        let (n, b) = (
            dim(name, 1)? as usize,
            if shape0.len() == 3 {
                dim(name, 2)? as usize
            } else {
                1
            },
        );
        let mut f = vec![f64::NAN; total * n * b];
        let mut i = vec![-1i64; total * n * b];
        let mut int = false;
        for (part, rows_of) in parts.iter().zip(&rows) {
            let a = get(part, name)?;
            let (pn, pb) = (
                a.shape.get(1).copied().unwrap_or(1) as usize,
                a.shape.get(2).copied().unwrap_or(1) as usize,
            );
            for (r, &s) in rows_of.iter().enumerate() {
                for k in 0..pn {
                    for j in 0..pb {
                        let (from, to) = ((r * pn + k) * pb + j, (s * n + k) * b + j);
                        match &a.values {
                            Values::F64(v) => f[to] = v[from],
                            Values::I64(v) => {
                                int = true;
                                i[to] = v[from];
                            }
                        }
                    }
                }
            }
        }
        let mut shape = vec![total as u64, n as u64];
        if shape0.len() == 3 {
            shape.push(b as u64);
        }
        out.push(Array {
            name: name.to_string(),
            shape,
            values: if int { Values::I64(i) } else { Values::F64(f) },
        });
    }
    Ok(out)
}
