// Test harness only (emu_test.go): not part of the engine.
// CPU emulation of the CUDA features geneva.cu uses: 256-thread blocks run as std::threads,
// warp collectives through a per-warp barrier, atomics through GCC builtins.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <thread>
#include <barrier>
#include <memory>
struct dim3u { unsigned x, y, z; };
static thread_local dim3u threadIdx, blockIdx;
static dim3u blockDim, gridDim;
#define __device__
#define __global__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __shared__ static
struct EmuWarp { std::unique_ptr<std::barrier<>> bar; unsigned long long slots[32]; };
static EmuWarp emuWarps[8];
static std::unique_ptr<std::barrier<>> emuBlock;
static inline int emuLane() { return threadIdx.x & 31; }
static inline EmuWarp& emuW() { return emuWarps[threadIdx.x >> 5]; }
static inline void __syncwarp(unsigned = 0xffffffffu) { emuW().bar->arrive_and_wait(); }
static inline void __syncthreads() { emuBlock->arrive_and_wait(); }
static inline unsigned __ballot_sync(unsigned, int pred) {
	EmuWarp& W = emuW();
	W.slots[emuLane()] = pred ? 1 : 0;
	W.bar->arrive_and_wait();
	unsigned m = 0;
	for (int i = 0; i < 32; i++) if (W.slots[i]) m |= 1u << i;
	W.bar->arrive_and_wait();
	return m;
}
template <class T> static inline T emuShfl(T v, int src) {
	EmuWarp& W = emuW();
	unsigned long long bitsv = 0;
	static_assert(sizeof(T) <= 8);
	__builtin_memcpy(&bitsv, &v, sizeof(T));
	W.slots[emuLane()] = bitsv;
	W.bar->arrive_and_wait();
	unsigned long long got = W.slots[src & 31];
	W.bar->arrive_and_wait();
	T out;
	__builtin_memcpy(&out, &got, sizeof(T));
	return out;
}
template <class T> static inline T __shfl_sync(unsigned, T v, int src) { return emuShfl(v, src); }
template <class T> static inline T __shfl_down_sync(unsigned, T v, int d) {
	int src = emuLane() + d;
	return emuShfl(v, src < 32 ? src : emuLane());
}
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
	return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
static inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
static inline unsigned atomicAdd(unsigned* p, unsigned v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
static inline unsigned long long atomicExch(unsigned long long* p, unsigned long long v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }
static inline unsigned long long atomicMax(unsigned long long* p, unsigned long long v) {
	unsigned long long old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
	while (old < v && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
	return old;
}
