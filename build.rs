//! Compiles the device headers of `kernels/common/` for the host (`kernels/host/native.c`), once
//! as C99 and once as C++, into two static libraries that the parity tests of
//! `src/backend/device_math_tests.rs` call (see kernels/README.md). Both builds keep IEEE
//! semantics: no contraction into fused multiply-adds, no fast-math.
//!
//! With the `cuda` feature it also builds the PTX of `cuda/*.cu` (sm_70, sm_80, sm_90,
//! contraction off) with `scripts/build-ptx` (nvcc when on PATH, otherwise clang 19) into
//! `OUT_DIR`, and writes `ptx_modules.rs`, the table `src/backend/cuda/ptx.rs` embeds.

use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=kernels");
    println!("cargo:rerun-if-changed=build.rs");
    let source = "kernels/host/native.c";
    let strict = |b: &mut cc::Build| {
        b.file(source)
            .opt_level(2)
            .flag("-ffp-contract=off")
            .flag("-fno-fast-math")
            // device.h's `#pragma STDC FP_CONTRACT OFF` is for compilers that honour it, and its
            // header comment names `kernels/*.cl`.
            .flag_if_supported("-Wno-unknown-pragmas")
            .flag_if_supported("-Wno-comment");
    };
    let mut c = cc::Build::new();
    strict(&mut c);
    c.std("c99").compile("orrery_native");
    // The same source as C++ (the language of the CUDA build), with its own symbol names.
    let mut cxx = cc::Build::new();
    strict(&mut cxx);
    cxx.cpp(true)
        .cpp_link_stdlib(None)
        .flag("-xc++")
        .flag_if_supported("-fno-exceptions")
        .compile("orrery_native_cxx");
    if std::env::var_os("CARGO_FEATURE_CUDA").is_some() {
        build_ptx();
    }
}

/// PTX targets of the embedded modules (as `scripts/build-ptx` names them).
const PTX_TARGETS: [&str; 3] = ["sm_70", "sm_80", "sm_90"];

/// Build the PTX with `scripts/build-ptx` and write the table of embedded modules; a missing
/// compiler or a failed build stops the build with what to install.
fn build_ptx() {
    println!("cargo:rerun-if-changed=cuda");
    println!("cargo:rerun-if-changed=scripts/build-ptx");
    for var in ["CUDA_PATH", "CLANG", "PATH"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let ptx_dir = out.join("ptx");
    let status = std::process::Command::new("bash")
        .arg("scripts/build-ptx")
        .arg(&ptx_dir)
        .env("ORRERY_PTX_ONLY", "1")
        .status();
    match status {
        Ok(s) if s.success() => {}
        other => {
            let why = match other {
                Ok(s) => format!("scripts/build-ptx failed ({s}); its message is above"),
                Err(e) => format!("cannot run bash scripts/build-ptx: {e}"),
            };
            eprintln!(
                "error: the `cuda` feature builds the CUDA kernels to PTX at compile time: {why}. \
                 It needs nvcc (the CUDA toolkit) on PATH, or clang 19 (Debian: `apt-get install \
                 clang-19`, or set CLANG) with libdevice from $CUDA_PATH or the pip wheel \
                 nvidia-cuda-nvcc-cu12 (`pip install nvidia-cuda-nvcc-cu12`). See the README's \
                 section on CUDA."
            );
            std::process::exit(1);
        }
    }
    let mut modules: Vec<String> = std::fs::read_dir("cuda")
        .expect("cuda/ exists")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|f| f.strip_suffix(".cu").map(str::to_string))
        .collect();
    modules.sort();
    let mut table = String::from(
        "/// Every embedded PTX module: (module, target, PTX text).\n\
         pub const MODULES: &[(&str, &str, &str)] = &[\n",
    );
    for m in &modules {
        for t in PTX_TARGETS {
            let file = ptx_dir.join(format!("{m}.{t}.ptx"));
            if !Path::new(&file).is_file() {
                eprintln!("error: scripts/build-ptx wrote no {}", file.display());
                std::process::exit(1);
            }
            table.push_str(&format!(
                "    ({m:?}, {t:?}, include_str!({:?})),\n",
                file.display().to_string()
            ));
        }
    }
    table.push_str("];\n");
    std::fs::write(out.join("ptx_modules.rs"), table).expect("write ptx_modules.rs");
}
