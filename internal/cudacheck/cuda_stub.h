// cuda_stub.h: declarations of the CUDA device built-ins the project's kernels use, so that clang
// can check the kernels' syntax and types without a CUDA installation (package cudacheck). Only
// declarations: nothing here is compiled into a kernel that runs.
#include <__clang_cuda_builtin_vars.h>
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __forceinline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
typedef unsigned long long _u64; typedef unsigned int _u32;
__device__ unsigned int __shfl_sync(unsigned int, unsigned int, int);
__device__ int __shfl_sync(unsigned int, int, int);
__device__ unsigned long long __shfl_sync(unsigned int, unsigned long long, int);
__device__ long long __shfl_sync(unsigned int, long long, int);
__device__ unsigned int __ballot_sync(unsigned int, int);
__device__ int __popc(unsigned int);
__device__ int __clz(int);
__device__ int __popcll(unsigned long long);
__device__ int __ffs(int);
__device__ int __ffsll(long long);
__device__ void __syncwarp(unsigned int m = 0xffffffff);
__device__ void __syncthreads();
__device__ void __threadfence();
__device__ void __nanosleep(unsigned int);
__device__ __attribute__((noreturn)) void __trap();
__device__ unsigned long long __umul64hi(unsigned long long, unsigned long long);
__device__ unsigned long long atomicAdd(unsigned long long*, unsigned long long);
__device__ unsigned int atomicAdd(unsigned int*, unsigned int);
__device__ int atomicAdd(int*, int);
__device__ unsigned long long atomicCAS(unsigned long long*, unsigned long long, unsigned long long);
__device__ unsigned int atomicCAS(unsigned int*, unsigned int, unsigned int);
__device__ unsigned long long atomicExch(unsigned long long*, unsigned long long);
__device__ unsigned int atomicExch(unsigned int*, unsigned int);
__device__ unsigned long long atomicOr(unsigned long long*, unsigned long long);
__device__ unsigned int atomicOr(unsigned int*, unsigned int);
__device__ unsigned int atomicMax(unsigned int*, unsigned int);
__device__ unsigned long long atomicMax(unsigned long long*, unsigned long long);
__device__ unsigned int min(unsigned int, unsigned int);
__device__ int min(int, int);
__device__ unsigned long long min(unsigned long long, unsigned long long);
__device__ unsigned int max(unsigned int, unsigned int);
__device__ int max(int, int);
__device__ unsigned long long max(unsigned long long, unsigned long long);
__device__ long long max(long long, long long);
__device__ long long min(long long, long long);
__device__ unsigned int __activemask();
__device__ unsigned int __match_any_sync(unsigned int, unsigned int);
__device__ int __any_sync(unsigned int, int);
__device__ int __all_sync(unsigned int, int);
__device__ unsigned long long __shfl_down_sync(unsigned int, unsigned long long, unsigned int);
__device__ unsigned int __shfl_down_sync(unsigned int, unsigned int, unsigned int);
__device__ int __shfl_down_sync(unsigned int, int, unsigned int);
__device__ unsigned long long __shfl_up_sync(unsigned int, unsigned long long, unsigned int);
__device__ unsigned int __shfl_up_sync(unsigned int, unsigned int, unsigned int);
__device__ int __shfl_up_sync(unsigned int, int, unsigned int);
__device__ unsigned long long __shfl_xor_sync(unsigned int, unsigned long long, int);
__device__ unsigned int __shfl_xor_sync(unsigned int, unsigned int, int);
