package stmatch

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/pbe"
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/partition"
	"github.com/submatch/submatch/plan"
)

// kernelOf is what prepare chose for one count: the kernel that runs it and, for the plan
// kernels, the per-query kernel's source (sourceID: what Stats.QuerySource logs).
type kernelOf struct {
	kernel   string // "lastsum", "plan" or "empty"
	querySrc string // sourceID of specialise's source ("": none)
	graph    bool
	pieces   bool
	levels   int
	plan     time.Duration
	cost     float64 // the plan's estimated Cost (STMATCH_PROBE_ESTIMATE probes; 0: not estimated)
}

// probeKernel runs stmatch's host preparation of p as a GPU count with options o would, and
// says which kernel that count would run.
func probeKernel(ctx context.Context, p *engine.Problem, o Options) (kernelOf, error) {
	pr := prepare(ctx, p, o, nil)
	if pr.err != nil {
		return kernelOf{}, pr.err
	}
	k := kernelOf{plan: pr.prepare}
	if n, _ := strconv.Atoi(os.Getenv("STMATCH_PROBE_ESTIMATE")); n > 0 && !pr.pl.Empty {
		est, err := pr.pl.Estimate(ctx, p.Data, plan.EstimateOptions{Seed: 11, Probes: n, Threads: 2})
		if err != nil {
			return k, err
		}
		k.cost = est.Cost
	}
	switch {
	case pr.pl.Empty:
		k.kernel = "empty"
	case pr.ferr != nil:
		return k, pr.ferr
	case pr.ls != nil:
		k.kernel = "lastsum"
	default:
		k.kernel = "plan"
		src, err := specialise(kernelSource, pr.fp)
		if err != nil {
			return k, err
		}
		k.querySrc = sourceID(src)
		k.graph = pr.fp.Graph
		for i := range pr.fp.L {
			k.pieces = k.pieces || pr.fp.Meta[i*metaStride+mFlags]&fPieces != 0
		}
		k.levels = pr.fp.L
	}
	return k, nil
}

// probeBackend is a pbe backend that records, for every part, the kernel stmatch with options o
// would run on it within the part's GPUMemoryLimit; it counts nothing (every part gives 0).
type probeBackend struct {
	o     Options
	mu    sync.Mutex
	parts []string
}

func (*probeBackend) Name() string { return "probe" }

func (b *probeBackend) CountPart(ctx context.Context, sub *engine.Problem) (engine.Result, error) {
	k, err := probeKernel(ctx, sub, b.o)
	if err != nil {
		return engine.Result{}, err
	}
	b.mu.Lock()
	b.parts = append(b.parts, fmt.Sprintf("part %d vertices %d edges limit %d: kernel %s source %s graph %v pieces %v levels %d prepare %v cost %.3g",
		sub.Data.NumVertices(), sub.Data.NumEdges(), sub.GPUMemoryLimit, k.kernel, k.querySrc, k.graph, k.pieces, k.levels, k.plan, k.cost))
	b.mu.Unlock()
	return engine.Result{}, nil // the count is not what is probed
}

func (*probeBackend) MatchesPart(context.Context, *engine.Problem) iter.Seq2[[]uint32, error] {
	return nil
}

// TestProbeKernelChoice (instrumentation, run by hand; issue 21): STMATCH_PROBE_GRAPH and
// STMATCH_PROBE_QUERY name a data graph and a pattern; the test prints, for pbe's parts in core
// and out of core (--gpu-memory each of STMATCH_PROBE_LIMITS, else a quarter of the graph's
// bytes; the parts made for half of it, as the GPU backend makes them), which stmatch kernel each
// part's count would run (without the order search when STMATCH_PROBE_NOSEARCH is set), and
// with STMATCH_PROBE_ESTIMATE=N the plan's cost estimated with N probes. The inter stage is not
// run.
func TestProbeKernelChoice(t *testing.T) {
	gpath, qpath := os.Getenv("STMATCH_PROBE_GRAPH"), os.Getenv("STMATCH_PROBE_QUERY")
	if gpath == "" || qpath == "" {
		t.Skip("STMATCH_PROBE_GRAPH and STMATCH_PROBE_QUERY not set")
	}
	ctx := context.Background()
	g, err := formats.Load(gpath, formats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	q, err := formats.LoadPattern(qpath, formats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	limits := []uint64{0, partition.GraphBytes(g) / 4}
	if s := os.Getenv("STMATCH_PROBE_LIMITS"); s != "" {
		limits = limits[:1]
		for f := range strings.FieldsSeq(s) {
			l, err := strconv.ParseUint(f, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			limits = append(limits, l)
		}
	}
	for _, lim := range limits {
		b := &probeBackend{o: Options{NoOrderSearch: os.Getenv("STMATCH_PROBE_NOSEARCH") != ""}}
		e := &pbe.Engine{Backend: b, Budget: lim / 2, Partitioner: partition.Auto}
		// The inter stage is not probed: the count stops once every part is done.
		cctx, cancel := context.WithCancel(ctx)
		p := &engine.Problem{Data: g, Pattern: q, GPUMemoryLimit: lim, Threads: 2,
			Progress: func(f float64) {
				if f >= 0.5 {
					cancel()
				}
			}}
		t0 := time.Now()
		_, st, err := e.CountStats(cctx, p)
		cancel()
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
		t.Logf("gpu-memory %d: %d parts, reduced %v (%d vertices, %d edges; %v), partitioned in %v, max part %d B, intra %v, total %v",
			lim, st.Parts, st.Reduced, st.ReducedVertices, st.ReducedEdges, st.ReduceTime, st.PartitionTime, st.MaxPartBytes, st.IntraTime, time.Since(t0))
		for _, s := range b.parts {
			t.Log("  ", s)
		}
	}
}
