package stmatch

import "testing"

// FuzzParseKernelChoice: --stmatch-kernel accepts exactly tiered (or empty), generic and query,
// and names the bad value otherwise.
func FuzzParseKernelChoice(f *testing.F) {
	for _, s := range []string{"", "tiered", "generic", "query", "Query", "fast", "query "} {
		f.Add(s)
	}
	want := map[string]KernelChoice{"": KernelTiered, "tiered": KernelTiered, "generic": KernelGeneric, "query": KernelQuery}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseKernelChoice(s)
		w, ok := want[s]
		switch {
		case ok && (err != nil || k != w):
			t.Fatalf("%q: %v, %v; want %v", s, k, err, w)
		case !ok && err == nil:
			t.Fatalf("%q accepted as %v", s, k)
		}
	})
}
