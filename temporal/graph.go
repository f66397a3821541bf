// Package temporal owns temporal graphs and temporal motifs: directed edges with integer
// timestamps (parallel events kept), loaded from SNAP "u v t" lines or CSV; temporal patterns (a
// sequence of directed edges over k vertices, matched in time order within a window delta);
// counting and listing their matches by chronological, edge-driven backtracking; and the 36
// two- and three-node, three-edge motifs of Paranjape, Benson and Leskovec ("Motifs in temporal
// networks", WSDM 2017) counted all at once by the paper's fast algorithms (Grid).
//
// Semantics: a match maps pattern vertices injectively to data vertices and pattern edge i to an
// event e_i from the image of its source to the image of its target, with e_1 < e_2 < ... < e_m
// in event order and t(e_m) - t(e_1) <= delta; it is non-induced (other events among the
// vertices do not matter) and each distinct sequence of events is counted once. Event order is
// by timestamp, equal timestamps in input order; with Strict, timestamps must increase strictly.
package temporal

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/submatch/submatch/internal/quote"
)

// Event is one timestamped directed edge between dense vertex ids.
type Event struct {
	Src, Dst uint32
	Time     int64
}

// Graph is a temporal graph: its events in event order (time, then input order), with each
// vertex's outgoing and incoming events and the events of each directed pair indexed.
type Graph struct {
	Events []Event
	orig   []int64 // dense id -> id in the input
	// per vertex: event indexes (ascending) of outgoing / incoming events
	outOff, inOff []uint32
	outEv, inEv   []uint32
	// per vertex: its distinct out-neighbours (ascending) and, for each, a run of pairEv
	pairOff []uint32 // per vertex into pairDst
	pairDst []uint32
	pairRun []uint32 // len(pairDst)+1 offsets into pairEv (runs are consecutive)
	pairEv  []uint32
	// SelfLoops is the number of u->u events dropped at load (they match no pattern).
	SelfLoops int

	gpuMu sync.Mutex
	gpu   *graphOnDevice // the arrays on the GPU, after the first GPU call (gpu.go)
}

// NumVertices is the number of distinct vertex ids seen.
func (g *Graph) NumVertices() int { return len(g.orig) }

// OriginalID is the input's id of dense vertex v.
func (g *Graph) OriginalID(v uint32) int64 { return g.orig[v] }

// Out lists the indexes of v's outgoing events in event order.
func (g *Graph) Out(v uint32) []uint32 { return g.outEv[g.outOff[v]:g.outOff[v+1]] }

// In lists the indexes of v's incoming events in event order.
func (g *Graph) In(v uint32) []uint32 { return g.inEv[g.inOff[v]:g.inOff[v+1]] }

// Pair lists the indexes of the events u->v in event order.
func (g *Graph) Pair(u, v uint32) []uint32 {
	dst := g.pairDst[g.pairOff[u]:g.pairOff[u+1]]
	i, ok := slices.BinarySearch(dst, v)
	if !ok {
		return nil
	}
	k := int(g.pairOff[u]) + i
	return g.pairEv[g.pairRun[k]:g.pairRun[k+1]]
}

