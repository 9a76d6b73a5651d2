//! Compiles the device headers of `kernels/common/` for the host (`kernels/host/native.c`), once
//! as C99 and once as C++, into two static libraries that the parity tests of
//! `src/backend/device_math_tests.rs` call (see kernels/README.md). Both builds keep IEEE
//! semantics: no contraction into fused multiply-adds, no fast-math.

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
}
