package mining

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/submatch/submatch/formats"
)

// TestCensusTimings (SUBMATCH_TIMINGS=1) times the census on the graphs of
// SUBMATCH_TIMING_GRAPHS ("name=path:4/5,..."; a size suffixed p, such as 4p, times
// CountPerVertex instead; suffixed g, the GPU alone), for the variants of SUBMATCH_TIMING_VARIANTS
// ("cpu" all cores, "cpu2" two threads, "gpu"; default "cpu,gpu"): one warm-up run, then the
// median of SUBMATCH_TIMING_REPS (default 3) runs of the whole Count call. The GPU's census must
// equal the CPU's. Lines "TIMING ..." go to standard output (docs/benchmarks.md).
func TestCensusTimings(t *testing.T) {
	if os.Getenv("SUBMATCH_TIMINGS") == "" {
		t.Skip("set SUBMATCH_TIMINGS=1 to time the census")
	}
	variants := strings.Split(cmpOr(os.Getenv("SUBMATCH_TIMING_VARIANTS"), "cpu,gpu"), ",")
	reps, _ := strconv.Atoi(cmpOr(os.Getenv("SUBMATCH_TIMING_REPS"), "3"))
	ctx := context.Background()
	for _, spec := range strings.Split(os.Getenv("SUBMATCH_TIMING_GRAPHS"), ",") {
		name, rest, ok := strings.Cut(spec, "=")
		path, ks, ok2 := strings.Cut(rest, ":")
		if !ok || !ok2 {
			t.Fatalf("SUBMATCH_TIMING_GRAPHS: %q: expected name=path:k/k", spec)
		}
		g, err := formats.Load(path, formats.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, kk := range strings.Split(ks, "/") {
			vs := variants
			if strings.HasSuffix(kk, "g") { // GPU only (the CPU's figure is taken elsewhere)
				kk, vs = kk[:len(kk)-1], []string{"gpu"}
			}
			job := "census"
			if strings.HasSuffix(kk, "p") {
				kk, job = kk[:len(kk)-1], "per-vertex"
			}
			k, _ := strconv.Atoi(kk)
			var ref string
			for _, v := range vs {
				o := Options{K: k}
				switch v {
				case "cpu2":
					o.Threads = 2
				case "gpu":
					o.Device = GPU
				}
				run := func() (time.Duration, string) {
					t0 := time.Now()
					var res string
					var err error
					if job == "census" {
						var c *Census
						if c, err = Count(ctx, g, o); err == nil {
							res = fmt.Sprint(c.Motifs)
						}
					} else {
						var vc *VertexCensus
						if vc, err = CountPerVertex(ctx, g, o); err == nil {
							h := fnv.New64a()
							for v := range vc.Induced {
								for i, x := range vc.Induced[v] {
									binary.Write(h, binary.LittleEndian, [2]uint64{x, vc.NonInduced[v][i]})
								}
							}
							res = fmt.Sprint(h.Sum64())
						}
					}
					d := time.Since(t0)
					if err != nil {
						t.Fatalf("%s k=%d %s %s: %v", name, k, job, v, err)
					}
					return d, res
				}
				_, res := run()
				if ref == "" {
					ref = res
				} else if res != ref {
					t.Errorf("%s k=%d: %s %s differs from %s's", name, k, v, job, vs[0])
				}
				var ds []time.Duration
				for range reps {
					d, _ := run()
					ds = append(ds, d)
				}
				slices.Sort(ds)
				fmt.Printf("TIMING\t%s\t%s\tk=%d\t%s\tmedian %.1f ms\tmin %.1f ms\t(%d runs)\n", job, name, k, v,
					float64(ds[len(ds)/2].Microseconds())/1000, float64(ds[0].Microseconds())/1000, reps)
			}
		}
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
