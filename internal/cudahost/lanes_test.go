package cudahost

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// lanesKernel compacts the odd members of in with a ballot per round (lanes take members in
// turn), sums them with xor shuffles, broadcasts, shifts down and up, and counts its warps
// through an atomic; a mode other than 0 makes one of the mistakes the emulation reports.
const lanesKernel = `
#define W CUDAHOST_WARP
extern "C" __global__ void lanes(const unsigned* in, unsigned n, int mode, unsigned* out,
                                 unsigned long long* sums, unsigned* misc, unsigned* warps) {
  const unsigned lane = threadIdx.x % W, warp = (blockIdx.x * blockDim.x + threadIdx.x) / W;
  if (mode == 3 && lane == 1) return;  // a lane leaves before its warp's ballot
  unsigned* o = out + warp * n;
  unsigned count = 0;
  for (unsigned base = 0; base < n; base += W) {
    const unsigned i = base + lane;
    const bool keep = i < n && in[i] % 2 == 1;
    const unsigned hits = __ballot_sync(0xffffffffu, keep);
    if (keep) o[count + __popc(hits & ((1u << lane) - 1))] = in[i];
    count += __popc(hits);
  }
  __syncwarp();
  unsigned long long s = 0;
  for (unsigned k = lane; k < count; k += W) s += o[k];
  if (mode == 1 && lane == 0) s = __shfl_sync(0xffffffffu, s, 0);  // a collective in one lane
  for (int d = W / 2; d > 0; d >>= 1) s += __shfl_xor_sync(0xffffffffu, s, d);
  const unsigned mask = mode == 2 ? 1u : 0xffffffffu;  // a mask without most callers
  const unsigned first = __shfl_sync(mask, count, 0);
  const unsigned down = __shfl_down_sync(0xffffffffu, lane, 1), up = __shfl_up_sync(0xffffffffu, lane, 1);
  if (lane == 0) sums[warp] = s, atomicAdd(warps, 1u);
  misc[(warp * W + lane) * 3] = first, misc[(warp * W + lane) * 3 + 1] = down, misc[(warp * W + lane) * 3 + 2] = up;
}
`

const lanesMain = `
int main() {
  auto in = Read<unsigned>();
  auto a = Read<unsigned>();  // blocks, threads a block, mode
  const unsigned warps = a[0] * a[1] / CUDAHOST_WARP, n = in.size();
  std::vector<unsigned> out(warps * n), misc(warps * CUDAHOST_WARP * 3);
  std::vector<unsigned long long> sums(warps);
  unsigned seen = 0;
  Launch(a[0], a[1], lanes, in.data(), n, (int)a[2], out.data(), sums.data(), misc.data(), &seen);
  printf("%u", seen);
  for (auto s : sums) printf(" %llu", s);
  for (auto m : misc) printf(" %u", m);
  printf("\n");
  return 0;
}
`

// TestLanes runs lanesKernel with warps of 32 and 8 lanes, in turn and at random: the sums,
// broadcasts and shifts against Go's; and each mistake reported.
func TestLanes(t *testing.T) {
	in := make([]uint32, 77)
	var want uint64
	for i := range in {
		in[i] = uint32(i*7 + 3)
		if in[i]%2 == 1 {
			want += uint64(in[i])
		}
	}
	odd := 0
	for _, x := range in {
		odd += int(x % 2)
	}
	for _, w := range []int{32, 8} {
		bin := BuildLanes(t, "lanes", lanesKernel, lanesMain, w)
		for _, seed := range []uint64{0, 1, 2} {
			var inp Input
			Put(&inp, in)
			Put(&inp, []uint32{2, uint32(2 * w), 0})
			f := strings.Fields(string(RunSeeded(t, bin, &inp, seed)))
			warps := 4
			if len(f) != 1+warps+warps*w*3 || f[0] != fmt.Sprint(warps) {
				t.Fatalf("%d lanes, seed %d: output %v", w, seed, f)
			}
			for k := 0; k < warps; k++ {
				if f[1+k] != fmt.Sprint(want) {
					t.Errorf("%d lanes, seed %d: warp %d summed %s, want %d", w, seed, k, f[1+k], want)
				}
			}
			for l := 0; l < warps*w; l++ {
				lane := l % w
				down, up := lane+1, lane-1
				if lane == w-1 {
					down = lane
				}
				if lane == 0 {
					up = lane
				}
				got := f[1+warps+l*3 : 1+warps+l*3+3]
				if exp := []string{fmt.Sprint(odd), fmt.Sprint(down), fmt.Sprint(up)}; strings.Join(got, " ") != strings.Join(exp, " ") {
					t.Errorf("%d lanes, seed %d, thread %d: broadcast, down, up %v, want %v", w, seed, l, got, exp)
				}
			}
		}
		for mode, msg := range []string{1: "diverged", 2: "does not name the caller", 3: "exited"} {
			if mode == 0 {
				continue
			}
			var inp Input
			Put(&inp, in)
			Put(&inp, []uint32{1, uint32(w), uint32(mode)})
			cmd := exec.Command(bin)
			cmd.Stdin = bytes.NewReader(inp.Bytes())
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err == nil || !strings.Contains(stderr.String(), msg) {
				t.Errorf("%d lanes, mistake %d: %v, %q (want %q)", w, mode, err, stderr.String(), msg)
			}
		}
	}
}

// racesKernel: lane 0 writes a word that lane 1 reads, ordered by a __syncwarp (mode 0), by a
// ballot alone (mode 1: a race in CUDA's memory model), or by nothing (mode 2); two warps add to
// one word atomically (mode 0) or not (mode 3).
const racesKernel = `
extern "C" __global__ void races(unsigned* w, int mode) {
  const unsigned lane = threadIdx.x % CUDAHOST_WARP, warp = threadIdx.x / CUDAHOST_WARP;
  unsigned* mine = w + 4 * warp;
  if (lane == 0) mine[0] = 7;
  if (mode == 0) __syncwarp();
  if (mode == 1) __ballot_sync(0xffffffffu, 1);
  if (lane == 1) mine[1] = mine[0];
  if (mode == 3) w[100] += 1;
  else if (lane == 0) atomicAdd(&w[100], 1u);
}
`

const racesMain = `
int main() {
  auto a = Read<unsigned>();
  std::vector<unsigned> w(128);
  Launch(1, 2 * CUDAHOST_WARP, races, w.data(), (int)a[0]);
  printf("%u %u\n", w[1], w[5]);
  return 0;
}
`

// TestLanesRaces: under ThreadSanitizer a read of another lane's write ordered by __syncwarp
// passes; one ordered by a ballot alone, by nothing, or two warps' plain adds to one word fail.
func TestLanesRaces(t *testing.T) {
	bin := BuildLanesRaces(t, "races", racesKernel, racesMain, 4)
	for mode := 0; mode < 4; mode++ {
		var inp Input
		Put(&inp, []uint32{uint32(mode)})
		cmd := exec.Command(bin)
		cmd.Env = append(cmd.Environ(), "TSAN_OPTIONS=halt_on_error=1 exitcode=66")
		cmd.Stdin = bytes.NewReader(inp.Bytes())
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		race := strings.Contains(stderr.String(), "data race")
		if mode == 0 && (err != nil || strings.TrimSpace(string(out)) != "7 7") {
			t.Errorf("ordered by __syncwarp: %v %q\n%s", err, out, stderr.String())
		}
		if mode > 0 && (err == nil || !race) {
			t.Errorf("mode %d: no race reported (%v)\n%s", mode, err, stderr.String())
		}
	}
}
