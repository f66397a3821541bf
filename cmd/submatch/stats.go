package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/bits"
	"path/filepath"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/graph"
)

func init() {
	registerCommand(command{name: "stats", summary: "print the size, degrees and label histograms of a graph", run: runStats})
}

// labelCount is one histogram entry.
type labelCount struct {
	Label uint32 `json:"label"`
	Count uint64 `json:"count"`
}

// degreeBucket counts the vertices whose degree lies in [Min, Max].
type degreeBucket struct {
	Min   uint64 `json:"min"`
	Max   uint64 `json:"max"`
	Count uint64 `json:"vertices"`
}

// graphStats is the output of stats (--json prints it as one object).
type graphStats struct {
	Path             string          `json:"path"`
	Vertices         int             `json:"vertices"`
	Edges            uint64          `json:"edges"`
	MaxDegree        int             `json:"max_degree"`
	AvgDegree        float64         `json:"avg_degree"`
	IsolatedVertices uint64          `json:"isolated_vertices"`
	VertexLabels     int             `json:"vertex_labels"`
	TopVertexLabels  []labelCount    `json:"top_vertex_labels"`
	EdgeLabels       int             `json:"edge_labels"`
	TopEdgeLabels    []labelCount    `json:"top_edge_labels"`
	DegreeHistogram  []degreeBucket  `json:"degree_histogram"`
	RemappedIDs      bool            `json:"remapped_ids"`
	LoadMS           float64         `json:"load_ms"`
	Structure        *structureStats `json:"structure,omitempty"`
	// Formats has, by engine, the layout reports of the engines with a layout of their own
	// (engine.LayoutReporter), with --formats.
	Formats map[string]any `json:"formats,omitempty"`
	layouts []engine.Layout
}

const statsTopLabels = 20

// computeStats gathers the statistics of g.
func computeStats(g *graph.Graph) graphStats {
	n := g.NumVertices()
	s := graphStats{Vertices: n, Edges: g.NumEdges(), RemappedIDs: g.HasOriginalIDs()}
	vl := map[uint32]uint64{}
	el := map[uint32]uint64{}
	var buckets []uint64
	for v := 0; v < n; v++ {
		vl[g.VertexLabel(uint32(v))]++
		d := g.Degree(uint32(v))
		s.MaxDegree = max(s.MaxDegree, d)
		b := bits.Len(uint(d)) // 0 for degree 0, k for degrees in [2^(k-1), 2^k)
		for len(buckets) <= b {
			buckets = append(buckets, 0)
		}
		buckets[b]++
		if d == 0 {
			s.IsolatedVertices++
		}
		if g.HasEdgeLabels() {
			els := g.NeighborEdgeLabels(uint32(v))
			for i, w := range g.Neighbors(uint32(v)) {
				if w > uint32(v) {
					el[els[i]]++
				}
			}
		}
	}
	if !g.HasEdgeLabels() && s.Edges > 0 {
		el[0] = s.Edges
	}
	if n > 0 {
		s.AvgDegree = 2 * float64(s.Edges) / float64(n)
	}
	s.VertexLabels, s.TopVertexLabels = len(vl), topCounts(vl)
	s.EdgeLabels, s.TopEdgeLabels = len(el), topCounts(el)
	for b, c := range buckets {
		if c == 0 {
			continue
		}
		lo, hi := uint64(0), uint64(0)
		if b > 0 {
			lo, hi = 1<<(b-1), 1<<b-1
		}
		s.DegreeHistogram = append(s.DegreeHistogram, degreeBucket{Min: lo, Max: hi, Count: c})
	}
	return s
}

// topCounts returns a histogram's statsTopLabels largest entries by decreasing count, then
// increasing label.
func topCounts(m map[uint32]uint64) []labelCount {
	out := make([]labelCount, 0, len(m))
	for l, c := range m {
		out = append(out, labelCount{l, c})
	}
	slices.SortFunc(out, func(a, b labelCount) int {
		if a.Count != b.Count {
			return cmp.Compare(b.Count, a.Count)
		}
		return cmp.Compare(a.Label, b.Label)
	})
	return out[:min(len(out), statsTopLabels)]
}

