package sgsi

import (
	"context"
	"flag"
	"fmt"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gpu"
)

// The sgsi engine's measured costs, from which it predicts its time (engine.Predictor) for
// --engine auto; re-tune them here after device runs.
const (
	// startSeconds is a count's whole-process floor (H200, 2026-12-02, docs/benchmarks.md "SGSI
	// out of core, fourth pass": github Q_2 and Q_6 356-419 ms whole process in and out of core).
	startSeconds = 0.35
	// OneThreadSlowdown is sgsi's time out of core over the CPU engine's on one thread, for what
	// the direct count does not price (listings, patterns of several components, searches not
	// estimated): wiki-Vote's 4-clique embeddings at a quarter of the graph, 2,032 ms whole
	// process, against 66 ms for the CPU engine on 16 threads, about 1 s on one, before the
	// direct count.
	OneThreadSlowdown = 2
)

// The direct count's model (a count's last step without buffers, direct.go), five terms added
// (the host's collection and the kernels overlap by at most a block): the layout, its filter and
// the host's pass over it (marking every block's lists: a few ns an edge) at LayoutBytesPerSecond
// of GraphBytes; the direct count's uploads (movedBytes) at MovedBytesPerSecond; the last step's
// matches at CountedPerSecond; the rows of the tables the steps before it join the buffered way
// (patterns of four vertices or more) at TableRowsPerSecond; and the rows of the leaf step, when
// one counts the leaves, at LeafRowsPerSecond. For patterns of four vertices or more the rows and
// matches are sgsi's own, estimated in its order up to its leaf step (joinrows.go, branch
// sgsipred); triangles take plan.Estimate's levels (the same joins in any order).
//
// Fit (H200 device host, 16 cores, 2026-12-03, docs/benchmarks.md, issue 21, branch sgsi8), the
// whole process less the graph's load (which every engine pays): unlabelled R-MAT edge factor
// 27, triangles at a quarter of GraphBytes or less, scales 20, 22, 24 (0.59 s warm, 1.71 and
// 7.65 s: sgsi's own total, 0.35 s of start-up added; the kernels 71 ms, 410 ms and 2.56 s, the
// host's collection 0.37, 1.0 and 4.1 s) and 26, SGSI's FR size (27.8 s at --gpu-memory 4GiB,
// 26.3 GB uploaded, and 33.9 s at 1GiB, 66.2 GB). The difference at FR's size, 39.9 GB more for
// 6.1 s, is MovedBytesPerSecond; LayoutBytesPerSecond and CountedPerSecond are those of least
// root mean square log error over the five (0.14): 0.77, 0.96, 0.93, 1.10 and 1.09 times the
// measured times (TestDirectFit). On 4-cliques at scale 20
// (64MiB) sgsi joined 3.4e8 of the 1.25e9 triangles that its last step reads in 30 s, about
// 1.1e7 rows a second, but had counted only 9% of the 4-cliques then: TableRowsPerSecond is 5e6,
// which puts it at 260 s (the CPU engine took 2.1 s); its 4-cycles were cut at 20 s, as were every
// other engine's.
const (
	// LayoutBytesPerSecond is the rate on GraphBytes of the layout, the filter and the host's
	// passes over the graph's lists.
	LayoutBytesPerSecond = 1e9
	// MovedBytesPerSecond is the rate of the direct count's uploads (movedBytes): gathered on
	// the host, copied to the GPU.
	MovedBytesPerSecond = 6.5e9
	// CountedPerSecond is the rate of the last step's matches (plan.Estimate's last level) in
	// the direct count's kernel: 1.8e10, 1.6e10, 1.3e10 and 1.0e10 a second alone at scales 20,
	// 22, 24 and 26.
	CountedPerSecond = 1.5e10
	// TableRowsPerSecond is the rate of the rows of the tables before the last step (patterns
	// of four vertices or more): joined with buffers, spilled to host memory, sorted and cut
	// into the direct count's blocks.
	TableRowsPerSecond = 5e6
	// LeafRowsPerSecond is the rate of the leaf step's rows (leaves.go: the last table's rows,
	// each given its leaves' placements on the host's threads): 0.12-0.14 us a row on the 2-core
	// VM under load (docs/benchmarks.md, branch sgsileaf), taken at 1e7 a second.
	LeafRowsPerSecond = 1e7
	// cliqueRowsPerSquare and cliqueCountedPerSquare stand in for the estimate of a 4-clique,
	// which auto counts without a plan (plan.AsClique): its triangles (the table before the
	// last step) and its 4-cliques per unit of plan.UpwardSquares, the CPU plan's estimate on
	// R-MAT edge factor 27 scales 16, 18, 20: triangles 0.26, 0.23, 0.20 of it, 4-cliques 7.6,
	// 10, 12.4 times it (taken at scale 20's).
	cliqueRowsPerSquare    = 0.2
	cliqueCountedPerSquare = 12
)

