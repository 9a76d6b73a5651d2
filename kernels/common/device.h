/*
 * device.h — the one file of Orrery's device sources that knows the target.
 *
 * Every other header in kernels/common/ and every kernel entry point in kernels/ is written in the
 * common subset of OpenCL C 1.2, CUDA C++ and host C99, using only the names defined here:
 *
 *   DEVICE_FN            a device function (inlined where the target allows)
 *   KERNEL               an entry point (OpenCL __kernel, CUDA extern "C" __global__)
 *   GLOBAL, LOCAL_MEM, CONSTANT_MEM   address spaces of pointers and of work-group arrays
 *   LOCAL_PTR            qualifier of a pointer to work-group memory (a device function's argument)
 *   WORKGROUP_ARG(T, p), WORKGROUP_DECL(T, p)   a work-group variable of type T reached through
 *                        the pointer p: `KERNEL void k(u32 n WORKGROUP_ARG(T, p)) { WORKGROUP_DECL(T, p); }`.
 *                        OpenCL gets it as a __local pointer argument whose size the host sets
 *                        (PoCL miscompiles kernel-scope __local structs of ~10 KB: NaNs, crashes);
 *                        CUDA and the host C build declare it in the kernel.
 *   RESTRICT             no-alias qualifier for kernel pointer arguments
 *   GLOBAL_ID, LOCAL_ID, GROUP_ID, LOCAL_SIZE, NUM_GROUPS, GLOBAL_SIZE   (dimension 0 only)
 *   LOCAL_BARRIER()      work-group barrier over local memory
 *   ATOMIC_ADD_U32(p,v)  atomic add on a global 32-bit unsigned counter, returns the old value
 *   ATOMIC_MIN_U32(p,v)  atomic minimum on a global 32-bit unsigned value, returns the old value
 *   u32, i32, u64        fixed-width integers
 *   ORR_F64_TO_BITS(x), ORR_F64_FROM_BITS(b)   the bits of a double as a u64 and back (f64::to_bits,
 *                        f64::from_bits)
 *
 * Arithmetic contract (the parity policy, see kernels/README.md): double precision only, no
 * contraction of a*b+c into fused multiply-adds (an fma() is written out where the Rust twin
 * writes mul_add), no fast-math, no libm calls besides sqrt, fma, floor, fabs and round, which
 * are exact or correctly rounded on every target (pow, in the sheet
 * engine's restitution law only, is the documented exception; see common/sheet.h). With that, a device
 * function gives the same bits as its Rust twin.
 *
 *   OpenCL: `#pragma OPENCL FP_CONTRACT OFF` below; programs are built without -cl-mad-enable
 *           and without -cl-fast-relaxed-math.
 *   CUDA:   built with --fmad=false (nvcc) or -ffp-contract=off (clang); checked by the canary.
 *   Host C: built with -ffp-contract=off; `#pragma STDC FP_CONTRACT OFF` below for compilers that
 *           honour it.
 */
#ifndef ORRERY_DEVICE_H
#define ORRERY_DEVICE_H

#if defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__)
/* ---------------------------------------------------------------- OpenCL C */
#define ORRERY_TARGET_OPENCL 1
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF
typedef uint u32;
typedef int i32;
typedef ulong u64;
#define DEVICE_FN static inline
#define KERNEL __kernel
#define GLOBAL __global
#define LOCAL_MEM __local
#define LOCAL_PTR __local
#define WORKGROUP_ARG(T, p) , __local T *p
#define WORKGROUP_DECL(T, p) (void)0
#define CONSTANT_MEM __constant
#define RESTRICT restrict
#define GLOBAL_ID ((u32)get_global_id(0))
#define LOCAL_ID ((u32)get_local_id(0))
#define GROUP_ID ((u32)get_group_id(0))
#define LOCAL_SIZE ((u32)get_local_size(0))
#define NUM_GROUPS ((u32)get_num_groups(0))
#define GLOBAL_SIZE ((u32)get_global_size(0))
#define LOCAL_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define ATOMIC_ADD_U32(p, v) atomic_add((p), (v))
#define ATOMIC_MIN_U32(p, v) atomic_min((p), (v))
#define ORR_F64_TO_BITS(x) as_ulong(x)
#define ORR_F64_FROM_BITS(b) as_double(b)

