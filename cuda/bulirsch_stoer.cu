/* bulirsch_stoer.cu — the CUDA build of kernels/bulirsch_stoer.cl: no kernel logic of its own (kernels/README.md).
 * Built to PTX by scripts/build-ptx (nvcc --fmad=false, or clang -ffp-contract=off). */
#include "../kernels/bulirsch_stoer.cl"
