package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/submatch/submatch/bench"
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/bytesize"
	"github.com/submatch/submatch/internal/sysmem"
)

func init() {
	registerCommand(command{name: "gen", summary: "generate R-MAT data graphs and random-walk queries (gen rmat, gen queries)", run: runGen})
}

func runGen(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "rmat":
			return runGenRMAT(ctx, args[1:], stdout, stderr)
		case "queries":
			return runGenQueries(ctx, args[1:], stdout, stderr)
		case "-h", "-help", "--help", "help":
			fmt.Fprint(stdout, genUsage)
			return exitOK
		}
	}
	return exitCode(stderr, usagef("gen needs a subcommand: rmat or queries (run 'submatch gen -h')"))
}

const genUsage = `Usage: submatch gen rmat [flags] -o OUT
       submatch gen queries [flags] DATA --dir OUT

  rmat     a Graph500-style R-MAT data graph (deterministic for a seed)
  queries  random-walk queries sampled from a data graph (each has at least one match)

Run 'submatch gen rmat -h' or 'submatch gen queries -h' for their flags.
`

// writeGraphFile writes g in the format path's extension names (formats.FormatForPath; t/v/e
// text for any other name) through a temporary file renamed into place; unless sync, without
// waiting for it to reach the disk. Once ctx is done the write stops, its temporary file
// removed (formats.WriteFileContext).
func writeGraphFile(ctx context.Context, path string, g *graph.Graph, sync bool) error {
	return formats.WriteFileContext(ctx, path, g, graphFileFormat(path), sync)
}

// graphFileFormat is the format gen writes path in: the one its extension names
// (formats.FormatForPath), else t/v/e text.
func graphFileFormat(path string) string {
	if format, ok := formats.FormatForPath(path); ok {
		return format
	}
	return "sm"
}