#elif defined(__CUDACC__) || defined(__CUDA_ARCH__) || defined(__CUDA__)
/* ---------------------------------------------------------------- CUDA C++ */
#define ORRERY_TARGET_CUDA 1
#if !defined(__global__)
/* clang -x cuda -nocudainc -nocudalib (no CUDA toolkit; scripts/build-ptx): the keywords, ids,
 * barrier, atomics and math functions the CUDA headers would provide, from clang's NVPTX
 * built-ins. The Kepler fallback's sin, cos, cbrt, acos and log are libdevice's __nv_*
 * functions, which scripts/build-ptx links in. */
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define ORR_CUDA_TID __nvvm_read_ptx_sreg_tid_x()
#define ORR_CUDA_NTID __nvvm_read_ptx_sreg_ntid_x()
#define ORR_CUDA_CTAID __nvvm_read_ptx_sreg_ctaid_x()
#define ORR_CUDA_NCTAID __nvvm_read_ptx_sreg_nctaid_x()
#define ORR_CUDA_SYNC() __syncthreads()
#define ORR_CUDA_ATOMIC_ADD(p, v) ((u32)__nvvm_atom_add_gen_i((int *)(p), (int)(v)))
#define ORR_CUDA_ATOMIC_MIN(p, v) __nvvm_atom_min_gen_ui((p), (v))
#define HUGE_VAL __builtin_huge_val()
extern "C" __device__ double __nv_sin(double);
extern "C" __device__ double __nv_cos(double);
extern "C" __device__ double __nv_cbrt(double);
extern "C" __device__ double __nv_acos(double);
extern "C" __device__ double __nv_log(double);
extern "C" __device__ double __nv_pow(double, double);
static __device__ __forceinline__ double sqrt(double x) { return __builtin_sqrt(x); }
static __device__ __forceinline__ double fabs(double x) { return __builtin_fabs(x); }
/* The fused multiply-add written in the source (one rounding, PTX fma.rn.f64). The contraction
 * check of scripts/check-ptx builds it as a product and a sum (ORR_WRITTEN_FMA_UNFUSED), so that
 * any fma.rn.f64 in that build comes from contraction. */