// writeLabelTable writes the histogram of the vertex or edge labels (kind; items: what they
// label, total of them): the number of distinct labels, then a table of the top ones in tw.
func writeLabelTable(w io.Writer, tw *tabwriter.Writer, kind, items string, distinct int, top []labelCount, total uint64) {
	fmt.Fprintf(w, "\n%s labels: %d distinct", kind, distinct)
	if distinct > len(top) {
		fmt.Fprintf(w, " (top %d shown)", len(top))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(tw, "label\t%s\tshare\t\n", items)
	for _, lc := range top {
		fmt.Fprintf(tw, "%d\t%d\t%s\t\n", lc.Label, lc.Count, percent(lc.Count, total))
	}
	tw.Flush()
}

func runStats(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("stats", "DATA",
		"Prints the number of vertices and edges, the maximum and average degree, the vertex label histogram\n"+
			"(top 20), the edge label histogram (top 20), the degree distribution in power-of-two buckets, and whether\n"+
			"the input's vertex ids were remapped to dense ids; then, labels ignored, the connected components\n"+
			"(isolated vertices count), the triangles and the global clustering coefficient (3 x triangles /\n"+
			"wedges), counted on all cores (--no-structure skips them). DATA may be - for standard input.\n"+
			"--formats adds the reports of the engines that lay the graph out in a structure of their own:\n"+
			"GENEVA's Table 2 (the bytes of plain CSR, interval-PCSR, total and largest edge-label partition,\n"+
			"and GSI's hash-PCSR, with the interval counts GENMAP reaches).")
	var (
		verbose bool
		load    loadFlags
		jsonOut bool
		layouts bool
	)
	fs.BoolVar(&verbose, "v", false, "log debug records (load time) on stderr")
	load.register(fs)
	fs.BoolVar(&jsonOut, "json", false, "print one JSON object")
	noStructure := fs.Bool("no-structure", false, "skip the components, triangles and clustering coefficient")
	degreePlot := fs.String("degree-plot", "", "also draw the degree distribution (vertices per power-of-two degree bucket, log scale) as a PNG `FILE`")
	fs.BoolVar(&layouts, "formats", false, "also lay the graph out as each engine with a layout of its own does, and report its bytes (GENEVA Table 2)")
	pos, err := parseArgs(fs, args, stdout)
	if err != nil {
		return exitCode(stderr, err)
	}
	if len(pos) != 1 {
		return exitCode(stderr, usagef("stats needs exactly one graph (run 'submatch help stats')"))
	}
	if *degreePlot != "" {
		if err := checkFileOutput("--degree-plot", *degreePlot, "name a regular file", pos[0]); err != nil {
			return exitCode(stderr, err)
		}
	}
	start := time.Now()
	g, err := load.checkAndLoad(ctx, pos[0], verbose, stderr)
	if err != nil {
		return exitCode(stderr, err)
	}
	s := computeStats(g)
	s.Path = pos[0]
	s.LoadMS = ms(time.Since(start))
	if !*noStructure {
		st := &structureStats{}
		st.Components, st.LargestComponent, st.LargestComponentEdge = components(g)
		start := time.Now()
		if st.Triangles, st.Wedges, err = countTriangles(ctx, g); err != nil && ctx.Err() != nil {
			return exitCode(stderr, &stoppedError{msg: pos[0] + ": " + stopReason(ctx, 0) + " while counting triangles; nothing printed (--no-structure skips them)", err: err})
		} else if err != nil {
			return exitCode(stderr, fmt.Errorf("%s: counting triangles: %w", pos[0], err))
		}
		st.TrianglesMS = ms(time.Since(start))
		if st.Wedges > 0 {
			st.GlobalClustering = 3 * float64(st.Triangles) / float64(st.Wedges)
		}
		s.Structure = st
	}
	if layouts {
		s.Formats = map[string]any{}
		for _, e := range engine.Engines() {
			lr, ok := e.(engine.LayoutReporter)
			if !ok {
				continue
			}
			l, err := lr.LayoutReport(ctx, g)
			if err != nil {
				return exitCode(stderr, fmt.Errorf("%s: %s's layout: %w", pos[0], e.Name(), err))
			}
			s.Formats[e.Name()] = l.Data
			s.layouts = append(s.layouts, l)
		}
	}
	if *degreePlot != "" {
		if err := formats.WriteAtomic(*degreePlot, func(w io.Writer) error {
			return writeDegreePlot(w, "degree distribution of "+filepath.Base(pos[0]), s.DegreeHistogram)
		}); err != nil {
			return exitCode(stderr, err)
		}
	}
	if jsonOut {
		if err := json.NewEncoder(stdout).Encode(s); err != nil {
			return exitCode(stderr, err)
		}
		return exitOK
	}
	printStats(stdout, &s)
	return exitOK
}

func printStats(w io.Writer, s *graphStats) {
	fmt.Fprintf(w, "graph          %s\n", s.Path)
	fmt.Fprintf(w, "vertices       %d\n", s.Vertices)
	fmt.Fprintf(w, "edges          %d\n", s.Edges)
	fmt.Fprintf(w, "max degree     %d\n", s.MaxDegree)
	fmt.Fprintf(w, "avg degree     %.3f\n", s.AvgDegree)
	fmt.Fprintf(w, "isolated       %d\n", s.IsolatedVertices)
	fmt.Fprintf(w, "remapped ids   %s\n", yesNo(s.RemappedIDs))
	fmt.Fprintf(w, "load time      %.3f ms\n", s.LoadMS)
	if st := s.Structure; st != nil {
		fmt.Fprintf(w, "components     %d (largest: %d vertices, %d edges)\n", st.Components, st.LargestComponent, st.LargestComponentEdge)
		fmt.Fprintf(w, "triangles      %d (in %.3f ms)\n", st.Triangles, st.TrianglesMS)
		fmt.Fprintf(w, "clustering     %.6f (global: 3 x triangles / %d wedges)\n", st.GlobalClustering, st.Wedges)
	}

	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.AlignRight)
	writeLabelTable(w, tw, "vertex", "vertices", s.VertexLabels, s.TopVertexLabels, uint64(s.Vertices))
	writeLabelTable(w, tw, "edge", "edges", s.EdgeLabels, s.TopEdgeLabels, s.Edges)

	fmt.Fprintln(w, "\ndegree distribution:")
	fmt.Fprint(tw, "degree\tvertices\tshare\t\n")
	for _, b := range s.DegreeHistogram {
		r := strconv.FormatUint(b.Min, 10)
		if b.Max != b.Min {
			r += "-" + strconv.FormatUint(b.Max, 10)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t\n", r, b.Count, percent(b.Count, uint64(s.Vertices)))
	}
	tw.Flush()

	for _, l := range s.layouts {
		fmt.Fprintf(w, "\n%s:\n", l.Title)
		for _, line := range l.Lines {
			fmt.Fprintln(w, line)
		}
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func percent(a, b uint64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}
