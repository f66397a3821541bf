package dcsm

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/internal/cudahost"
	"github.com/submatch/submatch/pattern"
)

// kernelMain runs dcsm_match and dcsm_list on the host (internal/cudahost, one thread a warp) over
// a pool, table and searches from the test. It prints per search "T count listed" and its
// matches (words in level order) listed in one group launch over all searches, then, for each
// search with two matches or more, "W listed" and the window [1, 1 + min(2, count - 1)) of them
// listed alone.
const kernelMain = `
int main() {
  std::vector<u64> key = Read<u64>();
  std::vector<u32> el = Read<u32>(), c = Read<u32>(), d = Read<u32>();
  std::vector<u64> voff = Read<u64>();
  std::vector<u32> vlen = Read<u32>(), table = Read<u32>(), tasks = Read<u32>(), nc = Read<u32>();
  u64 params[6] = {(u64)key.data(), (u64)el.data(), (u64)c.data(), (u64)d.data(), (u64)voff.data(), (u64)vlen.data()};
  const u32 nt = tasks.size() / TASK_WORDS;
  std::vector<u64> counts(nc[0]), tcounts(nt), cur(nt + 1), listed(nt);
  std::vector<u32> stack(MAXN * 256);
  u32 flags[4] = {0, 0, 0, 0};
  Launch(1, 1, dcsm_match, params, table.data(), tasks.data(), nt, counts.data(), tcounts.data(), stack.data(), 256u, flags);
  if (flags[1]) printf("overflow\n");
  for (u32 t = 0; t < nt; t++) cur[t + 1] = cur[t] + tcounts[t];
  std::vector<u32> out((cur[nt] + 1) * MAXN);
  flags[0] = 0;
  Launch(1, 1, dcsm_list, params, table.data(), tasks.data(), 0u, nt, cur.data(), 0ull, 0ull, out.data(), listed.data(), stack.data(), 256u, flags);
  for (u32 t = 0; t < nt; t++) {
    const u32 n = table[(u64)tasks[t * TASK_WORDS] * TERM_WORDS + T_N];
    printf("T %llu %llu", tcounts[t], listed[t]);
    for (u64 j = cur[t]; j < cur[t + 1]; j++)
      for (u32 q = 0; q < n; q++) printf(" %u", out[j * MAXN + q]);
    printf("\n");
    if (tcounts[t] < 2) continue;
    const u64 lim = tcounts[t] - 1 < 2 ? tcounts[t] - 1 : 2;
    u64 zc[2] = {0, 0};
    flags[0] = 0;
    Launch(1, 1, dcsm_list, params, table.data(), tasks.data(), t, t + 1, zc, 1ull, lim, out.data(), listed.data(), stack.data(), 256u, flags);
    printf("W %llu", listed[0]);
    for (u64 j = 0; j < lim; j++)
      for (u32 q = 0; q < n; q++) printf(" %u", out[j * MAXN + q]);
    printf("\n");
  }
  return 0;
}
`

// kernelCheck is the emulation that, after each of its first waves, runs the executor and the
// lister on the host over the emulation's pool and compares them with the emulation's searches.
type kernelCheck struct {
	*emu
	t      *testing.T
	bin    string
	waves  int  // the waves checked at most
	done   *int // the waves checked so far
	checks *int // all matchers' waves checked
}

func (k kernelCheck) start(ctx context.Context, w *wave) error {
	if err := k.emu.start(ctx, w); err != nil {
		return err
	}
	if len(w.tasks) == 0 || *k.done >= k.waves {
		return nil
	}
	*k.done++
	*k.checks++
	var in cudahost.Input
	e := k.emu
	cudahost.Put(&in, e.key)
	cudahost.Put(&in, e.el)
	cudahost.Put(&in, e.c)
	cudahost.Put(&in, e.d)
	cudahost.Put(&in, e.voff)
	cudahost.Put(&in, e.vlen)
	cudahost.Put(&in, e.t.words)
	cudahost.Put(&in, w.tasks)
	cudahost.Put(&in, []uint32{uint32(len(w.counts))})
	out := cudahost.Run(k.t, k.bin, &in)
	sc := bufio.NewScanner(bytes.NewReader(out))
	line := func() []uint64 {
		if !sc.Scan() {
			k.t.Fatalf("kernel output ends early:\n%s", out)
		}
		f := strings.Fields(sc.Text())
		var v []uint64
		for _, x := range f[1:] {
			n, err := strconv.ParseUint(x, 10, 64)
			if err != nil {
				k.t.Fatalf("kernel output %q: %v", sc.Text(), err)
			}
			v = append(v, n)
		}
		return v
	}
	for i := 0; i < len(w.tasks); i += taskWords {
		tk := w.tasks[i : i+taskWords]
		n := int(e.t.words[int(tk[0])*termWords+tN])
		var want []uint64
		cnt, _ := e.search(tk, func(f *[MaxPatternVertices]uint32) {
			for q := range n {
				want = append(want, uint64(f[q]))
			}
		})
		got := line()
		if got[0] != cnt || got[1] != cnt || !slices.Equal(got[2:], want) {
			return fmt.Errorf("search %d (%v): kernel count %d, listed %d, matches %v; emulation %d, %v", i/taskWords, tk, got[0], got[1], got[2:], cnt, want)
		}
		if cnt >= 2 {
			lim := min(cnt-1, 2)
			got := line()
			if got[0] != lim || !slices.Equal(got[1:], want[n:n*int(1+lim)]) {
				return fmt.Errorf("search %d (%v): window [1, %d): kernel %v, emulation %v", i/taskWords, tk, 1+lim, got, want[n:n*int(1+lim)])
			}
		}
	}
	return nil
}

// TestKernelHost: dcsm_match's per-search counts and dcsm_list's matches, in groups and in
// windows, run on the host (internal/cudahost, one-thread warps) over the emulation's pool after
// waves of random streams, equal the emulation's searches match for match, in order.
func TestKernelHost(t *testing.T) {
	bin := cudahost.Build(t, "dcsm.cu", kernelSource(), kernelMain)
	defer func(c uint32) { splitChunk = c }(splitChunk)
	checks, nonzero := 0, 0
	for seed := range uint64(30) {
		c := newRandomCase(seed)
		splitChunk = []uint32{64, 1, 2, 3}[seed%4]
		if c.pats = usable(c.pats); len(c.pats) == 0 {
			continue
		}
		for _, sem := range conventions[:2] {
			n, _, err := compareMatches(context.Background(), c, sem, func(g *dynamic.Graph, pats []*pattern.Pattern, opts csm.Options) (*Matcher, error) {
				return open(g, pats, opts, func(tb *table) (backend, error) {
					return kernelCheck{emu: newEmu(tb), t: t, bin: bin, waves: 3, done: new(int), checks: &checks}, nil
				})
			}, 4)
			if err != nil {
				t.Fatalf("seed %d, %v: %v", seed, sem, err)
			}
			if n > 0 {
				nonzero++
			}
		}
	}
	t.Logf("%d waves run by the kernels on the host, %d runs listed a match", checks, nonzero)
	if checks < 20 || nonzero < 10 {
		t.Errorf("%d waves, %d runs with matches: the test checks too little", checks, nonzero)
	}
}
