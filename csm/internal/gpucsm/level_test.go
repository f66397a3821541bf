package gpucsm

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/submatch/submatch/internal/cudacheck"
	"github.com/submatch/submatch/internal/cudahost"
)

// levelMain runs csm_source on the host: lists (offsets into one key array), then per case
// np, any, vl and four parent positions; it prints "src lo hi" a case. Then csm_order_ok per
// case of masks, k, c and f[0..7]: 1 or 0.
const levelMain = `
struct HostList { const unsigned long long *k; unsigned n; };
int main() {
  std::vector<unsigned long long> keys = Read<unsigned long long>();
  std::vector<unsigned> off = Read<unsigned>();
  std::vector<unsigned> cases = Read<unsigned>();
  std::vector<HostList> ls(off.size() - 1);
  for (size_t i = 0; i + 1 < off.size(); i++) ls[i] = HostList{keys.data() + off[i], off[i + 1] - off[i]};
  for (size_t c = 0; c + 7 <= cases.size(); c += 7) {
    unsigned lo, hi;
    int src = csm_source(&cases[c + 3], cases[c], ls.data(), cases[c + 1] != 0, cases[c + 2], &lo, &hi);
    printf("%d %u %u\n", src, lo, hi);
  }
  std::vector<unsigned> order = Read<unsigned>(); // inj, above, below, k, c, f[0..7]
  for (size_t c = 0; c + 13 <= order.size(); c += 13) {
    printf("%d\n", csm_order_ok(order[c], order[c + 1], order[c + 2], (int)order[c + 3], order[c + 4], &order[c + 5]) ? 1 : 0);
  }
  return 0;
}
`

// MaxLevels is the most levels a record has (both engines: 8).
const MaxLevels = 8

func TestLevelSourceSyntax(t *testing.T) {
	cudacheck.Syntax(t, "level.cu", LevelSource+`
struct L { const unsigned long long *k; unsigned n; };
extern "C" __global__ void k(const L *ls, const unsigned *ppos, int *out) {
  unsigned lo, hi;
  out[0] = csm_source(ppos, 2, ls, false, 3, &lo, &hi);
}`)
}

// TestLevelSourceHost: the kernels' source choice and order checks, run on the host, equal
// Level.Source on random sorted lists with few labels (empty lists, whole lists of one label, the
// largest label) and Level.OrderOK on random masks and vertices.
func TestLevelSourceHost(t *testing.T) {
	bin := cudahost.Build(t, "level.cu", LevelSource, levelMain)
	r := rand.New(rand.NewPCG(1, 2))
	labels := []uint32{0, 1, 2, ^uint32(0)}
	var keys []uint64
	off := []uint32{0}
	var lists [][]uint64
	for range 6 {
		var l []uint64
		n := r.IntN(12)
		one := r.IntN(3) == 0
		for range n {
			lab := labels[r.IntN(len(labels))]
			if one {
				lab = labels[1]
			}
			l = append(l, uint64(lab)<<32|uint64(r.IntN(50)))
		}
		slices.Sort(l)
		l = slices.Compact(l)
		lists = append(lists, l)
		keys = append(keys, l...)
		off = append(off, uint32(len(keys)))
	}
	l := Level{VLAny: 0, VL: 1, NPar: 2, PPos: 3}
	var cases []uint32
	var want strings.Builder
	for range 300 {
		np := r.IntN(5)
		rec := []uint32{uint32(r.IntN(4) / 3), labels[r.IntN(len(labels))], uint32(np), 0, 0, 0, 0}
		for i := range np {
			rec[3+i] = uint32(r.IntN(len(lists)))
		}
		src, lo, hi := l.Source(rec, func(pos uint32) []uint64 { return lists[pos] })
		fmt.Fprintf(&want, "%d %d %d\n", src, lo, hi)
		cases = append(cases, rec[2], rec[0], rec[1], rec[3], rec[4], rec[5], rec[6])
	}
	var order []uint32
	for range 300 {
		k := r.IntN(MaxLevels + 1)
		rec := []uint32{uint32(r.IntN(1 << k)), uint32(r.IntN(1 << k)), uint32(r.IntN(1 << k))}
		f := make([]uint32, MaxLevels)
		for j := range f {
			f[j] = uint32(r.IntN(6))
		}
		c := uint32(r.IntN(6))
		ol := Level{Inj: 0, Above: 1, Below: 2}
		fmt.Fprintf(&want, "%d\n", B2U(ol.OrderOK(rec, k, c, f)))
		order = append(append(order, rec[0], rec[1], rec[2], uint32(k), c), f...)
	}
	in := &cudahost.Input{}
	cudahost.Put(in, keys)
	cudahost.Put(in, off)
	cudahost.Put(in, cases)
	cudahost.Put(in, order)
	got := string(cudahost.Run(t, bin, in))
	if got != want.String() {
		gl, wl := strings.Split(got, "\n"), strings.Split(want.String(), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("case %d: host kernel %q, Go (Level) %q", i, gl[i], wl[i])
			}
		}
		t.Fatalf("host kernel %d lines, Go (Level) %d", len(gl), len(wl))
	}
}