func runGenRMAT(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("gen rmat", "-o OUT",
		"Generates a Graph500-style R-MAT graph (a=0.57, b=0.19, c=0.19, d=0.05): 2^scale vertices and\n"+
			"edge-factor * 2^scale edge samples, self-loops dropped and duplicates merged. The same flags\n"+
			"always give the same graph, whatever the number of cores. Writes the format OUT's extension\n"+
			"names (.smg snapshot, .csv, .graphml, .txt edge list: refused when the graph has isolated vertices,\n"+
			"as R-MAT graphs of scale 5 and more do at the default edge factor, or labels), else the t/v/e text format.")
	var (
		opts     gen.RMATOptions
		seed     uint64
		labelDis string
		out      string
		sync     bool
		memory   string
	)
	fs.IntVar(&opts.Scale, "scale", 16, "2^`S` vertices")
	fs.IntVar(&opts.EdgeFactor, "edge-factor", 16, "`F` * 2^scale edge samples")
	fs.IntVar(&opts.VertexLabels, "vertex-labels", 1, "`L` vertex labels, 0..L-1 (1: unlabelled)")
	fs.StringVar(&labelDis, "label-dist", "uniform", "vertex label distribution `DIST`: uniform, or zipf (label i with weight 1/(i+1))")
	fs.IntVar(&opts.EdgeLabels, "edge-labels", 1, "`K` edge labels, 0..K-1 (1: unlabelled)")
	fs.Uint64Var(&seed, "seed", 1, "random `SEED`")
	fs.StringVar(&out, "o", "", "output `FILE` (.smg: binary snapshot; .csv, .graphml, .txt: those; else t/v/e text)")
	fs.BoolVar(&sync, "sync", true, "wait for the file to reach the disk before renaming it into place (false: a graph of tens of GB is\nread back from the page cache long before the disk has it)")
	fs.StringVar(&memory, "memory", "", "refuse to start when the memory the graph needs at its peak (an upper bound, from the flags) passes `SIZE`,\n"+
		"e.g. 64GiB (default: the memory available when it starts, from /proc/meminfo and the memory cgroup)")
	pos, err := parseArgs(fs, args, stdout)
	if err != nil {
		return exitCode(stderr, err)
	}
	if len(pos) > 0 || out == "" {
		return exitCode(stderr, usagef("gen rmat takes no arguments and needs -o OUT (run 'submatch gen rmat -h')"))
	}
	if err := checkFileOutput("gen rmat: -o", out, "name a regular file"); err != nil { // before minutes of generating
		return exitCode(stderr, err)
	}
	opts.Seed = seed
	if opts.LabelDistribution, err = gen.ParseLabelDistribution(labelDis); err != nil {
		return exitCode(stderr, usagef("--label-dist: %v", err))
	}
	if opts.Scale < 1 || opts.Scale > gen.MaxRMATScale || opts.EdgeFactor < 1 || opts.VertexLabels < 1 || opts.EdgeLabels < 1 {
		return exitCode(stderr, usagef("gen rmat: want 1 <= --scale <= %d and --edge-factor, --vertex-labels, --edge-labels >= 1", gen.MaxRMATScale))
	}
	if uint64(opts.VertexLabels) > 1<<32 || uint64(opts.EdgeLabels) > 1<<32 { // labels are 32-bit: more wrapped around
		return exitCode(stderr, usagef("gen rmat: --vertex-labels and --edge-labels are at most %d (labels 0..4294967295)", uint64(1)<<32))
	}
	if err := opts.Check(); err != nil { // too many edge samples, say: the input's fault
		return exitCode(stderr, usagef("gen %v", err))
	}
	if graphFileFormat(out) == "edgelist" && opts.VertexLabels > 1 { // known now: refuse before generating
		return exitCode(stderr, usagef("gen rmat: an edge list (%s) cannot hold vertex labels: name a .smg, .graph, .csv or .graphml file", out))
	}
	limit, err := parseSize("--memory", memory)
	if err != nil {
		return exitCode(stderr, err)
	}
	need, err := rmatNeed(opts, out)
	if err != nil {
		return exitCode(stderr, usagef("gen %v", err))
	}
	if err := checkRMATMemory(opts, need, limit); err != nil {
		return exitCode(stderr, err)
	}
	start := time.Now()
	g, err := gen.RMAT(opts)
	if err != nil {
		return exitCode(stderr, err)
	}
	stopped := func() int {
		return exitCode(stderr, &stoppedError{msg: "gen rmat: " + stopReason(ctx, 0) + "; " + out + " not written", err: ctx.Err()})
	}
	if ctx.Err() != nil { // Ctrl-C while generating (RMAT takes no context): nothing written
		return stopped()
	}
	if lost := formats.Lossy(g, graphFileFormat(out)); lost != nil { // known only now: isolated vertices
		return exitCode(stderr, usagef("gen rmat: the graph has %s, which an edge list (%s) cannot hold: name a .smg, .graph, .csv or .graphml file", strings.Join(lost, " and "), out))
	}
	genTime := time.Since(start)
	start = time.Now()
	// The generator's temporaries (as large as the graph) go back to the system before the
	// file's pages take the memory.
	debug.FreeOSMemory()
	if err := writeGraphFile(ctx, out, g, sync); err != nil {
		if ctx.Err() != nil {
			return stopped()
		}
		return exitCode(stderr, fmt.Errorf("writing %s: %w", out, err))
	}
	fmt.Fprintf(stdout, "%s: R-MAT scale %d, %d vertices, %d edges (max degree %d), generated in %s, written in %s, peak RSS %.2f GB (bound %.2f GB)\n",
		out, opts.Scale, g.NumVertices(), g.NumEdges(), g.MaxDegree(), fmtDuration(genTime), fmtDuration(time.Since(start)), float64(bench.PeakRSS())/1e9, float64(need)/1e9)
	return exitOK
}

// hostAvailable is sysmem.Available (a variable for tests: a host with that much memory free).
var hostAvailable = sysmem.Available

// rmatNeed bounds the memory gen rmat needs to generate opts's graph and write it to path: the
// generator's peak, or the graph beside the writer's scratch, whichever is larger, and the
// runtime's allowance (gen.RMATOptions.Memory, formats.WriteScratch).
func rmatNeed(opts gen.RMATOptions, path string) (uint64, error) {
	m, err := opts.Memory()
	if err != nil {
		return 0, err
	}
	write := formats.WriteScratch(graphFileFormat(path), uint64(1)<<opts.Scale, m.Graph)
	return gen.RMATRuntimeBytes + max(m.Peak, m.Graph+write), nil
}

