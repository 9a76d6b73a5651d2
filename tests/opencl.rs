//! OpenCL runtime plumbing (feature `opencl`): device choice, programs from the embedded sources,
//! resident fields, and the contraction canary. Run with
//! `cargo test --release --features opencl --test opencl`.
//!
//! A test that needs a device and finds none prints a `SKIPPED` line with the reason (visible
//! even though cargo captures test output) and passes; with `CI=true` it fails instead, since CI
//! installs PoCL. `ORRERY_TEST_DEVICE=N` picks the device (default as `pick(None)`).
#![cfg(feature = "opencl")]

mod common;

use orrery::backend::gpu::{Field, Gpu};
use orrery::backend::opencl::{device, program, with_source};
use orrery::backend::select::{DeviceKind, DeviceSummary};

/// The device under test, or `None` after reporting why the test is skipped (a failure in CI).
fn device_or_skip(test: &str) -> Option<device::OclDevice> {
    common::device::or_skip(
        orrery::backend::DeviceApi::OpenCl,
        test,
        device::pick(common::device::device_index()),
    )
}

/// A context on the device under test with `text` (includes resolved) built into its program.
fn gpu_or_skip(test: &str, name: &str, text: &str, options: &str) -> Option<Gpu> {
    let dev = device_or_skip(test)?;
    let source = program::expand_text(name, text).unwrap();
    Some(Gpu::from_device(
        with_source(dev, &source, options).unwrap_or_else(|e| panic!("{e}")),
    ))
}

/// Inputs where a fused multiply-add and the separately rounded a*b+c differ (see
/// kernels/canary.cl).
fn canary_inputs() -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let t = 2f64.powi(-30);
    (vec![1.0 + t, 0.1], vec![1.0 - t, 10.0], vec![-1.0, -1.0])
}

/// Runs the `canary` kernel of `gpu` on [`canary_inputs`].
fn run_canary(gpu: &Gpu) -> Vec<f64> {
    let (a, b, c) = canary_inputs();
    let n = a.len();
    let fa = Field::from_host(gpu, "a", &a).unwrap();
    let fb = Field::from_host(gpu, "b", &b).unwrap();
    let fc = Field::from_host(gpu, "c", &c).unwrap();
    let out = Field::<f64>::new(gpu, "out", n).unwrap();
    let kernel = gpu
        .kernel("canary")
        .arg(&fa)
        .arg(&fb)
        .arg(&fc)
        .arg(&out)
        .arg(n as u32)
        .build()
        .unwrap();
    // Every buffer holds n elements, and the kernel checks its index against n.
    kernel.launch(n, None).unwrap();
    gpu.finish().unwrap();
    out.to_vec().unwrap()
}

#[test]
fn canary_inputs_separate_fused_from_rounded() {
    let (a, b, c) = canary_inputs();
    for i in 0..a.len() {
        let rounded = a[i] * b[i] + c[i];
        let fused = a[i].mul_add(b[i], c[i]);
        assert_ne!(rounded.to_bits(), fused.to_bits(), "input {i}");
    }
    assert_eq!(a[0] * b[0] + c[0], 0.0);
    assert_eq!(a[0].mul_add(b[0], c[0]), -(2f64.powi(-60)));
    assert_eq!(a[1].mul_add(b[1], c[1]), 2f64.powi(-54));
}