// Builder collects events in input order.
type Builder struct {
	ids    map[int64]uint32
	orig   []int64
	events []Event
	loops  int
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder { return &Builder{ids: map[int64]uint32{}} }

func (b *Builder) id(x int64) uint32 {
	if v, ok := b.ids[x]; ok {
		return v
	}
	v := uint32(len(b.orig))
	b.ids[x] = v
	b.orig = append(b.orig, x)
	return v
}

// Add appends the event u->v at time t (self-loops are counted and dropped).
func (b *Builder) Add(u, v, t int64) {
	if u == v {
		b.loops++
		return
	}
	b.events = append(b.events, Event{Src: b.id(u), Dst: b.id(v), Time: t})
}

// Build sorts the events stably by time and indexes them.
func (b *Builder) Build() *Graph {
	g := &Graph{Events: b.events, orig: b.orig, SelfLoops: b.loops}
	slices.SortStableFunc(g.Events, func(x, y Event) int { return cmp.Compare(x.Time, y.Time) })
	n := len(g.orig)
	g.outOff = make([]uint32, n+1)
	g.inOff = make([]uint32, n+1)
	for _, e := range g.Events {
		g.outOff[e.Src+1]++
		g.inOff[e.Dst+1]++
	}
	for v := range n {
		g.outOff[v+1] += g.outOff[v]
		g.inOff[v+1] += g.inOff[v]
	}
	g.outEv = make([]uint32, len(g.Events))
	g.inEv = make([]uint32, len(g.Events))
	op := slices.Clone(g.outOff[:n])
	ip := slices.Clone(g.inOff[:n])
	for i, e := range g.Events {
		g.outEv[op[e.Src]] = uint32(i)
		op[e.Src]++
		g.inEv[ip[e.Dst]] = uint32(i)
		ip[e.Dst]++
	}
	// Pairs: each vertex's out-events stably sorted by destination.
	g.pairEv = slices.Clone(g.outEv)
	g.pairOff = make([]uint32, n+1)
	g.pairRun = []uint32{0}
	for v := range n {
		run := g.pairEv[g.outOff[v]:g.outOff[v+1]]
		slices.SortStableFunc(run, func(x, y uint32) int { return cmp.Compare(g.Events[x].Dst, g.Events[y].Dst) })
		for i, x := range run {
			if i == 0 || g.Events[run[i-1]].Dst != g.Events[x].Dst {
				if i > 0 {
					g.pairRun = append(g.pairRun, g.outOff[v]+uint32(i))
				}
				g.pairDst = append(g.pairDst, g.Events[x].Dst)
			}
		}
		if len(run) > 0 {
			g.pairRun = append(g.pairRun, g.outOff[v+1])
		}
		g.pairOff[v+1] = uint32(len(g.pairDst))
	}
	return g
}

// InputError is a bad line of a temporal edge file (Line 0: the file as a whole).
type InputError struct {
	Path string
	Line int
	Msg  string
	Err  error // the read error, if any
}

func (e *InputError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.Path, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
}

func (e *InputError) Unwrap() error { return e.Err }

// Load reads a temporal edge list: one event "SRC DST TIME" per line, separated by whitespace
// (SNAP) or commas (CSV). Lines starting with # or % are comments; a first line that is not
// three integers is a header (skipped) when it is the first non-comment line. Extra columns
// after the third are ignored.
func Load(path string) (*Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}

// maxLineBytes bounds one line of an event file: a longer one is an error, not an unbounded
// allocation.
const maxLineBytes = 1 << 20

// Read is Load from a reader; name is used in error messages. A file without a single event line
// is an *InputError, and so is a read that fails (a truncated gzip stream) or a line longer than
// 1 MiB, naming the line; a read that ends with a cancelled context's error returns it wrapped.
// The text read together with an error is a line cut short: it is never parsed.
func Read(r io.Reader, name string) (*Graph, error) {
	b := NewBuilder()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLineBytes)
	cut := false // the last token has no newline
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		advance, token, err := bufio.ScanLines(data, atEOF)
		cut = token != nil && (advance == 0 || data[advance-1] != '\n')
		return advance, token, err
	})
	first, events, line := true, 0, 1
	for ; sc.Scan(); line++ {
		if cut && sc.Err() != nil {
			break // the line was cut short by the read error (the whole lines before it are read)
		}
		s := strings.TrimSpace(sc.Text())
		if s == "" || s[0] == '#' || s[0] == '%' {
			continue
		}
		var fs []string
		if strings.Contains(s, ",") {
			fs = strings.Split(s, ",")
			for i := range fs {
				fs[i] = strings.TrimSpace(fs[i])
			}
		} else {
			fs = strings.Fields(s)
		}
		var x [3]int64
		ok := len(fs) >= 3
		for i := 0; ok && i < 3; i++ {
			var err error
			x[i], err = strconv.ParseInt(fs[i], 10, 64)
			ok = err == nil
		}
		if !ok {
			if first {
				first = false
				continue // a header
			}
			return nil, &InputError{Path: name, Line: line, Msg: fmt.Sprintf("expected 'SRC DST TIME' (three integers), got %s", quote.Line(s))}
		}
		first = false
		events++
		b.Add(x[0], x[1], x[2])
	}
	switch err := sc.Err(); {
	case errors.Is(err, bufio.ErrTooLong):
		return nil, &InputError{Path: name, Line: line, Msg: fmt.Sprintf("line longer than %d MiB: not an event file", maxLineBytes>>20), Err: err}
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return nil, fmt.Errorf("reading %s: %w", name, err)
	case err != nil:
		return nil, &InputError{Path: name, Line: line, Msg: "read failed: " + err.Error(), Err: err}
	case events == 0:
		return nil, &InputError{Path: name, Msg: "no events: expected 'SRC DST TIME' lines"}
	}
	return b.Build(), nil
}