// checkRMATMemory refuses (exit status 2) a graph that needs more than limit (--memory) or, with
// no limit, than the host has available now; nil when it fits or nothing is known.
func checkRMATMemory(opts gen.RMATOptions, need, limit uint64) error {
	bound, what := limit, "--memory"
	if limit == 0 {
		if bound = hostAvailable(); bound == 0 {
			return nil // not Linux, or /proc unreadable: nothing to compare with
		}
		what = "the memory available"
	}
	if need <= bound {
		return nil
	}
	return &inputError{err: fmt.Errorf("gen rmat: scale %d with edge factor %d needs up to %s of memory at its peak, more than %s (%s); lower --scale or --edge-factor, or set --memory if more will be free",
		opts.Scale, opts.EdgeFactor, bytesize.IEC(need), what, bytesize.IEC(bound))}
}

func runGenQueries(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("gen queries", "DATA --dir OUT",
		"Samples random-walk queries from the data graph DATA (any format): for each size and i in\n"+
			"0..count-1, a walk from a random vertex collects that many distinct vertices, and the query\n"+
			"keeps their labels and the edges among them (dense: all of them; sparse: the walk's tree plus\n"+
			"random others while the average degree stays below 3). Every query has at least one match.\n"+
			"Writes OUT/q_<size>_<i>.graph in the t/v/e format. The i-th query of a size uses the seed\n"+
			"derived from (--seed, size, i), as the benchmark suite does.")
	var (
		load    loadFlags
		sizes   string
		count   int
		seed    uint64
		density string
		dir     string
	)
	load.register(fs)
	fs.StringVar(&sizes, "sizes", "4,6,8,12", "comma-separated query `SIZES` (vertices)")
	fs.IntVar(&count, "count", 10, "`N` queries of each size")
	fs.Uint64Var(&seed, "seed", 1, "random `SEED`")
	fs.StringVar(&density, "density", "dense", "`KIND` of query: dense (every edge among the walked vertices) or sparse")
	fs.StringVar(&dir, "dir", "", "output `DIR` (created if needed)")
	pos, err := parseArgs(fs, args, stdout)
	if err != nil {
		return exitCode(stderr, err)
	}
	if len(pos) != 1 || dir == "" {
		return exitCode(stderr, usagef("gen queries needs one data graph and --dir OUT (run 'submatch gen queries -h')"))
	}
	sizeList, err := parseIntList(sizes, 1)
	if err != nil {
		return exitCode(stderr, usagef("--sizes: %v", err))
	}
	if count < 1 || count > maxQueries {
		return exitCode(stderr, usagef("--count must be in 1..%d", maxQueries))
	}
	opts := gen.QueryOptions{}
	if opts.Density, err = gen.ParseDensity(density); err != nil {
		return exitCode(stderr, usagef("--density: %v", err))
	}
	if err := checkOutputDir("--dir", dir); err != nil { // before the load
		return exitCode(stderr, err)
	}
	log := newLogger(stderr, false)
	g, err := loadData(ctx, pos[0], load.options(log), log)
	if err != nil {
		return exitCode(stderr, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return exitCode(stderr, fmt.Errorf("--dir %s: %w", dir, err))
	}
	written := 0
	for _, size := range sizeList {
		for i := range count {
			if err := ctx.Err(); err != nil { // Ctrl-C, or a kill: it went on writing files
				return exitCode(stderr, fmt.Errorf("gen queries interrupted after %d queries written to %s: %w", written, dir, err))
			}
			p, err := gen.RandomWalkQuery(g, size, gen.QuerySeed(seed, size, i), opts)
			if err != nil {
				return exitCode(stderr, &inputError{msg: fmt.Sprintf("%s: %v", pos[0], err), err: err})
			}
			path := filepath.Join(dir, fmt.Sprintf("q_%d_%d.graph", size, i))
			if err := formats.WriteAtomic(path, func(w io.Writer) error { return formats.WritePatternSM(w, p) }); err != nil {
				return exitCode(stderr, fmt.Errorf("writing %s: %w", path, err))
			}
			written++
		}
	}
	fmt.Fprintf(stdout, "%s: %d %s queries written to %s\n", pos[0], written, opts.Density, dir)
	return exitOK
}

// maxQueries bounds gen queries' --count: a file each, so that a mistyped count does not fill
// the disk with billions of them.
const maxQueries = 1 << 20

// parseIntList reads a comma-separated list of integers, none below least.
func parseIntList(s string, least int) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < least {
			return nil, fmt.Errorf("want comma-separated integers >= %d, got %q", least, f)
		}
		out = append(out, n)
	}
	return out, nil
}
