/* wisdom_holman.cu — the CUDA build of kernels/wisdom_holman.cl: no kernel logic of its own
 * (kernels/README.md). Built to PTX by scripts/build-ptx (nvcc --fmad=false, or clang
 * -ffp-contract=off). */
#include "../kernels/wisdom_holman.cl"