/// The real device build (the embedded `canary.cl` with the production options) rounds a*b and
/// then the sum, as the CPU backend does: floating-point contraction is off.
#[test]
fn canary_device_build_does_not_contract() {
    let Some(dev) = device_or_skip("canary_device_build_does_not_contract") else {
        return;
    };
    let name = dev.info.name.clone();
    let gpu = Gpu::from_device(
        with_source(dev, &program::expand(&["canary.cl"]).unwrap(), "")
            .unwrap_or_else(|e| panic!("{e}")),
    );
    let got = run_canary(&gpu);
    let (a, b, c) = canary_inputs();
    for i in 0..a.len() {
        let rounded = a[i] * b[i] + c[i];
        let fused = a[i].mul_add(b[i], c[i]);
        assert_ne!(
            got[i].to_bits(),
            fused.to_bits(),
            "{name} contracted a*b+c into fma for a={:e} b={:e} c={:e}: got {:e} = fma, \
             expected {:e}; floating-point contraction is on in the device build",
            a[i],
            b[i],
            c[i],
            got[i],
            rounded
        );
        assert_eq!(
            got[i].to_bits(),
            rounded.to_bits(),
            "{name}: a*b+c for a={:e} b={:e} c={:e} gave {:e}, expected {:e}",
            a[i],
            b[i],
            c[i],
            got[i],
            rounded
        );
    }
}

/// The canary can fail: the same kernel written with fma gives the fused bits on this device.
#[test]
fn canary_detects_a_fused_multiply_add() {
    let text = program::source("canary.cl")
        .unwrap()
        .replace("a[i] * b[i] + c[i]", "fma(a[i], b[i], c[i])");
    assert!(text.contains("fma("));
    let Some(gpu) = gpu_or_skip("canary_detects_a_fused_multiply_add", "fma.cl", &text, "") else {
        return;
    };
    let got = run_canary(&gpu);
    let (a, b, c) = canary_inputs();
    for i in 0..a.len() {
        assert_eq!(got[i].to_bits(), a[i].mul_add(b[i], c[i]).to_bits());
    }
}

#[test]
fn a_broken_kernel_reports_its_build_log() {
    let text = "#include \"common/device.h\"\n\
                KERNEL void broken(GLOBAL double *x)\n{\n    x[0] = undeclared_orrery_name;\n}\n";
    let Some(dev) = device_or_skip("a_broken_kernel_reports_its_build_log") else {
        return;
    };
    let source = program::expand_text("broken.cl", text).unwrap();
    let e = match with_source(dev, &source, "") {
        Ok(_) => panic!("a kernel using an undeclared name built"),
        Err(e) => e,
    };
    let msg = e.to_string();
    assert_eq!(e.exit_code(), 2, "{msg}");
    assert!(msg.contains("do not build"), "{msg}");
    assert!(msg.contains("build log"), "{msg}");
    assert!(msg.contains("undeclared_orrery_name"), "{msg}");
    // The #line markers make the log name the file and line.
    assert!(msg.contains("broken.cl:4"), "{msg}");
}

/// NVIDIA's OpenCL compiler ignores `#line` and names lines of the whole program
/// (`<kernel>:L:C`); the error then adds the original file and line after each such position.
#[test]
fn build_log_positions_of_the_expanded_program_name_the_original_lines() {
    let text = "#include \"common/status.h\"\nKERNEL void broken(GLOBAL double *x)\n{\n    \
                x[0] = undeclared_orrery_name;\n}\n";
    let source = program::expand_text("broken.cl", text).unwrap();
    let n = source
        .lines()
        .position(|l| l.contains("undeclared_orrery_name"))
        .unwrap()
        + 1;
    assert_eq!(
        program::original_position(&source, n),
        Some(("broken.cl", 4))
    );
    let status = source
        .lines()
        .position(|l| l.contains("ORR_STATUS_LEN"))
        .unwrap()
        + 1;
    let (file, line) = program::original_position(&source, status).unwrap();
    assert_eq!(file, "common/status.h");
    let header = program::source("common/status.h").unwrap();
    assert!(header
        .lines()
        .nth(line - 1)
        .unwrap()
        .contains("ORR_STATUS_LEN"));
    let log = format!("<kernel>:{n}:12: error: use of undeclared identifier\n<kernel>:9999:1: x");
    assert_eq!(
        program::with_source_positions(&log, &source),
        format!(
            "<kernel>:{n}:12 (broken.cl:4): error: use of undeclared identifier\n<kernel>:9999:1: x"
        )
    );
    let pocl = "broken.cl:4:12: error: use of undeclared identifier";
    assert_eq!(program::with_source_positions(pocl, &source), pocl);
}

