// Package submatch finds, counts and lists the occurrences of a small pattern graph in a large
// data graph, on the CPU and on NVIDIA GPUs, exactly.
//
// Load a data graph in any format the command reads (or Read one from an io.Reader; gzip and
// zstd are detected), parse a pattern in the inline syntax, and count or list:
//
//	g, err := submatch.Load("graph.txt")
//	p, err := submatch.ParsePattern("(a)-(b)-(c)-(a)")
//	res, err := submatch.Count(ctx, g, p, nil)
//	fmt.Println(res.Count)
//
// Counts follow one of three conventions, chosen in Options: embeddings (the default: every
// injective map of pattern vertices to data vertices that keeps the pattern's edges and labels),
// Induced (non-adjacent pattern vertices must map to non-adjacent data vertices) and Unique (each
// distinct subgraph once: embeddings divided by the pattern's automorphisms). Counts are uint64;
// one that does not fit is ErrOverflow, never a wrapped number.
//
// Every engine is linked in: "auto" (the default) chooses per query between the CPU engine and
// the GPU engines from an estimate of the search, and runs on the CPU where there is no GPU, with
// the same results. Cancelling the context stops any engine within a second or so; Count then
// returns the partial count with Result.Partial set, and the context's error.
package submatch

import (
	"context"
	"io"
	"strconv"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// Errors that callers may test with errors.Is or errors.As.
var (
	// ErrOverflow: a count does not fit in a uint64.
	ErrOverflow = engine.ErrOverflow
	// ErrMemory: the problem cannot be solved within Options.MemoryLimit (or GPUMemoryLimit).
	ErrMemory = engine.ErrMemory
	// ErrNoGPU: a GPU engine was named and no usable NVIDIA GPU was found.
	ErrNoGPU = gpu.ErrNoGPU
	// ErrUnknownEngine: Options.Engine names no engine.
	ErrUnknownEngine = engine.ErrUnknownEngine
)

// InputError is bad input: a malformed file or pattern. It names the file (or "<input>"), the
// line when there is one, and what was expected.
type InputError = formats.InputError

// Graph is a data graph: undirected, with integer vertex and edge labels. It is immutable and
// safe for concurrent use by any number of counts.
type Graph struct{ g *graph.Graph }

// Load reads a data graph from path, in any format submatch reads, detected from the content:
// SubgraphMatching t/v/e files, GSI, SNAP edge lists, CSV, GraphMiner folders, LAD, the
// Glasgow solver's CSV, and .smg snapshots (memory-mapped). gzip and zstd files are decompressed
// transparently; "-" is standard input.
func Load(path string) (*Graph, error) {
	return LoadContext(context.Background(), path)
}

// LoadContext is Load that stops with ctx's error when ctx ends.
func LoadContext(ctx context.Context, path string) (*Graph, error) {
	g, err := formats.LoadContext(ctx, path, formats.Options{})
	if err != nil {
		return nil, err
	}
	return &Graph{g}, nil
}

// Read reads a data graph from r. format names the format ("sm", "edgelist", "csv", "smg", ...:
// Formats lists them), or is "" to detect it from the content. gzip and zstd streams are
// decompressed transparently.
func Read(ctx context.Context, r io.Reader, format string) (*Graph, error) {
	g, err := formats.Read(ctx, r, format, formats.Options{})
	if err != nil {
		return nil, err
	}
	return &Graph{g}, nil
}

// Formats lists the names of the formats Read accepts.
func Formats() []string { return formats.Names() }

// FromInternal wraps a graph built with package graph (graph.Builder) for this API.
func FromInternal(g *graph.Graph) *Graph { return &Graph{g} }

// Internal returns the graph as package graph stores it, for the packages below this API.
func (g *Graph) Internal() *graph.Graph { return g.g }

// NumVertices returns the number of vertices.
func (g *Graph) NumVertices() int { return g.g.NumVertices() }

// NumEdges returns the number of (undirected) edges.
func (g *Graph) NumEdges() uint64 { return g.g.NumEdges() }

// VertexName returns how the input named the vertex with id (an id as Matches reports it): the
// integer id itself, or the string name for inputs that name vertices by strings (CSV), whose
// ids are then their positions in the input's order of first appearance.
func (g *Graph) VertexName(id int64) string {
	if g.g.HasVertexNames() && id >= 0 && id < int64(g.g.NumVertices()) {
		return g.g.VertexName(uint32(id))
	}
	return strconv.FormatInt(id, 10)
}

// Pattern is a query graph of 1 to 32 vertices, with exact or wildcard labels, possibly
// disconnected.
type Pattern struct{ p *pattern.Pattern }

// ParsePattern reads the inline syntax: "(a)-(b)-(c)-(a)" is a triangle, "(a:1)-[2]-(b)" an edge
// labelled 2 from a vertex labelled 1 to a vertex of any label, "(a)-(b), (c)" an edge and an
// isolated vertex. The README's "Patterns" section has the whole syntax.
func ParsePattern(s string) (*Pattern, error) {
	p, err := pattern.Parse(s)
	if err != nil {
		return nil, err
	}
	return &Pattern{p}, nil
}

// LoadPattern reads a pattern from a file in any format Load reads.
func LoadPattern(path string) (*Pattern, error) {
	p, err := formats.LoadPattern(path, formats.Options{})
	if err != nil {
		return nil, err
	}
	return &Pattern{p}, nil
}

// NumVertices returns the number of pattern vertices.
func (p *Pattern) NumVertices() int { return p.p.NumVertices() }

// VertexNames returns the pattern's vertex names, in the order of the ids Matches reports.
func (p *Pattern) VertexNames() []string {
	names := make([]string, p.p.NumVertices())
	for u := range names {
		names[u] = p.p.Name(u)
	}
	return names
}

// String renders the pattern in the inline syntax.
func (p *Pattern) String() string { return p.p.String() }

// Internal returns the pattern as package pattern stores it.
func (p *Pattern) Internal() *pattern.Pattern { return p.p }