// The uploads of the direct count's blocks (movedBytes), over GraphBytes, grow with how many
// times the layout exceeds the region a block may take (a block's lists read most of the
// graph's hubs): in the emulation (TestDirectSchedule, R-MAT edge factor 27, scales 16-20)
// 1.72-1.74x at a quarter of GraphBytes and 4.27-4.43x at a 16th; on the H200 1.62-1.64x at
// 3.5-3.7 times (scales 20, 22, 24), at FR's size 1.68x at 3.7 times and 4.22x at 15 times:
// movedBase plus movedPerRatio a time.
const (
	movedBase     = 0.84
	movedPerRatio = 0.22
)

// coldCompileSeconds is the kernel's cold NVRTC compile, paid by the first count on a machine
// whose kernel cache does not hold it (engine.KernelUser): 259 ms with `submatch gpu-info
// --compile` on a fresh H200 host (2026-12-02), taken 1.5x (hosts differ), on the side of the CPU.
const coldCompileSeconds = 0.4

// Kernels implements engine.KernelUser.
func (Engine) Kernels(*engine.Workload) []engine.Kernel {
	return []engine.Kernel{{File: kernelFile, ColdSeconds: coldCompileSeconds}}
}

// StartSeconds implements engine.Predictor.
func (Engine) StartSeconds() float64 { return startSeconds }

// Predict implements engine.Predictor. sgsi is predicted only for a data graph that does not fit
// the GPU memory (GraphBytes, engine.Workload.InCore; in core its direct count is not measured
// against the other GPU engines yet). A count of a connected pattern with an estimate (or a
// 4-clique) is priced as the direct count does it (see LayoutBytesPerSecond), its tables
// estimated in e's join order (estimateJoin: a few ms of the host's time); anything else as
// OneThreadSlowdown times the planner's time on one thread, taken as its time on Threads threads
// times Threads (no thread scales perfectly, so this is on the slow side). The estimate of the
// tables checks ctx between its chunks (estimateJoin).
func (e Engine) Predict(ctx context.Context, w *engine.Workload) (engine.Prediction, error) {
	if err := engine.PredictionStopped(ctx, "sgsi"); err != nil {
		return engine.Prediction{}, err
	}
	need, ineligible, ok := w.OutOfCoreOnly(GraphBytes)
	if !ok {
		if w.Problem != nil && w.Problem.Data != nil && w.InCore(need) {
			// (Out of core sgsi's direct count beat stmatch in core on R-MAT triangles, 1.1-1.4x
			// at scales 22-26; in core it has not been measured yet.)
			ineligible.Note = "its layout fits the GPU: in core, where sgsi is not measured yet"
		}
		return ineligible, nil
	}
	note := gpu.FormatBytes(need) + " of graph streamed through " + gpu.FormatBytes(w.GPUMemory) + " of GPU memory"
	join, err := e.joinRows(ctx, w)
	if err != nil {
		return engine.Prediction{}, err
	}
	if s, what, ok := directSeconds(w, need, join); ok {
		return engine.Prediction{Seconds: startSeconds + s, OutOfCore: true, Note: note + ", the direct count: " + what}, nil
	}
	s := startSeconds + OneThreadSlowdown*w.HostSeconds*float64(max(1, w.Threads))
	return engine.Prediction{Seconds: s, OutOfCore: true, Note: note}, nil
}

