package formats

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/submatch/submatch/internal/ctxtest"
)

// TestLoadStopsAtEveryCheck (buildstop): a text load whose context ends at any of its checks,
// those of the graph's build included (graph.Builder.BuildContext, the second or so after the
// parse of a large graph), fails with an error that wraps the context's and says that loading
// stopped (the CLI's "loading stopped: interrupted"), never a bad-input error or a graph; the
// context that lasts gives Load's graph.
func TestLoadStopsAtEveryCheck(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var sb strings.Builder
	for range 150_000 { // (about 300,000 list entries: a few of the build's checks in each pass)
		u, v := r.IntN(20_000), r.IntN(20_000)
		if u != v {
			fmt.Fprintf(&sb, "%d %d\n", u, v)
		}
	}
	path := filepath.Join(t.TempDir(), "g.txt")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := Load(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checks := ctxtest.UntilLasting(t, 1<<20, func(ctx context.Context) error {
		g, err := LoadContext(ctx, path, Options{})
		if err != nil {
			if g != nil || !strings.Contains(err.Error(), "loading stopped") {
				t.Errorf("stopped load: graph %v, error %q; want no graph, \"loading stopped\"", g != nil, err)
			}
			return err
		}
		if !reflect.DeepEqual(g.Raw(), want.Raw()) {
			t.Fatal("the load that lasted differs from Load's")
		}
		return nil
	})
	t.Logf("%d checks", checks)
}
