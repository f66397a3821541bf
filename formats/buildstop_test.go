package formats_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/internal/ctxtest"
)

// TestLoadStopsAtEveryCheck (buildstop): a load whose context ends at any of its checks, those
// of the graph's build included (graph.Builder.BuildContext: the second or so after the parse
// of a large graph), fails with an error that wraps the context's and says loading stopped
// (the CLI's "loading stopped: interrupted"), and no graph; the context that lasts gives Load's
// graph. In an edge list and a t/v/e file. (With
// the loaders' builds not given the context, it passes too, with fewer checks: 9-16 instead of
// 33-64 for the edge list; graph.TestBuildContextStops is the one that catches that.)
func TestLoadStopsAtEveryCheck(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const n = 20_000
	var edges [][2]int
	for range 150_000 { // (about 300,000 list entries: a few of the build's checks in each pass)
		if u, v := r.IntN(n), r.IntN(n); u != v {
			edges = append(edges, [2]int{u, v})
		}
	}
	write := func(name, header, vertex, edge string) string {
		var sb strings.Builder
		if header != "" {
			fmt.Fprintf(&sb, header, n, len(edges))
		}
		if vertex != "" {
			for v := range n {
				fmt.Fprintf(&sb, vertex, v, v%3)
			}
		}
		for _, e := range edges {
			fmt.Fprintf(&sb, edge, e[0], e[1])
		}
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, in := range []struct {
		format, path string
	}{
		{"edgelist", write("g.txt", "", "", "%d %d\n")},
		{"sm", write("g.graph", "t %d %d\n", "v %d %d\n", "e %d %d\n")},
	} {
		opts := formats.Options{Format: in.format}
		want, err := formats.Load(in.path, opts)
		if err != nil {
			t.Fatalf("%s: %v", in.format, err)
		}
		checks := ctxtest.UntilLasting(t, 1<<20, func(ctx context.Context) error {
			g, err := formats.LoadContext(ctx, in.path, opts)
			if err != nil {
				if g != nil || !strings.Contains(err.Error(), "loading stopped") {
					t.Errorf("%s, stopped: graph %v, error %q; want no graph, \"loading stopped\"", in.format, g != nil, err)
				}
				return err
			}
			if !reflect.DeepEqual(g.Raw(), want.Raw()) {
				t.Fatalf("%s: the load that lasted differs from Load's", in.format)
			}
			return nil
		})
		t.Logf("%s: %d checks", in.format, checks)
	}
}
