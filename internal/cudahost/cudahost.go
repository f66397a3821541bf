// Package cudahost runs the project's simpler CUDA kernels on the host, for tests on machines
// without a GPU: the kernel source is compiled as plain C++ (clang++ or g++) after a prelude that
// defines the CUDA qualifiers away, makes threadIdx/blockIdx/blockDim/gridDim globals and the
// atomics (add, or, max, exchange, compare-and-swap) plain read-modify-writes, together with a C++ main that the test writes. The main
// launches a kernel with the Launch macro, which runs every (block, thread) in turn, so kernels
// qualify when their threads do not wait on each other (grid-stride loops, atomics, and
// __syncthreads only around block-level reductions that a one-thread block also gets right: use
// blockDim 1). It checks the kernels' logic, not their parallel behaviour, which only the device
// check covers. BuildLanes instead emulates warps of several lanes (LanesPrelude): the lanes'
// collective calls and their order between them, not the device's memory model or timing.
package cudahost

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Prelude is prepended to the kernel source.
const Prelude = preludeHead + `inline void __syncthreads() {}
inline void __syncwarp(unsigned = 0xffffffffu) {}
// One-lane warps: kernels that size their warps by a macro use 1 lane under CUDAHOST.
inline unsigned __ballot_sync(unsigned, int p) { return p ? 1u : 0u; }
template <class T> T __shfl_xor_sync(unsigned, T x, int) { return x; }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
template <class T> T atomicAdd(T* p, T v) { T o = *p; *p = o + v; return o; }
template <class T> T atomicOr(T* p, T v) { T o = *p; *p = o | v; return o; }
template <class T> T atomicMax(T* p, T v) { T o = *p; if (v > o) *p = v; return o; }
template <class T> T atomicExch(T* p, T v) { T o = *p; *p = v; return o; }
template <class T> T atomicCAS(T* p, T cmp, T v) { T o = *p; if (o == cmp) *p = v; return o; }
inline void __threadfence() {}
// Launch runs KERNEL(args...) for every block and thread of a grid of G blocks of B threads.
#define Launch(G, B, KERNEL, ...) do { gridDim.x = (G); blockDim.x = (B); \
    for (unsigned _b = 0; _b < (G); ++_b) for (unsigned _t = 0; _t < (B); ++_t) { \
        blockIdx.x = _b; threadIdx.x = _t; KERNEL(__VA_ARGS__); } } while (0)
` + preludeRead

// preludeHead is the start of both preludes: the headers, the CUDA qualifiers defined away and
// the grid's indexes.
const preludeHead = `#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
struct cudahost_dim3 { unsigned x, y, z; };
static cudahost_dim3 threadIdx = {0, 0, 0}, blockIdx = {0, 0, 0}, blockDim = {1, 1, 1}, gridDim = {1, 1, 1};
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define __restrict__ __restrict
#define CUDAHOST 1
`

// preludeRead ends both preludes: the main's input.
const preludeRead = `// Read reads one array written by Put: its length (uint64) then its elements.
template <class T> std::vector<T> Read() {
    uint64_t n = 0;
    if (fread(&n, 8, 1, stdin) != 1) { fprintf(stderr, "short input\n"); exit(2); }
    std::vector<T> v(n ? n : 1);
    if (n && fread(v.data(), sizeof(T), n, stdin) != n) { fprintf(stderr, "short input\n"); exit(2); }
    return v;
}
`

// Input collects the arrays a main reads with Read<T>(), in order.
type Input struct{ bytes.Buffer }

// Put appends one array (its length, then its elements little-endian).
func Put[T any](in *Input, s []T) {
	binary.Write(&in.Buffer, binary.LittleEndian, uint64(len(s)))
	binary.Write(&in.Buffer, binary.LittleEndian, s)
}

// Compiler returns clang++ or g++, or "".
func Compiler() string {
	for _, n := range []string{"clang++", "g++"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// Build compiles Prelude + kernel + main into an executable in a temporary folder and returns
// its path; it skips the test when there is no C++ compiler.
func Build(t testing.TB, name, kernel, main string) string {
	t.Helper()
	return build(t, name, Prelude, kernel, main)
}

// build compiles prelude + kernel + main (see Build) with the extra flags; with flags, a failed
// build skips the test (a compiler without the sanitizer's runtime).
func build(t testing.TB, name, prelude, kernel, main string, flags ...string) string {
	t.Helper()
	cxx := Compiler()
	if cxx == "" {
		t.Skipf("no C++ compiler: the host run of %s is skipped (the device check runs it)", name)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, name+".cpp")
	if err := os.WriteFile(src, []byte(prelude+"#line 1 \""+name+"\"\n"+kernel+"\n#line 1 \"main.cpp\"\n"+main), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, name)
	out, err := exec.Command(cxx, append([]string{"-std=c++17", "-O1", "-w", "-o", bin, src}, flags...)...).CombinedOutput()
	if err != nil && len(flags) > 0 {
		t.Skipf("%s: no host build with %v (%s): %v\n%s", name, flags, cxx, err, out)
	}
	if err != nil {
		t.Fatalf("%s: host build failed (%s): %v\n%s", name, cxx, err, out)
	}
	return bin
}

// Run runs a binary from Build with in on its standard input and returns its standard output.
func Run(t testing.TB, bin string, in *Input) []byte {
	t.Helper()
	return run(t, bin, in)
}

// run runs bin (see Run) with env added to its environment.
func run(t testing.TB, bin string, in *Input, env ...string) []byte {
	t.Helper()
	cmd := exec.Command(bin)
	// Under ThreadSanitizer a race ends the run with an error.
	cmd.Env = append(append(os.Environ(), "TSAN_OPTIONS=halt_on_error=1 exitcode=66"), env...)
	cmd.Stdin = bytes.NewReader(in.Bytes())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", filepath.Base(bin), err, stderr.String())
	}
	return out
}

// BuildLanes is Build with LanesPrelude: warps of width lanes (1 to 32, a power of two), every
// thread of a Launch a fiber (see LanesPrelude).
func BuildLanes(t testing.TB, name, kernel, main string, width int) string {
	t.Helper()
	if width < 1 || width > 32 || width&(width-1) != 0 {
		t.Fatalf("%s: warp width %d", name, width)
	}
	return build(t, name, fmt.Sprintf("#define CUDAHOST_WARP %d\n", width)+LanesPrelude, kernel, main)
}

// BuildLanesRaces is BuildLanes under ThreadSanitizer (-fsanitize=thread): RunSeeded then fails
// the test on a data race between lanes or warps that no __syncwarp or __syncthreads orders (see
// LanesPrelude). It skips the test where the compiler cannot build with TSan.
func BuildLanesRaces(t testing.TB, name, kernel, main string, width int) string {
	t.Helper()
	if width < 1 || width > 32 || width&(width-1) != 0 {
		t.Fatalf("%s: warp width %d", name, width)
	}
	return build(t, name, fmt.Sprintf("#define CUDAHOST_WARP %d\n", width)+LanesPrelude, kernel, main, "-fsanitize=thread", "-g")
}

// RunSeeded is Run with the fibers of BuildLanes's launches picked at random from seed (0: in
// turn).
func RunSeeded(t testing.TB, bin string, in *Input, seed uint64) []byte {
	t.Helper()
	return run(t, bin, in, fmt.Sprintf("CUDAHOST_SEED=%d", seed))
}