#[test]
fn contraction_enabling_options_are_refused() {
    let Some(dev) = device_or_skip("contraction_enabling_options_are_refused") else {
        return;
    };
    let source = program::expand(&["canary.cl"]).unwrap();
    let e = with_source(dev, &source, "-cl-mad-enable")
        .err()
        .expect("-cl-mad-enable accepted");
    assert!(e.to_string().contains("-cl-mad-enable"), "{e}");
}

#[test]
fn fields_round_trip_and_check_lengths() {
    let Some(gpu) = gpu_or_skip(
        "fields_round_trip_and_check_lengths",
        "empty.cl",
        "#include \"common/device.h\"\n",
        "",
    ) else {
        return;
    };
    let x: Vec<f64> = (0..1000).map(|i| (i as f64).sqrt() - 7.25).collect();
    let mut f = Field::<f64>::new(&gpu, "x", x.len()).unwrap();
    assert_eq!(f.to_vec().unwrap(), vec![0.0; x.len()]);
    f.upload(&x).unwrap();
    let mut back = vec![0.0; x.len()];
    f.download(&mut back).unwrap();
    assert_eq!(
        back.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        x.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
    let ids: Vec<u32> = (0..77).map(|i| i * 3 + u32::MAX / 2).collect();
    let g = Field::from_host(&gpu, "ids", &ids).unwrap();
    assert_eq!(g.to_vec().unwrap(), ids);
    assert_eq!((g.name(), g.len(), g.is_empty()), ("ids", 77, false));
    let e = f.upload(&x[..10]).unwrap_err().to_string();
    assert!(e.contains("field `x`") && e.contains("10 elements"), "{e}");
    let empty = Field::<u32>::new(&gpu, "none", 0).unwrap();
    assert!(empty.is_empty());
    assert_eq!(empty.to_vec().unwrap(), Vec::<u32>::new());
}

#[test]
fn a_field_larger_than_the_device_is_out_of_device_memory() {
    let Some(gpu) = gpu_or_skip(
        "a_field_larger_than_the_device_is_out_of_device_memory",
        "empty.cl",
        "#include \"common/device.h\"\n",
        "",
    ) else {
        return;
    };
    let len = (gpu.info.max_alloc / 8 + 1) as usize;
    let e = match Field::<f64>::new(&gpu, "positions", len) {
        Ok(_) => panic!("a field beyond the largest buffer was created"),
        Err(e) => e,
    };
    let msg = e.to_string();
    assert!(msg.contains("out of device memory"), "{msg}");
    assert!(msg.contains("field `positions`"), "{msg}");
    assert!(msg.contains("--backend cpu"), "{msg}");
    assert_eq!(e.exit_code(), 2);
}

#[test]
fn discovery_lists_the_picked_device_and_refuses_bad_indices() {
    let Some(dev) = device_or_skip("discovery_lists_the_picked_device_and_refuses_bad_indices")
    else {
        return;
    };
    let list = device::list().unwrap();
    assert_eq!(list[dev.info.index], dev.info);
    assert!(dev.info.fp64 && dev.info.global_mem > 0 && dev.info.compute_units > 0);
    let e = device::pick(Some(list.len())).err().unwrap();
    assert_eq!(e.exit_code(), 2);
    assert!(e.to_string().contains("out of range"), "{e}");
    assert!(e.to_string().contains("orrery devices"), "{e}");
}

fn summary(index: usize, kind: DeviceKind, fp64: bool) -> DeviceSummary {
    DeviceSummary {
        index,
        platform: "P".into(),
        platform_version: "OpenCL 1.2".into(),
        name: format!("dev{index}"),
        vendor: "V".into(),
        version: "OpenCL 1.2".into(),
        kind,
        fp64,
        global_mem: 1 << 30,
        max_alloc: 1 << 28,
        local_mem: 32 << 10,
        compute_units: 4,
        max_work_group: 256,
        compute_capability: None,
    }
}

#[test]
fn choice_rules_without_a_device() {
    let cpu = summary(0, DeviceKind::Cpu, true);
    let gpu32 = summary(1, DeviceKind::Gpu, false);
    let gpu = summary(2, DeviceKind::Gpu, true);
    // Without an index: a GPU with fp64 first, else any device with fp64 (PoCL for tests).
    let all = [cpu.clone(), gpu32.clone(), gpu.clone()];
    assert_eq!(device::choose(&all, None).unwrap(), 2);
    assert_eq!(device::choose(&all[..2], None).unwrap(), 0);
    assert_eq!(device::choose(&all, Some(0)).unwrap(), 0);
    let e = device::choose(&all, Some(1)).unwrap_err().to_string();
    assert!(
        e.contains("device 1 (dev1) refused: no double precision (cl_khr_fp64)"),
        "{e}"
    );
    assert!(e.contains("--device N, see `orrery devices`"), "{e}");
    let e = device::choose(&[gpu32], None).unwrap_err().to_string();
    assert!(
        e.contains("refused: no double precision (cl_khr_fp64)"),
        "{e}"
    );
    let e = device::choose(&all, Some(3)).unwrap_err().to_string();
    assert!(e.contains("--device 3 is out of range"), "{e}");
    let e = device::choose(&[], None).unwrap_err().to_string();
    assert!(
        e.contains("install an OpenCL runtime such as pocl-opencl-icd"),
        "{e}"
    );
}

#[test]
fn every_kernel_file_is_embedded() {
    let root = common::source_dir().join("kernels");
    let mut files = Vec::new();
    for dir in [root.clone(), root.join("common")] {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            let ext = p.extension().and_then(|x| x.to_str()).unwrap_or("");
            if ext == "cl" || ext == "h" {
                let rel = p.strip_prefix(&root).unwrap().to_string_lossy();
                files.push(rel.replace('\\', "/"));
            }
        }
    }
    assert!(files.len() >= 2, "{files:?}");
    for f in &files {
        let embedded = program::source(f)
            .unwrap_or_else(|| panic!("kernels/{f} is not in SOURCES (program.rs)"));
        assert_eq!(embedded, std::fs::read_to_string(root.join(f)).unwrap());
    }
}

