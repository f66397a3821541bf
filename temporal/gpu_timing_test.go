package temporal

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTemporalTimings (SUBMATCH_TIMINGS=1) times, on CollegeMsg, the 36-motif grid at delta =
// 3600, a 4- and a 5-edge pattern counted (delta 3600 and 86400) and the 4-edge one listed
// (86400), for the variants of SUBMATCH_TIMING_VARIANTS ("cpu" all cores, "cpu2" two threads,
// "gpu"; default "cpu,gpu"): one warm-up run, then the median of SUBMATCH_TIMING_REPS (default 5)
// runs of the whole call. Every variant must give the first variant's result. Lines "TIMING ..."
// go to standard output (docs/benchmarks.md).
func TestTemporalTimings(t *testing.T) {
	if os.Getenv("SUBMATCH_TIMINGS") == "" {
		t.Skip("set SUBMATCH_TIMINGS=1 to time the temporal kernels")
	}
	variants := strings.Split(os.Getenv("SUBMATCH_TIMING_VARIANTS"), ",")
	if variants[0] == "" {
		variants = []string{"cpu", "gpu"}
	}
	reps, _ := strconv.Atoi(os.Getenv("SUBMATCH_TIMING_REPS"))
	if reps <= 0 {
		reps = 5
	}
	g := loadCollegeMsg(t)
	ctx := context.Background()
	four, _ := Parse("a->b, b->c, c->d, d->a")
	five, _ := Parse("a->b, b->c, c->a, a->d, d->b")
	type work struct {
		name string
		run  func(o Options) (string, error)
	}
	count := func(p *Pattern, delta int64) func(Options) (string, error) {
		return func(o Options) (string, error) {
			o.Delta = delta
			n, err := Count(ctx, g, p, o)
			return fmt.Sprint(n), err
		}
	}
	works := []work{
		{"grid delta=3600", func(o Options) (string, error) {
			o.Delta = 3600
			c, err := Grid(ctx, g, o)
			return fmt.Sprint(c), err
		}},
		{"count 4-edge delta=3600", count(four, 3600)},
		{"count 4-edge delta=86400", count(four, 86400)},
		{"count 5-edge delta=3600", count(five, 3600)},
		{"count 5-edge delta=86400", count(five, 86400)},
		{"list 4-edge delta=86400", func(o Options) (string, error) {
			o.Delta = 86400
			var n, sum uint64
			for sel, err := range Matches(ctx, g, four, o) {
				if err != nil {
					return "", err
				}
				n++
				sum += uint64(sel[0]) + uint64(sel[3])
			}
			return fmt.Sprint(n, sum), nil
		}},
	}
	for _, w := range works {
		var ref string
		for _, v := range variants {
			o := Options{}
			switch v {
			case "cpu2":
				o.Threads = 2
			case "gpu":
				o.Device = GPU
			}
			res, err := w.run(o)
			if err != nil {
				t.Fatalf("%s %s: %v", w.name, v, err)
			}
			if ref == "" {
				ref = res
			} else if res != ref {
				t.Errorf("%s: %s gives %s, %s %s", w.name, v, res, variants[0], ref)
			}
			var ds []time.Duration
			for range reps {
				t0 := time.Now()
				w.run(o)
				ds = append(ds, time.Since(t0))
			}
			slices.Sort(ds)
			fmt.Printf("TIMING\ttemporal\tCollegeMsg\t%s\t%s\tmedian %.2f ms\tmin %.2f ms\t(%d runs)\tresult %.60s\n", w.name, v,
				float64(ds[len(ds)/2].Microseconds())/1000, float64(ds[0].Microseconds())/1000, reps, ref)
		}
	}
}
