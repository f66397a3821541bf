package updates

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/internal/ctxtest"
)

// TestCSMLoadStops (buildstop): a csm graph's load stopped at any of its checks (its build's
// included: graph.Builder.BuildContext with the load's context) fails with the context's error
// and no graph; the context that lasts gives the graph of a load without one. (It passes with
// the build not given the context too: it checks that no stop leaves a graph or a wrong error.)
func TestCSMLoadStops(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var sb strings.Builder
	for v := range 5000 {
		fmt.Fprintf(&sb, "v %d %d\n", v, v%3)
	}
	for range 100_000 {
		if u, v := r.IntN(5000), r.IntN(5000); u != v {
			fmt.Fprintf(&sb, "e %d %d\n", u, v)
		}
	}
	text := sb.String()
	want, err := formats.Read(context.Background(), strings.NewReader(text), "csm", formats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctxtest.UntilLasting(t, 1<<20, func(ctx context.Context) error {
		g, err := formats.Read(ctx, strings.NewReader(text), "csm", formats.Options{})
		if err != nil {
			if g != nil {
				t.Errorf("a graph with error %v", err)
			}
			return err
		}
		if !reflect.DeepEqual(g.Raw(), want.Raw()) {
			t.Fatal("the load that lasted differs from one without a context")
		}
		return nil
	})
}