#[test]
fn includes_resolve_from_the_table_once_with_line_markers() {
    let text = program::expand(&["canary.cl"]).unwrap();
    assert!(text.starts_with("#line 1 \"canary.cl\"\n/*"), "{text}");
    let inc = text.find("#line 1 \"common/device.h\"\n").unwrap();
    // After the header, the numbering of canary.cl resumes after its include line.
    let line = 1 + program::source("canary.cl")
        .unwrap()
        .lines()
        .position(|l| l.starts_with("#include"))
        .unwrap();
    assert!(text[inc..].contains(&format!("#line {} \"canary.cl\"\n", line + 1)));
    assert!(text.contains("#define ORRERY_DEVICE_H"));
    assert!(!text.contains("#include \"common/device.h\""));
    let twice = program::expand_text(
        "t.cl",
        "#include \"common/device.h\"\n  #  include \"common/../common/device.h\"\nx\n",
    )
    .unwrap();
    assert_eq!(twice.matches("#define ORRERY_DEVICE_H").count(), 1);
    assert!(twice.ends_with("#line 2 \"t.cl\"\n\nx\n"), "{twice}");
    assert_eq!(
        program::resolve("common/x.h", "device.h"),
        Some("common/device.h")
    );
    assert_eq!(
        program::resolve("canary.cl", "common/device.h"),
        Some("common/device.h")
    );
    assert_eq!(program::quoted_include("#include <math.h>"), None);
    let e = program::expand_text("t.cl", "\n#include \"common/nope.h\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("`common/nope.h` (included from t.cl:2)"), "{e}");
}
