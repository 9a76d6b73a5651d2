/* sheet.cu — the CUDA build of kernels/sheet.cl: no kernel logic of its own (kernels/README.md).
 * Built to PTX by scripts/build-ptx (nvcc --fmad=false, or clang -ffp-contract=off). */
#include "../kernels/sheet.cl"