static __device__ __forceinline__ double fma(double a, double b, double c)
{
#if defined(ORR_WRITTEN_FMA_UNFUSED)
    return a * b + c;
#else
    return __builtin_fma(a, b, c);
#endif
}
static __device__ __forceinline__ double floor(double x) { return __builtin_floor(x); }
static __device__ __forceinline__ double round(double x) { return __builtin_round(x); }
static __device__ __forceinline__ double copysign(double x, double y)
{
    return __builtin_copysign(x, y);
}
static __device__ __forceinline__ double sin(double x) { return __nv_sin(x); }
static __device__ __forceinline__ double cos(double x) { return __nv_cos(x); }
static __device__ __forceinline__ double cbrt(double x) { return __nv_cbrt(x); }
static __device__ __forceinline__ double acos(double x) { return __nv_acos(x); }
static __device__ __forceinline__ double log(double x) { return __nv_log(x); }
static __device__ __forceinline__ double pow(double x, double y) { return __nv_pow(x, y); }
#define ORR_F64_TO_BITS(x) ((u64)__nvvm_bitcast_d2ll(x))
#define ORR_F64_FROM_BITS(b) __nvvm_bitcast_ll2d((long long)(b))
#else
/* nvcc, or clang with the CUDA toolkit's headers. */
#define ORR_CUDA_TID threadIdx.x
#define ORR_CUDA_NTID blockDim.x
#define ORR_CUDA_CTAID blockIdx.x
#define ORR_CUDA_NCTAID gridDim.x
#define ORR_CUDA_SYNC() __syncthreads()
#define ORR_CUDA_ATOMIC_ADD(p, v) atomicAdd((p), (v))
#define ORR_CUDA_ATOMIC_MIN(p, v) atomicMin((p), (v))
#define ORR_F64_TO_BITS(x) ((u64)__double_as_longlong(x))
#define ORR_F64_FROM_BITS(b) __longlong_as_double((long long)(b))
#endif
typedef unsigned int u32;
typedef int i32;
typedef unsigned long long u64;
#define DEVICE_FN static __device__ __forceinline__
#define KERNEL extern "C" __global__
#define GLOBAL
#define LOCAL_MEM __shared__
#define LOCAL_PTR
#define WORKGROUP_ARG(T, p)
#define WORKGROUP_DECL(T, p) __shared__ T p##_storage; T *p = &p##_storage
#define CONSTANT_MEM __constant__
#define RESTRICT __restrict__
#define GLOBAL_ID ((u32)(ORR_CUDA_CTAID * ORR_CUDA_NTID + ORR_CUDA_TID))
#define LOCAL_ID ((u32)ORR_CUDA_TID)
#define GROUP_ID ((u32)ORR_CUDA_CTAID)
#define LOCAL_SIZE ((u32)ORR_CUDA_NTID)
#define NUM_GROUPS ((u32)ORR_CUDA_NCTAID)
#define GLOBAL_SIZE ((u32)(ORR_CUDA_NCTAID * ORR_CUDA_NTID))
#define LOCAL_BARRIER() ORR_CUDA_SYNC()
#define ATOMIC_ADD_U32(p, v) ORR_CUDA_ATOMIC_ADD((p), (v))
#define ATOMIC_MIN_U32(p, v) ORR_CUDA_ATOMIC_MIN((p), (v))

#else
/* ---------------------------------------------------------------- host C (tests) */
/* Device functions are compiled for the host and tested against their Rust twins. Entry points
 * run as plain loops over a work-item index that the host harness sets. */
#define ORRERY_TARGET_HOST 1
#pragma STDC FP_CONTRACT OFF
#include <math.h>
#include <stdint.h>
typedef uint32_t u32;
typedef int32_t i32;
typedef uint64_t u64;
#define DEVICE_FN static inline
#define KERNEL
#define GLOBAL
#define LOCAL_MEM static
#define LOCAL_PTR
#define WORKGROUP_ARG(T, p)
#define WORKGROUP_DECL(T, p) static T p##_storage; T *p = &p##_storage
#define CONSTANT_MEM static const
#if defined(__cplusplus)
#define RESTRICT __restrict__
#else
#define RESTRICT restrict
#endif
extern u32 orrery_host_global_id, orrery_host_global_size;
#define GLOBAL_ID orrery_host_global_id
#define LOCAL_ID 0u
#define GROUP_ID orrery_host_global_id
#define LOCAL_SIZE 1u
#define NUM_GROUPS orrery_host_global_size
#define GLOBAL_SIZE orrery_host_global_size
#define LOCAL_BARRIER() ((void)0)
DEVICE_FN u32 orrery_host_atomic_add(u32 *p, u32 v)
{
    u32 old = *p;
    *p = old + v;
    return old;
}
DEVICE_FN u32 orrery_host_atomic_min(u32 *p, u32 v)
{
    u32 old = *p;
    *p = old < v ? old : v;
    return old;
}
#define ATOMIC_ADD_U32(p, v) orrery_host_atomic_add((p), (v))
#define ATOMIC_MIN_U32(p, v) orrery_host_atomic_min((p), (v))
DEVICE_FN u64 orrery_host_f64_to_bits(double x)
{
    union {
        double d;
        u64 b;
    } u;
    u.d = x;
    return u.b;
}
DEVICE_FN double orrery_host_f64_from_bits(u64 b)
{
    union {
        double d;
        u64 b;
    } u;
    u.b = b;
    return u.d;
}
#define ORR_F64_TO_BITS(x) orrery_host_f64_to_bits(x)
#define ORR_F64_FROM_BITS(b) orrery_host_f64_from_bits(b)
#endif

#endif /* ORRERY_DEVICE_H */