// directSeconds is the direct count's predicted time for w past start-up (need: GraphBytes),
// with what dominates it; false when the model does not apply (a listing, a pattern of several
// components, no estimate). join, when set, is the estimate of sgsi's own tables (joinRows);
// else the tables are priced from the cpu plan's estimate (its levels in the cpu engine's order).
func directSeconds(w *engine.Workload, need uint64, join *joinRows) (float64, string, bool) {
	p := w.Problem
	if w.Listing || p.Pattern == nil || len(p.Pattern.Components()) != 1 {
		return 0, "", false
	}
	n := p.Pattern.NumVertices()
	var counted, rows, leafRows float64
	switch {
	case w.Clique != nil && w.Clique.K == 4:
		u := w.UpwardSquares()
		counted, rows = cliqueCountedPerSquare*u, cliqueRowsPerSquare*u
	case join != nil:
		rows, counted, leafRows = join.tables()
	case w.Clique == nil && w.Estimate != nil && len(w.Estimate.LevelNodes) == n && n >= 2:
		lv := w.Estimate.LevelNodes
		counted = lv[n-1]
		if n >= 4 { // (three vertices: the rows are generated from the edges, no table)
			for _, x := range lv[1 : n-1] {
				rows += x
			}
		}
	default:
		return 0, "", false
	}
	moved := movedBytes(need, w.GPUMemory)
	terms := [5]float64{float64(need) / LayoutBytesPerSecond, moved / MovedBytesPerSecond, counted / CountedPerSecond, rows / TableRowsPerSecond, leafRows / LeafRowsPerSecond}
	whats := [5]string{"the layout's pass", fmt.Sprintf("%.2g bytes uploaded", moved), fmt.Sprintf("%.2g matches counted", counted), fmt.Sprintf("%.2g table rows", rows), fmt.Sprintf("%.2g rows through the leaf step", leafRows)}
	top, sum := 0, 0.0
	for i, t := range terms {
		sum += t
		if t > terms[top] {
			top = i
		}
	}
	if join != nil && top == 3 {
		whats[top] += " (sgsi's order, sampled)"
	}
	return sum, whats[top], true
}

// joinRows estimates the tables of w's count in e's order (estimateJoin) where the direct
// count's model prices tables from an estimate (a count of a connected pattern of four
// vertices or more, not a clique, with the cpu plan's estimate); nil otherwise, or ctx's error.
func (e Engine) joinRows(ctx context.Context, w *engine.Workload) (*joinRows, error) {
	p := w.Problem
	if w.Listing || w.Clique != nil || w.Estimate == nil || p.Data == nil || p.Pattern == nil || p.Pattern.NumVertices() < 4 {
		return nil, nil
	}
	j, ok, err := estimateJoin(ctx, p.Data, p.Pattern, p.Semantics, e.Options, joinSeed)
	if !ok {
		return nil, err
	}
	return &j, nil
}

// joinSeed seeds the prediction's estimate of the tables: the same workload, the same rows.
const joinSeed = 1

// movedBytes is what the direct count's blocks upload for a layout of need bytes through mem
// bytes of GPU memory (movedBase, movedPerRatio), a block taking at most maxBlockWords whatever
// the memory.
func movedBytes(need, mem uint64) float64 {
	region := min(mem, 4*maxBlockWords)
	ratio := 1.0
	if region > 0 {
		ratio = max(1, float64(need)/float64(region))
	}
	return float64(need) * (movedBase + movedPerRatio*ratio)
}

// RegisterFlags implements engine.Configurable: --sgsi-overlap, --sgsi-paper-order, --sgsi-refine,
// --sgsi-join-leaves.
func (e Engine) RegisterFlags(fs *flag.FlagSet) func() (engine.Engine, error) {
	overlap := e.Options.Overlap
	refine := fs.Bool("sgsi-refine", e.Options.Refine, "with --engine sgsi: refine the signature filter's candidates on the host (v stays a candidate of u when each query neighbour of u has a candidate among v's neighbours), as the cpu engine's filter does")
	paper := fs.Bool("sgsi-paper-order", e.Options.PaperOrder, "with --engine sgsi: join in SGSI's order (by |C(u)|/deg(u) and edge label frequencies) instead of the core order (the query's 2-core first, each next vertex the one of most links to those joined, leaves last, as the cpu engine's plan)")
	joinLeaves := fs.Bool("sgsi-join-leaves", e.Options.JoinLeaves, "with --engine sgsi: join a count's leaves (pattern vertices of degree one) and closing vertices (every neighbour joined before them) as the other vertices instead of counting each row of the last table's leaf placements on the host, as the cpu engine's leaf groups")
	fs.TextVar(&overlap, "sgsi-overlap", e.Options.Overlap, "with --engine sgsi: which of the direct count's blocks run as a pipeline on two CUDA streams, the next upload beside the last kernel, `MODE`: pieces (rows generated from edges, streamed in pieces), all (blocks of table rows too) or off (serial, on the default stream)")
	return func() (engine.Engine, error) {
		o := e.Options
		o.Overlap = overlap
		o.PaperOrder = *paper
		o.Refine = *refine
		o.JoinLeaves = *joinLeaves
		return Engine{Options: o}, nil
	}
}
