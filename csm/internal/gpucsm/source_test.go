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

// sourceMain runs csm_source on the host: lists (offsets into one key array), then per case
// np, any, vl and four parent positions; it prints "src lo hi" a case.
const sourceMain = `
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
  return 0;
}
`

func TestSourceChoiceSyntax(t *testing.T) {
	cudacheck.Syntax(t, "source.cu", SourceChoiceSource+`
struct L { const unsigned long long *k; unsigned n; };
extern "C" __global__ void k(const L *ls, const unsigned *ppos, int *out) {
  unsigned lo, hi;
  out[0] = csm_source(ppos, 2, ls, false, 3, &lo, &hi);
}`)
}

// TestSourceChoiceHost: the kernels' source choice, run on the host, equals Level.Source on
// random sorted lists with few labels (empty lists, whole lists of one label, the largest label).
func TestSourceChoiceHost(t *testing.T) {
	bin := cudahost.Build(t, "source.cu", SourceChoiceSource, sourceMain)
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
	in := &cudahost.Input{}
	cudahost.Put(in, keys)
	cudahost.Put(in, off)
	cudahost.Put(in, cases)
	got := string(cudahost.Run(t, bin, in))
	if got != want.String() {
		gl, wl := strings.Split(got, "\n"), strings.Split(want.String(), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("case %d: host kernel %q, Level.Source %q", i, gl[i], wl[i])
			}
		}
		t.Fatalf("host kernel %d lines, Level.Source %d", len(gl), len(wl))
	}
}
